"""Compile the simulation's kernels when a :class:`~navkit.sim.Location` is
built, never during a tick.

Each *part* is a tiny throwaway run that loads (or, with an empty numba
cache, compiles) exactly the kernels a feature's first tick would use:

=======  ==================================================================
part     what its first use needs
=======  ==================================================================
tick     the tick on a grid: plans, follow orders, the movement guard
orca     the tick with ORCA avoidance (``avoidance="orca"``)
steer    the tick with steering policies (``tick_steer``)
mesh     plans on a navigation mesh (``navigationMode: "mesh"``)
world    plans on a :class:`~navkit.world.World`
=======  ==================================================================

A part runs at most once per process (:func:`ensure`); afterwards it costs a
set lookup. ``Location(..., warm=False)`` skips it (then the first tick may
compile; ``navkit warmup sim`` fills the disk cache ahead of time).

>>> from navkit.sim import Location
>>> ensure(Location, "tick"); "tick" in warmed()
True
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..errors import ConfigError

__all__ = ["PARTS", "ensure", "warmed"]

_done: set[str] = set()
_lock = threading.Lock()


def _run(location: Any, part: str) -> None:
    """The throwaway run of ``part`` on ``location`` (the Location class)."""
    from ..grid import NavGrid

    walk = np.ones((6, 8), dtype=bool)
    walk[2, 3] = False
    nav: Any = NavGrid(walk, cell_size=0.5)
    if part == "world":
        from ..world.world import World

        nav = World.from_grid(nav, chunk=16, small_world_cells=0)
    loc = location(nav, warm=False, navigation_mode="mesh" if part == "mesh" else "grid")
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


#: The parts (see the module docstring).
PARTS = ("tick", "orca", "steer", "mesh", "world")


def ensure(location: Any, *parts: str) -> None:
    """Run each of ``parts`` (of :data:`PARTS`) with the class ``location``
    (:class:`~navkit.sim.Location`) unless this process ran it already;
    thread-safe."""
    for part in parts:
        if part in _done:
            continue
        if part not in PARTS:
            raise ConfigError(f"expected one of {', '.join(PARTS)}, got {part!r}", field="parts")
        with _lock:
            if part not in _done:
                _run(location, part)
                _done.add(part)


def warmed() -> frozenset[str]:
    """The parts this process has run."""
    return frozenset(_done)
