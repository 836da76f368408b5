"""Grid A*, Dijkstra and distance fields on integer costs.

Arguments are grouped in tuples whose layouts are defined, once, in
:mod:`navkit._kernels.layouts`: ``grid`` (:class:`~navkit._kernels.layouts.GridArgs`),
``overlay`` (:class:`~navkit._kernels.layouts.OverlayArgs`), ``model``
(:class:`~navkit._kernels.layouts.ModelArgs`), ``limits``
(:class:`~navkit._kernels.layouts.LimitArgs`), ``ws``
(:class:`~navkit._kernels.layouts.WorkspaceArgs`) and, for the level queue,
``rings`` (:class:`~navkit._kernels.layouts.RingArgs`). A node's tag carries
the mask bit of the move back to its parent from bit ``BACK_SHIFT`` on, and
the level queue writes no ``parent`` (a grid-sized array kept out of the
cache); :func:`trace` reads either.

Queue order: smallest ``f``, then largest ``g`` (smallest ``h``), then lowest
node index; see :mod:`navkit._kernels.heap`. Two queues give this order.

*The indexed heap* (terrain weights): one entry per node, lowered in place
(decrease-key). A successor whose ``f`` equals its parent's (the heuristic
fell by the step cost) has a smaller ``h`` than every other entry at that
``f``, so the best such successor is the very next node in that order: it
skips the heap (the *fast lane*), unless an entry lowered during the same
expansion beats it, which then sits at the heap's root and swaps with it.

*The level queue* (uniform cost): a successor's ``f`` exceeds the expanded
node's ``f`` (the current level ``fc``, which never falls) by 0 or one of a
few fixed steps (five for octile costs: ``2c - d``, ``d``, ``2c``,
``2d - 2c``, ``2d``; :func:`stream_offsets`), so entries appended to one FIFO
per step come out in ``f`` order: the next level is the smallest ``f`` at the
streams' heads. An entry alone at its level comes out directly; a level of
several moves to a small key heap (the *level heap*, in ``hk``) that orders
them by key; successors at ``f == fc`` join it directly, being smaller than
all that remain. A cheaper path appends a new entry and leaves the old one
stale (skipped: its node is closed or its ``g`` has changed). Pops cost a few
comparisons instead of a sift through the open list. A full ring stops the
search with status ``RETRY``; the caller repeats it on longer rings, or on
the heap when they are as long as they get. Both queues
expand the very same nodes in the very same order. On static cells (no
overlay, no window) successors come from the node's move mask without the
move back to its parent, which is closed.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._numba_config import njit
from .geometry import closer
from .heap import heapify, iheap_pop, iheap_sift_up, kheap_pop, kheap_push
from .layouts import GridArgs, LimitArgs, ModelArgs, OverlayArgs, RingArgs, WorkspaceArgs
from .prefetch import prefetch

FOUND = 0
UNREACHABLE = 1
BUDGET_EXHAUSTED = 2
WINDOW_EXHAUSTED = 3
NEAREST = 4  # find-path-to-nearest reached the reachable cell closest to the goal

# stats layout written by astar()
ST_STATUS = 0
ST_EXPANDED = 1
ST_GENERATED = 2
ST_END = 3
ST_BEST = 4
ST_COST = 5
ST_BEST_COST = 6
STATS_SIZE = 8

# statuses written for queries rejected before the search (see navkit.results.Status)
NO_START = 5
NO_GOAL = 6
#: internal: the level queue's ring overflowed; the caller reruns the query on the heap
RETRY = 7

#: The level queue's stream count (octile costs need five ``f`` steps).
NSTREAMS = 5
#: ``ht`` holds the streams' heads, their tails, their heads' ``f``, then a
#: scratch of four values per successor of the node being expanded.
HEAD_F = 2 * NSTREAMS
SUCC = 3 * NSTREAMS
HT_SIZE = SUCC + 4 * 8
#: The head ``f`` of an empty stream (larger than any ``f``).
_NO_F = np.int64(np.iinfo(np.int64).max)

#: Generation counters (workspace tags, overlay marks) wrap before this: tags are int32
#: ``2 * gen + 1`` below bit ``BACK_SHIFT``, so four million searches between clears.
GEN_LIMIT = (1 << 22) - 2
#: The level queue keeps an open node's back bit (see move_masks) above its
#: tag, from this bit on; ``tag & TAG_LOW`` is the tag itself.
BACK_SHIFT = 23
TAG_LOW = (1 << BACK_SHIFT) - 1


@njit(_nrt=False)
def move_masks(cells, wp, x0, z0, x1, z1, eight, out):  # type: ignore[no-untyped-def]
    """Write the legal moves of every node in padded columns ``x0..x1`` and
    rows ``z0..z1`` (inclusive, inside the border) into ``out`` (uint8): bit
    ``d`` is set when move ``d`` (E, W, S, N, then SE, SW, NE, NW when
    ``eight``) leads to a passable cell; blocked nodes get 0. ``eight`` is
    also the diagonal rule (docs/rules.md §3.9): 0 / False no diagonals,
    1 / True past two passable cardinals (the corner rule), 2 past at least
    one, 3 always. The level queue's kernels read one byte per expansion
    instead of testing eight cells."""
    for z in range(z0, z1 + 1):
        for x in range(x0, x1 + 1):
            p = z * wp + x
            m = 0
            if cells[p] != 0:
                e = cells[p + 1] != 0
                w = cells[p - 1] != 0
                so = cells[p + wp] != 0
                no = cells[p - wp] != 0
                m = np.int64(e) | (np.int64(w) << 1) | (np.int64(so) << 2) | (np.int64(no) << 3)
                if eight:
                    # _diag_ok(a, b, eight - 1) as a count (four
                    # inlined copies were most of this kernel's compile time):
                    # a diagonal needs 2 free side cells, 1 or none
                    need = 3 - np.int64(eight)
                    ne, nw_ = np.int64(e), np.int64(w)
                    ns, nn = np.int64(so), np.int64(no)
                    m |= np.int64(ne + ns >= need and cells[p + wp + 1] != 0) << 4
                    m |= np.int64(nw_ + ns >= need and cells[p + wp - 1] != 0) << 5
                    m |= np.int64(ne + nn >= need and cells[p - wp + 1] != 0) << 6
                    m |= np.int64(nw_ + nn >= need and cells[p - wp - 1] != 0) << 7
            out[p] = m


@njit(inline="always")
def _diag_ok(a, b, dmode):  # type: ignore[no-untyped-def]
    """Whether a diagonal step may pass side cells ``a`` and ``b`` (free or
    not) under diagonal mode ``dmode``: 0 both free, 1 at least one, 2 always."""
    if dmode == 0:
        return a and b
    if dmode == 1:
        return a or b
    return True


@njit(inline="always")
def heuristic(qx, qz, gx, gz, card, diag, eight, hmul):  # type: ignore[no-untyped-def]
    dx = qx - gx
    if dx < 0:
        dx = -dx
    dz = qz - gz
    if dz < 0:
        dz = -dz
    if not eight:
        return card * (dx + dz) * hmul
    if dx < dz:
        return (card * dz + (diag - card) * dx) * hmul
    return (card * dx + (diag - card) * dz) * hmul


@njit(inline="always")
def heuristic_opt(qx, qz, gx, gz, card, diag, eight, hmul, hkind, hw, hs):  # type: ignore[no-untyped-def]
    """The heuristic of docs/rules.md §3.9: ``hkind`` 0 octile (:func:`heuristic`),
    1 manhattan ``card * (dx + dz)``, 2 chebyshev ``card * max(dx, dz)``,
    3 euclidean ``floor(sqrt(dx*dx + dz*dz) * hs)``; times ``hmul``, then the
    greedy weight ``(h * hw) >> 10`` when ``hw != 1024``. Integers out; the
    float of the Euclidean case is IEEE-754 (correctly rounded sqrt and
    products, no fastmath), so the same on every machine."""
    if hkind == 0:
        h = heuristic(qx, qz, gx, gz, card, diag, eight, hmul)
    else:
        dx = qx - gx
        if dx < 0:
            dx = -dx
        dz = qz - gz
        if dz < 0:
            dz = -dz
        if hkind == 1:
            h = card * (dx + dz) * hmul
        elif hkind == 2:
            h = card * (dz if dx < dz else dx) * hmul
        else:
            h = np.int64(np.sqrt(np.float64(dx * dx + dz * dz)) * hs) * hmul
    if hw != 1024:
        h = (h * hw) >> 10
    return h


@njit(inline="always")
def _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1, q, qx, qz):  # type: ignore[no-untyped-def]
    if cells[q] == 0:
        return False
    if use_marks and marks[q] == mark:
        return False
    if win and (qx < wx0 or qx > wx1 or qz < wz0 or qz > wz1):
        return False
    return True


@njit
def _offer_h(qx, qz, gx, gz, card, diag, eight, hmul, hkind, hw, hs):  # type: ignore[no-untyped-def]
    """:func:`heuristic_opt` as a plain call for :func:`_offer`: numba retypes
    an inlined helper at each call site (eight per heap kernel, most of its
    compile time); LLVM still inlines this one where it pays."""
    return heuristic_opt(qx, qz, gx, gz, card, diag, eight, hmul, hkind, hw, hs)


@njit
def _offer_push(hf, hk, pos, mask, i, f, k):  # type: ignore[no-untyped-def]
    """:func:`iheap_sift_up` as a plain call for :func:`_offer` (see :func:`_offer_h`)."""
    iheap_sift_up(hf, hk, pos, mask, i, f, k)


@njit
def _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag, closed_tag,  # type: ignore[no-untyped-def]
           p, gc, fc, q, qx, qz, gx, gz, step, card, diag, eight, hmul, nbits, size, lane,
           hkind, hw, hs):
    """A*'s relaxation of node ``q`` at cost ``gc + step`` (times its weight):
    a new node enters the heap or the fast lane (``lane``: the key of the
    best successor at ``f == fc`` so far, -1 for none), a cheaper path lowers
    its heap entry in place. Returns ``(size, lane, 1 if q got a new g)``.
    A plain call, compiled once per ``weighted`` (a literal at every call
    site): as an inlined helper numba typed it eight times per heap kernel
    (about 2 s of each kernel's compile); as fast (0.94-1.04x the time on
    den520d, AR0011SR and brc202d, weighted, 8- and 4-connected)."""
    tq = tag[q]
    if tq == closed_tag:
        return size, lane, 0
    if weighted:
        step = step * weights[q]
    ng = gc + step
    was_open = tq == open_tag
    if was_open and ng >= g[q]:
        return size, lane, 0
    g[q] = ng
    parent[q] = p
    tag[q] = open_tag
    h = _offer_h(qx, qz, gx, gz, card, diag, eight, hmul, hkind, hw, hs)
    mask = (np.int64(1) << nbits) - 1
    k = (h << nbits) | q
    f = ng + h
    # one sift-up below for the three cases (one inlined copy, not three)
    if was_open:  # lowered in place
        slot, key, nsize, nlane = pos[q], k, size, lane
    elif f == fc and lane < 0:  # the fast lane takes it
        return size, k, 1
    elif f == fc and k < lane:  # it beats the lane's entry, which goes to the heap
        slot, key, nsize, nlane = size, lane, size + 1, k
    else:
        slot, key, nsize, nlane = size, k, size + 1, lane
    _offer_push(hf, hk, pos, mask, slot, f, key)
    return nsize, nlane, 1


@njit(inline="always")
def _settle(g, tag, ht, n, open_tag, closed_tag, gc, q, qx, qz, step, back):  # type: ignore[no-untyped-def]
    """The level queue's relaxation, first half: when ``q`` is not closed and
    ``gc + step`` beats its ``g``, record the new ``g``, open it with the
    move-mask bit ``back`` of the move back to the parent ``p`` in its tag
    (instead of ``p`` in ``parent``), and note the successor in ``ht``'s
    scratch; returns the new successor count ``n``.
    :func:`_enqueue` queues the noted successors. (An inlined wrapper that
    passes int64s to :func:`_settle_cell`, compiled once.)"""
    return _settle_cell(g, tag, ht, np.int64(n), open_tag, closed_tag, np.int64(gc), np.int64(q),
                        np.int64(qx), np.int64(qz), np.int64(step), np.int64(back))


@njit
def _settle_cell(g, tag, ht, n, open_tag, closed_tag, gc, q, qx, qz, step, back):  # type: ignore[no-untyped-def]
    """:func:`_settle`'s body, a plain call on int64 arguments: compiled once
    (inlined, numba typed it at each of the eight call sites of every level
    kernel; LLVM inlines it back)."""
    u = np.uint64(q)
    tq = tag[u] & TAG_LOW
    if tq == closed_tag:
        return n
    ng = gc + step
    if tq == open_tag and ng >= g[u]:
        return n
    g[u] = ng
    tag[u] = open_tag | np.int32(back << BACK_SHIFT)
    i = np.uint64(SUCC + 4 * n)
    ht[i] = q
    ht[i + np.uint64(1)] = qx
    ht[i + np.uint64(2)] = qz
    ht[i + np.uint64(3)] = ng
    return n + 1


@njit(inline="always")
def _enqueue(hk, rings, n, fc, gx, gz, model, eight, nbits, size):  # type: ignore[no-untyped-def]
    """Queue the ``n`` successors :func:`_settle` noted: one at ``f == fc``
    joins the level heap (``size`` entries), any other is appended to the
    stream of its ``f`` step. Returns ``(size, full)``: ``full`` is 1 when a
    stream's ring was full (or a step unknown) and the search must rerun."""
    rings_ = RingArgs(*rings)
    rf, rk, ht, offs, rbits = rings_.rf, rings_.rk, rings_.ht, rings_.offs, rings_.rbits
    model_ = ModelArgs(*model)
    card, diag, hmul = model_.card, model_.diag, model_.hmul
    hkind, hw, hs = model_.hkind, model_.hw, model_.hs
    rmask = (np.int64(1) << rbits) - 1
    for s in range(n):
        i = np.uint64(SUCC + 4 * s)
        q = ht[i]
        h = heuristic_opt(ht[i + np.uint64(1)], ht[i + np.uint64(2)], gx, gz, card, diag, eight,
                          hmul, hkind, hw, hs)
        k = (h << nbits) | q
        f = ht[i + np.uint64(3)] + h
        df = f - fc
        if df == 0:  # (expanded next: too soon for a prefetch to help)
            size = kheap_push(hk, size, k)
            continue
        # branch-free: which stream's step is df (0 when none matches but offs[0])
        j = (np.int64(df == offs[1]) + 2 * np.int64(df == offs[2]) + 3 * np.int64(df == offs[3])
             + 4 * np.int64(df == offs[4]))
        tail = ht[np.uint64(NSTREAMS + j)]
        head = ht[np.uint64(j)]
        if (j == 0 and df != offs[0]) or tail - head > rmask:
            return size, 1
        e = np.uint64((j << rbits) + (tail & rmask))
        rf[e] = f
        rk[e] = k
        if tail == head:
            ht[np.uint64(HEAD_F + j)] = f
        ht[np.uint64(NSTREAMS + j)] = tail + 1
    return size, 0


