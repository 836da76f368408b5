"""Flow-field kernels: an exact integer Dijkstra run *backward* from the goals.

All arrays are padded and flattened as described in :mod:`navkit._kernels`.

The field is one int64 word per node, ``pk``::

    pk = cost << 5 | code << 1 | settled

``cost`` is the integer cost of walking from the node to the nearest goal,
``code`` its direction code (below), ``settled`` set once the node has been
expanded. Two special words: ``BLOCKED`` (-1) on every node that is not
passable (padding included), and ``UNREACHED`` (cost ``INF``, code ``NONE``)
on passable nodes without a route. Packing makes the search's central test a
single comparison: an offer ``(cand, code)`` beats a node's word when
``cand << 5 | code << 1`` is smaller: cheaper, or as cheap with a lower code
(an offer equal to a settled node's cost and code compares smaller only by the
settled bit; it is the same offer again and changes nothing). No offer beats
``BLOCKED``, so the search never tests passability except for the corner
rule.

Argument groups:

``grid = (free, weights, wp, weighted, eight)``
    ``free``: uint8, nonzero = passable for this field (static cells, long-lived
    occupants and the field's obstacle snapshot merged); the searches read
    only ``pk``, the repair kernels keep both in step. ``weights``: int32
    terrain weights (length 1 when ``weighted`` is False). ``wp``: padded row
    length. ``eight``: 8-connected with the corner rule, else 4-connected.
``model = (card, diag, width, nb)``
    Step costs and the bucket ring: bucket ``b`` holds tentative costs in
    ``[b * width, (b + 1) * width)``; ``width`` must not exceed the smallest
    step (``card`` times the smallest weight of a passable cell) and the ring
    has ``nb >= max_step // width + 2`` slots.
``pool = (ent, cnext, bhead, btail, bfill, meta)``
    The bucket ring: each of the ``nb`` slots is a FIFO list of chunks of
    ``ch = meta[2]`` node entries drawn from one pool (chunk ``c`` holds
    ``ent[c * ch:(c + 1) * ch]``; ``cnext`` links the chunks of a slot, or of
    the free list). ``bhead``/``btail``: first and last chunk of each slot (-1
    when empty); ``bfill``: entries in the last chunk; ``meta[0]``: the first
    free chunk, ``meta[1]``: the number of free chunks. A node whose cost drops
    into an earlier bucket leaves its old entry behind; that entry is skipped
    (the node is settled by then). Before a chunk is consumed at least
    ``8 + nb`` chunks must be free (its expansions push at most 8 entries
    each), else the pending slots are compacted. Compaction leaves at most one
    entry per node in the whole ring, so with ``POOL_SLACK`` chunks beyond
    ``ceil(len(pk) / ch) + 2 * nb`` it always frees enough; a smaller pool
    may run out (``POOL_EXHAUSTED``).
``heap = (hf, hk)``
    The other queue (a 4-ary heap of ``(cost, node)``, capacity
    ``len(pk) + 8``) for weights spread too widely for a short ring.
``seeds = (node, cost, code)``
    Offers made before the search, sorted by cost: the goals (cost 0, code
    ``GOAL``), or the boundary of a region being repaired.

Walking from ``q`` into a neighbour ``p`` costs ``step * weights[p]`` (the
weight of the cell entered, as in A*). The search pops ``p`` and offers each
legal neighbour ``q`` the cost ``cost[p] + step * weights[p]`` with the code
of the move ``q -> p``. Since an offer wins exactly when it is cheaper or as
cheap with a lower code, a node ends with the lowest code among the moves that
reach a goal at its exact cost, whatever order the offers arrive in.

Nodes in one bucket cannot improve one another (every step costs at least the
bucket width), so a bucket is final when it is reached and its nodes may be
expanded in any order: the costs are exactly Dijkstra's, and so are the codes.

Direction codes (``dx, dz``)::

    0 (+1, 0)   1 (0, +1)   2 (-1, 0)   3 (0, -1)
    4 (+1, +1)  5 (-1, +1)  6 (-1, -1)  7 (+1, -1)
    GOAL = 8 (a goal cell), NONE = -1 in the public int8 array (15 in ``pk``)

Performance notes: the hot loops keep every array access in the kernel body.
Arrays handed to an inlined helper cost a reference-count update per call (an
atomic operation) wherever numba cannot prove the pair redundant, which made
an early version of the search ten times slower; helpers called per node take
scalars only. Packing cost and code into one word took a further fifth off.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit
from .heap import heap_pop, heap_push, heapify
from .layouts import BucketPoolArgs, FlowGridArgs, FlowModelArgs, HeapArgs, SeedArgs

SHIFT = 5
SETTLED = 1
#: Costs must stay below this (so ``cost << SHIFT`` fits an int64).
INF = 1 << 57
GOAL = 8
NONE = -1
PK_NONE = 15
BLOCKED = -1
UNREACHED = (INF << SHIFT) | (PK_NONE << 1)
#: Default entries per chunk of the bucket pool.
CHUNK = 512
#: Spare chunks of the pool beyond ``ceil(len(pk) / ch) + 2 * nb``.
POOL_SLACK = 10
#: :func:`run_buckets` ran out of pool chunks (only with a pool below the
#: bound above); the field and the ring are then in an unspecified state.
POOL_EXHAUSTED = -1

#: (dx, dz) of direction codes 0..7.
OFFSETS = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))


@njit(inline="always")
def _off(d, wp):  # type: ignore[no-untyped-def]
    """Padded index offset of direction code ``d``."""
    if d == 0:
        return 1
    if d == 1:
        return wp
    if d == 2:
        return -1
    if d == 3:
        return -wp
    if d == 4:
        return wp + 1
    if d == 5:
        return wp - 1
    if d == 6:
        return -wp - 1
    return -wp + 1


@njit(inline="always")
def _side_a(d):  # type: ignore[no-untyped-def]
    """The x-side cardinal code of diagonal ``d`` (E or W)."""
    if d == 4 or d == 7:
        return 0
    return 2


@njit(inline="always")
def _side_b(d):  # type: ignore[no-untyped-def]
    """The z-side cardinal code of diagonal ``d`` (S or N)."""
    if d == 4 or d == 5:
        return 1
    return 3


@njit(inline="always")
def _rel(x, width, nb):  # type: ignore[no-untyped-def]
    """``x // width`` for ``width <= x < nb * width`` (compares on short rings)."""
    if nb > 4:
        return x // width
    r = 1
    if x >= 2 * width:
        r += 1
    if x >= 3 * width:
        r += 1
    return r


