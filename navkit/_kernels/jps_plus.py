"""JPS+: Jump Point Search on offline jump tables (8-connected, no corner cutting, uniform cost).

The tables hold, per padded cell and direction, what navkit's online JPS
(:mod:`navkit._kernels.jps`) would find by scanning from that cell, so a
jump becomes one lookup instead of a scan. The search itself is the online
search: the same successors in the same order, the same queue and
tie-breaks, so a JPS+ query returns the very same answer as ``"jps"`` (path,
cost, status, ``expanded``, ``generated``) on the static grid.

Table layout (``tab``: int16, ``(n * 8,)``, padded node ``q`` at
``tab[8 * q + k]``), directions ``k``: 0 E ``(+1, 0)``, 1 W ``(-1, 0)``,
2 S ``(0, +1)``, 3 N ``(0, -1)``, 4 SE, 5 SW, 6 NE, 7 NW (``x`` grows east,
``z`` south):

* straight ``k < 4``: ``+d`` when the online straight jump from the cell
  stops at a jump point ``d`` cells away (the first cell with a forced side
  cell), ``-d`` when it runs into a blocked cell ``d`` cells away;
* diagonal ``k >= 4``: ``+t`` when diagonal step ``t`` (the first, going
  without cutting corners) reaches a cell from which one of the two straight
  component jumps finds a jump point, ``-T`` when there is none on the ``T``
  legal steps of the diagonal (``0``: not even one step).

Goals are not in the tables: a jump checks whether the goal lies on its line
(straight) or on the row or column a diagonal crosses, as the online jump does.
The tables describe the static grid; the caller runs online JPS while an
overlay or an occupant changes cells.

Where the search saves beyond the scans (docs/jps-plus.md, "The search"):
the forced side cells of a straight arrival are read off the node's own
table row (a free side cell has a straight entry other than -1, and the
cell behind it is blocked exactly when the diagonal entry back towards it
is 0), so an expansion reads no grid cells; the queue keeps one entry in a
slot beside the heap (the smallest offered since the last pop, often the
next node: no push and no pop for it), and pops whichever of slot and heap
top comes first in the heap's own order; successors' node records are
prefetched as the jumps find them; and the path is traced run by run
(:func:`trace`). None of this changes an expansion.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit
from .geometry import closer
from .heap import heap_pop, heap_push
from .jps import LOW32, jps_chain_length, jps_compact
from .layouts import CellGeometry, JpsContext, JpsModelArgs, JpsOutArgs, JpsWorkspaceArgs
from .prefetch import prefetch
from .search import (
    BUDGET_EXHAUSTED,
    FOUND,
    NO_GOAL,
    NO_START,
    ST_BEST,
    ST_BEST_COST,
    ST_COST,
    ST_END,
    ST_EXPANDED,
    ST_GENERATED,
    ST_STATUS,
    UNREACHABLE,
    expansion_end,
    heuristic,
)

#: Direction ``k`` -> ``(dx, dz)``.
DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1))
_DX = tuple(d[0] for d in DIRS)  # (the same, one axis each: what the kernels index)
_DZ = tuple(d[1] for d in DIRS)
#: Largest padded side the int16 tables hold.
MAX_SIDE = 32000

_BIG = np.int64(1) << 40


@njit(inline="always")
def _fr(cells, wp, hp, x, z):  # type: ignore[no-untyped-def]
    """1 when padded cell ``(x, z)`` lies in the grid and is passable."""
    if x < 0 or z < 0 or x >= wp or z >= hp:
        return 0
    return 1 if cells[z * wp + x] != 0 else 0


@njit(inline="always")
def _forced(cells, wp, hp, x, z, dx, dz):  # type: ignore[no-untyped-def]
    """Whether cell ``(x, z)``, reached by the straight move ``(dx, dz)``, has a
    forced side cell: one that is free while the one behind it is blocked."""
    if dz == 0:
        for s in (-1, 1):
            if _fr(cells, wp, hp, x, z + s) and not _fr(cells, wp, hp, x - dx, z + s):
                return True
    else:
        for s in (-1, 1):
            if _fr(cells, wp, hp, x + s, z) and not _fr(cells, wp, hp, x + s, z - dz):
                return True
    return False


def _entry_rule(cells, wp, hp, tab, x, z, k, dx, dz, kh, kv):  # type: ignore[no-untyped-def]
    """Entry ``k`` (step ``(dx, dz)``; a diagonal's straight components ``kh``
    and ``kv``) of padded cell ``(x, z)``, from the grid around it and the
    entries of the next cell ``(x + dx, z + dz)`` (read only when that cell and,
    for a diagonal, both corner cells are free, so never outside ``tab``).

    The one rule of the tables, compiled as :func:`_entry` into
    :func:`build_tables` and :func:`update_tables` (through :func:`_walk`):
    straight, ``-1`` into a blocked cell, ``1`` onto a forced one, else the
    next cell's entry one further; diagonal, ``0`` when the step cuts a
    corner or enters a blocked cell, ``1`` when a straight component of the
    next cell finds a jump point (entry ``> 0``), else the next cell's entry
    one further."""
    nx = x + dx
    nz = z + dz
    if dx == 0 or dz == 0:
        if not _fr(cells, wp, hp, nx, nz):
            return np.int64(-1)
        if _forced(cells, wp, hp, nx, nz, dx, dz):
            return np.int64(1)
        w = np.int64(tab[8 * (nz * wp + nx) + k])
        return w + 1 if w > 0 else w - 1
    if not (_fr(cells, wp, hp, nx, nz) and _fr(cells, wp, hp, nx, z)
            and _fr(cells, wp, hp, x, nz)):
        return np.int64(0)
    r = 8 * (nz * wp + nx)
    if tab[r + kh] > 0 or tab[r + kv] > 0:
        return np.int64(1)
    w = np.int64(tab[r + k])
    return w + 1 if w > 0 else w - 1


#: :func:`_entry_rule`, inlined at its two call sites: the sweep of
#: :func:`build_tables` and the walk of :func:`_walk` (a called, not inlined,
#: rule made the full build 2.5-3x slower). Both callers run without NRT
#: (``_nrt=False``; they allocate nothing): with it, numba's inlining of a
#: function taking arrays adds reference-count updates per entry (3-4x slower).
_entry = njit(inline="always")(_entry_rule)


@njit(_nrt=False)
def build_tables(cells, wp, hp, tab):  # type: ignore[no-untyped-def]
    """Fill ``tab`` (int16, ``8 * wp * hp``) from the padded ``cells`` (uint8,
    nonzero = passable; ``wp``, ``hp`` <= :data:`MAX_SIDE`); returns 0.

    Every cell gets all eight entries (blocked cells too; searches never read
    those). Eight sweeps, each against its direction, so that an entry reads
    the entry of the next cell, already final (the rule: :func:`_entry_rule`)."""
    for k in range(8):
        dx = _DX[k]
        dz = _DZ[k]
        kh = 0 if dx > 0 else 1
        kv = 2 if dz > 0 else 3
        for iz in range(hp):
            z = hp - 1 - iz if dz > 0 else iz
            for ix in range(wp):
                x = wp - 1 - ix if dx > 0 else ix
                tab[8 * (z * wp + x) + k] = _entry(cells, wp, hp, tab, x, z, k, dx, dz, kh, kv)
    return 0


# ------------------------------------------------------------ run-time edits
def update_scratch(wp: int, hp: int, bw: int, bh: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scratch for :func:`update_tables` on a ``wp`` x ``hp`` padded grid,
    enough for any edit box of up to ``bw`` columns and ``bh`` rows (reusable
    across calls; contents need no reset): ``(rec, order, cnt)``, all int64,
    of :func:`update_scratch_sizes` lengths."""
    nrec, nord, ncnt = update_scratch_sizes(wp, hp, bw, bh)
    return (np.zeros(nrec, dtype=np.int64), np.zeros(nord, dtype=np.int64),
            np.zeros(ncnt, dtype=np.int64))


