"""How the peer benchmark (``navkit bench``) calls and times each library.

Every runner answers the same :class:`~navkit.bench.common.MapData` queries
and fills a :class:`PeerResult`: ``time.perf_counter`` brackets each
library's Python call with the garbage collector paused, and every returned
path is re-measured under the grid rules (:mod:`navkit.query.checks`):
``optimal`` counts the legal paths of optimal length, ``valid`` the legal
ones, ``length_match`` the paths of optimal length, legal or not.

:data:`FAST_MAKERS` builds a solver per library for :func:`time_queries`;
python-pathfinding (:func:`run_pathfinding`) and networkx
(:func:`run_networkx`) need their own loops.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..query.checks import SQRT2, is_optimal, path_length, step_length
from .common import MapData, median

__all__ = [
    "PeerResult",
    "Solver",
    "Maker",
    "time_queries",
    "run_navkit",
    "run_navkit_batch",
    "make_pyastar2d",
    "make_tcod_astar",
    "make_tcod_pathfinder",
    "make_skimage",
    "run_pathfinding",
    "run_networkx",
    "FAST_MAKERS",
    "MODULE_OF",
    "ROW_NAMES",
    "installed",
]


@dataclass
class PeerResult:
    """One row of a map's table."""

    peer: str
    status: str = "ok"  # ok | not installed | skipped | error: ...
    run: int = 0
    optimal: int = 0
    valid: int = 0
    length_match: int = 0  # paths whose length matches the optimal, valid or not
    invalid: dict[str, int] = field(default_factory=dict)
    median_us: float | None = None
    ratio: float | None = None  # peer median / navkit A* median on the same queries
    indices: list[int] = field(default_factory=list)
    times_us: list[float] = field(default_factory=list)
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "peer": self.peer,
            "status": self.status,
            "run": self.run,
            "optimal": self.optimal,
            "valid": self.valid,
            "length_match": self.length_match,
            "invalid_reasons": self.invalid,
            "median_us": self.median_us,
            "ratio": self.ratio,
            "query_indices": self.indices,
            "note": self.note,
            **self.extra,
        }


# ------------------------------------------------------------- peer runners
#: ``solve(start, goal)``: one library call.
Solver = Callable[[tuple[int, int], tuple[int, int]], Any]
#: ``maker(walkable) -> (solve, to_cells, note)``.
Maker = Callable[[NDArray[np.bool_]], tuple[Solver, Callable[[Any], Any], str]]


def time_queries(
    res: PeerResult,
    md: MapData,
    idx: NDArray[np.int64],
    solve: Solver,
    to_cells: Callable[[Any], Any] | None,
    advance: Callable[[], None],
    lengths_only: bool = False,
) -> None:
    """Run ``solve`` on queries ``idx``; ``to_cells`` turns its answer into (x, y) cells."""
    res.indices = [int(i) for i in idx]
    for i in idx:
        s = (int(md.starts[i, 0]), int(md.starts[i, 1]))
        g = (int(md.goals[i, 0]), int(md.goals[i, 1]))
        gc_on = gc.isenabled()
        gc.disable()
        try:
            t0 = time.perf_counter()
            out = solve(s, g)
            t1 = time.perf_counter()
        finally:
            if gc_on:
                gc.enable()
        res.times_us.append((t1 - t0) * 1e6)
        res.run += 1
        opt = float(md.optimal[i])
        if lengths_only:
            length = None if out is None or not math.isfinite(out) else float(out)
            why = "ok" if length is not None else "no path"
            raw = length
        else:
            assert to_cells is not None
            cells = to_cells(out)
            length, why = path_length(cells, md.walkable, s, g)
            raw = length
            if length is None and why in ("corner cut", "blocked cell"):
                raw = step_length(cells)
        if length is None:
            res.invalid[why] = res.invalid.get(why, 0) + 1
        res.valid += int(length is not None)
        res.optimal += int(is_optimal(length, opt))
        res.length_match += int(is_optimal(raw, opt))
        advance()
    res.median_us = median(res.times_us)


def run_navkit(md: MapData, advance: Callable[[], None]) -> tuple[PeerResult, dict[str, Any], Any]:
    from ..grid import NavGrid
    from ..query.pathfinder import Pathfinder

    pf = Pathfinder(NavGrid(md.walkable), costs="exact")
    # warm-up: compile or load the kernels before timing
    pf.find_path_cells(tuple(md.starts[0]), tuple(md.goals[0]), algorithm="astar")
    res = PeerResult("navkit A*")
    expanded: list[int] = []

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        r = pf.find_path_cells(s, g, algorithm="astar")
        expanded.append(int(r.expanded))
        return r

    time_queries(res, md, np.arange(len(md.starts)), solve, lambda r: r.cells, advance)
    t = np.asarray(res.times_us)
    e = np.maximum(np.asarray(expanded, dtype=np.float64), 1.0)
    stats = {
        "median_expanded": float(np.median(expanded)) if expanded else None,
        "ns_per_expansion": float(np.median(t * 1e3 / e)) if expanded else None,
        "total_expanded": int(np.sum(expanded)),
    }
    res.extra.update(stats)
    res.extra["expanded"] = expanded
    return res, stats, pf


