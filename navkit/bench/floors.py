"""Buildings benchmark: ``navkit bench floors [--quick] [--json] [--floors N] [--size N]``.

A generated building (default 4 floors of 256 x 256 cells, rooms and doors on
each, 8 links: two stairs per storey pair and a lift through every floor) and
three kinds of grid query, timed in the same run and reported as nanoseconds
per expanded node (median over queries of each query's best of three):

* **across floors**: start on the ground floor, goal on the top floor, with
  :meth:`navkit.floors.FloorMap.find_path_cells`: through the link ends with A*
  (or JPS) on each floor's piece, and the layered A* over all floors at once;
* **one floor**: start and goal on the ground floor, with
  :class:`navkit.query.pathfinder.Pathfinder` A* and JPS on that floor's grid
  (navkit's single-floor search).

Every cross-floor answer's cost is checked against the layered Dijkstra. A progress
bar shows on stderr when it is a terminal.
"""

from __future__ import annotations

import sys
import time
from typing import Annotated, Any

import numpy as np
import typer

from . import options as opt

__all__ = ["main", "run", "building"]


def building(floors: int = 4, size: int = 256, seed: int = 7) -> dict[str, Any]:
    """A generated building: ``floors`` floors of ``size x size`` cells (0.5 m),
    each a grid of 16 m rooms with a 2 m doorway in every wall, and links: two
    stairs per pair of neighbouring floors, a lift from the bottom floor to the
    top and a one-way chute down (8 links for 4 floors)."""
    rng = np.random.default_rng(seed)
    cs = 0.5
    side = size * cs - 2.0
    out = []
    for f in range(floors):
        obstacles: list[dict[str, Any]] = []
        room = 16.0
        rooms = int(side // room)
        for i in range(1, rooms):
            for j in range(rooms):
                lo, hi = j * room, min(side, (j + 1) * room)
                d = float(rng.uniform(lo + 2, hi - 4))  # a 2 m doorway in every wall piece
                c = i * room
                for a0, a1 in ((lo, d), (d + 2.0, hi)):
                    if a1 - a0 > 0.1:
                        k = len(obstacles)
                        obstacles.append({"name": f"x{k}", "polygon": [
                            [c, a0], [c + 0.5, a0], [c + 0.5, a1], [c, a1]]})
                        obstacles.append({"name": f"z{k}", "polygon": [
                            [a0, c], [a1, c], [a1, c + 0.5], [a0, c + 0.5]]})
        out.append({"name": f"F{f}", "floorY": 3.5 * f,
                    "areas": [{"name": "floor", "polygon": [[0, 0], [side, 0], [side, side],
                                                            [0, side]]}],
                    "obstacles": obstacles})
    links: list[dict[str, Any]] = []
    spots = [(side * 0.25 + 3.1, side * 0.5 + 3.3), (side * 0.75 + 3.1, side * 0.25 + 3.3),
             (side * 0.5 + 5.1, side * 0.75 + 5.3)]
    for f in range(floors - 1):
        for j in range(2):
            x, z = spots[(f + j) % len(spots)]
            links.append({"name": f"stairs{len(links)}", "kind": "stairs",
                          "from": {"floor": f"F{f}", "point": [x, z]},
                          "to": {"floor": f"F{f + 1}", "point": [x + 4.0, z]}})
    links.append({"name": "lift", "kind": "elevator",
                  "from": {"floor": "F0", "point": [5.3, 5.3]},
                  "to": {"floor": f"F{floors - 1}", "point": [5.3, 5.3]},
                  "cost": 3.5 * (floors - 1) * 2})
    links.append({"name": "chute", "kind": "jump", "bidirectional": False,
                  "from": {"floor": f"F{floors - 1}", "point": [side - 5.3, side - 5.3]},
                  "to": {"floor": "F0", "point": [side - 5.3, side - 5.3]}})
    return {"cellSize": cs, "agentRadius": 0.0, "objectPadding": 0.0, "floors": out,
            "links": links}


def _best(fn: Any, reps: int = 3) -> float:
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _progress(quiet: bool) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    console=Console(file=sys.stderr), transient=True,
                    disable=quiet or not sys.stderr.isatty())


