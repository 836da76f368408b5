"""A* over a chunked world's abstract graph (docs/world-queries.md, "The hierarchy").

The graph lives in caller-owned growable arrays indexed by node id: ``nx``,
``nz`` (world cell), ``nkey`` (tie-break key: ``4 * linear index + kind``,
kind 0 transition, 1 goal, 2 start), ``ready`` (uint8, 1 when the node's
adjacency is built), ``adj`` int64 ``(2, n)`` rows ``start, length`` into the
edge arrays ``e_to`` / ``e_cost`` (int64). Node 0 is the query's start (its
successors are ``s_to`` / ``s_cost``), node 1 the goal; ``to_goal`` int64
``(n,)`` holds each node's cost to the goal (-1: no edge).

The search is resumable: when the node on top of the queue has no adjacency
yet, :func:`graph_astar` returns ``NEED`` with that node in ``out[O_NODE]``
(left on the queue); the caller builds its chunk and calls again with the
same buffers. Queue order: smallest ``f``, then smallest ``h``, then the
smaller ``nkey``; a node's ``g`` changes only on a strictly cheaper offer.

Buffers: ``sbuf`` int64 ``(7, n)`` rows ``g, parent, tag, hpos, hf, hh, hi``
(tags ``2 * gen`` open, ``2 * gen + 1`` closed); ``state`` int64 ``(2,)``
queue size and expansions so far (both 0 before the first call of a query).
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit

__all__ = ["graph_astar", "chunk_row", "FOUND", "UNREACHABLE", "BUDGET_EXHAUSTED", "NEED",
           "O_STATUS", "O_NODE", "O_EXPANDED", "O_COST", "G_SIZE", "H_SHIFT"]

FOUND = 0
UNREACHABLE = 1
BUDGET_EXHAUSTED = 2
NEED = 4

O_STATUS, O_NODE, O_EXPANDED, O_COST = range(4)
#: ``prm``: goal x, goal z, card, diag, eight, hmul, gen, max expansions. ``hmul`` is
#: fixed point with ``H_SHIFT`` fraction bits: the heuristic is the octile (or Manhattan)
#: distance in step units times ``hmul / 2**H_SHIFT`` (the smallest weight times the
#: heuristic's inflation, docs/world-queries.md), rounded down.
G_GX, G_GZ, G_CARD, G_DIAG, G_EIGHT, G_HMUL, G_GEN, G_MAX = range(8)
G_SIZE = 8
#: Fraction bits of ``prm[G_HMUL]``.
H_SHIFT = 10


@njit(inline="always")
def _less(fa, ha, ka, fb, hb, kb):  # type: ignore[no-untyped-def]
    if fa != fb:
        return fa < fb
    if ha != hb:
        return ha < hb
    return ka < kb


@njit(inline="always")
def _up(hf, hh, hi, hpos, nkey, i):  # type: ignore[no-untyped-def]
    f, h, s = hf[i], hh[i], hi[i]
    k = nkey[s]
    while i > 0:
        p = (i - 1) >> 1
        if _less(f, h, k, hf[p], hh[p], nkey[hi[p]]):
            hf[i], hh[i], hi[i] = hf[p], hh[p], hi[p]
            hpos[hi[i]] = i
            i = p
        else:
            break
    hf[i], hh[i], hi[i] = f, h, s
    hpos[s] = i


@njit(inline="always")
def _pop(hf, hh, hi, hpos, nkey, size):  # type: ignore[no-untyped-def]
    size -= 1
    if size == 0:
        return size
    f, h, s = hf[size], hh[size], hi[size]
    k = nkey[s]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _less(hf[c + 1], hh[c + 1], nkey[hi[c + 1]], hf[c], hh[c],
                                  nkey[hi[c]]):
            c += 1
        if _less(hf[c], hh[c], nkey[hi[c]], f, h, k):
            hf[i], hh[i], hi[i] = hf[c], hh[c], hi[c]
            hpos[hi[i]] = i
            i = c
        else:
            break
    hf[i], hh[i], hi[i] = f, h, s
    hpos[s] = i
    return size


@njit(inline="always")
def _octile(x, z, gx, gz, card, diag, eight, hmul):  # type: ignore[no-untyped-def]
    dx = x - gx
    if dx < 0:
        dx = -dx
    dz = z - gz
    if dz < 0:
        dz = -dz
    if eight == 0:
        return (card * (dx + dz) * hmul) >> H_SHIFT
    if dx < dz:
        return ((card * dz + (diag - card) * dx) * hmul) >> H_SHIFT
    return ((card * dx + (diag - card) * dz) * hmul) >> H_SHIFT


@njit(inline="always")
def _offer(sbuf, nx, nz, nkey, q, ng, p, size, gx, gz, card, diag, eight, hmul,  # type: ignore[no-untyped-def]
           open_tag, closed_tag):
    """Offer node ``q`` the cost ``ng`` from ``p``; returns the queue size."""
    g = sbuf[0]
    tag = sbuf[2]
    tq = tag[q]
    if tq == closed_tag:
        return size
    was_open = tq == open_tag
    if was_open and ng >= g[q]:
        return size
    g[q] = ng
    sbuf[1, q] = p
    h = _octile(nx[q], nz[q], gx, gz, card, diag, eight, hmul)
    if was_open:
        i = sbuf[3, q]
    else:
        tag[q] = open_tag
        i = size
        size += 1
    sbuf[4, i] = ng + h
    sbuf[5, i] = h
    sbuf[6, i] = q
    _up(sbuf[4], sbuf[5], sbuf[6], sbuf[3], nkey, i)
    return size


@njit
def graph_astar(nx, nz, nkey, ready, adj, e_to, e_cost, to_goal, s_to, s_cost,  # type: ignore[no-untyped-def]
                prm, sbuf, state, out):
    """Run (or resume) the abstract A* from node 0 to node 1; returns the
    status (``FOUND``, ``UNREACHABLE``, ``BUDGET_EXHAUSTED`` or ``NEED``) and
    writes ``out``: status, the node to build (``NEED``), expansions, the
    goal's cost (``FOUND``). Parents are in ``sbuf[1]``."""
    gx, gz, card, diag = prm[G_GX], prm[G_GZ], prm[G_CARD], prm[G_DIAG]
    eight, hmul, gen, max_exp = prm[G_EIGHT], prm[G_HMUL], prm[G_GEN], prm[G_MAX]
    open_tag = 2 * gen
    closed_tag = 2 * gen + 1
    g = sbuf[0]
    tag = sbuf[2]
    size = state[0]
    expanded = state[1]
    if size == 0 and expanded == 0:
        size = _offer(sbuf, nx, nz, nkey, 0, 0, 0, 0, gx, gz, card, diag, eight, hmul,
                      open_tag, closed_tag)
    status = UNREACHABLE
    out[O_COST] = -1
    while size > 0:
        p = sbuf[6, 0]
        if ready[p] == 0:
            status = NEED
            out[O_NODE] = p
            break
        if expanded >= max_exp:
            status = BUDGET_EXHAUSTED
            break
        gc = g[p]
        size = _pop(sbuf[4], sbuf[5], sbuf[6], sbuf[3], nkey, size)
        tag[p] = closed_tag
        expanded += 1
        if p == 1:
            status = FOUND
            out[O_COST] = gc
            break
        if p == 0:
            for i in range(s_to.shape[0]):
                size = _offer(sbuf, nx, nz, nkey, s_to[i], gc + s_cost[i], p, size, gx, gz,
                              card, diag, eight, hmul, open_tag, closed_tag)
            continue
        a0 = adj[0, p]
        a1 = a0 + adj[1, p]
        for i in range(a0, a1):
            size = _offer(sbuf, nx, nz, nkey, e_to[i], gc + e_cost[i], p, size, gx, gz, card,
                          diag, eight, hmul, open_tag, closed_tag)
        if to_goal[p] >= 0:
            size = _offer(sbuf, nx, nz, nkey, 1, gc + to_goal[p], p, size, gx, gz, card, diag,
                          eight, hmul, open_tag, closed_tag)
    state[0] = size
    state[1] = expanded
    out[O_STATUS] = status
    out[O_EXPANDED] = expanded
    return status


