"""Benchmark JPS+ (offline jump tables) against navkit's JPS and A*, Python peers and warthog.

Run ``python -m navkit.bench.jps_plus [--quick] [--maps ...] [--warthog PATH]``
(``--help`` for options). A measurement script, not a test: it reports PASS /
MISS against its targets but exits 0 unless its input is bad (2).

Per map: the jump tables' build time (a second, warm build; the first may
load the kernel) and memory, the jump-point density that ``auto``'s rule
reads (:func:`navkit.query.jps_plus.prefer_jps_plus`), and the median
microseconds per query of

* **A***, **JPS**, **JPS+**: ``Pathfinder.find_path_cells(s, g,
  algorithm=...)`` with ``costs="exact"`` (the public call, full cell chain,
  ready-made ``PathResult``);
* **JPS / JPS+ objects**: ``JPS.cell_query`` / ``JPSPlus.cell_query`` (the
  query objects, as a Pathfinder fast path calls them: no argument checks);
* **JPS / JPS+ search**: the search kernels alone, called through their
  compiled entry points with their arguments (node ids, a reserved search
  generation) built before the clock starts (no numba type dispatch, no
  Python around the call, no ``PathResult``, no trace of the path: what
  warthog's timer covers): the algorithms' own difference;
* **nano-astar** and **w9-pathfinding** (optimal A* peers with no corner
  cutting, C++ cores) when installed: imported lazily, skipped with a note;
* **JPS+ with goal bounds** (``--goal-bounds``): build time and memory, and
  ``JPSPlus.cell_query`` with :class:`navkit.query.goal_bounds.GoalBounds`;
* **JPS / JPS+ into**: ``Pathfinder.find_path_into(s, g, buf, algorithm=...)``
  into one reused :class:`~navkit.PathBuffer` (the hot-loop call);
* **batch**: ``find_paths_cells`` of the long set and of every line on one
  thread, JPS, JPS+ and JPS+ with goal bounds (mean microseconds per query,
  the fastest of ``--rounds`` / ``--line-rounds`` batches);
* **edits** (``--edits N``): a one-cell ``set_walkable`` with JPS+ tables
  (they follow it, :meth:`navkit.query.jps_plus.JumpTables.update`) and
  without, against a full rebuild;
* **warthog** when ``--warthog PATH`` names its binary: run ``--warthog-rounds``
  times per algorithm (``--warthog-algs``, default :data:`WARTHOG_ALGS`) on
  the scenario file (``--scen FILE --alg ALG``), its own ``nanos`` column
  (search loop only, C++; per line the fastest run), medians and means over
  the same lines navkit timed, and navkit's best variant against warthog's best
  (:func:`versus_warthog`); never built or downloaded here.

Two query sets: the *long set* (every 10th scenario line, the last
``--queries`` of those: :func:`navkit.bench.common.select_queries`; fastest of
``--rounds`` per query) and *every line* of the scenario file (fastest of
``--line-rounds``; A* only on the long set unless ``--astar-every-line``).
Every answer is checked against the Moving AI optimal length.

Targets: JPS+ at least 2x faster than JPS on den520d, AR0011SR, brc202d,
NewYork_0_1024 and orz900d; on maze512-1-0 and random512-10-0 ``auto`` must
not pick JPS+ where it is slower. The 2x is judged three ways, each on the
medians (means for batches) of both sets, with or without goal bounds:
through ``find_path_cells`` (calls), through the search kernels alone
(:func:`kernel_gain`) and through one-thread batches (:func:`batch_gain`).
"""

from __future__ import annotations

import math
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from numpy.typing import NDArray

from . import options as opt
from .common import (
    PreparedSolver,
    fastest_of_rounds,
    find_scenario,
    fmt,
    no_data,
    present_maps,
    resolve_data_dir,
    select_queries,
    split_names,
    spread,
)

__all__ = ["main", "MAPS", "FAST_MAPS", "SLOW_MAPS", "TARGET", "WARTHOG_ALGS", "run_warthog",
           "parse_warthog", "warthog_columns", "versus_warthog", "batch_gain",
           "at_or_below_warthog"]

#: Maps where JPS+ must be at least TARGET times faster than JPS ...
FAST_MAPS = ("den520d", "AR0011SR", "brc202d", "NewYork_0_1024", "orz900d")
#: ... and maps where ``auto`` must not pick it when it loses.
SLOW_MAPS = ("maze512-1-0", "random512-10-0")
MAPS = FAST_MAPS + SLOW_MAPS
TARGET = 2.0
#: warthog's ``--alg`` values timed by default: online JPS, JPS with its
#: jump-point-only open list (jpsP), and both on offline jump tables.
WARTHOG_ALGS = ("jps", "jpsP", "jps+", "jpsP+")

Query = tuple[tuple[int, int], tuple[int, int]]
Solver = Callable[[tuple[int, int], tuple[int, int]], Any]


def _progress(quiet: bool) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    console=Console(file=sys.stderr), transient=True,
                    disable=quiet or not sys.stderr.isatty())


