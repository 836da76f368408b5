"""The declared schema of scene files, saved states and commands, and its checker.

Every field is declared once, in the tables below, by a :class:`Rule`: its
type, its range, whether it may be null, what it refers to. The scene and
state loader (:mod:`navkit.sim.snapshot`), the command parser
(:mod:`navkit.sim.commands`) and the Python API (``Location``,
``add_character``, the ``Character`` setters) all check values with
:func:`check` / :func:`check_field` against these rules, so a file and a call
accept the same values. A bad value raises
:class:`~navkit.errors.ConfigError` naming the field path, e.g.
``characters[3].follow.stallTicks``; an unknown key warns
(:class:`~navkit.level.NavkitWarning`) in scenes and is an error in commands.

The ranges keep every value inside what the kernels hold: world coordinates
within ``+-MAX_COORD`` (:data:`navkit._kernels.geometry.MAX_COORD`), tick
counters within int32, ticks within :data:`MAX_TICK`, and the saved
per-character counters within the values a run can produce
(``movementBlockedTicks < BLOCKED_REPLAN_TICKS``,
``follow.stallTicks < ApproachGiveUpTicks``, ``follow.lastPlanTick < tick``).

>>> check(2 ** 31, CHARACTER["retryTicksLeft"], "characters[0].retryTicksLeft")
Traceback (most recent call last):
...
navkit.errors.ConfigError: characters[0].retryTicksLeft: expected an integer in [0, 2147483647], \
got 2147483648
"""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .._kernels.geometry import MAX_COORD
from ..casing import to_camel
from ..crowd.policy import POLICY_BEHAVIOURS
from ..crowd.steering import SteeringParams
from ..errors import ConfigError
from ..level import NavkitWarning
from .constants import (
    APPROACH_GIVE_UP_TICKS,
    AVOIDANCE_MODES,
    BLOCKED_REPLAN_TICKS,
    RETRY_SEQUENCE_LENGTH,
)
from .kinds import AnimationState, CharacterKind
from .state import NEED_FOLLOW, NEED_FORCED

__all__ = [
    "Rule", "Ref", "check", "check_fields", "check_field", "check_id",
    "SCENE", "CHARACTER", "FOLLOW", "POLICY", "STATS", "COMMANDS", "FORMAT",
    "MAX_COORD", "MAX_LENGTH", "MAX_INT32", "MAX_TICK", "MAX_COUNT", "MAX_ID",
    "MIN_TICK_RATE", "MAX_TICK_RATE", "MAX_FACING",
]

#: The ``format`` a saved state declares.
FORMAT = "navkit-scene/1"
#: Radii, ranges and speeds (m, m/s): at most half of MAX_COORD, so a radius
#: plus the map's agent radius stays a valid obstacle circle.
MAX_LENGTH = MAX_COORD / 2
#: Tick counters and cooldowns live in int32 arrays.
MAX_INT32 = 2 ** 31 - 1
#: Ticks and counts: the largest integer every JSON reader keeps exact.
MAX_TICK = 2 ** 53
MAX_COUNT = 2 ** 53
#: Integer stable IDs fit 64 bits (unsigned).
MAX_ID = 2 ** 64 - 1
#: Tick rates (Hz): ``1 / tickRate`` and ``RepathDelay * tickRate`` stay finite.
MIN_TICK_RATE = 1e-3
MAX_TICK_RATE = 1e6
#: A configured ``facing`` (radians) lies within one turn either way.
MAX_FACING = 2.0 * math.pi
_FLOAT_MAX = int(sys.float_info.max)


@dataclass(frozen=True)
class Ref:
    """A bound read from another field: a sibling checked before this one, or
    else the context (a list gives its length); ``default`` when neither has it."""

    name: str
    offset: int = 0
    default: int | None = None


Bound = float | Ref | None


