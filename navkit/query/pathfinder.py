"""Path queries on a :class:`~navkit.grid.NavGrid`: A*, Dijkstra, distance fields.

Quick start::

    >>> import numpy as np, navkit
    >>> walk = np.ones((5, 5), dtype=bool); walk[1:4, 2] = False
    >>> pf = navkit.Pathfinder(navkit.NavGrid(walk), costs="exact")
    >>> r = pf.find_path_cells((0, 2), (4, 2))
    >>> r.status.name, round(r.cost, 6)
    ('FOUND', 6.828428)
    >>> r.cells.tolist()
    [[0, 2], [1, 1], [1, 0], [2, 0], [3, 0], [4, 1], [4, 2]]

Rules (seed 000 §3): 8-connected moves, no corner cutting (a diagonal step
needs both side cells free), integer step costs from a
:class:`~navkit.costs.CostModel` multiplied by the terrain weight of the cell
entered, octile heuristic on the same integers scaled by the smallest weight.
The queue pops the smallest ``f``, then the larger ``g``, then the lower
linear cell index, so every run on every machine expands the same nodes.

``algorithm="jps"`` runs Jump Point Search under the same rules (A*'s cost,
far fewer nodes; uniform-cost 8-connected grids), ``"auto"`` picks it where
it applies: see ``docs/jps.md``.

A :class:`Pathfinder` owns one reusable workspace: a query allocates nothing
grid-sized. It is therefore not thread-safe; use one per thread, or
:meth:`Pathfinder.find_paths_batch`, which runs queries on all cores.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import batch as _batch
from .._kernels import geometry as _geo
from .._kernels import jps as _jps
from .._kernels import query as _query
from .._kernels import search as _search
from ..costs import CostModel, cost_model
from ..errors import ConfigError, QueryError
from ..grid import NavGrid
from ..results import BatchResult, PathResult, SearchTrace, Status, make_path_result

__all__ = ["Pathfinder", "Workspace", "SNAP_RADIUS", "FIRST_WAYPOINT_TRIM"]

#: Seed 000 §3: start and end snap to a walkable cell within this many metres.
SNAP_RADIUS = 8.0
#: Seed 000 §3: the first waypoint is dropped when closer than this many cells to the start.
FIRST_WAYPOINT_TRIM = 0.75

#: Values of the ``algorithm`` argument of the cell and world queries.
ALGORITHMS = ("astar", "dijkstra", "jps", "auto")

_GEN_LIMIT = _search.GEN_LIMIT
_F64 = np.dtype(np.float64)
_NO_CIRCLES = np.zeros((0, 3), dtype=np.float64)
_STATUS = tuple(Status(i) for i in range(len(Status)))
_FAR_CELLS = 1 << 30
_INT64_SAFE = 1 << 62
_NO_CELLS = np.zeros((0, 2), dtype=np.int32)


class Workspace:
    """Reusable search buffers for a padded grid of ``n`` nodes (``rows`` copies for threads)."""

    #: Largest ring of the level queue: 2**16 entries per stream.
    MAX_RING_BITS = 16
    #: First ring length, 2**10 entries per stream: a short ring is reused in
    #: cache; a search that fills one grows them (see :meth:`grow_rings`).
    START_RING_BITS = 10

    def __init__(self, n: int, rows: int | None = None, heap_extra: int = 0, ring_bits: int | None = None,
                 max_ring_bits: int | None = None):
        shape: tuple[int, ...] = (n,) if rows is None else (rows, n)
        h = n + 8 + heap_extra  # JPS needs heap_extra = _kernels.jps.heap_reserve(wp, hp)
        hshape: tuple[int, ...] = (h,) if rows is None else (rows, h)
        self.n = n
        self._rows = rows
        self.g = np.zeros(shape, dtype=np.int64)
        self.parent = np.zeros(shape, dtype=np.int32)
        self.tag = np.zeros(shape, dtype=np.int32)
        self.pos = np.zeros(shape, dtype=np.int32)  # A*'s heap slot of each open node
        self.hf = np.zeros(hshape, dtype=np.int64)
        self.hk = np.zeros(hshape, dtype=np.int64)
        self.gens = np.zeros(1 if rows is None else rows, dtype=np.int64)
        self._gen0 = 0
        self.path = np.zeros(shape, dtype=np.int32)
        self.smooth = np.zeros(n, dtype=np.int32) if rows is None else np.zeros(0, dtype=np.int32)
        # the level queue's streams (see _kernels.search): a ring per f step,
        # START_RING_BITS long, grown up to the grid's length or 2**16 (a full
        # ring at that length makes the query rerun on the heap)
        if max_ring_bits is None:
            max_ring_bits = min(max(int(n - 1).bit_length(), 6), self.MAX_RING_BITS)
        self.max_ring_bits = int(max_ring_bits)
        if ring_bits is None:
            ring_bits = min(self.START_RING_BITS, self.max_ring_bits)
        self._alloc_rings(int(ring_bits))
        nht = _search.HT_SIZE
        self.ht = np.zeros((nht,) if rows is None else (rows, nht), dtype=np.int64)

    def _alloc_rings(self, ring_bits: int) -> None:
        self.ring_bits = ring_bits
        rlen = _search.NSTREAMS << ring_bits
        shape = (rlen,) if self._rows is None else (self._rows, rlen)
        self.rf = np.zeros(shape, dtype=np.int64)
        self.rk = np.zeros(shape, dtype=np.int64)

    def grow_rings(self) -> bool:
        """Make the level queue's rings four times longer (up to ``max_ring_bits``)
        after a search filled one; False when they are already that long. At
        most a few times per workspace: searches allocate nothing."""
        if self.ring_bits >= self.max_ring_bits:
            return False
        self._alloc_rings(min(self.ring_bits + 2, self.max_ring_bits))
        return True

    def next_gen(self) -> int:
        """Start a new search in row 0: bump its generation (clearing the tags on
        wrap-around). A kernel may advance ``gens[0]`` too (it is then re-read)."""
        gen = self._gen0 + 1
        if gen >= _GEN_LIMIT or self.gens[0] != self._gen0:
            if gen >= _GEN_LIMIT or self.gens.max() >= _GEN_LIMIT:
                self.tag.fill(0)
                self.gens.fill(0)
            gen = int(self.gens[0]) + 1
        self.gens[0] = self._gen0 = gen
        return gen

    def reserve_gens(self, per_row: int) -> None:
        """Make sure every row can run ``per_row`` more searches without wrapping."""
        if self.gens.max() + per_row >= _GEN_LIMIT:
            self.tag.fill(0)
            self.gens.fill(0)

    def closed_nodes(self) -> NDArray[np.intp]:
        """Padded nodes that row 0's last search closed (its tag, without the
        level queue's back bits, is ``2 * gen + 1``)."""
        return np.flatnonzero((self.tag & _search.TAG_LOW) == 2 * int(self.gens[0]) + 1)

    def single(self, gen: int) -> tuple[Any, ...]:
        return (self.g, self.parent, self.tag, self.pos, self.hf, self.hk, np.int64(gen))

    def rings(self, offsets: NDArray[np.int64], moves: NDArray[np.uint8]) -> tuple[Any, ...]:
        """The level queue's ``rings`` tuple (row 0) for these ``f`` steps and move masks."""
        return (self.rf, self.rk, self.ht, offsets, np.int64(self.ring_bits), moves)

    def rows(self) -> tuple[Any, ...]:
        return (self.g, self.parent, self.tag, self.pos, self.hf, self.hk, self.rf, self.rk, self.ht)


def _pad(arr: NDArray[Any], dtype: Any, fill: int) -> NDArray[Any]:
    d, w = arr.shape
    out = np.full((d + 2, w + 2), fill, dtype=dtype)
    out[1:-1, 1:-1] = arr
    return out.ravel()