# --------------------------------------------------------------------- peers
def make_nano_astar(walk: NDArray[np.bool_]) -> tuple[Solver, Callable[[Any], float]]:
    """nano-astar's ``astar`` on the map (uint8, 1 = blocked; cells ``(row, col)``)."""
    from nano_astar import astar  # lazy: an optional peer

    grid = np.ascontiguousarray(~walk, dtype=np.uint8)

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        return astar(grid, (s[1], s[0]), (g[1], g[0]), heuristic="octile", diagonal=True)

    return solve, lambda r: math.inf if r is None else float(r[1])


def make_w9(walk: NDArray[np.bool_]) -> tuple[Solver, Callable[[Any], float]]:
    """w9-pathfinding's ``AStar`` on a ``Grid`` (diagonals only past two free
    sides, diagonal cost sqrt(2)); the path's cost is measured untimed."""
    from w9_pathfinding.envs import Grid  # lazy: an optional peer
    from w9_pathfinding.pf import AStar

    weights = np.where(walk, 1.0, -1.0).tolist()
    grid = Grid(weights, diagonal_movement=1, diagonal_movement_cost_multiplier=math.sqrt(2))
    finder = AStar(grid)

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        return finder.find_path(s, g)

    def cost(path: Any) -> float:
        return float(grid.calculate_cost(path)) if path else math.inf

    return solve, cost


PEERS: dict[str, Callable[[NDArray[np.bool_]], tuple[Solver, Callable[[Any], float]]]] = {
    "nano-astar": make_nano_astar,
    "w9-pathfinding": make_w9,
}


