"""Scene JSON: load a :class:`~navkit.sim.Location` from a file, save its state back.

A scene is a JSON object::

    {
      "navigation": "../levels/interior.json",     // or an inline level config
      "tickRate": 20,
      "characters": [
        {"id": "npc_1", "kind": "npc", "position": [3.0, 9.5],
         "walkSpeed": 1.4, "rotationSpeed": 6.0,
         "navigationAvoidanceRadius": 0.45, "movementContactRadius": 0.32,
         "navigationRetryCooldownMs": [200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100],
         "alive": true, "enabled": true}
      ],
      "commands": [{"tick": 0, "character": "npc_1", "moveTo": [25.0, 15.0]}]
    }

``navigation`` is either an inline polygon level config (see
:mod:`navkit.level`) or the path of any map :func:`navkit.load_grid` reads,
relative to the scene file (a ``.json`` path is read as a level, so its areas
can open and close). ``tickRate`` defaults to 20 Hz. ``id`` is a non-empty
string or an integer >= 0; ``kind`` is ``player``, ``bot`` or ``npc``;
``walkSpeed`` (m/s) and ``rotationSpeed`` (rad/s) default to 1.5 and 2 pi.
Commands: see :mod:`navkit.sim.commands`.

A **saved state** is a scene with ``tick`` and every character's full state
(the seed 000 §7-§9 fields, camelCase): ``facing``, ``pathWaypoints``,
``currentWaypointIndex``, ``walkTarget``, ``requestedWalkTarget``,
``movedLastTick``, ``movementBlockedTicks``, ``retryCooldownSequence`` (the
shuffled ticks), ``retryCooldownCursor``, ``retryTicksLeft``, ``retryBlocker``,
``animation``, ``navigating``, ``replanPending``, ``partialTarget`` and
``follow``; plus the pending ``commands`` (every listed command runs; one
whose tick has passed runs at the next tick), the ``stats`` so far, and the
navigation map as it is now (an inline level with doors and added obstacles
as they stand). Loading a state continues exactly where it stopped: the next
ticks are bit-identical to the run that never stopped. Callbacks (Python
objects) are not saved.

Errors name the field: ``characters[3].walkSpeed: expected a finite number > 0, got -1``.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, FormatError, NavkitError
from ..formats import load_grid
from ..level import NavkitWarning, NavLevel, parse_level, read_level
from .character import AnimationState, CharacterKind, SimStats
from .commands import check_id, parse_command
from .constants import DEFAULT_TICK_RATE
from .location import Location

__all__ = ["load_scene", "parse_scene", "save_scene", "location_to_scene", "SCENE_KEYS", "CHARACTER_KEYS"]

SCENE_KEYS = ("navigation", "tickRate", "tick", "characters", "commands", "stats", "format")
_SCENE_CHAR_KEYS = (
    "id", "kind", "position", "walkSpeed", "rotationSpeed", "navigationAvoidanceRadius",
    "movementContactRadius", "navigationRetryCooldownTicks", "navigationRetryCooldownMs", "alive", "enabled",
    "facing",
)
_STATE_CHAR_KEYS = (
    "pathWaypoints", "currentWaypointIndex", "walkTarget", "requestedWalkTarget", "movedLastTick",
    "movementBlockedTicks", "retryCooldownSequence", "retryCooldownCursor", "retryTicksLeft", "retryBlocker",
    "animation", "navigating", "replanPending", "partialTarget", "follow",
)
CHARACTER_KEYS = _SCENE_CHAR_KEYS + _STATE_CHAR_KEYS
_FOLLOW_KEYS = ("target", "range", "talk", "bestDistance", "stallTicks", "lastPlanTick", "goal", "onPath")
FORMAT = "navkit-scene/1"


def _warn_unknown(obj: dict[str, Any], known: tuple[str, ...], prefix: str) -> None:
    for k in obj:
        if k not in known:
            path = f"{prefix}.{k}" if prefix else str(k)
            warnings.warn(NavkitWarning(f"{path}: unknown key {k!r} ignored", field=path), stacklevel=4)


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
    raise ConfigError(f"expected an inline level config or a map file path, got {type(raw).__name__}",
                      field="navigation")


def parse_scene(obj: Any, *, base: str | Path | None = None) -> Location:
    """Build a :class:`Location` from a decoded scene (or saved state) object.

    ``base`` is the folder relative map paths start from.
    """
    if not isinstance(obj, dict):
        raise ConfigError(f"a scene must be a JSON object, got {type(obj).__name__}")
    _warn_unknown(obj, SCENE_KEYS, "")
    if "navigation" not in obj:
        raise ConfigError("missing", field="navigation")
    nav, map_path = _navigation(obj["navigation"], None if base is None else Path(base))
    rate = obj.get("tickRate", DEFAULT_TICK_RATE)
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not math.isfinite(rate) or rate <= 0:
        raise ConfigError(f"expected a number > 0 (Hz), got {rate!r}", field="tickRate")
    loc = Location(nav, tick_rate=float(rate), map_path=map_path)
    tick = _int(obj.get("tick", 0), "tick")
    chars = obj.get("characters", [])
    if not isinstance(chars, list):
        raise ConfigError(f"expected a list, got {type(chars).__name__}", field="characters")
    states: list[tuple[int, dict[str, Any]]] = []
    for i, c in enumerate(chars):
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
        for key, arg in (("walkSpeed", "walk_speed"), ("rotationSpeed", "rotation_speed"),
                         ("navigationAvoidanceRadius", "collision_radius"),
                         ("movementContactRadius", "contact_radius"), ("facing", "facing")):
            if key in c:
                kwargs[arg] = _num(c[key], f"{pre}.{key}")
        for key, arg in (("navigationRetryCooldownTicks", "retry_cooldown_ticks"),
                         ("navigationRetryCooldownMs", "retry_cooldown_ms"),
                         ("retryCooldownSequence", "retry_sequence")):
            if key in c:
                kwargs[arg] = c[key]
        for key in ("alive", "enabled"):
            if key in c:
                kwargs[key] = _bool(c[key], f"{pre}.{key}")
        try:
            loc.add_character(cid, **kwargs)
        except ConfigError as e:
            if e.field == "id":
                raise ConfigError(e.reason, field=f"{pre}.id") from None
            raise ConfigError(e.reason, field=f"{pre}.{e.field}" if e.field else pre) from None
        states.append((i, c))
    for i, c in states:
        _restore_state(loc, c, f"characters[{i}]")
    loc.tick = tick
    cmds = obj.get("commands", [])
    if not isinstance(cmds, list):
        raise ConfigError(f"expected a list, got {type(cmds).__name__}", field="commands")
    known = set(loc.ids)
    level = nav if isinstance(nav, NavLevel) else None
    for i, raw in enumerate(cmds):
        cmd = parse_command(raw, f"commands[{i}]", known)
        if cmd.action == "setAreaAvailable":
            if level is None:
                raise ConfigError("the navigation map is a static grid without areas", field=f"{cmd.field}.setAreaAvailable")
            if cmd.args["name"] not in level.area_names:
                raise ConfigError(f"no area called {cmd.args['name']!r}", field=f"{cmd.field}.setAreaAvailable.name")
        if cmd.action in ("addObstacle", "removeObstacle") and level is None:
            raise ConfigError("the navigation map is a static grid without obstacles", field=f"{cmd.field}.{cmd.action}")
        if cmd.action == "talkTo" and loc.character(cmd.args["target"]).kind != CharacterKind.NPC:
            raise ConfigError(f"{cmd.args['target']!r} is not an NPC", field=f"{cmd.field}.talkTo")
        loc.schedule(cmd)
    if "stats" in obj and isinstance(obj["stats"], dict):
        loc.stats = SimStats.from_json_dict(obj["stats"])
    return loc


def _restore_state(loc: Location, c: dict[str, Any], pre: str) -> None:
    a = loc._a
    s = loc._slot_of(c["id"])

    def slot_ref(v: Any, fld: str) -> int:
        if v is None:
            return -1
        if v not in loc:
            raise ConfigError(f"no character with ID {v!r}", field=fld)
        return loc._slot_of(v)

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
            raise ConfigError(f"index {idx} is past the {len(pts)} waypoints", field=f"{pre}.currentWaypointIndex")
        a.wp_i[s] = idx
    for key, fld in (("walkTarget", "walk_target"), ("requestedWalkTarget", "requested")):
        if key in c:
            getattr(a, fld)[s] = _pt(c[key], f"{pre}.{key}")
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
            raise ConfigError(f"expected an index below {a.seq.shape[1]}, got {cur}", field=f"{pre}.retryCooldownCursor")
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
            raise ConfigError(f"expected STAND or WALK, got {c['animation']!r}", field=f"{pre}.animation") from None
    f = c.get("follow")
    if f is not None:
        fp = f"{pre}.follow"
        if not isinstance(f, dict):
            raise ConfigError("expected a JSON object or null", field=fp)
        _warn_unknown(f, _FOLLOW_KEYS, fp)
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


def load_scene(path: str | Path) -> Location:
    """Read a scene or saved state file.

    Raises :class:`~navkit.errors.FormatError` on malformed JSON and
    :class:`~navkit.errors.ConfigError` (file and field) on invalid content.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise FormatError(f"not UTF-8 text: {e.reason}", path=p) from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(f"invalid JSON: {e.msg} (column {e.colno})", path=p, line=e.lineno) from None
    try:
        return parse_scene(obj, base=p.parent)
    except ConfigError as e:
        if e.path is None:
            raise ConfigError(e.reason, field=e.field, path=p) from None
        raise
    except NavkitError:
        raise


