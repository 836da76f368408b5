"""World-coordinate queries: snapping, the search, waypoint rules (docs/rules.md §4-§6).

A world query snaps its start and end to walkable cells (square rings within
the snap radius), searches between them, string-pulls the cell path, drops
the first waypoint when it is within ``0.75 * cell_size`` of the start, and
ends at the exact end point when that point's own cell is the end cell.

With JPS (the ``"auto"`` choice on uniform 8-connected grids) the whole
query is one kernel call, :func:`navkit._kernels.query.world_jps`, on
buffers this object owns; with JPS+ tables (``"jps+"``, or ``"auto"`` where
it picks them) a plain query runs
:func:`navkit._kernels.query.world_jps_plus_free`, the same call on the
tables; other queries (A*, Dijkstra, windows, an end outside the grid) run
the same steps one call at a time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import edits as _ek
from .._kernels import geometry as _geo
from .._kernels import query as _query
from .._kernels.layouts import (
    AStarArrays,
    GeoFloats,
    GeoInts,
    JpsArrays,
    WorldArgs,
    WorldOut,
    WorldState,
)
from ..errors import QueryError
from ..results import PathResult, Status, no_path, path_result, world_waypoints
from .astar import STATUS, AStar
from .cells import CellQueries
from .jps import JPS
from .overlay import Occupancy, Overlay, as_circles
from .padded import PaddedGrid

__all__ = ["WorldQueries", "SNAP_RADIUS", "FIRST_WAYPOINT_TRIM"]

#: Start and end snap to a walkable cell within this many metres (docs/rules.md §4.1).
SNAP_RADIUS = 8.0
#: The first waypoint is dropped when closer than this many cells to the start
#: (docs/rules.md §4.2).
FIRST_WAYPOINT_TRIM = 0.75

_F64 = np.dtype(np.float64)
_NO_CIRCLES = np.zeros((0, 3), dtype=np.float64)
#: Cells beyond which a snapped coordinate is clamped (int64-safe).
_FAR_CELLS = 1 << 30


def _clamped_floor(v: float) -> int:
    """``floor(v)`` clamped to ``+-_FAR_CELLS`` (``v`` may be huge or infinite).

    >>> _clamped_floor(2.5), _clamped_floor(float("inf")) == _FAR_CELLS
    (2, True)
    """
    if -_FAR_CELLS < v < _FAR_CELLS:
        return math.floor(v)
    return _FAR_CELLS if v > 0 else -_FAR_CELLS


class WorldQueries:
    """World queries on one padded grid (``budget`` arguments resolved)."""

    def __init__(self, pg: PaddedGrid, occ: Occupancy, overlay: Overlay, astar: AStar, jps: JPS,
                 cells: CellQueries, snap_radius: float):
        self.pg = pg
        self.occ = occ
        self.overlay = overlay
        self.astar = astar
        self.jps = jps
        self.cells = cells
        self.snap_radius = snap_radius
        #: Square rings within the snap radius (at most ``_FAR_CELLS``: snapping walks
        #: only the rings that meet the grid, so a huge radius costs no more than the grid).
        rings = snap_radius / pg.grid.cell_size + 1e-9
        self.snap_rings = int(math.floor(rings)) if rings < _FAR_CELLS else _FAR_CELLS
        self._res = np.zeros(_query.RES_SIZE, dtype=np.int64)
        self._fx: tuple[Any, ...] | None = None
        self._fx_version = -1
        #: Queries answered by the one-call kernel so far.
        self.kernel_queries = 0
        self._card = astar.costs.card

    # ------------------------------------------------------------- snapping
    def snap(self, wx: float, wz: float) -> tuple[int, int] | None:
        """The walkable cell a query from world point ``(wx, wz)`` starts in
        (its own, or the nearest within the snap radius), under the current overlay."""
        cx, cz = self.cell_of((wx, wz))  # geometry.snap_cell clamps further
        node = _geo.snap_cell(self.occ.cells, self.overlay.args(),
                              np.int64(self.pg.wp), np.int64(self.pg.hp),
                              np.int64(self.snap_rings), np.int64(cx), np.int64(cz))
        return None if node < 0 else self.pg.cell(int(node))

    def cell_of(self, w: tuple[float, float]) -> tuple[int, int]:
        """The cell of world point ``w``, far-away ones (the quotient may even
        overflow to inf) clamped to ``+-_FAR_CELLS``."""
        g = self.pg.grid
        return (_clamped_floor((w[0] - g.min_x) / g.cell_size),
                _clamped_floor((w[1] - g.min_z) / g.cell_size))

    # ---------------------------------------------------------------- query
    def query(self, sw: tuple[float, float], ew: tuple[float, float], smooth: bool, nearest: bool,
              budget: int, window: Sequence[int] | None, obstacles: ArrayLike | None,
              algorithm: str) -> PathResult:
        """The path between validated world points ``sw`` and ``ew`` (positional
        arguments: the facades call this once per query)."""
        if not (algorithm == "auto" and self.jps.usable):  # the common case needs no resolving
            algorithm = self.cells.resolve(algorithm)
        elif window is None:
            algorithm = "jps+" if self.cells.auto_jps_plus else "jps"
        if (algorithm == "jps" or algorithm == "jps+") and window is None:
            res = self.fused(sw, ew, smooth, nearest, budget, obstacles, algorithm == "jps+")
            if res is not None:
                return res
        else:
            algorithm = self.cells.resolve(algorithm)
        with self.overlay.using(obstacles):
            return self._stepwise(sw, ew, smooth=smooth, nearest=nearest,
                                  budget=budget, window=window, algorithm=algorithm)

    def _stepwise(self, sw: tuple[float, float], ew: tuple[float, float], *,
                  smooth: bool, nearest: bool, budget: int,
                  window: Sequence[int] | None, algorithm: str) -> PathResult:
        grid = self.pg.grid
        fy = grid.floor_y
        s = self.snap(*sw)
        if s is None:
            return no_path(Status.NO_START, floor_y=fy)
        g = self.snap(*ew)
        if g is None:
            if not nearest:
                return no_path(Status.NO_GOAL, start_cell=s, floor_y=fy)
            g = self.cell_of(ew)
            if max(abs(g[0]), abs(g[1])) >= _FAR_CELLS:
                raise QueryError(f"end {ew} lies more than {_FAR_CELLS} cells outside the grid")
            if grid.in_bounds(*g):
                res = self.cells.query(s, g, smooth=smooth, nearest=True, budget=budget,
                                       window=window, algorithm=algorithm)
            else:
                res = self.astar.border_goal_query(s, g, smooth=smooth,
                                                   budget=budget, window=window)
        else:
            res = self.cells.query(s, g, smooth=smooth, nearest=nearest,
                                   budget=budget, window=window, algorithm=algorithm)
        return world_waypoints(res, sw, ew, self.cell_of(ew), FIRST_WAYPOINT_TRIM * grid.cell_size)

    # ------------------------------------------------------ the one-call JPS
    def fused(self, sw: tuple[float, float], ew: tuple[float, float], smooth: bool, nearest: bool,
              budget: int, obstacles: ArrayLike | None, on_tables: bool = False
              ) -> PathResult | None:
        """The query in one kernel call (:func:`navkit._kernels.query.world_jps`); None
        for the queries it leaves to :meth:`_stepwise` (an end outside the grid).
        ``on_tables`` (``"jps+"``): a plain query (no circles, not to the nearest
        cell) on a grid without occupants searches the JPS+ tables
        (:func:`navkit._kernels.query.world_jps_plus_free`: the answer of
        :meth:`navkit.query.jps_plus.JPSPlus.cell_query`); others run online JPS,
        as the JPS+ cell query itself falls back to it."""
        circles = _NO_CIRCLES
        if obstacles is not None:
            if (type(obstacles) is np.ndarray and obstacles.ndim == 2 and obstacles.shape[1] == 3
                    and obstacles.dtype == _F64 and obstacles.flags.c_contiguous):
                circles = obstacles  # its values are checked by the kernel
            else:
                circles = as_circles(obstacles)
            fx = self.args_with_room(len(circles))
        else:
            cached = self._fx
            fx = cached if cached is not None and self._fx_version == self.jps.bufs.version \
                else self.kernel_args()
        res = self._res
        if type(nearest) is not bool or type(smooth) is not bool:
            nearest, smooth = bool(nearest), bool(smooth)
        arg: Any = circles  # the kernel's second argument: circles, or the tables
        if len(circles) or nearest:
            kernel = _query.world_jps
        else:  # neither circles nor nearest: release the standing overlay here,
            # as world_jps would, and run the variant without the overlay kernels and
            # the nearest-cell search (a first plain query compiles neither)
            if self.overlay.standing[0]:
                self.overlay.release_standing()
            kernel = _query.world_jps_free
            if on_tables:
                jp = self.cells.jps_plus_engine()
                if jp.static:  # occupants: online JPS, as JPSPlus.cell_query falls back
                    kernel = _query.world_jps_plus_free
                    arg = jp.table_args()
        code = kernel(fx, arg, sw[0], sw[1], ew[0], ew[1], budget, nearest, smooth, res)
        if code == _query.NEED_SNAP:  # an end needs snapping: the general kernel snaps
            kernel, arg = _query.world_jps, circles
            code = kernel(fx, arg, sw[0], sw[1], ew[0], ew[1], budget, nearest, smooth, res)
        while code == _query.NEED_ROOM:
            self.jps.bufs.grow(int(res[_query.R_NCELLS]))
            code = kernel(self.kernel_args(), arg, sw[0], sw[1],
                          ew[0], ew[1], budget, nearest, smooth, res)
        if code == _query.FALLBACK:
            return None
        self.kernel_queries += 1
        if code == _query.BAD_CIRCLE:
            as_circles(circles)  # raises the QueryError naming the row
            raise AssertionError("unreachable")  # pragma: no cover
        return self._wrap(code, res.tolist())

    def fused_ignoring(self, sw: tuple[float, float], ew: tuple[float, float], smooth: bool,
                       nearest: bool, budget: int, circles: NDArray[np.float64],
                       counts: NDArray[np.int32], perm: NDArray[np.int64], lo: int, hi: int,
                       freed: NDArray[np.int32]) -> PathResult | None:
        """:meth:`fused` on obstacle circles ``circles`` ``(k, 3)`` except rows
        ``perm[lo:hi]``, without stamping the others again
        (:func:`navkit._kernels.edits.world_jps_ignoring`, for
        :meth:`navkit.query.edits.CellEditor.fused_ignore`): ``counts`` (int32,
        one per node) says how many of ``circles`` cover each node, ``freed``
        (int32, one per node) is the kernel's scratch. None when the query is
        not the one-call kind (the caller then runs it on the remaining circles)."""
        fx = self.args_with_room(len(circles))
        res = self._res
        nearest, smooth = bool(nearest), bool(smooth)
        code = _ek.world_jps_ignoring(fx, circles, counts, perm, lo, hi, freed, sw[0], sw[1],
                                      ew[0], ew[1], budget, nearest, smooth, res)
        while code == _query.NEED_ROOM:
            self.jps.bufs.grow(int(res[_query.R_NCELLS]))
            code = _ek.world_jps_ignoring(self.kernel_args(), circles, counts, perm, lo, hi,
                                          freed, sw[0], sw[1], ew[0], ew[1], budget, nearest,
                                          smooth, res)
        if code == _query.FALLBACK:
            return None
        self.kernel_queries += 1
        return self._wrap(code, res.tolist())

    def _wrap(self, code: int, r: list[int]) -> PathResult:
        pg = self.pg
        fy = pg.grid.floor_y
        status = STATUS[code]
        s = r[_query.R_START]
        start_cell = None if s < 0 else pg.cell(s)
        m = r[_query.R_NCELLS]
        if m == 0:
            if code == Status.NO_START or code == Status.NO_GOAL:
                return no_path(status, start_cell=start_cell, floor_y=fy)
            return no_path(status, expanded=r[_query.R_EXPANDED], generated=r[_query.R_GENERATED],
                           start_cell=start_cell, floor_y=fy)
        bufs = self.jps.bufs
        first = r[_query.R_FIRST]
        pts = bufs.wpts[first : first + r[_query.R_NPTS]].copy()
        pts.setflags(write=False)
        return path_result(status, bufs.cells[:m].copy(), pts, r[_query.R_COST],
                           self.astar.costs.card, r[_query.R_EXPANDED],
                           r[_query.R_GENERATED], start_cell, pg.cell(r[_query.R_END]), fy)

    @property
    def result(self) -> NDArray[np.int64]:
        """The one-call query's result buffer (``R_*`` of :mod:`navkit._kernels.query`)."""
        return self._res

    def reset_kernel_args(self) -> None:
        """Forget :meth:`kernel_args` (built again by the next one-call query):
        an array in it was replaced (a cell edit made the grid weighted)."""
        self._fx = None

    def args_with_room(self, n: int) -> tuple[Any, ...]:
        """:meth:`kernel_args`, after making the standing overlay room for ``n`` circles."""
        if n > len(self.overlay.standing_circles):
            self.overlay.make_room(n)
            self._fx = None
        fx = self._fx
        if fx is None or self._fx_version != self.jps.bufs.version:
            fx = self.kernel_args()
        return fx

    def kernel_args(self) -> tuple[Any, ...]:
        """The static arguments of :func:`navkit._kernels.query.world_jps` (a
        :class:`~navkit._kernels.layouts.WorldArgs`, as a plain tuple): built
        once, since every array in it is updated in place; rebuilt when a
        buffer is replaced. For benchmarks that time the kernel alone."""
        if self._fx is not None and self._fx_version == self.jps.bufs.version:
            return self._fx
        jps, astar, ov, pg = self.jps, self.astar, self.overlay, self.pg
        bits = jps.bits()
        if jps.nd is None:
            jps.next_gen()
        ws = astar.ws
        g = pg.grid
        bufs = jps.bufs
        self._fx = tuple(WorldArgs(
            bits=bits, jmodel=jps.model,
            jarr=tuple(JpsArrays(nd=jps.nd, hf=ws.hf, hk=ws.hk, cand=jps.cand)),
            grid=astar.grid_args(), aarr=tuple(AStarArrays(tag=ws.tag, gens=ws.gens)),
            geo_i=tuple(GeoInts(wp=int(pg.wp), hp=int(pg.hp), snap_rings=self.snap_rings)),
            geo_f=tuple(GeoFloats(min_x=float(g.min_x), min_z=float(g.min_z),
                                  cell_size=float(g.cell_size),
                                  trim=FIRST_WAYPOINT_TRIM * g.cell_size)),
            st=tuple(WorldState(marks=ov.marks, saved=ov.saved, stats=astar.stats, ov=ov.standing,
                                ov_circles=ov.standing_circles, counters=ov.counters)),
            out=tuple(WorldOut(nodes=ws.path, smooth_nodes=ws.smooth,
                               cells=bufs.cells, wpts=bufs.wpts)),
        ))
        self._fx_version = bufs.version
        return self._fx
