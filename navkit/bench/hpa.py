"""Benchmark HPA* (navkit.query.hpa) against navkit's A* and JPS on Moving AI game and city maps.

Run ``navkit bench hpa`` (``--help`` for options). A measurement
script, not a test: it reports PASS / MISS against the targets but always
exits 0 unless its input is bad (exit 2).

Per map:

* **build**: wall time of :meth:`HPAStar.rebuild` with the kernels already
  loaded (the first build in a process also loads or compiles the kernels;
  that is reported once as ``first_build_ms``), abstract nodes and edges,
  memory of every array the object holds;
* **update**: an interior cell flipped (transitions unchanged: the cluster is
  recomputed in place) and an 8-cell wall laid across a cluster border
  (transitions move: the touched clusters are rebuilt and the graph
  renumbered), each timed with the changed cells given, median of several
  repeats, against the full build;
* **queries**: the benchmark selection of :mod:`navkit.bench.common` (every
  10th scenario line, the last ``--queries`` of them: the longest), each answered
  by HPA* (no smoothing), navkit A* (``Pathfinder.find_path_cells``) and JPS
  when this navkit has it (``algorithm="jps"``), each method in its own pass
  over the queries (so no query is timed right after another method's large
  search evicted the caches); ``time.perf_counter`` around each Python call
  with the garbage collector paused; medians;
* **suboptimality**: every HPA* path is re-measured under the Moving AI rules
  (:mod:`navkit.query.checks`; invalid paths are counted and reported) and
  compared with the scenario's
  optimal length: ``length / optimal - 1``, mean and max, on the selection
  and on every line of the file; *after smoothing* is the Euclidean length of
  the string-pulled waypoints, an any-angle length that can fall below the
  grid optimum (negative values).

Targets: mean suboptimality before smoothing <= 5% on every map
(selection and all lines); median query >= 20x faster than A* on
NewYork_0_1024 and orz900d.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from ..query.checks import is_optimal, path_length
from . import options as opt
from .common import (
    fmt,
    median,
    no_data,
    present_maps,
    resolve_data_dir,
    select_queries,
    split_names,
    timed,
)

__all__ = ["main", "MAPS", "SPEED_MAPS", "SPEED_TARGET", "SUBOPT_TARGET"]

#: The Moving AI game and city maps.
MAPS = ("den520d", "brc202d", "orz900d", "AR0011SR", "Aftershock", "ht_chantry",
        "lt_gallowstemplar_n", "w_woundedcoast", "Berlin_0_256", "NewYork_0_1024")
#: Maps with the speed target, and the target itself (A* median / HPA* median).
SPEED_MAPS = ("NewYork_0_1024", "orz900d")
SPEED_TARGET = 20.0
#: Largest acceptable mean suboptimality before smoothing.
SUBOPT_TARGET = 0.05
UPDATE_REPEATS = 7


def _polyline(points: Any) -> float:
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    return float(np.hypot(np.diff(p[:, 0]), np.diff(p[:, 1])).sum()) if len(p) > 1 else 0.0


def _jps_available(pf: Any, s: tuple[int, int], g: tuple[int, int]) -> bool:
    from ..errors import QueryError

    try:
        pf.find_path_cells(s, g, algorithm="jps")
    except (QueryError, TypeError, ValueError):
        return False
    return True


def _update_timing(hpa: Any, grid: Any) -> dict[str, Any]:
    """Median time of an in-place and a splice update (each applied, then undone)."""
    from ..grid import NavGrid

    walk = grid.walkable
    C = hpa.cluster_size
    depth, width = walk.shape
    out: dict[str, Any] = {}
    # in place: a walkable cell strictly inside a cluster, away from every border
    inner = np.zeros_like(walk)
    for z0 in range(0, depth, C):
        for x0 in range(0, width, C):
            inner[z0 + 1 : min(z0 + C, depth) - 1, x0 + 1 : min(x0 + C, width) - 1] = True
    cand = np.argwhere(inner & walk)
    # splice: a vertical wall of 8 cells on the west side of a cluster border, through open cells
    wall = None
    for x in range(C, width, C):
        col = walk[:, x - 1] & walk[:, x]
        window = np.convolve(col.astype(np.int64), np.ones(8, dtype=np.int64), "valid")
        runs = np.flatnonzero(window == 8)
        if len(runs):
            z = int(runs[len(runs) // 2])
            wall = [(x - 1, z + k) for k in range(8)]
            break
    cases: list[tuple[str, list[tuple[int, int]]]] = []
    if len(cand):
        z, x = (int(v) for v in cand[len(cand) // 2])
        cases.append(("in-place", [(x, z)]))
    if wall is not None:
        cases.append(("splice", wall))
    for label, cells in cases:
        w2 = walk.copy()
        xs = np.array([c[0] for c in cells])
        zs = np.array([c[1] for c in cells])
        w2[zs, xs] = ~w2[zs, xs]
        changed = NavGrid(w2, weights=grid.weights)
        times, modes, touched = [], set(), 0
        for _ in range(UPDATE_REPEATS):
            rep, dt = timed(partial(hpa.update, changed, cells))
            times.append(dt * 1e3)
            modes.add(rep.mode)
            touched = rep.touched_clusters
            hpa.update(grid, cells)
        out[label] = {"median_ms": median(times), "modes": sorted(modes),
                      "touched_clusters": touched, "changed_cells": len(cells)}
    return out


def run_map(data_dir: Path, name: str, queries: int, cluster_size: int, gap: int | None,
            all_lines: bool, log: Callable[[str], None]) -> dict[str, Any]:
    """All figures for one map (see the module docstring)."""
    from ..formats import load_grid, read_scenarios
    from ..query.hpa import HPAStar
    from ..query.pathfinder import Pathfinder

    grid = load_grid(data_dir / f"{name}.map")
    scen = read_scenarios(data_dir / f"{name}.map.scen")
    starts = [(int(a), int(b)) for a, b in scen.start]
    goals = [(int(a), int(b)) for a, b in scen.goal]
    opt = np.asarray(scen.optimal, dtype=np.float64)
    sel = select_queries(len(scen), queries)

    hpa = HPAStar(grid, costs="exact", cluster_size=cluster_size, entrance_gap=gap)
    builds = [hpa.rebuild().build_ms for _ in range(3)]
    st = hpa.stats
    log(f"  {name}: built in {min(builds):.1f} ms, {st.nodes} nodes, {st.edges} edges, "
        f"{st.memory_bytes / 1e6:.2f} MB")
    upd = _update_timing(hpa, grid)

    pf = Pathfinder(grid, costs="exact")
    pf.find_path_cells(starts[sel[0]], goals[sel[0]])  # warm-up
    hpa.find_path_cells(starts[sel[0]], goals[sel[0]], smooth=True)
    has_jps = _jps_available(pf, starts[sel[0]], goals[sel[0]])

    # each method in its own pass over the queries: timed right after a large
    # A* flood, a JPS query would pay for the caches A* evicted
    def times(fn: Callable[..., Any], **kw: Any) -> tuple[list[Any], list[float]]:
        out, us = [], []
        for i in sel:
            r, dt = timed(partial(fn, starts[i], goals[i], **kw))
            out.append(r)
            us.append(dt * 1e6)
        return out, us

    res_hpa, t_hpa = times(hpa.find_path_cells)
    res_astar, t_astar = times(pf.find_path_cells)
    t_jps = times(pf.find_path_cells, algorithm="jps")[1] if has_jps else []
    res_smooth, t_smooth = times(hpa.find_path_cells, smooth=True)
    sub, sub_s, invalid = [], [], 0
    astar_bad = 0
    for i, r, ra, rs in zip(sel, res_hpa, res_astar, res_smooth, strict=True):
        s, g = starts[i], goals[i]
        astar_bad += int(not is_optimal(ra.cost, opt[i]))
        length, _why = path_length(r.cells, grid.walkable, s, g)
        if length is None:
            invalid += 1
            continue
        if opt[i] > 0:
            sub.append(length / opt[i] - 1.0)
            sub_s.append(_polyline(rs.waypoints) / grid.cell_size / opt[i] - 1.0)

    every = {}
    if all_lines:
        s_all, bad_all = [], 0
        for i in range(len(scen)):
            r = hpa.find_path_cells(starts[i], goals[i])
            length, _why = path_length(r.cells, grid.walkable, starts[i], goals[i])
            if length is None:
                bad_all += 1
            elif opt[i] > 0:
                s_all.append(length / opt[i] - 1.0)
        every = {"lines": len(scen), "invalid": bad_all,
                 "mean_suboptimality": float(np.mean(s_all)) if s_all else None,
                 "max_suboptimality": float(np.max(s_all)) if s_all else None}

    med_h, med_a = median(t_hpa), median(t_astar)
    med_j = median(t_jps)
    return {
        "map": name,
        "size": [grid.width, grid.depth],
        "queries": len(sel),
        "build_ms": min(builds),
        "build_ms_runs": builds,
        "build_phases_ms": st.phases_ms,
        "clusters": st.clusters,
        "nodes": st.nodes,
        "edges": st.edges,
        "memory_bytes": st.memory_bytes,
        "memory": st.memory,
        "update": upd,
        "median_us": {"hpa": med_h, "hpa_smooth": median(t_smooth), "astar": med_a, "jps": med_j},
        "speedup_vs_astar": (med_a / med_h) if med_h and med_a else None,
        "speedup_vs_jps": (med_j / med_h) if med_h and med_j else None,
        "astar_not_optimal": astar_bad,
        "invalid_paths": invalid,
        "suboptimality": {
            "mean": float(np.mean(sub)) if sub else None,
            "max": float(np.max(sub)) if sub else None,
            "mean_smoothed": float(np.mean(sub_s)) if sub_s else None,
            "max_smoothed": float(np.max(sub_s)) if sub_s else None,
        },
        "all_lines": every,
    }


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    from ..grid import NavGrid
    from ..query.hpa import DEFAULT_CLUSTER_SIZE, DEFAULT_ENTRANCE_GAP, HPAStar

    data_dir = resolve_data_dir(args.data)
    if not data_dir.is_dir():
        return no_data(data_dir)
    names = split_names(args.maps, MAPS)
    present, missing = present_maps(data_dir, names)
    if args.queries < 1:
        print("error: --queries must be at least 1", file=sys.stderr)
        return 2
    if not present:
        return no_data(data_dir, f"maps {', '.join(names)} (.map and .map.scen)")
    cs = DEFAULT_CLUSTER_SIZE if args.cluster_size is None else args.cluster_size
    if args.entrance_gap is None:
        gap: int | None = DEFAULT_ENTRANCE_GAP
    elif str(args.entrance_gap).lower() == "none":
        gap = None
    else:
        gap = int(args.entrance_gap)

    t0 = time.perf_counter()
    side = 3 * cs
    HPAStar(NavGrid(np.ones((side, side), dtype=bool)), cluster_size=cs,
            entrance_gap=gap).find_path_cells((0, 0), (side - 1, side - 1))
    first_ms = (time.perf_counter() - t0) * 1e3
    print(f"HPA* benchmark: cluster_size={cs}, entrance_gap={gap}, {args.queries} queries per map "
          f"(first build + query in this process, kernels loaded or compiled: {first_ms:.0f} ms)")
    if missing:
        print(f"maps not found (skipped): {', '.join(missing)}")

    rows = []
    for name in present:
        rows.append(run_map(data_dir, name, args.queries, cs, gap, not args.no_all_lines, print))
    _print_rows(rows)
    targets = _targets(rows)

    if args.json is not None:
        out = {
            "config": {"cluster_size": cs, "entrance_gap": gap, "queries": args.queries,
                       "selection": "every 10th scenario line, the last N "
                                    "(navkit.bench.common.select_queries)"},
            "machine": {"python": platform.python_version(), "platform": platform.platform()},
            "first_build_ms": first_ms,
            "maps": rows,
            "missing_maps": missing,
            "targets": targets,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(opt.dumps(out, indent=2, allow_nan=False))
        print(f"wrote {args.json}")
    return 0


def _print_rows(rows: list[dict[str, Any]]) -> None:
    print()
    hdr = (f"{'map':22s} {'size':>10s} {'build ms':>9s} {'MB':>6s} {'nodes':>6s} {'upd ms':>12s} "
           f"{'HPA* us':>8s} {'A* us':>9s} {'JPS us':>8s} {'xA*':>6s} {'xJPS':>6s} "
           f"{'sub mean':>8s} {'max':>7s} {'all mean':>8s} {'smooth':>7s} {'inv':>4s}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        u = r["update"]
        upd = "/".join(fmt(u.get(k, {}).get("median_ms"), ".2f") for k in ("in-place", "splice"))
        su = r["suboptimality"]
        al = r["all_lines"]
        med = r["median_us"]
        print(f"{r['map']:22s} {r['size'][0]:>4d}x{r['size'][1]:<5d} {r['build_ms']:9.1f} "
              f"{r['memory_bytes'] / 1e6:6.2f} {r['nodes']:6d} {upd:>12s} "
              f"{fmt(med['hpa'], '.0f'):>8s} {fmt(med['astar'], '.0f'):>9s} "
              f"{fmt(med['jps'], '.0f'):>8s} {fmt(r['speedup_vs_astar'], '.1f'):>6s} "
              f"{fmt(r['speedup_vs_jps'], '.2f'):>6s} {fmt(su['mean'], '.2%'):>8s} "
              f"{fmt(su['max'], '.2%'):>7s} "
              f"{fmt(al.get('mean_suboptimality'), '.2%'):>8s} "
              f"{fmt(su['mean_smoothed'], '.2%'):>7s} "
              f"{r['invalid_paths'] + al.get('invalid', 0):4d}")
    print("upd ms: in-place / splice update (changed cells given); smooth: mean suboptimality of "
          "the string-pulled (any-angle) length")


def _targets(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Check and print the targets; their JSON."""
    sub_ok = bool(rows) and all(
        r["suboptimality"]["mean"] is not None and r["suboptimality"]["mean"] <= SUBOPT_TARGET
        and (not r["all_lines"]
             or (r["all_lines"]["mean_suboptimality"] or 0.0) <= SUBOPT_TARGET)
        and r["invalid_paths"] == 0 and r["all_lines"].get("invalid", 0) == 0
        for r in rows
    )
    speed: dict[str, Any] = {}
    for r in rows:
        if r["map"] in SPEED_MAPS:
            sp = r["speedup_vs_astar"]
            speed[r["map"]] = {"speedup": sp, "pass": sp is not None and sp >= SPEED_TARGET}
    speed_ok = len(speed) == len(SPEED_MAPS) and all(v["pass"] for v in speed.values())
    print()
    worst = max((r["suboptimality"]["mean"] or 0.0 for r in rows), default=None)
    print(f"target mean suboptimality <= {SUBOPT_TARGET:.0%} before smoothing on every map: "
          f"{'PASS' if sub_ok else 'MISS'} (worst map mean {fmt(worst, '.2%')})")
    for m in SPEED_MAPS:
        v = speed.get(m)
        txt = ("not run" if v is None
               else f"{fmt(v['speedup'], '.1f')}x {'PASS' if v['pass'] else 'MISS'}")
        print(f"target median >= {SPEED_TARGET:.0f}x A* on {m}: {txt}")
    return {
        "mean_suboptimality": {"limit": SUBOPT_TARGET, "pass": sub_ok},
        "speedup_vs_astar": {"limit": SPEED_TARGET, "maps": speed, "pass": speed_ok},
    }


#: ``navkit bench hpa``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("hpa", cls=opt.BenchCommand,
             help=__doc__.split("\n")[0])
def cli(
    data: Annotated[Path | None, opt.data()] = None,
    maps: Annotated[
        list[str] | None,
        opt.maps("the ten game and city maps"),
    ] = None,
    queries: Annotated[
        int,
        typer.Option('--queries',
                     help="Benchmark queries per map (default 100)."),
    ] = 100,
    cluster_size: Annotated[
        int | None,
        typer.Option('--cluster-size',
                     help="HPA* cluster edge (default: HPAStar's)."),
    ] = None,
    entrance_gap: Annotated[
        str | None,
        typer.Option('--entrance-gap',
                     help="Entrance gap: an int, or 'none' for the paper's "
                          "rule (default: HPAStar's)."),
    ] = None,
    no_all_lines: Annotated[
        bool,
        typer.Option('--no-all-lines',
                     help="Skip the every-line suboptimality pass."),
    ] = False,
    json: Annotated[Path | None, opt.json_file("Also write the results here.", 'OUT')] = None,
) -> None:
    """``navkit bench hpa`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the HPA* benchmark with command-line ``argv``; 0, or 2 on bad input."""
    return opt.run(app, argv, "navkit bench hpa")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
