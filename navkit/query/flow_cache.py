"""Built flow fields shared by goals, cost model, obstacles and map version (docs/rules.md §12.6).

Every unit heading for the same goals on the same map shares one field, and
a terrain change invalidates it. A key holds::

    (map identity, map version, goal cells, costs, connectivity, obstacle key)
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..costs import CostModel, cost_model
from ..errors import QueryError
from ..grid import NavGrid
from .cache import LRUCache, obstacle_key
from .flow import FlowField, check_circles, goal_cells
from .flow_search import FlowBuffers
from .pathfinder import Pathfinder
from .serial import serialized

__all__ = ["FlowFieldCache"]


class FlowFieldCache:
    """Built flow fields kept by goals, cost model, obstacles and map version.

    The map version is ``version`` when given (bump it on a terrain change),
    else for a :class:`~navkit.query.pathfinder.Pathfinder` its set of live
    occupant handles and its cell-edit :attr:`~navkit.query.pathfinder.Pathfinder.version`
    (adding or removing an occupant, or editing a cell, makes a new key), else
    nothing: a :class:`~navkit.grid.NavGrid` is immutable. Goals are a set
    (order and repeats do not matter); obstacle snapshots are keyed by
    :func:`navkit.query.cache.obstacle_key` (exact bytes, rows in any order).
    The least recently used field is dropped beyond ``maxsize``; fields of one
    map share their search buffers.

    Returned fields are shared: do not :meth:`~FlowField.build` or
    :meth:`~FlowField.update` them (a field changed that way is rebuilt on
    its next lookup).

    >>> import numpy as np, navkit
    >>> cache = navkit.FlowFieldCache(maxsize=4)
    >>> grid = navkit.NavGrid(np.ones((8, 8), bool))
    >>> a = cache.get(grid, [(7, 7)]); b = cache.get(grid, [(7, 7)])
    >>> a is b, cache.stats["hits"], cache.stats["misses"]
    (True, 1, 1)

    Thread safety: one object may be shared by threads; its queries and edits take
    turns under its ``lock`` (:mod:`navkit.query.serial`). For parallel queries give
    each thread its own object, or use ``find_paths_cells`` (all cores).
    """

    def __init__(self, maxsize: int = 16):
        #: Held by every lookup (re-entrant; see :mod:`navkit.query.serial`).
        self.lock = threading.RLock()
        # key -> (source, field, field revision when stored)
        self._lru: LRUCache[tuple[Any, FlowField, int]] = LRUCache(maxsize, minsize=1,
                                                                   field="maxsize")
        self._buffers: dict[int, tuple[Any, FlowBuffers]] = {}

    @property
    def maxsize(self) -> int:
        """Most fields kept."""
        return self._lru.maxsize

    @staticmethod
    def _version(source: Any, version: Any) -> Any:
        if version is not None:
            return ("version", version)
        if isinstance(source, Pathfinder):
            # the cell edits too (docs/edits.md): a field of an older map never hits
            return ("occupants", tuple(sorted(source.occupants)), "edits", source.version)
        return None

    @serialized
    def get(
        self,
        source: NavGrid | Pathfinder,
        goals: ArrayLike,
        *,
        costs: str | CostModel | tuple[int, int] | None = None,
        connectivity: int | None = None,
        obstacles: ArrayLike | None = None,
        version: Any = None,
    ) -> FlowField:
        """The field toward ``goals`` on ``source``, built on a miss.

        ``costs``, ``connectivity`` and ``obstacles`` are those of
        :class:`FlowField` and :meth:`FlowField.build`; ``version`` is any
        hashable map version (``None``: derived from the map).
        """
        if not isinstance(source, (NavGrid, Pathfinder)):
            raise QueryError(f"expected a NavGrid or a Pathfinder, got {type(source).__name__}")
        if version is not None:
            try:
                hash(version)
            except TypeError:
                raise QueryError("version must be hashable, "
                                 f"got {type(version).__name__}") from None
        if isinstance(source, Pathfinder):
            grid = source.grid
            model = source.costs if costs is None else cost_model(costs)
            conn = source.connectivity if connectivity is None else connectivity
        else:
            grid = source
            model = cost_model("seed" if costs is None else costs)
            conn = 8 if connectivity is None else connectivity
        circles = (check_circles(obstacles) if obstacles is not None
                   else np.zeros((0, 3), dtype=np.float64))
        goal_arr = goal_cells(grid, goals)
        key = (id(source), self._version(source, version), tuple(map(tuple, goal_arr.tolist())),
               (model.card, model.diag), conn, obstacle_key(circles))
        entry = self._lru.peek(key)
        if self._lru.get(key, valid=lambda e: e[1].revision == e[2]) is not None:
            assert entry is not None
            return entry[1]
        if entry is not None:  # changed by its user since: build it again
            field = entry[1]
        else:
            field = FlowField(source, model, connectivity=conn,
                              buffers=self._buffers_for(source, grid))
        field.build(goal_arr, obstacles=circles if len(circles) else None)
        self._lru.put(key, (source, field, field.revision))
        self._forget_buffers()
        return field

    def _buffers_for(self, source: Any, grid: NavGrid) -> FlowBuffers:
        item = self._buffers.get(id(source))
        if item is None:
            buffers = FlowBuffers((grid.width + 2) * (grid.depth + 2))
            self._buffers[id(source)] = (source, buffers)
            return buffers
        return item[1]

    def _forget_buffers(self) -> None:
        """Drop the shared buffers of maps no cached field uses any more."""
        live = {k[0] for k in self._lru.keys()}  # type: ignore[index]
        for sid in [s for s in self._buffers if s not in live]:
            del self._buffers[sid]

    @serialized
    def invalidate(self, source: NavGrid | Pathfinder | None = None) -> int:
        """Drop every field of ``source`` (of every map when ``None``), as on a
        terrain change; counts one invalidation and returns the fields dropped."""
        sid = None if source is None else id(source)
        dropped = self._lru.invalidate(None if sid is None else (lambda k: k[0] == sid))  # type: ignore[index]
        self._forget_buffers()
        return dropped

    @serialized
    def clear(self) -> None:
        """Drop every field and zero all counters."""
        self._lru.clear()
        self._buffers.clear()

    @property
    def stats(self) -> dict[str, int]:
        """``hits``, ``misses``, ``evictions``, ``invalidations``, ``size`` and
        ``maxsize`` (the keys of :attr:`navkit.query.cache.PathCache.stats`)."""
        return self._lru.stats

    def __len__(self) -> int:
        return len(self._lru)

    def __repr__(self) -> str:
        s = self.stats
        return (f"FlowFieldCache(size={s['size']}/{s['maxsize']}, hits={s['hits']}, "
                f"misses={s['misses']}, evictions={s['evictions']})")
