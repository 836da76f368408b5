"""HPA* kernels: entrances, cluster-restricted Dijkstra, abstract A*, refinement.

All on the padded grid of :mod:`navkit._kernels` (row length ``wp``, a
one-cell blocked border). Argument groups:

``grid = (cells, weights, weighted)``
    ``cells`` uint8 padded (nonzero = passable); ``weights`` int32 padded (any
    length-1 array when ``weighted`` is False).
``geo = (wp, width, depth, C, ncx, ncz)``
    Unpadded grid size, cluster size ``C`` and the number of clusters along X
    and Z. Cluster ``c = cz * ncx + cx`` covers the unpadded cells
    ``[cx*C, min((cx+1)*C, width)) x [cz*C, min((cz+1)*C, depth))``. Inside a
    cluster a cell has the local index ``lz * C + lx`` (stride ``C`` even for
    the short clusters at the right and bottom edges).
``model = (card, diag, eight, hmul)``
    Step costs, 8-connectivity, heuristic multiplier (smallest terrain weight).
``graph`` (:class:`AbstractGraphArgs`)
    ``(node_off, node_cell, node_x, node_z, node_cluster, adj_off, adj_to,
    adj_cost, trees, nbits)``: abstract nodes in cluster-major order
    (``node_off[c]:node_off[c+1]`` are cluster ``c``'s nodes, sorted by padded
    cell). Row ``u`` of the CSR adjacency holds first the ``n_c - 1``
    intra-cluster edges to the other nodes of ``u``'s cluster, in node order
    (cost -1 when unreachable inside the cluster), then one inter-cluster edge
    per direction bit of ``u``.
    ``trees[u]`` (``C*C`` uint8) is the Dijkstra tree of ``u`` inside its
    cluster: the move code that reached each local cell (:data:`NO_CODE`
    when not reached, :data:`SRC_CODE` at the source).

A transition node is a cell on its cluster's border; its bits say on which
borders it is a transition (:data:`BIT_E` ...). Its partner across that
border is the neighbouring cell, itself a transition of the same border
(entrances are computed from the pair of rows, so both sides agree).
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit
from .heap import heap_pop, heap_push
from .layouts import (
    AbstractGraphArgs,
    AbstractSearchArgs,
    ClusterGeometry,
    ClusterSearchArgs,
    HpaGridArgs,
    ModelArgs,
)
from .search import compact_heap, heuristic

#: Transition on the east / west / south / north border of its cluster.
BIT_E = 1
BIT_W = 2
BIT_S = 4
BIT_N = 8
#: Tree codes: not reached, and the source itself.
NO_CODE = 255
SRC_CODE = 254
#: Entrances at least this long get a transition at each end (Botea et al. 2004).
LONG_ENTRANCE = 6

# query status codes (as navkit.results.Status)
FOUND = 0
UNREACHABLE = 1

# info layout written by query()
INFO_STATUS = 0
INFO_COST = 1
INFO_LEN = 2
INFO_EXPANDED = 3
INFO_SETTLED = 4
INFO_ABSTRACT_LEN = 5
INFO_SIZE = 8

# move k: (dx, dz)
_MDX = (1, -1, 0, 0, 1, -1, 1, -1)
_MDZ = (0, 0, 1, -1, 1, 1, -1, -1)


# ---------------------------------------------------------------- geometry
@njit(inline="always")
def cluster_box(geo, c):  # type: ignore[no-untyped-def]
    """Padded inclusive box ``(cx, cz, x0, z0, x1, z1)`` of cluster ``c``."""
    geo_ = ClusterGeometry(*geo)
    width, depth, C, ncx = geo_.width, geo_.depth, geo_.size, geo_.ncx
    cz = c // ncx
    cx = c - cz * ncx
    x0 = cx * C
    z0 = cz * C
    x1 = min(x0 + C, width) - 1
    z1 = min(z0 + C, depth) - 1
    return cx, cz, x0 + 1, z0 + 1, x1 + 1, z1 + 1


@njit(inline="always")
def cluster_of(geo, p):  # type: ignore[no-untyped-def]
    """Cluster of padded cell ``p``."""
    geo_ = ClusterGeometry(*geo)
    wp, C, ncx = geo_.wp, geo_.size, geo_.ncx
    z = p // wp - 1
    x = p - (z + 1) * wp - 1
    return (z // C) * ncx + x // C


# ---------------------------------------------------------------- entrances
@njit(inline="always")
def _emit_run(a, b, gap, buf, n):  # type: ignore[no-untyped-def]
    """Transition positions of the entrance run ``[a, b]`` appended to ``buf``."""
    length = b - a + 1
    if length < LONG_ENTRANCE:
        buf[n] = a + (length - 1) // 2
        return n + 1
    if gap <= 0:
        buf[n] = a
        buf[n + 1] = b
        return n + 2
    # both ends plus evenly spread interior points, at most ``gap`` apart
    segs = (length - 1 + gap - 1) // gap
    for i in range(segs + 1):
        buf[n] = a + (i * (length - 1)) // segs
        n += 1
    return n


@njit
def cluster_nodes(cells, geo, gap, c, out_cell, out_bits, tmp):  # type: ignore[no-untyped-def]
    """Transition nodes of cluster ``c``: sorted padded cells with their border bits.

    ``out_cell``, ``out_bits`` and ``tmp`` need ``4 * C + 4`` entries. Returns the count.
    """
    geo_ = ClusterGeometry(*geo)
    wp, ncx, ncz = geo_.wp, geo_.ncx, geo_.ncz
    cx, cz, x0, z0, x1, z1 = cluster_box(geo, c)
    n = 0
    for side in range(4):
        if side == 0:
            if cx + 1 >= ncx:
                continue
            fixed, other, lo, hi, bit, vertical = x1, x1 + 1, z0, z1, BIT_E, True
        elif side == 1:
            if cx == 0:
                continue
            fixed, other, lo, hi, bit, vertical = x0, x0 - 1, z0, z1, BIT_W, True
        elif side == 2:
            if cz + 1 >= ncz:
                continue
            fixed, other, lo, hi, bit, vertical = z1, z1 + 1, x0, x1, BIT_S, False
        else:
            if cz == 0:
                continue
            fixed, other, lo, hi, bit, vertical = z0, z0 - 1, x0, x1, BIT_N, False
        m = 0
        t = lo
        while t <= hi:
            if vertical:
                ok = cells[t * wp + fixed] != 0 and cells[t * wp + other] != 0
            else:
                ok = cells[fixed * wp + t] != 0 and cells[other * wp + t] != 0
            if not ok:
                t += 1
                continue
            a = t
            while t + 1 <= hi:
                if vertical:
                    ok2 = cells[(t + 1) * wp + fixed] != 0 and cells[(t + 1) * wp + other] != 0
                else:
                    ok2 = cells[fixed * wp + t + 1] != 0 and cells[other * wp + t + 1] != 0
                if not ok2:
                    break
                t += 1
            m = _emit_run(a, t, gap, tmp, m)
            t += 1
        for i in range(m):
            out_cell[n] = tmp[i] * wp + fixed if vertical else fixed * wp + tmp[i]
            out_bits[n] = bit
            n += 1
    # insertion sort by cell, then merge duplicates (corner cells)
    for i in range(1, n):
        kc = out_cell[i]
        kb = out_bits[i]
        j = i - 1
        while j >= 0 and out_cell[j] > kc:
            out_cell[j + 1] = out_cell[j]
            out_bits[j + 1] = out_bits[j]
            j -= 1
        out_cell[j + 1] = kc
        out_bits[j + 1] = kb
    k = 0
    for i in range(n):
        if k > 0 and out_cell[k - 1] == out_cell[i]:
            out_bits[k - 1] |= out_bits[i]
        else:
            out_cell[k] = out_cell[i]
            out_bits[k] = out_bits[i]
            k += 1
    return k


@njit
def count_nodes(cells, geo, gap, clusters, counts):  # type: ignore[no-untyped-def]
    """``counts[i]`` = number of transition nodes of cluster ``clusters[i]``.

    Serial: a cluster costs a scan of its perimeter, less than starting threads."""
    C = ClusterGeometry(*geo).size
    bc = np.empty(4 * C + 4, dtype=np.int64)
    bb = np.empty(4 * C + 4, dtype=np.uint8)
    tmp = np.empty(4 * C + 4, dtype=np.int64)
    for i in range(clusters.shape[0]):
        counts[i] = cluster_nodes(cells, geo, gap, clusters[i], bc, bb, tmp)


@njit
def fill_nodes(cells, geo, gap, clusters, node_off, node_cell, node_bits):  # type: ignore[no-untyped-def]
    """Write the nodes of ``clusters[i]`` at ``node_off[clusters[i]]``."""
    C = ClusterGeometry(*geo).size
    bc = np.empty(4 * C + 4, dtype=np.int64)
    bb = np.empty(4 * C + 4, dtype=np.uint8)
    tmp = np.empty(4 * C + 4, dtype=np.int64)
    for i in range(clusters.shape[0]):
        c = clusters[i]
        k = cluster_nodes(cells, geo, gap, c, bc, bb, tmp)
        base = node_off[c]
        for j in range(k):
            node_cell[base + j] = bc[j]
            node_bits[base + j] = bb[j]


# ----------------------------------------------------------------- Dijkstra
@njit
def box_dijkstra(grid, geo, model, box, stride, reverse, src, target, ntarget, goal, hmul,  # type: ignore[no-untyped-def]
                 g, closed, code, hf, hk):
    """Dijkstra (or A* toward ``goal`` when ``hmul > 0``) from padded cell
    ``src``, restricted to the padded box ``(x0, z0, x1, z1)``.

    Local arrays (``g``, ``closed``, ``code``, ``target``) are indexed
    ``(z - z0) * stride + (x - x0)``; ``hf``/``hk`` need 8 entries per box
    cell plus 8. Stops once ``ntarget`` cells with ``target[li] != 0`` are
    settled. ``reverse``: costs of the reversed graph (the distance *to*
    ``src``: a step charges the weight of the cell it leaves in the search,
    which is the cell entered on the real path). ``code[li]`` is the move that
    reached ``li`` (parent = ``li`` minus that move); ``g[li]`` is valid where
    ``closed[li]``. Returns the number of settled cells.
    """
    grid_ = HpaGridArgs(*grid)
    cells, weights, weighted = grid_.cells, grid_.weights, grid_.weighted
    wp = ClusterGeometry(*geo).wp
    C = stride
    model_ = ModelArgs(*model)
    card, diag, eight = model_.card, model_.diag, model_.eight
    gx = goal % wp
    gz = goal // wp
    bx0, bz0, bx1, bz1 = box
    bw = bx1 - bx0 + 1
    bh = bz1 - bz0 + 1
    for lz in range(bh):
        for lx in range(bw):
            li = lz * C + lx
            g[li] = -1
            closed[li] = 0
            code[li] = NO_CODE
    sx = src % wp
    sz = src // wp
    l0 = (sz - bz0) * C + (sx - bx0)
    g[l0] = 0
    code[l0] = SRC_CODE
    h0 = np.int64(0)
    if hmul > 0:
        h0 = heuristic(sx, sz, gx, gz, card, diag, eight, hmul)
    size = heap_push(hf, hk, np.int64(0), h0, np.int64(l0))
    remaining = ntarget
    settled = 0
    ndir = 8 if eight else 4
    while size > 0:
        f = hf[0]
        li = hk[0]
        size = heap_pop(hf, hk, size)
        if closed[li] != 0:
            continue
        lz = li // C
        lx = li - lz * C
        x = bx0 + lx
        z = bz0 + lz
        gl = f
        if hmul > 0:
            gl = f - heuristic(x, z, gx, gz, card, diag, eight, hmul)
        if gl != g[li]:
            continue
        closed[li] = 1
        settled += 1
        if target[li] != 0:
            remaining -= 1
            if remaining <= 0:
                break
        p = z * wp + x
        wl = np.int64(1)
        if weighted and reverse:
            wl = np.int64(weights[p])
        okE = x < bx1 and cells[p + 1] != 0
        okW = x > bx0 and cells[p - 1] != 0
        okS = z < bz1 and cells[p + wp] != 0
        okN = z > bz0 and cells[p - wp] != 0
        for k in range(ndir):
            if k == 0:
                ok, dl, dp, step = okE, 1, 1, card
            elif k == 1:
                ok, dl, dp, step = okW, -1, -1, card
            elif k == 2:
                ok, dl, dp, step = okS, C, wp, card
            elif k == 3:
                ok, dl, dp, step = okN, -C, -wp, card
            elif k == 4:
                ok, dl, dp, step = okE and okS, C + 1, wp + 1, diag
            elif k == 5:
                ok, dl, dp, step = okW and okS, C - 1, wp - 1, diag
            elif k == 6:
                ok, dl, dp, step = okE and okN, 1 - C, 1 - wp, diag
            else:
                ok, dl, dp, step = okW and okN, -1 - C, -1 - wp, diag
            if not ok:
                continue
            q = li + dl
            if k >= 4 and cells[p + dp] == 0:
                continue
            if closed[q] != 0:
                continue
            if weighted:
                if reverse:
                    cst = step * wl
                else:
                    cst = step * np.int64(weights[p + dp])
            else:
                cst = step
            ng = gl + cst
            gq = g[q]
            if gq >= 0 and ng >= gq:
                continue
            g[q] = ng
            code[q] = k
            fq = ng
            if hmul > 0:
                fq = ng + heuristic(x + _MDX[k], z + _MDZ[k], gx, gz, card, diag, eight, hmul)
            size = heap_push(hf, hk, size, fq, np.int64(q))
    return settled


@njit(inline="always")
def _local(wp, stride, box, p):  # type: ignore[no-untyped-def]
    z = p // wp
    x = p - z * wp
    return (z - box[1]) * stride + (x - box[0])


@njit(nogil=True)
def build_clusters(grid, geo, model, node_off, node_cell,  # type: ignore[no-untyped-def]
                   adj_off, adj_cost, trees, clusters, prune):
    """Intra-cluster edges and Dijkstra trees of every node of ``clusters``.

    One Dijkstra per node over its whole cluster. Writes ``trees[u]`` (a
    shortest-path tree from ``u`` to every cell it reaches in the cluster,
    which queries use to connect their endpoints) and the intra part
    of row ``u`` of ``adj_cost``. With ``prune``, an edge ``u -> v`` whose
    cost equals ``u -> w -> v`` for another node ``w`` of the cluster is
    dropped (cost -1): the costs are exact in-cluster distances, so by
    induction on the cost every distance survives through the kept edges.
    Returns the number of settled cells. Runs without the GIL: the caller
    shares the clusters out over threads (:mod:`navkit.query.fanout`; a
    ``prange`` version compiled in about three times as long), each writing
    only its own clusters' rows of ``adj_cost`` and ``trees``.
    """
    C = ClusterGeometry(*geo).size
    CC = C * C
    total = 0
    for t in range(clusters.shape[0]):
        c = clusters[t]
        g = np.empty(CC, dtype=np.int64)
        closed = np.zeros(CC, dtype=np.uint8)
        target = np.zeros(CC, dtype=np.uint8)
        hf = np.empty(8 * CC + 8, dtype=np.int64)
        hk = np.empty(8 * CC + 8, dtype=np.int64)
        _cx, _cz, x0, z0, x1, z1 = cluster_box(geo, c)
        box = (x0, z0, x1, z1)
        n0 = node_off[c]
        n1 = node_off[c + 1]
        nc = n1 - n0
        cm = np.full((nc, nc), -1, dtype=np.int64)
        settled = 0
        for i in range(n0, n1):
            # no early stop: a query reads the tree at any cell of the cluster
            settled += box_dijkstra(grid, geo, model, box, C, False, node_cell[i], target,
                                    CC + 1, node_cell[i], np.int64(0), g, closed, trees[i],
                                    hf, hk)
            for j in range(n0, n1):
                if j != i:
                    li = _local(ClusterGeometry(*geo).wp, C, box, node_cell[j])
                    if closed[li] != 0:
                        cm[i - n0, j - n0] = g[li]
        for i in range(nc):
            e = adj_off[n0 + i]
            for j in range(nc):
                if j == i:
                    continue
                cij = cm[i, j]
                if prune and cij >= 0:
                    for w in range(nc):
                        if (w != i and w != j and cm[i, w] >= 0 and cm[w, j] >= 0
                                and cm[i, w] + cm[w, j] == cij):
                            cij = -1
                            break
                adj_cost[e] = cij
                e += 1
        total += settled
    return total


# ---------------------------------------------------------------- adjacency
@njit(inline="always")
def _popcount4(b):  # type: ignore[no-untyped-def]
    return (b & 1) + ((b >> 1) & 1) + ((b >> 2) & 1) + ((b >> 3) & 1)


@njit
def row_lengths(node_off, node_bits, node_cluster, out_off):  # type: ignore[no-untyped-def]
    """CSR offsets: ``n_c - 1`` intra entries plus one per border bit."""
    n = node_bits.shape[0]
    out_off[0] = 0
    for u in range(n):
        c = node_cluster[u]
        nc = node_off[c + 1] - node_off[c]
        out_off[u + 1] = out_off[u] + nc - 1 + _popcount4(node_bits[u])


@njit
def _find_node(node_off, node_cell, c, cell):  # type: ignore[no-untyped-def]
    lo = node_off[c]
    hi = node_off[c + 1] - 1
    while lo <= hi:
        mid = (lo + hi) >> 1
        v = node_cell[mid]
        if v == cell:
            return mid
        if v < cell:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


@njit
def fill_rows(grid, geo, model, node_off, node_cell, node_bits,  # type: ignore[no-untyped-def]
              node_cluster, adj_off, adj_to, adj_cost, nodes):
    """Targets of every entry of rows ``nodes`` and the costs of their inter edges.

    Intra costs are left to :func:`build_clusters`. Returns -1 if some
    transition has no partner (cannot happen on consistent data), else 0.
    """
    grid_ = HpaGridArgs(*grid)
    weights, weighted = grid_.weights, grid_.weighted
    geo_ = ClusterGeometry(*geo)
    wp, ncx = geo_.wp, geo_.ncx
    card = ModelArgs(*model).card
    bad = 0
    for t in range(nodes.shape[0]):
        u = nodes[t]
        c = node_cluster[u]
        n0 = node_off[c]
        n1 = node_off[c + 1]
        e = adj_off[u]
        for j in range(n0, n1):
            if j != u:
                adj_to[e] = j
                e += 1
        b = node_bits[u]
        p = node_cell[u]
        for side in range(4):
            if side == 0:
                if (b & BIT_E) == 0:
                    continue
                q, nc = p + 1, c + 1
            elif side == 1:
                if (b & BIT_W) == 0:
                    continue
                q, nc = p - 1, c - 1
            elif side == 2:
                if (b & BIT_S) == 0:
                    continue
                q, nc = p + wp, c + ncx
            else:
                if (b & BIT_N) == 0:
                    continue
                q, nc = p - wp, c - ncx
            v = _find_node(node_off, node_cell, nc, q)
            if v < 0:
                bad = -1
                v = u
            adj_to[e] = v
            adj_cost[e] = card * (np.int64(weights[q]) if weighted else np.int64(1))
            e += 1
    return bad


@njit
def splice(old_node_off, old_adj_off, old_cost, old_trees,  # type: ignore[no-untyped-def]
           new_node_off, new_adj_off, new_cost, new_trees, touched):
    """Copy trees and intra costs of every cluster with ``touched[c] == 0``
    (same node set, new node numbering) from the old graph to the new one."""
    ncl = touched.shape[0]
    for c in range(ncl):
        if touched[c] != 0:
            continue
        o0 = old_node_off[c]
        n0 = new_node_off[c]
        nc = old_node_off[c + 1] - o0
        for k in range(nc):
            a = old_adj_off[o0 + k]
            b = new_adj_off[n0 + k]
            for e in range(nc - 1):
                new_cost[b + e] = old_cost[a + e]
            new_trees[n0 + k, :] = old_trees[o0 + k, :]


# --------------------------------------------------------------- components
@njit
def label_components(cells, wp, labels, stack):  # type: ignore[no-untyped-def]
    """Connected components of the padded grid under the corner rule.

    With the corner rule a diagonal step needs both side cells free, so two
    diagonal neighbours are always joined through a side cell as well: the
    components are exactly the 4-connected ones (also for 4-connectivity).
    Labels start at 1 (0 = blocked); ``stack`` needs ``len(cells)`` entries.
    Returns the number of components.
    """
    n = cells.shape[0]
    for i in range(n):
        labels[i] = 0
    count = 0
    for i in range(n):
        if cells[i] == 0 or labels[i] != 0:
            continue
        count += 1
        labels[i] = count
        top = 0
        stack[top] = i
        top += 1
        while top > 0:
            top -= 1
            p = stack[top]
            for k in range(4):
                if k == 0:
                    q = p + 1
                elif k == 1:
                    q = p - 1
                elif k == 2:
                    q = p + wp
                else:
                    q = p - wp
                if cells[q] != 0 and labels[q] == 0:
                    labels[q] = count
                    stack[top] = q
                    top += 1
    return count


# ------------------------------------------------------------------- query
@njit(inline="always")
def _segment_fwd(code, wp, stride, box, a, b, out, pos, cap, skip_first):  # type: ignore[no-untyped-def]
    """Append the tree path ``a .. b`` (traced backwards from ``b``) to ``out``."""
    lb = _local(wp, stride, box, b)
    # pass 1: length
    m = 1
    li = lb
    while code[li] != SRC_CODE:
        k = code[li]
        li -= _MDZ[k] * stride + _MDX[k]
        m += 1
    keep = m - 1 if skip_first else m
    end = pos + keep
    if end <= cap:
        li = lb
        p = b
        i = end - 1
        for _ in range(keep):
            out[i] = p
            i -= 1
            k = code[li]
            if k == SRC_CODE:
                break
            li -= _MDZ[k] * stride + _MDX[k]
            p -= _MDZ[k] * wp + _MDX[k]
    return end


@njit(inline="always")
def _segment_rev(code, wp, stride, box, a, out, pos, cap):  # type: ignore[no-untyped-def]
    """Append the reverse-tree path from ``a`` to the tree's source, without ``a``."""
    li = _local(wp, stride, box, a)
    p = a
    while code[li] != SRC_CODE:
        k = code[li]
        li -= _MDZ[k] * stride + _MDX[k]
        p -= _MDZ[k] * wp + _MDX[k]
        if pos < cap:
            out[pos] = p
        pos += 1
    return pos


