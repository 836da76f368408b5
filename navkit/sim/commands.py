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
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from .schema import COMMANDS, check_fields, check_id

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


def parse_command(raw: Any, fld: str, known_ids: Collection[Any] | None = None,
                  npcs: Collection[Any] | None = None) -> Command:
    """Validate one command object against its action's table in
    :data:`~navkit.sim.schema.COMMANDS`; ``fld`` (e.g. ``commands[3]``)
    prefixes errors. ``known_ids`` (the characters' IDs) and ``npcs`` (the
    NPCs among them), when given, are what the command may refer to."""
    if not isinstance(raw, dict):
        raise ConfigError(f"expected a JSON object, got {type(raw).__name__}", field=fld)
    actions = [k for k in _ALL if k in raw]
    if len(actions) != 1:
        if not actions:
            raise ConfigError(f"expected one of {', '.join(_ALL)}", field=fld)
        raise ConfigError(f"expected exactly one action, got {', '.join(actions)}", field=fld)
    action = actions[0]
    ctx = {k: v for k, v in (("ids", known_ids), ("npcs", npcs)) if v is not None}
    v = check_fields(raw, COMMANDS[action], fld, ctx, unknown="error")
    args: dict[str, Any] = {}
    if action == "moveTo":
        args["point"] = v["moveTo"]
    elif action in ("follow", "talkTo"):
        args["target"] = v[action]
        if action == "follow":
            args["range"] = v["range"]
    elif action in WORLD_ACTIONS:
        args = dict(v[action])
        if "polygon" in args:
            args["polygon"] = [list(p) for p in args["polygon"]]
    return Command(tick=v["tick"], action=action, character=v.get("character"), args=args,
                   raw=dict(raw), field=fld)


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
