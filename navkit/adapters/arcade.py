"""A drop-in for ``arcade.astar_calculate_path`` built on navkit (docs/engines.md).

::

    # before
    path = arcade.astar_calculate_path(start, end, barriers, diagonal_movement=True)
    # after
    from navkit.adapters.arcade import astar_calculate_path
    path = astar_calculate_path(start, end, barriers, diagonal_movement=True)

Same arguments, same return value: a list of ``(x, y)`` grid points in pixels
(integers, ``grid point * grid_size``, as arcade's ``_expand`` makes them),
start and end included, or ``None``. Start and end snap to grid points the
way arcade does (``int(pixel // grid_size)`` on each axis). The barrier list
is read duck-typed (``grid_size``, ``left``, ``right``, ``bottom``, ``top``
in grid points, ``barrier_list`` of blocked grid points), so arcade itself is
not imported here; its ``AStarBarrierList`` is the usual argument.

Where the answers differ from arcade 3.3's pure-Python A*
(``arcade/paths.py``), navkit's rules (docs/rules.md §3) apply:

* **no corner cutting**: a diagonal step needs both straight neighbours free
  (arcade lets a diagonal slip past a blocked corner or between two blocks);
* **octile costs**: straight 1, diagonal sqrt 2 (``costs="exact"``), and the
  path is optimal for them (arcade prices a diagonal 1.42 and ranks its open
  list by a Chebyshev estimate, ties by coordinates);
* **no expansion cap**: arcade gives up (``None``) after 500 expansions, so
  it misses long routes; navkit searches until it finds the goal or proves
  it unreachable;
* **a blocked start** (arcade marks every grid point where the moving sprite
  would touch a wall, so a sprite beside a wall often stands on one) is left
  by one legal step to a free neighbour, the cheapest such route winning,
  as arcade's search would; a start or end outside the barrier list's bounds
  gives ``None`` (arcade may still walk in from an outside start).

The :class:`~navkit.Pathfinder` of each barrier list is built once and kept
(weakly, per list and connectivity); it is rebuilt when the list's
``barrier_list`` is another object than last time (``recalculate()``
assigns a new one) or its bounds changed. After editing ``barrier_list`` in
place call :func:`invalidate`.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError, QueryError, require_extra, shown
from ..grid import NavGrid
from ..query.pathfinder import Pathfinder

__all__ = [
    "astar_calculate_path",
    "grid_from_barrier_list",
    "pathfinder_for",
    "invalidate",
    "patch_arcade",
    "NavkitBarrierList",
]

Point = tuple[int, int]


@dataclass(frozen=True)
class _Bounds:
    grid_size: float
    left: int
    right: int
    bottom: int
    top: int


def _int_field(obj: Any, name: str) -> int:
    v = getattr(obj, name, None)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        if isinstance(v, float) and v.is_integer():
            return int(v)
        raise ConfigError(f"expected an integer grid coordinate, got {shown(v)}",
                          field=f"astar_barrier_list.{name}")
    return int(v)


def _bounds(bl: Any) -> _Bounds:
    gs: Any = getattr(bl, "grid_size", None)
    ok = isinstance(gs, (int, float, np.integer, np.floating)) and not isinstance(gs, bool)
    if not ok or not math.isfinite(float(gs)) or float(gs) <= 0:
        raise ConfigError(f"expected a number of pixels > 0, got {shown(gs)}",
                          field="astar_barrier_list.grid_size")
    left, right = _int_field(bl, "left"), _int_field(bl, "right")
    bottom, top = _int_field(bl, "bottom"), _int_field(bl, "top")
    if right < left:
        raise ConfigError(f"right ({right}) is left of left ({left})",
                          field="astar_barrier_list.right")
    if top < bottom:
        raise ConfigError(f"top ({top}) is below bottom ({bottom})",
                          field="astar_barrier_list.top")
    return _Bounds(float(gs), left, right, bottom, top)


def _barrier_points(bl: Any) -> Iterable[Any]:
    pts = getattr(bl, "barrier_list", None)
    if pts is None:
        raise ConfigError("is None: call recalculate() first",
                          field="astar_barrier_list.barrier_list")
    return pts


def grid_from_barrier_list(astar_barrier_list: Any) -> NavGrid:
    """The :class:`~navkit.NavGrid` of an arcade ``AStarBarrierList``.

    One cell per grid point: ``width = right - left + 1`` and ``depth = top -
    bottom + 1``; cell ``(x, z)`` is grid point ``(left + x, bottom + z)``,
    blocked when listed in ``barrier_list`` (points outside the bounds are
    ignored). ``cell_size = grid_size`` and the origin sits half a cell before
    the first grid point, so navkit's world coordinates (cell centres) are
    arcade's pixels: ``cell_center(x, z) == ((left + x) * gs, (bottom + z) * gs)``.

    >>> class B:  # any object with arcade's attributes
    ...     grid_size, left, right, bottom, top = 32, 0, 3, 0, 2
    ...     barrier_list = [(1, 0), (1, 1)]
    >>> g = grid_from_barrier_list(B())
    >>> g.shape, g.is_walkable(1, 1), g.cell_center(3, 2)
    ((3, 4), False, (96.0, 64.0))
    """
    b = _bounds(astar_barrier_list)
    width, depth = b.right - b.left + 1, b.top - b.bottom + 1
    walk = np.ones((depth, width), dtype=bool)
    pts = list(_barrier_points(astar_barrier_list))
    if pts:
        try:
            arr = np.array(pts, dtype=np.float64).reshape(-1, 2)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"expected (x, y) grid points, got {shown(pts[:3])}...",
                              field="astar_barrier_list.barrier_list") from exc
        if not np.all(np.isfinite(arr)):
            raise ConfigError("holds a non-finite point", field="astar_barrier_list.barrier_list")
        gx = np.floor(arr[:, 0]).astype(np.int64) - b.left
        gz = np.floor(arr[:, 1]).astype(np.int64) - b.bottom
        inside = (gx >= 0) & (gx < width) & (gz >= 0) & (gz < depth)
        walk[gz[inside], gx[inside]] = False
    return NavGrid(walk, cell_size=b.grid_size, min_x=(b.left - 0.5) * b.grid_size,
                   min_z=(b.bottom - 0.5) * b.grid_size, name="arcade barrier list")


@dataclass
class _Entry:
    points: object  # the barrier_list object the pathfinder was built from
    bounds: _Bounds
    pathfinder: Pathfinder
    raw: tuple[Any, ...]  # (grid_size, left, right, bottom, top) as read, for the fast check


_CACHE: weakref.WeakKeyDictionary[Any, dict[int, _Entry]] = weakref.WeakKeyDictionary()


def pathfinder_for(astar_barrier_list: Any, diagonal_movement: bool = True) -> Pathfinder:
    """The cached :class:`~navkit.Pathfinder` (``costs="exact"``) of a barrier list.

    8-connected when ``diagonal_movement``, else 4-connected; rebuilt when
    ``barrier_list`` is a new object (after ``recalculate()``) or the bounds
    changed.
    """
    conn = 8 if diagonal_movement else 4
    bounds = _bounds(astar_barrier_list)
    points = _barrier_points(astar_barrier_list)
    try:
        per = _CACHE.setdefault(astar_barrier_list, {})
    except TypeError:  # not weak-referenceable: no cache
        per = {}
    e = per.get(conn)
    if e is None or e.points is not points or e.bounds != bounds:
        grid = grid_from_barrier_list(astar_barrier_list)
        raw = (astar_barrier_list.grid_size, astar_barrier_list.left, astar_barrier_list.right,
               astar_barrier_list.bottom, astar_barrier_list.top)
        e = per[conn] = _Entry(points, bounds, Pathfinder(grid, "exact", connectivity=conn), raw)
    return e.pathfinder


def invalidate(astar_barrier_list: Any) -> None:
    """Forget the cached Pathfinders of a barrier list (after editing it in place)."""
    try:
        _CACHE.pop(astar_barrier_list, None)
    except TypeError:
        pass


def _collapse(point: Any, grid_size: float, name: str) -> tuple[int, int]:
    try:
        px, py = (float(v) for v in point)
    except (TypeError, ValueError) as exc:
        raise QueryError(f"{name}: expected an (x, y) point in pixels, got {shown(point)}") from exc
    if not (math.isfinite(px) and math.isfinite(py)):
        raise QueryError(f"{name}: expected finite pixels, got {shown(point)}")
    return int(px // grid_size), int(py // grid_size)


#: (dx, dz) steps in the order a blocked start tries them (ties go to the first).
_STEPS = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))


def _from_blocked_start(pf: Pathfinder, s: tuple[int, int], g: tuple[int, int],
                        eight: bool) -> Any:
    """Cells of the cheapest route that first steps off blocked ``s``, or None."""
    grid = pf.grid
    card, diag = pf.costs.card, pf.costs.diag
    best: tuple[int, Any] | None = None
    for dx, dz in _STEPS if eight else _STEPS[:4]:
        nx, nz = s[0] + dx, s[1] + dz
        if not grid.in_bounds(nx, nz) or not grid.is_walkable(nx, nz):
            continue
        if dx and dz and not (grid.in_bounds(nx, s[1]) and grid.is_walkable(nx, s[1])
                              and grid.in_bounds(s[0], nz) and grid.is_walkable(s[0], nz)):
            continue
        r = pf.find_path_cells((nx, nz), g, algorithm="auto")
        if not r.found:
            continue
        total = r.cost_int + (diag if dx and dz else card)
        if best is None or total < best[0]:
            best = (total, np.concatenate([np.array([s], dtype=np.int32), r.cells]))
    return None if best is None else best[1]


def astar_calculate_path(start_point: Any, end_point: Any, astar_barrier_list: Any,
                         diagonal_movement: bool = True) -> list[Point] | None:
    """Shortest path between two pixel points on an arcade barrier list, or None.

    A drop-in for ``arcade.astar_calculate_path`` with navkit's rules (module
    docstring): the returned points are the grid points of every step, in
    pixels, start and end included; octile-optimal with no corner cutting.
    ``None`` when the end is unreachable, blocked or outside the bounds.

    >>> class B:
    ...     grid_size, left, right, bottom, top = 10, 0, 4, 0, 2
    ...     barrier_list = [(2, 0), (2, 1)]
    >>> astar_calculate_path((5, 5), (45, 5), B())
    [(0, 0), (10, 10), (10, 20), (20, 20), (30, 20), (40, 10), (40, 0)]
    """
    pf, b = _cached(astar_barrier_list, diagonal_movement)
    gs = b.grid_size
    sx, sy = _collapse(start_point, gs, "start_point")
    ex, ey = _collapse(end_point, gs, "end_point")
    s = (sx - b.left, sy - b.bottom)
    g = (ex - b.left, ey - b.bottom)
    walk = pf.grid.walkable
    depth, width = walk.shape
    if not (0 <= s[0] < width and 0 <= s[1] < depth and 0 <= g[0] < width
            and 0 <= g[1] < depth) or not walk[g[1], g[0]]:
        return None
    if walk[s[1], s[0]]:
        r = pf.find_path_cells(s, g, algorithm="auto" if diagonal_movement else "astar")
        if not r.found:
            return None
        cells = r.cells
    else:
        cells = _from_blocked_start(pf, s, g, diagonal_movement)
        if cells is None:
            return None
    left, bottom = b.left, b.bottom
    if gs.is_integer():  # arcade's _expand: int(p * grid_size), exact in integers
        k = int(gs)
        return [((x + left) * k, (z + bottom) * k) for x, z in cells.tolist()]
    return [(int((x + left) * gs), int((z + bottom) * gs)) for x, z in cells.tolist()]


def _cached(bl: Any, diagonal_movement: bool) -> tuple[Pathfinder, _Bounds]:
    """The cached Pathfinder and bounds, re-validated only when the list changed."""
    try:
        e = _CACHE[bl][8 if diagonal_movement else 4]
        raw = (bl.grid_size, bl.left, bl.right, bl.bottom, bl.top)
        if e.points is bl.barrier_list and raw == e.raw:
            return e.pathfinder, e.bounds
    except (KeyError, TypeError, AttributeError):
        pass
    pf = pathfinder_for(bl, diagonal_movement)
    return pf, _bounds(bl)


class NavkitBarrierList:
    """An arcade ``AStarBarrierList`` look-alike built from a NavGrid-style array.

    For games that already know their blocked cells (a tile map) and do not
    want arcade's sprite-collision scan: ``blocked`` is a ``(rows, cols)``
    bool array indexed ``[y, x]`` over grid points ``left..left+cols-1`` and
    ``bottom..bottom+rows-1``. Pass it wherever an ``AStarBarrierList`` goes
    (this module's :func:`astar_calculate_path`, or arcade's own).

    >>> bl = NavkitBarrierList(np.array([[0, 1, 0], [0, 0, 0]], bool), grid_size=16)
    >>> bl.barrier_list, (bl.right, bl.top)
    ([(1, 0)], (2, 1))
    """

    def __init__(self, blocked: Any, grid_size: int = 1, left: int = 0, bottom: int = 0):
        arr = np.asarray(blocked)
        if arr.ndim != 2 or arr.size == 0:
            raise ConfigError(f"expected a non-empty 2-D array, got shape {arr.shape}",
                              field="blocked")
        self.grid_size = grid_size
        self.left, self.bottom = int(left), int(bottom)
        self.right = self.left + arr.shape[1] - 1
        self.top = self.bottom + arr.shape[0] - 1
        self.barrier_list: list[Point] | None = None
        self.set_blocked(arr)
        _bounds(self)

    def set_blocked(self, blocked: Any) -> None:
        """Replace the blocked array (same shape); the next query rebuilds its Pathfinder."""
        arr = np.asarray(blocked, dtype=bool)
        want = (self.top - self.bottom + 1, self.right - self.left + 1)
        if arr.shape != want:
            raise ConfigError(f"expected shape {want}, got {arr.shape}", field="blocked")
        zz, xx = np.nonzero(arr)
        self.barrier_list = sorted((int(x) + self.left, int(z) + self.bottom)
                                   for x, z in zip(xx, zz, strict=True))

    def recalculate(self) -> None:
        """arcade's API: nothing to scan; the list is already current."""


def patch_arcade() -> None:
    """Make ``arcade.astar_calculate_path`` (and ``arcade.paths``'s) this function.

    Code written against arcade then uses navkit unchanged. Needs arcade
    (``pip install 'navkit[arcade]'``).
    """
    require_extra(["arcade"], "navkit.adapters.arcade.patch_arcade", "arcade")
    import arcade
    import arcade.paths

    arcade.astar_calculate_path = astar_calculate_path  # type: ignore[assignment]
    arcade.paths.astar_calculate_path = astar_calculate_path  # type: ignore[assignment]
