"""Corpus replays on Dask: :func:`navkit.corpus.replay.replay` through a :class:`DaskRunner`.

The replay's per-batch work is ``replay_batch(spec, lines) -> list``; this
module only supplies the executor (``map_batches``), so the report equals a
local replay's.
"""

from __future__ import annotations

from typing import Any

from .bake import target
from .cluster import DEFAULT_TIMEOUT_S, DEFAULT_WORKERS
from .runner import DaskRunner

__all__ = ["replay"]


def replay(*args: Any, client: Any = None, scheduler: str | None = None,
           n_workers: int = DEFAULT_WORKERS, processes: bool = True,
           timeout: float = DEFAULT_TIMEOUT_S, progress: bool = True, **kwargs: Any) -> Any:
    """``navkit.corpus.replay.replay(*args, **kwargs)`` with its batches on Dask
    (cluster options as in :func:`navkit.distributed.bake.bake`)."""
    fn = target("navkit.corpus.replay", "replay")
    with DaskRunner(client, scheduler=scheduler, n_workers=n_workers, processes=processes,
                    timeout=timeout, progress=False, description="replay") as runner:
        return fn(*args, map_batches=runner.map_batches, progress=progress, **kwargs)
