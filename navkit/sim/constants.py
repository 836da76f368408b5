"""Constants of the character simulation, named as in docs/rules.md §11.1.

The path-following, guard and retry constants (``kWalkThreshold``,
``TARGET_REPLAN_THRESHOLD``, ``BLOCKED_REPLAN_TICKS``, the default retry
sequence, ``NPC_TALK_DISTANCE``, ``movementContactRadius``), the planning
radius (``collisionRadius``, §7.4) and the approach behaviour of §10.5
(``RepathDelay``, ``ApproachGiveUpTicks``).
Every camelCase name has a PEP 8 alias; both refer to the same value.

>>> kWalkThreshold, TARGET_REPLAN_THRESHOLD, BLOCKED_REPLAN_TICKS, NPC_TALK_DISTANCE
(0.05, 0.25, 3, 1.35)
>>> DEFAULT_RETRY_COOLDOWN_TICKS
(2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
"""

from __future__ import annotations

import math

from ..level.config import DEFAULT_AGENT_RADIUS, DEFAULT_CELL_SIZE, DEFAULT_OBJECT_PADDING

__all__ = [
    "kWalkThreshold",
    "WALK_THRESHOLD",
    "TARGET_REPLAN_THRESHOLD",
    "BLOCKED_REPLAN_TICKS",
    "NPC_TALK_DISTANCE",
    "DEFAULT_RETRY_COOLDOWN_TICKS",
    "RETRY_SEQUENCE_LENGTH",
    "collisionRadius",
    "DEFAULT_COLLISION_RADIUS",
    "movementContactRadius",
    "DEFAULT_MOVEMENT_CONTACT_RADIUS",
    "RepathDelay",
    "REPATH_DELAY_S",
    "ApproachGiveUpTicks",
    "APPROACH_GIVE_UP_TICKS",
    "FOLLOWING_COS",
    "AVOIDANCE_MODES",
    "ORCA_TIME_HORIZON",
    "ORCA_MAX_NEIGHBORS",
    "ORCA_RADIUS_MARGIN",
    "ORCA_STALL_FRACTION",
    "ORCA_MAX_WALL_CELLS",
    "ORCA_WALL_TIME_HORIZON",
    "ORCA_CORNER_RADIUS",
    "DEFAULT_TICK_RATE",
    "DEFAULT_WALK_SPEED",
    "DEFAULT_ROTATION_SPEED",
    "cellSize",
    "agentRadius",
    "objectPadding",
]

#: docs/rules.md §8.2: a waypoint counts as reached within this many metres.
kWalkThreshold = 0.05
WALK_THRESHOLD = kWalkThreshold

#: docs/rules.md §8.1: ``set_target`` ignores a destination this close (metres) to the current one.
TARGET_REPLAN_THRESHOLD = 0.25

#: docs/rules.md §9.4: blocked (head-on or crossing) ticks before a character stops.
BLOCKED_REPLAN_TICKS = 3

#: docs/rules.md §10.5: a character walking to an NPC interacts within this many metres
#: (centre to centre).
NPC_TALK_DISTANCE = 1.35

#: docs/rules.md §10.3: the default retry cooldowns in ticks, before the per-ID shuffle.
DEFAULT_RETRY_COOLDOWN_TICKS: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
#: Number of cooldown values every character carries.
RETRY_SEQUENCE_LENGTH = 10

#: docs/rules.md §7.4, §9.3: planning (avoidance) radius of a character in metres;
#: JSON ``navigationAvoidanceRadius``.
collisionRadius = 0.45
DEFAULT_COLLISION_RADIUS = collisionRadius

#: docs/rules.md §9.3: movement-guard contact radius in metres; JSON ``movementContactRadius``.
movementContactRadius = 0.32
DEFAULT_MOVEMENT_CONTACT_RADIUS = movementContactRadius

#: docs/rules.md §10.5: a moving follow target is re-planned at most once per this many seconds.
RepathDelay = 2.0
REPATH_DELAY_S = RepathDelay

#: docs/rules.md §10.5: ticks without a new best distance to a stationary target before giving up.
ApproachGiveUpTicks = 40
APPROACH_GIVE_UP_TICKS = ApproachGiveUpTicks

#: Movement-guard classification: a blocker whose walking direction has a dot
#: product above cos 60 degrees with ours is traffic in the same direction
#: (following: wait without counting blocked ticks).
FOLLOWING_COS = math.cos(math.radians(60.0))

#: docs/rules.md §9.6: local avoidance between characters (``Location(avoidance=...)``,
#: scene key ``avoidance``): ``"none"`` (the default) or ``"orca"``.
AVOIDANCE_MODES = ("none", "orca")
#: docs/rules.md §9.6: ORCA's time horizon in seconds.
ORCA_TIME_HORIZON = 1.0
#: docs/rules.md §9.6: nearest neighbours each character avoids.
ORCA_MAX_NEIGHBORS = 10
#: docs/rules.md §9.6: metres added to the contact radius for avoidance, so that
#: steps chosen by ORCA clear the movement guard's circles.
ORCA_RADIUS_MARGIN = 0.04
#: docs/rules.md §9.6: an avoidance step shorter than this fraction of the preferred
#: step counts as a blocked tick (§9.4), so jams end in a stop and a retry.
ORCA_STALL_FRACTION = 0.05
#: docs/rules.md §9.6: nearest blocked cells each character avoids (0: walls are left
#: to the movement guard alone), and the time horizon against them in seconds.
ORCA_MAX_WALL_CELLS = 0
ORCA_WALL_TIME_HORIZON = 0.5
#: docs/rules.md §9.6: with avoidance, an intermediate waypoint within this many metres
#: counts as reached when the straight step to the next one is clear of walls.
ORCA_CORNER_RADIUS = 0.6

#: Fixed tick rate in Hz when a scene gives none.
DEFAULT_TICK_RATE = 20.0
#: Defaults for characters created without these values (not rules; docs/rules.md §11.1).
DEFAULT_WALK_SPEED = 1.5
DEFAULT_ROTATION_SPEED = 2.0 * math.pi

#: docs/rules.md §1.2 map parameters (the level config defaults), for reference.
cellSize = DEFAULT_CELL_SIZE
agentRadius = DEFAULT_AGENT_RADIUS
objectPadding = DEFAULT_OBJECT_PADDING
