"""Characters across floors: one :class:`~navkit.sim.Location` per floor and a
traversal layer for the links (docs/rules.md §16 "Characters across floors").

:class:`BuildingSim` composes the single-floor simulation: floor ``f``'s
characters live in ``sim.locations[f]`` (built from the floor's level, the
building's shared grid frame), which moves them with its usual planning,
movement guard and retries; characters on different floors never meet
because they are in different locations. Between floors a character walks
to a link's start, queues, rides the link (in no location) and is put down
at its end.

Rules, each tick ``t`` (every loop over characters is in stable-ID order,
:func:`~navkit.sim.state.id_sort_key`):

1. **The building changed.** When the building's ``version`` differs from
   the one this rule saw last (a link switched off or on, a door or an
   obstacle on any floor), and always for a character whose remaining route
   uses a link that is off, every character with an order that is walking
   or queued plans it again from where it stands (rule 5). When the links
   of the new route differ from those still ahead, it takes the new route
   (``replanned``; a queued character leaves the queue unless the new route
   starts with the same link) or, with no path, stops (rule 6); else
   nothing changes.
   Characters riding a link finish it; their route is checked once they
   are off it.
2. **Floors.** Each floor's location steps, in floor order. Then, for the
   characters of that floor with an order: a ``gave_up`` event, or a blocked
   stop of a player or bot (their location cancels the destination), ends
   the order (``stopped``). A character walking to its final target that the
   location reports arrived (or that was ordered to a point it already
   stands on) ``arrived``; the order ends. A character walking to a link
   whose centre is within :data:`LINK_REACH` of the link's start stops there
   and joins the link's queue (``queued``, with its queue tick ``t``); one
   the location reports arrived farther away (it ended short: someone
   stands on the spot) is sent to the start again.
3. **Leaving links.** Riders, ordered by (enter tick, stable ID), count one
   tick down; one at 0 leaves when no solid character of the destination
   floor has its contact circle overlapping the rider's at the link's end
   (``|p - end| < rc + rc_rider``); else it stays on the link (it still
   counts against the capacity) and tries again next tick. Leaving puts it
   at the end point on the destination floor (``left``), stopped, and sends
   it to its next leg: the next link's start, or the final target.
4. **Entering links.** For each link that is on, in config order, its queue
   in (queue tick, stable ID) order enters while the riders number fewer
   than ``capacity`` (``None``: no limit); each ``entered``. The ride lasts
   ``max(1, ceil(cost / (walk_speed * dt)))`` ticks (``cost`` metres,
   ``walk_speed`` the rider's, m/s; ``dt`` = 1 / tick rate). A rider is in
   no location (its row there is disabled: not solid, not moving); its
   position is interpolated linearly in 3-D from the start end (at the
   floor's ``floorY``) to the end one by the fraction of the ride done.
5. **Orders.** :meth:`BuildingSim.set_target` plans with
   :meth:`~navkit.floors.FloorMap.find_path` from the character's position
   on its floor to the target (its floor: ``floor=`` or the
   :meth:`~navkit.floors.FloorMap.floor_of` rule). The links of the path
   are the route; the floor's location walks the character to each link's
   start on the floor it is on (a bidirectional link taken backwards starts
   at its ``to`` end), and after the last link to the target. An order
   given to a rider waits until it leaves the link; one given to a queued
   character takes it out of the queue (it queues again, with a new queue
   tick, when its route starts at the same link).
6. **No route.** A plan that finds no path (``FloorPathResult.status`` not
   ``FOUND``) ends the order with a ``no_route`` event; the character stops
   where it is.

Doors and obstacles (:meth:`BuildingSim.set_area_available`,
:meth:`~BuildingSim.add_obstacle`, :meth:`~BuildingSim.remove_obstacle`)
change the floor's location (it replans its characters' current legs on
that floor, docs/rules.md §10) and the building (routes across floors: rule
1); change them through this object only (a location or the building alone
would not see the other's change). Links are switched through this object
or its :attr:`~BuildingSim.building`.

>>> from navkit.floors.examples import two_floors
>>> sim = BuildingSim(two_floors())
>>> _ = sim.add_character("a", position=(9.0, 0.0, 4.0))
>>> sim.set_target("a", (18.0, 3.5, 4.0))
True
>>> evs = sim.run(150)
>>> [(e.character, e.link, e.tick) for ev in evs for e in ev.entered + ev.left]
[('a', 'stairs', 10), ('a', 'stairs', 81)]
>>> [ev.tick for ev in evs if "a" in ev.arrived], sim.floor_of("a"), sim.position("a")[1]
([134], 1, 3.5)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, QueryError, shown
from ..results import Status
from ..sim import Character, Location, TickEvents
from ..sim.constants import DEFAULT_TICK_RATE, TARGET_REPLAN_THRESHOLD
from ..sim.kinds import CharacterKind
from ..sim.schema import check_id
from ..sim.state import as_point, id_sort_key
from .building import Building
from .floormap import FloorMap, FloorPathResult

__all__ = ["BuildingSim", "BuildingTickEvents", "LinkEvent", "LINK_REACH", "STATE_FORMAT"]

#: Metres: a character walking to a link joins its queue once its centre is this
#: close to the link's start (the distance within which a new target is "already there").
LINK_REACH = TARGET_REPLAN_THRESHOLD
#: The ``format`` value of :meth:`BuildingSim.state_dict`.
STATE_FORMAT = "navkit-building-sim"
_VERSION = 1
_EPS = 1e-9

_IDLE, _WALK, _QUEUED, _RIDE = "idle", "walking", "queued", "riding"


@dataclass(frozen=True)
class LinkEvent:
    """A character at a link: its stable ID, the link's name and the tick."""

    character: Any
    link: str
    tick: int


