"""Crowds: a spatial hash for neighbour queries, steering behaviours and flocking.

* :class:`SpatialHash` (:mod:`navkit.crowd.spatial_hash`): radius and k-nearest
  queries over many points, exact and deterministic;
* :class:`Crowd` (:mod:`navkit.crowd.crowd`): agents as a structure of arrays,
  advanced one tick at a time by one kernel (seek, flee, arrive, wander,
  pursue, evade, separation, alignment, cohesion, walls, paths, flow fields);
* :class:`SteeringParams`, :class:`Weights` (:mod:`navkit.crowd.steering`):
  the behaviours' parameters and weights.

See ``docs/crowds.md``.
"""

from __future__ import annotations

from .crowd import Crowd
from .spatial_hash import SpatialHash
from .steering import BEHAVIOURS, SteeringParams, Weights

__all__ = ["SpatialHash", "Crowd", "SteeringParams", "Weights", "BEHAVIOURS"]
