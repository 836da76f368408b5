"""Location state <-> JSON objects: the pieces of the scene format.

The format itself is described in :mod:`navkit.sim.scene`. This module reads
and writes its parts without building a :class:`~navkit.sim.Location`
(which builds itself from them, :meth:`~navkit.sim.Location.from_scene`):
the top-level keys and the navigation map, one character's configuration
and saved state (read into and written from a
:class:`~navkit.sim.state.SimState` row), the commands, the stats, and the
JSON files.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..errors import ConfigError, FormatError
from ..formats import load_grid
from ..level import NavkitWarning, NavLevel, parse_level, read_level
from .commands import Command, check_id, parse_command
from .constants import DEFAULT_TICK_RATE
from .events import SimStats
from .kinds import AnimationState, CharacterKind
from .planner import MapView
from .state import SimState

__all__ = [
    "SCENE_KEYS", "CHARACTER_KEYS", "FOLLOW_KEYS", "FORMAT", "SavedLocation",
    "parse_header", "populate", "character_entry", "restore_character", "character_dict",
    "location_dict", "read_json", "save_location",
]

SCENE_KEYS = ("navigation", "tickRate", "tick", "characters", "commands", "stats", "format")
_SCENE_CHAR_KEYS = (
    "id", "kind", "position", "walkSpeed", "rotationSpeed", "navigationAvoidanceRadius",
    "movementContactRadius", "navigationRetryCooldownTicks", "navigationRetryCooldownMs", "alive",
    "enabled", "facing",
)
_STATE_CHAR_KEYS = (
    "pathWaypoints", "currentWaypointIndex", "walkTarget", "requestedWalkTarget", "movedLastTick",
    "movementBlockedTicks", "retryCooldownSequence", "retryCooldownCursor", "retryTicksLeft",
    "retryBlocker", "animation", "navigating", "replanPending", "partialTarget", "follow",
)
CHARACTER_KEYS = _SCENE_CHAR_KEYS + _STATE_CHAR_KEYS
FOLLOW_KEYS = ("target", "range", "talk", "bestDistance", "stallTicks", "lastPlanTick", "goal",
               "onPath")
FORMAT = "navkit-scene/1"

_NUMBER_ARGS = (("walkSpeed", "walk_speed"), ("rotationSpeed", "rotation_speed"),
                ("navigationAvoidanceRadius", "collision_radius"),
                ("movementContactRadius", "contact_radius"), ("facing", "facing"))
_SEQUENCE_ARGS = (("navigationRetryCooldownTicks", "retry_cooldown_ticks"),
                  ("navigationRetryCooldownMs", "retry_cooldown_ms"),
                  ("retryCooldownSequence", "retry_sequence"))


class SavedLocation(Protocol):
    """What :func:`location_dict` reads of a location."""

    @property
    def state(self) -> SimState: ...
    @property
    def map(self) -> MapView: ...
    @property
    def tick_rate(self) -> float: ...
    @property
    def tick(self) -> int: ...
    @property
    def stats(self) -> SimStats: ...
    @property
    def pending_commands(self) -> list[Command]: ...
    def sync_map(self) -> None: ...


# ---------------------------------------------------------------- values
def _warn_unknown(obj: dict[str, Any], known: tuple[str, ...], prefix: str) -> None:
    for k in obj:
        if k not in known:
            path = f"{prefix}.{k}" if prefix else str(k)
            warnings.warn(NavkitWarning(f"{path}: unknown key {k!r} ignored", field=path),
                          stacklevel=5)


def _num(v: Any, fld: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        raise ConfigError(f"expected a finite number, got {v!r}", field=fld)
    return float(v)


def _int(v: Any, fld: str, lo: int = 0) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)) \
            or float(v) != math.floor(float(v)) or v < lo:
        raise ConfigError(f"expected an integer >= {lo}, got {v!r}", field=fld)
    return int(v)


def _bool(v: Any, fld: str) -> bool:
    if not isinstance(v, bool):
        raise ConfigError(f"expected true or false, got {v!r}", field=fld)
    return v


def _pt(v: Any, fld: str) -> tuple[float, float]:
    if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)) or len(v) != 2:
        raise ConfigError(f"expected a point [x, z], got {v!r}", field=fld)
    return (_num(v[0], f"{fld}[0]"), _num(v[1], f"{fld}[1]"))


# ------------------------------------------------------------- reading
def _navigation(raw: Any, base: Path | None) -> tuple[Any, Path | None]:
    if isinstance(raw, dict):
        try:
            return NavLevel(parse_level(raw)), None
        except ConfigError as e:
            fld = "navigation" if e.field is None else f"navigation.{e.field}"
            raise ConfigError(e.reason, field=fld) from None
    if isinstance(raw, str) and raw:
        p = Path(raw)
        if not p.is_absolute() and base is not None:
            p = base / p
        if not p.is_file():
            raise ConfigError(f"map file {str(p)!r} not found", field="navigation")
        if p.suffix.lower() == ".json":
            return NavLevel(read_level(p)), p
        return load_grid(p), p
    raise ConfigError("expected an inline level config or a map file path, "
                      f"got {type(raw).__name__}", field="navigation")


def parse_header(obj: Any, base: Path | None) -> tuple[Any, float, Path | None]:
    """A scene object's navigation map, tick rate and map file: ``(navigation,
    tick_rate, map_path)``; warns of unknown top-level keys."""
    if not isinstance(obj, dict):
        raise ConfigError(f"a scene must be a JSON object, got {type(obj).__name__}")
    _warn_unknown(obj, SCENE_KEYS, "")
    if "navigation" not in obj:
        raise ConfigError("missing", field="navigation")
    nav, map_path = _navigation(obj["navigation"], base)
    rate = obj.get("tickRate", DEFAULT_TICK_RATE)
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not math.isfinite(rate) \
            or rate <= 0:
        raise ConfigError(f"expected a number > 0 (Hz), got {rate!r}", field="tickRate")
    return nav, float(rate), map_path


def populate(obj: dict[str, Any], navigation: Any, a: SimState,
             add_character: Callable[..., object],
             schedule: Callable[[Command], None]) -> tuple[int, SimStats | None]:
    """Fill a new location from scene object ``obj`` (after :func:`parse_header`).

    Adds the characters through ``add_character`` (keyword arguments of
    :meth:`~navkit.sim.Location.add_character`), restores their saved state
    into ``a``, and passes the checked commands to ``schedule``. Returns the
    scene's ``tick`` and its saved ``stats`` (None: none).
    """
    tick = _int(obj.get("tick", 0), "tick")
    chars = obj.get("characters", [])
    if not isinstance(chars, list):
        raise ConfigError(f"expected a list, got {type(chars).__name__}", field="characters")
    for i, c in enumerate(chars):
        sid, kwargs = character_entry(c, i)
        try:
            add_character(sid, **kwargs)
        except ConfigError as e:
            pre = f"characters[{i}]"
            raise ConfigError(e.reason, field=f"{pre}.{e.field}" if e.field else pre) from None
    for i, c in enumerate(chars):
        restore_character(a, c, f"characters[{i}]")
    level = navigation if isinstance(navigation, NavLevel) else None
    for cmd in _scene_commands(obj, a, level):
        schedule(cmd)
    stats = None
    if "stats" in obj and isinstance(obj["stats"], dict):
        stats = SimStats.from_json_dict(obj["stats"])
    return tick, stats


def character_entry(c: Any, i: int) -> tuple[Any, dict[str, Any]]:
    """Character ``i``'s stable ID and the keyword arguments of
    :meth:`~navkit.sim.Location.add_character` it gives."""
    pre = f"characters[{i}]"
    if not isinstance(c, dict):
        raise ConfigError(f"expected a JSON object, got {type(c).__name__}", field=pre)
    _warn_unknown(c, CHARACTER_KEYS, pre)
    for key in ("id", "position"):
        if key not in c:
            raise ConfigError("missing", field=f"{pre}.{key}")
    cid = check_id(c["id"], f"{pre}.id")
    kind = c.get("kind", "npc")
    if kind not in ("player", "bot", "npc"):
        raise ConfigError(f"expected player, bot or npc, got {kind!r}", field=f"{pre}.kind")
    kwargs: dict[str, Any] = {"kind": kind, "position": _pt(c["position"], f"{pre}.position")}
    for key, arg in _NUMBER_ARGS:
        if key in c:
            kwargs[arg] = _num(c[key], f"{pre}.{key}")
    for key, arg in _SEQUENCE_ARGS:
        if key in c:
            kwargs[arg] = c[key]
    for key in ("alive", "enabled"):
        if key in c:
            kwargs[key] = _bool(c[key], f"{pre}.{key}")
    return cid, kwargs


def restore_character(a: SimState, c: dict[str, Any], pre: str) -> None:
    """Write the saved-state keys of character object ``c`` (already added,
    see :func:`character_entry`) into its row of ``a``."""
    s = a.slot_of(c["id"])

    def slot_ref(v: Any, fld: str) -> int:
        if v is None:
            return -1
        if v not in a:
            raise ConfigError(f"no character with ID {v!r}", field=fld)
        return a.slot_of(v)

    if "pathWaypoints" in c:
        wps = c["pathWaypoints"]
        if not isinstance(wps, list):
            raise ConfigError("expected a list of points", field=f"{pre}.pathWaypoints")
        pts = [_pt(p, f"{pre}.pathWaypoints[{j}]") for j, p in enumerate(wps)]
        a.ensure_waypoints(max(1, len(pts)))
        if pts:
            a.wp[s, : len(pts)] = np.array(pts, dtype=np.float64)
        a.wp_n[s] = len(pts)
        idx = _int(c.get("currentWaypointIndex", 0), f"{pre}.currentWaypointIndex")
        if idx > len(pts):
            raise ConfigError(f"index {idx} is past the {len(pts)} waypoints",
                              field=f"{pre}.currentWaypointIndex")
        a.wp_i[s] = idx
    if "walkTarget" in c:
        a.walk_target[s] = _pt(c["walkTarget"], f"{pre}.walkTarget")
    if "requestedWalkTarget" in c:
        a.requested[s] = _pt(c["requestedWalkTarget"], f"{pre}.requestedWalkTarget")
    if "movedLastTick" in c:
        a.moved[s] = 1 if _bool(c["movedLastTick"], f"{pre}.movedLastTick") else 0
    if "navigating" in c:
        a.active[s] = 1 if _bool(c["navigating"], f"{pre}.navigating") else 0
    if "partialTarget" in c:
        a.partial[s] = 1 if _bool(c["partialTarget"], f"{pre}.partialTarget") else 0
    if "movementBlockedTicks" in c:
        a.blocked[s] = _int(c["movementBlockedTicks"], f"{pre}.movementBlockedTicks")
    if "retryCooldownCursor" in c:
        cur = _int(c["retryCooldownCursor"], f"{pre}.retryCooldownCursor")
        if cur >= a.seq.shape[1]:
            raise ConfigError(f"expected an index below {a.seq.shape[1]}, got {cur}",
                              field=f"{pre}.retryCooldownCursor")
        a.cur[s] = cur
    if "retryTicksLeft" in c:
        a.timer[s] = _int(c["retryTicksLeft"], f"{pre}.retryTicksLeft")
    if "retryBlocker" in c:
        a.rblocker[s] = slot_ref(c["retryBlocker"], f"{pre}.retryBlocker")
    if "replanPending" in c:
        a.need_plan[s] = _int(c["replanPending"], f"{pre}.replanPending")
    if "animation" in c:
        try:
            a.anim[s] = AnimationState[c["animation"]].value
        except (KeyError, TypeError):
            raise ConfigError(f"expected STAND or WALK, got {c['animation']!r}",
                              field=f"{pre}.animation") from None
    f = c.get("follow")
    if f is not None:
        fp = f"{pre}.follow"
        if not isinstance(f, dict):
            raise ConfigError("expected a JSON object or null", field=fp)
        _warn_unknown(f, FOLLOW_KEYS, fp)
        if "target" not in f:
            raise ConfigError("missing", field=f"{fp}.target")
        a.f_target[s] = slot_ref(f["target"], f"{fp}.target")
        a.f_range[s] = _num(f.get("range", 0.0), f"{fp}.range")
        a.f_talk[s] = 1 if _bool(f.get("talk", False), f"{fp}.talk") else 0
        best = f.get("bestDistance")
        a.f_best[s] = math.inf if best is None else _num(best, f"{fp}.bestDistance")
        a.f_stall[s] = _int(f.get("stallTicks", 0), f"{fp}.stallTicks")
        a.f_last_plan[s] = _int(f.get("lastPlanTick", -1), f"{fp}.lastPlanTick", lo=-1)
        a.f_goal[s] = _pt(f.get("goal", [0.0, 0.0]), f"{fp}.goal")
        a.on_path[s] = 1 if _bool(f.get("onPath", False), f"{fp}.onPath") else 0


def _scene_commands(obj: dict[str, Any], a: SimState, level: NavLevel | None) -> Iterator[Command]:
    """The scene's commands, checked against the characters of ``a`` and the
    map's areas (``level``: None for a static grid), one at a time."""
    cmds = obj.get("commands", [])
    if not isinstance(cmds, list):
        raise ConfigError(f"expected a list, got {type(cmds).__name__}", field="commands")
    known = set(a.ids)
    for i, raw in enumerate(cmds):
        cmd = parse_command(raw, f"commands[{i}]", known)
        act = cmd.action
        if act == "setAreaAvailable":
            if level is None:
                raise ConfigError("the navigation map is a static grid without areas",
                                  field=f"{cmd.field}.setAreaAvailable")
            if cmd.args["name"] not in level.area_names:
                raise ConfigError(f"no area called {cmd.args['name']!r}",
                                  field=f"{cmd.field}.setAreaAvailable.name")
        if act in ("addObstacle", "removeObstacle") and level is None:
            raise ConfigError("the navigation map is a static grid without obstacles",
                              field=f"{cmd.field}.{act}")
        if act == "talkTo" and a.kind[a.slot_of(cmd.args["target"])] != CharacterKind.NPC.code:
            raise ConfigError(f"{cmd.args['target']!r} is not an NPC", field=f"{cmd.field}.talkTo")
        yield cmd


