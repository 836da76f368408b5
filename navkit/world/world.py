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
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..costs import CostModel, cost_model
from ..errors import ConfigError, QueryError
from ..grid import NavGrid
from ..query.overlay import as_circles
from ..query.padded import check_budget, world_point
from ..query.pathfinder import FIRST_WAYPOINT_TRIM, SNAP_RADIUS, Pathfinder
from ..results import PathResult, Status, no_path, path_result
from .hierarchy import Hierarchy
from .local import (
    LocalSearch,
    QueryPreset,
    check_window,
    circle_blocks,
    free,
    get_preset,
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
        self._described = False
        #: The :class:`~navkit.corpus.QueryRecorder` every query is logged to, or None
        #: (``record=``: a recorder, or a path / text file for a new one this world owns).
        self.record: Any = None
        if record is not None and hasattr(record, "log") and not hasattr(record, "write"):
            self.record = record  # a QueryRecorder, or any object with log(kind, **fields)
        elif record is not None:
            from ..corpus.record import as_recorder

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
    def find_path_cells(self, start: ArrayLike, goal: ArrayLike, *, smooth: bool = False,
                        nearest: bool = False, budget: int | None = None,
                        window: Sequence[int] | None = None, algorithm: str = "auto",
                        obstacles: ArrayLike | None = None,
                        preset: str | QueryPreset | None = None,
                        bounds: Sequence[int] | None = None) -> PathResult:
        """Path between two world cells, as :meth:`Pathfinder.find_path_cells`.

        With ``window`` (or ``preset``) this is a bounded local search
        (docs/rules.md §3.6) that reads only the chunks of the window; without,
        a long query (docs/world-queries.md). ``bounds``: an inclusive cell box
        ``(x0, z0, x1, z1)`` the search never leaves (the window is cut to it;
        without a window it is the window)."""
        t0 = time.perf_counter()
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
        res = self._cells(s, g, g, nearest, b, win, circles, hmul, smooth, algorithm)
        if self.record is not None:
            self._log("find_path_cells", s, g, algorithm, smooth, nearest, b, win, circles,
                      res, t0)
        return res

    def _cells(self, s: tuple[int, int], g: tuple[int, int], bgoal: tuple[int, int],
               nearest: bool, budget: int, win: tuple[int, int, int, int] | None,
               circles: NDArray[np.float64] | None, hmul: int, smooth: bool,
               algorithm: str, border: bool = False) -> PathResult:
        st = self.store
        fy = float(st.floor_y)
        self._queries += 1
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
            with pf.lock, pf.overlay.using(circles):
                nodes = pf.padded.nodes(local).astype(np.int32)
                kept = pf.padded.nodes_to_cells(pf.smoother.pull(
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
        if border:
            self.last_algorithm = "whole-astar"
            with pf.lock, pf.overlay.using(circles):
                return pf.astar.border_goal_query(s, bgoal, smooth=smooth, budget=budget,
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
    def find_path(self, start: ArrayLike, end: ArrayLike, *, smooth: bool = True,
                  nearest: bool = False, budget: int | None = None,
                  window: Sequence[int] | None = None, obstacles: ArrayLike | None = None,
                  algorithm: str = "auto", preset: str | QueryPreset | None = None,
                  bounds: Sequence[int] | None = None) -> PathResult:
        """Path between two world points in metres, as :meth:`Pathfinder.find_path`
        (snapping docs/rules.md §4.1, smoothing §5, waypoint rules §4.2-§4.3).
        A ``preset`` window is centred on the snapped cells; ``bounds`` as in
        :meth:`find_path_cells` (the window recorded is the cut one)."""
        return self._world_logged("find_path", start, end, smooth, nearest, budget, window,
                                  obstacles, algorithm, preset, bounds)

    def _world_logged(self, kind: str, start: ArrayLike, end: ArrayLike, smooth: bool,
                      nearest: bool, budget: int | None, window: Sequence[int] | None,
                      obstacles: ArrayLike | None, algorithm: str,
                      preset: str | QueryPreset | None,
                      bounds: Sequence[int] | None = None) -> PathResult:
        t0 = time.perf_counter()
        res = self._world(start, end, smooth, nearest, budget, window, obstacles, algorithm,
                          preset, bounds)
        if self.record is not None:
            pre = get_preset(preset)
            win = self._last_window
            b = budget if budget is not None or pre is None else pre.budget
            self._log(kind, world_point(start, "start"), world_point(end, "end"), algorithm,
                      smooth, nearest, b, win, obstacles, res, t0)
        return res

    def find_path_to_nearest(self, start: ArrayLike, end: ArrayLike, *, smooth: bool = True,
                             budget: int | None = None, window: Sequence[int] | None = None,
                             obstacles: ArrayLike | None = None, algorithm: str = "auto",
                             preset: str | QueryPreset | None = None,
                             bounds: Sequence[int] | None = None) -> PathResult:
        """:meth:`find_path` with ``nearest=True`` (docs/rules.md §6)."""
        return self._world_logged("find_path_to_nearest", start, end, smooth, True, budget,
                                  window, obstacles, algorithm, preset, bounds)

    def cell_of(self, w: tuple[float, float]) -> tuple[int, int]:
        st = self.store
        fx = (w[0] - float(st.min_x)) / float(st.cell_size)
        fz = (w[1] - float(st.min_z)) / float(st.cell_size)
        return (max(-_FAR, min(_FAR, math.floor(fx))) if math.isfinite(fx) else _FAR,
                max(-_FAR, min(_FAR, math.floor(fz))) if math.isfinite(fz) else _FAR)

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
            return no_path(Status.NO_START, floor_y=fy)
        g = snap(st, circles, *self.cell_of(ew), self._rings)
        border = False
        bgoal = g
        if g is None:
            if not nearest:
                return no_path(Status.NO_GOAL, start_cell=s, floor_y=fy)
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
        if not res.has_path:
            return res
        pts = np.array(res.waypoints, dtype=np.float64)
        if res.status == Status.FOUND and self.cell_of(ew) == res.end_cell:
            pts[-1] = ew
        if len(pts) > 1:
            d = math.hypot(pts[0, 0] - sw[0], pts[0, 1] - sw[1])
            if d <= FIRST_WAYPOINT_TRIM * float(st.cell_size):
                pts = pts[1:]
        pts.setflags(write=False)
        return path_result(res.status, res.cells, pts, res.cost_int, self.costs.card,
                           res.expanded, res.generated, res.start_cell, res.end_cell, fy)

    # ---------------------------------------------------------------- edits
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

    def _log(self, kind: str, start: Any, goal: Any, algorithm: str, smooth: bool,
             nearest: bool, budget: int | None, window: Any, obstacles: Any, res: PathResult,
             t0: float) -> None:
        """``record.log(...)`` with the effective options (a preset's window and
        budget spelled out), through ``navkit.corpus``'s ``options_dict``. The
        first line fills in the header's source (:func:`navkit.corpus.world_source`:
        the world file or source, its fingerprint, the hierarchy's settings);
        lines after an edit carry ``fingerprint@vN`` (N: the store's version), so
        replay skips them."""
        from ..corpus.record import options_dict, world_source

        assert self.record is not None
        st = self.store
        if not self._described:
            describe = getattr(self.record, "describe", None)
            if describe is not None:
                describe(source=world_source(st, self.world_options()), costs=self.costs,
                         connectivity=self.connectivity)
            self._described = True
        fp = None if not st.version else f"{st.fingerprint}@v{st.version}"
        options = options_dict(self.costs, self.connectivity, algorithm=algorithm,
                               smooth=smooth, nearest=nearest, budget=budget, window=window,
                               snap_radius=self.snap_radius)
        circles = None if obstacles is None else np.asarray(obstacles, dtype=np.float64)
        self.record.log(kind, start=start, goal=goal, options=options, obstacles=circles,
                        result=res, seconds=time.perf_counter() - t0, fingerprint=fp)

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
