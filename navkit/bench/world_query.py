"""World query benchmark: ``python -m navkit.bench.world_query [--quick] [--json] [--size N]``.

(a) A Moving AI map as a world (chunk 64): bounded local queries (the
``bounded`` preset) World vs Pathfinder, the same queries in the same run;
long scenario queries through World's hierarchy vs Pathfinder JPS and
navkit's HPAStar (median microseconds, suboptimality); the cold cost of a
local query whose block is not built yet. (b) A procedural world
(``procedural:rooms``): random bounded queries and long cross-world
queries, medians, peak RSS, chunks touched.
"""

from __future__ import annotations

import resource
import sys
import time
from typing import Annotated, Any

import numpy as np
import typer

from ..grid import NavGrid
from ..query.hpa import HPAStar
from ..query.pathfinder import Pathfinder
from ..world.local import BOUNDED
from ..world.store import ChunkStore
from ..world.world import World
from . import options as opt
from .common import default_data_dir, load_map

__all__ = ["main", "run"]


def _med_us(ts: list[float]) -> float:
    return float(np.median(ts) * 1e6) if ts else float("nan")


def _local_pairs(walk: np.ndarray, n: int, rng: np.random.Generator) -> list[tuple[Any, Any]]:
    free = np.argwhere(walk)
    out: list[tuple[Any, Any]] = []
    while len(out) < n:
        z, x = free[rng.integers(len(free))]
        dx, dz = rng.integers(-15, 16, 2)
        gx, gz = int(x + dx), int(z + dz)
        if 0 <= gx < walk.shape[1] and 0 <= gz < walk.shape[0] and walk[gz, gx]:
            out.append(((int(x), int(z)), (gx, gz)))
    return out


def part_a(name: str, quick: bool, log: Any) -> dict[str, Any]:
    data = load_map(default_data_dir(), name, 30 if quick else 200)
    grid = NavGrid(data.walkable)
    pf = Pathfinder(grid, "exact")
    world = World(ChunkStore.from_grid(grid, chunk=64), "exact", small_world_cells=0)
    rng = np.random.default_rng(0)
    pairs = _local_pairs(grid.walkable, 300 if quick else 3000, rng)
    # cold: the first query of each block
    t_cold = []
    for s, g in pairs[:50]:
        before = world.stats().blocks_built
        t0 = time.perf_counter()
        world.find_path_cells(s, g, preset="bounded")
        dt = time.perf_counter() - t0
        if world.stats().blocks_built > before:
            t_cold.append(dt)
    t_pf, t_w, same = [], [], 0
    for rnd in range(2):
        for s, g in pairs:
            win = BOUNDED.window_for(s, g)
            t0 = time.perf_counter()
            a = pf.find_path_cells(s, g, window=win, budget=BOUNDED.budget)
            t1 = time.perf_counter()
            b = world.find_path_cells(s, g, preset="bounded")
            t2 = time.perf_counter()
            if rnd == 1:
                t_pf.append(t1 - t0)
                t_w.append(t2 - t1)
                same += int(a.status == b.status and a.cost_int == b.cost_int
                            and np.array_equal(a.cells, b.cells))
    local = {"queries": len(pairs), "pathfinder_us": _med_us(t_pf), "world_us": _med_us(t_w),
             "ratio": _med_us(t_w) / _med_us(t_pf), "identical": same,
             "cold_block_us": _med_us(t_cold)}
    log(f"[{data.name}] local bounded: Pathfinder {local['pathfinder_us']:.1f} us, "
        f"World {local['world_us']:.1f} us, ratio {local['ratio']:.2f}, identical "
        f"{same}/{len(pairs)}, cold block {local['cold_block_us']:.0f} us")
    hpa = HPAStar(grid, "exact")
    t_j, t_h, t_wl, sub_h, sub_w = [], [], [], [], []
    for (sx, sz), (gx, gz) in zip(data.starts.tolist(), data.goals.tolist(), strict=True):
        s, g = (sx, sz), (gx, gz)
        t0 = time.perf_counter()
        o = pf.find_path_cells(s, g, algorithm="jps")
        t1 = time.perf_counter()
        h = hpa.find_path_cells(s, g)
        t2 = time.perf_counter()
        w = world.find_path_cells(s, g)
        t3 = time.perf_counter()
        t_j.append(t1 - t0)
        t_h.append(t2 - t1)
        t_wl.append(t3 - t2)
        if o.cost_int > 0:
            sub_h.append(h.cost_int / o.cost_int)
            sub_w.append(w.cost_int / o.cost_int)
    t_warm: list[float] = []  # again, with every chunk's graph entry built
    for s, g in zip(map(tuple, data.starts.tolist()), map(tuple, data.goals.tolist()),
                    strict=True):
        t0 = time.perf_counter()
        world.find_path_cells(s, g)
        t_warm.append(time.perf_counter() - t0)
    long = {"queries": len(t_j), "world_warm_us": _med_us(t_warm), "jps_us": _med_us(t_j),
            "hpa_us": _med_us(t_h), "world_us": _med_us(t_wl),
            "hpa_subopt_median": float(np.median(sub_h)),
            "hpa_subopt_max": float(np.max(sub_h)), "world_subopt_median": float(np.median(sub_w)),
            "world_subopt_max": float(np.max(sub_w)),
            "graph_entries": world.stats().graph_entries_cached}
    log(f"[{data.name}] long: JPS {long['jps_us']:.0f} us, HPAStar {long['hpa_us']:.0f} us "
        f"(subopt median {long['hpa_subopt_median']:.4f} max {long['hpa_subopt_max']:.4f}), "
        f"World {long['world_us']:.0f} us cold, {long['world_warm_us']:.0f} us warm "
        f"(subopt median {long['world_subopt_median']:.4f} max {long['world_subopt_max']:.4f})")
    return {"map": data.name, "local": local, "long": long}


