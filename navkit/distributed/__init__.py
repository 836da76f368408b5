"""Running navkit's batched jobs on Dask (``dask.distributed``), or serially here.

* :mod:`~navkit.distributed.cluster`: clients (:func:`connect`, :func:`local_client`)
* :mod:`~navkit.distributed.runner`: :class:`DaskRunner`, :class:`LocalRunner`
  (``map_batches(fn, spec, batches)``)
* :mod:`~navkit.distributed.batches`: shuffling and batch sizes
* :mod:`~navkit.distributed.queries`: batch path queries over many maps
* :mod:`~navkit.distributed.bake`, :mod:`~navkit.distributed.replay`: bakes and
  corpus replays through a :class:`DaskRunner`

See docs/distributed.md. ``dask[distributed]`` is needed only for
:class:`DaskRunner` and the clients.
"""

from __future__ import annotations

from .batches import MIN_BATCH_S, plan_batches, shuffle_order
from .cluster import close_client, connect, get_client, local_client
from .queries import MapAnswers, MapQueries, QueryRun, run_queries, scenario_jobs
from .runner import DaskRunner, LocalRunner, as_runner

__all__ = ["connect", "local_client", "get_client", "close_client", "DaskRunner",
           "LocalRunner", "as_runner", "MIN_BATCH_S", "plan_batches", "shuffle_order",
           "MapQueries", "MapAnswers", "QueryRun", "run_queries", "scenario_jobs"]
