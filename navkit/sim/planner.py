"""Centralized planning for a :class:`~navkit.sim.Location` (docs/rules.md §6, §7, §10).

Every plan is one :meth:`~navkit.query.pathfinder.Pathfinder.find_path` query with
``nearest=True`` against a snapshot of obstacle characters taken from the
location's arrays in slot (= stable-ID) order. A character is an obstacle for
a request when it is not the requester, is alive and enabled, and did not move
during the previous tick - unless it is the blocker promoted for this request
(a retry after a blocked stop), which is an obstacle even if it moved. Its
circle radius is its ``collisionRadius`` (``navigationAvoidanceRadius``)
inflated by the map's ``agentRadius`` and half a cell diagonal. There is no
fallback without obstacles: an unreachable or occupied destination resolves
to the nearest reachable cell.

During the planning phase of a tick the planner builds the snapshot once
(:class:`TickSnapshot`: every circle any plan of the tick may see, in slot
order, as a :meth:`Pathfinder.snapshot
<navkit.query.pathfinder.Pathfinder.snapshot>`) and answers each plan with
``ignore=`` the rows that plan must not see (its own circle, the moved
characters another plan of the tick promoted); the answers are exactly those
of the per-plan :func:`obstacle_snapshot` (docs/rules.md §7.6), which plans
outside the phase and with a query recorder still use.

Plans run on a :class:`~navkit.sim.simmap.SimMap`: one navigation backend
(grid, mesh or world) behind the navigation contract, the same planner for all.

:class:`Planner` runs the plans against a :class:`~navkit.sim.state.SimState`:
plans to a destination and to a followed character, retry scheduling, the
planning phase of a tick (docs/rules.md §7.3, §10.1) and the forced replans after a
map change.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..contract import deprecated_name
from ..errors import ConfigError
from ..query.edits import ObstacleSnapshot
from .constants import RETRY_SEQUENCE_LENGTH, TARGET_REPLAN_THRESHOLD
from .events import SimStats, TickEvents
from .kinds import CharacterKind
from .simmap import SimMap
from .state import NEED_FORCED, SimState

__all__ = ["obstacle_snapshot", "TickSnapshot", "Planner", "LEG", "NEED_LEG"]

_NPC = CharacterKind.NPC.code
#: ``SimState.partial`` of a partial plan that is one bounded leg of a longer walk
#: (a world's bounded preset, docs/rules.md §14.5): any kind plans the next leg on arrival.
LEG = 2
#: ``SimState.need_plan`` bit: plan the next leg (beside ``NEED_FORCED``, ``NEED_FOLLOW``).
NEED_LEG = 4


def obstacle_snapshot(
    pos: NDArray[np.float64],
    radius: NDArray[np.float64],
    solid: NDArray[np.bool_],
    moved: NDArray[np.uint8],
    requester: int,
    promoted: int = -1,
) -> NDArray[np.float64]:
    """The ``(k, 3)`` circles ``(x, z, r)`` a request plans around (docs/rules.md §7.3).

    Rows are in slot order, which is stable-ID order. ``radius`` is already
    inflated (see :meth:`SimMap.obstacle_radius <navkit.sim.simmap.SimMap.obstacle_radius>`).
    """
    mask = solid & (moved == 0)
    mask[requester] = False
    if 0 <= promoted < len(mask) and promoted != requester and solid[promoted]:
        mask[promoted] = True
    idx = np.flatnonzero(mask)
    out = np.empty((len(idx), 3), dtype=np.float64)
    out[:, 0:2] = pos[idx]
    out[:, 2] = radius[idx]
    return out


class TickSnapshot:
    """The obstacle circles of one planning phase (docs/rules.md §7.3, §7.6).

    ``rows`` are the slots, ascending, of every solid character that did not
    move, plus the moved ones some plan of the tick promotes (``promoted``:
    slots, -1 for none); ``snap`` is their circles as an
    :class:`~navkit.query.edits.ObstacleSnapshot` (ids = row indices), which every
    backend takes with ``ignore=``. :meth:`ignore` names the rows a plan must skip,
    so that the snapshot minus them is the plan's :func:`obstacle_snapshot`.
    """

    def __init__(self, pos: NDArray[np.float64], radius: NDArray[np.float64],
                 solid: NDArray[np.bool_], moved: NDArray[np.uint8], promoted: list[int]):
        n = len(solid)
        mask = solid & (moved == 0)
        extra = [p for p in promoted if 0 <= p < n and solid[p] and not mask[p]]
        mask[extra] = True
        idx = np.flatnonzero(mask)
        circles = np.empty((len(idx), 3), dtype=np.float64)
        circles[:, 0:2] = pos[idx]
        circles[:, 2] = radius[idx]
        #: Slot of each row, ``(k,)``.
        self.rows = idx
        self._row_of = np.full(n, -1, dtype=np.int64)
        self._row_of[idx] = np.arange(len(idx), dtype=np.int64)
        self._extra = sorted(set(extra))
        #: The circles ``(k, 3)`` ``(x, z, r)`` as an obstacle snapshot.
        self.snap = ObstacleSnapshot(circles)

    def ignore(self, requester: int, promoted: int = -1) -> int | list[int]:
        """Rows the plan of slot ``requester`` (promoting slot ``promoted``) skips:
        its own row and the moved characters promoted by other plans only."""
        r = int(self._row_of[requester])
        out = [] if r < 0 else [r]
        for p in self._extra:
            if p != promoted and p != requester:
                out.append(int(self._row_of[p]))
        if len(out) == 1:
            return out[0]  # one int: the snapshot's fast path
        out.sort()
        return out


class Planner:
    """Path plans for the characters of ``state`` on ``map`` (docs/rules.md §7.3, §10).

    Every plan is one :meth:`SimMap.find_path <navkit.sim.simmap.SimMap.find_path>`
    query from the character's position around the :func:`obstacle_snapshot` of the
    others; it counts in ``stats.replans`` and, during a tick, in ``events.replans``.
    In the planning phase of a tick the plans share one :class:`TickSnapshot` (when
    :attr:`shared_snapshot` and no recorder is attached) with the same answers.
    """

    #: Share one snapshot per planning phase (False: every plan builds its own
    #: :func:`obstacle_snapshot`, the reference the tests compare against).
    shared_snapshot: bool = True
    #: Fewest plans in a phase for which the snapshot is shared (one plan
    #: builds its own array: cheaper than a snapshot's cover counts).
    share_min_plans: int = 2

    def __init__(self, state: SimState, view: SimMap, stats: SimStats):
        self.state = state
        #: The map plans run on (replace it with :meth:`switch_map`).
        self.map = view
        #: The location's running totals.
        self.stats = stats
        #: The events of the tick being run (None between ticks).
        self.events: TickEvents | None = None
        self._map_version = view.version
        self._token = view.change_token()
        self._tick: TickSnapshot | None = None

    # ------------------------------------------------------------- plans
    def plan_to(self, slot: int, dest: tuple[float, float], promoted: int = -1) -> None:
        """Plan to ``dest`` (walkTarget = reachable end, requestedWalkTarget untouched).

        ``promoted`` is the slot of a blocker that is an obstacle for this
        plan even if it moved (-1: none). An NPC whose plan ends short of a
        destination reachable on the static map, with no path at all,
        schedules a retry at once. A partial plan that is a bounded leg
        (:meth:`SimMap.is_leg <navkit.sim.simmap.SimMap.is_leg>`: a world's bounded
        preset) is marked :data:`LEG`.
        """
        a = self.state
        start, res = self._query(slot, dest, promoted)
        a.need_plan[slot] = 0
        a.timer[slot] = 0
        a.rblocker[slot] = -1
        a.blocked[slot] = 0
        has = self._store_path(slot, res, start)
        a.short[slot] = 0 if has and res.found else 1
        goal = self.map.static_goal(start, dest)
        partial = goal is not None and (not has or not self.map.ends_at(res, goal))
        a.partial[slot] = 1 if partial else 0
        if partial and has and self.map.is_leg(start, dest, res):
            a.partial[slot] = LEG
        if partial and not has and a.kind[slot] == _NPC:
            self.schedule_retry(slot, -1)

    def plan_follow(self, slot: int, tick: int, promoted: int = -1) -> None:
        """Plan to the position of the character ``slot`` follows, at tick ``tick``."""
        a = self.state
        j = int(a.f_target[slot])
        dest = (float(a.pos[j, 0]), float(a.pos[j, 1]))
        start, res = self._query(slot, dest, promoted)
        a.need_plan[slot] = 0
        a.timer[slot] = 0
        a.rblocker[slot] = -1
        a.blocked[slot] = 0
        a.requested[slot] = dest
        a.f_goal[slot] = dest
        a.f_last_plan[slot] = tick
        has = self._store_path(slot, res, start)
        a.on_path[slot] = 1 if has else 0
        a.partial[slot] = 0
        a.short[slot] = 0
        if has:
            # a plan that can end nearer the goal than the best distance so
            # far starts a new baseline: its route length (docs/rules.md §10.5 give-up)
            w = res.waypoints
            residual = math.hypot(w[-1, 0] - dest[0], w[-1, 1] - dest[1])
            if residual < a.f_best[slot]:
                steps = np.diff(np.vstack([np.array([start]), w]), axis=0)
                a.f_best[slot] = float(np.hypot(steps[:, 0], steps[:, 1]).sum()) + residual
                a.f_stall[slot] = 0

    def schedule_retry(self, slot: int, blocker: int) -> None:
        """Start the next cooldown of ``slot``'s sequence; ``blocker`` is promoted on the retry."""
        a = self.state
        c = int(a.cur[slot])
        a.timer[slot] = a.seq[slot, c]
        a.cur[slot] = (c + 1) % RETRY_SEQUENCE_LENGTH
        a.rblocker[slot] = blocker

    def planning_phase(self, ev: TickEvents, tick: int) -> None:
        """Step 2 of a tick: count retry timers down, then plan (in slot order)
        every solid character whose retry is due or whose ``need_plan`` is set."""
        a = self.state
        timer = a.timer
        counting = timer > 0
        due = None
        if counting.any():
            timer[counting] -= 1
            due = counting & (timer == 0)
            need = (a.need_plan != 0) | due
        else:
            need = a.need_plan != 0
        if not need.any():
            return
        solid = a.solid()
        slots = np.flatnonzero(need).tolist()
        self._tick = self._tick_snapshot(slots, due, solid)
        try:
            for s in slots:
                is_due = due is not None and bool(due[s])
                forced = bool(a.need_plan[s] & NEED_FORCED)
                a.need_plan[s] = 0
                if not solid[s]:
                    continue
                promoted = int(a.rblocker[s]) if is_due else -1
                if is_due:
                    ev.retries.append(a.id_of(s))
                if forced:
                    self.stats.forced_replans += 1
                if a.f_target[s] >= 0:
                    self.plan_follow(s, tick, promoted)
                else:
                    req = (float(a.requested[s, 0]), float(a.requested[s, 1]))
                    self.plan_to(s, req, promoted)
        finally:
            self._tick = None

    def _tick_snapshot(self, slots: list[int], due: NDArray[np.bool_] | None,
                       solid: NDArray[np.bool_]) -> TickSnapshot | None:
        """The phase's shared snapshot for the plans of ``slots``, or None where
        plans build their own (see :attr:`shared_snapshot`). Positions, radii,
        ``moved`` and ``solid`` do not change during the phase, and a plan
        resets only its own retry blocker, so the promotions are known up front."""
        view = self.map
        if not self.shared_snapshot or view.record is not None:
            return None  # a recorder logs one circle array per plan
        plans = [s for s in slots if solid[s]]
        if len(plans) < max(1, self.share_min_plans):
            return None
        a = self.state
        promoted = ([int(a.rblocker[s]) for s in plans if due[s]]
                    if due is not None else [])
        return TickSnapshot(a.pos, a.inflate, solid, a.moved, promoted)

    def _query(self, slot: int, dest: tuple[float, float], promoted: int) -> Any:
        a = self.state
        start = (float(a.pos[slot, 0]), float(a.pos[slot, 1]))
        tick = self._tick
        try:
            if tick is not None:
                res = self.map.find_path(start, dest, tick.snap, tick.ignore(slot, promoted))
            else:
                obstacles = obstacle_snapshot(a.pos, a.inflate, a.solid(), a.moved, slot,
                                              promoted)
                res = self.map.find_path(start, dest, obstacles)
        except ConfigError as exc:
            if exc.field != "region":
                raise
            raise ConfigError(f"character {a.id_of(slot)!r}: {exc.reason}",
                              field="region") from None
        if self.events is not None:  # a tick: Location.step adds its events to the stats
            self.events.replans += 1
        else:
            self.stats.replans += 1
        return start, res

    def _store_path(self, slot: int, res: Any, start: tuple[float, float]) -> bool:
        a = self.state
        if res.has_path and len(res.waypoints):
            w = res.waypoints
            m = len(w)
            a.ensure_waypoints(m)
            a.wp[slot, :m] = w
            a.wp_n[slot] = m
            a.wp_i[slot] = 0
            a.walk_target[slot] = w[-1]
            a.active[slot] = 1
            return True
        a.wp_n[slot] = 0
        a.wp_i[slot] = 0
        a.walk_target[slot] = start
        a.active[slot] = 0
        return False

    # -------------------------------------------------------- map changes
    def sync_map(self) -> None:
        """Mark the forced replans of a map change (a new map version) since the last call.

        Cells closed: every character with an active path or a follow
        order; cells opened: every character whose last plan ended short of
        its destination (``short``, ``partial``), and every follow order.
        """
        if self.map.version == self._map_version:
            return
        self._map_version = self.map.version
        new = self.map.change_token()
        old = self._token
        self._token = new
        a = self.state
        if a.n == 0:
            return
        closed, opened = self.map.changes(old, new)
        solid = a.solid()
        affected = np.zeros(a.n, dtype=bool)
        if closed:
            affected |= (a.active != 0) | (a.f_target >= 0)
        if opened:
            affected |= (a.partial != 0) | (a.short != 0) | (a.f_target >= 0)
        affected &= solid
        a.need_plan[affected] |= NEED_FORCED

    def switch_map(self, view: SimMap) -> None:
        """Plan on ``view`` from now on; every navigating character replans
        (and every NPC away from its destination)."""
        self.map = view
        self._map_version = view.version
        self._token = view.change_token()
        a = self.state
        a.inflate[:] = view.obstacle_radius(a.ra)
        solid = a.solid()
        if a.n:
            far = np.hypot(*(a.pos - a.requested).T) > TARGET_REPLAN_THRESHOLD
        else:
            far = np.zeros(0, bool)
        affected = solid & ((a.active != 0) | (a.f_target >= 0) | ((a.kind == _NPC) & far))
        a.need_plan[affected] |= NEED_FORCED


def __getattr__(name: str) -> Any:
    if name == "MapView":  # the old grid view: a SimMap of a grid (navkit.sim.views.GridView)
        from .views import GridView

        deprecated_name("navkit.sim.planner.MapView", "navkit.sim.GridView (a SimMap)")
        return GridView
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
