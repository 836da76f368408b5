"""The character simulation's per-tick kernel: path following, approach
(follow) steps, the movement guard and its spatial hash, in one pass over the
characters in slot (= stable-ID) order.

Arguments come in groups whose layouts are defined, with every field's
dtype, shape and unit, in :mod:`navkit._kernels.layouts`: the caller passes
plain tuples and the kernel opens them by name (``body = BodyArgs(*body_t)``).
All arrays are slot-indexed (``n`` rows, slot = stable-ID order):

* ``body_t``: :class:`~navkit._kernels.layouts.BodyArgs` (position, facing,
  speeds, contact radius, kind, alive, enabled);
* ``nav_t``: :class:`~navkit._kernels.layouts.NavArgs` (path following);
* ``retry_t``: :class:`~navkit._kernels.layouts.RetryArgs` (cooldowns);
* ``follow_t``: :class:`~navkit._kernels.layouts.FollowArgs` (follow orders);
* ``grid_t``: :class:`~navkit._kernels.layouts.WalkGridArgs` (the static
  walkable grid, padded by one blocked cell, see :mod:`navkit._kernels`);
* ``hash_t``: :class:`~navkit._kernels.layouts.IndexArgs` (the neighbour
  index of the solid characters, :mod:`navkit._kernels.spatial_hash`);
* ``params_t``: :class:`~navkit._kernels.layouts.TickParams` (the scalars);
* ``out_t``: :class:`~navkit._kernels.layouts.TickOut` (scratch and results:
  reservations, directions, step lengths, modes, ``EV_*`` event bits, the
  blocker per event, ``STAT_*`` stats);

plus ``solid`` (uint8 (n,), written: alive and enabled) and ``marks`` (int32
(1,): the line-of-sight test's overlay, disabled with mark 0).

The guard (docs/rules.md §9). Character ``i`` at ``p`` proposes ``q``. For every
other solid character ``j`` with reserved centre ``c`` (its tick-start centre,
or its new centre once it has moved this tick) and ``r = rc_i + rc_j``, the
step is rejected when

* ``|q - c|^2 < r^2`` and ``|q - c|^2 < |p - c|^2`` (it ends overlapping and
  closer than it started), or
* the closest point of the segment ``p -> q`` to ``c`` (strictly inside the
  segment) is closer than ``r`` and closer than ``p`` (it sweeps through).

So circles that did not overlap never come to overlap, and circles that did
(spawned overlapping) may only separate. A step must also enter no blocked
cell of the static grid (:func:`segment_clear`); a step that would is cut to
its free axis (sliding along the wall, the larger component first), and
rejected as blocked by a wall when neither axis is free.

A rejected step is *following* when every rejecting character walks (has a
desired direction this tick) with ``dot(dir_i, dir_j) > following_cos``: the
character waits without counting. Otherwise (head-on, crossing, a standing
character, a wall) ``blocked`` grows; at ``blocked_limit`` the character
stops: players and bots cancel their destination (and follow order), NPCs
keep ``requested`` and schedule a retry with the next cooldown.

:func:`tick_orca` is the same tick with local avoidance (docs/rules.md §9.6,
:mod:`navkit._kernels.orca`) between the intentions and the guard; :func:`tick`
never runs it.
"""

from __future__ import annotations

import math

import numpy as np

from .._numba_config import njit
from . import steering as _steer
from .geometry import line_of_sight
from .layouts import (
    BodyArgs,
    FollowArgs,
    IndexArgs,
    NavArgs,
    RetryArgs,
    SteerArgs,
    TickOut,
    TickParams,
    WalkGridArgs,
)
from .orca import OrcaArgs, orca_velocities
from .raycast import walk_cells
from .spatial_hash import index_points, near_cells

EV_ARRIVED = 1
EV_BLOCK_STOP = 2
EV_NEED_PLAN = 4
EV_TALK = 8
EV_GAVE_UP = 16
EV_BLOCKED = 32
EV_WAITED = 64
EV_IN_RANGE = 128

STAT_MIN_GAP = 0
STAT_MOVED = 1
STAT_BLOCKED = 2
STAT_WAITED = 3
STATS_SIZE = 4

KIND_PLAYER = 0
KIND_BOT = 1
KIND_NPC = 2

MODE_NONE = 0
MODE_PATH = 1
MODE_GREEDY = 2
#: A steered character's step without an order (its policy's wander / flocking).
MODE_STEER = 3

_TWO_PI = 2.0 * math.pi