@njit(_nrt=False)
def update_scratch_sizes(wp, hp, bw, bh):  # type: ignore[no-untyped-def]
    """Lengths of :func:`update_tables`'s ``rec``, ``order`` and ``cnt`` for an
    edit box of ``bw`` columns and ``bh`` rows (the kernel checks its scratch
    against these): ``2 * ((bh + 2) * wp + (bw + 2) * hp)``,
    ``(bw + 1) * (bh + 1) + (bh + 2) * wp + (bw + 2) * hp`` and ``wp + hp``."""
    return (2 * ((bh + 2) * wp + (bw + 2) * hp),
            (bw + 1) * (bh + 1) + (bh + 2) * wp + (bw + 2) * hp,
            wp + hp)


@njit(_nrt=False)
def _walk(cells, wp, hp, tab, k, x, z, m, rec, nr):  # type: ignore[no-untyped-def]
    """Recompute entry ``k`` from padded cell ``(x, z)`` backwards along its
    line (steps ``-(dx, dz)``): the first ``m`` cells whatever they give, then
    on until an entry comes out unchanged or the line leaves the grid (the
    cells behind an unchanged entry read what they read before). A straight
    entry (``k < 4``) whose sign class (``> 0`` or not: all a diagonal reads
    of it) flips is appended to ``rec`` as ``(z << 19) | (x << 3) | k`` at
    ``rec[nr]``. Returns ``(entries changed, nr)``.

    Not inlined: :func:`update_tables` calls it from two places, and the rule
    is compiled into it once."""
    dx = _DX[k]
    dz = _DZ[k]
    kh = 0 if dx > 0 else 1
    kv = 2 if dz > 0 else 3
    changed = 0
    i = 0
    while True:
        o = 8 * (z * wp + x) + k
        v = _entry(cells, wp, hp, tab, x, z, k, dx, dz, kh, kv)
        w = tab[o]
        if v != w:
            tab[o] = v
            changed += 1
            if k < 4 and (v > 0) != (w > 0):
                rec[nr] = (((z << 16) | x) << 3) | k
                nr += 1
        elif i + 1 >= m:
            break
        i += 1
        x -= dx
        z -= dz
        if x < 0 or z < 0 or x >= wp or z >= hp:
            break
    return changed, nr


