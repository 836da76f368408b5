"""``World``: Pathfinder-style queries on a chunked world (docs/world-queries.md).

>>> import numpy as np
>>> from navkit.grid import NavGrid
>>> walk = np.ones((40, 40), bool); walk[5:35, 20] = False
>>> w = World.from_grid(NavGrid(walk), chunk=16)
>>> r = w.find_path_cells((2, 20), (30, 20), window=(0, 0, 39, 39))
>>> r.status.name, r.cost
('FOUND', 43.6)
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import raycast as _ray
from ..contract import (
    Place,
    RaycastHit,
    check_agent,
    check_radius,
    goal_of,
    world_pairs,
)
from ..costs import CostModel, cost_model
from ..errors import ConfigError, QueryError, shown
from ..grid import NavGrid
from ..query.obstacles import circles_without
from ..query.overlay import as_circles
from ..query.padded import check_budget, world_point
from ..query.pathfinder import FIRST_WAYPOINT_TRIM, SNAP_RADIUS, Pathfinder
from ..query.serial import serialized
from ..recording import as_recorder, options_dict, recorded, world_source
from ..results import (
    PathResult,
    SearchTrace,
    Status,
    explained,
    no_path,
    path_result,
    world_waypoints,
)
from .hierarchy import Hierarchy
from .local import (
    LocalSearch,
    QueryPreset,
    check_window,
    circle_blocks,
    free,
    get_preset,
    reach,
    snap,
    snap_rings,
)

__all__ = ["World", "WorldStats", "SMALL_WORLD_CELLS", "cut_window"]

#: Worlds up to this many cells answer long queries with one whole-world
#: Pathfinder (exact; JPS where it applies) instead of the hierarchy.
SMALL_WORLD_CELLS = 1 << 20
#: Chunk distance (Chebyshev) up to which a long query first tries an exact
#: local search over the chunks around start and goal.
CLOSE_CHUNKS = 1
_STATUS = tuple(Status(i) for i in range(len(Status)))
_FAR = 1 << 30
#: Cells along its longer axis a ray reads from the store at a time (:meth:`World.raycast`).
RAY_PIECE = 2048


def cut_window(window: tuple[int, int, int, int] | None,
               box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """``window`` cut to the inclusive cell box ``box`` (``box`` itself when
    ``window`` is None); QueryError when they do not overlap.

    >>> cut_window((-13, -17, 24, 20), (0, 0, 99, 9))
    (0, 0, 24, 9)
    """
    if window is None:
        return box
    out = (max(window[0], box[0]), max(window[1], box[1]),
           min(window[2], box[2]), min(window[3], box[3]))
    if out[0] > out[2] or out[1] > out[3]:
        raise QueryError(f"the window {tuple(window)} lies outside the bounds {tuple(box)}")
    return out


@dataclass(frozen=True)
class WorldStats:
    """Store statistics plus the query side's counters."""

    store: Any
    queries: int
    local_queries: int
    long_queries: int
    last_chunks_touched: int
    blocks_cached: int
    blocks_built: int
    block_hits: int
    blocks_dropped: int
    graph_entries_cached: int
    graph_entries_built: int
    graph_entries_dropped: int
    last_abstract_expanded: int
    last_algorithm: str
    last_abstract_weight: float = 1.0


