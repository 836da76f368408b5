"""Point queries on a navigation mesh: location, nearest point, raycast.

``mesh_t`` is the tuple of :class:`~navkit._kernels.mesh_layouts.MeshArgs`.
Every geometric decision goes through :func:`det_sign`, an exact sign of a
2x2 determinant of coordinate differences (a floating-point filter with
Shewchuk's error bound, then an exact expansion sum in the rare uncertain
case), so the answers on edges and vertices are those of exact arithmetic.
``scr`` is a caller-owned float64 scratch of at least :data:`SCRATCH` entries
for that exact fallback. Coordinates are world ``(x, z)`` metres, within
+-1e15 (so products never overflow and Dekker's split is exact).
"""

from __future__ import annotations

import math

import numpy as np

from .._numba_config import njit
from .mesh_layouts import MeshArgs

#: float64 entries the exact fallback of :func:`det_sign` needs in ``scr``.
SCRATCH = 32

# raycast status codes
RAY_CLEAR = 0
RAY_HIT = 1
RAY_OUTSIDE = 2  # the start point lies in no polygon
RAY_BAD_START = 3  # the start point is not in the given start polygon

_SPLITTER = 134217729.0  # 2**27 + 1
_CCW_ERRBOUND = 3.3306690738754716e-16  # (3 + 16 eps) eps, eps = 2**-53


@njit(inline="always")
def _two_sum(a, b):  # type: ignore[no-untyped-def]
    x = a + b
    bv = x - a
    av = x - bv
    return x, (a - av) + (b - bv)


@njit(inline="always")
def _two_prod(a, b):  # type: ignore[no-untyped-def]
    x = a * b
    c = _SPLITTER * a
    ahi = c - (c - a)
    alo = a - ahi
    c = _SPLITTER * b
    bhi = c - (c - b)
    blo = b - bhi
    err = x - ahi * bhi
    err -= alo * bhi
    err -= ahi * blo
    return x, alo * blo - err


@njit
def exact_sign(p, q, r, s, t, u, v, w, scr):  # type: ignore[no-untyped-def]
    """Exact sign of ``(p - q) * (r - s) - (t - u) * (v - w)`` (-1, 0, 1).

    Expands into 8 products (16 exact doubles in ``scr[0:16]``) and sums them
    with Shewchuk's grow-expansion (zero elimination) in ``scr[16:32]``; the
    sign of the sum is the sign of the expansion's largest component.
    """
    scr[0], scr[1] = _two_prod(p, r)
    scr[2], scr[3] = _two_prod(-p, s)
    scr[4], scr[5] = _two_prod(-q, r)
    scr[6], scr[7] = _two_prod(q, s)
    scr[8], scr[9] = _two_prod(-t, v)
    scr[10], scr[11] = _two_prod(t, w)
    scr[12], scr[13] = _two_prod(u, v)
    scr[14], scr[15] = _two_prod(-u, w)
    m = 0
    for i in range(16):
        big = scr[i]
        k = 0
        for j in range(m):
            big, small = _two_sum(big, scr[16 + j])
            if small != 0.0:
                scr[16 + k] = small
                k += 1
        if big != 0.0:
            scr[16 + k] = big
            k += 1
        m = k
    if m == 0:
        return 0
    return 1 if scr[16 + m - 1] > 0.0 else -1


@njit(inline="always")
def det_sign(p, q, r, s, t, u, v, w, scr):  # type: ignore[no-untyped-def]
    """Sign of ``(p - q) * (r - s) - (t - u) * (v - w)``, exactly (-1, 0, 1)."""
    left = (p - q) * (r - s)
    right = (t - u) * (v - w)
    det = left - right
    if left > 0.0:
        if right <= 0.0:
            return 1 if det > 0.0 else (-1 if det < 0.0 else 0)
        detsum = left + right
    elif left < 0.0:
        if right >= 0.0:
            return 1 if det > 0.0 else (-1 if det < 0.0 else 0)
        detsum = -left - right
    else:
        return 1 if det > 0.0 else (-1 if det < 0.0 else 0)
    bound = _CCW_ERRBOUND * detsum
    if det >= bound and det != 0.0:
        return 1
    if -det >= bound and det != 0.0:
        return -1
    return exact_sign(p, q, r, s, t, u, v, w, scr)


@njit(inline="always")
def orient(ax, az, bx, bz, cx, cz, scr):  # type: ignore[no-untyped-def]
    """Exact sign of ``cross(b - a, c - a)``: 1 when c is left of a -> b."""
    return det_sign(ax, cx, bz, cz, az, cz, bx, cx, scr)