@njit(inline="always")
def _prefetch_around(rings, tag, g, n, wp):  # type: ignore[no-untyped-def]
    """Prefetch what expanding node ``n`` reads and writes: its move mask and
    its three rows of tags, costs and back bits."""
    prefetch(RingArgs(*rings).moves, n)
    for r in (n - wp - 1, n - 1, n + wp - 1):
        prefetch(tag, r)
        prefetch(g, r)


@njit(inline="always")
def _new_head(rings, tag, g, j, hd, tl, mask, wp):  # type: ignore[no-untyped-def]
    """Stream ``j``'s head moved to ``hd`` (``tl`` its tail): cache the head's
    ``f`` and prefetch its node's neighbourhood, which comes out soon. No
    branch: past the tail the slot holds an old entry, and a prefetch never
    faults."""
    rings_ = RingArgs(*rings)
    rf, rk, ht, rbits = rings_.rf, rings_.rk, rings_.ht, rings_.rbits
    e = np.uint64((np.int64(j) << rbits) + (hd & ((np.int64(1) << rbits) - 1)))
    ht[np.uint64(HEAD_F + j)] = rf[e] if hd < tl else _NO_F
    _prefetch_around(rings, tag, g, rk[e] & mask, wp)


@njit(inline="always")
def _pop_level(wp, g, tag, hk, rings, open_tag, nbits):  # type: ignore[no-untyped-def]
    """The next entry when the level heap is empty: ``(key, f, level heap size)``,
    ``key == -1`` when the streams hold no live entry.

    The smallest cached head ``f`` names the stream; a stale head is dropped
    and the choice made again. When no other head has the same ``f``, that
    entry is the only one of its level and comes out directly; otherwise the
    whole level moves into the level heap, which orders it."""
    rings_ = RingArgs(*rings)
    rf, rk, ht, rbits = rings_.rf, rings_.rk, rings_.ht, rings_.rbits
    mask = (np.int64(1) << nbits) - 1
    rmask = (np.int64(1) << rbits) - 1
    while True:
        fmin = _NO_F
        jb = -1
        for j in range(NSTREAMS):
            f = ht[HEAD_F + j]
            if f < fmin:
                fmin = f
                jb = j
        if jb < 0:
            return np.int64(-1), fmin, 0
        base = np.int64(jb) << rbits
        hd = ht[np.uint64(jb)]
        k = rk[np.uint64(base + (hd & rmask))]
        hd += 1
        ht[np.uint64(jb)] = hd
        _new_head(rings, tag, g, jb, hd, ht[np.uint64(NSTREAMS + jb)], mask, wp)
        n = k & mask
        if (tag[np.uint64(n)] & TAG_LOW) != open_tag or fmin - (k >> nbits) != g[np.uint64(n)]:
            continue  # stale: closed, or a cheaper entry followed
        ties = 0
        for j in range(NSTREAMS):
            ties += ht[HEAD_F + j] == fmin
        if ties == 0:
            return k, fmin, 0
        # the level has more entries: all of them into the level heap
        size = kheap_push(hk, 0, k)
        _prefetch_around(rings, tag, g, n, wp)
        for j in range(NSTREAMS):
            if ht[HEAD_F + j] != fmin:
                continue
            base = np.int64(j) << rbits
            hd = ht[j]
            tl = ht[NSTREAMS + j]
            while hd < tl:
                i = base + (hd & rmask)
                if rf[np.uint64(i)] != fmin:
                    break
                k = rk[np.uint64(i)]
                n = k & mask
                un = np.uint64(n)
                if (tag[un] & TAG_LOW) == open_tag and fmin - (k >> nbits) == g[un]:
                    size = kheap_push(hk, size, k)
                    _prefetch_around(rings, tag, g, n, wp)
                hd += 1
            ht[j] = hd
            _new_head(rings, tag, g, j, hd, tl, mask, wp)
        k = hk[0]
        size = kheap_pop(hk, size)
        return k, fmin, size


