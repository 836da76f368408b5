"""A :class:`Location`: one navigation map, its characters, fixed ticks.

Every tick runs, in this order:

1. **Commands** scheduled for this tick (file order), then a map-change check:
   a new map version forces the replan of every affected character.
2. **Planning** (Python, centralized, stable-ID order): retry timers count
   down; each character whose retry is due, whose replan was forced, or
   whose follow order asked for a plan gets one
   :meth:`~navkit.sim.planner.MapView.find_path` query with its filtered
   obstacle snapshot (seed 000 §6).
3. **Movement** (one numba kernel, :func:`navkit._kernels.sim.tick`): path
   following, approach steps, the movement guard against stable-ID-ordered
   reservations, blocked-tick counting, stops and retry scheduling.
4. **Events** (Python, stable-ID order): arrivals, blocked stops,
   interactions; then the callbacks fire, in stable-ID order.

The state lives in structure-of-arrays numpy arrays indexed by slot; slots are
ordered by stable ID (integers first, numerically, then strings by code
point), so every loop over slots is a loop in stable-ID order.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import sim as _k
from ..errors import ConfigError, QueryError
from .character import Character, CharacterKind, SimStats, TickEvents
from .commands import Command, check_id
from .constants import (
    APPROACH_GIVE_UP_TICKS,
    BLOCKED_REPLAN_TICKS,
    DEFAULT_COLLISION_RADIUS,
    DEFAULT_MOVEMENT_CONTACT_RADIUS,
    DEFAULT_RETRY_COOLDOWN_TICKS,
    DEFAULT_ROTATION_SPEED,
    DEFAULT_TICK_RATE,
    DEFAULT_WALK_SPEED,
    FOLLOWING_COS,
    NPC_TALK_DISTANCE,
    REPATH_DELAY_S,
    RETRY_SEQUENCE_LENGTH,
    TARGET_REPLAN_THRESHOLD,
    WALK_THRESHOLD,
)
from .cooldowns import clamp_ticks, ms_to_ticks, shuffle_for_id
from .planner import MapView, as_map_view, obstacle_snapshot

__all__ = ["Location", "id_sort_key"]

_NPC = CharacterKind.NPC.code
_INITIAL_WAYPOINTS = 16

# name -> (dtype, per-row shape, default)
_FIELDS: dict[str, tuple[Any, tuple[int, ...], float]] = {
    "pos": (np.float64, (2,), 0.0),
    "facing": (np.float64, (), 0.0),
    "speed": (np.float64, (), DEFAULT_WALK_SPEED),
    "rot": (np.float64, (), DEFAULT_ROTATION_SPEED),
    "rc": (np.float64, (), DEFAULT_MOVEMENT_CONTACT_RADIUS),
    "ra": (np.float64, (), DEFAULT_COLLISION_RADIUS),
    "inflate": (np.float64, (), 0.0),
    "kind": (np.uint8, (), _NPC),
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
}
# slot-valued fields (remapped when slots move)
_SLOT_FIELDS = ("rblocker", "f_target")

_NEED_FORCED = 1
_NEED_FOLLOW = 2


def id_sort_key(stable_id: Any) -> tuple[int, Any]:
    """Stable-ID order: integers first (numerically), then strings (by code point)."""
    if isinstance(stable_id, str):
        return (1, stable_id)
    return (0, int(stable_id))


class _Arrays:
    """The structure-of-arrays state (one row per slot) plus the waypoint buffer.

    Every field is a view ``buffer[:n]`` of a buffer with spare capacity, so
    appending characters is amortized O(1) and inserting one moves only the
    rows after it.
    """

    pos: NDArray[Any]
    facing: NDArray[Any]
    speed: NDArray[Any]
    rot: NDArray[Any]
    rc: NDArray[Any]
    ra: NDArray[Any]
    inflate: NDArray[Any]
    kind: NDArray[Any]
    alive: NDArray[Any]
    enabled: NDArray[Any]
    active: NDArray[Any]
    wp_n: NDArray[Any]
    wp_i: NDArray[Any]
    walk_target: NDArray[Any]
    requested: NDArray[Any]
    moved: NDArray[Any]
    blocked: NDArray[Any]
    anim: NDArray[Any]
    seq: NDArray[Any]
    cur: NDArray[Any]
    timer: NDArray[Any]
    rblocker: NDArray[Any]
    f_target: NDArray[Any]
    f_range: NDArray[Any]
    f_talk: NDArray[Any]
    f_best: NDArray[Any]
    f_stall: NDArray[Any]
    f_last_plan: NDArray[Any]
    f_goal: NDArray[Any]
    on_path: NDArray[Any]
    need_plan: NDArray[Any]
    partial: NDArray[Any]
    wp: NDArray[Any]

    def __init__(self) -> None:
        self.n = 0
        self._cap = 0
        self._bufs: dict[str, NDArray[Any]] = {}
        for name, (dt, shape, default) in _FIELDS.items():
            self._bufs[name] = np.full((0, *shape), default, dtype=dt)
        self._bufs["wp"] = np.zeros((0, _INITIAL_WAYPOINTS, 2), dtype=np.float64)
        self._views()

    def _views(self) -> None:
        n = self.n
        for name, buf in self._bufs.items():
            setattr(self, name, buf[:n])

    def _grow(self, cap: int) -> None:
        for name, buf in self._bufs.items():
            if name == "wp":
                new = np.zeros((cap, buf.shape[1], 2), dtype=np.float64)
            else:
                dt, shape, default = _FIELDS[name]
                new = np.full((cap, *shape), default, dtype=dt)
            new[: self.n] = buf[: self.n]
            self._bufs[name] = new
        self._cap = cap

    def insert(self, slot: int) -> None:
        n = self.n
        if n + 1 > self._cap:
            self._grow(max(16, 2 * self._cap))
        for name, buf in self._bufs.items():
            if slot < n:
                buf[slot + 1 : n + 1] = buf[slot:n].copy()
            if name == "wp":
                buf[slot] = 0.0
            else:
                buf[slot] = _FIELDS[name][2]
            if name in _SLOT_FIELDS:
                rows = buf[: n + 1]
                rows[(rows >= slot) & (np.arange(n + 1) != slot)] += 1
                buf[slot] = -1
        self.n = n + 1
        self._views()

    def ensure_waypoints(self, m: int) -> None:
        buf = self._bufs["wp"]
        cap = buf.shape[1]
        if m <= cap:
            return
        while cap < m:
            cap *= 2
        wp = np.zeros((buf.shape[0], cap, 2), dtype=np.float64)
        wp[:, : buf.shape[1]] = buf
        self._bufs["wp"] = wp
        self.wp = wp[: self.n]


def _point(value: Any, name: str) -> tuple[float, float]:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise QueryError(f"{name} must be a world point (x, z), got {value!r}") from None
    if arr.shape == (3,):
        arr = arr[[0, 2]]
    if arr.shape != (2,) or not np.all(np.isfinite(arr)):
        raise QueryError(f"{name} must be a finite world point (x, z), got {value!r}")
    return (float(arr[0]), float(arr[1]))


def _positive(value: Any, name: str, *, allow_zero: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"expected a number, got {value!r}", field=name) from None
    if isinstance(value, bool) or not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise ConfigError(f"expected a finite number {'>=' if allow_zero else '>'} 0, got {value!r}", field=name)
    return v


class Location:
    """A navigation map with characters that advance in fixed ticks.

    Parameters
    ----------
    navigation
        A :class:`~navkit.level.NavLevel`, a level config (dict or
        :class:`~navkit.level.LevelConfig`), a static
        :class:`~navkit.grid.NavGrid`, or a ``NavMap``.
    tick_rate
        Ticks per second (default 20 Hz).
    map_path
        The file a static grid came from (lets :meth:`save` reference it).

    >>> import numpy as np, navkit
    >>> grid = navkit.NavGrid(np.ones((10, 20), bool), cell_size=0.5, agent_radius=0.3)
    >>> loc = Location(grid)
    >>> a = loc.add_character("a", kind="npc", position=(1.25, 2.25), walk_speed=2.0)
    >>> a.set_target((8.25, 2.25))
    True
    >>> _ = loc.run(80)
    >>> [round(v, 3) for v in a.position], a.is_moving(), loc.stats.arrivals
    ([8.25, 2.25], False, 1)
    """

    def __init__(self, navigation: Any, *, tick_rate: float = DEFAULT_TICK_RATE,
                 map_path: str | Path | None = None):
        self.map: MapView = as_map_view(navigation, path=map_path)
        self.tick_rate = _positive(tick_rate, "tickRate")
        self.dt = 1.0 / self.tick_rate
        #: Ticks a follow order waits between plans for a moving target (seed 003: 2 s).
        self.repath_ticks = max(1, int(math.floor(REPATH_DELAY_S * self.tick_rate + 0.5)))
        self.tick = 0
        self.stats = SimStats()
        #: Called as ``on_interaction(actor, npc)`` for every interaction event.
        self.on_interaction: Callable[[Character, Character], Any] | None = None
        self._ids: list[Any] = []
        self._keys: list[tuple[int, Any]] = []
        self._index: dict[Any, int] = {}
        self._a = _Arrays()
        self._arrived_cb: dict[Any, Callable[..., Any]] = {}
        self._interact_cb: dict[Any, Callable[..., Any]] = {}
        self._commands: list[Command] = []
        self._command_keys: list[int] = []
        self._cmd_pos = 0
        self._events: TickEvents | None = None
        self._map_version = self.map.version
        self._walk_prev = self.map.grid.walkable
        self._scratch_n = -1
        self._hash_key: tuple[Any, ...] | None = None
        self._marks = np.zeros(1, dtype=np.int32)
        self._stats = np.zeros(_k.STATS_SIZE, dtype=np.float64)

    # ============================================================ characters
    def __len__(self) -> int:
        return self._a.n

    def __contains__(self, stable_id: object) -> bool:
        return stable_id in self._index

    def __getitem__(self, stable_id: Any) -> Character:
        return self.character(stable_id)

    def __iter__(self) -> Iterator[Character]:
        return iter(self.characters)

    @property
    def ids(self) -> list[Any]:
        """Stable IDs in slot order."""
        return list(self._ids)

    @property
    def characters(self) -> list[Character]:
        """Views of every character in stable-ID order."""
        return [Character(self, i) for i in self._ids]

    def character(self, stable_id: Any) -> Character:
        """The view of character ``stable_id`` (QueryError when unknown)."""
        self._slot_of(stable_id)
        return Character(self, stable_id)

    def _slot_of(self, stable_id: Any) -> int:
        try:
            return self._index[stable_id]
        except (KeyError, TypeError):
            raise QueryError(f"no character with ID {stable_id!r}") from None

    def add_character(
        self,
        stable_id: Any,
        *,
        kind: str | CharacterKind = CharacterKind.NPC,
        position: Any,
        walk_speed: float = DEFAULT_WALK_SPEED,
        rotation_speed: float = DEFAULT_ROTATION_SPEED,
        collision_radius: float = DEFAULT_COLLISION_RADIUS,
        contact_radius: float = DEFAULT_MOVEMENT_CONTACT_RADIUS,
        retry_cooldown_ticks: Any = None,
        retry_cooldown_ms: Any = None,
        retry_sequence: Any = None,
        facing: float = 0.0,
        alive: bool = True,
        enabled: bool = True,
    ) -> Character:
        """Add a character; it starts standing, with targets at its position.

        ``retry_cooldown_ticks`` / ``retry_cooldown_ms`` (ten values, at most
        one of them) replace the default 2-11 ticks; they are clamped to
        positive tick counts and shuffled from the ID. ``retry_sequence`` sets
        the already-shuffled sequence (restoring a state).
        """
        sid = check_id(stable_id, "id")
        if sid in self._index:
            raise ConfigError(f"a character with ID {sid!r} already exists", field="id")
        try:
            k = CharacterKind(kind)
        except ValueError:
            raise ConfigError(f"expected player, bot or npc, got {kind!r}", field="kind") from None
        p = _point(position, "position")
        speed = _positive(walk_speed, "walkSpeed")
        rot = _positive(rotation_speed, "rotationSpeed")
        ra = _positive(collision_radius, "navigationAvoidanceRadius", allow_zero=True)
        rc = _positive(contact_radius, "movementContactRadius")
        fc = float(facing)
        if not math.isfinite(fc):
            raise ConfigError(f"expected a finite angle, got {facing!r}", field="facing")
        seq = self._sequence(sid, retry_cooldown_ticks, retry_cooldown_ms, retry_sequence)
        key = id_sort_key(sid)
        slot = bisect.bisect_left(self._keys, key)
        self._keys.insert(slot, key)
        self._ids.insert(slot, sid)
        if slot == len(self._ids) - 1:
            self._index[sid] = slot
        else:
            self._index = {cid: i for i, cid in enumerate(self._ids)}
        a = self._a
        a.insert(slot)
        a.pos[slot] = p
        a.walk_target[slot] = p
        a.requested[slot] = p
        a.facing[slot] = fc
        a.speed[slot] = speed
        a.rot[slot] = rot
        a.ra[slot] = ra
        a.rc[slot] = rc
        a.inflate[slot] = float(self.map.obstacle_radius(ra))
        a.kind[slot] = k.code
        a.alive[slot] = 1 if alive else 0
        a.enabled[slot] = 1 if enabled else 0
        a.seq[slot] = seq
        return Character(self, sid)

    def _sequence(self, sid: Any, ticks: Any, ms: Any, explicit: Any) -> list[int]:
        given = [n for n, v in (("navigationRetryCooldownTicks", ticks), ("navigationRetryCooldownMs", ms),
                                ("retryCooldownSequence", explicit)) if v is not None]
        if len(given) > 1:
            raise ConfigError(f"give at most one of {', '.join(given)}", field=given[1])
        if not given:
            return shuffle_for_id(clamp_ticks(DEFAULT_RETRY_COOLDOWN_TICKS), sid)
        name = given[0]
        raw = ticks if ticks is not None else ms if ms is not None else explicit
        if isinstance(raw, (str, bytes)) or not hasattr(raw, "__len__") or len(raw) != RETRY_SEQUENCE_LENGTH:
            raise ConfigError(f"expected a list of {RETRY_SEQUENCE_LENGTH} numbers, got {raw!r}", field=name)
        vals = []
        for j, v in enumerate(raw):
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
                raise ConfigError(f"expected a finite number, got {v!r}", field=f"{name}[{j}]")
            vals.append(float(v))
        if explicit is not None:
            if any(v < 1 or v != math.floor(v) for v in vals):
                raise ConfigError("expected integers >= 1 (ticks)", field=name)
            return [int(v) for v in vals]
        base = ms_to_ticks(vals, self.tick_rate) if ms is not None else clamp_ticks(vals)
        return shuffle_for_id(base, sid)

    def _set_positive(self, field: str, slot: int, value: Any, name: str) -> None:
        getattr(self._a, field)[slot] = _positive(value, name)

    def _set_flag(self, field: str, slot: int, value: Any) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise ConfigError(f"expected True or False, got {value!r}", field=field)
        getattr(self._a, field)[slot] = 1 if value else 0

    def _teleport(self, slot: int, value: Any) -> None:
        p = _point(value, "position")
        self._a.pos[slot] = p
        self._stop_in_place(slot)

    # ============================================================== commands
    def schedule(self, command: Command | dict[str, Any]) -> None:
        """Add a timed command (a :class:`Command` or its JSON object).

        A command whose tick has passed runs at the start of the next tick.
        """
        from .commands import parse_command

        cmd = command if isinstance(command, Command) else parse_command(
            command, f"commands[{len(self._commands)}]", set(self._ids))
        pos = bisect.bisect_right(self._command_keys, cmd.tick, lo=self._cmd_pos)
        self._command_keys.insert(pos, cmd.tick)
        self._commands.insert(pos, cmd)

    @property
    def pending_commands(self) -> list[Command]:
        """Commands that have not run yet, in execution order."""
        return self._commands[self._cmd_pos:]

    def _run_commands(self, t: int) -> None:
        while self._cmd_pos < len(self._commands) and self._commands[self._cmd_pos].tick <= t:
            cmd = self._commands[self._cmd_pos]
            self._cmd_pos += 1
            self.execute(cmd)

    def execute(self, cmd: Command) -> None:
        """Run one command now."""
        try:
            act = cmd.action
            if act == "moveTo":
                self.character(cmd.character).set_target(cmd.args["point"])
            elif act == "follow":
                self._follow(self._slot_of(cmd.character), cmd.args["target"], cmd.args["range"], talk=False,
                             on_interact=None)
            elif act == "talkTo":
                self._follow(self._slot_of(cmd.character), cmd.args["target"], None, talk=True, on_interact=None)
            elif act == "stop":
                self._stop_in_place(self._slot_of(cmd.character))
            elif act == "setAreaAvailable":
                self.set_area_available(cmd.args["name"], cmd.args["available"])
            elif act == "addObstacle":
                self.add_obstacle(cmd.args["name"], cmd.args["polygon"])
            elif act == "removeObstacle":
                self.remove_obstacle(cmd.args["name"])
            else:  # pragma: no cover - parse_command rejects others
                raise ConfigError(f"unknown action {act!r}", field=cmd.field)
        except ConfigError as e:
            if e.field is not None and e.field.startswith("commands["):
                raise
            fld = cmd.field + "." + cmd.action + ("" if e.field is None else "." + e.field)
            raise ConfigError(e.reason, field=fld) from None
        except QueryError as e:
            raise ConfigError(str(e), field=f"{cmd.field}.{cmd.action}") from None

    # =================================================================== map
    def set_area_available(self, name: str, available: bool) -> bool:
        """Open or close a navigation area (a door); affected characters replan."""
        changed = self.map.set_area_available(name, available)
        self._check_map()
        return changed

    def add_obstacle(self, name: str, polygon: Any) -> None:
        """Add an obstacle polygon; affected characters replan."""
        self.map.add_obstacle(name, polygon)
        self._check_map()

    def remove_obstacle(self, name: str) -> None:
        """Remove an obstacle polygon; affected characters replan."""
        self.map.remove_obstacle(name)
        self._check_map()

    def set_map(self, navigation: Any, *, map_path: str | Path | None = None) -> None:
        """Switch to another navigation map; every navigating character replans."""
        self.map = as_map_view(navigation, path=map_path)
        self._map_version = self.map.version
        self._walk_prev = self.map.grid.walkable
        self._hash_key = None
        a = self._a
        a.inflate[:] = self.map.obstacle_radius(a.ra)
        solid = (a.alive != 0) & (a.enabled != 0)
        far = np.hypot(*(a.pos - a.requested).T) > TARGET_REPLAN_THRESHOLD if a.n else np.zeros(0, bool)
        affected = solid & ((a.active != 0) | (a.f_target >= 0) | ((a.kind == _NPC) & far))
        a.need_plan[affected] |= _NEED_FORCED

    def _check_map(self) -> None:
        if self.map.version == self._map_version:
            return
        self._map_version = self.map.version
        new = self.map.grid.walkable
        old = self._walk_prev
        self._walk_prev = new
        a = self._a
        if a.n == 0:
            return
        if old.shape != new.shape:
            closed = opened = True
        else:
            closed = bool(np.any(old & ~new))
            opened = bool(np.any(new & ~old))
        solid = (a.alive != 0) & (a.enabled != 0)
        affected = np.zeros(a.n, dtype=bool)
        if closed:
            affected |= (a.active != 0) | (a.f_target >= 0)
        if opened:
            affected |= (a.partial != 0) | (a.f_target >= 0)
        affected &= solid
        a.need_plan[affected] |= _NEED_FORCED

    # ============================================================== planning
    def _solid(self) -> NDArray[np.bool_]:
        a = self._a
        return (a.alive != 0) & (a.enabled != 0)

    def _query(self, slot: int, dest: tuple[float, float], promoted: int) -> Any:
        a = self._a
        start = (float(a.pos[slot, 0]), float(a.pos[slot, 1]))
        obstacles = obstacle_snapshot(a.pos, a.inflate, self._solid(), a.moved, slot, promoted)
        res = self.map.find_path(start, dest, obstacles)
        self.stats.replans += 1
        if self._events is not None:
            self._events.replans += 1
        return start, res

    def _store_path(self, slot: int, res: Any, start: tuple[float, float]) -> bool:
        a = self._a
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

    def _plan_to(self, slot: int, dest: tuple[float, float], promoted: int = -1) -> None:
        """Plan to ``dest`` (walkTarget = reachable end, requestedWalkTarget untouched)."""
        a = self._a
        start, res = self._query(slot, dest, promoted)
        a.need_plan[slot] = 0
        a.timer[slot] = 0
        a.rblocker[slot] = -1
        a.blocked[slot] = 0
        has = self._store_path(slot, res, start)
        goal = self.map.static_goal(start, dest)
        short = goal is not None and (not has or res.end_cell != goal)
        a.partial[slot] = 1 if short else 0
        if short and not has and a.kind[slot] == _NPC:
            self._schedule_retry(slot, -1)

    def _plan_follow(self, slot: int, promoted: int = -1) -> None:
        a = self._a
        j = int(a.f_target[slot])
        dest = (float(a.pos[j, 0]), float(a.pos[j, 1]))
        start, res = self._query(slot, dest, promoted)
        a.need_plan[slot] = 0
        a.timer[slot] = 0
        a.rblocker[slot] = -1
        a.blocked[slot] = 0
        a.requested[slot] = dest
        a.f_goal[slot] = dest
        a.f_last_plan[slot] = self.tick
        has = self._store_path(slot, res, start)
        a.on_path[slot] = 1 if has else 0
        a.partial[slot] = 0
        if has:
            # a plan that can end nearer the goal than the best distance so
            # far starts a new baseline: its route length (seed 003 give-up)
            w = res.waypoints
            residual = math.hypot(w[-1, 0] - dest[0], w[-1, 1] - dest[1])
            if residual < a.f_best[slot]:
                steps = np.diff(np.vstack([np.array([start]), w]), axis=0)
                a.f_best[slot] = float(np.hypot(steps[:, 0], steps[:, 1]).sum()) + residual
                a.f_stall[slot] = 0

    def _schedule_retry(self, slot: int, blocker: int) -> None:
        a = self._a
        c = int(a.cur[slot])
        a.timer[slot] = a.seq[slot, c]
        a.cur[slot] = (c + 1) % RETRY_SEQUENCE_LENGTH
        a.rblocker[slot] = blocker

    def _set_target(self, slot: int, destination: Any, on_arrived: Callable[..., Any] | None) -> bool:
        a = self._a
        dest = _point(destination, "destination")
        cid = self._ids[slot]
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
        self._plan_to(slot, dest)
        return True

    def _end_follow(self, slot: int) -> None:
        a = self._a
        a.f_target[slot] = -1
        a.f_talk[slot] = 0
        a.on_path[slot] = 0
        self._interact_cb.pop(self._ids[slot], None)

    def _stop_in_place(self, slot: int) -> None:
        a = self._a
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
        self._arrived_cb.pop(self._ids[slot], None)

    def _follow(self, slot: int, other: Any, rng: float | None, *, talk: bool,
                on_interact: Callable[..., Any] | None) -> None:
        a = self._a
        j = self._slot_of(other)
        if j == slot:
            raise ConfigError("a character cannot follow itself", field="follow")
        if talk:
            if a.kind[j] != _NPC:
                raise ConfigError(f"{other!r} is a {CharacterKind.from_code(int(a.kind[j])).value}, not an NPC",
                                  field="talkTo")
            r = NPC_TALK_DISTANCE
        else:
            r = _positive(rng, "range", allow_zero=True)
        self._stop_in_place(slot)
        a.f_target[slot] = j
        a.f_range[slot] = r
        a.f_talk[slot] = 1 if talk else 0
        a.f_best[slot] = math.inf
        a.f_stall[slot] = 0
        a.f_last_plan[slot] = -1
        a.on_path[slot] = 0
        if on_interact is not None:
            self._interact_cb[self._ids[slot]] = on_interact

    def _planning_phase(self, ev: TickEvents) -> None:
        a = self._a
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
        solid = self._solid()
        for s in np.flatnonzero(need).tolist():
            is_due = due is not None and bool(due[s])
            forced = bool(a.need_plan[s] & _NEED_FORCED)
            a.need_plan[s] = 0
            if not solid[s]:
                continue
            promoted = int(a.rblocker[s]) if is_due else -1
            if is_due:
                ev.retries.append(self._ids[s])
            if forced:
                self.stats.forced_replans += 1
            if a.f_target[s] >= 0:
                self._plan_follow(s, promoted)
            else:
                req = (float(a.requested[s, 0]), float(a.requested[s, 1]))
                self._plan_to(s, req, promoted)

    # ============================================================== movement
    def _scratch(self) -> None:
        n = self._a.n
        if self._scratch_n == n:
            return
        self._scratch_n = n
        self._res = np.zeros((n, 2), dtype=np.float64)
        self._dirv = np.zeros((n, 2), dtype=np.float64)
        self._steplen = np.zeros(n, dtype=np.float64)
        self._mode = np.zeros(n, dtype=np.uint8)
        self._ev = np.zeros(n, dtype=np.uint8)
        self._ev_blocker = np.zeros(n, dtype=np.int32)
        self._solid_buf = np.zeros(n, dtype=np.uint8)
        self._order = np.zeros(n, dtype=np.int32)
        self._hash_key = None

    def _hash(self) -> tuple[Any, ...]:
        a = self._a
        g = self.map.grid
        rmax = float(a.rc.max()) if a.n else 0.0
        smax = float(a.speed.max()) * self.dt if a.n else 0.0
        key = (rmax, smax, g.min_x, g.min_z, g.width, g.depth, g.cell_size, a.n)
        if key != self._hash_key:
            # a bucket holds every reservation that can touch a step from it:
            # reservations move at most one step, the mover one step
            h = max(2.0 * rmax + 2.0 * smax, 1e-3) * (1.0 + 1e-9) + 1e-9
            ex = g.width * g.cell_size
            ez = g.depth * g.cell_size
            limit = max(8 * a.n, 1 << 16)
            while True:
                gw = int(ex // h) + 1
                gd = int(ez // h) + 1
                if gw * gd <= limit:
                    break
                h *= 2.0
            self._hash_key = key
            self._hash_geo = (float(h), float(g.min_x), float(g.min_z), int(gw), int(gd))
            self._head = np.zeros(gw * gd + 1, dtype=np.int32)
            self._cursor = np.zeros(gw * gd, dtype=np.int32)
        h, ox, oz, gw, gd = self._hash_geo
        return (h, ox, oz, gw, gd, self._head, self._cursor, self._order)

    def _move(self, ev: TickEvents) -> None:
        a = self._a
        if a.n == 0:
            return
        self._scratch()
        g = self.map.grid
        cells = self.map.padded_cells
        grid = (cells, int(g.width + 2), int(g.depth + 2), float(g.min_x), float(g.min_z), float(g.cell_size))
        body = (a.pos, a.facing, a.speed, a.rot, a.rc, a.kind, a.alive, a.enabled)
        nav = (a.active, a.wp, a.wp_n, a.wp_i, a.walk_target, a.requested, a.moved, a.blocked, a.anim)
        retry = (a.seq, a.cur, a.timer, a.rblocker)
        follow = (a.f_target, a.f_range, a.f_talk, a.f_best, a.f_stall, a.f_last_plan, a.f_goal, a.on_path)
        params = (float(self.dt), int(self.tick), int(self.repath_ticks), int(APPROACH_GIVE_UP_TICKS),
                  float(WALK_THRESHOLD), float(TARGET_REPLAN_THRESHOLD), int(BLOCKED_REPLAN_TICKS),
                  float(FOLLOWING_COS))
        out = (self._res, self._dirv, self._steplen, self._mode, self._ev, self._ev_blocker, self._stats)
        _k.tick(body, nav, retry, follow, grid, self._hash(), params, out, self._solid_buf, self._marks)
        st = self._stats
        ev.min_gap = float(st[_k.STAT_MIN_GAP])
        ev.moved = int(st[_k.STAT_MOVED])
        ev.blocked = int(st[_k.STAT_BLOCKED])
        ev.waited = int(st[_k.STAT_WAITED])

    def _post(self, ev: TickEvents) -> None:
        a = self._a
        if a.n == 0:
            return
        evs = self._ev
        calls: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        for s in np.flatnonzero(evs).tolist():
            e = int(evs[s])
            cid = self._ids[s]
            if e & _k.EV_BLOCK_STOP:
                ev.blocked_stops.append(cid)
                if a.kind[s] != _NPC:
                    # seed 000 §8: the destination is cancelled
                    self._stop_in_place(s)
                else:
                    a.partial[s] = 0
            if e & _k.EV_ARRIVED:
                if a.kind[s] == _NPC and a.partial[s]:
                    self._schedule_retry(s, -1)
                else:
                    ev.arrived.append(cid)
                    cb = self._arrived_cb.pop(cid, None)
                    if cb is not None:
                        calls.append((cb, (Character(self, cid),)))
            if e & _k.EV_TALK:
                j = int(a.f_target[s])
                other = self._ids[j]
                ev.interactions.append((cid, other))
                cb = self._interact_cb.pop(cid, None)
                self._stop_in_place(s)
                actor, npc = Character(self, cid), Character(self, other)
                if cb is not None:
                    calls.append((cb, (actor, npc)))
                if self.on_interaction is not None:
                    calls.append((self.on_interaction, (actor, npc)))
            if e & _k.EV_GAVE_UP:
                ev.gave_up.append(cid)
                self._stop_in_place(s)
            if e & _k.EV_NEED_PLAN and a.f_target[s] >= 0:
                a.need_plan[s] |= _NEED_FOLLOW
        for fn, args in calls:
            fn(*args)

    # ================================================================= ticks
    def step(self) -> TickEvents:
        """Advance one tick; returns what happened."""
        t = self.tick
        ev = TickEvents(tick=t)
        self._events = ev
        try:
            self._run_commands(t)
            self._check_map()
            self._planning_phase(ev)
            self._move(ev)
            self._post(ev)
        finally:
            self._events = None
        self.tick = t + 1
        self.stats.add(ev)
        return ev

    def run(self, ticks: int, *, on_tick: Callable[[TickEvents], Any] | None = None) -> list[TickEvents]:
        """Advance ``ticks`` ticks; returns every tick's events."""
        if isinstance(ticks, bool) or not isinstance(ticks, (int, np.integer)) or ticks < 0:
            raise QueryError(f"ticks must be an integer >= 0, got {ticks!r}")
        out = []
        for _ in range(int(ticks)):
            ev = self.step()
            out.append(ev)
            if on_tick is not None:
                on_tick(ev)
        return out

    # ============================================================ inspection
    def positions(self) -> NDArray[np.float64]:
        """Copy of every centre, shape (n, 2), slot order."""
        return self._a.pos.copy()

    def contact_radii(self) -> NDArray[np.float64]:
        return self._a.rc.copy()

    def animations(self) -> NDArray[np.uint8]:
        """``AnimationState`` codes, slot order."""
        return self._a.anim.copy()

    def min_contact_gap(self) -> float:
        """Smallest ``|p_i - p_j| - r_i - r_j`` over all solid pairs (brute force; for tests)."""
        a = self._a
        solid = np.flatnonzero(self._solid())
        if len(solid) < 2:
            return math.inf
        p = a.pos[solid]
        r = a.rc[solid]
        d = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(-1)) - r[:, None] - r[None, :]
        np.fill_diagonal(d, np.inf)
        return float(d.min())

    # ================================================================ state
    def state_dict(self, *, base: str | Path | None = None) -> dict[str, Any]:
        """The full state as a scene object (see :mod:`navkit.sim.scene`)."""
        from .scene import location_to_scene

        return location_to_scene(self, base=None if base is None else Path(base))

    def save(self, path: str | Path) -> Path:
        """Write the state as a scene JSON file; returns the path."""
        from .scene import save_scene

        return save_scene(self, path)

    @classmethod
    def load(cls, path: str | Path) -> Location:
        """Read a scene or saved state."""
        from .scene import load_scene

        return load_scene(path)

    def __repr__(self) -> str:
        return f"Location({len(self)} characters, tick {self.tick}, {self.tick_rate:g} Hz, map {self.map.grid!r})"

