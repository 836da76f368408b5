"""Benchmark navkit's A* against the Python grid path-finding libraries.

Run ``navkit bench`` or ``python benchmarks/bench_grid.py`` (``--help`` for
options). This is a measurement script, not a test: it never fails on a
missed target.

Queries follow ``PERFORMANCE.md``: for each Moving AI map, every 10th line of
its ``.scen`` file (lines 1, 11, 21, ...), the last ``--queries`` (100) of
those, which are the longest. Every library answers the same queries;
``time.perf_counter`` brackets each library's Python call and the figure is
the median microseconds per query. Every returned path is re-measured under
the Moving AI rules (8-connected, straight step 1, diagonal sqrt(2), no
corner cutting, no blocked cells) and counted optimal when its length is
within ``0.005 + 1e-5 * L`` of the scenario's optimal length ``L``.

Peers that are not installed appear as ``not installed`` rows. The slow pure
Python peers run on a few queries spread evenly over the selection; their
ratio is taken against navkit's median on the same queries.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["main", "select_queries", "path_length", "DEFAULT_MAPS", "TARGET_MAPS"]

#: Maps run when ``--maps`` is not given.
DEFAULT_MAPS = ("den520d", "AR0011SR", "maze512-1-0", "random512-10-0")
#: Maps with a speed target: navkit A* at least ``TARGET_RATIO`` times faster than pyastar2d.
TARGET_MAPS = ("den520d", "AR0011SR", "maze512-1-0", "random512-10-0")
TARGET_RATIO = 2.0
#: First query after import with a warm JIT cache, seconds.
TARGET_FIRST_CALL_S = 2.0

SQRT2 = math.sqrt(2.0)
QUICK_QUERIES = 20
SLOW_PEERS = ("pathfinding", "networkx", "skimage")
ALL_PEERS = ("pyastar2d", "tcod", "tcod-pathfinder", "pathfinding", "networkx", "skimage")

NOTE = (
    "pyastar2d charges a diagonal step like a straight one (cost 1, not sqrt(2)) and also cuts "
    "corners; tcod "
    "(AStar, diagonal 1.41, and Pathfinder) and scikit-image MCP_Geometric cut corners. "
    "They answer an easier question than navkit (exact sqrt(2) diagonals, no corner "
    "cutting), so their 'optimal' counts are low by design."
)


# ------------------------------------------------------------------ queries
def default_data_dir() -> Path:
    """``$NAVKIT_MOVINGAI_DIR``, else ``<repo>/../shared/maps/movingai``, else ``<repo>/examples/maps``."""
    env = os.environ.get("NAVKIT_MOVINGAI_DIR")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parent.parent
    candidates = [
        repo.parent / "shared" / "maps" / "movingai",
        repo / "examples" / "maps",
        Path.cwd() / "examples" / "maps",
    ]
    for cand in candidates:
        if cand.is_dir():
            return cand
    return candidates[0]


def find_scenario(data_dir: Path, name: str) -> Path:
    """The ``.scen`` file for map ``name`` (``den520d``, ``den520d.map`` or a path)."""
    p = Path(name)
    if p.suffix == ".scen" and p.is_file():
        return p
    stem = p.name[:-4] if p.name.endswith(".map") else p.name
    for cand in (data_dir / f"{stem}.map.scen", data_dir / f"{stem}.scen"):
        if cand.is_file():
            return cand
    others = sorted(data_dir.glob(f"{stem}*.scen"))
    if others:
        return others[0]
    raise FileNotFoundError(f"no scenario file for map {name!r} in {data_dir}")


def select_queries(n_lines: int, queries: int) -> NDArray[np.int64]:
    """Positions of the benchmark queries: every 10th line, the last ``queries`` of those.

    >>> select_queries(888, 100)[:3].tolist(), len(select_queries(888, 100))
    ([0, 10, 20], 89)
    >>> select_queries(2180, 100)[[0, -1]].tolist()
    [1180, 2170]
    """
    every = np.arange(0, n_lines, 10, dtype=np.int64)
    return every[-queries:] if queries > 0 else every[:0]


def spread(n: int, k: int) -> NDArray[np.int64]:
    """``k`` positions spread evenly over ``range(n)`` (all of them when ``k >= n``)."""
    if k >= n:
        return np.arange(n, dtype=np.int64)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.round(np.linspace(0, n - 1, k)).astype(np.int64))


# ------------------------------------------------------------ path checking
def path_length(
    cells: Any, walkable: NDArray[np.bool_], start: Sequence[int], goal: Sequence[int]
) -> tuple[float | None, str]:
    """Length of a cell path ``(x, y)`` under the Moving AI rules, or ``(None, why)``.

    >>> w = np.ones((3, 3), bool); w[1, 1] = False
    >>> path_length([(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)], w, (0, 0), (2, 2))
    (4.0, 'ok')
    >>> path_length([(0, 1), (1, 0)], w, (0, 1), (1, 0))
    (None, 'corner cut')
    """
    arr = np.asarray(cells, dtype=np.int64)
    if arr.size == 0:
        return None, "no path"
    arr = arr.reshape(-1, 2)
    if tuple(arr[0]) != tuple(int(v) for v in start) or tuple(arr[-1]) != tuple(int(v) for v in goal):
        return None, "wrong endpoints"
    h, w = walkable.shape
    x, y = arr[:, 0], arr[:, 1]
    if (x < 0).any() or (x >= w).any() or (y < 0).any() or (y >= h).any():
        return None, "off the map"
    if not walkable[y, x].all():
        return None, "blocked cell"
    d = np.diff(arr, axis=0)
    adx, ady = np.abs(d[:, 0]), np.abs(d[:, 1])
    if (adx > 1).any() or (ady > 1).any():
        return None, "jump"
    diag = (adx == 1) & (ady == 1)
    if diag.any():
        x0, y0 = x[:-1][diag], y[:-1][diag]
        dx, dy = d[diag, 0], d[diag, 1]
        if not (walkable[y0, x0 + dx] & walkable[y0 + dy, x0]).all():
            return None, "corner cut"
    n_diag = int(diag.sum())
    n_straight = int(((adx + ady) == 1).sum())
    return n_straight + SQRT2 * n_diag, "ok"


def step_length(cells: Any) -> float | None:
    """Octile length of a chain of king moves, ignoring obstacles and corners (None if it jumps).

    >>> round(step_length([(0, 0), (1, 1), (1, 2)]), 6)
    2.414214
    """
    arr = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
    d = np.abs(np.diff(arr, axis=0))
    if (d > 1).any():
        return None
    return float(((d.sum(axis=1) == 1).sum()) + SQRT2 * int((d.sum(axis=1) == 2).sum()))


def is_optimal(length: float | None, optimal: float) -> bool:
    return length is not None and abs(length - optimal) <= 0.005 + 1e-5 * optimal


# ------------------------------------------------------------------ results
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


@dataclass
class MapData:
    name: str
    walkable: NDArray[np.bool_]
    starts: NDArray[np.int64]  # (n, 2) as (x, y)
    goals: NDArray[np.int64]
    optimal: NDArray[np.float64]
    lines: NDArray[np.int64]
    scen_lines: int
    scen_path: str


def _median(values: Sequence[float]) -> float | None:
    return float(np.median(values)) if len(values) else None


# ------------------------------------------------------------- peer runners
Solver = Callable[[tuple[int, int], tuple[int, int]], Any]


def _time_queries(
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
    res.median_us = _median(res.times_us)


def run_navkit(md: MapData, advance: Callable[[], None]) -> tuple[PeerResult, dict[str, Any], Any]:
    from .grid import NavGrid
    from .query.pathfinder import Pathfinder

    pf = Pathfinder(NavGrid(md.walkable), costs="exact")
    # warm-up: compile or load the kernels before timing
    pf.find_path_cells(tuple(md.starts[0]), tuple(md.goals[0]))
    res = PeerResult("navkit A*")
    expanded: list[int] = []

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        r = pf.find_path_cells(s, g)
        expanded.append(int(r.expanded))
        return r

    _time_queries(res, md, np.arange(len(md.starts)), solve, lambda r: r.cells, advance)
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
    pf.find_paths_batch(starts[:2], goals[:2], threads=threads)  # warm-up (compile/load)
    totals = []
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = pf.find_paths_batch(starts, goals, threads=threads)
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


def _make_pyastar2d(walk: NDArray[np.bool_]) -> tuple[Solver, Callable[[Any], Any], str]:
    import pyastar2d

    weights = np.where(walk, np.float32(1.0), np.float32(np.inf)).astype(np.float32)

    def solve(s: tuple[int, int], g: tuple[int, int]) -> Any:
        # pyastar2d works in (row, col) = (y, x)
        return pyastar2d.astar_path(weights, (s[1], s[0]), (g[1], g[0]), allow_diagonal=True)

    def cells(path: Any) -> Any:
        return [] if path is None else np.asarray(path)[:, ::-1]

    return solve, cells, "astar_path(float32 weights, inf blocked, allow_diagonal=True); diagonal costs 1"


def _make_tcod_astar(walk: NDArray[np.bool_]) -> tuple[Solver, Callable[[Any], Any], str]:
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


def _make_tcod_pathfinder(walk: NDArray[np.bool_]) -> tuple[Solver, Callable[[Any], Any], str]:
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

    return solve, cells, "SimpleGraph(cardinal=1000, diagonal=1414) built once; a new Pathfinder per query"


def _make_skimage(walk: NDArray[np.bool_]) -> tuple[Solver, Callable[[Any], Any], str]:
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


def run_pathfinding(md: MapData, idx: NDArray[np.int64], advance: Callable[[], None]) -> list[PeerResult]:
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

    _time_queries(search, md, idx, solve, cells, advance_and_build)
    total = PeerResult("pathfinding A* (+Grid build)")
    total.note = "search + building Grid(matrix) for the query (the per-query cost of a fresh Grid)"
    total.run, total.optimal, total.valid, total.indices = search.run, search.optimal, search.valid, search.indices
    total.length_match, total.invalid = search.length_match, dict(search.invalid)
    total.times_us = [a + b for a, b in zip(search.times_us, builds, strict=True)]
    total.median_us = _median(total.times_us)
    total.extra["median_build_us"] = _median(builds)
    search.extra["median_build_us"] = _median(builds)
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

    def add(mask: NDArray[np.bool_], a: NDArray[np.int64], b: NDArray[np.int64], weight: float) -> None:
        us.append(a[mask])
        vs.append(b[mask])
        ws.append(np.full(int(mask.sum()), weight))

    # right, down, down-right, down-left; diagonals need both side cells free
    add(walk[:, :-1] & walk[:, 1:], lin[:, :-1], lin[:, 1:], 1.0)
    add(walk[:-1, :] & walk[1:, :], lin[:-1, :], lin[1:, :], 1.0)
    add(walk[:-1, :-1] & walk[1:, 1:] & walk[:-1, 1:] & walk[1:, :-1], lin[:-1, :-1], lin[1:, 1:], SQRT2)
    add(walk[:-1, 1:] & walk[1:, :-1] & walk[:-1, :-1] & walk[1:, 1:], lin[:-1, 1:], lin[1:, :-1], SQRT2)
    graph = nx.Graph()
    graph.add_nodes_from(lin[walk].tolist())
    graph.add_weighted_edges_from(
        zip(np.concatenate(us).tolist(), np.concatenate(vs).tolist(), np.concatenate(ws).tolist(), strict=True)
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
            return nx.astar_path_length(graph, s[1] * w + s[0], g[1] * w + g[0], heuristic=octile, weight="weight")
        except nx.NetworkXNoPath:
            return None

    res = PeerResult("networkx A*")
    _time_queries(res, md, idx, solve, None, advance, lengths_only=True)
    res.note = f"astar_path_length, octile heuristic; graph build {build_s:.2f} s not timed; length checked only"
    res.extra["graph_build_s"] = build_s
    return res


# ------------------------------------------------------------------- driver
_FAST_MAKERS: dict[str, tuple[str, Callable[[NDArray[np.bool_]], tuple[Solver, Callable[[Any], Any], str]]]] = {
    "pyastar2d": ("pyastar2d", _make_pyastar2d),
    "tcod": ("tcod AStar", _make_tcod_astar),
    "tcod-pathfinder": ("tcod Pathfinder", _make_tcod_pathfinder),
    "skimage": ("scikit-image MCP", _make_skimage),
}
_MODULE_OF = {
    "pyastar2d": "pyastar2d",
    "tcod": "tcod",
    "tcod-pathfinder": "tcod",
    "pathfinding": "pathfinding",
    "networkx": "networkx",
    "skimage": "skimage",
}
_ROW_NAMES = {
    "pyastar2d": ["pyastar2d"],
    "tcod": ["tcod AStar"],
    "tcod-pathfinder": ["tcod Pathfinder"],
    "pathfinding": ["pathfinding A* (search)", "pathfinding A* (+Grid build)"],
    "networkx": ["networkx A*"],
    "skimage": ["scikit-image MCP"],
}


def _installed(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def load_map(data_dir: Path, name: str, queries: int) -> MapData:
    from .formats import find_map_for, load_grid, read_scenarios

    scen_path = find_scenario(data_dir, name)
    scen = read_scenarios(scen_path)
    grid = load_grid(find_map_for(scen, data_dir))
    sel = scen.subset(select_queries(len(scen), queries))
    return MapData(
        name=Path(scen.map_basename).stem,
        walkable=np.ascontiguousarray(grid.walkable),
        starts=np.asarray(sel.start, dtype=np.int64),
        goals=np.asarray(sel.goal, dtype=np.int64),
        optimal=np.asarray(sel.optimal, dtype=np.float64),
        lines=np.asarray(sel.lines, dtype=np.int64),
        scen_lines=len(scen),
        scen_path=str(scen_path),
    )


def _peer_counts(args: argparse.Namespace, n: int) -> dict[str, int]:
    counts = {
        "pyastar2d": n,
        "tcod": n,
        "tcod-pathfinder": n,
        "pathfinding": min(n, args.pathfinding_queries),
        "networkx": min(n, args.networkx_queries),
        "skimage": min(n, args.skimage_queries),
    }
    return {k: v for k, v in counts.items() if k in args.peer_list}


def bench_map(md: MapData, args: argparse.Namespace, advance: Callable[[], None], status: Callable[[str], None]) -> dict[str, Any]:
    n = len(md.starts)
    status(f"{md.name}: navkit A*")
    nav, nav_stats, pf = run_navkit(md, advance)
    nav_times = np.asarray(nav.times_us)
    nav.ratio = 1.0
    rows: list[PeerResult] = [nav]
    status(f"{md.name}: navkit batch")
    try:
        batch = run_navkit_batch(md, pf, args.threads)
        if nav.median_us:
            batch.ratio = (batch.median_us or 0.0) / nav.median_us
        rows.append(batch)
    except Exception as exc:  # noqa: BLE001 - a benchmark reports, never crashes
        rows.append(PeerResult("navkit batch", status=f"error: {type(exc).__name__}: {exc}"))
    advance()
    counts = _peer_counts(args, n)
    for key in ALL_PEERS:
        if key not in args.peer_list:
            for row in _ROW_NAMES[key]:
                rows.append(PeerResult(row, status="skipped"))
            continue
        if not _installed(_MODULE_OF[key]):
            for row in _ROW_NAMES[key]:
                rows.append(PeerResult(row, status="not installed"))
            continue
        k = counts[key]
        idx = spread(n, k)
        status(f"{md.name}: {_ROW_NAMES[key][0]}")
        done_before = [0]

        def adv(done: list[int] = done_before) -> None:
            done[0] += 1
            advance()

        try:
            gc.collect()
            if key in _FAST_MAKERS:
                label, maker = _FAST_MAKERS[key]
                solve, cells, note = maker(md.walkable)
                res = PeerResult(label, note=note)
                _time_queries(res, md, idx, solve, cells, adv)
                new_rows = [res]
            elif key == "pathfinding":
                new_rows = run_pathfinding(md, idx, adv)
            else:
                new_rows = [run_networkx(md, idx, adv)]
        except ImportError as exc:
            new_rows = [PeerResult(row, status=f"not installed ({exc})") for row in _ROW_NAMES[key]]
        except Exception as exc:  # noqa: BLE001
            new_rows = [PeerResult(row, status=f"error: {type(exc).__name__}: {exc}") for row in _ROW_NAMES[key]]
        for _ in range(k - done_before[0]):
            advance()
        for res in new_rows:
            if res.median_us is not None and res.indices:
                base = float(np.median(nav_times[res.indices]))
                res.ratio = res.median_us / base if base > 0 else None
                res.extra["navkit_median_us_same_queries"] = base
        rows.extend(new_rows)
        gc.collect()
    return {
        "map": md.name,
        "size": [int(md.walkable.shape[1]), int(md.walkable.shape[0])],
        "scenario": md.scen_path,
        "scenario_lines": md.scen_lines,
        "queries": n,
        "query_lines": [int(v) for v in md.lines],
        "navkit": {
            "median_us": nav.median_us,
            "optimal": nav.optimal,
            "run": nav.run,
            **nav_stats,
        },
        "peers": rows,
    }


def _plan_units(args: argparse.Namespace, n: int) -> int:
    counts = _peer_counts(args, n)
    return n + 1 + sum(counts.values())


# ------------------------------------------------------------------------ JIT
_JIT_SCRIPT = r"""
import json, time
t0 = time.perf_counter()
import navkit
t1 = time.perf_counter()
import numpy as np
walk = np.ones((64, 64), dtype=bool)
walk[8:56, 32] = False
pf = navkit.Pathfinder(navkit.NavGrid(walk), costs="exact")
t2 = time.perf_counter()
r = pf.find_path_cells((2, 32), (60, 32))
t3 = time.perf_counter()
pf.find_path_cells((0, 0), (63, 63))
t4 = time.perf_counter()
b = pf.find_paths_batch(np.array([[2, 32]]), np.array([[60, 32]]))
t5 = time.perf_counter()
print("NAVKIT_JIT " + json.dumps({
    "import_s": t1 - t0, "first_query_s": t3 - t2, "second_query_s": t4 - t3,
    "first_batch_s": t5 - t4, "found": r.found,
}))
"""


def _jit_run(env: dict[str, str], timeout: float) -> dict[str, Any]:
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _JIT_SCRIPT], env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    wall = time.perf_counter() - t0
    for line in proc.stdout.splitlines():
        if line.startswith("NAVKIT_JIT "):
            out: dict[str, Any] = json.loads(line[len("NAVKIT_JIT ") :])
            out["process_wall_s"] = wall
            return out
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
    return {"error": f"exit {proc.returncode}: {' | '.join(tail)}"}


def jit_figures(timeout: float = 600.0) -> dict[str, Any]:
    """(a) cold compile into a fresh NUMBA_CACHE_DIR; (b) warm cache, second of two runs."""
    base = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="navkit-jit-") as tmp:
        cold_env = dict(base, NUMBA_CACHE_DIR=tmp)
        cold = _jit_run(cold_env, timeout)
    warm_env = dict(base)
    warm_first = _jit_run(warm_env, timeout)
    warm = _jit_run(warm_env, timeout)
    first = warm.get("first_query_s")
    return {
        "cold": cold,
        "warm": warm,
        "warm_first_run": warm_first,
        "target_first_call_s": TARGET_FIRST_CALL_S,
        "warm_first_call_pass": None if first is None else bool(first <= TARGET_FIRST_CALL_S),
        "numba_cache_dir": base.get("NUMBA_CACHE_DIR", "(default: __pycache__ next to the kernels)"),
    }


# --------------------------------------------------------------------- output
def _fmt_us(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:,.0f}" if v >= 100 else f"{v:,.1f}"


def _fmt_ratio(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}x"


def _map_table(res: dict[str, Any]) -> Any:
    from rich.table import Table

    nav = res["navkit"]
    w, h = res["size"]
    notes = []
    if nav.get("median_expanded") is not None:
        notes.append(
            f"navkit A*: median {nav['median_expanded']:,.0f} nodes expanded, "
            f"{nav['ns_per_expansion']:.0f} ns per expansion"
        )
    for row in res["peers"]:
        if row.status != "ok":
            continue
        if "threads" in row.extra:
            notes.append(f"batch: {row.extra['threads']} threads")
        if row.peer == "pathfinding A* (search)" and row.extra.get("median_build_us") is not None:
            notes.append(f"pathfinding Grid build {row.extra['median_build_us'] / 1e3:,.0f} ms")
        if "graph_build_s" in row.extra:
            notes.append(f"networkx graph build {row.extra['graph_build_s']:.2f} s (untimed)")
    table = Table(
        title=f"{res['map']} ({w}x{h}): {res['queries']} queries of {res['scenario_lines']} scenario lines",
        caption="; ".join(notes),
    )
    table.add_column("peer")
    table.add_column("queries", justify="right")
    table.add_column("median us", justify="right")
    table.add_column("peer/navkit", justify="right")
    table.add_column("optimal", justify="right")
    table.add_column("valid", justify="right")
    table.add_column("len = opt", justify="right")
    for row in res["peers"]:
        if row.status != "ok":
            table.add_row(row.peer, "-", row.status, "-", "-", "-", "-", style="dim")
            continue
        table.add_row(
            row.peer,
            str(row.run),
            _fmt_us(row.median_us),
            _fmt_ratio(row.ratio),
            f"{row.optimal}/{row.run}",
            f"{row.valid}/{row.run}",
            f"{row.length_match}/{row.run}",
        )
    return table


PEER_SETUP = (
    ("navkit A*", "Pathfinder(grid, costs='exact').find_path_cells, after one warm-up query"),
    ("navkit batch", "find_paths_batch over all queries; whole-call wall time / n, median of 3 calls"),
    ("pyastar2d", "astar_path(float32 weights, inf = blocked, allow_diagonal=True); (row, col) order"),
    ("tcod AStar", "tcod.path.AStar(cost[x, y], diagonal=1.41).get_path"),
    ("tcod Pathfinder", "SimpleGraph(cardinal=1000, diagonal=1414) once; new Pathfinder + add_root + path_to"),
    ("pathfinding (search)", "AStarFinder(only_when_no_obstacle); Grid reused, cleanup() + find_path timed"),
    ("pathfinding (+Grid build)", "the same search plus building Grid(matrix) for the query"),
    ("networkx A*", "astar_path_length, octile heuristic, no-corner-cutting graph; build untimed"),
    ("scikit-image MCP", "MCP_Geometric(inf = blocked) once; find_costs + traceback per query"),
)


def _print_setup(console: Any) -> None:
    from rich.table import Table

    t = Table(title="How each peer is called", show_header=False, box=None)
    t.add_column("peer", style="bold")
    t.add_column("call", overflow="fold")
    for name, how in PEER_SETUP:
        t.add_row(name, how)
    console.print(t)


def _targets(maps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for res in maps:
        if res["map"] not in TARGET_MAPS:
            continue
        py = next((r for r in res["peers"] if r.peer == "pyastar2d"), None)
        ratio = py.ratio if py is not None and py.status == "ok" else None
        out.append(
            {
                "map": res["map"],
                "target": f"navkit A* >= {TARGET_RATIO:g}x faster than pyastar2d",
                "ratio_pyastar2d_over_navkit": ratio,
                "navkit_median_us": res["navkit"]["median_us"],
                "pyastar2d_median_us": py.median_us if py is not None else None,
                "result": "n/a" if ratio is None else ("PASS" if ratio >= TARGET_RATIO else "MISS"),
            }
        )
    return out


def _print_summary(console: Any, targets: list[dict[str, Any]], jit: dict[str, Any] | None) -> None:
    from rich.table import Table

    if targets:
        t = Table(title=f"Targets: navkit A* at least {TARGET_RATIO:g}x faster than pyastar2d")
        for col in ("map", "navkit us", "pyastar2d us", "pyastar2d/navkit", "result"):
            t.add_column(col, justify="left" if col == "map" else "right")
        for row in targets:
            style = {"PASS": "green", "MISS": "red"}.get(row["result"], "dim")
            t.add_row(
                row["map"],
                _fmt_us(row["navkit_median_us"]),
                _fmt_us(row["pyastar2d_median_us"]),
                _fmt_ratio(row["ratio_pyastar2d_over_navkit"]),
                f"[{style}]{row['result']}[/{style}]",
            )
        console.print(t)
    if jit is not None:
        t = Table(title="JIT: first use of navkit in a new process")
        t.add_column("case")
        t.add_column("import navkit", justify="right")
        t.add_column("first query", justify="right")
        t.add_column("second query", justify="right")
        t.add_column("first batch", justify="right")
        t.add_column("target")
        for label, key, target in (
            ("cold: fresh NUMBA_CACHE_DIR, compiles", "cold", "-"),
            ("warm cache: second of two runs", "warm", f"first query <= {TARGET_FIRST_CALL_S:g} s"),
        ):
            fig = jit[key]
            if "error" in fig:
                t.add_row(label, "-", "-", "-", "-", f"error: {fig['error']}")
                continue
            verdict = target
            if key == "warm":
                ok = jit.get("warm_first_call_pass")
                verdict += " [green]PASS[/green]" if ok else " [red]MISS[/red]"
            t.add_row(
                label,
                f"{fig['import_s']:.2f} s",
                f"{fig['first_query_s']:.3f} s",
                f"{fig['second_query_s'] * 1e3:.2f} ms",
                f"{fig['first_batch_s']:.3f} s",
                verdict,
            )
        console.print(t)


def _json_default(obj: Any) -> Any:
    if isinstance(obj, PeerResult):
        return obj.to_json()
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot serialise {type(obj).__name__}")


# ----------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="navkit bench",
        description="Time navkit's A* against Python grid path-finding libraries on Moving AI maps.",
    )
    p.add_argument("--maps", nargs="+", default=None, metavar="MAP",
                   help=f"map names (default: {' '.join(DEFAULT_MAPS)}); commas also separate")
    p.add_argument("--queries", type=int, default=None, metavar="N",
                   help=f"last N of every 10th scenario line per map (default 100; {QUICK_QUERIES} with --quick)")
    p.add_argument("--data", type=Path, default=None, metavar="DIR",
                   help="Moving AI directory (default: $NAVKIT_MOVINGAI_DIR or <repo>/../shared/maps/movingai)")
    p.add_argument("--quick", action="store_true",
                   help=f"{QUICK_QUERIES} queries per map, skip the slow peers ({', '.join(SLOW_PEERS)})")
    p.add_argument("--peers", default=None, metavar="LIST",
                   help=f"comma-separated peers to run (default: all of {','.join(ALL_PEERS)})")
    p.add_argument("--pathfinding-queries", type=int, default=5, metavar="K",
                   help="queries for python-pathfinding (default 5)")
    p.add_argument("--networkx-queries", type=int, default=10, metavar="K",
                   help="queries for networkx (default 10)")
    p.add_argument("--skimage-queries", type=int, default=10, metavar="K",
                   help="queries for scikit-image MCP (default 10)")
    p.add_argument("--threads", type=int, default=None, help="threads for navkit batch (default: numba's)")
    p.add_argument("--json", type=Path, default=None, metavar="OUT.json", help="write every figure as JSON")
    p.add_argument("--no-jit", action="store_true", help="skip the JIT start-up figures (subprocesses)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    args = build_parser().parse_args(argv)
    console = Console()
    if not console.is_terminal:
        console = Console(width=110)  # piped or captured: wide enough for the tables
    data_dir = args.data if args.data is not None else default_data_dir()
    names = [m for item in (args.maps or DEFAULT_MAPS) for m in item.split(",") if m]
    queries = args.queries if args.queries is not None else (QUICK_QUERIES if args.quick else 100)
    if queries < 1:
        console.print("[red]--queries must be at least 1[/red]")
        return 2
    if args.peers:
        wanted = [p.strip() for p in args.peers.split(",") if p.strip()]
        unknown = sorted(set(wanted) - set(ALL_PEERS))
        if unknown:
            console.print(f"[red]unknown peer(s) {', '.join(unknown)}; choose from {', '.join(ALL_PEERS)}[/red]")
            return 2
        peer_list = [p for p in ALL_PEERS if p in wanted]
    else:
        peer_list = list(ALL_PEERS)
    if args.quick:
        peer_list = [p for p in peer_list if p not in SLOW_PEERS]
    args.peer_list = peer_list

    if not data_dir.is_dir():
        console.print(f"[red]Moving AI data not found at {data_dir} (use --data or NAVKIT_MOVINGAI_DIR)[/red]")
        return 2
    try:
        maps = [load_map(data_dir, name, queries) for name in names]
    except Exception as exc:  # noqa: BLE001
        console.print(f"[red]cannot load the maps: {exc}[/red]")
        return 2

    import numba

    import navkit

    results: list[dict[str, Any]] = []
    t_start = time.perf_counter()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=args.no_progress,
    ) as progress:
        total = sum(_plan_units(args, len(md.starts)) for md in maps)
        task = progress.add_task("benchmark", total=total)

        def advance() -> None:
            progress.advance(task)

        def status(text: str) -> None:
            progress.update(task, description=text)

        for md in maps:
            res = bench_map(md, args, advance, status)
            results.append(res)
            progress.console.print(_map_table(res))
    bench_s = time.perf_counter() - t_start

    _print_setup(console)
    console.print(f"[yellow]Note:[/yellow] {NOTE}")
    console.print(
        "peer/navkit = peer median / navkit A* median on the same queries (>1: navkit is faster). "
        "'optimal' = paths whose Moving AI length is within 0.005 + 1e-5*L of the optimal L; "
        "'valid' = paths with no corner cut and no blocked cell (networkx: length only); "
        "'len = opt' = paths whose length matches the optimal, valid or not (PERFORMANCE.md's count). "
        "Slow peers run on a few queries spread over the selection."
    )

    jit = None
    if not args.no_jit:
        with console.status("JIT start-up figures (cold compile in a fresh cache, then warm cache)..."):
            jit = jit_figures()
    targets = _targets(results)
    _print_summary(console, targets, jit)
    console.print(f"benchmark time {bench_s:.1f} s (without the JIT figures)")

    if args.json is not None:
        payload = {
            "navkit_version": getattr(navkit, "__version__", None),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "machine": platform.machine(),
            "cpu_count": os.cpu_count(),
            "numba_version": numba.__version__,
            "numba_threads": numba.get_num_threads(),
            "data_dir": str(data_dir),
            "config": {
                "maps": names,
                "queries": queries,
                "quick": bool(args.quick),
                "peers": peer_list,
                "pathfinding_queries": args.pathfinding_queries,
                "networkx_queries": args.networkx_queries,
                "skimage_queries": args.skimage_queries,
                "selection": "every 10th scenario line (0-based positions 0, 10, 20, ...), the last N",
                "timing": "time.perf_counter around each library call; median microseconds per query; gc off",
            },
            "note": NOTE,
            "maps": results,
            "targets": targets,
            "jit": jit,
            "benchmark_s": bench_s,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2, default=_json_default) + "\n")
        console.print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