@njit(inline="always")
def _node(grid, x, z):  # type: ignore[no-untyped-def]
    """Padded node of the cell holding world point (x, z); outside -> border."""
    wpad = grid.wpad
    hpad = grid.hpad
    min_x = grid.min_x
    min_z = grid.min_z
    cs = grid.cell_size
    cx = int(math.floor((x - min_x) / cs)) + 1
    cz = int(math.floor((z - min_z) / cs)) + 1
    if cx < 0:
        cx = 0
    elif cx > wpad - 1:
        cx = wpad - 1
    if cz < 0:
        cz = 0
    elif cz > hpad - 1:
        cz = hpad - 1
    return cz * wpad + cx


@njit(inline="always")
def _blocked_cell(grid, cx, cz):  # type: ignore[no-untyped-def]
    """Cell (x, z) in padded coordinates is blocked (outside the grid counts as blocked)."""
    wpad = grid.wpad
    if cx < 0 or cz < 0 or cx > wpad - 1 or cz > grid.hpad - 1:
        return True
    return grid.cells[cz * wpad + cx] == 0


@njit
def segment_clear(grid, px, pz, qx, qz):  # type: ignore[no-untyped-def]
    """True when the segment p -> q enters no blocked cell of ``grid`` (a
    :class:`~navkit._kernels.layouts.WalkGridArgs`).

    Walks the cells the segment crosses (float DDA). Where it passes exactly
    through a cell corner, at least one of the two side cells must be free
    (no squeezing between two diagonal blocks). A segment that starts on a
    blocked cell is clear (a character may walk off a cell that became
    blocked under it, e.g. a door that closed).
    """
    min_x = grid.min_x
    min_z = grid.min_z
    cs = grid.cell_size
    fx = (px - min_x) / cs + 1.0
    fz = (pz - min_z) / cs + 1.0
    gx = (qx - min_x) / cs + 1.0
    gz = (qz - min_z) / cs + 1.0
    cx = int(math.floor(fx))
    cz = int(math.floor(fz))
    ex = int(math.floor(gx))
    ez = int(math.floor(gz))
    if _blocked_cell(grid, cx, cz):
        return True
    if cx == ex and cz == ez:
        return True
    if walk_cells(grid.cells, grid.wpad, grid.hpad, fx, fz, gx, gz)[0]:
        return False
    return not _blocked_cell(grid, ex, ez)


@njit(inline="always")
def _wrap(a):  # type: ignore[no-untyped-def]
    """Angle into (-pi, pi] (inputs here lie within a few turns of it)."""
    k = 0
    while a > math.pi and k < 64:
        a -= _TWO_PI
        k += 1
    while a <= -math.pi and k < 64:
        a += _TWO_PI
        k += 1
    return a


@njit(inline="always")
def _clear_path(nav, i):  # type: ignore[no-untyped-def]
    nav.active[i] = 0
    nav.wp_n[i] = 0
    nav.wp_i[i] = 0


@njit(inline="always")
def _current_target(nav, i):  # type: ignore[no-untyped-def]
    if nav.wp_n[i] > 0:
        k = nav.wp_i[i]
        return nav.wp[i, k, 0], nav.wp[i, k, 1]
    return nav.walk_target[i, 0], nav.walk_target[i, 1]


@njit
def _advance(body, nav, i, thr):  # type: ignore[no-untyped-def]
    """Skip waypoints within ``thr``; returns True when the path is finished."""
    pos = body.pos
    wp = nav.wp
    wp_n = nav.wp_n
    wp_i = nav.wp_i
    walk_target = nav.walk_target
    if wp_n[i] > 0:
        while wp_i[i] < wp_n[i]:
            k = wp_i[i]
            dx = wp[i, k, 0] - pos[i, 0]
            dz = wp[i, k, 1] - pos[i, 1]
            if math.sqrt(dx * dx + dz * dz) <= thr:
                wp_i[i] = k + 1
            else:
                return False
        return True
    dx = walk_target[i, 0] - pos[i, 0]
    dz = walk_target[i, 1] - pos[i, 1]
    return math.sqrt(dx * dx + dz * dz) <= thr


@njit
def _finish_path(nav, follow, out, i):  # type: ignore[no-untyped-def]
    """The last waypoint was reached: clear the path; an arrival unless following."""
    _clear_path(nav, i)
    if follow.target[i] >= 0:
        follow.on_path[i] = 0
    else:
        out.ev[i] |= EV_ARRIVED


@njit
def _decide_path(body, nav, follow, params, out, i):  # type: ignore[no-untyped-def]
    pos = body.pos
    dirv = out.dirv
    if _advance(body, nav, i, params.walk_threshold):
        _finish_path(nav, follow, out, i)
        return
    tx, tz = _current_target(nav, i)
    dx = tx - pos[i, 0]
    dz = tz - pos[i, 1]
    d = math.sqrt(dx * dx + dz * dz)
    dirv[i, 0] = dx / d
    dirv[i, 1] = dz / d
    budget = body.speed[i] * params.dt
    out.steplen[i] = budget if budget < d else d
    out.mode[i] = MODE_PATH