@njit(inline="always")
def _code(word):  # type: ignore[no-untyped-def]
    """The public direction code of a field word."""
    if word < 0:
        return NONE
    c = (word >> 1) & 15
    return NONE if c == PK_NONE else c


# ------------------------------------------------------------------ bucket queue
@njit
def _compact_pool(ent, cnext, bhead, btail, bfill, meta, pk, k, cs, width, nb):  # type: ignore[no-untyped-def]
    """Drop superseded entries from every slot but ``cs`` (the one being
    filled from seeds or consumed); returns how many were dropped."""
    ch = meta[2]
    dropped = 0
    for s in range(nb):
        if s == cs or bhead[s] < 0:
            continue
        d = s - cs
        if d < 0:
            d += nb
        lo = (k + d) * width
        hi = lo + width
        wc = bhead[s]
        wi = 0
        c = bhead[s]
        while c >= 0:
            m = bfill[s] if c == btail[s] else ch
            for j in range(m):
                q = ent[c * ch + j]
                word = pk[q]
                cq = word >> SHIFT
                if (word & SETTLED) == 0 and cq >= lo and cq < hi:
                    if wi == ch:
                        wc = cnext[wc]
                        wi = 0
                    ent[wc * ch + wi] = q
                    wi += 1
                else:
                    dropped += 1
            c = cnext[c]
        # hand back the chunks after the write position
        c = cnext[wc]
        cnext[wc] = -1
        while c >= 0:
            nc = cnext[c]
            cnext[c] = meta[0]
            meta[0] = c
            meta[1] += 1
            c = nc
        if wi == 0:  # nothing kept: wc is the head chunk
            cnext[wc] = meta[0]
            meta[0] = wc
            meta[1] += 1
            bhead[s] = -1
            btail[s] = -1
            bfill[s] = 0
        else:
            btail[s] = wc
            bfill[s] = wi
    return dropped


