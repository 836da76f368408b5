"""The navigation grid: walkable cells, terrain weights and their geometry.

A :class:`NavGrid` is a ``(depth, width)`` array indexed ``[z, x]`` (docs/rules.md
§1.1): cell ``(x, z)`` has linear index ``z * width + x``. World coordinates are
metres on the XZ plane; cell ``(x, z)`` covers
``[min_x + x * cell_size, min_x + (x + 1) * cell_size)`` along X and the same
along Z.

>>> import numpy as np
>>> grid = NavGrid(np.ones((2, 3), dtype=bool), cell_size=0.5, min_x=-1.0, min_z=0.0)
>>> grid.width, grid.depth
(3, 2)
>>> grid.world_to_cell(-0.9, 0.6)
(0, 1)
>>> grid.cell_center(2, 1)
(0.25, 0.75)
"""

from __future__ import annotations

import inspect
import math
import warnings
import weakref
from collections.abc import Mapping
from dataclasses import InitVar, dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import ConfigError, QueryError, shown

__all__ = ["NavGrid", "MAX_WEIGHT", "MAX_CELLS", "MIN_CELL_SIZE", "MAX_CELL_SIZE",
           "DEFAULT_RESOLUTION", "costs_to_weights"]

#: Largest terrain weight a cell may carry (weights are integers >= 1).
MAX_WEIGHT = 65535
#: Largest grid navkit accepts (cells). Linear indices must fit in int32.
#: The readers refuse much less by default (``navkit.formats.MAX_CELLS``).
MAX_CELLS = 1 << 30
#: Smallest and largest ``cell_size`` in metres (a nanometre, a million km).
#: Within them the far edge ``min_x + width * cell_size`` and every cell
#: centre of a grid with a finite origin stay finite floats.
MIN_CELL_SIZE = 1e-9
MAX_CELL_SIZE = 1e9
_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
#: Steps per unit of a float cost array (docs/rules.md §3.9): weight ``round(c * 100)``.
DEFAULT_RESOLUTION = 100


def costs_to_weights(costs: ArrayLike, resolution: int | None = None
                     ) -> tuple[NDArray[np.bool_], NDArray[np.int32], int]:
    """A tcod-style cost array (0 = wall, any positive number a cost
    multiplier) as ``(walkable, integer weights, resolution)``.

    Each weight is ``round(c * resolution)`` (float64 product, rounded half
    to even: the same on every machine), walls get 1. ``resolution``
    defaults to 1 for integer and bool arrays (taken as they are) and to
    :data:`DEFAULT_RESOLUTION` for floats. Negative, NaN or infinite costs,
    a positive cost that rounds to 0, or a weight above :data:`MAX_WEIGHT`
    raise :class:`ConfigError` (field ``costs``).

    >>> walk, w, res = costs_to_weights(np.array([[0.5, 1.0, 0.0, 3.0]]))
    >>> walk.tolist(), w.tolist(), res
    ([[True, True, False, True]], [[50, 100, 1, 300]], 100)
    """
    arr = np.asarray(costs)
    if arr.ndim != 2:
        raise ConfigError(f"expected a 2-D (depth, width) cost array, got shape {arr.shape}",
                          field="costs")
    floating = np.issubdtype(arr.dtype, np.floating)
    if not (floating or np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_):
        raise ConfigError(f"expected a numeric cost array, got dtype {arr.dtype}", field="costs")
    if resolution is None:
        resolution = DEFAULT_RESOLUTION if floating else 1
    if (isinstance(resolution, bool) or not isinstance(resolution, (int, np.integer))
            or not 1 <= resolution <= MAX_WEIGHT):
        raise ConfigError(f"expected an int in [1, {MAX_WEIGHT}], got {shown(resolution)}",
                          field="resolution")
    res = int(resolution)
    if floating and not np.all(np.isfinite(arr)):
        raise ConfigError("costs contain NaN or infinite values (0 marks a wall)", field="costs")
    if arr.size and arr.dtype != np.bool_ and arr.min() < 0:
        raise ConfigError(f"costs must be >= 0 (0 = wall), got {arr.min()}", field="costs")
    walk = arr != 0
    scaled = np.rint(arr.astype(np.float64) * res) if floating else arr.astype(np.int64) * res
    cells = scaled[walk]
    if cells.size and cells.min() < 1:
        raise ConfigError(
            f"a positive cost below {0.5 / res:g} rounds to weight 0 at resolution {res}; "
            "use a larger resolution", field="costs")
    if cells.size and cells.max() > MAX_WEIGHT:
        raise ConfigError(
            f"cost {arr[walk].max()} times resolution {res} exceeds the largest weight "
            f"{MAX_WEIGHT}; use a smaller resolution or smaller costs", field="costs")
    weights = np.where(walk, scaled, 1).astype(np.int32)
    return walk, weights, res