@njit
def _route_length(body, nav, i, gx, gz):  # type: ignore[no-untyped-def]
    """Length of the rest of i's path, plus the gap from its end to (gx, gz)."""
    pos = body.pos
    wp = nav.wp
    x = pos[i, 0]
    z = pos[i, 1]
    total = 0.0
    for k in range(nav.wp_i[i], nav.wp_n[i]):
        dx = wp[i, k, 0] - x
        dz = wp[i, k, 1] - z
        total += math.sqrt(dx * dx + dz * dz)
        x = wp[i, k, 0]
        z = wp[i, k, 1]
    dx = gx - x
    dz = gz - z
    return total + math.sqrt(dx * dx + dz * dz)


@njit
def _decide_follow(body, nav, retry, follow, grid, params, out, marks, i):  # type: ignore[no-untyped-def]
    pos = body.pos
    rc = body.rc
    alive = body.alive
    enabled = body.enabled
    active = nav.active
    moved = nav.moved
    target = follow.target
    talk = follow.talk
    best = follow.best
    stall = follow.stall
    last_plan = follow.last_plan
    goal = follow.goal
    on_path = follow.on_path
    ev = out.ev
    dirv = out.dirv
    thr = params.walk_threshold
    tick = params.tick
    j = target[i]
    if not (alive[j] and enabled[j]):
        ev[i] |= EV_GAVE_UP
        target[i] = -1
        on_path[i] = 0
        _clear_path(nav, i)
        return
    dx = pos[j, 0] - pos[i, 0]
    dz = pos[j, 1] - pos[i, 1]
    d = math.sqrt(dx * dx + dz * dz)
    reach = follow.rng[i]
    floor_r = rc[i] + rc[j] + thr
    if reach < floor_r:
        reach = floor_r
    if d <= reach + 1e-9:
        ev[i] |= EV_IN_RANGE
        if talk[i]:
            ev[i] |= EV_TALK
        on_path[i] = 0
        _clear_path(nav, i)
        best[i] = d
        stall[i] = 0
        return
    # docs/rules.md §10.5 give-up: a moving goal resets the baseline every tick. On a
    # planned path progress is measured along the route (a detour that walks
    # away from the goal is progress), otherwise in a straight line.
    measure = d
    if on_path[i] and active[i]:
        measure = _route_length(body, nav, i, pos[j, 0], pos[j, 1])
    if moved[j]:
        best[i] = measure
        stall[i] = 0
    elif measure < best[i]:
        best[i] = measure
        stall[i] = 0
    else:
        stall[i] += 1
        if stall[i] >= params.give_up_ticks:
            ev[i] |= EV_GAVE_UP
            target[i] = -1
            on_path[i] = 0
            _clear_path(nav, i)
            return
    if retry.timer[i] > 0:
        return  # waiting for a scheduled retry
    can_plan = last_plan[i] < 0 or tick - last_plan[i] >= params.repath_ticks
    if on_path[i] and active[i]:
        gx = pos[j, 0] - goal[i, 0]
        gz = pos[j, 1] - goal[i, 1]
        if moved[j] and can_plan and math.sqrt(gx * gx + gz * gz) > params.replan_threshold:
            ev[i] |= EV_NEED_PLAN
        _decide_path(body, nav, follow, params, out, i)
        return
    on_path[i] = 0
    _clear_path(nav, i)
    a = _node(grid, pos[i, 0], pos[i, 1])
    b = _node(grid, pos[j, 0], pos[j, 1])
    if line_of_sight(grid.cells, (marks, np.int32(0)), grid.wpad, a, b):
        dirv[i, 0] = dx / d
        dirv[i, 1] = dz / d
        budget = body.speed[i] * params.dt
        gap = d - reach
        out.steplen[i] = budget if budget < gap else gap
        out.mode[i] = MODE_GREEDY
    elif can_plan:
        ev[i] |= EV_NEED_PLAN


@njit(inline="always")
def _rejects(px, pz, qx, qz, cx, cz, r):  # type: ignore[no-untyped-def]
    r2 = r * r
    sx = px - cx
    sz = pz - cz
    ds2 = sx * sx + sz * sz
    ex = qx - cx
    ez = qz - cz
    de2 = ex * ex + ez * ez
    if de2 < r2 and de2 < ds2:
        return True
    mx = qx - px
    mz = qz - pz
    ss = mx * mx + mz * mz
    if ss <= 0.0:
        return False
    t = ((cx - px) * mx + (cz - pz) * mz) / ss
    if t <= 0.0 or t >= 1.0:
        return False
    kx = px + t * mx - cx
    kz = pz + t * mz - cz
    dm2 = kx * kx + kz * kz
    return dm2 < r2 and dm2 < ds2