class World:
    """Exact, deterministic path queries on a chunk store (a world larger than memory).

    Parameters
    ----------
    store : ChunkStore
        The world's cells (``navkit.world.store.ChunkStore`` or the same interface).
    costs, connectivity, snap_radius :
        As for :class:`~navkit.query.pathfinder.Pathfinder` (docs/rules.md §3-§4).
    record :
        Optional query recorder: ``record.log(kind, start=, goal=, options=,
        obstacles=, result=, seconds=)`` after each query.
    small_world_cells :
        Worlds of at most this many cells answer long queries with a whole-world
        Pathfinder; 0 always uses the hierarchy.

    Thread safety: one object may be shared by threads; its queries and edits take
    turns under its ``lock`` (the block cache, the hierarchy and the search buffers
    are shared state). For parallel queries give each thread its own World on the
    same store file.
    """

    def __init__(self, store: Any, costs: str | CostModel | tuple[int, int] = "seed", *,
                 connectivity: int = 8, snap_radius: float = SNAP_RADIUS, record: Any = None,
                 small_world_cells: int = SMALL_WORLD_CELLS, block_cap_bytes: int = 16 << 20):
        if connectivity not in (4, 8) or isinstance(connectivity, bool):
            raise ConfigError(f"expected 4 or 8, got {connectivity!r}", field="connectivity")
        if (isinstance(snap_radius, bool) or not isinstance(snap_radius, (int, float))
                or not math.isfinite(snap_radius) or snap_radius < 0):
            raise ConfigError(f"expected a finite number >= 0, got {snap_radius!r}",
                              field="snap_radius")
        #: Held by every query and edit (re-entrant; see :mod:`navkit.query.serial`).
        self.lock = threading.RLock()
        self.store = store
        self.costs = cost_model(costs)
        self.connectivity = connectivity
        self.snap_radius = float(snap_radius)
        self.small_world_cells = int(small_world_cells)
        self.min_weight = int(getattr(store, "min_weight", 1))
        card, diag = self.costs.card, self.costs.diag
        if store.width * store.depth * diag * max(1, 65535 if store.weighted else 1) >= 1 << 62:
            raise ConfigError("path costs could overflow int64 on this world; use costs='seed'",
                              field="costs")
        self.local = LocalSearch(store, card, diag, connectivity == 8, self.min_weight,
                                 cap_bytes=block_cap_bytes)
        self.hierarchy = Hierarchy(store, self.local, card, diag, connectivity == 8,
                                   self.min_weight)
        self._cs = float(store.cell_size)
        self._origin = np.array([float(store.min_x), float(store.min_z)])
        self._rings = snap_rings(self.snap_radius, float(store.cell_size))
        self._pf: Pathfinder | None = None
        self._pf_version = -1
        self._queries = self._local_q = self._long_q = 0
        self._last_window: Any = None
        self.last_algorithm = ""
        self._trace: str | None = None  # which search the last query ran (last_search)
        self._ray = np.zeros(3, dtype=np.float64)
        self._described = False
        #: The :class:`~navkit.corpus.QueryRecorder` every query is logged to, or None
        #: (``record=``: a recorder, or a path / text file for a new one this world owns).
        self.record: Any = None
        if record is not None and hasattr(record, "log") and not hasattr(record, "write"):
            self.record = record  # a QueryRecorder, or any object with log(kind, **fields)
        elif record is not None:
            self.record = as_recorder(record, None, costs=self.costs,
                                      connectivity=connectivity, kind="world")

    # ---------------------------------------------------------- constructors
    @classmethod
    def open(cls, path: str, *, cap_bytes: int = 64 << 20, **kw: Any) -> World:
        """A world on a baked chunk file (``ChunkStore.open``)."""
        from .store import ChunkStore
        return cls(ChunkStore.open(path, cap_bytes=cap_bytes), **kw)

    @classmethod
    def from_grid(cls, grid: NavGrid, *, chunk: int = 64, **kw: Any) -> World:
        """A world on an in-memory copy of ``grid`` (``ChunkStore.from_grid``)."""
        from .store import ChunkStore
        return cls(ChunkStore.from_grid(grid, chunk=chunk), **kw)

    # ---------------------------------------------------------------- checks
    def _cell(self, value: Any, name: str) -> tuple[int, int]:
        st = self.store
        if type(value) is tuple and len(value) == 2:
            x, z = value
            if type(x) is int and type(z) is int and 0 <= x < st.width and 0 <= z < st.depth:
                return value
        arr = np.asarray(value)
        if arr.shape != (2,) or arr.dtype == np.bool_ or not (
                np.issubdtype(arr.dtype, np.integer) or (
                    np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr))
                    and np.all(arr == np.round(arr)))):
            raise QueryError(f"{name} must be an (x, z) pair of integers, got {value!r}")
        x, z = int(arr[0]), int(arr[1])
        if not (0 <= x < st.width and 0 <= z < st.depth):
            raise QueryError(f"{name} cell ({x}, {z}) is outside the {st.width}x{st.depth} world")
        return (x, z)

    def _clip(self, window: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        st = self.store
        x0, z0, x1, z1 = window
        return (max(x0, 0), max(z0, 0), min(x1, st.width - 1), min(z1, st.depth - 1))

    def _hmul(self, algorithm: str) -> int:
        if algorithm == "dijkstra":
            return 0
        if algorithm in ("astar", "auto"):
            return self.min_weight
        if algorithm == "jps":
            if self.store.weighted or self.connectivity != 8:
                raise QueryError("JPS needs an unweighted 8-connected world; use 'astar' or 'auto'")
            return self.min_weight
        raise QueryError(f"algorithm must be one of 'astar', 'dijkstra', 'jps', 'auto', "
                         f"got {algorithm!r}")

    # ------------------------------------------------------------- queries
    @serialized
    def find_path_cells(self, start: ArrayLike, goal: ArrayLike, *, smooth: bool = False,
                        nearest: bool = False, budget: int | None = None,
                        window: Sequence[int] | None = None, algorithm: str = "auto",
                        obstacles: ArrayLike | None = None,
                        preset: str | QueryPreset | None = None,
                        bounds: Sequence[int] | None = None, agent: Any = None) -> PathResult:
        """Path between two world cells, as :meth:`Pathfinder.find_path_cells`.

        With ``window`` (or ``preset``) this is a bounded local search
        (docs/rules.md §3.6) that reads only the chunks of the window; without,
        a long query (docs/world-queries.md). ``bounds``: an inclusive cell box
        ``(x0, z0, x1, z1)`` the search never leaves (the window is cut to it;
        without a window it is the window)."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this World")
        s = self._cell(start, "start")
        g = self._cell(goal, "goal")
        pre = get_preset(preset)
        bb = budget if budget is not None or pre is None else pre.budget
        b = bb if type(bb) is int and bb >= 1 else check_budget(bb)
        win = check_window(window) if window is not None else (
            pre.window_for(s, g) if pre is not None else None)
        if bounds is not None:
            win = cut_window(win, check_window(bounds))
        circles = None if obstacles is None else as_circles(obstacles)
        hmul = self._hmul(algorithm)
        if self.record is None:
            return self._cells(s, g, g, nearest, b, win, circles, hmul, smooth, algorithm)
        return self._recorded(
            "find_path_cells",
            lambda: self._cells(s, g, g, nearest, b, win, circles, hmul, smooth, algorithm),
            s, g, circles, lambda: self._options(algorithm, smooth, nearest, b, win))

    def _cells(self, s: tuple[int, int], g: tuple[int, int], bgoal: tuple[int, int],
               nearest: bool, budget: int, win: tuple[int, int, int, int] | None,
               circles: NDArray[np.float64] | None, hmul: int, smooth: bool,
               algorithm: str, border: bool = False) -> PathResult:
        st = self.store
        fy = float(st.floor_y)
        self._queries += 1
        self._trace = None
        if win is not None:  # read the endpoints from the window's block when it has them
            cw = self._clip(win)
            if cw[0] <= cw[2] and cw[1] <= cw[3]:
                blk = self.local.block(*cw)
                vs, vg = blk.value(*s), blk.value(*g)
            else:
                vs = vg = None
            if (st.cell(*s) if vs is None else vs) == 0 or (
                    circles is not None and circle_blocks(st, circles, *s)):
                return no_path(Status.NO_START, start_cell=s, floor_y=fy)
            if not border and not nearest and (
                    (st.cell(*g) if vg is None else vg) == 0
                    or (circles is not None and circle_blocks(st, circles, *g))):
                return no_path(Status.NO_GOAL, start_cell=s, floor_y=fy)
            self._local_q += 1
            self.last_algorithm = "local-astar" if hmul else "local-dijkstra"
            return self._local(s, g, bgoal, nearest, budget, cw, circles, hmul,
                               smooth, windowed=True)
        if not free(st, circles, *s):
            return no_path(Status.NO_START, start_cell=s, floor_y=fy)
        if not border and not free(st, circles, *g) and not nearest:
            return no_path(Status.NO_GOAL, start_cell=s, floor_y=fy)
        small = st.width * st.depth <= self.small_world_cells
        if win is None and small:
            self._long_q += 1
            return self._whole(s, g, bgoal, nearest, budget, circles, smooth, algorithm, border)
        self._long_q += 1
        return self._long(s, g, bgoal, nearest, budget, circles, smooth)

    def _local(self, s: tuple[int, int], g: tuple[int, int], bgoal: tuple[int, int],
               nearest: bool, budget: int, win: tuple[int, int, int, int],
               circles: NDArray[np.float64] | None, hmul: int, smooth: bool,
               windowed: bool) -> PathResult:
        loc = self.local
        raw = loc.run(s, g, bgoal, win, budget, circles, hmul=hmul)
        self._trace = "local"
        code = _STATUS[raw.status]
        if code == Status.WINDOW_EXHAUSTED and not windowed:
            code = Status.UNREACHABLE
        fy = float(self.store.floor_y)
        if code == Status.FOUND:
            assert raw.cells is not None
            return self._answer(code, raw.cells, raw.cost, raw.expanded, raw.generated,
                                circles, smooth)
        slot, cost = loc.best
        if nearest and slot != loc.start_slot:
            cells = loc.trace(slot)
            if code in (Status.UNREACHABLE, Status.WINDOW_EXHAUSTED):
                code = Status.NEAREST
            return self._answer(code, cells, cost, raw.expanded, raw.generated, circles, smooth)
        return no_path(code, expanded=raw.expanded, generated=raw.generated, start_cell=s,
                       floor_y=fy)

    def _answer(self, code: Status, cells: NDArray[np.int32], cost: int, expanded: int,
                generated: int, circles: NDArray[np.float64] | None, smooth: bool) -> PathResult:
        st = self.store
        kept = self._smooth(cells, circles) if smooth and len(cells) > 2 else cells
        # min + (x + 0.5) * cs, bit for bit (docs/rules.md §1.3)
        pts = np.multiply(kept + 0.5, self._cs, dtype=np.float64)
        pts += self._origin
        cells.setflags(write=False)
        pts.setflags(write=False)
        s = (int(cells[0, 0]), int(cells[0, 1]))
        e = (int(cells[-1, 0]), int(cells[-1, 1]))
        return path_result(code, cells, pts, int(cost), self.costs.card, int(expanded),
                           int(generated), s, e, float(st.floor_y))

    def _smooth(self, cells: NDArray[np.int32], circles: NDArray[np.float64] | None
                ) -> NDArray[np.int32]:
        """String pulling (docs/rules.md §5) with a Pathfinder on the path's box."""
        st = self.store
        x0, z0 = int(cells[:, 0].min()), int(cells[:, 1].min())
        x1, z1 = int(cells[:, 0].max()), int(cells[:, 1].max())
        v = st.region(x0, z0, x1, z1)
        cs = float(st.cell_size)
        grid = NavGrid(v != 0, weights=np.maximum(v, 1) if st.weighted else None,
                       cell_size=cs, min_x=float(st.min_x) + x0 * cs,
                       min_z=float(st.min_z) + z0 * cs)
        pf = Pathfinder(grid, self.costs, connectivity=self.connectivity)
        local = cells.astype(np.int64) - np.array([x0, z0])
        if circles is not None and len(circles):
            with pf.lock, pf.engine.overlay.using(circles):
                nodes = pf.engine.padded.nodes(local).astype(np.int32)
                kept = pf.engine.padded.nodes_to_cells(pf.engine.smoother.pull(
                    nodes, np.empty(len(nodes), dtype=np.int32)))
        else:
            kept = pf.smooth_cells(local)
        kept = kept.astype(np.int32)
        kept[:, 0] += x0
        kept[:, 1] += z0
        return kept

    def _whole_pf(self) -> Pathfinder:
        st = self.store
        if self._pf is None or self._pf_version != st.version:
            self._pf = Pathfinder(st.to_grid(), self.costs, connectivity=self.connectivity)
            self._pf_version = st.version
        return self._pf

    def _whole(self, s: tuple[int, int], g: tuple[int, int], bgoal: tuple[int, int],
               nearest: bool, budget: int, circles: NDArray[np.float64] | None, smooth: bool,
               algorithm: str, border: bool) -> PathResult:
        """A long query on a small world: one whole-world Pathfinder (exact)."""
        pf = self._whole_pf()
        self._trace = "whole"
        if border:
            self.last_algorithm = "whole-astar"
            with pf.lock, pf.engine.overlay.using(circles):
                return pf.engine.astar.border_goal_query(s, bgoal, smooth=smooth, budget=budget,
                                                  window=None)
        self.last_algorithm = "whole-" + pf.resolve_algorithm(algorithm)
        return pf.find_path_cells(s, g, smooth=smooth, nearest=nearest, budget=budget,
                                  algorithm=algorithm, obstacles=circles)  # type: ignore[arg-type]

    def _long(self, s: tuple[int, int], g: tuple[int, int], bgoal: tuple[int, int],
              nearest: bool, budget: int,
              circles: NDArray[np.float64] | None, smooth: bool) -> PathResult:
        """A long query on a large world: exact local search when start and goal
        are close, else the hierarchy (docs/world-queries.md)."""
        st = self.store
        c = st.chunk
        sc, gc = (s[0] // c, s[1] // c), (g[0] // c, g[1] // c)
        fy = float(st.floor_y)
        if max(abs(sc[0] - gc[0]), abs(sc[1] - gc[1])) <= CLOSE_CHUNKS:
            box = (max(0, (min(sc[0], gc[0]) - 1) * c), max(0, (min(sc[1], gc[1]) - 1) * c),
                   min(st.width, (max(sc[0], gc[0]) + 2) * c) - 1,
                   min(st.depth, (max(sc[1], gc[1]) + 2) * c) - 1)
            res = self._local(s, g, g, False, budget, box, circles, self.min_weight, smooth,
                              windowed=False)
            if res.status == Status.FOUND:
                self.last_algorithm = "local-astar"
                return res
        self.last_algorithm = "hierarchy"
        self._trace = None  # (the hierarchy's refinement leaves no one search to show)
        h = self.hierarchy
        if free(st, circles, *g):
            ab = h.abstract_path(s, g)
            if ab is not None:
                ref = h.refine(ab[0], circles)
                if ref is not None:
                    cells, cost = ref
                    return self._answer(Status.FOUND, cells, cost, h.last_expanded, 0, circles,
                                        smooth)
        if nearest:  # the nearest reachable cell among the 3 x 3 chunks around the start
            box = (max(0, (sc[0] - 1) * c), max(0, (sc[1] - 1) * c),
                   min(st.width, (sc[0] + 2) * c) - 1, min(st.depth, (sc[1] + 2) * c) - 1)
            self.last_algorithm = "hierarchy+local-nearest"
            return self._local(s, g, bgoal, True, budget, box, circles, self.min_weight, smooth,
                               windowed=False)
        return no_path(Status.UNREACHABLE, expanded=h.last_expanded, start_cell=s, floor_y=fy)

    # ------------------------------------------------------- world queries
    @serialized
    def find_path(self, start: ArrayLike, goal: ArrayLike | None = None, *,
                  smooth: bool = True, nearest: bool = False, budget: int | None = None,
                  window: Sequence[int] | None = None, obstacles: Any = None,
                  algorithm: str = "auto", preset: str | QueryPreset | None = None,
                  bounds: Sequence[int] | None = None, ignore: Any = None,
                  agent: Any = None, **old: Any) -> PathResult:
        """Path between two world points in metres, as :meth:`Pathfinder.find_path`
        (snapping docs/rules.md §4.1, smoothing §5, waypoint rules §4.2-§4.3).
        A ``preset`` window is centred on the snapped cells; ``bounds`` as in
        :meth:`find_path_cells` (the window recorded is the cut one). ``obstacles``:
        circles ``(k, 3)`` or an ObstacleSnapshot, less the ids in ``ignore``
        (docs/rules.md §7.6); ``agent`` as in the navigation contract; ``end=`` is
        the old name of ``goal``."""
        goal = self._goal(goal, old, "find_path", agent)
        circles = obstacles if ignore is None and obstacles is None else \
            circles_without(obstacles, ignore)
        return self._world_logged("find_path", start, goal, smooth, nearest, budget, window,
                                  circles, algorithm, preset, bounds)

    def _goal(self, goal: Any, old: dict[str, Any], owner: str, agent: Any) -> Any:
        goal = goal_of(goal, old, owner, stacklevel=7)
        if agent is not None:
            check_agent(agent, self.agent_radius, "this World")
        return goal

    def _world_logged(self, kind: str, start: ArrayLike, end: ArrayLike, smooth: bool,
                      nearest: bool, budget: int | None, window: Sequence[int] | None,
                      obstacles: ArrayLike | None, algorithm: str,
                      preset: str | QueryPreset | None,
                      bounds: Sequence[int] | None = None) -> PathResult:
        if self.record is None:
            return self._world(start, end, smooth, nearest, budget, window, obstacles,
                               algorithm, preset, bounds)
        pre = get_preset(preset)
        b = budget if budget is not None or pre is None else pre.budget
        return self._recorded(
            kind, lambda: self._world(start, end, smooth, nearest, budget, window, obstacles,
                                      algorithm, preset, bounds),
            world_point(start, "start"), world_point(end, "goal"), obstacles,
            lambda: self._options(algorithm, smooth, nearest, b, self._last_window))

    @serialized
    def find_path_to_nearest(self, start: ArrayLike, goal: ArrayLike | None = None, *,
                             smooth: bool = True, budget: int | None = None,
                             window: Sequence[int] | None = None, obstacles: Any = None,
                             algorithm: str = "auto", preset: str | QueryPreset | None = None,
                             bounds: Sequence[int] | None = None, ignore: Any = None,
                             agent: Any = None, **old: Any) -> PathResult:
        """:meth:`find_path` with ``nearest=True`` (docs/rules.md §6)."""
        goal = self._goal(goal, old, "find_path_to_nearest", agent)
        circles = obstacles if ignore is None and obstacles is None else \
            circles_without(obstacles, ignore)
        return self._world_logged("find_path_to_nearest", start, goal, smooth, True, budget,
                                  window, circles, algorithm, preset, bounds)

    def cell_of(self, w: tuple[float, float]) -> tuple[int, int]:
        st = self.store
        fx = (w[0] - float(st.min_x)) / float(st.cell_size)
        fz = (w[1] - float(st.min_z)) / float(st.cell_size)
        return (max(-_FAR, min(_FAR, math.floor(fx))) if math.isfinite(fx) else _FAR,
                max(-_FAR, min(_FAR, math.floor(fz))) if math.isfinite(fz) else _FAR)

    @serialized
    def snap(self, point: ArrayLike, *, obstacles: ArrayLike | None = None
             ) -> tuple[int, int] | None:
        """The free cell a world point snaps to (docs/rules.md §4.1), or None."""
        wx, wz = world_point(point, "point")
        circles = None if obstacles is None else as_circles(obstacles)
        return snap(self.store, circles, *self.cell_of((wx, wz)), self._rings)

    def _world(self, start: ArrayLike, end: ArrayLike, smooth: bool, nearest: bool,
               budget: int | None, window: Sequence[int] | None, obstacles: ArrayLike | None,
               algorithm: str, preset: str | QueryPreset | None,
               bounds: Sequence[int] | None = None) -> PathResult:
        st = self.store
        fy = float(st.floor_y)
        sw, ew = world_point(start, "start"), world_point(end, "end")
        self._last_window = None if window is None else tuple(window)
        pre = get_preset(preset)
        b = check_budget(budget if budget is not None or pre is None else pre.budget)
        win = check_window(window) if window is not None else None
        box = None if bounds is None else check_window(bounds)
        circles = None if obstacles is None else as_circles(obstacles)
        hmul = self._hmul(algorithm)
        s = snap(st, circles, *self.cell_of(sw), self._rings)
        if s is None:
            return explained(no_path(Status.NO_START, floor_y=fy), "start", sw, self._bounds(),
                             self.snap_radius)
        g = snap(st, circles, *self.cell_of(ew), self._rings)
        border = False
        bgoal = g
        if g is None:
            if not nearest:
                return explained(no_path(Status.NO_GOAL, start_cell=s, floor_y=fy), "goal", ew,
                                 self._bounds(), self.snap_radius)
            g = self.cell_of(ew)
            if max(abs(g[0]), abs(g[1])) >= _FAR:
                raise QueryError(f"end {ew} lies more than {_FAR} cells outside the world")
            bgoal = g
            if not (0 <= g[0] < st.width and 0 <= g[1] < st.depth):
                border = True
                g = (min(max(g[0], -1), st.width), min(max(g[1], -1), st.depth))
        assert bgoal is not None
        if win is None and pre is not None:
            win = pre.window_for(s, bgoal)
        if box is not None:
            win = cut_window(win, box)
        self._last_window = win
        res = self._cells(s, g, bgoal, nearest, b, win, circles, hmul, smooth, algorithm,
                          border=border)
        return world_waypoints(res, sw, ew, self.cell_of(ew),
                               FIRST_WAYPOINT_TRIM * float(st.cell_size))

    # ------------------------------------------------- the contract's points
    @property
    def version(self) -> int:
        """Edits of the store that changed cells (``ChunkStore.version``)."""
        return int(self.store.version)

    @property
    def cell_size(self) -> float:
        """The world's cell size, metres."""
        return float(self.store.cell_size)

    @property
    def agent_radius(self) -> float:
        """The agent radius, metres, the world's cells were built for (a baked file's
        ``agent_radius``; 0 when the store does not say)."""
        meta = getattr(self.store, "meta", None) or {}
        v = meta.get("agent_radius", 0.0) if isinstance(meta, dict) else 0.0
        try:
            return float(v or 0.0)
        except (TypeError, ValueError):
            return 0.0

    #: The scene's ``navigationMode`` for a simulation on this backend.
    navigation_mode = "world"

    @property
    def shape(self) -> tuple[int, int]:
        """``(depth, width)`` in cells, as ``NavGrid.shape``."""
        return (int(self.store.depth), int(self.store.width))

    def _bounds(self) -> tuple[float, float, float, float]:
        """``(min_x, min_z, max_x, max_z)`` of the world, metres."""
        st = self.store
        x0, z0 = float(st.min_x), float(st.min_z)
        return (x0, z0, x0 + st.width * self._cs, z0 + st.depth * self._cs)

    def _own_cell(self, p: tuple[float, float]) -> tuple[int, int] | None:
        st = self.store
        cx, cz = self.cell_of(p)
        return (cx, cz) if 0 <= cx < st.width and 0 <= cz < st.depth else None

    def _centre(self, cell: tuple[int, int]) -> tuple[float, float]:
        cs = self._cs
        return (float(self._origin[0] + (cell[0] + 0.5) * cs),
                float(self._origin[1] + (cell[1] + 0.5) * cs))

    @serialized
    def place(self, point: ArrayLike, *, obstacles: Any = None, agent: Any = None
              ) -> Place | None:
        """Where a query from ``point`` starts: its snap cell (docs/rules.md §4.1),
        the point itself when it lies in that cell (else the cell's centre);
        ``region`` -1 (a world larger than memory keeps no global labels)."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this World")
        p = world_point(point, "point")
        circles = None if obstacles is None else as_circles(obstacles)
        cell = snap(self.store, circles, *self.cell_of(p), self._rings)
        if cell is None:
            return None
        pt = p if self._own_cell(p) == cell else self._centre(cell)
        return Place((float(pt[0]), float(pt[1])), region=-1, cell=cell,
                     y=float(self.store.floor_y))

    @serialized
    def is_walkable(self, point: ArrayLike, *, agent: Any = None) -> bool:
        """True when world point ``point`` lies on a walkable world cell."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this World")
        c = self._own_cell(world_point(point, "point"))
        return c is not None and self.store.cell(*c) != 0

    @serialized
    def nearest_point(self, point: ArrayLike, radius: float | None = None, *,
                      agent: Any = None) -> tuple[float, float] | None:
        """``point`` when its cell is walkable, else the centre of the cell it snaps to
        within ``radius`` metres (default: the snap radius), or None."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this World")
        p = world_point(point, "point")
        r = self.snap_radius if radius is None else check_radius(radius)
        c = self._own_cell(p)
        if c is not None and self.store.cell(*c) != 0:
            return p
        cell = snap(self.store, None, *self.cell_of(p), snap_rings(r, self._cs))
        return None if cell is None else self._centre(cell)

    @serialized
    def raycast(self, a: ArrayLike, b: ArrayLike, *, agent: Any = None) -> RaycastHit:
        """Walk the segment ``a -> b`` over the world's walkable cells: the first
        blocked cell it enters stops it (docs/rules.md §15.5); it reads the store
        :data:`RAY_PIECE` cells at a time. ``a`` must lie on a walkable cell."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this World")
        pa, pb = world_point(a, "a"), world_point(b, "b")
        if self._own_cell(pa) is None or not self.is_walkable(pa):
            raise QueryError(f"a = {shown(a)} is not on a walkable cell")
        st = self.store
        cs = self._cs
        ox, oz = float(self._origin[0]), float(self._origin[1])
        span = max(abs(pb[0] - pa[0]), abs(pb[1] - pa[1])) / cs
        pieces = max(1, math.ceil(span / RAY_PIECE))
        t0 = 0.0
        out = self._ray
        for k in range(pieces):
            t1 = 1.0 if k == pieces - 1 else (k + 1) / pieces
            p0 = (pa[0] + t0 * (pb[0] - pa[0]), pa[1] + t0 * (pb[1] - pa[1]))
            p1 = (pa[0] + t1 * (pb[0] - pa[0]), pa[1] + t1 * (pb[1] - pa[1]))
            c0, c1 = self.cell_of(p0), self.cell_of(p1)
            x0 = max(0, min(c0[0], c1[0]) - 1)
            z0 = max(0, min(c0[1], c1[1]) - 1)
            x1 = min(st.width - 1, max(c0[0], c1[0]) + 1)
            z1 = min(st.depth - 1, max(c0[1], c1[1]) + 1)
            cells = np.zeros((z1 - z0 + 3, x1 - x0 + 3), dtype=np.uint8)
            cells[1:-1, 1:-1] = st.region(x0, z0, x1, z1) != 0
            hit = _ray.grid_raycast(cells.ravel(), np.int64(x1 - x0 + 3),
                                    np.int64(z1 - z0 + 3), ox + x0 * cs, oz + z0 * cs, cs,
                                    p0[0], p0[1], p1[0], p1[1], out)
            cell = (int(out[1]) - 1 + x0, int(out[2]) - 1 + z0)
            if hit:
                f = t0 + float(out[0]) * (t1 - t0)
                pt = (pa[0] + f * (pb[0] - pa[0]), pa[1] + f * (pb[1] - pa[1]))
                return RaycastHit(True, f, (float(pt[0]), float(pt[1])), -1, cell)
            t0 = t1
        return RaycastHit(False, 1.0, (float(pb[0]), float(pb[1])), -1, cell)

    def find_paths(self, starts: ArrayLike, goals: ArrayLike, *, nearest: bool = False,
                   budget: int | None = None, algorithm: str = "auto", obstacles: Any = None,
                   smooth: bool = True, preset: str | QueryPreset | None = None,
                   agent: Any = None) -> list[PathResult]:
        """:meth:`find_path` for each pair ``starts[i] -> goals[i]`` (world metres,
        ``(n, 2)`` or ``(n, 3)``), in order."""
        if agent is not None:
            check_agent(agent, self.agent_radius, "this World")
        s, g = world_pairs(starts, goals)
        return [self.find_path(s[i], g[i], nearest=nearest, budget=budget, algorithm=algorithm,
                               obstacles=obstacles, smooth=smooth, preset=preset)
                for i in range(len(s))]

    @serialized
    def last_search(self) -> SearchTrace | None:
        """The cells the last query's search closed and their integer costs: the
        windowed or local search's, or the whole-world Pathfinder's; None before any
        query, after one answered without a search, or through the hierarchy."""
        if self._trace == "whole" and self._pf is not None:
            return self._pf.last_search()
        if self._trace == "local":
            cells, g = self.local.closed()
            return SearchTrace(self._queries, cells, g)
        return None

    # ------------------------------------------------ what a simulation reads
    @serialized
    def raster(self, cell_size: float | None = None,
               region: tuple[int, int, int, int] | None = None) -> NavGrid:
        """The world's cells in the inclusive box ``region`` ``(x0, z0, x1, z1)``
        (default: the whole world) as a walkable grid with world geometry (read
        through the store's chunks). ``cell_size`` must be the world's."""
        st = self.store
        if cell_size is not None and abs(float(cell_size) - self._cs) > 1e-12:
            raise ConfigError(f"a world's walls are its cells ({self._cs} m), got "
                              f"{shown(cell_size)}", field="wall_cell_size")
        x0, z0, x1, z1 = (0, 0, st.width - 1, st.depth - 1) if region is None else region
        walk = np.ascontiguousarray(st.region(x0, z0, x1, z1) != 0)
        return NavGrid(walk, cell_size=self._cs, min_x=float(st.min_x) + x0 * self._cs,
                       min_z=float(st.min_z) + z0 * self._cs, floor_y=float(st.floor_y),
                       agent_radius=self.agent_radius, name=str(getattr(st, "name", "")))

    def scene_source(self) -> tuple[str, Any]:
        """Refused: scene files reference grids, levels and meshes, not worlds."""
        raise ConfigError("a location on a World cannot be saved: scene files reference "
                          "grids, levels and meshes, and a world may not fit in one; keep "
                          "the world file and rebuild the location", field="navigation")

    def set_area_available(self, name: str, available: bool) -> bool:
        """Refused: a world has no named areas (edit cells with :meth:`set_cells`)."""
        raise ConfigError("a world has no named areas; edit cells with "
                          "set_cells(cells, values)", field="navigation")

    def add_obstacle(self, name: str, polygon: Any) -> None:
        """Refused: a world takes no obstacle polygons (block cells with :meth:`set_cells`)."""
        raise ConfigError("a world takes no obstacle polygons; block cells with "
                          "set_cells(cells, 0)", field="navigation")

    def remove_obstacle(self, name: str) -> None:
        """Refused: a world has no obstacle polygons."""
        raise ConfigError("a world has no obstacle polygons", field="navigation")

    def leg_goal(self, start: tuple[float, float], goal: tuple[float, float],
                 preset: QueryPreset | None) -> tuple[float, float]:
        """The point a bounded plan (``preset``) from ``start`` aims at toward ``goal``
        (docs/rules.md §14.5): ``goal`` itself when its cell is at most
        :func:`~navkit.world.local.reach` cells (Chebyshev) from the start cell, else
        the point that many cells along the straight line to it (so the preset's
        window holds both ends). Without a preset: ``goal``."""
        if preset is None:
            return goal
        n = reach(preset)
        sc, ec = self.cell_of(start), self.cell_of(goal)
        far = max(abs(ec[0] - sc[0]), abs(ec[1] - sc[1]))
        if far <= n:
            return goal
        dx, dz = goal[0] - start[0], goal[1] - start[1]
        m = max(abs(dx), abs(dz))
        if not m > 0:
            return goal
        t = n * self._cs / m
        return (start[0] + dx * t, start[1] + dz * t)

    def is_leg(self, start: tuple[float, float], goal: tuple[float, float], res: Any,
               preset: QueryPreset | None) -> bool:
        """Whether partial plan ``res`` (from ``start`` toward ``goal``) is a bounded
        leg to continue from its end (docs/rules.md §14.5): there is a preset, the goal
        cell is more than :func:`~navkit.world.local.reach` cells (Chebyshev) from the
        start cell, so the plan aimed short, and its end cell is nearer (Chebyshev) to
        the goal cell than the start cell (each leg gains a cell or more)."""
        end_cell = getattr(res, "end_cell", None)
        if preset is None or end_cell is None or not res.has_path:
            return False
        sc, ec = self.cell_of(start), self.cell_of(goal)
        far = max(abs(ec[0] - sc[0]), abs(ec[1] - sc[1]))
        left = max(abs(ec[0] - int(end_cell[0])), abs(ec[1] - int(end_cell[1])))
        return far > reach(preset) and left < far

    # ---------------------------------------------------------------- edits
    @serialized
    def set_cells(self, cells: ArrayLike, values: ArrayLike) -> list[tuple[int, int]]:
        """Write cell values (0 blocked, ``w >= 1`` walkable with weight ``w``)
        through the store; drops only the touched chunks' cached blocks and
        abstract-graph entries (and their neighbours' shared borders)."""
        touched = self.store.set_cells(cells, values)
        self.local.invalidate(touched)
        self.hierarchy.invalidate(touched)
        mw = int(getattr(self.store, "min_weight", self.min_weight))
        if mw != self.min_weight:  # the heuristic scale changed: every cache is stale
            self.min_weight = mw
            self.local.hmul = mw
            self.hierarchy.hmul = mw
        return touched

    @serialized
    def set_walkable(self, cells: ArrayLike, value: bool | ArrayLike) -> list[tuple[int, int]]:
        """Make cells walkable (weight 1) or blocked."""
        v = np.asarray(value)
        return self.set_cells(cells, np.where(v.astype(bool), 1, 0).astype(np.int64))

    # ---------------------------------------------------------------- misc
    def stats(self) -> WorldStats:
        loc, h = self.local, self.hierarchy
        return WorldStats(self.store.stats(), self._queries, self._local_q, self._long_q,
                          loc.last_chunks, loc.cached_blocks, loc.blocks_built, loc.block_hits,
                          loc.blocks_dropped, h.cached_entries, h.entries_built,
                          h.entries_dropped, h.last_expanded, self.last_algorithm,
                          h.last_weight)

    def _recorded(self, kind: str, run: Any, start: Any, goal: Any, obstacles: Any,
                  options: Any) -> PathResult:
        """``run()``, timed and logged to :attr:`record` through
        :func:`navkit.recording.recorded`. The first line fills in the header's
        source (:func:`navkit.recording.world_source`: the world file or source, its
        fingerprint, the hierarchy's settings); lines after an edit carry
        ``fingerprint@vN`` (N: the store's version), so replay skips them."""
        st = self.store
        if not self._described:
            describe = getattr(self.record, "describe", None)
            if describe is not None:
                describe(source=world_source(st, self.world_options()), costs=self.costs,
                         connectivity=self.connectivity)
            self._described = True
        circles = None if obstacles is None else np.asarray(obstacles, dtype=np.float64)
        return recorded(
            self.record, kind, run, start=start, goal=goal, obstacles=circles, options=options,
            fingerprint=lambda: None if not st.version else f"{st.fingerprint}@v{st.version}")

    def _options(self, algorithm: str, smooth: bool, nearest: bool, budget: Any,
                 window: Any) -> dict[str, Any]:
        """The effective options of a corpus line (a preset's window and budget spelled out)."""
        return options_dict(self.costs, self.connectivity, algorithm=algorithm, smooth=smooth,
                            nearest=nearest, budget=budget, window=window,
                            snap_radius=self.snap_radius)

    def world_options(self) -> dict[str, int]:
        """The settings, besides costs, connectivity and snap radius, that a
        query's answer depends on (a corpus header keeps them for replay):
        ``small_world_cells`` and the hierarchy's ``spacing``, ``open_spacing``,
        ``refine_chunks``, ``attempt_expansions``."""
        h = self.hierarchy
        return {"small_world_cells": int(self.small_world_cells), "spacing": int(h.spacing),
                "open_spacing": int(h.open_spacing), "refine_chunks": int(h.refine_chunks),
                "attempt_expansions": int(h.attempt_expansions)}

    def configure(self, options: dict[str, Any]) -> None:
        """Apply :meth:`world_options` values (unknown keys: ConfigError)."""
        known = self.world_options()
        for key, v in options.items():
            if key not in known:
                raise ConfigError(f"unknown world option {key!r}", field=key)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ConfigError(f"expected an int >= 0, got {v!r}", field=key)
            if key == "small_world_cells":
                self.small_world_cells = v
            elif key in ("refine_chunks", "attempt_expansions"):
                setattr(self.hierarchy, key, v)
            elif getattr(self.hierarchy, key) != v:
                setattr(self.hierarchy, key, v)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        st = self.store
        return (f"World({st.width}x{st.depth} cells, chunk {st.chunk}, "
                f"costs={self.costs.name}, connectivity={self.connectivity})")


def warm_up_world() -> None:
    """Compile (or load) the world query kernels on a tiny world: windowed A*
    and Dijkstra with and without obstacle circles, a traced path, the
    hierarchy's chunk kernel and abstract A* (``navkit warmup world``)."""
    walk = np.ones((40, 40), dtype=bool)
    walk[5:35, 20] = False
    w = World.from_grid(NavGrid(walk), chunk=16, small_world_cells=0)
    w.find_path_cells((2, 20), (30, 20), window=(0, 0, 39, 39))
    w.find_path_cells((2, 20), (30, 20), window=(0, 0, 39, 39), algorithm="dijkstra",
                      obstacles=[[10.5, 10.5, 2.0]], nearest=True)
    w.find_path((2.5, 20.5), (30.5, 20.5))
    far = np.ones((16, 80), dtype=bool)
    far[2:14, 24] = False  # one mixed chunk between uniform ones: the long-query path
    World.from_grid(NavGrid(far), chunk=16, small_world_cells=0).find_path_cells((1, 8), (78, 8))
