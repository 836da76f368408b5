"""Grid A*, Dijkstra and distance fields on integer costs.

Arguments are grouped in tuples so signatures stay short:

``grid = (cells, weights, wp, weighted, nbits)``
    ``cells``: uint8, padded, nonzero = passable. ``weights``: int32, padded
    (length 1 when ``weighted`` is False). ``wp``: padded row length.
    ``nbits``: bits needed for a padded node index (heap keys pack
    ``(h << nbits) | node``; the caller checks that ``h_max << nbits`` fits).
``overlay = (marks, mark)``
    Cells with ``marks[i] == mark`` are blocked for this query (dynamic
    obstacles stamped by the caller). ``mark <= 0`` disables the overlay.
``model = (card, diag, eight, hmul)``
    Step costs, 8-connectivity flag, heuristic multiplier (the smallest terrain
    weight for A*, 0 for Dijkstra).
``limits = (budget, wx0, wz0, wx1, wz1)``
    Expansion budget and an inclusive window in padded coordinates
    (``wx0 < 0``: no window).
``ws = (g, parent, tag, pos, hf, hk, gen)``
    Workspace: ``tag[i] == 2*gen`` means open, ``2*gen + 1`` closed, anything
    smaller unseen. ``pos`` (int32) is an open node's heap slot: A* keeps one
    entry per node and lowers it in place (decrease-key), so the heap arrays
    ``hf``/``hk`` need capacity ``len(cells)``; so does :func:`distance_field`.

Queue order: smallest ``f``, then largest ``g`` (smallest ``h``), then lowest
node index; see :mod:`navkit._kernels.heap`. A successor whose ``f`` equals
its parent's (the heuristic fell by the step cost) has a smaller ``h`` than
every other entry at that ``f``, so the best such successor is the very next
node in that order: it skips the heap (the *fast lane*), unless an entry
lowered during the same expansion beats it, which then sits at the heap's
root and swaps with it. The expansion order is exactly the heap's.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit
from .geometry import closer
from .heap import heapify, iheap_pop, iheap_sift_up

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

#: Generation counters (workspace tags, overlay marks) wrap before this: tags are int32 ``2 * gen + 1``.
GEN_LIMIT = (1 << 30) - 2


@njit(inline="always")
def _heuristic(qx, qz, gx, gz, card, diag, eight, hmul):  # type: ignore[no-untyped-def]
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
def _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1, q, qx, qz):  # type: ignore[no-untyped-def]
    if cells[q] == 0:
        return False
    if use_marks and marks[q] == mark:
        return False
    if win and (qx < wx0 or qx > wx1 or qz < wz0 or qz > wz1):
        return False
    return True


@njit(inline="always")
def _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag, closed_tag,  # type: ignore[no-untyped-def]
           p, gc, fc, q, qx, qz, gx, gz, step, card, diag, eight, hmul, nbits, size, lane):
    """A*'s relaxation of node ``q`` at cost ``gc + step`` (times its weight):
    a new node enters the heap or the fast lane (``lane``: the key of the
    best successor at ``f == fc`` so far, -1 for none), a cheaper path lowers
    its heap entry in place. Returns ``(size, lane, 1 if q got a new g)``."""
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
    h = _heuristic(qx, qz, gx, gz, card, diag, eight, hmul)
    mask = (np.int64(1) << nbits) - 1
    k = (h << nbits) | q
    f = ng + h
    if was_open:
        iheap_sift_up(hf, hk, pos, mask, pos[q], f, k)
        return size, lane, 1
    if f == fc:
        if lane < 0:
            return size, k, 1
        if k < lane:
            iheap_sift_up(hf, hk, pos, mask, size, f, lane)
            return size + 1, k, 1
        iheap_sift_up(hf, hk, pos, mask, size, f, k)
        return size + 1, lane, 1
    iheap_sift_up(hf, hk, pos, mask, size, f, k)
    return size + 1, lane, 1


@njit
def _compact(hf, hk, size, tag, g, open_tag, nbits):  # type: ignore[no-untyped-def]
    """Drop stale heap entries (closed nodes, superseded costs); returns the new size."""
    mask = (np.int64(1) << nbits) - 1
    k = 0
    for i in range(size):
        n = hk[i] & mask
        if tag[n] == open_tag and hf[i] - (hk[i] >> nbits) == g[n]:
            hf[k] = hf[i]
            hk[k] = hk[i]
            k += 1
    heapify(hf, hk, k)
    return k


@njit(inline="always")
def astar_body(grid, overlay, model, limits, ws, start, goal, stats,  # type: ignore[no-untyped-def]
               weighted, general, eight):
    """The A* search. The three flags must be compile-time constants at the
    call site (see :func:`astar_kernel`): with ``general`` False the overlay
    and the window are ignored and their tests compiled out."""
    cells, weights, wp, _weighted, nbits = grid
    marks, mark = overlay
    card, diag, _eight, hmul = model
    budget, wx0, wz0, wx1, wz1 = limits
    g, parent, tag, pos, hf, hk, gen = ws
    use_marks = general and mark > 0
    win = general and wx0 >= 0
    open_tag = np.int32(2 * gen)
    closed_tag = np.int32(2 * gen + 1)
    mask = (np.int64(1) << nbits) - 1

    gx = goal % wp
    gz = goal // wp
    sx = start % wp
    sz = start // wp
    g[start] = 0
    parent[start] = start
    tag[start] = open_tag
    h0 = _heuristic(sx, sz, gx, gz, card, diag, eight, hmul)
    size = 0
    lane = (h0 << nbits) | start  # the start is the first node out
    fc = h0

    expanded = 0
    generated = 1
    best = start
    best_d2 = (sx - gx) * (sx - gx) + (sz - gz) * (sz - gz)
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
        if p == goal:
            status = FOUND
            break
        if expanded >= budget:
            status = BUDGET_EXHAUSTED
            break

        okE = _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1, p + 1, px + 1, pz)
        okW = _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1, p - 1, px - 1, pz)
        okS = _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1, p + wp, px, pz + 1)
        okN = _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1, p - wp, px, pz - 1)
        if okE:
            size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag, closed_tag,
                                   p, gc, fc, p + 1, px + 1, pz, gx, gz, card, card, diag, eight, hmul, nbits,
                                   size, lane)
            generated += d
        if okW:
            size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag, closed_tag,
                                   p, gc, fc, p - 1, px - 1, pz, gx, gz, card, card, diag, eight, hmul, nbits,
                                   size, lane)
            generated += d
        if okS:
            size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag, closed_tag,
                                   p, gc, fc, p + wp, px, pz + 1, gx, gz, card, card, diag, eight, hmul, nbits,
                                   size, lane)
            generated += d
        if okN:
            size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag, closed_tag,
                                   p, gc, fc, p - wp, px, pz - 1, gx, gz, card, card, diag, eight, hmul, nbits,
                                   size, lane)
            generated += d
        if eight:
            if okE and okS and _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,
                                         p + wp + 1, px + 1, pz + 1):
                size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag, closed_tag,
                                       p, gc, fc, p + wp + 1, px + 1, pz + 1, gx, gz, diag, card, diag, eight,
                                       hmul, nbits, size, lane)
                generated += d
            if okW and okS and _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,
                                         p + wp - 1, px - 1, pz + 1):
                size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag, closed_tag,
                                       p, gc, fc, p + wp - 1, px - 1, pz + 1, gx, gz, diag, card, diag, eight,
                                       hmul, nbits, size, lane)
                generated += d
            if okE and okN and _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,
                                         p - wp + 1, px + 1, pz - 1):
                size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag, closed_tag,
                                       p, gc, fc, p - wp + 1, px + 1, pz - 1, gx, gz, diag, card, diag, eight,
                                       hmul, nbits, size, lane)
                generated += d
            if okW and okN and _passable(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,
                                         p - wp - 1, px - 1, pz - 1):
                size, lane, d = _offer(g, parent, tag, pos, hf, hk, weights, weighted, open_tag, closed_tag,
                                       p, gc, fc, p - wp - 1, px - 1, pz - 1, gx, gz, diag, card, diag, eight,
                                       hmul, nbits, size, lane)
                generated += d

    if status == UNREACHABLE and win:
        status = WINDOW_EXHAUSTED
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



def _make_astar(weighted: bool, general: bool, eight: bool):  # type: ignore[no-untyped-def]
    """Build the single-query A* kernel specialised for these features.

    The flags are closure constants, which numba folds into the inlined
    :func:`astar_body`: the uniform-cost kernel carries no weight loads (a
    runtime weight test costs up to half the speed), and only the
    ``general`` variants test the overlay and the window (about 10%). Each
    variant gets its own ``__qualname__``: numba names compiled symbols and
    cache files after it, and variants sharing a name could be linked in
    place of one another when loaded from the disk cache. Closure values are
    plain bools, so the cache key is the same in every process.

    Compiled without numba's reference counting (``_nrt=False``): the kernel
    allocates nothing, and the counting of the arrays passed to the inlined
    helpers, which numba does not always prune from a loop this large, cost
    up to half the speed.
    """

    def astar(grid, overlay, model, limits, ws, start, goal, stats):  # type: ignore[no-untyped-def]
        return astar_body(grid, overlay, model, limits, ws, start, goal, stats, weighted, general, eight)

    astar.__name__ = astar.__qualname__ = "astar_" + variant_name(weighted, general, eight)
    return njit(astar, _nrt=False)


def _make_astar_seq(weighted: bool, general: bool, eight: bool):  # type: ignore[no-untyped-def]
    """Build the multi-query kernel: ``starts[i] -> goals[i]`` one after another.

    ``ws``'s generation is the first query's; query ``i`` uses ``gen + i``
    (the caller reserves them). Rows of ``out_stats`` whose start or goal is
    blocked get status ``NO_START`` / ``NO_GOAL``. ``stats`` is scratch
    (``STATS_SIZE`` int64). Runs without the GIL, so a thread pool spreads a
    batch over cores (see :mod:`navkit._kernels.batch`); allocates nothing,
    so it is compiled without reference counting, like the single kernel.
    """

    def astar_seq(grid, overlay, model, limits, ws, starts, goals, out_stats, stats):  # type: ignore[no-untyped-def]
        cells = grid[0]
        marks, mark = overlay
        g, parent, tag, pos, hf, hk, gen = ws
        for i in range(starts.shape[0]):
            s = starts[i]
            gl = goals[i]
            s_blocked = cells[s] == 0 or (general and mark > 0 and marks[s] == mark)
            g_blocked = cells[gl] == 0 or (general and mark > 0 and marks[gl] == mark)
            if s_blocked or g_blocked:
                out_stats[i, ST_STATUS] = NO_START if s_blocked else NO_GOAL
                out_stats[i, ST_COST] = -1
                continue
            astar_body(grid, overlay, model, limits, (g, parent, tag, pos, hf, hk, gen + i), s, gl, stats,
                       weighted, general, eight)
            for k in range(STATS_SIZE):
                out_stats[i, k] = stats[k]
        return starts.shape[0]

    astar_seq.__name__ = astar_seq.__qualname__ = "astar_seq_" + variant_name(weighted, general, eight)
    return njit(astar_seq, _nrt=False)


def variant_name(weighted: bool, general: bool, eight: bool) -> str:
    """A short unique name for a kernel variant, e.g. ``"uniform_8"``."""
    parts = ["weighted" if weighted else "uniform"]
    if general:
        parts.append("general")
    parts.append("8" if eight else "4")
    return "_".join(parts)


@njit
def trace(parent, start, end, out):  # type: ignore[no-untyped-def]
    """Write the node chain ``start .. end`` into ``out``; returns its length.

    ``out`` must hold at least as many entries as nodes were expanded + 1.
    """
    n = 0
    p = end
    while True:
        out[n] = p
        n += 1
        if p == start:
            break
        p = parent[p]
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
    cells, weights, wp, weighted, nbits = grid
    marks, mark = overlay
    card, diag, eight, _hmul = model
    g, parent, tag, pos, hf, hk, gen = ws
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
                q, ok, step = p + wp + 1, okE and okS, diag
            elif k == 5:
                q, ok, step = p + wp - 1, okW and okS, diag
            elif k == 6:
                q, ok, step = p - wp + 1, okE and okN, diag
            else:
                q, ok, step = p - wp - 1, okW and okN, diag
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


def _variant(kind: str, weighted: bool, use_marks: bool, window: bool, eight: bool):  # type: ignore[no-untyped-def]
    key = (kind, bool(weighted), bool(use_marks or window), bool(eight))
    kernel = _KERNELS.get(key)
    if kernel is None:
        make = _make_astar if kind == "single" else _make_astar_seq
        kernel = _KERNELS[key] = make(*key[1:])
    return kernel


def astar_kernel(weighted: bool, use_marks: bool, window: bool, eight: bool):  # type: ignore[no-untyped-def]
    """The A* kernel for this feature set (built on first use, cached on disk by numba).

    Signature: ``astar(grid, overlay, model, limits, ws, start, goal, stats) -> status``;
    fills ``stats`` (see ``ST_*``) and leaves the parent chain of
    ``stats[ST_END]`` (the goal when found, otherwise the expanded node
    closest to the goal by squared grid distance, ties to the lower index)
    in ``ws`` for :func:`trace`. Overlay and window share one compiled
    variant, so there are at most eight.
    """
    return _variant("single", weighted, use_marks, window, eight)


def astar_seq_kernel(weighted: bool, use_marks: bool, window: bool, eight: bool):  # type: ignore[no-untyped-def]
    """The multi-query kernel for this feature set; see :func:`_make_astar_seq`."""
    return _variant("seq", weighted, use_marks, window, eight)
