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

Flow fields (docs/rules.md §3.8): the *integration field* ``cost`` holds, for
every cell, the cost of walking from it to the nearest goal; the *direction
field* ``direction`` holds the best neighbour to step to. Every unit looks its
cell up in O(1).

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
cost model, obstacles and map version (a shared-destination cache, docs/rules.md
§12.6).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import flow as _k
from ..costs import cost_model
from ..errors import ConfigError, QueryError, shown
from ..grid import NavGrid
from .flow_search import GOAL, FlowBuffers, FlowSearch, PoolExhausted
from .overlay import as_circles
from .padded import PaddedGrid, as_array
from .pathfinder import Costs, Pathfinder
from .serial import serialized

if TYPE_CHECKING:
    from .navmap import NavMap

__all__ = [
    "FlowField",
    "FlowUpdate",
    "FlowBuffers",
    "check_circles",
    "goal_cells",
    "DIRECTION_OFFSETS",
    "DIRECTION_UNIT",
    "GOAL",
    "NONE",
]

#: Direction code of a blocked or unreachable cell.
NONE = _k.NONE
#: ``(dx, dz)`` of direction codes 0..7, shape (8, 2).
DIRECTION_OFFSETS = np.array(_k.OFFSETS, dtype=np.int64)
DIRECTION_OFFSETS.setflags(write=False)
#: Unit vectors per code: rows 0..7 the moves, row 8 (GOAL) and row 9 zero,
#: so ``DIRECTION_UNIT[codes]`` maps ``NONE`` (-1) to the last row, ``(0, 0)``.
DIRECTION_UNIT = np.zeros((10, 2), dtype=np.float64)
DIRECTION_UNIT[:8] = DIRECTION_OFFSETS / np.hypot(DIRECTION_OFFSETS[:, 0],
                                                  DIRECTION_OFFSETS[:, 1])[:, None]
DIRECTION_UNIT.setflags(write=False)

#: ``queue="auto"`` keeps buckets while the ring is this short, or while the
#: bucket scans of a worst-case route stay within this many per walkable cell.
_BUCKETS_MAX_RING = 64
_BUCKETS_MAX_SCANS_PER_CELL = 64
_KEEP: Any = object()


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


def check_circles(obstacles: ArrayLike, name: str = "obstacles") -> NDArray[np.float64]:
    """:func:`~navkit.query.overlay.as_circles`, as a read-only copy (never
    freezes the caller's array)."""
    arr = as_circles(obstacles, name)
    out = np.array(arr, dtype=np.float64, order="C", copy=True)
    out.setflags(write=False)
    return out


def _code_of(word: int) -> int:
    """The direction code of one field word (see :mod:`navkit._kernels.flow`)."""
    if word < 0:
        return NONE
    c = (word >> 1) & 15
    return NONE if c == _k.PK_NONE else c


