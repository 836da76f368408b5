"""Benchmark navkit's Jump Point Search against navkit's A* and pyastar2d.

Run ``navkit bench jps`` (``--help`` for options). A measurement script,
not a test: it reports PASS / MISS against the targets but always exits 0
unless its input is bad (exit 2).

Queries: the peer benchmark's selection
(:func:`~navkit.bench.common.select_queries`): every 10th line of the map's
``.scen`` file, the last ``--queries`` (100) of those, the longest. Every
method answers the same queries in the same process:

* **JPS**: ``Pathfinder(grid, costs="exact").find_path_cells(s, g,
  algorithm="jps")`` (full cell chain, ready-made ``PathResult``);
* **A***: the same call with ``algorithm="astar"``;
* **pyastar2d**: ``astar_path`` as :mod:`navkit.bench.peers` calls it (float32
  weights, ``inf`` blocked, diagonals allowed; it charges a diagonal step
  like a straight one and cuts corners, an easier question than navkit's).

``time.perf_counter`` brackets each Python call with the garbage collector
paused. The methods run in turn over all queries, ``--rounds`` times (3);
a query's time is its fastest round (on a shared machine other processes only
ever add time), and the figure is the median over the queries. Ratios divide
medians from the same run. JPS and A* paths are re-measured under the Moving
AI rules (:mod:`navkit.query.checks`) and must match the optimal lengths;
JPS's integer cost must equal A*'s on every query. ``expanded`` /
``generated`` are jump points for JPS, cells for A*.

Targets: on AR0011SR, brc202d, den520d and Aftershock the median JPS query
is at least 10x faster than navkit's A* and at least 20x faster than
pyastar2d.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from ..query.checks import is_optimal, path_length
from . import options as opt
from .common import (
    fastest_of_rounds,
    fmt,
    load_map,
    no_data,
    present_maps,
    resolve_data_dir,
    split_names,
)
from .libraries import make_pyastar2d

__all__ = ["main", "MAPS", "TARGET_VS_ASTAR", "TARGET_VS_PYASTAR2D"]

#: Maps with the speed targets.
MAPS = ("AR0011SR", "brc202d", "den520d", "Aftershock")
#: JPS median at least this many times faster than navkit A*'s ...
TARGET_VS_ASTAR = 10.0
#: ... and than pyastar2d's.
TARGET_VS_PYASTAR2D = 20.0


def run_map(data_dir: Path, name: str, queries: int, rounds: int,
            with_pyastar: bool) -> dict[str, Any]:
    """All figures for one map (see the module docstring)."""
    from ..grid import NavGrid
    from ..query.pathfinder import Pathfinder

    md = load_map(data_dir, name, queries)
    pf = Pathfinder(NavGrid(md.walkable), costs="exact")
    qs = [((int(s[0]), int(s[1])), (int(g[0]), int(g[1])))
          for s, g in zip(md.starts, md.goals, strict=True)]
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
            solve_py, _cells, _note = make_pyastar2d(md.walkable)
            solve_py(*qs[0])
            solvers["pyastar2d"] = solve_py
        except ImportError:
            py_status = "not installed"
    else:
        py_status = "skipped"
    times = fastest_of_rounds(solvers, qs, rounds)
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


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    data_dir = resolve_data_dir(args.data)
    if not data_dir.is_dir():
        return no_data(data_dir)
    if args.queries < 1 or args.rounds < 1:
        print("error: --queries and --rounds must be at least 1", file=sys.stderr)
        return 2
    names = split_names(args.maps, MAPS)
    present, missing = present_maps(data_dir, names)
    if not present:
        return no_data(data_dir, f"maps {', '.join(names)} (.map and .map.scen)")
    print(f"JPS benchmark: {args.queries} queries per map (every 10th scenario line, the last "
          f"ones), {args.rounds} rounds, fastest round per query, median over queries")
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
        verdict = (f">={TARGET_VS_ASTAR:g}x A*: {verdict_a}, "
                   f">={TARGET_VS_PYASTAR2D:g}x pyastar2d: {verdict_p}"
                   if r["target"] else "(no target on this map)")
        print(f"{r['map']:12s} {r['size'][0]:>4d}x{r['size'][1]:<4d} {r['queries']:4d} "
              f"{m['jps']:8.1f} "
              f"{m['astar']:9.0f} {fmt(m['pyastar2d'], '.0f'):>9s} {r['speedup_vs_astar']:6.1f}x "
              f"{fmt(r['speedup_vs_pyastar2d'], '.1f'):>7s}x "
              f"{r['expanded']['jps_median']:>5.0f}/{r['generated']['jps_median']:<6.0f} "
              f"{r['expanded']['astar_median']:8.0f} {r['ns_per_jump_point']:6.0f} "
              f"{r['optimal']['jps']:>3d}/{r['queries']:<4d} "
              f"{r['jps_cost_equals_astar']:>3d}/{r['queries']:<3d}  "
              f"{verdict}")
    print(f"(exp/gen: median jump points expanded / generated; A* exp: cells expanded; ns/JP: "
          f"median time per expanded jump point; benchmark {time.perf_counter() - t_start:.1f} s)")
    targeted = [r for r in rows if r["target"]]
    all_pass = bool(targeted) and all(
        r["pass_vs_astar"] and r["pass_vs_pyastar2d"] is not False for r in targeted)
    if targeted:
        print(f"targets on {', '.join(r['map'] for r in targeted)}: "
              f"{'PASS' if all_pass else 'MISS'}"
              + ("" if len(targeted) == len(MAPS) else f" (of {', '.join(MAPS)})"))

    if args.json is not None:
        import numba

        payload = {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "numba_version": numba.__version__,
            "config": {"queries": args.queries, "rounds": args.rounds, "maps": present,
                       "selection": "every 10th scenario line (0-based positions 0, 10, ...), "
                                    "the last N",
                       "timing": "perf_counter per call, gc off, fastest of the rounds per "
                                 "query, median"},
            "targets": {"vs_astar": TARGET_VS_ASTAR, "vs_pyastar2d": TARGET_VS_PYASTAR2D},
            "maps": rows,
            "all_pass": all_pass,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(opt.dumps(payload, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


#: ``navkit bench jps``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("jps", cls=opt.BenchCommand,
             help=__doc__.split("\n")[0])
def cli(
    data: Annotated[Path | None, opt.data()] = None,
    maps: Annotated[
        list[str] | None,
        opt.maps(','.join(MAPS)),
    ] = None,
    queries: Annotated[
        int,
        typer.Option('--queries',
                     help="Benchmark queries per map (default 100)."),
    ] = 100,
    rounds: Annotated[
        int,
        typer.Option('--rounds',
                     help="Timed rounds; each query keeps its fastest (default "
                          "3)."),
    ] = 3,
    no_pyastar2d: Annotated[bool, typer.Option('--no-pyastar2d', help="Skip pyastar2d.")] = False,
    json: Annotated[Path | None, opt.json_file("Also write the results here.", 'OUT')] = None,
) -> None:
    """``navkit bench jps`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the JPS benchmark with command-line ``argv``; 0, or 2 on bad input."""
    return opt.run(app, argv, "navkit bench jps")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
