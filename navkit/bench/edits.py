"""Cell-edit and self-exclusion benchmark: ``python -m navkit.bench.edits [--quick] [--json]``.

(a) Runtime cell edits on a 1024 x 1024 Moving AI map (NewYork_0_1024 when
present): ``set_walkable`` of one cell on a route, then the next query
(local JPS cell queries and one-call world queries), against the same query
without an edit, and against rebuilding ``NavGrid`` + ``Pathfinder`` and its
first query. (b) 50 NPCs, each a radius-0.4 circle in one tick's snapshot,
each planning ``find_path_to_nearest`` while excluding itself
(``obstacles=snap, ignore=i``) against all of them sharing one snapshot
(``obstacles=circles``) and against restamping the 49 others per query.
Medians in microseconds. A progress bar shows on stderr when it is a
terminal (``--quiet`` silences it).
"""

from __future__ import annotations

import sys
import time
from typing import Annotated, Any

import numpy as np

from ..grid import NavGrid
from ..query.pathfinder import Pathfinder
from . import options as opt
from .common import default_data_dir, load_map

__all__ = ["main", "run"]

_MAPS = ("NewYork_0_1024", "den520d")


def _med_us(ts: list[float]) -> float:
    return float(np.median(ts) * 1e6) if ts else float("nan")


def _progress(quiet: bool) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    console=Console(file=sys.stderr), transient=True,
                    disable=quiet or not sys.stderr.isatty())


def _map() -> tuple[str, np.ndarray]:
    data_dir = default_data_dir()
    for name in _MAPS:
        try:
            data = load_map(data_dir, name, 1)
        except Exception:  # noqa: BLE001 - the next map
            continue
        return data.name, data.walkable
    raise SystemExit(f"no Moving AI map of {_MAPS} in {data_dir}")


