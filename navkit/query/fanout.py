"""The one thread fan-out of navkit: work split over a shared thread pool.

Batch kernels run without the GIL, so a small pool of Python threads gives
each core a share: ``work(t)`` for ``t`` in ``range(nthreads)``, each on its
own rows of the workspaces. (Threads rather than numba's ``prange``: a
``parallel=True`` kernel took three times as long to compile, and the work
needs no more than one kernel call per thread.)

>>> out = [0] * 4
>>> def work(t: int) -> None:
...     out[t] = t * t
>>> fan_out(4, 10, work)
>>> out
[0, 1, 4, 9]
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numba

__all__ = ["fan_out", "max_threads"]

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def max_threads() -> int:
    """The most threads a fan-out uses (numba's thread count)."""
    return max(1, int(numba.config.NUMBA_NUM_THREADS))


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=max_threads(), thread_name_prefix="navkit")
        return _POOL


def fan_out(nthreads: int, items: int, work: Callable[[int], None]) -> None:
    """Run ``work(t)`` for every ``t < nthreads``; on the pool when more than
    one thread has work (``items`` is how many items there are to share),
    else inline. Exceptions propagate."""
    if min(nthreads, items) <= 1:
        for t in range(nthreads):
            work(t)
        return
    for f in [_pool().submit(work, t) for t in range(nthreads)]:
        f.result()