@dataclass(frozen=True)
class Rule:
    """One field of the schema.

    ``type`` is one of ``number`` (finite), ``integer``, ``bool``, ``text``
    (non-empty string), ``choice`` (one of ``choices``), ``id`` (a stable ID:
    non-empty string or integer in [0, MAX_ID]), ``ref`` (the ID of a
    character in the context's ``ids``; never the one named by the
    ``other_than`` field; an NPC when ``npc`` is True or names a sibling that
    is true), ``point`` (``[x, z]``, coordinates in [lo, hi]), ``list`` (of
    ``item``, ``size`` or at least ``min_size`` long), ``object`` (with
    ``fields``; unknown keys ``warn`` or ``error``) or ``level`` (an inline
    level config object or a map file path). Numbers and integers lie in
    [lo, hi] (``(lo, hi]`` with ``open_lo``).
    """

    type: str
    lo: Bound = None
    hi: Bound = None
    open_lo: bool = False
    null: bool = False
    required: bool = False
    choices: tuple[Any, ...] = ()
    item: Rule | None = None
    size: int | None = None
    min_size: int = 0
    fields: Mapping[str, Rule] | None = None
    unknown: str = "warn"
    other_than: str | None = None
    npc: bool | str = False


# ------------------------------------------------------------------ the tables
POINT = Rule("point", lo=-MAX_COORD, hi=MAX_COORD)
FLAG = Rule("bool")
LENGTH = Rule("number", lo=0.0, hi=MAX_LENGTH)
POSITIVE = Rule("number", lo=0.0, open_lo=True, hi=MAX_LENGTH)
TICKS = Rule("integer", lo=0, hi=MAX_INT32)
COUNT = Rule("integer", lo=0, hi=MAX_COUNT)
_COOLDOWNS = Rule("list", size=RETRY_SEQUENCE_LENGTH, item=Rule("number", hi=MAX_INT32))

#: A follow or walk-to-NPC order (``characters[i].follow``).
FOLLOW: dict[str, Rule] = {
    "talk": FLAG,
    "target": Rule("ref", required=True, other_than="id", npc="talk"),
    "range": LENGTH,
    "bestDistance": Rule("number", lo=0.0, null=True),
    "stallTicks": Rule("integer", lo=0, hi=APPROACH_GIVE_UP_TICKS - 1),
    "lastPlanTick": Rule("integer", lo=-1, hi=Ref("tick", -1)),
    "goal": POINT,
    "onPath": FLAG,
}

#: A steering policy (``policy``, ``characters[i].policy``; docs/simulation.md
#: "Steering policies"): behaviour weights, parameters (camelCase
#: ``SteeringParams`` fields) and ``maxForce``; :class:`~navkit.crowd.SteeringPolicy`
#: checks the rest (``slowRadius`` > 0, ...).
POLICY: dict[str, Rule] = {
    "weights": Rule("object", unknown="error", fields={
        b: Rule("number", lo=0.0, hi=1e6) for b in POLICY_BEHAVIOURS}),
    "params": Rule("object", unknown="error", fields={
        to_camel(f.name): Rule("number", lo=0.0, hi=1e9) for f in fields(SteeringParams)}),
    "maxForce": Rule("number", lo=0.0, open_lo=True, hi=1e9),
}

#: One character: its configuration (a scene) and its saved state (docs/rules.md §12.5).
CHARACTER: dict[str, Rule] = {
    "id": Rule("id", required=True),
    "kind": Rule("choice", choices=tuple(k.value for k in CharacterKind)),
    "position": Rule("point", lo=-MAX_COORD, hi=MAX_COORD, required=True),
    "facing": Rule("number", lo=-MAX_FACING, hi=MAX_FACING),
    "walkSpeed": POSITIVE,
    "rotationSpeed": POSITIVE,
    "navigationAvoidanceRadius": LENGTH,
    "movementContactRadius": POSITIVE,
    "navigationRetryCooldownTicks": _COOLDOWNS,
    "navigationRetryCooldownMs": _COOLDOWNS,
    "alive": FLAG,
    "enabled": FLAG,
    "pathWaypoints": Rule("list", item=POINT),
    "currentWaypointIndex": Rule("integer", lo=0, hi=Ref("pathWaypoints", default=0)),
    "walkTarget": POINT,
    "requestedWalkTarget": POINT,
    "navigating": FLAG,
    "movedLastTick": FLAG,
    "movementBlockedTicks": Rule("integer", lo=0, hi=BLOCKED_REPLAN_TICKS - 1),
    "animation": Rule("choice", choices=tuple(a.name for a in AnimationState)),
    "retryCooldownSequence": Rule("list", size=RETRY_SEQUENCE_LENGTH,
                                  item=Rule("integer", lo=1, hi=MAX_INT32)),
    "retryCooldownCursor": Rule("integer", lo=0, hi=RETRY_SEQUENCE_LENGTH - 1),
    "retryTicksLeft": TICKS,
    "retryBlocker": Rule("ref", null=True, other_than="id"),
    "replanPending": Rule("integer", lo=0, hi=NEED_FORCED | NEED_FOLLOW),
    "partialTarget": FLAG,
    "shortPlan": FLAG,
    "follow": Rule("object", null=True, fields=FOLLOW),
    # docs/rules.md §9.6: the velocity over the last tick (m/s), saved with avoidance on
    # or a steering policy in the location
    "velocity": Rule("point", lo=-MAX_LENGTH, hi=MAX_LENGTH),
    # the character's steering policy (null: none) and its wander angle (rad)
    "policy": Rule("object", null=True, unknown="error", fields=POLICY),
    "wanderAngle": Rule("number"),
}

