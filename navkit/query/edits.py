"""Cell edits at run time and per-query obstacle exclusion (docs/edits.md, rules §2.6, §7.6).

:class:`CellEditor` (``pf.engine.edits``) changes a :class:`~navkit.query.pathfinder.Pathfinder`'s
walkability and weights in place: the padded arrays, the effective cells,
the move masks and the JPS rows are updated only around the edited cells
(through :meth:`~navkit.query.overlay.Occupancy.refresh`, the path occupants
take), and ``version`` counts the edits that changed something.

:class:`ObstacleSnapshot` (``pf.snapshot(circles)``) is a tick's obstacle
circles with ids; a world query given it with ``ignore=[ids]`` frees only the
cells the ignored circles alone cover, for that query, instead of stamping
the other circles again (see :mod:`navkit._kernels.edits`).

>>> import numpy as np, navkit
>>> pf = navkit.Pathfinder(navkit.NavGrid(np.ones((3, 5), bool)))
>>> pf.set_walkable([[2, 0], [2, 1], [2, 2]], False)
3
>>> pf.find_path_cells((0, 1), (4, 1)).status.name, pf.version
('UNREACHABLE', 1)
"""

from __future__ import annotations

import bisect
import dataclasses
import math
import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, QueryError, shown
from ..grid import MAX_WEIGHT, NavGrid
from ..results import PathResult
from .overlay import as_circles, stamp
from .padded import as_array

if TYPE_CHECKING:  # pragma: no cover
    from .engine import GridEngine

__all__ = ["CellEditor", "ObstacleSnapshot", "cells_as_circles", "EditListener"]

#: ``listener(xs, zs)``: cells (int64 arrays) whose walkability or weight changed.
EditListener = Callable[[NDArray[np.int64], NDArray[np.int64]], None]

#: Edits of at most this many cells refresh one small box per cell; larger
#: ones refresh the bounding box of the changed cells once.
_PER_CELL = 16
_NO_ROWS = np.zeros(0, dtype=np.int64)


