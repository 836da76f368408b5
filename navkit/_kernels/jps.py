"""Jump Point Search on bit-packed rows: 8-connected, no corner cutting, uniform cost.

The rules are A*'s (a diagonal step needs both side cells free; every
passable cell costs the same), so JPS returns A*'s optimal integer cost; only
the chosen path may differ among equally short ones.

Pruning (Harabor & Grastien 2011, in the variant that forbids corner
cutting, as in warthog's and PathFinding.js's "no obstacles" JPS):

* arriving at ``x`` by a straight move in direction ``d``, the natural
  successor is ``x + d``; the side cell ``x + s`` (``s`` perpendicular to
  ``d``) is *forced* when it is free and ``x - d + s``, the cell behind it,
  is blocked: then ``x + s`` and ``x + d + s`` become successors too;
* arriving by a diagonal move ``(dx, dz)`` the successors are the two straight
  directions ``dx``, ``dz`` and the diagonal itself; a diagonal move never has
  forced neighbours when corners cannot be cut;
* the start expands in all eight directions.

A straight jump runs until the cell ahead is blocked (no jump point), a
forced neighbour appears (that cell is a jump point) or the goal lies on the
way. A diagonal jump steps one cell at a time and runs a straight jump along
each of its two components from every cell; it does not push those diagonal
cells but the straight jump points found from them, with the diagonal's
start as their parent, and runs on to the end of the diagonal (Harabor &
Grastien 2014, "Improving Jump Point Search": pruning intermediate nodes).

Block-based scanning (same paper): the walkable grid is stored as bit-packed
lines, rows for horizontal jumps and columns (the transposed grid) for
vertical ones, so a straight jump tests 64 cells per step with a count of
trailing (or, backwards, leading) zeros. Beside each word of passable bits
``r`` the line keeps two words of *forced* bits, one per direction of travel:
bit ``i`` is set when a side cell at ``i`` is free and the side cell one
step behind (``i - 1`` going forwards, ``i + 1`` going backwards) is
blocked. The first set bit of ``~r | forced`` is where the jump ends: a jump
point when that cell is passable, a dead end when it is blocked.

Arguments: ``bits`` (:class:`~navkit._kernels.layouts.BitsArgs`, the
packed rows and columns), ``model``
(:class:`~navkit._kernels.layouts.JpsModelArgs`: step costs and the node-code
layout), ``ws`` (:class:`~navkit._kernels.layouts.JpsWorkspaceArgs`). Dynamic
obstacles are not a separate overlay here: the caller clears their bits for
the query and restores them after (:func:`overlay_block` /
:func:`overlay_restore`).

Queue order and statistics are those of :mod:`navkit._kernels.search`:
smallest ``f``, then larger ``g``, then lower node index; ``expanded`` counts
jump points popped and expanded, ``generated`` jump points pushed (the start
included).
"""

from __future__ import annotations

import numba
import numpy as np

from .._numba_config import njit
from .geometry import circle_cells, closer
from .heap import heap_pop, heap_push, heapify
from .layouts import BitsArgs, CellGeometry, JpsContext, JpsModelArgs, JpsOutArgs, JpsWorkspaceArgs
from .search import (
    BUDGET_EXHAUSTED,
    FOUND,
    ST_BEST,
    ST_BEST_COST,
    ST_COST,
    ST_END,
    ST_EXPANDED,
    ST_GENERATED,
    ST_STATUS,
    STATS_SIZE,
    UNREACHABLE,
    expansion_end,
    heuristic,
    trace,
)

NO_START = 5
NO_GOAL = 6

_LOW63 = np.int64(0x7FFFFFFFFFFFFFFF)
LOW32 = np.int64(0xFFFFFFFF)
_MASK64 = (1 << 64) - 1

if numba.config.DISABLE_JIT:  # pragma: no cover - exercised by the NUMBA_DISABLE_JIT test run

    def ctz(v):  # type: ignore[no-untyped-def]
        u = int(v) & _MASK64
        return (u & -u).bit_length() - 1

    def clz(v):  # type: ignore[no-untyped-def]
        return 64 - (int(v) & _MASK64).bit_length()

else:
    from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

    @njit(inline="always")
    def ctz(v):  # type: ignore[no-untyped-def]
        return trailing_zeros(v)

    @njit(inline="always")
    def clz(v):  # type: ignore[no-untyped-def]
        return leading_zeros(v)


def words_per_line(length: int) -> int:
    """Words of one packed line of ``length`` cells, the two guard words included."""
    return (length + 63) // 64 + 2


