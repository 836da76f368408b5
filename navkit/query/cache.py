"""Bounded LRU caches with statistics: :class:`LRUCache`, and :class:`PathCache` of path results
(docs/rules.md §12.6).

A path cache keys paths by their endpoints, forgets them when the terrain
changes, is bounded by an LRU cap and reports hits, misses and evictions
(docs/rules.md §12.6). A key names everything a path
depends on::

    (map token, start cell, end cell, options, map version, occupancy version, obstacle key)

so a map change can never return a stale path: the new version makes every
old key unreachable, and :meth:`PathCache.invalidate` drops the dead entries.

Dynamic obstacles are **keyed, not bypassed**: the obstacle key is ``None``
without obstacles, else the snapshot's exact bytes after sorting its rows
(:func:`obstacle_key`). An identical snapshot, in any row order, hits; a
snapshot that differs in any bit misses, so a cached path never runs
through an obstacle it was not planned around. Characters that stand still
produce identical snapshots, which is when repeated queries happen.

>>> cache = PathCache(2)
>>> cache.put("a", 1); cache.put("b", 2); cache.get("a")
1
>>> cache.put("c", 3)  # evicts "b", the least recently used
>>> cache.get("b") is None, cache.stats["evictions"], cache.stats["size"]
(True, 1, 2)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError

__all__ = ["LRUCache", "PathCache", "obstacle_key"]

V = TypeVar("V")


def obstacle_key(circles: NDArray[np.float64] | None) -> tuple[tuple[int, ...], bytes] | None:
    """Cache key of an obstacle snapshot: ``None`` when empty, else ``(shape, bytes)``.

    ``circles`` is a float64 array, normally ``(k, 3)``. Its rows are sorted
    first, so the same circles in another order give the same key, and
    ``-0.0`` counts as ``0.0``. The key holds the sorted bytes themselves, not
    a digest of them: equal keys mean bit-identical snapshots, with no chance
    of a collision. Validation is left to the query: an invalid snapshot
    raises before anything is stored under its key.

    >>> a = np.array([[1.0, 2.0, 0.5], [0.0, 0.0, 1.0]])
    >>> obstacle_key(a) == obstacle_key(a[::-1]), obstacle_key(np.zeros((0, 3)))
    (True, None)
    >>> obstacle_key(a) == obstacle_key(a + [0.0, 0.0, 1e-12])
    False
    """
    if circles is None or circles.size == 0:
        return None
    rows = circles + 0.0  # a copy, with -0.0 turned into 0.0
    if rows.ndim == 2 and rows.shape[1] == 3:
        rows = rows[np.lexsort(rows.T[::-1])]
    return (rows.shape, rows.tobytes())


class LRUCache(Generic[V]):
    """A map from hashable keys to values that keeps the ``maxsize`` most recently used.

    Parameters
    ----------
    maxsize : int
        Most entries kept (>= ``minsize``); inserting into a full cache evicts
        the least recently used entry. ``0`` (where allowed) disables the
        cache: :meth:`get` always misses and :meth:`put` stores nothing.
    minsize : int
        The smallest ``maxsize`` accepted (0 or 1).
    field : str
        The option name a bad ``maxsize`` is reported under.

    :attr:`stats` counts hits, misses, evictions and invalidations.
    """

    def __init__(self, maxsize: int, *, minsize: int = 0, field: str = "maxsize"):
        if (isinstance(maxsize, bool) or not isinstance(maxsize, (int, np.integer))
                or maxsize < minsize):
            raise ConfigError(f"expected an int >= {minsize}, got {maxsize!r}", field=field)
        self._maxsize = int(maxsize)
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self._hits = 0
        self._misses = 0
        self._evictions = 0
        self._invalidations = 0

    @property
    def maxsize(self) -> int:
        """The LRU cap (0: disabled)."""
        return self._maxsize

    @property
    def enabled(self) -> bool:
        """True when the cache can hold entries (``maxsize > 0``)."""
        return self._maxsize > 0

    def get(self, key: Hashable, valid: Callable[[V], bool] | None = None) -> V | None:
        """The value under ``key`` (now the most recently used), or None; counts a
        hit or a miss. A value for which ``valid`` is false counts as a miss."""
        try:
            value = self._data[key]
        except KeyError:
            self._misses += 1
            return None
        if valid is not None and not valid(value):
            self._misses += 1
            return None
        self._data.move_to_end(key)
        self._hits += 1
        return value

    def peek(self, key: Hashable) -> V | None:
        """The value under ``key`` or None, counting nothing and leaving the order alone."""
        return self._data.get(key)

    def put(self, key: Hashable, value: V) -> None:
        """Store ``value`` under ``key``, evicting least recently used entries
        beyond ``maxsize``."""
        if self._maxsize == 0:
            return
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self._maxsize:
            self._data.popitem(last=False)
            self._evictions += 1

    def invalidate(self, which: Callable[[Hashable], bool] | None = None) -> int:
        """Drop the entries whose key ``which`` accepts (every entry when None),
        as after a map change; counts one invalidation and returns how many went."""
        if which is None:
            dropped = len(self._data)
            self._data.clear()
        else:
            keys = [k for k in self._data if which(k)]
            for k in keys:
                del self._data[k]
            dropped = len(keys)
        self._invalidations += 1
        return dropped

    def clear(self) -> None:
        """Drop every entry and zero all counters."""
        self._data.clear()
        self._hits = self._misses = self._evictions = self._invalidations = 0

    @property
    def stats(self) -> dict[str, int]:
        """``hits``, ``misses``, ``evictions``, ``invalidations``, ``size`` and ``maxsize``."""
        return {
            "hits": self._hits,
            "misses": self._misses,
            "evictions": self._evictions,
            "invalidations": self._invalidations,
            "size": len(self._data),
            "maxsize": self._maxsize,
        }

    def keys(self) -> Iterator[Hashable]:
        """The keys, least recently used first."""
        return iter(list(self._data))

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._data

    def __repr__(self) -> str:
        s = self.stats
        return (
            f"{type(self).__name__}(size={s['size']}/{s['maxsize']}, hits={s['hits']}, "
            f"misses={s['misses']}, evictions={s['evictions']})"
        )


class PathCache(LRUCache[Any]):
    """LRU map from query keys to (frozen) :class:`~navkit.results.PathResult` objects.

    ``maxsize`` (>= 0, default 1024): ``0`` disables the cache. Values are
    stored as given and shared between callers, so they must be immutable:
    navkit stores frozen results whose arrays are read-only.
    """

    def __init__(self, maxsize: int = 1024):
        super().__init__(maxsize, minsize=0, field="cache_size")