# ------------------------------------------------------------ validation
def _edit_cells(pf: GridEngine, cells: ArrayLike, field: str) -> tuple[NDArray[np.int64],
                                                                        NDArray[np.int64],
                                                                        NDArray[np.bool_] | None]:
    """``(xs, zs, mask)`` of an ``(k, 2)`` cell array or a ``(depth, width)``
    bool mask (``mask`` is the mask, or None for cells)."""
    pg = pf.padded
    arr = as_array(cells, field)
    if arr.dtype == np.bool_ and arr.shape == (pg.depth, pg.width):
        zs, xs = np.nonzero(arr)
        return xs.astype(np.int64), zs.astype(np.int64), arr
    if arr.dtype == np.bool_:
        raise QueryError(f"{field} as a mask must be a bool array of shape "
                         f"{(pg.depth, pg.width)} (depth, width), got {arr.shape}")
    if arr.ndim == 1 and arr.shape == (2,):
        arr = arr.reshape(1, 2)
    if arr.size == 0:
        return _NO_ROWS, _NO_ROWS, None
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise QueryError(f"{field} must be (k, 2) integer cells (x, z) or a bool mask of "
                         f"shape {(pg.depth, pg.width)}, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise QueryError(f"{field} must hold integer cells, got dtype {arr.dtype}")
    xs = arr[:, 0].astype(np.int64)
    zs = arr[:, 1].astype(np.int64)
    bad = (xs < 0) | (xs >= pg.width) | (zs < 0) | (zs >= pg.depth)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise QueryError(f"{field}[{i}] = ({xs[i]}, {zs[i]}) is outside the "
                         f"{pg.width}x{pg.depth} grid")
    return xs, zs, None


def _per_cell(value: Any, k: int, mask: NDArray[np.bool_] | None, field: str,
              kind: str) -> NDArray[Any]:
    """``value`` broadcast to the ``k`` edited cells: a scalar, ``k`` values, or
    (for a mask edit) an array of the mask's shape read at the mask's cells."""
    arr = as_array(value, field)
    if kind == "bool":
        if arr.dtype != np.bool_:
            raise QueryError(f"{field} must be bool (True = walkable), got "
                             f"{shown(value) if arr.ndim == 0 else 'dtype ' + str(arr.dtype)}")
    else:
        if arr.dtype == np.bool_ or not (np.issubdtype(arr.dtype, np.integer)
                                         or np.issubdtype(arr.dtype, np.floating)):
            raise ConfigError(f"weights must be integers in [1, {MAX_WEIGHT}], got "
                              f"{shown(value) if arr.ndim == 0 else 'dtype ' + str(arr.dtype)}",
                              field=field)
        if np.issubdtype(arr.dtype, np.floating):
            if not np.all(np.isfinite(arr)):
                raise ConfigError("weights contain NaN or infinite values", field=field)
            if not np.all(arr == np.round(arr)):
                raise ConfigError("weights must be whole numbers", field=field)
        if arr.size and (arr.min() < 1 or arr.max() > MAX_WEIGHT):
            raise ConfigError(f"weights must lie in [1, {MAX_WEIGHT}], got "
                              f"[{arr.min()}, {arr.max()}]", field=field)
    if arr.ndim == 0:
        return np.full(k, arr[()], dtype=arr.dtype)
    if mask is not None and arr.shape == mask.shape:
        return arr[mask]
    if arr.shape == (k,):
        return arr
    raise QueryError(f"{field} must be a scalar or hold one value per edited cell "
                     f"({k}), got shape {arr.shape}")


def _box_cells(pf: GridEngine, region: Any) -> tuple[NDArray[np.int64], NDArray[np.int64],
                                                     tuple[int, int] | None]:
    """Cells of an inclusive box ``(x0, z0, x1, z1)`` (row-major) and its shape ``(h, w)``."""
    pg = pf.padded
    try:
        vals = [float(v) for v in region]
    except (TypeError, ValueError, OverflowError):
        raise QueryError(f"region must be a box (x0, z0, x1, z1) or (k, 2) cells, "
                         f"got {shown(region)}") from None
    if not all(math.isfinite(v) and v == int(v) for v in vals) or any(
            isinstance(v, (bool, np.bool_)) for v in region):
        raise QueryError(f"region box must be four integers, got {shown(region)}")
    x0, z0, x1, z1 = (int(v) for v in vals)
    if x0 > x1 or z0 > z1:
        raise QueryError(f"region box needs x0 <= x1 and z0 <= z1, got {(x0, z0, x1, z1)}")
    if x0 < 0 or z0 < 0 or x1 >= pg.width or z1 >= pg.depth:
        raise QueryError(f"region box {(x0, z0, x1, z1)} is outside the "
                         f"{pg.width}x{pg.depth} grid")
    zz, xx = np.mgrid[z0 : z1 + 1, x0 : x1 + 1]
    return xx.ravel().astype(np.int64), zz.ravel().astype(np.int64), (z1 - z0 + 1, x1 - x0 + 1)


def cells_as_circles(pf: GridEngine, cells: ArrayLike,
                     field: str = "blocked_cells") -> NDArray[np.float64]:
    """``(k, 2)`` cells as world circles ``(k, 3)`` that cover exactly those
    cells' centres (radius a quarter cell), for the overlay."""
    pg = pf.padded
    arr = as_array(cells, field)
    if arr.ndim == 1 and arr.shape == (2,):
        arr = arr.reshape(1, 2)
    if arr.size == 0:
        return np.zeros((0, 3), dtype=np.float64)
    arr = pg.cells_arg(arr, field)
    g = pg.grid
    out = np.empty((len(arr), 3), dtype=np.float64)
    out[:, 0] = g.min_x + (arr[:, 0] + 0.5) * g.cell_size
    out[:, 1] = g.min_z + (arr[:, 1] + 0.5) * g.cell_size
    out[:, 2] = 0.25 * g.cell_size
    return out


def ignore_ids(ignore: Any) -> NDArray[np.int64]:
    """``ignore=`` as an int64 array of ids (one int or an iterable of ints)."""
    if isinstance(ignore, (bool, np.bool_)):
        raise QueryError(f"ignore must be an obstacle id or ids (ints), got {ignore!r}")
    if isinstance(ignore, (int, np.integer)):
        return np.array([int(ignore)], dtype=np.int64)
    arr = as_array(ignore if not isinstance(ignore, Iterable) or isinstance(ignore, np.ndarray)
                   else list(ignore), "ignore")
    if arr.size == 0:
        return _NO_ROWS
    if arr.ndim != 1 or arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise QueryError(f"ignore must be an obstacle id or a 1-d list of ids (ints), "
                         f"got {shown(ignore)}")
    return arr.astype(np.int64)


# -------------------------------------------------------------- snapshots
class ObstacleSnapshot:
    """A tick's obstacle circles ``(k, 3)`` = ``(x, z, radius)``, with an id per
    circle (default: the row index), made by :meth:`Pathfinder.snapshot`.

    Pass it as ``obstacles=`` anywhere circles are accepted (it converts
    with ``np.asarray``); with ``ignore=[ids]`` a world query skips those
    circles: on the one-call JPS world query without restamping the others.
    """

    def __init__(self, circles: ArrayLike, ids: ArrayLike | None = None):
        c = as_circles(circles)
        # an own writeable copy: the kernels see one array type (one compiled signature)
        self._circles = c.copy() if c is circles or not c.flags.writeable else c
        self._ids: NDArray[np.int64] | None = None
        self._perm = np.arange(len(c), dtype=np.int64)  # rows sorted by id
        self._sorted: list[int] | None = None  # the ids in that order (None: the row numbers)
        if ids is not None:
            arr = as_array(ids, "ids")
            if (arr.shape != (len(c),) or arr.dtype == np.bool_
                    or not np.issubdtype(arr.dtype, np.integer)):
                raise QueryError(f"ids must be {len(c)} integers (one per circle), "
                                 f"got {shown(ids)}")
            self._ids = arr.astype(np.int64)
            self._perm = np.argsort(self._ids, kind="stable").astype(np.int64)
            self._sorted = self._ids[self._perm].tolist()

    @property
    def circles(self) -> NDArray[np.float64]:
        """The circles, float64 ``(k, 3)`` (a read-only view)."""
        v = self._circles.view()
        v.setflags(write=False)
        return v

    @property
    def ids(self) -> NDArray[np.int64]:
        """The id of each circle, int64 ``(k,)``."""
        return (np.arange(len(self), dtype=np.int64) if self._ids is None
                else self._ids.copy())

    def __len__(self) -> int:
        return len(self._circles)

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray[Any]:
        # a writeable copy: the one-call world query then sees its usual array type
        # (a read-only one would compile another signature), and the snapshot's
        # counts can never go out of step with its circles
        return self._circles.copy() if dtype is None else self._circles.astype(dtype)

    def row_range(self, ignore: Any) -> tuple[NDArray[np.int64], int, int]:
        """``(perm, lo, hi)``: the rows of the circles whose id is in ``ignore``
        are ``perm[lo:hi]``."""
        if type(ignore) is int:  # the common case: one NPC ignores itself
            if self._sorted is None:
                if 0 <= ignore < len(self._circles):
                    return self._perm, ignore, ignore + 1
                return self._perm, 0, 0
            return (self._perm, bisect.bisect_left(self._sorted, ignore),
                    bisect.bisect_right(self._sorted, ignore))
        rows = self.rows(ignore)
        return rows, 0, len(rows)

    def rows(self, ignore: Any) -> NDArray[np.int64]:
        """Row indices (ascending) of the circles whose id is in ``ignore``."""
        ids = ignore_ids(ignore)
        if len(ids) == 0 or len(self) == 0:
            return _NO_ROWS
        if self._ids is None:
            return np.unique(ids[(ids >= 0) & (ids < len(self))])
        return np.flatnonzero(np.isin(self._ids, ids)).astype(np.int64)

    def without(self, rows: NDArray[np.int64]) -> NDArray[np.float64]:
        """The circles except ``rows``."""
        keep = np.ones(len(self), dtype=bool)
        keep[rows] = False
        return self._circles[keep]

    def __repr__(self) -> str:
        return f"ObstacleSnapshot({len(self)} circles)"


# ----------------------------------------------------------------- editor
class CellEditor:
    """Run-time edits and per-query obstacle options of one grid engine (``pf.engine.edits``).

    Callers hold ``pf.lock``.
    """

    def __init__(self, pf: GridEngine):
        self.pf = pf
        #: Edits that changed at least one cell.
        self.version = 0
        #: Of those, the weight edits (a flow field rebuilds on them, :mod:`navkit.query.flow`).
        self.weights_version = 0
        self._listeners: list[Any] = []
        self._grid: NavGrid | None = pf.padded.grid
        self._counts: NDArray[np.int32] | None = None
        self._counted: ObstacleSnapshot | None = None
        self._freed: NDArray[np.int32] | None = None

    def on_edit(self, listener: EditListener, *, weak: bool = False) -> None:
        """Call ``listener(xs, zs)`` after every edit that changed cells
        (``weak``: a bound method held by a weak reference, dropped with its object)."""
        self._listeners.append(weakref.WeakMethod(listener) if weak else listener)

    # ------------------------------------------------------------- grid
    def grid(self) -> NavGrid:
        """The edited map as a NavGrid (made on first use after an edit: O(grid))."""
        if self._grid is None:
            pg = self.pf.padded
            base = pg.grid
            walk = pg.unpad(pg.cells).astype(bool)
            weights = pg.unpad(pg.weights) if pg.weighted else None
            self._grid = dataclasses.replace(base, walkable=walk, weights=weights)
        return self._grid

    # ------------------------------------------------------------ edits
    def resolve_walkable(self, cells: ArrayLike, value: Any) -> tuple[NDArray[np.int64],
                                                                      NDArray[np.int64],
                                                                      NDArray[np.uint8]]:
        """A walkability edit as checked ``(xs, zs, values)`` (values 0 / 1)."""
        xs, zs, mask = _edit_cells(self.pf, cells, "cells")
        return xs, zs, _per_cell(value, len(xs), mask, "value", "bool").astype(np.uint8)

    def resolve_weights(self, region: Any, values: Any) -> tuple[NDArray[np.int64],
                                                                 NDArray[np.int64],
                                                                 NDArray[np.int64]]:
        """A weight edit as checked ``(xs, zs, values)``."""
        pf = self.pf
        arr = as_array(region, "region")
        shape: tuple[int, int] | None = None
        mask: NDArray[np.bool_] | None = None
        if arr.ndim == 1 and arr.shape == (4,):
            xs, zs, shape = _box_cells(pf, region)
        else:
            xs, zs, mask = _edit_cells(pf, region, "region")
        if shape is not None:
            v = as_array(values, "values")
            if v.ndim == 2:
                if v.shape != shape:
                    raise QueryError(f"values must be a scalar or an array of the box's shape "
                                     f"{shape} [z, x], got {v.shape}")
                values = v.ravel()
        return xs, zs, _per_cell(values, len(xs), mask, "values", "int").astype(np.int64)

    def set_walkable(self, cells: ArrayLike, value: Any) -> int:
        """Make ``cells`` walkable or blocked; returns how many changed."""
        pg = self.pf.padded
        one = _one_cell(cells) if type(value) is bool and not pg.weighted else None
        if one is not None and 0 <= one[0] < pg.width and 0 <= one[1] < pg.depth:
            # one cell of an unweighted grid, plain ints: no arrays (the game-loop case)
            q = pg.node(*one)
            if bool(pg.cells[q]) == value:
                return 0
            pg.cells.setflags(write=True)
            pg.cells[q] = 1 if value else 0
            pg.cells.setflags(write=False)
            self.pf.occupancy.refresh(one[0] + 1, one[1] + 1, one[0] + 1, one[1] + 1)
            self._bump(np.array([one[0]], dtype=np.int64) if self._listeners else _NO_ROWS,
                       np.array([one[1]], dtype=np.int64) if self._listeners else _NO_ROWS)
            return 1
        xs, zs, vals = self.resolve_walkable(cells, value)
        if len(xs) == 0:
            return 0
        nodes, xs, zs, vals = _last_wins(pg.nodes_xz(xs, zs), xs, zs, vals)
        ch = pg.cells[nodes] != vals
        if not ch.any():
            return 0
        nodes, xs, zs, vals = nodes[ch], xs[ch], zs[ch], vals[ch]
        old = pg.cells[nodes].copy()
        _write(pg.cells, nodes, vals)
        if pg.weighted:
            try:
                self._weight_range(nodes, old.astype(bool), pg.weights[nodes])
            except ConfigError:
                _write(pg.cells, nodes, old)
                raise
        self._commit(nodes, xs, zs)
        return int(len(nodes))

    def set_weights(self, region: Any, values: Any) -> int:
        """Set terrain weights of a box ``(x0, z0, x1, z1)`` or ``(k, 2)`` cells;
        returns how many changed."""
        pg = self.pf.padded
        xs, zs, vals = self.resolve_weights(region, values)
        if len(xs) == 0:
            return 0
        nodes, xs, zs, vals = _last_wins(pg.nodes_xz(xs, zs), xs, zs, vals)
        if not pg.weighted:
            ch = vals != 1
            if not ch.any():
                return 0
            wmax = pg.wmax
            pg.wmax = max(wmax, int(vals.max()))
            try:  # refuse before converting (the conversion is not undone)
                pg.check_costs(self.pf.costs)
            except ConfigError as exc:
                raise ConfigError(str(exc).split(": ", 1)[-1], field="values") from None
            finally:
                pg.wmax = wmax
            self._make_weighted()
        ch = pg.weights[nodes] != vals
        if not ch.any():
            return 0
        nodes, xs, zs, vals = nodes[ch], xs[ch], zs[ch], vals[ch]
        old = pg.weights[nodes].copy()
        _write(pg.weights, nodes, vals.astype(np.int32))
        try:
            self._weight_range(nodes, pg.cells[nodes].astype(bool), old)
        except ConfigError:
            _write(pg.weights, nodes, old)
            raise
        self.weights_version += 1
        self._commit(nodes, xs, zs)
        return int(len(nodes))

    def _make_weighted(self) -> None:
        """Switch an unweighted grid to weights (all 1): A* and the weighted
        kernels from now on (JPS no longer applies)."""
        pf = self.pf
        pg = pf.padded
        pf.overlay.release_standing()
        w = np.ones(pg.n, dtype=np.int32)
        w.setflags(write=False)
        pg.weights = w
        pg.weighted = True
        pf.jps.usable = False
        pf.astar.reset_args()
        pf.world.reset_kernel_args()

    def _weight_range(self, nodes: NDArray[np.int64], was_walk: NDArray[np.bool_],
                      old_w: NDArray[Any]) -> None:
        """Update ``wmin`` / ``wmax`` after ``nodes`` changed (their walkability
        was ``was_walk``, weight ``old_w``); ConfigError when costs could then overflow."""
        pg = self.pf.padded
        costs = self.pf.costs
        w = pg.weights[nodes]
        walk = pg.cells[nodes] != 0
        wmin, wmax = pg.wmin, pg.wmax
        if np.any(was_walk & (old_w == wmin) & (~walk | (w > wmin))):
            live = pg.weights[pg.cells != 0]
            new_min = int(live.min()) if live.size else 1
        else:
            new_min = min(wmin, int(w[walk].min())) if walk.any() else wmin
        if np.any((old_w == wmax) & (w < wmax)):
            new_max = int(pg.weights.max())
        else:
            new_max = max(wmax, int(w.max()))
        pg.wmin, pg.wmax = new_min, new_max
        try:
            pg.check_costs(costs)
            pg.check_keys(costs)
        except ConfigError as exc:
            pg.wmin, pg.wmax = wmin, wmax
            raise ConfigError(str(exc).split(": ", 1)[-1], field="values") from None

    def _commit(self, nodes: NDArray[np.int64], xs: NDArray[np.int64],
                zs: NDArray[np.int64]) -> None:
        """Refresh the effective cells, move masks and JPS rows around the changed cells."""
        pf = self.pf
        occ = pf.occupancy
        if len(nodes) <= _PER_CELL:
            for x, z in zip((xs + 1).tolist(), (zs + 1).tolist(), strict=True):
                occ.refresh(x, z, x, z)
        else:
            occ.refresh(int(xs.min()) + 1, int(zs.min()) + 1, int(xs.max()) + 1,
                        int(zs.max()) + 1)
        self._bump(xs, zs)

    def _bump(self, xs: NDArray[np.int64], zs: NDArray[np.int64]) -> None:
        """Count an edit of cells ``(xs, zs)`` and tell the listeners."""
        self.version += 1
        self._grid = None
        dead = False
        for listener in self._listeners:
            if isinstance(listener, weakref.WeakMethod):
                fn = listener()
                if fn is None:
                    dead = True
                    continue
                fn(xs, zs)
            else:
                listener(xs, zs)
        if dead:
            self._listeners = [f for f in self._listeners
                               if not isinstance(f, weakref.WeakMethod) or f() is not None]

    # ------------------------------------------------- per-query obstacles
    def merge(self, obstacles: Any, blocked_cells: Any, ignore: Any) -> NDArray[np.float64] | None:
        """One circle array for a query's ``obstacles``, ``blocked_cells`` and ``ignore``."""
        circles: NDArray[np.float64] | None = None
        if obstacles is not None:
            if isinstance(obstacles, ObstacleSnapshot):
                if ignore is None:
                    circles = obstacles._circles
                else:
                    perm, lo, hi = obstacles.row_range(ignore)
                    circles = obstacles.without(perm[lo:hi])
            else:
                circles = as_circles(obstacles)
                if ignore is not None:
                    ids = ignore_ids(ignore)
                    keep = np.ones(len(circles), dtype=bool)
                    keep[ids[(ids >= 0) & (ids < len(circles))]] = False
                    circles = circles[keep]
        elif ignore is not None:
            ignore_ids(ignore)  # validated; nothing to ignore
        if blocked_cells is not None:
            extra = cells_as_circles(self.pf, blocked_cells)
            circles = extra if circles is None else np.concatenate([circles, extra])
        return circles

    def fused_ignore(self, sw: tuple[float, float], ew: tuple[float, float], smooth: bool,
                     nearest: bool, budget: int, snap: ObstacleSnapshot,
                     ignore: Any) -> PathResult | None:
        """The one-call JPS world query on ``snap`` minus the circles ``ignore``
        names, without restamping the others
        (:func:`navkit._kernels.edits.world_jps_ignoring`); None when the query
        is not the one-call kind (the caller then runs it on the merged circles)."""
        pf = self.pf
        world = pf.world
        perm, lo, hi = snap.row_range(ignore)
        circles = snap._circles
        if lo == hi or len(circles) == 0:
            return world.fused(sw, ew, smooth, nearest, budget, circles if len(circles) else None)
        counts = self._snapshot_counts(snap)
        freed = self._freed
        if freed is None:
            freed = self._freed = np.zeros(pf.padded.n, dtype=np.int32)
        return world.fused_ignoring(sw, ew, smooth, nearest, budget, circles, counts, perm, lo,
                                    hi, freed)

    def _snapshot_counts(self, snap: ObstacleSnapshot) -> NDArray[np.int32]:
        """Per-node cover counts of ``snap``'s circles (restamped when another snapshot is used)."""
        pg = self.pf.padded
        if self._counts is None:
            self._counts = np.zeros(pg.n, dtype=np.int32)
        counts = self._counts
        if self._counted is not snap:
            if self._counted is not None and len(self._counted):
                stamp(pg, self._counted._circles, counts, 0, counts, -1)
            if len(snap):
                stamp(pg, snap._circles, counts, 0, counts, +1)
            self._counted = snap
        return counts


def _one_cell(cells: Any) -> tuple[int, int] | None:
    """``(x, z)`` when ``cells`` is one cell of plain ints (``(x, z)`` or
    ``[(x, z)]``), else None (the general path checks it)."""
    t = type(cells)
    if (t is list or t is tuple) and len(cells) == 1:
        cells = cells[0]
        t = type(cells)
    if (t is list or t is tuple) and len(cells) == 2:
        x, z = cells
        if type(x) is int and type(z) is int:
            return (x, z)
    return None


def _last_wins(nodes: NDArray[np.int64], *arrays: NDArray[Any]) -> tuple[NDArray[Any], ...]:
    """``nodes`` and ``arrays`` without repeated nodes, the last of each kept
    (as ``a[idx] = v`` assigns in numpy)."""
    if len(nodes) < 2:
        return (nodes, *arrays)
    _, first_rev = np.unique(nodes[::-1], return_index=True)
    if len(first_rev) == len(nodes):
        return (nodes, *arrays)
    keep = np.sort(len(nodes) - 1 - first_rev)
    return (nodes[keep], *(a[keep] for a in arrays))


def _write(arr: NDArray[Any], nodes: NDArray[np.int64], vals: NDArray[Any]) -> None:
    """``arr[nodes] = vals`` on a read-only array of the padded grid."""
    arr.setflags(write=True)
    try:
        arr[nodes] = vals
    finally:
        arr.setflags(write=False)
