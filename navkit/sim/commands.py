"""Timed commands of a scene: what happens at which tick.

One JSON object per command; ``tick`` (an integer >= 0) plus exactly one
action:

``{"tick": T, "character": ID, "moveTo": [x, z]}``
    ``set_target`` (docs/rules.md §8.1)
``{"tick": T, "character": ID, "follow": ID2, "range": R}``
    approach ``ID2`` until within ``R`` m (docs/rules.md §10.5)
``{"tick": T, "character": ID, "talkTo": ID2}``
    walk to NPC ``ID2``; interaction within ``NPC_TALK_DISTANCE``
``{"tick": T, "character": ID, "stop": true}``
    ``stop_in_place``
``{"tick": T, "setAreaAvailable": {"name": N, "available": B}}``
    open / close an area (doors)
``{"tick": T, "addObstacle": {"name": N, "polygon": [...]}}``
    add an obstacle polygon
``{"tick": T, "removeObstacle": {"name": N}}``
    remove an obstacle polygon

Commands at the same tick run in file order, before that tick's planning and
movement.
"""

from __future__ import annotations

import bisect
import math
import numbers
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError

__all__ = [
    "Command", "CommandQueue", "parse_command", "check_id", "CHARACTER_ACTIONS", "WORLD_ACTIONS",
]

#: Actions that name a ``character``.
CHARACTER_ACTIONS = ("moveTo", "follow", "talkTo", "stop")
#: Actions on the map.
WORLD_ACTIONS = ("setAreaAvailable", "addObstacle", "removeObstacle")
_ALL = CHARACTER_ACTIONS + WORLD_ACTIONS


@dataclass(frozen=True)
class Command:
    """One parsed command; ``raw`` is its JSON object (saved back as is)."""

    tick: int
    action: str
    character: Any
    args: dict[str, Any]
    raw: dict[str, Any]
    field: str


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _point(v: Any, fld: str) -> tuple[float, float]:
    if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)) or len(v) != 2:
        raise ConfigError(f"expected a point [x, z], got {v!r}", field=fld)
    if not (_is_number(v[0]) and _is_number(v[1])):
        raise ConfigError(f"expected two numbers [x, z], got {v!r}", field=fld)
    x, z = float(v[0]), float(v[1])
    if not (math.isfinite(x) and math.isfinite(z)):
        raise ConfigError(f"coordinates must be finite, got {v!r}", field=fld)
    return (x, z)


def check_id(v: Any, fld: str) -> Any:
    """A stable ID: a non-empty string or an integer >= 0."""
    if isinstance(v, bool) or not (isinstance(v, str) or isinstance(v, numbers.Integral)):
        raise ConfigError(f"expected a character ID (a string or an integer), got {v!r}", field=fld)
    if isinstance(v, str) and not v:
        raise ConfigError("expected a non-empty ID", field=fld)
    if isinstance(v, numbers.Integral):
        if v < 0:
            raise ConfigError(f"integer IDs must be >= 0, got {v}", field=fld)
        return int(v)
    return v