def run(floors: int = 4, size: int = 256, queries: int = 100, quiet: bool = False
        ) -> dict[str, Any]:
    """The figures as a dict (see the module docs)."""
    from ..floors import Building, FloorMap
    from ..query.pathfinder import Pathfinder

    t0 = time.perf_counter()
    b = Building(building(floors, size))
    build_s = time.perf_counter() - t0
    fm = FloorMap(b, "exact")
    pf = Pathfinder(b.grid(0), "exact")
    rng = np.random.default_rng(3)
    free = [np.argwhere(b.grid(f).walkable) for f in range(floors)]

    def pick(f: int) -> tuple[int, int, int]:
        z, x = free[f][int(rng.integers(len(free[f])))]
        return (f, int(x), int(z))

    kinds = ("across_astar", "across_layered", "one_floor_astar", "across_jps", "one_floor_jps")
    ns: dict[str, list[float]] = {k: [] for k in kinds}
    us: dict[str, list[float]] = {k: [] for k in kinds}
    checked = 0

    def timed(kind: str, fn: Any) -> Any:
        res = fn()
        t = _best(fn)
        us[kind].append(t * 1e6)
        ns[kind].append(t / max(1, res.expanded) * 1e9)
        return res

    fm.find_path_cells(pick(0), pick(floors - 1))  # fields of every floor, kernels
    with _progress(quiet) as bar:
        task = bar.add_task("queries", total=2 * queries)
        for _ in range(queries):
            a, g = pick(0), pick(floors - 1)
            r = fm.find_path_cells(a, g, algorithm="astar")
            if r.status == 0:
                ref = fm.find_path_cells(a, g, algorithm="dijkstra")
                if ref.cost_int != r.cost_int:
                    raise AssertionError(f"{r.cost_int} != Dijkstra {ref.cost_int} for {a} -> {g}")
                checked += 1
                timed("across_astar", lambda a=a, g=g: fm.find_path_cells(a, g,
                                                                          algorithm="astar"))
                timed("across_layered", lambda a=a, g=g: fm.find_path_cells(a, g,
                                                                            algorithm="layered"))
                timed("across_jps", lambda a=a, g=g: fm.find_path_cells(a, g, algorithm="jps"))
            bar.advance(task)
        for _ in range(queries):
            a, g = pick(0), pick(0)
            pr = pf.find_path_cells(a[1:], g[1:], algorithm="astar")
            if pr.status == 0 and pr.expanded > 10:
                timed("one_floor_astar",
                      lambda a=a, g=g: pf.find_path_cells(a[1:], g[1:], algorithm="astar"))
                timed("one_floor_jps",
                      lambda a=a, g=g: pf.find_path_cells(a[1:], g[1:], algorithm="jps"))
            bar.advance(task)
    med_ns = {k: float(np.median(v)) if v else float("nan") for k, v in ns.items()}
    med_us = {k: float(np.median(v)) if v else float("nan") for k, v in us.items()}
    return {
        "floors": floors,
        "size": size,
        "links": len(b.links),
        "build_s": build_s,
        "queries": queries,
        "checked_against_dijkstra": checked,
        "ns_per_expansion": med_ns,
        "us_per_query": med_us,
        "across_vs_one_floor_astar": med_ns["across_astar"] / med_ns["one_floor_astar"],
        "layered_vs_one_floor_astar": med_ns["across_layered"] / med_ns["one_floor_astar"],
        "across_vs_one_floor_jps": med_ns["across_jps"] / med_ns["one_floor_jps"],
    }


def _report(res: dict[str, Any]) -> str:
    m = res["ns_per_expansion"]
    u = res["us_per_query"]
    rows = [("across floors, A* per floor (through link ends)", "across_astar"),
            ("across floors, layered A* (all floors at once)", "across_layered"),
            ("one floor, Pathfinder A*", "one_floor_astar"),
            ("across floors, JPS per floor", "across_jps"),
            ("one floor, Pathfinder JPS", "one_floor_jps")]
    out = [f"building: {res['floors']} floors of {res['size']} x {res['size']} cells, "
           f"{res['links']} links (built in {res['build_s']:.2f} s)",
           f"grid queries (median of {res['queries']} pairs, each the best of 3):",
           f"  {'':52s} {'ns/expanded':>12s} {'us/query':>10s}"]
    out += [f"  {label:52s} {m[k]:12.1f} {u[k]:10.1f}" for label, k in rows]
    out += [f"  across / one floor, A*:  {res['across_vs_one_floor_astar']:.2f}x per node "
            f"(layered: {res['layered_vs_one_floor_astar']:.2f}x); JPS: "
            f"{res['across_vs_one_floor_jps']:.2f}x",
            f"  cross-floor answers equal to Dijkstra: {res['checked_against_dijkstra']}"]
    return "\n".join(out)


def _run(a: opt.Args) -> int:
    q = 20 if a.quick else a.queries
    res = run(a.floors, a.size, q, a.quiet)
    print(opt.dumps(res, indent=2) if a.json else _report(res))
    return 0


#: ``navkit bench floors``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("floors", cls=opt.BenchCommand, help=__doc__)
def cli(
    quick: Annotated[bool, opt.quick("a smoke run (20 queries)")] = False,
    json: Annotated[bool, opt.json_flag("print the figures as JSON")] = False,
    quiet: Annotated[bool, opt.quiet()] = False,
    floors: Annotated[int, typer.Option("--floors", min=2, max=64,
                                            help="floors in the building")] = 4,
    size: Annotated[int, typer.Option("--size", min=64, max=2048,
                                          help="cells per side of each floor")] = 256,
    queries: Annotated[int, typer.Option("--queries", min=1,
                                             help="queries of each kind")] = 100,
) -> None:
    """``navkit bench floors`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the buildings benchmark with command-line ``argv``; 0 (bad options exit 2)."""
    return opt.run(app, argv, "navkit bench floors")


if __name__ == "__main__":
    raise SystemExit(main())