@njit(_nrt=False)
def update_tables(cells, wp, hp, tab, x0, z0, x1, z1, rec, order, cnt):  # type: ignore[no-untyped-def]
    """Bring ``tab`` up to date after cells changed in the padded box
    ``[x0, x1] x [z0, z1]`` (inclusive): ``tab`` must be :func:`build_tables`
    of ``cells`` as they were, and no cell outside the box may have changed;
    afterwards ``tab`` is, bit for bit, :func:`build_tables` of ``cells`` now.
    Returns the number of entries whose value changed (``8 * wp * hp`` when it
    fell back to a full rebuild: scratch too short, see below).

    The box should lie inside the grid's free part, ``1 <= x0 <= x1 <= wp - 2``
    and ``1 <= z0 <= z1 <= hp - 2`` (the padding ring never changes); it is
    clamped to that, so nothing is ever read or written outside the arrays
    (an empty box after clamping returns 0 and changes nothing).

    Work follows what the edit can change, not the grid: with ``bw`` / ``bh``
    the box's columns / rows, the straight entries E / W of rows
    ``z0 - 1 .. z1 + 1`` and N / S of columns ``x0 - 1 .. x1 + 1`` (no other
    straight entry reads a cell of the box) are recomputed over the box and
    one cell beyond, then on along each line, against its direction, until
    an entry comes out unchanged. The diagonal entries are recomputed from
    seeds: cells whose step, or one of its corner cells, lies in the box, and
    the cell behind each cell whose straight entry flipped sign class. Seeds
    run in decreasing ``dx * x + dz * z`` (a counting sort), so everything
    ahead of a seed on its line is final when it runs, and each walks back
    until an entry comes out unchanged: an entry is rewritten at most once,
    with its final value (in another order the walks would still end right,
    but could rewrite entries twice, and the count would be off). An entry's
    rule is :func:`_entry_rule`, the very rule :func:`build_tables` sweeps
    with, on the same inputs, so the result is bit for bit the same.

    Scratch (caller's, reusable, no reset needed; :func:`update_scratch` makes
    them): ``rec`` int64 of at least ``2 * ((bh + 2) * wp + (bw + 2) * hp)``
    (the straight entries whose sign class flipped), ``order`` int64 of at
    least ``(bw + 1) * (bh + 1) + (bh + 2) * wp + (bw + 2) * hp`` (one
    direction's seeds, sorted), ``cnt`` int64 of at least ``wp + hp``. With
    any of them shorter the kernel rebuilds the tables instead.

    Cost follows the entries that change, about 10-35 ns each: blocking a free
    cell of NewYork_0_1024 (1026 x 1026 padded) changes about 20 000 entries
    (median; up to 55 000) in 0.3-0.45 ms median, under 1 ms at the 99th
    percentile; a free cell of den520d about 1 200 in 30 us; against 27 ms
    and 1.4 ms to rebuild (one 2-core machine). A box costs about its area
    times 4 seeds on top, at walking speed (not sweeping speed): rebuilding
    is as cheap once the box's side is about a quarter of the grid's (its
    area about ``wp * hp / 16``: 64 x 64 on den520d, 256 x 256 on
    NewYork_0_1024, box contents random; a box made all blocked or all free
    crosses over at about 0.4 of the side).

    Compiled (cold, no disk cache) in about 1.7 s when :func:`build_tables`
    is compiled already (it is called for the fallback), 3 s otherwise."""
    if x0 < 1:
        x0 = 1
    if z0 < 1:
        z0 = 1
    if x1 > wp - 2:
        x1 = wp - 2
    if z1 > hp - 2:
        z1 = hp - 2
    if x0 > x1 or z0 > z1:
        return 0
    bw = x1 - x0 + 1
    bh = z1 - z0 + 1
    nrec, nord, ncnt = update_scratch_sizes(wp, hp, bw, bh)
    if rec.shape[0] < nrec or order.shape[0] < nord or cnt.shape[0] < ncnt:
        build_tables(cells, wp, hp, tab)
        return 8 * wp * hp
    changed = 0
    nr = np.int64(0)  # int64, not a literal: one compiled _walk for all calls
    one = np.int64(1)
    # straight: the lines through the box and its ring, each from its far
    # side of the box backwards
    for k in range(4):
        dx = _DX[k]
        dz = _DZ[k]
        nl = bh + 2 if dz == 0 else bw + 2
        for i in range(nl):
            if dz == 0:
                x = x1 if dx > 0 else x0
                z = z0 - 1 + i
                m = bw + 1
            else:
                x = x0 - 1 + i
                z = z1 if dz > 0 else z0
                m = bh + 1
            c, nr = _walk(cells, wp, hp, tab, k, x, z, m, rec, nr)
            changed += c
    # diagonal: seeds (the box's own, then one behind each flipped straight
    # entry this diagonal reads) in decreasing dx * x + dz * z, each walked back
    nk = wp + hp - 1
    nb = (bw + 1) * (bh + 1)
    for k in range(4, 8):
        dx = _DX[k]
        dz = _DZ[k]
        kh = 0 if dx > 0 else 1
        kv = 2 if dz > 0 else 3
        shift = (wp - 1 if dx < 0 else 0) + (hp - 1 if dz < 0 else 0)  # keys in [0, nk)
        xa = x0 - 1 if dx > 0 else x0
        za = z0 - 1 if dz > 0 else z0
        for j in range(nk):
            cnt[j] = 0
        total = 0
        for phase in range(2):  # a counting sort: count the keys, then place
            for i in range(nb + nr):
                if i < nb:
                    x = xa + i % (bw + 1)
                    z = za + i // (bw + 1)
                else:
                    e = rec[i - nb]
                    if (e & 7) != kh and (e & 7) != kv:
                        continue
                    x = ((e >> 3) & 0xFFFF) - dx
                    z = (e >> 19) - dz
                    if x < 0 or z < 0 or x >= wp or z >= hp:
                        continue
                j = dx * x + dz * z + shift
                if phase == 0:
                    cnt[j] += 1
                else:
                    order[cnt[j]] = (z << 16) | x
                    cnt[j] += 1
            if phase == 0:
                for j in range(nk - 1, -1, -1):
                    c = cnt[j]
                    cnt[j] = total
                    total += c
        for i in range(total):
            e = order[i]
            c, _ = _walk(cells, wp, hp, tab, k, e & 0xFFFF, e >> 16, one, rec, nr)
            changed += c
    return changed


