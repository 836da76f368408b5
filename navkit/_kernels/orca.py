"""Optimal reciprocal collision avoidance (ORCA) for the character simulation.

The rule is docs/rules.md §9.6; the method is van den Berg, Guy, Lin and
Manocha, "Reciprocal n-Body Collision Avoidance" (ISRR 2011), in the form of
its reference implementation RVO2 (2-D linear program, 3-D fallback when the
constraints are infeasible), written here for navkit's kernels.

Every walker ``i`` (``walking[i]`` set) picks the velocity closest to its
preferred velocity ``vpref[i]`` (the path-following velocity toward its
current waypoint, m/s) that lies, for each of its ``max_neighbors`` nearest
solid neighbours within ``r_i + r_j + tau * (v_i + v_j)``, on the permitted
side of the ORCA half-plane for time horizon ``tau``, and within its walk
speed. A neighbour that also walks shares the avoidance (half of ``u``); one
that stands (or sits out the tick) is a static disc and ``i`` takes it all.
Radii are the contact radii plus ``margin``. Walls are not constraints here:
the movement guard (docs/rules.md §9.5) slides steps along them.

Everything runs in slot (= stable-ID) order with explicit ties (neighbours by
squared distance, then slot), in float64 with ``+ - * /`` and ``sqrt`` only,
so the result is bit-identical everywhere. The neighbours come from navkit's
one neighbour index (:mod:`navkit._kernels.spatial_hash`) over the solid
characters, with cells at least the largest reach: a walker scans the 5 x 5
cells around its own and keeps the ``k`` nearest (:func:`~navkit._kernels.spatial_hash.knn_insert`).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .._numba_config import njit
from .layouts import IndexArgs, WalkGridArgs
from .spatial_hash import index_points, knn_insert, near_cells

__all__ = ["OrcaArgs", "orca_velocities", "ORCA_EPS"]

#: Parallel-line tolerance of the linear programs (RVO2's RVO_EPSILON).
ORCA_EPS = 1e-5


class OrcaArgs(NamedTuple):
    """The avoidance step's arrays and scalars (built by :mod:`navkit.sim.avoidance`)."""

    #: float64 (n, 2), m/s: every character's velocity over the last tick (read).
    vel: Any
    #: float64 (n, 2), m/s: preferred velocity of the walkers (read).
    vpref: Any
    #: float64 (n, 2), m/s: chosen velocity (written for walkers).
    vnew: Any
    #: uint8 (n,): 1 when ``vnew`` differs from ``vpref`` (written for walkers).
    changed: Any
    #: float64 (k, 4): ORCA lines ``(point x, point z, direction x, direction z)`` (work).
    lines: Any
    #: float64 (k, 4): projected lines of the 3-D program (work).
    proj: Any
    #: float64 (k,) and int64 (k,): the nearest neighbours' squared distances and slots (work).
    nb_d: Any
    nb_j: Any
    #: An :class:`~navkit._kernels.layouts.IndexArgs` (work): the solid
    #: characters' neighbour index, its cells at least the largest reach
    #: ``r + tau * v`` (its geometry set by the caller).
    index: Any
    #: float, s: time horizon; float, m: added to the contact radii.
    tau: Any
    margin: Any
    #: float, s: the tick (collision recovery within one tick).
    dt: Any
    #: float64 (4,): the linear programs' result and saved copy (work).
    vec: Any
    #: int32 (n,), slot: each walker's nearest avoided neighbour (-1: none; written).
    nearest: Any
    #: float64 (kw,) and int64 (kw,): the nearest blocked cells' squared distances and
    #: padded indices (work; ``kw = 0`` leaves walls to the movement guard).
    wall_d: Any
    wall_c: Any
    #: float, s: time horizon against walls.
    tau_wall: Any
    #: float64 (n,): the indexed characters' reach (radius, plus ``tau`` times
    #: the speed of a walker) in index order (work).
    sreach: Any


@njit(inline="always")
def _det(ax, az, bx, bz):  # type: ignore[no-untyped-def]
    return ax * bz - az * bx


@njit
def _lp1(lines, no, radius, ox, oz, dir_opt, res):  # type: ignore[no-untyped-def]
    """Optimum on line ``no`` subject to lines ``0 .. no-1`` and the speed disc;
    writes ``res`` and returns True, or False (``res`` untouched) when empty."""
    px = lines[no, 0]
    pz = lines[no, 1]
    dx = lines[no, 2]
    dz = lines[no, 3]
    dot = px * dx + pz * dz
    disc = dot * dot + radius * radius - (px * px + pz * pz)
    if disc < 0.0:
        return False
    sq = math.sqrt(disc)
    t_left = -dot - sq
    t_right = -dot + sq
    for k in range(no):
        denom = _det(dx, dz, lines[k, 2], lines[k, 3])
        numer = _det(lines[k, 2], lines[k, 3], px - lines[k, 0], pz - lines[k, 1])
        if abs(denom) <= ORCA_EPS:
            if numer < 0.0:
                return False
            continue
        t = numer / denom
        if denom >= 0.0:
            if t < t_right:
                t_right = t
        elif t > t_left:
            t_left = t
        if t_left > t_right:
            return False
    if dir_opt:
        if ox * dx + oz * dz > 0.0:
            t = t_right
        else:
            t = t_left
    else:
        t = dx * (ox - px) + dz * (oz - pz)
        if t < t_left:
            t = t_left
        elif t > t_right:
            t = t_right
    res[0] = px + t * dx
    res[1] = pz + t * dz
    return True