@njit
def _intentions(body, nav, retry, follow, grid, params, out, solid, marks):  # type: ignore[no-untyped-def]
    """Pass 1: every character's intention (direction, step length, mode),
    from tick-start state only; also resets the reservations and events."""
    pos = body.pos
    active = nav.active
    target = follow.target
    res = out.res
    dirv = out.dirv
    steplen = out.steplen
    mode = out.mode
    ev = out.ev
    ev_blocker = out.ev_blocker
    n = pos.shape[0]
    for i in range(n):
        ev[i] = 0
        ev_blocker[i] = -1
        dirv[i, 0] = 0.0
        dirv[i, 1] = 0.0
        steplen[i] = 0.0
        mode[i] = MODE_NONE
        res[i, 0] = pos[i, 0]
        res[i, 1] = pos[i, 1]
        if not solid[i]:
            continue
        if target[i] >= 0:
            _decide_follow(body, nav, retry, follow, grid, params, out, marks, i)
        elif active[i]:
            _decide_path(body, nav, follow, params, out, i)


@njit
def _moves(body, nav, retry, follow, grid, hsh, params, out, solid,  # type: ignore[no-untyped-def]
           avoid, override, vnew, vel, vpref, nearest, stall_frac):
    """Pass 2 (the guard, docs/rules.md §9) and the closest approach.

    With ``avoid`` (docs/rules.md §9.6) a walker whose ``override`` is set
    proposes ``p + vnew * dt``, ``vel`` receives every character's velocity
    over the tick, and an accepted step shorter than ``stall_frac`` of the
    preferred one (``vpref * dt``) counts as blocked by ``nearest``; without
    it those arrays are never touched."""
    pos = body.pos
    facing = body.facing
    rot = body.rot
    rc = body.rc
    kind = body.kind
    walk_target = nav.walk_target
    requested = nav.requested
    moved = nav.moved
    blocked = nav.blocked
    anim = nav.anim
    seq = retry.seq
    cur = retry.cur
    timer = retry.timer
    rblocker = retry.blocker
    target = follow.target
    on_path = follow.on_path
    last_plan = follow.last_plan
    res = out.res
    dirv = out.dirv
    steplen = out.steplen
    mode = out.mode
    ev = out.ev
    ev_blocker = out.ev_blocker
    stats = out.stats
    dt = params.dt
    tick_no = params.tick
    repath_ticks = params.repath_ticks
    thr = params.walk_threshold
    blocked_limit = params.blocked_limit
    following_cos = params.following_cos
    geom = hsh.geom
    dims = hsh.dims
    nx = dims[0]
    cell_start = hsh.cell_start
    order = hsh.order
    n = pos.shape[0]
    nseq = seq.shape[1]

    # pass 2: move in slot order against the reservations
    n_moved = 0
    n_blocked = 0
    n_waited = 0
    for i in range(n):
        if avoid:
            vel[i, 0] = 0.0
            vel[i, 1] = 0.0
        if mode[i] == MODE_NONE or steplen[i] <= 0.0:
            moved[i] = 0
            anim[i] = 0
            continue
        px = pos[i, 0]
        pz = pos[i, 1]
        ux = dirv[i, 0]
        uz = dirv[i, 1]
        if avoid and override[i]:
            # docs/rules.md §9.6: the avoidance velocity, not snapped to the waypoint
            qx = px + vnew[i, 0] * dt
            qz = pz + vnew[i, 1] * dt
        elif mode[i] == MODE_PATH:
            tx, tz = _current_target(nav, i)
            ddx = tx - px
            ddz = tz - pz
            if steplen[i] >= math.sqrt(ddx * ddx + ddz * ddz):
                qx = tx
                qz = tz
            else:
                qx = px + ux * steplen[i]
                qz = pz + uz * steplen[i]
        else:
            qx = px + ux * steplen[i]
            qz = pz + uz * steplen[i]
        # facing turns toward the desired direction at rot rad/s
        want = math.atan2(uz, ux)
        diff = _wrap(want - facing[i])
        turn = rot[i] * dt
        if diff > turn:
            facing[i] = _wrap(facing[i] + turn)
        elif diff < -turn:
            facing[i] = _wrap(facing[i] - turn)
        else:
            facing[i] = want
        # static grid: never enter a blocked cell; against a wall, slide
        # along the free axis (the larger component first)
        wall = False
        if not segment_clear(grid, px, pz, qx, qz):
            wall = True
            ax = qx - px
            az = qz - pz
            if abs(ax) >= abs(az):
                if ax != 0.0 and segment_clear(grid, px, pz, qx, pz):
                    qz = pz
                    wall = False
                elif az != 0.0 and segment_clear(grid, px, pz, px, qz):
                    qx = px
                    wall = False
            else:
                if az != 0.0 and segment_clear(grid, px, pz, px, qz):
                    qx = px
                    wall = False
                elif ax != 0.0 and segment_clear(grid, px, pz, qx, pz):
                    qz = pz
                    wall = False
        counted = wall
        rejected = wall
        blocker = -1
        if not wall:  # the characters of the 3 x 3 cells around p (docs/rules.md §9.1)
            x0, x1, z0, z1 = near_cells(px, pz, 1, geom, dims)
            for cz in range(z0, z1 + 1):
                for k in range(cell_start[cz * nx + x0], cell_start[cz * nx + x1 + 1]):
                    j = order[k]
                    if j == i or not _rejects(px, pz, qx, qz, res[j, 0], res[j, 1],
                                              rc[i] + rc[j]):
                        continue
                    rejected = True
                    follows = (mode[j] != MODE_NONE and steplen[j] > 0.0
                               and ux * dirv[j, 0] + uz * dirv[j, 1] > following_cos)
                    if not follows:
                        counted = True
                        if blocker < 0 or j < blocker:
                            blocker = j
        if not rejected:
            pos[i, 0] = qx
            pos[i, 1] = qz
            res[i, 0] = qx
            res[i, 1] = qz
            moved[i] = 1
            anim[i] = 1
            n_moved += 1
            stalled = False
            if avoid:
                vel[i, 0] = (qx - px) / dt
                vel[i, 1] = (qz - pz) / dt
                if override[i] and mode[i] == MODE_PATH:
                    # docs/rules.md §9.6: a step far shorter than the preferred
                    # one counts as blocked (a jam ORCA alone cannot resolve)
                    wx = vpref[i, 0] * dt
                    wz = vpref[i, 1] * dt
                    mx = qx - px
                    mz = qz - pz
                    stalled = mx * mx + mz * mz < stall_frac * stall_frac * (wx * wx + wz * wz)
            if not stalled:
                blocked[i] = 0
            if mode[i] == MODE_PATH:
                if _advance(body, nav, i, thr):
                    _finish_path(nav, follow, out, i)
                    stalled = False
                    blocked[i] = 0
            if not stalled:
                continue
            blocker = nearest[i]
        else:
            moved[i] = 0
            anim[i] = 0
            if mode[i] == MODE_GREEDY:
                # docs/rules.md §10.5: a greedy step that fails falls through to the planner
                if last_plan[i] < 0 or tick_no - last_plan[i] >= repath_ticks:
                    ev[i] |= EV_NEED_PLAN
                n_waited += 1
                continue
            if mode[i] == MODE_STEER:  # no order to give up: it waits
                n_waited += 1
                continue
            if not counted:
                ev[i] |= EV_WAITED
                n_waited += 1
                continue
        n_blocked += 1
        blocked[i] += 1
        ev[i] |= EV_BLOCKED
        ev_blocker[i] = blocker
        if blocked[i] >= blocked_limit:
            ev[i] |= EV_BLOCK_STOP
            blocked[i] = 0
            _clear_path(nav, i)
            on_path[i] = 0
            if kind[i] == KIND_NPC:
                c = cur[i]
                timer[i] = seq[i, c]
                cur[i] = (c + 1) % nseq
                rblocker[i] = blocker
            else:
                walk_target[i, 0] = pos[i, 0]
                walk_target[i, 1] = pos[i, 1]
                requested[i, 0] = pos[i, 0]
                requested[i, 1] = pos[i, 1]
                target[i] = -1

    stats[STAT_MIN_GAP] = _min_gap(pos, rc, res, solid, hsh)
    stats[STAT_MOVED] = n_moved
    stats[STAT_BLOCKED] = n_blocked
    stats[STAT_WAITED] = n_waited
    return 0