@njit(inline="always")
def _tree_cost(code, wp, stride, box, x, grid, card, diag):  # type: ignore[no-untyped-def]
    """Cost of the tree path from the tree's source to padded cell ``x``
    (-1 when the tree does not reach ``x``): each step charges the cell it enters."""
    grid_ = HpaGridArgs(*grid)
    weights, weighted = grid_.weights, grid_.weighted
    li = _local(wp, stride, box, x)
    if code[li] == NO_CODE:
        return np.int64(-1)
    p = x
    total = np.int64(0)
    while code[li] != SRC_CODE:
        k = code[li]
        step = card if k < 4 else diag
        if weighted:
            step = step * np.int64(weights[p])
        total += step
        li -= _MDZ[k] * stride + _MDX[k]
        p -= _MDZ[k] * wp + _MDX[k]
    return total


@njit
def query(grid, geo, model, graph, qws, aws, s, t, out, info):  # type: ignore[no-untyped-def]
    """One HPA* query from padded cell ``s`` to ``t`` (both passable, ``s != t``).

    ``qws = (g, closed, target, s_code, d_code, hf, hk, s_cost, t_cost)``:
    local search buffers of ``4*C*C`` entries (heap ``32*C*C + 8``;
    ``s_cost``/``t_cost`` at least the largest cluster node count).
    ``aws = (ag, apar, atag, ahf, ahk, gen, apath)``: abstract search buffers
    of ``N + 1`` entries (heap: ``N + 1 + max row length + 8``). Writes the
    refined padded cells into ``out`` and ``info`` (``INFO_*``).
    ``info[INFO_LEN]`` larger than ``len(out)`` means the buffer was too small
    (nothing usable written).

    Endpoints: the cost from a node ``u`` of the goal's cluster to ``t`` is
    read off ``u``'s stored tree. On uniform-cost grids costs are symmetric,
    so the cost from ``s`` to a node ``u`` of the start's cluster is read off
    ``u``'s tree too (walked from ``s``); with terrain weights a Dijkstra from
    ``s`` restricted to its cluster gives it.

    Candidates: the abstract route (start -> start cluster's nodes ->
    abstract graph -> goal cluster's nodes -> goal) and, when the two clusters
    are the same or touch (8-neighbours), the best path inside the bounding
    box of the two clusters (A*). The cheaper one wins (ties: the direct one).
    """
    grid_ = HpaGridArgs(*grid)
    weighted = grid_.weighted
    geo_ = ClusterGeometry(*geo)
    wp, C = geo_.wp, geo_.size
    model_ = ModelArgs(*model)
    card, diag, eight, hmul = model_.card, model_.diag, model_.eight, model_.hmul
    graph_ = AbstractGraphArgs(*graph)
    node_off, node_cell, node_x = graph_.node_off, graph_.node_cell, graph_.node_x
    node_z, node_cluster, adj_off = graph_.node_z, graph_.node_cluster, graph_.adj_off
    adj_to, adj_cost, trees, nbits = graph_.adj_to, graph_.adj_cost, graph_.trees, graph_.nbits
    qws_ = ClusterSearchArgs(*qws)
    g, closed, target, s_code = qws_.g, qws_.closed, qws_.target, qws_.s_code
    d_code, hf, hk, s_cost, t_cost = qws_.d_code, qws_.hf, qws_.hk, qws_.s_cost, qws_.t_cost
    aws_ = AbstractSearchArgs(*aws)
    ag, apar, atag, ahf = aws_.g, aws_.parent, aws_.tag, aws_.hf
    ahk, gen, apath = aws_.hk, aws_.gen, aws_.path
    cap = out.shape[0]
    for i in range(INFO_SIZE):
        info[i] = 0
    zero, one = np.int64(0), np.int64(1)

    sc = cluster_of(geo, s)
    tc = cluster_of(geo, t)
    scx, scz, sx0, sz0, sx1, sz1 = cluster_box(geo, sc)
    sbox = (sx0, sz0, sx1, sz1)
    tcx, tcz, tx0, tz0, tx1, tz1 = cluster_box(geo, tc)
    tbox = (tx0, tz0, tx1, tz1)
    near = abs(scx - tcx) <= 1 and abs(scz - tcz) <= 1
    settled = 0

    # direct candidate: A* inside the bounding box of both clusters
    direct = np.int64(-1)
    dbox = (min(sx0, tx0), min(sz0, tz0), max(sx1, tx1), max(sz1, tz1))
    dstride = 2 * C
    if near:
        lt = _local(wp, dstride, dbox, t)
        target[lt] = 1
        settled += box_dijkstra(grid, geo, model, dbox, dstride, False, s, target, one, t, hmul,
                                g, closed, d_code, hf, hk)
        target[lt] = 0
        if closed[lt] != 0:
            direct = g[lt]

    # start side: costs from s to the start cluster's nodes
    n0s = node_off[sc]
    n1s = node_off[sc + 1]
    if weighted:
        for j in range(n0s, n1s):
            target[_local(wp, C, sbox, node_cell[j])] = 1
        settled += box_dijkstra(grid, geo, model, sbox, C, False, s, target, n1s - n0s, s, zero,
                                g, closed, s_code, hf, hk)
        for j in range(n0s, n1s):
            li = _local(wp, C, sbox, node_cell[j])
            s_cost[j - n0s] = g[li] if closed[li] != 0 else -1
            target[li] = 0
    else:
        for j in range(n0s, n1s):
            s_cost[j - n0s] = _tree_cost(trees[j], wp, C, sbox, s, grid, card, diag)

    # goal side: costs from the goal cluster's nodes to t
    n0t = node_off[tc]
    n1t = node_off[tc + 1]
    for j in range(n0t, n1t):
        t_cost[j - n0t] = _tree_cost(trees[j], wp, C, tbox, t, grid, card, diag)
    info[INFO_SETTLED] = settled

    # abstract A*: virtual start seeds the start cluster's nodes; virtual goal G
    nn = node_off.shape[0]
    nnodes = node_off[nn - 1]
    G = nnodes
    open_tag = np.int32(2 * gen)
    closed_tag = np.int32(2 * gen + 1)
    hcap = ahf.shape[0]
    mask = (np.int64(1) << nbits) - 1
    tx = t % wp
    tz = t // wp
    size = np.int64(0)  # not a literal: one heap_push signature
    if direct >= 0:
        ag[G] = direct
        apar[G] = -2
        atag[G] = open_tag
        size = heap_push(ahf, ahk, size, direct, np.int64(G))
    for j in range(n0s, n1s):
        cst = s_cost[j - n0s]
        if cst < 0:
            continue
        h = heuristic(node_x[j], node_z[j], tx, tz, card, diag, eight, hmul)
        ag[j] = cst
        apar[j] = -1
        atag[j] = open_tag
        size = heap_push(ahf, ahk, size, cst + h, (h << nbits) | j)
    expanded = 0
    found = False
    while size > 0:
        fc = ahf[0]
        k = ahk[0]
        size = heap_pop(ahf, ahk, size)
        u = k & mask
        gu = fc - (k >> nbits)
        if atag[u] != open_tag or gu != ag[u]:
            continue
        atag[u] = closed_tag
        if u == G:
            found = True
            break
        expanded += 1
        e0 = adj_off[u]
        e1 = adj_off[u + 1]
        if size + (e1 - e0) + 2 > hcap:
            size = compact_heap(ahf, ahk, size, atag, ag, open_tag, nbits)
        for e in range(e0, e1):
            w = adj_cost[e]
            if w < 0:
                continue
            v = adj_to[e]
            tv = atag[v]
            if tv == closed_tag:
                continue
            ng = gu + w
            if tv == open_tag and ng >= ag[v]:
                continue
            h = heuristic(node_x[v], node_z[v], tx, tz, card, diag, eight, hmul)
            ag[v] = ng
            apar[v] = u
            atag[v] = open_tag
            size = heap_push(ahf, ahk, size, ng + h, (h << nbits) | v)
        if node_cluster[u] == tc:
            cst = t_cost[u - n0t]
            if cst >= 0:
                ng = gu + cst
                if atag[G] != open_tag or ng < ag[G]:
                    ag[G] = ng
                    apar[G] = u
                    atag[G] = open_tag
                    size = heap_push(ahf, ahk, size, ng, np.int64(G))
    info[INFO_EXPANDED] = expanded
    if not found:
        info[INFO_STATUS] = UNREACHABLE
        info[INFO_COST] = -1
        return UNREACHABLE

    info[INFO_STATUS] = FOUND
    info[INFO_COST] = ag[G]
    # refine
    pos = 0
    if apar[G] == -2:
        pos = _segment_fwd(d_code, wp, dstride, dbox, s, t, out, pos, cap, False)
        info[INFO_LEN] = pos
        info[INFO_ABSTRACT_LEN] = 0
        return FOUND
    m = 0
    u = apar[G]
    while u >= 0:
        apath[m] = u
        m += 1
        u = apar[u]
    # apath[m-1] is the first node after the start
    info[INFO_ABSTRACT_LEN] = m
    u = apath[m - 1]
    if weighted:
        pos = _segment_fwd(s_code, wp, C, sbox, s, node_cell[u], out, pos, cap, False)
    else:
        # u's tree walked from s leads back to u: the path s .. u in order
        if pos < cap:
            out[pos] = s
        pos = _segment_rev(trees[u], wp, C, sbox, s, out, pos + 1, cap)
    for i in range(m - 1, 0, -1):
        u = apath[i]
        v = apath[i - 1]
        cu = node_cluster[u]
        if cu == node_cluster[v]:
            _a, _b, bx0, bz0, bx1, bz1 = cluster_box(geo, cu)
            pos = _segment_fwd(trees[u], wp, C, (bx0, bz0, bx1, bz1),
                               node_cell[u], node_cell[v], out, pos, cap, True)
        else:
            if pos < cap:
                out[pos] = node_cell[v]
            pos += 1
    u = apath[0]
    pos = _segment_fwd(trees[u], wp, C, tbox, node_cell[u], t, out, pos, cap, True)
    info[INFO_LEN] = pos
    return FOUND
