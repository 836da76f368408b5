"""Kernels that build meshes: vertex fans, bucket cells, convex merging, grid outlines.

Lengths in metres; polygons are counter-clockwise in the ``(x, z)`` plane.
Half-edge ``k`` of a CSR polygon list runs from ``poly_verts[k]`` to the next
vertex of the same polygon; ``twin[k]`` is the opposite half-edge or ``-1``.
Each kernel writes into caller-owned arrays and returns a status: 0 done,
2 an output buffer is too small, 3 the input is not a conforming mesh.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit


@njit
def vertex_fans(n_vert, out_start, out_edges, owner, twin, nxt_edge, prev_edge, stamp,
                vert_start, vert_polys, bad):  # type: ignore[no-untyped-def]
    """Polygons around each vertex counter-clockwise, ``-1`` at each wall gap.

    ``out_start`` (V + 1) / ``out_edges`` list the half-edges leaving each
    vertex by increasing polygon; ``stamp`` (P,) is scratch (any values).
    Writes ``vert_start`` (V + 1) and ``vert_polys`` (capacity ``2 E``).
    The walk starts at the lowest polygon whose clockwise side is a wall (else
    the lowest), and after a wall jumps to the lowest unseen polygon whose
    clockwise side is a wall. Returns 0, 2 (buffer too small) or 3 with
    ``bad[0]`` the vertex whose polygons do not form fans.
    """
    for p in range(stamp.shape[0]):
        stamp[p] = -1
    n = 0
    cap = vert_polys.shape[0]
    vert_start[0] = 0
    for u in range(n_vert):
        s = out_start[u]
        e = out_start[u + 1]
        if e == s:
            vert_start[u + 1] = n
            continue
        first = s
        for j in range(s, e):
            if twin[prev_edge[out_edges[j]]] < 0:
                first = j
                break
        k = out_edges[first]
        seen = 0
        for _ in range(2 * (e - s) + 2):
            p = owner[k]
            if stamp[p] == u:
                break
            stamp[p] = u
            seen += 1
            if n >= cap:
                return 2
            vert_polys[n] = p
            n += 1
            t = twin[k]
            if t < 0:
                if n >= cap:
                    return 2
                vert_polys[n] = -1
                n += 1
                nk = -1
                for j in range(s, e):
                    kk = out_edges[j]
                    if stamp[owner[kk]] != u and twin[prev_edge[kk]] < 0:
                        nk = kk
                        break
                if nk < 0:
                    break
                k = nk
            else:
                k = nxt_edge[t]  # the neighbour's edge w -> u is followed by its edge leaving u
        if seen != e - s:
            bad[0] = u
            return 3
        vert_start[u + 1] = n
    return 0


@njit
def bucket_cells(x0, x1, z0, z1, nx, offsets, cell):  # type: ignore[no-untyped-def]
    """Bucket ids ``iz * nx + ix`` of each box's cell range, box ``i`` at ``offsets[i]``."""
    for i in range(x0.shape[0]):
        k = offsets[i]
        for iz in range(z0[i], z1[i] + 1):
            for ix in range(x0[i], x1[i] + 1):
                cell[k] = iz * nx + ix
                k += 1
    return 0


@njit
def merge_faces(vertices, origin, nxt, prv, twin, order, face):  # type: ignore[no-untyped-def]
    """Hertel-Mehlhorn: drop diagonals (half-edge ``k`` with ``twin[k] > k``) in
    ``order`` when both end vertices stay convex; edits ``nxt`` / ``prv`` (the
    face rings) and ``face`` (union-find parent per original polygon, ``(P,)``).
    Sets ``twin`` of removed half-edges to ``-2``. Returns the number removed.
    """
    removed = 0
    for i in range(order.shape[0]):
        k = order[i]
        t = twin[k]
        if t < 0:
            continue
        fa = face[k]
        while fa != face[fa]:
            fa = face[fa]
        fb = face[t]
        while fb != face[fb]:
            fb = face[fb]
        if fa == fb:
            continue
        u = origin[k]
        w = origin[t]
        # at u: incoming prv[k] (from a_prev), outgoing nxt[t] (to b_next)
        ap = origin[prv[k]]
        bn = origin[nxt[nxt[t]]]
        if not _convex(vertices, ap, u, bn):
            continue
        bp = origin[prv[t]]
        an = origin[nxt[nxt[k]]]
        if not _convex(vertices, bp, w, an):
            continue
        pk = prv[k]
        nk = nxt[k]
        pt = prv[t]
        nt = nxt[t]
        nxt[pk] = nt
        prv[nt] = pk
        nxt[pt] = nk
        prv[nk] = pt
        twin[k] = -2
        twin[t] = -2
        if fa < fb:
            face[fb] = fa
        else:
            face[fa] = fb
        removed += 1
    return removed


@njit(inline="always")
def _convex(vertices, a, b, c):  # type: ignore[no-untyped-def]
    """True when the turn a -> b -> c is a left turn or straight on."""
    ux = vertices[b, 0] - vertices[a, 0]
    uz = vertices[b, 1] - vertices[a, 1]
    vx = vertices[c, 0] - vertices[b, 0]
    vz = vertices[c, 1] - vertices[b, 1]
    cr = ux * vz - uz * vx
    if cr > 0.0:
        return True
    if cr < 0.0:
        return False
    return ux * vx + uz * vz > 0.0


