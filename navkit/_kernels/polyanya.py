"""Polyanya: exact any-angle shortest paths on a navigation mesh.

Cui, Harabor and Grastien, *Compromise-free Pathfinding on a Navigation Mesh*
(IJCAI 2017). A search node is a *root* (the path's last turning point, or the
start) seen through an *interval* ``[a, b]`` of one polygon edge into the
*next polygon* beyond it; ``a`` is the endpoint on the root's right, ``b`` on
its left. Expanding a node projects the interval through the next polygon
onto its other edges: the parts seen from the root are *observable*
successors (same root, same ``g``); the parts hidden behind an endpoint that
is a mesh corner (``vert_corner == 1``) are *non-observable* successors
rooted at that corner, ``g`` grown by the distance to it. ``h`` is the
Euclidean distance from the root through the interval to the goal (the goal
reflected across the interval's line when it lies on the root's side). A node
whose next polygon holds the goal makes a *final* node whose ``f`` is the
length of a real path; the search ends when a final node leaves the queue.

Node kinds (``ni[:, I_KIND]``):

* ``PROPER``: the root sees the interval under a positive angle.
* ``FAN_RIGHT`` / ``FAN_LEFT``: the root is the interval's right (left) end,
  a vertex of the next polygon, which it therefore sees whole; every other
  edge of that polygon is a successor, and the edge leaving the root carries
  the same kind on, so a search walks once round the corner's fan of
  polygons (in one direction, up to a wall).

Degenerate successors (zero-length intervals, edges seen edge-on) are never
made: the region they stand for is the boundary of a proper neighbour's. An
edge seen edge-on along the boundary (polygons may have collinear vertices)
instead makes a turn at each of its ends that is a corner (``_edge_turn``).
Root-level pruning: a vertex root keeps the smallest ``g`` it was reached
with (``best_g``, valid where ``g_stamp == stamp``); a successor rooted there
with a larger ``g`` (by more than ``PRUNE_REL`` relative, so ties survive) is
dropped when made and when it leaves the queue.

Dead-tree pruning (the one-way polygons of Cui et al., taken to whole
trees): :func:`dead_trees` peels the trees of polygons that hang off the
mesh's dual graph behind a single edge and hold no pinch vertex; a successor
that enters one from its parent is never made unless the goal lies in it
(``amark``: the goal's polygons and their tree ancestors). A path into such a
pocket could only leave it through the edge it came in by.

*Pinch* vertices (two or more wall gaps in their fan, where free space
touches itself at a point): a root there also seeds the fan sectors the path
did not arrive in, so paths may pass through the point.

Rays: a node keeps the directions of the two rays from its root through its
interval's ends (``F_DAX`` .. ``F_DBZ``). An end that is a computed crossing
point passes its parent's direction on (a ray through a vertex, or on past
the corner a new root sits at), so a vertex exactly on the ray is hit exactly
however many polygons the ray crosses; taking ``a - root`` instead let the
rounding of each crossing turn the ray, which then missed collinear corners
further on (and the turns at them).

Epsilons (geometry predicates are otherwise exact float comparisons):
``ON_TOL`` only classifies the start and the goal (inside / on an edge / on a
vertex of their polygon: a located point is often a rounding error off the
edge it lies on); ``PRUNE_REL`` keeps equal-length arrivals from different
directions (sums of the same lengths in another order differ in the last
bits).

Status codes: ``FOUND``, ``UNREACHABLE``, ``BUDGET`` (``max_nodes``
expansions used), ``GROW`` (the node pool or the waypoint buffer is full: the
caller grows them and runs the query again), ``BAD_START`` / ``BAD_GOAL``
(the point is not in its polygon).
"""

from __future__ import annotations

import math

import numpy as np

from .._numba_config import njit
from .heap import heap_pop, heap_push
from .mesh_layouts import MeshArgs

FOUND = 0
UNREACHABLE = 1
BUDGET = 2
GROW = 3
BAD_START = 4
BAD_GOAL = 5

PROPER = 0
FAN_RIGHT = 1
FAN_LEFT = 2

#: Distance, relative to ``max(1, polygon extent)``, within which the start or
#: the goal counts as on an edge or a vertex of its polygon.
ON_TOL = 1e-9
#: Relative slack of root-level pruning (see the module docstring).
PRUNE_REL = 1e-9

# node float columns (nf, float64 (N, N_FLOAT))
F_RX = 0  # root x
F_RZ = 1
F_AX = 2  # interval right end
F_AZ = 3
F_BX = 4  # interval left end
F_BZ = 5
F_G = 6
F_F = 7
F_DAX = 8  # direction of the ray from the root through the interval's right end
F_DAZ = 9
F_DBX = 10  # ... through its left end
F_DBZ = 11
#: Float columns of a node (``nf`` is float64 (N, N_FLOAT)).
N_FLOAT = 12
# node int columns (ni, int32 (N, 5))
I_ROOT = 0  # root vertex id, -1 for a start root not on a vertex / a final node's turn
I_EDGE = 1  # poly_verts index of the entry edge inside the next polygon (from b to a)
I_POLY = 2  # next polygon; FINAL for a final node
I_PARENT = 3
I_KIND = 4
FINAL = -2
VIRTUAL = -3  # a turn recorded for the path only, never queued

# counts (int64 (4,)) written by search()
C_EXPANDED = 0
C_GENERATED = 1
C_WAYPOINTS = 2


