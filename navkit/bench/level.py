"""The reference benchmark (docs/rules.md §11.2), measured on navkit.

Run ``navkit bench level`` or ``navkit bench-level`` (``--help`` for
options). A measurement script, not a test: it never fails on a missed
target.

A C++ reference implementation timed 100 and 1000 obstacle-aware queries on
an 80 x 80 grid (Windows Release build: 15 ms and 176 ms). Here:

* the level is the bundled ``bench80.json`` (:mod:`navkit.examples`): 32 x 32 m at 0.4 m cells
  (80 x 80), five rooms and a corridor joined by doors, furniture;
* 20 characters stand at random walkable points (``default_rng(seed)``), at
  least two collision radii apart; each is a dynamic obstacle of the radius
  of docs/rules.md §7.4 (collision radius 0.45 m + the map's agent radius +
  one cell half-diagonal, :func:`~navkit.query.navmap.obstacle_radius`);
* each query goes from a random walkable point to another with
  :meth:`NavMap.find_path_to_nearest <navkit.query.navmap.NavMap.find_path_to_nearest>`,
  the 20 circles as its obstacle snapshot, smoothing on;
* a run is timed with ``time.perf_counter`` around the whole Python loop
  (best of ``--repeat`` runs, garbage collector off), after one warm-up run.

Beside the headline figure it times the same queries through the
:class:`~navkit.query.pathfinder.Pathfinder` directly, with A* instead of the
default JPS, through the path cache (cold and warm), and splits a query's
time into the JPS search, the rest of the one-call kernel
(:mod:`navkit._kernels.query`), smoothing and the Python around the kernel.
It also times the rasterizer on a 1000 x 1000-cell level with 200 obstacles
(:func:`navkit.bench.raster.benchmark_rasterize`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from numpy.typing import NDArray

from . import options as opt
from .common import make_console, race, write_json
from .raster import benchmark_rasterize

__all__ = ["main", "run", "make_scenario", "default_level_path", "SEED_MS", "TARGET_MS_100",
           "TARGET_RASTER_MS"]

#: The C++ reference build's milliseconds for 100 and 1000 obstacle-aware queries.
SEED_MS = {100: 15.0, 1000: 176.0}
#: navkit's target for 100 queries, milliseconds.
TARGET_MS_100 = 1.5
#: Target for rasterizing the 1000 x 1000-cell benchmark level with 200 obstacles, milliseconds.
TARGET_RASTER_MS = 100.0
#: Characters standing in the level, and their collision radius (docs/rules.md §11.1 default).
N_CHARACTERS = 20
COLLISION_RADIUS = 0.45


def default_level_path() -> Path:
    """The bundled ``bench80.json`` (:mod:`navkit.examples`)."""
    from .. import examples

    return examples.path("bench80.json")


def _random_points(rng: np.random.Generator, walk: NDArray[np.bool_], grid: Any,
                   n: int) -> NDArray[np.float64]:
    """``n`` uniform random world points inside walkable cells."""
    zs, xs = np.nonzero(walk)
    pick = rng.integers(0, len(xs), n)
    u = rng.random((n, 2))
    out = np.empty((n, 2), dtype=np.float64)
    out[:, 0] = grid.min_x + (xs[pick] + u[:, 0]) * grid.cell_size
    out[:, 1] = grid.min_z + (zs[pick] + u[:, 1]) * grid.cell_size
    return out


def make_scenario(nav: Any, *, n_queries: int = 1000, n_characters: int = N_CHARACTERS,
                  collision_radius: float = COLLISION_RADIUS, seed: int = 0) -> dict[str, Any]:
    """Characters and queries for the benchmark on ``nav`` (a :class:`~navkit.query.navmap.NavMap`).

    Returns ``{"obstacles": (k, 3) circles, "starts": (n, 2), "goals": (n, 2)}``
    in world metres. Characters are at least ``2 * collision_radius`` apart.
    """
    grid = nav.grid
    rng = np.random.default_rng(seed)
    walk = grid.walkable
    if not walk.any():
        raise ValueError(f"{grid.name or 'the level'} has no walkable cell")
    chars: list[NDArray[np.float64]] = []
    for _ in range(200 * max(1, n_characters)):
        if len(chars) == n_characters:
            break
        p = _random_points(rng, walk, grid, 1)[0]
        if all(math.hypot(*(p - q)) >= 2 * collision_radius for q in chars):
            chars.append(p)
    radius = nav.obstacle_radius(collision_radius)
    obstacles = np.array([(p[0], p[1], radius) for p in chars], dtype=np.float64).reshape(-1, 3)
    starts = _random_points(rng, walk, grid, n_queries)
    goals = _random_points(rng, walk, grid, n_queries)
    return {"obstacles": obstacles, "starts": starts, "goals": goals}


def _kernel_loop(pf: Any, obs: NDArray[np.float64],
                 queries: list[tuple[Any, ...]]) -> Callable[[], None]:
    """The one-call kernel alone on ``queries`` (``(sx, sz, ex, ez, budget, nearest,
    smooth)`` each), on the Pathfinder's own arguments and result buffer
    (:meth:`navkit.query.world.WorldQueries.kernel_args`)."""
    from .._kernels import query as kernel_query

    def go() -> None:
        fx = pf.engine.world.kernel_args()
        res = pf.engine.world.result
        for q in queries:
            kernel_query.world_jps(fx, obs, *q, res)
    return go


def run(
    level: str | Path | None = None,
    *,
    counts: tuple[int, ...] = (100, 1000),
    n_characters: int = N_CHARACTERS,
    repeat: int = 5,
    seed: int = 0,
    raster: bool = True,
    raster_size: int = 1000,
    raster_obstacles: int = 200,
) -> dict[str, Any]:
    """Run the benchmark; returns every figure as a JSON-ready dict (times in ms)."""
    from ..level import rasterize, read_level
    from ..query.navmap import NavMap

    path = Path(level) if level is not None else default_level_path()
    cfg = read_level(path)
    t0 = time.perf_counter()
    rasterize(cfg)
    first_build_ms = (time.perf_counter() - t0) * 1e3

    nav = NavMap(cfg, cache_size=0)
    grid = nav.grid
    n_max = max(counts)
    sc = make_scenario(nav, n_queries=n_max, n_characters=n_characters, seed=seed)
    obs, starts, goals = sc["obstacles"], sc["starts"], sc["goals"]
    starts_l = [tuple(p) for p in starts.tolist()]
    goals_l = [tuple(p) for p in goals.tolist()]

    t0 = time.perf_counter()
    res = [nav.find_path_to_nearest(starts_l[i], goals_l[i], obstacles=obs) for i in range(n_max)]
    first_query_ms = (time.perf_counter() - t0) * 1e3  # the first call loads the kernels

    def loop(query: Callable[..., Any], n: int, **kw: Any) -> Callable[[], None]:
        def go() -> None:
            for i in range(n):
                query(starts_l[i], goals_l[i], obstacles=obs, **kw)
        return go

    pf = nav.pathfinder
    cold = NavMap(cfg, cache_size=2 * n_max)
    warm = NavMap(cfg, cache_size=2 * n_max)  # filled by the warm-up round

    def cold_loop(n: int) -> Callable[[], None]:
        fill = loop(cold.find_path_to_nearest, n)

        def go() -> None:
            cold.cache.clear()
            fill()
        return go

    # the same searches as cell queries: snapped start to the end cell when
    # found, else to the goal's own cell (the search exhausts the region)
    keep = [i for i, r in enumerate(res) if r.start_cell is not None]
    sc_cells = np.array([res[i].start_cell for i in keep], dtype=np.int64).reshape(-1, 2)
    ends = [res[i].end_cell if res[i].found else grid.world_to_cell(*goals_l[i]) for i in keep]
    ec_cells = np.array(ends, dtype=np.int64).reshape(-1, 2)

    notes = {
        "navmap": "NavMap.find_path_to_nearest, cache off (the headline figure)",
        "pathfinder": "Pathfinder.find_path_to_nearest directly",
        "navmap_cache_cold": "NavMap with the path cache, every query a miss",
        "navmap_cache_warm": "NavMap with the path cache, every query a hit",
        "pathfinder_astar": "Pathfinder.find_path_to_nearest(algorithm='astar'), step by step",
    }
    fns: dict[str, Callable[[], Any]] = {}
    for n in counts:
        fns[f"navmap/{n}"] = loop(nav.find_path_to_nearest, n)
        fns[f"pathfinder/{n}"] = loop(pf.find_path_to_nearest, n)
        fns[f"navmap_cache_cold/{n}"] = cold_loop(n)
        fns[f"navmap_cache_warm/{n}"] = loop(warm.find_path_to_nearest, n)
        fns[f"pathfinder_astar/{n}"] = loop(pf.find_path_to_nearest, n, algorithm="astar")
    # the one-call kernel alone (navkit._kernels.query.world_jps), with and
    # without smoothing, and the searches alone (JPS, the batch API, 1 thread)
    big = 1 << 62
    qs = [(a[0], a[1], b[0], b[1], big, True, True)
          for a, b in zip(starts_l[:n_max], goals_l[:n_max], strict=True)]
    qs_raw = [q[:6] + (False,) for q in qs]
    fns["kernel"] = _kernel_loop(pf, obs, qs)
    fns["kernel_nosmooth"] = _kernel_loop(pf, obs, qs_raw)
    fns["search"] = lambda: pf.find_paths_cells(sc_cells, ec_cells, threads=1, obstacles=obs,
                                                algorithm="jps")
    fns["batch"] = lambda: pf.find_paths_cells(sc_cells, ec_cells, obstacles=obs, algorithm="jps")
    warm.cache.clear()
    t = race(fns, repeat)
    warm_stats = warm.cache.stats

    rows: dict[str, dict[str, Any]] = {}
    for name, note in notes.items():
        row: dict[str, Any] = {"note": note}
        for n in counts:
            best, med = t[f"{name}/{n}"]
            row[str(n)] = {"best_ms": best * 1e3, "median_ms": med * 1e3,
                           "us_per_query": best * 1e6 / n,
                           "seed_ratio": (SEED_MS[n] / (best * 1e3)) if n in SEED_MS else None}
        rows[name] = row

    statuses: dict[str, int] = {}
    for r in res:
        statuses[r.status.name] = statuses.get(r.status.name, 0) + 1
    expanded = np.array([r.expanded for r in res], dtype=np.int64)
    us = 1e6 / n_max
    total_s = t[f"navmap/{n_max}"][0]
    kernel_s = t["kernel"][0]
    raw_s = t["kernel_nosmooth"][0]
    breakdown = {
        "queries": n_max,
        "total_us": total_s * us,
        "kernel_us": kernel_s * us,
        "search_us": t["search"][0] * us,
        "smooth_us": (kernel_s - raw_s) * us,
        "batch_all_threads_us": t["batch"][0] * us,
        "mean_expanded": float(expanded.mean()),
    }
    breakdown["rest_of_kernel_us"] = (raw_s - t["search"][0]) * us
    breakdown["python_us"] = breakdown["total_us"] - breakdown["kernel_us"]
    build_s, _ = race({"build": lambda: rasterize(cfg)}, repeat)["build"]

    out: dict[str, Any] = {
        "level": str(path),
        "width": grid.width,
        "depth": grid.depth,
        "walkable_fraction": float(grid.walkable.mean()),
        "characters": len(obs),
        "obstacle_radius": float(obs[0, 2]) if len(obs) else None,
        "seed": seed,
        "repeat": repeat,
        "level_build_ms": build_s * 1e3,
        "level_first_build_ms": first_build_ms,
        "first_run_ms": first_query_ms,
        "statuses": statuses,
        "rows": rows,
        "breakdown": breakdown,
        "cache_hit_stats": warm_stats,
        "seed_ms": {str(k): v for k, v in SEED_MS.items()},
        "target_ms_100": TARGET_MS_100,
    }
    if 100 in counts:
        out["target_100_met"] = rows["navmap"]["100"]["best_ms"] <= TARGET_MS_100
    if raster:
        ras = benchmark_rasterize(seed=seed, size=raster_size, n_obstacles=raster_obstacles,
                                  repeat=max(1, repeat))
        out["raster"] = {
            "ms": ras["seconds"] * 1e3,
            "median_ms": ras["median_seconds"] * 1e3,
            "width": ras["width"],
            "depth": ras["depth"],
            "obstacles": ras["obstacles"],
            "target_ms": TARGET_RASTER_MS,
            "target_met": ras["seconds"] * 1e3 <= TARGET_RASTER_MS,
        }
    return out


def _print(out: dict[str, Any], console: Any) -> None:
    from rich.table import Table

    counts = [k for k in out["rows"]["navmap"] if k != "note"]
    t = Table(title=(f"reference benchmark (docs/rules.md §11.2): "
                     f"{out['width']}x{out['depth']} cells, "
                     f"{out['characters']} characters (radius {out['obstacle_radius']:.3f} m), "
                     f"find-path-to-nearest + smoothing"))
    t.add_column("run")
    for n in counts:
        t.add_column(f"{n} queries, ms", justify="right")
        t.add_column("us/query", justify="right")
        t.add_column("seed / this" if n in out["seed_ms"] else "", justify="right")
    for row in out["rows"].values():
        cells = []
        for n in counts:
            c = row[n]
            ratio = "" if c["seed_ratio"] is None else f"{c['seed_ratio']:.1f}x"
            cells += [f"{c['best_ms']:.2f}", f"{c['us_per_query']:.1f}", ratio]
        t.add_row(row["note"], *cells)
    seed_cells = []
    for n in counts:
        v = out["seed_ms"].get(n)
        seed_cells += ["-" if v is None else f"{v:.0f}",
                       "-" if v is None else f"{v * 1e3 / int(n):.0f}", ""]
    t.add_row("seed C++ Release build (reference)", *seed_cells)
    console.print(t)
    if "target_100_met" in out:
        got = out["rows"]["navmap"]["100"]["best_ms"]
        style = "green" if out["target_100_met"] else "red"
        console.print(f"target <= {out['target_ms_100']} ms for 100 queries: [{style}]{got:.2f} ms "
                      f"({'met' if out['target_100_met'] else 'missed'})[/]")
    b = out["breakdown"]
    t2 = Table(title=f"where a query's time goes (mean over {b['queries']} queries, us)")
    t2.add_column("part")
    t2.add_column("us", justify="right")
    t2.add_column("share", justify="right")
    for label, key in (("JPS search (find_paths_cells, 1 thread)", "search_us"),
                       ("rest of the kernel: overlay, snapping, chain, waypoints, call",
                        "rest_of_kernel_us"),
                       ("smoothing (in the kernel)", "smooth_us"),
                       ("Python: arguments, result objects, facade", "python_us"),
                       ("total", "total_us")):
        t2.add_row(label, f"{b[key]:.1f}", f"{b[key] / b['total_us']:.0%}")
    console.print(t2)
    console.print(f"mean jump points expanded {b['mean_expanded']:.0f}; find_paths_cells (JPS) on "
                  f"all threads: {b['batch_all_threads_us']:.1f} us/query (no smoothing); "
                  f"statuses {out['statuses']}")
    console.print(f"level build (rasterize) {out['level_build_ms']:.2f} ms; first {b['queries']} "
                  f"queries after import (kernel load included) {out['first_run_ms']:.1f} ms; "
                  f"warm cache: {out['cache_hit_stats']}")
    if "raster" in out:
        r = out["raster"]
        style = "green" if r["target_met"] else "red"
        console.print(f"rasterize {r['width']}x{r['depth']} cells, {r['obstacles']} obstacles: "
                      f"[{style}]{r['ms']:.1f} ms[/] (median {r['median_ms']:.1f}; "
                      f"target <= {r['target_ms']:.0f} ms)")


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    from ..errors import NavkitError

    if args.queries is None:
        args.queries = [100, 1000]
    if args.quick:
        args.queries, args.repeat, args.no_raster = [100], 1, True
    console = make_console(140)
    if any(q < 1 for q in args.queries) or args.repeat < 1 or args.characters < 0:
        console.print("[red]--queries and --repeat must be >= 1, --characters >= 0[/red]")
        return 2
    try:
        out = run(args.level, counts=tuple(sorted(set(args.queries))), n_characters=args.characters,
                  repeat=args.repeat, seed=args.seed, raster=not args.no_raster)
    except (OSError, NavkitError, ValueError) as exc:
        console.print(f"[red]error: {exc}[/red]")
        return 2
    _print(out, console)
    if args.json is not None:
        write_json(args.json, out, console)
    return 0


#: ``navkit bench level``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("level", cls=opt.greedy_command('--queries'),
             help=__doc__.split("\n\n")[0])
def cli(
    level: Annotated[
        Path | None,
        typer.Option('--level',
                     help="level JSON (default: the bundled bench80.json)"),
    ] = None,
    queries: Annotated[
        list[int] | None,
        typer.Option('--queries', metavar='N',
                     help="query counts to time (default: 100 1000)"),
    ] = None,
    characters: Annotated[
        int,
        typer.Option('--characters',
                     help="characters in the level (default 20)"),
    ] = N_CHARACTERS,
    repeat: Annotated[
        int,
        typer.Option('--repeat',
                     help="timed runs per figure; the best counts (default "
                          "5)"),
    ] = 5,
    seed: Annotated[int, opt.seed("random seed (default 0)")] = 0,
    no_raster: Annotated[
        bool,
        typer.Option('--no-raster',
                     help="skip the 1000x1000 rasterization benchmark"),
    ] = False,
    quick: Annotated[
        bool,
        opt.quick("a smoke run: 100 queries, one timed run, no rasterization "
            "benchmark"),
    ] = False,
    json: Annotated[Path | None, opt.json_file("also write the figures as JSON", 'OUT')] = None,
) -> None:
    """``navkit bench level`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark with command-line ``argv``; 0, or 2 on bad input."""
    return opt.run(app, argv, "navkit bench level")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
