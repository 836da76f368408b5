"""Flow fields: one exact integration field shared by every unit heading for the same goals.

Quick start::

    >>> import numpy as np, navkit
    >>> walk = np.ones((3, 4), dtype=bool); walk[0:2, 2] = False
    >>> ff = navkit.FlowField(navkit.NavGrid(walk)).build([(3, 0)])
    >>> ff.cost_int.tolist()
    [[64, 60, -1, 0], [54, 50, -1, 10], [50, 40, 30, 20]]
    >>> ff.direction.tolist()
    [[1, 1, -1, 8], [4, 1, -1, 3], [0, 0, 0, 3]]
    >>> ff.follow((0, 0)).tolist()
    [[0, 0], [0, 1], [1, 2], [2, 2], [3, 2], [3, 1], [3, 0]]
    >>> ff.next_cell(1, 1), ff.next_cell(2, 0)
    ((1, 2), None)
    >>> ff.lookup([[0.5, 0.5], [3.5, 2.5]]).tolist()
    [[0.0, 1.0], [0.0, -1.0]]

Seed 002 ("Flow fields"): the *integration field* ``cost`` holds, for every
cell, the cost of walking from it to the nearest goal; the *direction field*
``direction`` holds the best neighbour to step to. Every unit looks its cell up
in O(1).

Rules, the same as :class:`~navkit.query.pathfinder.Pathfinder`'s A*: 8-connected
moves with the corner rule (a diagonal needs both side cells free), or
4-connected; integer step costs from a :class:`~navkit.costs.CostModel`
multiplied by the terrain weight of the cell *entered*. ``cost_int`` is
exactly the Dijkstra cost of the cheapest route from the cell to any goal, so
following ``direction`` from any reachable cell arrives at a goal having paid
exactly ``cost_int`` of that cell.

Direction codes (``int8``), ``(dx, dz)`` per code, in :data:`DIRECTION_OFFSETS`::

    0 (+1, 0)   1 (0, +1)   2 (-1, 0)   3 (0, -1)
    4 (+1, +1)  5 (-1, +1)  6 (-1, -1)  7 (+1, -1)

plus :data:`GOAL` (8) on goal cells and :data:`NONE` (-1) on blocked and
unreachable cells. A cell points to the neighbour ``n`` minimizing
``step * weight[n] + cost[n]`` over its legal moves; among equal choices the
lowest code wins: straight moves before diagonals, and +x, +z, -x, -z in that
order (E, S, W, N as :mod:`navkit.render` draws them, +z pointing down).

The build is a Dijkstra run backward from the goals on a ring of buckets of
width ``card * smallest weight`` (a bucket never changes once reached, so its
cells may be expanded in any order and no heap is needed); weights spread
very widely fall back to a 4-ary heap. Both give the same field.

:meth:`FlowField.update` repairs the field after cells become blocked or free
(moving obstacles, occupants) and matches a full rebuild exactly, costs and
tie-breaks included. :class:`FlowFieldCache` keeps built fields keyed by goals,
cost model, obstacles and map version (seed 004's shared-destination cache).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import flow as _k
from .._kernels import geometry as _geo
from ..costs import CostModel, cost_model
from ..errors import ConfigError, QueryError
from ..grid import NavGrid
from .cache import obstacle_key
from .pathfinder import Pathfinder, _pad, as_circles

__all__ = [
    "FlowField",
    "FlowFieldCache",
    "FlowUpdate",
    "DIRECTION_OFFSETS",
    "DIRECTION_UNIT",
    "GOAL",
    "NONE",
]

#: Direction code of a goal cell.
GOAL = _k.GOAL
#: Direction code of a blocked or unreachable cell.
NONE = _k.NONE
#: ``(dx, dz)`` of direction codes 0..7, shape (8, 2).
DIRECTION_OFFSETS = np.array(_k.OFFSETS, dtype=np.int64)
DIRECTION_OFFSETS.setflags(write=False)
#: Unit vectors per code: rows 0..7 the moves, row 8 (GOAL) and row 9 zero,
#: so ``DIRECTION_UNIT[codes]`` maps ``NONE`` (-1) to the last row, ``(0, 0)``.
DIRECTION_UNIT = np.zeros((10, 2), dtype=np.float64)
DIRECTION_UNIT[:8] = DIRECTION_OFFSETS / np.hypot(DIRECTION_OFFSETS[:, 0], DIRECTION_OFFSETS[:, 1])[:, None]
DIRECTION_UNIT.setflags(write=False)

_MARK_LIMIT = (1 << 30) - 2
#: ``queue="auto"`` keeps buckets while the ring is this short, or while the
#: bucket scans of a worst-case route stay within this many per walkable cell.
_BUCKETS_MAX_RING = 64
_BUCKETS_MAX_SCANS_PER_CELL = 64
_KEEP: Any = object()


class _PoolExhausted(Exception):
    """The bucket search ran out of pool chunks (see :meth:`FlowField._recover`)."""


@dataclass(frozen=True)
class FlowUpdate:
    """What :meth:`FlowField.update` did.

    Attributes
    ----------
    blocked, freed : int
        Cells that became blocked / free since the field was last computed.
    invalidated : int
        Cells whose route ran through a newly blocked cell (or a diagonal that
        now cuts a blocked corner) and were recomputed from their boundary.
    expanded : int
        Cells expanded by the repair searches (a full build expands every
        reachable cell).
    """

    blocked: int
    freed: int
    invalidated: int
    expanded: int


class _Workspace:
    """Search buffers one or more fields of the same map can share (not thread-safe).

    Between runs every pool chunk is free, so fields may take turns with one
    workspace. ``chunk`` and ``chunks`` (entries per chunk, number of chunks)
    exist for tests; a pool smaller than the bound in
    :mod:`navkit._kernels.flow` can run out, and the field then rebuilds on
    the heap.
    """

    def __init__(self, n: int, chunk: int = _k.CHUNK, chunks: int | None = None):
        self.n = n
        self.chunk = int(chunk)
        self.fixed_chunks = chunks
        self.marks = np.zeros(n, dtype=np.int32)
        self.mark_counter = 0
        self._nchunks = 0
        self._ent = np.zeros(0, dtype=np.int32)
        self._cnext = np.zeros(0, dtype=np.int32)
        self._meta = np.zeros(3, dtype=np.int64)
        self._stack: NDArray[np.int32] | None = None
        self._hf: NDArray[np.int64] | None = None
        self._hk: NDArray[np.int64] | None = None

    def pool(self, nb: int) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int64]]:
        """``(ent, cnext, meta)`` with enough chunks for a ring of ``nb`` buckets."""
        need = -(-self.n // self.chunk) + 2 * nb + _k.POOL_SLACK
        if self.fixed_chunks is not None:
            need = self.fixed_chunks
        if need > self._nchunks:
            self._nchunks = need
            self._ent = np.empty(need * self.chunk, dtype=np.int32)
            self._cnext = np.empty(need, dtype=np.int32)
            self.free_all()
        return (self._ent, self._cnext, self._meta)

    def free_all(self) -> None:
        """Put every chunk back on the free list (after an aborted run)."""
        self._cnext[:] = np.arange(1, self._nchunks + 1, dtype=np.int32)  # 0 -> 1 -> ... -> -1
        if self._nchunks:
            self._cnext[-1] = -1
        self._meta[:] = (0, self._nchunks, self.chunk)

    @property
    def stack(self) -> NDArray[np.int32]:
        if self._stack is None:
            self._stack = np.empty(self.n, dtype=np.int32)
        return self._stack

    def heap(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        if self._hf is None or self._hk is None:
            self._hf = np.empty(self.n + 8, dtype=np.int64)
            self._hk = np.empty(self.n + 8, dtype=np.int64)
        return (self._hf, self._hk)

    def next_mark(self) -> int:
        self.mark_counter += 1
        if self.mark_counter >= _MARK_LIMIT:
            self.marks.fill(0)
            self.mark_counter = 1
        return self.mark_counter


def _check_circles(obstacles: ArrayLike, name: str = "obstacles") -> NDArray[np.float64]:
    arr = as_circles(obstacles, name)
    out = np.array(arr, dtype=np.float64, order="C", copy=True)  # never freeze the caller's array
    out.setflags(write=False)
    return out


def _code_of(word: int) -> int:
    """The direction code of one field word (see :mod:`navkit._kernels.flow`)."""
    if word < 0:
        return NONE
    c = (word >> 1) & 15
    return NONE if c == _k.PK_NONE else c


def _goal_cells(grid: NavGrid, goals: ArrayLike) -> NDArray[np.int64]:
    """Validate goal cells: ``(k, 2)`` int64, sorted, without duplicates."""
    arr = np.asarray(goals)
    if arr.ndim == 1 and arr.shape == (2,):
        arr = arr.reshape(1, 2)
    if arr.ndim != 2 or arr.shape[1] != 2 or len(arr) == 0:
        raise QueryError(f"goals must be a cell (x, z) or a non-empty (k, 2) array of cells, got shape {arr.shape}")
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        if not (np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))):
            raise QueryError(f"goals must be integer cells (x, z), got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    w, d = grid.width, grid.depth
    bad = (arr[:, 0] < 0) | (arr[:, 0] >= w) | (arr[:, 1] < 0) | (arr[:, 1] >= d)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise QueryError(
            f"goals[{i}] = {tuple(int(v) for v in arr[i])} is outside the {w}x{d} grid "
            f"(x in [0, {w - 1}], z in [0, {d - 1}])"
        )
    return np.unique(arr, axis=0)


class FlowField:
    """An integration field and direction field toward one or many goal cells.

    Parameters
    ----------
    source : NavGrid or Pathfinder
        The map. With a :class:`~navkit.query.pathfinder.Pathfinder` the field also
        sees its long-lived occupants (read at each :meth:`build` and
        :meth:`update`), and takes its cost model and connectivity by default.
    costs : "seed", "exact", (card, diag), CostModel or None
        Step costs; ``None`` means the pathfinder's model, or ``"seed"``
        (10/14) for a grid.
    connectivity : 8, 4 or None
        ``None`` means the pathfinder's, or 8 for a grid.
    queue : "auto", "buckets" or "heap"
        The search's priority queue; every choice gives the same field.
        ``"auto"`` picks the bucket ring unless the terrain weights spread so
        widely that scanning empty buckets could dominate.

    Costs share an int64 with the direction code, so every route must cost
    less than 2**57 (a ConfigError says when a grid and cost model could
    exceed that; a 1024 x 1024 grid with the exact model and weights up to
    65535 fits).

    The arrays exposed (:attr:`direction`, :attr:`cost`, :attr:`cost_int`)
    live in buffers the field reuses: the next :meth:`build` or
    :meth:`update` overwrites them; copy what you keep. One field is not
    thread-safe.
    """

    def __init__(
        self,
        source: NavGrid | Pathfinder,
        costs: str | CostModel | tuple[int, int] | None = None,
        *,
        connectivity: int | None = None,
        queue: str = "auto",
        _workspace: _Workspace | None = None,
    ):
        if isinstance(source, Pathfinder):
            pf: Pathfinder | None = source
            grid = source.grid
            model = source.costs if costs is None else cost_model(costs)
            conn = source.connectivity if connectivity is None else connectivity
        elif isinstance(source, NavGrid):
            pf = None
            grid = source
            model = cost_model("seed" if costs is None else costs)
            conn = 8 if connectivity is None else connectivity
        else:
            raise QueryError(f"expected a NavGrid or a Pathfinder, got {type(source).__name__}")
        if conn not in (4, 8) or isinstance(conn, bool):
            raise ConfigError(f"expected 4 or 8, got {conn!r}", field="connectivity")
        if queue not in ("auto", "buckets", "heap"):
            raise ConfigError(f"expected 'auto', 'buckets' or 'heap', got {queue!r}", field="queue")
        self.grid = grid
        self.pathfinder = pf
        self.costs = model
        self.connectivity = int(conn)
        self._wp = grid.width + 2
        self._hp = grid.depth + 2
        n = self._wp * self._hp
        if pf is not None:
            self._cells = pf._cells  # live: static cells AND no long-lived occupant
            self._weights = pf._weights
        else:
            self._cells = _pad(grid.walkable, np.uint8, 0)
            self._cells.setflags(write=False)
            self._weights = (_pad(grid.weights, np.int32, 1) if grid.weights is not None
                             else np.ones(1, dtype=np.int32))
        walk = grid.walkable
        if grid.weights is not None and walk.any():
            ww = grid.weights[walk]
            wmin, wmax = int(ww.min()), int(ww.max())
            wsum = int(ww.sum(dtype=np.int64))
        else:
            wmin = wmax = 1
            wsum = int(walk.sum())
        if n * model.diag * wmax >= _k.INF:  # costs share an int64 with the direction code
            raise ConfigError(
                f"flow-field costs could exceed 2**57 on a {grid.width}x{grid.depth} grid with weights up to "
                f"{wmax}; use smaller step costs (e.g. costs='seed')",
                field="costs",
            )
        self._width = model.card * wmin
        self._nb = model.diag * wmax // self._width + 2
        if queue == "auto":
            scans = wsum * model.diag // self._width
            nwalk = max(int(walk.sum()), 1)
            use_buckets = self._nb <= _BUCKETS_MAX_RING or scans <= _BUCKETS_MAX_SCANS_PER_CELL * nwalk
            queue = "buckets" if use_buckets else "heap"
        self.queue = queue
        if _workspace is not None and _workspace.n != n:
            raise ConfigError(f"workspace holds {_workspace.n} nodes, this map needs {n}", field="workspace")
        self._ws = _workspace if _workspace is not None else _Workspace(n)
        self._bhead = np.full(self._nb, -1, dtype=np.int32)
        self._btail = np.full(self._nb, -1, dtype=np.int32)
        self._bfill = np.zeros(self._nb, dtype=np.int32)
        self._pk = np.full(n, _k.BLOCKED, dtype=np.int64)  # the field, see navkit._kernels.flow
        self._free = np.zeros(n, dtype=np.uint8)
        self._goal = np.zeros(n, dtype=np.uint8)
        self._goal_nodes = np.zeros(0, dtype=np.int64)
        self._circles = np.zeros((0, 3), dtype=np.float64)
        self._built = False
        self._revision = 0
        self._reached = 0
        self._cost_f: NDArray[np.float64] | None = None
        self._cost_i: NDArray[np.int64] | None = None
        self._dirs: NDArray[np.int8] | None = None
        self._dirs_rev = -1
        self._lazy_rev = -1
        self._last_expanded = 0

    # ------------------------------------------------------------ internals
    def _node(self, x: int, z: int) -> int:
        return (z + 1) * self._wp + x + 1

    def _grid_t(self) -> tuple[Any, ...]:
        return (self._free, self._weights, np.int64(self._wp), self.grid.weights is not None,
                self.connectivity == 8)

    def _model_t(self) -> tuple[Any, ...]:
        return (np.int64(self.costs.card), np.int64(self.costs.diag), np.int64(self._width), np.int64(self._nb))


    def _run(self, snode: NDArray[np.int64], scost: NDArray[np.int64], scode: NDArray[np.int8]) -> int:
        if len(snode) == 0:
            return 0
        if len(snode) > 1:
            order = np.argsort(scost, kind="stable")
            snode, scost, scode = snode[order], scost[order], scode[order]
        seeds = (snode, scost, scode)
        if self.queue == "buckets":
            ent, cnext, meta = self._ws.pool(self._nb)
            pool = (ent, cnext, self._bhead, self._btail, self._bfill, meta)
            expanded = int(_k.run_buckets(self._grid_t(), self._model_t(), self._pk, pool, seeds))
            if expanded != _k.POOL_EXHAUSTED:
                return expanded
            raise _PoolExhausted
        return int(_k.run_heap(self._grid_t(), self._model_t(), self._pk, self._ws.heap(), seeds))

    def _recover(self) -> int:
        """After the bucket pool ran out (a test-sized workspace only): empty
        the ring and build from scratch on the heap; returns the cells expanded."""
        self._ws.free_all()
        self._bhead.fill(-1)
        self._btail.fill(-1)
        self._bfill.fill(0)
        queue, self.queue = self.queue, "heap"
        try:
            mark = self._stamp(self._circles)
            _k.reset(self._free, self._cells, self._ws.marks, np.int32(mark), self._pk)
            live = self._goal_nodes[self._free[self._goal_nodes] != 0]
            return self._run(live, np.zeros(len(live), dtype=np.int64), np.full(len(live), GOAL, dtype=np.int8))
        finally:
            self.queue = queue

    def _stamp(self, circles: NDArray[np.float64]) -> int:
        """Stamp ``circles`` under a fresh mark; 0 (no overlay) when there are none."""
        if len(circles) == 0:
            return 0
        mark = self._ws.next_mark()
        g = self.grid
        _geo.stamp_circles(self._ws.marks, np.int32(mark), np.int64(self._wp), np.int64(self._hp),
                           float(g.min_x), float(g.min_z), float(g.cell_size), circles,
                           self._ws.marks, np.int32(0))
        return mark

    def _goal_array(self, goals: ArrayLike) -> NDArray[np.int64]:
        return _goal_cells(self.grid, goals)

    def _codes(self, nodes: NDArray[np.int64]) -> NDArray[np.int8]:
        """Direction codes of padded nodes, straight from the field."""
        words = self._pk[nodes]
        codes = ((words >> 1) & 15).astype(np.int8)
        codes[(words < 0) | (codes == _k.PK_NONE)] = NONE
        return codes

    def _require_built(self) -> None:
        if not self._built:
            raise QueryError("the flow field has not been built yet: call build(goals) first")

    def _touch(self) -> None:
        self._revision += 1
        self._built = True

    # ----------------------------------------------------------------- build
    def build(self, goals: ArrayLike, *, obstacles: ArrayLike | None = None) -> FlowField:
        """Compute the field toward ``goals`` (a cell ``(x, z)`` or a ``(k, 2)``
        array of cells) from scratch; returns ``self``.

        ``obstacles``: world circles ``(k, 3)`` = ``(x, z, radius)`` blocking
        the cells whose centres they cover (seed 000 §6), kept as this field's
        snapshot until :meth:`update` replaces it. Goal cells that are blocked
        stay goals and count again once they are freed.
        """
        g = self._goal_array(goals)
        circles = _check_circles(obstacles) if obstacles is not None else np.zeros((0, 3), dtype=np.float64)
        nodes = (g[:, 1] + 1) * self._wp + g[:, 0] + 1
        mark = self._stamp(circles)
        self._goal[self._goal_nodes] = 0
        self._goal[nodes] = 1
        self._goal_nodes = nodes
        self._goals = g
        self._goals.setflags(write=False)
        self._circles = circles
        _k.reset(self._free, self._cells, self._ws.marks, np.int32(mark), self._pk)
        live = nodes[self._free[nodes] != 0]
        try:
            expanded = self._run(live, np.zeros(len(live), dtype=np.int64), np.full(len(live), GOAL, dtype=np.int8))
        except _PoolExhausted:
            expanded = self._recover()
        self._reached = expanded
        self._last_expanded = expanded
        self._touch()
        return self

    # ---------------------------------------------------------------- update
    def update(self, region: Any = None, *, obstacles: ArrayLike | None = _KEEP) -> FlowUpdate:
        """Repair the field after cells changed; equal to a full :meth:`build`.

        The new passability of a cell is the map's (with the pathfinder's
        current occupants) minus the obstacle snapshot: ``obstacles`` replaces
        the snapshot (``None`` or an empty array clears it; omitted keeps it).

        ``region`` says where to look for changes: ``None`` (the whole grid,
        always right), a box ``(x0, z0, x1, z1)`` of cells (inclusive), or a
        boolean ``(depth, width)`` mask. A region must cover every cell that
        changed, including those under the previous obstacle snapshot.

        Cells that became blocked reset the subtree of the direction forest
        below them, which is then recomputed from its boundary; cells that
        became free seed a search that spreads only the decreases they cause.
        """
        self._require_built()
        # validate everything before touching any state
        nodes: NDArray[np.int64] | None = None
        box = (0, 0, self.grid.width - 1, self.grid.depth - 1)
        if isinstance(region, np.ndarray) and region.dtype == np.bool_:
            if region.shape != self.grid.shape:
                raise QueryError(f"region mask must have shape {self.grid.shape} (depth, width), got {region.shape}")
            zz, xx = np.nonzero(region)
            nodes = ((zz + 1) * self._wp + xx + 1).astype(np.int64)
        elif region is not None:
            box = self._box(region)
        if obstacles is _KEEP:
            circles = self._circles
        elif obstacles is None:
            circles = np.zeros((0, 3), dtype=np.float64)
        else:
            circles = _check_circles(obstacles)
        mark = np.int32(self._stamp(circles))
        self._circles = circles
        ws = self._ws
        out = ws.stack
        if nodes is not None:
            nbl, nfr = _k.diff_nodes(self._free, self._cells, ws.marks, mark, nodes, out)
        elif box[0] > box[2] or box[1] > box[3]:
            nbl, nfr = 0, 0
        else:
            x0, z0, x1, z1 = (np.int64(v + 1) for v in box)
            nbl, nfr = _k.diff_box(self._free, self._cells, ws.marks, mark, np.int64(self._wp), x0, z0, x1, z1, out)
        nbl, nfr = int(nbl), int(nfr)
        blocked = out[:nbl].astype(np.int64)
        freed = out[len(out) - nfr:].astype(np.int64) if nfr else np.zeros(0, dtype=np.int64)
        invalidated = 0
        expanded = 0
        try:
            invalidated, expanded = self._repair(blocked, freed)
        except _PoolExhausted:
            expanded = self._recover()
        if nbl or nfr:
            self._reached = -1  # counted when asked
        self._last_expanded = expanded
        self._touch()
        return FlowUpdate(blocked=nbl, freed=nfr, invalidated=invalidated, expanded=expanded)

    def _repair(self, blocked: NDArray[np.int64], freed: NDArray[np.int64]) -> tuple[int, int]:
        """The two repair searches of :meth:`update`; returns ``(invalidated, expanded)``."""
        nbl, nfr = len(blocked), len(freed)
        out = self._ws.stack
        invalidated = 0
        expanded = 0
        if nbl:
            invalidated = int(_k.invalidate(self._grid_t(), self._pk, blocked, out))
            nodes_i = out[:invalidated].astype(np.int64)
            snode = np.empty(invalidated, dtype=np.int64)
            scost = np.empty(invalidated, dtype=np.int64)
            scode = np.empty(invalidated, dtype=np.int8)
            ns = int(_k.boundary_seeds(self._grid_t(), self._model_t(), self._pk, nodes_i, snode, scost, scode))
            expanded += self._run(snode[:ns], scost[:ns], scode[:ns])
        if nfr:
            cap = 9 * nfr
            snode = np.empty(cap, dtype=np.int64)
            scost = np.empty(cap, dtype=np.int64)
            scode = np.empty(cap, dtype=np.int8)
            ns = int(_k.freed_seeds(self._grid_t(), self._model_t(), self._pk, self._goal, freed,
                                    snode, scost, scode))
            expanded += self._run(snode[:ns], scost[:ns], scode[:ns])
        return invalidated, expanded

    def _box(self, region: Any) -> tuple[int, int, int, int]:
        try:
            vals = [float(v) for v in region]
        except (TypeError, ValueError):
            raise QueryError(f"region must be None, (x0, z0, x1, z1) or a bool (depth, width) mask, got {region!r}") from None
        if len(vals) != 4 or not all(math.isfinite(v) and v == int(v) for v in vals):
            raise QueryError(f"region box must be four finite integers (x0, z0, x1, z1), got {region!r}")
        x0, z0, x1, z1 = (int(v) for v in vals)
        return (max(x0, 0), max(z0, 0), min(x1, self.grid.width - 1), min(z1, self.grid.depth - 1))

    # ------------------------------------------------------------ properties
    @property
    def built(self) -> bool:
        """True once :meth:`build` has run."""
        return self._built

    @property
    def revision(self) -> int:
        """Counts builds and updates (a cache uses it to spot a field changed under it)."""
        return self._revision

    @property
    def goals(self) -> NDArray[np.int64]:
        """The goal cells ``(k, 2)``, sorted, without duplicates."""
        self._require_built()
        return self._goals

    @property
    def obstacles(self) -> NDArray[np.float64]:
        """The obstacle snapshot ``(k, 3)`` the field was computed with."""
        return self._circles

    @property
    def reached(self) -> int:
        """Number of cells with a route to a goal."""
        if self._reached < 0:
            self._reached = int(_k.count_reached(self._pk))
        return self._reached

    @property
    def expanded(self) -> int:
        """Cells expanded by the last build or update."""
        return self._last_expanded

    @property
    def direction(self) -> NDArray[np.int8]:
        """Direction codes, int8 ``(depth, width)``, read-only (unpacked from the
        field on first access after each build or update)."""
        self._require_built()
        dirs = self._dirs
        if dirs is None:
            dirs = self._dirs = np.empty(self.grid.shape, dtype=np.int8)
        if self._dirs_rev != self._revision:
            dirs.flags.writeable = True
            _k.unpack(self._pk, np.int64(self._wp), np.int64(self._hp), np.zeros(0, dtype=np.int64),
                      dirs.reshape(-1))
            dirs.flags.writeable = False
            self._dirs_rev = self._revision
        return dirs

    def _refresh(self) -> None:
        if self._lazy_rev == self._revision:
            return
        if self._cost_i is None or self._cost_f is None:
            self._cost_i = np.empty(self.grid.shape, dtype=np.int64)
            self._cost_f = np.empty(self.grid.shape, dtype=np.float64)
        self._cost_i.flags.writeable = True
        self._cost_f.flags.writeable = True
        _k.unpack(self._pk, np.int64(self._wp), np.int64(self._hp), self._cost_i.reshape(-1),
                  np.zeros(0, dtype=np.int8))
        np.divide(self._cost_i, self.costs.card, out=self._cost_f)
        self._cost_f[self._cost_i < 0] = np.inf
        self._cost_i.flags.writeable = False
        self._cost_f.flags.writeable = False
        self._lazy_rev = self._revision

    @property
    def cost_int(self) -> NDArray[np.int64]:
        """Integer cost to the nearest goal, int64 ``(depth, width)``; -1 where unreachable."""
        self._require_built()
        self._refresh()
        assert self._cost_i is not None
        return self._cost_i

    @property
    def cost(self) -> NDArray[np.float64]:
        """Cost to the nearest goal in cardinal-step units, float64 ``(depth, width)``; inf where unreachable."""
        self._require_built()
        self._refresh()
        assert self._cost_f is not None
        return self._cost_f

    # --------------------------------------------------------------- queries
    def _cell(self, x: Any, z: Any) -> tuple[int, int]:
        arr = np.asarray([x, z])
        ok = arr.dtype != np.bool_ and (
            np.issubdtype(arr.dtype, np.integer)
            or (np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))
        )
        if arr.shape != (2,) or not ok:
            raise QueryError(f"expected an integer cell (x, z), got ({x!r}, {z!r})")
        cx, cz = int(arr[0]), int(arr[1])
        if not self.grid.in_bounds(cx, cz):
            raise QueryError(
                f"cell ({cx}, {cz}) is outside the {self.grid.width}x{self.grid.depth} grid "
                f"(x in [0, {self.grid.width - 1}], z in [0, {self.grid.depth - 1}])"
            )
        return (cx, cz)

    def next_cell(self, x: int, z: int) -> tuple[int, int] | None:
        """The neighbour to step to from cell ``(x, z)``: the cell itself on a
        goal, ``None`` where blocked or unreachable."""
        self._require_built()
        cx, cz = self._cell(x, z)
        d = _code_of(int(self._pk[self._node(cx, cz)]))
        if d == NONE:
            return None
        if d == GOAL:
            return (cx, cz)
        return (cx + int(DIRECTION_OFFSETS[d, 0]), cz + int(DIRECTION_OFFSETS[d, 1]))

    def follow(self, cell: Sequence[int] | NDArray[np.integer]) -> NDArray[np.int32]:
        """The cells ``(k, 2)`` from ``cell`` to its goal along the directions,
        both ends included; empty ``(0, 2)`` where there is no route."""
        self._require_built()
        try:
            x, z = cell
        except (TypeError, ValueError):
            raise QueryError(f"expected an integer cell (x, z), got {cell!r}") from None
        cx, cz = self._cell(x, z)
        start = np.int64(self._node(cx, cz))
        out = self._ws.stack
        n = int(_k.chain(self._pk, np.int64(self._wp), start, out))
        if n < 0:  # pragma: no cover - the builder never makes cycles
            raise RuntimeError("flow field direction chain does not reach a goal")
        nodes = out[:n]
        res = np.empty((n, 2), dtype=np.int32)
        res[:, 0] = nodes % self._wp - 1
        res[:, 1] = nodes // self._wp - 1
        return res

    def lookup_cells(self, cells: ArrayLike) -> NDArray[np.int8]:
        """Direction codes ``(n,)`` of integer cells ``(n, 2)``; ``NONE`` for
        cells outside the grid."""
        self._require_built()
        arr = np.asarray(cells)
        if arr.ndim == 1 and arr.shape == (2,):
            arr = arr.reshape(1, 2)
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise QueryError(f"cells must have shape (n, 2), got {arr.shape}")
        if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
            raise QueryError(f"cells must be an integer array, got dtype {arr.dtype}")
        cx = arr[:, 0].astype(np.int64)
        cz = arr[:, 1].astype(np.int64)
        inside = (cx >= 0) & (cx < self.grid.width) & (cz >= 0) & (cz < self.grid.depth)
        out = np.full(len(arr), NONE, dtype=np.int8)
        out[inside] = self._codes((cz[inside] + 1) * self._wp + cx[inside] + 1)
        return out

    def lookup(self, positions: ArrayLike) -> NDArray[np.float64]:
        """Unit direction vectors ``(n, 2)`` (world x, z) for world positions
        ``(n, 2)`` or ``(n, 3)`` (x, y, z) in metres: each unit's cell's move,
        ``(0, 0)`` on a goal, on a blocked or unreachable cell, or outside the grid."""
        self._require_built()
        try:
            arr = np.asarray(positions, dtype=np.float64)
        except (TypeError, ValueError):
            raise QueryError("positions must be an (n, 2) or (n, 3) array of world points") from None
        if arr.ndim == 1 and arr.shape in ((2,), (3,)):
            arr = arr.reshape(1, -1)
        if arr.ndim != 2 or arr.shape[1] not in (2, 3):
            raise QueryError(f"positions must have shape (n, 2) or (n, 3), got {arr.shape}")
        if not np.all(np.isfinite(arr)):
            i = int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])
            raise QueryError(f"positions[{i}] = {arr[i].tolist()} is not finite")
        xs = arr[:, 0]
        zs = arr[:, 2] if arr.shape[1] == 3 else arr[:, 1]
        g = self.grid
        fx = np.floor((xs - g.min_x) / g.cell_size)
        fz = np.floor((zs - g.min_z) / g.cell_size)
        inside = (fx >= 0) & (fx < g.width) & (fz >= 0) & (fz < g.depth)
        codes = np.full(len(arr), NONE, dtype=np.int8)
        codes[inside] = self._codes((fz[inside].astype(np.int64) + 1) * self._wp + fx[inside].astype(np.int64) + 1)
        return DIRECTION_UNIT[codes]

    def __repr__(self) -> str:
        state = f"{len(self._goals)} goal(s), {self.reached} cells reached" if self._built else "not built"
        return (f"FlowField({self.grid!r}, costs={self.costs.name}, connectivity={self.connectivity}, "
                f"queue={self.queue}, {state})")


# ----------------------------------------------------------------------- cache
class FlowFieldCache:
    """Built flow fields kept by goals, cost model, obstacles and map version.

    Seed 004's shared-destination cache: every unit heading for the same
    goals on the same map shares one field, and a terrain change invalidates.
    A key holds::

        (map identity, map version, goal cells, costs, connectivity, obstacle key)

    The map version is ``version`` when given (bump it on a terrain change, as
    seed 004's ``terrainChanged`` event), else for a
    :class:`~navkit.query.pathfinder.Pathfinder` its set of live occupant handles
    (adding or removing an occupant makes a new key), else nothing: a
    :class:`~navkit.grid.NavGrid` is immutable. Goals are a set (order and
    repeats do not matter); obstacle snapshots are keyed by
    :func:`navkit.query.cache.obstacle_key` (exact bytes, rows in any order). The
    least recently used field is dropped beyond ``maxsize``; fields of one map
    share their search buffers.

    Returned fields are shared: do not :meth:`~FlowField.build` or
    :meth:`~FlowField.update` them (a field changed that way is rebuilt on
    its next lookup).

    >>> import numpy as np, navkit
    >>> cache = navkit.FlowFieldCache(maxsize=4)
    >>> grid = navkit.NavGrid(np.ones((8, 8), bool))
    >>> a = cache.get(grid, [(7, 7)]); b = cache.get(grid, [(7, 7)])
    >>> a is b, cache.stats["hits"], cache.stats["misses"]
    (True, 1, 1)
    """

    def __init__(self, maxsize: int = 16):
        if isinstance(maxsize, bool) or not isinstance(maxsize, (int, np.integer)) or maxsize < 1:
            raise ConfigError(f"expected an int >= 1, got {maxsize!r}", field="maxsize")
        self._maxsize = int(maxsize)
        # key -> (source, field, field revision when stored)
        self._entries: OrderedDict[tuple[Any, ...], tuple[Any, FlowField, int]] = OrderedDict()
        self._workspaces: dict[int, tuple[Any, _Workspace]] = {}
        self._hits = 0
        self._misses = 0
        self._evictions = 0
        self._invalidations = 0

    @property
    def maxsize(self) -> int:
        """Most fields kept."""
        return self._maxsize

    @staticmethod
    def _version(source: Any, version: Any) -> Any:
        if version is not None:
            return ("version", version)
        if isinstance(source, Pathfinder):
            return ("occupants", tuple(sorted(source.occupants)))
        return None

    def get(
        self,
        source: NavGrid | Pathfinder,
        goals: ArrayLike,
        *,
        costs: str | CostModel | tuple[int, int] | None = None,
        connectivity: int | None = None,
        obstacles: ArrayLike | None = None,
        version: Any = None,
    ) -> FlowField:
        """The field toward ``goals`` on ``source``, built on a miss.

        ``costs``, ``connectivity`` and ``obstacles`` are those of
        :class:`FlowField` and :meth:`FlowField.build`; ``version`` is any
        hashable map version (``None``: derived from the map).
        """
        if not isinstance(source, (NavGrid, Pathfinder)):
            raise QueryError(f"expected a NavGrid or a Pathfinder, got {type(source).__name__}")
        if version is not None:
            try:
                hash(version)
            except TypeError:
                raise QueryError(f"version must be hashable, got {type(version).__name__}") from None
        if isinstance(source, Pathfinder):
            grid = source.grid
            model = source.costs if costs is None else cost_model(costs)
            conn = source.connectivity if connectivity is None else connectivity
        else:
            grid = source
            model = cost_model("seed" if costs is None else costs)
            conn = 8 if connectivity is None else connectivity
        circles = _check_circles(obstacles) if obstacles is not None else np.zeros((0, 3), dtype=np.float64)
        goal_arr = _goal_cells(grid, goals)
        key = (id(source), self._version(source, version), tuple(map(tuple, goal_arr.tolist())),
               (model.card, model.diag), conn, obstacle_key(circles))
        entry = self._entries.get(key)
        if entry is not None and entry[1].revision == entry[2]:
            self._entries.move_to_end(key)
            self._hits += 1
            return entry[1]
        self._misses += 1
        if entry is not None:  # changed by its user since: build it again
            field = entry[1]
        else:
            field = FlowField(source, model, connectivity=conn, _workspace=self._workspace(source, grid))
        field.build(goal_arr, obstacles=circles if len(circles) else None)
        self._entries[key] = (source, field, field.revision)
        self._entries.move_to_end(key)
        while len(self._entries) > self._maxsize:
            self._entries.popitem(last=False)
            self._evictions += 1
        self._forget_workspaces()
        return field

    def _workspace(self, source: Any, grid: NavGrid) -> _Workspace:
        item = self._workspaces.get(id(source))
        if item is None:
            ws = _Workspace((grid.width + 2) * (grid.depth + 2))
            self._workspaces[id(source)] = (source, ws)
            return ws
        return item[1]

    def _forget_workspaces(self) -> None:
        """Drop the shared buffers of maps no cached field uses any more."""
        live = {k[0] for k in self._entries}
        for sid in [s for s in self._workspaces if s not in live]:
            del self._workspaces[sid]

    def invalidate(self, source: NavGrid | Pathfinder | None = None) -> int:
        """Drop every field of ``source`` (of every map when ``None``), as on a
        terrain change; counts one invalidation and returns the fields dropped."""
        if source is None:
            keys = list(self._entries)
        else:
            keys = [k for k in self._entries if k[0] == id(source)]
        for k in keys:
            del self._entries[k]
        self._forget_workspaces()
        self._invalidations += 1
        return len(keys)

    def clear(self) -> None:
        """Drop every field and zero all counters."""
        self._entries.clear()
        self._workspaces.clear()
        self._hits = self._misses = self._evictions = self._invalidations = 0

    @property
    def stats(self) -> dict[str, int]:
        """``hits``, ``misses``, ``evictions``, ``invalidations``, ``size`` and
        ``maxsize`` (the keys of :attr:`navkit.query.cache.PathCache.stats`)."""
        return {
            "hits": self._hits,
            "misses": self._misses,
            "evictions": self._evictions,
            "invalidations": self._invalidations,
            "size": len(self._entries),
            "maxsize": self._maxsize,
        }

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        s = self.stats
        return (f"FlowFieldCache(size={s['size']}/{s['maxsize']}, hits={s['hits']}, misses={s['misses']}, "
                f"evictions={s['evictions']})")