def key_bits(wp: int, hp: int) -> tuple[int, int]:
    """``(xb, cb)`` of :data:`model` for a padded ``wp`` x ``hp`` grid."""
    xb = max(1, int(wp - 1).bit_length())
    zb = max(1, int(hp - 1).bit_length())
    return xb, xb + zb


def heap_reserve(wp: int, hp: int) -> int:
    """Heap entries beyond one per node that a JPS search needs.

    One expansion pushes at most two jump points per diagonal step, four
    diagonals of at most ``min(wp, hp)`` steps plus four straight jumps; the
    search makes room for that many before each expansion (dropping stale
    entries), so the push itself never checks: a call out of the inlined
    jump code costs about a third of the search's speed.
    """
    return 8 * min(wp, hp) + 16


def bits_size(lines: int, length: int) -> int:
    """Length of the int64 array holding ``lines`` packed lines of ``length`` cells."""
    return 3 * lines * words_per_line(length)


# ------------------------------------------------------------------ packing
@njit(inline="always")
def _refresh(b, nw, nl, line, w):  # type: ignore[no-untyped-def]
    """Recompute the forced words of ``line``, word ``w``, from its two side lines."""
    if line < 1 or line > nl - 2 or w < 1 or w > nw - 2:
        return
    ku = 3 * ((line - 1) * nw + w)
    kd = 3 * ((line + 1) * nw + w)
    u = b[ku]
    d = b[kd]
    # the side cells one position behind: i - 1 going forwards, i + 1 backwards
    up = (u << 1) | ((b[ku - 3] >> 63) & 1)
    dp = (d << 1) | ((b[kd - 3] >> 63) & 1)
    un = ((u >> 1) & _LOW63) | (b[ku + 3] << 63)
    dn = ((d >> 1) & _LOW63) | (b[kd + 3] << 63)
    k = 3 * (line * nw + w)
    b[k + 1] = (u & ~up) | (d & ~dp)
    b[k + 2] = (u & ~un) | (d & ~dn)


@njit(_nrt=False)
def pack(cells, wp, hp, rows, nwr, cols, nwc):  # type: ignore[no-untyped-def]
    """Pack the padded ``cells`` (nonzero = passable) into ``rows`` and ``cols``."""
    for i in range(rows.shape[0]):
        rows[i] = 0
    for i in range(cols.shape[0]):
        cols[i] = 0
    one = np.int64(1)
    for z in range(hp):
        for x in range(wp):
            if cells[z * wp + x] != 0:
                rows[3 * (z * nwr + 1 + (x >> 6))] |= one << (x & 63)
                cols[3 * (x * nwc + 1 + (z >> 6))] |= one << (z & 63)
    for z in range(hp):
        for w in range(nwr):
            _refresh(rows, nwr, hp, z, w)
    for x in range(wp):
        for w in range(nwc):
            _refresh(cols, nwc, wp, x, w)


@njit(inline="always")
def set_bit(bits, x, z, on):  # type: ignore[no-untyped-def]
    """Set or clear the passable bit of padded cell ``(x, z)`` (rows and columns).

    The forced words that read it go stale: see :func:`refresh_box`."""
    bits_ = BitsArgs(*bits)
    rows, cols, nwr, nwc = bits_.rows, bits_.cols, bits_.nwr, bits_.nwc
    one = np.int64(1)
    i = 3 * (z * nwr + 1 + (x >> 6))
    j = 3 * (x * nwc + 1 + (z >> 6))
    if on:
        rows[i] |= one << (x & 63)
        cols[j] |= one << (z & 63)
    else:
        rows[i] &= ~(one << (x & 63))
        cols[j] &= ~(one << (z & 63))


@njit(_nrt=False)
def refresh_box(bits, hp, x0, z0, x1, z1):  # type: ignore[no-untyped-def]
    """Recompute the forced words that read padded cells ``x0..x1`` x ``z0..z1``.

    A cell is a side cell of the rows above and below it (at its own
    position and one step either way) and of the columns left and right."""
    bits_ = BitsArgs(*bits)
    rows, cols, wp, nwr, nwc = bits_.rows, bits_.cols, bits_.wp, bits_.nwr, bits_.nwc
    for line in range(z0 - 1, z1 + 2):
        for w in range(1 + ((x0 - 1) >> 6), 2 + ((x1 + 1) >> 6)):
            _refresh(rows, nwr, hp, line, w)
    for line in range(x0 - 1, x1 + 2):
        for w in range(1 + ((z0 - 1) >> 6), 2 + ((z1 + 1) >> 6)):
            _refresh(cols, nwc, wp, line, w)


