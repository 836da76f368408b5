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
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit
from .geometry import closer
from .heap import heap_pop, heap_push
from .jps import LOW32, jps_add, jps_compact, jps_offer, jps_sign, jps_trace_body
from .layouts import JpsContext, JpsModelArgs, JpsOutArgs, JpsWorkspaceArgs
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


@njit
def build_tables(cells, wp, hp, tab):  # type: ignore[no-untyped-def]
    """Fill ``tab`` (int16, ``8 * wp * hp``) from the padded ``cells`` (uint8,
    nonzero = passable; ``wp``, ``hp`` <= :data:`MAX_SIDE`); returns 0.

    Every cell gets all eight entries (blocked cells too; searches never read
    those). Eight sweeps, each against its direction, so that an entry reads
    the entry of the next cell, already final."""
    for k in range(8):
        dx = 1 if k == 0 or k == 4 or k == 6 else (-1 if k == 1 or k == 5 or k == 7 else 0)
        dz = 1 if k == 2 or k == 4 or k == 5 else (-1 if k == 3 or k == 6 or k == 7 else 0)
        kh = 0 if dx > 0 else 1
        kv = 2 if dz > 0 else 3
        for iz in range(hp):
            z = hp - 1 - iz if dz > 0 else iz
            for ix in range(wp):
                x = wp - 1 - ix if dx > 0 else ix
                nx = x + dx
                nz = z + dz
                q = z * wp + x
                if dx == 0 or dz == 0:
                    if not _fr(cells, wp, hp, nx, nz):
                        v = -1
                    elif _forced(cells, wp, hp, nx, nz, dx, dz):
                        v = 1
                    else:
                        w = np.int64(tab[8 * (nz * wp + nx) + k])
                        v = w + 1 if w > 0 else w - 1
                else:
                    if not (_fr(cells, wp, hp, nx, nz) and _fr(cells, wp, hp, nx, z)
                            and _fr(cells, wp, hp, x, nz)):
                        v = 0
                    else:
                        r = 8 * (nz * wp + nx)
                        if tab[r + kh] > 0 or tab[r + kv] > 0:
                            v = 1
                        else:
                            w = np.int64(tab[r + k])
                            v = w + 1 if w > 0 else w - 1
                tab[8 * q + k] = v
    return 0


@njit(inline="always")
def _straight(tab, ctx, px, pz, gc, k, dx, dz, cand, nc):  # type: ignore[no-untyped-def]
    """The straight jump ``k`` from ``(px, pz)`` (cost ``gc``): the goal when it
    lies on the way, else the jump point; appended to ``cand``."""
    gx, gz, card, wp = ctx.gx, ctx.gz, ctx.card, ctx.wp
    v = np.int64(tab[8 * (pz * wp + px) + k])
    reach = v if v > 0 else -v
    if dz == 0:
        if gz == pz:
            t = (gx - px) * dx
            if 0 < t <= reach:
                return jps_add(cand, nc, gx, gz, gc + t * card)
    elif gx == px:
        t = (gz - pz) * dz
        if 0 < t <= reach:
            return jps_add(cand, nc, gx, gz, gc + t * card)
    if v > 0:
        return jps_add(cand, nc, px + v * dx, pz + v * dz, gc + v * card)
    return nc