# _cross, _dist, _dead and _add_node are plain calls (LLVM inlines them back): as
# inline="always" helpers numba typed a copy at each of their ~50 call sites.
@njit
def _cross(ax, az, bx, bz):  # type: ignore[no-untyped-def]
    return ax * bz - az * bx


@njit
def _dist(ax, az, bx, bz):  # type: ignore[no-untyped-def]
    return math.sqrt((ax - bx) * (ax - bx) + (az - bz) * (az - bz))


@njit
def interval_h(rx, rz, ax, az, bx, bz, tx, tz):  # type: ignore[no-untyped-def]
    """``(h, via)``: the shortest length from root ``r`` through the segment
    ``[a, b]`` (``a`` on the root's right) to ``t``, metres; ``t`` is first
    reflected across the segment's line when it lies on the root's side.
    ``via`` is 0 when the straight line crosses the segment, 1 when the path
    bends at ``a``, 2 at ``b``."""
    return _ray_h(rx, rz, ax, az, bx, bz, ax - rx, az - rz, bx - rx, bz - rz, tx, tz)


@njit
def _ray_h(rx, rz, ax, az, bx, bz, dax, daz, dbx, dbz, tx, tz):  # type: ignore[no-untyped-def]
    """:func:`interval_h` with the rays bounding the interval given by their
    directions ``da``, ``db`` (an end that is a computed crossing point lies
    on its ray only up to rounding; the direction is the ray's exact one)."""
    ex = bx - ax
    ez = bz - az
    cr = _cross(ex, ez, rx - ax, rz - az)
    ct = _cross(ex, ez, tx - ax, tz - az)
    if (cr > 0.0 and ct > 0.0) or (cr < 0.0 and ct < 0.0):
        ll = ex * ex + ez * ez
        if ll > 0.0:
            k = 2.0 * ct / ll
            tx = tx + k * ez
            tz = tz - k * ex
    if _cross(dax, daz, tx - rx, tz - rz) < 0.0:
        return _dist(rx, rz, ax, az) + _dist(ax, az, tx, tz), 1
    if _cross(dbx, dbz, tx - rx, tz - rz) > 0.0:
        return _dist(rx, rz, bx, bz) + _dist(bx, bz, tx, tz), 2
    return _dist(rx, rz, tx, tz), 0


@njit
def classify(vertices, poly_start, poly_verts, p, x, z):  # type: ignore[no-untyped-def]
    """Where ``(x, z)`` lies in polygon ``p``: ``(0, -1)`` inside, ``(1, k)`` on
    edge ``k`` (a ``poly_verts`` index), ``(2, v)`` on vertex ``v``, ``(-1, -1)``
    outside (farther than ``ON_TOL`` from it)."""
    p0 = poly_start[p]
    p1 = poly_start[p + 1]
    lo_x = vertices[poly_verts[p0], 0]
    hi_x = lo_x
    lo_z = vertices[poly_verts[p0], 1]
    hi_z = lo_z
    for k in range(p0, p1):
        vx = vertices[poly_verts[k], 0]
        vz = vertices[poly_verts[k], 1]
        lo_x = min(lo_x, vx)
        hi_x = max(hi_x, vx)
        lo_z = min(lo_z, vz)
        hi_z = max(hi_z, vz)
    tol = ON_TOL * max(1.0, hi_x - lo_x, hi_z - lo_z)
    for k in range(p0, p1):
        v = poly_verts[k]
        if _dist(vertices[v, 0], vertices[v, 1], x, z) <= tol:
            return 2, v
    on = -1
    for k in range(p0, p1):
        a = poly_verts[k]
        b = poly_verts[k + 1] if k + 1 < p1 else poly_verts[p0]
        ax = vertices[a, 0]
        az = vertices[a, 1]
        ex = vertices[b, 0] - ax
        ez = vertices[b, 1] - az
        le = math.sqrt(ex * ex + ez * ez)
        d = _cross(ex, ez, x - ax, z - az) / le  # signed distance, > 0 inside
        if d < -tol:
            return -1, -1
        if d <= tol and on < 0:
            # collinear neighbours share the line: the point must project inside
            t = (ex * (x - ax) + ez * (z - az)) / le
            if -tol <= t <= le + tol:
                on = k
    if on >= 0:
        return 1, on
    return 0, -1


@njit
def _mark(mark, stamp, kind, idx, p, poly_adj, vert_start, vert_polys):  # type: ignore[no-untyped-def]
    """Stamp every polygon whose closure holds a point classified ``(kind, idx)`` in ``p``."""
    mark[p] = stamp
    if kind == 1:
        q = poly_adj[idx]
        if q >= 0:
            mark[q] = stamp
    elif kind == 2:
        for m in range(vert_start[idx], vert_start[idx + 1]):
            q = vert_polys[m]
            if q >= 0:
                mark[q] = stamp


@njit
def _mark_up(amark, stamp, kind, idx, p, poly_adj, vert_start, vert_polys, tparent):  # type: ignore[no-untyped-def]
    """Stamp every polygon holding the point ``(kind, idx)`` of ``p`` (as
    :func:`_mark`) and its ancestors in the dead trees (``tparent``)."""
    n = 1
    if kind == 1:
        n = 2
    elif kind == 2:
        n = vert_start[idx + 1] - vert_start[idx]
    for k in range(n):
        q = p
        if kind == 1 and k == 1:
            q = poly_adj[idx]
        elif kind == 2:
            q = vert_polys[vert_start[idx] + k]
        steps = 0
        while q >= 0 and amark[q] != stamp and steps < tparent.shape[0]:
            amark[q] = stamp
            q = tparent[q]
            steps += 1