@njit
def poly_contains(vertices, poly_start, poly_verts, p, x, z, scr):  # type: ignore[no-untyped-def]
    """True when ``(x, z)`` lies in polygon ``p`` or on its boundary."""
    s = poly_start[p]
    e = poly_start[p + 1]
    prev = poly_verts[e - 1]
    for k in range(s, e):
        cur = poly_verts[k]
        if orient(vertices[prev, 0], vertices[prev, 1], vertices[cur, 0], vertices[cur, 1],
                  x, z, scr) < 0:
            return False
        prev = cur
    return True


@njit
def locate_point(mesh_t, x, z, scr):  # type: ignore[no-untyped-def]
    """The lowest-index polygon whose closure holds ``(x, z)``, or -1."""
    mesh = MeshArgs(*mesh_t)
    ox = mesh.bucket_geom[0]
    oz = mesh.bucket_geom[1]
    size = mesh.bucket_geom[2]
    nx = mesh.bucket_dims[0]
    nz = mesh.bucket_dims[1]
    fx = (x - ox) / size
    fz = (z - oz) / size
    if not (fx >= 0.0 and fx <= nx and fz >= 0.0 and fz <= nz):
        return -1
    ix = min(int(fx), nx - 1)
    iz = min(int(fz), nz - 1)
    b = iz * nx + ix
    bbox = mesh.poly_bbox
    for k in range(mesh.bucket_start[b], mesh.bucket_start[b + 1]):
        p = mesh.bucket_polys[k]  # ascending within a bucket
        if x < bbox[p, 0] or x > bbox[p, 2] or z < bbox[p, 1] or z > bbox[p, 3]:
            continue
        if poly_contains(mesh.vertices, mesh.poly_start, mesh.poly_verts, np.int64(p), x, z, scr):
            return p
    return -1


@njit
def locate_batch(mesh_t, xz, out, scr):  # type: ignore[no-untyped-def]
    """``out[i] = locate_point(xz[i])`` for ``xz`` ``(n, 2)``, ``out`` int32 ``(n,)``."""
    for i in range(xz.shape[0]):
        out[i] = locate_point(mesh_t, xz[i, 0], xz[i, 1], scr)
    return 0


@njit
def poly_nearest(vertices, poly_start, poly_verts, p, x, z, scr):  # type: ignore[no-untyped-def]
    """``(d2, qx, qz)``: the squared distance from ``(x, z)`` to polygon ``p``'s
    closure and the nearest point (the point itself when inside)."""
    if poly_contains(vertices, poly_start, poly_verts, p, x, z, scr):
        return 0.0, x, z
    s = poly_start[p]
    e = poly_start[p + 1]
    best = math.inf
    bx = x
    bz = z
    prev = poly_verts[e - 1]
    for k in range(s, e):
        cur = poly_verts[k]
        ax_ = vertices[prev, 0]
        az_ = vertices[prev, 1]
        ex = vertices[cur, 0] - ax_
        ez = vertices[cur, 1] - az_
        ll = ex * ex + ez * ez
        t = ((x - ax_) * ex + (z - az_) * ez) / ll if ll > 0.0 else 0.0
        if t <= 0.0:
            qx = ax_
            qz = az_
        elif t >= 1.0:
            qx = vertices[cur, 0]
            qz = vertices[cur, 1]
        else:
            qx = ax_ + t * ex
            qz = az_ + t * ez
        d2 = (qx - x) * (qx - x) + (qz - z) * (qz - z)
        if d2 < best:
            best = d2
            bx = qx
            bz = qz
        prev = cur
    return best, bx, bz


@njit(inline="always")
def _bbox_d2(bbox, p, x, z):  # type: ignore[no-untyped-def]
    dx = max(bbox[p, 0] - x, 0.0, x - bbox[p, 2])
    dz = max(bbox[p, 1] - z, 0.0, z - bbox[p, 3])
    return dx * dx + dz * dz


@njit
def _scan_bucket(mesh_t, b, x, z, best, bd2, bx, bz, scr):  # type: ignore[no-untyped-def]
    mesh = MeshArgs(*mesh_t)
    for k in range(mesh.bucket_start[b], mesh.bucket_start[b + 1]):
        p = mesh.bucket_polys[k]
        bb = _bbox_d2(mesh.poly_bbox, p, x, z)
        if bb > bd2 or (bb == bd2 and p > best):
            continue
        d2, qx, qz = poly_nearest(mesh.vertices, mesh.poly_start, mesh.poly_verts, np.int64(p),
                                  x, z, scr)
        if d2 < bd2 or (d2 == bd2 and p < best):
            best = p
            bd2 = d2
            bx = qx
            bz = qz
    return best, bd2, bx, bz