@njit(inline="always")
def _min_gap(pos, rc, res, solid, hsh):  # type: ignore[no-untyped-def]
    """The closest approach between contact circles after the tick: over the
    pairs ``i < j`` whose tick-start cells are within one cell of ``i``'s new
    centre (the index was built at the tick's start)."""
    geom = hsh.geom
    dims = hsh.dims
    nx = dims[0]
    cell_start = hsh.cell_start
    order = hsh.order
    min_gap = np.inf
    for i in range(pos.shape[0]):
        if not solid[i]:
            continue
        x0, x1, z0, z1 = near_cells(res[i, 0], res[i, 1], 1, geom, dims)
        for cz in range(z0, z1 + 1):
            for k in range(cell_start[cz * nx + x0], cell_start[cz * nx + x1 + 1]):
                j = order[k]
                if j > i:
                    dx = pos[i, 0] - pos[j, 0]
                    dz = pos[i, 1] - pos[j, 1]
                    gap = math.sqrt(dx * dx + dz * dz) - rc[i] - rc[j]
                    min_gap = gap if gap < min_gap else min_gap
    return min_gap


@njit(inline="always")
def _start(body_t, nav_t, retry_t, follow_t, grid_t, hash_t, params_t, out_t, solid):  # type: ignore[no-untyped-def]
    """Open the argument groups, mark the solid characters (alive and
    enabled) and index them (:func:`~navkit._kernels.spatial_hash.index_points`)."""
    body = BodyArgs(*body_t)
    for i in range(body.pos.shape[0]):
        solid[i] = 1 if (body.alive[i] and body.enabled[i]) else 0
    hsh = IndexArgs(*hash_t)
    index_points(body.pos, solid, hsh)
    return (body, NavArgs(*nav_t), RetryArgs(*retry_t), FollowArgs(*follow_t),
            WalkGridArgs(*grid_t), hsh, TickParams(*params_t), TickOut(*out_t))


