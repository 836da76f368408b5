"""Path queries between world points on a building's floors (docs/rules.md §16).

:class:`FloorMap` answers the navigation contract's queries on a building:
world points ``(x, y, z)`` land on a floor by their height (or ``floor=``
names it), paths climb and descend along links, and each result says which
floor every waypoint is on and which links it takes.

>>> from navkit.floors.examples import two_floors
>>> fm = FloorMap(two_floors())
>>> r = fm.find_path((1.0, 0.0, 4.0), (19.0, 3.5, 4.0))
>>> r.status.name, r.link_names, sorted(set(r.floors.tolist()))
('FOUND', ['stairs'], [0, 1])
>>> round(float(r.heights[-1]), 2)
3.5
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..contract import Place, RaycastHit, check_agent, world_point_y
from ..errors import QueryError, shown
from ..query.overlay import as_circles
from ..query.pathfinder import FIRST_WAYPOINT_TRIM, SNAP_RADIUS, Costs, Pathfinder
from ..results import NavResult, Status, explained
from ..world.local import check_window, get_preset
from .building import Building
from .model import Y_TOLERANCE
from .search import CellPath, FloorSearch

__all__ = ["FloorMap", "FloorPathResult", "LinkStep", "FloorPlace", "ALGORITHMS"]

#: A building query's ``algorithm`` values (docs/rules.md §16.4, §16.9).
ALGORITHMS = ("auto", "astar", "jps", "jps+", "layered", "dijkstra")


_STATUS = tuple(Status)  # kernel code -> Status, without the enum's call


def _check_budget(budget: Any) -> None:
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int)
                               or budget < 1):
        raise QueryError(f"budget must be a positive integer or None, got {shown(budget)}")


def _check_algorithm(algorithm: Any) -> None:
    if algorithm not in ALGORITHMS:
        raise QueryError(f"algorithm must be one of {', '.join(map(repr, ALGORITHMS))} on a "
                         f"building, got {algorithm!r}")


@dataclass(frozen=True)
class LinkStep:
    """A link a path takes: its ``name``, ``kind``, config ``index`` and the
    waypoint indices where it starts (``at``, on the floor left) and ends (``at + 1``)."""

    name: str
    kind: str
    index: int
    at: int


@dataclass(frozen=True)
class FloorPlace(Place):
    """A :class:`~navkit.contract.Place` on a building: ``floor`` is its floor index."""

    floor: int = 0


@dataclass(eq=False)
class FloorPathResult(NavResult):
    """A path across floors.

    ``waypoints`` float64 ``(m, 2)`` world ``(x, z)``; ``floors`` int32 ``(m,)``
    each waypoint's floor; :attr:`heights` their ``floorY``; ``cells`` int32
    ``(n, 3)`` the raw ``(floor, x, z)`` chain; ``links`` the :class:`LinkStep`
    list in order; ``cost`` straight-step units (links at their integer cost,
    ``inf`` without a path), ``cost_int`` the kernel's integer; :attr:`length`
    metres walked within floors plus the links' costs in metres.
    """

    status: Status
    waypoints: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 2)))
    floors: NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, np.int32))
    cells: NDArray[np.int32] = field(default_factory=lambda: np.zeros((0, 3), np.int32))
    links: list[LinkStep] = field(default_factory=list)
    cost: float = float("inf")
    cost_int: int = -1
    expanded: int = 0
    generated: int = 0
    floor_y: float = 0.0
    link_length: float = 0.0

    @property
    def link_names(self) -> list[str]:
        """Names of the links taken, in order."""
        return [s.name for s in self.links]

    @property
    def has_path(self) -> bool:
        return len(self.cells) > 0

    @property
    def length(self) -> float:
        """Metres: the waypoints' lengths within each floor plus the links' costs."""
        w = self.waypoints
        if not len(w):
            return float("inf")
        start = self.__dict__.get("_start")
        total = 0.0
        if start is not None and len(w):
            total += math.hypot(w[0, 0] - start[0], w[0, 1] - start[1])
        jumps = {s.at for s in self.links}
        for i in range(1, len(w)):
            if i - 1 in jumps:
                continue
            total += math.hypot(w[i, 0] - w[i - 1, 0], w[i, 1] - w[i - 1, 1])
        return total + self.link_length

    def ends_at(self, place: Any) -> bool:
        cell = getattr(place, "cell", None)
        fl = getattr(place, "floor", None)
        if not len(self.cells) or cell is None:
            return False
        last = self.cells[-1]
        return (fl is None or int(last[0]) == fl) and (int(last[1]), int(last[2])) == tuple(cell)


class FloorMap:
    """Queries on a building (any level form; a one-floor level works too).

    ``costs``: the grid cost model (``"seed"``, ``"exact"`` or ``(card, diag)``);
    ``snap_radius``: metres, as on a single floor (docs/rules.md §4.1).
    ``warm``: load (or compile) the search kernels now, not at the first query.
    """

    def __init__(self, level: Any, costs: Costs = "seed", *,
                 snap_radius: float = SNAP_RADIUS, warm: bool = True):
        if isinstance(level, (str, Path)) and Path(level).suffix.lower() in (".tmj", ".tmx",
                                                                              ".ldtk"):
            from .maps import read_map_building

            level = read_map_building(level)
        self.building = level if isinstance(level, Building) else Building(level)
        self.search = FloorSearch(self.building, costs)
        self.snap_radius = float(snap_radius)
        self._costs = costs
        self._pfs: dict[int, tuple[int, Pathfinder]] = {}
        self._last: CellPath | None = None
        self._lock = threading.RLock()
        self._free_buf: NDArray[np.uint8] | None = None
        self._free_key: int = -1
        self._stamp_cells = np.zeros(0, np.int64)
        self._router: Any = None
        g0 = self.building.grid(0)
        self._frame = (g0.min_x, g0.min_z, g0.cell_size)  # the same on every floor (§16.2)
        if warm:
            self.search.warm()

    # ------------------------------------------------------------ properties
    @property
    def version(self) -> int:
        return self.building.version

    @property
    def cell_size(self) -> float:
        return self.building.cell_size

    @property
    def agent_radius(self) -> float:
        return self.building.agent_radius

    @property
    def floor_names(self) -> tuple[str, ...]:
        return self.building.floor_names

    @property
    def floor_ys(self) -> NDArray[np.float64]:
        return self.building.floor_ys

    def pathfinder(self, floor: Any) -> Pathfinder:
        """The single-floor :class:`~navkit.query.pathfinder.Pathfinder` of one floor's
        current grid (snapping, smoothing, raycasts on that floor)."""
        f = self.building.floor_index(floor)
        grid = self.building.grid(f)
        got = self._pfs.get(f)
        if got is not None and got[0] == id(grid) and got[1].grid is grid:
            return got[1]
        pf = Pathfinder(grid, self._costs, snap_radius=self.snap_radius)
        self._pfs[f] = (id(grid), pf)
        return pf

    # ----------------------------------------------------------------- floors
    def floor_of(self, point: ArrayLike, floor: Any = None) -> int:
        """The floor a world point lies on (docs/rules.md §16.6): ``floor`` when
        given; for ``(x, z)`` the lowest floor; for ``(x, y, z)`` the floor with
        the greatest ``floorY`` not above ``y + 1e-6`` whose walkable cells hold
        ``(x, z)``, else the highest floor not above ``y``, else the lowest floor.

        >>> from navkit.floors.examples import two_floors
        >>> fm = FloorMap(two_floors())
        >>> fm.floor_of((15, 4.0, 5)), fm.floor_of((15, 2.0, 5)), fm.floor_of((15, 5)), \