@njit(inline="always")
def _add(cand, nc, qx, qz, ng, nd, wp):  # type: ignore[no-untyped-def]
    """Append a successor to this expansion's list (as :func:`navkit._kernels.jps.jps_add`)
    and prefetch its node record, which the offers after the jumps read."""
    prefetch(nd, 2 * (qz * wp + qx))
    cand[3 * nc] = qx
    cand[3 * nc + 1] = qz
    cand[3 * nc + 2] = ng
    return nc + 1


@njit(inline="always")
def _straight(tab, ctx, r, px, pz, gc, cand, nc, nd, k, dx, dz):  # type: ignore[no-untyped-def]
    """The straight jump ``k`` (< 4, step ``(dx, dz)``) from ``(px, pz)`` (table
    row ``r = 8 * node``, cost ``gc``): the goal when it lies on the way, else
    the jump point, appended to ``cand``; returns the new count."""
    gx, gz, card, wp = ctx.gx, ctx.gz, ctx.card, ctx.wp
    v = np.int64(tab[r + k])
    if dz == 0:
        if gz == pz:
            t = (gx - px) * dx
            if t > 0 and (t <= v or t <= -v):
                return _add(cand, nc, gx, gz, gc + t * card, nd, wp)
    elif gx == px:
        t = (gz - pz) * dz
        if t > 0 and (t <= v or t <= -v):
            return _add(cand, nc, gx, gz, gc + t * card, nd, wp)
    if v > 0:
        return _add(cand, nc, px + v * dx, pz + v * dz, gc + v * card, nd, wp)
    return nc


@njit(inline="always")
def _diagonal(tab, ctx, r, px, pz, gc, cand, nc, nd, k, dx, dz, kh, kv):  # type: ignore[no-untyped-def]
    """The diagonal jump ``k`` (>= 4, step ``(dx, dz)``, straight components
    ``kh`` and ``kv``), arguments as :func:`_straight`: the straight jump points
    off the diagonal (horizontal first, then vertical, step by step) and the
    goal, as the online diagonal jump lists them, reading only the cells
    where the tables (the next *interesting* diagonal cell) or the goal's row
    and column (the steps ``t1 <= t2`` at which the diagonal crosses them)
    say something happens."""
    gx, gz, card, diag, wp = ctx.gx, ctx.gz, ctx.card, ctx.diag, ctx.wp
    step = 8 * (dz * wp + dx)  # table offset of one diagonal step
    tz = (gz - pz) * dz  # the step that reaches the goal's row (if > 0)
    tx = (gx - px) * dx  # ... and its column
    if tz <= 0:
        tz = _BIG
    if tx <= 0:
        tx = _BIG
    t1 = tz if tz < tx else tx
    t2 = tx if tz < tx else tz
    s = np.int64(0)
    while True:
        d = np.int64(tab[r + k])
        lim = s + d if d > 0 else s - d  # the next interesting step, or the last legal one
        if t1 < lim or (t1 == lim and d <= 0):
            # a crossing of the goal's row or column before the next interesting
            # cell: only the goal can come from there
            r += (t1 - s) * step
            s = t1
            x = px + s * dx
            z = pz + s * dz
            gd = gc + s * diag
            if t1 == t2:  # both at once: the goal itself
                return _add(cand, nc, x, z, gd, nd, wp)
            if t1 == tz:
                v = np.int64(tab[r + kh])
                t = (gx - x) * dx
            else:
                v = np.int64(tab[r + kv])
                t = (gz - z) * dz
            if t > 0 and (t <= v or t <= -v):
                nc = _add(cand, nc, gx, gz, gd + t * card, nd, wp)
            t1 = t2
            t2 = _BIG
            continue
        if d <= 0:
            return nc
        r += d * step
        s += d
        x = px + s * dx
        z = pz + s * dz
        gd = gc + s * diag
        vh = np.int64(tab[r + kh])
        vv = np.int64(tab[r + kv])
        if t1 == s:  # the interesting cell lies on the goal's row or column
            if t1 == t2:
                return _add(cand, nc, x, z, gd, nd, wp)
            if t1 == tz:
                t = (gx - x) * dx
                if t > 0 and (t <= vh or t <= -vh):
                    vh = t
            else:
                t = (gz - z) * dz
                if t > 0 and (t <= vv or t <= -vv):
                    vv = t
            t1 = t2
            t2 = _BIG
        if vh > 0:
            nc = _add(cand, nc, x + vh * dx, z, gd + vh * card, nd, wp)
        if vv > 0:
            nc = _add(cand, nc, x, z + vv * dz, gd + vv * card, nd, wp)