@njit
def nearest_kernel(mesh_t, x, z, max_dist, scr):  # type: ignore[no-untyped-def]
    """``(poly, qx, qz)``: the nearest point of the mesh within ``max_dist`` m
    (ties to the lowest polygon), or ``(-1, nan, nan)``.

    Scans the buckets in square rings around the point's bucket; ring ``r``
    lies at least ``(r - 1) * size`` away, so the scan stops once that exceeds
    the best distance found or ``max_dist``.
    """
    mesh = MeshArgs(*mesh_t)
    ox = mesh.bucket_geom[0]
    oz = mesh.bucket_geom[1]
    size = mesh.bucket_geom[2]
    nx = mesh.bucket_dims[0]
    nz = mesh.bucket_dims[1]
    lim = float(nx + nz + 2)
    fx = min(max((x - ox) / size, -lim), lim + nx)  # far points: clamp, still outside
    fz = min(max((z - oz) / size, -lim), lim + nz)
    cx = int(math.floor(fx))
    cz = int(math.floor(fz))
    # the ring of the first bucket inside the grid, and the ring past the last
    r0 = max(0, -cx, cx - (nx - 1), -cz, cz - (nz - 1))
    r1 = max(cx, nx - 1 - cx, cz, nz - 1 - cz)
    best = np.int64(-1)
    bd2 = math.inf
    bx = math.nan
    bz = math.nan
    md2 = max_dist * max_dist
    for r in range(r0, r1 + 1):
        gap = (r - 1) * size
        if gap > 0.0:
            g2 = gap * gap
            if g2 > bd2 or g2 > md2:
                break
        z_lo = cz - r
        z_hi = cz + r
        x_lo = max(cx - r, 0)
        x_hi = min(cx + r, nx - 1)
        # bottom and top rows
        for iz in (z_lo, z_hi):
            if iz < 0 or iz >= nz:
                continue
            for ix in range(x_lo, x_hi + 1):
                best, bd2, bx, bz = _scan_bucket(mesh_t, iz * nx + ix, x, z, best, bd2, bx, bz,
                                                 scr)
            if r == 0:
                break
        if r == 0:
            continue
        # left and right columns, without the corners
        zl = max(z_lo + 1, 0)
        zh = min(z_hi - 1, nz - 1)
        for ix in (cx - r, cx + r):
            if ix < 0 or ix >= nx:
                continue
            for iz in range(zl, zh + 1):
                best, bd2, bx, bz = _scan_bucket(mesh_t, iz * nx + ix, x, z, best, bd2, bx, bz,
                                                 scr)
    if best < 0 or bd2 > md2:
        return -1, math.nan, math.nan
    return best, bx, bz


@njit
def nearest_in_region_kernel(mesh_t, poly_region, region, x, z, scr):  # type: ignore[no-untyped-def]
    """``(poly, qx, qz)``: the nearest point of the polygons of ``region``
    (brute force; ties to the lowest polygon), or ``(-1, nan, nan)``."""
    mesh = MeshArgs(*mesh_t)
    best = np.int64(-1)
    bd2 = math.inf
    bx = math.nan
    bz = math.nan
    for p in range(poly_region.shape[0]):
        if poly_region[p] != region:
            continue
        if _bbox_d2(mesh.poly_bbox, p, x, z) >= bd2:
            continue
        d2, qx, qz = poly_nearest(mesh.vertices, mesh.poly_start, mesh.poly_verts, np.int64(p),
                                  x, z, scr)
        if d2 < bd2:
            best = p
            bd2 = d2
            bx = qx
            bz = qz
    return best, bx, bz


@njit
def _vsign(vertices, poly_verts, s, n, k, ax, az, bx, bz, scr):  # type: ignore[no-untyped-def]
    """Side of vertex ``k`` (mod n) of the polygon at ``s`` relative to line a -> b."""
    v = poly_verts[s + (k % n)]
    return orient(ax, az, bx, bz, vertices[v, 0], vertices[v, 1], scr)


@njit
def _exit(vertices, poly_verts, s, n, ax, az, bx, bz, scr):  # type: ignore[no-untyped-def]
    """Where the line a -> b leaves the convex polygon at ``s`` (``n`` vertices):
    ``(kind, k)``: kind 0 across the interior of edge ``k``, kind 1 through
    vertex ``k`` (local indices), kind -1 when the line misses it."""
    for k in range(n):
        sk = _vsign(vertices, poly_verts, s, n, k, ax, az, bx, bz, scr)
        if sk < 0:
            if _vsign(vertices, poly_verts, s, n, k + 1, ax, az, bx, bz, scr) > 0:
                return 0, k
            continue
        if sk > 0:
            continue
        sp = _vsign(vertices, poly_verts, s, n, k + n - 1, ax, az, bx, bz, scr)
        if sp == 0:
            continue  # not the first vertex of its run of zeros
        j = k
        sn = 0
        for _ in range(n):
            sn = _vsign(vertices, poly_verts, s, n, j + 1, ax, az, bx, bz, scr)
            if sn != 0:
                break
            j += 1
        if sp < 0 and sn > 0:
            return 1, k
        if sp > 0 and sn > 0:
            return 1, j % n  # along an edge in the ray's direction: its far end
        if sp < 0 and sn < 0:
            return 1, k  # along an edge against the polygon's order: its first vertex
    return -1, 0


