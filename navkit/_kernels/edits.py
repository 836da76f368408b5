"""Kernels of per-query obstacle exclusion (``ignore=``, docs/edits.md).

The one-call world query (:func:`navkit._kernels.query.world_jps`) keeps a
*standing* overlay: the circles of the last query stamped into ``marks`` under
one mark, and cleared from the JPS rows. A query that ignores some circles of
a shared snapshot does not restamp the others: :func:`ignore_begin` makes the
snapshot the standing overlay (a no-op when it already is), then frees the
cells that only ignored circles cover (per-cell cover counts, so a cell under
two circles stays blocked when one is ignored): their mark is set to 0 and
their JPS bit restored. :func:`ignore_end` undoes exactly that. The time is
that of the ignored circles' bounding boxes.

``counts`` (int32, one per padded node) holds how many snapshot circles
cover each node; both kernels leave it as they found it.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit
from .geometry import circle_cells, stamp_circles
from .jps import refresh_box, set_bit
from .layouts import GeoFloats, GeoInts, GridArgs, WorldArgs, WorldState
from .query import stamp_overlay, world_jps

__all__ = ["ignore_begin", "ignore_end", "world_jps_ignoring"]


@njit
def ignore_begin(fx, circles, counts, perm, lo, hi, freed):  # type: ignore[no-untyped-def]
    """Make ``circles`` (validated, ``(k, 3)``) the standing overlay of the
    world query arguments ``fx``, then free for one query the nodes only the
    ignored circles cover: rows ``perm[lo:hi]`` (int64). Freed nodes go to
    ``freed`` (int32, capacity: the node count). Returns ``(mark, freed
    count)``; mark <= 0 when no overlay stands (nothing was changed then)."""
    mark = stamp_overlay(fx, circles)
    if mark <= 0:
        return mark, 0
    fx_ = WorldArgs(*fx)
    bits = fx_.bits
    cells = GridArgs(*fx_.grid).cells
    gi = GeoInts(*fx_.geo_i)
    gf = GeoFloats(*fx_.geo_f)
    marks = WorldState(*fx_.st).marks
    wp, hp = gi.wp, gi.hp
    for i in range(lo, hi):
        r = perm[i]
        stamp_circles(marks, np.int32(0), wp, hp, gf.min_x, gf.min_z, gf.cell_size,
                      circles[r : r + 1], counts, np.int32(-1))
    k = 0
    m32 = np.int32(mark)
    for i in range(lo, hi):
        r = perm[i]
        x0, z0, x1, z1 = circle_cells(circles[r, 0], circles[r, 1], circles[r, 2],
                                      gf.min_x, gf.min_z, gf.cell_size, wp - 2, hp - 2)
        if x0 > x1 or z0 > z1:
            continue
        for z in range(z0 + 1, z1 + 2):
            for x in range(x0 + 1, x1 + 2):
                q = z * wp + x
                if counts[q] == 0 and marks[q] == m32:
                    marks[q] = 0
                    freed[k] = q
                    k += 1
                    if cells[q] != 0:
                        set_bit(bits, x, z, True)
        refresh_box(bits, hp, x0 + 1, z0 + 1, x1 + 1, z1 + 1)
    return mark, k


@njit
def ignore_end(fx, circles, counts, perm, lo, hi, freed, k, mark):  # type: ignore[no-untyped-def]
    """Undo :func:`ignore_begin` (same arguments, its ``mark`` and count)."""
    fx_ = WorldArgs(*fx)
    bits = fx_.bits
    cells = GridArgs(*fx_.grid).cells
    gi = GeoInts(*fx_.geo_i)
    gf = GeoFloats(*fx_.geo_f)
    marks = WorldState(*fx_.st).marks
    wp, hp = gi.wp, gi.hp
    m32 = np.int32(mark)
    for i in range(k):
        q = freed[i]
        marks[q] = m32
        if cells[q] != 0:
            set_bit(bits, q % wp, q // wp, False)
    for i in range(lo, hi):
        r = perm[i]
        stamp_circles(marks, np.int32(0), wp, hp, gf.min_x, gf.min_z, gf.cell_size,
                      circles[r : r + 1], counts, np.int32(1))
        x0, z0, x1, z1 = circle_cells(circles[r, 0], circles[r, 1], circles[r, 2],
                                      gf.min_x, gf.min_z, gf.cell_size, wp - 2, hp - 2)
        if x0 <= x1 and z0 <= z1:
            refresh_box(bits, hp, x0 + 1, z0 + 1, x1 + 1, z1 + 1)
    return k


@njit
def world_jps_ignoring(fx, circles, counts, perm, lo, hi, freed,  # type: ignore[no-untyped-def]
                       sx, sz, ex, ez, budget, nearest, smooth, res):
    """:func:`navkit._kernels.query.world_jps` on the standing overlay of
    ``circles`` less the rows ``perm[lo:hi]`` (freed by :func:`ignore_begin`
    and restored by :func:`ignore_end` around it, in one call)."""
    mark, k = ignore_begin(fx, circles, counts, perm, lo, hi, freed)
    code = world_jps(fx, circles, sx, sz, ex, ez, budget, nearest, smooth, res)
    if mark > 0:
        ignore_end(fx, circles, counts, perm, lo, hi, freed, k, mark)
    return code
