"""Example maps, levels, scenes and games that ship inside the package (wheel included).

==============================  ====================================================
file                            what it is
==============================  ====================================================
``den520d.map`` (.scen)         a Moving AI map (Dragon Age: Origins, 256 x 257) and
                                its scenario file with optimal lengths
``arena.map`` (.scen)           a small Moving AI map and its scenarios
``interior.json``               a polygon level: rooms, doors as areas, furniture
``outdoor.json``                a polygon level with terrain weights (road, grass, mud)
``bench80.json``                the 80 x 80-cell level of the reference benchmark
``tavern.json``                 a building: two floors, stairs, a ladder, a one-way jump
``dungeon.tmj``                 a Tiled map (JSON, tileset embedded) with two doors
                                (docs/tiled.md)
``scenes/*.json``               character simulation scenes (``navkit sim``,
                                docs/simulation.md)
``crowds/*.json``               a steering crowd and its level (``navkit view
                                HALL --crowd FLOCK``, docs/crowds.md)
``engines/*.py``                pygame-ce and arcade games
                                (:mod:`navkit.examples.engines`)
==============================  ====================================================

Names are paths relative to this folder (``"scenes/follow.json"``); a file
name alone is enough when only one file has it. From a shell, ``python -m
navkit.examples`` lists every file and the folder, and ``python -m
navkit.examples NAME`` prints one path
(``navkit sim "$(python -m navkit.examples follow.json)" --ticks 100``).

The Moving AI files are copied byte for byte from the Moving AI benchmarks
(see ``SOURCES.md`` beside them for their origin and licence).

>>> path("den520d.map").name
'den520d.map'
>>> "interior.json" in names() and "scenes/follow.json" in names()
True
>>> path("follow.json") == path("scenes/follow.json")
True
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import ConfigError, unknown_name_message

__all__ = ["path", "names", "describe", "DESCRIPTIONS"]

#: What each bundled file is (``python -m navkit.examples`` prints these).
DESCRIPTIONS: dict[str, str] = {
    "arena.map": "Moving AI map, 49 x 49 (grid)",
    "arena.map.scen": "scenarios of arena.map with optimal lengths",
    "den520d.map": "Moving AI map from Dragon Age: Origins, 256 x 257 (grid)",
    "den520d.map.scen": "scenarios of den520d.map with optimal lengths",
    "interior.json": "polygon level: rooms, doors, furniture (grid or mesh)",
    "outdoor.json": "polygon level with terrain weights: road, grass, mud",
    "bench80.json": "the reference benchmark's 80 x 80-cell level",
    "tavern.json": "a building: two floors joined by stairs, a ladder and a jump (FloorMap)",
    "dungeon.tmj": "Tiled map with two doors (needs navkit[tiled])",
    "scenes/interior_crowd.json": "simulation: 60 NPCs crossing an interior; a door closes",
    "scenes/interior_crowd_mesh.json": "the same crowd on the navigation mesh",
    "scenes/corridor_head_on.json": "simulation: two NPCs meet in a one-wide corridor",
    "scenes/corridor_pass.json": "simulation: two NPCs pass in a corridor with ORCA",
    "scenes/follow.json": "simulation: a player, a bot following it, an NPC to talk to",
    "crowds/hall.json": "level of the flock crowd: a wall with two gaps",
    "crowds/flock.json": "steering crowd of 40 agents on crowds/hall.json (navkit view --crowd)",
    "engines/pygame_chase.py": "pygame-ce game: a monster chasing the player (navkit[pygame])",
    "engines/arcade_rts.py": "arcade game: RTS units on a flow field (navkit[arcade])",
}

_KINDS = (".map", ".scen", ".json", ".tmj", ".py")


def _walk(folder: Any, prefix: str) -> list[str]:
    """The example files under ``folder`` (an importlib Traversable), named ``prefix + name``."""
    out = []
    for p in folder.iterdir():
        if p.is_dir():
            if not p.name.startswith(("_", ".")):
                out += _walk(p, f"{prefix}{p.name}/")
        elif p.name.endswith(_KINDS) and not p.name.startswith("_"):
            out.append(prefix + p.name)
    return out


def names() -> list[str]:
    """The bundled example files, as paths relative to this folder, sorted."""
    return sorted(_walk(resources.files(__name__), ""))


def _resolve(name: str) -> str:
    known = names()
    if isinstance(name, str):
        if name in known:
            return name
        same = [n for n in known if n.rsplit("/", 1)[-1] == name]
        if len(same) == 1:
            return same[0]
    raise ConfigError(unknown_name_message("example", name, known), field="name")


def path(name: str) -> Path:
    """The file system path of bundled example ``name`` (a name from :func:`names`,
    or a file name alone when unique); ConfigError naming the known ones."""
    rel = _resolve(name)
    return Path(str(resources.files(__name__).joinpath(*rel.split("/"))))


def describe(name: str) -> str:
    """One line on what bundled example ``name`` is."""
    return DESCRIPTIONS.get(_resolve(name), "")