def parse_command(raw: Any, fld: str, known_ids: set[Any] | None = None) -> Command:
    """Validate one command object; ``fld`` (e.g. ``commands[3]``) prefixes errors."""
    if not isinstance(raw, dict):
        raise ConfigError(f"expected a JSON object, got {type(raw).__name__}", field=fld)
    if "tick" not in raw:
        raise ConfigError("missing", field=f"{fld}.tick")
    t = raw["tick"]
    if not _is_number(t) or not math.isfinite(float(t)) or float(t) != math.floor(float(t)) \
            or t < 0:
        raise ConfigError(f"expected an integer >= 0, got {t!r}", field=f"{fld}.tick")
    actions = [k for k in _ALL if k in raw]
    if len(actions) != 1:
        if not actions:
            raise ConfigError(f"expected one of {', '.join(_ALL)}", field=fld)
        raise ConfigError(f"expected exactly one action, got {', '.join(actions)}", field=fld)
    action = actions[0]
    allowed = {"tick", action}
    args: dict[str, Any] = {}
    character = None
    if action in CHARACTER_ACTIONS:
        allowed.add("character")
        if "character" not in raw:
            raise ConfigError("missing", field=f"{fld}.character")
        character = check_id(raw["character"], f"{fld}.character")
        if known_ids is not None and character not in known_ids:
            raise ConfigError(f"no character with ID {character!r}", field=f"{fld}.character")
        if action == "moveTo":
            args["point"] = _point(raw["moveTo"], f"{fld}.moveTo")
        elif action in ("follow", "talkTo"):
            other = check_id(raw[action], f"{fld}.{action}")
            if known_ids is not None and other not in known_ids:
                raise ConfigError(f"no character with ID {other!r}", field=f"{fld}.{action}")
            if other == character:
                raise ConfigError("a character cannot follow itself", field=f"{fld}.{action}")
            args["target"] = other
            if action == "follow":
                allowed.add("range")
                if "range" not in raw:
                    raise ConfigError("missing", field=f"{fld}.range")
                r = raw["range"]
                if not _is_number(r) or not math.isfinite(float(r)) or r < 0:
                    raise ConfigError(f"expected a number >= 0 (metres), got {r!r}",
                                      field=f"{fld}.range")
                args["range"] = float(r)
        else:  # stop
            if raw["stop"] is not True:
                raise ConfigError(f"expected true, got {raw['stop']!r}", field=f"{fld}.stop")
    else:
        body = raw[action]
        if not isinstance(body, dict):
            raise ConfigError(f"expected a JSON object, got {type(body).__name__}",
                              field=f"{fld}.{action}")
        name = body.get("name")
        if not isinstance(name, str) or not name:
            raise ConfigError(f"expected a non-empty name, got {name!r}",
                              field=f"{fld}.{action}.name")
        args["name"] = name
        keys = {"name"}
        if action == "setAreaAvailable":
            keys.add("available")
            av = body.get("available")
            if not isinstance(av, bool):
                raise ConfigError(f"expected true or false, got {av!r}",
                                  field=f"{fld}.{action}.available")
            args["available"] = av
        elif action == "addObstacle":
            keys.add("polygon")
            if "polygon" not in body:
                raise ConfigError("missing", field=f"{fld}.{action}.polygon")
            poly = body["polygon"]
            if isinstance(poly, (str, bytes)) or not isinstance(poly, list) or len(poly) < 3:
                raise ConfigError("expected a list of at least 3 points [x, z]",
                                  field=f"{fld}.{action}.polygon")
            args["polygon"] = [list(_point(p, f"{fld}.{action}.polygon[{j}]"))
                               for j, p in enumerate(poly)]
        extra = sorted(set(body) - keys)
        if extra:
            raise ConfigError(f"unknown key {extra[0]!r}", field=f"{fld}.{action}.{extra[0]}")
    extra = sorted(set(raw) - allowed)
    if extra:
        raise ConfigError(f"unknown key {extra[0]!r}", field=f"{fld}.{extra[0]}")
    return Command(tick=int(t), action=action, character=character, args=args, raw=dict(raw),
                   field=fld)


class CommandQueue:
    """Scheduled commands in execution order: by tick, then in the order they were added."""

    def __init__(self) -> None:
        self._commands: list[Command] = []
        self._ticks: list[int] = []
        self._next = 0

    def __len__(self) -> int:
        """Every command added so far, run or not."""
        return len(self._commands)

    def add(self, cmd: Command) -> None:
        """Queue ``cmd`` after every pending command of the same or an earlier tick."""
        pos = bisect.bisect_right(self._ticks, cmd.tick, lo=self._next)
        self._ticks.insert(pos, cmd.tick)
        self._commands.insert(pos, cmd)

    @property
    def pending(self) -> list[Command]:
        """Commands that have not run yet, in execution order."""
        return self._commands[self._next:]

    def pop_due(self, tick: int) -> Command | None:
        """The next pending command whose tick is ``<= tick`` (it counts as run), or None."""
        if self._next < len(self._commands) and self._commands[self._next].tick <= tick:
            cmd = self._commands[self._next]
            self._next += 1
            return cmd
        return None
