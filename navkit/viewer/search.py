"""The viewer's search layer: which algorithms exist, how each is run, what it expanded.

Algorithms are discovered at runtime, so the viewer offers whatever this
navkit has: the :class:`~navkit.query.pathfinder.Pathfinder` algorithms listed in
``navkit.query.pathfinder.ALGORITHMS`` (``astar``, ``dijkstra``, ``jps``,
``auto``, ...), plus ``hpa`` when :mod:`navkit.query.hpa` is importable and
``flow`` when :mod:`navkit.query.flow` is.

:func:`expanded_mask` reads the cells the last Pathfinder search closed
(:meth:`Pathfinder.last_search <navkit.query.pathfinder.Pathfinder.last_search>`);
:func:`expanded_costs` adds each closed cell's ``g`` cost, which the viewer
shows as a heat map.

>>> import numpy as np, navkit
>>> walk = np.ones((3, 5), dtype=bool); walk[0:2, 2] = False
>>> pf = navkit.Pathfinder(navkit.NavGrid(walk))
>>> gen = search_generation(pf)
>>> r = pf.find_path_cells((0, 0), (4, 0), algorithm="astar")
>>> mask = expanded_mask(pf, since=gen)
>>> mask.shape, bool(mask[0, 0]), bool(mask[0, 2])
((3, 5), True, False)
>>> int(mask.sum()) == r.expanded
True
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from ..errors import QueryError
from ..query.cells import Algorithm
from ..query.pathfinder import Pathfinder
from ..results import PathResult
from .mesh import MeshLayer

__all__ = [
    "search_generation",
    "expanded_mask",
    "expanded_costs",
    "AlgorithmInfo",
    "SearchOutcome",
    "Searcher",
]

_Cell = tuple[int, int]

_LABELS = {
    "astar": "A*",
    "dijkstra": "Dijkstra",
    "jps": "Jump Point Search",
    "auto": "auto (JPS when it applies, else A*)",
    "hpa": "HPA* (hierarchical)",
    "flow": "flow field",
}


# ------------------------------------------------------------- expansion set
def search_generation(pf: Pathfinder) -> int:
    """The Pathfinder's current search generation (bumped by every search).

    Take it before a query and pass it to :func:`expanded_mask` as ``since``:
    a query that ran no search (a blocked start, say) leaves the generation
    unchanged, and the mask is then empty instead of the previous search's.
    """
    return pf.search_generation


def expanded_mask(pf: Pathfinder, *, since: int | None = None) -> NDArray[np.bool_]:
    """Cells the last search of ``pf`` expanded (closed), bool ``(depth, width)``.

    For A* and Dijkstra these are every expanded cell. A JPS query keeps its
    jump points elsewhere and runs no such search (see
    :meth:`~navkit.query.pathfinder.Pathfinder.last_search`). ``since``: the
    :func:`search_generation` taken before the query; when no search ran
    after it, the mask is all False.
    """
    out = np.zeros(pf.grid.shape, dtype=np.bool_)
    trace = pf.last_search(since)
    if trace is not None and len(trace.cells):
        out[trace.cells[:, 1], trace.cells[:, 0]] = True
    return out


def expanded_costs(pf: Pathfinder, *, since: int | None = None) -> NDArray[np.int64]:
    """Like :func:`expanded_mask`, but each expanded cell's integer ``g`` cost
    (cost from the start) and -1 elsewhere, int64 ``(depth, width)``."""
    out = np.full(pf.grid.shape, -1, dtype=np.int64)
    trace = pf.last_search(since)
    if trace is not None and len(trace.cells):
        out[trace.cells[:, 1], trace.cells[:, 0]] = trace.g
    return out


def hpa_cluster_size(width: int, depth: int) -> int:
    """The viewer's HPA* cluster size: HPA*'s default (32) on large maps, smaller
    (a power of two, at least 4) so that a small map still has about 4 clusters a side.

    >>> hpa_cluster_size(30, 20), hpa_cluster_size(1024, 1024)
    (4, 32)
    """
    size = 32
    while size > 4 and max(width, depth) < 4 * size:
        size //= 2
    return size


# ------------------------------------------------------------- algorithms
@dataclass(frozen=True)
class AlgorithmInfo:
    """One entry of the viewer's algorithm selector."""

    name: str
    label: str
    available: bool
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "label": self.label, "available": self.available,
                "reason": self.reason}