def run_navkit_batch(md: MapData, pf: Any, threads: int | None, repeats: int = 3) -> PeerResult:
    import numba

    res = PeerResult("navkit batch")
    n = len(md.starts)
    starts, goals = np.ascontiguousarray(md.starts), np.ascontiguousarray(md.goals)
    pf.find_paths_cells(starts[:2], goals[:2], threads=threads,
                        algorithm="astar")  # warm-up (compile/load)
    totals = []
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = pf.find_paths_cells(starts, goals, threads=threads, algorithm="astar")
        totals.append(time.perf_counter() - t0)
    assert out is not None
    used = min(numba.get_num_threads() if threads is None else threads, max(1, n))
    res.run = n
    res.indices = list(range(n))
    res.median_us = float(np.median(totals)) * 1e6 / max(n, 1)
    ok = np.abs(out.cost - md.optimal) <= 0.005 + 1e-5 * md.optimal
    res.optimal = res.length_match = int(ok.sum())
    res.valid = int(np.isfinite(out.cost).sum())
    res.note = f"{used} threads; wall time of the whole batch / n (median of {repeats})"
    res.extra["threads"] = int(used)
    return res


def make_pyastar2d(walk: NDArray[np.bool_]) -> tuple[Solver, Callable[[Any], Any], str]:
    import pyastar2d

    weights = np.where(walk, np.float32(1.0), np.float32(np.inf)).astype(np.float32)

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        # pyastar2d works in (row, col) = (y, x)
        return pyastar2d.astar_path(weights, (s[1], s[0]), (g[1], g[0]), allow_diagonal=True)

    def cells(path: Any) -> Any:
        return [] if path is None else np.asarray(path)[:, ::-1]

    note = "astar_path(float32 weights, inf blocked, allow_diagonal=True); diagonal costs 1"
    return solve, cells, note


def make_tcod_astar(walk: NDArray[np.bool_]) -> tuple[Solver, Callable[[Any], Any], str]:
    import tcod.path

    cost = walk.T.astype(np.uint8)  # tcod indexes [x, y]
    astar = tcod.path.AStar(cost, diagonal=1.41)
    start_of: dict[str, tuple[int, int]] = {}

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        start_of["s"] = s
        return astar.get_path(s[0], s[1], g[0], g[1])

    def cells(path: Any) -> Any:
        # get_path leaves out the start cell
        return [] if not path else [start_of["s"], *path]

    return solve, cells, "tcod.path.AStar(cost[x, y], diagonal=1.41).get_path"


def make_tcod_pathfinder(walk: NDArray[np.bool_]) -> tuple[Solver, Callable[[Any], Any], str]:
    import tcod.path

    if not hasattr(tcod.path, "Pathfinder") or not hasattr(tcod.path, "SimpleGraph"):
        raise ImportError("tcod.path.Pathfinder needs tcod >= 11.15")
    cost = walk.astype(np.int8)  # [y, x]; 0 blocks
    graph = tcod.path.SimpleGraph(cost=cost, cardinal=1000, diagonal=1414)

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        pf = tcod.path.Pathfinder(graph)
        pf.add_root((s[1], s[0]))
        return pf.path_to((g[1], g[0]))

    def cells(path: Any) -> Any:
        arr = np.asarray(path)
        return [] if arr.size == 0 else arr[:, ::-1]

    note = "SimpleGraph(cardinal=1000, diagonal=1414) built once; a new Pathfinder per query"
    return solve, cells, note


def make_skimage(walk: NDArray[np.bool_]) -> tuple[Solver, Callable[[Any], Any], str]:
    from skimage.graph import MCP_Geometric

    costs = np.where(walk, 1.0, np.inf)
    mcp = MCP_Geometric(costs, fully_connected=True)

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        end = (g[1], g[0])
        cum, _ = mcp.find_costs([(s[1], s[0])], [end], find_all_ends=True)
        if not math.isfinite(float(cum[end])):
            return []
        return mcp.traceback(end)

    def cells(path: Any) -> Any:
        arr = np.asarray(path)
        return [] if arr.size == 0 else arr[:, ::-1]

    return solve, cells, "MCP_Geometric(inf blocked) built once; find_costs + traceback per query"