# ------------------------------------------------------------------- warthog
def parse_warthog(text: str) -> dict[str, NDArray[np.float64]]:
    """warthog's tab-separated experiment table (a header line starting with
    ``id``, one row per scenario line) as columns; numeric columns only."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    start = next((i for i, ln in enumerate(lines) if ln.split("\t")[0] == "id"), None)
    if start is None:
        raise ValueError("no warthog results table (a header line starting with 'id') "
                         "in its output")
    header = lines[start].split("\t")
    rows = [ln.split("\t") for ln in lines[start + 1:]]
    rows = [r for r in rows if len(r) == len(header) and r[0].isdigit()]
    cols: dict[str, NDArray[np.float64]] = {}
    for j, name in enumerate(header):
        try:
            cols[name] = np.array([float(r[j]) for r in rows], dtype=np.float64)
        except ValueError:
            continue
    return cols


def run_warthog(binary: Path, scen: Path, map_path: Path, alg: str,
                timeout: float = 600.0) -> dict[str, NDArray[np.float64]]:
    """Run ``binary --scen SCEN --map MAP --alg ALG`` (in the scenario's folder)
    and parse its table (:func:`parse_warthog`)."""
    cmd = [str(binary), "--scen", str(scen), "--map", str(map_path), "--alg", alg]
    out = subprocess.run(cmd, cwd=scen.parent, capture_output=True, text=True, timeout=timeout,
                         check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()[-300:]}")
    return parse_warthog(out.stdout)


def warthog_columns(binary: Path, algs: list[str], scen: Path, map_path: Path,
                    optimal: NDArray[np.float64], long_idx: NDArray[np.int64],
                    every_idx: NDArray[np.int64], rounds: int = 1) -> dict[str, dict[str, Any]]:
    """warthog's figures per ``--alg`` of ``algs`` on the same lines navkit timed.

    Each algorithm runs ``rounds`` times over the whole scenario file; per line
    the fastest round's ``nanos`` (its search loop only) is kept, then the median
    and the mean (microseconds) are taken over ``long_idx`` and ``every_idx``
    (indices into the scenario's lines, the long set and the every-line set).
    ``optimal`` counts lines whose ``pcost`` is the Moving AI length (warthog
    prints 6 significant digits: relative 1e-5). A failing run, or a table of
    another length, gives ``{"error": ...}`` for that algorithm.
    """
    out: dict[str, dict[str, Any]] = {}
    n = len(optimal)
    for alg in algs:
        best: NDArray[np.float64] | None = None
        ent: dict[str, Any] = {}
        try:
            for _ in range(max(1, rounds)):
                cols = run_warthog(binary, scen, map_path, alg)
                nanos = cols.get("nanos", np.zeros(0))
                if len(nanos) != n:
                    raise ValueError(f"{len(nanos)} result rows for {n} scenario lines")
                best = nanos if best is None else np.minimum(best, nanos)
                if "pcost" in cols:
                    err = np.abs(cols["pcost"] - optimal)
                    good = int(np.sum(err <= np.maximum(1e-3, 1e-5 * np.abs(optimal))))
                    ent["optimal"] = f"{good}/{n}"
        except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
            out[alg] = {"error": str(e)}
            continue
        assert best is not None
        us = best / 1e3
        ent.update(lines=n, rounds=max(1, rounds),
                   median_us_long=float(np.median(us[long_idx])),
                   median_us_every=float(np.median(us[every_idx])),
                   mean_us_long=float(np.mean(us[long_idx])),
                   mean_us_every=float(np.mean(us[every_idx])))
        out[alg] = ent
    return out


def kernel_gain(med: dict[str, float]) -> float:
    """JPS's search kernel over the best offline variant's (with or without goal
    bounds), from one set's medians.

    >>> kernel_gain({"jps_search": 6.0, "jps+_search": 4.0, "jps+gb_search": 2.0})
    3.0
    >>> kernel_gain({"jps_search": 6.0, "jps+_search": 4.0})
    1.5
    """
    best = min(med[k] for k in ("jps+_search", "jps+gb_search") if k in med)
    return med["jps_search"] / best


def batch_gain(batch: dict[str, float]) -> float:
    """Online JPS's batch time over the fastest offline variant's (``jps+`` or ``jps+gb``).

    >>> batch_gain({"jps": 6.0, "jps+": 4.0, "jps+gb": 2.5})
    2.4
    """
    return batch["jps"] / min(v for k, v in batch.items() if k != "jps")


def at_or_below_warthog(vs: dict[str, Any]) -> bool:
    """Whether navkit's best usable variant (a per-query call or a batch, not the
    kernel alone) is at or below warthog's best on the long set and on every line
    (``vs``: :func:`versus_warthog`'s answer).

    >>> at_or_below_warthog({"long": {"call_ratio": 1.3, "batch_ratio": 0.6},
    ...                      "every": {"call_ratio": 0.9, "batch_ratio": 1.1}})
    True
    """
    return all(min(vs[label].get("call_ratio", math.inf), vs[label].get("batch_ratio", math.inf))
               <= 1.0 for label in ("long", "every"))


#: navkit's variants through its Python API, per-query calls (medians) ...
NAVKIT_CALLS = ("jps", "jps+", "jps+gb", "jps_into", "jps+_into", "jps+gb_into")
#: ... and its search kernels alone (medians).
NAVKIT_KERNELS = ("jps_search", "jps+_search", "jps+gb_search")


def versus_warthog(med_long: dict[str, float], med_every: dict[str, float],
                   batch_long: dict[str, float], batch_every: dict[str, float],
                   warthog: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """navkit's best variant against warthog's best, per query set.

    Three comparisons, each ``navkit / warthog`` (at or below 1: navkit is as
    fast or faster): the fastest per-query Python call (medians of
    :data:`NAVKIT_CALLS`) and the fastest search kernel alone (medians of
    :data:`NAVKIT_KERNELS`) against warthog's lowest median, and the fastest
    one-thread ``find_paths_cells`` (mean per query) against warthog's lowest
    mean. None when no warthog algorithm ran.

    >>> v = versus_warthog({"jps": 8.0, "jps+": 6.0, "jps_search": 5.0},
    ...                    {"jps": 9.0, "jps+": 7.0, "jps_search": 6.0},
    ...                    {"jps": 5.0}, {"jps": 6.0},
    ...                    {"jps": {"median_us_long": 7.5, "median_us_every": 9.0,
    ...                             "mean_us_long": 8.0, "mean_us_every": 10.0},
    ...                     "jps+": {"median_us_long": 4.0, "median_us_every": 6.0,
    ...                              "mean_us_long": 4.0, "mean_us_every": 5.0},
    ...                     "bogus": {"error": "exited 1"}})
    >>> v["long"]["warthog_best"], v["long"]["call"], v["long"]["call_ratio"]
    ('jps+', 'jps+', 1.5)
    >>> v["every"]["batch_ratio"], v["every"]["kernel_ratio"]
    (1.2, 1.0)
    """
    ran = {a: e for a, e in warthog.items() if "error" not in e}
    if not ran:
        return None
    out: dict[str, Any] = {}
    for label, med, bt in (("long", med_long, batch_long), ("every", med_every, batch_every)):
        w_alg = min(ran, key=lambda a: ran[a][f"median_us_{label}"])
        w_med = float(ran[w_alg][f"median_us_{label}"])
        w_mean_alg = min(ran, key=lambda a: ran[a][f"mean_us_{label}"])
        w_mean = float(ran[w_mean_alg][f"mean_us_{label}"])
        ent: dict[str, Any] = {"warthog_best": w_alg, "warthog_us": w_med,
                               "warthog_best_mean": w_mean_alg, "warthog_mean_us": w_mean}
        for kind, keys, table, ref in (("call", NAVKIT_CALLS, med, w_med),
                                       ("kernel", NAVKIT_KERNELS, med, w_med),
                                       ("batch", tuple(bt), bt, w_mean)):
            have = [k for k in keys if k in table]
            if not have:
                continue
            best = min(have, key=lambda k: table[k])
            ent[kind] = best
            ent[f"{kind}_us"] = float(table[best])
            ent[f"{kind}_ratio"] = float(table[best]) / ref if ref > 0 else math.inf
        out[label] = ent
    return out


# ---------------------------------------------------------------------- maps
def _kernel_solvers(pf: Any, offline: dict[str, Any]) -> dict[str, Solver]:
    """The search kernels alone (static grid, no PathResult, no trace of the
    path: what warthog's timer covers too): online JPS as ``"jps_search"`` and,
    per ``name: JPSPlus`` of ``offline``, JPS+ on its tables (and goal bounds)
    as ``name + "_search"``. Each is a :class:`~navkit.bench.common.PreparedSolver`
    calling its kernel through the compiled entry point
    (:func:`navkit.query.fastcall.entry_point`, as the queries call them), with
    node ids and a search generation per query worked out before the clock
    starts: the figure is the search itself, no numba type dispatch and no
    Python around it."""
    from .._kernels import jps as _jps
    from .._kernels import jps_plus as _jp
    from ..query.fastcall import entry_point

    jps = pf.engine.jps
    pg = pf.engine.padded
    ws = pf.engine.workspace
    bits = jps.bits()
    stats = jps.astar.stats
    model = jps.model
    big = 1 << 60
    jps.next_gen()  # (allocates jps.nd on first use)

    def solver(kernel: Any, head: tuple[Any, ...]) -> PreparedSolver:
        call = entry_point(kernel, (*head, model, (jps.nd, ws.hf, ws.hk, 1, jps.cand), 1, 1,
                                    big, stats))

        def prepare(queries: Sequence[Query]) -> list[tuple[Any, tuple[Any, ...]]]:
            gen = jps.next_gen(len(queries))  # one generation per query, reserved
            return [(call, (*head, model, (jps.nd, ws.hf, ws.hk, gen + i, jps.cand),
                            pg.node(*s), pg.node(*g), big, stats))
                    for i, (s, g) in enumerate(queries)]

        def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
            (fn, args), = prepare([(s, g)])
            return fn(*args)

        return PreparedSolver(solve, prepare)

    out: dict[str, Solver] = {"jps_search": solver(_jps.jps, (bits,))}
    for name, jp in offline.items():
        out[f"{name}_search"] = solver(_jp.jps_plus, jp.table_args())
    return out


def _into_solver(pf: Any, alg: str) -> tuple[Solver, Callable[[Any], float]]:
    """``find_path_into`` with ``algorithm=alg`` into one reused PathBuffer, and
    the cost of its answer (the solver returns the buffer)."""
    from ..results import PathBuffer

    buf = PathBuffer()

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        pf.find_path_into(s, g, buf, algorithm=alg)
        return buf

    return solve, lambda b: float(b.cost)


def time_batches(runs: dict[str, tuple[Any, str]], queries: list[Query],
                 rounds: int) -> dict[str, float]:
    """Microseconds per query of ``find_paths_cells`` over ``queries`` on one
    thread (fastest of ``rounds``), per ``name: (pathfinder, algorithm)``."""
    starts = np.array([q[0] for q in queries], dtype=np.int64)
    goals = np.array([q[1] for q in queries], dtype=np.int64)
    out: dict[str, float] = {}
    for name, (pf, alg) in runs.items():
        pf.find_paths_cells(starts[:2], goals[:2], algorithm=alg, threads=1)  # warm
        best = math.inf
        for _ in range(max(1, rounds)):
            t0 = time.perf_counter()
            pf.find_paths_cells(starts, goals, algorithm=alg, threads=1)
            best = min(best, time.perf_counter() - t0)
        out[name] = best / max(1, len(queries)) * 1e6
    return out


def time_edits(grid: Any, n: int, seed: int = 0) -> dict[str, float]:
    """Median milliseconds of a one-cell ``set_walkable`` (a free cell blocked,
    then freed again: ``2 * n`` edits at random free cells) on a Pathfinder with
    JPS+ tables (they follow the edit: :meth:`JumpTables.update`) and on one
    without, and of a full table rebuild; the edited tables are checked
    against a fresh build at the end."""
    from ..query.jps_plus import JumpTables
    from ..query.pathfinder import Pathfinder

    rng = np.random.default_rng(seed)
    free = np.argwhere(grid.walkable)
    cells = [(int(x), int(z)) for z, x in free[rng.integers(len(free), size=n)]]
    out: dict[str, float] = {}
    for key, tables in (("with_tables_ms", True), ("without_tables_ms", False)):
        pf = Pathfinder(grid, costs="exact")
        if tables:
            pf.precompute()
            pf.set_walkable([cells[0]], False)  # the first edit copies the tables
            pf.set_walkable([cells[0]], True)
        times = []
        for c in cells:
            for value in (False, True):
                t0 = time.perf_counter()
                pf.set_walkable([c], value)
                times.append(time.perf_counter() - t0)
        out[key] = float(np.median(times) * 1e3)
        if tables:
            jp = pf.engine.cells.jps_plus
            assert jp is not None
            t = jp.tables
            if not np.array_equal(t.tab, JumpTables.build(pf).tab):
                raise AssertionError("JPS+ tables after edits differ from a fresh build")
            pf.set_walkable([cells[0]], False)
            out["update_ms"] = float(t.update_seconds * 1e3)  # one block, for the record
    pf = Pathfinder(grid, costs="exact")
    JumpTables.build(pf)
    out["rebuild_ms"] = float(min(JumpTables.build(pf).build_seconds for _ in range(3)) * 1e3)
    out["edits"] = float(2 * n)
    return out


def run_map(data_dir: Path, name: str, args: opt.Args, progress: Any) -> dict[str, Any]:
    """All figures for one map (see the module docstring)."""
    from ..formats import find_map_for, load_grid, read_scenarios
    from ..query.jps_plus import JPSPlus, JumpTables, jump_point_density, prefer_jps_plus
    from ..query.pathfinder import Pathfinder

    scen_path = find_scenario(data_dir, name)
    scen = read_scenarios(scen_path)
    map_path = find_map_for(scen, data_dir)
    grid = load_grid(map_path)
    walk = np.ascontiguousarray(grid.walkable)
    pf = Pathfinder(grid, costs="exact")
    t0 = time.perf_counter()
    JumpTables.build(pf)
    first_build = time.perf_counter() - t0
    tables = JumpTables.build(pf)
    jp = JPSPlus(pf, tables)
    pf.engine.cells.set_jps_plus(jp, auto=prefer_jps_plus(tables, pf))
    density = jump_point_density(tables, pf)

    all_q: list[Query] = [((int(s[0]), int(s[1])), (int(g[0]), int(g[1])))
                          for s, g in zip(scen.start, scen.goal, strict=True)]
    opt = np.asarray(scen.optimal, dtype=np.float64)
    tol = np.asarray(scen.tolerance(), dtype=np.float64)
    long_idx = select_queries(len(all_q), args.queries)
    every_idx = long_idx if args.quick else np.arange(len(all_q))
    if args.every_line_max and len(every_idx) > args.every_line_max:
        every_idx = every_idx[spread(len(every_idx), args.every_line_max)]
    long_q = [all_q[i] for i in long_idx]
    every_q = [all_q[i] for i in every_idx]

    solvers: dict[str, Solver] = {
        "astar": lambda s, g: pf.find_path_cells(s, g, algorithm="astar"),
        "jps": lambda s, g: pf.find_path_cells(s, g, algorithm="jps"),
        "jps+": lambda s, g: pf.find_path_cells(s, g, algorithm="jps+"),
    }
    big = 1 << 60
    solvers["jps_obj"] = lambda s, g: pf.engine.jps.cell_query(s, g, smooth=False, nearest=False,
                                                        budget=big)
    solvers["jps+_obj"] = lambda s, g: jp.cell_query(s, g, smooth=False, nearest=False,
                                                     budget=big)
    solvers.update(_kernel_solvers(pf, {"jps+": jp}))
    costs: dict[str, Callable[[Any], float]] = {k: (lambda r: float(r.cost))
                                                 for k in ("astar", "jps", "jps+")}
    for alg in ("jps", "jps+"):  # the hot-loop call: the path into one reused buffer
        solvers[f"{alg}_into"], costs[f"{alg}_into"] = _into_solver(pf, alg)
    gb_info: dict[str, Any] = {"built": False}
    if args.goal_bounds:
        from ..errors import ConfigError
        from ..query.goal_bounds import GoalBounds

        try:
            gb = GoalBounds.build(pf, tables, max_jump_points=args.gb_max_jump_points)
        except ConfigError as e:
            gb_info["note"] = str(e)
        else:
            jpg = JPSPlus(pf, tables, gb)
            solvers.update(_kernel_solvers(pf, {"jps+gb": jpg}))
            solvers["jps+gb_obj"] = lambda s, g: jpg.cell_query(s, g, smooth=False, nearest=False,
                                                                budget=big)
            costs["jps+gb_obj"] = lambda r: float(r.cost)
            pfg = Pathfinder(grid, costs="exact")  # the public call with the bounds
            pfg.cells.set_jps_plus(JPSPlus(pfg, tables, gb))
            solvers["jps+gb"] = lambda s, g: pfg.find_path_cells(s, g, algorithm="jps+")
            costs["jps+gb"] = lambda r: float(r.cost)
            solvers["jps+gb_into"], costs["jps+gb_into"] = _into_solver(pfg, "jps+")
            gb_info = {"built": True, "build_s": gb.build_seconds, "mb": gb.nbytes / 1e6,
                       "jump_points": gb.jump_points}
    notes: dict[str, str] = {}
    for peer, make in PEERS.items():
        if peer in args.skip:
            notes[peer] = "skipped"
            continue
        try:
            solve, cost = make(walk)
            solve(*all_q[0])
        except ImportError:
            notes[peer] = "not installed (pip install navkit[jps-peers])"
            continue
        solvers[peer] = solve
        costs[peer] = cost
        notes[peer] = "ok"

    # answers vs the optimal lengths (untimed)
    long_only = {"astar"} if not args.astar_every_line else set()
    if args.peers_long_only:
        long_only |= set(PEERS)
    optimal: dict[str, str] = {}
    for key, cost in costs.items():
        qs, idx = (long_q, long_idx) if key in long_only else (every_q, every_idx)
        task = progress.add_task(f"{name}: {key} answers", total=len(qs))
        ok = 0
        for (s, g), i in zip(qs, idx, strict=True):
            ok += abs(cost(solvers[key](s, g)) - opt[i]) <= max(tol[i], 1e-6)
            progress.advance(task)
        progress.remove_task(task)
        optimal[key] = f"{ok}/{len(qs)}"

    task = progress.add_task(f"{name}: timing", total=2)
    t_long = fastest_of_rounds(solvers, long_q, args.rounds)
    progress.advance(task)
    every_solvers = {k: v for k, v in solvers.items() if k not in long_only}
    t_every = fastest_of_rounds(every_solvers, every_q, args.line_rounds)
    progress.remove_task(task)
    med_long = {k: float(np.median(v)) for k, v in t_long.items()}
    med_every = {k: float(np.median(v)) for k, v in t_every.items()}

    warthog: dict[str, dict[str, Any]] = {}
    if args.warthog is not None:
        task = progress.add_task(f"{name}: warthog", total=None)
        warthog = warthog_columns(args.warthog, split_names(args.warthog_algs, ()), scen_path,
                                  map_path, opt, long_idx, every_idx, args.warthog_rounds)
        progress.remove_task(task)

    edits = time_edits(grid, args.edits) if args.edits else None
    batch_runs = {"jps": (pf, "jps"), "jps+": (pf, "jps+"),
                  **({"jps+gb": (pfg, "jps+")} if "jps+gb" in solvers else {})}
    batch_long = time_batches(batch_runs, long_q, args.rounds)
    batch = time_batches(batch_runs, every_q, args.line_rounds)

    h, w = walk.shape
    ratio_long = med_long["jps"] / med_long["jps+"]
    ratio_every = med_every["jps"] / med_every["jps+"]
    kratio_long = med_long["jps_search"] / med_long["jps+_search"]
    return {
        "map": Path(scen.map_basename).stem,
        "size": [w, h],
        "scenario_lines": len(all_q),
        "long_queries": len(long_q),
        "every_queries": len(every_q),
        "tables": {"build_ms": tables.build_seconds * 1e3, "first_build_ms": first_build * 1e3,
                   "mb": tables.nbytes / 1e6},
        "jump_point_density": density,
        "auto_picks_jps_plus": bool(pf.engine.cells.auto_jps_plus),
        "median_us_long": med_long,
        "median_us_every": med_every,
        "jps_over_jps_plus": {"long": ratio_long, "every": ratio_every,
                              "obj_long": med_long["jps_obj"] / med_long["jps+_obj"],
                              "obj_every": med_every["jps_obj"] / med_every["jps+_obj"],
                              "search_long": kratio_long,
                              "search_every": med_every["jps_search"] / med_every["jps+_search"]},
        "optimal": optimal,
        "goal_bounds": gb_info,
        "jps_over_jps_plus_gb": ({"long": med_long["jps"] / med_long["jps+gb"],
                                  "every": med_every["jps"] / med_every["jps+gb"]}
                                 if "jps+gb" in med_long else None),
        "peers": notes,
        "warthog": warthog,
        "versus_warthog": versus_warthog(med_long, med_every, batch_long, batch, warthog),
        "edits": edits,
        "batch_us_long": batch_long,
        "batch_us_every": batch,
    }


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    args.skip = split_names(args.skip, ())
    if args.warthog_algs is None:
        args.warthog_algs = [",".join(WARTHOG_ALGS)]
    if args.quick:
        args.rounds = 1
        args.edits = min(args.edits, 20)
    if args.edits < 0:
        print("error: --edits must be >= 0", file=sys.stderr)
        return 2
    data_dir = resolve_data_dir(args.data)
    if not data_dir.is_dir():
        return no_data(data_dir)
    if min(args.queries, args.rounds, args.line_rounds, args.warthog_rounds) < 1:
        print("error: --queries, --rounds, --line-rounds and --warthog-rounds must be at "
              "least 1", file=sys.stderr)
        return 2
    if args.warthog is not None and not args.warthog.is_file():
        print(f"error: --warthog {args.warthog}: no such file", file=sys.stderr)
        return 2
    names = split_names(args.maps, MAPS)
    present, missing = present_maps(data_dir, names)
    if not present:
        return no_data(data_dir, f"maps {', '.join(names)} (.map and .map.scen)")
    if missing:
        print(f"maps not found (skipped): {', '.join(missing)}")
    t_start = time.perf_counter()
    with _progress(args.quiet) as progress:
        rows = [run_map(data_dir, n, args, progress) for n in present]

    print(f"JPS+ benchmark: long set = every 10th line, last {args.queries} ({args.rounds} "
          f"rounds); every line{' skipped (--quick)' if args.quick else ''} "
          f"({args.line_rounds} round); medians of each query's fastest round, microseconds")
    hdr = (f"{'map':15s} {'build ms':>8s} {'MB':>5s} {'JPdens':>6s} {'auto':>5s} | "
           f"{'A*':>8s} {'JPS':>7s} {'JPS+':>7s} {'x':>5s} {'obj x':>6s} {'srch x':>6s} | "
           f"{'JPS':>7s} {'JPS+':>7s} {'x':>5s} {'obj x':>6s} {'srch x':>6s} | "
           f"{'nano-A*':>8s} {'w9':>8s} | optimal (JPS+ every line)  target")
    print(f"{'':42s}|  long set{'':34s}|  every line{'':25s}| peers (every line*)")
    print(hdr)
    print("-" * len(hdr))
    verdicts = []
    batch_verdicts = []
    kernel_verdicts: list[bool] = []
    warthog_verdicts: list[bool] = []
    for r in rows:
        ml, me, rt = r["median_us_long"], r["median_us_every"], r["jps_over_jps_plus"]
        if r["map"] in FAST_MAPS:
            ok = rt["long"] >= TARGET and rt["every"] >= TARGET
            gbr = r["jps_over_jps_plus_gb"]
            if gbr is not None:  # the best offline variant: with or without the bounds
                ok = ok or (gbr["long"] >= TARGET and gbr["every"] >= TARGET)
            ok_batch = batch_gain(r["batch_us_long"]) >= TARGET and \
                batch_gain(r["batch_us_every"]) >= TARGET
            batch_verdicts.append(ok_batch)
            ok_kernel = kernel_gain(ml) >= TARGET and kernel_gain(me) >= TARGET
            kernel_verdicts.append(ok_kernel)
            verdict = (f">= {TARGET:g}x JPS: calls {'PASS' if ok else 'MISS'}, kernels "
                       f"{'PASS' if ok_kernel else 'MISS'}, batch "
                       f"{'PASS' if ok_batch else 'MISS'}")
        elif r["map"] in SLOW_MAPS:
            ok = (not r["auto_picks_jps_plus"]) or (rt["long"] >= 1.0 and rt["every"] >= 1.0)
            verdict = f"auto never slower: {'PASS' if ok else 'MISS'}"
        else:
            ok, verdict = True, "(no target)"
        verdicts.append(ok)
        if r["versus_warthog"] is not None:
            warthog_verdicts.append(at_or_below_warthog(r["versus_warthog"]))
        auto = "jps+" if r["auto_picks_jps_plus"] else "jps"
        print(f"{r['map'][:15]:15s} {r['tables']['build_ms']:8.1f} {r['tables']['mb']:5.1f} "
              f"{r['jump_point_density']:6.3f} {auto:>5s} | "
              f"{ml['astar']:8.0f} {ml['jps']:7.1f} {ml['jps+']:7.1f} {rt['long']:4.2f}x "
              f"{rt['obj_long']:5.2f}x {rt['search_long']:5.2f}x | "
              f"{me['jps']:7.1f} {me['jps+']:7.1f} {rt['every']:4.2f}x {rt['obj_every']:5.2f}x "
              f"{rt['search_every']:5.2f}x | "
              f"{fmt(me.get('nano-astar', ml.get('nano-astar')), '.0f'):>8s} "
              f"{fmt(me.get('w9-pathfinding', ml.get('w9-pathfinding')), '.0f'):>8s} | "
              f"{r['optimal']['jps+']:>11s}  {verdict}")
        gbi = r["goal_bounds"]
        if gbi.get("built"):
            gbr = r["jps_over_jps_plus_gb"]
            print(f"    goal bounds: {gbi['jump_points']} jump points, built in "
                  f"{gbi['build_s']:.1f} s, {gbi['mb']:.1f} MB; JPS+GB through the call "
                  f"long {ml['jps+gb']:.1f} us, every line {me['jps+gb']:.1f} us (JPS / "
                  f"JPS+GB: {gbr['long']:.2f}x long, {gbr['every']:.2f}x every line; "
                  f"objects {ml['jps_obj'] / ml['jps+gb_obj']:.2f}x, "
                  f"{me['jps_obj'] / me['jps+gb_obj']:.2f}x; search kernels "
                  f"{ml['jps_search'] / ml['jps+gb_search']:.2f}x, "
                  f"{me['jps_search'] / me['jps+gb_search']:.2f}x), optimal "
                  f"{r['optimal']['jps+gb']}")
        elif "note" in gbi:
            print(f"    goal bounds: {gbi['note']}")
        print(f"    into a reused buffer (find_path_into): JPS long {ml['jps_into']:.1f} us, "
              f"every line {me['jps_into']:.1f} us; JPS+ {ml['jps+_into']:.1f} / "
              f"{me['jps+_into']:.1f} us (JPS through the call / JPS+ into: "
              f"{ml['jps'] / ml['jps+_into']:.2f}x, {me['jps'] / me['jps+_into']:.2f}x)"
              + (f"; JPS+GB {ml['jps+gb_into']:.1f} / {me['jps+gb_into']:.1f} us "
                 f"({ml['jps'] / ml['jps+gb_into']:.2f}x, {me['jps'] / me['jps+gb_into']:.2f}x)"
                 if "jps+gb_into" in ml else ""))
        for label, bt in (("long set", r["batch_us_long"]), ("every line", r["batch_us_every"])):
            print(f"    batch (find_paths_cells, one thread, {label}): JPS {bt['jps']:.1f} us "
                  f"per query, JPS+ {bt['jps+']:.1f} us ({bt['jps'] / bt['jps+']:.2f}x)"
                  + (f", JPS+GB {bt['jps+gb']:.1f} us ({bt['jps'] / bt['jps+gb']:.2f}x)"
                     if "jps+gb" in bt else ""))
        ed = r["edits"]
        if ed:
            print(f"    edits: one-cell set_walkable {ed['with_tables_ms']:.3f} ms median with "
                  f"JPS+ tables (they follow it), {ed['without_tables_ms']:.3f} ms without; "
                  f"a full rebuild {ed['rebuild_ms']:.2f} ms ({ed['edits']:.0f} edits)")
        for alg, ent in r["warthog"].items():
            if "error" in ent:
                print(f"    warthog {alg}: {ent['error']}")
            else:
                print(f"    warthog {alg}: long {ent['median_us_long']:.1f} us median "
                      f"({ent['mean_us_long']:.1f} mean), every line "
                      f"{ent['median_us_every']:.1f} us ({ent['mean_us_every']:.1f}), "
                      f"optimal {ent.get('optimal', '?')}")
        vs = r["versus_warthog"]
        if vs is not None:
            parts = []
            for label in ("long", "every"):
                v = vs[label]
                bits = [f"{kind} {v[kind]} {v[kind + '_us']:.1f} us "
                        f"({v[kind + '_ratio']:.2f}x)"
                        for kind in ("call", "kernel", "batch") if kind in v]
                parts.append(f"{label}: warthog {v['warthog_best']} {v['warthog_us']:.1f} us "
                             f"median / {v['warthog_best_mean']} {v['warthog_mean_us']:.1f} us "
                             f"mean; navkit " + ", ".join(bits))
            print("    navkit best / warthog best (<= 1.00x: at or below): " + "; ".join(parts)
                  + f": {'PASS' if at_or_below_warthog(vs) else 'MISS'}")
    for peer in PEERS:
        states = {r["peers"][peer] for r in rows}
        if states != {"ok"}:
            print(f"note: {peer}: {', '.join(sorted(states))}")
    if args.peers_long_only:
        print("(*peers: long set only, --peers-long-only)")
    print(f"(x: JPS median / JPS+ median through find_path_cells; obj x: the same through the "
          f"query objects (JPS.cell_query / JPSPlus.cell_query, what a Pathfinder fast path "
          f"calls); srch x: the search kernels alone; "
          f"JPdens: jump points per free cell; auto: what algorithm='auto' picks with tables; "
          f"{time.perf_counter() - t_start:.0f} s)")
    print(f"targets: {'PASS' if all(verdicts) else 'MISS'} through single calls; "
          f"{'PASS' if all(kernel_verdicts) else 'MISS'} through the search kernels; "
          f"{'PASS' if all(batch_verdicts) else 'MISS'} through one-thread batches (the 2x "
          f"over JPS)"
          + (f"; navkit's best variant at or below warthog's best (a call or a batch, long set "
             f"and every line) on {sum(warthog_verdicts)} of {len(warthog_verdicts)} maps"
             if warthog_verdicts else ""))
    if args.json is not None:
        import numba

        payload = {"python": platform.python_version(), "platform": platform.platform(),
                   "numba_version": numba.__version__, "argv": sys.argv[1:], "maps": rows,
                   "all_pass": all(verdicts), "batch_pass": all(batch_verdicts),
                   "kernel_pass": all(kernel_verdicts),
                   "at_or_below_warthog": (sum(warthog_verdicts), len(warthog_verdicts))}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(opt.dumps(payload, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


#: ``navkit bench jps-plus``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("jps-plus", cls=opt.BenchCommand,
             help=__doc__.split("\n")[0])
def cli(
    data: Annotated[Path | None, opt.data()] = None,
    maps: Annotated[
        list[str] | None,
        opt.maps(','.join(MAPS)),
    ] = None,
    quick: Annotated[bool, opt.quick("Long set only (no every-line pass), 1 round.")] = False,
    queries: Annotated[
        int, typer.Option('--queries', help="Long-set queries per map (100).")] = 100,
    rounds: Annotated[int, typer.Option('--rounds', help="Long-set rounds (3).")] = 3,
    line_rounds: Annotated[int, typer.Option('--line-rounds', help="Every-line rounds (1).")] = 1,
    every_line_max: Annotated[
        int,
        typer.Option('--every-line-max', metavar='N',
                     help="Cap the every-line set at N evenly spaced lines "
                          "(0: all)."),
    ] = 0,
    astar_every_line: Annotated[
        bool,
        typer.Option('--astar-every-line',
                     help="Also time A* on every line (slow on mazes)."),
    ] = False,
    peers_long_only: Annotated[
        bool,
        typer.Option('--peers-long-only',
                     help="Time the peers on the long set only (every line "
                          "takes minutes on 1024x1024 maps)."),
    ] = False,
    skip: Annotated[
        list[str] | None,
        typer.Option('--skip',
                     help="Peers to skip (nano-astar, w9-pathfinding)."),
    ] = None,
    warthog: Annotated[
        Path | None,
        typer.Option('--warthog', metavar='PATH',
                     help="warthog's binary: adds its columns (never built "
                          "or downloaded here)."),
    ] = None,
    warthog_algs: Annotated[
        list[str] | None,
        typer.Option('--warthog-algs',
                     help="warthog --alg values (default: jps,jpsP,jps+,jpsP+)."),
    ] = None,
    warthog_rounds: Annotated[
        int,
        typer.Option('--warthog-rounds', metavar='N',
                     help="Runs of warthog per algorithm; per line the fastest (3)."),
    ] = 3,
    goal_bounds: Annotated[
        bool,
        typer.Option('--goal-bounds',
                     help="Also build goal bounds and time JPS+ with them (slow "
                          "to build)."),
    ] = False,
    gb_max_jump_points: Annotated[
        int,
        typer.Option('--gb-max-jump-points',
                     help="Skip goal bounds on maps with more jump points (20000)."),
    ] = 20000,
    edits: Annotated[
        int,
        typer.Option('--edits', metavar='N',
                     help="Time N one-cell edits (blocked, then freed) with and "
                          "without JPS+ tables (100; 0: none)."),
    ] = 100,
    quiet: Annotated[bool, opt.quiet("No progress bar.")] = False,
    json: Annotated[Path | None, opt.json_file("Also write the results here.", 'OUT')] = None,
) -> None:
    """``navkit bench jps-plus`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark with command-line ``argv``; 0, or 2 on bad input."""
    return opt.run(app, argv, "navkit bench jps-plus")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