#: The arrays NavGrids hold (read-only, made by :func:`_own`): another grid shares
#: one without a copy (``dataclasses.replace``, ``with_weights(grid.weights)``).
_OWNED: weakref.WeakValueDictionary[int, NDArray[Any]] = weakref.WeakValueDictionary()


def _own(out: NDArray[Any], given: NDArray[Any], copy: bool) -> NDArray[Any]:
    """``out`` (converted from the caller's ``given``) made read-only for a NavGrid.

    With ``copy`` (the default) an ``out`` that shares memory with ``given`` is
    copied first, so the caller's array stays writeable and later writes to it
    do not reach the grid; ``copy=False`` takes ownership: the caller's array
    itself becomes read-only when ``out`` is that array.
    """
    if _OWNED.get(id(out)) is out:
        return out
    if copy and np.may_share_memory(out, given):
        out = out.copy()
    out.setflags(write=False)
    _OWNED[id(out)] = out
    return out


def _outside_navkit() -> int:
    """The ``stacklevel`` of the first caller outside navkit (for a warning about its
    input; ``dataclasses.replace`` counts as navkit's)."""
    level = 1
    here = inspect.currentframe()
    frame = None if here is None else here.f_back
    while frame is not None and (str(frame.f_globals.get("__name__", "")).startswith("navkit.")
                                 or frame.f_globals.get("__name__") == "dataclasses"):
        frame = frame.f_back
        level += 1
    return level


def _is_mask(arr: NDArray[Any]) -> bool:
    """True when a numeric array holds only 0 and 1 (a mask under either reading)."""
    if not arr.size:
        return True
    if np.issubdtype(arr.dtype, np.integer):
        return bool(arr.min() >= 0 and arr.max() <= 1)
    return bool(np.all((arr == 0) | (arr == 1)))


def _warn_not_mask(arr: NDArray[Any]) -> None:
    """The FutureWarning for a numeric walkable array that is not 0/1 (docs/rules.md §1.6)."""
    odd = np.unique(arr[(arr != 0) & (arr != 1)])
    shown_vals = ", ".join(str(v) for v in odd[:5].tolist()) + (", ..." if odd.size > 5 else "")
    warnings.warn(
        f"walkable: an array of {arr.dtype} holding values other than 0 and 1 ({shown_vals}) "
        "is read as nonzero = walkable; this is deprecated and raises ConfigError in "
        "navkit 0.3 (docs/rules.md §1.6). Pass a bool mask (array != 0), "
        "NavGrid.from_costs(array) for a cost array (0 = wall) or "
        "NavGrid.from_tiles(array, mapping) for tile ids",
        FutureWarning, stacklevel=_outside_navkit())


def _as_walkable(walkable: ArrayLike, copy: bool = True) -> NDArray[np.bool_]:
    try:
        arr = np.asarray(walkable)
    except (ValueError, TypeError, OverflowError) as exc:  # ragged rows, huge ints
        raise ConfigError(f"expected a 2-D (depth, width) array ({str(exc)[:120]})",
                          field="walkable") from None
    if arr.ndim != 2:
        raise ConfigError(f"expected a 2-D (depth, width) array, got shape {arr.shape}",
                          field="walkable")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ConfigError(f"grid must have at least one cell, got shape {arr.shape}",
                          field="walkable")
    if arr.size > MAX_CELLS:
        raise ConfigError(f"grid of {arr.size} cells exceeds the limit of {MAX_CELLS}",
                          field="walkable")
    if arr.dtype == np.bool_:
        out = arr
    elif np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating):
        if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
            raise ConfigError("walkable array contains NaN or infinite values", field="walkable")
        if not _is_mask(arr):
            _warn_not_mask(arr)
        out = arr != 0
    else:
        raise ConfigError(f"expected a bool or numeric array, got dtype {arr.dtype}",
                          field="walkable")
    return _own(np.ascontiguousarray(out, dtype=np.bool_), arr, copy)