@njit
def tick(body_t, nav_t, retry_t, follow_t, grid_t, hash_t, params_t, out_t, solid, marks):  # type: ignore[no-untyped-def]
    """Advance every character by one tick; see the module docstring."""
    body, nav, retry, follow, grid, hsh, params, out = _start(
        body_t, nav_t, retry_t, follow_t, grid_t, hash_t, params_t, out_t, solid)
    _intentions(body, nav, retry, follow, grid, params, out, solid, marks)
    # np.bool_, not a literal: one compiled _moves for tick and tick_orca
    return _moves(body, nav, retry, follow, grid, hsh, params, out, solid,
                  np.bool_(False), solid, out.dirv, out.dirv, out.dirv, out.ev_blocker, 0.0)


@njit
def _cut_corners(body, nav, grid, radius, solid):  # type: ignore[no-untyped-def]
    """docs/rules.md §9.6: a walker within ``radius`` of an intermediate
    waypoint with a clear segment (:func:`segment_clear`) to the next one
    counts the waypoint as reached, so crowds do not converge on path corners."""
    pos = body.pos
    wp = nav.wp
    wp_n = nav.wp_n
    wp_i = nav.wp_i
    r2 = radius * radius
    n = pos.shape[0]
    for i in range(n):
        if not solid[i] or not nav.active[i]:
            continue
        px = pos[i, 0]
        pz = pos[i, 1]
        while wp_i[i] < wp_n[i] - 1:
            k = wp_i[i]
            dx = wp[i, k, 0] - px
            dz = wp[i, k, 1] - pz
            if dx * dx + dz * dz > r2:
                break
            if not segment_clear(grid, px, pz, wp[i, k + 1, 0], wp[i, k + 1, 1]):
                break
            wp_i[i] = k + 1


@njit(inline="always")
def _walk_prefs(follow, params, out, orca, walking, exclude, override):  # type: ignore[no-untyped-def]
    """Each walker's preferred velocity: its intended step over ``dt``
    (``walking`` 1 with a step; ``exclude``: the follow target ORCA ignores)."""
    dirv = out.dirv
    steplen = out.steplen
    mode = out.mode
    vpref = orca.vpref
    dt = params.dt
    for i in range(mode.shape[0]):
        override[i] = 0
        exclude[i] = follow.target[i]
        if mode[i] != MODE_NONE and steplen[i] > 0.0:
            walking[i] = 1
            vpref[i, 0] = dirv[i, 0] * steplen[i] / dt
            vpref[i, 1] = dirv[i, 1] * steplen[i] / dt
        else:
            walking[i] = 0
            vpref[i, 0] = 0.0
            vpref[i, 1] = 0.0


@njit(inline="always")
def _apply_orca(params, out, orca, walking, override):  # type: ignore[no-untyped-def]
    """A walker whose ORCA velocity differs from its preferred one proposes it
    (``override``), or stands when it is (near) zero."""
    dirv = out.dirv
    steplen = out.steplen
    vnew = orca.vnew
    dt = params.dt
    for i in range(walking.shape[0]):
        if not walking[i] or not orca.changed[i]:
            continue
        vx = vnew[i, 0]
        vz = vnew[i, 1]
        sp = math.sqrt(vx * vx + vz * vz)
        step = sp * dt
        if step <= 1e-9:
            steplen[i] = 0.0  # avoidance says stand this tick
            continue
        dirv[i, 0] = vx / sp
        dirv[i, 1] = vz / sp
        steplen[i] = step
        override[i] = 1


