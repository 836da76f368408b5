"""The crowd tick: every agent's steering, blending, integration and the wall cut, in one kernel.

State is a structure of arrays (:class:`CrowdState`), the map and flow
fields are :class:`CrowdWorld`, the reusable buffers :class:`CrowdWork`; each
is passed as a plain tuple. A tick is :func:`prepare` (serial:
the spatial hash, a snapshot of the start positions and velocities in slot
order) then :func:`advance` over contiguous agent ranges, one per thread:
each agent reads other agents only through the snapshot and writes only its
own rows, and its neighbour sums run in the fixed cell-scan order, so the
result is bit-identical for any thread count. ``trace`` skips its cell walk
when the start cell's clearance (:func:`clearance`) shows every cell in reach
is free.

Behaviour codes are the column order of the weights (see
:data:`navkit.crowd.steering.BEHAVIOURS`); ``params`` is
:meth:`navkit.crowd.steering.SteeringParams.as_array`.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .._numba_config import njit
from . import spatial_hash as _sh

SEEK, FLEE, ARRIVE, WANDER, PURSUE, EVADE = 0, 1, 2, 3, 4, 5
SEPARATION, ALIGNMENT, COHESION, WALLS, PATH, FLOW = 6, 7, 8, 9, 10, 11
N_BEHAVIOURS = 12

#: Agent status codes (``CrowdState.status``).
MOVING = 0
ARRIVED = 1
UNREACHABLE = 2

# params columns (SteeringParams field order)
P_SLOW, P_TOL, P_FLEE_R, P_WANDER_R, P_WANDER_D, P_JITTER, P_PREDICT = 0, 1, 2, 3, 4, 5, 6
P_SEP_R, P_ALI_R, P_COH_R, P_LOOK, P_FEELER, P_PATH_R, P_ARR_R, P_ARR_SP = (
    7, 8, 9, 10, 11, 12, 13, 14)

_FREE = 2.0  # trace(): t of a segment that meets no blocked cell


class CrowdState(NamedTuple):
    """Per agent, ``n`` rows (float64 unless noted)."""

    pos: Any  # (n, 2) m
    vel: Any  # (n, 2) m/s
    head: Any  # (n, 2) unit heading
    max_speed: Any  # (n,) m/s
    max_force: Any  # (n,) m/s^2
    weights: Any  # (n, 12)
    target: Any  # (n, 2) seek / arrive target, m
    threat: Any  # (n, 2) flee point, m
    chase: Any  # (n,) int32 pursued agent or -1
    avoid: Any  # (n,) int32 evaded agent or -1
    wander: Any  # (n,) wander angle, rad
    path_off: Any  # (n + 1,) int64 CSR offsets into path_pts
    path_pts: Any  # (m, 2) waypoints, m
    path_idx: Any  # (n,) int32 current waypoint
    flow_id: Any  # (n,) int32 flow field followed or -1
    status: Any  # (n,) int8 MOVING / ARRIVED / UNREACHABLE


class CrowdWorld(NamedTuple):
    """The map: walkable cells (uint8 ``(depth, width)``), its geometry, flow fields."""

    has_grid: Any  # int 0/1
    walk: Any  # (depth, width) uint8
    min_x: Any
    min_z: Any
    cell: Any  # cell size, m
    flow_dir: Any  # (F, depth, width) int8 direction codes (navkit.query.flow)
    flow_cost: Any  # (F, depth, width) float64 walking distance to the goal, m (inf: none)
    clear: Any  # (depth, width) int32 Chebyshev distance to a blocked or off-grid cell (clearance)


class CrowdWork(NamedTuple):
    """Buffers of one crowd, reused every tick."""

    cell_start: Any  # (max_cells + 1,) int32
    order: Any  # (n,) int32
    slot: Any  # (n,) int32
    cellid: Any  # (n,) int32
    spos: Any  # (n, 2) the tick's start positions, in slot order
    svel: Any  # (n, 2) the tick's start velocities, in slot order
    geom: Any  # (5,)
    dims: Any  # (2,) int64
    arrived: Any  # (F,) int64
    max_cells: Any  # int


# unit_hash, truncate and steer are plain calls, not inlined copies: advance
# calls them at a dozen sites, and each inlined copy was typed again with the
# whole kernel (most of its compile time); LLVM inlines them back.
@njit
def unit_hash(seed, i, tick):  # type: ignore[no-untyped-def]
    """A uniform float in [0, 1) from (seed, i, tick): splitmix64 finalizer."""
    z = (np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)) ^ (
        np.uint64(i) * np.uint64(0xBF58476D1CE4E5B9)) ^ (
        np.uint64(tick) * np.uint64(0x94D049BB133111EB))
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit
def truncate(x, z, m):  # type: ignore[no-untyped-def]
    l2 = x * x + z * z
    if l2 > m * m and l2 > 0.0:
        s = m / math.sqrt(l2)
        return x * s, z * s
    return x, z


@njit
def steer(dx, dz, speed, vx, vz, mf, inv_dt):  # type: ignore[no-untyped-def]
    """The acceleration that turns ``v`` into ``normalize(d) * speed`` in one
    tick, truncated to ``mf``; a zero ``d`` asks to stop."""
    l2 = dx * dx + dz * dz
    if l2 > 0.0:
        s = speed / math.sqrt(l2)
        return truncate((dx * s - vx) * inv_dt, (dz * s - vz) * inv_dt, mf)
    return truncate(-vx * inv_dt, -vz * inv_dt, mf)


@njit
def arrive_force(dx, dz, ms, vx, vz, mf, dt, inv_dt, slow, tol):  # type: ignore[no-untyped-def]
    """Arrive at the point ``d`` away: brake inside ``tol``, else toward it at
    ``ms * min(1, |d| / slow, |d| / (ms dt))`` (no overshoot)."""
    d = math.sqrt(dx * dx + dz * dz)
    if d <= tol:
        return truncate(-vx * inv_dt, -vz * inv_dt, mf)
    sp = ms * d / slow
    sp = sp if sp < ms else ms
    sp = sp if sp < d / dt else d / dt
    return steer(dx, dz, sp, vx, vz, mf, inv_dt)


@njit
def wander_force(u, th, jitter, hx, hz, radius, dist, ms, vx, vz, mf, inv_dt):  # type: ignore[no-untyped-def]
    """Wander: the circle angle ``th`` moves by ``(u - 0.5) * jitter``; seek the
    point on the circle of ``radius`` m, ``dist`` m ahead along the heading
    ``h``. Returns ``(fx, fz, new angle)``."""
    th = th + (u - 0.5) * jitter
    c = math.cos(th)
    sn = math.sin(th)
    tx = hx * dist + (hx * c - hz * sn) * radius
    tz = hz * dist + (hx * sn + hz * c) * radius
    if tx != 0.0 or tz != 0.0:
        fx, fz = steer(tx, tz, ms, vx, vz, mf, inv_dt)
        return fx, fz, th
    return 0.0, 0.0, th


@njit(inline="always")
def flock_sums(px, pz, s, i, seed, sep_r, ali_r, coh_r, nb_r, geom, dims, cell_start, order,
               spos, svel):  # type: ignore[no-untyped-def]
    """The flocking sums of agent ``i`` at ``(px, pz)`` (slot ``s`` of the
    neighbour index, skipped) over the index's points closer than each
    radius (``d < r``), in cell-scan order: separation (sum of ``d / |d|^2``;
    coincident agents: a hashed direction of ``(seed, pair)``, opposite for
    the pair), alignment (sum of ``svel``, the velocities in index order),
    cohesion (sum of positions). Returns ``(sepx, sepz, nsep, alix, aliz,
    nali, cohx, cohz, ncoh)``."""
    sepx = 0.0
    sepz = 0.0
    nsep = 0
    alix = 0.0
    aliz = 0.0
    nali = 0
    cohx = 0.0
    cohz = 0.0
    ncoh = 0
    hminx = geom[0]
    hminz = geom[1]
    hcs = geom[2]
    hnx = dims[0]
    hnz = dims[1]
    x0 = _sh.axis_cell(px - nb_r, hminx, hcs, hnx)
    x1 = _sh.axis_cell(px + nb_r, hminx, hcs, hnx)
    z0 = _sh.axis_cell(pz - nb_r, hminz, hcs, hnz)
    z1 = _sh.axis_cell(pz + nb_r, hminz, hcs, hnz)
    for cz in range(z0, z1 + 1):
        row = cz * hnx
        for q in range(cell_start[row + x0], cell_start[row + x1 + 1]):
            if q == s:
                continue
            dx = px - spos[q, 0]
            dz = pz - spos[q, 1]
            d2 = dx * dx + dz * dz
            if d2 < sep_r * sep_r:
                if d2 > 0.0:
                    sepx += dx / d2
                    sepz += dz / d2
                else:
                    j = order[q]
                    a = i if i < j else j
                    b = j if i < j else i
                    ang = 6.283185307179586 * unit_hash(seed, a * 1000003 + b, np.int64(0))
                    sg = 1.0 if i < j else -1.0
                    sepx += sg * math.cos(ang) * 1e6
                    sepz += sg * math.sin(ang) * 1e6
                nsep += 1
            if d2 < ali_r * ali_r:
                alix += svel[q, 0]
                aliz += svel[q, 1]
                nali += 1
            if d2 < coh_r * coh_r:
                cohx += spos[q, 0]
                cohz += spos[q, 1]
                ncoh += 1
    return sepx, sepz, nsep, alix, aliz, nali, cohx, cohz, ncoh


@njit
def policy_force(w, prm, mf, px, pz, vx, vz, hx, hz, ms, dt, tx, tz, final, th, u, s, i,
                 geom, dims, cell_start, order, spos, svel):  # type: ignore[no-untyped-def]
    """A simulation character's steering (its policy's weights ``w`` (12,)
    and parameters ``prm``): the weighted sum, in the default priority order,
    of separation, arrive, seek, cohesion, alignment and wander, truncated to
    ``mf``. Seek and arrive go to ``(tx, tz)``: at full speed to an
    intermediate waypoint; to the ``final`` one seek never passes it in a
    tick and arrive slows inside ``slow_radius``. ``th`` is the wander angle,
    ``u`` its noise; flocking reads the neighbour index (``s``: the
    character's slot in it, ``svel``: velocities in index order). Returns
    ``(ax, az, new wander angle)``."""
    inv_dt = 1.0 / dt
    ax = 0.0
    az = 0.0
    nali = 0
    ncoh = 0
    alix = 0.0
    aliz = 0.0
    cohx = 0.0
    cohz = 0.0
    if w[SEPARATION] > 0.0 or w[ALIGNMENT] > 0.0 or w[COHESION] > 0.0:
        nb_r = prm[P_SEP_R] if prm[P_SEP_R] > prm[P_ALI_R] else prm[P_ALI_R]
        nb_r = nb_r if nb_r > prm[P_COH_R] else prm[P_COH_R]
        sepx, sepz, nsep, alix, aliz, nali, cohx, cohz, ncoh = flock_sums(
            px, pz, s, i, np.int64(0), prm[P_SEP_R], prm[P_ALI_R], prm[P_COH_R], nb_r, geom,
            dims, cell_start, order, spos, svel)
        if w[SEPARATION] > 0.0 and nsep > 0:
            fx, fz = steer(sepx, sepz, ms, vx, vz, mf, inv_dt)
            ax += fx * w[SEPARATION]
            az += fz * w[SEPARATION]
    dx = tx - px
    dz = tz - pz
    if w[ARRIVE] > 0.0:
        if final:
            fx, fz = arrive_force(dx, dz, ms, vx, vz, mf, dt, inv_dt, prm[P_SLOW], 0.0)
        else:
            fx, fz = steer(dx, dz, ms, vx, vz, mf, inv_dt)
        ax += fx * w[ARRIVE]
        az += fz * w[ARRIVE]
    if w[SEEK] > 0.0:
        sp = ms
        if final:
            d = math.sqrt(dx * dx + dz * dz) * inv_dt
            sp = sp if sp < d else d
        fx, fz = steer(dx, dz, sp, vx, vz, mf, inv_dt)
        ax += fx * w[SEEK]
        az += fz * w[SEEK]
    if w[COHESION] > 0.0 and ncoh > 0:
        fx, fz = steer(cohx / ncoh - px, cohz / ncoh - pz, ms, vx, vz, mf, inv_dt)
        ax += fx * w[COHESION]
        az += fz * w[COHESION]
    if w[ALIGNMENT] > 0.0 and nali > 0 and (alix != 0.0 or aliz != 0.0):
        fx, fz = steer(alix, aliz, ms, vx, vz, mf, inv_dt)
        ax += fx * w[ALIGNMENT]
        az += fz * w[ALIGNMENT]
    if w[WANDER] > 0.0:
        fx, fz, th = wander_force(u, th, prm[P_JITTER], hx, hz, prm[P_WANDER_R], prm[P_WANDER_D],
                                  ms, vx, vz, mf, inv_dt)
        ax += fx * w[WANDER]
        az += fz * w[WANDER]
    ax, az = truncate(ax, az, mf)
    return ax, az, th


@njit(inline="always")
def gcell(v, lo, cs, count):  # type: ignore[no-untyped-def]
    """``floor((v - lo) / cs)``, or -1 / ``count`` outside (no overflow)."""
    f = (v - lo) / cs
    if f < 0.0:
        return -1
    if f >= count:
        return count
    return int(f)


@njit(inline="always")
def blocked(walk, cx, cz):  # type: ignore[no-untyped-def]
    return cx < 0 or cz < 0 or cz >= walk.shape[0] or cx >= walk.shape[1] or walk[cz, cx] == 0


@njit
def clearance(walk, out):  # type: ignore[no-untyped-def]
    """``out[z, x]`` (int32, like ``walk``): the Chebyshev distance in cells
    from cell (x, z) to the nearest blocked cell, cells off the grid counting
    as blocked (0 on blocked cells, 1 on free cells at the border). Two
    passes of a unit 8-neighbour chamfer (exact for this metric). Returns 0."""
    gd = walk.shape[0]
    gw = walk.shape[1]
    big = 1 << 30
    for z in range(gd):
        for x in range(gw):
            if walk[z, x] == 0:
                out[z, x] = 0
                continue
            d = big
            for k in range(4):  # forward neighbours: (-1,-1) (0,-1) (1,-1) (-1,0)
                ox = k - 1 if k < 3 else -1
                oz = -1 if k < 3 else 0
                xx = x + ox
                zz = z + oz
                v = out[zz, xx] if (0 <= xx < gw and 0 <= zz < gd) else 0
                d = v + 1 if v + 1 < d else d
            if x == gw - 1 or z == gd - 1:
                d = 1
            out[z, x] = d
    for z in range(gd - 1, -1, -1):
        for x in range(gw - 1, -1, -1):
            d = out[z, x]
            if d == 0:
                continue
            for k in range(4):  # backward neighbours: (1,1) (0,1) (-1,1) (1,0)
                ox = 1 - k if k < 3 else 1
                oz = 1 if k < 3 else 0
                xx = x + ox
                zz = z + oz
                v = out[zz, xx] if (0 <= xx < gw and 0 <= zz < gd) else 0
                d = v + 1 if v + 1 < d else d
            out[z, x] = d
    return 0


@njit
def trace(walk, clear, minx, minz, cs, x0, z0, x1, z1):  # type: ignore[no-untyped-def]
    """The first blocked cell the segment ``(x0, z0) -> (x1, z1)`` enters.

    Returns ``(t, nx, nz)``: the segment parameter in [0, 1] where it enters
    and the outward normal of the face crossed; ``t = 2`` when the segment
    meets no blocked cell. A segment through a cell corner needs both side
    cells free. The start cell counts as free. When the start cell's
    clearance (``clear``, see :func:`clearance`) exceeds the cell distance to
    the end cell, every cell the walk could visit is free: no walk."""
    gw = walk.shape[1]
    gd = walk.shape[0]
    cx = gcell(x0, minx, cs, gw)
    cz = gcell(z0, minz, cs, gd)
    ex = gcell(x1, minx, cs, gw)
    ez = gcell(z1, minz, cs, gd)
    if cx == ex and cz == ez:
        return _FREE, 0.0, 0.0
    if 0 <= cx < gw and 0 <= cz < gd:
        kx = ex - cx if ex > cx else cx - ex
        kz = ez - cz if ez > cz else cz - ez
        if clear[cz, cx] > (kx if kx > kz else kz):
            return _FREE, 0.0, 0.0
    dx = x1 - x0
    dz = z1 - z0
    sx = 1 if dx > 0.0 else (-1 if dx < 0.0 else 0)
    sz = 1 if dz > 0.0 else (-1 if dz < 0.0 else 0)
    if sx != 0:
        tdx = cs / abs(dx)
        tmx = (minx + (cx + (1 if sx > 0 else 0)) * cs - x0) / dx
    else:
        tdx = np.inf
        tmx = np.inf
    if sz != 0:
        tdz = cs / abs(dz)
        tmz = (minz + (cz + (1 if sz > 0 else 0)) * cs - z0) / dz
    else:
        tdz = np.inf
        tmz = np.inf
    steps = abs(ex - cx) + abs(ez - cz) + 1
    t = 0.0
    for _ in range(steps):
        if tmx < tmz:
            cx += sx
            t = tmx
            tmx += tdx
            if blocked(walk, cx, cz):
                return t, -float(sx), 0.0
        elif tmz < tmx:
            cz += sz
            t = tmz
            tmz += tdz
            if blocked(walk, cx, cz):
                return t, 0.0, -float(sz)
        else:
            t = tmx
            if blocked(walk, cx + sx, cz):
                return t, -float(sx), 0.0
            if blocked(walk, cx, cz + sz):
                return t, 0.0, -float(sz)
            cx += sx
            cz += sz
            tmx += tdx
            tmz += tdz
            if blocked(walk, cx, cz):
                return t, -float(sx) * 0.7071067811865476, -float(sz) * 0.7071067811865476
        if cx == ex and cz == ez:
            return _FREE, 0.0, 0.0
    # rounding sent the walk off the end cell: count the segment as blocked
    t = t if t < 1.0 else 1.0
    return t, -float(sx), -float(sz)


@njit
def wall_force(walk, clear, minx, minz, cs, px, pz, hx, hz, look, ca, sa, mf):  # type: ignore[no-untyped-def]
    """Feelers (ahead ``look`` m, two sides 0.7 ``look`` at +-angle, ``ca`` /
    ``sa`` its cosine / sine): each that enters a blocked cell pushes along
    the face normal by ``mf * (1 - t)``."""
    fx = 0.0
    fz = 0.0
    for k in range(3):
        if k == 0:
            dx = hx * look
            dz = hz * look
        elif k == 1:
            dx = (hx * ca - hz * sa) * 0.7 * look
            dz = (hx * sa + hz * ca) * 0.7 * look
        else:
            dx = (hx * ca + hz * sa) * 0.7 * look
            dz = (-hx * sa + hz * ca) * 0.7 * look
        t, nx, nz = trace(walk, clear, minx, minz, cs, px, pz, px + dx, pz + dz)
        if t <= 1.0:
            if nx == 0.0 and nz == 0.0:
                nx = -hx
                nz = -hz
            fx += nx * mf * (1.0 - t)
            fz += nz * mf * (1.0 - t)
    return truncate(fx, fz, mf)


@njit
def prepare(st, wd, ws, params):  # type: ignore[no-untyped-def]
    """The serial start of a tick: the spatial hash of the positions (cell
    size = the largest flocking radius), the start velocities in slot order
    and each flow field's arrived count. Returns 0."""
    pos = st[0]
    vel = st[1]
    flow_id = st[14]
    status = st[15]
    (cell_start, order, slot, cellid, spos, svel, geom, dims, arrived, max_cells) = ws
    n = pos.shape[0]
    sep_r = params[P_SEP_R]
    ali_r = params[P_ALI_R]
    coh_r = params[P_COH_R]
    nb_r = sep_r if sep_r > ali_r else ali_r
    nb_r = nb_r if nb_r > coh_r else coh_r
    cell = nb_r if nb_r > 0.0 else 1.0
    _sh.build(pos, cell, max_cells, geom, dims, cell_start, order, slot, spos, cellid)
    for s in range(n):
        i = order[s]
        svel[s, 0] = vel[i, 0]
        svel[s, 1] = vel[i, 1]
    nflow = arrived.shape[0]
    for f in range(nflow):
        arrived[f] = 0
    for i in range(n):
        f = flow_id[i]
        if f >= 0 and status[i] == ARRIVED:
            arrived[f] += 1
    return 0


@njit
def step(st, wd, ws, params, prio, blend, dt, tick, seed):  # type: ignore[no-untyped-def]
    """Advance every agent by ``dt`` seconds (tick number ``tick``), on one
    thread: :func:`prepare` then :func:`advance` over every slot. Returns 0."""
    prepare(st, wd, ws, params)
    advance(st, wd, ws, params, prio, blend, dt, tick, seed, 0, st[0].shape[0])
    return 0


@njit
def advance(st, wd, ws, params, prio, blend, dt, tick, seed, s0, s1):  # type: ignore[no-untyped-def]
    """Steer and move the agents ``[s0, s1)`` (agent indices) with the hash that
    :func:`prepare` built. Returns 0.

    Reads other agents only through the tick's start snapshot (``spos``,
    ``svel``) and writes only the agents' own rows, so disjoint agent ranges
    may run on different threads with the same result as one call (agents are
    visited in index order: their own rows stream through the cache).
    ``prio`` (12,) int64: behaviour codes in priority order (weighted blending
    sums in this order too); ``blend`` 0 weighted, 1 priority."""
    (pos, vel, head, max_speed, max_force, weights, target, threat, chase, avoid, wander,
     path_off, path_pts, path_idx, flow_id, status) = st
    has_grid, walk, gminx, gminz, gcs, flow_dir, flow_cost, clear = wd
    (cell_start, order, slot, cellid, spos, svel, geom, dims, arrived, max_cells) = ws
    inv_dt = 1.0 / dt
    sep_r = params[P_SEP_R]
    ali_r = params[P_ALI_R]
    coh_r = params[P_COH_R]
    nb_r = sep_r if sep_r > ali_r else ali_r
    nb_r = nb_r if nb_r > coh_r else coh_r
    fca = math.cos(params[P_FEELER])
    fsa = math.sin(params[P_FEELER])
    gw = walk.shape[1]
    gd = walk.shape[0]
    for i in range(s0, s1):
        s = slot[i]
        px = spos[s, 0]
        pz = spos[s, 1]
        vx = svel[s, 0]
        vz = svel[s, 1]
        ms = max_speed[i]
        mf = max_force[i]
        # ---- neighbours (flocking)
        sepx, sepz, nsep, alix, aliz, nali, cohx, cohz, ncoh = 0.0, 0.0, 0, 0.0, 0.0, 0, 0.0, \
            0.0, 0
        if weights[i, SEPARATION] > 0.0 or weights[i, ALIGNMENT] > 0.0 or \
                weights[i, COHESION] > 0.0:
            sepx, sepz, nsep, alix, aliz, nali, cohx, cohz, ncoh = flock_sums(
                px, pz, s, i, seed, sep_r, ali_r, coh_r, nb_r, geom, dims, cell_start, order,
                spos, svel)
        # ---- behaviours, blended
        ax = 0.0
        az = 0.0
        for bi in range(N_BEHAVIOURS):
            b = prio[bi]
            w = weights[i, b]
            if w == 0.0:
                continue
            fx = 0.0
            fz = 0.0
            if b == SEEK:
                fx, fz = steer(target[i, 0] - px, target[i, 1] - pz, ms, vx, vz, mf, inv_dt)
            elif b == ARRIVE:
                fx, fz = arrive_force(target[i, 0] - px, target[i, 1] - pz, ms, vx, vz, mf, dt,
                                      inv_dt, params[P_SLOW], params[P_TOL])
            elif b == FLEE:
                dx = px - threat[i, 0]
                dz = pz - threat[i, 1]
                fr = params[P_FLEE_R]
                if fr == 0.0 or dx * dx + dz * dz < fr * fr:
                    if dx == 0.0 and dz == 0.0:
                        dx = head[i, 0]
                        dz = head[i, 1]
                    fx, fz = steer(dx, dz, ms, vx, vz, mf, inv_dt)
            elif b == WANDER:
                fx, fz, wander[i] = wander_force(unit_hash(seed, i, tick), wander[i],
                                                 params[P_JITTER], head[i, 0], head[i, 1],
                                                 params[P_WANDER_R], params[P_WANDER_D], ms, vx,
                                                 vz, mf, inv_dt)
            elif b == PURSUE or b == EVADE:
                j = chase[i] if b == PURSUE else avoid[i]
                if j >= 0 and j != i:
                    sj = slot[j]
                    dx = spos[sj, 0] - px
                    dz = spos[sj, 1] - pz
                    d = math.sqrt(dx * dx + dz * dz)
                    tp = d / ms if ms > 0.0 else 0.0
                    tp = tp if tp < params[P_PREDICT] else params[P_PREDICT]
                    qx = dx + svel[sj, 0] * tp
                    qz = dz + svel[sj, 1] * tp
                    if b == PURSUE:
                        fx, fz = steer(qx, qz, ms, vx, vz, mf, inv_dt)
                    else:
                        fr = params[P_FLEE_R]
                        if fr == 0.0 or d < fr:
                            if qx == 0.0 and qz == 0.0:
                                qx = -head[i, 0]
                                qz = -head[i, 1]
                            fx, fz = steer(-qx, -qz, ms, vx, vz, mf, inv_dt)
            elif b == SEPARATION:
                if nsep > 0:
                    fx, fz = steer(sepx, sepz, ms, vx, vz, mf, inv_dt)
            elif b == ALIGNMENT:
                if nali > 0 and (alix != 0.0 or aliz != 0.0):
                    fx, fz = steer(alix, aliz, ms, vx, vz, mf, inv_dt)
            elif b == COHESION:
                if ncoh > 0:
                    fx, fz = steer(cohx / ncoh - px, cohz / ncoh - pz, ms, vx, vz, mf, inv_dt)
            elif b == WALLS:
                if has_grid:
                    fx, fz = wall_force(walk, clear, gminx, gminz, gcs, px, pz, head[i, 0],
                                        head[i, 1], params[P_LOOK], fca, fsa, mf)
            elif b == PATH:
                k0 = path_off[i]
                k1 = path_off[i + 1]
                if k1 > k0:
                    last = k1 - k0 - 1
                    pi = path_idx[i]
                    pr2 = params[P_PATH_R] * params[P_PATH_R]
                    for _ in range(last + 1):
                        if pi >= last:
                            break
                        dx = path_pts[k0 + pi, 0] - px
                        dz = path_pts[k0 + pi, 1] - pz
                        if dx * dx + dz * dz >= pr2:
                            break
                        pi += 1
                    path_idx[i] = pi
                    dx = path_pts[k0 + pi, 0] - px
                    dz = path_pts[k0 + pi, 1] - pz
                    if pi < last:
                        fx, fz = steer(dx, dz, ms, vx, vz, mf, inv_dt)
                    else:
                        fx, fz = arrive_force(dx, dz, ms, vx, vz, mf, dt, inv_dt,
                                              params[P_SLOW], params[P_TOL])
            elif b == FLOW:
                f = flow_id[i]
                if has_grid and f >= 0:
                    cx = gcell(px, gminx, gcs, gw)
                    cz = gcell(pz, gminz, gcs, gd)
                    cx = 0 if cx < 0 else (gw - 1 if cx >= gw else cx)
                    cz = 0 if cz < 0 else (gd - 1 if cz >= gd else cz)
                    code = flow_dir[f, cz, cx]
                    if status[i] == ARRIVED:
                        fx, fz = truncate(-vx * inv_dt, -vz * inv_dt, mf)
                    elif code < 0:
                        status[i] = UNREACHABLE
                    else:
                        ar = params[P_ARR_R]
                        sp2 = params[P_ARR_SP]
                        reach = math.sqrt(ar * ar + arrived[f] * sp2 * sp2 / math.pi)
                        if flow_cost[f, cz, cx] <= reach:
                            status[i] = ARRIVED
                            fx, fz = truncate(-vx * inv_dt, -vz * inv_dt, mf)
                        else:
                            status[i] = MOVING
                            if code < 8:
                                ox = 1.0 if code == 0 or code == 4 or code == 7 else (
                                    -1.0 if code == 2 or code == 5 or code == 6 else 0.0)
                                oz = 1.0 if code == 1 or code == 4 or code == 5 else (
                                    -1.0 if code == 3 or code == 6 or code == 7 else 0.0)
                                fx, fz = steer(ox, oz, ms, vx, vz, mf, inv_dt)
            fx *= w
            fz *= w
            if blend == 0:
                ax += fx
                az += fz
            else:
                rem = mf - math.sqrt(ax * ax + az * az)
                if rem <= 0.0:
                    break
                m = math.sqrt(fx * fx + fz * fz)
                if m > rem:
                    ax += fx * (rem / m)
                    az += fz * (rem / m)
                    break
                ax += fx
                az += fz
        ax, az = truncate(ax, az, mf)
        # ---- integrate (semi-implicit Euler), speed limit
        nvx, nvz = truncate(vx + ax * dt, vz + az * dt, ms)
        nx = px + nvx * dt
        nz = pz + nvz * dt
        # ---- the wall cut: never end a tick in a blocked cell
        if has_grid:
            t, _, _ = trace(walk, clear, gminx, gminz, gcs, px, pz, nx, nz)
            if t <= 1.0:
                ok = False
                for k in range(2):
                    along_x = (abs(nx - px) >= abs(nz - pz)) == (k == 0)
                    if along_x:
                        t2, _, _ = trace(walk, clear, gminx, gminz, gcs, px, pz, nx, pz)
                        if t2 > 1.0:
                            nz = pz
                            nvz = 0.0
                            ok = True
                            break
                    else:
                        t2, _, _ = trace(walk, clear, gminx, gminz, gcs, px, pz, px, nz)
                        if t2 > 1.0:
                            nx = px
                            nvx = 0.0
                            ok = True
                            break
                if not ok:
                    nx = px
                    nz = pz
                    nvx = 0.0
                    nvz = 0.0
        pos[i, 0] = nx
        pos[i, 1] = nz
        vel[i, 0] = nvx
        vel[i, 1] = nvz
        sp2 = nvx * nvx + nvz * nvz
        if sp2 > 1e-24:
            sp = math.sqrt(sp2)
            head[i, 0] = nvx / sp
            head[i, 1] = nvz / sp
    return 0


@njit
def run(st, wd, ws, params, prio, blend, dt, tick, seed, ticks):  # type: ignore[no-untyped-def]
    """``ticks`` calls of :func:`step` from tick number ``tick``."""
    for k in range(ticks):
        step(st, wd, ws, params, prio, blend, dt, tick + k, seed)
    return 0