@njit
def face_rings(origin, nxt, twin, out_start, out_verts):  # type: ignore[no-untyped-def]
    """The rings left after :func:`merge_faces` in CSR form, each started at its
    lowest half-edge, faces in order of that half-edge. Returns the face count."""
    n_edge = origin.shape[0]
    done = np.zeros(n_edge, dtype=np.uint8)
    nf = 0
    m = 0
    out_start[0] = 0
    for k in range(n_edge):
        if done[k] or twin[k] == -2:
            continue
        j = k
        for _ in range(n_edge):
            done[j] = 1
            out_verts[m] = origin[j]
            m += 1
            j = nxt[j]
            if j == k:
                break
        nf += 1
        out_start[nf] = m
    return nf


@njit
def trace_rings(walk, ring_start, ring_pts, used):  # type: ignore[no-untyped-def]
    """Trace the outlines of the walkable cells of a padded uint8 array
    ``(D + 2, W + 2)`` on the corner lattice, walkable on the left (outer rings
    counter-clockwise, holes clockwise), keeping only the corners where the
    outline turns. At a corner touched by two walkable cells only diagonally
    the outline turns so that they stay apart (no zero-width passage).

    ``used`` is a scratch ``(D + 1, W + 1, 4)`` uint8 array (zeroed here) of
    direction-edges already traced. Writes ring ``i``'s corners, as
    ``(x, z)`` lattice pairs, to ``ring_pts[ring_start[i]:ring_start[i + 1]]``.
    Returns the number of rings, or -1 when a buffer is too small.
    """
    dp = walk.shape[0]
    wp = walk.shape[1]
    used[:, :, :] = 0
    # directions: 0 +x, 1 +z, 2 -x, 3 -z ; cell left of the edge from corner (x, z)
    nr = 0
    m = 0
    ring_start[0] = 0
    cap_r = ring_start.shape[0] - 1
    cap_p = ring_pts.shape[0]
    for z in range(1, dp - 1):
        for x in range(1, wp - 1):
            # a bottom edge of a walkable cell with a blocked cell below starts a ring
            if walk[z, x] == 0 or walk[z - 1, x] != 0:
                continue
            cx = x - 1
            cz = z - 1
            if used[cz, cx, 0]:
                continue
            if nr >= cap_r:
                return -1
            px = cx
            pz = cz
            d = 0
            start_m = m
            for _ in range(4 * dp * wp + 4):
                used[pz, px, d] = 1
                if d == 0:
                    px += 1
                elif d == 1:
                    pz += 1
                elif d == 2:
                    px -= 1
                else:
                    pz -= 1
                # at corner (px, pz) of the lattice: cells around it in padded coords
                # ne = walk[pz+1, px+1], nw = walk[pz+1, px], sw = walk[pz, px], se = walk[pz, px+1]
                ne = walk[pz + 1, px + 1] != 0
                nw = walk[pz + 1, px] != 0
                sw = walk[pz, px] != 0
                se = walk[pz, px + 1] != 0
                # left and right cells ahead in direction d
                if d == 0:
                    la = ne
                    ra = se
                elif d == 1:
                    la = nw
                    ra = ne
                elif d == 2:
                    la = sw
                    ra = nw
                else:
                    la = se
                    ra = sw
                if la and ra:
                    nd = (d + 3) % 4  # turn right
                elif la:
                    nd = d
                else:
                    nd = (d + 1) % 4  # turn left; also at a diagonal pinch (cells stay apart)
                if nd != d:
                    if m >= cap_p:
                        return -1
                    ring_pts[m, 0] = px
                    ring_pts[m, 1] = pz
                    m += 1
                d = nd
                if px == cx and pz == cz and d == 0:
                    break
            if m - start_m < 4:
                m = start_m
                continue
            nr += 1
            ring_start[nr] = m
    return nr


@njit
def group_hulls(pts, group_start, out, out_start):  # type: ignore[no-untyped-def]
    """Convex hull (Andrew's monotone chain) of each group of points.

    ``pts`` ``(M, 2)`` sorted by group, then x, then z; group ``g`` is
    ``pts[group_start[g]:group_start[g + 1]]``. Writes each hull
    counter-clockwise, closed (first point repeated), without collinear
    points, to ``out`` (capacity ``M + 2 G``) from ``out_start[g]``; sets
    ``out_start[G]``. Returns 0.
    """
    m = 0
    n_group = group_start.shape[0] - 1
    for g in range(n_group):
        s = group_start[g]
        e = group_start[g + 1]
        out_start[g] = m
        base = m
        # lower hull
        for i in range(s, e):
            while m - base >= 2 and _turn(out, m - 2, m - 1, pts, i) <= 0.0:
                m -= 1
            out[m, 0] = pts[i, 0]
            out[m, 1] = pts[i, 1]
            m += 1
        low = m + 1
        for i in range(e - 2, s - 1, -1):
            while m >= low and _turn(out, m - 2, m - 1, pts, i) <= 0.0:
                m -= 1
            out[m, 0] = pts[i, 0]
            out[m, 1] = pts[i, 1]
            m += 1
        # the chain ends at its first point: the ring is closed
    out_start[n_group] = m
    return 0


@njit(inline="always")
def _turn(out, a, b, pts, c):  # type: ignore[no-untyped-def]
    return (out[b, 0] - out[a, 0]) * (pts[c, 1] - out[b, 1]) - \
        (out[b, 1] - out[a, 1]) * (pts[c, 0] - out[b, 0])