@njit
def compact_heap(hf, hk, size, tag, g, open_tag, nbits):  # type: ignore[no-untyped-def]
    """Drop stale heap entries (closed nodes, superseded costs); returns the new size."""
    mask = (np.int64(1) << nbits) - 1
    k = 0 * size  # int64, as size (a literal 0 would type heapify a second time)
    for i in range(size):
        n = hk[i] & mask
        if tag[n] == open_tag and hf[i] - (hk[i] >> nbits) == g[n]:
            hf[k] = hf[i]
            hk[k] = hk[i]
            k += 1
    heapify(hf, hk, k)
    return k


@njit(inline="always")
def _finish(stats, status, expanded, generated, best, g, goal):  # type: ignore[no-untyped-def]
    """Write a finished search's ``stats`` (see ``ST_*``); returns ``status``."""
    stats[ST_STATUS] = status
    stats[ST_EXPANDED] = expanded
    stats[ST_GENERATED] = generated
    stats[ST_BEST] = best
    stats[ST_BEST_COST] = g[best]
    if status == FOUND:
        stats[ST_END] = goal
        stats[ST_COST] = g[goal]
    else:
        stats[ST_END] = best
        stats[ST_COST] = -1
    return status


@njit(inline="always")
def _parent_of(parent, tag, wp, n):  # type: ignore[no-untyped-def]
    """The parent of closed node ``n``: the level queue keeps it as the move
    back (a mask bit above ``BACK_SHIFT`` in the tag), the heap in ``parent``
    (its tags have no such bits)."""
    b = (tag[np.uint64(n)] >> BACK_SHIFT) & 255
    if b == 0:
        return np.int64(parent[np.uint64(n)])
    if b == 1:
        return n + 1
    if b == 2:
        return n - 1
    if b == 4:
        return n + wp
    if b == 8:
        return n - wp
    if b == 16:
        return n + wp + 1
    if b == 32:
        return n + wp - 1
    if b == 64:
        return n - wp + 1
    return n - wp - 1


