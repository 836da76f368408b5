"""Uniform-grid spatial hash: counting sort of points by cell, radius and k-nearest queries.

The grid covers the bounding box of the points: cell ``(cx, cz)`` holds the
points with ``cx = floor((x - min_x) / cs)`` (clamped to the grid), its linear
index is ``cz * nx + cx``. ``cell_start`` (``nx * nz + 1``) is the CSR offset
(int32) of each cell in ``order`` (point indices, by cell, then by index: the
sort is stable) and ``spos`` holds the points in that order. When the box would need
more than ``max_cells`` cells the cell size doubles until it fits (spread-out
sets get slower, never wrong).

``geom`` is float64 ``(5,)`` = (min_x, min_z, cs, max_x, max_z) (the
points' box); ``dims`` int64 ``(2,)`` =
(nx, nz). Answers are sorted by squared distance, then point index.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit

#: Relative widening of a query's cell range, so that a point whose rounded
#: squared distance passes ``d2 <= r*r`` is always in a scanned cell.
RANGE_SLACK = 1e-9


@njit
def build(pos, cell_size, max_cells, geom, dims, cell_start, order, slot, spos, cellid):  # type: ignore[no-untyped-def]
    """Sort the points ``pos`` (n, 2) into cells; fills every other argument.

    ``cell_start`` (int32) must hold ``max_cells + 1`` entries, ``order`` /
    ``slot`` / ``cellid`` (int32) and ``spos`` (n, 2) n entries. ``slot[i]``
    is the place of point i in ``order``, ``cellid[i]`` its cell. One pass
    computes the cells and counts, a prefix sum, then a backward pass places
    the points (stable: by cell, then index). Returns the number of cells."""
    n = pos.shape[0]
    minx = np.inf
    minz = np.inf
    maxx = -np.inf
    maxz = -np.inf
    for i in range(n):
        x = pos[i, 0]
        z = pos[i, 1]
        minx = x if x < minx else minx
        maxx = x if x > maxx else maxx
        minz = z if z < minz else minz
        maxz = z if z > maxz else maxz
    if n == 0:
        minx = 0.0
        minz = 0.0
        maxx = 0.0
        maxz = 0.0
    cs = cell_size
    for _ in range(2100):  # doubling from 1e-300 to 1e300 takes < 2100 steps
        fx = (maxx - minx) / cs + 1.0
        fz = (maxz - minz) / cs + 1.0
        if fx * fz <= max_cells:
            break
        cs = cs * 2.0
    nx = int((maxx - minx) / cs) + 1
    nz = int((maxz - minz) / cs) + 1
    geom[0] = minx
    geom[1] = minz
    geom[2] = cs
    geom[3] = maxx
    geom[4] = maxz
    dims[0] = nx
    dims[1] = nz
    ncell = nx * nz
    for c in range(ncell + 1):
        cell_start[c] = 0
    for i in range(n):
        c = cell_of(pos[i, 0], pos[i, 1], minx, minz, cs, nx, nz)
        cellid[i] = c
        cell_start[c] += 1
    acc = 0
    for c in range(ncell):  # inclusive prefix: cell_start[c] = end of cell c
        acc += cell_start[c]
        cell_start[c] = acc
    cell_start[ncell] = n
    for i in range(n - 1, -1, -1):  # backward: ends in cell_start[c] = start of cell c
        c = cellid[i]
        s = cell_start[c] - 1
        cell_start[c] = s
        order[s] = i
        slot[i] = s
        spos[s, 0] = pos[i, 0]
        spos[s, 1] = pos[i, 1]
    return ncell


@njit(inline="always")
def axis_cell(v, lo, cs, count):  # type: ignore[no-untyped-def]
    """``floor((v - lo) / cs)`` clamped to ``[0, count - 1]`` (no integer overflow)."""
    f = (v - lo) / cs
    if f < 0.0:
        return 0
    if f >= count:
        return count - 1
    return int(f)


@njit(inline="always")
def cell_of(x, z, minx, minz, cs, nx, nz):  # type: ignore[no-untyped-def]
    return axis_cell(z, minz, cs, nz) * nx + axis_cell(x, minx, cs, nx)


@njit(inline="always")
def _less(da, ia, db, ib):  # type: ignore[no-untyped-def]
    return da < db or (da == db and ia < ib)


@njit
def sort_pairs(d2, idx, lo, hi):  # type: ignore[no-untyped-def]
    """Sort ``d2[lo:hi]`` / ``idx[lo:hi]`` together by (d2, idx): insertion
    sort for short runs, heapsort otherwise (no allocation)."""
    m = hi - lo
    if m <= 24:
        for a in range(lo + 1, hi):
            dv = d2[a]
            iv = idx[a]
            b = a - 1
            while b >= lo and _less(dv, iv, d2[b], idx[b]):
                d2[b + 1] = d2[b]
                idx[b + 1] = idx[b]
                b -= 1
            d2[b + 1] = dv
            idx[b + 1] = iv
        return
    # heapsort (max-heap on (d2, idx)) over the run
    for start in range(m // 2 - 1, -1, -1):
        _sift(d2, idx, lo, start, m)
    for end in range(m - 1, 0, -1):
        dv = d2[lo]
        iv = idx[lo]
        d2[lo] = d2[lo + end]
        idx[lo] = idx[lo + end]
        d2[lo + end] = dv
        idx[lo + end] = iv
        _sift(d2, idx, lo, 0, end)


@njit
def _sift(d2, idx, lo, root, m):  # type: ignore[no-untyped-def]
    for _ in range(64):
        child = 2 * root + 1
        if child >= m:
            return
        if child + 1 < m and _less(d2[lo + child], idx[lo + child],
                                   d2[lo + child + 1], idx[lo + child + 1]):
            child += 1
        if _less(d2[lo + root], idx[lo + root], d2[lo + child], idx[lo + child]):
            dv = d2[lo + root]
            iv = idx[lo + root]
            d2[lo + root] = d2[lo + child]
            idx[lo + root] = idx[lo + child]
            d2[lo + child] = dv
            idx[lo + child] = iv
            root = child
        else:
            return


@njit
def radius_point(px, pz, r, exclude, geom, dims, cell_start, order, spos,
                 out_idx, out_d2, start, cap):  # type: ignore[no-untyped-def]
    """Points within ``r`` of ``(px, pz)`` (``d2 <= r*r``), except ``exclude``,
    written sorted at ``out_idx[start:]`` while ``start + count <= cap``.

    Returns the count (written only when it fits: callers compare)."""
    minx = geom[0]
    minz = geom[1]
    cs = geom[2]
    nx = dims[0]
    nz = dims[1]
    rr = r * r
    reach = r * (1.0 + RANGE_SLACK) + RANGE_SLACK * cs
    x0 = axis_cell(px - reach, minx, cs, nx)
    x1 = axis_cell(px + reach, minx, cs, nx)
    z0 = axis_cell(pz - reach, minz, cs, nz)
    z1 = axis_cell(pz + reach, minz, cs, nz)
    cand = 0
    for cz in range(z0, z1 + 1):
        row = cz * nx
        cand += cell_start[row + x1 + 1] - cell_start[row + x0]
    w = start
    if start + cand <= cap:
        # room for every candidate: store each, keep the ones inside (branch-free)
        for cz in range(z0, z1 + 1):
            row = cz * nx
            for s in range(cell_start[row + x0], cell_start[row + x1 + 1]):
                dx = spos[s, 0] - px
                dz = spos[s, 1] - pz
                d2 = dx * dx + dz * dz
                j = order[s]
                out_idx[w] = j
                out_d2[w] = d2
                w += (d2 <= rr) & (j != exclude)
        count = w - start
        sort_pairs(out_d2, out_idx, start, w)
        return count
    count = 0
    for cz in range(z0, z1 + 1):
        row = cz * nx
        for s in range(cell_start[row + x0], cell_start[row + x1 + 1]):
            dx = spos[s, 0] - px
            dz = spos[s, 1] - pz
            d2 = dx * dx + dz * dz
            if d2 <= rr and order[s] != exclude:
                if w < cap:
                    out_idx[w] = order[s]
                    out_d2[w] = d2
                w += 1
                count += 1
    if start + count <= cap:
        sort_pairs(out_d2, out_idx, start, start + count)
    return count


@njit(inline="always")
def _query_box(px, pz, r, geom, dims):  # type: ignore[no-untyped-def]
    """The cell range ``(x0, x1, z0, z1)`` a radius-``r`` query around ``(px, pz)`` scans."""
    cs = geom[2]
    reach = r * (1.0 + RANGE_SLACK) + RANGE_SLACK * cs
    nx = dims[0]
    nz = dims[1]
    return (axis_cell(px - reach, geom[0], cs, nx), axis_cell(px + reach, geom[0], cs, nx),
            axis_cell(pz - reach, geom[1], cs, nz), axis_cell(pz + reach, geom[1], cs, nz))


@njit
def radius_offsets(counts, order, offsets):  # type: ignore[no-untyped-def]
    """CSR offsets (int64, point order) from the slot-order ``counts``; returns the total."""
    n = order.shape[0]
    for s in range(n):
        offsets[order[s] + 1] = counts[s]
    offsets[0] = 0
    for i in range(n):
        offsets[i + 1] += offsets[i]
    return offsets[n]


@njit(inline="always")
def _emit_sorted(w, tmp_d2, tmp_idx, buf, pos):  # type: ignore[no-untyped-def]
    """Write ``tmp_idx[:w]`` to ``buf[pos:]`` sorted by (d2, index)."""
    if w > 32:
        sort_pairs(tmp_d2, tmp_idx, 0, w)
        for a in range(w):
            buf[pos + a] = tmp_idx[a]
        return
    for a in range(w):  # each entry's rank by (d2, index), branch-free (keys are distinct)
        dv = tmp_d2[a]
        iv = tmp_idx[a]
        rank = 0
        for b in range(w):
            db = tmp_d2[b]
            rank += (db < dv) | ((db == dv) & (tmp_idx[b] < iv))
        buf[pos + rank] = iv


@njit
def radius_append(r, geom, dims, cell_start, order, spos, start, s1, counts, buf, pos, tmp_idx,
                  tmp_d2, tmp_idx2, tmp_d22):  # type: ignore[no-untyped-def]
    """One pass of :meth:`SpatialHash.query_radius_all` over slots ``[start, s1)``:
    each point's neighbours, sorted by (d2, index), appended to ``buf`` (int32)
    from ``pos`` on, in slot order; ``counts[s]`` (slot order) their number.

    Two consecutive slots whose query boxes are the same cells (the usual case
    inside one cell) share one scan of the candidates: ``tmp_idx`` / ``tmp_d2``
    collect the first point's, ``tmp_idx2`` / ``tmp_d22`` the second's (four
    scratch arrays of one length). Stops early, before slot ``k``, when
    ``buf`` or the scratch could overflow; returns ``(k, pos, need)`` with
    ``k == s1`` when done, else the caller grows what was short (``need``:
    scratch entries wanted, 0 when it was ``buf``) and calls again from ``k``."""
    rr = r * r
    nx = dims[0]
    cap = buf.shape[0]
    tcap = tmp_idx.shape[0]
    s = start
    while s < s1:
        px = spos[s, 0]
        pz = spos[s, 1]
        x0, x1, z0, z1 = _query_box(px, pz, r, geom, dims)
        t = s + 1
        paired = False
        qx = 0.0
        qz = 0.0
        if t < s1:
            qx = spos[t, 0]
            qz = spos[t, 1]
            y0, y1, y2, y3 = _query_box(qx, qz, r, geom, dims)
            paired = y0 == x0 and y1 == x1 and y2 == z0 and y3 == z1
        w = 0
        if paired:
            v = 0
            for cz in range(z0, z1 + 1):
                row = cz * nx
                a0 = cell_start[row + x0]
                a1 = cell_start[row + x1 + 1]
                u = w if w > v else v
                if u + (a1 - a0) > tcap:  # could overflow the scratch: ask for more
                    return s, pos, u + (a1 - a0) + (z1 - cz) * (a1 - a0) + 16
                for q in range(a0, a1):
                    cx = spos[q, 0]
                    cz_ = spos[q, 1]
                    j = order[q]
                    dx = cx - px
                    dz = cz_ - pz
                    d2 = dx * dx + dz * dz
                    ex = cx - qx
                    ez = cz_ - qz
                    e2 = ex * ex + ez * ez
                    tmp_idx[w] = j
                    tmp_d2[w] = d2
                    w += (d2 <= rr) & (q != s)
                    tmp_idx2[v] = j
                    tmp_d22[v] = e2
                    v += (e2 <= rr) & (q != t)
            if pos + w + v > cap:
                return s, pos, 0
            counts[s] = w
            _emit_sorted(w, tmp_d2, tmp_idx, buf, pos)
            pos += w
            counts[t] = v
            _emit_sorted(v, tmp_d22, tmp_idx2, buf, pos)
            pos += v
            s += 2
            continue
        for cz in range(z0, z1 + 1):
            row = cz * nx
            a0 = cell_start[row + x0]
            a1 = cell_start[row + x1 + 1]
            if w + (a1 - a0) > tcap:
                return s, pos, w + (a1 - a0) + (z1 - cz) * (a1 - a0) + 16
            for q in range(a0, a1):
                dx = spos[q, 0] - px
                dz = spos[q, 1] - pz
                d2 = dx * dx + dz * dz
                tmp_idx[w] = order[q]
                tmp_d2[w] = d2
                w += (d2 <= rr) & (q != s)
        if pos + w > cap:
            return s, pos, 0
        counts[s] = w
        _emit_sorted(w, tmp_d2, tmp_idx, buf, pos)
        pos += w
        s += 1
    return s1, pos, 0


@njit
def radius_scatter(order, counts, offsets, buf, s0, s1, out_idx):  # type: ignore[no-untyped-def]
    """Copy the runs :func:`radius_append` wrote for slots ``[s0, s1)`` (in slot
    order, from ``buf[0]``) to their places in point order, ``out_idx[offsets[i]:]``."""
    pos = 0
    for s in range(s0, s1):
        w = counts[s]
        o = offsets[order[s]]
        for a in range(w):
            out_idx[o + a] = buf[pos + a]
        pos += w
    return 0


@njit
def _knn_insert(d2, j, k, cnt, out_idx, out_d2, base):  # type: ignore[no-untyped-def]
    """Insert (d2, j) into the sorted best-k list at ``base``; returns the new count."""
    if cnt == k and not _less(d2, j, out_d2[base + k - 1], out_idx[base + k - 1]):
        return cnt
    p = cnt if cnt < k else k - 1
    while p > 0 and _less(d2, j, out_d2[base + p - 1], out_idx[base + p - 1]):
        out_d2[base + p] = out_d2[base + p - 1]
        out_idx[base + p] = out_idx[base + p - 1]
        p -= 1
    out_d2[base + p] = d2
    out_idx[base + p] = j
    return cnt + 1 if cnt < k else k


@njit
def _knn_range(px, pz, a, b, exclude, k, cnt, order, spos, out_idx, out_d2, base):  # type: ignore[no-untyped-def]
    for s in range(a, b):
        j = order[s]
        if j != exclude:
            dx = spos[s, 0] - px
            dz = spos[s, 1] - pz
            cnt = _knn_insert(dx * dx + dz * dz, j, k, cnt, out_idx, out_d2, base)
    return cnt


@njit
def knn_point(px, pz, k, exclude, geom, dims, cell_start, order, spos, out_idx, out_d2, base):  # type: ignore[no-untyped-def]
    """The ``k`` points nearest ``(px, pz)`` except ``exclude``, sorted by
    (d2, index), written at ``out_idx[base:base + k]``; returns how many (fewer
    when the set is smaller). Rings of cells grow around the point's cell until
    every unscanned cell is farther than the k-th answer."""
    minx = geom[0]
    minz = geom[1]
    cs = geom[2]
    nx = dims[0]
    nz = dims[1]
    if k <= 0:
        return 0
    cx = axis_cell(px, minx, cs, nx)
    cz = axis_cell(pz, minz, cs, nz)
    cnt = 0
    lmax = nx if nx > nz else nz
    for lv in range(lmax + 1):
        zlo = cz - lv
        zhi = cz + lv
        xlo = cx - lv
        xhi = cx + lv
        xa = xlo if xlo > 0 else 0
        xb = xhi if xhi < nx - 1 else nx - 1
        for z in range(zlo, zhi + 1):
            if z < 0 or z >= nz:
                continue
            row = z * nx
            if z == zlo or z == zhi:
                cnt = _knn_range(px, pz, cell_start[row + xa], cell_start[row + xb + 1], exclude,
                                 k, cnt, order, spos, out_idx, out_d2, base)
            else:
                if xlo >= 0:
                    cnt = _knn_range(px, pz, cell_start[row + xlo], cell_start[row + xlo + 1],
                                     exclude, k, cnt, order, spos, out_idx, out_d2, base)
                if xhi <= nx - 1 and xhi != xlo:
                    cnt = _knn_range(px, pz, cell_start[row + xhi], cell_start[row + xhi + 1],
                                     exclude, k, cnt, order, spos, out_idx, out_d2, base)
        # distance from the point to any cell not scanned yet
        bound = np.inf
        if xlo > 0:
            d = px - (minx + xlo * cs)
            d = d if d > 0.0 else 0.0
            bound = d if d < bound else bound
        if xhi < nx - 1:
            d = (minx + (xhi + 1) * cs) - px
            d = d if d > 0.0 else 0.0
            bound = d if d < bound else bound
        if zlo > 0:
            d = pz - (minz + zlo * cs)
            d = d if d > 0.0 else 0.0
            bound = d if d < bound else bound
        if zhi < nz - 1:
            d = (minz + (zhi + 1) * cs) - pz
            d = d if d > 0.0 else 0.0
            bound = d if d < bound else bound
        if bound == np.inf:
            return cnt
        bound = bound * (1.0 - RANGE_SLACK) - RANGE_SLACK * cs
        if cnt == k and bound > 0.0 and out_d2[base + k - 1] < bound * bound:
            return cnt
    return cnt


@njit
def knn_all(k, geom, dims, cell_start, order, slot, spos, out_idx, out_d2):  # type: ignore[no-untyped-def]
    """Row i of ``out_idx`` (n, k) flattened: point i's k nearest others, -1 padded."""
    n = order.shape[0]
    for i in range(n):
        s = slot[i]
        base = i * k
        c = knn_point(spos[s, 0], spos[s, 1], k, i, geom, dims, cell_start, order, spos,
                      out_idx, out_d2, base)
        for t in range(c, k):
            out_idx[base + t] = -1
    return 0