@njit(inline="always")
def _diagonal(tab, ctx, px, pz, gc, k, dx, dz, cand, nc):  # type: ignore[no-untyped-def]
    """The diagonal jump ``k`` from ``(px, pz)``: the straight jump points off
    the diagonal (horizontal first, then vertical, step by step) and the goal,
    as the online diagonal jump lists them, reading only the cells where the
    tables or the goal's row and column say something happens."""
    gx, gz, card, diag, wp = ctx.gx, ctx.gz, ctx.card, ctx.diag, ctx.wp
    kh = 0 if dx > 0 else 1
    kv = 2 if dz > 0 else 3
    tz = (gz - pz) * dz  # the step that reaches the goal's row (if > 0)
    if tz <= 0:
        tz = _BIG
    tx = (gx - px) * dx  # ... and its column
    if tx <= 0:
        tx = _BIG
    s = np.int64(0)
    x = px
    z = pz
    while True:
        d = np.int64(tab[8 * (z * wp + x) + k])
        reach = s + (d if d > 0 else -d)
        nxt = s + d if d > 0 else reach + 1
        tg = tz if tz > s else _BIG
        if tx > s and tx < tg:
            tg = tx
        if tg <= reach and tg <= nxt:
            s = tg
        elif d > 0:
            s = nxt
        else:
            return nc
        x = px + s * dx
        z = pz + s * dz
        gd = gc + s * diag
        if x == gx and z == gz:
            return jps_add(cand, nc, x, z, gd)
        r = 8 * (z * wp + x)
        vh = np.int64(tab[r + kh])
        if z == gz:
            t = (gx - x) * dx
            if 0 < t <= (vh if vh > 0 else -vh):
                vh = t
        if vh > 0:
            nc = jps_add(cand, nc, x + vh * dx, z, gd + vh * card)
        vv = np.int64(tab[r + kv])
        if x == gx:
            t = (gz - z) * dz
            if 0 < t <= (vv if vv > 0 else -vv):
                vv = t
        if vv > 0:
            nc = jps_add(cand, nc, x, z + vv * dz, gd + vv * card)


# direction bit (dz + 1) * 3 + (dx + 1) of the online search -> table direction, in
# the online search's order of jumps: E, W, S, N, SE, SW, NE, NW
_ORDER_BITS = (5, 3, 7, 1, 8, 6, 2, 0)
_DX = (1, -1, 0, 0, 1, -1, 1, -1)
_DZ = (0, 0, 1, -1, 1, 1, -1, -1)