@njit(inline="always")
def _open_start(g, parent, tag, gen, wp, start, goal, model, eight):  # type: ignore[no-untyped-def]
    """Open ``start`` (cost 0, its own parent) for a search of generation
    ``gen``. Returns ``(open_tag, closed_tag, gx, gz, h0, d2)``: the tags,
    the goal's column and row, the start's heuristic and its squared
    distance to the goal (where the nearest-node tracking begins)."""
    model_ = ModelArgs(*model)
    card, diag, hmul = model_.card, model_.diag, model_.hmul
    open_tag = np.int32(2 * gen)
    closed_tag = np.int32(2 * gen + 1)
    gx = goal % wp
    gz = goal // wp
    sx = start % wp
    sz = start // wp
    g[start] = 0
    parent[start] = start
    tag[start] = open_tag
    h0 = heuristic_opt(sx, sz, gx, gz, card, diag, eight, hmul,
                       model_.hkind, model_.hw, model_.hs)
    return open_tag, closed_tag, gx, gz, h0, (sx - gx) * (sx - gx) + (sz - gz) * (sz - gz)


@njit(inline="always")
def expansion_end(p, goal, expanded, budget):  # type: ignore[no-untyped-def]
    """Whether a search stops after expanding node ``p`` (its ``expanded``-th):
    ``FOUND`` at the goal, else ``BUDGET_EXHAUSTED`` once the budget is
    spent, else -1 (go on)."""
    if p == goal:
        return FOUND
    if expanded >= budget:
        return BUDGET_EXHAUSTED
    return -1