@njit
def dead_trees(poly_start, poly_verts, poly_adj, vgaps, tparent, edead, queue, deg):  # type: ignore[no-untyped-def]
    """Peel the trees that hang off the mesh's dual graph.

    A polygon with no pinch vertex (``vgaps < 2``) and at most one neighbour
    not yet peeled is peeled, repeatedly; the neighbour left is its parent.
    A path that enters a peeled polygon from its parent can only leave the
    subtree below it through the same edge, so it is never shortest unless
    the goal lies in that subtree. Writes ``tparent`` int32 (P,): the parent,
    -1 for a tree's last polygon, -2 for polygons not peeled; ``edead``
    uint8 (E,): 1 on the edge of a peeled polygon that faces its parent.
    Scratch: ``queue``, ``deg`` int32 (P,). Returns the number peeled.
    """
    n_poly = poly_start.shape[0] - 1
    head = 0
    tail = 0
    for p in range(n_poly):
        tparent[p] = -2  # -2: in the graph, -3: queued, else peeled
        d = 0
        ok = True
        for k in range(poly_start[p], poly_start[p + 1]):
            edead[k] = 0
            if poly_adj[k] >= 0:
                d += 1
            if vgaps[poly_verts[k]] >= 2:
                ok = False
        deg[p] = d if ok else n_poly + 2  # pinch polygons stay
        if deg[p] <= 1:
            queue[tail] = p
            tail += 1
            tparent[p] = -3
    while head < tail:
        q = queue[head]
        head += 1
        tparent[q] = -1
        for k in range(poly_start[q], poly_start[q + 1]):
            r = poly_adj[k]
            if r < 0 or tparent[r] > -2 or r == q:
                continue
            # the one neighbour still in the graph (deg[q] <= 1 counts them)
            tparent[q] = r
            edead[k] = 1
            deg[r] -= 1
            if deg[r] <= 1 and tparent[r] == -2:
                queue[tail] = r
                tail += 1
                tparent[r] = -3
            break
    return head


@njit(inline="always")
def _add(nf, ni, hf, hk, nn, hs, rx, rz, rid, ax, az, bx, bz, edge, poly, parent, kind, g, f):  # type: ignore[no-untyped-def]
    """Write node ``nn`` and queue it; the caller checked the capacity. Its ray
    directions are ``a - r`` and ``b - r`` (the caller overwrites one whose
    end is a computed crossing point). The integers go to :func:`_add_node` as
    int64: one compiled copy for every call site (literals such as ``-1`` and
    int32 array elements compiled it seven times)."""
    return _add_node(nf, ni, hf, hk, np.int64(nn), np.int64(hs), rx, rz, np.int64(rid), ax, az,
                     bx, bz, np.int64(edge), np.int64(poly), np.int64(parent), np.int64(kind),
                     np.float64(g), np.float64(f))


@njit
def _add_node(nf, ni, hf, hk, nn, hs, rx, rz, rid, ax, az, bx, bz, edge, poly, parent, kind, g, f):  # type: ignore[no-untyped-def]
    """:func:`_add`'s body."""
    nf[nn, F_RX] = rx
    nf[nn, F_RZ] = rz
    nf[nn, F_AX] = ax
    nf[nn, F_AZ] = az
    nf[nn, F_BX] = bx
    nf[nn, F_BZ] = bz
    nf[nn, F_G] = g
    nf[nn, F_F] = f
    nf[nn, F_DAX] = ax - rx
    nf[nn, F_DAZ] = az - rz
    nf[nn, F_DBX] = bx - rx
    nf[nn, F_DBZ] = bz - rz
    ni[nn, I_ROOT] = rid
    ni[nn, I_EDGE] = edge
    ni[nn, I_POLY] = poly
    ni[nn, I_PARENT] = parent
    ni[nn, I_KIND] = kind
    return heap_push(hf, hk, hs, f, nn)


@njit
def _dead(edead, amark, stamp, k, q):  # type: ignore[no-untyped-def]
    """True when entering polygon ``q`` through its edge ``k`` leads into a dead
    tree (see :func:`dead_trees`) that does not hold the goal."""
    return edead[k] != 0 and amark[q] != stamp


@njit(inline="always")
def _root_ok(best_g, g_stamp, stamp, u, g):  # type: ignore[no-untyped-def]
    """Root-level pruning: False when vertex ``u`` was reached more cheaply;
    else records ``g`` (when smaller) and returns True."""
    if g_stamp[u] == stamp:
        b = best_g[u]
        if b + PRUNE_REL * (1.0 + b) < g:
            return False
        if g < b:
            best_g[u] = g
        return True
    g_stamp[u] = stamp
    best_g[u] = g
    return True


@njit(inline="always")
def _hit(vtx, pverts, p0, n, li, s0, s1, mode):  # type: ignore[no-untyped-def]
    """A point of the edge from local vertex ``li`` (mod ``n``) of the polygon at
    ``p0``: its start (``mode`` 1), its end (2), or where the side values
    ``s0 <= 0 < s1`` (or ``s0 < 0 <= s1``) of its ends cross zero (0)."""
    if li >= n:
        li -= n
    c = pverts[p0 + li]
    d = pverts[p0 + li + 1] if li + 1 < n else pverts[p0]
    if mode == 1:
        return vtx[c, 0], vtx[c, 1]
    if mode == 2:
        return vtx[d, 0], vtx[d, 1]
    lam = s0 / (s0 - s1)
    return vtx[c, 0] + lam * (vtx[d, 0] - vtx[c, 0]), vtx[c, 1] + lam * (vtx[d, 1] - vtx[c, 1])


