"""Character views, kinds and per-tick events of a :class:`~navkit.sim.Location`."""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from .location import Location

__all__ = ["CharacterKind", "AnimationState", "Character", "TickEvents", "SimStats"]


class CharacterKind(str, enum.Enum):
    """Who a character is. Players and bots cancel their destination after a
    persistent contact; NPCs keep it and retry later (seed 000 §8)."""

    PLAYER = "player"
    BOT = "bot"
    NPC = "npc"

    @property
    def code(self) -> int:
        """The uint8 code in the state arrays (0 player, 1 bot, 2 npc)."""
        return _KIND_CODES[self]

    @classmethod
    def from_code(cls, code: int) -> CharacterKind:
        return _KINDS[int(code)]


_KINDS = (CharacterKind.PLAYER, CharacterKind.BOT, CharacterKind.NPC)
_KIND_CODES = {k: i for i, k in enumerate(_KINDS)}


class AnimationState(enum.IntEnum):
    """Seed 000 §7 step 4: the animation a character shows this tick."""

    STAND = 0
    WALK = 1


class Character:
    """A live view of one character's slot in a :class:`Location`'s arrays.

    Reading a property reads the arrays; the view stays valid while the
    character exists (slots move when characters are added, the view follows
    its stable ID).
    """

    __slots__ = ("_loc", "_id")

    def __init__(self, location: Location, stable_id: Any):
        self._loc = location
        self._id = stable_id

    # ----------------------------------------------------------- identity
    @property
    def id(self) -> Any:
        """The stable ID (a string or an integer)."""
        return self._id

    @property
    def slot(self) -> int:
        """Index in the location's arrays (stable-ID order)."""
        return self._loc._slot_of(self._id)

    @property
    def kind(self) -> CharacterKind:
        return CharacterKind.from_code(int(self._loc._a.kind[self.slot]))

    # ---------------------------------------------------------- body
    @property
    def position(self) -> tuple[float, float]:
        """World ``(x, z)`` in metres."""
        p = self._loc._a.pos[self.slot]
        return (float(p[0]), float(p[1]))

    @position.setter
    def position(self, value: Any) -> None:
        self._loc._teleport(self.slot, value)

    @property
    def facing(self) -> float:
        """Heading in radians from +X toward +Z."""
        return float(self._loc._a.facing[self.slot])

    @property
    def walk_speed(self) -> float:
        """``walkSpeed`` in m/s."""
        return float(self._loc._a.speed[self.slot])

    @walk_speed.setter
    def walk_speed(self, value: float) -> None:
        self._loc._set_positive("speed", self.slot, value, "walkSpeed")

    @property
    def rotation_speed(self) -> float:
        """``rotationSpeed`` in rad/s."""
        return float(self._loc._a.rot[self.slot])

    @rotation_speed.setter
    def rotation_speed(self, value: float) -> None:
        self._loc._set_positive("rot", self.slot, value, "rotationSpeed")

    @property
    def collision_radius(self) -> float:
        """Planning radius (``navigationAvoidanceRadius``), metres."""
        return float(self._loc._a.ra[self.slot])

    @property
    def contact_radius(self) -> float:
        """Movement-guard radius (``movementContactRadius``), metres."""
        return float(self._loc._a.rc[self.slot])

    @property
    def alive(self) -> bool:
        return bool(self._loc._a.alive[self.slot])

    @alive.setter
    def alive(self, value: bool) -> None:
        self._loc._set_flag("alive", self.slot, value)

    @property
    def enabled(self) -> bool:
        return bool(self._loc._a.enabled[self.slot])

    @enabled.setter
    def enabled(self, value: bool) -> None:
        self._loc._set_flag("enabled", self.slot, value)

    # ------------------------------------------------------- navigation
    @property
    def path_waypoints(self) -> NDArray[np.float64]:
        """``pathWaypoints``: the remaining plan, world ``(x, z)``, shape (m, 2) (a copy)."""
        a = self._loc._a
        s = self.slot
        return a.wp[s, : a.wp_n[s]].copy()

    @property
    def current_waypoint_index(self) -> int:
        return int(self._loc._a.wp_i[self.slot])

    @property
    def walk_target(self) -> tuple[float, float]:
        """``walkTarget``: the reachable end of the current plan."""
        p = self._loc._a.walk_target[self.slot]
        return (float(p[0]), float(p[1]))

    @property
    def requested_walk_target(self) -> tuple[float, float]:
        """``requestedWalkTarget``: the commanded destination."""
        p = self._loc._a.requested[self.slot]
        return (float(p[0]), float(p[1]))

    @property
    def moved_last_tick(self) -> bool:
        return bool(self._loc._a.moved[self.slot])

    @property
    def movement_blocked_ticks(self) -> int:
        return int(self._loc._a.blocked[self.slot])

    @property
    def retry_cooldowns(self) -> tuple[int, ...]:
        """The shuffled cooldown sequence in ticks."""
        return tuple(int(v) for v in self._loc._a.seq[self.slot])

    @property
    def retry_cursor(self) -> int:
        """Index of the cooldown the next retry uses."""
        return int(self._loc._a.cur[self.slot])

    @property
    def retry_ticks_left(self) -> int:
        """Ticks until a scheduled retry (0: none scheduled)."""
        return int(self._loc._a.timer[self.slot])

    @property
    def animation(self) -> AnimationState:
        return AnimationState(int(self._loc._a.anim[self.slot]))

    @property
    def follow_target(self) -> Any:
        """The ID this character follows or walks to, or None."""
        t = int(self._loc._a.f_target[self.slot])
        return None if t < 0 else self._loc._ids[t]

    def is_moving(self) -> bool:
        """Seed 000 §7: whether navigation (a path or walk target) is active."""
        return bool(self._loc._a.active[self.slot])

    def is_following(self) -> bool:
        """Whether a follow / walk-to order is active (it may be standing in range)."""
        return int(self._loc._a.f_target[self.slot]) >= 0

    # --------------------------------------------------------- commands
    def set_target(self, destination: Any, on_arrived: Callable[[Character], Any] | None = None) -> bool:
        """Walk to ``destination`` (world ``(x, z)``); returns False when it was
        ignored (within ``TARGET_REPLAN_THRESHOLD`` of the current destination)."""
        return self._loc._set_target(self.slot, destination, on_arrived)

    def stop_in_place(self) -> None:
        """Seed 000 §7: targets become the current position; path, callback,
        follow order and blockage state are cleared."""
        self._loc._stop_in_place(self.slot)

    def follow(self, other: Any, range: float) -> None:  # noqa: A002 - the JSON name
        """Approach character ``other`` until within ``range`` metres (seed 003)."""
        self._loc._follow(self.slot, other, range, talk=False, on_interact=None)

    def walk_to(self, npc: Any, on_interact: Callable[[Character, Character], Any] | None = None) -> None:
        """Walk to an NPC; the interaction event fires within ``NPC_TALK_DISTANCE``."""
        self._loc._follow(self.slot, npc, None, talk=True, on_interact=on_interact)

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