def _level_source(general: bool):  # type: ignore[no-untyped-def]
    """The level-queue A* (uniform step costs) for this flag, as a plain function.

    The same expansions in the same order as the heap's. ``general`` is a
    closure constant: numba folds it, so without ``general`` successors come
    from the static move masks (minus the move back to the parent) and the
    overlay and window tests are compiled out. Connectivity is the model's
    ``eight``, read at run time (one well-predicted branch per expansion; a
    closure constant compiled every kernel twice)."""

    def astar(grid, overlay, model, limits, ws, rings, start, goal, stats):  # type: ignore[no-untyped-def]
        grid_ = GridArgs(*grid)
        cells, wp, nbits = grid_.cells, grid_.wp, grid_.nbits
        overlay_ = OverlayArgs(*overlay)
        marks, mark = overlay_.marks, overlay_.mark
        model_ = ModelArgs(*model)
        card, diag, dmode, eight = model_.card, model_.diag, model_.dmode, model_.eight
        limits_ = LimitArgs(*limits)
        budget = limits_.budget
        wx0, wz0, wx1, wz1 = limits_.wx0, limits_.wz0, limits_.wx1, limits_.wz1
        ws_ = WorkspaceArgs(*ws)
        g, parent, tag, hk, gen = ws_.g, ws_.parent, ws_.tag, ws_.hk, ws_.gen
        rings_ = RingArgs(*rings)
        ht, moves = rings_.ht, rings_.moves
        use_marks = general and mark > 0
        win = general and wx0 >= 0
        mask = (np.int64(1) << nbits) - 1
        open_tag, closed_tag, gx, gz, h0, best_d2 = _open_start(g, parent, tag, gen, wp,
                                                                start, goal, model, eight)
        inv_wp = 1.0 / wp
        fc = h0
        for j in range(2 * NSTREAMS):
            ht[j] = 0
        for j in range(NSTREAMS):
            ht[HEAD_F + j] = _NO_F
        hk[0] = (h0 << nbits) | start  # the level heap: the start is the first node out
        size = 1

        expanded = 0
        generated = 1
        best = start
        status = UNREACHABLE

        while True:
            if size == 0:
                k, fc, size = _pop_level(wp, g, tag, hk, rings, open_tag, nbits)
                if k < 0:
                    break
            else:
                k = hk[0]
                size = kheap_pop(hk, size)
            p = k & mask
            up = np.uint64(p)
            gc = fc - (k >> nbits)
            tb = tag[up] & ~TAG_LOW  # the move back to the parent (closed)
            back = tb >> BACK_SHIFT
            tag[up] = closed_tag | tb
            expanded += 1
            # row and column without a division (tens of cycles): a float
            # reciprocal, corrected by one where rounding missed
            pz = np.int64(np.float64(p) * inv_wp)
            px = p - pz * wp
            if px < 0:
                pz -= 1
                px += wp
            elif px >= wp:
                pz += 1
                px -= wp
            best, best_d2 = closer(p, px, pz, gx, gz, best, best_d2)
            stop = expansion_end(p, goal, expanded, budget)
            if stop >= 0:
                status = stop
                break

            n = 0
            if not general:
                # static cells: the node's move mask, one bit per legal move,
                # without the move back to the parent (closed)
                m = moves[up] & ~back
                if m & 1:
                    n = _settle(g, tag, ht, n, open_tag, closed_tag, gc, p + 1, px + 1, pz, card, 2)
                if m & 2:
                    n = _settle(g, tag, ht, n, open_tag, closed_tag, gc, p - 1, px - 1, pz, card, 1)
                if m & 4:
                    n = _settle(g, tag, ht, n, open_tag, closed_tag, gc,
                                p + wp, px, pz + 1, card, 8)
                if m & 8:
                    n = _settle(g, tag, ht, n, open_tag, closed_tag, gc,
                                p - wp, px, pz - 1, card, 4)
                if m & 16:
                    n = _settle(g, tag, ht, n, open_tag, closed_tag, gc, p + wp + 1, px + 1, pz + 1,
                                diag, 128)
                if m & 32:
                    n = _settle(g, tag, ht, n, open_tag, closed_tag, gc, p + wp - 1, px - 1, pz + 1,
                                diag, 64)
                if m & 64:
                    n = _settle(g, tag, ht, n, open_tag, closed_tag, gc, p - wp + 1, px + 1, pz - 1,
                                diag, 32)
                if m & 128:
                    n = _settle(g, tag, ht, n, open_tag, closed_tag, gc, p - wp - 1, px - 1, pz - 1,
                                diag, 16)
            else:
                okE = _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,
                                p + 1, px + 1, pz)
                okW = _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,
                                p - 1, px - 1, pz)
                okS = _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,
                                p + wp, px, pz + 1)
                okN = _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,
                                p - wp, px, pz - 1)
                if okE:
                    n = _settle(g, tag, ht, n, open_tag, closed_tag, gc, p + 1, px + 1, pz, card, 2)
                if okW:
                    n = _settle(g, tag, ht, n, open_tag, closed_tag, gc, p - 1, px - 1, pz, card, 1)
                if okS:
                    n = _settle(g, tag, ht, n, open_tag, closed_tag, gc,
                                p + wp, px, pz + 1, card, 8)
                if okN:
                    n = _settle(g, tag, ht, n, open_tag, closed_tag, gc,
                                p - wp, px, pz - 1, card, 4)
                if eight:
                    if _diag_ok(okE, okS, dmode) and _passable(cells, marks, mark, use_marks, win,
                                                 wx0, wz0, wx1, wz1,
                                                 p + wp + 1, px + 1, pz + 1):
                        n = _settle(g, tag, ht, n, open_tag, closed_tag, gc, p + wp + 1, px + 1,
                                    pz + 1, diag, 128)
                    if _diag_ok(okW, okS, dmode) and _passable(cells, marks, mark, use_marks, win,
                                                 wx0, wz0, wx1, wz1,
                                                 p + wp - 1, px - 1, pz + 1):
                        n = _settle(g, tag, ht, n, open_tag, closed_tag, gc, p + wp - 1, px - 1,
                                    pz + 1, diag, 64)
                    if _diag_ok(okE, okN, dmode) and _passable(cells, marks, mark, use_marks, win,
                                                 wx0, wz0, wx1, wz1,
                                                 p - wp + 1, px + 1, pz - 1):
                        n = _settle(g, tag, ht, n, open_tag, closed_tag, gc, p - wp + 1, px + 1,
                                    pz - 1, diag, 32)
                    if _diag_ok(okW, okN, dmode) and _passable(cells, marks, mark, use_marks, win,
                                                 wx0, wz0, wx1, wz1,
                                                 p - wp - 1, px - 1, pz - 1):
                        n = _settle(g, tag, ht, n, open_tag, closed_tag, gc, p - wp - 1, px - 1,
                                    pz - 1, diag, 16)
            generated += n
            size, full = _enqueue(hk, rings, n, fc, gx, gz, model, eight, nbits, size)
            if full:
                status = RETRY
                break

        if status == UNREACHABLE and win:
            status = WINDOW_EXHAUSTED
        return _finish(stats, status, expanded, generated, best, g, goal)

    return astar


