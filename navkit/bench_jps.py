"""Benchmark navkit's Jump Point Search against navkit's A* and pyastar2d.

Run ``python -m navkit.bench_jps`` (``--help`` for options). A measurement
script, not a test: it reports PASS / MISS against the targets but always
exits 0 unless its input is bad (exit 2).

Queries: ``PERFORMANCE.md``'s selection, as :mod:`navkit.benchmark` makes it
(:func:`~navkit.benchmark.select_queries`): every 10th line of the map's
``.scen`` file, the last ``--queries`` (100) of those, the longest. Every
method answers the same queries in the same process:

* **JPS**: ``Pathfinder(grid, costs="exact").find_path_cells(s, g,
  algorithm="jps")`` (full cell chain, ready-made ``PathResult``);
* **A***: the same call with ``algorithm="astar"``;
* **pyastar2d**: ``astar_path`` as :mod:`navkit.benchmark` calls it (float32
  weights, ``inf`` blocked, diagonals allowed; it charges a diagonal step
  like a straight one and cuts corners, an easier question than navkit's).

``time.perf_counter`` brackets each Python call with the garbage collector
paused. The methods run in turn over all queries, ``--rounds`` times (3);
a query's time is its fastest round (on a shared machine other processes only
ever add time), and the figure is the median over the queries. Ratios divide
medians from the same run. JPS and A* paths are re-measured under the Moving
AI rules and must match the optimal lengths; JPS's integer cost must equal
A*'s on every query. ``expanded`` / ``generated`` are jump points for JPS,
cells for A*.

Targets (issue 5): on AR0011SR, brc202d, den520d and Aftershock the median
JPS query is at least 10x faster than navkit's A* and at least 20x faster
than pyastar2d.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["main", "MAPS", "TARGET_VS_ASTAR", "TARGET_VS_PYASTAR2D"]

#: Maps with the speed targets.
MAPS = ("AR0011SR", "brc202d", "den520d", "Aftershock")
#: JPS median at least this many times faster than navkit A*'s ...
TARGET_VS_ASTAR = 10.0
#: ... and than pyastar2d's.
TARGET_VS_PYASTAR2D = 20.0


def _fmt(v: float | None, spec: str) -> str:
    return "-" if v is None or (isinstance(v, float) and not math.isfinite(v)) else format(v, spec)


def _time_rounds(solvers: dict[str, Callable[[tuple[int, int], tuple[int, int]], Any]],
                 queries: list[tuple[tuple[int, int], tuple[int, int]]], rounds: int) -> dict[str, np.ndarray]:
    """Per method and query, the fastest of ``rounds`` timed calls (microseconds)."""
    best = {name: np.full(len(queries), np.inf) for name in solvers}
    gc_on = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            for name, solve in solvers.items():
                times = best[name]
                for i, (s, g) in enumerate(queries):
                    t0 = time.perf_counter()
                    solve(s, g)
                    dt = (time.perf_counter() - t0) * 1e6
                    if dt < times[i]:
                        times[i] = dt
    finally:
        if gc_on:
            gc.enable()
    return best


def run_map(data_dir: Path, name: str, queries: int, rounds: int, with_pyastar: bool) -> dict[str, Any]:
    """All figures for one map (see the module docstring)."""
    from .benchmark import _make_pyastar2d, is_optimal, load_map, path_length
    from .grid import NavGrid
    from .query.pathfinder import Pathfinder

    md = load_map(data_dir, name, queries)
    pf = Pathfinder(NavGrid(md.walkable), costs="exact")
    qs = [((int(s[0]), int(s[1])), (int(g[0]), int(g[1]))) for s, g in zip(md.starts, md.goals, strict=True)]
    t0 = time.perf_counter()
    pf.find_path_cells(*qs[0], algorithm="jps")  # packs the rows, loads (or compiles) the kernels
    first_ms = (time.perf_counter() - t0) * 1e3
    pf.find_path_cells(*qs[0])

    # answers and checks, untimed
    jps = [pf.find_path_cells(s, g, algorithm="jps") for s, g in qs]
    ast = [pf.find_path_cells(s, g) for s, g in qs]
    opt_jps = sum(is_optimal(path_length(r.cells, md.walkable, s, g)[0], float(o))
                  for r, (s, g), o in zip(jps, qs, md.optimal, strict=True))
    opt_ast = sum(is_optimal(path_length(r.cells, md.walkable, s, g)[0], float(o))
                  for r, (s, g), o in zip(ast, qs, md.optimal, strict=True))
    same_cost = sum(a.cost_int == j.cost_int for a, j in zip(ast, jps, strict=True))

    solvers: dict[str, Callable[[tuple[int, int], tuple[int, int]], Any]] = {
        "jps": lambda s, g: pf.find_path_cells(s, g, algorithm="jps"),
        "astar": lambda s, g: pf.find_path_cells(s, g),
    }
    py_status = "ok"
    if with_pyastar:
        try:
            solve_py, _cells, _note = _make_pyastar2d(md.walkable)
            solve_py(*qs[0])
            solvers["pyastar2d"] = solve_py
        except ImportError:
            py_status = "not installed"
    else:
        py_status = "skipped"
    times = _time_rounds(solvers, qs, rounds)
    med = {k: float(np.median(v)) for k, v in times.items()}
    jm = med["jps"]
    vs_astar = med["astar"] / jm
    vs_py = med["pyastar2d"] / jm if "pyastar2d" in med else None
    jexp = np.array([r.expanded for r in jps], dtype=np.float64)
    h, w = md.walkable.shape
    return {
        "map": md.name,
        "size": [w, h],
        "queries": len(qs),
        "scenario_lines": md.scen_lines,
        "query_lines": [int(v) for v in md.lines],
        "first_query_ms": first_ms,
        "median_us": {"jps": jm, "astar": med["astar"], "pyastar2d": med.get("pyastar2d")},
        "pyastar2d": py_status,
        "speedup_vs_astar": vs_astar,
        "speedup_vs_pyastar2d": vs_py,
        "expanded": {"jps_median": float(np.median(jexp)),
                     "astar_median": float(np.median([r.expanded for r in ast]))},
        "generated": {"jps_median": float(np.median([r.generated for r in jps])),
                      "astar_median": float(np.median([r.generated for r in ast]))},
        "ns_per_jump_point": float(np.median(times["jps"] * 1e3 / np.maximum(jexp, 1.0))),
        "optimal": {"jps": int(opt_jps), "astar": int(opt_ast)},
        "jps_cost_equals_astar": int(same_cost),
        "target": md.name in MAPS,
        "pass_vs_astar": bool(vs_astar >= TARGET_VS_ASTAR),
        "pass_vs_pyastar2d": None if vs_py is None else bool(vs_py >= TARGET_VS_PYASTAR2D),
    }


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m navkit.bench_jps", description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=None, help="Moving AI folder (default: navkit.benchmark's).")
    p.add_argument("--maps", action="append", help=f"Comma-separated map names (default: {','.join(MAPS)}).")
    p.add_argument("--queries", type=int, default=100, help="Benchmark queries per map (default 100).")
    p.add_argument("--rounds", type=int, default=3, help="Timed rounds; each query keeps its fastest (default 3).")
    p.add_argument("--no-pyastar2d", action="store_true", help="Skip pyastar2d.")
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="Also write the results here.")
    return p


def main(argv: list[str] | None = None) -> int:
    from .benchmark import default_data_dir

    args = build_parser().parse_args(argv)
    data_dir = args.data if args.data is not None else default_data_dir()
    if not data_dir.is_dir():
        print(f"error: Moving AI data not found at {data_dir} (use --data or NAVKIT_MOVINGAI_DIR)")
        return 2
    if args.queries < 1 or args.rounds < 1:
        print("error: --queries and --rounds must be at least 1")
        return 2
    names = [m for item in (args.maps or [",".join(MAPS)]) for m in item.split(",") if m]
    present = [n for n in names if (data_dir / f"{n}.map").is_file() and (data_dir / f"{n}.map.scen").is_file()]
    missing = sorted(set(names) - set(present))
    print(f"JPS benchmark: {args.queries} queries per map (every 10th scenario line, the last ones), "
          f"{args.rounds} rounds, fastest round per query, median over queries")
    if missing:
        print(f"maps not found (skipped): {', '.join(missing)}")

    t_start = time.perf_counter()
    rows = [run_map(data_dir, n, args.queries, args.rounds, not args.no_pyastar2d) for n in present]

    hdr = (f"{'map':12s} {'size':>9s} {'n':>4s} {'JPS us':>8s} {'A* us':>9s} {'pyastar2d':>9s} "
           f"{'xA*':>7s} {'xpyastar':>8s} {'JPS exp/gen':>12s} {'A* exp':>8s} {'ns/JP':>6s} "
           f"{'optimal':>8s} {'cost=A*':>7s}  targets")
    print()
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        m = r["median_us"]
        verdict_a = "PASS" if r["pass_vs_astar"] else "MISS"
        pv = r["pass_vs_pyastar2d"]
        verdict_p = "n/a" if pv is None else ("PASS" if pv else "MISS")
        verdict = (f">={TARGET_VS_ASTAR:g}x A*: {verdict_a}, >={TARGET_VS_PYASTAR2D:g}x pyastar2d: {verdict_p}"
                   if r["target"] else "(no target on this map)")
        print(f"{r['map']:12s} {r['size'][0]:>4d}x{r['size'][1]:<4d} {r['queries']:4d} {m['jps']:8.1f} "
              f"{m['astar']:9.0f} {_fmt(m['pyastar2d'], '.0f'):>9s} {r['speedup_vs_astar']:6.1f}x "
              f"{_fmt(r['speedup_vs_pyastar2d'], '.1f'):>7s}x "
              f"{r['expanded']['jps_median']:>5.0f}/{r['generated']['jps_median']:<6.0f} "
              f"{r['expanded']['astar_median']:8.0f} {r['ns_per_jump_point']:6.0f} "
              f"{r['optimal']['jps']:>3d}/{r['queries']:<4d} {r['jps_cost_equals_astar']:>3d}/{r['queries']:<3d}  "
              f"{verdict}")
    print(f"(exp/gen: median jump points expanded / generated; A* exp: cells expanded; ns/JP: median "
          f"time per expanded jump point; benchmark {time.perf_counter() - t_start:.1f} s)")
    targeted = [r for r in rows if r["target"]]
    all_pass = bool(targeted) and all(
        r["pass_vs_astar"] and r["pass_vs_pyastar2d"] is not False for r in targeted)
    if targeted:
        print(f"targets on {', '.join(r['map'] for r in targeted)}: {'PASS' if all_pass else 'MISS'}"
              + ("" if len(targeted) == len(MAPS) else f" (of {', '.join(MAPS)})"))

    if args.json is not None:
        import numba

        payload = {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "numba_version": numba.__version__,
            "config": {"queries": args.queries, "rounds": args.rounds, "maps": present,
                       "selection": "every 10th scenario line (0-based positions 0, 10, ...), the last N",
                       "timing": "perf_counter per call, gc off, fastest of the rounds per query, median"},
            "targets": {"vs_astar": TARGET_VS_ASTAR, "vs_pyastar2d": TARGET_VS_PYASTAR2D},
            "maps": rows,
            "all_pass": all_pass,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