@njit
def _lp2(lines, m, radius, ox, oz, dir_opt, res):  # type: ignore[no-untyped-def]
    """Velocity closest to ``(ox, oz)`` (or farthest along it, ``dir_opt``) in
    the disc of ``radius`` satisfying lines ``0 .. m-1``; returns the index of
    the first line that made it infeasible (``m``: feasible)."""
    if dir_opt:
        res[0] = ox * radius
        res[1] = oz * radius
    else:
        o2 = ox * ox + oz * oz
        if o2 > radius * radius:
            lo = math.sqrt(o2)
            res[0] = ox / lo * radius
            res[1] = oz / lo * radius
        else:
            res[0] = ox
            res[1] = oz
    for k in range(m):
        if _det(lines[k, 2], lines[k, 3], lines[k, 0] - res[0], lines[k, 1] - res[1]) > 0.0:
            sx = res[0]
            sz = res[1]
            if not _lp1(lines, k, radius, ox, oz, dir_opt, res):
                res[0] = sx
                res[1] = sz
                return k
    return m


@njit
def _lp3(lines, nobst, m, begin, radius, proj, res, tmp):  # type: ignore[no-untyped-def]
    """The least-violating velocity when lines ``begin ..`` are infeasible
    (minimizes the largest distance by which an agent line is violated; the
    first ``nobst`` lines, the walls', stay hard)."""
    distance = 0.0
    for i in range(begin, m):
        pix = lines[i, 0]
        piz = lines[i, 1]
        dix = lines[i, 2]
        diz = lines[i, 3]
        if _det(dix, diz, pix - res[0], piz - res[1]) <= distance:
            continue
        for j in range(nobst):
            proj[j, 0] = lines[j, 0]
            proj[j, 1] = lines[j, 1]
            proj[j, 2] = lines[j, 2]
            proj[j, 3] = lines[j, 3]
        np_ = nobst
        for j in range(nobst, i):
            pjx = lines[j, 0]
            pjz = lines[j, 1]
            djx = lines[j, 2]
            djz = lines[j, 3]
            dt = _det(dix, diz, djx, djz)
            if abs(dt) <= ORCA_EPS:
                if dix * djx + diz * djz > 0.0:
                    continue
                qx = 0.5 * (pix + pjx)
                qz = 0.5 * (piz + pjz)
            else:
                s = _det(djx, djz, pix - pjx, piz - pjz) / dt
                qx = pix + s * dix
                qz = piz + s * diz
            ex = djx - dix
            ez = djz - diz
            el = math.sqrt(ex * ex + ez * ez)
            if el <= 0.0:
                continue
            proj[np_, 0] = qx
            proj[np_, 1] = qz
            proj[np_, 2] = ex / el
            proj[np_, 3] = ez / el
            np_ += 1
        tmp[0] = res[0]
        tmp[1] = res[1]
        if _lp2(proj, np_, radius, -diz, dix, np.bool_(True), res) < np_:
            res[0] = tmp[0]
            res[1] = tmp[1]
        distance = _det(dix, diz, pix - res[0], piz - res[1])


@njit
def _build_index(pos, rad, speed, solid, walking, a, ix):  # type: ignore[no-untyped-def]
    """The neighbour index of the solid characters (slot order inside a cell),
    with each one's reach in index order."""
    count = index_points(pos, solid, ix)
    order = ix.order
    sreach = a.sreach
    tau = a.tau
    for k in range(count):
        i = order[k]
        sreach[k] = rad[i] + tau * speed[i] if walking[i] else rad[i]