@njit
def _seed_pinch(mesh_t, nf, ni, hf, hk, nn, hs, u, p, parent, g, gx, gz):  # type: ignore[no-untyped-def]
    """Queue a fan walk from vertex root ``u`` into every sector of its fan
    (runs of polygons between wall gaps) except the one holding ``p``.
    Returns ``(nn, hs)``, or ``(-1, hs)`` when the pool is full."""
    mesh = MeshArgs(*mesh_t)
    vtx = mesh.vertices
    vs = mesh.vert_start[u]
    ve = mesh.vert_start[u + 1]
    ux = vtx[u, 0]
    uz = vtx[u, 1]
    first = vs
    for m in range(vs, ve):
        if mesh.vert_polys[m] != -1:
            continue
        own = False
        for k in range(first, m):
            if mesh.vert_polys[k] == p:
                own = True
        if not own and m > first:
            q = mesh.vert_polys[first]  # its clockwise neighbour is a wall
            q0 = mesh.poly_start[q]
            q1 = mesh.poly_start[q + 1]
            e = -1
            for k in range(q0, q1):
                if mesh.poly_verts[k] == u:
                    e = k - 1 if k > q0 else q1 - 1  # the edge prev -> u
            if e >= 0:
                if nn >= nf.shape[0]:
                    return -1, hs
                b = mesh.poly_verts[e]
                hs = _add(nf, ni, hf, hk, nn, hs, ux, uz, u, ux, uz, vtx[b, 0], vtx[b, 1],
                          e, q, parent, FAN_RIGHT, g, g + _dist(ux, uz, gx, gz))
                nn += 1
        first = m + 1
    return nn, hs


@njit
def _pinch(mesh_t, vgaps, best_g, g_stamp, stamp, nf, ni, hf, hk, nn, hs, u, p, parent, g, gx, gz):  # type: ignore[no-untyped-def]
    """Vertex ``u`` (a pinch) reached at cost ``g`` from node ``parent`` in polygon
    ``p``: unless root-level pruning says no, seed its other fan sectors.
    Returns ``(nn, hs)``, ``nn == -1`` when the pool is full."""
    if vgaps[u] < 2 or not _root_ok(best_g, g_stamp, stamp, u, g):
        return nn, hs
    return _seed_pinch(mesh_t, nf, ni, hf, hk, nn, hs, u, p, parent, g, gx, gz)


@njit
def _edge_turn(corner, best_g, g_stamp, stamp, nf, ni, hf, hk, nn, hs, x, z, g, parent, c, d,  # type: ignore[no-untyped-def]
               cx, cz, dx, dz, q, pk, gx, gz):
    """The root ``(x, z)`` sees a polygon edge ``[c, d]`` edge-on, along its line,
    within closed free space (``c``, ``d``: vertex ids, -1 for an end that is
    not a vertex; ``q`` the polygon across, ``pk`` the edge's index inside
    ``q``): a path into ``q`` turns at an end that is a corner. Queue those
    turns (root-level pruning applies). Returns ``(nn, hs)``, ``nn == -1``
    when the pool is full."""
    if cx == dx and cz == dz:
        return nn, hs
    for side in range(2):
        w = c if side == 0 else d
        if w < 0 or corner[w] == 0:
            continue
        wx = cx if side == 0 else dx
        wz = cz if side == 0 else dz
        gw = g + _dist(x, z, wx, wz)
        if not _root_ok(best_g, g_stamp, stamp, w, gw):
            continue
        if nn >= nf.shape[0]:
            return -1, hs
        hs = _add(nf, ni, hf, hk, nn, hs, wx, wz, w, cx, cz, dx, dz, pk, q, parent,
                  FAN_RIGHT if side == 0 else FAN_LEFT, gw, gw + _dist(wx, wz, gx, gz))
        nn += 1
    return nn, hs


@njit(inline="always")
def _virtual(nf, ni, nn, x, z, rid, g, parent):  # type: ignore[no-untyped-def]
    """Write node ``nn``: a turn at ``(x, z)`` kept for the path, never queued."""
    nf[nn, F_RX] = x
    nf[nn, F_RZ] = z
    nf[nn, F_G] = g
    ni[nn, I_ROOT] = rid
    ni[nn, I_POLY] = VIRTUAL
    ni[nn, I_PARENT] = parent


