"""The movement step of a tick: marshalling :func:`navkit._kernels.sim.tick`
(:func:`~navkit._kernels.sim.tick_orca` with avoidance,
:func:`~navkit._kernels.sim.tick_steer` while a character has a steering policy).

:class:`MovementPhase` builds the kernel's argument groups by field name
through the layouts of :mod:`navkit._kernels.layouts` and passes them as
plain tuples (what numba dispatches fastest). It keeps the kernel's scratch
arrays (sized to the character count), the neighbour index of the
characters (:func:`navkit.agents.index.map_index`: cells sized to the map,
the largest contact radius and the longest step) and the state's groups,
rebuilt only when the state's arrays are replaced.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import sim as _k
from .._kernels.layouts import (
    BodyArgs,
    FollowArgs,
    NavArgs,
    RetryArgs,
    SteerArgs,
    TickOut,
    TickParams,
    WalkGridArgs,
)
from ..agents.index import map_index
from .avoidance import OrcaWorkspace, check_avoidance
from .constants import (
    APPROACH_GIVE_UP_TICKS,
    BLOCKED_REPLAN_TICKS,
    FOLLOWING_COS,
    TARGET_REPLAN_THRESHOLD,
    WALK_THRESHOLD,
)
from .events import TickEvents
from .simmap import SimMap
from .state import SimState

__all__ = ["MovementPhase"]

_NO_EVENTS = np.zeros(0, dtype=np.uint8)


class MovementPhase:
    """Step 3 of a tick: path following, approach steps and the movement guard
    for every character of ``state``, in one kernel call (see
    :mod:`navkit._kernels.sim`)."""

    def __init__(self, state: SimState, avoidance: str = "none") -> None:
        self.state = state
        #: ``"none"`` or ``"orca"`` (docs/rules.md §9.6).
        self.avoidance = check_avoidance(avoidance)
        self._orca = OrcaWorkspace(state) if self.avoidance == "orca" else None
        # steering policies without ORCA: its buffers (velocities, preferred ones)
        self._steer_ws: OrcaWorkspace | None = None
        self._steer_key: tuple[int, int] | None = None
        self._steer_t: tuple[Any, ...] = ()
        self._steered_key: tuple[int, int] | None = None
        self._has_policy = False
        # the kernel of the last tick: "plain" (no velocities kept), "steered", other
        self._last = ""
        self._hash_key: tuple[Any, ...] | None = None
        self._hash_t: tuple[Any, ...] = ()
        self._grid_t: tuple[Any, ...] = ()
        self._grid_cells: NDArray[np.uint8] | None = None
        self._groups: tuple[Any, ...] = ()
        self._generation = -1
        self._marks = np.zeros(1, dtype=np.int32)
        self._stats = np.zeros(_k.STATS_SIZE, dtype=np.float64)
        self._n = -1
        self._scratch(0)

    def run(self, view: SimMap, *, dt: float, tick: int, repath_ticks: int,
            ev: TickEvents) -> NDArray[np.uint8]:
        """Move every character one tick on ``view``'s static grid; fills
        ``ev``'s counters and returns the per-slot event bits (``EV_*``,
        valid until the next call)."""
        state = self.state
        if state.n == 0:
            return _NO_EVENTS
        self._scratch(state.n)
        body, nav, retry, follow = self._state_groups()
        params = TickParams(
            dt=float(dt), tick=int(tick), repath_ticks=int(repath_ticks),
            give_up_ticks=int(APPROACH_GIVE_UP_TICKS), walk_threshold=float(WALK_THRESHOLD),
            replan_threshold=float(TARGET_REPLAN_THRESHOLD),
            blocked_limit=int(BLOCKED_REPLAN_TICKS), following_cos=float(FOLLOWING_COS),
        )
        hsh = self._spatial_hash(view, dt)
        groups = (body, nav, retry, follow, self._grid_group(view), hsh, tuple(params),
                  self._out_t, self._solid, self._marks)
        if self._steered():
            if self._last == "plain":  # velocities were not kept: start from rest
                state.vel[:] = 0.0
            self._steered_tick(view, dt, groups)
            self._last = "steered"
        elif self._orca is None:
            _k.tick(*groups)
            self._last = "plain"
        else:
            w = self._orca
            _k.tick_orca(*groups, self._orca_args(w, view, dt), w.walking, w.exclude,
                         w.override, w.rad, w.stall_fraction, w.corner_radius)
        st = self._stats
        ev.min_gap = float(st[_k.STAT_MIN_GAP])
        ev.moved = int(st[_k.STAT_MOVED])
        ev.blocked = int(st[_k.STAT_BLOCKED])
        ev.waited = int(st[_k.STAT_WAITED])
        bits: NDArray[np.uint8] = self._out.ev
        return bits

    def _steered(self) -> bool:
        """Whether a character has a steering policy (cached while the state's
        rows and policies stay)."""
        a = self.state
        key = (a.generation, a.policy_version)
        if key != self._steered_key:
            self._steered_key = key
            self._has_policy = a.steered()
        return self._has_policy

    @staticmethod
    def _orca_args(w: OrcaWorkspace, view: SimMap, dt: float) -> tuple[Any, ...]:
        g = view.grid
        return w.args(float(g.min_x), float(g.min_z), float(g.width * g.cell_size),
                      float(g.depth * g.cell_size), float(dt))

    def _steered_tick(self, view: SimMap, dt: float, groups: tuple[Any, ...]) -> None:
        """The tick with steering policies (:func:`navkit._kernels.sim.tick_steer`),
        with ORCA after the policies when avoidance is on."""
        use_orca = self._orca is not None
        if self._orca is not None:
            w = self._orca
        else:
            if self._steer_ws is None:
                self._steer_ws = OrcaWorkspace(self.state)
            w = self._steer_ws
        _k.tick_steer(*groups, self._orca_args(w, view, dt), w.walking, w.exclude, w.override,
                      w.rad, w.stall_fraction if use_orca else 0.0,
                      w.corner_radius if use_orca else 0.0, use_orca, self._steer_args())

    def _steer_args(self) -> tuple[Any, ...]:
        """The policies' tables and the state's steering columns as a plain
        :class:`~navkit._kernels.layouts.SteerArgs` tuple (cached while they stay)."""
        a = self.state
        key = (a.generation, a.policy_version)
        if key != self._steer_key:
            pol = a.policies
            self._steer_key = key
            self._steer_t = tuple(SteerArgs(
                policy=a.policy,
                weights=np.array([p.weights.as_array() for p in pol], dtype=np.float64),
                params=np.array([p.params.as_array() for p in pol], dtype=np.float64),
                max_force=np.array([p.max_force for p in pol], dtype=np.float64),
                wander=a.wander, noise=a.noise, svel=np.zeros((a.n, 2), dtype=np.float64)))
        return self._steer_t

    def _scratch(self, n: int) -> None:
        """Size the kernel's scratch and result arrays for ``n`` characters."""
        if self._n == n:
            return
        self._n = n
        out = TickOut(
            res=np.zeros((n, 2), dtype=np.float64),
            dirv=np.zeros((n, 2), dtype=np.float64),
            steplen=np.zeros(n, dtype=np.float64),
            mode=np.zeros(n, dtype=np.uint8),
            ev=np.zeros(n, dtype=np.uint8),
            ev_blocker=np.zeros(n, dtype=np.int32),
            stats=self._stats,
        )
        self._out = out
        self._out_t = tuple(out)
        self._solid = np.zeros(n, dtype=np.uint8)
        self._hash_key = None

    def _state_groups(self) -> tuple[Any, ...]:
        """The state's four groups as plain tuples (cached while its arrays stay)."""
        a = self.state
        if a.generation != self._generation:
            body = BodyArgs(pos=a.pos, facing=a.facing, speed=a.speed, rot=a.rot, rc=a.rc,
                            kind=a.kind, alive=a.alive, enabled=a.enabled)
            nav = NavArgs(active=a.active, wp=a.wp, wp_n=a.wp_n, wp_i=a.wp_i,
                          walk_target=a.walk_target, requested=a.requested, moved=a.moved,
                          blocked=a.blocked, anim=a.anim)
            retry = RetryArgs(seq=a.seq, cur=a.cur, timer=a.timer, blocker=a.rblocker)
            follow = FollowArgs(target=a.f_target, rng=a.f_range, talk=a.f_talk, best=a.f_best,
                                stall=a.f_stall, last_plan=a.f_last_plan, goal=a.f_goal,
                                on_path=a.on_path)
            self._groups = (tuple(body), tuple(nav), tuple(retry), tuple(follow))
            self._generation = a.generation
        return self._groups

    def _grid_group(self, view: SimMap) -> tuple[Any, ...]:
        """The static grid group (a plain tuple; rebuilt when the padded cells change,
        which they do with every map version and every map)."""
        cells = view.padded_cells
        if cells is self._grid_cells:
            return self._grid_t
        self._grid_cells = cells
        g = view.grid
        self._grid_t = tuple(WalkGridArgs(
            cells=cells, wpad=int(g.width + 2), hpad=int(g.depth + 2),
            min_x=float(g.min_x), min_z=float(g.min_z), cell_size=float(g.cell_size),
        ))
        return self._grid_t

    def _spatial_hash(self, view: SimMap, dt: float) -> tuple[Any, ...]:
        """The characters' neighbour index (a plain tuple; new buffers when its
        geometry changes)."""
        a = self.state
        g = view.grid
        rmax = float(a.rc.max()) if a.n else 0.0
        smax = float(a.speed.max()) * dt if a.n else 0.0
        key = (rmax, smax, g.min_x, g.min_z, g.width, g.depth, g.cell_size, a.n)
        if key != self._hash_key:
            # a cell holds every reservation that can touch a step from it:
            # reservations move at most one step, the mover one step
            self._hash_key = key
            self._hash_t = map_index(2.0 * rmax + 2.0 * smax, float(g.min_x), float(g.min_z),
                                     g.width * g.cell_size, g.depth * g.cell_size, a.n)
        return self._hash_t
