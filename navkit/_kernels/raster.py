"""Rasterization kernels: paint polygons and clear segment clearances on a cell window.

The rules they implement are in :mod:`navkit.level.raster` (docs/rules.md §2.3),
which packs a level's polygons and calls them. Argument groups follow the
layouts of :mod:`navkit._kernels.layouts` (section "rasterization"):
``raster_t`` is a :class:`~navkit._kernels.layouts.RasterArgs` (the window's
mask, weights and cell centres), ``polys_t`` a
:class:`~navkit._kernels.layouts.PolygonArgs` and ``segs_t`` a
:class:`~navkit._kernels.layouts.SegmentArgs`, each passed as a plain tuple.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit
from .layouts import PolygonArgs, RasterArgs, SegmentArgs

__all__ = ["fill_polygons", "clear_near_segments"]


@njit
def _mark_span(mask, weight, row, cx, lo, hi, value, w, use_weight):
    i0 = np.searchsorted(cx, lo, side="left")
    i1 = np.searchsorted(cx, hi, side="right")
    for i in range(i0, i1):
        mask[row, i] = value
        if use_weight:
            weight[row, i] = w


@njit
def fill_polygons(raster_t, polys_t, value, use_weight):
    """Set the mask to ``value`` (and the weight to the polygon's) at centres covered by polygons.

    Polygons are painted in order, so the last one covering a centre sets its weight.
    Even-odd rule over all rings of a polygon (valid polygons: interior), plus
    centres exactly on edges and vertices.
    """
    ra = RasterArgs(*raster_t)
    pa = PolygonArgs(*polys_t)
    mask = ra.walk
    weight = ra.weight
    cx = ra.cx
    cz = ra.cz
    vx = pa.vx
    vz = pa.vz
    ring_off = pa.ring_off
    poly_off = pa.poly_off
    poly_w = pa.weights
    n_poly = poly_off.shape[0] - 1
    for p in range(n_poly):
        r0 = poly_off[p]
        r1 = poly_off[p + 1]
        v0 = ring_off[r0]
        v1 = ring_off[r1]
        zmin = vz[v0]
        zmax = vz[v0]
        for v in range(v0, v1):
            if vz[v] < zmin:
                zmin = vz[v]
            if vz[v] > zmax:
                zmax = vz[v]
        row0 = np.searchsorted(cz, zmin, side="left")
        row1 = np.searchsorted(cz, zmax, side="right")
        if row0 >= row1:
            continue
        w = poly_w[p]
        buf = np.empty(v1 - v0, dtype=np.float64)
        for row in range(row0, row1):
            pz = cz[row]
            k = 0
            for r in range(r0, r1):
                a = ring_off[r]
                b = ring_off[r + 1]
                for i in range(a, b):
                    j = i + 1 if i + 1 < b else a
                    x0 = vx[i]
                    z0 = vz[i]
                    x1 = vx[j]
                    z1 = vz[j]
                    if (z0 > pz) != (z1 > pz):
                        buf[k] = x0 + (pz - z0) * (x1 - x0) / (z1 - z0)
                        k += 1
                    if z0 == pz:
                        # boundary points the crossings can miss: a vertex on
                        # the row (each vertex starts one edge) or a whole
                        # horizontal edge lying on it
                        if z1 == pz:
                            lo = min(x0, x1)
                            hi = max(x0, x1)
                            _mark_span(mask, weight, row, cx, lo, hi, value, w, use_weight)
                        else:
                            _mark_span(mask, weight, row, cx, x0, x0, value, w, use_weight)
            if k >= 2:
                xs = np.sort(buf[:k])
                for s in range(0, k - 1, 2):
                    _mark_span(mask, weight, row, cx, xs[s], xs[s + 1], value, w, use_weight)


@njit
def clear_near_segments(raster_t, segs_t, r):
    """Set the mask False at centres within distance ``r`` (``d*d <= r*r``) of any segment."""
    ra = RasterArgs(*raster_t)
    sa = SegmentArgs(*segs_t)
    mask = ra.walk
    cx = ra.cx
    cz = ra.cz
    ax = sa.ax
    az = sa.az
    bx = sa.bx
    bz = sa.bz
    r2 = r * r
    n = ax.shape[0]
    for s in range(n):
        x0 = ax[s]
        z0 = az[s]
        x1 = bx[s]
        z1 = bz[s]
        dx = x1 - x0
        dz = z1 - z0
        l2 = dx * dx + dz * dz
        # conservative reach: r plus a hair for rounding (candidates are tested exactly)
        scale = max(1.0, abs(x0), abs(z0), abs(x1), abs(z1), r)
        rs = r + 1e-9 * scale
        row0 = np.searchsorted(cz, min(z0, z1) - rs, side="left")
        row1 = np.searchsorted(cz, max(z0, z1) + rs, side="right")
        for row in range(row0, row1):
            pz = cz[row]
            if dz == 0.0:
                lo = min(x0, x1) - rs
                hi = max(x0, x1) + rs
            else:
                ta = (pz - rs - z0) / dz
                tb = (pz + rs - z0) / dz
                tlo = max(0.0, min(ta, tb))
                thi = min(1.0, max(ta, tb))
                if tlo > thi:
                    continue
                xa = x0 + tlo * dx
                xb = x0 + thi * dx
                lo = min(xa, xb) - rs
                hi = max(xa, xb) + rs
            i0 = np.searchsorted(cx, lo, side="left")
            i1 = np.searchsorted(cx, hi, side="right")
            for i in range(i0, i1):
                if not mask[row, i]:
                    continue
                px = cx[i] - x0
                qz = pz - z0
                if l2 == 0.0:
                    d2 = px * px + qz * qz
                else:
                    t = (px * dx + qz * dz) / l2
                    if t < 0.0:
                        t = 0.0
                    elif t > 1.0:
                        t = 1.0
                    ex = px - t * dx
                    ez = qz - t * dz
                    d2 = ex * ex + ez * ez
                if d2 <= r2:
                    mask[row, i] = False
