"""The one neighbour index: points counting-sorted into a uniform grid, and its queries.

Every neighbour search of navkit runs on this structure: the spatial hash of
:class:`navkit.crowd.SpatialHash` (radius and k-nearest queries, their batch
versions, incremental updates), the crowd tick's flocking
(:mod:`navkit._kernels.steering`), and in the character simulation the
movement guard (:mod:`navkit._kernels.sim`) and ORCA's neighbours
(:mod:`navkit._kernels.orca`).

The grid: cell ``(cx, cz)`` holds the points with ``cx = floor((x - min_x) /
cs)`` (clamped to the grid: :func:`axis_cell`), its linear index is ``cz * nx
+ cx``. ``cell_start`` (int32, ``nx * nz + 1``) is the CSR offset of each
cell in ``order`` (point indices, by cell, then by index: the sort is
stable), ``spos`` holds the points in that order, ``slot[i]`` is point i's
place in ``order`` and ``cellid[i]`` its cell (-1 for both when a mask left
it out). ``geom`` is float64 ``(5,)`` = (min_x, min_z, cs, max_x, max_z) and
``dims`` int64 ``(2,)`` = (nx, nz): :func:`fit` sets them from the points'
box (the cell size doubles until the grid has at most ``max_cells`` cells),
or the caller from a map (the simulation). :class:`~navkit._kernels.layouts.IndexArgs`
names the seven arrays.

Queries scan a box of cells row by row, each row's cells one contiguous run
of slots (:func:`reach_cells`: every point within a radius; :func:`near_cells`:
the cells within ``k`` of a point's cell). Answers are sorted by squared
distance, then point index (:func:`knn_insert`, :func:`sort_pairs`).
Distances are ``dx * dx + dz * dz`` in float64; a radius query with ``r``
below :data:`TINY_R` compares coordinates scaled by :data:`SCALE` (a power
of two: exact), so the squares of tiny differences do not round to zero and
a point at a nonzero distance never passes a radius-0 test. (A larger
radius is exact as it is: a square that rounds toward zero belongs to a
point well inside.)
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit
from .prefetch import prefetch

#: Relative widening of a query's cell range, so that a point whose rounded
#: squared distance passes ``d2 <= r*r`` is always in a scanned cell.
RANGE_SLACK = 1e-9
#: How many slots ahead :func:`pair_emit` prefetches the place of a run.
EMIT_AHEAD = 8
#: A slot whose stencil holds more points than this gets a run of its exact
#: neighbour count, not of its candidates (:func:`pair_runs`): the pair buffer
#: stays near the answer's size for clusters and wide stencils.
DENSE = 64
#: Radius queries below this radius (m) compare scaled coordinates (the
#: squares would leave the normal float range).
TINY_R = 2.0 ** -400
#: The scale of those comparisons: every nonzero coordinate difference times
#: it squares to a normal float, and every difference below ``TINY_R`` stays
#: far from overflow.
SCALE = 2.0 ** 600


@njit
def fit(pos, cell_size, max_cells, geom, dims):  # type: ignore[no-untyped-def]
    """The grid over the box of ``pos`` (n, 2) with cells of ``cell_size``,
    doubled until it has at most ``max_cells`` cells: writes ``geom`` and
    ``dims``, returns the cell count."""
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
    return nx * nz


@njit
def sort_points(pos, mask, geom, dims, cell_start, order, slot, spos, cellid):  # type: ignore[no-untyped-def]
    """Counting sort of the points ``pos`` (n, 2) into the grid ``geom`` /
    ``dims``: fills ``cell_start``, ``order``, ``slot``, ``spos`` and
    ``cellid``. With ``mask`` of n entries only the points with a nonzero
    mask are sorted (the others get slot and cell -1); an empty ``mask``
    sorts every point. One pass computes the cells and counts, a prefix sum,
    then a backward pass places the points (stable: by cell, then index).
    Returns the number of points sorted."""
    n = pos.shape[0]
    masked = mask.shape[0] == n and n > 0
    minx = geom[0]
    minz = geom[1]
    cs = geom[2]
    nx = dims[0]
    nz = dims[1]
    ncell = nx * nz
    for c in range(ncell + 1):
        cell_start[c] = 0
    for i in range(n):
        if masked and mask[i] == 0:
            cellid[i] = -1
            slot[i] = -1
            continue
        c = cell_of(pos[i, 0], pos[i, 1], minx, minz, cs, nx, nz)
        cellid[i] = c
        cell_start[c] += 1
    acc = 0
    for c in range(ncell):  # inclusive prefix: cell_start[c] = end of cell c
        acc += cell_start[c]
        cell_start[c] = acc
    cell_start[ncell] = acc
    for i in range(n - 1, -1, -1):  # backward: ends in cell_start[c] = start of cell c
        c = cellid[i]
        if c < 0:
            continue
        s = cell_start[c] - 1
        cell_start[c] = s
        order[s] = i
        slot[i] = s
        spos[s, 0] = pos[i, 0]
        spos[s, 1] = pos[i, 1]
    return acc


@njit(inline="always")
def index_points(pos, mask, ix):  # type: ignore[no-untyped-def]
    """:func:`sort_points` into ``ix`` (an :class:`~navkit._kernels.layouts.IndexArgs`
    whose geometry the caller set); returns the number of points sorted."""
    return sort_points(pos, mask, ix.geom, ix.dims, ix.cell_start, ix.order, ix.slot, ix.spos,
                       ix.cellid)


@njit
def build(pos, cell_size, max_cells, geom, dims, cell_start, order, slot, spos, cellid):  # type: ignore[no-untyped-def]
    """:func:`fit` then :func:`sort_points` of every point: the index of
    ``pos`` (n, 2). ``cell_start`` (int32) must hold ``max_cells + 1``
    entries, ``order`` / ``slot`` / ``cellid`` (int32) and ``spos`` (n, 2) n
    entries. Returns the number of cells."""
    ncell = fit(pos, cell_size, max_cells, geom, dims)
    sort_points(pos, cellid[:0], geom, dims, cell_start, order, slot, spos, cellid)
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
def reach_cells(px, pz, r, geom, dims):  # type: ignore[no-untyped-def]
    """The cell range ``(x0, x1, z0, z1)`` that holds every point within ``r``
    of ``(px, pz)`` (widened by :data:`RANGE_SLACK` for rounding)."""
    cs = geom[2]
    reach = r * (1.0 + RANGE_SLACK) + RANGE_SLACK * cs
    nx = dims[0]
    nz = dims[1]
    return (axis_cell(px - reach, geom[0], cs, nx), axis_cell(px + reach, geom[0], cs, nx),
            axis_cell(pz - reach, geom[1], cs, nz), axis_cell(pz + reach, geom[1], cs, nz))


@njit(inline="always")
def near_cells(px, pz, k, geom, dims):  # type: ignore[no-untyped-def]
    """The cell range ``(x0, x1, z0, z1)``: the cells at most ``k`` cells from
    the one holding ``(px, pz)`` along each axis, clipped to the grid."""
    nx = dims[0]
    nz = dims[1]
    cx = axis_cell(px, geom[0], geom[2], nx)
    cz = axis_cell(pz, geom[1], geom[2], nz)
    return (cx - k if cx > k else 0, cx + k if cx + k < nx - 1 else nx - 1,
            cz - k if cz > k else 0, cz + k if cz + k < nz - 1 else nz - 1)


@njit(inline="always")
def less(da, ia, db, ib):  # type: ignore[no-untyped-def]
    """The answer order: (squared distance, index)."""
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
            while b >= lo and less(dv, iv, d2[b], idx[b]):
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
        _sift(d2, idx, lo, np.int64(0), end)  # not a literal 0: one compiled _sift


@njit
def _sift(d2, idx, lo, root, m):  # type: ignore[no-untyped-def]
    for _ in range(64):
        child = 2 * root + 1
        if child >= m:
            return
        if child + 1 < m and less(d2[lo + child], idx[lo + child],
                                  d2[lo + child + 1], idx[lo + child + 1]):
            child += 1
        if less(d2[lo + root], idx[lo + root], d2[lo + child], idx[lo + child]):
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
def knn_insert(d2, j, k, cnt, out_idx, out_d2, base):  # type: ignore[no-untyped-def]
    """Insert (d2, j) into the best-``k`` list at ``out_*[base:]`` (sorted by
    (d2, index), ``cnt`` entries so far); returns the new count."""
    if cnt == k and not less(d2, j, out_d2[base + k - 1], out_idx[base + k - 1]):
        return cnt
    p = cnt if cnt < k else k - 1
    while p > 0 and less(d2, j, out_d2[base + p - 1], out_idx[base + p - 1]):
        out_d2[base + p] = out_d2[base + p - 1]
        out_idx[base + p] = out_idx[base + p - 1]
        p -= 1
    out_d2[base + p] = d2
    out_idx[base + p] = j
    return cnt + 1 if cnt < k else k


@njit
def radius_point(px, pz, r, sc, exclude, geom, dims, cell_start, order, spos,
                 out_idx, out_d2, start, cap):  # type: ignore[no-untyped-def]
    """Points within ``r`` of ``(px, pz)`` (``d2 <= r*r`` on coordinates
    times ``sc``: 1, or :data:`SCALE` for a radius below :data:`TINY_R`),
    except ``exclude``, written sorted at ``out_idx[start:]`` (their squared
    distances at ``out_d2[start:]``) while ``start + count <= cap``.

    Returns the count (all written only when it fits: callers compare)."""
    x0, x1, z0, z1 = reach_cells(px, pz, r, geom, dims)
    nx = dims[0]
    rs = r * sc
    rr = rs * rs
    w = start
    for cz in range(z0, z1 + 1):
        row = cz * nx
        for s in range(cell_start[row + x0], cell_start[row + x1 + 1]):
            dx = (spos[s, 0] - px) * sc
            dz = (spos[s, 1] - pz) * sc
            d2 = dx * dx + dz * dz
            j = order[s]
            if w < cap:  # a candidate that fails is overwritten by the next
                out_idx[w] = j
                out_d2[w] = d2
            w += (d2 <= rr) & (j != exclude)
    count = w - start
    if w <= cap:
        sort_pairs(out_d2, out_idx, start, w)
    return count


@njit
def radius_each(r, sc, geom, dims, cell_start, order, slot, spos, offsets, out_idx, out_d2,
                fill):  # type: ignore[no-untyped-def]
    """Every point's :func:`radius_point` answer, itself excluded, by point
    index: without ``fill`` the counts into ``offsets[1:]`` (int64, n + 1);
    with it the answers at ``out_idx[offsets[i]:offsets[i + 1]]`` (``out_d2``
    as long as ``out_idx``). Returns 0."""
    n = slot.shape[0]
    for i in range(n):
        s = slot[i]
        a = offsets[i] if fill else 0
        b = offsets[i + 1] if fill else 0
        c = radius_point(spos[s, 0], spos[s, 1], r, sc, i, geom, dims, cell_start, order, spos,
                         out_idx, out_d2, a, b)
        if not fill:
            offsets[i + 1] = c
    return 0


# ---------------------------------------------------------------- all pairs
# query_radius_all visits each unordered pair of points once, over a half
# stencil of cells: a cell (cx, cz) pairs with the later points of itself, the
# cells cx + 1 .. cx + k of its row and the cells cx - k .. cx + k of the rows
# cz + 1 .. cz + k (k = stencil half-width). A pair outside the stencil can
# still be within r (k * cs below the radius's reach, or rounding at a cell
# border): its point of lower cell index finds it, from its own query box,
# in the box's cells outside the stencil of higher index (:func:`_extra`).
# (The query box is the one :func:`radius_point` scans, which holds every
# point within r: so each pair is found exactly once.) Passes, each on the
# thread that owns the cell rows: give every slot a run of the pair buffer
# with room for its candidates, or for its counted neighbours when there are
# many (:func:`pair_runs`); write each pair's slots into both points' runs
# (:func:`pair_fill`); the CSR offsets from the runs' lengths
# (:func:`pair_offsets`, serial); each run sorted by (d2, index) into its
# place in point order (:func:`pair_emit`). A pair that reaches into the next
# range's first ``k + 1`` rows goes through ``cur2`` into a second run of
# that point, which that range sized: no two threads write one entry, and
# the answer (sorted runs) does not depend on the threads.


@njit
def _extra_range(zz, part, cx, cz, k, x0, x1):  # type: ignore[no-untyped-def]
    """Cells ``[xa, xb]`` of row ``zz`` in a query box ``[x0, x1]`` outside the
    stencil of cell ``(cx, cz)`` and of higher index than it, part 0 or 1
    (the row's cells left and right of the stencil); empty when ``xa > xb``."""
    if zz == cz:
        if part == 1:
            return 1, 0
        return (cx + k + 1 if cx + k + 1 > x0 else x0), x1
    if zz <= cz + k:
        if part == 0:
            return x0, (cx - k - 1 if cx - k - 1 < x1 else x1)
        return (cx + k + 1 if cx + k + 1 > x0 else x0), x1
    if part == 1:
        return 1, 0
    return x0, x1


@njit
def _extra(s, px, pz, rr, cx, cz, k, x0, x1, z1, nx, z_hi, cell_start, spos, q_lo, q_hi, ecnt,
           buf, nbuf, cur, cur2, w, fill):  # type: ignore[no-untyped-def]
    """The pairs of slot ``s`` with points of its query box ``[x0, x1] x [.., z1]``
    outside its stencil, in cells of higher index (rows ``cz .. z1``).

    Without ``fill``: counted into ``ecnt`` for the partners in slots
    ``[q_lo, q_hi)``; returns how many. With ``fill``: written into both
    points' runs (``s``'s from ``buf[w]``; rows ``>= z_hi`` through ``cur2``
    into ``nbuf``); returns ``w`` advanced."""
    m = 0
    for zz in range(cz, z1 + 1):
        row = zz * nx
        far = zz >= z_hi
        for part in range(2):
            xa, xb = _extra_range(zz, part, cx, cz, k, x0, x1)
            if xa > xb:
                continue
            for q in range(cell_start[row + xa], cell_start[row + xb + 1]):
                dx = spos[q, 0] - px
                dz = spos[q, 1] - pz
                if dx * dx + dz * dz > rr:
                    continue
                if not fill:
                    m += 1
                    if q_lo <= q < q_hi:
                        ecnt[q] += 1
                    continue
                buf[w] = q
                w += 1
                if far:
                    nbuf[cur2[q]] = s
                    cur2[q] += 1
                else:
                    buf[cur[q]] = s
                    cur[q] += 1
    return w if fill else m


@njit
def _extra_count(s, px, pz, rr, cx, cz, k, x0, x1, z1, nx, z_hi, cell_start, spos, q_lo, q_hi,
                 ecnt, cur, cur2):  # type: ignore[no-untyped-def]
    """:func:`_extra` counting (a call of fewer arguments in :func:`pair_runs`'s
    loop: that pass runs 6-12 % faster than with the full call there)."""
    return _extra(s, px, pz, rr, cx, cz, k, x0, x1, z1, nx, z_hi, cell_start, spos, q_lo, q_hi,
                  ecnt, ecnt, ecnt, cur, cur2, np.int64(0), np.bool_(False))


@njit
def pair_runs(r, k, geom, dims, cell_start, spos, z_lo, z_hi, ecnt, rstart, ostart, cur, cur2,
              wide):  # type: ignore[no-untyped-def]
    """The runs of the slots of cell rows ``[z_lo, z_hi)`` (a thread range)
    in that range's part of the pair buffer (offsets from its start):
    ``ostart[s]`` (``cur[s]``, the write cursor) has room for every other
    point of the stencil's cells, the pairs from outside the stencil
    (``wide[s] = 1`` when slot s's query box leaves it; ``ecnt``: their count,
    zeroed here, with those of the ``k + 1`` rows below), plus one spare entry
    that the branch-free writes of :func:`pair_fill` may hit. A slot of the
    first ``k + 1`` rows of a range after the first has a second run before,
    from ``rstart[s]`` (``cur2[s]``), for the pairs of the range before;
    elsewhere that run is empty (``rstart == ostart``). Returns the range's
    entries."""
    rr = r * r
    nx = dims[0]
    nz = dims[1]
    q_lo = cell_start[z_lo * nx]
    q_hi = cell_start[z_hi * nx]
    for s in range(q_lo, q_hi):
        ecnt[s] = 0
    below = z_lo - k - 1 if z_lo > k + 1 else 0
    acc = 0
    for cz in range(below, z_hi):
        own = cz >= z_lo
        second = z_lo > 0 and cz <= z_lo + k
        za = cz - k if cz > k else 0
        zb = cz + k if cz + k < nz - 1 else nz - 1
        for cx in range(nx):
            b0, b1, xa, xb = _cell_run(cell_start, cz, cx, k, nx)
            if b0 == b1:
                continue
            nb = 0
            if own:
                for zz in range(za, zb + 1):
                    row = zz * nx
                    nb += cell_start[row + xb + 1] - cell_start[row + xa]
            for s in range(b0, b1):
                px = spos[s, 0]
                pz = spos[s, 1]
                x0, x1, z0, z1 = reach_cells(px, pz, r, geom, dims)
                out = x0 < cx - k or x1 > cx + k or z1 > cz + k
                m = 0
                if out:  # below the range: only the partners in the range count
                    m = _extra_count(s, px, pz, rr, cx, cz, k, x0, x1, z1, nx, z_hi, cell_start,
                                     spos, q_lo, q_hi, ecnt, cur, cur2)
                if not own:
                    continue
                wide[s] = out
                ecnt[s] += m
                cap = nb  # the stencil's points less s, and the spare entry
                if nb > DENSE:  # many candidates: room for the neighbours only, counted
                    cap = 0  # (-1 for s itself, +1 for the spare entry)
                    for zz in range(za, zb + 1):
                        row = zz * nx
                        for q in range(cell_start[row + xa], cell_start[row + xb + 1]):
                            dx = spos[q, 0] - px
                            dz = spos[q, 1] - pz
                            cap += (dx * dx + dz * dz) <= rr
                cap += ecnt[s]  # the pairs from outside the stencil
                rstart[s] = acc
                cur2[s] = acc
                if second:
                    acc += cap
                ostart[s] = acc
                cur[s] = acc
                acc += cap
    return acc


@njit(inline="always")
def _cell_run(cell_start, cz, cx, k, nx):  # type: ignore[no-untyped-def]
    """Cell ``(cx, cz)``'s slots ``[b0, b1)`` and its stencil's columns ``[xa, xb]``."""
    c = cz * nx + cx
    return (cell_start[c], cell_start[c + 1], cx - k if cx > k else 0,
            cx + k if cx + k < nx - 1 else nx - 1)


@njit
def _extra_fill(s, px, pz, rr, cx, cz, k, x0, x1, z1, nx, z_hi, cell_start, spos, buf, nbuf, cur,
                cur2, w):  # type: ignore[no-untyped-def]
    """:func:`_extra` writing (a call of fewer arguments in :func:`pair_fill`'s
    loop, which runs about 15 % faster so)."""
    return _extra(s, px, pz, rr, cx, cz, k, x0, x1, z1, nx, z_hi, cell_start, spos, np.int32(0),
                  np.int32(0), buf, buf, nbuf, cur, cur2, w, np.bool_(True))


@njit
def pair_fill(r, k, geom, dims, cell_start, spos, z_lo, z_hi, wide, buf, base, base2, cur, cur2):  # type: ignore[no-untyped-def]
    """Every pair (``d2 <= r*r``) owned by the cell rows ``[z_lo, z_hi)``,
    written into both points' runs (the other point's slot) through the
    cursors ``cur`` (rows of the range; its part of ``buf`` starts at
    ``base``) and ``cur2`` (rows ``>= z_hi``: the next range's second runs,
    its part from ``base2``). Branch-free: every candidate is written at the
    cursors, which move on only for a pair (each run has a spare entry).
    Returns 0."""
    buf = buf[base:]
    nbuf = buf[base2 - base:]
    rr = r * r
    nx = dims[0]
    nz = dims[1]
    for cz in range(z_lo, z_hi):
        zb = cz + k if cz + k < nz - 1 else nz - 1
        for cx in range(nx):
            b0, b1, xa, xb = _cell_run(cell_start, cz, cx, k, nx)
            if b0 == b1:
                continue
            for s in range(b0, b1):
                px = spos[s, 0]
                pz = spos[s, 1]
                w = cur[s]
                for zz in range(cz, zb + 1):  # its own row from s + 1 on, then the rows below
                    row = zz * nx
                    far = zz >= z_hi  # the next range's rows: its second runs
                    tbuf = nbuf if far else buf
                    tcur = cur2 if far else cur
                    q0 = s + 1 if zz == cz else cell_start[row + xa]
                    for q in range(q0, cell_start[row + xb + 1]):
                        dx = spos[q, 0] - px
                        dz = spos[q, 1] - pz
                        f = (dx * dx + dz * dz) <= rr
                        buf[w] = q
                        w += f
                        t = tcur[q]
                        tbuf[t] = s
                        tcur[q] = t + f
                if wide[s]:
                    x0, x1, z0, z1 = reach_cells(px, pz, r, geom, dims)
                    w = _extra_fill(s, px, pz, rr, cx, cz, k, x0, x1, z1, nx, z_hi,
                                    cell_start, spos, buf, nbuf, cur, cur2, w)
                cur[s] = w
    return 0


@njit
def pair_offsets(order, rstart, ostart, cur, cur2, offsets, soff):  # type: ignore[no-untyped-def]
    """After :func:`pair_fill`: ``offsets`` (int64, point order) the CSR
    offsets, ``soff[s]`` the offset of slot s's point. Returns
    ``(total, largest count)``."""
    n = order.shape[0]
    widest = 0
    offsets[0] = 0
    for s in range(n):
        c = (cur2[s] - rstart[s]) + (cur[s] - ostart[s])
        offsets[order[s] + 1] = c
        widest = c if c > widest else widest
    for i in range(n):
        offsets[i + 1] += offsets[i]
    for s in range(n):
        soff[s] = offsets[order[s]]
    return offsets[n], widest


@njit(inline="always")
def _gather(buf, a0, a1, px, pz, spos, order, tmp_idx, tmp_d2, w):  # type: ignore[no-untyped-def]
    """The slots ``buf[a0:a1]`` as point indices and squared distances from
    ``(px, pz)`` at ``tmp_*[w:]``; returns ``w`` advanced."""
    for a in range(a0, a1):
        q = buf[a]
        dx = spos[q, 0] - px
        dz = spos[q, 1] - pz
        tmp_d2[w] = dx * dx + dz * dz
        tmp_idx[w] = order[q]
        w += 1
    return w


@njit
def pair_emit(spos, order, rstart, ostart, cur, cur2, soff, buf, s0, s1, out_idx, tmp_idx, tmp_d2):  # type: ignore[no-untyped-def]
    """Slots ``[s0, s1)``: each slot's runs of :func:`pair_fill` (``buf``: the
    slots' range's part of the pair buffer), sorted by (d2, index), as point
    indices at ``out_idx[soff[s]:]``. ``tmp_*`` hold the largest count.
    Those places are scattered (point order is not cell order): each one is
    prefetched :data:`EMIT_AHEAD` slots before (about 1.5x faster)."""
    for s in range(s0, s1):
        prefetch(out_idx, soff[s + EMIT_AHEAD] if s + EMIT_AHEAD < s1 else 0)
        px = spos[s, 0]
        pz = spos[s, 1]
        w = _gather(buf, rstart[s], cur2[s], px, pz, spos, order, tmp_idx, tmp_d2, np.int64(0))
        w = _gather(buf, ostart[s], cur[s], px, pz, spos, order, tmp_idx, tmp_d2, w)
        _emit_sorted(w, tmp_d2, tmp_idx, out_idx, soff[s])
    return 0


@njit(inline="always")
def _emit_sorted(w, tmp_d2, tmp_idx, buf, pos):  # type: ignore[no-untyped-def]
    """Write ``tmp_idx[:w]`` to ``buf[pos:]`` sorted by (d2, index).

    Up to 32 entries: each entry's rank, branch-free; first by distance alone
    (one comparison, which vectorizes), and when two distances are equal (the
    ranks then collide: ``seen`` misses a bit) again by (d2, index)."""
    if w > 32:
        sort_pairs(tmp_d2, tmp_idx, np.int64(0), w)  # one compiled sort_pairs
        for a in range(w):
            buf[pos + a] = tmp_idx[a]
        return
    seen = np.uint64(0)
    for a in range(w):
        dv = tmp_d2[a]
        rank = 0
        for b in range(w):
            rank += tmp_d2[b] < dv
        seen |= np.uint64(1) << np.uint64(rank)
        buf[pos + rank] = tmp_idx[a]
    if seen != (np.uint64(1) << np.uint64(w)) - np.uint64(1):
        for a in range(w):  # keys (d2, index) are distinct
            dv = tmp_d2[a]
            iv = tmp_idx[a]
            rank = 0
            for b in range(w):
                db = tmp_d2[b]
                rank += (db < dv) | ((db == dv) & (tmp_idx[b] < iv))
            buf[pos + rank] = iv


# ---------------------------------------------------------------- k nearest
@njit
def _knn_range(px, pz, a, b, exclude, k, cnt, order, spos, out_idx, out_d2, base):  # type: ignore[no-untyped-def]
    for s in range(a, b):
        j = order[s]
        if j != exclude:
            dx = spos[s, 0] - px
            dz = spos[s, 1] - pz
            cnt = knn_insert(dx * dx + dz * dz, j, k, cnt, out_idx, out_d2, base)
    return cnt


@njit(inline="always")
def _closer(d, bound):  # type: ignore[no-untyped-def]
    """``min(bound, max(d, 0))``."""
    d = d if d > 0.0 else 0.0
    return d if d < bound else bound


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
    cnt = np.int64(0)  # not a literal 0: one compiled _knn_range / knn_insert
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
                cnt = _knn_range(px, pz, cell_start[row + xa], cell_start[row + xb + 1],
                                 exclude, k, cnt, order, spos, out_idx, out_d2, base)
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
            bound = _closer(px - (minx + xlo * cs), bound)
        if xhi < nx - 1:
            bound = _closer((minx + (xhi + 1) * cs) - px, bound)
        if zlo > 0:
            bound = _closer(pz - (minz + zlo * cs), bound)
        if zhi < nz - 1:
            bound = _closer((minz + (zhi + 1) * cs) - pz, bound)
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


# ------------------------------------------------------------------- update
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
                _move_slot(q + 1, q, order, slot, spos)
            for c in range(c_old + 1, c_new + 1):
                cell_start[c] -= 1
            s = e
        elif c_new < c_old:
            e = cell_start[c_new + 1]  # first slot after the new cell
            work += s - e + c_old - c_new
            if work > budget:
                return 2
            for q in range(s, e, -1):
                _move_slot(q - 1, q, order, slot, spos)
            for c in range(c_new + 1, c_old + 1):
                cell_start[c] += 1
            s = e
        order[s] = i
        slot[i] = s
        spos[s, 0] = newpos[t, 0]
        spos[s, 1] = newpos[t, 1]
    return 0


@njit(inline="always")
def _move_slot(src, dst, order, slot, spos):  # type: ignore[no-untyped-def]
    """The entry of slot ``src`` moves to slot ``dst``."""
    order[dst] = order[src]
    spos[dst, 0] = spos[src, 0]
    spos[dst, 1] = spos[src, 1]
    slot[order[dst]] = dst
