"""Cutting work into Dask tasks: shuffle with a fixed seed, batches of >= ~20 ms.

A Dask task costs about 0.2-2 ms of scheduling and transfer (measured in
docs/distributed.md), so one task per query would spend more time on
overhead than on searching. Items are shuffled first (Moving AI scenario
files are sorted by difficulty: unshuffled, the last batches would hold all
the long searches) and cut into batches whose estimated work is at least
``min_batch_s``; results come back in the original order through
:func:`unshuffle`.

>>> order = shuffle_order(6, seed=0)
>>> sorted(order.tolist())
[0, 1, 2, 3, 4, 5]
>>> batch_size(1e-3, min_batch_s=0.02)
20
>>> [b.tolist() for b in split(np.arange(5), 2)]
[[0, 1], [2, 3, 4]]
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError

__all__ = ["MIN_BATCH_S", "SEED", "shuffle_order", "unshuffle", "batch_size", "split",
           "calibrate", "plan_batches"]

#: Smallest estimated work per task, in seconds.
MIN_BATCH_S = 0.02
#: Default shuffle seed (results never depend on it: order is restored).
SEED = 0


def shuffle_order(n: int, seed: int = SEED) -> NDArray[np.int64]:
    """A permutation of ``range(n)`` (int64, shape (n,)) from numpy's PCG64 with ``seed``:
    the same on every machine."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ConfigError(f"expected an int >= 0, got {n!r}", field="n")
    return np.random.default_rng(seed).permutation(int(n)).astype(np.int64)


def unshuffle(order: NDArray[np.int64], values: NDArray[Any]) -> NDArray[Any]:
    """``out`` with ``out[order[i]] = values[i]``: results of shuffled items back in input order."""
    out = np.empty_like(values)
    out[order] = values
    return out


def batch_size(cost_per_item_s: float, *, min_batch_s: float = MIN_BATCH_S,
               n_items: int | None = None) -> int:
    """Items per batch so one batch holds >= ``min_batch_s`` seconds of work.

    ``cost_per_item_s`` is the estimated seconds per item; 0 (no estimate)
    means one batch of everything. ``n_items`` caps the size.
    """
    for name, v in (("cost_per_item_s", cost_per_item_s), ("min_batch_s", min_batch_s)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise ConfigError(f"expected seconds >= 0, got {v!r}", field=name)
    if cost_per_item_s > 0:
        size = max(1, math.ceil(min_batch_s / cost_per_item_s - 1e-9))
    else:
        size = n_items if n_items else 1
    if n_items is not None and n_items > 0:
        size = min(size, n_items)
    return max(1, int(size))


def split(items: NDArray[Any], size: int) -> list[NDArray[Any]]:
    """Cut ``items`` into consecutive batches of ``size`` items; a short tail joins the
    last batch so every batch holds at least ``size`` items (when there are that many)."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ConfigError(f"expected an int >= 1, got {size!r}", field="size")
    n = len(items)
    k = max(1, n // int(size))
    bounds = [i * int(size) for i in range(k)] + [n]
    return [items[bounds[i]:bounds[i + 1]] for i in range(k)] if n else []


def calibrate(fn: Callable[[Any, Any], Sequence[Any]], spec: Any, items: NDArray[Any],
              *, budget_s: float = 0.05, max_items: int = 256) -> tuple[float, int, list[Any]]:
    """Run ``fn(spec, items[:k])`` here for growing ``k`` until ``budget_s`` seconds of
    this thread's CPU time are spent; ``(CPU seconds per item, k, results of items[:k])``.
    CPU time, not wall time: on a busy machine wall time counts the waiting too. The
    estimate is the last (largest) step's, where a call's fixed cost weighs least.

    The first item runs once untimed so kernel loading (a JIT cache hit, or a
    compile) is not counted; its result is kept. ``items`` should be shuffled,
    so the sample is representative.
    """
    n = len(items)
    if n == 0:
        return 0.0, 0, []
    out = list(fn(spec, items[:1]))
    done, spent = 1, 0.0
    step = 1
    last = (0.0, 0)  # the largest step's (seconds, items): the least per-call overhead
    while done < min(n, max_items) and spent < budget_s:
        take = min(step, n - done, max_items - done)
        t0 = time.thread_time()
        out.extend(fn(spec, items[done:done + take]))
        dt = time.thread_time() - t0
        spent += dt
        last = (dt, take)
        done += take
        step *= 2
    return (last[0] / last[1] if last[1] else 0.0), done, out


def plan_batches(n_items: int, cost_per_item_s: float, *, min_batch_s: float = MIN_BATCH_S,
                 n_workers: int = 1, per_worker: int = 4) -> int:
    """Batch size for ``n_items`` items: the ``min_batch_s`` floor, else about
    ``per_worker`` batches per worker for load balance, whichever is larger."""
    floor = batch_size(cost_per_item_s, min_batch_s=min_batch_s, n_items=n_items)
    balance = max(1, math.ceil(n_items / max(1, n_workers * per_worker)))
    return max(1, min(n_items, max(floor, min(balance, floor * 8)))) if n_items else 1
