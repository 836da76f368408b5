"""Compile the simulation's kernels when a :class:`~navkit.sim.Location` is
built, never during a tick.

A *part* is a tiny throwaway run on a map of the location's kind (``mode``:
``"grid"``, ``"mesh"`` or ``"world"``) that loads (or, with an empty numba
cache, compiles) exactly the kernels that feature's first tick would use:

=======  ==================================================================
part     what its first use needs
=======  ==================================================================
tick     plans on that kind of map, follow orders, the movement guard
orca     the tick with ORCA avoidance (``avoidance="orca"``)
steer    the tick with steering policies (``tick_steer``)
=======  ==================================================================

A ``(mode, part)`` pair runs at most once per process (:func:`ensure`);
afterwards it costs a set lookup. ``Location(..., warm=False)`` skips it (then
the first tick may compile; ``navkit warmup sim`` fills the disk cache ahead
of time).

>>> from navkit.sim import Location
>>> ensure(Location, "grid", "tick"); ("grid", "tick") in warmed()
True
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..errors import ConfigError

__all__ = ["MODES", "PARTS", "ensure", "warmed"]

#: The parts (see the module docstring).
PARTS = ("tick", "orca", "steer")
#: The kinds of map a part runs on (``SimMap.mode``).
MODES = ("grid", "mesh", "world")

_done: set[tuple[str, str]] = set()
_lock = threading.Lock()


def _run(location: Any, mode: str, part: str) -> None:
    """The throwaway run of ``part`` on a ``mode`` map with ``location`` (the
    Location class)."""
    from ..grid import NavGrid

    walk = np.ones((6, 8), dtype=bool)
    walk[2, 3] = False
    nav: Any = NavGrid(walk, cell_size=0.5)
    if mode == "world":
        from ..world.world import World

        nav = World.from_grid(nav, chunk=16, small_world_cells=0)
    loc = location(nav, warm=False, navigation_mode="mesh" if mode == "mesh" else "grid")
    a = loc.add_character(0, position=(0.25, 0.25))
    loc.add_character(1, position=(3.75, 2.75))
    if part == "steer":
        from ..crowd.policy import SteeringPolicy
        from ..crowd.steering import Weights

        a.set_policy(SteeringPolicy(Weights(seek=1.0, separation=0.5)))
    a.set_target((3.75, 0.25))
    loc.character(1).follow(0, 1.0)
    loc.run(3)
    if part == "orca":
        loc.set_avoidance("orca")  # docs/rules.md §9.6
        loc.run(2)


def ensure(location: Any, mode: str, *parts: str) -> None:
    """Run each of ``parts`` (of :data:`PARTS`) on a ``mode`` map (of
    :data:`MODES`) with the class ``location`` (:class:`~navkit.sim.Location`)
    unless this process ran that pair already; thread-safe."""
    if mode not in MODES:
        raise ConfigError(f"expected one of {', '.join(MODES)}, got {mode!r}", field="mode")
    for part in parts:
        if (mode, part) in _done:
            continue
        if part not in PARTS:
            raise ConfigError(f"expected one of {', '.join(PARTS)}, got {part!r}", field="parts")
        with _lock:
            if (mode, part) not in _done:
                _run(location, mode, part)
                _done.add((mode, part))


def warmed() -> frozenset[tuple[str, str]]:
    """The ``(mode, part)`` pairs this process has run."""
    return frozenset(_done)
