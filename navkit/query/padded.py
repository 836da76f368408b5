"""The padded grid every query object searches: node indices, weights, argument checks.

Kernels read a grid with one blocked cell of border on every side, so a
neighbour step never leaves the array and never needs a bounds test. Cell
``(x, z)`` of a ``width x depth`` grid is *node* ``(z + 1) * wp + x + 1``
with ``wp = width + 2``; :class:`PaddedGrid` is the one place that formula is
written on the Python side (:func:`navkit._kernels.padded.cell_node` in
kernels; ``tests/test_layers.py`` checks it).

>>> import numpy as np
>>> from navkit.grid import NavGrid
>>> pg = PaddedGrid(NavGrid(np.ones((2, 3), dtype=bool)))
>>> pg.wp, pg.hp, pg.node(0, 0), pg.cell(pg.node(2, 1))
(5, 4, 6, (2, 1))
>>> pg.cell_pair((0, 0), [2, 1])  # a query's cells, checked, and their nodes
((0, 0), (2, 1), 6, 13)
>>> pg.cells.reshape(pg.hp, pg.wp).tolist()[0]
[0, 0, 0, 0, 0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import jps as _jps
from .._kernels.layouts import CellGeometry
from ..contract import world_point
from ..costs import CostModel
from ..errors import ConfigError, QueryError, shown
from ..grid import NavGrid

__all__ = ["PaddedGrid", "pad", "as_array", "check_budget", "world_point", "NO_BUDGET"]

#: The budget of a query without one.
NO_BUDGET = int(np.iinfo(np.int64).max)
#: Path costs must stay below this (int64 with room to add a step).
INT64_SAFE = 1 << 62


def pad(arr: NDArray[Any], dtype: Any, fill: int) -> NDArray[Any]:
    """``arr`` (``(depth, width)``) with a border of ``fill``, flattened:
    ``((depth + 2) * (width + 2),)``."""
    d, w = arr.shape
    out = np.full((d + 2, w + 2), fill, dtype=dtype)
    out[1:-1, 1:-1] = arr
    return out.ravel()


def as_array(value: Any, name: str, dtype: Any = None) -> NDArray[Any]:
    """``np.asarray(value, dtype)``, with ragged lists, strings and numbers too large
    for ``dtype`` raising :class:`QueryError` naming the argument."""
    try:
        return np.asarray(value, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        raise QueryError(f"{name} is not a numeric array ({exc})") from None


def check_budget(budget: int | None) -> int:
    """A node-expansion budget: a positive int, or None for none (:data:`NO_BUDGET`)."""
    if budget is None:
        return NO_BUDGET
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise QueryError(f"budget must be a positive int or None, got {shown(budget)}")
    return min(int(budget), NO_BUDGET)  # more than any search can expand: no budget



class PaddedGrid:
    """A :class:`~navkit.grid.NavGrid` padded for the kernels, with its index maths.

    Attributes
    ----------
    grid : NavGrid
    wp, hp, n : int
        Padded width, depth and node count.
    cells : uint8 array, shape (n,)
        Static walkability, padded with 0 (read-only).
    weights : int32 array
        Terrain weights padded with 1, shape (n,); ``(1,)`` of ones without weights.
    weighted : bool
    wmin, wmax : int
        Smallest weight of a walkable cell and largest weight (1 without weights).
    geo : (min_x, min_z, cell_size)
        Floats, metres.
    """

    def __init__(self, grid: NavGrid):
        if not isinstance(grid, NavGrid):
            raise QueryError(f"expected a NavGrid, got {type(grid).__name__}")
        self.grid = grid
        self.width, self.depth = grid.width, grid.depth
        self.wp = grid.width + 2
        self.hp = grid.depth + 2
        self.n = self.wp * self.hp
        self.cells = pad(grid.walkable, np.uint8, 0)
        self.cells.setflags(write=False)
        self.weighted = grid.weights is not None
        if grid.weights is not None:
            self.weights = pad(grid.weights, np.int32, 1)
            walk_w = grid.weights[grid.walkable]
            self.wmin = int(walk_w.min()) if walk_w.size else 1
            self.wmax = int(grid.weights.max())
        else:
            self.weights = np.ones(1, dtype=np.int32)
            self.wmin = self.wmax = 1
        self.weights.setflags(write=False)
        #: Bits of a node index (queue keys pack ``(h << nbits) | node``).
        self.nbits = max(1, int(self.n).bit_length())
        self.geo = tuple(CellGeometry(min_x=float(grid.min_x), min_z=float(grid.min_z),
                                      cell_size=float(grid.cell_size)))

    # ------------------------------------------------------------ cost checks
    def check_costs(self, costs: CostModel, *, limit: int = INT64_SAFE,
                    what: str = "path costs could overflow int64") -> None:
        """ConfigError (``what`` ...) when a path on this grid could cost ``limit`` or more."""
        if self.n * costs.diag * self.wmax >= limit:
            raise ConfigError(
                f"{what} on a {self.width}x{self.depth} grid with weights up to "
                f"{self.wmax}; use smaller step costs (e.g. costs='seed')",
                field="costs",
            )

    def heuristic_max(self, costs: CostModel) -> int:
        """Largest octile heuristic value of the grid (scaled by the smallest weight)."""
        return (self.wp + self.hp) * costs.diag * self.wmin

    def check_keys(self, costs: CostModel) -> None:
        """ConfigError when A*'s 64-bit queue keys ``(h << nbits) | node`` cannot hold ``h``."""
        if self.heuristic_max(costs) >= 1 << (62 - self.nbits):
            raise ConfigError(
                f"heuristic values of a {self.width}x{self.depth} grid with smallest weight "
                f"{self.wmin} do not fit the search's 64-bit queue keys; use smaller step costs "
                "(e.g. costs='seed')",
                field="costs",
            )

    def jps_key_bits(self) -> tuple[int, int]:
        """JPS's node-code layout ``(xb, cb)`` (see :mod:`navkit._kernels.jps`)."""
        xb, cb = _jps.key_bits(self.wp, self.hp)
        return int(xb), int(cb)

    # ------------------------------------------------------------ index maths
    def node(self, x: int, z: int) -> int:
        """The padded node of cell ``(x, z)``."""
        return (z + 1) * self.wp + x + 1

    def cell(self, node: int) -> tuple[int, int]:
        """The cell ``(x, z)`` of a padded node."""
        return (node % self.wp - 1, node // self.wp - 1)

    def nodes(self, cells: NDArray[np.integer]) -> NDArray[np.int64]:
        """Padded nodes of an ``(n, 2)`` array of cells ``(x, z)``."""
        return self.nodes_xz(cells[:, 0], cells[:, 1])

    def nodes_xz(self, xs: NDArray[np.integer], zs: NDArray[np.integer]) -> NDArray[np.int64]:
        """Padded nodes of cells given as column and row arrays."""
        return ((zs.astype(np.int64) + 1) * self.wp + xs + 1).astype(np.int64)

    def nodes_to_cells(self, nodes: NDArray[np.integer]) -> NDArray[np.int32]:
        """Cells ``(n, 2)`` int32 of padded nodes."""
        out = np.empty((len(nodes), 2), dtype=np.int32)
        out[:, 0] = nodes % self.wp - 1
        out[:, 1] = nodes // self.wp - 1
        return out

    def cells_and_centres(self, nodes: NDArray[np.int32]) -> tuple[NDArray[np.int32],
                                                                   NDArray[np.float64]]:
        """Cells ``(n, 2)`` int32 and their world centres ``(n, 2)`` float64, in one kernel call."""
        m = len(nodes)
        cells = np.empty((m, 2), dtype=np.int32)
        pts = np.empty((m, 2), dtype=np.float64)
        _jps.nodes_to_cells(nodes, m, self.wp, cells, pts, self.geo)
        return cells, pts

    def unpad(self, values: NDArray[Any]) -> NDArray[Any]:
        """A per-node array as a ``(depth, width)`` array of the cells (a copy)."""
        return values.reshape(self.hp, self.wp)[1:-1, 1:-1].copy()

    # ---------------------------------------------------------- argument checks
    def cell_arg(self, value: Any, name: str) -> tuple[int, int]:
        """A cell ``(x, z)`` inside the grid (two integers, or integral floats)."""
        if type(value) is tuple and len(value) == 2:
            x, z = value
            # fast path: plain ints inside the grid (bool is not int here)
            if type(x) is int and type(z) is int and 0 <= x < self.width and 0 <= z < self.depth:
                return (x, z)
        arr = as_array(value, name)
        if arr.shape != (2,):
            raise QueryError(f"{name} must be an (x, z) cell pair, got {shown(value)}")
        integral = np.issubdtype(arr.dtype, np.integer) or (
            np.issubdtype(arr.dtype, np.floating) and bool(np.all(np.isfinite(arr)))
            and bool(np.all(arr == np.round(arr))))
        if arr.dtype == np.bool_ or not integral:
            raise QueryError(f"{name} must hold two integers, got {shown(value)}")
        x, z = int(arr[0]), int(arr[1])
        if not self.grid.in_bounds(x, z):
            raise QueryError(
                f"{name} cell ({x}, {z}) is outside the {self.width}x{self.depth} grid "
                f"(x in [0, {self.width - 1}], z in [0, {self.depth - 1}])"
                + self.swap_hint(x, z)
            )
        return (x, z)

    def cell_pair(self, start: Any, goal: Any) -> tuple[tuple[int, int], tuple[int, int],
                                                        int, int]:
        """:meth:`cell_arg` of a query's ``start`` and ``goal`` in one call, with
        their padded nodes: ``(s, g, sn, gn)`` (the hot path: the engines take
        the nodes from here instead of working them out again)."""
        if type(start) is tuple and type(goal) is tuple and len(start) == 2 and len(goal) == 2:
            x, z = start
            u, v = goal
            w, d = self.width, self.depth
            if (type(x) is int and type(z) is int and type(u) is int and type(v) is int
                    and 0 <= x < w and 0 <= z < d and 0 <= u < w and 0 <= v < d):
                wp = self.wp  # node(), inline (the hot path)
                return start, goal, (z + 1) * wp + x + 1, (v + 1) * wp + u + 1
        s, g = self.cell_arg(start, "start"), self.cell_arg(goal, "goal")
        return s, g, self.node(*s), self.node(*g)

    def swap_hint(self, x: int, z: int) -> str:
        """``"; cells are in (x, z) order: did you mean (z, x) = ...?"`` when the swapped pair
        ``(z, x)`` is inside the grid (the usual slip with ``[z, x]`` arrays),
        else ``""``. A swapped pair that is inside both ways cannot be seen."""
        if self.grid.in_bounds(z, x):
            return f"; cells are in (x, z) order: did you mean (z, x) = ({z}, {x})?"
        return ""

    def cells_arg(self, value: ArrayLike, name: str) -> NDArray[np.int64]:
        """An ``(n, 2)`` integer array of cells inside the grid, as int64."""
        arr = as_array(value, name)
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise QueryError(f"{name} must have shape (n, 2), got {arr.shape}")
        if not np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_:
            raise QueryError(f"{name} must be an integer array, got dtype {arr.dtype}")
        arr = arr.astype(np.int64)
        if len(arr):
            x, z = arr[:, 0], arr[:, 1]
            bad = (x < 0) | (x >= self.width) | (z < 0) | (z >= self.depth)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                xi, zi = int(arr[i, 0]), int(arr[i, 1])
                raise QueryError(f"{name}[{i}] = ({xi}, {zi}) is outside the "
                                 f"{self.width}x{self.depth} grid" + self.swap_hint(xi, zi))
        return arr

    def points_arg(self, value: ArrayLike, name: str) -> NDArray[np.float64]:
        """World points ``(n, 2)`` (or ``(n, 3)`` ``(x, y, z)``, ``y`` dropped) as
        float64 ``(n, 2)``; a single point is one row. Non-finite values raise."""
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise QueryError(f"{name} must be an (n, 2) or (n, 3) array of world points") from None
        if arr.ndim == 1 and arr.shape in ((2,), (3,)):
            arr = arr.reshape(1, -1)
        if arr.ndim != 2 or arr.shape[1] not in (2, 3):
            raise QueryError(f"{name} must have shape (n, 2) or (n, 3), got {arr.shape}")
        if not np.all(np.isfinite(arr)):
            i = int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])
            raise QueryError(f"{name}[{i}] = {arr[i].tolist()} is not finite")
        return arr[:, [0, 2]] if arr.shape[1] == 3 else arr

    def locate(self, points: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """Padded nodes of world points ``(n, 2)`` and which of them lie on the
        grid (the nodes of the others are meaningless)."""
        g = self.grid
        fx = np.floor((points[:, 0] - g.min_x) / g.cell_size)
        fz = np.floor((points[:, 1] - g.min_z) / g.cell_size)
        inside = (fx >= 0) & (fx < g.width) & (fz >= 0) & (fz < g.depth)
        nodes = np.zeros(len(points), dtype=np.int64)
        nodes[inside] = self.nodes_xz(fx[inside].astype(np.int64), fz[inside].astype(np.int64))
        return nodes, inside

    def locate_cells(self, value: ArrayLike,
                     name: str) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """Padded nodes of integer cells ``(n, 2)`` (or one cell) and which lie in the grid."""
        arr = as_array(value, name)
        if arr.ndim == 1 and arr.shape == (2,):
            arr = arr.reshape(1, 2)
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise QueryError(f"{name} must have shape (n, 2), got {arr.shape}")
        if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
            raise QueryError(f"{name} must be an integer array, got dtype {arr.dtype}")
        cx = arr[:, 0].astype(np.int64)
        cz = arr[:, 1].astype(np.int64)
        inside = (cx >= 0) & (cx < self.width) & (cz >= 0) & (cz < self.depth)
        nodes = np.zeros(len(arr), dtype=np.int64)
        nodes[inside] = self.nodes_xz(cx[inside], cz[inside])
        return nodes, inside

    def window(self, window: Sequence[int]) -> tuple[int, int, int, int]:
        """A search window ``(x0, z0, x1, z1)`` (inclusive cells), clipped into the
        grid, in padded coordinates."""
        try:
            vals = [float(v) for v in window]
        except (TypeError, ValueError, OverflowError):
            raise QueryError(f"window must be (x0, z0, x1, z1) cells, "
                             f"got {shown(window)}") from None
        if len(vals) != 4 or not all(math.isfinite(v) and v == int(v) for v in vals):
            raise QueryError("window must be four finite integers (x0, z0, x1, z1), "
                             f"got {shown(window)}")
        x0, z0, x1, z1 = (int(v) for v in vals)
        if x0 > x1 or z0 > z1:
            raise QueryError(f"window must have x0 <= x1 and z0 <= z1, got {shown(tuple(window))}")
        # clipped on both sides (a window past the grid stays empty: x0 > x1 once
        # padded), so that every bound fits the kernels' int64
        return (min(max(x0, 0), self.width) + 1, min(max(z0, 0), self.depth) + 1,
                max(min(x1, self.width - 1), -1) + 1, max(min(z1, self.depth - 1), -1) + 1)

    def __repr__(self) -> str:
        return f"PaddedGrid({self.width}x{self.depth}, weighted={self.weighted})"