@njit
def run_buckets(grid, model, pk, pool, seeds):  # type: ignore[no-untyped-def]
    """Dijkstra on a ring of FIFO buckets; returns the number of nodes
    expanded, or ``POOL_EXHAUSTED``.

    Needs every slot empty on entry, and leaves them so. A winning offer to a
    node ``q`` whose word was ``old`` is queued in the bucket of its cost
    unless ``q`` already waits there (``old`` unsettled and in that bucket); a
    settled node whose cost stays and only its code improves (possible when
    repairing) just takes the code. The neighbours are written out one by
    one, with a short loop only for the diagonals: a loop over all eight ran
    about a quarter slower.
    """
    grid_ = FlowGridArgs(*grid)
    weights, wp, weighted, eight = grid_.weights, grid_.wp, grid_.weighted, grid_.eight
    model_ = FlowModelArgs(*model)
    card, diag, width, nb = model_.card, model_.diag, model_.width, model_.nb
    pool_ = BucketPoolArgs(*pool)
    ent, cnext, bhead = pool_.ent, pool_.cnext, pool_.bhead
    btail, bfill, meta = pool_.btail, pool_.bfill, pool_.meta
    seeds_ = SeedArgs(*seeds)
    snode, scost, scode = seeds_.node, seeds_.cost, seeds_.code
    ch = meta[2]
    ns = snode.shape[0]
    if ns == 0:
        return 0
    k = scost[0] // width
    kbase = k * width
    cs = np.int64(0)  # not a literal: one _compact_pool signature
    i = 0
    pending = 0
    expanded = 0
    while True:
        # seeds due in this bucket join the current slot
        while i < ns and scost[i] < kbase + width:
            q = snode[i]
            cand = (scost[i] << SHIFT) | (scode[i] << 1)
            i += 1
            old = pk[q]
            if cand < old:
                if (old & SETTLED) != 0 and (old >> SHIFT) == (cand >> SHIFT):
                    pk[q] = cand | SETTLED
                else:
                    pk[q] = cand
                    if (old & SETTLED) != 0 or old >= ((kbase + width) << SHIFT):
                        if meta[1] < 1:
                            pending -= _compact_pool(ent, cnext, bhead, btail, bfill,
                                                     meta, pk, k, cs, width, nb)
                            if meta[1] < 1:
                                return POOL_EXHAUSTED
                        t = btail[cs]
                        f = bfill[cs]
                        if t < 0 or f == ch:
                            nc = meta[0]
                            meta[0] = cnext[nc]
                            meta[1] -= 1
                            cnext[nc] = -1
                            if t < 0:
                                bhead[cs] = nc
                            else:
                                cnext[t] = nc
                            btail[cs] = nc
                            t = nc
                            f = 0
                        ent[t * ch + f] = q
                        bfill[cs] = f + 1
                        pending += 1
        # consume the current slot; expansions offer to later buckets only
        c = bhead[cs]
        while c >= 0:
            # the chunk's expansions push at most 8 entries each: make sure
            # that many chunks are free, so the loop below needs no check
            if meta[1] < 8 + nb:
                pending -= _compact_pool(ent, cnext, bhead, btail, bfill,
                                         meta, pk, k, cs, width, nb)
                if meta[1] < 8 + nb:
                    return POOL_EXHAUSTED
            m = bfill[cs] if c == btail[cs] else ch
            base = c * ch
            for j in range(m):
                p = ent[base + j]
                wpk = pk[p]
                if (wpk & SETTLED) != 0:
                    continue  # superseded: expanded from an earlier bucket
                pk[p] = wpk | SETTLED
                expanded += 1
                cp = wpk >> SHIFT
                w = weights[p] if weighted else 1
                # straight offers: the word to beat, its ring slot, and the
                # word below which a waiting node already sits in that slot
                cc = cp + card * w
                rc = _rel(cc - kbase, width, nb)
                sc = cs + rc
                if sc >= nb:
                    sc -= nb
                lc = (kbase + (rc + 1) * width) << SHIFT
                ccs = cc << SHIFT
                vE = pk[p + 1]
                vS = pk[p + wp]
                vW = pk[p - 1]
                vN = pk[p - wp]
                for e in range(4):
                    if e == 0:  # E (+1, 0): the move back to p is code 2
                        q = p + 1
                        old = vE
                        cand = ccs | (2 << 1)
                    elif e == 1:  # S (0, +1): back is 3
                        q = p + wp
                        old = vS
                        cand = ccs | (3 << 1)
                    elif e == 2:  # W (-1, 0): back is 0
                        q = p - 1
                        old = vW
                        cand = ccs
                    else:  # N (0, -1): back is 1
                        q = p - wp
                        old = vN
                        cand = ccs | (1 << 1)
                    if cand < old:
                        if (old & SETTLED) != 0 and (old >> SHIFT) == cc:
                            pk[q] = cand | SETTLED
                        else:
                            pk[q] = cand
                            if (old & SETTLED) != 0 or old >= lc:
                                t = btail[sc]
                                f = bfill[sc]
                                if t < 0 or f == ch:  # a new chunk (enough are free: see above)
                                    nc = meta[0]
                                    meta[0] = cnext[nc]
                                    meta[1] -= 1
                                    cnext[nc] = -1
                                    if t < 0:
                                        bhead[sc] = nc
                                    else:
                                        cnext[t] = nc
                                    btail[sc] = nc
                                    t = nc
                                    f = 0
                                ent[t * ch + f] = q
                                bfill[sc] = f + 1
                                pending += 1
                if eight:
                    cd = cp + diag * w
                    rd = _rel(cd - kbase, width, nb)
                    sd = cs + rd
                    if sd >= nb:
                        sd -= nb
                    ld = (kbase + (rd + 1) * width) << SHIFT
                    cds = cd << SHIFT
                    okE = vE >= 0
                    okS = vS >= 0
                    okW = vW >= 0
                    okN = vN >= 0
                    # corner rule: both side cells passable
                    for e in range(4):
                        if e == 0:  # SE (+1, +1): back is 6
                            q = p + wp + 1
                            ok = okE and okS
                            cand = cds | (6 << 1)
                        elif e == 1:  # SW (-1, +1): back is 7
                            q = p + wp - 1
                            ok = okW and okS
                            cand = cds | (7 << 1)
                        elif e == 2:  # NW (-1, -1): back is 4
                            q = p - wp - 1
                            ok = okW and okN
                            cand = cds | (4 << 1)
                        else:  # NE (+1, -1): back is 5
                            q = p - wp + 1
                            ok = okE and okN
                            cand = cds | (5 << 1)
                        if not ok:
                            continue
                        old = pk[q]
                        if cand < old:
                            if (old & SETTLED) != 0 and (old >> SHIFT) == cd:
                                pk[q] = cand | SETTLED
                            else:
                                pk[q] = cand
                                if (old & SETTLED) != 0 or old >= ld:
                                    t = btail[sd]
                                    f = bfill[sd]
                                    if t < 0 or f == ch:  # a new chunk (enough are free: see above)
                                        nc = meta[0]
                                        meta[0] = cnext[nc]
                                        meta[1] -= 1
                                        cnext[nc] = -1
                                        if t < 0:
                                            bhead[sd] = nc
                                        else:
                                            cnext[t] = nc
                                        btail[sd] = nc
                                        t = nc
                                        f = 0
                                    ent[t * ch + f] = q
                                    bfill[sd] = f + 1
                                    pending += 1
            pending -= m
            nc = cnext[c]
            cnext[c] = meta[0]
            meta[0] = c
            meta[1] += 1
            c = nc
        bhead[cs] = -1
        btail[cs] = -1
        bfill[cs] = 0
        if pending == 0:
            if i >= ns:
                break
            k = scost[i] // width
            kbase = k * width
            cs = 0
        else:
            k += 1
            kbase += width
            cs += 1
            if cs == nb:
                cs = 0
    return expanded