@dataclass
class SearchOutcome:
    """A query's answer plus what the viewer draws from it."""

    result: PathResult
    algorithm: str
    resolved: str
    time_ms: float
    costs: NDArray[np.int64] | None  # expanded cells' g (or field cost), -1 elsewhere
    smoothed: NDArray[np.int32]
    extra: dict[str, Any] | None = None


def _pathfinder_algorithms() -> tuple[str, ...]:
    mod = importlib.import_module("navkit.query.pathfinder")
    names = getattr(mod, "ALGORITHMS", ("astar", "dijkstra"))
    return tuple(str(n) for n in names)


def optional_attr(module: str, attr: str) -> Any:
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError):
        return None


class Searcher:
    """Runs the viewer's path queries on a :class:`~navkit.query.navmap.NavMap`'s
    Pathfinder, and keeps the per-map-version helpers it builds (HPA*, and the
    navigation mesh in :attr:`mesh`, :class:`~navkit.viewer.mesh.MeshLayer`).

    Not thread-safe: the server calls it under its state lock.
    """

    def __init__(self) -> None:
        self._hpa: Any = None
        self._hpa_grid: Any = None
        self.mesh = MeshLayer()

    # ------------------------------------------------------------ catalogue
    def algorithms(self, pf: Pathfinder) -> list[AlgorithmInfo]:
        """Every algorithm navkit has, each marked available on this map or not."""
        out: list[AlgorithmInfo] = []
        resolve = getattr(pf, "resolve_algorithm", None)
        for name in _pathfinder_algorithms():
            ok, reason = True, ""
            if resolve is not None:
                try:
                    resolve(name)
                except QueryError as e:
                    ok, reason = False, str(e)
            out.append(AlgorithmInfo(name, _LABELS.get(name, name), ok, reason))
        if optional_attr("navkit.query.hpa", "HPAStar") is not None:
            out.append(AlgorithmInfo("hpa", _LABELS["hpa"], True))
        if optional_attr("navkit.query.flow", "FlowField") is not None:
            out.append(AlgorithmInfo("flow", _LABELS["flow"], True))
        return out

    def names(self, pf: Pathfinder) -> list[str]:
        return [a.name for a in self.algorithms(pf)]

    # --------------------------------------------------------------- queries
    def run(self, pf: Pathfinder, start: _Cell, goal: _Cell, algorithm: str) -> SearchOutcome:
        """Answer one cell query ``start -> goal`` with ``algorithm``.

        Pathfinder algorithms run with ``nearest=True`` (an unreachable goal
        gives the path to the nearest reachable cell) and ``smooth=True``.
        HPA* is rebuilt whenever ``pf`` holds another grid (a map change).
        Raises QueryError for an unknown or inapplicable algorithm.
        """
        infos = {a.name: a for a in self.algorithms(pf)}
        info = infos.get(algorithm)
        if info is None:
            known = ", ".join(map(repr, infos))
            raise QueryError(f"algorithm must be one of {known}, got {algorithm!r}")
        if not info.available:
            raise QueryError(info.reason or f"algorithm {algorithm!r} does not apply to this map")
        if algorithm == "hpa":
            return self._run_hpa(pf, start, goal)
        if algorithm == "flow":
            return self._run_flow(pf, start, goal)
        resolve = getattr(pf, "resolve_algorithm", None)
        resolved = resolve(algorithm) if resolve is not None else algorithm
        gen = search_generation(pf)
        t0 = time.perf_counter()
        res = pf.find_path_cells(start, goal, smooth=True, nearest=True,
                                 algorithm=cast(Algorithm, algorithm))
        ms = (time.perf_counter() - t0) * 1000.0
        costs = expanded_costs(pf, since=gen)
        return SearchOutcome(res, algorithm, resolved, ms, costs, self._smoothed(pf, res))

    def _smoothed(self, pf: Pathfinder, res: PathResult) -> NDArray[np.int32]:
        if not res.has_path:
            return np.zeros((0, 2), dtype=np.int32)
        g = pf.grid
        w = np.asarray(res.waypoints, dtype=np.float64)
        cells = np.empty((len(w), 2), dtype=np.int32)
        cells[:, 0] = np.floor((w[:, 0] - g.min_x) / g.cell_size)
        cells[:, 1] = np.floor((w[:, 1] - g.min_z) / g.cell_size)
        return cells

    def hpa_for(self, pf: Pathfinder) -> Any:
        """The HPA* abstraction of ``pf``'s grid (built again after a map change)."""
        if self._hpa is None or self._hpa_grid is not pf.grid:
            hpa_cls = optional_attr("navkit.query.hpa", "HPAStar")
            self._hpa = None
            self._hpa = hpa_cls(pf.grid, costs=pf.costs, connectivity=pf.connectivity,
                                cluster_size=hpa_cluster_size(pf.grid.width, pf.grid.depth))
            self._hpa_grid = pf.grid
        return self._hpa

    def _run_hpa(self, pf: Pathfinder, start: _Cell, goal: _Cell) -> SearchOutcome:
        build_ms = 0.0
        if self._hpa is None or self._hpa_grid is not pf.grid:
            t0 = time.perf_counter()
            self.hpa_for(pf)
            build_ms = (time.perf_counter() - t0) * 1000.0
        t1 = time.perf_counter()
        res = self._hpa.find_path_cells(start, goal, smooth=True)
        ms = (time.perf_counter() - t1) * 1000.0
        return SearchOutcome(res, "hpa", "hpa", ms, None, self._smoothed(pf, res),
                             {"buildMs": build_ms,
                              "note": "HPA* ignores occupants; no expansion map"})

    def _run_flow(self, pf: Pathfinder, start: _Cell, goal: _Cell) -> SearchOutcome:
        from ..results import Status

        flow_cls = optional_attr("navkit.query.flow", "FlowField")
        fy = pf.grid.floor_y
        t0 = time.perf_counter()
        ff = flow_cls(pf).build([goal])
        cost_int = np.array(ff.cost_int, dtype=np.int64)
        reached = cost_int[start[1], start[0]] >= 0
        cells = ff.follow(start) if reached else np.zeros((0, 2), dtype=np.int32)
        ms = (time.perf_counter() - t0) * 1000.0
        if not pf.grid.is_walkable(*start):
            res = PathResult(Status.NO_START, start_cell=start, floor_y=fy)
        elif not pf.grid.is_walkable(*goal):
            res = PathResult(Status.NO_GOAL, start_cell=start, floor_y=fy)
        elif len(cells) == 0:
            res = PathResult(Status.UNREACHABLE, expanded=int(ff.expanded), start_cell=start,
                             floor_y=fy)
        else:
            ci = int(cost_int[start[1], start[0]])
            kept = pf.smooth_cells(cells)
            res = PathResult(
                Status.FOUND, cells=cells, waypoints=pf.grid.cells_to_world(kept),
                cost=ci / pf.costs.card, cost_int=ci, expanded=int(ff.expanded), start_cell=start,
                end_cell=goal, floor_y=fy,
            )
        note = "heat map: the field's cost to the goal over every reached cell"
        return SearchOutcome(res, "flow", "flow", ms, cost_int, self._smoothed(pf, res),
                             {"note": note})