@dataclass
class BuildingTickEvents:
    """What happened during one tick of a :class:`BuildingSim` (IDs in stable-ID order
    within each list; link lists in the order the rules handle them)."""

    tick: int
    #: Each floor location's own events, floor order.
    floors: list[TickEvents] = field(default_factory=list)
    #: Characters that reached the final target of their order.
    arrived: list[Any] = field(default_factory=list)
    queued: list[LinkEvent] = field(default_factory=list)
    entered: list[LinkEvent] = field(default_factory=list)
    left: list[LinkEvent] = field(default_factory=list)
    #: Characters whose (re)plan found no path: the order ended.
    no_route: list[Any] = field(default_factory=list)
    #: Characters whose floor location cancelled the order (gave up, blocked stop).
    stopped: list[Any] = field(default_factory=list)
    #: Characters whose route changed (or was lost) when the building changed (rule 1).
    replanned: list[Any] = field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        """The events as JSON (link events as ``[id, link]`` pairs; ticks are this tick)."""
        def pairs(evs: list[LinkEvent]) -> list[list[Any]]:
            return [[e.character, e.link] for e in evs]

        return {"tick": self.tick, "floors": [f.to_json_dict() for f in self.floors],
                "arrived": list(self.arrived), "queued": pairs(self.queued),
                "entered": pairs(self.entered), "left": pairs(self.left),
                "noRoute": list(self.no_route), "stopped": list(self.stopped),
                "replanned": list(self.replanned)}


