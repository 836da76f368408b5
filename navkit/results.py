"""Result types returned by queries: frozen, with numpy arrays inside."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["Status", "NavResult", "PathResult", "PathBuffer", "MeshPathResult", "BatchResult",
           "SearchTrace", "path_result", "cell_centres", "no_path", "with_waypoints",
           "world_waypoints", "started", "explained", "points3d"]


class Status(enum.IntEnum):
    """Why a search ended. Codes 0-3 come from the kernel."""

    #: The goal was reached; the path is optimal under the cost model.
    FOUND = 0
    #: No path: the start's region does not contain the goal.
    UNREACHABLE = 1
    #: The node-expansion budget ran out first.
    BUDGET_EXHAUSTED = 2
    #: The search exhausted its window (bounded local search, docs/rules.md §3.6).
    WINDOW_EXHAUSTED = 3
    #: find-path-to-nearest: the goal is unreachable; the path ends at the
    #: reachable cell closest to it (docs/rules.md §6.2).
    NEAREST = 4
    #: No walkable cell at or near the start.
    NO_START = 5
    #: No walkable cell at or near the goal.
    NO_GOAL = 6

    @property
    def has_path(self) -> bool:
        """True for statuses that come with a non-empty path."""
        return self in (Status.FOUND, Status.NEAREST)

    def __str__(self) -> str:
        """The name: ``print(r.status)`` shows ``FOUND``, not ``0``.

        >>> print(Status.FOUND), f"{Status.NEAREST}", int(Status.NEAREST)
        FOUND
        (None, 'NEAREST', 4)
        """
        return self.name

    def __format__(self, spec: str) -> str:
        return format(self.name, spec)


#: A result type (:func:`explained` returns what it is given).
R = TypeVar("R", bound="NavResult")

#: What each status means (:attr:`NavResult.reason` without a more precise one).
_MEANING = {
    Status.FOUND: "found: the path reaches the goal",
    Status.UNREACHABLE: "no path: the start and the goal are not connected",
    Status.BUDGET_EXHAUSTED: "the search budget ran out before the goal",
    Status.WINDOW_EXHAUSTED: "the search window ran out before the goal",
    Status.NEAREST: "the goal is unreachable: the path ends at the reachable point nearest it",
    Status.NO_START: "nothing navigable at or near the start",
    Status.NO_GOAL: "nothing navigable at or near the goal",
}


def explained(res: R, which: str, point: tuple[float, float],
              bounds: tuple[float, float, float, float], radius: float) -> R:
    """``res`` (a ``NO_START`` / ``NO_GOAL`` answer) with its :attr:`~NavResult.reason`:
    ``which`` (``"start"`` / ``"goal"``) ``point`` lies outside the map's ``bounds``
    ``(min_x, min_z, max_x, max_z)`` (and how far), or on a blocked spot, with nothing
    navigable within ``radius`` metres (the snap radius). Returns ``res``.

    >>> r = explained(no_path(Status.NO_START), "start", (50.0, 1.0), (0, 0, 10, 10), 8.0)
    >>> print(r.reason)  # doctest: +NORMALIZE_WHITESPACE
    start (50, 1) lies 40 m outside the map (x 0..10, z 0..10) and nothing navigable is
    within the snap radius (8 m)
    """
    x0, z0, x1, z1 = bounds
    dx = max(x0 - point[0], 0.0, point[0] - x1)
    dz = max(z0 - point[1], 0.0, point[1] - z1)
    where = f"{which} ({point[0]:g}, {point[1]:g})"
    if dx or dz:
        text = (f"{where} lies {math.hypot(dx, dz):.3g} m outside the map (x {x0:g}..{x1:g}, "
                f"z {z0:g}..{z1:g}) and nothing navigable is within the snap radius "
                f"({radius:g} m)")
    else:
        text = (f"{where} is on a blocked spot and nothing navigable is within the snap "
                f"radius ({radius:g} m)")
    res.__dict__["_reason"] = text
    return res


#: Metres within which a mesh path's end counts as a place's point (:meth:`MeshPathResult.ends_at`).
MESH_GOAL_TOLERANCE = 1e-6

_new = object.__new__
_EMPTY_CELLS = np.zeros((0, 2), dtype=np.int32)
_EMPTY_CELLS.setflags(write=False)
_EMPTY_POINTS = np.zeros((0, 2), dtype=np.float64)
_EMPTY_POINTS.setflags(write=False)


def points3d(waypoints: NDArray[np.float64], floor_y: float) -> NDArray[np.float64]:
    """World ``(x, z)`` waypoints ``(m, 2)`` as ``(m, 3)`` points ``(x, floor_y, z)``.

    >>> points3d(np.array([[1.0, 2.0]]), 0.5).tolist()
    [[1.0, 0.5, 2.0]]
    """
    out = np.empty((len(waypoints), 3), dtype=np.float64)
    out[:, 0] = waypoints[:, 0]
    out[:, 1] = floor_y
    out[:, 2] = waypoints[:, 1]
    return out


def cell_centres(cells: NDArray[np.int32],
                 geo: tuple[float, float, float]) -> NDArray[np.float64]:
    """World centres ``(n, 2)`` float64 of cells ``(n, 2)`` ``(x, z)`` on the grid
    of ``geo`` = ``(min_x, min_z, cell_size)``: ``min + (cell + 0.5) * cell_size``,
    the floats of :meth:`navkit.NavGrid.cells_to_world` and of the kernels.

    >>> cell_centres(np.array([[0, 2]], np.int32), (10.0, 0.0, 0.5)).tolist()
    [[10.25, 1.25]]
    """
    pts = np.multiply(cells + 0.5, geo[2], dtype=np.float64)
    pts[:, 0] += geo[0]
    pts[:, 1] += geo[1]
    return pts


class NavResult:
    """What every path query answers (the navigation contract, :mod:`navkit.contract`):
    :class:`PathResult` on grids and worlds, :class:`MeshPathResult` on meshes.

    Common attributes: ``status`` (:class:`Status`), ``waypoints`` (float64
    ``(m, 2)`` world ``(x, z)`` metres), ``cost`` (the backend's cost: cardinal-step
    units on grids, metres on meshes; ``inf`` without a path), :attr:`length` (the
    waypoints' Euclidean length, metres), ``expanded`` / ``generated`` (search nodes),
    ``floor_y`` and :attr:`heights` (each waypoint's ``y``, metres).
    """

    status: Status
    waypoints: NDArray[np.float64]
    expanded: int
    generated: int
    floor_y: float

    @property
    def found(self) -> bool:
        """True when the goal itself was reached."""
        return self.status == Status.FOUND

    @property
    def length(self) -> float:
        """Euclidean length of the route, metres (``inf`` without a path): through
        the waypoints, from the query's start point for a world query on a grid
        (whose first waypoint may have been dropped, docs/rules.md §4.2).

        >>> PathResult(Status.FOUND, waypoints=np.array([[0.0, 0.0], [3.0, 4.0]])).length
        5.0
        """
        w = self.waypoints
        if not len(w):
            return float("inf")
        start = self.__dict__.get("_start")  # a world query's start (world_waypoints)
        if start is not None:
            w = np.vstack([np.asarray(start, dtype=np.float64)[None, :], w])
        if len(w) == 1:
            return 0.0
        d = np.diff(w, axis=0)
        return float(np.hypot(d[:, 0], d[:, 1]).sum())

    @property
    def heights(self) -> NDArray[np.float64]:
        """Each waypoint's height ``y``, metres, shape ``(m,)`` (one floor: ``floor_y``)."""
        h = self.__dict__.get("_heights")
        if h is not None:
            return h
        return np.full(len(self.waypoints), float(self.floor_y), dtype=np.float64)

    def points3d(self) -> NDArray[np.float64]:
        """Waypoints as an ``(m, 3)`` array of world ``(x, y, z)``."""
        w = self.waypoints
        out = np.empty((len(w), 3), dtype=np.float64)
        out[:, 0] = w[:, 0]
        out[:, 1] = self.heights
        out[:, 2] = w[:, 1]
        return out

    def spline(self, samples_per_metre: float = 4.0) -> NDArray[np.float64]:
        """The waypoints smoothed by a centripetal Catmull-Rom curve for display,
        ``(k, 2)`` world metres through every waypoint (:func:`navkit.spline.catmull_rom`).

        Visual only: movement and collision follow the straight segments."""
        from .spline import catmull_rom

        return catmull_rom(self.waypoints, samples_per_metre)

    @property
    def reason(self) -> str:
        """Why the query ended so, in words: for ``NO_START`` / ``NO_GOAL`` of a world
        query whether the point lies outside the map or on a blocked spot with nothing
        navigable within the snap radius; otherwise the status's meaning.

        >>> PathResult(Status.UNREACHABLE).reason
        'no path: the start and the goal are not connected'
        """
        why = self.__dict__.get("_reason")
        return str(why) if why is not None else _MEANING[self.status]

    def ends_at(self, place: Any) -> bool:
        """Whether the path ends at ``place`` (a :class:`navkit.contract.Place`): on
        grids its last cell is the place's cell, on meshes its last waypoint is the
        place's point (within ``1e-6`` m)."""
        raise NotImplementedError


@dataclass(frozen=True, eq=False)
class PathResult(NavResult):
    """One path query's answer.

    Attributes
    ----------
    status : Status
    cells : int32 array, shape (n, 2)
        The raw cell chain ``(x, z)`` from start cell to end cell, inclusive.
    waypoints : float64 array, shape (m, 2)
        World ``(x, z)`` waypoints in metres after smoothing and the
        first/last waypoint rules of docs/rules.md §4.2-§4.3 (equal to the cell
        centres of ``cells`` for cell queries without smoothing).
    cost : float
        Path cost in cardinal-step units (1.0 per straight step); ``inf`` when
        there is no path.
    cost_int : int
        The kernel's integer cost (-1 when there is no path).
    expanded, generated : int
        Nodes expanded (closed) and generated (pushed) by the search.
    start_cell, end_cell : tuple of int or None
        Snapped start and the cell the path ends in.
    floor_y : float
        Height of every waypoint, metres.
    """

    status: Status
    cells: NDArray[np.int32] = field(default_factory=lambda: _EMPTY_CELLS)
    waypoints: NDArray[np.float64] = field(default_factory=lambda: _EMPTY_POINTS)
    cost: float = float("inf")
    cost_int: int = -1
    expanded: int = 0
    generated: int = 0
    start_cell: tuple[int, int] | None = None
    end_cell: tuple[int, int] | None = None
    floor_y: float = 0.0

    def __getattr__(self, name: str) -> NDArray[np.float64]:
        """``waypoints`` of a result made by :meth:`PathBuffer.take`, computed
        (and kept) on first access: the world centres of ``cells``."""
        d = self.__dict__
        if name == "waypoints" and "_geo" in d:
            pts = cell_centres(d["cells"], d["_geo"])
            d["waypoints"] = pts
            return pts
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def has_path(self) -> bool:
        """True when there are cells to follow: found, nearest, or the partial
        path a find-path-to-nearest query returns when its budget or window ran out."""
        return len(self.cells) > 0

    def __bool__(self) -> bool:
        """``if result:`` is :attr:`has_path` (an UNREACHABLE result is falsy).

        >>> bool(PathResult(Status.UNREACHABLE))
        False
        """
        return len(self.cells) > 0

    def ends_at(self, place: Any) -> bool:
        """Whether the last cell is ``place.cell`` (a :class:`navkit.contract.Place`)."""
        return bool(len(self.cells) > 0 and self.end_cell == place.cell)

    def __repr__(self) -> str:
        return (
            f"PathResult({self.status.name}, cells={len(self.cells)}, "
            f"waypoints={len(self.waypoints)}, cost={self.cost:.6g}, expanded={self.expanded})"
        )


def path_result(status: Status, cells: NDArray[np.int32],
                waypoints: NDArray[np.float64] | None, cost_int: int, card: int,
                expanded: int, generated: int, start_cell: tuple[int, int] | None,
                end_cell: tuple[int, int] | None, floor_y: float,
                geo: tuple[float, float, float] | None = None) -> PathResult:
    """The one builder of a :class:`PathResult` with a path (``cost = cost_int / card``).

    It skips the frozen dataclass's per-field ``object.__setattr__`` (a third
    of the time; the one-call world query's whole budget is a few
    microseconds), so the values must already have the right types.
    ``waypoints=None`` (cell queries without smoothing, the hot paths): no
    waypoints yet; they are made on first access by :func:`cell_centres` on
    ``geo`` = ``(min_x, min_z, cell_size)``, the same floats the kernels write
    (a slice and a copy saved per query).

    >>> r = path_result(Status.FOUND, np.array([[0, 0], [1, 0]], np.int32), None, 10, 10,
    ...                 1, 1, (0, 0), (1, 0), 0.0, geo=(0.0, 0.0, 2.0))
    >>> r.cost, r.waypoints.tolist()
    (1.0, [[1.0, 1.0], [3.0, 1.0]])
    """
    res = _new(PathResult)
    d = res.__dict__  # item by item: a quarter faster than dict.update(**fields)
    d["status"] = status
    d["cells"] = cells
    if waypoints is None:
        d["_geo"] = geo  # waypoints: made on first access (PathResult.__getattr__)
    else:
        d["waypoints"] = waypoints
    d["cost"] = cost_int / card
    d["cost_int"] = cost_int
    d["expanded"] = expanded
    d["generated"] = generated
    d["start_cell"] = start_cell
    d["end_cell"] = end_cell
    d["floor_y"] = floor_y
    return res


class PathBuffer:
    """A reusable answer of cell queries in a hot loop: what
    :meth:`navkit.Pathfinder.find_path_into` writes, in place, instead of a
    new :class:`PathResult` per query.

    After a query, ``n`` is the number of path cells (0: no path),
    :attr:`cells` the cell chain ``(n, 2)`` int32 ``(x, z)`` and
    :attr:`waypoints` the cell centres ``(n, 2)`` float64 world metres (views
    of the buffer's own arrays: the next query overwrites them; copy what you
    keep, or call :meth:`result`), ``status`` a :class:`Status`, ``cost_int``
    the integer cost (-1 without a path), ``cost`` the cost in cardinal-step
    units (``inf`` without a path), ``expanded`` / ``generated`` the search's
    counts. ``buffer_cells`` / ``buffer_points`` are the whole arrays
    (``capacity`` rows) the queries write into; they grow (at least
    doubling, new arrays) when a path does not fit.

    >>> import numpy as np, navkit
    >>> pf = navkit.Pathfinder(navkit.NavGrid(np.ones((3, 4), bool)))
    >>> buf = navkit.PathBuffer()
    >>> pf.find_path_into((0, 0), (3, 2), buf), buf.cost, buf.cells[-1].tolist()
    (4, 3.8, [3, 2])
    """

    __slots__ = ("n", "status", "cost_int", "cost", "expanded", "generated", "buffer_cells",
                 "buffer_points")

    def __init__(self, capacity: int = 1024):
        if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) \
                or capacity < 1:
            from .errors import ConfigError

            raise ConfigError(f"expected an integer >= 1, got {capacity!r}", field="capacity")
        self.buffer_cells = np.zeros((int(capacity), 2), dtype=np.int32)
        self.buffer_points = np.zeros((int(capacity), 2), dtype=np.float64)
        self.n = 0
        self.status = Status.UNREACHABLE
        self.cost_int = -1
        self.cost = float("inf")
        self.expanded = 0
        self.generated = 0

    @property
    def cells(self) -> NDArray[np.int32]:
        """The last path's cells ``(n, 2)`` int32 ``(x, z)`` (a view until the next query)."""
        return self.buffer_cells[:self.n]

    @property
    def waypoints(self) -> NDArray[np.float64]:
        """The last path's cell centres ``(n, 2)`` float64, world metres (a view)."""
        return self.buffer_points[:self.n]

    @property
    def capacity(self) -> int:
        """Path cells the buffer holds before it grows."""
        return len(self.buffer_cells)

    @property
    def found(self) -> bool:
        """True when the last query reached its goal."""
        return self.status == Status.FOUND

    def arrays(self, need: int = 0) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
        """The whole cell and centre arrays, grown first (at least doubling) when
        they hold fewer than ``need`` rows (for the query engines)."""
        if need > len(self.buffer_cells):
            cap = max(int(need), 2 * len(self.buffer_cells))
            self.buffer_cells = np.zeros((cap, 2), dtype=np.int32)
            self.buffer_points = np.zeros((cap, 2), dtype=np.float64)
        return self.buffer_cells, self.buffer_points

    def set_answer(self, status: Status, n: int, cost_int: int, card: int, expanded: int,
                   generated: int) -> int:
        """Record a query's answer (its ``n`` cells already in :meth:`arrays`); returns ``n``."""
        self.n = n
        self.status = status
        if n:
            self.cost_int = cost_int
            self.cost = cost_int / card
        else:
            self.cost_int = -1
            self.cost = float("inf")
        self.expanded = expanded
        self.generated = generated
        return n

    def load(self, res: PathResult, card: int) -> int:
        """Copy a :class:`PathResult` of a cell query into the buffer; returns its length."""
        n = len(res.cells)
        cells, pts = self.arrays(n)
        cells[:n] = res.cells
        pts[:n] = res.waypoints
        return self.set_answer(res.status, n, res.cost_int, card, res.expanded, res.generated)

    def result(self, floor_y: float = 0.0) -> PathResult:
        """The last answer as a :class:`PathResult` (copies of the arrays;
        ``start_cell`` / ``end_cell`` from the path's ends)."""
        n = self.n
        if n == 0:
            return no_path(self.status, expanded=self.expanded, generated=self.generated,
                           floor_y=floor_y)
        cells = self.buffer_cells[:n].copy()
        res = object.__new__(PathResult)
        res.__dict__.update(status=self.status, cells=cells,
                            waypoints=self.buffer_points[:n].copy(), cost=self.cost,
                            cost_int=self.cost_int, expanded=self.expanded,
                            generated=self.generated,
                            start_cell=(int(cells[0, 0]), int(cells[0, 1])),
                            end_cell=(int(cells[-1, 0]), int(cells[-1, 1])), floor_y=floor_y)
        return res

    def take(self, start_cell: tuple[int, int], end_cell: tuple[int, int],
             floor_y: float, geo: tuple[float, float, float], card: int) -> PathResult:
        """The last answer as a :class:`PathResult` for a cell query from
        ``start_cell`` to ``end_cell`` under a cost model of cardinal step
        ``card`` (what :meth:`navkit.Pathfinder.find_path_cells` returns on its
        hot path: the fields :func:`path_result` / :func:`no_path` would give).
        ``cells`` is a copy; ``waypoints`` are made from it on first access, the
        centres of the cells on the grid of ``geo`` = ``(min_x, min_z,
        cell_size)`` by the formula of :meth:`navkit.NavGrid.cells_to_world`.

        >>> buf = PathBuffer(2)
        >>> buf.take((0, 0), (1, 0), 0.0, (0.0, 0.0, 1.0), 10).status.name
        'UNREACHABLE'
        """
        n = self.n
        if n == 0:
            return no_path(self.status, expanded=self.expanded, generated=self.generated,
                           start_cell=start_cell, floor_y=floor_y)
        return path_result(self.status, self.buffer_cells[:n].copy(), None, self.cost_int,
                           card, self.expanded, self.generated, start_cell, end_cell,
                           floor_y, geo)

    def __repr__(self) -> str:
        return (f"PathBuffer({self.status.name}, n={self.n}, cost={self.cost:.6g}, "
                f"capacity={self.capacity})")


def no_path(status: Status, *, start_cell: tuple[int, int] | None = None, expanded: int = 0,
            generated: int = 0, floor_y: float = 0.0) -> PathResult:
    """The builder of a :class:`PathResult` without a path (no cells, cost ``inf``).

    >>> no_path(Status.NO_START).cost
    inf
    """
    res = object.__new__(PathResult)
    res.__dict__.update(status=status, cells=_EMPTY_CELLS, waypoints=_EMPTY_POINTS,
                        cost=float("inf"), cost_int=-1, expanded=expanded, generated=generated,
                        start_cell=start_cell, end_cell=None, floor_y=floor_y)
    return res


def world_waypoints(res: PathResult, start: tuple[float, float], goal: tuple[float, float],
                    goal_cell: tuple[int, int], trim: float,
                    waypoints: NDArray[np.float64] | None = None) -> PathResult:
    """The waypoint rules of a world query (docs/rules.md §4.2-§4.3), written once:
    ``res`` (a path between the snapped cells, its waypoints from the start cell)
    with the last waypoint moved to the exact ``goal`` when the path was FOUND and
    ``goal``'s own cell ``goal_cell`` is its end cell, then the first waypoint
    dropped when more follow and it lies within ``trim`` metres
    (``0.75 * cell_size``) of ``start``. The answer remembers ``start`` (its
    :attr:`~NavResult.length` walks from there). ``waypoints``: the ones to apply the
    rules to instead of ``res.waypoints`` (a cached path's, planned from the start
    cell's centre). A result without a path is returned as it is.

    >>> r = path_result(Status.FOUND, np.array([[0, 0], [3, 0]], np.int32),
    ...                 np.array([[0.5, 0.5], [3.5, 0.5]]), 30, 10, 2, 2, (0, 0), (3, 0), 0.0)
    >>> world_waypoints(r, (0.4, 0.5), (3.9, 0.2), (3, 0), 0.75).waypoints.tolist()
    [[3.9, 0.2]]
    """
    if not len(res.cells):
        return res
    pts = res.waypoints if waypoints is None else waypoints
    if res.status == Status.FOUND and goal_cell == res.end_cell:
        pts = np.array(pts, dtype=np.float64)
        pts[-1] = goal
        pts.setflags(write=False)
    if len(pts) > 1 and math.hypot(pts[0, 0] - start[0], pts[0, 1] - start[1]) <= trim:
        pts = pts[1:]
    if pts.flags.writeable:
        pts.setflags(write=False)
    out = with_waypoints(res, pts)
    out.__dict__["_start"] = start
    return out


def started(res: PathResult, start: tuple[float, float]) -> PathResult:
    """``res`` (a world query's answer) remembering the query's start point ``start``
    ``(x, z)`` for :attr:`NavResult.length`; returns ``res``."""
    if len(res.cells):
        res.__dict__["_start"] = start
    return res


def with_waypoints(res: PathResult, waypoints: NDArray[np.float64]) -> PathResult:
    """A copy of ``res`` with other waypoints (``dataclasses.replace`` costs ten
    times more: it re-runs ``__init__``)."""
    out = object.__new__(PathResult)
    out.__dict__.update(res.__dict__)
    out.__dict__["waypoints"] = waypoints
    return out


@dataclass(frozen=True, eq=False)
class MeshPathResult(NavResult):
    """One path query's answer on a navigation mesh (:class:`navkit.NavMesh`).

    Attributes
    ----------
    status : Status
        ``FOUND``, ``NEAREST`` (find-path-to-nearest), ``UNREACHABLE``,
        ``BUDGET_EXHAUSTED``, ``NO_START`` or ``NO_GOAL``.
    waypoints : float64 array, shape (m, 2)
        World ``(x, z)`` metres: the (snapped) start, every corner the path
        turns at, the (snapped) end. Empty without a path.
    length : float
        Euclidean length of the polyline, metres (``inf`` without a path).
    expanded, generated : int
        Search nodes expanded and generated (Polyanya's intervals or, for
        ``method="funnel"``, polygons).
    start_polygon, end_polygon : int
        Polygons of the first and last waypoints (-1 without a path).
    floor_y : float
        Height of every waypoint, metres.
    method : str
        ``"exact"`` or ``"funnel"``.
    """

    status: Status
    waypoints: NDArray[np.float64] = field(default_factory=lambda: _EMPTY_POINTS)
    length: float = float("inf")
    expanded: int = 0
    generated: int = 0
    start_polygon: int = -1
    end_polygon: int = -1
    floor_y: float = 0.0
    method: str = "exact"

    @property
    def has_path(self) -> bool:
        """True when there are waypoints to follow."""
        return len(self.waypoints) > 0

    def __bool__(self) -> bool:
        """``if result:`` is :attr:`has_path`."""
        return len(self.waypoints) > 0

    @property
    def cost(self) -> float:
        """The path's length in metres (the mesh's cost; alias of :attr:`length`)."""
        return self.length

    @property
    def algorithm(self) -> str:
        """The search that answered: ``"exact"`` or ``"funnel"`` (also ``method``)."""
        return self.method

    def ends_at(self, place: Any) -> bool:
        """Whether the last waypoint is ``place.point`` (within :data:`MESH_GOAL_TOLERANCE`)."""
        w = self.waypoints
        if not len(w):
            return False
        p = place.point
        return bool(math.hypot(float(w[-1, 0]) - p[0], float(w[-1, 1]) - p[1])
                    <= MESH_GOAL_TOLERANCE)

    def to_json_dict(self) -> dict[str, object]:
        """A JSON-ready summary: status name, length (metres), waypoints, counts."""
        return {"status": self.status.name, "length": self.length if self.has_path else None,
                "waypoints": self.waypoints.tolist(), "expanded": self.expanded,
                "generated": self.generated, "method": self.method, "floorY": self.floor_y}

    def __repr__(self) -> str:
        return (f"MeshPathResult({self.status.name}, waypoints={len(self.waypoints)}, "
                f"length={self.length:.6g}, expanded={self.expanded}, method={self.method!r})")


@dataclass(frozen=True, eq=False)
class BatchResult:
    """Answers to many queries on one grid; row ``i`` answers query ``i``.

    ``status`` (uint8 :class:`Status` codes), ``cost`` (float64, cardinal
    units, inf without a path), ``cost_int`` (int64, -1 without a path),
    ``expanded`` and ``generated`` (int64), and, when paths were requested,
    ``path_offsets`` (int64, n + 1) into ``path_cells`` (int32, (total, 2)).
    """

    status: NDArray[np.uint8]
    cost: NDArray[np.float64]
    cost_int: NDArray[np.int64]
    expanded: NDArray[np.int64]
    generated: NDArray[np.int64]
    path_offsets: NDArray[np.int64] | None = None
    path_cells: NDArray[np.int32] | None = None

    def __len__(self) -> int:
        return int(self.status.shape[0])

    @classmethod
    def from_results(cls, results: list[PathResult], card: int, *, with_paths: bool) -> BatchResult:
        """The batch of single answers ``results`` (``card``: the cost model's straight step)."""
        n = len(results)
        status = np.array([int(r.status) for r in results], dtype=np.uint8)
        cost_int = np.array([r.cost_int for r in results], dtype=np.int64)
        expanded = np.array([r.expanded for r in results], dtype=np.int64)
        generated = np.array([r.generated for r in results], dtype=np.int64)
        cost = np.where(cost_int >= 0, cost_int / card, np.inf)
        offsets = cells = None
        if with_paths:
            lengths = np.array([len(r.cells) for r in results], dtype=np.int64)
            offsets = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            cells = (np.concatenate([np.asarray(r.cells, dtype=np.int32) for r in results]) if n
                     else np.zeros((0, 2), np.int32))
        return cls(status=status, cost=cost, cost_int=cost_int, expanded=expanded,
                   generated=generated, path_offsets=offsets, path_cells=cells)

    def path(self, i: int) -> NDArray[np.int32]:
        """Cells of query ``i``'s path, shape (n, 2)."""
        if self.path_offsets is None or self.path_cells is None:
            raise ValueError("paths were not requested (return_paths=False)")
        return self.path_cells[self.path_offsets[i] : self.path_offsets[i + 1]]


@dataclass(frozen=True, eq=False)
class SearchTrace:
    """What the last A* or Dijkstra search of a :class:`~navkit.query.Pathfinder` closed.

    ``generation`` is the search's number (see
    :attr:`Pathfinder.search_generation <navkit.query.Pathfinder.search_generation>`);
    ``cells`` (int32, ``(k, 2)``) are the closed cells ``(x, z)`` in index
    order and ``g`` (int64, ``(k,)``) their integer costs from the start.
    """

    generation: int
    cells: NDArray[np.int32]
    g: NDArray[np.int64]