@njit(_nrt=False)
def _free(rows, nwr, x, z):  # type: ignore[no-untyped-def]
    """1 when padded cell ``(x, z)`` is passable in the packed rows (a plain
    call: see :func:`_make_jumps`)."""
    return (rows[3 * (z * nwr + 1 + (x >> 6))] >> (x & 63)) & 1


@njit(_nrt=False)
def repack_box(cells, bits, hp, x0, z0, x1, z1):  # type: ignore[no-untyped-def]
    """Re-read the padded cells ``x0..x1`` x ``z0..z1`` (inclusive) into ``bits``."""
    bits_ = BitsArgs(*bits)
    rows, wp, nwr = bits_.rows, bits_.wp, bits_.nwr
    for z in range(z0, z1 + 1):
        for x in range(x0, x1 + 1):
            on = cells[z * wp + x] != 0
            if on != (_free(rows, nwr, x, z) != 0):
                set_bit(bits, x, z, on)
    refresh_box(bits, hp, x0, z0, x1, z1)


@njit(inline="always")
def _circle_box(circle, wp, hp, geo):  # type: ignore[no-untyped-def]
    """Padded cells ``(x0, z0, x1, z1)`` that ``geometry.stamp_circles`` may
    mark for a world circle (``geometry.circle_cells``), clipped to the grid;
    ``geo = (min_x, min_z, cell_size)``."""
    geo_ = CellGeometry(*geo)
    min_x, min_z, cs = geo_.min_x, geo_.min_z, geo_.cell_size
    x0, z0, x1, z1 = circle_cells(circle[0], circle[1], circle[2], min_x, min_z, cs, wp - 2, hp - 2)
    return x0 + 1, z0 + 1, x1 + 1, z1 + 1  # padded; empty when x0 > x1


@njit(_nrt=False)
def overlay_block(bits, marks, mark, hp, geo, circles, saved):  # type: ignore[no-untyped-def]
    """Clear the bits of the cells with ``marks == mark`` near the ``circles``.

    The time is that of the circles' bounding boxes, not of the grid. The
    padded nodes actually cleared go to ``saved`` (capacity: the number of
    padded nodes); returns their count for :func:`overlay_restore`.
    """
    bits_ = BitsArgs(*bits)
    rows, wp, nwr = bits_.rows, bits_.wp, bits_.nwr
    k = 0
    for c in range(circles.shape[0]):
        x0, z0, x1, z1 = _circle_box(circles[c], wp, hp, geo)
        if x0 > x1 or z0 > z1:
            continue
        for z in range(z0, z1 + 1):
            for x in range(x0, x1 + 1):
                q = z * wp + x
                if marks[q] == mark and _free(rows, nwr, x, z):
                    set_bit(bits, x, z, False)
                    saved[k] = q
                    k += 1
        refresh_box(bits, hp, x0, z0, x1, z1)
    return k


