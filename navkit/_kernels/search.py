"""Grid A*, Dijkstra and distance fields on integer costs.

Arguments are grouped in tuples so signatures stay short:

``grid = (cells, weights, wp, weighted)``
    ``cells``: uint8, padded, nonzero = passable. ``weights``: int32, padded
    (length 1 when ``weighted`` is False). ``wp``: padded row length.
``overlay = (marks, mark)``
    Cells with ``marks[i] == mark`` are blocked for this query (dynamic
    obstacles stamped by the caller). ``mark <= 0`` disables the overlay.
``model = (card, diag, eight, hmul)``
    Step costs, 8-connectivity flag, heuristic multiplier (the smallest terrain
    weight for A*, 0 for Dijkstra).
``limits = (budget, wx0, wz0, wx1, wz1)``
    Expansion budget and an inclusive window in padded coordinates
    (``wx0 < 0``: no window).
``ws = (g, parent, tag, hf, hg, hn, gen)``
    Workspace: ``tag[i] == 2*gen`` means open, ``2*gen + 1`` closed, anything
    smaller unseen. Heap arrays need capacity ``len(cells) + 8``.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit
from .heap import heap_pop_into, heap_push, heapify

FOUND = 0
UNREACHABLE = 1
BUDGET_EXHAUSTED = 2
WINDOW_EXHAUSTED = 3

# stats layout written by astar()
ST_STATUS = 0
ST_EXPANDED = 1
ST_GENERATED = 2
ST_END = 3
ST_BEST = 4
ST_COST = 5
ST_BEST_COST = 6
STATS_SIZE = 8


@njit(inline="always")
def _octile(dx, dz, card, diag):  # type: ignore[no-untyped-def]
    if dx < 0:
        dx = -dx
    if dz < 0:
        dz = -dz
    if dx < dz:
        return card * dz + (diag - card) * dx
    return card * dx + (diag - card) * dz


@njit(inline="always")
def _manhattan(dx, dz, card):  # type: ignore[no-untyped-def]
    if dx < 0:
        dx = -dx
    if dz < 0:
        dz = -dz
    return card * (dx + dz)


@njit(inline="always")
def _open_ok(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1, q, qx, qz):  # type: ignore[no-untyped-def]
    if cells[q] == 0:
        return False
    if use_marks and marks[q] == mark:
        return False
    if win and (qx < wx0 or qx > wx1 or qz < wz0 or qz > wz1):
        return False
    return True


@njit
def _compact(hf, hg, hn, size, tag, g, open_tag):  # type: ignore[no-untyped-def]
    """Drop stale heap entries (closed nodes, superseded costs); returns the new size."""
    k = 0
    for i in range(size):
        n = hn[i]
        if tag[n] == open_tag and hg[i] == g[n]:
            hf[k] = hf[i]
            hg[k] = hg[i]
            hn[k] = n
            k += 1
    heapify(hf, hg, hn, k)
    return k


@njit
def astar(grid, overlay, model, limits, ws, start, goal, stats):  # type: ignore[no-untyped-def]
    """A* from padded node ``start`` to ``goal``; fills ``stats`` and returns the status.

    The parent chain of the end node (``stats[ST_END]``: the goal when found,
    otherwise the visited node closest to the goal by squared grid distance,
    ties to the lower index) is left in ``ws`` for :func:`trace`.
    """
    cells, weights, wp, weighted = grid
    marks, mark = overlay
    card, diag, eight, hmul = model
    budget, wx0, wz0, wx1, wz1 = limits
    g, parent, tag, hf, hg, hn, gen = ws
    use_marks = mark > 0
    win = wx0 >= 0
    open_tag = np.int32(2 * gen)
    closed_tag = np.int32(2 * gen + 1)
    cap = hf.shape[0]

    gx = goal % wp
    gz = goal // wp
    sx = start % wp
    sz = start // wp

    g[start] = 0
    parent[start] = start
    tag[start] = open_tag
    if eight:
        h0 = _octile(sx - gx, sz - gz, card, diag) * hmul
    else:
        h0 = _manhattan(sx - gx, sz - gz, card) * hmul
    size = heap_push(hf, hg, hn, 0, h0, np.int64(0), np.int32(start))

    expanded = 0
    generated = 1
    best = start
    best_d2 = (sx - gx) * (sx - gx) + (sz - gz) * (sz - gz)
    status = UNREACHABLE

    while size > 0:
        gc = hg[0]
        p = hn[0]
        size = heap_pop_into(hf, hg, hn, size)
        if tag[p] != open_tag or gc != g[p]:
            continue  # stale entry
        tag[p] = closed_tag
        expanded += 1
        px = p % wp
        pz = p // wp
        d2 = (px - gx) * (px - gx) + (pz - gz) * (pz - gz)
        if d2 < best_d2 or (d2 == best_d2 and p < best):
            best_d2 = d2
            best = p
        if p == goal:
            status = FOUND
            break
        if expanded >= budget:
            status = BUDGET_EXHAUSTED
            break
        if size + 8 > cap:
            size = _compact(hf, hg, hn, size, tag, g, open_tag)

        # cardinal neighbours: +x, -x, +z, -z
        okE = _open_ok(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1, p + 1, px + 1, pz)
        okW = _open_ok(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1, p - 1, px - 1, pz)
        okS = _open_ok(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1, p + wp, px, pz + 1)
        okN = _open_ok(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1, p - wp, px, pz - 1)
        for k in range(8):
            if k == 0:
                ok = okE
                dx = 1
                dz = 0
            elif k == 1:
                ok = okW
                dx = -1
                dz = 0
            elif k == 2:
                ok = okS
                dx = 0
                dz = 1
            elif k == 3:
                ok = okN
                dx = 0
                dz = -1
            else:
                if not eight:
                    break
                if k == 4:
                    dx = 1
                    dz = 1
                    ok = okE and okS
                elif k == 5:
                    dx = -1
                    dz = 1
                    ok = okW and okS
                elif k == 6:
                    dx = 1
                    dz = -1
                    ok = okE and okN
                else:
                    dx = -1
                    dz = -1
                    ok = okW and okN
                if ok:
                    ok = _open_ok(cells, marks, mark, use_marks, win, wx0, wz0, wx1, wz1,
                                  p + dz * wp + dx, px + dx, pz + dz)
            if not ok:
                continue
            q = p + dz * wp + dx
            tq = tag[q]
            if tq == closed_tag:
                continue
            step = card if k < 4 else diag
            if weighted:
                step = step * weights[q]
            ng = gc + step
            if tq == open_tag and ng >= g[q]:
                continue
            g[q] = ng
            parent[q] = p
            tag[q] = open_tag
            qx = px + dx
            qz = pz + dz
            if eight:
                h = _octile(qx - gx, qz - gz, card, diag) * hmul
            else:
                h = _manhattan(qx - gx, qz - gz, card) * hmul
            size = heap_push(hf, hg, hn, size, ng + h, ng, np.int32(q))
            generated += 1

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
    # reverse in place
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
    """
    cells, weights, wp, weighted = grid
    marks, mark = overlay
    card, diag, eight, _hmul = model
    g, parent, tag, hf, hg, hn, gen = ws
    use_marks = mark > 0
    open_tag = np.int32(2 * gen)
    closed_tag = np.int32(2 * gen + 1)
    cap = hf.shape[0]
    for i in range(dist.shape[0]):
        dist[i] = -1

    size = 0
    for s in sources:
        if tag[s] != open_tag and cells[s] != 0 and not (use_marks and marks[s] == mark):
            g[s] = 0
            parent[s] = s
            tag[s] = open_tag
            size = heap_push(hf, hg, hn, size, np.int64(0), np.int64(0), np.int32(s))
    settled = 0
    while size > 0:
        gc = hg[0]
        p = hn[0]
        size = heap_pop_into(hf, hg, hn, size)
        if tag[p] != open_tag or gc != g[p]:
            continue
        tag[p] = closed_tag
        dist[p] = gc
        settled += 1
        if size + 8 > cap:
            size = _compact(hf, hg, hn, size, tag, g, open_tag)
        okE = _open_ok(cells, marks, mark, use_marks, False, 0, 0, 0, 0, p + 1, 0, 0)
        okW = _open_ok(cells, marks, mark, use_marks, False, 0, 0, 0, 0, p - 1, 0, 0)
        okS = _open_ok(cells, marks, mark, use_marks, False, 0, 0, 0, 0, p + wp, 0, 0)
        okN = _open_ok(cells, marks, mark, use_marks, False, 0, 0, 0, 0, p - wp, 0, 0)
        nk = 8 if eight else 4
        for k in range(nk):
            if k == 0:
                q = p + 1
                ok = okE
            elif k == 1:
                q = p - 1
                ok = okW
            elif k == 2:
                q = p + wp
                ok = okS
            elif k == 3:
                q = p - wp
                ok = okN
            elif k == 4:
                q = p + wp + 1
                ok = okE and okS
            elif k == 5:
                q = p + wp - 1
                ok = okW and okS
            elif k == 6:
                q = p - wp + 1
                ok = okE and okN
            else:
                q = p - wp - 1
                ok = okW and okN
            if ok and k >= 4:
                ok = _open_ok(cells, marks, mark, use_marks, False, 0, 0, 0, 0, q, 0, 0)
            if not ok:
                continue
            tq = tag[q]
            if tq == closed_tag:
                continue
            step = card if k < 4 else diag
            if weighted:
                step = step * weights[q]
            ng = gc + step
            if tq == open_tag and ng >= g[q]:
                continue
            g[q] = ng
            parent[q] = p
            tag[q] = open_tag
            size = heap_push(hf, hg, hn, size, ng, ng, np.int32(q))
    return settled