@njit
def _trace(nf, ni, i, gx, gz, out):  # type: ignore[no-untyped-def]
    """Write the path ending in final node ``i`` into ``out`` (start first);
    returns the number of waypoints, or -1 when ``out`` is too short."""
    cap = out.shape[0]
    m = 0
    out[0, 0] = gx
    out[0, 1] = gz
    m = 1
    cur = i
    steps = 0
    while cur >= 0 and steps <= i:
        steps += 1
        x = nf[cur, F_RX]
        z = nf[cur, F_RZ]
        if x != out[m - 1, 0] or z != out[m - 1, 1]:
            if m >= cap:
                return -1
            out[m, 0] = x
            out[m, 1] = z
            m += 1
        cur = ni[cur, I_PARENT]
    for k in range(m // 2):
        x = out[k, 0]
        z = out[k, 1]
        out[k, 0] = out[m - 1 - k, 0]
        out[k, 1] = out[m - 1 - k, 1]
        out[m - 1 - k, 0] = x
        out[m - 1 - k, 1] = z
    return m


@njit
def search(mesh_t, twin, vgaps, tparent, edead, nf, ni, hf, hk, best_g, g_stamp, smark, gmark,  # type: ignore[no-untyped-def]
           amark, stamp, sx, sz, sp, gx, gz, gp, max_nodes, out, counts):
    """One Polyanya query from ``(sx, sz)`` in polygon ``sp`` to ``(gx, gz)`` in ``gp``.

    ``twin`` int32 (E,): the ``poly_verts`` index of each edge inside the
    polygon across it (-1 at walls); ``vgaps`` int32 (V,): wall gaps in each
    vertex's fan; ``tparent`` int32 (P,) and ``edead`` uint8 (E,): the dead
    trees (:func:`dead_trees`). Workspace: ``nf`` float64 (N, N_FLOAT) and ``ni``
    int32 (N, 5) node pool, ``hf`` float64 (N,) / ``hk`` int64 (N,) heap,
    ``best_g`` float64 and ``g_stamp`` int64 (V,), ``smark`` / ``gmark`` /
    ``amark`` int64 (P,) polygon stamps (start, goal, goal's tree ancestors);
    ``stamp`` (int64) must exceed every value in the stamp arrays. Writes the
    path, start first, into ``out`` float64 (W, 2) and
    ``counts[C_EXPANDED, C_GENERATED, C_WAYPOINTS]``. Returns a status code.
    """
    mesh = MeshArgs(*mesh_t)
    vtx = mesh.vertices
    pstart = mesh.poly_start
    pverts = mesh.poly_verts
    padj = mesh.poly_adj
    corner = mesh.vert_corner
    cap = nf.shape[0]
    counts[C_EXPANDED] = 0
    counts[C_GENERATED] = 0
    counts[C_WAYPOINTS] = 0

    skind, sidx = classify(vtx, pstart, pverts, sp, sx, sz)
    if skind < 0:
        return BAD_START
    gkind, gidx = classify(vtx, pstart, pverts, gp, gx, gz)
    if gkind < 0:
        return BAD_GOAL
    _mark(smark, stamp, skind, sidx, sp, padj, mesh.vert_start, mesh.vert_polys)
    _mark(gmark, stamp, gkind, gidx, gp, padj, mesh.vert_start, mesh.vert_polys)
    _mark_up(amark, stamp, gkind, gidx, gp, padj, mesh.vert_start, mesh.vert_polys, tparent)

    # start and goal share a (convex) polygon: the straight line
    direct = sx == gx and sz == gz
    if not direct:
        if skind == 2:
            for m in range(mesh.vert_start[sidx], mesh.vert_start[sidx + 1]):
                q = mesh.vert_polys[m]
                if q >= 0 and gmark[q] == stamp:
                    direct = True
        else:
            direct = gmark[sp] == stamp
            if skind == 1 and padj[sidx] >= 0 and gmark[padj[sidx]] == stamp:
                direct = True
    if direct:
        if out.shape[0] < 2:
            return GROW
        out[0, 0] = sx
        out[0, 1] = sz
        out[1, 0] = gx
        out[1, 1] = gz
        counts[C_WAYPOINTS] = 2
        return FOUND

    # seeds: root at the start, every edge of every polygon holding it
    srid = -1
    if skind == 2:
        srid = sidx
        g_stamp[sidx] = stamp
        best_g[sidx] = 0.0
    # node 0: the start itself, never queued, the parent of every seed
    if cap < 1:
        return GROW
    nf[0, F_RX] = sx
    nf[0, F_RZ] = sz
    nf[0, F_G] = 0.0
    ni[0, I_ROOT] = srid
    ni[0, I_POLY] = VIRTUAL
    ni[0, I_PARENT] = -1
    # int64 from the start (not literals): the helpers below then compile once
    nn = np.int64(1)
    hs = np.int64(0)
    nseed_polys = 1
    if skind == 1:
        nseed_polys = 2
    elif skind == 2:
        nseed_polys = mesh.vert_start[sidx + 1] - mesh.vert_start[sidx]
    for si in range(nseed_polys):
        if skind == 2:
            p = mesh.vert_polys[mesh.vert_start[sidx] + si]
        elif si == 0:
            p = sp
        else:
            p = padj[sidx]
        if p < 0:
            continue
        p0 = pstart[p]
        p1 = pstart[p + 1]
        for e in range(p0, p1):
            q = padj[e]
            if q < 0 or _dead(edead, amark, stamp, twin[e], q) or smark[q] == stamp:
                continue
            a = pverts[e]
            b = pverts[e + 1] if e + 1 < p1 else pverts[p0]
            ax = vtx[a, 0]
            az = vtx[a, 1]
            bx = vtx[b, 0]
            bz = vtx[b, 1]
            if _cross(ax - sx, az - sz, bx - sx, bz - sz) <= 0.0:
                nn, hs = _edge_turn(corner, best_g, g_stamp, stamp, nf, ni, hf, hk, nn, hs, sx, sz,
                                    0.0, np.int64(0), np.int64(a), np.int64(b), ax, az, bx,
                                    bz, q, twin[e], gx, gz)
                if nn < 0:
                    return GROW
                continue
            if nn >= cap:
                return GROW
            h, via = interval_h(sx, sz, ax, az, bx, bz, gx, gz)
            hs = _add(nf, ni, hf, hk, nn, hs, sx, sz, srid, ax, az, bx, bz, twin[e], q, 0,
                      PROPER, 0.0, h)
            nn += 1
        for e in range(p0, p1):  # pinch vertices of the start's polygons
            a = pverts[e]
            if vgaps[a] < 2 or a == srid:
                continue
            nn, hs = _pinch(mesh_t, vgaps, best_g, g_stamp, stamp, nf, ni, hf, hk, nn, hs,
                            np.int64(a), np.int64(p), np.int64(0),
                            _dist(sx, sz, vtx[a, 0], vtx[a, 1]), gx, gz)
            if nn < 0:
                return GROW

    expanded = 0
    while hs > 0:
        i = hk[0]
        hs = heap_pop(hf, hk, hs)
        P = ni[i, I_POLY]
        if P == FINAL:
            m = _trace(nf, ni, i, gx, gz, out)
            counts[C_EXPANDED] = expanded
            counts[C_GENERATED] = nn
            if m < 0:
                return GROW
            counts[C_WAYPOINTS] = m
            return FOUND
        rid = ni[i, I_ROOT]
        g = nf[i, F_G]
        if rid >= 0 and g_stamp[rid] == stamp:
            b = best_g[rid]
            if b + PRUNE_REL * (1.0 + b) < g:
                continue
        if expanded >= max_nodes:
            counts[C_EXPANDED] = expanded
            counts[C_GENERATED] = nn
            return BUDGET
        expanded += 1
        kind = ni[i, I_KIND]
        rx = nf[i, F_RX]
        rz = nf[i, F_RZ]
        ax = nf[i, F_AX]
        az = nf[i, F_AZ]
        bx = nf[i, F_BX]
        bz = nf[i, F_BZ]

        if gmark[P] == stamp:  # the goal is in the next polygon's closure: a final node
            if kind == PROPER:
                h, via = _ray_h(rx, rz, ax, az, bx, bz, nf[i, F_DAX], nf[i, F_DAZ],
                                nf[i, F_DBX], nf[i, F_DBZ], gx, gz)
            else:
                h = _dist(rx, rz, gx, gz)
                via = 0
            tx = rx
            tz = rz
            if via == 1:
                tx = ax
                tz = az
            elif via == 2:
                tx = bx
                tz = bz
            if nn >= cap:
                return GROW
            hs = _add(nf, ni, hf, hk, nn, hs, tx, tz, -1, tx, tz, tx, tz, -1, FINAL, i, PROPER,
                      g + _dist(rx, rz, tx, tz), g + h)
            nn += 1
            continue

        pe = ni[i, I_EDGE]
        p0 = pstart[P]
        n = pstart[P + 1] - p0
        off = pe - p0  # local index of the entry edge's first vertex (b); a follows it
        last = n - 2  # chain edges E_0 .. E_last, from c_0 = a to c_{n-1} = b

        if kind != PROPER:
            # the root is a vertex of P: every other edge is seen whole
            for j in range(n - 1):
                li = off + 1 + j
                if li >= n:
                    li -= n
                e = p0 + li
                q = padj[e]
                if q < 0 or _dead(edead, amark, stamp, twin[e], q):
                    continue
                li2 = li + 1 if li + 1 < n else 0
                c = pverts[e]
                d = pverts[p0 + li2]
                cx = vtx[c, 0]
                cz = vtx[c, 1]
                dx = vtx[d, 0]
                dz = vtx[d, 1]
                if (kind == FAN_RIGHT and j == 0) or (kind == FAN_LEFT and j == last):
                    k2 = kind
                    f = g + _dist(rx, rz, gx, gz)
                else:
                    if _cross(cx - rx, cz - rz, dx - rx, dz - rz) <= 0.0:
                        nn, hs = _edge_turn(corner, best_g, g_stamp, stamp, nf, ni, hf, hk, nn,
                                            hs, rx, rz, g, i, np.int64(c), np.int64(d), cx, cz,
                                            dx, dz, q, twin[e], gx, gz)
                        if nn < 0:
                            return GROW
                        continue
                    k2 = PROPER
                    h, via = interval_h(rx, rz, cx, cz, dx, dz, gx, gz)
                    f = g + h
                if nn >= cap:
                    return GROW
                hs = _add(nf, ni, hf, hk, nn, hs, rx, rz, rid, cx, cz, dx, dz, twin[e], q, i,
                          k2, g, f)
                nn += 1
            for j in range(1, n):
                li = off + 1 + j
                if li >= n:
                    li -= n
                c = pverts[p0 + li]
                if vgaps[c] < 2 or c == rid:
                    continue
                nn, hs = _pinch(mesh_t, vgaps, best_g, g_stamp, stamp, nf, ni, hf, hk, nn, hs,
                                np.int64(c), np.int64(P), i,
                                g + _dist(rx, rz, vtx[c, 0], vtx[c, 1]), gx, gz)
                if nn < 0:
                    return GROW
            continue

        # PROPER: where the rays root->a and root->b leave P
        # the rays' own directions, not a - r, b - r: a computed end point is off
        # its ray by rounding, and the error would grow along a chain of polygons
        dax = nf[i, F_DAX]
        daz = nf[i, F_DAZ]
        dbx = nf[i, F_DBX]
        dbz = nf[i, F_DBZ]
        li = off + 1
        if li >= n:
            li -= n
        c = pverts[p0 + li]
        s0 = _cross(dax, daz, vtx[c, 0] - rx, vtx[c, 1] - rz)
        t0 = _cross(dbx, dbz, vtx[c, 0] - rx, vtx[c, 1] - rz)
        jr = -1
        jl = -1
        sr0 = 0.0
        sr1 = 0.0
        tl0 = 0.0
        tl1 = 0.0
        for j in range(n - 1):
            li += 1
            if li >= n:
                li -= n
            c = pverts[p0 + li]
            s1 = _cross(dax, daz, vtx[c, 0] - rx, vtx[c, 1] - rz)
            t1 = _cross(dbx, dbz, vtx[c, 0] - rx, vtx[c, 1] - rz)
            if jr < 0 and s0 <= 0.0 and s1 > 0.0:
                jr = j
                sr0 = s0
                sr1 = s1
            if jl < 0 and t0 < 0.0 and t1 >= 0.0:
                jl = j
                tl0 = t0
                tl1 = t1
            s0 = s1
            t0 = t1
        # hit points: exactly the vertex when a ray meets one; a ray that found no
        # crossing (rounding only) leaves through b (right ray) or a (left ray)
        # (hr_on, hl_on: the hit point was computed, so it keeps the ray's direction)
        hr_on = jr >= 0 and sr0 != 0.0
        hl_on = jl >= 0 and tl1 != 0.0
        if jr < 0:
            jr = last
            hrx, hrz = _hit(vtx, pverts, p0, n, off + 1 + jr, 0.0, 0.0, 2)
        else:
            hrx, hrz = _hit(vtx, pverts, p0, n, off + 1 + jr, sr0, sr1, 1 if sr0 == 0.0 else 0)
        if jl < 0:
            jl = 0
            hlx, hlz = _hit(vtx, pverts, p0, n, off + 1, 0.0, 0.0, 1)
        else:
            hlx, hlz = _hit(vtx, pverts, p0, n, off + 1 + jl, tl0, tl1, 2 if tl1 == 0.0 else 0)

        # observable successors: E_jr .. E_jl between the hit points
        for j in range(jr, jl + 1):
            li = off + 1 + j
            if li >= n:
                li -= n
            e = p0 + li
            q = padj[e]
            if q < 0 or _dead(edead, amark, stamp, twin[e], q):
                continue
            c = pverts[e]
            d = pverts[p0 + li + 1] if li + 1 < n else pverts[p0]
            cx = hrx if j == jr else vtx[c, 0]
            cz = hrz if j == jr else vtx[c, 1]
            dx = hlx if j == jl else vtx[d, 0]
            dz = hlz if j == jl else vtx[d, 1]
            if _cross(cx - rx, cz - rz, dx - rx, dz - rz) <= 0.0:
                continue
            if nn >= cap:
                return GROW
            ecx = dax if j == jr and hr_on else cx - rx
            ecz = daz if j == jr and hr_on else cz - rz
            edx = dbx if j == jl and hl_on else dx - rx
            edz = dbz if j == jl and hl_on else dz - rz
            h, via = _ray_h(rx, rz, cx, cz, dx, dz, ecx, ecz, edx, edz, gx, gz)
            hs = _add(nf, ni, hf, hk, nn, hs, rx, rz, rid, cx, cz, dx, dz, twin[e], q, i,
                      PROPER, g, g + h)
            nf[nn, F_DAX] = ecx
            nf[nn, F_DAZ] = ecz
            nf[nn, F_DBX] = edx
            nf[nn, F_DBZ] = edz
            nn += 1

        # pinch vertices the root sees on the far chain (the ends a and b: below)
        for j in range(jr, jl + 2):
            if j == 0 or j >= n - 1:
                continue
            li = off + 1 + j
            if li >= n:
                li -= n
            c = pverts[p0 + li]
            if vgaps[c] < 2:
                continue
            if (j == jr and (hrx != vtx[c, 0] or hrz != vtx[c, 1])) or (
                    j == jl + 1 and (hlx != vtx[c, 0] or hlz != vtx[c, 1])):
                continue
            nn, hs = _pinch(mesh_t, vgaps, best_g, g_stamp, stamp, nf, ni, hf, hk, nn, hs,
                            np.int64(c), np.int64(P), i,
                            g + _dist(rx, rz, vtx[c, 0], vtx[c, 1]), gx, gz)
            if nn < 0:
                return GROW

        # chain edges along a ray through an interval end that is a vertex but no
        # corner: the root sees them edge-on and may turn at their corners
        for side in range(2):
            u = pverts[p0 + (off + 1 if off + 1 < n else 0)] if side == 0 else pverts[pe]
            ux = ax if side == 0 else bx
            uz = az if side == 0 else bz
            if ux != vtx[u, 0] or uz != vtx[u, 1] or corner[u] != 0:
                continue
            dux = dax if side == 0 else dbx
            duz = daz if side == 0 else dbz
            for k in range(last + 1):
                j = k if side == 0 else last - k
                li = off + 1 + j
                if li >= n:
                    li -= n
                e = p0 + li
                c = pverts[e]
                d = pverts[p0 + li + 1] if li + 1 < n else pverts[p0]
                if (_cross(dux, duz, vtx[c, 0] - rx, vtx[c, 1] - rz) != 0.0
                        or _cross(dux, duz, vtx[d, 0] - rx, vtx[d, 1] - rz) != 0.0):
                    break
                q = padj[e]
                if q < 0 or _dead(edead, amark, stamp, twin[e], q):
                    continue
                nn, hs = _edge_turn(corner, best_g, g_stamp, stamp, nf, ni, hf, hk, nn, hs, rx,
                                    rz, g, i, np.int64(c), np.int64(d), vtx[c, 0], vtx[c, 1],
                                    vtx[d, 0], vtx[d, 1],
                                    q, twin[e], gx, gz)
                if nn < 0:
                    return GROW

        # non-observable successors behind a corner endpoint, rooted there
        for side in range(2):
            if side == 0:
                u = pverts[p0 + (off + 1 if off + 1 < n else 0)]  # a
                ux = ax
                uz = az
                shadow = jr > 0 or hrx != vtx[u, 0] or hrz != vtx[u, 1]
                j0 = 0
                j1 = jr
            else:
                u = pverts[pe]  # b
                ux = bx
                uz = bz
                shadow = jl < last or hlx != vtx[u, 0] or hlz != vtx[u, 1]
                j0 = jl
                j1 = last
            if ux != vtx[u, 0] or uz != vtx[u, 1] or corner[u] == 0:
                continue
            if vgaps[u] >= 2:  # a pinch: seen from the root, whatever P hides
                nn, hs = _pinch(mesh_t, vgaps, best_g, g_stamp, stamp, nf, ni, hf, hk, nn, hs,
                                np.int64(u), np.int64(P), i, g + _dist(rx, rz, ux, uz), gx, gz)
                if nn < 0:
                    return GROW
            if not shadow:
                continue
            g2 = g + _dist(rx, rz, ux, uz)
            if not _root_ok(best_g, g_stamp, stamp, u, g2):
                continue
            # pinch vertices in the shadow, seen from u: their seeds hang from a
            # node rooted at u that is never queued (the path's turn at u)
            vnode = -1
            for j in range(j0 + 1, j1 + 1):
                if j == 0 or j >= n - 1:
                    continue
                li = off + 1 + j
                if li >= n:
                    li -= n
                c = pverts[p0 + li]
                if vgaps[c] < 2:
                    continue
                if (side == 0 and j == jr and hrx == vtx[c, 0] and hrz == vtx[c, 1]) or (
                        side == 1 and j == jl + 1 and hlx == vtx[c, 0] and hlz == vtx[c, 1]):
                    continue
                if vnode < 0:
                    if nn >= cap:
                        return GROW
                    _virtual(nf, ni, nn, ux, uz, u, g2, i)
                    vnode = nn
                    nn += 1
                nn, hs = _pinch(mesh_t, vgaps, best_g, g_stamp, stamp, nf, ni, hf, hk, nn, hs,
                                np.int64(c), np.int64(P), vnode,
                                g2 + _dist(ux, uz, vtx[c, 0], vtx[c, 1]), gx, gz)
                if nn < 0:
                    return GROW
            for j in range(j0, j1 + 1):
                li = off + 1 + j
                if li >= n:
                    li -= n
                e = p0 + li
                q = padj[e]
                if q < 0 or _dead(edead, amark, stamp, twin[e], q):
                    continue
                c = pverts[e]
                d = pverts[p0 + li + 1] if li + 1 < n else pverts[p0]
                cx = vtx[c, 0]
                cz = vtx[c, 1]
                dx = vtx[d, 0]
                dz = vtx[d, 1]
                if side == 0 and j == jr:
                    dx = hrx
                    dz = hrz
                if side == 1 and j == jl:
                    cx = hlx
                    cz = hlz
                if (side == 0 and j == 0) or (side == 1 and j == last):
                    k2 = FAN_RIGHT if side == 0 else FAN_LEFT
                    if cx == dx and cz == dz:
                        continue
                    f = g2 + _dist(ux, uz, gx, gz)
                else:
                    if _cross(cx - ux, cz - uz, dx - ux, dz - uz) <= 0.0:
                        if vnode < 0:
                            if nn >= cap:
                                return GROW
                            _virtual(nf, ni, nn, ux, uz, u, g2, i)
                            vnode = nn
                            nn += 1
                        nn, hs = _edge_turn(corner, best_g, g_stamp, stamp, nf, ni, hf, hk, nn,
                                            hs, ux, uz, g2, vnode,
                                            c if cx == vtx[c, 0] and cz == vtx[c, 1] else -1,
                                            d if dx == vtx[d, 0] and dz == vtx[d, 1] else -1,
                                            cx, cz, dx, dz, q, twin[e], gx, gz)
                        if nn < 0:
                            return GROW
                        continue
                    k2 = PROPER
                    # the end cut by the ray through u goes on along that ray
                    ecx = cx - ux
                    ecz = cz - uz
                    edx = dx - ux
                    edz = dz - uz
                    if side == 0 and j == jr and hr_on:
                        edx = dax
                        edz = daz
                    if side == 1 and j == jl and hl_on:
                        ecx = dbx
                        ecz = dbz
                    h, via = _ray_h(ux, uz, cx, cz, dx, dz, ecx, ecz, edx, edz, gx, gz)
                    f = g2 + h
                if nn >= cap:
                    return GROW
                hs = _add(nf, ni, hf, hk, nn, hs, ux, uz, u, cx, cz, dx, dz, twin[e], q, i,
                          k2, g2, f)
                if k2 == PROPER:
                    nf[nn, F_DAX] = ecx
                    nf[nn, F_DAZ] = ecz
                    nf[nn, F_DBX] = edx
                    nf[nn, F_DBZ] = edz
                nn += 1
    counts[C_EXPANDED] = expanded
    counts[C_GENERATED] = nn
    return UNREACHABLE
