"""Deterministic character simulation (docs/rules.md §7-§10).

A :class:`Location` holds one navigation map and its characters (players,
bots and NPCs with stable IDs) and advances them in fixed ticks: centralized
planning around stationary characters, path following, a movement guard that
never lets contact circles overlap, blocked stops and ID-shuffled retry
cooldowns. Its whole state saves to a scene JSON file and restores
bit-exactly, so a lockstep server can replay it.

>>> import numpy as np
>>> from navkit import NavGrid
>>> from navkit.sim import Location
>>> loc = Location(NavGrid(np.ones((8, 8), bool), cell_size=0.5))
>>> npc = loc.add_character("guard", kind="npc", position=(0.75, 0.75))
>>> npc.set_target((3.25, 3.25))
True
>>> _ = loc.run(60)
>>> [round(v, 2) for v in npc.position]  # arrived: within kWalkThreshold (0.05 m)
[3.24, 3.24]

See ``docs/simulation.md``.
"""

from __future__ import annotations

from . import constants
from .character import Character
from .commands import Command, parse_command
from .events import SimStats, TickEvents
from .kinds import AnimationState, CharacterKind
from .location import Location
from .replay import ReplayWriter, read_replay
from .scene import load_scene, location_to_scene, parse_scene, save_scene
from .simmap import SimMap
from .views import GridView, MeshView, WorldView

__all__ = [
    "Location",
    "Character",
    "CharacterKind",
    "AnimationState",
    "TickEvents",
    "SimStats",
    "Command",
    "parse_command",
    "SimMap",
    "GridView",
    "MeshView",
    "WorldView",
    "load_scene",
    "parse_scene",
    "save_scene",
    "location_to_scene",
    "ReplayWriter",
    "read_replay",
    "constants",
    "warm_up",
]


def __getattr__(name: str) -> object:
    if name == "MapView":  # the old name of a grid's map view
        from ..contract import deprecated_name

        deprecated_name("navkit.sim.MapView", "navkit.sim.GridView (a SimMap)")
        return GridView
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def warm_up() -> None:
    """Load (or compile) the simulation kernels with tiny throwaway runs (the
    tick on a grid, with ORCA and with steering policies: :mod:`navkit.sim.warming`),
    so that the first real tick is not charged with it."""
    Location.warm_up("tick", "orca", "steer")