# --------------------------------------------------------------------- heap queue
@njit
def _compact_h(hf, hk, size, pk):  # type: ignore[no-untyped-def]
    """Drop superseded heap entries; returns the new size."""
    k = 0 * size  # int64, as size (a literal 0 would type heapify a second time)
    for i in range(size):
        word = pk[hk[i]]
        if (word & SETTLED) == 0 and hf[i] == (word >> SHIFT):
            hf[k] = hf[i]
            hk[k] = hk[i]
            k += 1
    heapify(hf, hk, k)
    return k


@njit
def run_heap(grid, model, pk, heap, seeds):  # type: ignore[no-untyped-def]
    """The same search on a 4-ary heap (any weights); returns the nodes expanded.

    A node is pushed when its cost drops, so an entry is live while its node
    is unsettled and the costs match.
    """
    grid_ = FlowGridArgs(*grid)
    weights, wp, weighted, eight = grid_.weights, grid_.wp, grid_.weighted, grid_.eight
    model_ = FlowModelArgs(*model)
    card, diag = model_.card, model_.diag
    heap_ = HeapArgs(*heap)
    hf, hk = heap_.hf, heap_.hk
    seeds_ = SeedArgs(*seeds)
    snode, scost, scode = seeds_.node, seeds_.cost, seeds_.code
    cap = hf.shape[0]
    nd = 8 if eight else 4
    size = np.int64(0)  # not a literal: one heap signature
    for i in range(snode.shape[0]):
        q = snode[i]
        cand = (scost[i] << SHIFT) | (scode[i] << 1)
        old = pk[q]
        if cand < old:
            if (old >> SHIFT) == scost[i]:
                pk[q] = cand | (old & SETTLED)  # same cost: the code only
            else:
                pk[q] = cand
                if size + 1 > cap:
                    size = _compact_h(hf, hk, size, pk)
                size = heap_push(hf, hk, size, scost[i], q)
    expanded = 0
    while size > 0:
        cp = hf[0]
        p = hk[0]
        size = heap_pop(hf, hk, size)
        wpk = pk[p]
        if (wpk & SETTLED) != 0 or cp != (wpk >> SHIFT):
            continue
        pk[p] = wpk | SETTLED
        expanded += 1
        if size + 8 > cap:
            size = _compact_h(hf, hk, size, pk)
        w = weights[p] if weighted else 1
        cc = cp + card * w
        cd = cp + diag * w
        okE = pk[p + 1] >= 0
        okS = pk[p + wp] >= 0
        okW = pk[p - 1] >= 0
        okN = pk[p - wp] >= 0
        for e in range(nd):
            if e == 0:
                q, ok, code, cost = p + 1, okE, 2, cc
            elif e == 1:
                q, ok, code, cost = p + wp, okS, 3, cc
            elif e == 2:
                q, ok, code, cost = p - 1, okW, 0, cc
            elif e == 3:
                q, ok, code, cost = p - wp, okN, 1, cc
            elif e == 4:
                q, ok, code, cost = p + wp + 1, okE and okS, 6, cd
            elif e == 5:
                q, ok, code, cost = p + wp - 1, okW and okS, 7, cd
            elif e == 6:
                q, ok, code, cost = p - wp - 1, okW and okN, 4, cd
            else:
                q, ok, code, cost = p - wp + 1, okE and okN, 5, cd
            if not ok:
                continue
            cand = (cost << SHIFT) | (code << 1)
            old = pk[q]
            if cand < old:
                if (old >> SHIFT) == cost:
                    pk[q] = cand | (old & SETTLED)
                else:
                    pk[q] = cand
                    size = heap_push(hf, hk, size, cost, q)
    return expanded