@njit
def _neighbours(pos, rad, speed, exclude, a, ix, i):  # type: ignore[no-untyped-def]
    """The ``k`` nearest solid neighbours of ``i`` that can meet it within
    ``tau`` (sorted by squared distance, then slot; the 5 x 5 cells around
    ``i``'s, cells at least half the largest reach); returns their count."""
    nb_d = a.nb_d
    nb_j = a.nb_j
    kmax = nb_d.shape[0]
    nx = ix.dims[0]
    cell_start = ix.cell_start
    order = ix.order
    spos = ix.spos
    sreach = a.sreach
    px = pos[i, 0]
    pz = pos[i, 1]
    own = rad[i] + a.tau * speed[i]
    ex = exclude[i]
    cnt = np.int64(0)  # not a literal: one compiled knn_insert
    x0, x1, z0, z1 = near_cells(px, pz, 2, ix.geom, ix.dims)
    for cz in range(z0, z1 + 1):
        for k in range(cell_start[cz * nx + x0], cell_start[cz * nx + x1 + 1]):
            dx = spos[k, 0] - px
            dz = spos[k, 1] - pz
            d2 = dx * dx + dz * dz
            reach = own + sreach[k]
            j = order[k]
            if d2 <= reach * reach and j != i and j != ex:
                # int64 slots, as the walls' cells below: one compiled knn_insert
                cnt = knn_insert(d2, np.int64(j), kmax, cnt, nb_j, nb_d, np.int64(0))
    return cnt


@njit(inline="always")
def _cutoff(wx, wz, wl, edge):  # type: ignore[no-untyped-def]
    """The line of a velocity on a cut-off circle: ``w`` (length ``wl``) from
    its centre, ``edge`` its radius over the time; returns the direction and
    ``u``, the smallest change onto the circle."""
    ux_ = wx / wl
    uz_ = wz / wl
    ul = edge - wl
    return uz_, -ux_, ul * ux_, ul * uz_


@njit
def _add_line(lines, m, rpx, rpz, rvx, rvz, cr, inv_tau, inv_dt, share, vx, vz):  # type: ignore[no-untyped-def]
    """Append the ORCA line of a disc at relative position ``rp`` with relative
    velocity ``rv`` and combined radius ``cr`` (``share`` of the avoidance:
    0.5 reciprocal, 1 static); returns the new line count."""
    d2 = rpx * rpx + rpz * rpz
    cr2 = cr * cr
    if d2 > cr2:
        wx = rvx - inv_tau * rpx
        wz = rvz - inv_tau * rpz
        w2 = wx * wx + wz * wz
        dot1 = wx * rpx + wz * rpz
        if dot1 < 0.0 and dot1 * dot1 > cr2 * w2:
            # the velocity projects on the cut-off circle
            ldx, ldz, ux, uz = _cutoff(wx, wz, math.sqrt(w2), cr * inv_tau)
        else:
            # on a leg of the cone
            leg = math.sqrt(d2 - cr2)
            if _det(rpx, rpz, wx, wz) > 0.0:
                ldx = (rpx * leg - rpz * cr) / d2
                ldz = (rpx * cr + rpz * leg) / d2
            else:
                ldx = -(rpx * leg + rpz * cr) / d2
                ldz = -(-rpx * cr + rpz * leg) / d2
            dot2 = rvx * ldx + rvz * ldz
            ux = dot2 * ldx - rvx
            uz = dot2 * ldz - rvz
    else:
        # already within the combined radius: separate within one tick
        wx = rvx - inv_dt * rpx
        wz = rvz - inv_dt * rpz
        wl = math.sqrt(wx * wx + wz * wz)
        if wl <= 0.0:
            return m
        ldx, ldz, ux, uz = _cutoff(wx, wz, wl, cr * inv_dt)
    lines[m, 0] = vx + share * ux
    lines[m, 1] = vz + share * uz
    lines[m, 2] = ldx
    lines[m, 3] = ldz
    return m + 1


@njit
def _wall_lines(grid, a, i, px, pz, reach):  # type: ignore[no-untyped-def]
    """Hard lines of walker ``i`` at ``(px, pz)`` against the nearest blocked
    cells whose centres lie within ``reach`` (each a static disc of half the
    cell diagonal around its centre; the grid is already inflated by the
    agent radius, so the walker is a point); returns the line count."""
    wall_d = a.wall_d
    wall_c = a.wall_c
    kmax = wall_d.shape[0]
    if kmax == 0:
        return 0
    cells = grid.cells
    wpad = grid.wpad
    hpad = grid.hpad
    cs = grid.cell_size
    x0 = grid.min_x - cs  # padded cell 0's lower edge
    z0 = grid.min_z - cs
    ca = int(math.floor((px - reach - x0) / cs))
    cb = int(math.floor((px + reach - x0) / cs))
    za = int(math.floor((pz - reach - z0) / cs))
    zb = int(math.floor((pz + reach - z0) / cs))
    if ca < 0:
        ca = 0
    if za < 0:
        za = 0
    if cb > wpad - 1:
        cb = wpad - 1
    if zb > hpad - 1:
        zb = hpad - 1
    reach2 = reach * reach
    cnt = np.int64(0)
    for cz in range(za, zb + 1):
        for cx in range(ca, cb + 1):
            c = cz * wpad + cx
            if cells[c] != 0:
                continue
            dx = x0 + (cx + 0.5) * cs - px
            dz = z0 + (cz + 0.5) * cs - pz
            d2 = dx * dx + dz * dz
            if d2 <= reach2:
                cnt = knn_insert(d2, np.int64(c), kmax, cnt, wall_c, wall_d, np.int64(0))
    vel = a.vel
    vx = vel[i, 0]
    vz = vel[i, 1]
    cr = 0.5 * cs * math.sqrt(2.0)
    inv_tau = 1.0 / a.tau_wall
    inv_dt = 1.0 / a.dt
    m = np.int64(0)  # not a literal: _add_line compiles once
    for s in range(cnt):
        c = wall_c[s]
        cz = c // wpad
        cx = c - cz * wpad
        dx = x0 + (cx + 0.5) * cs - px
        dz = z0 + (cz + 0.5) * cs - pz
        m = _add_line(a.lines, m, dx, dz, vx, vz, cr, inv_tau, inv_dt, 1.0, vx, vz)
    return m


