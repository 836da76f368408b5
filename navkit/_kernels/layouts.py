"""Argument layouts of the kernels, each defined and documented once.

Kernels take their arrays grouped in tuples. Each group's layout is a
:class:`typing.NamedTuple` below: the Python layer builds the group through
it (by field name) and passes it on as a plain tuple, and the kernel opens
it through the same class (``grid = GridArgs(*grid_t)``) and reads fields by
name. A plain tuple is what crosses the call: numba dispatches a plain tuple
of arrays in a fraction of a microsecond but types a named tuple in Python,
twice as slowly (measured: 0.38 vs 0.91 us for five fields), and queries
are a few microseconds in all. Inside the kernel the named view costs
nothing.

Units: lengths in metres, costs in the cost model's integers; "padded"
arrays have one blocked cell of border on every side, so node
``(z + 1) * wp + x + 1`` is cell ``(x, z)`` (see
:class:`navkit.query.padded.PaddedGrid`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__: list[str] = []


# --------------------------------------------------------------- simulation
# (navkit._kernels.sim; the layouts of the tick kernel's argument groups)
#
# The tick kernel opens each group inside njit code (``body = BodyArgs(*body_t)``);
# navkit.sim.tick builds them. "Per slot" arrays have one row per character
# (``n`` rows, slot = stable-ID order, see navkit.sim.state.SimState); a slot
# of -1 means none. Flags are uint8 0 / 1.
__all__ += [
    "BodyArgs", "NavArgs", "RetryArgs", "FollowArgs", "WalkGridArgs", "HashArgs", "TickParams",
    "TickOut",
]


class BodyArgs(NamedTuple):
    """The characters' bodies (read; the kernel writes ``pos`` and ``facing``)."""

    #: float64 (n, 2), m: centres, world ``(x, z)``.
    pos: Any
    #: float64 (n,), rad: heading from +X toward +Z (direction ``(cos f, sin f)``).
    facing: Any
    #: float64 (n,), m/s: walk speed.
    speed: Any
    #: float64 (n,), rad/s: rotation speed.
    rot: Any
    #: float64 (n,), m: movement contact radius (the guard's circle).
    rc: Any
    #: uint8 (n,): 0 player, 1 bot, 2 npc (``KIND_*``).
    kind: Any
    #: uint8 (n,): alive; a character moves and blocks only when alive and enabled.
    alive: Any
    #: uint8 (n,): enabled.
    enabled: Any


class NavArgs(NamedTuple):
    """Path following (read and written)."""

    #: uint8 (n,): navigation active.
    active: Any
    #: float64 (n, maxw, 2), m: waypoints, the first ``wp_n[i]`` of slot ``i``.
    wp: Any
    #: int32 (n,): waypoint count (0: walk straight to ``walk_target``).
    wp_n: Any
    #: int32 (n,): index of the current waypoint.
    wp_i: Any
    #: float64 (n, 2), m: walkTarget, the reachable end of the plan.
    walk_target: Any
    #: float64 (n, 2), m: requestedWalkTarget (players and bots: reset to the
    #: position on a blocked stop).
    requested: Any
    #: uint8 (n,): moved last tick; read as the previous tick's value, written
    #: with this tick's.
    moved: Any
    #: int32 (n,), ticks: movementBlockedTicks.
    blocked: Any
    #: uint8 (n,): 0 STAND, 1 WALK (written).
    anim: Any


class RetryArgs(NamedTuple):
    """Retry cooldowns (an NPC's blocked stop schedules a retry)."""

    #: int32 (n, 10), ticks: the ID-shuffled cooldown sequence.
    seq: Any
    #: int32 (n,): index of the next cooldown in ``seq``.
    cur: Any
    #: int32 (n,), ticks: left of a scheduled retry (0: none).
    timer: Any
    #: int32 (n,), slot: the blocker promoted to an obstacle on the retry.
    blocker: Any


class FollowArgs(NamedTuple):
    """Follow and walk-to-NPC orders (seed 003's approach)."""

    #: int32 (n,), slot: the character followed (-1: no order).
    target: Any
    #: float64 (n,), m: the order's range.
    rng: Any
    #: uint8 (n,): a walk-to-NPC order (in range: ``EV_TALK``).
    talk: Any
    #: float64 (n,), m: best distance so far (along the route on a path).
    best: Any
    #: int32 (n,), ticks: without a new best distance.
    stall: Any
    #: int64 (n,), tick: of the last plan (-1: never).
    last_plan: Any
    #: float64 (n, 2), m: the target's position at that plan.
    goal: Any
    #: uint8 (n,): following a planned path.
    on_path: Any


class WalkGridArgs(NamedTuple):
    """The static walkable grid, padded by one blocked cell on every side."""

    #: uint8 ((depth + 2) * (width + 2),): nonzero = walkable, row-major by z.
    cells: Any
    #: int: padded width and depth (cells).
    wpad: Any
    hpad: Any
    #: float, m: world ``x`` and ``z`` of the unpadded grid's lower edges, and the cell size.
    min_x: Any
    min_z: Any
    cell_size: Any


class HashArgs(NamedTuple):
    """The uniform spatial hash of the characters (rebuilt every tick)."""

    #: float, m: bucket size; origin ``(ox, oz)`` (the caller clamps coordinates
    #: into the ``gw x gd`` buckets).
    h: Any
    ox: Any
    oz: Any
    #: int: buckets along x and z.
    gw: Any
    gd: Any
    #: int32 (gw * gd + 1,): start of each bucket in ``order`` (work array).
    head: Any
    #: int32 (gw * gd,): fill cursor per bucket (work array).
    cursor: Any
    #: int32 (n,): solid slots by bucket, slot order inside a bucket (work array).
    order: Any


class TickParams(NamedTuple):
    """The tick's scalars."""

    #: float, s: tick length.
    dt: Any
    #: int: the tick being run.
    tick: Any
    #: int, ticks: least gap between two plans for a moving follow target (RepathDelay).
    repath_ticks: Any
    #: int, ticks: without progress before a follow order gives up (ApproachGiveUpTicks).
    give_up_ticks: Any
    #: float, m: a waypoint counts as reached within this (kWalkThreshold).
    walk_threshold: Any
    #: float, m: a moved follow target is replanned beyond this (TARGET_REPLAN_THRESHOLD).
    replan_threshold: Any
    #: int, ticks: blocked ticks before a stop (BLOCKED_REPLAN_TICKS).
    blocked_limit: Any
    #: float: cosine above which a rejected step is *following* (waits without counting).
    following_cos: Any


class TickOut(NamedTuple):
    """Scratch and results (every array is overwritten each tick)."""

    #: float64 (n, 2), m: reservations (tick-start centre, new centre once moved).
    res: Any
    #: float64 (n, 2): desired unit direction (0: none).
    dirv: Any
    #: float64 (n,), m: step length.
    steplen: Any
    #: uint8 (n,): step mode (``MODE_*``: 0 none, 1 path, 2 greedy).
    mode: Any
    #: uint8 (n,): event bits (``EV_*``).
    ev: Any
    #: int32 (n,), slot: the blocker of a blocked step (-1: none or a wall).
    ev_blocker: Any
    #: float64 (STATS_SIZE,): ``STAT_*`` (min gap in m, moved, blocked and waited counts).
    stats: Any
