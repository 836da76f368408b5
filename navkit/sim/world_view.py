"""The simulation on a chunked world: :class:`WorldView` (docs/rules.md §14.5).

A :class:`WorldView` is the :class:`~navkit.sim.simmap.SimMap` of a
:class:`~navkit.world.world.World` (:mod:`navkit.sim.views` builds it), so
``Location(world)`` works. Plans are
``World.find_path_to_nearest`` queries (world metres, the obstacle circles of
docs/rules.md §7.3) with the **bounded preset** by default
(``navkit.world.local.BOUNDED``: a 38 x 38 window centred on the midpoint of the
snapped start and goal cells, 1,000 expansions; docs/rules.md §14.2), for walk,
follow and approach orders alike; ``preset=None`` plans long queries instead
(exact on a world that fits in memory, docs/rules.md §14.3).

**Far destinations.** A bounded plan aims at most :func:`reach` cells (18 for
the 38-cell window) ahead: when the destination cell is farther (Chebyshev,
from the start cell), the plan's goal is the point at that distance on the
straight line to it, so the window holds both ends. Such a plan ends short of a
destination reachable on the static map, which is a *partial* plan
(docs/rules.md §8.4). When it is a **bounded leg** (:meth:`World.is_leg
<navkit.world.world.World.is_leg>`: it
aimed short and ends nearer the destination than it started) any character, player
and bot included, walks it to its end and plans the next leg there toward the same
destination (§14.5); other partial plans are as on grids (an NPC retries after its
cooldown, §10.2; a player or bot arrives at the end). A follow or approach order
walks it and plans again when its repath delay allows (§10.5).

**The movement guard** (docs/rules.md §9) reads walkability from a resident
**active region** of the world: ``region=(x0, z0, x1, z1)`` (inclusive cells),
materialized from the chunks (``ChunkStore.region``) and rebuilt when the store's
version changes; default the whole world when it has at most
:data:`RESIDENT_CELLS` cells. With a region every plan is cut to it (the search
never leaves it: ``World.find_path(bounds=...)``), so paths, steps and the
connected components that decide partial plans all stay inside; a plan from a
position outside the region is a :class:`~navkit.errors.ConfigError` (field
``region``) naming the position (and, from the planner, the character).

A location on a world cannot be saved (scene files reference grids, levels and
meshes): its ``to_json`` raises ConfigError. Record its plans with the
world's own ``record=`` (``World(store, record=path)``, docs/corpora.md).

>>> import numpy as np
>>> from navkit.grid import NavGrid
>>> from navkit.sim import Location
>>> from navkit.world.world import World
>>> walk = np.ones((20, 40), bool); walk[2:18, 20] = False
>>> loc = Location(World.from_grid(NavGrid(walk), chunk=16))
>>> a = loc.add_character("a", kind="npc", position=(10.5, 10.5), walk_speed=4.0)
>>> a.set_target((30.5, 10.5))
True
>>> _ = loc.run(200)
>>> [round(v, 1) for v in a.position], loc.stats.arrivals
([30.5, 10.5], 1)
"""

from __future__ import annotations

from ..world.local import reach
from .simmap import RESIDENT_CELLS
from .views import WorldView

__all__ = ["WorldView", "RESIDENT_CELLS", "reach"]