def _heap_source(weighted: bool, general: bool):  # type: ignore[no-untyped-def]
    """The A* on the indexed heap for these flags, as a plain function: with
    ``general`` False the overlay and the window are ignored and their tests
    compiled out; ``weighted`` reads terrain weights (closure constants, folded
    by numba). Connectivity is the model's ``eight``, read at run time."""

    def astar(grid, overlay, model, limits, ws, rings, start, goal, stats):  # type: ignore[no-untyped-def]
        grid_ = GridArgs(*grid)
        cells, weights, wp, nbits = grid_.cells, grid_.weights, grid_.wp, grid_.nbits
        overlay_ = OverlayArgs(*overlay)
        marks, mark = overlay_.marks, overlay_.mark
        model_ = ModelArgs(*model)
        card, diag, hmul = model_.card, model_.diag, model_.hmul
        dmode, hkind, hw, hs = model_.dmode, model_.hkind, model_.hw, model_.hs
        eight = model_.eight
        limits_ = LimitArgs(*limits)
        budget = limits_.budget
        wx0, wz0, wx1, wz1 = limits_.wx0, limits_.wz0, limits_.wx1, limits_.wz1
        ws_ = WorkspaceArgs(*ws)
        g, parent, tag, pos = ws_.g, ws_.parent, ws_.tag, ws_.pos
        hf, hk, gen = ws_.hf, ws_.hk, ws_.gen
        use_marks = general and mark > 0
        win = general and wx0 >= 0
        mask = (np.int64(1) << nbits) - 1
        open_tag, closed_tag, gx, gz, h0, best_d2 = _open_start(g, parent, tag, gen, wp,
                                                                start, goal, model, eight)
        size = 0
        lane = (h0 << nbits) | start  # the start is the first node out
        fc = h0

        expanded = 0
        generated = 1
        best = start
        status = UNREACHABLE

        while True:
            if lane >= 0:
                if size > 0 and hf[0] == fc and hk[0] < lane:
                    # lowered to f == fc in the last expansion: it beats the lane
                    # and is the root; the lane's entry beats the rest, so swap
                    k = hk[0]
                    hk[0] = lane
                    pos[lane & mask] = 0
                else:
                    k = lane
                lane = np.int64(-1)
            elif size > 0:
                fc = hf[0]
                k = hk[0]
                size = iheap_pop(hf, hk, pos, mask, size)
            else:
                break
            p = k & mask
            gc = fc - (k >> nbits)
            tag[p] = closed_tag
            expanded += 1
            pz = p // wp
            px = p - pz * wp
            best, best_d2 = closer(p, px, pz, gx, gz, best, best_d2)
            stop = expansion_end(p, goal, expanded, budget)
            if stop >= 0:
                status = stop
                break

            okE = _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,

                            p + 1, px + 1, pz)
            okW = _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,
                            p - 1, px - 1, pz)
            okS = _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,
                            p + wp, px, pz + 1)
            okN = _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,
                            p - wp, px, pz - 1)
            if okE:
                size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted,
                                       open_tag, closed_tag, p, gc, fc, p + 1, px + 1, pz, gx, gz,
                                       card, card, diag, eight, hmul, nbits, size, lane,
                                       hkind, hw, hs)
                generated += d
            if okW:
                size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted,
                                       open_tag, closed_tag, p, gc, fc, p - 1, px - 1, pz, gx, gz,
                                       card, card, diag, eight, hmul, nbits, size, lane,
                                       hkind, hw, hs)
                generated += d
            if okS:
                size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted,
                                       open_tag, closed_tag, p, gc, fc, p + wp, px, pz + 1, gx, gz,
                                       card, card, diag, eight, hmul, nbits, size, lane,
                                       hkind, hw, hs)
                generated += d
            if okN:
                size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted,
                                       open_tag, closed_tag, p, gc, fc, p - wp, px, pz - 1, gx, gz,
                                       card, card, diag, eight, hmul, nbits, size, lane,
                                       hkind, hw, hs)
                generated += d
            if eight:
                if _diag_ok(okE, okS, dmode) and _passable(cells, marks, mark, use_marks, win,
                                                        wx0, wz0, wx1, wz1,
                                                        p + wp + 1, px + 1, pz + 1):
                    size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag,
                                           closed_tag, p, gc, fc, p + wp + 1, px + 1, pz + 1,
                                           gx, gz, diag, card, diag, eight, hmul, nbits, size, lane,
                                           hkind, hw, hs)
                    generated += d
                if _diag_ok(okW, okS, dmode) and _passable(cells, marks, mark, use_marks, win,
                                                        wx0, wz0, wx1, wz1,
                                                        p + wp - 1, px - 1, pz + 1):
                    size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag,
                                           closed_tag, p, gc, fc, p + wp - 1, px - 1, pz + 1,
                                           gx, gz, diag, card, diag, eight, hmul, nbits, size, lane,
                                           hkind, hw, hs)
                    generated += d
                if _diag_ok(okE, okN, dmode) and _passable(cells, marks, mark, use_marks, win,
                                                        wx0, wz0, wx1, wz1,
                                                        p - wp + 1, px + 1, pz - 1):
                    size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag,
                                           closed_tag, p, gc, fc, p - wp + 1, px + 1, pz - 1,
                                           gx, gz, diag, card, diag, eight, hmul, nbits, size, lane,
                                           hkind, hw, hs)
                    generated += d
                if _diag_ok(okW, okN, dmode) and _passable(cells, marks, mark, use_marks, win,
                                                        wx0, wz0, wx1, wz1,
                                                        p - wp - 1, px - 1, pz - 1):
                    size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag,
                                           closed_tag, p, gc, fc, p - wp - 1, px - 1, pz - 1,
                                           gx, gz, diag, card, diag, eight, hmul, nbits, size, lane,
                                           hkind, hw, hs)
                    generated += d

        if status == UNREACHABLE and win:
            status = WINDOW_EXHAUSTED
        return _finish(stats, status, expanded, generated, best, g, goal)

    return astar


