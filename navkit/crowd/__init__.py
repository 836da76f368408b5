"""Crowds: a spatial hash for neighbour queries, steering behaviours and flocking.

* :class:`SpatialHash` (:mod:`navkit.crowd.spatial_hash`): radius and k-nearest
  queries over many points, exact and deterministic;
* :class:`Crowd` (:mod:`navkit.crowd.crowd`): agents as a structure of arrays,
  advanced one tick at a time by one kernel (seek, flee, arrive, wander,
  pursue, evade, separation, alignment, cohesion, walls, paths, flow fields);
* :class:`SteeringParams`, :class:`Weights` (:mod:`navkit.crowd.steering`):
  the behaviours' parameters and weights;
* :class:`SteeringPolicy` (:mod:`navkit.crowd.policy`): those behaviours as
  a simulation character's policy inside a :class:`~navkit.sim.Location` tick.

A crowd keeps its agents in navkit's one agent store
(:class:`navkit.agents.AgentStore`) and finds neighbours with its one
neighbour index (:mod:`navkit._kernels.spatial_hash`), as the simulation does.

See ``docs/crowds.md``.
"""

from __future__ import annotations

from .crowd import Crowd
from .policy import POLICY_BEHAVIOURS, SteeringPolicy
from .spatial_hash import SpatialHash
from .steering import BEHAVIOURS, SteeringParams, Weights

__all__ = ["SpatialHash", "Crowd", "SteeringParams", "Weights", "BEHAVIOURS", "SteeringPolicy",
           "POLICY_BEHAVIOURS"]
