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
can open and close). ``navigationMode`` says what characters plan on:
``"grid"`` (default, the level's grid) or ``"mesh"`` (a navigation mesh of
the same level or grid, exact any-angle paths; :mod:`navkit.sim.mesh_view`)::

    {"navigation": "../levels/interior.json", "navigationMode": "mesh", ...}

A saved state keeps the mode. ``avoidance`` is ``"none"`` (default) or
``"orca"`` (local avoidance before the movement guard, docs/rules.md §9.6;
a saved state with it on also holds every character's ``velocity``).
``tickRate`` defaults to 20 Hz. ``id`` is a non-empty
string or an integer >= 0; ``kind`` is ``player``, ``bot`` or ``npc``;
``walkSpeed`` (m/s) and ``rotationSpeed`` (rad/s) default to 1.5 and 2 pi.
Commands: see :mod:`navkit.sim.commands`.

A **saved state** is a scene with ``tick`` and every character's full state
(the fields of docs/rules.md §12.5, camelCase): ``facing``, ``pathWaypoints``,
``currentWaypointIndex``, ``walkTarget``, ``requestedWalkTarget``,
``movedLastTick``, ``movementBlockedTicks``, ``retryCooldownSequence`` (the
shuffled ticks), ``retryCooldownCursor``, ``retryTicksLeft``, ``retryBlocker``,
``animation``, ``navigating``, ``replanPending``, ``partialTarget``,
``shortPlan`` and ``follow``; plus the pending ``commands`` (every listed command runs; one
whose tick has passed runs at the next tick), the ``stats`` so far, and the
navigation map as it is now (an inline level with doors and added obstacles
as they stand). Loading a state continues exactly where it stopped: the next
ticks are bit-identical to the run that never stopped. Callbacks (Python
objects) are not saved.

Every field of a scene, a saved state and a command is checked against one
declared schema (:mod:`navkit.sim.schema`: types, ranges, enums, references
to other characters) before anything is built. Errors name the field:
``characters[3].walkSpeed: expected a finite number in (0, 5e+14], got -1``;
a file that cannot be read (missing, not UTF-8, not JSON, nested too deeply)
is a :class:`~navkit.errors.FormatError` naming the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .location import Location
from .snapshot import CHARACTER_KEYS, SCENE_KEYS
from .snapshot import FORMAT as FORMAT

__all__ = [
    "load_scene", "parse_scene", "save_scene", "location_to_scene", "SCENE_KEYS", "CHARACTER_KEYS",
]


def parse_scene(obj: Any, *, base: str | Path | None = None) -> Location:
    """Build a :class:`Location` from a decoded scene (or saved state) object.

    ``base`` is the folder relative map paths start from.
    """
    return Location.from_scene(obj, base=base)


def load_scene(path: str | Path) -> Location:
    """Read a scene or saved state file.

    Raises :class:`~navkit.errors.FormatError` (naming the file) when it
    cannot be read or is not JSON, and :class:`~navkit.errors.ConfigError`
    (file and field) on invalid content.
    """
    return Location.load(path)


def location_to_scene(loc: Location, *, base: Path | None = None,
                      sidecar: Path | None = None) -> dict[str, Any]:
    """The location's full state as a scene object (JSON-ready, exact floats).

    ``base`` is the folder map paths are written relative to; ``sidecar`` the
    ``.npz`` file a grid without a file of its own is written to.
    """
    return loc.state_dict(base=base, sidecar=sidecar)


def save_scene(loc: Location, path: str | Path) -> Path:
    """Write ``loc``'s state to ``path`` (folders created); returns the path.

    A grid map without a file of its own goes beside it as
    ``<stem>.grid.npz``.
    """
    return loc.save(path)
