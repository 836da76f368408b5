"""A* and Dijkstra over the floors of a building joined by links (docs/rules.md §16).

Layout: ``F`` floors of ``depth x width`` cells, node ``n = (f * depth + z) *
width + x`` (floor-major, then row-major: the order of §16's tie-break).
``free[n]`` is 1 where a query may stand (walkable, not stamped), 0 elsewhere.
``weight`` holds one int32 per node, or a single element when every weight is
1. Links are directed edges ``lsrc[k] -> ldst[k]`` with integer cost
``lcost[k]``, sorted by source; ``loff`` (``F * depth * width + 1``) is their
CSR offset by source node.

Moves within a floor are §3.1's eight with the corner rule; a step into ``c``
costs ``card * w(c)`` or ``diag * w(c)``; a link costs ``lcost`` (no weight).
The heuristic (A*) is the relaxed distance of §16.5: ``wmin`` times the
octile distance to the goal, or through a useful link ``k``: ``wmin * oct(n,
hsrc[k]) + hoff[k]``, whichever is smaller.

Queue order (§3.4): smallest ``f``, then larger ``g`` (smaller ``h``), then
lower node. The indexed heap keeps one entry per node and lowers it in place.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit
from .heap import iheap_pop, iheap_sift_up

FOUND = 0
UNREACHABLE = 1
BUDGET_EXHAUSTED = 2
WINDOW_EXHAUSTED = 3

_DX = (1, 0, -1, 0, 1, -1, -1, 1)
_DZ = (0, 1, 0, -1, 1, 1, -1, -1)


@njit(_nrt=False)
def _octile(x0, z0, x1, z1, card, diag):  # type: ignore[no-untyped-def]
    dx = abs(x1 - x0)
    dz = abs(z1 - z0)
    if dx < dz:
        dx, dz = dz, dx
    return card * dx + (diag - card) * dz


@njit(_nrt=False)
def _h(x, z, gx, gz, hx, hz, hoff, hcap, card, diag, wmin):  # type: ignore[no-untyped-def]
    best = _octile(x, z, gx, gz, card, diag) * wmin
    if hcap < best:
        best = hcap
    for k in range(hx.shape[0]):
        v = _octile(x, z, hx[k], hz[k], card, diag) * wmin + hoff[k]
        if v < best:
            best = v
    return best


@njit(_nrt=False)
def floors_search(free, weight, width, depth, card, diag, wmin,  # type: ignore[no-untyped-def]
                  loff, ldst, lcost, lon,
                  sources, source_g, goal, hx, hz, hoff, hcap, budget, node_bits,
                  wx0, wz0, wx1, wz1, g, parent, via, stamp, gen, hf, hk, pos, out):
    """One search. ``goal >= 0``: A* from ``sources`` to ``goal``; ``goal < 0``:
    Dijkstra from every source (a distance field), ``h = 0``.

    ``sources`` / ``source_g``: start nodes and their initial costs.
    ``lon[k]``: link ``k`` is switched on. ``hcap`` caps the heuristic (a
    lower bound on any route through a link when ``hx`` is left empty).
    ``via[n]``: the link that entered ``n`` (-1: a grid step). ``budget`` caps expansions (<= 0:
    none). Per node, ``g`` / ``parent`` are valid where ``stamp == gen``;
    ``stamp == -gen`` marks a closed node (``gen >= 1``). ``hf`` / ``hk`` /
    ``pos`` are the heap buffers (one slot per node).

    ``wx0, wz0, wx1, wz1``: the inclusive cell box (on every floor) outside
    which cells are impassable (docs/rules.md §3.6; the whole grid: no window);
    a windowed search that runs dry ends WINDOW_EXHAUSTED.

    ``out`` (int64, 2): expansions, then the number of nodes reached.
    Returns FOUND, UNREACHABLE (queue ran dry; always for a field),
    BUDGET_EXHAUSTED or WINDOW_EXHAUSTED.
    """
    plane = width * depth
    mask = (np.int64(1) << node_bits) - 1
    unweighted = weight.shape[0] == 1
    size = 0
    reached = 0
    gx = 0
    gz = 0
    if goal >= 0:
        r = goal % plane
        gz = r // width
        gx = r - gz * width
    for i in range(sources.shape[0]):
        s = sources[i]
        gs = source_g[i]
        h = np.int64(0)
        if goal >= 0:
            r = s % plane
            sz = r // width
            h = _h(r - sz * width, sz, gx, gz, hx, hz, hoff, hcap, card, diag, wmin)
        if stamp[s] == gen:  # a source listed twice keeps its cheaper cost
            if g[s] <= gs:
                continue
            g[s] = gs
            iheap_sift_up(hf, hk, pos, mask, pos[s], gs + h, (h << node_bits) | s)
            continue
        reached += 1
        stamp[s] = gen
        g[s] = gs
        parent[s] = -1
        via[s] = -1
        iheap_sift_up(hf, hk, pos, mask, size, gs + h, (h << node_bits) | s)
        size += 1
    expanded = 0
    windowed = wx0 > 0 or wz0 > 0 or wx1 < width - 1 or wz1 < depth - 1
    status = WINDOW_EXHAUSTED if windowed and goal >= 0 else UNREACHABLE
    while size > 0:
        n = hk[0] & mask
        size = iheap_pop(hf, hk, pos, mask, size)
        stamp[n] = -gen
        expanded += 1
        if n == goal:
            status = FOUND
            break
        gn = g[n]
        f = n // plane
        r = n - f * plane
        z = r // width
        x = r - z * width
        for d in range(8):
            nx = x + _DX[d]
            nz = z + _DZ[d]
            if nx < wx0 or nz < wz0 or nx > wx1 or nz > wz1:
                continue
            m = f * plane + nz * width + nx
            if free[m] == 0:
                continue
            if d >= 4:
                if free[f * plane + z * width + nx] == 0 or free[f * plane + nz * width + x] == 0:
                    continue
                step = diag
            else:
                step = card
            if not unweighted:
                step = step * weight[m]
            if _relax(m, nx, nz, n, -1, gn + step, goal, gx, gz, hx, hz, hoff, hcap, card,
                      diag, wmin, node_bits, g, parent, via, stamp, gen, hf, hk, pos, mask, size):
                size += 1
                reached += 1
        for k in range(loff[n], loff[n + 1]):
            if lon[k] == 0:
                continue
            m = ldst[k]
            if free[m] == 0:
                continue
            r = m % plane
            mz = r // width
            mx = r - mz * width
            if mx < wx0 or mz < wz0 or mx > wx1 or mz > wz1:
                continue
            if _relax(m, mx, mz, n, k, gn + lcost[k], goal, gx, gz, hx, hz, hoff, hcap,
                      card, diag, wmin, node_bits, g, parent, via, stamp, gen, hf, hk, pos, mask,
                      size):
                size += 1
                reached += 1
        if budget > 0 and expanded >= budget:
            status = BUDGET_EXHAUSTED
            break
    out[0] = expanded
    out[1] = reached
    return status


@njit(_nrt=False)
def _relax(m, mx, mz, n, k, gm, goal, gx, gz, hx, hz, hoff, hcap,  # type: ignore[no-untyped-def]
           card, diag, wmin, node_bits, g, parent, via, stamp, gen, hf, hk, pos, mask, size):
    """Offer ``m`` (cell ``(mx, mz)`` of its floor) cost ``gm`` through ``n``;
    returns True when ``m`` is new (its entry took slot ``size``: the caller
    grows the heap). A cheaper offer
    for an open node lowers it in place; closed nodes and dearer offers are
    ignored (a node's ``g`` changes only on a strictly cheaper offer)."""
    st = stamp[m]
    if st == -gen:
        return False
    if st == gen:
        if gm >= g[m]:
            return False
        slot = pos[m]
        old_f = hf[slot]
        h = old_f - g[m]
        g[m] = gm
        parent[m] = n
        via[m] = k
        iheap_sift_up(hf, hk, pos, mask, slot, gm + h, (h << node_bits) | m)
        return False
    h = np.int64(0)
    if goal >= 0:
        h = _h(mx, mz, gx, gz, hx, hz, hoff, hcap, card, diag, wmin)
    stamp[m] = gen
    g[m] = gm
    parent[m] = n
    via[m] = k
    iheap_sift_up(hf, hk, pos, mask, size, gm + h, (h << node_bits) | m)
    return True


@njit(_nrt=False)
def trace_path(parent, via, goal, out_nodes, out_via):  # type: ignore[no-untyped-def]
    """Write the node chain ending at ``goal`` (start first) into ``out_nodes``
    and how each node was entered into ``out_via`` (-1: a grid step or the
    start; else the directed link); returns its length (-1 if the buffers are
    too short)."""
    n = 0
    v = goal
    while v >= 0:
        if n >= out_nodes.shape[0]:
            return -1
        out_nodes[n] = v
        out_via[n] = via[v]
        n += 1
        v = parent[v]
    i = 0
    j = n - 1
    while i < j:
        a = out_nodes[i]
        out_nodes[i] = out_nodes[j]
        out_nodes[j] = a
        b = out_via[i]
        out_via[i] = out_via[j]
        out_via[j] = b
        i += 1
        j -= 1
    return n


@njit(_nrt=False)
def portal_route(t0, w, tg, direct, dist, prev, done):  # type: ignore[no-untyped-def]
    """Dense Dijkstra over ``E`` link edges (docs/rules.md §16.9).

    ``t0[k]``: the cost of reaching link ``k``'s far end straight from the
    start (walk to its source, take it; ``-1`` none). ``w[j, k]``: from link
    ``j``'s far end to link ``k``'s far end through a walk and link ``k`` (-1
    none). ``tg[k]``: from link ``k``'s far end to the goal (-1 none).
    ``direct``: start to goal on one floor without links (-1 none).
    Writes ``dist`` / ``prev`` (-1: from the start) and returns the best link
    edge to finish with (-1: the direct walk, -2: unreachable). Ties keep the
    earlier offer (the direct walk first, then the lower link index).
    """
    e = t0.shape[0]
    inf = np.int64(1) << 62
    for k in range(e):
        dist[k] = t0[k] if t0[k] >= 0 else inf
        prev[k] = -1
        done[k] = 0
    best = direct if direct >= 0 else inf
    last = -1 if direct >= 0 else -2
    for _ in range(e):
        u = -1
        du = inf
        for k in range(e):
            if done[k] == 0 and dist[k] < du:
                du = dist[k]
                u = k
        if u < 0 or du >= best:
            break
        done[u] = 1
        if tg[u] >= 0 and du + tg[u] < best:
            best = du + tg[u]
            last = u
        for k in range(e):
            c = w[u, k]
            if c >= 0 and done[k] == 0 and du + c < dist[k]:
                dist[k] = du + c
                prev[k] = u
    return last