@njit(_nrt=False)
def jps_plus(tab, gbi, gb, cells, wp, model, ws, start, goal, budget, stats):  # type: ignore[no-untyped-def]
    """One JPS+ query ``start -> goal`` (padded nodes) on the tables ``tab`` of
    the padded static ``cells`` (``wp`` columns); returns the status and fills
    ``stats`` exactly as :func:`navkit._kernels.jps.jps` does (same arguments
    otherwise; ``ws.nd`` keeps the parent chain for :func:`trace`).

    The expansions are online JPS's, in the same order, with the same
    successors and counts. Two things differ inside: the forced side cells of
    a straight arrival are read off the node's own table row (no grid
    reads), and the queue keeps its smallest entry in a slot beside the heap
    while it beats the heap's top (an expansion's best successor is often
    the next node expanded: it skips a push and a pop). Entries leave in the
    heap's order either way (smallest ``f``, then larger ``g``, then lower node).

    Goal bounding (optional): ``gbi`` (int32, one per node, or empty for none)
    gives a node's row in ``gb`` (int16, 32 per row: per direction ``k`` the
    box ``x0, z0, x1, z1`` of padded cells that some optimal path from the node
    reaches leaving by ``k``), -1 for none; a direction whose box does not hold
    the goal is not explored. Exact either way; fewer expansions with bounds."""
    model_ = JpsModelArgs(*model)
    card, diag, xb, cb = model_.card, model_.diag, model_.xb, model_.cb
    ws_ = JpsWorkspaceArgs(*ws)
    nd, hf, hk, gen, cand = ws_.nd, ws_.hf, ws_.hk, ws_.gen, ws_.cand
    open_tag = np.int64(2 * gen)
    closed_tag = np.int64(2 * gen + 1)
    mask = (np.int64(1) << cb) - 1
    xmask = (np.int64(1) << xb) - 1
    hp = cells.shape[0] // wp
    gx = goal % wp
    gz = goal // wp
    sx = start % wp
    sz = start // wp
    if cells[start] == 0:
        stats[ST_STATUS] = NO_START
        stats[ST_COST] = -1
        return NO_START
    if cells[goal] == 0:
        stats[ST_STATUS] = NO_GOAL
        stats[ST_COST] = -1
        return NO_GOAL
    ctx = JpsContext(open_tag=open_tag, closed_tag=closed_tag, goal=goal, gx=gx, gz=gz,
                     card=card, diag=diag, xb=xb, cb=cb, wp=wp)
    room = hf.shape[0] - (8 * (wp if wp < hp else hp) + 8)
    scode = (sz << xb) | sx
    nd[2 * start] = (open_tag << 32) | scode
    nd[2 * start + 1] = 0
    size = 0 * start  # int64, as heap_push returns it
    # the slot: the smallest entry offered since the last pop, while it beats the heap's top
    tf = heuristic(sx, sz, gx, gz, card, diag, True, 1)
    tk = (tf << cb) | scode
    has = True

    expanded = 0
    generated = 1
    best = start
    best_d2 = (sx - gx) * (sx - gx) + (sz - gz) * (sz - gz)
    status = UNREACHABLE

    while has or size > 0:
        if has and (size == 0 or tf < hf[0] or (tf == hf[0] and tk < hk[0])):
            fc = tf
            kk = tk
            has = False
        else:
            fc = hf[0]
            kk = hk[0]
            size = heap_pop(hf, hk, size)
        pc = kk & mask
        px = pc & xmask
        pz = pc >> xb
        p = pz * wp + px
        gc = fc - (kk >> cb)
        e0 = nd[2 * p]
        if (e0 >> 32) != open_tag or gc != nd[2 * p + 1]:
            continue  # stale entry
        nd[2 * p] = (closed_tag << 32) | (e0 & LOW32)
        if size > 0:  # the likely next node: its table row and state while we work here
            c1 = hk[0] & mask
            n1 = (c1 >> xb) * wp + (c1 & xmask)
            prefetch(tab, 8 * n1)
            prefetch(nd, 2 * n1)
        expanded += 1
        best, best_d2 = closer(p, px, pz, gx, gz, best, best_d2)
        stop = expansion_end(p, goal, expanded, budget)
        if stop >= 0:
            status = stop
            break
        if size > room:
            size = jps_compact(hf, hk, size, nd, open_tag, wp, xb, cb)

        # directions to explore, as the online search; bit k: table direction k
        r = 8 * p
        qc = e0 & LOW32
        if qc == pc:
            dirs = 0xFF  # the start: all eight
        else:
            ax = px - (qc & xmask)
            az = pz - (qc >> xb)
            ex = 0 if ax > 0 else 1  # 0 going east, 1 west
            ez = 0 if az > 0 else 1  # 0 going south, 1 north
            if ax < 0:
                ax = -ax
            if az < 0:
                az = -az
            if ax == az:  # a diagonal arrival: the diagonal and its two components
                dirs = (1 << (4 + ex + 2 * ez)) | (1 << ex) | (1 << (2 + ez))
            elif ax > az:  # horizontal: the side cell (px, pz + s) is forced when it
                # is free (straight entry s not -1) and the one behind it blocked:
                # then the diagonal entry back-and-s is 0 (p's own back cell is free)
                dirs = 1 << ex
                if tab[r + 2] != -1 and tab[r + 5 - ex] == 0:
                    dirs |= (1 << 2) | (1 << (4 + ex))
                if tab[r + 3] != -1 and tab[r + 7 - ex] == 0:
                    dirs |= (1 << 3) | (1 << (6 + ex))
            else:  # vertical, the same with the side cells (px + s, pz)
                dirs = 1 << (2 + ez)
                if tab[r] != -1 and tab[r + 6 - 2 * ez] == 0:
                    dirs |= 1 | (1 << (4 + 2 * ez))
                if tab[r + 1] != -1 and tab[r + 7 - 2 * ez] == 0:
                    dirs |= (1 << 1) | (1 << (5 + 2 * ez))

        if gbi.shape[0] > 0:
            j = gbi[p]
            if j >= 0:  # each box tested without branches (fewer mispredictions)
                o = 32 * j
                for k in range(8):
                    if dirs & (1 << k):
                        b = o + 4 * k
                        out = (gx < gb[b]) | (gz < gb[b + 1]) | (gx > gb[b + 2]) | (gz > gb[b + 3])
                        dirs &= ~(np.int64(out) << k)

        # the online search's order of jumps: E, W, S, N, SE, SW, NE, NW (one
        # inlined copy of each jump in a loop: eight specialised copies ran
        # 5-7 % faster but took twice the compile time)
        nc = 0
        for k in range(4):
            if dirs & (1 << k):
                nc = _straight(tab, ctx, r, px, pz, gc, cand, nc, nd, k, _DX[k], _DZ[k])
        for k in range(4, 8):
            if dirs & (1 << k):
                dx = _DX[k]
                dz = _DZ[k]
                nc = _diagonal(tab, ctx, r, px, pz, gc, cand, nc, nd, k, dx, dz,
                               0 if dx > 0 else 1, 2 if dz > 0 else 3)
        for i in range(nc):  # as jps.jps_offer, into the slot or the heap
            qx = cand[3 * i]
            qz = cand[3 * i + 1]
            ng = cand[3 * i + 2]
            q = qz * wp + qx
            tq = nd[2 * q] >> 32
            if tq == closed_tag or (tq == open_tag and ng >= nd[2 * q + 1]):
                continue
            nd[2 * q] = (open_tag << 32) | pc
            nd[2 * q + 1] = ng
            h = heuristic(qx, qz, gx, gz, card, diag, True, 1)
            f = ng + h
            key = (h << cb) | (qz << xb) | qx
            generated += 1
            if not has:
                tf = f
                tk = key
                has = True
            elif f < tf or (f == tf and key < tk):
                size = heap_push(hf, hk, size, tf, tk)
                tf = f
                tk = key
            else:
                size = heap_push(hf, hk, size, f, key)

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