# ------------------------------------------------------------------ full rebuild
@njit
def reset(free, cells, marks, mark, pk):  # type: ignore[no-untyped-def]
    """Start a full build: ``free = cells`` minus nodes with ``marks == mark``
    (``mark <= 0``: no overlay); ``UNREACHED`` on passable nodes and
    ``BLOCKED`` elsewhere."""
    use_marks = mark > 0
    for i in range(pk.shape[0]):
        f = cells[i]
        if use_marks and marks[i] == mark:
            f = 0
        free[i] = f
        pk[i] = UNREACHED if f != 0 else BLOCKED


@njit
def unpack(pk, wp, hp, cost, dirs):  # type: ignore[no-untyped-def]
    """Write the public arrays of the inner ``(hp - 2, wp - 2)`` cells:
    ``cost`` (int64, -1 where there is no route; skipped when empty) and
    ``dirs`` (int8 codes; skipped when empty)."""
    want_cost = cost.shape[0] > 0
    want_dirs = dirs.shape[0] > 0
    j = 0
    for z in range(1, hp - 1):
        i = z * wp + 1
        for _x in range(wp - 2):
            word = pk[i]
            if want_cost:
                cq = word >> SHIFT
                cost[j] = cq if word >= 0 and cq < INF else -1
            if want_dirs:
                dirs[j] = _code(word)
            i += 1
            j += 1


