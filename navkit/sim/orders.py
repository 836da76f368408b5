"""Characters' orders: walk to a point, follow, walk to an NPC, stop; and what
the movement kernel's events do to them (docs/rules.md §8-§10).

:class:`Orders` is the slot-level interface behind
:class:`~navkit.sim.Character`'s commands. It writes the orders into the
:class:`~navkit.sim.state.SimState`, plans through the
:class:`~navkit.sim.planner.Planner`, keeps the ``on_arrived`` /
``on_interact`` callbacks by stable ID, and turns the kernel's per-slot event
bits into :class:`~navkit.sim.TickEvents` entries and the callbacks due.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import sim as _k
from ..errors import ConfigError, shown
from ..level import NavkitWarning
from .constants import NPC_TALK_DISTANCE, TARGET_REPLAN_THRESHOLD
from .events import TickEvents
from .kinds import CharacterKind
from .planner import LEG, NEED_LEG, Planner
from .schema import FOLLOW, check_field
from .state import NEED_FOLLOW, as_point, id_sort_key

__all__ = ["Orders", "Call"]

_NPC = CharacterKind.NPC.code

#: A callback due after a tick and the stable IDs of the characters it gets.
Call = tuple[Callable[..., Any], tuple[Any, ...]]


class Orders:
    """Orders of the characters in ``planner.state``, by slot."""

    def __init__(self, planner: Planner):
        self.planner = planner
        self.state = planner.state
        self._arrived_cb: dict[Any, Callable[..., Any]] = {}
        self._interact_cb: dict[Any, Callable[..., Any]] = {}
        #: IDs placed where no plan can start, for the next tick's ``TickEvents.in_wall``.
        self._in_wall: list[Any] = []

    # ------------------------------------------------------------ orders
    def set_target(self, slot: int, destination: Any,
                   on_arrived: Callable[..., Any] | None) -> bool:
        """Walk to ``destination``; False when it was ignored (within
        ``TARGET_REPLAN_THRESHOLD`` of the current destination while still
        navigating, waiting for a retry, or already there)."""
        a = self.state
        dest = as_point(destination, "destination")
        cid = a.id_of(slot)
        req = a.requested[slot]
        pos = a.pos[slot]
        same = math.hypot(dest[0] - req[0], dest[1] - req[1]) <= TARGET_REPLAN_THRESHOLD
        if same and a.f_target[slot] < 0 and (
            a.active[slot] or a.timer[slot] > 0
            or math.hypot(dest[0] - pos[0], dest[1] - pos[1]) <= TARGET_REPLAN_THRESHOLD
        ):
            if on_arrived is not None:
                self._arrived_cb[cid] = on_arrived
            return False
        self._end_follow(slot)
        a.requested[slot] = dest
        if on_arrived is None:
            self._arrived_cb.pop(cid, None)
        else:
            self._arrived_cb[cid] = on_arrived
        self.planner.plan_to(slot, dest)
        return True

    def stop_in_place(self, slot: int) -> None:
        """Targets become the position; path, callbacks, follow order and
        blockage state are cleared (docs/rules.md §8.3)."""
        a = self.state
        self._end_follow(slot)
        a.walk_target[slot] = a.pos[slot]
        a.requested[slot] = a.pos[slot]
        a.wp_n[slot] = 0
        a.wp_i[slot] = 0
        a.active[slot] = 0
        a.blocked[slot] = 0
        a.timer[slot] = 0
        a.rblocker[slot] = -1
        a.need_plan[slot] = 0
        a.partial[slot] = 0
        a.short[slot] = 0
        self._arrived_cb.pop(a.id_of(slot), None)

    def follow(self, slot: int, other: Any, rng: float | None, *, talk: bool,
               on_interact: Callable[..., Any] | None) -> None:
        """Approach character ``other`` (a stable ID) until within ``rng`` metres;
        with ``talk``, walk to that NPC (range ``NPC_TALK_DISTANCE``)."""
        a = self.state
        j = a.slot_of(other)
        if j == slot:
            raise ConfigError("a character cannot follow itself", field="follow")
        if talk:
            if a.kind[j] != _NPC:
                what = CharacterKind.from_code(int(a.kind[j])).value
                raise ConfigError(f"{other!r} is a {what}, not an NPC", field="talkTo")
            r = NPC_TALK_DISTANCE
        else:
            r = check_field(FOLLOW, "range", rng)
        self.stop_in_place(slot)
        a.f_target[slot] = j
        a.f_range[slot] = r
        a.f_talk[slot] = 1 if talk else 0
        a.f_best[slot] = math.inf
        a.f_stall[slot] = 0
        a.f_last_plan[slot] = -1
        a.on_path[slot] = 0
        if on_interact is not None:
            self._interact_cb[a.id_of(slot)] = on_interact

    def place(self, slot: int, position: Any) -> None:
        """Teleport to ``position`` and stop there."""
        self.state.pos[slot] = as_point(position, "position")
        self.stop_in_place(slot)
        self.check_standing(slot)

    def check_standing(self, slot: int) -> bool:
        """False, with a :class:`~navkit.level.NavkitWarning` and the ID kept
        for the next tick's ``in_wall``, when slot ``slot`` stands in a wall: on
        a blocked cell of the guard's walls, or where no plan can start
        (docs/rules.md §9.7)."""
        p = self.state.pos[slot]
        m = self.planner.map
        x, z = float(p[0]), float(p[1])
        place = m.backend.place((x, z))
        if place is not None and not m.in_wall(x, z):
            return True
        sid = self.state.id_of(slot)
        then = ("no navigable point lies within the snap radius, so it cannot plan a path "
                "until it is moved" if place is None else
                f"its plans start from the nearest navigable point ({place.point[0]:.3f}, "
                f"{place.point[1]:.3f}) and it walks out of the wall to reach it")
        warnings.warn(NavkitWarning(f"character {shown(sid)} stands in a wall at "
                                    f"({x:.3f}, {z:.3f}): {then}", field="position"),
                      stacklevel=4)
        if sid not in self._in_wall:
            self._in_wall.append(sid)
        return False

    def take_in_wall(self) -> list[Any]:
        """The IDs :meth:`check_standing` refused since the last call, in
        stable-ID order (the list is emptied)."""
        out = sorted((i for i in self._in_wall if i in self.state), key=id_sort_key)
        self._in_wall = []
        return out

    def _end_follow(self, slot: int) -> None:
        a = self.state
        a.f_target[slot] = -1
        a.f_talk[slot] = 0
        a.on_path[slot] = 0
        self._interact_cb.pop(a.id_of(slot), None)

    # ------------------------------------------------------------ events
    def apply_events(self, bits: NDArray[np.uint8], ev: TickEvents,
                     on_interaction: Callable[..., Any] | None) -> list[Call]:
        """Step 4 of a tick: the kernel's event bits (per slot, ``EV_*``) into
        ``ev`` and the orders, in slot order. Returns the callbacks due, in
        order (``on_interaction`` after each interaction's own callback)."""
        a = self.state
        calls: list[Call] = []
        for s in np.flatnonzero(bits).tolist():
            e = int(bits[s])
            cid = a.id_of(s)
            if e & _k.EV_BLOCK_STOP:
                ev.blocked_stops.append(cid)
                if a.kind[s] != _NPC:
                    # docs/rules.md §9.4: the destination is cancelled
                    self.stop_in_place(s)
                else:
                    a.partial[s] = 0
            if e & _k.EV_ARRIVED:
                if a.partial[s] == LEG:  # a bounded leg's end: the next leg (§14.5)
                    a.need_plan[s] |= NEED_LEG
                elif a.kind[s] == _NPC and a.partial[s]:
                    self.planner.schedule_retry(s, -1)
                else:
                    a.short[s] = 0  # the order is over, even where it ended short
                    ev.arrived.append(cid)
                    cb = self._arrived_cb.pop(cid, None)
                    if cb is not None:
                        calls.append((cb, (cid,)))
            if e & _k.EV_TALK:
                other = a.id_of(int(a.f_target[s]))
                ev.interactions.append((cid, other))
                cb = self._interact_cb.pop(cid, None)
                self.stop_in_place(s)
                if cb is not None:
                    calls.append((cb, (cid, other)))
                if on_interaction is not None:
                    calls.append((on_interaction, (cid, other)))
            if e & _k.EV_GAVE_UP:
                ev.gave_up.append(cid)
                self.stop_in_place(s)
            if e & _k.EV_NEED_PLAN and a.f_target[s] >= 0:
                a.need_plan[s] |= NEED_FOLLOW
        return calls