def _make_astar(weighted: bool, general: bool, level: bool):  # type: ignore[no-untyped-def]
    """Build the single-query A* kernel specialised for these features.

    The flags are closure constants, which numba folds into the search
    (:func:`_level_source`, :func:`_heap_source`): the uniform-cost kernel
    carries no weight loads (a
    runtime weight test costs up to half the speed), only the ``general``
    variants test the overlay and the window (about 10%), and ``level``
    picks the queue. Connectivity is not a variant: both read the model's
    ``eight`` at run time (as fast, and half the kernels to compile). Each
    variant gets its own ``__qualname__``: numba names
    compiled symbols and cache files after it, and variants sharing a name
    could be linked in place of one another when loaded from the disk cache.
    Closure values are plain bools, so the cache key is the same in every
    process.

    Compiled without numba's reference counting (``_nrt=False``): the kernel
    allocates nothing, and the counting of the arrays passed to the inlined
    helpers, which numba does not always prune from a loop this large, cost
    up to half the speed.
    """

    astar = _level_source(general) if level else _heap_source(weighted, general)
    astar.__name__ = astar.__qualname__ = "astar_" + variant_name(weighted, general, level)
    return njit(astar, _nrt=False)


def _make_astar_seq(weighted: bool, general: bool, level: bool):  # type: ignore[no-untyped-def]
    """Build the multi-query kernel: ``starts[i] -> goals[i]`` one after another.

    ``ws``'s generation is the first query's; query ``i`` uses ``gen + i``
    (the caller reserves them). Rows of ``out_stats`` whose start or goal is
    blocked get status ``NO_START`` / ``NO_GOAL``; a query that overflowed
    the level queue gets ``RETRY`` (the caller repeats it). ``stats`` is
    scratch (``STATS_SIZE`` int64). Runs without the GIL, so a thread pool
    spreads a batch over cores (see :mod:`navkit.query.batch`); allocates
    nothing, so it is compiled without reference counting, like the single
    kernel.
    """

    single = _variant("single", weighted, general, False, level)

    def astar_seq(grid, overlay, model, limits, ws, rings, starts, goals, out_stats, stats):  # type: ignore[no-untyped-def]
        cells = GridArgs(*grid).cells
        overlay_ = OverlayArgs(*overlay)
        marks, mark = overlay_.marks, overlay_.mark
        ws_ = WorkspaceArgs(*ws)
        g, parent, tag = ws_.g, ws_.parent, ws_.tag
        pos, hf, hk, gen = ws_.pos, ws_.hf, ws_.hk, ws_.gen
        for i in range(starts.shape[0]):
            s = starts[i]
            gl = goals[i]
            s_blocked = cells[s] == 0 or (general and mark > 0 and marks[s] == mark)
            g_blocked = cells[gl] == 0 or (general and mark > 0 and marks[gl] == mark)
            if s_blocked or g_blocked:
                out_stats[i, ST_STATUS] = NO_START if s_blocked else NO_GOAL
                out_stats[i, ST_COST] = -1
                continue
            # a WorkspaceArgs, as the Python side builds it: the single kernel's
            # compiled code serves (a call per query, no second copy of the search)
            wsi = (g, parent, tag, pos, hf, hk, gen + i)
            single(grid, overlay, model, limits, wsi, rings, s, gl, stats)
            for k in range(STATS_SIZE):
                out_stats[i, k] = stats[k]
        return starts.shape[0]

    astar_seq.__name__ = astar_seq.__qualname__ = (
        "astar_seq_" + variant_name(weighted, general, level))
    return njit(astar_seq, _nrt=False)


def variant_name(weighted: bool, general: bool, level: bool = False) -> str:
    """A short unique name for a kernel variant, e.g. ``"uniform_level"``.

    >>> variant_name(True, True)
    'weighted_general'
    """
    parts = ["weighted" if weighted else "uniform"]
    if general:
        parts.append("general")
    if level:
        parts.append("level")
    return "_".join(parts)


@njit(_nrt=False)
def trace(parent, tag, wp, start, end, out):  # type: ignore[no-untyped-def]
    """Write the node chain ``start .. end`` into ``out``; returns its length.

    ``end`` is a node the last search (heap or level queue) closed; ``wp``
    the padded row length. ``out`` must hold at least as many entries as
    nodes were expanded + 1.
    """
    n = 0
    p = end
    while True:
        out[n] = p
        n += 1
        if p == start:
            break
        p = _parent_of(parent, tag, wp, p)
    i = 0
    j = n - 1
    while i < j:
        t = out[i]
        out[i] = out[j]
        out[j] = t
        i += 1
        j -= 1
    return n