def run_pathfinding(
    md: MapData, idx: NDArray[np.int64], advance: Callable[[], None]
) -> list[PeerResult]:
    from pathfinding.core.diagonal_movement import DiagonalMovement
    from pathfinding.core.grid import Grid
    from pathfinding.finder.a_star import AStarFinder

    matrix = md.walkable.astype(np.int32).tolist()  # matrix[y][x]; 0 blocks
    finder = AStarFinder(diagonal_movement=DiagonalMovement.only_when_no_obstacle)
    grid = Grid(matrix=matrix)
    search = PeerResult("pathfinding A* (search)")
    search.note = "Grid reused; grid.cleanup() + find_path timed per query"
    builds: list[float] = []

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        grid.cleanup()
        path, _runs = finder.find_path(grid.node(*s), grid.node(*g), grid)
        return path

    def cells(path: Any) -> Any:
        return [(p.x, p.y) if hasattr(p, "x") else tuple(p) for p in path]

    def advance_and_build() -> None:
        # the Grid a fresh user would build for this query, timed on its own
        gc_on = gc.isenabled()
        gc.disable()
        try:
            t0 = time.perf_counter()
            Grid(matrix=matrix)
            builds.append((time.perf_counter() - t0) * 1e6)
        finally:
            if gc_on:
                gc.enable()
        advance()

    time_queries(search, md, idx, solve, cells, advance_and_build)
    total = PeerResult("pathfinding A* (+Grid build)")
    total.note = "search + building Grid(matrix) for the query (the per-query cost of a fresh Grid)"
    total.run, total.optimal, total.valid = search.run, search.optimal, search.valid
    total.indices = search.indices
    total.length_match, total.invalid = search.length_match, dict(search.invalid)
    total.times_us = [a + b for a, b in zip(search.times_us, builds, strict=True)]
    total.median_us = median(total.times_us)
    total.extra["median_build_us"] = median(builds)
    search.extra["median_build_us"] = median(builds)
    return [search, total]


def run_networkx(md: MapData, idx: NDArray[np.int64], advance: Callable[[], None]) -> PeerResult:
    import networkx as nx

    walk = md.walkable
    h, w = walk.shape
    t0 = time.perf_counter()
    lin = np.arange(h * w, dtype=np.int64).reshape(h, w)
    us: list[NDArray[np.int64]] = []
    vs: list[NDArray[np.int64]] = []
    ws: list[NDArray[np.float64]] = []

    def add(
        mask: NDArray[np.bool_], a: NDArray[np.int64], b: NDArray[np.int64], weight: float
    ) -> None:
        us.append(a[mask])
        vs.append(b[mask])
        ws.append(np.full(int(mask.sum()), weight))

    # right, down, down-right, down-left; diagonals need both side cells free
    add(walk[:, :-1] & walk[:, 1:], lin[:, :-1], lin[:, 1:], 1.0)
    add(walk[:-1, :] & walk[1:, :], lin[:-1, :], lin[1:, :], 1.0)
    square = walk[:-1, :-1] & walk[1:, 1:] & walk[:-1, 1:] & walk[1:, :-1]  # 2x2 all free
    add(square, lin[:-1, :-1], lin[1:, 1:], SQRT2)
    add(square, lin[:-1, 1:], lin[1:, :-1], SQRT2)
    graph = nx.Graph()
    graph.add_nodes_from(lin[walk].tolist())
    graph.add_weighted_edges_from(
        zip(np.concatenate(us).tolist(), np.concatenate(vs).tolist(), np.concatenate(ws).tolist(),
            strict=True)
    )
    build_s = time.perf_counter() - t0
    k = SQRT2 - 1.0

    def octile(a: int, b: int) -> float:
        ay, ax = divmod(a, w)
        by, bx = divmod(b, w)
        dx, dy = abs(ax - bx), abs(ay - by)
        return max(dx, dy) + k * min(dx, dy)

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        try:
            return nx.astar_path_length(graph, s[1] * w + s[0], g[1] * w + g[0],
                                        heuristic=octile, weight="weight")
        except nx.NetworkXNoPath:
            return None

    res = PeerResult("networkx A*")
    time_queries(res, md, idx, solve, None, advance, lengths_only=True)
    res.note = (f"astar_path_length, octile heuristic; graph build {build_s:.2f} s not timed; "
                "length checked only")
    res.extra["graph_build_s"] = build_s
    return res




# ----------------------------------------------------------------- the table
#: ``--peers`` key -> (row name, maker) for the libraries :func:`time_queries` runs as they are.
FAST_MAKERS: dict[str, tuple[str, Maker]] = {
    "pyastar2d": ("pyastar2d", make_pyastar2d),
    "tcod": ("tcod AStar", make_tcod_astar),
    "tcod-pathfinder": ("tcod Pathfinder", make_tcod_pathfinder),
    "skimage": ("scikit-image MCP", make_skimage),
}
#: ``--peers`` key -> the module that must be importable.
MODULE_OF = {
    "pyastar2d": "pyastar2d",
    "tcod": "tcod",
    "tcod-pathfinder": "tcod",
    "pathfinding": "pathfinding",
    "networkx": "networkx",
    "skimage": "skimage",
}
#: ``--peers`` key -> the table rows it fills.
ROW_NAMES = {
    "pyastar2d": ["pyastar2d"],
    "tcod": ["tcod AStar"],
    "tcod-pathfinder": ["tcod Pathfinder"],
    "pathfinding": ["pathfinding A* (search)", "pathfinding A* (+Grid build)"],
    "networkx": ["networkx A*"],
    "skimage": ["scikit-image MCP"],
}


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (without importing it)."""
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False

