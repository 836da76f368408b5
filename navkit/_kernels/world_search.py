"""Windowed A* / Dijkstra on a dense block of a chunked world (docs/world-queries.md).

The block is a ``(bd, bw)`` uint16 array indexed ``[z, x]`` (0 blocked, ``w >= 1``
walkable with weight ``w``; docs/rules.md §1.5) holding a few chunks of the world;
coordinates here are block-relative. The search window ``(x0, z0, x1, z1)``
(inclusive, inside the block) has ``ww * wd`` slots, slot ``(z - z0) * ww + x - x0``;
slot ``ww * wd`` is the start when it lies outside the window (docs/rules.md §3.6:
the start is expanded wherever it lies). Row-major slot order is the world's
linear-index order restricted to the window, so navkit's tie-breaks carry over:
the queue pops the smallest ``f``, then the smallest ``h`` (larger ``g``), then the
lower slot (docs/rules.md §3.4); a node's ``g`` changes only on a strictly cheaper
offer. The goal may lie anywhere (even outside the block or the world): it only
enters the heuristic and the goal test. Nearest-reachable tracking (docs/rules.md
§6.2) uses its own target ``(bgx, bgz)`` and compares ``(d2, z, x)``.

``reverse`` charges the weight of the cell left instead of the cell entered: a
search from the goal backwards gives every cell's cost *to* the goal.

Buffers (caller-owned, at least ``ww * wd + 1`` long), the rows of one int64 array:
``g``, ``parent``, ``tag`` (generation tags: ``2 * gen`` open, ``2 * gen + 1``
closed), ``hpos`` (heap position), and the heap's ``hf`` (f), ``hh`` (h), ``hi``
(slot). ``marks`` is a uint8
window-shaped ``(ww * wd,)`` array (1 = blocked by an obstacle circle), read only
when ``use_marks``. ``out`` int64 receives ``O_*``.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit

__all__ = ["window_search", "window_trace", "O_STATUS", "O_EXPANDED",
           "O_GENERATED",
           "O_END", "O_COST", "O_BEST", "O_BEST_COST", "O_CLOSED", "O_START", "O_NPATH",
           "OUT_SIZE", "P_SIZE",
           "FOUND", "UNREACHABLE", "BUDGET_EXHAUSTED", "WINDOW_EXHAUSTED"]

FOUND = 0
UNREACHABLE = 1
BUDGET_EXHAUSTED = 2
WINDOW_EXHAUSTED = 3

O_STATUS = 0
O_EXPANDED = 1
O_GENERATED = 2
O_END = 3
O_COST = 4
O_BEST = 5
O_BEST_COST = 6
O_CLOSED = 7
O_START = 8
O_NPATH = 9
OUT_SIZE = 10

P_X0, P_Z0, P_X1, P_Z1, P_SX, P_SZ, P_HGX, P_HGZ, P_BGX, P_BGZ = range(10)
P_CARD, P_DIAG, P_EIGHT, P_HMUL, P_REVERSE, P_BUDGET, P_GEN, P_MARKS, P_NTARGETS = range(10, 19)
P_SIZE = 19


@njit(inline="always")
def _less(fa, ha, ia, fb, hb, ib):  # type: ignore[no-untyped-def]
    if fa != fb:
        return fa < fb
    if ha != hb:
        return ha < hb
    return ia < ib


@njit(inline="always")
def _sift_up(hf, hh, hi, hpos, i):  # type: ignore[no-untyped-def]
    f, h, s = hf[i], hh[i], hi[i]
    while i > 0:
        p = (i - 1) >> 1
        if _less(f, h, s, hf[p], hh[p], hi[p]):
            hf[i], hh[i], hi[i] = hf[p], hh[p], hi[p]
            hpos[hi[i]] = i
            i = p
        else:
            break
    hf[i], hh[i], hi[i] = f, h, s
    hpos[s] = i


@njit(inline="always")
def _pop(hf, hh, hi, hpos, size):  # type: ignore[no-untyped-def]
    """Remove the root; returns the new size."""
    size -= 1
    if size == 0:
        return size
    f, h, s = hf[size], hh[size], hi[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _less(hf[c + 1], hh[c + 1], hi[c + 1], hf[c], hh[c], hi[c]):
            c += 1
        if _less(hf[c], hh[c], hi[c], f, h, s):
            hf[i], hh[i], hi[i] = hf[c], hh[c], hi[c]
            hpos[hi[i]] = i
            i = c
        else:
            break
    hf[i], hh[i], hi[i] = f, h, s
    hpos[s] = i
    return size


@njit(inline="always")
def _h(qx, qz, gx, gz, card, diag, eight, hmul):  # type: ignore[no-untyped-def]
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
def _ok(cells, marks, use_marks, x0, z0, x1, z1, ww, qx, qz):  # type: ignore[no-untyped-def]
    if qx < x0 or qx > x1 or qz < z0 or qz > z1:
        return False
    if cells[qz, qx] == 0:
        return False
    if use_marks and marks[(qz - z0) * ww + qx - x0] != 0:
        return False
    return True


@njit
def _relax(cells, g, parent, tag, hpos, hf, hh, hi, p, gc, qx, qz, step, wp, reverse,  # type: ignore[no-untyped-def]
           x0, z0, ww, hgx, hgz, card, diag, eight, hmul, open_tag, closed_tag, size, generated):
    """Offer window cell ``(qx, qz)`` the cost ``gc + step * weight``; returns
    ``(size, generated)``. A plain call (LLVM inlines it): inlined, numba
    typed it at each of its eight call sites."""
    q = (qz - z0) * ww + qx - x0
    tq = tag[q]
    if tq == closed_tag:
        return size, generated
    if reverse:
        ng = gc + step * wp
    else:
        ng = gc + step * np.int64(cells[qz, qx])
    was_open = tq == open_tag
    if was_open and ng >= g[q]:
        return size, generated
    g[q] = ng
    parent[q] = p
    h = _h(qx, qz, hgx, hgz, card, diag, eight, hmul)
    if was_open:
        i = hpos[q]
    else:
        tag[q] = open_tag
        i = size
        size += 1
        generated += 1
    hf[i] = ng + h
    hh[i] = h
    hi[i] = q
    _sift_up(hf, hh, hi, hpos, i)
    return size, generated


@njit(_nrt=False)
def window_search(cells, marks, targets, prm, buf, out, path):  # type: ignore[no-untyped-def]
    """A* (``hmul`` > 0, the heuristic's weight scale) or Dijkstra (``hmul`` 0)
    from block cell ``(sx, sz)`` toward ``(hgx, hgz)`` inside the window; writes
    ``out`` and returns the status code. ``budget`` caps expansions.

    ``prm`` int64 ``(P_SIZE,)``: the ``P_*`` parameters; ``buf`` int64
    ``(7, n)``: rows ``g, parent, tag, hpos, hf, hh, hi``; ``path`` int64
    ``(m, 2)``: a found path's block cells (``out[O_NPATH]`` of them, -1 when
    longer than ``m``). With ``prm[P_NTARGETS]`` = ``t > 0`` the search also ends
    (``WINDOW_EXHAUSTED``) once it has closed ``t`` slots flagged in ``targets``
    (uint8, window slots): a Dijkstra that only needs the costs of a few cells.

    The flags (``P_EIGHT``, ``P_REVERSE``, ``P_MARKS``, ``P_NTARGETS > 0``) are read
    at run time: one compiled kernel for every feature set (as fast as
    closure-constant variants, measured: 313-342 against 314-367 us on
    den520d, and a quarter of the compile time). Compiled without
    reference counting (``_nrt=False``: it allocates nothing)."""
    x0, z0, x1, z1 = prm[P_X0], prm[P_Z0], prm[P_X1], prm[P_Z1]
    sx, sz, hgx, hgz = prm[P_SX], prm[P_SZ], prm[P_HGX], prm[P_HGZ]
    bgx, bgz, card, diag = prm[P_BGX], prm[P_BGZ], prm[P_CARD], prm[P_DIAG]
    eight = prm[P_EIGHT] != 0
    hmul, reverse, budget, gen = prm[P_HMUL], prm[P_REVERSE] != 0, prm[P_BUDGET], prm[P_GEN]
    use_marks = prm[P_MARKS] != 0
    left = prm[P_NTARGETS]
    early = left > 0
    g = buf[0]
    parent = buf[1]
    tag = buf[2]
    hpos = buf[3]
    hf = buf[4]
    hh = buf[5]
    hi = buf[6]
    ww = x1 - x0 + 1
    wd = z1 - z0 + 1
    if ww < 0:
        ww = 0
    if wd < 0:
        wd = 0
    nslots = ww * wd
    open_tag = 2 * gen
    closed_tag = 2 * gen + 1
    if sx >= x0 and sx <= x1 and sz >= z0 and sz <= z1:
        ss = (sz - z0) * ww + sx - x0
    else:
        ss = nslots
    g[ss] = 0
    parent[ss] = ss
    tag[ss] = open_tag
    h0 = _h(sx, sz, hgx, hgz, card, diag, eight, hmul)
    hf[0] = h0
    hh[0] = h0
    hi[0] = ss
    hpos[ss] = 0
    size = 1
    expanded = 0
    generated = np.int64(1)  # not a literal: one compiled _relax
    best = ss
    best_x = sx
    best_z = sz
    best_d2 = (sx - bgx) * (sx - bgx) + (sz - bgz) * (sz - bgz)
    status = UNREACHABLE
    end = -1
    while size > 0:
        p = hi[0]
        fc = hf[0]
        gc = fc - hh[0]
        size = _pop(hf, hh, hi, hpos, size)
        tag[p] = closed_tag
        expanded += 1
        if p == ss:
            px = sx
            pz = sz
        else:
            pz = p // ww + z0
            px = p - (pz - z0) * ww + x0
        d2 = (px - bgx) * (px - bgx) + (pz - bgz) * (pz - bgz)
        if d2 < best_d2 or (d2 == best_d2 and (pz < best_z or (pz == best_z and px < best_x))):
            best = p
            best_x = px
            best_z = pz
            best_d2 = d2
        if px == hgx and pz == hgz:
            status = FOUND
            end = p
            break
        if expanded >= budget:
            status = BUDGET_EXHAUSTED
            break
        if early and p != ss and targets[p] != 0:
            left -= 1
            if left == 0:
                break
        wp = np.int64(1)
        if reverse:
            if p == ss:
                wp = np.int64(cells[pz, px]) if (px >= x0 and px <= x1 and pz >= z0
                                                 and pz <= z1) else np.int64(1)
            else:
                wp = np.int64(cells[pz, px])
        okE = _ok(cells, marks, use_marks, x0, z0, x1, z1, ww, px + 1, pz)
        okW = _ok(cells, marks, use_marks, x0, z0, x1, z1, ww, px - 1, pz)
        okS = _ok(cells, marks, use_marks, x0, z0, x1, z1, ww, px, pz + 1)
        okN = _ok(cells, marks, use_marks, x0, z0, x1, z1, ww, px, pz - 1)
        if okE:
            size, generated = _relax(cells, g, parent, tag, hpos, hf, hh, hi, p, gc, px + 1, pz,
                                     card, wp, reverse, x0, z0, ww, hgx, hgz, card, diag, eight,
                                     hmul, open_tag, closed_tag, size, generated)
        if okW:
            size, generated = _relax(cells, g, parent, tag, hpos, hf, hh, hi, p, gc, px - 1, pz,
                                     card, wp, reverse, x0, z0, ww, hgx, hgz, card, diag, eight,
                                     hmul, open_tag, closed_tag, size, generated)
        if okS:
            size, generated = _relax(cells, g, parent, tag, hpos, hf, hh, hi, p, gc, px, pz + 1,
                                     card, wp, reverse, x0, z0, ww, hgx, hgz, card, diag, eight,
                                     hmul, open_tag, closed_tag, size, generated)
        if okN:
            size, generated = _relax(cells, g, parent, tag, hpos, hf, hh, hi, p, gc, px, pz - 1,
                                     card, wp, reverse, x0, z0, ww, hgx, hgz, card, diag, eight,
                                     hmul, open_tag, closed_tag, size, generated)
        if eight:
            if okE and okS and _ok(cells, marks, use_marks, x0, z0, x1, z1, ww, px + 1, pz + 1):
                size, generated = _relax(cells, g, parent, tag, hpos, hf, hh, hi, p, gc, px + 1,
                                         pz + 1, diag, wp, reverse, x0, z0, ww, hgx, hgz, card,
                                         diag, eight, hmul, open_tag, closed_tag, size,
                                         generated)
            if okW and okS and _ok(cells, marks, use_marks, x0, z0, x1, z1, ww, px - 1, pz + 1):
                size, generated = _relax(cells, g, parent, tag, hpos, hf, hh, hi, p, gc, px - 1,
                                         pz + 1, diag, wp, reverse, x0, z0, ww, hgx, hgz, card,
                                         diag, eight, hmul, open_tag, closed_tag, size,
                                         generated)
            if okE and okN and _ok(cells, marks, use_marks, x0, z0, x1, z1, ww, px + 1, pz - 1):
                size, generated = _relax(cells, g, parent, tag, hpos, hf, hh, hi, p, gc, px + 1,
                                         pz - 1, diag, wp, reverse, x0, z0, ww, hgx, hgz, card,
                                         diag, eight, hmul, open_tag, closed_tag, size,
                                         generated)
            if okW and okN and _ok(cells, marks, use_marks, x0, z0, x1, z1, ww, px - 1, pz - 1):
                size, generated = _relax(cells, g, parent, tag, hpos, hf, hh, hi, p, gc, px - 1,
                                         pz - 1, diag, wp, reverse, x0, z0, ww, hgx, hgz, card,
                                         diag, eight, hmul, open_tag, closed_tag, size,
                                         generated)
    if status == UNREACHABLE:
        status = WINDOW_EXHAUSTED
    out[O_STATUS] = status
    out[O_EXPANDED] = expanded
    out[O_GENERATED] = generated
    out[O_END] = end
    out[O_COST] = g[end] if end >= 0 else -1
    out[O_BEST] = best
    out[O_BEST_COST] = g[best]
    out[O_CLOSED] = closed_tag
    out[O_START] = ss
    out[O_NPATH] = 0
    if end >= 0:
        out[O_NPATH] = window_trace(parent, ss, end, ww, x0, z0, sx, sz, path.shape[0], path)
    return status


@njit
def window_trace(parent, ss, end, ww, x0, z0, sx, sz, limit, out):  # type: ignore[no-untyped-def]
    """Block cells ``(x, z)`` from the start slot ``ss`` to slot ``end`` into
    ``out`` (``(limit, 2)`` int64), start first; returns the count (-1 when
    longer than ``limit``)."""
    n = 0
    s = end
    while n < limit:
        if s == ss:
            out[n, 0] = sx
            out[n, 1] = sz
        else:
            z = s // ww
            out[n, 0] = s - z * ww + x0
            out[n, 1] = z + z0
        n += 1
        if s == ss:
            break
        s = parent[s]
    else:
        return -1
    i = 0
    j = n - 1
    while i < j:
        a0, a1 = out[i, 0], out[i, 1]
        out[i, 0], out[i, 1] = out[j, 0], out[j, 1]
        out[j, 0], out[j, 1] = a0, a1
        i += 1
        j -= 1
    return n


@njit
def stamp_window(marks, x0, z0, ww, wd, min_x, min_z, cell_size, circles):  # type: ignore[no-untyped-def]
    """Set ``marks[(z - z0) * ww + x - x0] = 1`` for every window cell (world
    cells ``x0 .. x0 + ww - 1``, ``z0 .. z0 + wd - 1``) whose centre
    ``min + (i + 0.5) * cell_size`` lies in a closed disc of ``circles``
    ``(k, 3)`` (docs/rules.md §7.1; validated, finite). Returns the count."""
    touched = 0
    for c in range(circles.shape[0]):
        x = circles[c, 0]
        z = circles[c, 1]
        r = circles[c, 2]
        lo_x = (x - r - min_x) / cell_size - 1.5
        hi_x = (x + r - min_x) / cell_size + 0.5
        lo_z = (z - r - min_z) / cell_size - 1.5
        hi_z = (z + r - min_z) / cell_size + 0.5
        if hi_x < x0 or lo_x > x0 + ww or hi_z < z0 or lo_z > z0 + wd:
            continue
        ax0 = max(x0, np.int64(np.floor(max(lo_x, -1e18))))
        ax1 = min(x0 + ww - 1, np.int64(np.ceil(min(hi_x, 1e18))))
        az0 = max(z0, np.int64(np.floor(max(lo_z, -1e18))))
        az1 = min(z0 + wd - 1, np.int64(np.ceil(min(hi_z, 1e18))))
        r2 = r * r
        for cz in range(az0, az1 + 1):
            dz = min_z + (cz + 0.5) * cell_size - z
            for cx in range(ax0, ax1 + 1):
                dx = min_x + (cx + 0.5) * cell_size - x
                if dx * dx + dz * dz <= r2:
                    marks[(cz - z0) * ww + cx - x0] = 1
                    touched += 1
    return touched