# --------------------------------------------------------------- partial repair
@njit
def diff_box(free, cells, marks, mark, wp, x0, z0, x1, z1, out):  # type: ignore[no-untyped-def]
    """Compare ``free`` with the new passability inside a padded box (inclusive).

    Newly blocked nodes go to ``out[0:nb]``, newly freed ones to
    ``out[len(out) - nf:]``; ``free`` is left unchanged. Returns ``(nb, nf)``.
    """
    use_marks = mark > 0
    nbl = 0
    nfr = 0
    top = out.shape[0] - 1
    for z in range(z0, z1 + 1):
        for x in range(x0, x1 + 1):
            i = z * wp + x
            f = cells[i] != 0 and not (use_marks and marks[i] == mark)
            old = free[i] != 0
            if old and not f:
                out[nbl] = i
                nbl += 1
            elif f and not old:
                out[top - nfr] = i
                nfr += 1
    return nbl, nfr


@njit
def diff_nodes(free, cells, marks, mark, nodes, out):  # type: ignore[no-untyped-def]
    """:func:`diff_box` over a list of padded nodes (each listed once)."""
    use_marks = mark > 0
    nbl = 0
    nfr = 0
    top = out.shape[0] - 1
    for j in range(nodes.shape[0]):
        i = nodes[j]
        f = cells[i] != 0 and not (use_marks and marks[i] == mark)
        old = free[i] != 0
        if old and not f:
            out[nbl] = i
            nbl += 1
        elif f and not old:
            out[top - nfr] = i
            nfr += 1
    return nbl, nfr


@njit
def invalidate(grid, pk, blocked, stack):  # type: ignore[no-untyped-def]
    """Block ``blocked`` and reset to ``UNREACHED`` every node whose route
    used one of them or a diagonal that now cuts a blocked corner: the
    subtrees of the direction forest below them. Writes the reset nodes,
    blocked ones included, to ``stack`` and returns their count."""
    grid_ = FlowGridArgs(*grid)
    free, wp, eight = grid_.free, grid_.wp, grid_.eight
    top = 0
    for j in range(blocked.shape[0]):
        b = blocked[j]
        free[b] = 0
        reached = _code(pk[b]) >= 0
        pk[b] = BLOCKED
        if reached:
            stack[top] = b
            top += 1
    if eight:
        # neighbours whose diagonal squeezed past a now-blocked side cell
        for j in range(blocked.shape[0]):
            b = blocked[j]
            for e in range(8):
                q = b + _off(e, wp)
                d = _code(pk[q])
                if d >= 4 and d < 8:
                    if q + _off(_side_a(d), wp) == b or q + _off(_side_b(d), wp) == b:
                        pk[q] = UNREACHED
                        stack[top] = q
                        top += 1
    head = 0
    nd = 8 if eight else 4
    while head < top:
        p = stack[head]
        head += 1
        for e in range(nd):
            q = p + _off(e, wp)
            d = _code(pk[q])
            if d >= 0 and d < 8 and q + _off(d, wp) == p:
                pk[q] = UNREACHED
                stack[top] = q
                top += 1
    return top


@njit(inline="always")
def _legal(free, wp, q, d):  # type: ignore[no-untyped-def]
    """True when the move from passable node ``q`` along code ``d`` is allowed."""
    if free[q + _off(d, wp)] == 0:
        return False
    if d < 4:
        return True
    return free[q + _off(_side_a(d), wp)] != 0 and free[q + _off(_side_b(d), wp)] != 0


@njit(inline="always")
def _best(free, weights, wp, weighted, eight, card, diag, pk, q):  # type: ignore[no-untyped-def]
    """Cheapest way on from passable ``q`` through a neighbour with a known
    cost: ``(cost, code)``, lowest code on ties; ``(INF, NONE)`` if none."""
    best = INF
    bc = NONE
    nd = 8 if eight else 4
    for d in range(nd):
        n = q + _off(d, wp)
        word = pk[n]
        cn = word >> SHIFT
        if word >= 0 and cn < INF and _legal(free, wp, q, d):
            w = weights[n] if weighted else 1
            v = cn + (card if d < 4 else diag) * w
            if v < best:
                best = v
                bc = d
    return best, bc