def _ref(loc: Location, slot: int) -> Any:
    return None if slot < 0 else loc._ids[slot]


def _f(v: Any) -> float:
    return float(v)


def location_to_scene(loc: Location, *, base: Path | None = None, sidecar: Path | None = None) -> dict[str, Any]:
    """The location's full state as a scene object (JSON-ready, exact floats).

    ``base`` is the folder map paths are written relative to; ``sidecar`` the
    ``.npz`` file a grid without a file of its own is written to.
    """
    loc._check_map()  # a map edited behind the location's back: mark the replans now
    a = loc._a
    chars = []
    for s, cid in enumerate(loc._ids):
        n = int(a.wp_n[s])
        follow: dict[str, Any] | None = None
        if a.f_target[s] >= 0:
            best = float(a.f_best[s])
            follow = {
                "target": _ref(loc, int(a.f_target[s])),
                "range": _f(a.f_range[s]),
                "talk": bool(a.f_talk[s]),
                "bestDistance": None if not math.isfinite(best) else best,
                "stallTicks": int(a.f_stall[s]),
                "lastPlanTick": int(a.f_last_plan[s]),
                "goal": [_f(a.f_goal[s, 0]), _f(a.f_goal[s, 1])],
                "onPath": bool(a.on_path[s]),
            }
        chars.append({
            "id": cid,
            "kind": CharacterKind.from_code(int(a.kind[s])).value,
            "position": [_f(a.pos[s, 0]), _f(a.pos[s, 1])],
            "facing": _f(a.facing[s]),
            "walkSpeed": _f(a.speed[s]),
            "rotationSpeed": _f(a.rot[s]),
            "navigationAvoidanceRadius": _f(a.ra[s]),
            "movementContactRadius": _f(a.rc[s]),
            "alive": bool(a.alive[s]),
            "enabled": bool(a.enabled[s]),
            "pathWaypoints": [[_f(x), _f(z)] for x, z in a.wp[s, :n]],
            "currentWaypointIndex": int(a.wp_i[s]),
            "walkTarget": [_f(a.walk_target[s, 0]), _f(a.walk_target[s, 1])],
            "requestedWalkTarget": [_f(a.requested[s, 0]), _f(a.requested[s, 1])],
            "navigating": bool(a.active[s]),
            "movedLastTick": bool(a.moved[s]),
            "movementBlockedTicks": int(a.blocked[s]),
            "animation": AnimationState(int(a.anim[s])).name,
            "retryCooldownSequence": [int(v) for v in a.seq[s]],
            "retryCooldownCursor": int(a.cur[s]),
            "retryTicksLeft": int(a.timer[s]),
            "retryBlocker": _ref(loc, int(a.rblocker[s])),
            "replanPending": int(a.need_plan[s]),
            "partialTarget": bool(a.partial[s]),
            "follow": follow,
        })
    return {
        "format": FORMAT,
        "navigation": loc.map.to_json(base, sidecar),
        "tickRate": loc.tick_rate,
        "tick": loc.tick,
        "characters": chars,
        "commands": [c.raw for c in loc.pending_commands],
        "stats": loc.stats.to_json_dict(),
    }


def save_scene(loc: Location, path: str | Path) -> Path:
    """Write ``loc``'s state to ``path`` (folders created); returns the path.

    A grid map without a file of its own goes beside it as
    ``<stem>.grid.npz``.
    """
    p = Path(path)
    if not p.parent.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
    obj = location_to_scene(loc, base=p.parent, sidecar=p.parent / (p.stem + ".grid.npz"))
    p.write_text(json.dumps(obj, allow_nan=False, indent=1) + "\n", encoding="utf-8")
    return p