@njit(_nrt=False)
def overlay_restore(bits, hp, geo, circles, saved, k):  # type: ignore[no-untyped-def]
    """Undo :func:`overlay_block` (same ``geo`` and ``circles``)."""
    wp = BitsArgs(*bits).wp
    for i in range(k):
        q = saved[i]
        set_bit(bits, q % wp, q // wp, True)
    for c in range(circles.shape[0]):
        x0, z0, x1, z1 = _circle_box(circles[c], wp, hp, geo)
        if x0 <= x1 and z0 <= z1:
            refresh_box(bits, hp, x0, z0, x1, z1)


# ---------------------------------------------------------------- scanning
@njit(_nrt=False)
def _scan_fwd(b, lb, x):  # type: ignore[no-untyped-def]
    """First position ``> x`` on the line at word offset ``lb`` that is blocked
    or has a forced side cell: the position when it is passable (a jump
    point), minus the position when it is blocked (a dead end)."""
    i = x + 1
    w = 1 + (i >> 6)
    mask = np.int64(-1) << (i & 63)
    while True:
        k = 3 * (lb + w)
        r = b[k]
        ev = (~r | b[k + 1]) & mask
        if ev != 0:
            j = ctz(ev)
            pos = ((w - 1) << 6) + j
            if (r >> j) & 1:
                return pos
            return -pos
        mask = np.int64(-1)
        w += 1


@njit(_nrt=False)
def _scan_bwd(b, lb, x):  # type: ignore[no-untyped-def]
    """:func:`_scan_fwd` towards lower positions (first event ``< x``)."""
    i = x - 1
    w = 1 + (i >> 6)
    mask = ~(np.int64(-2) << (i & 63))
    while True:
        k = 3 * (lb + w)
        r = b[k]
        ev = (~r | b[k + 2]) & mask
        if ev != 0:
            j = 63 - clz(ev)
            pos = ((w - 1) << 6) + j
            if (r >> j) & 1:
                return pos
            return -pos
        mask = np.int64(-1)
        w -= 1


@njit(inline="always")
def jps_sign(v):  # type: ignore[no-untyped-def]
    return 1 if v > 0 else (-1 if v < 0 else 0)


# ------------------------------------------------------------------ search
@njit(_nrt=False)
def jps_compact(hf, hk, size, nd, open_tag, wp, xb, cb):  # type: ignore[no-untyped-def]
    """Drop stale heap entries (closed nodes, superseded costs); returns the new size."""
    mask = (np.int64(1) << cb) - 1
    xmask = (np.int64(1) << xb) - 1
    k = 0 * size  # int64, as size (a literal 0 would type heapify a second time)
    for i in range(size):
        c = hk[i] & mask
        n = (c >> xb) * wp + (c & xmask)
        if (nd[2 * n] >> 32) == open_tag and hf[i] - (hk[i] >> cb) == nd[2 * n + 1]:
            hf[k] = hf[i]
            hk[k] = hk[i]
            k += 1
    heapify(hf, hk, k)
    return k


@njit(inline="always")
def jps_offer(ws, ctx, p, ng, qx, qz, size, generated):  # type: ignore[no-untyped-def]
    """Offer node ``(qx, qz)`` at cost ``ng`` with parent code ``p``; returns
    ``(size, generated)``."""
    ws_ = JpsWorkspaceArgs(*ws)
    nd, hf, hk = ws_.nd, ws_.hf, ws_.hk
    open_tag, closed_tag, gx, gz = ctx.open_tag, ctx.closed_tag, ctx.gx, ctx.gz
    card, diag, xb, cb, wp = ctx.card, ctx.diag, ctx.xb, ctx.cb, ctx.wp
    q = qz * wp + qx
    tq = nd[2 * q] >> 32
    if tq == closed_tag:
        return size, generated
    if tq == open_tag and ng >= nd[2 * q + 1]:
        return size, generated
    nd[2 * q] = (open_tag << 32) | p
    nd[2 * q + 1] = ng
    h = heuristic(qx, qz, gx, gz, card, diag, True, 1)
    return heap_push(hf, hk, size, ng + h, (h << cb) | (qz << xb) | qx), generated + 1


@njit(inline="always")
def jps_add(cand, nc, qx, qz, ng):  # type: ignore[no-untyped-def]
    """Append a successor to this expansion's list; returns the new count."""
    cand[3 * nc] = qx
    cand[3 * nc + 1] = qz
    cand[3 * nc + 2] = ng
    return nc + 1


@njit(_nrt=False)
def _add(cand, nc, qx, qz, ng):  # type: ignore[no-untyped-def]
    """:func:`jps_add` as a plain call for the jumps (sixteen inlined
    copies were a sixth of :func:`jps`'s IR); LLVM inlines it back."""
    cand[3 * nc] = qx
    cand[3 * nc + 1] = qz
    cand[3 * nc + 2] = ng
    return nc + 1


def _make_jumps(dx: int, dz: int):  # type: ignore[no-untyped-def]
    """The jump in direction ``(dx, dz)``, specialised: ``dx`` and ``dz`` are
    closure constants, so numba prunes the branches of the other directions
    before it inlines the function into the search (a quarter of the code to
    compile). Each variant has its own name (see
    :func:`navkit._kernels.search._make_astar` on numba's disk cache).

    ``jump(rows, cols, nwr, nwc, gx, gz, card, diag, px, pz, gc, cand, nc) -> nc``
    (the packed lines of :class:`~navkit._kernels.layouts.BitsArgs`, the goal
    and step costs as plain values: a tuple opened in each of the eight
    inlined copies cost compile time) lists, in ``cand``, the jump points
    found from ``(px, pz)`` (``gc`` its cost): one straight jump, or a
    diagonal run to its end with the straight jump points off it and the goal.

    The jumps stay inlined into :func:`jps` (as plain calls they ran 3-5%
    slower); what they call (:func:`_free`, :func:`_scan_fwd`,
    :func:`_scan_bwd`, :func:`_add`) are plain calls, which LLVM inlines
    back: numba types an inlined helper again at every call site, and these
    had forty copies, two thirds of the kernel's IR.
    """
    if dx != 0 and dz != 0:

        def jump(rows, cols, nwr, nwc, gx, gz, card, diag, px, pz, gc, cand, nc):  # type: ignore[no-untyped-def]
            x = px + dx
            z = pz + dz
            if (_free(rows, nwr, x, z) == 0 or _free(rows, nwr, x, pz) == 0
                    or _free(rows, nwr, px, z) == 0):
                return nc
            gd = gc + diag
            while True:
                if x == gx and z == gz:
                    return _add(cand, nc, x, z, gd)
                if dx > 0:
                    eh = _scan_fwd(rows, z * nwr, x)
                    if gz == z and x < gx <= abs(eh):
                        eh = gx  # the goal comes first
                    if eh > 0:
                        nc = _add(cand, nc, eh, z, gd + (eh - x) * card)
                else:
                    eh = _scan_bwd(rows, z * nwr, x)
                    if gz == z and abs(eh) <= gx < x:
                        eh = gx
                    if eh > 0:
                        nc = _add(cand, nc, eh, z, gd + (x - eh) * card)
                if dz > 0:
                    ev = _scan_fwd(cols, x * nwc, z)
                    if gx == x and z < gz <= abs(ev):
                        ev = gz
                    if ev > 0:
                        nc = _add(cand, nc, x, ev, gd + (ev - z) * card)
                else:
                    ev = _scan_bwd(cols, x * nwc, z)
                    if gx == x and abs(ev) <= gz < z:
                        ev = gz
                    if ev > 0:
                        nc = _add(cand, nc, x, ev, gd + (z - ev) * card)
                # the next diagonal step needs both side cells: the two scans just tested them
                if eh == -(x + dx) or ev == -(z + dz) or _free(rows, nwr, x + dx, z + dz) == 0:
                    return nc
                x += dx
                z += dz
                gd += diag

        kind = "diagonal"
    else:

        def jump(rows, cols, nwr, nwc, gx, gz, card, diag, px, pz, gc, cand, nc):  # type: ignore[no-untyped-def]
            if dz == 0:
                if dx > 0:
                    e = _scan_fwd(rows, pz * nwr, px)
                    if gz == pz and px < gx <= abs(e):
                        e = gx
                    if e > 0:
                        return _add(cand, nc, e, pz, gc + (e - px) * card)
                else:
                    e = _scan_bwd(rows, pz * nwr, px)
                    if gz == pz and abs(e) <= gx < px:
                        e = gx
                    if e > 0:
                        return _add(cand, nc, e, pz, gc + (px - e) * card)
            else:
                if dz > 0:
                    e = _scan_fwd(cols, px * nwc, pz)
                    if gx == px and pz < gz <= abs(e):
                        e = gz
                    if e > 0:
                        return _add(cand, nc, px, e, gc + (e - pz) * card)
                else:
                    e = _scan_bwd(cols, px * nwc, pz)
                    if gx == px and abs(e) <= gz < pz:
                        e = gz
                    if e > 0:
                        return _add(cand, nc, px, e, gc + (pz - e) * card)
            return nc

        kind = "straight"
    names = {-1: "m", 0: "0", 1: "p"}
    jump.__name__ = jump.__qualname__ = f"_jps_{kind}_{names[dx]}{names[dz]}"
    return njit(inline="always")(jump)


_E = _make_jumps(1, 0)
_W = _make_jumps(-1, 0)
_S = _make_jumps(0, 1)
_N = _make_jumps(0, -1)
_SE = _make_jumps(1, 1)
_SW = _make_jumps(-1, 1)
_NE = _make_jumps(1, -1)
_NW = _make_jumps(-1, -1)


@njit(_nrt=False)
def jps(bits, model, ws, start, goal, budget, stats):  # type: ignore[no-untyped-def]
    """One JPS query ``start -> goal`` (padded nodes); returns the status and
    fills ``stats`` like the A* kernels of :mod:`navkit._kernels.search`.

    Leaves the jump-point parent chain of ``stats[ST_END]`` in ``ws.nd`` for
    :func:`jps_trace`. The other kernels call this one (a call, not a copy of
    the search: compile time).

    A node's parent is reached by diagonal steps followed by straight ones;
    its arrival direction is the straight part's (the diagonal when there is
    none). Start or goal blocked: status NO_START / NO_GOAL, and only
    ``stats[ST_STATUS]`` and ``stats[ST_COST] = -1`` are written.
    """
    bits_ = BitsArgs(*bits)
    rows, cols, wp, nwr, nwc = bits_.rows, bits_.cols, bits_.wp, bits_.nwr, bits_.nwc
    model_ = JpsModelArgs(*model)
    card, diag, xb, cb = model_.card, model_.diag, model_.xb, model_.cb
    ws_ = JpsWorkspaceArgs(*ws)
    nd, hf, hk, gen, cand = ws_.nd, ws_.hf, ws_.hk, ws_.gen, ws_.cand
    open_tag = np.int64(2 * gen)
    closed_tag = np.int64(2 * gen + 1)
    mask = (np.int64(1) << cb) - 1
    xmask = (np.int64(1) << xb) - 1

    gx = goal % wp
    gz = goal // wp
    sx = start % wp
    sz = start // wp
    if _free(rows, nwr, sx, sz) == 0:
        stats[ST_STATUS] = NO_START
        stats[ST_COST] = -1
        return NO_START
    if _free(rows, nwr, gx, gz) == 0:
        stats[ST_STATUS] = NO_GOAL
        stats[ST_COST] = -1
        return NO_GOAL
    ctx = JpsContext(open_tag=open_tag, closed_tag=closed_tag, goal=goal, gx=gx, gz=gz,
                     card=card, diag=diag, xb=xb, cb=cb, wp=wp)
    hp = nd.shape[0] // 2 // wp
    room = hf.shape[0] - (8 * (wp if wp < hp else hp) + 8)
    scode = (sz << xb) | sx
    nd[2 * start] = (open_tag << 32) | scode
    nd[2 * start + 1] = 0
    h0 = heuristic(sx, sz, gx, gz, card, diag, True, 1)
    # not a literal 0: one heap_push signature
    size = heap_push(hf, hk, np.int64(0), h0, (h0 << cb) | scode)

    expanded = 0
    generated = 1
    best = start
    best_d2 = (sx - gx) * (sx - gx) + (sz - gz) * (sz - gz)
    status = UNREACHABLE

    while size > 0:
        fc = hf[0]
        k = hk[0]
        size = heap_pop(hf, hk, size)
        pc = k & mask
        px = pc & xmask
        pz = pc >> xb
        p = pz * wp + px
        gc = fc - (k >> cb)
        e0 = nd[2 * p]
        if (e0 >> 32) != open_tag or gc != nd[2 * p + 1]:
            continue  # stale entry
        nd[2 * p] = (closed_tag << 32) | (e0 & LOW32)
        expanded += 1
        best, best_d2 = closer(p, px, pz, gx, gz, best, best_d2)
        stop = expansion_end(p, goal, expanded, budget)
        if stop >= 0:
            status = stop
            break
        if size > room:
            size = jps_compact(hf, hk, size, nd, open_tag, wp, xb, cb)

        # directions to explore: bit (dz + 1) * 3 + (dx + 1)
        qc = e0 & LOW32
        if qc == pc:
            dirs = 0x1EF  # the start: all eight
        else:
            qz = qc >> xb
            qx = qc & xmask
            ax = px - qx
            az = pz - qz
            if ax < 0:
                ax = -ax
            if az < 0:
                az = -az
            dx = 0 if az > ax else jps_sign(px - qx)
            dz = 0 if ax > az else jps_sign(pz - qz)
            dirs = 1 << ((dz + 1) * 3 + dx + 1)
            if dx != 0 and dz != 0:
                dirs |= (1 << (4 + dx)) | (1 << (4 + 3 * dz))
            elif dz == 0:
                for s in (-1, 1):
                    if _free(rows, nwr, px, pz + s) and not _free(rows, nwr, px - dx, pz + s):
                        dirs |= (1 << ((s + 1) * 3 + 1)) | (1 << ((s + 1) * 3 + dx + 1))
            else:
                for s in (-1, 1):
                    if _free(rows, nwr, px + s, pz) and not _free(rows, nwr, px + s, pz - dz):
                        dirs |= (1 << ((dz + 1) * 3 + s + 1)) | (1 << (3 + s + 1))

        # one specialised jump per direction (see _make_jumps); the successors
        # are listed first and offered in one place below: one inlined copy of
        # the queue code halves the compile time and runs faster too
        nc = np.int64(0)  # not a literal 0: one compiled _add
        if dirs & (1 << 5):
            nc = _E(rows, cols, nwr, nwc, gx, gz, card, diag, px, pz, gc, cand, nc)
        if dirs & (1 << 3):
            nc = _W(rows, cols, nwr, nwc, gx, gz, card, diag, px, pz, gc, cand, nc)
        if dirs & (1 << 7):
            nc = _S(rows, cols, nwr, nwc, gx, gz, card, diag, px, pz, gc, cand, nc)
        if dirs & (1 << 1):
            nc = _N(rows, cols, nwr, nwc, gx, gz, card, diag, px, pz, gc, cand, nc)
        if dirs & (1 << 8):
            nc = _SE(rows, cols, nwr, nwc, gx, gz, card, diag, px, pz, gc, cand, nc)
        if dirs & (1 << 6):
            nc = _SW(rows, cols, nwr, nwc, gx, gz, card, diag, px, pz, gc, cand, nc)
        if dirs & (1 << 2):
            nc = _NE(rows, cols, nwr, nwc, gx, gz, card, diag, px, pz, gc, cand, nc)
        if dirs & 1:
            nc = _NW(rows, cols, nwr, nwc, gx, gz, card, diag, px, pz, gc, cand, nc)
        for i in range(nc):
            size, generated = jps_offer(ws, ctx, pc, cand[3 * i + 2], cand[3 * i], cand[3 * i + 1],
                                     size, generated)

    stats[ST_STATUS] = status
    stats[ST_EXPANDED] = expanded
    stats[ST_GENERATED] = generated
    stats[ST_BEST] = best
    stats[ST_BEST_COST] = nd[2 * best + 1]
    if status == FOUND:
        stats[ST_END] = goal
        stats[ST_COST] = nd[2 * goal + 1]
    else:
        stats[ST_END] = best
        stats[ST_COST] = -1
    return status


# ------------------------------------------------------------------- paths
@njit(inline="always")
def _fill(nodes, i, px, pz, wp, room, cells, pts, min_x, min_z, cs):  # type: ignore[no-untyped-def]
    """Store padded cell ``(px, pz)`` as path entry ``i`` (in cells/pts too when
    ``room``); ``min_x, min_z, cs`` a CellGeometry's values."""
    nodes[i] = pz * wp + px
    if room:
        x = px - 1
        z = pz - 1
        cells[i, 0] = x
        cells[i, 1] = z
        # the formula of NavGrid.cells_to_world, so the floats are identical
        pts[i, 0] = min_x + (np.float64(x) + 0.5) * cs
        pts[i, 1] = min_z + (np.float64(z) + 0.5) * cs


@njit(_nrt=False)
def jps_chain_length(nd, wp, xb, start, end):  # type: ignore[no-untyped-def]
    """Cells of the chain from padded node ``start`` to ``end`` (both included),
    walking the jump points' parents in ``nd``: each hop adds its Chebyshev
    length."""
    xmask = (np.int64(1) << xb) - 1
    total = 1
    p = end
    px = p % wp
    pz = p // wp
    while p != start:
        qc = nd[2 * p] & LOW32
        qx = qc & xmask
        qz = qc >> xb
        ax = px - qx
        az = pz - qz
        if ax < 0:
            ax = -ax
        if az < 0:
            az = -az
        total += ax if ax > az else az
        p = qz * wp + qx
        px = qx
        pz = qz
    return total


@njit(_nrt=False)
def jps_trace_body(nd, wp, xb, start, end, nodes, cells, pts, geo):  # type: ignore[no-untyped-def]
    """Write the full cell chain ``start .. end`` into ``nodes`` (padded nodes,
    capacity: all nodes); returns its length ``m``. When ``cells`` and ``pts``
    hold ``m`` rows, they get the unpadded ``(x, z)`` cells and their world
    centres (``geo = (min_x, min_z, cell_size)``); otherwise see
    :func:`nodes_to_cells`. Between two jump points the chain takes its
    diagonal steps first, then the straight ones."""
    xmask = (np.int64(1) << xb) - 1
    geo_ = CellGeometry(*geo)
    min_x, min_z, cs = geo_.min_x, geo_.min_z, geo_.cell_size
    total = jps_chain_length(nd, wp, xb, start, end)
    room = cells.shape[0] >= total and pts.shape[0] >= total
    i = total - 1
    p = end
    cx = p % wp
    cz = p // wp
    _fill(nodes, i, cx, cz, wp, room, cells, pts, min_x, min_z, cs)
    while p != start:
        qc = nd[2 * p] & LOW32
        tx = qc & xmask
        tz = qc >> xb
        q = tz * wp + tx
        while cx != tx or cz != tz:
            ddx = tx - cx
            ddz = tz - cz
            adx = ddx if ddx > 0 else -ddx
            adz = ddz if ddz > 0 else -ddz
            if adx >= adz:
                cx += jps_sign(ddx)
            if adz >= adx:
                cz += jps_sign(ddz)
            i -= 1
            _fill(nodes, i, cx, cz, wp, room, cells, pts, min_x, min_z, cs)
        p = q
    return total


@njit(_nrt=False)
def jps_trace(nd, wp, xb, start, end, nodes, cells, pts):  # type: ignore[no-untyped-def]
    """:func:`jps_trace_body` as a kernel (world centres with unit geometry)."""
    return jps_trace_body(nd, wp, xb, start, end, nodes, cells, pts, (0.0, 0.0, 1.0))


@njit(_nrt=False)
def nodes_to_cells(nodes, m, wp, cells, pts, geo):  # type: ignore[no-untyped-def]
    """Cells and world centres of ``nodes[:m]`` (for paths longer than the buffers)."""
    geo_ = CellGeometry(*geo)
    for i in range(m):
        _fill(nodes, i, nodes[i] % wp, nodes[i] // wp, wp, True, cells, pts,
              geo_.min_x, geo_.min_z, geo_.cell_size)


@njit(_nrt=False)
def trace_cells(parent, tag, wp, start, end, nodes, cells, pts, geo):  # type: ignore[no-untyped-def]
    """An A* search's path ``start .. end`` (:func:`navkit._kernels.search.trace`
    into ``nodes``) and, when ``cells`` / ``pts`` hold it, its cells and world
    centres, in one call; returns its length."""
    m = trace(parent, tag, wp, start, end, nodes)
    if cells.shape[0] >= m and pts.shape[0] >= m:
        nodes_to_cells(nodes, m, wp, cells, pts, geo)
    return m


# ----------------------------------------------------------------- kernels
@njit(inline="always", _nrt=False)  # inline: one linking level less for the world query
def jps_path(bits, model, ws, start, goal, budget, to_best, stats, out):  # type: ignore[no-untyped-def]
    """:func:`jps` and the path in one call (one dispatch per query).

    ``out`` is a :class:`~navkit._kernels.layouts.JpsOutArgs` (see
    :func:`jps_trace_body`). Traces to the goal when found, else
    (``to_best``, budget run out) to the expanded jump point closest to the
    goal when that is not the start; returns the path length (0: no path).
    """
    out_ = JpsOutArgs(*out)
    nodes, cells, pts, geo = out_.nodes, out_.cells, out_.pts, out_.geo
    nd, wp, xb = JpsWorkspaceArgs(*ws).nd, BitsArgs(*bits).wp, JpsModelArgs(*model).xb
    status = jps(bits, model, ws, start, goal, budget, stats)
    if status == FOUND:
        return jps_trace_body(nd, wp, xb, start, goal, nodes, cells, pts, geo)
    if to_best and status == BUDGET_EXHAUSTED and stats[ST_BEST] != start:
        return jps_trace_body(nd, wp, xb, start, stats[ST_BEST], nodes, cells, pts, geo)
    return 0


@njit
def jps_seq(bits, model, ws, starts, goals, budget, out_stats):  # type: ignore[no-untyped-def]
    """Queries ``starts[i] -> goals[i]`` one after another; query ``i`` runs
    under generation ``ws.gen + i`` (the caller reserves them). Rows whose
    start or goal is blocked get NO_START / NO_GOAL and zeros. Runs without
    the GIL: :mod:`navkit.query.batch` spreads a batch over threads."""
    ws_ = JpsWorkspaceArgs(*ws)
    nd, hf, hk, gen, cand = ws_.nd, ws_.hf, ws_.hk, ws_.gen, ws_.cand
    stats = np.zeros(STATS_SIZE, dtype=np.int64)
    for i in range(starts.shape[0]):
        # a JpsWorkspaceArgs (plain tuple, as the Python side passes it: one compiled jps)
        status = jps(bits, model, (nd, hf, hk, gen + i, cand), starts[i], goals[i], budget, stats)
        if status == NO_START or status == NO_GOAL:
            for k in range(STATS_SIZE):
                out_stats[i, k] = 0
            out_stats[i, ST_STATUS] = status
            out_stats[i, ST_COST] = -1
        else:
            for k in range(STATS_SIZE):
                out_stats[i, k] = stats[k]
    return starts.shape[0]