def _as_weights(weights: ArrayLike, shape: tuple[int, int], copy: bool = True
                ) -> NDArray[np.int32]:
    try:
        arr = np.asarray(weights)
    except (ValueError, TypeError, OverflowError) as exc:  # ragged rows, huge ints
        raise ConfigError(f"expected a {shape} array ({str(exc)[:120]})",
                          field="weights") from None
    if arr.shape != shape:
        raise ConfigError(f"expected shape {shape} like the walkable array, got {arr.shape}",
                          field="weights")
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise ConfigError("weights contain NaN or infinite values", field="weights")
        if not np.all(arr == np.round(arr)):
            raise ConfigError("weights must be whole numbers (integer costs keep results exact); "
                              "for fractional weights use NavGrid.from_costs(costs, "
                              "resolution=...)", field="weights")
    elif not np.issubdtype(arr.dtype, np.integer) and arr.dtype != np.bool_:
        raise ConfigError(f"expected an integer array, got dtype {arr.dtype}", field="weights")
    if arr.size and (arr.min() < 1 or arr.max() > MAX_WEIGHT):
        raise ConfigError(
            f"weights must lie in [1, {MAX_WEIGHT}], got [{arr.min()}, {arr.max()}]",
            field="weights",
        )
    return _own(np.ascontiguousarray(arr, dtype=np.int32), arr, copy)


def _finite(name: str, value: Any, *, positive: bool = False, nonnegative: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"expected a number, got {shown(value)}", field=name) from None
    if not math.isfinite(v):
        raise ConfigError(f"expected a finite number, got {shown(value)}", field=name)
    if positive and v <= 0:
        raise ConfigError(f"must be > 0, got {v}", field=name)
    if nonnegative and v < 0:
        raise ConfigError(f"must be >= 0, got {v}", field=name)
    return v