def as_circles(obstacles: ArrayLike, name: str = "obstacles") -> NDArray[np.float64]:
    """Validate world circles: a C-contiguous float64 ``(k, 3)`` array of
    ``(x, z, radius)``; a single ``(x, z, r)`` triple is accepted. Non-finite
    values, a negative radius or values beyond ``+-1e15`` m raise
    :class:`QueryError` naming the row."""
    try:
        arr = np.asarray(obstacles, dtype=np.float64)
    except (TypeError, ValueError):
        raise QueryError(f"{name} must be an (k, 3) array of world circles (x, z, radius)") from None
    if arr.ndim == 1 and arr.size == 3:
        arr = arr.reshape(1, 3)
    if arr.size == 0:
        return np.zeros((0, 3), dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise QueryError(f"{name} must have shape (k, 3) = (x, z, radius) per circle, got {arr.shape}")
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise QueryError(f"{name}[{i}] = {arr[i].tolist()} is not finite")
    if np.any(arr[:, 2] < 0):
        i = int(np.flatnonzero(arr[:, 2] < 0)[0])
        raise QueryError(f"{name}[{i}] has a negative radius {arr[i, 2]}")
    far = (np.abs(arr) > _geo.MAX_COORD).any(axis=1)
    if far.any():
        i = int(np.flatnonzero(far)[0])
        raise QueryError(f"{name}[{i}] = {arr[i].tolist()} lies beyond +-{_geo.MAX_COORD:g} m")
    return np.ascontiguousarray(arr)


class Pathfinder:
    """Exact, deterministic path queries on one grid.

    Parameters
    ----------
    grid : NavGrid
        The map. Its arrays are read once; later edits need a new Pathfinder.
    costs : "seed", "exact", (card, diag) or CostModel
        ``"seed"`` is 10/14 (seed 000 §3); ``"exact"`` is 1_000_000/1_414_214
        and reproduces Moving AI optimal lengths.
    connectivity : 8 or 4
        Eight-connected with the corner rule, or four-connected.
    budget : int or None
        Default node-expansion budget per query (None: unlimited).
    snap_radius : float
        Metres within which world queries snap start and end to a walkable
        cell (seed 000 §3: 8 m).
    """

    def __init__(
        self,
        grid: NavGrid,
        costs: str | CostModel | tuple[int, int] = "seed",
        *,
        connectivity: int = 8,
        budget: int | None = None,
        snap_radius: float = SNAP_RADIUS,
    ):
        if not isinstance(grid, NavGrid):
            raise QueryError(f"expected a NavGrid, got {type(grid).__name__}")
        if connectivity not in (4, 8) or isinstance(connectivity, bool):
            raise ConfigError(f"expected 4 or 8, got {connectivity!r}", field="connectivity")
        if not (isinstance(snap_radius, (int, float)) and math.isfinite(snap_radius) and snap_radius >= 0):
            raise ConfigError(f"expected a finite number >= 0, got {snap_radius!r}", field="snap_radius")
        self.grid = grid
        self.costs = cost_model(costs)
        self.connectivity = connectivity
        self.budget = self._check_budget(budget)
        self.snap_radius = float(snap_radius)
        self._snap_rings = int(math.floor(self.snap_radius / grid.cell_size + 1e-9))  # square rings within it
        self._wp = grid.width + 2
        self._hp = grid.depth + 2
        n = self._wp * self._hp
        self._static = _pad(grid.walkable, np.uint8, 0)
        self._static.setflags(write=False)
        self._cells = self._static.copy()  # static AND no long-lived occupant
        self._occ: NDArray[np.int32] | None = None
        self._occupants: dict[int, tuple[float, float, float]] = {}
        self._next_handle = 1
        # [last JPS generation, last overlay mark], shared with the one-call query's kernel
        self._counters = np.zeros(2, dtype=np.int64)
        if grid.weights is not None:
            self._weights = _pad(grid.weights, np.int32, 1)
            walk_w = grid.weights[grid.walkable]
            self._wmin = int(walk_w.min()) if walk_w.size else 1
            wmax = int(grid.weights.max())
        else:
            self._weights = np.ones(1, dtype=np.int32)
            self._wmin = 1
            wmax = 1
        if n * self.costs.diag * wmax >= _INT64_SAFE:
            raise ConfigError(
                f"path costs could overflow int64 on a {grid.width}x{grid.depth} grid with weights up to "
                f"{wmax}; use smaller step costs (e.g. costs='seed')",
                field="costs",
            )
        self._nbits = max(1, int(n).bit_length())
        h_max = (self._wp + self._hp) * self.costs.diag * self._wmin
        if h_max >= 1 << (62 - self._nbits):
            raise ConfigError(
                f"heuristic values of a {grid.width}x{grid.depth} grid with smallest weight {self._wmin} do not "
                "fit the search's 64-bit queue keys; use smaller step costs (e.g. costs='seed')",
                field="costs",
            )
        self._marks = np.zeros(n, dtype=np.int32)
        self._mark = 0
        self._overlay_circles: NDArray[np.float64] | None = None
        # JPS state, built on first use: packed rows/columns of self._cells,
        # the nodes an overlay query cleared, a cell buffer for paths
        self._jps: tuple[Any, ...] | None = None
        self._jps_nd: NDArray[np.int64] | None = None  # per-node search state, see _kernels.jps
        self._jps_batch: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]] | None = None
        self._jps_cand: NDArray[np.int64] | None = None
        self._jps_saved: NDArray[np.int32] | None = None
        # path buffers (cells, centres, waypoints), grown on demand; see _path_buffers
        self._jps_cells = np.zeros((1024, 2), dtype=np.int32)
        self._jps_pts = np.zeros((1024, 2), dtype=np.float64)
        self._wpts = np.zeros((1024, 2), dtype=np.float64)
        # the one-call world query (_kernels.query): static arguments, built on first use
        self._fx: tuple[Any, ...] | None = None
        self._cum: NDArray[np.int64] | None = None  # running path costs for weighted smoothing
        self._fused = True  # False: world JPS queries take the step-by-step Python path (tests compare both)
        self._qres = np.zeros(_query.RES_SIZE, dtype=np.int64)
        # its standing overlay: [mark, cells cleared from the JPS rows, circles]
        # and those circles (see _kernels.query); released before anything
        # else reads the rows (_jps_bits) or writes the marks (_next_mark)
        self._ov = np.zeros(3, dtype=np.int64)
        self._ov_circles = np.zeros((64, 3), dtype=np.float64)
        # plain ints: numba types them as int64 like np.int64, but dispatches faster
        xb, cb = _jps.key_bits(self._wp, self._hp)
        self._jps_model = (int(self.costs.card), int(self.costs.diag), xb, cb)
        # JPS's heap keys pack (h << cb) | (z << xb | x): usable when they fit
        self._jps_fits = cb <= 31 and h_max < 1 << (62 - cb)
        self._jps_usable = self._jps_fits and grid.weights is None and connectivity == 8
        self._geo_t = (float(grid.min_x), float(grid.min_z), float(grid.cell_size))
        self._heap_extra = _jps.heap_reserve(self._wp, self._hp)
        self._ws = Workspace(n, heap_extra=self._heap_extra)
        self._stats = np.zeros(_search.STATS_SIZE, dtype=np.int64)
        self._batch_ws: Workspace | None = None
        # A* on uniform grids uses the level queue (False: the heap; tests compare both)
        self._level_queue = True
        self._offsets: dict[int, NDArray[np.int64]] = {}
        # each node's legal moves (see _kernels.search.move_masks), kept in step with self._cells
        # (only the level queue reads them, so weighted grids keep an empty array)
        self._moves = np.zeros(n if grid.weights is None else 1, dtype=np.uint8)
        self._update_moves(1, 1, self._wp - 2, self._hp - 2)

    # ------------------------------------------------------------ internals
    @staticmethod
    def _check_budget(budget: int | None) -> int:
        if budget is None:
            return int(np.iinfo(np.int64).max)
        if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
            raise QueryError(f"budget must be a positive int or None, got {budget!r}")
        return int(budget)

    def _grid_tuple(self) -> tuple[Any, ...]:
        return (self._cells, self._weights, np.int64(self._wp), self.grid.weights is not None,
                np.int64(self._nbits))

    def _overlay(self) -> tuple[Any, ...]:
        return (self._marks, np.int32(self._mark))

    def _model(self, hmul: int) -> tuple[Any, ...]:
        return (np.int64(self.costs.card), np.int64(self.costs.diag), self.connectivity == 8, np.int64(hmul))

    def _limits(self, budget: int | None, window: Sequence[int] | None) -> tuple[Any, ...]:
        b = self.budget if budget is None else self._check_budget(budget)
        if window is None:
            return (np.int64(b), np.int64(-1), np.int64(-1), np.int64(-1), np.int64(-1))
        try:
            vals = [float(v) for v in window]
        except (TypeError, ValueError):
            raise QueryError(f"window must be (x0, z0, x1, z1) cells, got {window!r}") from None
        if len(vals) != 4 or not all(math.isfinite(v) and v == int(v) for v in vals):
            raise QueryError(f"window must be four finite integers (x0, z0, x1, z1), got {window!r}")
        x0, z0, x1, z1 = (int(v) for v in vals)
        if x0 > x1 or z0 > z1:
            raise QueryError(f"window must have x0 <= x1 and z0 <= z1, got {tuple(window)}")
        # clip into the grid and shift to padded coordinates
        x0 = max(x0, 0) + 1
        z0 = max(z0, 0) + 1
        x1 = min(x1, self.grid.width - 1) + 1
        z1 = min(z1, self.grid.depth - 1) + 1
        return (np.int64(b), np.int64(x0), np.int64(z0), np.int64(x1), np.int64(z1))

    def _node(self, cell: tuple[int, int]) -> int:
        return (cell[1] + 1) * self._wp + cell[0] + 1

    def _cell(self, node: int) -> tuple[int, int]:
        return (node % self._wp - 1, node // self._wp - 1)

    def _nodes_to_cells(self, nodes: NDArray[np.int32]) -> NDArray[np.int32]:
        out = np.empty((len(nodes), 2), dtype=np.int32)
        out[:, 0] = nodes % self._wp - 1
        out[:, 1] = nodes // self._wp - 1
        return out

    def _cells_and_centres(self, nodes: NDArray[np.int32]) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
        """Cells ``(n, 2)`` int32 and their world centres ``(n, 2)`` float64 of
        padded ``nodes``: new arrays, filled by one kernel call."""
        m = len(nodes)
        cells = np.empty((m, 2), dtype=np.int32)
        pts = np.empty((m, 2), dtype=np.float64)
        _jps.nodes_to_cells(nodes, m, self._wp, cells, pts, self._geo_t)
        return cells, pts

    def _cell_arg(self, value: Any, name: str) -> tuple[int, int]:
        if type(value) is tuple and len(value) == 2:
            x, z = value
            # fast path: plain ints inside the grid (bool is not int here)
            if type(x) is int and type(z) is int and 0 <= x < self._wp - 2 and 0 <= z < self._hp - 2:
                return (x, z)
        arr = np.asarray(value)
        if arr.shape != (2,):
            raise QueryError(f"{name} must be an (x, z) cell pair, got {value!r}")
        if arr.dtype == np.bool_ or not (
            np.issubdtype(arr.dtype, np.integer)
            or (np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))
        ):
            raise QueryError(f"{name} must hold two integers, got {value!r}")
        x, z = int(arr[0]), int(arr[1])
        if not self.grid.in_bounds(x, z):
            raise QueryError(
                f"{name} cell ({x}, {z}) is outside the {self.grid.width}x{self.grid.depth} grid "
                f"(x in [0, {self.grid.width - 1}], z in [0, {self.grid.depth - 1}])"
            )
        return (x, z)

    @staticmethod
    def _world_arg(value: Any, name: str) -> tuple[float, float]:
        if type(value) is tuple and len(value) == 2:  # the common case, without numpy
            x, z = value
            if type(x) is float and type(z) is float and math.isfinite(x) and math.isfinite(z):
                return value
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise QueryError(f"{name} must be a world point (x, z) or (x, y, z), got {value!r}") from None
        if arr.shape == (3,):
            arr = arr[[0, 2]]
        if arr.shape != (2,):
            raise QueryError(f"{name} must be a world point (x, z) or (x, y, z), got {value!r}")
        if not np.all(np.isfinite(arr)):
            raise QueryError(f"{name} must be finite, got {value!r}")
        return (float(arr[0]), float(arr[1]))

    def _free(self, cell: tuple[int, int]) -> bool:
        if not self.grid.in_bounds(*cell):
            return False
        node = self._node(cell)
        return bool(self._cells[node]) and not (self._mark > 0 and self._marks[node] == self._mark)

    # ---------------------------------------------------- dynamic obstacles
    def _circles(self, obstacles: ArrayLike, name: str = "obstacles") -> NDArray[np.float64]:
        return as_circles(obstacles, name)

    def _stamp_args(self) -> tuple[Any, ...]:
        g = self.grid
        return (np.int64(self._wp), np.int64(self._hp), float(g.min_x), float(g.min_z), float(g.cell_size))

    def _set_overlay(self, obstacles: ArrayLike | None) -> None:
        """Stamp this query's obstacle circles under a fresh mark (none: overlay off)."""
        self._mark = 0
        self._overlay_circles = None
        if obstacles is None:
            return
        circles = self._circles(obstacles)
        if len(circles) == 0:
            return
        self._overlay_circles = circles
        mark = self._next_mark()
        _geo.stamp_circles(self._marks, np.int32(mark), *self._stamp_args(), circles, self._marks, np.int32(0))
        self._mark = mark

    def _next_mark(self) -> int:
        """A fresh overlay mark (clearing the marks when the counter wraps around)."""
        self._release_overlay()
        mark = int(self._counters[1]) + 1
        if mark >= _GEN_LIMIT:
            self._marks.fill(0)
            mark = 1
        self._counters[1] = mark
        return mark

    @contextmanager
    def _overlay_for(self, obstacles: ArrayLike | None) -> Iterator[None]:
        self._set_overlay(obstacles)
        try:
            yield
        finally:
            self._mark = 0

    def add_occupant(self, x: float, z: float, radius: float) -> int:
        """Block the cells whose centres lie within ``radius`` metres of ``(x, z)``
        until :meth:`remove_occupant`; returns a handle. Occupants may overlap:
        each cell keeps a counter, so removing one never frees a cell another
        still covers. The grid itself is never modified."""
        circle = self._circles([x, z, radius], "occupant")[0]
        if self._occ is None:
            self._occ = np.zeros(self._wp * self._hp, dtype=np.int32)
        handle = self._next_handle
        self._next_handle += 1
        self._occupants[handle] = (float(circle[0]), float(circle[1]), float(circle[2]))
        self._apply_occupant(circle, +1)
        return handle

    def remove_occupant(self, handle: int) -> None:
        """Undo :meth:`add_occupant`. Unknown handles raise QueryError."""
        try:
            circle = self._occupants.pop(handle)
        except (KeyError, TypeError):
            raise QueryError(f"no occupant with handle {handle!r}") from None
        self._apply_occupant(np.array(circle, dtype=np.float64), -1)

    @property
    def occupants(self) -> dict[int, tuple[float, float, float]]:
        """Live occupants: handle -> (x, z, radius)."""
        return dict(self._occupants)

    def _apply_occupant(self, circle: NDArray[np.float64], delta: int) -> None:
        assert self._occ is not None
        _geo.stamp_circles(self._marks, np.int32(0), *self._stamp_args(), circle.reshape(1, 3),
                           self._occ, np.int32(delta))
        # refresh the effective cells in the circle's bounding box
        g = self.grid
        x, z, r = (float(v) for v in circle)
        x0 = max(int(math.floor((x - r - g.min_x) / g.cell_size)) - 1, 0) + 1
        x1 = min(int(math.ceil((x + r - g.min_x) / g.cell_size)) + 1, g.width - 1) + 1
        z0 = max(int(math.floor((z - r - g.min_z) / g.cell_size)) - 1, 0) + 1
        z1 = min(int(math.ceil((z + r - g.min_z) / g.cell_size)) + 1, g.depth - 1) + 1
        if x0 > x1 or z0 > z1:
            return
        cells = self._cells.reshape(self._hp, self._wp)
        static = self._static.reshape(self._hp, self._wp)
        occ = self._occ.reshape(self._hp, self._wp)
        box = (slice(z0, z1 + 1), slice(x0, x1 + 1))
        cells[box] = np.where(occ[box] > 0, 0, static[box])
        self._update_moves(x0 - 1, z0 - 1, x1 + 1, z1 + 1)  # the box's neighbours' diagonals change too
        if self._jps is not None:
            _jps.repack_box(self._cells, self._jps_bits(), self._hp, x0, z0, x1, z1)

    def _run(
        self, s: int, g: int, budget: int | None, window: Sequence[int] | None, hmul: int,
        level_queue: bool = True,
    ) -> NDArray[np.int64]:
        weighted = self.grid.weights is not None
        level = not weighted and self._level_queue and level_queue
        args = (self._grid_tuple(), self._overlay(), self._model(hmul), self._limits(budget, window))
        gen = self._ws.next_gen()
        kernel = _search.astar_kernel(weighted, self._mark > 0, window is not None, self.connectivity == 8, level)
        status = kernel(*args, self._ws.single(gen), self._rings(hmul), np.int64(s), np.int64(g), self._stats)
        while status == _search.RETRY and self._ws.grow_rings():  # a ring filled: again on longer rings
            gen = self._ws.next_gen()
            status = kernel(*args, self._ws.single(gen), self._rings(hmul), np.int64(s), np.int64(g), self._stats)
        if status == _search.RETRY:  # a ring at its longest filled: the same search on the heap
            gen = self._ws.next_gen()
            kernel = _search.astar_kernel(weighted, self._mark > 0, window is not None, self.connectivity == 8, False)
            kernel(*args, self._ws.single(gen), self._rings(hmul), np.int64(s), np.int64(g), self._stats)
        return self._stats

    def _stream_offsets(self, hmul: int) -> NDArray[np.int64]:
        """The level queue's ``f`` steps for A* (``hmul`` 1) or Dijkstra (0); unused by the heap."""
        offs = self._offsets.get(hmul)
        if offs is None:
            if self.grid.weights is None:
                offs = _search.stream_offsets(self.costs.card, self.costs.diag, self.connectivity == 8, hmul)
            else:
                offs = np.full(_search.NSTREAMS, -1, dtype=np.int64)
            offs = self._offsets[hmul] = offs
        return offs

    def _rings(self, hmul: int) -> tuple[Any, ...]:
        return self._ws.rings(self._stream_offsets(hmul), self._moves)

    def _update_moves(self, x0: int, z0: int, x1: int, z1: int) -> None:
        """Recompute the move masks of padded columns ``x0..x1``, rows ``z0..z1``
        (clamped to the interior) after their cells changed."""
        if self.grid.weights is not None:
            return
        _search.move_masks(self._cells, np.int64(self._wp), np.int64(max(x0, 1)), np.int64(max(z0, 1)),
                           np.int64(min(x1, self._wp - 2)), np.int64(min(z1, self._hp - 2)),
                           self.connectivity == 8, self._moves)

    def _trace(self, s: int, end: int) -> NDArray[np.int32]:
        n = _search.trace(self._ws.parent, self._ws.tag, np.int64(self._wp), np.int64(s), np.int64(end),
                          self._ws.path)
        return self._ws.path[:n]

    def _smooth_nodes(self, nodes: NDArray[np.int32], out: NDArray[np.int32] | None = None) -> NDArray[np.int32]:
        """String-pull padded ``nodes`` (seed 000 §4) into ``out`` (default: the
        workspace buffer); on weighted terrain a shortcut must not cost more
        than the path it replaces (:func:`navkit._kernels.geometry.string_pull_weighted`)."""
        buf = self._ws.smooth if out is None else out
        if self.grid.weights is None:
            m = _geo.string_pull(self._cells, self._overlay(), np.int64(self._wp), nodes, len(nodes), buf)
        else:
            if self._cum is None or len(self._cum) < len(nodes):
                self._cum = np.zeros(max(len(nodes), self._wp * self._hp), dtype=np.int64)
            m = _geo.string_pull_weighted(self._cells, self._overlay(), np.int64(self._wp), self._weights,
                                          np.int64(self.costs.card), np.int64(self.costs.diag), nodes, len(nodes),
                                          buf, self._cum)
        return buf[:m]

    # ------------------------------------------------------------------ JPS
    def _jps_bits(self) -> tuple[Any, ...]:
        """Packed rows and columns of the effective cells (built on first use,
        kept in sync by :meth:`add_occupant` / :meth:`remove_occupant`), with
        the one-call query's standing overlay released."""
        bits = self._jps
        if bits is not None:
            if self._ov[0]:
                self._release_overlay()
            return bits
        nwr = _jps.words_per_line(self._wp)
        nwc = _jps.words_per_line(self._hp)
        rows = np.zeros(_jps.bits_size(self._hp, self._wp), dtype=np.int64)
        cols = np.zeros(_jps.bits_size(self._wp, self._hp), dtype=np.int64)
        _jps.pack(self._cells, self._wp, self._hp, rows, nwr, cols, nwc)
        bits = self._jps = (rows, cols, int(self._wp), int(nwr), int(nwc))
        return bits

    def _jps_block(self, bits: tuple[Any, ...]) -> int:
        """Clear the bits of this query's overlay cells; returns how many (for :meth:`_jps_unblock`).

        Costs time in proportion to the circles' bounding boxes, not the grid."""
        if self._mark <= 0 or self._overlay_circles is None:
            return 0
        return int(_jps.overlay_block(bits, self._marks, np.int32(self._mark), self._hp, self._geo_t,
                                      self._overlay_circles, self._jps_saved_buffer()))

    def _release_overlay(self) -> None:
        """Restore the JPS rows under the one-call query's standing overlay (:meth:`_world_jps`)."""
        if self._ov[0] and self._jps is not None:
            _query.release(self._jps, self._hp, self._geo_t, self._ov, self._ov_circles, self._jps_saved_buffer())
        self._ov[:] = 0

    def _jps_saved_buffer(self) -> NDArray[np.int32]:
        if self._jps_saved is None:
            self._jps_saved = np.zeros(self._wp * self._hp, dtype=np.int32)
        return self._jps_saved

    def _jps_next_gen(self, count: int = 1) -> int:
        """Start ``count`` JPS searches: allocate their per-node state on first use,
        reserve generations ``gen .. gen + count - 1`` (clearing the state when
        they wrap around); returns ``gen``."""
        gen = int(self._counters[0]) + 1
        if self._jps_nd is None:
            self._jps_nd = np.zeros(2 * self._wp * self._hp, dtype=np.int64)
            self._jps_cand = np.zeros(3 * self._heap_extra, dtype=np.int64)
            gen = 1
        elif gen + count > _GEN_LIMIT:
            self._jps_nd.fill(0)
            gen = 1
        self._counters[0] = gen + count - 1
        return gen

    def _path_buffers(self, need: int) -> None:
        """Grow the path buffers to hold a chain of ``need`` cells."""
        size = max(need, 2 * len(self._jps_cells))
        self._jps_cells = np.zeros((size, 2), dtype=np.int32)
        self._jps_pts = np.zeros((size, 2), dtype=np.float64)
        self._wpts = np.zeros((size, 2), dtype=np.float64)
        self._fx = None  # it holds the old buffers

    def _jps_unblock(self, bits: tuple[Any, ...], k: int) -> None:
        if k > 0:
            assert self._jps_saved is not None
            _jps.overlay_restore(bits, self._hp, self._geo_t, self._overlay_circles, self._jps_saved, k)

    def _jps_query(
        self, s: tuple[int, int], g: tuple[int, int], *, smooth: bool, nearest: bool, budget: int | None
    ) -> PathResult:
        """Jump Point Search between two cells (the ``algorithm="jps"`` branch of the cell queries).

        Same cost as A* (an optimal path; the cells may be another optimal
        path than A*'s). ``cells`` is the full cell chain, interpolated
        between jump points; ``expanded``/``generated`` count jump points.
        ``budget`` counts jump-point expansions. With ``nearest=True``: a
        found goal gives JPS's path; for an unreachable or blocked goal a
        flood of the start's region finds the reachable cell closest to the
        goal (the cell an exhaustive A* picks: seed 000 §5's rule) and JPS
        finds the path to it (status NEAREST; ``expanded`` and
        ``generated`` add the flooded cells); with a budget smaller than the
        grid, A* answers instead, as its budget decides which cells count;
        a budget run out gives the path to the expanded jump point closest
        to the goal, as A* does with its expanded cells. (A ``window`` query
        is answered by A*: see :meth:`_cell_query`.)
        """
        fy = self.grid.floor_y
        b = self.budget if budget is None else self._check_budget(budget)
        sn = (s[1] + 1) * self._wp + s[0] + 1
        gn = (g[1] + 1) * self._wp + g[0] + 1
        bits = self._jps_bits()
        cbuf, pbuf = self._jps_cells, self._jps_pts
        ws = self._ws
        gen = self._jps_next_gen()
        nd = self._jps_nd
        out = (ws.path, cbuf, pbuf, self._geo_t)
        k = self._jps_block(bits) if self._mark > 0 else 0
        try:
            m = _jps.jps_path(bits, self._jps_model, (nd, ws.hf, ws.hk, gen, self._jps_cand), (sn, gn, b, nearest),
                              self._stats, out)
        finally:
            if k:
                self._jps_unblock(bits, k)
        st = self._stats.tolist()
        code = _STATUS[st[0]]
        if code is Status.NO_START:
            return PathResult(code, start_cell=s, floor_y=fy)
        if nearest and (code is Status.UNREACHABLE or code is Status.NO_GOAL):
            if b < self._wp * self._hp:  # a budget A* could run out of: A*'s answer
                return self._cell_query(s, g, smooth=smooth, nearest=True, budget=budget, window=None,
                                        algorithm="astar")
            # the reachable cell an exhaustive A* would pick, then JPS to it
            expanded, generated = st[_search.ST_EXPANDED], st[_search.ST_GENERATED]
            best, flooded = _geo.reachable_nearest(self._cells, self._overlay(), np.int64(self._wp), np.int64(sn),
                                                   np.int64(gn % self._wp), np.int64(gn // self._wp), ws.tag,
                                                   np.int64(ws.next_gen()), ws.path)
            if best == sn:
                return PathResult(Status.UNREACHABLE, expanded=expanded + flooded, generated=generated + flooded,
                                  start_cell=s, floor_y=fy)
            res = self._jps_query(s, self._cell(int(best)), smooth=smooth, nearest=False, budget=budget)
            return replace(res, status=Status.NEAREST, expanded=expanded + flooded + res.expanded,
                           generated=generated + flooded + res.generated)
        if code is Status.NO_GOAL:
            return PathResult(code, start_cell=s, floor_y=fy)
        expanded, generated = st[_search.ST_EXPANDED], st[_search.ST_GENERATED]
        if m == 0:
            return PathResult(code, expanded=expanded, generated=generated, start_cell=s, floor_y=fy)
        if m > len(cbuf):
            self._path_buffers(m)
            cbuf, pbuf = self._jps_cells, self._jps_pts
            _jps.nodes_to_cells(ws.path, m, self._wp, cbuf, pbuf, self._geo_t)
        if code is Status.FOUND:
            end, cost_int = gn, st[_search.ST_COST]
        else:
            end, cost_int = st[_search.ST_BEST], st[_search.ST_BEST_COST]
        cells = cbuf[:m].copy()
        if smooth:
            kept = self._smooth_nodes(ws.path[:m])
            waypoints = self._cells_and_centres(kept)[1]
        else:
            waypoints = pbuf[:m].copy()
        return PathResult(
            code,
            cells=cells,
            waypoints=waypoints,
            cost=cost_int / self.costs.card,
            cost_int=cost_int,
            expanded=expanded,
            generated=generated,
            start_cell=s,
            end_cell=(end % self._wp - 1, end // self._wp - 1),
            floor_y=fy,
        )

    # --------------------------------------------------------------- queries
    def find_path_cells(
        self,
        start: ArrayLike,
        goal: ArrayLike,
        *,
        smooth: bool = False,
        nearest: bool = False,
        budget: int | None = None,
        window: Sequence[int] | None = None,
        algorithm: str = "astar",
        obstacles: ArrayLike | None = None,
    ) -> PathResult:
        """Shortest path between two cells ``(x, z)``; no snapping.

        ``status`` is NO_START / NO_GOAL when an endpoint cell is blocked.
        With ``nearest=True`` an unreachable (or blocked) goal gives the path
        to the reachable cell closest to it (seed 000 §5), status NEAREST.
        ``algorithm`` is ``"astar"``, ``"dijkstra"`` (same answer, no
        heuristic), ``"jps"`` (Jump Point Search: same cost, far fewer nodes,
        uniform-cost 8-connected grids only; see :meth:`_jps_query` for how
        it treats ``nearest``, ``budget`` and ``window``) or ``"auto"``
        (``"jps"`` on an unweighted 8-connected grid, else ``"astar"``).
        ``waypoints`` are the cell centres of the (smoothed) path.
        ``obstacles``: world circles ``(k, 3)`` = ``(x, z, radius)`` blocking
        the cells whose centres they cover, for this query only (seed 000 §6).

        >>> import numpy as np
        >>> pf = Pathfinder(NavGrid(np.ones((3, 4), bool)))
        >>> pf.find_path_cells((0, 0), (3, 2)).cost
        3.8
        """
        s = self._cell_arg(start, "start")
        g = self._cell_arg(goal, "goal")
        if obstacles is None:
            self._set_overlay(None)
            if (algorithm == "jps" or algorithm == "auto") and window is None and self._jps_usable:
                return self._jps_query(s, g, smooth=smooth, nearest=nearest, budget=budget)  # fast path
            return self._cell_query(s, g, smooth=smooth, nearest=nearest, budget=budget, window=window,
                                    algorithm=algorithm)
        with self._overlay_for(obstacles):
            return self._cell_query(s, g, smooth=smooth, nearest=nearest, budget=budget, window=window,
                                    algorithm=algorithm)

    def resolve_algorithm(self, algorithm: str) -> str:
        """The algorithm a query with ``algorithm`` runs: ``"auto"`` becomes
        ``"jps"`` on an unweighted 8-connected grid and ``"astar"`` otherwise.

        Raises QueryError for an unknown name, and for ``"jps"`` on a weighted
        or 4-connected grid (JPS never ignores weights silently).
        """
        if algorithm == "astar" or algorithm == "dijkstra":
            return algorithm
        if algorithm == "auto":
            return "jps" if self._jps_usable else "astar"
        if algorithm == "jps":
            if self.grid.weights is not None:
                raise QueryError(
                    "JPS needs a uniform-cost grid, but this grid has terrain weights; "
                    "use algorithm='astar' (or 'auto', which picks A* here)"
                )
            if self.connectivity != 8:
                raise QueryError(
                    "JPS needs an 8-connected grid, but this Pathfinder is 4-connected; "
                    "use algorithm='astar' (or 'auto', which picks A* here)"
                )
            if not self._jps_fits:
                raise QueryError(
                    f"JPS's 64-bit queue keys cannot hold the heuristic values of a {self.grid.width}x"
                    f"{self.grid.depth} grid with these step costs; use smaller costs (e.g. costs='seed') "
                    "or algorithm='astar'"
                )
            return algorithm
        raise QueryError(f"algorithm must be one of {', '.join(map(repr, ALGORITHMS))}, got {algorithm!r}")

    def _cell_query(
        self,
        s: tuple[int, int],
        g: tuple[int, int],
        *,
        smooth: bool,
        nearest: bool,
        budget: int | None,
        window: Sequence[int] | None,
        algorithm: str,
    ) -> PathResult:
        algorithm = self.resolve_algorithm(algorithm)
        if algorithm == "jps" and window is None:
            return self._jps_query(s, g, smooth=smooth, nearest=nearest, budget=budget)
        hmul = 0 if algorithm == "dijkstra" else self._wmin
        fy = self.grid.floor_y
        if not self._free(s):
            return PathResult(Status.NO_START, start_cell=s, floor_y=fy)
        if not self._free(g) and not nearest:
            return PathResult(Status.NO_GOAL, start_cell=s, floor_y=fy)
        sn, gn = self._node(s), self._node(g)
        st = self._run(sn, gn, budget, window, hmul)
        code = Status(int(st[_search.ST_STATUS]))
        expanded, generated = int(st[_search.ST_EXPANDED]), int(st[_search.ST_GENERATED])
        if code == Status.FOUND:
            end, cost_int = gn, int(st[_search.ST_COST])
        elif nearest and int(st[_search.ST_BEST]) != sn:
            end, cost_int = int(st[_search.ST_BEST]), int(st[_search.ST_BEST_COST])
            if code == Status.UNREACHABLE or code == Status.WINDOW_EXHAUSTED:
                code = Status.NEAREST
        else:
            return PathResult(code, expanded=expanded, generated=generated, start_cell=s, floor_y=fy)
        nodes = self._trace(sn, end)
        cells, waypoints = self._cells_and_centres(nodes)
        if smooth:
            waypoints = self._cells_and_centres(self._smooth_nodes(nodes))[1]
        return PathResult(
            code,
            cells=cells,
            waypoints=waypoints,
            cost=cost_int / self.costs.card,
            cost_int=cost_int,
            expanded=expanded,
            generated=generated,
            start_cell=s,
            end_cell=self._cell(end),
            floor_y=fy,
        )

    def snap(self, point: ArrayLike) -> tuple[int, int] | None:
        """The walkable cell for a world point: its own cell, or the nearest
        walkable cell within ``snap_radius`` metres (square rings, seed 000 §3;
        nearest by squared cell distance, ties to the lower linear index)."""
        wx, wz = self._world_arg(point, "point")
        return self._snap_world(wx, wz)

    def _snap_world(self, wx: float, wz: float) -> tuple[int, int] | None:
        cx, cz = self.grid.world_to_cell(wx, wz)
        # far-away cells: clamped to int64-safe values (geometry.snap_cell clamps further)
        cx = min(max(cx, -_FAR_CELLS), _FAR_CELLS)
        cz = min(max(cz, -_FAR_CELLS), _FAR_CELLS)
        node = _geo.snap_cell(self._cells, self._overlay(), np.int64(self._wp), np.int64(self._hp),
                              np.int64(self._snap_rings), np.int64(cx), np.int64(cz))
        return None if node < 0 else self._cell(int(node))

    def find_path(
        self,
        start: ArrayLike,
        end: ArrayLike,
        *,
        smooth: bool = True,
        nearest: bool = False,
        budget: int | None = None,
        window: Sequence[int] | None = None,
        obstacles: ArrayLike | None = None,
        algorithm: str = "auto",
    ) -> PathResult:
        """Path between two world points ``(x, z)`` (or ``(x, y, z)``), in metres.

        Seed 000 §3-§5: start and end snap to walkable cells within
        ``snap_radius``; the path is string-pulled (``smooth``); the first
        waypoint is dropped when within ``0.75 * cell_size`` of ``start``; the
        last waypoint is the exact ``end`` when ``end``'s own cell is the end
        cell. With ``nearest=True`` this is find-path-to-nearest: one search
        with the obstacles, never retried without them (seed 000 §5).
        ``obstacles`` are world circles ``(k, 3)`` as in :meth:`find_path_cells`;
        snapping avoids them too, so an occupied destination resolves to a
        nearby free cell. ``algorithm`` is as in :meth:`find_path_cells`,
        but defaults to ``"auto"``: Jump Point Search on an unweighted
        8-connected grid (the same cost as A*, though the string-pulled
        waypoints may follow another optimal path; ``budget`` then counts
        jump points), A* otherwise; pass ``algorithm="astar"`` for A*'s own
        path. An end outside the grid is always searched with A*.
        """
        return self._world_query(start, end, smooth, nearest, budget, window, obstacles, algorithm)

    def _world_query(
        self, start: ArrayLike, end: ArrayLike, smooth: bool, nearest: bool, budget: int | None,
        window: Sequence[int] | None, obstacles: ArrayLike | None, algorithm: str,
    ) -> PathResult:
        """:meth:`find_path` with positional arguments (the facades call this)."""
        sw = self._world_arg(start, "start")
        ew = self._world_arg(end, "end")
        algorithm = self.resolve_algorithm(algorithm)
        if algorithm == "jps" and window is None and self._fused:
            res = self._world_jps(sw, ew, smooth, nearest, budget, obstacles)
            if res is not None:
                return res
        with self._overlay_for(obstacles):
            return self._find_path(sw, ew, smooth=smooth, nearest=nearest, budget=budget, window=window,
                                   algorithm=algorithm)

    def _find_path(
        self, sw: tuple[float, float], ew: tuple[float, float], *, smooth: bool, nearest: bool,
        budget: int | None, window: Sequence[int] | None, algorithm: str = "astar",
    ) -> PathResult:
        fy = self.grid.floor_y
        s = self._snap_world(*sw)
        if s is None:
            return PathResult(Status.NO_START, floor_y=fy)
        g = self._snap_world(*ew)
        if g is None:
            if not nearest:
                return PathResult(Status.NO_GOAL, start_cell=s, floor_y=fy)
            g = self.grid.world_to_cell(*ew)
            if max(abs(g[0]), abs(g[1])) > _FAR_CELLS:
                raise QueryError(f"end {ew} lies more than {_FAR_CELLS} cells outside the grid")
            if self.grid.in_bounds(*g):
                res = self._cell_query(s, g, smooth=smooth, nearest=True, budget=budget, window=window,
                                       algorithm=algorithm)
            else:
                res = self._border_goal_query(s, g, smooth=smooth, budget=budget, window=window)
        else:
            res = self._cell_query(s, g, smooth=smooth, nearest=nearest, budget=budget, window=window,
                                   algorithm=algorithm)
        if not res.has_path:
            return res
        pts = np.array(res.waypoints, dtype=np.float64)
        if res.status == Status.FOUND and self.grid.world_to_cell(*ew) == res.end_cell:
            pts[-1] = ew
        if len(pts) > 1:
            d = math.hypot(pts[0, 0] - sw[0], pts[0, 1] - sw[1])
            if d <= FIRST_WAYPOINT_TRIM * self.grid.cell_size:
                pts = pts[1:]
        pts.setflags(write=False)
        return PathResult(
            res.status, cells=res.cells, waypoints=pts, cost=res.cost, cost_int=res.cost_int,
            expanded=res.expanded, generated=res.generated, start_cell=res.start_cell,
            end_cell=res.end_cell, floor_y=fy,
        )

    def _world_jps(
        self, sw: tuple[float, float], ew: tuple[float, float], smooth: bool, nearest: bool,
        budget: int | None, obstacles: ArrayLike | None,
    ) -> PathResult | None:
        """:meth:`_find_path` with JPS in one kernel call (:func:`navkit._kernels.query.world_jps`):
        the same answer, without the interpreter between the steps. None for
        the queries it leaves to :meth:`_find_path` (an end outside the grid)."""
        circles = _NO_CIRCLES
        if obstacles is not None:
            if (type(obstacles) is np.ndarray and obstacles.ndim == 2 and obstacles.shape[1] == 3
                    and obstacles.dtype == _F64 and obstacles.flags.c_contiguous):
                circles = obstacles  # its values are checked by the kernel
            else:
                circles = as_circles(obstacles)
            if len(circles) > len(self._ov_circles):
                self._release_overlay()
                self._ov_circles = np.zeros((2 * len(circles), 3), dtype=np.float64)
                self._fx = None
        fx = self._fx if self._fx is not None else self._fused_args()
        q = (sw[0], sw[1], ew[0], ew[1], self.budget if budget is None else self._check_budget(budget),
             bool(nearest), bool(smooth))
        res = self._qres
        code = _query.world_jps(fx, circles, q, res)
        while code == _query.NEED_ROOM:
            self._path_buffers(int(res[_query.R_NCELLS]))
            code = _query.world_jps(self._fused_args(), circles, q, res)
        if code == _query.FALLBACK:
            return None
        if code == _query.BAD_CIRCLE:
            as_circles(circles)  # raises the QueryError naming the row
            raise AssertionError("unreachable")  # pragma: no cover
        r = res.tolist()
        fy = self.grid.floor_y
        status = _STATUS[code]
        s = r[_query.R_START]
        start_cell = None if s < 0 else (s % self._wp - 1, s // self._wp - 1)
        m = r[_query.R_NCELLS]
        if m == 0:
            if code == Status.NO_START or code == Status.NO_GOAL:
                return PathResult(status, start_cell=start_cell, floor_y=fy)
            return PathResult(status, expanded=r[_query.R_EXPANDED], generated=r[_query.R_GENERATED],
                              start_cell=start_cell, floor_y=fy)
        first = r[_query.R_FIRST]
        pts = self._wpts[first : first + r[_query.R_NPTS]].copy()
        pts.setflags(write=False)
        e = r[_query.R_END]
        cost_int = r[_query.R_COST]
        return make_path_result(status, self._jps_cells[:m].copy(), pts, cost_int / self.costs.card, cost_int,
                                r[_query.R_EXPANDED], r[_query.R_GENERATED], start_cell,
                                (e % self._wp - 1, e // self._wp - 1), fy)

    def _fused_args(self) -> tuple[Any, ...]:
        """The static arguments of :func:`navkit._kernels.query.world_jps` (built once:
        every array in it is updated in place, never replaced)."""
        bits = self._jps_bits()
        if self._jps_nd is None:
            self._jps_next_gen()
        ws = self._ws
        g = self.grid
        self._fx = (
            bits, self._jps_model, (self._jps_nd, ws.hf, ws.hk, self._jps_cand), self._grid_tuple(),
            self._model(self._wmin), (ws.g, ws.parent, ws.tag, ws.pos, ws.gens),
            (int(self._wp), int(self._hp), self._snap_rings),
            (float(g.min_x), float(g.min_z), float(g.cell_size), FIRST_WAYPOINT_TRIM * g.cell_size),
            (self._marks, self._jps_saved_buffer(), self._stats, self._ov, self._ov_circles, self._counters),
            (ws.path, ws.smooth, self._jps_cells, self._wpts),
        )
        return self._fx

    def _border_goal_query(
        self, s: tuple[int, int], g: tuple[int, int], *, smooth: bool, budget: int | None,
        window: Sequence[int] | None,
    ) -> PathResult:
        # The goal cell lies outside the grid: search toward the grid cell
        # nearest to it (a padding node, never passable), then pick among the
        # expanded cells the one closest to the true goal cell (seed 000 §5).
        fy = self.grid.floor_y
        if not self._free(s):
            return PathResult(Status.NO_START, start_cell=s, floor_y=fy)
        sn = self._node(s)
        clamped = (min(max(g[0], -1), self.grid.width), min(max(g[1], -1), self.grid.depth))
        st = self._run(sn, self._node(clamped), budget, window, self._wmin)
        code = Status(int(st[_search.ST_STATUS]))
        expanded, generated = int(st[_search.ST_EXPANDED]), int(st[_search.ST_GENERATED])
        closed = self._ws.closed_nodes()
        cz = closed // self._wp - 1
        cx = closed % self._wp - 1
        d2 = (cx - g[0]) ** 2 + (cz - g[1]) ** 2
        best = int(closed[np.lexsort((closed, d2))[0]])
        if best == sn:
            return PathResult(code, expanded=expanded, generated=generated, start_cell=s, floor_y=fy)
        if code in (Status.UNREACHABLE, Status.WINDOW_EXHAUSTED):
            code = Status.NEAREST
        nodes = self._trace(sn, best)
        cells, waypoints = self._cells_and_centres(nodes)
        if smooth:
            waypoints = self._cells_and_centres(self._smooth_nodes(nodes))[1]
        cost_int = int(self._ws.g[best])
        return PathResult(code, cells=cells, waypoints=waypoints,
                          cost=cost_int / self.costs.card, cost_int=cost_int, expanded=expanded,
                          generated=generated, start_cell=s, end_cell=self._cell(best), floor_y=fy)

    def find_path_to_nearest(
        self,
        start: ArrayLike,
        end: ArrayLike,
        *,
        smooth: bool = True,
        budget: int | None = None,
        window: Sequence[int] | None = None,
        obstacles: ArrayLike | None = None,
        algorithm: str = "auto",
    ) -> PathResult:
        """:meth:`find_path` with ``nearest=True`` (seed 000 §5)."""
        return self._world_query(start, end, smooth, True, budget, window, obstacles, algorithm)

    # --------------------------------------------------------- inspection
    @property
    def search_generation(self) -> int:
        """How many A* / Dijkstra searches this Pathfinder's workspace has run
        (modulo the counter's wrap-around). Read it before a query and pass it
        to :meth:`last_search` as ``since``."""
        return int(self._ws.gens[0])

    def last_search(self, since: int | None = None) -> SearchTrace | None:
        """The cells the last A* / Dijkstra search closed, with their costs.

        None when no search ran yet, or none since generation ``since`` (a
        query answered without a search: a blocked start, or JPS, whose jump
        points live elsewhere). For the viewer's heat map and for debugging.
        """
        gen = int(self._ws.gens[0])
        if gen == 0 or (since is not None and gen == since):
            return None
        nodes = self._ws.closed_nodes()
        return SearchTrace(gen, self._nodes_to_cells(nodes), self._ws.g[nodes].copy())

    # ------------------------------------------------------------- geometry
    def line_of_sight(self, a: ArrayLike, b: ArrayLike) -> bool:
        """True when the straight segment between two cell centres crosses only
        walkable cells and squeezes through no blocked corner."""
        ca = self._cell_arg(a, "a")
        cb = self._cell_arg(b, "b")
        return bool(_geo.line_of_sight(self._cells, self._overlay(), np.int64(self._wp),
                                       np.int64(self._node(ca)), np.int64(self._node(cb))))

    def smooth_cells(self, cells: ArrayLike) -> NDArray[np.int32]:
        """String-pull a cell path (seed 000 §4); returns the kept cells, shape (k, 2).

        On weighted terrain ``cells`` should be a chain of neighbours (a
        search's path): a shortcut is kept only when it costs no more than
        the steps it replaces."""
        arr = self._cells_array(cells, "cells")
        nodes = ((arr[:, 1] + 1) * self._wp + arr[:, 0] + 1).astype(np.int32)
        return self._nodes_to_cells(self._smooth_nodes(nodes, np.empty(len(nodes), dtype=np.int32)))

    # --------------------------------------------------------------- fields
    def distance_field(
        self, sources: ArrayLike, *, out: NDArray[np.float64] | None = None, obstacles: ArrayLike | None = None
    ) -> NDArray[np.float64]:
        """Cost from the nearest of ``sources`` (cells, shape (k, 2)) to every cell.

        Returns a float64 ``(depth, width)`` array in cardinal-step units,
        ``inf`` where unreachable. Moves are those of A* (the cost of a step is
        charged by the cell entered, walking away from the sources).
        """
        raw = self.distance_field_int(sources, obstacles=obstacles)
        if out is None:
            out = np.empty(self.grid.shape, dtype=np.float64)
        elif out.shape != self.grid.shape or out.dtype != np.float64:
            raise QueryError(f"out must be float64 of shape {self.grid.shape}, got {out.dtype} {out.shape}")
        np.divide(raw, self.costs.card, out=out)
        out[raw < 0] = np.inf
        return out

    def distance_field_int(self, sources: ArrayLike, *, obstacles: ArrayLike | None = None) -> NDArray[np.int64]:
        """Like :meth:`distance_field` but the kernel's integer costs, -1 where unreachable."""
        src = np.asarray(sources)
        if src.ndim == 1:
            src = src.reshape(1, -1)
        if src.ndim != 2 or src.shape[1] != 2 or len(src) == 0:
            raise QueryError(f"sources must be a non-empty (k, 2) array of cells, got shape {src.shape}")
        nodes = np.array([self._node(self._cell_arg(c, f"sources[{i}]")) for i, c in enumerate(src)], dtype=np.int64)
        dist = np.empty(self._wp * self._hp, dtype=np.int64)
        gen = self._ws.next_gen()
        with self._overlay_for(obstacles):
            _search.distance_field(self._grid_tuple(), self._overlay(), self._model(0), self._ws.single(gen),
                                   nodes, dist)
        return dist.reshape(self._hp, self._wp)[1:-1, 1:-1].copy()

    # ---------------------------------------------------------------- batch
    def find_paths_batch(
        self,
        starts: ArrayLike,
        goals: ArrayLike,
        *,
        return_paths: bool = False,
        budget: int | None = None,
        threads: int | None = None,
        obstacles: ArrayLike | None = None,
        algorithm: str = "astar",
    ) -> BatchResult:
        """Answer ``starts[i] -> goals[i]`` (cells, shape (n, 2)) on all cores.

        Answers (cost, status, expansions, paths) are identical to
        :meth:`find_path_cells` with the same ``algorithm`` for each pair
        (``"astar"``, ``"dijkstra"``, ``"jps"`` or ``"auto"``; JPS paths are
        the full cell chains). ``threads`` defaults to numba's thread count.
        """
        algorithm = self.resolve_algorithm(algorithm)
        with self._overlay_for(obstacles):
            return self._batch(starts, goals, return_paths=return_paths, budget=budget, threads=threads,
                               algorithm=algorithm)

    def _batch(
        self, starts: ArrayLike, goals: ArrayLike, *, return_paths: bool, budget: int | None,
        threads: int | None, algorithm: str = "astar",
    ) -> BatchResult:
        s = self._cells_array(starts, "starts")
        g = self._cells_array(goals, "goals")
        if len(s) != len(g):
            raise QueryError(f"starts and goals must have the same length, got {len(s)} and {len(g)}")
        if threads is None:
            nthreads = numba.get_num_threads()
        elif isinstance(threads, (int, np.integer)) and not isinstance(threads, bool) and threads >= 1:
            nthreads = int(threads)
        else:
            raise QueryError(f"threads must be a positive int or None, got {threads!r}")
        nthreads = min(nthreads, max(1, len(s)), numba.config.NUMBA_NUM_THREADS)
        n = len(s)
        sn = ((s[:, 1] + 1) * self._wp + s[:, 0] + 1).astype(np.int64)
        gn = ((g[:, 1] + 1) * self._wp + g[:, 0] + 1).astype(np.int64)
        ws = self._batch_ws
        if ws is None or ws.g.shape[0] < nthreads:
            # rings as long as the single queries' have grown (see Workspace.grow_rings)
            ws = self._batch_ws = Workspace(self._wp * self._hp, rows=nthreads, heap_extra=self._heap_extra,
                                            ring_bits=self._ws.ring_bits)
        gens = ws.gens[:nthreads]
        stats = np.zeros((n, _search.STATS_SIZE), dtype=np.int64)
        path_parts: list[NDArray[np.int32]] = [_NO_CELLS] * n
        hmul = 0 if algorithm == "dijkstra" else self._wmin
        if algorithm == "jps":
            search_many = self._jps_many(nthreads, ws, budget)
        else:
            grid, ovl, model = self._grid_tuple(), self._overlay(), self._model(hmul)
            lim = self._limits(budget, None)
            weighted = self.grid.weights is not None
            kernel = _batch.batch_kernel(weighted, self._mark > 0, False, self.connectivity == 8,
                                         not weighted and self._level_queue)
            offsets = self._stream_offsets(hmul)

            def search_many(*args: Any) -> None:
                rows = tuple(a[:nthreads] for a in ws.rows())  # read now: grow_rings replaces the rings
                kernel(grid, ovl, model, lim, rows, gens, (offsets, ws.ring_bits, self._moves), *args)

        def solve(idx: NDArray[np.intp]) -> None:
            """Queries ``idx`` into ``stats`` (and ``path_parts``)."""
            out = np.zeros((len(idx), _search.STATS_SIZE), dtype=np.int64)
            if not return_paths:
                ws.reserve_gens(len(idx) // nthreads + 1)
                search_many(sn[idx], gn[idx], out, np.zeros((0, 1), np.int32), np.zeros(1, np.int64))
            else:
                paths = ws.path[:nthreads]
                plen = np.zeros(nthreads, dtype=np.int64)
                for lo in range(0, len(idx), nthreads):
                    part = idx[lo:lo + nthreads]
                    ws.reserve_gens(1)
                    search_many(sn[part], gn[part], out[lo:lo + len(part)], paths, plen)
                    for t, i in enumerate(part.tolist()):
                        path_parts[i] = self._nodes_to_cells(paths[t, : plen[t]])
            stats[idx] = out

        solve(np.arange(n))
        retry = np.flatnonzero(stats[:, _search.ST_STATUS] == _search.RETRY)
        while len(retry) and ws.grow_rings():  # a ring of the level queue filled: again on longer rings
            solve(retry)
            retry = np.flatnonzero(stats[:, _search.ST_STATUS] == _search.RETRY)
        for i in retry.tolist():
            # the rings are as long as they get: the single query on the heap
            stats[i] = self._run(int(sn[i]), int(gn[i]), budget, None, hmul, level_queue=False)
            if return_paths and stats[i, _search.ST_STATUS] == _search.FOUND:
                path_parts[i] = self._nodes_to_cells(self._trace(int(sn[i]), int(gn[i])))
        status = stats[:, _search.ST_STATUS].astype(np.uint8)
        cost_int = np.where(status == Status.FOUND, stats[:, _search.ST_COST], -1)
        cost = np.where(cost_int >= 0, cost_int / self.costs.card, np.inf)
        offsets = cells = None
        if return_paths:
            lengths = np.array([len(p) for p in path_parts], dtype=np.int64)
            offsets = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            cells = np.concatenate(path_parts) if path_parts else np.zeros((0, 2), np.int32)
        return BatchResult(status=status, cost=cost, cost_int=cost_int, expanded=stats[:, _search.ST_EXPANDED].copy(),
                           generated=stats[:, _search.ST_GENERATED].copy(), path_offsets=offsets, path_cells=cells)

    def _jps_many(self, nthreads: int, ws: Workspace, budget: int | None) -> Any:
        """A ``search_many(starts, goals, stats, paths, plen)`` running JPS on ``nthreads`` threads."""
        b = self.budget if budget is None else self._check_budget(budget)
        size = 2 * self._wp * self._hp
        state = self._jps_batch
        if state is None or state[0].shape[0] < nthreads:
            state = self._jps_batch = (np.zeros((nthreads, size), dtype=np.int64), np.zeros(nthreads, dtype=np.int64),
                                       np.zeros((nthreads, 3 * self._heap_extra), dtype=np.int64))
        nd2, gens2 = state[0][:nthreads], state[1][:nthreads]
        wsa = (nd2, ws.hf[:nthreads], ws.hk[:nthreads], state[2][:nthreads])
        bits = self._jps_bits()

        def search_many(sn: Any, gn: Any, stats: Any, paths: Any, plen: Any) -> None:
            if int(gens2.max()) + len(sn) // nthreads + 1 >= _GEN_LIMIT:
                nd2.fill(0)
                gens2.fill(0)
            k = self._jps_block(bits)
            try:
                _jps.run_many(bits, self._jps_model, wsa, gens2, b, sn, gn, stats, paths, plen)
            finally:
                self._jps_unblock(bits, k)

        return search_many

    def _cells_array(self, value: ArrayLike, name: str) -> NDArray[np.int64]:
        arr = np.asarray(value)
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise QueryError(f"{name} must have shape (n, 2), got {arr.shape}")
        if not np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_:
            raise QueryError(f"{name} must be an integer array, got dtype {arr.dtype}")
        arr = arr.astype(np.int64)
        if len(arr):
            bad = (arr[:, 0] < 0) | (arr[:, 0] >= self.grid.width) | (arr[:, 1] < 0) | (arr[:, 1] >= self.grid.depth)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise QueryError(f"{name}[{i}] = {tuple(arr[i])} is outside the {self.grid.width}x{self.grid.depth} grid")
        return arr

    def __repr__(self) -> str:
        return f"Pathfinder({self.grid!r}, costs={self.costs.name}, connectivity={self.connectivity})"


def default_threads() -> int:
    """Threads numba will use (``NUMBA_NUM_THREADS`` or the core count)."""
    return int(os.environ.get("NUMBA_NUM_THREADS", numba.config.NUMBA_NUM_THREADS))
