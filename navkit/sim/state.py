"""The simulation state: one row per character, in stable-ID order.

:class:`SimState` holds every per-character value a tick reads or writes as
structure-of-arrays numpy arrays indexed by **slot**, and the stable IDs of
the slots. It is navkit's one agent store (:class:`navkit.agents.AgentStore`,
the storage of a free :class:`~navkit.crowd.Crowd` too) with the character
columns: ``pos``, ``vel`` and ``speed`` are the store's shared columns. Slots
are ordered by stable ID (:func:`id_sort_key`: integers first, numerically,
then strings by code point), so every loop over slots is a loop in stable-ID
order. Adding a character inserts a row (the rows after it move up one slot,
and slot-valued fields are renumbered to match).

Characters with a steering policy (:class:`~navkit.crowd.SteeringPolicy`)
keep its index in :attr:`SimState.policy` (into :attr:`SimState.policies`),
their wander angle in ``wander``, and a noise key from their ID in ``noise``.

The movement kernel reads these arrays in the groups of
:mod:`navkit._kernels.layouts` (``BodyArgs``, ``NavArgs``, ``RetryArgs``,
``FollowArgs``); :mod:`navkit.sim.tick` builds the groups.

:func:`as_point` checks the world points callers pass (the other values
are checked against :mod:`navkit.sim.schema`).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels.geometry import MAX_COORD
from ..agents.store import AgentStore, agent_columns, id_sort_key
from ..crowd.policy import SteeringPolicy, check_policy
from ..errors import QueryError, shown
from .constants import (
    DEFAULT_COLLISION_RADIUS,
    DEFAULT_MOVEMENT_CONTACT_RADIUS,
    DEFAULT_ROTATION_SPEED,
    DEFAULT_WALK_SPEED,
    RETRY_SEQUENCE_LENGTH,
)
from .kinds import CharacterKind

__all__ = [
    "SimState",
    "FIELDS",
    "SLOT_FIELDS",
    "NEED_FORCED",
    "NEED_FOLLOW",
    "id_sort_key",
    "as_point",
    "noise_key",
]

#: ``need_plan`` bit: a map change forces a replan.
NEED_FORCED = 1
#: ``need_plan`` bit: the kernel asked for a follow plan.
NEED_FOLLOW = 2

_INITIAL_WAYPOINTS = 16

#: Every per-slot field: name -> (dtype, shape of one row, value of a new row).
#: The waypoint buffer ``wp`` is apart (its second axis grows on demand).
FIELDS: dict[str, tuple[Any, tuple[int, ...], float]] = {
    **agent_columns(speed=DEFAULT_WALK_SPEED),  # pos, vel, speed: shared with a Crowd
    "facing": (np.float64, (), 0.0),
    "rot": (np.float64, (), DEFAULT_ROTATION_SPEED),
    "rc": (np.float64, (), DEFAULT_MOVEMENT_CONTACT_RADIUS),
    "ra": (np.float64, (), DEFAULT_COLLISION_RADIUS),
    "inflate": (np.float64, (), 0.0),
    "kind": (np.uint8, (), CharacterKind.NPC.code),
    "alive": (np.uint8, (), 1),
    "enabled": (np.uint8, (), 1),
    "active": (np.uint8, (), 0),
    "wp_n": (np.int32, (), 0),
    "wp_i": (np.int32, (), 0),
    "walk_target": (np.float64, (2,), 0.0),
    "requested": (np.float64, (2,), 0.0),
    "moved": (np.uint8, (), 0),
    "blocked": (np.int32, (), 0),
    "anim": (np.uint8, (), 0),
    "seq": (np.int32, (RETRY_SEQUENCE_LENGTH,), 1),
    "cur": (np.int32, (), 0),
    "timer": (np.int32, (), 0),
    "rblocker": (np.int32, (), -1),
    "f_target": (np.int32, (), -1),
    "f_range": (np.float64, (), 0.0),
    "f_talk": (np.uint8, (), 0),
    "f_best": (np.float64, (), math.inf),
    "f_stall": (np.int32, (), 0),
    "f_last_plan": (np.int64, (), -1),
    "f_goal": (np.float64, (2,), 0.0),
    "on_path": (np.uint8, (), 0),
    "need_plan": (np.uint8, (), 0),
    "partial": (np.uint8, (), 0),
    "short": (np.uint8, (), 0),
    "policy": (np.int32, (), -1),
    "wander": (np.float64, (), 0.0),
    "noise": (np.uint64, (), 0),
}
#: Fields that hold a slot (-1: none); renumbered when rows move.
SLOT_FIELDS = ("rblocker", "f_target")


def noise_key(stable_id: Any) -> int:
    """A character's wander noise key: the first 8 bytes of BLAKE2b of
    ``str(id)`` (UTF-8) as a little-endian uint64, the same on every machine."""
    digest = hashlib.blake2b(str(stable_id).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def as_point(value: Any, name: str) -> tuple[float, float]:
    """A world point ``(x, z)`` within +-MAX_COORD (a 3-vector ``(x, y, z)``
    drops ``y``); QueryError else."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise QueryError(f"{name} must be a world point (x, z), got {shown(value)}") from None
    if arr.shape == (3,):
        arr = arr[[0, 2]]
    if arr.shape != (2,) or not np.all(np.abs(arr) <= MAX_COORD):
        raise QueryError(f"{name} must be a finite world point (x, z) within +-{MAX_COORD:g} m, "
                         f"got {shown(value)}")
    return (float(arr[0]), float(arr[1]))


