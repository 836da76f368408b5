"""A* over the polygons of a mesh, then the simple stupid funnel (Detour's way).

A node is a polygon; its position is the start point for the start polygon
and the midpoint of the portal it was entered through otherwise. ``g`` sums
the distances between successive positions (plus the last position to the
goal for the goal polygon), ``h`` is the straight distance to the goal. A node
may be reopened when a cheaper ``f`` reaches it (the positions move with the
parent, so the heuristic is not consistent). The polygon corridor is then
pulled taut by Mikko Mononen's simple stupid funnel algorithm. Fast and valid
(every segment lies in the corridor), not optimal.

Queue order: smallest ``f``, then lowest polygon index; stale entries are
skipped. ``ws`` is the tuple of buffers documented at :func:`funnel_search`.
"""

from __future__ import annotations

import math

import numpy as np

from .._numba_config import njit
from .mesh_geom import orient
from .mesh_layouts import MeshArgs

FOUND = 0
UNREACHABLE = 1
BUDGET_EXHAUSTED = 2
HEAP_FULL = 3  # the caller grows the heap and retries


@njit(inline="always")
def _less(fa, ka, fb, kb):  # type: ignore[no-untyped-def]
    return fa < fb or (fa == fb and ka < kb)


@njit
def _push(hf, hk, size, f, k):  # type: ignore[no-untyped-def]
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if _less(f, k, hf[parent], hk[parent]):
            hf[i] = hf[parent]
            hk[i] = hk[parent]
            i = parent
        else:
            break
    hf[i] = f
    hk[i] = k
    return size + 1