@njit
def jps_plus(tab, gbi, gb, cells, wp, model, ws, start, goal, budget, stats):  # type: ignore[no-untyped-def]
    """One JPS+ query ``start -> goal`` (padded nodes) on the tables ``tab`` of
    the padded static ``cells`` (``wp`` columns); returns the status and fills
    ``stats`` exactly as :func:`navkit._kernels.jps.jps` does (same arguments
    otherwise; ``ws.nd`` keeps the parent chain for
    :func:`navkit._kernels.jps.jps_trace_body`).

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
    h0 = heuristic(sx, sz, gx, gz, card, diag, True, 1)
    size = heap_push(hf, hk, np.int64(0), h0, (h0 << cb) | scode)

    expanded = 0
    generated = 1
    best = start
    best_d2 = (sx - gx) * (sx - gx) + (sz - gz) * (sz - gz)
    status = UNREACHABLE

    while size > 0:
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
        if size > 0:  # the likely next node: its table entries and state while we work here
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

        # directions to explore, as the online search: bit (dz + 1) * 3 + (dx + 1)
        qc = e0 & LOW32
        if qc == pc:
            dirs = 0x1EF
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
                    if cells[p + s * wp] != 0 and cells[p + s * wp - dx] == 0:
                        dirs |= (1 << ((s + 1) * 3 + 1)) | (1 << ((s + 1) * 3 + dx + 1))
            else:
                for s in (-1, 1):
                    if cells[p + s] != 0 and cells[p + s - dz * wp] == 0:
                        dirs |= (1 << ((dz + 1) * 3 + s + 1)) | (1 << (3 + s + 1))

        if gbi.shape[0] > 0:
            j = gbi[p]
            if j >= 0:
                for k in range(8):
                    bit = 1 << _ORDER_BITS[k]
                    if dirs & bit:
                        o = 32 * j + 4 * k
                        if gx < gb[o] or gz < gb[o + 1] or gx > gb[o + 2] or gz > gb[o + 3]:
                            dirs &= ~bit

        nc = 0
        for k in range(8):
            if dirs & (1 << _ORDER_BITS[k]):
                if k < 4:
                    nc = _straight(tab, ctx, px, pz, gc, k, _DX[k], _DZ[k], cand, nc)
                else:
                    nc = _diagonal(tab, ctx, px, pz, gc, k, _DX[k], _DZ[k], cand, nc)
        for i in range(nc):
            prefetch(nd, 2 * (cand[3 * i + 1] * wp + cand[3 * i]))
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


@njit
def jps_plus_path(tab, gbi, gb, cells, wp, model, ws, start, goal, budget, to_best, stats, out):  # type: ignore[no-untyped-def]
    """:func:`jps_plus` and the path in one call, as :func:`navkit._kernels.jps.jps_path`
    (``out`` a :class:`~navkit._kernels.layouts.JpsOutArgs`); returns the path
    length (0: no path)."""
    out_ = JpsOutArgs(*out)
    nodes, cpath, pts, geo = out_.nodes, out_.cells, out_.pts, out_.geo
    nd, xb = JpsWorkspaceArgs(*ws).nd, JpsModelArgs(*model).xb
    status = jps_plus(tab, gbi, gb, cells, wp, model, ws, start, goal, budget, stats)
    if status == FOUND:
        return jps_trace_body(nd, wp, xb, start, goal, nodes, cpath, pts, geo)
    if to_best and status == BUDGET_EXHAUSTED and stats[ST_BEST] != start:
        return jps_trace_body(nd, wp, xb, start, stats[ST_BEST], nodes, cpath, pts, geo)
    return 0


# ------------------------------------------------------------- goal bounding
@njit
def build_goal_bounds(cells, wp, card, diag, sources, gb, dist, stamp, first, hf, hk):  # type: ignore[no-untyped-def]
    """Goal-bounding boxes of the padded nodes ``sources`` (int64) into ``gb``
    (int16, ``32 * len(sources)``; layout: :func:`jps_plus`), one Dijkstra per
    source under the corner rule and step costs ``card`` / ``diag``.

    Scratch: ``dist`` (int64), ``stamp`` (int64, zeros on the first call),
    ``first`` (uint8: the set of first moves of the optimal paths to a node)
    one per node; ``hf`` / ``hk`` heap arrays of at least ``8 * n + 8``.
    Returns the number of nodes settled, over all sources."""
    settled = 0
    n = cells.shape[0]
    for i in range(sources.shape[0]):
        src = sources[i]
        tag = np.int64(i + 1)
        for k in range(8):
            o = 32 * i + 4 * k
            gb[o] = 32767
            gb[o + 1] = 32767
            gb[o + 2] = -1
            gb[o + 3] = -1
        stamp[src] = tag
        dist[src] = 0
        first[src] = 0
        size = heap_push(hf, hk, np.int64(0), np.int64(0), src)
        while size > 0:
            d = hf[0]
            u = hk[0]
            size = heap_pop(hf, hk, size)
            if stamp[u] != tag or d != dist[u]:
                continue  # settled already (stamp tag + n) or a stale entry
            stamp[u] = tag + n
            settled += 1
            ux = u % wp
            uz = u // wp
            fm = first[u]
            if u != src:
                for k in range(8):
                    if (fm >> k) & 1:
                        o = 32 * i + 4 * k
                        if ux < gb[o]:
                            gb[o] = ux
                        if uz < gb[o + 1]:
                            gb[o + 1] = uz
                        if ux > gb[o + 2]:
                            gb[o + 2] = ux
                        if uz > gb[o + 3]:
                            gb[o + 3] = uz
            for k in range(8):
                dx = _DX[k]
                dz = _DZ[k]
                v = u + dz * wp + dx
                if v < 0 or v >= n or cells[v] == 0:
                    continue
                if dx != 0 and dz != 0:
                    if cells[u + dx] == 0 or cells[u + dz * wp] == 0:
                        continue
                    nd_ = d + diag
                else:
                    nd_ = d + card
                fv = np.uint8(1 << k) if u == src else fm
                sv = stamp[v]
                if sv == tag + n:
                    continue
                if sv != tag or nd_ < dist[v]:
                    stamp[v] = tag
                    dist[v] = nd_
                    first[v] = fv
                    size = heap_push(hf, hk, size, nd_, v)
                elif nd_ == dist[v]:
                    first[v] |= fv
    return settled