@dataclass
class TickEvents:
    """What happened during one tick (IDs in stable-ID order)."""

    tick: int
    arrived: list[Any] = field(default_factory=list)
    blocked_stops: list[Any] = field(default_factory=list)
    retries: list[Any] = field(default_factory=list)
    interactions: list[tuple[Any, Any]] = field(default_factory=list)
    gave_up: list[Any] = field(default_factory=list)
    replans: int = 0
    moved: int = 0
    blocked: int = 0
    waited: int = 0
    #: Smallest ``distance - r_i - r_j`` between neighbouring contact circles (inf: none near).
    min_gap: float = math.inf

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "tick": self.tick,
            "arrived": list(self.arrived),
            "blockedStops": list(self.blocked_stops),
            "retries": list(self.retries),
            "interactions": [list(p) for p in self.interactions],
            "gaveUp": list(self.gave_up),
            "replans": self.replans,
            "minGap": None if not math.isfinite(self.min_gap) else self.min_gap,
        }


@dataclass
class SimStats:
    """Counters over a location's life (saved with its state)."""

    ticks: int = 0
    arrivals: int = 0
    blocked_stops: int = 0
    retries: int = 0
    replans: int = 0
    forced_replans: int = 0
    interactions: int = 0
    gave_up: int = 0
    min_gap: float = math.inf

    def add(self, ev: TickEvents) -> None:
        self.ticks += 1
        self.arrivals += len(ev.arrived)
        self.blocked_stops += len(ev.blocked_stops)
        self.retries += len(ev.retries)
        self.replans += ev.replans
        self.interactions += len(ev.interactions)
        self.gave_up += len(ev.gave_up)
        if ev.min_gap < self.min_gap:
            self.min_gap = ev.min_gap

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "ticks": self.ticks,
            "arrivals": self.arrivals,
            "blockedStops": self.blocked_stops,
            "retries": self.retries,
            "replans": self.replans,
            "forcedReplans": self.forced_replans,
            "interactions": self.interactions,
            "gaveUp": self.gave_up,
            "minGap": None if not math.isfinite(self.min_gap) else self.min_gap,
        }

    @classmethod
    def from_json_dict(cls, d: dict[str, Any]) -> SimStats:
        mg = d.get("minGap")
        return cls(
            ticks=int(d.get("ticks", 0)), arrivals=int(d.get("arrivals", 0)),
            blocked_stops=int(d.get("blockedStops", 0)), retries=int(d.get("retries", 0)),
            replans=int(d.get("replans", 0)), forced_replans=int(d.get("forcedReplans", 0)),
            interactions=int(d.get("interactions", 0)), gave_up=int(d.get("gaveUp", 0)),
            min_gap=math.inf if mg is None else float(mg),
        )
