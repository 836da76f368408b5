"""Agents: the one structure-of-arrays store and the one neighbour index.

* :class:`AgentStore` (:mod:`navkit.agents.store`): agents as columns of
  numpy arrays, one row per agent in stable-ID (slot) order; a
  :class:`navkit.crowd.Crowd` keeps its agents in one, and the simulation's
  :class:`~navkit.sim.state.SimState` is one with the character columns;
* :func:`map_index` (:mod:`navkit.agents.index`): the buffers of the one
  neighbour index (:mod:`navkit._kernels.spatial_hash`) laid over a map, as
  the simulation's movement guard and ORCA use it.

See ``docs/crowds.md`` and ``docs/simulation.md``.
"""

from __future__ import annotations

from .index import empty_index, index_buffers, map_index
from .store import AGENT_COLUMNS, AgentStore, Column, id_sort_key

__all__ = ["AgentStore", "AGENT_COLUMNS", "Column", "id_sort_key", "map_index", "index_buffers",
           "empty_index"]