@njit
def _pop(hf, hk, size):  # type: ignore[no-untyped-def]
    size -= 1
    if size == 0:
        return 0
    f = hf[size]
    k = hk[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _less(hf[c + 1], hk[c + 1], hf[c], hk[c]):
            c += 1
        if _less(hf[c], hk[c], f, k):
            hf[i] = hf[c]
            hk[i] = hk[c]
            i = c
        else:
            break
    hf[i] = f
    hk[i] = k
    return size


@njit
def funnel_search(mesh_t, sx, sz, start, gx, gz, goal, max_nodes, stamp, ws, scr):  # type: ignore[no-untyped-def]
    """Find a polygon corridor and pull it into waypoints.

    ``ws`` = ``(seen, closed, g, f, px, pz, parent, pedge, hf, hk, corridor,
    portals, out)``: int64 ``(P,)`` stamps of valid ``g`` and of closed
    nodes, float64 ``(P,)`` ``g``, ``f`` and node positions, int32 ``(P,)``
    parent polygon and entry edge (index into ``poly_verts`` of the parent),
    the heap (float64 / int64, any capacity), int32 ``(P,)`` corridor,
    float64 ``(P + 1, 4)`` portals (left x, z, right x, z) and float64
    ``(P + 2, 2)`` waypoints. ``stamp`` (> 0) must differ from every earlier
    query's. Returns ``(status, n_waypoints, expanded, generated)``.
    """
    mesh = MeshArgs(*mesh_t)
    seen, closed, g, f, px, pz, parent, pedge, hf, hk, corridor, portals, out = ws
    vertices = mesh.vertices
    ps = mesh.poly_start
    pv = mesh.poly_verts
    adj = mesh.poly_adj
    npoly = ps.shape[0] - 1
    cap = hf.shape[0]
    expanded = 0
    generated = 1
    if start == goal:
        out[0, 0] = sx
        out[0, 1] = sz
        out[1, 0] = gx
        out[1, 1] = gz
        return FOUND, 2, 0, 0
    seen[start] = stamp
    g[start] = 0.0
    px[start] = sx
    pz[start] = sz
    f[start] = math.sqrt((sx - gx) ** 2 + (sz - gz) ** 2)
    parent[start] = -1
    pedge[start] = -1
    size = _push(hf, hk, np.int64(0), f[start], np.int64(start))
    found = False
    while size > 0:
        fc = hf[0]
        p = hk[0]
        size = _pop(hf, hk, size)
        if closed[p] == stamp or fc != f[p]:
            continue
        if p == goal:
            found = True
            break
        if expanded >= max_nodes:
            return BUDGET_EXHAUSTED, 0, expanded, generated
        expanded += 1
        closed[p] = stamp
        s = ps[p]
        e = ps[p + 1]
        for k in range(s, e):
            q = adj[k]
            if q < 0 or q == parent[p]:
                continue
            u = pv[k]
            w = pv[k + 1] if k + 1 < e else pv[s]
            mx = 0.5 * (vertices[u, 0] + vertices[w, 0])
            mz = 0.5 * (vertices[u, 1] + vertices[w, 1])
            gq = g[p] + math.sqrt((mx - px[p]) ** 2 + (mz - pz[p]) ** 2)
            hq = math.sqrt((mx - gx) ** 2 + (mz - gz) ** 2)
            if q == goal:
                gq += hq
                hq = 0.0
            fq = gq + hq
            if seen[q] == stamp and fq >= f[q]:
                continue
            if size >= cap:
                return HEAP_FULL, 0, expanded, generated
            seen[q] = stamp
            closed[q] = 0
            g[q] = gq
            f[q] = fq
            px[q] = mx
            pz[q] = mz
            parent[q] = p
            pedge[q] = k
            size = _push(hf, hk, size, fq, np.int64(q))
            generated += 1
    if not found:
        return UNREACHABLE, 0, expanded, generated
    # the corridor, goal first, then reversed
    m = 0
    p = goal
    while p >= 0 and m < npoly:
        corridor[m] = p
        m += 1
        p = parent[p]
    if p >= 0:  # a cycle: cannot happen (improvements are strict)
        return UNREACHABLE, 0, expanded, generated
    for i in range(m // 2):
        t = corridor[i]
        corridor[i] = corridor[m - 1 - i]
        corridor[m - 1 - i] = t
    # portals: (left, right) seen walking forward; the start and goal as points
    portals[0, 0] = sx
    portals[0, 1] = sz
    portals[0, 2] = sx
    portals[0, 3] = sz
    for i in range(1, m):
        q = corridor[i]
        k = pedge[q]
        pp = corridor[i - 1]
        u = pv[k]
        w = pv[k + 1] if k + 1 < ps[pp + 1] else pv[ps[pp]]
        portals[i, 0] = vertices[w, 0]  # the edge runs right -> left seen from pp
        portals[i, 1] = vertices[w, 1]
        portals[i, 2] = vertices[u, 0]
        portals[i, 3] = vertices[u, 1]
    portals[m, 0] = gx
    portals[m, 1] = gz
    portals[m, 2] = gx
    portals[m, 3] = gz
    n = string_pull(portals, m + 1, out, scr)
    return FOUND, n, expanded, generated


@njit
def _add(out, n, x, z):  # type: ignore[no-untyped-def]
    if n > 0 and out[n - 1, 0] == x and out[n - 1, 1] == z:
        return n
    out[n, 0] = x
    out[n, 1] = z
    return n + 1


@njit
def string_pull(portals, npt, out, scr):  # type: ignore[no-untyped-def]
    """The simple stupid funnel over ``portals[:npt]`` (the first and last are
    the start and goal as degenerate portals); writes the waypoints to ``out``
    (at least ``npt + 1`` rows) and returns their number. Equal consecutive
    points are written once."""
    ax = portals[0, 0]
    az = portals[0, 1]
    lx = portals[0, 0]
    lz = portals[0, 1]
    rx = portals[0, 2]
    rz = portals[0, 3]
    apex = 0
    li = 0
    ri = 0
    n = _add(out, np.int64(0), ax, az)
    i = 1
    # the apex index only grows, so at most npt * npt steps
    for _ in range(npt * npt + npt):
        if i >= npt:
            break
        nlx = portals[i, 0]
        nlz = portals[i, 1]
        nrx = portals[i, 2]
        nrz = portals[i, 3]
        # the right side: tighten when the new right point turns left (inwards)
        if orient(ax, az, rx, rz, nrx, nrz, scr) >= 0:
            if (ax == rx and az == rz) or orient(ax, az, lx, lz, nrx, nrz, scr) < 0:
                rx = nrx
                rz = nrz
                ri = i
            else:  # crosses the left side: the left point is a corner
                n = _add(out, n, lx, lz)
                ax = lx
                az = lz
                apex = li
                rx = ax
                rz = az
                ri = apex
                i = apex + 1
                continue
        # the left side
        if orient(ax, az, lx, lz, nlx, nlz, scr) <= 0:
            if (ax == lx and az == lz) or orient(ax, az, rx, rz, nlx, nlz, scr) > 0:
                lx = nlx
                lz = nlz
                li = i
            else:
                n = _add(out, n, rx, rz)
                ax = rx
                az = rz
                apex = ri
                lx = ax
                lz = az
                li = apex
                i = apex + 1
                continue
        i += 1
    return _add(out, n, portals[npt - 1, 0], portals[npt - 1, 1])