@njit
def _fan_next(mesh_t, w, cur, ax, az, bx, bz, scr):  # type: ignore[no-untyped-def]
    """The lowest-index polygon other than ``cur`` around vertex ``w`` whose
    corner at ``w`` holds the direction b - a (closed cone), or -1."""
    mesh = MeshArgs(*mesh_t)
    vertices = mesh.vertices
    wx = vertices[w, 0]
    wz = vertices[w, 1]
    best = np.int64(-1)
    for i in range(mesh.vert_start[w], mesh.vert_start[w + 1]):
        r = mesh.vert_polys[i]
        if r < 0 or r == cur or (best >= 0 and r > best):
            continue
        s = mesh.poly_start[r]
        e = mesh.poly_start[r + 1]
        n = e - s
        for k in range(n):
            if mesh.poly_verts[s + k] == w:
                nv = mesh.poly_verts[s + (k + 1) % n]
                pv = mesh.poly_verts[s + (k + n - 1) % n]
                # cross(next - w, d) >= 0 and cross(prev - w, d) <= 0
                if det_sign(vertices[nv, 0], wx, bz, az, vertices[nv, 1], wz, bx, ax, scr) >= 0 \
                        and det_sign(vertices[pv, 0], wx, bz, az, vertices[pv, 1], wz, bx, ax,
                                     scr) <= 0:
                    best = r
                break
    return best


@njit
def raycast_kernel(mesh_t, ax, az, start, bx, bz, scr):  # type: ignore[no-untyped-def]
    """Walk the segment a -> b from polygon ``start`` (-1: locate a) across portals.

    Returns ``(status, poly, t, hx, hz)``: status :data:`RAY_CLEAR` (b reached;
    ``poly`` holds b, ``t`` = 1) or :data:`RAY_HIT` (``t`` in [0, 1] is the
    fraction travelled before the first wall, ``(hx, hz)`` the hit point,
    ``poly`` the last polygon), :data:`RAY_OUTSIDE` or :data:`RAY_BAD_START`.
    The ray stays in the closure of the free space: it may slide along a wall
    or pass through a vertex, and stops where it would leave the closure.
    """
    mesh = MeshArgs(*mesh_t)
    vertices = mesh.vertices
    ps = mesh.poly_start
    pv = mesh.poly_verts
    npoly = ps.shape[0] - 1
    if start < 0:
        start = locate_point(mesh_t, ax, az, scr)
        if start < 0:
            return RAY_OUTSIDE, -1, 0.0, ax, az
    elif not poly_contains(vertices, ps, pv, np.int64(start), ax, az, scr):
        return RAY_BAD_START, start, 0.0, ax, az
    dx = bx - ax
    dz = bz - az
    dd = dx * dx + dz * dz
    cur = start
    tcur = 0.0
    for _ in range(2 * npoly + 2):
        if poly_contains(vertices, ps, pv, np.int64(cur), bx, bz, scr):
            return RAY_CLEAR, cur, 1.0, bx, bz
        s = ps[cur]
        n = ps[cur + 1] - s
        kind, k = _exit(vertices, pv, s, n, ax, az, bx, bz, scr)
        if kind < 0:  # cannot happen when a lies in cur
            return RAY_HIT, cur, tcur, ax + tcur * dx, az + tcur * dz
        if kind == 0:
            u = pv[s + k]
            w = pv[s + (k + 1) % n]
            ex = vertices[w, 0] - vertices[u, 0]
            ez = vertices[w, 1] - vertices[u, 1]
            den = dx * ez - dz * ex
            t = ((vertices[u, 0] - ax) * ez - (vertices[u, 1] - az) * ex) / den
            t = min(max(t, tcur), 1.0)
            nxt = mesh.poly_adj[s + k]
            if nxt < 0:
                return RAY_HIT, cur, t, ax + t * dx, az + t * dz
        else:
            w = pv[s + k]
            wx = vertices[w, 0]
            wz = vertices[w, 1]
            t = ((wx - ax) * dx + (wz - az) * dz) / dd
            t = min(max(t, tcur), 1.0)
            nxt = _fan_next(mesh_t, w, cur, ax, az, bx, bz, scr)
            if nxt < 0:
                return RAY_HIT, cur, t, wx, wz
        tcur = t
        cur = nxt
    return RAY_HIT, cur, tcur, ax + tcur * dx, az + tcur * dz