class SimState(AgentStore):
    """The per-character arrays of a location, one row per slot, and the slots' IDs.

    Every field below is an array with ``n`` rows (``n`` = number of
    characters), a view ``buffer[:n]`` of a buffer with spare capacity, so
    appending characters is amortized O(1) and inserting one moves only the
    rows after it. The views are replaced when rows are added or the
    waypoint buffer grows (:attr:`generation` counts that); read them from
    the state each time rather than keeping them. Lengths are in metres,
    angles in radians, times in ticks. Flags are uint8 0 / 1. Slot-valued
    fields (:data:`SLOT_FIELDS`) hold -1 for none.
    """

    # ---------------------------------------------------------------- body
    #: float64 (n, 2), m: the centre, world ``(x, z)``.
    pos: NDArray[np.float64]
    #: float64 (n,), rad: heading from +X toward +Z (direction ``(cos, sin)``).
    facing: NDArray[np.float64]
    #: float64 (n,), m/s: ``walkSpeed``.
    speed: NDArray[np.float64]
    #: float64 (n,), rad/s: ``rotationSpeed``.
    rot: NDArray[np.float64]
    #: float64 (n,), m: ``movementContactRadius`` (the movement guard's circle).
    rc: NDArray[np.float64]
    #: float64 (n,), m: ``navigationAvoidanceRadius`` (``collisionRadius``, for planning).
    ra: NDArray[np.float64]
    #: float64 (n,), m: ``ra`` as a planning obstacle (plus the map's agent radius
    #: and half a cell diagonal, :meth:`~navkit.sim.SimMap.obstacle_radius`).
    inflate: NDArray[np.float64]
    #: uint8 (n,): :attr:`CharacterKind.code` (0 player, 1 bot, 2 npc).
    kind: NDArray[np.uint8]
    #: uint8 (n,): alive. A character is *solid* (it moves, blocks and is
    #: planned around) when it is alive and enabled (:meth:`solid`).
    alive: NDArray[np.uint8]
    #: uint8 (n,): enabled.
    enabled: NDArray[np.uint8]

    # ---------------------------------------------------------- navigation
    #: uint8 (n,): navigation active (``Character.is_moving()``).
    active: NDArray[np.uint8]
    #: float64 (n, maxw, 2), m: ``pathWaypoints``, the first ``wp_n[i]`` rows of
    #: slot ``i`` (``maxw`` grows with :meth:`ensure_waypoints`).
    wp: NDArray[np.float64]
    #: int32 (n,): number of waypoints (0: walk straight to ``walk_target``).
    wp_n: NDArray[np.int32]
    #: int32 (n,): index of the current waypoint.
    wp_i: NDArray[np.int32]
    #: float64 (n, 2), m: ``walkTarget``, the reachable end of the current plan.
    walk_target: NDArray[np.float64]
    #: float64 (n, 2), m: ``requestedWalkTarget``, the commanded destination.
    requested: NDArray[np.float64]
    #: uint8 (n,): ``movedLastTick``.
    moved: NDArray[np.uint8]
    #: int32 (n,), ticks: ``movementBlockedTicks``.
    blocked: NDArray[np.int32]
    #: uint8 (n,): :class:`~navkit.sim.AnimationState` code (0 STAND, 1 WALK).
    anim: NDArray[np.uint8]
    #: uint8 (n,): the last plan ended short of a destination reachable on the
    #: static map (an NPC retries instead of arriving).
    partial: NDArray[np.uint8]
    #: uint8 (n,): the last plan to ``requested`` ended short of it (the nearest
    #: reachable cell, or no path) and the order is still on: cells opening
    #: replan it (a door that closed on the way and opens again).
    short: NDArray[np.uint8]
    #: float64 (n, 2), m/s: the velocity over the last tick (position change / dt;
    #: 0 for a character that did not move). Read and written only with
    #: avoidance on (docs/rules.md §9.6); saved as ``velocity`` then.
    vel: NDArray[np.float64]
    #: uint8 (n,): a plan is due in the next planning phase
    #: (bits :data:`NEED_FORCED`, :data:`NEED_FOLLOW`).
    need_plan: NDArray[np.uint8]

    # -------------------------------------------------------------- retries
    #: int32 (n, 10), ticks: the ID-shuffled retry cooldowns.
    seq: NDArray[np.int32]
    #: int32 (n,): index into ``seq`` of the next retry's cooldown.
    cur: NDArray[np.int32]
    #: int32 (n,), ticks: until a scheduled retry (0: none).
    timer: NDArray[np.int32]
    #: int32 (n,), slot: the blocker promoted to an obstacle on the retry.
    rblocker: NDArray[np.int32]

    # --------------------------------------------------------------- follow
    #: int32 (n,), slot: the character followed (a follow or walk-to order).
    f_target: NDArray[np.int32]
    #: float64 (n,), m: the order's range.
    f_range: NDArray[np.float64]
    #: uint8 (n,): a walk-to-NPC order (interaction in range).
    f_talk: NDArray[np.uint8]
    #: float64 (n,), m: best distance to the target so far (inf: none yet).
    f_best: NDArray[np.float64]
    #: int32 (n,), ticks: without a new best distance.
    f_stall: NDArray[np.int32]
    #: int64 (n,), tick: of the last follow plan (-1: never).
    f_last_plan: NDArray[np.int64]
    #: float64 (n, 2), m: the target's position at that plan.
    f_goal: NDArray[np.float64]
    #: uint8 (n,): walking a planned path to the target.
    on_path: NDArray[np.uint8]

    # ------------------------------------------------------------- steering
    #: int32 (n,): index of the character's steering policy in :attr:`policies` (-1: none).
    policy: NDArray[np.int32]
    #: float64 (n,), rad: the wander circle's angle (read and written by a policy tick).
    wander: NDArray[np.float64]
    #: uint64 (n,): the wander noise key of the ID (:func:`noise_key`).
    noise: NDArray[np.uint64]

    def __init__(self) -> None:
        super().__init__({**FIELDS, "wp": (np.float64, (_INITIAL_WAYPOINTS, 2), 0.0)},
                         slot_columns=SLOT_FIELDS)
        #: The steering policies the characters use (``policy`` indexes it).
        self.policies: list[SteeringPolicy] = []
        #: The policy a character added from now on gets (None: none).
        self.default_policy: SteeringPolicy | None = None
        #: Counts the policy changes (a new table entry or a character's policy).
        self.policy_version = 0

    def add(self, stable_id: Any, **values: Any) -> int:
        """Insert the row of a new ID (:data:`FIELDS` defaults, the noise key of
        the ID, the :attr:`default_policy`, then ``values``: field name -> the
        row's value); returns its slot."""
        slot = super().add(stable_id, **values)
        self.noise[slot] = noise_key(stable_id)
        if self.default_policy is not None and "policy" not in values:
            self.set_policy(slot, self.default_policy)
        elif self.policy[slot] >= 0:
            self.policy_version += 1
        return slot

    def slot_of(self, stable_id: Any) -> int:
        """The slot of ``stable_id`` (QueryError when unknown)."""
        try:
            return super().slot_of(stable_id)
        except QueryError:
            raise QueryError(f"no character with ID {shown(stable_id)}") from None

    # ------------------------------------------------------------ policies
    def set_policy(self, slot: int, policy: SteeringPolicy | None) -> None:
        """Give slot ``slot`` the steering policy ``policy`` (None: none)."""
        policy = check_policy(policy)
        if policy is None:
            code = -1
        else:
            if policy not in self.policies:
                self.policies.append(policy)
            code = self.policies.index(policy)
        self.policy[slot] = code
        self.policy_version += 1

    def policy_of(self, slot: int) -> SteeringPolicy | None:
        """Slot ``slot``'s steering policy, or None."""
        code = int(self.policy[slot])
        return None if code < 0 else self.policies[code]

    def steered(self) -> bool:
        """Whether some character has a steering policy."""
        return bool(self.n) and bool((self.policy >= 0).any())

    # ------------------------------------------------------------- queries
    def solid(self) -> NDArray[np.bool_]:
        """Alive and enabled, per slot."""
        return (self.alive != 0) & (self.enabled != 0)

    def min_contact_gap(self) -> float:
        """Smallest ``|p_i - p_j| - r_i - r_j`` over all solid pairs (brute force)."""
        solid = np.flatnonzero(self.solid())
        if len(solid) < 2:
            return math.inf
        p = self.pos[solid]
        r = self.rc[solid]
        d = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(-1)) - r[:, None] - r[None, :]
        np.fill_diagonal(d, np.inf)
        return float(d.min())

    # ------------------------------------------------------------ storage
    def ensure_waypoints(self, m: int) -> None:
        """Make room for ``m`` waypoints per slot in ``wp``."""
        cap = self.wp.shape[1]
        if m <= cap:
            return
        while cap < m:
            cap *= 2
        self.widen("wp", (cap, 2))