@njit
def boundary_seeds(grid, model, pk, nodes, snode, scost, scode):  # type: ignore[no-untyped-def]
    """Seeds for reset nodes: each passable node's best offer from neighbours
    outside the reset region. Returns the number of seeds written."""
    grid_ = FlowGridArgs(*grid)
    free, weights, wp = grid_.free, grid_.weights, grid_.wp
    weighted, eight = grid_.weighted, grid_.eight
    model_ = FlowModelArgs(*model)
    card, diag = model_.card, model_.diag
    ns = 0
    for j in range(nodes.shape[0]):
        q = nodes[j]
        if free[q] == 0:
            continue
        v, c = _best(free, weights, wp, weighted, eight, card, diag, pk, q)
        if v < INF:
            snode[ns] = q
            scost[ns] = v
            scode[ns] = c
            ns += 1
    return ns


@njit
def freed_seeds(grid, model, pk, goal, freed, snode, scost, scode):  # type: ignore[no-untyped-def]
    """Make ``freed`` nodes passable (``UNREACHED``) and write the offers their
    freeing makes: a freed goal costs 0; a freed node its best neighbour; a
    diagonal that no longer cuts a blocked corner, both ways. Needs
    ``9 * len(freed)`` seed slots; returns the number written."""
    grid_ = FlowGridArgs(*grid)
    free, weights, wp = grid_.free, grid_.weights, grid_.wp
    weighted, eight = grid_.weighted, grid_.eight
    model_ = FlowModelArgs(*model)
    card, diag = model_.card, model_.diag
    for j in range(freed.shape[0]):
        free[freed[j]] = 1
        pk[freed[j]] = UNREACHED
    ns = 0
    for j in range(freed.shape[0]):
        r = freed[j]
        if goal[r] != 0:
            snode[ns] = r
            scost[ns] = 0
            scode[ns] = GOAL
            ns += 1
            continue
        v, c = _best(free, weights, wp, weighted, eight, card, diag, pk, r)
        if v < INF:
            snode[ns] = r
            scost[ns] = v
            scode[ns] = c
            ns += 1
    if eight:
        for j in range(freed.shape[0]):
            r = freed[j]
            # the four corners of r: a diagonal a <-> b with side cells r and o
            for e in range(4):
                if e == 0:
                    a, b, code_ab, code_ba, o = r + 1, r + wp, 5, 7, r + wp + 1
                elif e == 1:
                    a, b, code_ab, code_ba, o = r + wp, r - 1, 6, 4, r + wp - 1
                elif e == 2:
                    a, b, code_ab, code_ba, o = r - 1, r - wp, 7, 5, r - wp - 1
                else:
                    a, b, code_ab, code_ba, o = r - wp, r + 1, 4, 6, r - wp + 1
                if free[a] == 0 or free[b] == 0 or free[o] == 0:
                    continue
                cb = pk[b] >> SHIFT
                if cb < INF:
                    w = weights[b] if weighted else 1
                    snode[ns] = a
                    scost[ns] = cb + diag * w
                    scode[ns] = code_ab
                    ns += 1
                ca = pk[a] >> SHIFT
                if ca < INF:
                    w = weights[a] if weighted else 1
                    snode[ns] = b
                    scost[ns] = ca + diag * w
                    scode[ns] = code_ba
                    ns += 1
    return ns


@njit
def count_reached(pk):  # type: ignore[no-untyped-def]
    """Nodes with a route to a goal."""
    n = 0
    for i in range(pk.shape[0]):
        if _code(pk[i]) >= 0:
            n += 1
    return n


# ---------------------------------------------------------------------- queries
@njit
def chain(pk, wp, start, out):  # type: ignore[no-untyped-def]
    """Follow the codes from ``start``, writing the nodes to ``out`` (as many
    as fit); returns the chain length including the goal, 0 when ``start`` has
    no direction, or -1 when ``len(pk)`` steps do not reach a goal (which a
    field built by this module never does)."""
    p = start
    n = 0
    cap = out.shape[0]
    limit = pk.shape[0]
    while True:
        d = _code(pk[p])
        if d < 0:
            return 0 if n == 0 else -1
        if n < cap:
            out[n] = p
        n += 1
        if d == GOAL:
            return n
        if n > limit:
            return -1
        p = p + _off(d, wp)


@njit
def codes_at(pk, nodes, out):  # type: ignore[no-untyped-def]
    """``out[i]`` = the direction code of padded node ``nodes[i]`` (``NONE``
    where ``nodes[i] < 0``)."""
    for i in range(nodes.shape[0]):
        q = nodes[i]
        out[i] = _code(pk[q]) if q >= 0 else NONE
    return nodes.shape[0]
