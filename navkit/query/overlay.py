"""Dynamic obstacles on a padded grid: per-query circles and long-lived occupants
(docs/rules.md §7).

Two mechanisms, neither of which copies or edits the grid:

* :class:`Overlay`: a query's snapshot of obstacle circles, stamped into a
  generation-tagged ``marks`` array: node ``i`` is blocked for this query
  when ``marks[i] == mark``. A new snapshot takes a fresh mark, so nothing
  is ever cleared per query. The one-call world query keeps its last
  snapshot stamped between queries (the *standing* overlay, see
  :mod:`navkit._kernels.query`); whatever else writes marks or reads the
  JPS rows releases it first.
* :class:`Occupancy`: occupants that stay for a while (a character standing
  still), as a per-node counter, so overlapping occupants add up; the
  effective cells (static walkability AND no occupant) and each node's legal
  moves follow every change, and listeners (the JPS rows) are told which box
  changed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import geometry as _geo
from .._kernels import query as _query
from .._kernels import search as _search
from ..errors import QueryError
from .padded import PaddedGrid

__all__ = ["as_circles", "Overlay", "Occupancy", "MAX_COORD"]

#: Largest coordinate or radius of a circle, metres.
MAX_COORD = _geo.MAX_COORD


def as_circles(obstacles: ArrayLike, name: str = "obstacles") -> NDArray[np.float64]:
    """Validate world circles: a C-contiguous float64 ``(k, 3)`` array of
    ``(x, z, radius)``; a single ``(x, z, r)`` triple is accepted. Non-finite
    values, a negative radius or values beyond ``+-1e15`` m raise
    :class:`QueryError` naming the row.

    >>> as_circles([1.0, 2.0, 0.5]).tolist()
    [[1.0, 2.0, 0.5]]
    """
    try:
        arr = np.asarray(obstacles, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise QueryError(f"{name} must be an (k, 3) array of world circles "
                         "(x, z, radius)") from None
    if arr.ndim == 1 and arr.size == 3:
        arr = arr.reshape(1, 3)
    if arr.size == 0:
        return np.zeros((0, 3), dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise QueryError(f"{name} must have shape (k, 3) = (x, z, radius) per circle, "
                         f"got {arr.shape}")
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise QueryError(f"{name}[{i}] = {arr[i].tolist()} is not finite")
    if np.any(arr[:, 2] < 0):
        i = int(np.flatnonzero(arr[:, 2] < 0)[0])
        raise QueryError(f"{name}[{i}] has a negative radius {arr[i, 2]}")
    far = (np.abs(arr) > MAX_COORD).any(axis=1)
    if far.any():
        i = int(np.flatnonzero(far)[0])
        raise QueryError(f"{name}[{i}] = {arr[i].tolist()} lies beyond +-{MAX_COORD:g} m")
    return np.ascontiguousarray(arr)


def stamp(pg: PaddedGrid, circles: NDArray[np.float64], marks: NDArray[np.int32], mark: int,
          counts: NDArray[np.int32], delta: int) -> None:
    """Stamp ``circles`` (validated) on ``pg``: ``marks[i] = mark`` under each
    (``mark > 0``), or ``counts[i] += delta`` (``mark == 0``)."""
    # a writeable array, as the world kernel passes it: one compiled signature
    circles = np.require(circles, requirements="W")
    _geo.stamp_circles(marks, np.int32(mark), np.int64(pg.wp), np.int64(pg.hp), *pg.geo, circles,
                       counts, np.int32(delta))


class Overlay:
    """A query's obstacle snapshot as generation-tagged marks.

    ``marks`` (int32, one per node) and ``mark`` (0: no overlay) are what the
    kernels read; ``counters`` (int64 ``[last JPS generation, last mark]``)
    is shared with the one-call world query's kernel, and so are
    ``standing`` (int64 ``[mark, cells cleared from the JPS rows, circles]``),
    ``standing_circles`` and ``saved`` (the cells a JPS query cleared).
    """

    def __init__(self, pg: PaddedGrid):
        self.pg = pg
        self.marks = np.zeros(pg.n, dtype=np.int32)
        self.mark = 0
        self.circles: NDArray[np.float64] | None = None
        self.counters = np.zeros(2, dtype=np.int64)
        self.standing = np.zeros(3, dtype=np.int64)
        self.standing_circles = np.zeros((64, 3), dtype=np.float64)
        self._saved: NDArray[np.int32] | None = None
        #: The JPS rows once built (:class:`navkit.query.jps.JPS` sets them): a
        #: standing overlay is cleared from them, so releasing it restores them.
        self.bits: tuple[Any, ...] | None = None

    def args(self) -> tuple[NDArray[np.int32], np.int32]:
        """The kernels' ``overlay = (marks, mark)``."""
        return (self.marks, np.int32(self.mark))

    @property
    def saved(self) -> NDArray[np.int32]:
        """Scratch for the cells a JPS query clears from its rows (allocated on first use)."""
        if self._saved is None:
            self._saved = np.zeros(self.pg.n, dtype=np.int32)
        return self._saved

    def blocks(self, node: int) -> bool:
        """True when this query's snapshot covers ``node``."""
        return self.mark > 0 and self.marks[node] == self.mark

    def set(self, obstacles: ArrayLike | None) -> None:
        """Stamp this query's circles under a fresh mark (None or none: overlay off)."""
        self.mark = 0
        self.circles = None
        if obstacles is None:
            return
        circles = as_circles(obstacles)
        if len(circles) == 0:
            return
        self.circles = circles
        mark = self.next_mark()
        stamp(self.pg, circles, self.marks, mark, self.marks, 0)
        self.mark = mark

    @contextmanager
    def using(self, obstacles: ArrayLike | None) -> Iterator[None]:
        """The overlay of ``obstacles`` for the duration of a ``with`` block."""
        self.set(obstacles)
        try:
            yield
        finally:
            self.mark = 0

    def next_mark(self) -> int:
        """A fresh mark (clearing the marks when the counter wraps around)."""
        self.release_standing()
        mark = int(self.counters[1]) + 1
        if mark >= _search.GEN_LIMIT:
            self.marks.fill(0)
            mark = 1
        self.counters[1] = mark
        return mark

    def release_standing(self) -> None:
        """Restore the JPS rows under the world query's standing overlay, and drop it."""
        if self.standing[0] and self.bits is not None:
            _query.release(self.bits, self.pg.hp, self.pg.geo,
                           self.standing, self.standing_circles, self.saved)
        self.standing[:] = 0

    def make_room(self, k: int) -> bool:
        """Make ``standing_circles`` hold ``k`` circles; True when it was replaced."""
        if k <= len(self.standing_circles):
            return False
        self.release_standing()
        self.standing_circles = np.zeros((2 * k, 3), dtype=np.float64)
        return True