@njit
def distance_field(grid, overlay, model, ws, sources, dist):  # type: ignore[no-untyped-def]
    """Dijkstra from every node in ``sources`` (padded indices, cost 0).

    Writes each padded node's integer cost into ``dist`` (-1 where unreachable)
    and returns the number of nodes settled. ``model``'s ``hmul`` is ignored.
    The queue is A*'s indexed heap (one entry per node, lowered in place),
    keyed by ``(cost, node)``.
    """
    grid_ = GridArgs(*grid)
    cells, weights, wp = grid_.cells, grid_.weights, grid_.wp
    weighted, nbits = grid_.weighted, grid_.nbits
    overlay_ = OverlayArgs(*overlay)
    marks, mark = overlay_.marks, overlay_.mark
    model_ = ModelArgs(*model)
    card, diag, eight, dmode = model_.card, model_.diag, model_.eight, model_.dmode
    ws_ = WorkspaceArgs(*ws)
    g, parent, tag, pos, hf, hk, gen = ws_.g, ws_.parent, ws_.tag, ws_.pos, ws_.hf, ws_.hk, ws_.gen
    use_marks = mark > 0
    open_tag = np.int32(2 * gen)
    closed_tag = np.int32(2 * gen + 1)
    mask = (np.int64(1) << nbits) - 1
    for i in range(dist.shape[0]):
        dist[i] = -1

    size = 0
    for s in sources:
        if tag[s] != open_tag and cells[s] != 0 and not (use_marks and marks[s] == mark):
            g[s] = 0
            parent[s] = s
            tag[s] = open_tag
            iheap_sift_up(hf, hk, pos, mask, size, np.int64(0), np.int64(s))
            size += 1
    settled = 0
    while size > 0:
        gc = hf[0]
        p = hk[0]
        size = iheap_pop(hf, hk, pos, mask, size)
        tag[p] = closed_tag
        dist[p] = gc
        settled += 1
        okE = _passable(cells, marks, mark, use_marks, False, 0, 0, 0, 0, p + 1, 0, 0)
        okW = _passable(cells, marks, mark, use_marks, False, 0, 0, 0, 0, p - 1, 0, 0)
        okS = _passable(cells, marks, mark, use_marks, False, 0, 0, 0, 0, p + wp, 0, 0)
        okN = _passable(cells, marks, mark, use_marks, False, 0, 0, 0, 0, p - wp, 0, 0)
        for k in range(8 if eight else 4):
            if k == 0:
                q, ok, step = p + 1, okE, card
            elif k == 1:
                q, ok, step = p - 1, okW, card
            elif k == 2:
                q, ok, step = p + wp, okS, card
            elif k == 3:
                q, ok, step = p - wp, okN, card
            elif k == 4:
                q, ok, step = p + wp + 1, _diag_ok(okE, okS, dmode), diag
            elif k == 5:
                q, ok, step = p + wp - 1, _diag_ok(okW, okS, dmode), diag
            elif k == 6:
                q, ok, step = p - wp + 1, _diag_ok(okE, okN, dmode), diag
            else:
                q, ok, step = p - wp - 1, _diag_ok(okW, okN, dmode), diag
            if ok and k >= 4:
                ok = _passable(cells, marks, mark, use_marks, False, 0, 0, 0, 0, q, 0, 0)
            if not ok:
                continue
            tq = tag[q]
            if tq == closed_tag:
                continue
            if weighted:
                step = step * weights[q]
            ng = gc + step
            if tq == open_tag:
                if ng >= g[q]:
                    continue
                i = pos[q]  # lower its entry in place
            else:
                i = size  # a new entry
                size += 1
            g[q] = ng
            parent[q] = p
            tag[q] = open_tag
            iheap_sift_up(hf, hk, pos, mask, i, ng, np.int64(q))
    return settled


_KERNELS: dict[tuple[str, bool, bool, bool], object] = {}


def _variant(kind: str, weighted: bool, use_marks: bool, window: bool,  # type: ignore[no-untyped-def]
             level: bool | None):
    if level is None:
        level = not weighted
    if level and weighted:
        raise ValueError("the level queue needs uniform step costs")
    key = (kind, bool(weighted), bool(use_marks or window), bool(level))
    kernel = _KERNELS.get(key)
    if kernel is None:
        make = _make_astar if kind == "single" else _make_astar_seq
        kernel = _KERNELS[key] = make(*key[1:])
    return kernel


def astar_kernel(weighted: bool, use_marks: bool, window: bool,  # type: ignore[no-untyped-def]
                 level: bool | None = None):
    """The A* kernel for this feature set (built on first use, cached on disk by numba).

    Signature: ``astar(grid, overlay, model, limits, ws, rings, start, goal, stats) -> status``;
    fills ``stats`` (see ``ST_*``) and leaves the parent chain of
    ``stats[ST_END]`` (the goal when found, otherwise the expanded node
    closest to the goal by squared grid distance, ties to the lower index)
    in ``ws`` for :func:`trace`. ``level`` (default: without terrain
    weights) picks the level queue, which needs ``rings`` and may answer
    ``RETRY``; the heap ignores ``rings``. Overlay and window share one
    compiled variant, and so do both connectivities (``model``'s ``eight``).
    """
    return _variant("single", weighted, use_marks, window, level)


def astar_seq_kernel(weighted: bool, use_marks: bool, window: bool,  # type: ignore[no-untyped-def]
                     level: bool | None = None):
    """The multi-query kernel for this feature set; see :func:`_make_astar_seq`."""
    return _variant("seq", weighted, use_marks, window, level)


def stream_offsets(card: int, diag: int, eight: bool, hmul: int) -> NDArray[np.int64]:
    """The level queue's ``f`` steps for this model, padded with -1 to ``NSTREAMS``.

    Every step from a node at ``f`` to a successor raises ``f`` by 0 or one
    of these (found by trying every move from every position near the goal,
    which covers each piece of the octile heuristic).

    >>> stream_offsets(10, 14, True, 1).tolist()
    [6, 8, 14, 20, 28]
    >>> stream_offsets(10, 14, False, 1).tolist()
    [20, -1, -1, -1, -1]
    """
    def h(x: int, z: int) -> int:
        dx, dz = abs(x), abs(z)
        if not eight:
            return card * (dx + dz) * hmul
        return (card * max(dx, dz) + (diag - card) * min(dx, dz)) * hmul

    moves = [(1, 0, card), (-1, 0, card), (0, 1, card), (0, -1, card)]
    if eight:
        moves += [(1, 1, diag), (-1, 1, diag), (1, -1, diag), (-1, -1, diag)]
    steps = set()
    for x in range(-3, 4):
        for z in range(-3, 4):
            for mx, mz, c in moves:
                df = c + h(x + mx, z + mz) - h(x, z)
                if df < 0:
                    raise ValueError(f"inconsistent heuristic for costs ({card}, {diag})")
                if df > 0:
                    steps.add(df)
    if len(steps) > NSTREAMS:
        raise ValueError(f"{len(steps)} f steps for costs ({card}, {diag}); "
                         f"the level queue holds {NSTREAMS}")
    out = np.full(NSTREAMS, -1, dtype=np.int64)
    out[: len(steps)] = sorted(steps)
    return out