def part_b(size: int, quick: bool, log: Any, n_long: int | None = None,
           span: int | None = None, source: str | None = None,
           cap_mib: int | None = None) -> dict[str, Any]:
    src = source or f"procedural:rooms?seed=1&width={size}&depth={size}"
    # 16 MiB: random queries over a 10^10-cell world reuse almost nothing from a bigger
    # cache (as fast as 32 MiB, docs/world-queries.md); the library's default (64 MiB)
    # suits games with locality
    cap = (cap_mib if cap_mib is not None else 16) << 20
    t_open = time.perf_counter()
    if src.endswith(".nkw"):
        store = ChunkStore.open(src, cap_bytes=cap)
    else:
        store = ChunkStore.from_source(src, chunk=64, cap_bytes=cap)
    t_open = time.perf_counter() - t_open
    size = store.width
    world = World(store, "seed", small_world_cells=0)
    rng = np.random.default_rng(1)
    n_local = 500 if quick else 10_000
    n_long = n_long if n_long is not None else (3 if quick else 100)
    t_loc: list[float] = []
    chunks: list[int] = []
    found = 0
    while len(t_loc) < n_local:
        s = (int(rng.integers(0, size)), int(rng.integers(0, size)))
        if store.cell(*s) == 0:
            continue
        g = (min(size - 1, max(0, s[0] + int(rng.integers(-15, 16)))),
             min(size - 1, max(0, s[1] + int(rng.integers(-15, 16)))))
        t0 = time.perf_counter()
        r = world.find_path_cells(s, g, preset="bounded")
        t_loc.append(time.perf_counter() - t0)
        chunks.append(world.stats().last_chunks_touched)
        found += int(r.status.name == "FOUND")
    rss_local = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t_long: list[float] = []
    lens: list[str] = []
    built: list[int] = []
    expanded: list[int] = []
    graph_mib: list[float] = []
    weights: list[float] = []
    h = world.hierarchy
    # default: across the world (90 % of its side on both axes)
    span = min(size - 1, span if span is not None else (1000 if quick else 9 * size // 10))
    while len(t_long) < n_long:
        s = (int(rng.integers(0, size - span)), int(rng.integers(0, size - span)))
        g = (s[0] + span, s[1] + span)
        if store.cell(*s) == 0 or store.cell(*g) == 0:
            continue
        t0 = time.perf_counter()
        r = world.find_path_cells(s, g)
        t_long.append(time.perf_counter() - t0)
        lens.append(r.status.name)
        built.append(h.last_entries_built)
        expanded.append(h.last_expanded)
        graph_mib.append(h.graph_bytes / 2**20)
        weights.append(h.last_weight)
        if len(t_long) % 10 == 0:
            log(f"  {len(t_long)}/{n_long} long queries, median "
                f"{_med_us(t_long) / 1e6:.2f} s, RSS "
                f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = {"source": src, "size": size, "open_s": t_open, "store_cap_mib": cap >> 20,
           "graph_cap_mib": h.cap_bytes >> 20, "local_queries": n_local,
           "local_us": _med_us(t_loc),
           "local_found": found, "chunks_touched_median": float(np.median(chunks)),
           "peak_rss_after_local_mib": rss_local,
           "long_queries": n_long, "long_span_cells": span, "long_ms": _med_us(t_long) / 1e3,
           "long_ms_max": max(t_long) * 1e3 if t_long else float("nan"),
           "long_found": lens.count("FOUND"),
           "long_chunks_built_median": float(np.median(built)) if built else 0.0,
           "long_expanded_median": float(np.median(expanded)) if expanded else 0.0,
           "graph_mib_max": max(graph_mib) if graph_mib else 0.0,
           "long_weights": {str(w): weights.count(w) for w in sorted(set(weights))},
           "graph_resets": h.graph_resets, "peak_rss_mib": rss,
           "graph_entries": world.stats().graph_entries_cached,
           "store": store.stats().to_dict()}
    log(f"[{src}] local {out['local_us']:.1f} us (found {found}/{n_local}, "
        f"chunks {out['chunks_touched_median']}), long {out['long_ms']:.0f} ms over "
        f"{span} x {span} cells (found {out['long_found']}/{n_long}, chunks built "
        f"{out['long_chunks_built_median']:.0f}, answered with weight "
        f"{out['long_weights']}), peak RSS {rss:.0f} MiB")
    return out


def run(quick: bool = False, size: int | None = None, maps: tuple[str, ...] = ("den520d",),
        n_long: int | None = None, span: int | None = None, source: str | None = None,
        cap_mib: int | None = None) -> dict[str, Any]:
    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    res: dict[str, Any] = {"a": [part_a(m, quick, log) for m in maps]}
    try:
        res["b"] = part_b(size or (4096 if quick else 100_000), quick, log, n_long, span,
                          source, cap_mib)
    except Exception as exc:  # the procedural source may be missing
        res["b"] = {"error": f"{type(exc).__name__}: {exc}"}
        log(f"part (b) skipped: {res['b']['error']}")
    return res


def _run(a: opt.Args) -> int:
    """The benchmark on the parsed options ``a`` (:func:`main`)."""
    maps = () if a.no_maps else tuple(a.map or ["den520d"])
    res = run(a.quick, a.size, maps, a.long, a.span, a.source, a.cap_mib)
    if a.json:
        print(opt.dumps(res, indent=2))
    return 0


#: ``navkit bench world``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("world", cls=opt.BenchCommand,
             help=__doc__)
def cli(
    quick: Annotated[bool, opt.quick("a smoke run (~20 s)")] = False,
    json: Annotated[bool, opt.json_flag("print the figures as JSON")] = False,
    size: Annotated[
        int | None, typer.Option('--size', help="procedural world side (cells)")] = None,
    map: Annotated[list[str] | None, typer.Option('--map', help="Moving AI map name(s)")] = None,
    long: Annotated[
        int | None,
        typer.Option('--long',
                     help="long queries on the procedural world (default 100, "
                          "--quick 3)"),
    ] = None,
    span: Annotated[
        int | None,
        typer.Option('--span',
                     help="their x and z extent in cells (default 90 % of the world's "
                          "side: across the world; --quick 1000)"),
    ] = None,
    source: Annotated[
        str | None,
        typer.Option('--source',
                     help="part (b)'s world: a .nkw file or a source spec (default "
                          "procedural:rooms, seed 1, --size square)"),
    ] = None,
    cap_mib: Annotated[
        int | None,
        typer.Option('--cap-mib',
                     help="the store's LRU cap (MiB, default 16)"),
    ] = None,
    no_maps: Annotated[bool, typer.Option('--no-maps', help="skip part (a)")] = False,
) -> None:
    """``navkit bench world`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the world query benchmark with command-line ``argv``; 0 (bad options exit 2)."""
    return opt.run(app, argv, "navkit bench world")


if __name__ == "__main__":
    raise SystemExit(main())
