"""Dask clients for navkit: an embedded ``LocalCluster`` or an existing scheduler.

>>> DEFAULT_WORKERS, DEFAULT_TIMEOUT_S
(2, 10.0)

:func:`local_client` starts an embedded cluster (``n_workers`` processes,
one thread each, no dashboard, quiet logs) whose workers share the client's
numba cache folder, so a warm cache on this machine is warm for them too.
:func:`connect` joins an existing scheduler and fails within ``timeout``
seconds with a :class:`~navkit.errors.ConfigError` naming the address.
:func:`get_client` picks one of the two (or takes a ``Client`` you made).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from ..errors import ConfigError, NavkitError, require_extra

__all__ = ["DEFAULT_WORKERS", "DEFAULT_TIMEOUT_S", "local_client", "connect", "get_client",
           "worker_env", "require_distributed", "close_client"]

#: Workers of the embedded cluster (one thread each).
DEFAULT_WORKERS = 2
#: Seconds :func:`connect` waits for a scheduler.
DEFAULT_TIMEOUT_S = 10.0
#: Environment variables handed to worker processes when set here.
_PASSED_ENV = ("NUMBA_CACHE_DIR", "NAVKIT_NUMBA_CACHE", "NAVKIT_QUIET_COMPILE",
               "NUMBA_DISABLE_JIT", "PYTHONPATH")


def require_distributed() -> None:
    """Raise :class:`~navkit.errors.MissingExtraError` unless ``dask.distributed`` imports."""
    require_extra(["dask", "distributed"], "running on Dask", "distributed")


def worker_env() -> dict[str, str]:
    """Environment for embedded workers: the client's numba cache settings.

    Worker processes compute navkit's cache folder the same way the client
    does (``$NUMBA_CACHE_DIR``, else the package's ``__pycache__``, else the
    user cache); passing the variables makes that explicit, and a single
    ``NUMBA_NUM_THREADS=1`` keeps each worker's batches on its own core.
    """
    env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
    env.setdefault("NUMBA_NUM_THREADS", "1")
    env.setdefault("NAVKIT_QUIET_COMPILE", "1")
    return env


def local_client(
    n_workers: int = DEFAULT_WORKERS,
    *,
    processes: bool = True,
    threads_per_worker: int = 1,
    env: dict[str, str] | None = None,
) -> Any:
    """A ``distributed.Client`` on a new embedded ``LocalCluster``.

    ``processes=False`` runs the workers as threads of this process (navkit's
    kernels release the GIL, see docs/distributed.md for the measured cost).
    ``env`` adds environment variables for worker processes. Closing the
    client does not stop the cluster: use :func:`close_client`, or a runner
    that owns it.
    """
    require_distributed()
    for name, v in (("n_workers", n_workers), ("threads_per_worker", threads_per_worker)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ConfigError(f"expected an int >= 1, got {v!r}", field=name)
    from distributed import Client, LocalCluster

    kwargs: dict[str, Any] = {}
    if processes:
        kwargs["env"] = {**worker_env(), **(env or {})}
    cluster = LocalCluster(
        n_workers=n_workers,
        threads_per_worker=threads_per_worker,
        processes=processes,
        dashboard_address=":0",  # the scheduler's HTTP routes on a free port
        scheduler_kwargs={"dashboard": False},  # ... and no dashboard
        silence_logs=logging.CRITICAL,  # (closing races log heartbeat errors)
        **kwargs,
    )
    return Client(cluster, set_as_default=False)


def connect(address: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> Any:
    """A ``distributed.Client`` on the scheduler at ``address`` (``tcp://host:8786``).

    Raises :class:`~navkit.errors.ConfigError` (field ``scheduler``) naming
    the address when no scheduler answers within ``timeout`` seconds.
    """
    require_distributed()
    if not isinstance(address, str) or not address.strip():
        raise ConfigError(f"expected a scheduler address, got {address!r}", field="scheduler")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ConfigError(f"expected seconds > 0, got {timeout!r}", field="timeout")
    from distributed import Client

    try:
        return Client(address, timeout=float(timeout), set_as_default=False)
    except NavkitError:
        raise
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise ConfigError(f"cannot reach a Dask scheduler at {address!r} within "
                          f"{timeout:g} s ({type(exc).__name__}: {exc})",
                          field="scheduler") from None


def get_client(
    client: Any = None,
    *,
    scheduler: str | None = None,
    n_workers: int = DEFAULT_WORKERS,
    processes: bool = True,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> tuple[Any, bool]:
    """``(client, owned)``: ``client`` itself, one connected to ``scheduler``,
    or a new embedded cluster; ``owned`` is True when the caller should close it."""
    if client is not None:
        if scheduler is not None:
            raise ConfigError("give a client or a scheduler address, not both",
                              field="scheduler")
        require_distributed()
        from distributed import Client

        if not isinstance(client, Client):
            raise ConfigError(f"expected a distributed.Client, got {type(client).__name__}",
                              field="client")
        return client, False
    if scheduler is not None:
        return connect(scheduler, timeout=timeout), True
    return local_client(n_workers, processes=processes), True


def close_client(client: Any) -> None:
    """Close ``client`` and, when it runs an embedded cluster, the cluster too."""
    cluster = getattr(client, "cluster", None)
    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.CRITICAL)  # closing logs INFO lines and heartbeat races
    try:
        client.close()
        if cluster is not None:
            cluster.close()
    finally:
        log.setLevel(level)