@njit(inline="always")
def _hpush(hk, hs, n, k, s):  # type: ignore[no-untyped-def]
    i = n
    while i > 0:
        p = (i - 1) >> 1
        if hk[p] > k or (hk[p] == k and hs[p] > s):
            hk[i] = hk[p]
            hs[i] = hs[p]
            i = p
        else:
            break
    hk[i] = k
    hs[i] = s
    return n + 1


@njit(inline="always")
def _hpop(hk, hs, n):  # type: ignore[no-untyped-def]
    n -= 1
    k = hk[n]
    s = hs[n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and (hk[c + 1] < hk[c] or (hk[c + 1] == hk[c] and hs[c + 1] < hs[c])):
            c += 1
        if hk[c] < k or (hk[c] == k and hs[c] < s):
            hk[i] = hk[c]
            hs[i] = hs[c]
            i = c
        else:
            break
    hk[i] = k
    hs[i] = s
    return n


@njit
def chunk_row(cells, nodes, src, eight, card, diag, gen, g, tag, tmark, hk, hs, row):  # type: ignore[no-untyped-def]
    """Exact in-chunk costs from node ``src`` to every node: a Dijkstra on
    ``cells`` ((h, w) uint16 ``[z, x]``, 0 blocked, else the weight of the
    cell entered), 8-connected with the corner rule when ``eight``. ``nodes``
    (k, 2) int64 local ``(x, z)``; ``row`` (k,) int64 receives the costs (-1:
    not connected inside the chunk). Buffers: ``g``, ``tag`` int64 (h * w,)
    (tags ``2 * gen`` seen, ``2 * gen + 1`` closed; ``gen`` grows per call),
    ``tmark`` int64 (h * w,) (``gen`` on target slots), ``hk``, ``hs`` int64
    ``(8 * h * w + 1,)`` (a lazy-deletion heap). Returns the closed count."""
    h, w = cells.shape
    k = nodes.shape[0]
    seen = 2 * gen
    closed = 2 * gen + 1
    left = 0
    for i in range(k):
        q = nodes[i, 1] * w + nodes[i, 0]
        if tmark[q] != gen:
            tmark[q] = gen
            left += 1
        row[i] = -1
    s = nodes[src, 1] * w + nodes[src, 0]
    g[s] = 0
    tag[s] = seen
    n = _hpush(hk, hs, 0, 0, s)
    count = 0
    while n > 0:
        gc = hk[0]
        p = hs[0]
        n = _hpop(hk, hs, n)
        if tag[p] == closed or gc != g[p]:
            continue
        tag[p] = closed
        count += 1
        if tmark[p] == gen:
            left -= 1
            if left == 0:
                break
        pz = p // w
        px = p - pz * w
        for d in range(8 if eight else 4):
            if d == 0:
                dx, dz = 1, 0
            elif d == 1:
                dx, dz = -1, 0
            elif d == 2:
                dx, dz = 0, 1
            elif d == 3:
                dx, dz = 0, -1
            elif d == 4:
                dx, dz = 1, 1
            elif d == 5:
                dx, dz = -1, 1
            elif d == 6:
                dx, dz = 1, -1
            else:
                dx, dz = -1, -1
            qx = px + dx
            qz = pz + dz
            if qx < 0 or qx >= w or qz < 0 or qz >= h:
                continue
            wq = cells[qz, qx]
            if wq == 0:
                continue
            if d >= 4:
                if cells[pz, qx] == 0 or cells[qz, px] == 0:
                    continue
                step = diag
            else:
                step = card
            q = qz * w + qx
            tq = tag[q]
            if tq == closed:
                continue
            ng = gc + step * np.int64(wq)
            if tq == seen and ng >= g[q]:
                continue
            g[q] = ng
            tag[q] = seen
            n = _hpush(hk, hs, n, ng, q)
    for i in range(k):
        q = nodes[i, 1] * w + nodes[i, 0]
        if tag[q] == closed:
            row[i] = g[q]
    return count