@njit
def tick_orca(body_t, nav_t, retry_t, follow_t, grid_t, hash_t, params_t, out_t,  # type: ignore[no-untyped-def]
              solid, marks, orca_t, walking, exclude, override, rad, stall_frac,
              corner_radius):
    """:func:`tick` with reciprocal avoidance (docs/rules.md §9.6) between the
    intentions and the guard.

    ``orca_t`` is an :class:`~navkit._kernels.orca.OrcaArgs` whose ``vel``
    holds the characters' velocities over the last tick (read, then
    overwritten with this tick's); ``walking``, ``override`` (uint8 (n,)),
    ``exclude`` (int32 (n,)) and ``rad`` (float64 (n,)) are work arrays;
    ``stall_frac`` is the fraction of the preferred step below which an
    accepted avoidance step counts as blocked, and an intermediate waypoint
    within ``corner_radius`` counts as reached when the segment to the next one
    is clear (docs/rules.md §9.6). Each
    walker's preferred velocity is its intended step over ``dt``; ORCA picks
    the velocity it proposes to the guard, which stays authoritative.
    """
    body, nav, retry, follow, grid, hsh, params, out = _start(
        body_t, nav_t, retry_t, follow_t, grid_t, hash_t, params_t, out_t, solid)
    orca = OrcaArgs(*orca_t)
    if corner_radius > 0.0:
        _cut_corners(body, nav, grid, corner_radius, solid)
    _intentions(body, nav, retry, follow, grid, params, out, solid, marks)
    _walk_prefs(follow, params, out, orca, walking, exclude, override)
    orca_velocities(body.pos, body.rc, body.speed, solid, walking, exclude, orca_t, rad, grid_t)
    _apply_orca(params, out, orca, walking, override)
    return _moves(body, nav, retry, follow, grid, hsh, params, out, solid,
                  np.bool_(True), override, orca.vnew, orca.vel, orca.vpref, orca.nearest,
                  stall_frac)


# ------------------------------------------------------------ steering policies
@njit
def _policy_target(nav, out, i, px, pz, path_r):  # type: ignore[no-untyped-def]
    """Where a steered character's order takes it this tick: ``(x, z, final)``.

    On a path the current waypoint (intermediate ones count as reached within
    ``path_r``; ``final``: the last one); on an approach step the step's end;
    without an order its own position (seek and arrive then brake)."""
    m = out.mode[i]
    if m == MODE_PATH:
        wp = nav.wp
        wp_i = nav.wp_i
        last = nav.wp_n[i] - 1
        while wp_i[i] < last:
            k = wp_i[i]
            dx = wp[i, k, 0] - px
            dz = wp[i, k, 1] - pz
            if dx * dx + dz * dz >= path_r * path_r:
                break
            wp_i[i] = k + 1
        tx, tz = _current_target(nav, i)
        return tx, tz, wp_i[i] >= last
    if m == MODE_GREEDY:
        return px + out.dirv[i, 0] * out.steplen[i], pz + out.dirv[i, 1] * out.steplen[i], True
    return px, pz, True


@njit
def _policy_prefs(body, nav, hsh, params, out, solid, st, vel, vpref, vnew, walking, override):  # type: ignore[no-untyped-def]
    """The steered characters' preferred velocities (:func:`steering.policy_force`
    from the tick-start positions and velocities, integrated and limited to
    the walk speed), written as their intention: ``vpref`` and ``vnew``, the
    direction and step, ``walking`` and ``override``. A steered character
    without an order walks in ``MODE_STEER``."""
    pos = body.pos
    speed = body.speed
    facing = body.facing
    dirv = out.dirv
    steplen = out.steplen
    mode = out.mode
    dt = params.dt
    svel = st.svel
    order = hsh.order
    for k in range(hsh.cell_start[hsh.dims[0] * hsh.dims[1]]):  # neighbours' velocities
        svel[k, 0] = vel[order[k], 0]
        svel[k, 1] = vel[order[k], 1]
    for i in range(pos.shape[0]):
        p = st.policy[i]
        if p < 0 or not solid[i]:
            continue
        w = st.weights[p]
        prm = st.params[p]
        px = pos[i, 0]
        pz = pos[i, 1]
        tx, tz, final = _policy_target(nav, out, i, px, pz, prm[_steer.P_PATH_R])
        ax, az, th = _steer.policy_force(
            w, prm, st.max_force[p], px, pz, vel[i, 0], vel[i, 1], math.cos(facing[i]),
            math.sin(facing[i]), speed[i], dt, tx, tz, final, st.wander[i],
            _steer.unit_hash(st.noise[i], np.int64(0), params.tick), hsh.slot[i], i,
            hsh.geom, hsh.dims, hsh.cell_start, order, hsh.spos, svel)
        st.wander[i] = th
        nvx, nvz = _steer.truncate(vel[i, 0] + ax * dt, vel[i, 1] + az * dt, speed[i])
        vpref[i, 0] = nvx
        vpref[i, 1] = nvz
        vnew[i, 0] = nvx
        vnew[i, 1] = nvz
        sp = math.sqrt(nvx * nvx + nvz * nvz)
        if sp * dt <= 1e-9:
            steplen[i] = 0.0
            walking[i] = 0
            override[i] = 0
            continue
        dirv[i, 0] = nvx / sp
        dirv[i, 1] = nvz / sp
        steplen[i] = sp * dt
        if mode[i] == MODE_NONE:
            mode[i] = MODE_STEER
        walking[i] = 1
        override[i] = 1