@njit
def _orca_lines(pos, rad, solid, walking, a, i, cnt, m):  # type: ignore[no-untyped-def]
    """The ORCA half-planes of walker ``i`` against its ``cnt`` neighbours,
    appended to ``a.lines`` after the first ``m``; returns the line count."""
    vel = a.vel
    nb_j = a.nb_j
    inv_tau = 1.0 / a.tau
    inv_dt = 1.0 / a.dt
    vx = vel[i, 0]
    vz = vel[i, 1]
    for s in range(cnt):
        j = nb_j[s]
        rpx = pos[j, 0] - pos[i, 0]
        rpz = pos[j, 1] - pos[i, 1]
        if walking[j]:
            m = _add_line(a.lines, m, rpx, rpz, vx - vel[j, 0], vz - vel[j, 1], rad[i] + rad[j],
                          inv_tau, inv_dt, 0.5, vx, vz)
        else:
            m = _add_line(a.lines, m, rpx, rpz, vx, vz, rad[i] + rad[j],
                          inv_tau, inv_dt, 1.0, vx, vz)
    return m


@njit
def orca_velocities(pos, rc, speed, solid, walking, exclude, a_t, tmp, grid_t):  # type: ignore[no-untyped-def]
    """ORCA velocities of every walker into ``a.vnew`` (``a`` = :class:`OrcaArgs`).

    ``pos`` float64 (n, 2) m, ``rc`` float64 (n,) m (contact radii), ``speed``
    float64 (n,) m/s (the speed limit), ``solid`` / ``walking`` uint8 (n,),
    ``exclude`` int32 (n,) (a slot each walker ignores: its follow target, or
    -1), ``tmp`` float64 (n,) (work: the avoidance radii), ``grid_t`` the
    static walkable grid (a :class:`~navkit._kernels.layouts.WalkGridArgs`,
    padded). A walker whose
    preferred velocity breaks no constraint keeps it exactly (``changed`` 0).
    Returns 0.
    """
    a = OrcaArgs(*a_t)
    ix = IndexArgs(*a.index)
    grid = WalkGridArgs(*grid_t)
    vpref = a.vpref
    vnew = a.vnew
    changed = a.changed
    lines = a.lines
    n = pos.shape[0]
    rad = tmp
    for i in range(n):
        rad[i] = rc[i] + a.margin
    _build_index(pos, rad, speed, solid, walking, a, ix)
    res = a.vec[0:2]
    sav = a.vec[2:4]
    for i in range(n):
        if not walking[i]:
            continue
        ox = vpref[i, 0]
        oz = vpref[i, 1]
        cnt = _neighbours(pos, rad, speed, exclude, a, ix, i)
        a.nearest[i] = a.nb_j[0] if cnt > 0 else -1
        px = pos[i, 0]
        pz = pos[i, 1]
        wreach = 0.5 * grid.cell_size * math.sqrt(2.0) + a.tau_wall * speed[i]
        nobst = _wall_lines(grid, a, i, px, pz, wreach)
        m = _orca_lines(pos, rad, solid, walking, a, i, cnt, nobst)
        ok = True
        for k in range(m):
            if _det(lines[k, 2], lines[k, 3], lines[k, 0] - ox, lines[k, 1] - oz) > 0.0:
                ok = False
                break
        if ok:
            vnew[i, 0] = ox
            vnew[i, 1] = oz
            changed[i] = 0
            continue
        radius = speed[i]
        # np.bool_, not literals: one compiled _lp1 / _lp2
        fail = _lp2(lines, m, radius, ox, oz, np.bool_(False), res)
        if fail < m:
            _lp3(lines, nobst, m, fail, radius, a.proj, res, sav)
        vnew[i, 0] = res[0]
        vnew[i, 1] = res[1]
        changed[i] = 1
    return 0
