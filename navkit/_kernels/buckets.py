"""A uniform bucket grid of characters, rebuilt every tick (a counting sort).

The simulation's movement guard (:mod:`navkit._kernels.sim`) and ORCA
(:mod:`navkit._kernels.orca`) both bucket the solid characters this way;
``hsh`` is any layout with the fields of
:class:`~navkit._kernels.layouts.HashArgs` (``h, ox, oz, gw, gd, head,
cursor, order``).
"""

from __future__ import annotations

import math

from .._numba_config import njit

__all__ = ["bucket_of", "build_buckets"]


@njit(inline="always")
def bucket_of(hsh, x, z):  # type: ignore[no-untyped-def]
    """Bucket ``(bx, bz)`` of world point ``(x, z)``, clamped into the grid."""
    gw = hsh.gw
    gd = hsh.gd
    bx = int(math.floor((x - hsh.ox) / hsh.h))
    bz = int(math.floor((z - hsh.oz) / hsh.h))
    if bx < 0:
        bx = 0
    elif bx > gw - 1:
        bx = gw - 1
    if bz < 0:
        bz = 0
    elif bz > gd - 1:
        bz = gd - 1
    return bx, bz


@njit
def build_buckets(pos, solid, hsh):  # type: ignore[no-untyped-def]
    """Counting sort of the solid characters into buckets (slot order inside a
    bucket); ``hsh`` has the fields of :class:`~navkit._kernels.layouts.HashArgs`."""
    gw = hsh.gw
    head = hsh.head
    cursor = hsh.cursor
    order = hsh.order
    nb = gw * hsh.gd
    for b in range(nb + 1):
        head[b] = 0
    n = pos.shape[0]
    for i in range(n):
        if solid[i]:
            bx, bz = bucket_of(hsh, pos[i, 0], pos[i, 1])
            head[bz * gw + bx + 1] += 1
    for b in range(nb):
        head[b + 1] += head[b]
    for b in range(nb):
        cursor[b] = head[b]
    for i in range(n):
        if solid[i]:
            bx, bz = bucket_of(hsh, pos[i, 0], pos[i, 1])
            b = bz * gw + bx
            order[cursor[b]] = i
            cursor[b] += 1