class Occupancy:
    """Long-lived occupants as per-node counters, and what follows from them.

    ``cells`` (uint8, one per node) is the grid the searches read: static
    walkability AND no occupant. ``moves`` holds each node's legal moves
    (:func:`navkit._kernels.search.move_masks`; uniform grids only, which the
    level queue reads) under the diagonal mode ``dmode`` (docs/rules.md
    §3.9: 0 the corner rule, 1 at least one side cell free, 2 always).
    With ``lazy_moves`` they are computed on first access of :attr:`moves`
    (a Pathfinder whose queries run JPS then never compiles
    :func:`~navkit._kernels.search.move_masks`).
    """

    def __init__(self, pg: PaddedGrid, eight: bool, dmode: int = 0, *, lazy_moves: bool = False):
        self.pg = pg
        self.eight = eight
        self.dmode = int(dmode)
        #: ``move_masks``'s rule: 0 four-connected, else ``1 + dmode``.
        self._rule = np.int64(1 + self.dmode if eight else 0)
        self.cells = pg.cells.copy()
        self._counts: NDArray[np.int32] | None = None
        self._occupants: dict[int, tuple[float, float, float]] = {}
        self._next_handle = 1
        self._listeners: list[Callable[[int, int, int, int], None]] = []
        self._moves = np.zeros(1 if pg.weighted else pg.n, dtype=np.uint8)
        #: False until the move masks are computed (then kept current by every change).
        self._moves_ready = False
        if not lazy_moves:
            self.ensure_moves()

    def ensure_moves(self) -> None:
        """Compute the move masks now unless they exist (then every change keeps them current)."""
        if not self._moves_ready:
            self._moves_ready = True
            self.update_moves(1, 1, self.pg.wp - 2, self.pg.hp - 2)

    @property
    def moves(self) -> NDArray[np.uint8]:
        """Each node's legal moves, one bit per move (uint8, one per node; one
        unused entry on weighted grids), computed on first access."""
        self.ensure_moves()
        return self._moves

    def free(self, cell: tuple[int, int]) -> bool:
        """True when ``cell`` is inside the grid, walkable and unoccupied."""
        return self.pg.grid.in_bounds(*cell) and bool(self.cells[self.pg.node(*cell)])

    def on_change(self, listener: Callable[[int, int, int, int], None]) -> None:
        """Call ``listener(x0, z0, x1, z1)`` (padded, inclusive) after cells in that box changed."""
        self._listeners.append(listener)

    @property
    def occupants(self) -> dict[int, tuple[float, float, float]]:
        """Live occupants: handle -> (x, z, radius)."""
        return dict(self._occupants)

    def add(self, x: float, z: float, radius: float) -> int:
        """Block the cells whose centres lie within ``radius`` metres of ``(x, z)``;
        returns a handle."""
        circle = as_circles([x, z, radius], "occupant")[0]
        handle = self._next_handle
        self._next_handle += 1
        self._occupants[handle] = (float(circle[0]), float(circle[1]), float(circle[2]))
        self._apply(circle, +1)
        return handle

    def remove(self, handle: int) -> None:
        """Undo :meth:`add`. Unknown handles raise QueryError."""
        try:
            circle = self._occupants.pop(handle)
        except (KeyError, TypeError):
            raise QueryError(f"no occupant with handle {handle!r}") from None
        self._apply(np.array(circle, dtype=np.float64), -1)

    def _apply(self, circle: NDArray[np.float64], delta: int) -> None:
        pg = self.pg
        if self._counts is None:
            self._counts = np.zeros(pg.n, dtype=np.int32)
        stamp(pg, circle.reshape(1, 3), self._counts, 0, self._counts, delta)
        # refresh the effective cells in the circle's bounding box
        g = pg.grid
        x, z, r = (float(v) for v in circle)
        x0 = max(int(math.floor((x - r - g.min_x) / g.cell_size)) - 1, 0) + 1
        x1 = min(int(math.ceil((x + r - g.min_x) / g.cell_size)) + 1, g.width - 1) + 1
        z0 = max(int(math.floor((z - r - g.min_z) / g.cell_size)) - 1, 0) + 1
        z1 = min(int(math.ceil((z + r - g.min_z) / g.cell_size)) + 1, g.depth - 1) + 1
        if x0 > x1 or z0 > z1:
            return
        self.refresh(x0, z0, x1, z1)

    def refresh(self, x0: int, z0: int, x1: int, z1: int) -> None:
        """Re-derive the effective cells of padded columns ``x0..x1``, rows
        ``z0..z1`` (inclusive, interior) from the static cells and the
        occupant counts, then their move masks and the listeners (after an
        occupant change or a cell edit, :mod:`navkit.query.edits`)."""
        pg = self.pg
        if x0 == x1 and z0 == z1:  # one cell (a cell edit): no array views
            q = z0 * pg.wp + x0
            free = pg.cells[q] != 0 and (self._counts is None or self._counts[q] <= 0)
            self.cells[q] = 1 if free else 0
        else:
            cells = self.cells.reshape(pg.hp, pg.wp)
            static = pg.cells.reshape(pg.hp, pg.wp)
            box = (slice(z0, z1 + 1), slice(x0, x1 + 1))
            if self._counts is None:
                cells[box] = static[box]
            else:
                counts = self._counts.reshape(pg.hp, pg.wp)
                cells[box] = np.where(counts[box] > 0, 0, static[box])
        # the box's neighbours' diagonals change too
        self.update_moves(x0 - 1, z0 - 1, x1 + 1, z1 + 1)
        for listener in self._listeners:
            listener(x0, z0, x1, z1)

    def update_moves(self, x0: int, z0: int, x1: int, z1: int) -> None:
        """Recompute the move masks of padded columns ``x0..x1``, rows ``z0..z1``
        (clamped to the interior) after their cells changed."""
        pg = self.pg
        if pg.weighted or not self._moves_ready:
            return
        _search.move_masks(self.cells, np.int64(pg.wp), np.int64(max(x0, 1)),
                           np.int64(max(z0, 1)), np.int64(min(x1, pg.wp - 2)),
                           np.int64(min(z1, pg.hp - 2)), self._rule, self._moves)
