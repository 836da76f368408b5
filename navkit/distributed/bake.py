"""World bakes on Dask: :func:`navkit.world.bake.bake` through a :class:`DaskRunner`.

The bake's per-batch work is ``encode_batch(spec, ids) -> list``; this module
only supplies the executor (``map_batches``), so the baked store is the same,
byte for byte, as a local bake's.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import NavkitError
from .cluster import DEFAULT_TIMEOUT_S, DEFAULT_WORKERS
from .runner import DaskRunner

__all__ = ["bake", "target", "DASK_BATCH_CHUNKS"]

#: Chunks per task of a bake on Dask (``batch_chunks``; the local default is 2,048).
#: Most chunks of a procedural world are uniform and cost nothing, so a task of
#: 2,048 chunks holds ~15 ms of work, too little against a task's overhead; 16,384
#: measured best on a 2-worker LocalCluster (docs/distributed.md).
DASK_BATCH_CHUNKS = 16384


def target(module: str, name: str) -> Any:
    """``module.name``, or a :class:`~navkit.errors.NavkitError` saying it is missing."""
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        if getattr(exc, "name", None) != module:
            raise
        raise NavkitError(f"{module} is not available in this navkit") from None
    fn = getattr(mod, name, None)
    if fn is None:
        raise NavkitError(f"{module} has no {name}()")
    return fn


def bake(*args: Any, client: Any = None, scheduler: str | None = None,
         n_workers: int = DEFAULT_WORKERS, processes: bool = True,
         timeout: float = DEFAULT_TIMEOUT_S, progress: bool = True, **kwargs: Any) -> Any:
    """``navkit.world.bake.bake(*args, **kwargs)`` with its batches on Dask.

    ``client`` / ``scheduler`` / ``n_workers`` / ``processes`` choose the
    cluster as in :class:`~navkit.distributed.runner.DaskRunner` (default: an
    embedded 2-worker ``LocalCluster``, closed afterwards). ``batch_chunks``
    defaults to :data:`DASK_BATCH_CHUNKS`.
    """
    kwargs.setdefault("batch_chunks", DASK_BATCH_CHUNKS)
    fn = target("navkit.world.bake", "bake")
    with DaskRunner(client, scheduler=scheduler, n_workers=n_workers, processes=processes,
                    timeout=timeout, progress=False, description="bake") as runner:
        return fn(*args, map_batches=runner.map_batches, progress=progress, **kwargs)