def goal_cells(grid: NavGrid, goals: ArrayLike) -> NDArray[np.int64]:
    """Validate goal cells: ``(k, 2)`` int64, sorted, without duplicates."""
    arr = as_array(goals, "goals")
    if arr.ndim == 1 and arr.shape == (2,):
        arr = arr.reshape(1, 2)
    if arr.ndim != 2 or arr.shape[1] != 2 or len(arr) == 0:
        raise QueryError("goals must be a cell (x, z) or a non-empty (k, 2) array of cells, "
                         f"got shape {arr.shape}")
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        if not (np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr))
                and np.all(arr == np.round(arr))):
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
    source : NavGrid, Pathfinder or NavMap
        The map. With a :class:`~navkit.query.pathfinder.Pathfinder` the field also
        sees its long-lived occupants (read at each :meth:`build` and
        :meth:`update`), and takes its cost model and connectivity by default.
        A :class:`~navkit.query.navmap.NavMap` means its ``pathfinder``, and
        the field follows the map's version too: an area toggled or an
        obstacle polygon added makes it :attr:`stale`, repaired on next use.
    costs : "seed", "exact", (card, diag), CostModel or None
        Step costs; ``None`` means the pathfinder's model, or ``"seed"``
        (10/14) for a grid.
    connectivity : 8, 4 or None
        ``None`` means the pathfinder's, or 8 for a grid.
    queue : "auto", "buckets" or "heap"
        The search's priority queue; every choice gives the same field.
        ``"auto"`` picks the bucket ring unless the terrain weights spread so
        widely that scanning empty buckets could dominate.
    buffers : FlowBuffers or None
        Search buffers to share with other fields of the same map
        (:class:`~navkit.query.flow_cache.FlowFieldCache` does).

    Costs share an int64 with the direction code, so every route must cost
    less than 2**57 (a ConfigError says when a grid and cost model could
    exceed that; a 1024 x 1024 grid with the exact model and weights up to
    65535 fits).

    The arrays exposed (:attr:`direction`, :attr:`cost`, :attr:`cost_int`)
    live in buffers the field reuses: the next :meth:`build` or
    :meth:`update` overwrites them; copy what you keep (another thread's
    :meth:`build` too: hold :attr:`lock` while reading them).

    Thread safety: one object may be shared by threads; its queries and edits take
    turns under its ``lock`` (:mod:`navkit.query.serial`). For parallel queries give
    each thread its own object, or use ``find_paths_cells`` (all cores).
    """

    def __init__(
        self,
        source: NavGrid | Pathfinder | NavMap,
        costs: Costs | None = None,
        *,
        connectivity: int | None = None,
        queue: str = "auto",
        buffers: FlowBuffers | None = None,
    ):
        from .navmap import NavMap

        #: The NavMap this field follows (its door toggles and obstacle polygons), or None.
        self.navmap: NavMap | None = source if isinstance(source, NavMap) else None
        if isinstance(source, NavMap):
            source = source.pathfinder
        if isinstance(source, Pathfinder):
            pf: Pathfinder | None = source
            pg = source.engine.padded
            cells = source.engine.occupancy.cells  # live: static cells AND no long-lived occupant
            model = source.costs if costs is None else cost_model(costs)
            conn = source.connectivity if connectivity is None else connectivity
        elif isinstance(source, NavGrid):
            pf = None
            pg = PaddedGrid(source)
            cells = pg.cells
            model = cost_model("seed" if costs is None else costs)
            conn = 8 if connectivity is None else connectivity
        else:
            raise QueryError("expected a NavGrid or a Pathfinder (or a NavMap), "
                             f"got {type(source).__name__}")
        if conn not in (4, 8) or isinstance(conn, bool):
            raise ConfigError(f"expected 4 or 8, got {conn!r}", field="connectivity")
        if queue not in ("auto", "buckets", "heap"):
            raise ConfigError(f"expected 'auto', 'buckets' or 'heap', got {queue!r}", field="queue")
        grid = pg.grid if pf is None else pf.grid
        self.grid = grid
        #: Held by every query and edit (re-entrant; see :mod:`navkit.query.serial`).
        self.lock = threading.RLock()
        self.pathfinder = pf
        self.costs = model
        self.connectivity = int(conn)
        self._pg = pg
        self._queue_arg = queue
        self._cells = cells
        #: The pathfinder's edit version this field was built for (docs/edits.md).
        self._pf_version = 0 if pf is None else pf.version
        self._pf_weights = 0 if pf is None else pf.engine.edits.weights_version
        self._s = self._new_search(grid, buffers)
        self._goal_nodes = np.zeros(0, dtype=np.int64)
        self._goals = np.zeros((0, 2), dtype=np.int64)
        self._circles = np.zeros((0, 3), dtype=np.float64)
        self._built = False
        self._revision = 0
        self._reached = 0
        self._last_expanded = 0

    def _new_search(self, grid: NavGrid, buffers: FlowBuffers | None) -> FlowSearch:
        """The Dijkstra machinery for ``grid`` (the padded grid's weights and range)."""
        pg, model, queue = self._pg, self.costs, self._queue_arg
        pg.check_costs(model, limit=_k.INF, what="flow-field costs could exceed 2**57")
        walk = grid.walkable
        wmin, wmax = pg.wmin, pg.wmax
        wsum = (int(grid.weights[walk].sum(dtype=np.int64))
                if grid.weights is not None and walk.any() else int(walk.sum()))
        width = model.card * wmin
        nb = model.diag * wmax // width + 2
        if queue == "auto":
            scans = wsum * model.diag // width
            nwalk = max(int(walk.sum()), 1)
            use_buckets = nb <= _BUCKETS_MAX_RING or scans <= _BUCKETS_MAX_SCANS_PER_CELL * nwalk
            queue = "buckets" if use_buckets else "heap"
        self.queue = queue
        if buffers is not None and buffers.n != pg.n:
            raise ConfigError(f"buffers hold {buffers.n} nodes, this map needs {pg.n}",
                              field="buffers")
        return FlowSearch(pg, self._cells, pg.weights, model, self.connectivity == 8, queue,
                          width, nb, buffers if buffers is not None else FlowBuffers(pg.n))

    # ----------------------------------------------------------------- build
    @property
    def stale(self) -> bool:
        """True when the pathfinder this field was built on was edited since
        (:meth:`~navkit.query.pathfinder.Pathfinder.set_walkable` / ``set_weights``),
        or the NavMap it follows changed (an area toggled, an obstacle polygon
        added or removed): the next use of the field repairs it first (:meth:`refresh`)."""
        if self.navmap is not None:
            self.navmap.pathfinder  # noqa: B018 (applies the map's changes to its Pathfinder)
        pf = self.pathfinder
        return pf is not None and pf.engine.edits.version != self._pf_version

    @serialized
    def refresh(self) -> None:
        """Catch up with the pathfinder's cell edits: walkability edits are
        repaired like :meth:`update` (one pass over the grid to find them);
        weight edits rebuild the field toward the same goals and obstacles.
        Every use of a stale field calls this first."""
        if self.navmap is not None:
            self.navmap.pathfinder  # noqa: B018 (applies the map's changes to its Pathfinder)
        pf = self.pathfinder
        if pf is None or pf.engine.edits.version == self._pf_version:
            return
        self._pf_version = pf.engine.edits.version
        self.grid = pf.grid
        edits = pf.engine.edits
        if edits.weights_version != self._pf_weights or self._s.weights is not self._pg.weights:
            self._pf_weights = pf.engine.edits.weights_version
            self._s = self._new_search(self.grid, self._s.buffers)
            if self._built:
                self._goal_nodes = np.zeros(0, dtype=np.int64)
                self.build(self._goals.copy(), obstacles=self._circles)
        elif self._built:
            self.update(None)

    def _require_built(self) -> None:
        if self.stale:
            self.refresh()
        if not self._built:
            raise QueryError("the flow field has not been built yet: call build(goals) first")

    @serialized
    def build(self, goals: ArrayLike, *, obstacles: ArrayLike | None = None) -> FlowField:
        """Compute the field toward ``goals`` (a cell ``(x, z)`` or a ``(k, 2)``
        array of cells) from scratch; returns ``self``.

        ``obstacles``: world circles ``(k, 3)`` = ``(x, z, radius)`` blocking
        the cells whose centres they cover (docs/rules.md §7), kept as this
        field's snapshot until :meth:`update` replaces it. Goal cells that are
        blocked stay goals and count again once they are freed.
        """
        if self.stale:
            self._pf_version = self.pathfinder.version  # type: ignore[union-attr]
            self.grid = self.pathfinder.grid  # type: ignore[union-attr]
            self._pf_weights = self.pathfinder.engine.edits.weights_version  # type: ignore[union-attr]
            self._s = self._new_search(self.grid, self._s.buffers)
        g = goal_cells(self.grid, goals)
        circles = (check_circles(obstacles) if obstacles is not None
                   else np.zeros((0, 3), dtype=np.float64))
        s = self._s
        nodes = self._pg.nodes(g)
        mark = s.stamp(circles)
        s.goal[self._goal_nodes] = 0
        s.goal[nodes] = 1
        self._goal_nodes = nodes
        self._goals = g
        self._goals.setflags(write=False)
        self._circles = circles
        s.reset(mark)
        try:
            expanded = s.from_goals(nodes)
        except PoolExhausted:
            expanded = s.recover(circles, nodes)
        self._reached = expanded
        self._last_expanded = expanded
        self._revision += 1
        self._built = True
        return self

    @serialized
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
                raise QueryError(f"region mask must have shape {self.grid.shape} (depth, width), "
                                 f"got {region.shape}")
            zz, xx = np.nonzero(region)
            nodes = self._pg.nodes_xz(xx, zz)
        elif region is not None:
            box = self._box(region)
        if obstacles is _KEEP:
            circles = self._circles
        elif obstacles is None:
            circles = np.zeros((0, 3), dtype=np.float64)
        else:
            circles = check_circles(obstacles)
        s = self._s
        mark = s.stamp(circles)
        self._circles = circles
        nbl, nfr = s.diff(mark, nodes, box)
        out = s.buffers.stack
        blocked = out[:nbl].astype(np.int64)
        freed = out[len(out) - nfr:].astype(np.int64) if nfr else np.zeros(0, dtype=np.int64)
        invalidated = 0
        try:
            invalidated, expanded = s.repair(blocked, freed)
        except PoolExhausted:
            expanded = s.recover(self._circles, self._goal_nodes)
        if nbl or nfr:
            self._reached = -1  # counted when asked
        self._last_expanded = expanded
        self._revision += 1
        return FlowUpdate(blocked=nbl, freed=nfr, invalidated=invalidated, expanded=expanded)

    def _box(self, region: Any) -> tuple[int, int, int, int]:
        try:
            vals = [float(v) for v in region]
        except (TypeError, ValueError, OverflowError):
            raise QueryError("region must be None, (x0, z0, x1, z1) or a bool (depth, width) "
                             f"mask, got {shown(region)}") from None
        if len(vals) != 4 or not all(math.isfinite(v) and v == int(v) for v in vals):
            raise QueryError("region box must be four finite integers (x0, z0, x1, z1), "
                             f"got {region!r}")
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
            self._reached = int(_k.count_reached(self._s.pk))
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
        return self._s.directions(self._revision)

    @property
    def cost_int(self) -> NDArray[np.int64]:
        """Integer cost to the nearest goal, int64 ``(depth, width)``; -1 where unreachable."""
        self._require_built()
        return self._s.cost_arrays(self._revision)[0]

    @property
    def cost(self) -> NDArray[np.float64]:
        """Cost to the nearest goal in cardinal-step units, float64 ``(depth,
        width)``; inf where unreachable."""
        self._require_built()
        return self._s.cost_arrays(self._revision)[1]

    # --------------------------------------------------------------- queries
    def _codes(self, nodes: NDArray[np.int64]) -> NDArray[np.int8]:
        """Direction codes of padded nodes, straight from the field."""
        words = self._s.pk[nodes]
        codes = ((words >> 1) & 15).astype(np.int8)
        codes[(words < 0) | (codes == _k.PK_NONE)] = NONE
        return codes

    @serialized
    def next_cell(self, x: int, z: int) -> tuple[int, int] | None:
        """The neighbour to step to from cell ``(x, z)``: the cell itself on a
        goal, ``None`` where blocked or unreachable."""
        self._require_built()
        cx, cz = self._pg.cell_arg((x, z), "cell")
        d = _code_of(int(self._s.pk[self._pg.node(cx, cz)]))
        if d == NONE:
            return None
        if d == GOAL:
            return (cx, cz)
        return (cx + int(DIRECTION_OFFSETS[d, 0]), cz + int(DIRECTION_OFFSETS[d, 1]))

    @serialized
    def follow(self, cell: Sequence[int] | NDArray[np.integer]) -> NDArray[np.int32]:
        """The cells ``(k, 2)`` from ``cell`` to its goal along the directions,
        both ends included; empty ``(0, 2)`` where there is no route."""
        self._require_built()
        try:
            x, z = cell
        except (TypeError, ValueError):
            raise QueryError(f"expected an integer cell (x, z), got {cell!r}") from None
        cx, cz = self._pg.cell_arg((x, z), "cell")
        start = np.int64(self._pg.node(cx, cz))
        out = self._s.buffers.stack
        n = int(_k.chain(self._s.pk, np.int64(self._pg.wp), start, out))
        if n < 0:  # pragma: no cover - the builder never makes cycles
            raise RuntimeError("flow field direction chain does not reach a goal")
        return self._pg.nodes_to_cells(out[:n])

    @serialized
    def lookup_cells(self, cells: ArrayLike) -> NDArray[np.int8]:
        """Direction codes ``(n,)`` of integer cells ``(n, 2)``; ``NONE`` for
        cells outside the grid."""
        self._require_built()
        nodes, inside = self._pg.locate_cells(cells, "cells")
        out = np.full(len(nodes), NONE, dtype=np.int8)
        out[inside] = self._codes(nodes[inside])
        return out

    @serialized
    def lookup(self, positions: ArrayLike) -> NDArray[np.float64]:
        """Unit direction vectors ``(n, 2)`` (world x, z) for world positions
        ``(n, 2)`` or ``(n, 3)`` (x, y, z) in metres: each unit's cell's move,
        ``(0, 0)`` on a goal, on a blocked or unreachable cell, or outside the grid."""
        self._require_built()
        nodes, inside = self._pg.locate(self._pg.points_arg(positions, "positions"))
        codes = np.full(len(nodes), NONE, dtype=np.int8)
        codes[inside] = self._codes(nodes[inside])
        return DIRECTION_UNIT[codes]

    def __repr__(self) -> str:
        state = (f"{len(self._goals)} goal(s), {self.reached} cells reached" if self._built
                 else "not built")
        return (f"FlowField({self.grid!r}, costs={self.costs.name}, "
                f"connectivity={self.connectivity}, queue={self.queue}, {state})")