fm.floor_of((2, 9.0, 5))
        (1, 0, 0, 0)
        """
        if floor is not None:
            return self.building.floor_index(floor)
        ys = self._floor_ys_list()
        lowest = min(range(len(ys)), key=lambda i: (ys[i], i))
        x, y, z = world_point_y(point, "point", math.nan)  # validates; (x, z): y is NaN
        if math.isnan(y):
            return lowest
        cand = sorted((i for i in range(len(ys)) if ys[i] <= y + Y_TOLERANCE),
                      key=lambda i: (-ys[i], i))
        for f in cand:
            g = self.building.grid(f)
            cx, cz = g.world_to_cell(x, z)
            if g.in_bounds(cx, cz) and g.is_walkable(cx, cz):
                return f
        return cand[0] if cand else lowest

    def _floor_ys_list(self) -> list[float]:
        return [float(v) for v in self.building.floor_ys]

    # ------------------------------------------------------------- snapping
    def place(self, point: ArrayLike, *, floor: Any = None, obstacles: Any = None,
              agent: Any = None) -> FloorPlace | None:
        """Where a query from ``point`` starts: its floor (:meth:`floor_of`) and
        snapped cell there (docs/rules.md §4.1), or None with nothing walkable
        within the snap radius on that floor."""
        self._agent(agent)
        f = self.floor_of(point, floor)
        x, _, z = world_point_y(point, "point")
        circles = self._circles(obstacles).get(f)
        p = self.pathfinder(f).place((x, z), obstacles=circles)
        if p is None:
            return None
        region = -1
        return FloorPlace(point=p.point, region=region, cell=p.cell, polygon=-1,
                          y=float(self.building.floor_ys[f]), floor=f)

    def is_walkable(self, point: ArrayLike, *, floor: Any = None, agent: Any = None) -> bool:
        """True when the point lies on a walkable cell of its floor."""
        self._agent(agent)
        f = self.floor_of(point, floor)
        x, _, z = world_point_y(point, "point")
        return self.pathfinder(f).is_walkable((x, z))

    def nearest_point(self, point: ArrayLike, radius: float | None = None, *,
                      floor: Any = None, agent: Any = None) -> tuple[float, float] | None:
        """The walkable point of the point's floor nearest to it (see
        :meth:`~navkit.query.pathfinder.Pathfinder.nearest_point`)."""
        self._agent(agent)
        f = self.floor_of(point, floor)
        x, _, z = world_point_y(point, "point")
        return self.pathfinder(f).nearest_point((x, z), radius)

    def raycast(self, a: ArrayLike, b: ArrayLike, *, floor: Any = None,
                agent: Any = None) -> RaycastHit:
        """A raycast within ``a``'s floor (links are never crossed)."""
        self._agent(agent)
        f = self.floor_of(a, floor)
        ax, _, az = world_point_y(a, "a")
        bx, _, bz = world_point_y(b, "b")
        return self.pathfinder(f).raycast((ax, az), (bx, bz))

    def last_search(self) -> CellPath | None:
        """The last search's cell answer (None before any)."""
        return self._last

    # --------------------------------------------------------------- editing
    def set_area_available(self, name: str, available: bool, *, floor: Any = None) -> bool:
        return self.building.set_area_available(name, available, floor=floor)

    def set_link_enabled(self, name: str, enabled: bool) -> bool:
        return self.building.set_link_enabled(name, enabled)

    def add_obstacle(self, name: str, polygon: Any, *, floor: Any = 0) -> None:
        self.building.add_obstacle(name, polygon, floor=floor)

    def remove_obstacle(self, name: str, *, floor: Any = None) -> None:
        self.building.remove_obstacle(name, floor=floor)

    # ---------------------------------------------------------------- queries
    def find_path(self, start: ArrayLike, goal: ArrayLike, *, start_floor: Any = None,
                  goal_floor: Any = None, smooth: bool = True, nearest: bool = False,
                  budget: int | None = None, algorithm: str = "auto", obstacles: Any = None,
                  ignore: Any = None, agent: Any = None, window: Any = None,
                  preset: Any = None) -> FloorPathResult:
        """The cheapest path between two world points, across floors (docs/rules.md §16).

        ``start`` / ``goal``: ``(x, z)`` or ``(x, y, z)`` metres; ``start_floor``
        / ``goal_floor`` (index or name) override the height rule. ``obstacles``:
        circles ``(k, 4)`` ``(x, z, radius, floor)`` for this query; ``ignore``:
        row indices of them to skip. ``algorithm`` (:data:`ALGORITHMS`, all the
        same costs): ``"auto"``, ``"astar"``, ``"jps"``, ``"jps+"`` route through
        the link ends and search each floor's piece with that single-floor
        algorithm (docs/rules.md §16.9); ``"layered"`` / ``"dijkstra"`` search
        every floor at once (§16.4). Obstacles, a budget or many links use the
        layered search. ``nearest``: an unreachable goal gives the path to the
        reachable cell nearest it (status ``NEAREST``). ``window``: an inclusive
        cell box ``(x0, z0, x1, z1)`` applied on every floor (docs/rules.md §3.6);
        ``preset="bounded"``: the 38 x 38 box around the midpoint of the snapped
        start and goal cells and 1,000 expansions (a route whose link lies outside
        the box ends ``WINDOW_EXHAUSTED``, the seed's bounded mode).
        """
        self._agent(agent)
        _check_algorithm(algorithm)
        _check_budget(budget)
        sf = self.floor_of(start, start_floor)
        gf = self.floor_of(goal, goal_floor)
        sx, _, sz = world_point_y(start, "start")
        gx, _, gz = world_point_y(goal, "goal")
        circles = self._circles(obstacles, ignore)
        with self._lock:
            sp = self.pathfinder(sf).place((sx, sz), obstacles=circles.get(sf))
            if sp is None:
                return self.no_path_result(Status.NO_START, "start", sf, (sx, sz))
            gp = self.pathfinder(gf).place((gx, gz), obstacles=circles.get(gf))
            if gp is None and not nearest:
                return self.no_path_result(Status.NO_GOAL, "goal", gf, (gx, gz))
            assert sp.cell is not None
            scell = (sf, *sp.cell)
            gcell = (gf, *(gp.cell if gp is not None and gp.cell is not None
                           else self._clamped_cell(gf, gx, gz)))
            res = None
            win = None
            pre = get_preset(preset)
            if pre is not None:
                win = pre.window_for(scell[1:], gcell[1:])
                budget = pre.budget if budget is None else min(budget, pre.budget)
            if window is not None:
                win = check_window(window)
            if not circles and budget is None and gp is not None and win is None:
                res = self._portal(scell, gcell, algorithm)
            if res is None or (nearest and res.status != Status.FOUND):
                free = self._stamped(circles)
                try:
                    res = self.search.path(scell, gcell, budget=budget,
                                           dijkstra=algorithm == "dijkstra", free=free,
                                           keep_goal=nearest, window=win)
                finally:
                    self._unstamp()
            if res.status != Status.FOUND and nearest:
                res = self._nearest(res, scell, gcell, gz, gx)
            self._last = res
        return self.result_of(res, (sx, sz), (gx, gz), gp is not None, smooth)

    def find_path_to_nearest(self, start: ArrayLike, goal: ArrayLike, **kw: Any
                             ) -> FloorPathResult:
        """:meth:`find_path` with ``nearest=True``."""
        return self.find_path(start, goal, nearest=True, **kw)

    def find_paths(self, starts: ArrayLike, goals: ArrayLike, **kw: Any) -> list[FloorPathResult]:
        """``find_path(starts[i], goals[i])`` for each row, in order."""
        try:
            a = np.asarray(starts, dtype=np.float64)
            b = np.asarray(goals, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise QueryError("starts and goals must be (n, 2) or (n, 3) arrays of numbers") \
                from None
        if a.ndim != 2 or a.shape != b.shape or a.shape[1] not in (2, 3):
            raise QueryError(f"starts and goals must be (n, 2) or (n, 3) arrays of the same "
                             f"shape, got {a.shape} and {b.shape}")
        return [self.find_path(a[i], b[i], **kw) for i in range(len(a))]

    def find_path_cells(self, start: tuple[int, int, int], goal: tuple[int, int, int], *,
                        budget: int | None = None, algorithm: str = "auto") -> FloorPathResult:
        """The cheapest chain of cells ``(floor, x, z)`` between two cells (no
        snapping: a blocked end gives ``NO_START`` / ``NO_GOAL``); ``algorithm``
        as in :meth:`find_path`."""
        if algorithm not in ALGORITHMS:
            _check_algorithm(algorithm)
        if budget is not None:
            _check_budget(budget)
        a = self._cell(start, "start")
        b = self._cell(goal, "goal")
        with self._lock:
            res = None
            if budget is None:
                na, nb = self.search.check_cell(a, "start"), self.search.check_cell(b, "goal")
                free = self.building.stacked()[0]
                if free[na] and free[nb]:
                    res = self._portal(a, b, algorithm)
            if res is None:
                res = self.search.path(a, b, budget=budget, dijkstra=algorithm == "dijkstra")
            self._last = res
        return self.result_of(res, None, None, True, False)

    def distance_field(self, sources: ArrayLike) -> NDArray[np.float64]:
        """Cost in straight steps from the nearest source cell ``(floor, x, z)`` to
        every cell, walking away from the sources, shape ``(floors, depth,
        width)``, ``inf`` where unreachable."""
        try:
            src = np.asarray(sources, dtype=np.int64).reshape(-1, 3)
        except (TypeError, ValueError, OverflowError):
            raise QueryError(f"sources must be cells (floor, x, z), got {shown(sources)}") \
                from None
        raw = self.search.field([self._cell(tuple(int(v) for v in c), "sources") for c in src])
        out = raw.astype(np.float64) / self.search.costs.card
        out[raw < 0] = np.inf
        return out

    # ------------------------------------------------------------- internals
    def _portal(self, a: tuple[int, int, int], b: tuple[int, int, int], algorithm: str
                ) -> CellPath | None:
        """The route through link ends (§16.9), or None where the layered search answers."""
        if algorithm in ("layered", "dijkstra"):
            return None
        router = self._router
        if router is None:
            from .portals import PortalRouter

            router = self._router = PortalRouter(self.building, self.search, self.pathfinder)
        if not router.usable:
            return None
        return router.route(a, b, algorithm)

    def _agent(self, agent: Any) -> None:
        if agent is not None:
            check_agent(agent, self.building.agent_radius, "this building")

    def _cell(self, cell: Any, name: str) -> tuple[int, int, int]:
        if type(cell) is tuple and len(cell) == 3 and type(cell[0]) is int \
                and type(cell[1]) is int and type(cell[2]) is int:
            return cell
        try:
            f, x, z = cell
            fi = self.building.floor_index(f, name) if isinstance(f, str) else int(f)
            return (fi, int(x), int(z))
        except (TypeError, ValueError):
            raise QueryError(f"{name} must be a cell (floor, x, z), got {cell!r}") from None

    def _clamped_cell(self, f: int, x: float, z: float) -> tuple[int, int]:
        g = self.building.grid(f)
        cx, cz = g.world_to_cell(x, z)
        return (min(max(cx, 0), g.width - 1), min(max(cz, 0), g.depth - 1))

    def _circles(self, obstacles: Any, ignore: Any = None) -> dict[int, NDArray[np.float64]]:
        if obstacles is None:
            if ignore is not None:
                raise QueryError("ignore= needs obstacles=")
            return {}
        try:
            arr = np.asarray(obstacles, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise QueryError("obstacles on a building are (k, 4) rows (x, z, radius, floor) "
                             f"of numbers, got {shown(obstacles)}") from None
        if arr.ndim == 1 and arr.size == 4:
            arr = arr.reshape(1, 4)
        if arr.size == 0:
            return {}
        if arr.ndim != 2 or arr.shape[1] != 4:
            raise QueryError(f"obstacles on a building are (k, 4) rows (x, z, radius, floor), "
                             f"got shape {arr.shape}")
        keep = np.ones(len(arr), bool)
        if ignore is not None:
            ids = np.atleast_1d(np.asarray(ignore, dtype=np.int64))
            keep[ids[(ids >= 0) & (ids < len(arr))]] = False
        arr = arr[keep]
        circles = as_circles(arr[:, :3])
        fl = arr[:, 3]
        nf = len(self.building.floor_names)
        if np.any((fl != np.floor(fl)) | (fl < 0) | (fl >= nf)):
            i = int(np.flatnonzero((fl != np.floor(fl)) | (fl < 0) | (fl >= nf))[0])
            raise QueryError(f"obstacles[{i}] names floor {fl[i]!r}, expected 0..{nf - 1}")
        out: dict[int, NDArray[np.float64]] = {}
        for f in np.unique(fl.astype(np.int64)):
            out[int(f)] = np.ascontiguousarray(circles[fl == f])
        return out

    def _stamped(self, circles: dict[int, NDArray[np.float64]]) -> NDArray[np.uint8] | None:
        """The free cells with the query's circles blocked (docs/rules.md §7.1), in a
        reused buffer; None without circles."""
        self._stamp_cells = np.zeros(0, np.int64)
        if not circles:
            return None
        free = self.building.stacked()[0]
        if self._free_buf is None or self._free_key != self.building.version \
                or len(self._free_buf) != len(free):
            self._free_buf = free.copy()
            self._free_key = self.building.version
        buf = self._free_buf
        s = self.search
        blocked = []
        for f, cs in circles.items():
            g = self.building.grid(f)
            size = g.cell_size
            for x, z, r in cs:
                x0 = max(0, math.floor((x - r - g.min_x) / size) - 1)
                x1 = min(g.width - 1, math.ceil((x + r - g.min_x) / size) + 1)
                z0 = max(0, math.floor((z - r - g.min_z) / size) - 1)
                z1 = min(g.depth - 1, math.ceil((z + r - g.min_z) / size) + 1)
                if x0 > x1 or z0 > z1:
                    continue
                xs = np.arange(x0, x1 + 1)
                zs = np.arange(z0, z1 + 1)
                cx = g.min_x + (xs + 0.5) * size
                cz = g.min_z + (zs + 0.5) * size
                inside = ((cx[None, :] - x) ** 2 + (cz[:, None] - z) ** 2) <= r * r
                zz, xx = np.nonzero(inside)
                nodes = (f * s.depth + zs[zz]) * s.width + xs[xx]
                nodes = nodes[buf[nodes] == 1]
                buf[nodes] = 0
                blocked.append(nodes)
        self._stamp_cells = np.concatenate(blocked) if blocked else np.zeros(0, np.int64)
        return buf

    def _unstamp(self) -> None:
        if self._free_buf is not None and len(self._stamp_cells):
            self._free_buf[self._stamp_cells] = 1
        self._stamp_cells = np.zeros(0, np.int64)

    def _nearest(self, res: CellPath, scell: tuple[int, int, int],
                 gcell: tuple[int, int, int], gz: float, gx: float) -> CellPath:
        """docs/rules.md §16.7: the expanded cell nearest the goal cell in 3-D."""
        s = self.search
        closed = np.flatnonzero(s.stamp == -s.gen)
        if not len(closed):
            return res
        cells = s.cells_of(closed)
        cs = self.building.cell_size
        ys = self.building.floor_ys
        d = ((cells[:, 1].astype(np.float64) - gcell[1]) * cs) ** 2 + \
            ((cells[:, 2].astype(np.float64) - gcell[2]) * cs) ** 2 + \
            (ys[cells[:, 0]] - ys[gcell[0]]) ** 2
        best = int(np.lexsort((closed, d))[0])
        node = int(closed[best])
        if node == s.node(scell):
            return CellPath(int(Status.UNREACHABLE) if res.status == Status.UNREACHABLE
                            else res.status, expanded=res.expanded)
        path = s.trace(node)
        status = Status.BUDGET_EXHAUSTED if res.status == Status.BUDGET_EXHAUSTED \
            else Status.NEAREST
        return CellPath(int(status), path.cells, path.cost_int, res.expanded, path.links,
                        path.entered)

    def no_path_result(self, status: Status, which: str, f: int,
                       p: tuple[float, float]) -> FloorPathResult:
        """A NO_START / NO_GOAL answer whose reason says where ``p`` lies on floor ``f``."""
        g = self.building.grid(f)
        res = FloorPathResult(status, floor_y=float(self.building.floor_ys[f]))
        bounds = (g.min_x, g.min_z, g.min_x + g.width * g.cell_size,
                  g.min_z + g.depth * g.cell_size)
        explained(res, which, p, bounds, self.snap_radius)
        name = self.building.floor_names[f]
        res.__dict__["_reason"] = f"{res.reason} on floor {name!r}"
        return res

    def result_of(self, res: CellPath, start: tuple[float, float] | None,
                  goal: tuple[float, float] | None, goal_cell_is_own: bool,
                  smooth: bool) -> FloorPathResult:
        """The world answer of a cell answer ``res``: waypoints per floor (smoothed
        per floor with ``smooth``), the first / last waypoint rules for a query from
        ``start`` to ``goal`` (world ``(x, z)``; None for a cell query), the links."""
        status = _STATUS[res.status]
        ys = self.building.floor_ys
        if not len(res.cells):
            return FloorPathResult(status, expanded=res.expanded)
        cells = res.cells
        card = self.search.costs.card
        # split the chain into runs on one floor, cut at each link taken
        cuts = (np.flatnonzero(res.entered[1:] >= 0) + 1).tolist()
        bounds = [0, *cuts, len(cells)]
        pts: list[NDArray[np.float64]] = []
        fls: list[NDArray[np.int32]] = []
        steps: list[LinkStep] = []
        if not smooth:  # every cell's centre: one frame for every floor (§16.2)
            min_x, min_z, cs = self._frame
            w = np.empty((len(cells), 2), np.float64)
            np.multiply(cells[:, 1:] + 0.5, cs, out=w)
            w[:, 0] += min_x
            w[:, 1] += min_z
            pts.append(w)
            fls.append(cells[:, 0])
            links = self.building.links
            for c in cuts:
                k = int(res.entered[c])
                steps.append(LinkStep(links[k].name, links[k].kind, k, c - 1))
            bounds = []
        for j in range(len(bounds) - 1):
            run = cells[bounds[j]:bounds[j + 1]]
            f = int(run[0, 0])
            pf = self.pathfinder(f)
            xz = run[:, 1:]
            kept = pf.smooth_cells(xz) if smooth and len(xz) > 2 else xz
            g = pf.grid
            w = np.column_stack([g.min_x + (kept[:, 0] + 0.5) * g.cell_size,
                                 g.min_z + (kept[:, 1] + 0.5) * g.cell_size])
            if j > 0:
                k = int(res.entered[bounds[j]])
                lk = self.building.links[k]
                steps.append(LinkStep(lk.name, lk.kind, k, sum(len(p) for p in pts) - 1))
            pts.append(w)
            fls.append(np.full(len(w), f, np.int32))
        way = pts[0] if len(pts) == 1 else np.concatenate(pts)
        floors = fls[0] if len(fls) == 1 else np.concatenate(fls)
        link_len = float(sum(self.building.links[s.index].cost for s in steps))
        if start is not None and goal is not None:
            cs = self.building.cell_size
            if status == Status.FOUND and goal_cell_is_own:
                gf = int(cells[-1, 0])
                g = self.building.grid(gf)
                if g.world_to_cell(*goal) == (int(cells[-1, 1]), int(cells[-1, 2])):
                    way[-1] = goal  # §4.3: the exact end point
            trim = FIRST_WAYPOINT_TRIM * cs
            if len(way) > 1 and not (steps and steps[0].at == 0) and \
                    math.hypot(way[0, 0] - start[0], way[0, 1] - start[1]) <= trim:
                way = way[1:]
                floors = floors[1:]
                steps = [LinkStep(s.name, s.kind, s.index, s.at - 1) for s in steps]
        out = FloorPathResult(status, waypoints=way, floors=floors, cells=cells, links=steps,
                              cost=res.cost_int / card, cost_int=res.cost_int,
                              expanded=res.expanded, floor_y=float(ys[floors[0]]),
                              link_length=link_len)
        out.__dict__["_heights"] = ys[floors].astype(np.float64)
        if start is not None:
            out.__dict__["_start"] = start
        return out