#: ``stats``: the counters of :class:`~navkit.sim.SimStats`.
STATS: dict[str, Rule] = {
    **{k: COUNT for k in ("ticks", "arrivals", "blockedStops", "retries", "replans",
                          "forcedReplans", "interactions", "gaveUp")},
    "minGap": Rule("number", lo=-MAX_COORD, hi=3 * MAX_COORD, null=True),
}

#: A scene or saved state (the top level). ``commands`` items: :data:`COMMANDS`.
SCENE: dict[str, Rule] = {
    "format": Rule("choice", choices=(FORMAT,)),
    "navigation": Rule("level", required=True),
    "navigationMode": Rule("choice", choices=("grid", "mesh")),
    "avoidance": Rule("choice", choices=AVOIDANCE_MODES),
    "policy": Rule("object", null=True, unknown="error", fields=POLICY),
    "tickRate": Rule("number", lo=MIN_TICK_RATE, hi=MAX_TICK_RATE),
    "tick": Rule("integer", lo=0, hi=MAX_TICK),
    "characters": Rule("list", item=Rule("object", fields=CHARACTER)),
    "commands": Rule("list"),
    "stats": Rule("object", fields=STATS),
}

_TICK = Rule("integer", lo=0, hi=MAX_TICK, required=True)
_WHO = Rule("ref", required=True)
_NAME = Rule("text", required=True)


def _world(body: dict[str, Rule]) -> Rule:
    return Rule("object", required=True, unknown="error", fields=body)


#: One command per action (the action is the key the command holds).
COMMANDS: dict[str, dict[str, Rule]] = {
    "moveTo": {"tick": _TICK, "character": _WHO,
               "moveTo": Rule("point", lo=-MAX_COORD, hi=MAX_COORD, required=True)},
    "follow": {"tick": _TICK, "character": _WHO,
               "follow": Rule("ref", required=True, other_than="character"),
               "range": Rule("number", lo=0.0, hi=MAX_LENGTH, required=True)},
    "talkTo": {"tick": _TICK, "character": _WHO,
               "talkTo": Rule("ref", required=True, other_than="character", npc=True)},
    "stop": {"tick": _TICK, "character": _WHO, "stop": Rule("choice", choices=(True,))},
    "setAreaAvailable": {"tick": _TICK, "setAreaAvailable": _world(
        {"name": _NAME, "available": Rule("bool", required=True)})},
    "addObstacle": {"tick": _TICK, "addObstacle": _world(
        {"name": _NAME, "polygon": Rule("list", required=True, min_size=3, item=POINT)})},
    "removeObstacle": {"tick": _TICK, "removeObstacle": _world({"name": _NAME})},
}


