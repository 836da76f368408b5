"""A ray over a grid's walkable cells: the first wall a segment meets (docs/rules.md §15.5).

The walk is the movement guard's cell walk (:func:`navkit._kernels.sim.segment_clear`):
a float DDA over the cells the segment crosses; through an exact cell corner
it needs one of the two side cells free. Cells outside the grid are blocked.
"""

from __future__ import annotations

import math

import numpy as np

from .._numba_config import njit

__all__ = ["grid_raycast", "walk_cells"]


@njit(inline="always")
def _blocked(cells, wp, hp, cx, cz):  # type: ignore[no-untyped-def]
    """Padded cell ``(cx, cz)`` is blocked (beyond the padded grid counts as blocked)."""
    if cx < 0 or cz < 0 or cx > wp - 1 or cz > hp - 1:
        return True
    return cells[cz * wp + cx] == 0


@njit(inline="always")
def walk_cells(cells, wp, hp, fx, fz, gx, gz):  # type: ignore[no-untyped-def]
    """Walk the cells from padded point ``(fx, fz)`` to ``(gx, gz)`` (cell units,
    the padded cell of ``(fx, fz)`` taken as free) over ``cells`` (padded uint8,
    ``wp`` x ``hp``, 0 blocked; beyond the padded grid blocked).

    Returns ``(hit, t, cx, cz)``: ``hit`` 1 when the walk enters a blocked cell or
    passes exactly through a corner whose two side cells are blocked (else 0, the
    end cell reached or the step bound hit), ``t`` the segment parameter there,
    ``(cx, cz)`` the last free cell. The movement guard's walk
    (:func:`navkit._kernels.sim.segment_clear`) and :func:`grid_raycast` are this one.
    """
    cx = int(math.floor(fx))
    cz = int(math.floor(fz))
    ex = int(math.floor(gx))
    ez = int(math.floor(gz))
    dx = gx - fx
    dz = gz - fz
    sx = 1 if dx > 0.0 else -1
    sz = 1 if dz > 0.0 else -1
    inf = np.inf
    if dx != 0.0:
        bxl = cx + 1 if sx > 0 else cx
        tmx = (bxl - fx) / dx
        tdx = 1.0 / abs(dx)
    else:
        tmx = inf
        tdx = inf
    if dz != 0.0:
        bzl = cz + 1 if sz > 0 else cz
        tmz = (bzl - fz) / dz
        tdz = 1.0 / abs(dz)
    else:
        tmz = inf
        tdz = inf
    steps = abs(ex - cx) + abs(ez - cz) + 2
    k = 0
    while (cx != ex or cz != ez) and k < steps:
        k += 1
        if tmx < tmz:
            t = tmx
            nx = cx + sx
            nz = cz
            tmx += tdx
        elif tmz < tmx:
            t = tmz
            nx = cx
            nz = cz + sz
            tmz += tdz
        else:
            t = tmx
            if _blocked(cells, wp, hp, cx + sx, cz) and _blocked(cells, wp, hp, cx, cz + sz):
                return 1, t, cx, cz
            nx = cx + sx
            nz = cz + sz
            tmx += tdx
            tmz += tdz
        if _blocked(cells, wp, hp, nx, nz):
            return 1, t, cx, cz
        cx = nx
        cz = nz
    return 0, 1.0, cx, cz


@njit(_nrt=False)
def grid_raycast(cells, wp, hp, min_x, min_z, cs, ax, az, bx, bz, out):  # type: ignore[no-untyped-def]
    """Walk ``a -> b`` over ``cells`` (padded uint8, ``wp`` x ``hp``, 0 blocked).

    Returns 1 when a blocked cell stops the walk, 0 when it reaches ``b``'s cell.
    ``out`` (float64, 3): the fraction of the segment travelled before the stop
    (1.0 without one) and the padded column and row of the last free cell. The
    caller checks that ``a``'s cell is free.
    """
    hit, t, cx, cz = walk_cells(cells, wp, hp, (ax - min_x) / cs + 1.0, (az - min_z) / cs + 1.0,
                                (bx - min_x) / cs + 1.0, (bz - min_z) / cs + 1.0)
    out[0] = min(max(t, 0.0), 1.0) if hit else 1.0
    out[1] = cx
    out[2] = cz
    return hit