@dataclass(frozen=True, eq=False)
class NavGrid:
    """Walkable cells plus geometry; immutable (its arrays are read-only).

    The grid keeps its own read-only copy of ``walkable`` and ``weights``: the
    caller's arrays stay writeable, and writing to them later does not change
    the grid (make a new grid, or use ``Pathfinder.set_walkable``, to edit
    one). ``copy=False`` skips the copy of an array that already has the
    grid's dtype (bool walkable, int32 weights, C order) and takes ownership:
    that array is made read-only in place (for large arrays the caller will
    not touch again).

    Parameters
    ----------
    walkable : array_like, shape (depth, width)
        A walkability mask, indexed ``[z, x]``: a bool array (True where a
        character may stand) or a numeric one holding only 0 and 1 (1 =
        walkable). Other numbers are deprecated (FutureWarning, read as
        nonzero = walkable): use :meth:`from_costs` for a cost array (0 =
        wall) or :meth:`from_tiles` for tile ids (docs/rules.md §1.6).
    weights : array_like of int, shape (depth, width), optional
        Terrain cost multiplier of entering each cell (1 = plain ground).
        ``None`` means uniform cost.
    cell_size : float
        Edge length of one cell in metres (> 0).
    min_x, min_z : float
        World coordinates of the grid's corner, in metres.
    floor_y : float
        Height placed on every world waypoint, in metres.
    agent_radius : float
        Radius the walkable area was eroded by, in metres (metadata).
    name : str
        A label for messages and reports (usually the file name).
    copy : bool, keyword-only
        ``True`` (default): copy arrays that share memory with the caller's;
        ``False``: take ownership of them (made read-only in place).
    """

    walkable: NDArray[np.bool_]
    weights: NDArray[np.int32] | None = None
    cell_size: float = 1.0
    min_x: float = 0.0
    min_z: float = 0.0
    floor_y: float = 0.0
    agent_radius: float = 0.0
    name: str = ""
    meta: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    copy: InitVar[bool] = field(default=True, kw_only=True)

    def __post_init__(self, copy: bool) -> None:
        if not isinstance(self.meta, dict):
            raise ConfigError(f"expected a dict, got {type(self.meta).__name__}", field="meta")
        if not isinstance(copy, (bool, np.bool_)):
            raise ConfigError(f"expected True or False, got {shown(copy)}", field="copy")
        walk = _as_walkable(self.walkable, bool(copy))
        object.__setattr__(self, "walkable", walk)
        if self.weights is not None:
            w = _as_weights(self.weights, walk.shape, bool(copy))
            object.__setattr__(self, "weights", None if np.all(w == 1) else w)
        cell_size = _finite("cell_size", self.cell_size, positive=True)
        if not MIN_CELL_SIZE <= cell_size <= MAX_CELL_SIZE:
            raise ConfigError(
                f"must lie in [{MIN_CELL_SIZE:g}, {MAX_CELL_SIZE:g}] metres, got {cell_size!r}",
                field="cell_size",
            )
        object.__setattr__(self, "cell_size", cell_size)
        object.__setattr__(self, "min_x", _finite("min_x", self.min_x))
        object.__setattr__(self, "min_z", _finite("min_z", self.min_z))
        object.__setattr__(self, "floor_y", _finite("floor_y", self.floor_y))
        object.__setattr__(self, "agent_radius",
                           _finite("agent_radius", self.agent_radius, nonnegative=True))

    # ------------------------------------------------------------------ shape
    @property
    def width(self) -> int:
        """Number of cells along X."""
        return int(self.walkable.shape[1])

    @property
    def depth(self) -> int:
        """Number of cells along Z."""
        return int(self.walkable.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        """``(depth, width)``."""
        return (self.depth, self.width)

    @property
    def size(self) -> int:
        """Number of cells."""
        return self.depth * self.width

    @property
    def is_weighted(self) -> bool:
        """True when some cell has a terrain weight other than 1."""
        return self.weights is not None

    @property
    def max_x(self) -> float:
        """World X of the grid's far edge."""
        return self.min_x + self.width * self.cell_size

    @property
    def max_z(self) -> float:
        """World Z of the grid's far edge."""
        return self.min_z + self.depth * self.cell_size

    def weight_array(self) -> NDArray[np.int32]:
        """Weights as an int32 ``(depth, width)`` array (all ones when unweighted)."""
        if self.weights is None:
            return np.ones(self.shape, dtype=np.int32)
        return self.weights

    # ------------------------------------------------------------ conversions
    def in_bounds(self, x: int, z: int) -> bool:
        """True when cell ``(x, z)`` lies inside the grid."""
        return 0 <= x < self.width and 0 <= z < self.depth

    def is_walkable(self, x: int, z: int) -> bool:
        """True when cell ``(x, z)`` is inside the grid and walkable."""
        return self.in_bounds(x, z) and bool(self.walkable[z, x])

    def linear_index(self, x: int, z: int) -> int:
        """``z * width + x``."""
        return z * self.width + x

    def cell_of_index(self, index: int) -> tuple[int, int]:
        """Inverse of :meth:`linear_index`."""
        return (index % self.width, index // self.width)

    def world_to_cell(self, wx: float, wz: float) -> tuple[int, int]:
        """Cell containing a world point (docs/rules.md §1.3); may lie outside the grid.

        Raises :class:`~navkit.errors.QueryError` on NaN or infinite input, or a
        point so far away that its cell index overflows a float.
        """
        if not (math.isfinite(wx) and math.isfinite(wz)):
            raise QueryError(f"world coordinates must be finite, got ({wx}, {wz})")
        fx = (wx - self.min_x) / self.cell_size
        fz = (wz - self.min_z) / self.cell_size
        if not (math.isfinite(fx) and math.isfinite(fz)):
            raise QueryError(f"world point ({wx}, {wz}) lies too far from the grid")
        return (math.floor(fx), math.floor(fz))

    def cell_center(self, x: int, z: int) -> tuple[float, float]:
        """World ``(x, z)`` of a cell's centre (docs/rules.md §1.3)."""
        return (self.min_x + (x + 0.5) * self.cell_size, self.min_z + (z + 0.5) * self.cell_size)

    def cells_to_world(self, cells: ArrayLike) -> NDArray[np.float64]:
        """Centres of an ``(n, 2)`` array of ``(x, z)`` cells as an ``(n, 2)`` float array."""
        c = np.asarray(cells, dtype=np.float64).reshape(-1, 2)
        out = np.empty_like(c)
        out[:, 0] = self.min_x + (c[:, 0] + 0.5) * self.cell_size
        out[:, 1] = self.min_z + (c[:, 1] + 0.5) * self.cell_size
        return out

    @classmethod
    def from_costs(cls, costs: ArrayLike, *, resolution: int | None = None,
                   **geometry: Any) -> NavGrid:
        """A grid from a tcod-style cost array: 0 = wall, any positive number
        the cost multiplier of entering the cell (docs/rules.md §3.9).

        Weights are ``round(c * resolution)`` (:func:`costs_to_weights`;
        ``resolution`` 1 for integer arrays, 100 for floats), so reported
        costs are in units of ``1 / resolution`` straight steps: divide by
        ``grid.meta["weight_resolution"]``. Answers are exact for the mapped
        integers. ``geometry``: the other NavGrid fields (``cell_size``, ...).

        >>> g = NavGrid.from_costs(np.array([[1.0, 0.5], [0.0, 3.0]]))
        >>> g.walkable.tolist(), g.weights.tolist(), g.meta["weight_resolution"]
        ([[True, True], [False, True]], [[100, 50], [1, 300]], 100)
        """
        walk, weights, res = costs_to_weights(costs, resolution)
        meta = dict(geometry.pop("meta", None) or {})
        meta["weight_resolution"] = res
        return cls(walk, weights, meta=meta, **geometry)

    @classmethod
    def from_tiles(cls, ids: ArrayLike, mapping: Mapping[int, float | None], *,
                   resolution: int | None = None, **geometry: Any) -> NavGrid:
        """A grid from a tile-id map: ``mapping[id]`` is the cost of entering a
        cell of that id, ``None`` or ``0`` a wall (docs/rules.md §1.6).

        ``ids``: a 2-D ``(depth, width)`` integer array. The costs become a
        cost array read as :meth:`from_costs` reads one (integer costs are the
        weights themselves; any float cost makes every weight ``round(c *
        resolution)``, ``resolution`` 100 by default). An id in ``ids`` that
        ``mapping`` lacks raises :class:`ConfigError` (field ``ids``) naming
        it; a bad cost names ``mapping[id]``. ``geometry``: the other NavGrid
        fields (``cell_size``, ...).

        >>> tiles = np.array([[0, 0, 2], [1, 0, 0]])  # 0 floor, 1 wall, 2 mud
        >>> g = NavGrid.from_tiles(tiles, {0: 1, 1: None, 2: 5}, cell_size=0.5)
        >>> g.walkable.tolist(), g.weights.tolist()
        ([[True, True, True], [False, True, True]], [[1, 1, 5], [1, 1, 1]])
        """
        try:
            arr = np.asarray(ids)
        except (ValueError, TypeError, OverflowError) as exc:  # ragged rows, huge ints
            raise ConfigError(f"expected a 2-D (depth, width) array of tile ids "
                              f"({str(exc)[:120]})", field="ids") from None
        if arr.ndim != 2:
            raise ConfigError(f"expected a 2-D (depth, width) array of tile ids, "
                              f"got shape {arr.shape}", field="ids")
        if not np.issubdtype(arr.dtype, np.integer):
            raise ConfigError(f"expected an integer array of tile ids, got dtype {arr.dtype}",
                              field="ids")
        if not isinstance(mapping, Mapping) or not mapping:
            raise ConfigError(f"expected a non-empty mapping of tile id -> cost (None or 0: "
                              f"wall), got {shown(mapping)}", field="mapping")
        keys: list[int] = []
        costs: list[float] = []
        floating = False
        for key, cost in mapping.items():
            if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer)):
                raise ConfigError(f"tile ids are integers, got key {shown(key)}",
                                  field="mapping")
            if not _INT64_MIN <= int(key) <= _INT64_MAX:
                raise ConfigError(f"tile id {int(key)} is outside the int64 range",
                                  field="mapping")
            fld = f"mapping[{int(key)}]"
            if cost is None:
                cost = 0
            if isinstance(cost, (bool, np.bool_)) or not isinstance(
                    cost, (int, float, np.integer, np.floating)):
                raise ConfigError(f"expected a cost >= 0 or None (wall), got {shown(cost)}",
                                  field=fld)
            if not math.isfinite(cost) or cost < 0:
                raise ConfigError(f"expected a finite cost >= 0 or None (wall), got "
                                  f"{shown(cost)}", field=fld)
            if isinstance(cost, (int, np.integer)) and cost > MAX_WEIGHT:
                raise ConfigError(f"cost {cost} exceeds the largest weight {MAX_WEIGHT}",
                                  field=fld)
            floating = floating or isinstance(cost, (float, np.floating))
            keys.append(int(key))
            costs.append(cost)
        order = np.argsort(np.asarray(keys, dtype=np.int64), kind="stable")
        known = np.asarray(keys, dtype=np.int64)[order]
        table = np.asarray(costs, dtype=np.float64 if floating else np.int64)[order]
        if arr.dtype == np.uint64 and arr.size and arr.max() > _INT64_MAX:
            raise ConfigError(f"tile id {arr.max()} is not in mapping", field="ids")
        flat = arr.astype(np.int64, copy=False).ravel()
        slot = np.minimum(np.searchsorted(known, flat), known.size - 1)
        missing = known[slot] != flat
        if missing.any():
            odd = np.unique(flat[missing])
            listed = ", ".join(str(v) for v in odd[:8].tolist()) + (", ..." if odd.size > 8
                                                                    else "")
            raise ConfigError(
                f"tile id(s) {listed} not in mapping (it has {', '.join(map(str, known[:8]))}"
                f"{', ...' if known.size > 8 else ''}); give every id a cost, or None for a "
                "wall", field="ids")
        cost_arr = table[slot].reshape(arr.shape)
        try:
            return cls.from_costs(cost_arr, resolution=resolution, **geometry)
        except ConfigError as exc:
            if exc.field != "costs":
                raise
            raise ConfigError(exc.reason, field="mapping") from None

    # ---------------------------------------------------------------- editing
    def with_walkable(self, walkable: ArrayLike) -> NavGrid:
        """A copy with another walkable array of the same shape."""
        arr = np.asarray(walkable)
        if arr.shape != self.shape:
            raise ConfigError(f"expected shape {self.shape}, got {arr.shape}", field="walkable")
        return replace(self, walkable=arr)

    def with_weights(self, weights: ArrayLike | None) -> NavGrid:
        """A copy with other terrain weights (``None`` for uniform cost)."""
        return replace(self, weights=None if weights is None else np.asarray(weights))

    def equals(self, other: NavGrid) -> bool:
        """True when cells, weights and geometry are identical."""
        if not isinstance(other, NavGrid) or self.shape != other.shape:
            return False
        if not np.array_equal(self.walkable, other.walkable):
            return False
        if not np.array_equal(self.weight_array(), other.weight_array()):
            return False
        return (
            self.cell_size == other.cell_size
            and self.min_x == other.min_x
            and self.min_z == other.min_z
            and self.floor_y == other.floor_y
            and self.agent_radius == other.agent_radius
        )

    def __repr__(self) -> str:
        frac = float(self.walkable.mean()) if self.size else 0.0
        return (
            f"NavGrid({self.name or 'unnamed'!s}: {self.width}x{self.depth} cells, "
            f"cell_size={self.cell_size}, origin=({self.min_x}, {self.min_z}), "
            f"{frac:.1%} walkable{', weighted' if self.is_weighted else ''})"
        )