@njit
def update(moved, newpos, budget, geom, dims, cell_start, order, slot, spos):  # type: ignore[no-untyped-def]
    """Move points ``moved`` (m,) to ``newpos`` (m, 2), all inside the grid's box.

    A point that stays in its cell costs O(1); one that changes cell shifts the
    entries between its old and new place in ``order`` by one. Returns 0, or 2
    when the shifting would pass ``budget`` entries (the structure is still
    valid, with the points processed so far moved; rebuild instead)."""
    minx = geom[0]
    minz = geom[1]
    cs = geom[2]
    nx = dims[0]
    nz = dims[1]
    work = 0
    for t in range(moved.shape[0]):
        i = moved[t]
        s = slot[i]
        c_new = cell_of(newpos[t, 0], newpos[t, 1], minx, minz, cs, nx, nz)
        c_old = cell_of(spos[s, 0], spos[s, 1], minx, minz, cs, nx, nz)
        if c_new > c_old:
            e = cell_start[c_new] - 1  # last slot before the new cell
            work += e - s + c_new - c_old
            if work > budget:
                return 2
            for q in range(s, e):
                order[q] = order[q + 1]
                spos[q, 0] = spos[q + 1, 0]
                spos[q, 1] = spos[q + 1, 1]
                slot[order[q]] = q
            for c in range(c_old + 1, c_new + 1):
                cell_start[c] -= 1
            s = e
        elif c_new < c_old:
            e = cell_start[c_new + 1]  # first slot after the new cell
            work += s - e + c_old - c_new
            if work > budget:
                return 2
            for q in range(s, e, -1):
                order[q] = order[q - 1]
                spos[q, 0] = spos[q - 1, 0]
                spos[q, 1] = spos[q - 1, 1]
                slot[order[q]] = q
            for c in range(c_new + 1, c_old + 1):
                cell_start[c] += 1
            s = e
        order[s] = i
        slot[i] = s
        spos[s, 0] = newpos[t, 0]
        spos[s, 1] = newpos[t, 1]
    return 0