def _local_pairs(walk: np.ndarray, n: int, rng: np.random.Generator,
                 reach: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    free = np.argwhere(walk)
    out: list[tuple[tuple[int, int], tuple[int, int]]] = []
    while len(out) < n:
        z, x = free[rng.integers(len(free))]
        dx, dz = rng.integers(-reach, reach + 1, 2)
        gx, gz = int(x + dx), int(z + dz)
        if 0 <= gx < walk.shape[1] and 0 <= gz < walk.shape[0] and walk[gz, gx]:
            out.append(((int(x), int(z)), (gx, gz)))
    return out


def part_edits(name: str, walk: np.ndarray, quick: bool, bar: Any) -> dict[str, Any]:
    """(a): one-cell edits and the next query vs no edit vs a rebuild."""
    grid = NavGrid(walk)
    pf = Pathfinder(grid, "exact")
    rng = np.random.default_rng(1)
    n = 100 if quick else 1000
    pairs = _local_pairs(walk, n, rng, 30)
    # warm: kernels, JPS rows, the one-call world query's arguments
    for s, g in pairs[:20]:
        pf.find_path_cells(s, g, algorithm="auto")
        pf.find_path((s[0] + 0.5, s[1] + 0.5), (g[0] + 0.5, g[1] + 0.5))
    pf.set_walkable([pairs[0][0]], False)
    pf.set_walkable([pairs[0][0]], True)
    t_q, t_e, t_eq, t_w, t_ew, t_undo = [], [], [], [], [], []
    task = bar.add_task("edit + query", total=len(pairs))
    for s, g in pairs:
        r = pf.find_path_cells(s, g, algorithm="auto")
        if not r.has_path or len(r.cells) < 3:
            bar.advance(task)
            continue
        cx, cz = (int(v) for v in r.cells[len(r.cells) // 2])  # a cell on the route
        t0 = time.perf_counter()
        pf.find_path_cells(s, g, algorithm="auto")
        t1 = time.perf_counter()
        pf.set_walkable([[cx, cz]], False)
        t2 = time.perf_counter()
        pf.find_path_cells(s, g, algorithm="auto")
        t3 = time.perf_counter()
        pf.set_walkable([[cx, cz]], True)
        t4 = time.perf_counter()
        ws, wg = (s[0] + 0.5, s[1] + 0.5), (g[0] + 0.5, g[1] + 0.5)
        t5 = time.perf_counter()
        pf.find_path(ws, wg)
        t6 = time.perf_counter()
        pf.set_walkable([[cx, cz]], False)
        pf.find_path(ws, wg)
        t7 = time.perf_counter()
        pf.set_walkable([[cx, cz]], True)
        t_q.append(t1 - t0)
        t_e.append(t2 - t1)
        t_eq.append(t3 - t1)
        t_undo.append(t4 - t3)
        t_w.append(t6 - t5)
        t_ew.append(t7 - t6)
        bar.advance(task)
    # rebuild: a new NavGrid + Pathfinder and its first query, per edit
    t_rb, t_rbq = [], []
    edited = np.array(walk, copy=True)
    for s, g in pairs[: (3 if quick else 10)]:
        edited = edited.copy()  # NavGrid made the last one read-only
        edited[g[1], g[0]] = not edited[g[1], g[0]]
        t0 = time.perf_counter()
        pf2 = Pathfinder(NavGrid(edited), "exact")
        t1 = time.perf_counter()
        pf2.find_path_cells(s, g, algorithm="auto")
        t2 = time.perf_counter()
        t_rb.append(t1 - t0)
        t_rbq.append(t2 - t0)
    return {
        "map": name, "shape": list(walk.shape), "queries": len(t_q),
        "query_us": _med_us(t_q), "edit_us": _med_us(t_e), "edit_plus_query_us": _med_us(t_eq),
        "undo_edit_us": _med_us(t_undo),
        "world_query_us": _med_us(t_w), "edit_plus_world_query_us": _med_us(t_ew),
        "rebuild_ms": _med_us(t_rb) / 1e3, "rebuild_plus_first_query_ms": _med_us(t_rbq) / 1e3,
    }


def part_ignore(name: str, walk: np.ndarray, quick: bool, bar: Any,
                npcs: int = 50) -> dict[str, Any]:
    """(b): ``npcs`` NPCs per tick, each ignoring itself, vs one shared snapshot."""
    pf = Pathfinder(NavGrid(walk), "exact")
    rng = np.random.default_rng(2)
    ticks = 5 if quick else 40
    free = np.argwhere(walk)
    t_shared, t_ignore, t_restamp, t_snap = [], [], [], []
    same_cost = 0
    task = bar.add_task("50 NPCs", total=ticks)
    for tick in range(ticks):
        # NPCs in a 60 x 60 neighbourhood, heading to spots within 30 cells
        z0, x0 = free[rng.integers(len(free))]
        pts: list[tuple[float, float]] = []
        while len(pts) < npcs:
            dx, dz = rng.integers(-30, 31, 2)
            x, z = int(x0 + dx), int(z0 + dz)
            if 0 <= x < walk.shape[1] and 0 <= z < walk.shape[0] and walk[z, x]:
                pts.append((x + 0.5, z + 0.5))
        circles = np.array([[x, z, 0.4] for x, z in pts], dtype=np.float64)
        goals = [(x + float(rng.integers(-30, 31)), z + float(rng.integers(-30, 31)))
                 for x, z in pts]
        t0 = time.perf_counter()
        snap = pf.snapshot(circles)
        t_snap.append(time.perf_counter() - t0)
        for i in range(npcs):
            t0 = time.perf_counter()
            a = pf.find_path_to_nearest(pts[i], goals[i], obstacles=circles)
            t1 = time.perf_counter()
            b = pf.find_path_to_nearest(pts[i], goals[i], obstacles=snap, ignore=i)
            t2 = time.perf_counter()
            c = pf.find_path_to_nearest(pts[i], goals[i],
                                        obstacles=np.delete(circles, i, axis=0))
            t3 = time.perf_counter()
            if tick or i >= 5:  # the first queries compile / warm
                t_shared.append(t1 - t0)
                t_ignore.append(t2 - t1)
                t_restamp.append(t3 - t2)
            same_cost += int(b.cost_int == c.cost_int and b.status == c.status)
            del a
        bar.advance(task)
    shared, ignore, restamp = _med_us(t_shared), _med_us(t_ignore), _med_us(t_restamp)
    return {
        "map": name, "npcs": npcs, "ticks": ticks, "queries": len(t_shared),
        "shared_snapshot_us": shared, "ignore_self_us": ignore, "restamp_others_us": restamp,
        "ignore_vs_shared": ignore / shared, "restamp_vs_shared": restamp / shared,
        "snapshot_us": _med_us(t_snap),
        "ignore_equals_restamp": same_cost, "compared": ticks * npcs,
        "mean_shared_us": float(np.mean(t_shared) * 1e6),
        "mean_ignore_us": float(np.mean(t_ignore) * 1e6),
    }


def run(quick: bool = False, quiet: bool = False) -> dict[str, Any]:
    name, walk = _map()
    with _progress(quiet) as bar:
        a = part_edits(name, walk, quick, bar)
        b = part_ignore(name, walk, quick, bar)
    return {"edits": a, "ignore": b}


def _report(res: dict[str, Any]) -> str:
    a, b = res["edits"], res["ignore"]
    return "\n".join([
        f"(a) cell edits on {a['map']} {a['shape'][1]}x{a['shape'][0]}, "
        f"{a['queries']} local queries (median us)",
        f"    query alone {a['query_us']:.1f}   set_walkable(1 cell) {a['edit_us']:.1f}   "
        f"edit + next query {a['edit_plus_query_us']:.1f}   undo {a['undo_edit_us']:.1f}",
        f"    world query alone {a['world_query_us']:.1f}   edit + next world query "
        f"{a['edit_plus_world_query_us']:.1f}",
        f"    rebuild NavGrid + Pathfinder {a['rebuild_ms']:.2f} ms, "
        f"+ first query {a['rebuild_plus_first_query_ms']:.2f} ms",
        f"(b) {b['npcs']} NPCs x {b['ticks']} ticks on {b['map']}, find_path_to_nearest "
        "(median us)",
        f"    shared snapshot {b['shared_snapshot_us']:.1f}   ignore self "
        f"{b['ignore_self_us']:.1f} ({b['ignore_vs_shared']:.2f}x)   restamp the others "
        f"{b['restamp_others_us']:.1f} ({b['restamp_vs_shared']:.2f}x)   "
        f"snapshot() {b['snapshot_us']:.1f}",
        f"    ignore == restamp answers: {b['ignore_equals_restamp']}/{b['compared']}",
    ])


def _run(a: opt.Args) -> int:
    """The benchmark on the parsed options ``a`` (:func:`main`)."""
    res = run(a.quick, a.quiet)
    print(opt.dumps(res, indent=2) if a.json else _report(res))
    return 0


#: ``navkit bench edits``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("edits", cls=opt.BenchCommand,
             help=__doc__)
def cli(
    quick: Annotated[bool, opt.quick("a smoke run (a few seconds)")] = False,
    json: Annotated[bool, opt.json_flag("print the figures as JSON")] = False,
    quiet: Annotated[bool, opt.quiet()] = False,
) -> None:
    """``navkit bench edits`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the edit benchmark with command-line ``argv``; 0 (bad options exit 2)."""
    return opt.run(app, argv, "navkit bench edits")


if __name__ == "__main__":
    raise SystemExit(main())