@njit
def tick_steer(body_t, nav_t, retry_t, follow_t, grid_t, hash_t, params_t, out_t,  # type: ignore[no-untyped-def]
               solid, marks, orca_t, walking, exclude, override, rad, stall_frac,
               corner_radius, use_orca, steer_t):
    """:func:`tick` (``use_orca``: :func:`tick_orca`) with steering policies:
    each character with one (``steer_t``, a
    :class:`~navkit._kernels.layouts.SteerArgs`) proposes its steered velocity
    (:func:`_policy_prefs`; then ORCA's, with ``use_orca``) instead of its
    path-following step, and the guard checks it like every step. Every
    character's velocity over the tick is written to ``orca_t``'s ``vel``; an
    arrival stops a steered character (velocity 0). Arguments as
    :func:`tick_orca` (``stall_frac`` 0 and ``corner_radius`` 0 without ORCA)."""
    body, nav, retry, follow, grid, hsh, params, out = _start(
        body_t, nav_t, retry_t, follow_t, grid_t, hash_t, params_t, out_t, solid)
    orca = OrcaArgs(*orca_t)
    st = SteerArgs(*steer_t)
    if corner_radius > 0.0:
        _cut_corners(body, nav, grid, corner_radius, solid)
    _intentions(body, nav, retry, follow, grid, params, out, solid, marks)
    _walk_prefs(follow, params, out, orca, walking, exclude, override)
    _policy_prefs(body, nav, hsh, params, out, solid, st, orca.vel, orca.vpref, orca.vnew,
                  walking, override)
    if use_orca:
        orca_velocities(body.pos, body.rc, body.speed, solid, walking, exclude, orca_t, rad,
                        grid_t)
        _apply_orca(params, out, orca, walking, override)
    res = _moves(body, nav, retry, follow, grid, hsh, params, out, solid, np.bool_(True),
                 override, orca.vnew, orca.vel, orca.vpref, orca.nearest, stall_frac)
    for i in range(body.pos.shape[0]):
        if st.policy[i] >= 0 and out.ev[i] & EV_ARRIVED:
            orca.vel[i, 0] = 0.0
            orca.vel[i, 1] = 0.0
    return res


@njit
def label_components(walk, labels):  # type: ignore[no-untyped-def]
    """4-connected components of ``walk`` (uint8, (depth, width)) into ``labels``
    (int32, -1 on blocked cells). With the no-corner-cutting rule, 8-connected
    moves connect exactly the 4-connected components. Returns the count."""
    d, w = walk.shape
    for z in range(d):
        for x in range(w):
            labels[z, x] = -1
    queue = np.empty(d * w, dtype=np.int64)
    count = 0
    for z0 in range(d):
        for x0 in range(w):
            if walk[z0, x0] == 0 or labels[z0, x0] >= 0:
                continue
            labels[z0, x0] = count
            head = 0
            tail = 0
            queue[tail] = z0 * w + x0
            tail += 1
            while head < tail:
                q = queue[head]
                head += 1
                qz = q // w
                qx = q - qz * w
                for k in range(4):
                    nx = qx
                    nz = qz
                    if k == 0:
                        nx = qx + 1
                    elif k == 1:
                        nx = qx - 1
                    elif k == 2:
                        nz = qz + 1
                    else:
                        nz = qz - 1
                    if nx < 0 or nx >= w or nz < 0 or nz >= d:
                        continue
                    if walk[nz, nx] != 0 and labels[nz, nx] < 0:
                        labels[nz, nx] = count
                        queue[tail] = nz * w + nx
                        tail += 1
            count += 1
    return count