@dataclass
class _Body:
    """The traversal layer's record of one character."""

    floor: int  # the floor it stands on; while riding, the floor it left
    phase: str = _IDLE
    target: tuple[float, float] | None = None  # the order's final target (x, z)
    goal_floor: int = -1
    legs: list[tuple[int, bool]] = field(default_factory=list)  # (link, forward) to take
    queued_at: int = -1
    link: int = -1  # the link it queues at or rides
    forward: bool = True
    ride: int = 0  # ticks the ride lasts
    left: int = 0  # ticks of it still to go
    entered_at: int = -1
    pending: bool = False  # an order given while riding: plan it on leaving
    arrive_due: bool = False  # ordered to where it stands: arrives in the next floor step

    def to_json(self, sid: Any) -> dict[str, Any]:
        return {
            "id": sid, "floor": self.floor, "phase": self.phase,
            "target": None if self.target is None else list(self.target),
            "goalFloor": self.goal_floor, "legs": [[k, fw] for k, fw in self.legs],
            "queuedAt": self.queued_at, "link": self.link, "forward": self.forward,
            "ride": self.ride, "left": self.left, "enteredAt": self.entered_at,
            "pending": self.pending, "arriveDue": self.arrive_due,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> _Body:
        t = d["target"]
        return cls(floor=int(d["floor"]), phase=str(d["phase"]),
                   target=None if t is None else (float(t[0]), float(t[1])),
                   goal_floor=int(d["goalFloor"]),
                   legs=[(int(k), bool(fw)) for k, fw in d["legs"]],
                   queued_at=int(d["queuedAt"]), link=int(d["link"]),
                   forward=bool(d["forward"]), ride=int(d["ride"]), left=int(d["left"]),
                   entered_at=int(d["enteredAt"]), pending=bool(d["pending"]),
                   arrive_due=bool(d["arriveDue"]))


class BuildingSim:
    """Characters on a building's floors (module docs: the rules).

    ``building``: a :class:`~navkit.floors.Building` (used as is: switch its
    links there or here, change its doors and obstacles only here) or any
    building config form;
    ``tick_rate`` ticks per second; ``avoidance`` as on
    :class:`~navkit.sim.Location`; ``costs``: the :class:`FloorMap`'s cost model;
    ``warm``: load the simulation kernels now.
    """

    def __init__(self, building: Any, *, tick_rate: float = DEFAULT_TICK_RATE,
                 avoidance: str = "none", costs: Any = "seed", warm: bool = True,
                 _locations: list[Location] | None = None):
        b = building if isinstance(building, Building) else Building(building)
        self.building = b
        self.map = FloorMap(b, costs)
        self._costs = costs
        if _locations is None:
            navs: list[Any] = [lv.config for lv in b.levels] if b.levels else \
                [b.grid(f) for f in range(len(b.floor_names))]
            _locations = [Location(nav, tick_rate=tick_rate, avoidance=avoidance, warm=warm)
                          for nav in navs]
        #: One location per floor, floor order.
        self.locations: list[Location] = _locations
        self.tick_rate = float(self.locations[0].tick_rate)
        self.dt = 1.0 / self.tick_rate
        self.tick = int(self.locations[0].tick)
        self._bodies: dict[Any, _Body] = {}
        self._seen = b.version  # the building's version rule 1 last saw

    # ============================================================ characters
    @property
    def ids(self) -> list[Any]:
        """Every character's stable ID, stable-ID order."""
        return sorted(self._bodies, key=id_sort_key)

    def __contains__(self, stable_id: object) -> bool:
        return stable_id in self._bodies

    def __len__(self) -> int:
        return len(self._bodies)

    def _body(self, stable_id: Any) -> _Body:
        try:
            return self._bodies[stable_id]
        except (KeyError, TypeError):
            raise QueryError(f"no character with ID {shown(stable_id)}") from None

    def add_character(self, stable_id: Any, position: Any, floor: Any = None,
                      **kw: Any) -> Character:
        """Add a standing character at ``position`` (``(x, z)`` or ``(x, y, z)``
        metres) on ``floor`` (index or name; None: the
        :meth:`~navkit.floors.FloorMap.floor_of` rule). ``kw``: the keyword
        arguments of :meth:`~navkit.sim.Location.add_character`. Returns its view
        in the floor's location."""
        stable_id = check_id(stable_id, "id")
        if stable_id in self._bodies:
            raise ConfigError(f"a character with ID {stable_id!r} already exists", field="id")
        f = self.map.floor_of(position, floor)
        ch = self.locations[f].add_character(stable_id, position=position, **kw)
        self._bodies[ch.id] = _Body(floor=f)
        return ch

    def character(self, stable_id: Any) -> Character | None:
        """The character's view in its floor's location (None while it rides a link)."""
        b = self._body(stable_id)
        return None if b.phase == _RIDE else self.locations[b.floor].character(stable_id)

    def floor_of(self, stable_id: Any) -> int:
        """The floor a character is on (while riding: the floor it left)."""
        return self._body(stable_id).floor

    def phase(self, stable_id: Any) -> str:
        """``"idle"``, ``"walking"``, ``"queued"`` or ``"riding"``."""
        return self._body(stable_id).phase

    def route(self, stable_id: Any) -> list[str]:
        """Names of the links still ahead (the one walked to, queued at or ridden first)."""
        b = self._body(stable_id)
        head = [self.building.links[b.link].name] if b.link >= 0 else []
        return head + [self.building.links[k].name for k, _ in b.legs]

    def position(self, stable_id: Any) -> tuple[float, float, float]:
        """World ``(x, y, z)`` in metres (on a link: interpolated, rule 4)."""
        b = self._body(stable_id)
        ys = self.building.floor_ys
        if b.phase == _RIDE:
            a, e = self._ends(b.link, b.forward)
            fa = self.building.links[b.link].start.floor if b.forward else \
                self.building.links[b.link].end.floor
            fe = self.building.links[b.link].end.floor if b.forward else \
                self.building.links[b.link].start.floor
            s = (b.ride - b.left) / b.ride
            return (a[0] + s * (e[0] - a[0]), float(ys[fa]) + s * float(ys[fe] - ys[fa]),
                    a[1] + s * (e[1] - a[1]))
        p = self.locations[b.floor].state.pos[self.locations[b.floor].state.slot_of(stable_id)]
        return (float(p[0]), float(ys[b.floor]), float(p[1]))

    def positions(self) -> NDArray[np.float64]:
        """Every character's ``(x, y, z)``, shape ``(n, 3)``, stable-ID order."""
        return np.array([self.position(i) for i in self.ids], dtype=np.float64).reshape(-1, 3)

    # ================================================================ orders
    def set_target(self, stable_id: Any, point: Any, floor: Any = None) -> bool:
        """Order a character to ``point`` (``(x, z)`` or ``(x, y, z)``) on
        ``floor`` (None: the ``floor_of`` rule). Returns False when no path
        leads there (the character stops; rule 6) and True otherwise (a rider
        plans when it leaves its link: True then)."""
        b = self._body(stable_id)
        gf = self.map.floor_of(point, floor)
        b.target = as_point(point, "point")
        b.goal_floor = gf
        if b.phase == _RIDE:
            b.pending = True
            return True
        return self._plan(stable_id, b, None)

    def stop(self, stable_id: Any) -> None:
        """End a character's order; it stands where it is (a rider finishes the
        link and stands at its end)."""
        b = self._body(stable_id)
        b.target, b.legs, b.pending, b.arrive_due = None, [], False, False
        if b.phase == _RIDE:
            return
        b.phase, b.link, b.queued_at = _IDLE, -1, -1
        self.locations[b.floor].character(stable_id).stop_in_place()

    def _plan(self, sid: Any, b: _Body, ev: BuildingTickEvents | None) -> bool:
        """Rule 5: route the order from where the character stands."""
        assert b.target is not None
        loc = self.locations[b.floor]
        ch = loc.character(sid)
        b.phase, b.link, b.queued_at, b.legs, b.arrive_due = _WALK, -1, -1, [], False
        res = self.map.find_path(ch.position, b.target, start_floor=b.floor,
                                 goal_floor=b.goal_floor)
        if res.status != Status.FOUND:
            b.phase, b.target = _IDLE, None
            ch.stop_in_place()
            if ev is not None:
                ev.no_route.append(sid)
            return False
        b.legs = self._legs(res)
        self._next_leg(sid, b)
        return True

    def _reroute(self, sid: Any, b: _Body, ev: BuildingTickEvents) -> None:
        """Rule 1: plan the order again from where the character stands; a new
        route (or none) replaces the old one."""
        assert b.target is not None
        ch = self.locations[b.floor].character(sid)
        res = self.map.find_path(ch.position, b.target, start_floor=b.floor,
                                 goal_floor=b.goal_floor)
        legs = self._legs(res) if res.status == Status.FOUND else None
        ahead = ([(b.link, b.forward)] if b.link >= 0 else []) + b.legs
        if legs == ahead:
            return
        ev.replanned.append(sid)
        if legs and ahead and legs[0] == ahead[0]:  # the same next link: only later legs change
            b.legs = legs[1:]
            return
        b.link, b.queued_at, b.arrive_due = -1, -1, False
        if legs is None:
            b.phase, b.target, b.legs = _IDLE, None, []
            ch.stop_in_place()
            ev.no_route.append(sid)
            return
        if b.phase == _QUEUED:
            ch.stop_in_place()
        b.legs = legs
        self._next_leg(sid, b)

    def _legs(self, res: FloorPathResult) -> list[tuple[int, bool]]:
        out = []
        for s in res.links:
            lk = self.building.links[s.index]
            f0, f1 = int(res.floors[s.at]), int(res.floors[s.at + 1])
            if (lk.start.floor, lk.end.floor) != (f0, f1):
                fw = False
            elif lk.start.floor != lk.end.floor:
                fw = True
            else:  # both ends on one floor: the end nearer the waypoint left from
                w = res.waypoints[s.at]
                fw = math.dist(w, lk.start.point) <= math.dist(w, lk.end.point)
            out.append((s.index, fw))
        return out

    def _ends(self, k: int, forward: bool) -> tuple[tuple[float, float], tuple[float, float]]:
        lk = self.building.links[k]
        a, e = lk.start.point, lk.end.point
        return (a, e) if forward else (e, a)

    def _next_leg(self, sid: Any, b: _Body) -> None:
        """Send a standing or walking character to its next leg's floor-local target."""
        ch = self.locations[b.floor].character(sid)
        b.phase = _WALK
        if b.legs:
            b.link, b.forward = b.legs.pop(0)
            ch.set_target(self._ends(b.link, b.forward)[0])
        else:
            b.link = -1
            assert b.target is not None
            if not ch.set_target(b.target) and not ch.is_moving() and \
                    math.dist(ch.position, b.target) <= TARGET_REPLAN_THRESHOLD:
                b.arrive_due = True  # already there: the location reports no arrival

    # =================================================================== map
    def set_link_enabled(self, name: str, enabled: bool) -> bool:
        """Switch a link on or off (rule 1 acts on the next tick); True when it changed."""
        return self.building.set_link_enabled(name, enabled)

    def set_area_available(self, name: str, available: bool, *, floor: Any = None) -> bool:
        """Open or close area ``name`` on its floor (``floor=`` where several floors
        have an area of that name): the floor's location and the building."""
        if floor is None:
            owners = [f for f, lv in enumerate(self.building.levels) if name in lv.area_names]
            if len(owners) != 1:  # the building names the error (unknown, or several floors)
                return self.building.set_area_available(name, available)
            f = owners[0]
        else:
            f = self.building.floor_index(floor)
        changed = self.building.set_area_available(name, available, floor=f)
        self.locations[f].set_area_available(name, available)
        return changed

    def add_obstacle(self, name: str, polygon: Any, *, floor: Any = 0) -> None:
        """Add a polygon obstacle on one floor (default the first): the floor's
        location and the building."""
        f = self.building.floor_index(floor)
        self.building.add_obstacle(name, polygon, floor=f)
        self.locations[f].add_obstacle(name, polygon)

    def remove_obstacle(self, name: str, *, floor: Any = None) -> None:
        """Remove obstacle ``name`` from its floor (``floor=`` where several have one)."""
        if floor is None:
            owners = [f for f, lv in enumerate(self.building.levels) if name in lv.obstacle_names]
            if len(owners) != 1:  # the building names the error
                self.building.remove_obstacle(name)
                return
            f = owners[0]
        else:
            f = self.building.floor_index(floor)
        self.building.remove_obstacle(name, floor=f)
        self.locations[f].remove_obstacle(name)

    # ================================================================= ticks
    def step(self) -> BuildingTickEvents:
        """Advance one tick (rules 1-4); returns what happened."""
        t = self.tick
        ev = BuildingTickEvents(tick=t)
        on = self.building.link_states
        # 1. the building changed: routes again
        changed = self.building.version != self._seen
        self._seen = self.building.version
        for sid in self.ids:
            b = self._bodies[sid]
            if b.phase in (_WALK, _QUEUED) and b.target is not None and (changed or (
                    (b.link >= 0 and not on[b.link]) or any(not on[k] for k, _ in b.legs))):
                self._reroute(sid, b, ev)
        # 2. floors
        for f, loc in enumerate(self.locations):
            fev = loc.step()
            ev.floors.append(fev)
            done = set(fev.arrived)
            cancel = set(fev.gave_up) | {i for i in fev.blocked_stops
                                         if loc.character(i).kind != CharacterKind.NPC}
            for sid in loc.ids:
                b = self._bodies[sid]
                if b.floor != f or b.phase != _WALK or b.target is None:
                    continue
                if sid in cancel:
                    b.phase, b.target, b.legs, b.link = _IDLE, None, [], -1
                    ev.stopped.append(sid)
                elif b.link < 0:
                    if sid in done or b.arrive_due:
                        b.phase, b.target, b.arrive_due = _IDLE, None, False
                        ev.arrived.append(sid)
                else:
                    ch = loc.character(sid)
                    start = self._ends(b.link, b.forward)[0]
                    if math.dist(ch.position, start) <= LINK_REACH:
                        ch.stop_in_place()
                        b.phase, b.queued_at = _QUEUED, t
                        ev.queued.append(LinkEvent(sid, self.building.links[b.link].name, t))
                    elif sid in done:
                        ch.set_target(start)
        # 3. leaving links
        riders = sorted((sid for sid, b in self._bodies.items() if b.phase == _RIDE),
                        key=lambda i: (self._bodies[i].entered_at, id_sort_key(i)))
        for sid in riders:
            b = self._bodies[sid]
            if b.left > 0:
                b.left -= 1
            if b.left == 0:
                self._leave(sid, b, ev, t)
        # 4. entering links
        queues: dict[int, list[Any]] = {}
        count: dict[int, int] = {}
        for sid, b in self._bodies.items():
            if b.phase == _QUEUED:
                queues.setdefault(b.link, []).append(sid)
            elif b.phase == _RIDE:
                count[b.link] = count.get(b.link, 0) + 1
        for k in sorted(queues):
            lk = self.building.links[k]
            if not on[k]:
                continue
            queue = sorted(queues[k], key=lambda i: (self._bodies[i].queued_at, id_sort_key(i)))
            riding = count.get(k, 0)
            for sid in queue:
                if lk.capacity is not None and riding >= lk.capacity:
                    break
                self._enter(sid, self._bodies[sid], t)
                riding += 1
                ev.entered.append(LinkEvent(sid, lk.name, t))
        self.tick = t + 1
        return ev

    def _enter(self, sid: Any, b: _Body, t: int) -> None:
        loc = self.locations[b.floor]
        ch = loc.character(sid)
        ch.stop_in_place()
        ch.enabled = False
        cost = self.building.links[b.link].cost
        b.ride = max(1, math.ceil(cost * self.tick_rate / ch.walk_speed - _EPS))
        b.left = b.ride
        b.phase, b.entered_at, b.queued_at = _RIDE, t, -1

    def _leave(self, sid: Any, b: _Body, ev: BuildingTickEvents, t: int) -> None:
        lk = self.building.links[b.link]
        fe = lk.end.floor if b.forward else lk.start.floor
        end = self._ends(b.link, b.forward)[1]
        src = self.locations[b.floor]
        me = src.character(sid)
        rc = me.contact_radius
        dst = self.locations[fe]
        st = dst.state
        if st.n:
            solid = st.solid()
            d = np.hypot(st.pos[:, 0] - end[0], st.pos[:, 1] - end[1])
            if np.any(solid & (d < st.rc + rc)):
                return  # occupied: try again next tick
        if sid in dst:  # back on a floor it was on: its row there takes the rider's body
            ch = dst.character(sid)
            ch.position = end
            ch.walk_speed, ch.rotation_speed = me.walk_speed, me.rotation_speed
            ch.alive, ch.enabled = me.alive, True
        else:
            a = src.state
            s = a.slot_of(sid)
            ch = dst.add_character(
                sid, kind=me.kind, position=end, walk_speed=me.walk_speed,
                rotation_speed=me.rotation_speed, collision_radius=me.collision_radius,
                contact_radius=rc, retry_sequence=a.seq[s].tolist(), facing=me.facing,
                alive=me.alive)
            if a.policy[s] >= 0:
                ch.set_policy(a.policy_of(s))
        ev.left.append(LinkEvent(sid, lk.name, t))
        b.floor, b.phase, b.link, b.ride, b.left, b.entered_at = fe, _WALK, -1, 0, 0, -1
        if b.target is None:
            b.phase = _IDLE
        elif b.pending:
            b.pending = False
            self._plan(sid, b, ev)
        else:
            self._next_leg(sid, b)

    def run(self, ticks: int) -> list[BuildingTickEvents]:
        """Advance ``ticks`` ticks; returns every tick's events."""
        if isinstance(ticks, bool) or not isinstance(ticks, (int, np.integer)) or ticks < 0:
            raise QueryError(f"ticks must be an integer >= 0, got {ticks!r}")
        return [self.step() for _ in range(int(ticks))]

    # ================================================================ state
    def state_dict(self) -> dict[str, Any]:
        """The whole state as a JSON object: the building (config, link states),
        each floor location's state (:meth:`~navkit.sim.Location.state_dict`)
        and the traversal layer; :meth:`from_state_dict` restores it so that
        the run goes on bit for bit."""
        if not isinstance(self._costs, str):
            costs: Any = list(self._costs) if not hasattr(self._costs, "card") else \
                [self._costs.card, self._costs.diag]
        else:
            costs = self._costs
        return {
            "format": STATE_FORMAT,
            "version": _VERSION,
            "tick": self.tick,
            "costs": costs,
            "building": self.building.config.to_json_dict(),
            "linksEnabled": [bool(v) for v in self.building.link_states],
            "rerouteDue": self.building.version != self._seen,
            "floors": [loc.state_dict() for loc in self.locations],
            "characters": [self._bodies[i].to_json(i) for i in self.ids],
        }

    @classmethod
    def from_state_dict(cls, obj: Any) -> BuildingSim:
        """A simulation from :meth:`state_dict`'s object (ConfigError naming
        the field when it is not one)."""
        from ..sim import snapshot

        if not isinstance(obj, dict) or obj.get("format") != STATE_FORMAT:
            raise ConfigError(f"expected a {STATE_FORMAT!r} object", field="format")
        if obj.get("version") != _VERSION:
            raise ConfigError(f"expected version {_VERSION}, got {shown(obj.get('version'))}",
                              field="version")
        for key in ("tick", "building", "linksEnabled", "floors", "characters"):
            if key not in obj:
                raise ConfigError("missing", field=key)
        try:
            b = Building(obj["building"])
        except ConfigError as e:
            raise ConfigError(e.reason, field="building" if e.field is None
                              else f"building.{e.field}") from None
        on = obj["linksEnabled"]
        if not isinstance(on, list) or len(on) != len(b.links):
            raise ConfigError(f"expected {len(b.links)} true/false values", field="linksEnabled")
        for lk, v in zip(b.links, on, strict=True):
            b.set_link_enabled(lk.name, bool(v))
        floors = obj["floors"]
        if not isinstance(floors, list) or len(floors) != len(b.levels):
            raise ConfigError(f"expected {len(b.levels)} floor states", field="floors")
        locs = []
        for f, raw in enumerate(floors):
            try:
                scene = snapshot.read_scene(raw, None)
                # the floor's level from the building keeps the shared grid frame
                loc = Location(b.levels[f].config, tick_rate=scene.tick_rate,
                               avoidance=scene.values.get("avoidance", "none"))
                loc.tick, stats = snapshot.populate(scene, loc.state, loc.add_character,
                                                    loc.schedule)
            except ConfigError as e:
                raise ConfigError(e.reason, field=f"floors[{f}].{e.field}" if e.field
                                  else f"floors[{f}]") from None
            if stats is not None:
                loc.stats = stats
            locs.append(loc)
        costs = obj.get("costs", "seed")
        sim = cls(b, costs=costs if isinstance(costs, str) else tuple(costs), _locations=locs)
        sim.tick = int(obj["tick"])
        if obj.get("rerouteDue", False):
            sim._seen = -1
        for i, d in enumerate(obj["characters"]):
            try:
                sim._bodies[d["id"]] = _Body.from_json(d)
            except (KeyError, TypeError, ValueError, IndexError):
                raise ConfigError("expected a saved character", field=f"characters[{i}]") from None
        return sim

    def save(self, path: str | Path) -> Path:
        """Write :meth:`state_dict` as a JSON file; returns the path."""
        p = Path(path)
        p.write_text(json.dumps(self.state_dict(), allow_nan=False) + "\n", encoding="utf-8")
        return p

    @classmethod
    def load(cls, path: str | Path) -> BuildingSim:
        """Read a file written by :meth:`save`."""
        from ..sim.snapshot import read_json

        return cls.from_state_dict(read_json(path))

    def __repr__(self) -> str:
        return (f"BuildingSim({len(self)} characters on {len(self.locations)} floors, "
                f"tick {self.tick})")