@njit(inline="always")
def _put_run(nodes, cells, pts, room, i, cx, cz, j0, j1, sx, sz, wp, min_x, min_z, cs):  # type: ignore[no-untyped-def]
    """Chain entries ``i - j`` for ``j`` in ``[j0, j1)``: padded node
    ``(cx + j * sx, cz + j * sz)``; with ``room``, also its unpadded cell and
    world centre (the formula of ``NavGrid.cells_to_world``, so the floats are
    identical to :func:`navkit._kernels.jps.jps_trace_body`'s)."""
    for j in range(j0, j1):
        nodes[i - j] = (cz + j * sz) * wp + cx + j * sx
    if room:
        for j in range(j0, j1):
            x = cx + j * sx - 1
            z = cz + j * sz - 1
            cells[i - j, 0] = x
            cells[i - j, 1] = z
            pts[i - j, 0] = min_x + (np.float64(x) + 0.5) * cs
            pts[i - j, 1] = min_z + (np.float64(z) + 0.5) * cs


@njit(_nrt=False)
def trace(nd, wp, xb, start, end, nodes, cells, pts, geo):  # type: ignore[no-untyped-def]
    """:func:`navkit._kernels.jps.jps_trace_body`'s result (the same ``nodes``,
    ``cells`` and ``pts``, bit for bit), filling each run between two jump
    points (its diagonal steps, then its straight ones) in straight loops."""
    xmask = (np.int64(1) << xb) - 1
    total = jps_chain_length(nd, wp, xb, start, end)
    room = cells.shape[0] >= total and pts.shape[0] >= total
    geo_ = CellGeometry(*geo)
    min_x, min_z, cs = geo_.min_x, geo_.min_z, geo_.cell_size
    i = total - 1
    p = end
    cx = p % wp
    cz = p // wp
    while True:
        # cell i is (cx, cz); walk back to the parent: straight steps, then diagonal ones
        if p == start:
            n1 = 0
            n2 = 0
            sx1 = sz1 = sx2 = sz2 = 0
        else:
            qc = nd[2 * p] & LOW32
            tx = qc & xmask
            tz = qc >> xb
            ddx = tx - cx
            ddz = tz - cz
            sx2 = 1 if ddx > 0 else (-1 if ddx < 0 else 0)
            sz2 = 1 if ddz > 0 else (-1 if ddz < 0 else 0)
            adx = ddx * sx2
            adz = ddz * sz2
            if adx > adz:
                n1 = adx - adz
                n2 = adz
                sx1 = sx2
                sz1 = 0
            else:
                n1 = adz - adx
                n2 = adx
                sx1 = 0
                sz1 = sz2
        # cell i, then the n1 straight cells before it, then the n2 diagonal ones
        _put_run(nodes, cells, pts, room, i, cx, cz, 0, n1 + 1, sx1, sz1, wp, min_x, min_z, cs)
        if p == start:
            return total
        cx += n1 * sx1
        cz += n1 * sz1
        i -= n1
        _put_run(nodes, cells, pts, room, i, cx, cz, 1, n2, sx2, sz2, wp, min_x, min_z, cs)
        # the parent itself is the next run's first cell
        cx += n2 * sx2
        cz += n2 * sz2
        i -= n2
        p = cz * wp + cx


