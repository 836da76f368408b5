"""Character views of a :class:`~navkit.sim.Location` (and, re-exported, the
kinds and per-tick events they go with)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from ..crowd.policy import SteeringPolicy, check_policy
from .events import SimStats, TickEvents
from .kinds import AnimationState, CharacterKind
from .orders import Orders
from .schema import CHARACTER, check_field
from .state import SimState

__all__ = [
    "CharacterKind", "AnimationState", "Character", "CharacterHost", "TickEvents", "SimStats",
]


class CharacterHost(Protocol):
    """What a :class:`Character` view reads and commands (a :class:`~navkit.sim.Location`)."""

    @property
    def state(self) -> SimState: ...
    @property
    def orders(self) -> Orders: ...
    def prepare(self, *parts: str) -> None: ...


class Character:
    """A live view of one character's slot in a :class:`Location`'s arrays.

    Reading a property reads the arrays; the view stays valid while the
    character exists (slots move when characters are added, the view follows
    its stable ID).
    """

    __slots__ = ("_loc", "_id", "_state", "_orders")

    def __init__(self, location: CharacterHost, stable_id: Any):
        self._loc = location
        self._id = stable_id
        self._state = location.state
        self._orders = location.orders

    # ----------------------------------------------------------- identity
    @property
    def id(self) -> Any:
        """The stable ID (a string or an integer)."""
        return self._id

    @property
    def slot(self) -> int:
        """Index in the location's arrays (stable-ID order)."""
        return self._state.slot_of(self._id)

    @property
    def kind(self) -> CharacterKind:
        return CharacterKind.from_code(int(self._state.kind[self.slot]))

    # ---------------------------------------------------------- body
    @property
    def position(self) -> tuple[float, float]:
        """World ``(x, z)`` in metres."""
        p = self._state.pos[self.slot]
        return (float(p[0]), float(p[1]))

    @position.setter
    def position(self, value: Any) -> None:
        self._orders.place(self.slot, value)

    @property
    def facing(self) -> float:
        """Heading in radians from +X toward +Z."""
        return float(self._state.facing[self.slot])

    @property
    def walk_speed(self) -> float:
        """``walkSpeed`` in m/s."""
        return float(self._state.speed[self.slot])

    @walk_speed.setter
    def walk_speed(self, value: float) -> None:
        self._state.speed[self.slot] = check_field(CHARACTER, "walkSpeed", value)

    @property
    def rotation_speed(self) -> float:
        """``rotationSpeed`` in rad/s."""
        return float(self._state.rot[self.slot])

    @rotation_speed.setter
    def rotation_speed(self, value: float) -> None:
        self._state.rot[self.slot] = check_field(CHARACTER, "rotationSpeed", value)

    @property
    def collision_radius(self) -> float:
        """Planning radius (``navigationAvoidanceRadius``), metres."""
        return float(self._state.ra[self.slot])

    @property
    def contact_radius(self) -> float:
        """Movement-guard radius (``movementContactRadius``), metres."""
        return float(self._state.rc[self.slot])

    @property
    def alive(self) -> bool:
        return bool(self._state.alive[self.slot])

    @alive.setter
    def alive(self, value: bool) -> None:
        self._state.alive[self.slot] = check_field(CHARACTER, "alive", value)

    @property
    def policy(self) -> SteeringPolicy | None:
        """The steering policy the tick applies to this character (None: it
        follows its path; docs/simulation.md "Steering policies")."""
        return self._state.policy_of(self.slot)

    def set_policy(self, policy: SteeringPolicy | None) -> None:
        """Steer this character with ``policy`` from the next tick on (None:
        back to plain path following). The movement guard checks every step."""
        policy = check_policy(policy)
        if policy is not None:
            self._loc.prepare("steer")  # its tick's kernels load now, not in the tick
        self._state.set_policy(self.slot, policy)

    @property
    def enabled(self) -> bool:
        return bool(self._state.enabled[self.slot])

    @enabled.setter
    def enabled(self, value: bool) -> None:
        self._state.enabled[self.slot] = check_field(CHARACTER, "enabled", value)

    # ------------------------------------------------------- navigation
    @property
    def path_waypoints(self) -> NDArray[np.float64]:
        """``pathWaypoints``: the remaining plan, world ``(x, z)``, shape (m, 2) (a copy)."""
        a = self._state
        s = self.slot
        return a.wp[s, : a.wp_n[s]].copy()

    @property
    def current_waypoint_index(self) -> int:
        return int(self._state.wp_i[self.slot])

    @property
    def walk_target(self) -> tuple[float, float]:
        """``walkTarget``: the reachable end of the current plan."""
        p = self._state.walk_target[self.slot]
        return (float(p[0]), float(p[1]))

    @property
    def requested_walk_target(self) -> tuple[float, float]:
        """``requestedWalkTarget``: the commanded destination."""
        p = self._state.requested[self.slot]
        return (float(p[0]), float(p[1]))

    @property
    def moved_last_tick(self) -> bool:
        return bool(self._state.moved[self.slot])

    @property
    def movement_blocked_ticks(self) -> int:
        return int(self._state.blocked[self.slot])

    @property
    def retry_cooldowns(self) -> tuple[int, ...]:
        """The shuffled cooldown sequence in ticks."""
        return tuple(int(v) for v in self._state.seq[self.slot])

    @property
    def retry_cursor(self) -> int:
        """Index of the cooldown the next retry uses."""
        return int(self._state.cur[self.slot])

    @property
    def retry_ticks_left(self) -> int:
        """Ticks until a scheduled retry (0: none scheduled)."""
        return int(self._state.timer[self.slot])

    @property
    def animation(self) -> AnimationState:
        return AnimationState(int(self._state.anim[self.slot]))

    @property
    def follow_target(self) -> Any:
        """The ID this character follows or walks to, or None."""
        t = int(self._state.f_target[self.slot])
        return None if t < 0 else self._state.id_of(t)

    @property
    def moving(self) -> bool:
        """Whether navigation (a path or walk target) is active (docs/rules.md §8.2);
        the property form of :meth:`is_moving`."""
        return bool(self._state.active[self.slot])

    @property
    def following(self) -> bool:
        """Whether a follow / walk-to order is active (it may be standing in range);
        the property form of :meth:`is_following`."""
        return int(self._state.f_target[self.slot]) >= 0

    def is_moving(self) -> bool:
        """Whether navigation (a path or walk target) is active (docs/rules.md §8.2;
        the seed's method name; :attr:`moving` is the same as a property)."""
        return bool(self._state.active[self.slot])

    def is_following(self) -> bool:
        """Whether a follow / walk-to order is active (:attr:`following` as a property)."""
        return int(self._state.f_target[self.slot]) >= 0

    # --------------------------------------------------------- commands
    def set_target(self, destination: Any,
                   on_arrived: Callable[[Character], Any] | None = None) -> bool:
        """Walk to ``destination`` (world ``(x, z)``); returns False when it was
        ignored (within ``TARGET_REPLAN_THRESHOLD`` of the current destination)."""
        return self._orders.set_target(self.slot, destination, on_arrived)

    def stop_in_place(self) -> None:
        """Targets become the current position; path, callback, follow order and
        blockage state are cleared (docs/rules.md §8.3)."""
        self._orders.stop_in_place(self.slot)

    def follow(self, other: Any, range: float) -> None:  # noqa: A002 - the JSON name
        """Approach character ``other`` until within ``range`` metres (docs/rules.md §10.5)."""
        self._orders.follow(self.slot, other, range, talk=False, on_interact=None)

    def walk_to(self, npc: Any,
                on_interact: Callable[[Character, Character], Any] | None = None) -> None:
        """Walk to an NPC; the interaction event fires within ``NPC_TALK_DISTANCE``."""
        self._orders.follow(self.slot, npc, None, talk=True, on_interact=on_interact)

    def distance_to(self, other: Character) -> float:
        """Centre distance in metres."""
        a, b = self.position, other.position
        return math.hypot(a[0] - b[0], a[1] - b[1])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Character) and other._loc is self._loc and other._id == self._id

    def __hash__(self) -> int:
        return hash((id(self._loc), self._id))

    def __repr__(self) -> str:
        x, z = self.position
        return (f"Character({self._id!r}, {self.kind.value}, at ({x:.3f}, {z:.3f}), "
                f"{self.animation.name}{', moving' if self.is_moving() else ''})")
