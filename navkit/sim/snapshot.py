"""Location state <-> JSON objects: the pieces of the scene format.

The format itself is described in :mod:`navkit.sim.scene`. This module reads
and writes its parts without building a :class:`~navkit.sim.Location`
(which builds itself from them, :meth:`~navkit.sim.Location.from_scene`):
the top-level keys and the navigation map, one character's configuration
and saved state (read into and written from a
:class:`~navkit.sim.state.SimState` row), the commands, the stats, and the
JSON files. Reading checks the whole object against
:mod:`navkit.sim.schema` first (:func:`read_scene`), so the rest reads
values that are known to be good.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..crowd.policy import SteeringPolicy
from ..errors import ConfigError, FormatError, NavkitError, unknown_name_message
from ..formats import load_grid
from ..level import NavLevel, parse_level, read_level
from .commands import Command, parse_command
from .constants import DEFAULT_TICK_RATE
from .events import SimStats
from .kinds import AnimationState, CharacterKind
from .schema import CHARACTER, FOLLOW, FORMAT, SCENE, Rule, check, check_fields
from .simmap import SimMap
from .state import SimState

__all__ = [
    "SCENE_KEYS", "CHARACTER_KEYS", "FOLLOW_KEYS", "FORMAT", "SavedLocation", "CheckedScene",
    "read_scene", "populate", "character_entry", "restore_character", "character_dict",
    "policy_from",
    "location_dict", "read_json", "parse_json", "read_error", "file_path", "save_location",
]

SCENE_KEYS = tuple(SCENE)
CHARACTER_KEYS = tuple(CHARACTER)
FOLLOW_KEYS = tuple(FOLLOW)

#: Scene keys -> ``add_character`` keyword arguments.
_ADD_ARGS = (("kind", "kind"), ("walkSpeed", "walk_speed"), ("rotationSpeed", "rotation_speed"),
             ("navigationAvoidanceRadius", "collision_radius"),
             ("movementContactRadius", "contact_radius"), ("facing", "facing"),
             ("navigationRetryCooldownTicks", "retry_cooldown_ticks"),
             ("navigationRetryCooldownMs", "retry_cooldown_ms"),
             ("retryCooldownSequence", "retry_sequence"), ("alive", "alive"),
             ("enabled", "enabled"))
#: Saved flags and counters -> SimState fields.
_STATE_FIELDS = (("walkTarget", "walk_target"), ("requestedWalkTarget", "requested"),
                 ("movedLastTick", "moved"), ("navigating", "active"),
                 ("partialTarget", "partial"), ("shortPlan", "short"),
                 ("movementBlockedTicks", "blocked"),
                 ("retryCooldownCursor", "cur"), ("retryTicksLeft", "timer"),
                 ("replanPending", "need_plan"))


class SavedLocation(Protocol):
    """What :func:`location_dict` reads of a location."""

    @property
    def state(self) -> SimState: ...
    @property
    def map(self) -> SimMap: ...
    @property
    def tick_rate(self) -> float: ...
    @property
    def tick(self) -> int: ...
    @property
    def stats(self) -> SimStats: ...
    @property
    def pending_commands(self) -> list[Command]: ...
    @property
    def avoidance(self) -> str: ...
    def sync_map(self) -> None: ...


@dataclass
class CheckedScene:
    """A scene object checked against the schema, its commands parsed and its
    navigation map built (:func:`read_scene`)."""

    #: The checked top-level values (the keys present).
    values: dict[str, Any]
    commands: list[Command]
    navigation: Any
    map_path: Path | None

    @property
    def tick_rate(self) -> float:
        return float(self.values.get("tickRate", DEFAULT_TICK_RATE))


# ------------------------------------------------------------- reading
def _navigation(raw: Any, base: Path | None) -> tuple[Any, Path | None]:
    if isinstance(raw, dict):
        try:
            return NavLevel(parse_level(raw)), None
        except ConfigError as e:
            fld = "navigation" if e.field is None else f"navigation.{e.field}"
            raise ConfigError(e.reason, field=fld) from None
    p = Path(raw)
    if not p.is_absolute() and base is not None:
        p = base / p
    try:
        found = p.is_file()
    except OSError:  # a name the filesystem refuses (too long, ...)
        found = False
    if not found:
        raise ConfigError(f"map file {str(p)!r} not found", field="navigation")
    try:
        if p.suffix.lower() == ".json":
            return NavLevel(read_level(p)), p
        return load_grid(p), p
    except NavkitError:
        raise
    except (OSError, ValueError, RecursionError) as e:  # what the readers let through
        raise FormatError(f"cannot read the map: {_reason(e)}", path=p) from None


def _roster(obj: dict[str, Any]) -> dict[str, Any]:
    """The context references are checked in: every character's ID (``ids``)
    and the NPCs among them (``npcs``), read first, in file order."""
    ids: set[Any] = set()
    npcs: set[Any] = set()
    chars = obj.get("characters", [])
    for i, c in enumerate(chars if isinstance(chars, list) else []):
        pre = f"characters[{i}]"
        if not isinstance(c, dict):
            check(c, _CHARACTERS_ITEM, pre)  # raises: not an object
        head = check_fields({k: c[k] for k in _ROSTER if k in c}, _ROSTER, pre)
        cid = head["id"]
        if cid in ids:
            raise ConfigError(f"a character with ID {cid!r} already exists", field=f"{pre}.id")
        ids.add(cid)
        if head.get("kind", CharacterKind.NPC.value) == CharacterKind.NPC.value:
            npcs.add(cid)
    return {"ids": ids, "npcs": npcs, "tick": 0}


_CHARACTERS_ITEM = Rule("object", fields=CHARACTER)
_ROSTER = {k: CHARACTER[k] for k in ("id", "kind")}


def read_scene(obj: Any, base: Path | None) -> CheckedScene:
    """Check a decoded scene (or saved state) against the schema
    (:mod:`navkit.sim.schema`: every field, before anything is built), parse
    its commands and build its navigation map (``base``: the folder relative
    map paths start from). Unknown keys warn."""
    if not isinstance(obj, dict):
        raise ConfigError(f"a scene must be a JSON object, got {type(obj).__name__}")
    ctx = _roster(obj)
    values = check_fields(obj, SCENE, "", ctx)
    commands = [parse_command(raw, f"commands[{i}]", ctx["ids"], ctx["npcs"])
                for i, raw in enumerate(values.get("commands", []))]
    nav, map_path = _navigation(values["navigation"], base)
    return CheckedScene(values, commands, nav, map_path)


def populate(scene: CheckedScene, a: SimState, add_character: Callable[..., object],
             schedule: Callable[[Command], None]) -> tuple[int, SimStats | None]:
    """Fill a new location from ``scene`` (:func:`read_scene`).

    Adds the characters through ``add_character`` (keyword arguments of
    :meth:`~navkit.sim.Location.add_character`), restores their saved state
    into ``a``, and passes the commands to ``schedule`` (after checking them
    against the map's areas). Returns the scene's ``tick`` and its saved
    ``stats`` (None: none).
    """
    chars = scene.values.get("characters", [])
    a.default_policy = policy_from(scene.values.get("policy"), "policy")
    for i, c in enumerate(chars):
        sid, kwargs = character_entry(c)
        try:
            add_character(sid, **kwargs)
        except ConfigError as e:
            pre = f"characters[{i}]"
            raise ConfigError(e.reason, field=f"{pre}.{e.field}" if e.field else pre) from None
    for i, c in enumerate(chars):
        try:
            restore_character(a, c)
        except ConfigError as e:
            raise ConfigError(e.reason, field=f"characters[{i}].{e.field}") from None
    level = scene.navigation if isinstance(scene.navigation, NavLevel) else None
    for cmd in scene.commands:
        _check_map_command(cmd, level)
        schedule(cmd)
    stats = scene.values.get("stats")
    return scene.values.get("tick", 0), None if stats is None else SimStats.from_json_dict(stats)


def policy_from(value: Any, fld: str) -> SteeringPolicy | None:
    """A checked ``policy`` object as a :class:`~navkit.crowd.SteeringPolicy`
    (None: none); ConfigError naming ``fld`` and the key for what the schema
    leaves to the policy (``slowRadius`` > 0, ...)."""
    return None if value is None else SteeringPolicy.from_json(value, field=fld)


def character_entry(c: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """A checked character's stable ID and the keyword arguments of
    :meth:`~navkit.sim.Location.add_character` it gives."""
    kwargs: dict[str, Any] = {"position": c["position"]}
    for key, arg in _ADD_ARGS:
        if key in c:
            kwargs[arg] = c[key]
    return c["id"], kwargs


def restore_character(a: SimState, c: dict[str, Any]) -> None:
    """Write the saved-state keys of checked character ``c`` (already added,
    see :func:`character_entry`) into its row of ``a``."""
    s = a.slot_of(c["id"])

    def slot(v: Any) -> int:
        return -1 if v is None else a.slot_of(v)

    if "pathWaypoints" in c:
        pts = c["pathWaypoints"]
        a.ensure_waypoints(max(1, len(pts)))
        if pts:
            a.wp[s, : len(pts)] = np.array(pts, dtype=np.float64)
        a.wp_n[s] = len(pts)
    if "currentWaypointIndex" in c:
        a.wp_i[s] = c["currentWaypointIndex"]
    for key, name in _STATE_FIELDS:
        if key in c:
            getattr(a, name)[s] = c[key]
    if "retryBlocker" in c:
        a.rblocker[s] = slot(c["retryBlocker"])
    if "animation" in c:
        a.anim[s] = AnimationState[c["animation"]].value
    if "velocity" in c:
        a.vel[s] = c["velocity"]
    if "policy" in c:
        a.set_policy(s, policy_from(c["policy"], "policy"))
    if "wanderAngle" in c:
        a.wander[s] = c["wanderAngle"]
    f = c.get("follow")
    if f is not None:
        a.f_target[s] = slot(f["target"])
        a.f_range[s] = f.get("range", 0.0)
        a.f_talk[s] = f.get("talk", False)
        best = f.get("bestDistance")
        a.f_best[s] = math.inf if best is None else best
        a.f_stall[s] = f.get("stallTicks", 0)
        a.f_last_plan[s] = f.get("lastPlanTick", -1)
        a.f_goal[s] = f.get("goal", (0.0, 0.0))
        a.on_path[s] = f.get("onPath", False)


def _check_map_command(cmd: Command, level: NavLevel | None) -> None:
    """A map command against the map's areas (``level``: None for a static grid)."""
    act = cmd.action
    if act == "setAreaAvailable":
        if level is None:
            raise ConfigError("the navigation map is a static grid without areas",
                              field=f"{cmd.field}.setAreaAvailable")
        if cmd.args["name"] not in level.area_names:
            raise ConfigError(unknown_name_message("area", cmd.args["name"], level.area_names),
                              field=f"{cmd.field}.setAreaAvailable.name")
    if act in ("addObstacle", "removeObstacle") and level is None:
        raise ConfigError("the navigation map is a static grid without obstacles",
                          field=f"{cmd.field}.{act}")


def _reason(e: BaseException) -> str:
    if isinstance(e, RecursionError):
        return "nested too deeply"
    if isinstance(e, OSError):
        return e.strerror or type(e).__name__
    return str(e)


def file_path(path: Any) -> Path:
    """``path`` (a string or path-like) as a Path; ConfigError else."""
    if not isinstance(path, (str, os.PathLike)):
        raise ConfigError(f"expected a file path, got {type(path).__name__}", field="path")
    return Path(path)


def read_error(e: OSError | UnicodeDecodeError, path: Path) -> FormatError:
    """The FormatError for a file that could not be read (or decoded as UTF-8)."""
    if isinstance(e, UnicodeDecodeError):
        return FormatError(f"not UTF-8 text: {e.reason}", path=path)
    return FormatError(f"cannot read the file: {_reason(e)}", path=path)


def parse_json(text: str, path: Path, line: int | None = None) -> Any:
    """``text`` decoded as JSON; FormatError naming ``path`` (and the line:
    ``line`` for one line of a file, else where the error is) when it is not,
    is nested too deeply or holds an integer of thousands of digits."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(f"invalid JSON: {e.msg} (column {e.colno})", path=path,
                          line=e.lineno if line is None else line) from None
    except (ValueError, RecursionError) as e:
        raise FormatError(f"invalid JSON: {_reason(e)}", path=path, line=line) from None


def read_json(path: Any) -> Any:
    """The decoded JSON of a scene file; FormatError naming the file when it
    cannot be read or is not UTF-8 JSON."""
    p = file_path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise read_error(e, p) from None
    return parse_json(text, p)


# ------------------------------------------------------------- writing
def _pair(row: Any) -> list[float]:
    return [float(row[0]), float(row[1])]


def _ref(a: SimState, slot: int) -> Any:
    return None if slot < 0 else a.id_of(slot)


def character_dict(a: SimState, s: int, *, velocity: bool = False,
                   policy: bool = False) -> dict[str, Any]:
    """Slot ``s``'s full state as a scene character object (exact floats);
    ``velocity`` adds the last tick's velocity (read with avoidance on or
    steering policies), ``policy`` the steering policy (null: none) and, with
    one, the wander angle."""
    n = int(a.wp_n[s])
    follow: dict[str, Any] | None = None
    if a.f_target[s] >= 0:
        best = float(a.f_best[s])
        follow = {
            "target": _ref(a, int(a.f_target[s])),
            "range": float(a.f_range[s]),
            "talk": bool(a.f_talk[s]),
            "bestDistance": None if not math.isfinite(best) else best,
            "stallTicks": int(a.f_stall[s]),
            "lastPlanTick": int(a.f_last_plan[s]),
            "goal": _pair(a.f_goal[s]),
            "onPath": bool(a.on_path[s]),
        }
    out = {
        "id": a.id_of(s),
        "kind": CharacterKind.from_code(int(a.kind[s])).value,
        "position": _pair(a.pos[s]),
        "facing": float(a.facing[s]),
        "walkSpeed": float(a.speed[s]),
        "rotationSpeed": float(a.rot[s]),
        "navigationAvoidanceRadius": float(a.ra[s]),
        "movementContactRadius": float(a.rc[s]),
        "alive": bool(a.alive[s]),
        "enabled": bool(a.enabled[s]),
        "pathWaypoints": [[float(x), float(z)] for x, z in a.wp[s, :n]],
        "currentWaypointIndex": int(a.wp_i[s]),
        "walkTarget": _pair(a.walk_target[s]),
        "requestedWalkTarget": _pair(a.requested[s]),
        "navigating": bool(a.active[s]),
        "movedLastTick": bool(a.moved[s]),
        "movementBlockedTicks": int(a.blocked[s]),
        "animation": AnimationState(int(a.anim[s])).name,
        "retryCooldownSequence": [int(v) for v in a.seq[s]],
        "retryCooldownCursor": int(a.cur[s]),
        "retryTicksLeft": int(a.timer[s]),
        "retryBlocker": _ref(a, int(a.rblocker[s])),
        "replanPending": int(a.need_plan[s]),
        "partialTarget": bool(a.partial[s]),
        "shortPlan": bool(a.short[s]),
        "follow": follow,
    }
    if velocity:
        out["velocity"] = _pair(a.vel[s])
    own = a.policy_of(s)
    if policy or own is not None:
        out["policy"] = None if own is None else own.to_json()
    if own is not None:
        out["wanderAngle"] = float(a.wander[s])
    return out


def location_dict(loc: SavedLocation, *, base: Path | None = None,
                  sidecar: Path | None = None) -> dict[str, Any]:
    """``loc``'s full state as a scene object (JSON-ready, exact floats).

    ``base`` is the folder map paths are written relative to; ``sidecar`` the
    ``.npz`` file a grid without a file of its own is written to.
    """
    loc.sync_map()  # a map edited behind the location's back: mark the replans now
    a = loc.state
    velocity = loc.avoidance != "none" or a.steered()
    default = a.default_policy
    head: dict[str, Any] = {
        "format": FORMAT,
        "navigation": loc.map.to_json(base, sidecar),
    }
    if default is not None:
        head["policy"] = default.to_json()
    return {
        **head,
        "tickRate": loc.tick_rate,
        "tick": loc.tick,
        "characters": [character_dict(a, s, velocity=velocity, policy=default is not None)
                       for s in range(a.n)],
        "commands": [c.raw for c in loc.pending_commands],
        "stats": loc.stats.to_json_dict(),
    }


def save_location(loc: SavedLocation, path: str | Path) -> Path:
    """Write ``loc``'s state to ``path`` (folders created); returns the path.

    A grid map without a file of its own goes beside it as ``<stem>.grid.npz``.
    """
    p = Path(path)
    if not p.parent.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
    obj = location_dict(loc, base=p.parent, sidecar=p.parent / (p.stem + ".grid.npz"))
    p.write_text(json.dumps(obj, allow_nan=False, indent=1) + "\n", encoding="utf-8")
    return p
