"""One lock per query object, so that threads sharing it take turns.

A query object (:class:`~navkit.query.pathfinder.Pathfinder`,
:class:`~navkit.query.navmap.NavMap`, :class:`~navkit.query.hpa.HPAStar`,
:class:`~navkit.query.flow.FlowField`, :class:`~navkit.query.flow_cache.FlowFieldCache`)
owns mutable workspaces that its kernels write into. Each public method that
touches them runs under the object's ``lock`` (a re-entrant lock: a method may
call another). Uncontended, the lock costs about a tenth of a microsecond; threads
that share one object run its queries one at a time. For parallel queries, give
each thread its own object or use ``find_paths_cells``, which runs on every core.

``lock`` is public: hold it to make several calls one atomic step::

    with pf.lock:
        pf.add_occupant(1.0, 2.0, 0.5)
        r = pf.find_path((0.5, 0.5), (9.5, 9.5))
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["serialized"]

F = TypeVar("F", bound=Callable[..., Any])


def serialized(method: F) -> F:
    """Run ``method`` under ``self.lock`` (a ``threading.RLock``).

    >>> import threading
    >>> class Counter:
    ...     def __init__(self):
    ...         self.lock, self.n = threading.RLock(), 0
    ...     @serialized
    ...     def bump(self):
    ...         self.n += 1
    ...         return self.n
    >>> Counter().bump()
    1
    """

    @functools.wraps(method)
    def locked(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return method(self, *args, **kwargs)

    return locked  # type: ignore[return-value]