@njit(_nrt=False)
def jps_plus_path(tab, gbi, gb, cells, wp, model, ws, start, goal, budget, to_best, stats, out):  # type: ignore[no-untyped-def]
    """:func:`jps_plus` and the path in one call, as :func:`navkit._kernels.jps.jps_path`
    (``out`` a :class:`~navkit._kernels.layouts.JpsOutArgs`); returns the path
    length (0: no path)."""
    out_ = JpsOutArgs(*out)
    nodes, cpath, pts, geo = out_.nodes, out_.cells, out_.pts, out_.geo
    nd, xb = JpsWorkspaceArgs(*ws).nd, JpsModelArgs(*model).xb
    status = jps_plus(tab, gbi, gb, cells, wp, model, ws, start, goal, budget, stats)
    if status == FOUND:
        return trace(nd, wp, xb, start, goal, nodes, cpath, pts, geo)
    if to_best and status == BUDGET_EXHAUSTED and stats[ST_BEST] != start:
        return trace(nd, wp, xb, start, stats[ST_BEST], nodes, cpath, pts, geo)
    return 0


@njit
def jps_plus_seq(tab, gbi, gb, cells, wp, model, ws, starts, goals, budget, out_stats):  # type: ignore[no-untyped-def]
    """Queries ``starts[i] -> goals[i]`` one after another on the tables, as
    :func:`navkit._kernels.jps.jps_seq` runs them online (query ``i`` under
    generation ``ws.gen + i``; rows whose start or goal is blocked get NO_START
    / NO_GOAL and zeros). Runs without the GIL: :mod:`navkit.query.batch`
    spreads a batch over threads."""
    ws_ = JpsWorkspaceArgs(*ws)
    nd, hf, hk, gen, cand = ws_.nd, ws_.hf, ws_.hk, ws_.gen, ws_.cand
    stats = np.zeros(out_stats.shape[1], dtype=np.int64)
    for i in range(starts.shape[0]):
        status = jps_plus(tab, gbi, gb, cells, wp, model, (nd, hf, hk, gen + i, cand),
                          starts[i], goals[i], budget, stats)
        if status == NO_START or status == NO_GOAL:
            for k in range(out_stats.shape[1]):
                out_stats[i, k] = 0
            out_stats[i, ST_STATUS] = status
            out_stats[i, ST_COST] = -1
        else:
            for k in range(out_stats.shape[1]):
                out_stats[i, k] = stats[k]
    return starts.shape[0]