def read_json(path: Path) -> Any:
    """The decoded JSON of a scene file (FormatError when it is not UTF-8 JSON)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise FormatError(f"not UTF-8 text: {e.reason}", path=path) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(f"invalid JSON: {e.msg} (column {e.colno})", path=path,
                          line=e.lineno) from None


# ------------------------------------------------------------- writing
def _pair(row: Any) -> list[float]:
    return [float(row[0]), float(row[1])]


def _ref(a: SimState, slot: int) -> Any:
    return None if slot < 0 else a.id_of(slot)


def character_dict(a: SimState, s: int) -> dict[str, Any]:
    """Slot ``s``'s full state as a scene character object (exact floats)."""
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
    return {
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
        "follow": follow,
    }


def location_dict(loc: SavedLocation, *, base: Path | None = None,
                  sidecar: Path | None = None) -> dict[str, Any]:
    """``loc``'s full state as a scene object (JSON-ready, exact floats).

    ``base`` is the folder map paths are written relative to; ``sidecar`` the
    ``.npz`` file a grid without a file of its own is written to.
    """
    loc.sync_map()  # a map edited behind the location's back: mark the replans now
    a = loc.state
    return {
        "format": FORMAT,
        "navigation": loc.map.to_json(base, sidecar),
        "tickRate": loc.tick_rate,
        "tick": loc.tick,
        "characters": [character_dict(a, s) for s in range(a.n)],
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