# ----------------------------------------------------------------- the checker
def _is_real(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _finite(v: Any) -> bool:
    """A finite real that converts to a float (no huge integer, no NaN or infinity)."""
    if isinstance(v, numbers.Integral):
        return abs(int(v)) <= _FLOAT_MAX
    try:
        return math.isfinite(float(v))
    except (OverflowError, ValueError):
        return False


def _resolve(b: Bound, siblings: Mapping[str, Any], ctx: Mapping[str, Any]) -> float | None:
    if not isinstance(b, Ref):
        return b
    v = siblings[b.name] if b.name in siblings else ctx.get(b.name, b.default)
    if v is None:
        return None
    return (len(v) if isinstance(v, list) else v) + b.offset


def _range(lo: float | None, hi: float | None, open_lo: bool) -> str:
    def s(x: float) -> str:
        return str(x) if isinstance(x, int) else f"{x:g}"

    if lo is not None and hi is not None:
        return f"in {'(' if open_lo else '['}{s(lo)}, {s(hi)}]"
    if lo is not None:
        return f"{'>' if open_lo else '>='} {s(lo)}"
    return "" if hi is None else f"<= {s(hi)}"


def _in_range(v: Any, lo: float | None, hi: float | None, open_lo: bool) -> bool:
    """``lo <= v <= hi`` compared exactly (a huge integer never becomes a float)."""
    if lo is not None and (v <= lo if open_lo else v < lo):
        return False
    return hi is None or v <= hi


def _scalar(v: Any, rule: Rule, fld: str, lo: float | None, hi: float | None) -> Any:
    t = rule.type
    if t == "number":
        ok = _is_real(v) and _finite(v) and _in_range(v, lo, hi, rule.open_lo)
        if not ok:
            what = _range(lo, hi, rule.open_lo)
            raise ConfigError(f"expected a finite number{' ' + what if what else ''}, "
                              f"got {_show(v)}", field=fld)
        return float(v)
    if t == "integer":
        ok = _is_real(v) and (isinstance(v, numbers.Integral)
                              or (_finite(v) and v == math.floor(v)))
        if not ok or not _in_range(v, lo, hi, False):
            raise ConfigError(f"expected an integer {_range(lo, hi, False)}, got {_show(v)}",
                              field=fld)
        return int(v)
    if t == "bool":
        if not isinstance(v, (bool, np.bool_)):
            raise ConfigError(f"expected true or false, got {_show(v)}", field=fld)
        return bool(v)
    if t == "text":
        if not isinstance(v, str) or not v:
            raise ConfigError(f"expected a non-empty name, got {_show(v)}", field=fld)
        return v
    if t == "choice":
        if not any(type(v) is type(c) and v == c for c in rule.choices):
            shown = ", ".join(str(c).lower() if isinstance(c, bool) else str(c)
                              for c in rule.choices)
            raise ConfigError(f"expected {'one of ' if len(rule.choices) > 1 else ''}{shown}, "
                              f"got {_show(v)}", field=fld)
        return v
    if t == "level":
        if not (isinstance(v, dict) or (isinstance(v, str) and v)):
            raise ConfigError("expected an inline level config or a map file path, "
                              f"got {type(v).__name__}", field=fld)
        return v
    raise AssertionError(f"unknown rule type {t!r}")  # pragma: no cover


def check_id(v: Any, fld: str) -> Any:
    """A stable ID: a non-empty string or an integer in [0, MAX_ID]."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (str, numbers.Integral)):
        raise ConfigError(f"expected a character ID (a string or an integer), got {_show(v)}",
                          field=fld)
    if isinstance(v, str):
        if not v:
            raise ConfigError("expected a non-empty ID", field=fld)
        return v
    iv = int(v)
    if not 0 <= iv <= MAX_ID:
        raise ConfigError(f"integer IDs must be in [0, 2**64 - 1], got {_show(iv)}", field=fld)
    return iv


def _ref(v: Any, rule: Rule, fld: str, siblings: Mapping[str, Any],
         ctx: Mapping[str, Any]) -> Any:
    cid = check_id(v, fld)
    ids = ctx.get("ids")
    if ids is not None and cid not in ids:
        raise ConfigError(f"no character with ID {cid!r}", field=fld)
    if rule.other_than is not None:
        own = siblings.get(rule.other_than, ctx.get(rule.other_than))
        if own is not None and own == cid:
            raise ConfigError(f"cannot be the character itself ({cid!r})", field=fld)
    need_npc = rule.npc if isinstance(rule.npc, bool) else bool(siblings.get(rule.npc))
    npcs = ctx.get("npcs")
    if need_npc and npcs is not None and cid not in npcs:
        raise ConfigError(f"{cid!r} is not an NPC", field=fld)
    return cid


def check(value: Any, rule: Rule, fld: str, ctx: Mapping[str, Any] | None = None,
          siblings: Mapping[str, Any] | None = None) -> Any:
    """``value`` checked against ``rule`` and normalized (floats, ints, bools,
    ``(x, z)`` tuples, lists, dicts of the present keys; null: None).

    ``fld`` names the field in errors; ``ctx`` holds what references and
    :class:`Ref` bounds read (``ids``, ``npcs``, ``tick``, ...); ``siblings``
    the fields of the same object checked so far.
    """
    ctx = {} if ctx is None else ctx
    sib: Mapping[str, Any] = {} if siblings is None else siblings
    if value is None:
        if rule.null:
            return None
        raise ConfigError("expected a value, got null", field=fld)
    lo = _resolve(rule.lo, sib, ctx)
    hi = _resolve(rule.hi, sib, ctx)
    t = rule.type
    if t == "id":
        return check_id(value, fld)
    if t == "ref":
        return _ref(value, rule, fld, sib, ctx)
    if t == "point":
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise ConfigError(f"expected a point [x, z], got {_show(value)}", field=fld)
        coord = Rule("number", lo=lo, hi=hi)
        return (_scalar(value[0], coord, f"{fld}[0]", lo, hi),
                _scalar(value[1], coord, f"{fld}[1]", lo, hi))
    if t == "list":
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"expected a list, got {type(value).__name__}", field=fld)
        n = len(value)
        if (rule.size is not None and n != rule.size) or n < rule.min_size:
            want = rule.size if rule.size is not None else f"at least {rule.min_size}"
            raise ConfigError(f"expected a list of {want} items, got {n}", field=fld)
        if rule.item is None:
            return list(value)
        inner = {**ctx, **sib}
        return [check(v, rule.item, f"{fld}[{i}]", inner) for i, v in enumerate(value)]
    if t == "object":
        if not isinstance(value, dict):
            raise ConfigError(f"expected a JSON object, got {type(value).__name__}", field=fld)
        assert rule.fields is not None
        return check_fields(value, rule.fields, fld, {**ctx, **sib}, unknown=rule.unknown)
    return _scalar(value, rule, fld, lo, hi)


def check_fields(obj: Mapping[str, Any], fields: Mapping[str, Rule], prefix: str,
                 ctx: Mapping[str, Any] | None = None, *, unknown: str = "warn") -> dict[str, Any]:
    """Every key of ``obj`` checked against ``fields`` (in the table's order);
    returns the checked values of the keys present. Missing required keys and,
    with ``unknown="error"``, unknown keys raise; unknown keys warn otherwise."""
    pre = prefix + "." if prefix else ""
    for k in obj:
        if k not in fields:
            if unknown == "error":
                raise ConfigError(f"unknown key {k!r}", field=f"{pre}{k}")
            warnings.warn(NavkitWarning(f"{pre}{k}: unknown key {k!r} ignored", field=f"{pre}{k}"),
                          stacklevel=2)
    out: dict[str, Any] = {}
    for k, rule in fields.items():
        if k in obj:
            out[k] = check(obj[k], rule, pre + k, ctx, out)
        elif rule.required:
            raise ConfigError("missing", field=pre + k)
    return out


def check_field(table: Mapping[str, Rule], key: str, value: Any, fld: str | None = None,
                ctx: Mapping[str, Any] | None = None) -> Any:
    """``value`` checked against ``table[key]``; errors name ``fld`` (default ``key``)."""
    return check(value, table[key], key if fld is None else fld, ctx)


def _show(v: Any) -> str:
    """A value for a message (a huge integer by its size, not its thousands of digits)."""
    if isinstance(v, numbers.Integral) and not isinstance(v, bool) and abs(int(v)) > 10 ** 30:
        return f"an integer of about {int(int(v).bit_length() * math.log10(2)) + 1} digits"
    try:
        r = repr(v)
    except (ValueError, RecursionError):  # huge integers or deep structures inside
        return f"a {type(v).__name__} (not printable)"
    return r if len(r) <= 80 else r[:77] + "..."