# ------------------------------------------------------------- goal bounding
@njit(_nrt=False)
def legal_moves(cells, wp, moves):  # type: ignore[no-untyped-def]
    """Per padded node, into ``moves`` (uint8, one per node), the bit set of the
    steps :data:`DIRS` it may take: bit ``k`` when the node and the cell step
    ``k`` leads to are free and, for a diagonal, both cells beside it too (the
    corner rule). What :func:`build_goal_bounds` reads instead of the cells.

    >>> import numpy as np
    >>> cells = np.zeros(16, np.uint8); cells[[5, 6, 9, 10]] = 1  # 2x2 free, padded 4x4
    >>> moves = np.zeros(16, np.uint8); legal_moves(cells, 4, moves)
    >>> [k for k in range(8) if moves[5] >> k & 1]  # east, south, south-east
    [0, 2, 4]
    """
    n = cells.shape[0]
    for u in range(n):
        m = 0
        if cells[u] != 0:
            for k in range(8):
                dx = _DX[k]
                dz = _DZ[k]
                v = u + dz * wp + dx
                if v < 0 or v >= n or cells[v] == 0:
                    continue
                if dx != 0 and dz != 0 and (cells[u + dx] == 0 or cells[u + dz * wp] == 0):
                    continue
                m |= 1 << k
        moves[u] = m


@njit
def build_goal_bounds(moves, wp, card, diag, sources, gb, dist, stamp, first, qc, qd):  # type: ignore[no-untyped-def]
    """Goal-bounding boxes of the padded nodes ``sources`` (int64) into ``gb``
    (int16, ``32 * len(sources)``; layout: :func:`jps_plus`), one Dijkstra per
    source over the steps ``moves`` allows (:func:`legal_moves`: the corner rule
    already applied) with step costs ``card`` / ``diag``.

    The Dijkstra's queue is two FIFO queues, one for entries made by straight
    steps and one for diagonal steps: entries go in with the cost of the node
    being settled plus a constant, and settled costs never decrease, so each
    queue stays sorted and the smaller of the two heads is the queue's minimum
    (the straight head on a tie). A node enters each queue at most once per
    source (a second entry would need a smaller cost than the first, and a
    queue's costs only grow). Entries are ``cost * 2**24 + node`` (nodes
    < 2**24); a node's entry is stale when its cost is not ``dist``'s. A
    source's boxes grow in eight local registers and are written once at its
    end; a node's legal steps are one byte read (not up to ten cell reads):
    together 1.7-1.8x faster than reading the cells.

    Scratch: ``dist`` (int64), ``stamp`` (int64, zeros: one call per scratch),
    ``first`` (uint8: the set of first moves of the optimal paths to a node)
    one per node; ``qc`` / ``qd`` int64 rings whose length is a power of two
    above ``n``. Returns the number of nodes settled, over all sources."""
    settled = 0
    mc = qc.shape[0] - 1
    md = qd.shape[0] - 1
    shift = 24
    low = (1 << shift) - 1
    offs = np.empty(8, np.int64)
    for k in range(8):
        offs[k] = _DZ[k] * wp + _DX[k]
    bx0 = np.empty(8, np.int64)
    bz0 = np.empty(8, np.int64)
    bx1 = np.empty(8, np.int64)
    bz1 = np.empty(8, np.int64)
    for i in range(sources.shape[0]):
        src = sources[i]
        tag = np.int64(i + 1) * 2
        bx0[:] = 32767
        bz0[:] = 32767
        bx1[:] = -1
        bz1[:] = -1
        stamp[src] = tag
        dist[src] = 0
        first[src] = 0
        hc = tc = hd = td = 0
        qc[0] = src
        tc = 1
        while hc != tc or hd != td:
            if hd == td or (hc != tc and qc[hc & mc] <= qd[hd & md]):
                e = qc[hc & mc]
                hc += 1
            else:
                e = qd[hd & md]
                hd += 1
            u = e & low
            d = e >> shift
            if stamp[u] != tag or d != dist[u]:
                continue  # settled already (stamp tag + 1) or a stale entry
            stamp[u] = tag + 1
            settled += 1
            fm = first[u]
            if u != src:
                ux = u % wp
                uz = u // wp
                for k in range(8):
                    if (fm >> k) & 1:
                        if ux < bx0[k]:
                            bx0[k] = ux
                        if uz < bz0[k]:
                            bz0[k] = uz
                        if ux > bx1[k]:
                            bx1[k] = ux
                        if uz > bz1[k]:
                            bz1[k] = uz
            m = moves[u]
            for k in range(8):
                if (m >> k) & 1 == 0:
                    continue
                v = u + offs[k]
                sv = stamp[v]
                if sv == tag + 1:
                    continue
                nd_ = d + (card if k < 4 else diag)  # DIRS: four straight steps first
                fv = np.uint8(1 << k) if u == src else fm
                if sv != tag or nd_ < dist[v]:
                    stamp[v] = tag
                    dist[v] = nd_
                    first[v] = fv
                    if k < 4:
                        qc[tc & mc] = (nd_ << shift) | v
                        tc += 1
                    else:
                        qd[td & md] = (nd_ << shift) | v
                        td += 1
                elif nd_ == dist[v]:
                    first[v] |= fv
        for k in range(8):
            o = 32 * i + 4 * k
            gb[o] = bx0[k]
            gb[o + 1] = bz0[k]
            gb[o + 2] = bx1[k]
            gb[o + 3] = bz1[k]
    return settled
