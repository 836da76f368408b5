"""Executors for ``map_batches(fn, spec, batches) -> Iterator[list]``.

The hook every batched navkit job (bakes, replays, batch queries) takes:
yield ``fn(spec, batch)`` for each batch, in the order of ``batches``.
``fn`` must be a top-level (picklable) function and ``spec`` picklable;
``spec`` is sent to every worker once, not once per batch.

:class:`LocalRunner` runs the batches one after another in this process (the
reference answer); :class:`DaskRunner` runs them as Dask tasks on an embedded
``LocalCluster`` or an existing scheduler and gives the same results, bit
for bit, in the same order.

>>> def add(spec, batch):
...     return [spec + b for b in batch]
>>> list(LocalRunner(progress=False).map_batches(add, 10, [[1, 2], [3]]))
[[11, 12], [13]]
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ..errors import ConfigError
from .cluster import DEFAULT_TIMEOUT_S, DEFAULT_WORKERS, close_client, get_client

__all__ = ["Runner", "MapBatches", "LocalRunner", "DaskRunner", "as_runner", "timed_call"]

#: ``fn(spec, batch) -> list``: the work of one batch.
BatchFn = Callable[[Any, Any], Any]


class MapBatches(Protocol):
    """The executor hook: ``map_batches(fn, spec, batches)`` yields ``fn(spec, b)`` in order."""

    def __call__(self, fn: BatchFn, spec: Any, batches: Iterable[Any]) -> Iterator[Any]:
        ...


class Runner(Protocol):
    """An object with a ``map_batches`` method and a worker count."""

    @property
    def n_workers(self) -> int:
        ...

    def map_batches(self, fn: BatchFn, spec: Any, batches: Iterable[Any]) -> Iterator[Any]:
        ...


def _progress(enabled: bool, description: str) -> Progress:
    err = Console(file=sys.stderr, highlight=False)
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeRemainingColumn(), console=err, transient=True,
                    disable=not (enabled and err.is_terminal))


def timed_call(fn: BatchFn, spec: Any, batch: Any) -> tuple[Any, float, float]:
    """``(fn(spec, batch), thread CPU seconds, wall seconds)``: what a Dask task runs,
    so the client can tell work from waiting (a busy machine shows as wall >> CPU). A
    generator's items are listed; any other result (a list, a compact batch object such
    as :class:`navkit.world.bake.BatchResult`) is returned as it is."""
    c0, t0 = time.thread_time(), time.perf_counter()
    out = fn(spec, batch)
    if isinstance(out, Iterator):
        out = list(out)
    return out, time.thread_time() - c0, time.perf_counter() - t0


class LocalRunner:
    """Runs every batch here, one after another (the serial reference).

    ``progress``: a rich bar on stderr when it is a terminal. ``stats``: as
    :class:`DaskRunner`'s.
    """

    n_workers = 1

    def __init__(self, *, progress: bool = True, description: str = "batches"):
        self.progress = bool(progress)
        self.description = description
        self.stats: dict[str, float] = {}

    def map_batches(self, fn: BatchFn, spec: Any, batches: Iterable[Any]) -> Iterator[Any]:
        """Yield ``fn(spec, b)`` for each batch, in order (see :func:`timed_call`)."""
        todo = list(batches)
        self.stats = {"tasks": float(len(todo)), "task_cpu_s": 0.0, "task_wall_s": 0.0}
        t0 = time.perf_counter()
        with _progress(self.progress, self.description) as bar:
            task = bar.add_task(self.description, total=len(todo))
            for b in todo:
                out, cpu, wall = timed_call(fn, spec, b)
                self.stats["task_cpu_s"] += cpu
                self.stats["task_wall_s"] += wall
                yield out
                bar.advance(task)
        self.stats["total_s"] = time.perf_counter() - t0

    def close(self) -> None:
        """Nothing to close (for symmetry with :class:`DaskRunner`)."""

    def __enter__(self) -> LocalRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DaskRunner:
    """Runs batches as Dask tasks; the results equal :class:`LocalRunner`'s.

    Parameters
    ----------
    client : distributed.Client, optional
        Use this client (never closed here).
    scheduler : str, optional
        Connect to the scheduler at this address (``tcp://host:8786``);
        :class:`~navkit.errors.ConfigError` naming it when none answers
        within ``timeout`` seconds.
    n_workers, processes :
        The embedded ``LocalCluster`` made when neither is given: ``n_workers``
        workers of one thread each, processes (default) or threads.
    progress : bool
        A rich bar on stderr (when it is a terminal) as tasks finish.

    ``spec`` is scattered to every worker once per :meth:`map_batches` call
    (``broadcast=True``); each batch is one task. ``stats`` holds the last
    call's figures: tasks, scatter and total seconds, and the summed thread CPU
    and wall seconds inside the tasks.
    """

    def __init__(
        self,
        client: Any = None,
        *,
        scheduler: str | None = None,
        n_workers: int = DEFAULT_WORKERS,
        processes: bool = True,
        timeout: float = DEFAULT_TIMEOUT_S,
        progress: bool = True,
        description: str = "batches",
    ):
        self.client, self._owned = get_client(client, scheduler=scheduler, n_workers=n_workers,
                                              processes=processes, timeout=timeout)
        self.progress = bool(progress)
        self.description = description
        self.stats: dict[str, float] = {}

    @property
    def n_workers(self) -> int:
        """Worker threads the scheduler knows now (at least 1)."""
        info = self.client.scheduler_info()
        workers = info.get("workers", {}) if isinstance(info, dict) else {}
        return max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))

    def map_batches(self, fn: BatchFn, spec: Any, batches: Iterable[Any]) -> Iterator[Any]:
        """Yield ``fn(spec, b)`` for each batch, in order, computed on the cluster.

        A batch that raises re-raises here (the same exception type); the
        remaining tasks are then cancelled.
        """
        from distributed import as_completed

        if not callable(fn):
            raise ConfigError(f"expected a function, got {type(fn).__name__}", field="fn")
        todo = list(batches)
        self.stats = {"tasks": float(len(todo))}
        if not todo:
            return
        client = self.client
        t0 = time.perf_counter()
        spec_f = client.scatter([spec], broadcast=True, hash=False)[0]
        self.stats["scatter_s"] = time.perf_counter() - t0
        tag = f"{getattr(fn, '__name__', 'batch')}-{uuid.uuid4().hex[:12]}"
        futures: list[Any] = [client.submit(timed_call, fn, spec_f, b, key=f"{tag}-{i}",
                                            pure=False)
                              for i, b in enumerate(todo)]
        index = {f.key: i for i, f in enumerate(futures)}
        ready: dict[int, list[Any]] = {}
        nxt = 0
        cpu = wall = 0.0
        try:
            with _progress(self.progress, self.description) as bar:
                task = bar.add_task(self.description, total=len(todo))
                for fut in as_completed(futures, loop=client.loop):
                    i = index[fut.key]
                    ready[i], c, w = fut.result()
                    cpu += c
                    wall += w
                    futures[i] = None
                    fut.release()
                    bar.advance(task)
                    while nxt in ready:
                        yield ready.pop(nxt)
                        nxt += 1
        finally:
            pending = [f for f in futures if f is not None]
            if pending:
                client.cancel(pending)
            spec_f.release()
            self.stats.update(total_s=time.perf_counter() - t0, task_cpu_s=cpu, task_wall_s=wall)

    def close(self) -> None:
        """Close the client (and its embedded cluster) when this runner made it."""
        if self._owned and self.client is not None:
            close_client(self.client)
            self._owned = False

    def __enter__(self) -> DaskRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def as_runner(runner: Any = None, **dask_options: Any) -> tuple[Any, bool]:
    """``(runner, owned)``: ``runner`` itself; a :class:`DaskRunner` on it when it is a
    ``distributed.Client``; a :class:`LocalRunner` when None."""
    if runner is None:
        return LocalRunner(progress=dask_options.get("progress", True)), True
    if hasattr(runner, "map_batches"):
        return runner, False
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover
        pass
    else:
        if isinstance(runner, Client):
            return DaskRunner(runner, **dask_options), True
    raise ConfigError(f"expected a runner or a distributed.Client, got {type(runner).__name__}",
                      field="runner")
