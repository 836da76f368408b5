"""A query's obstacle circles with its ``ignore=`` ids applied (docs/rules.md §7.6).

Backends that search with a plain circle array (a mesh, a chunked world) take
the same ``obstacles=`` / ``ignore=`` pair as the grids through
:func:`circles_without`: the circles of an
:class:`~navkit.query.edits.ObstacleSnapshot` (or a ``(k, 3)`` array) less the
ones whose ids are ignored, in their original order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .edits import ignore_ids
from .overlay import as_circles

__all__ = ["circles_without"]


def circles_without(obstacles: Any, ignore: Any) -> NDArray[np.float64] | None:
    """The query's circles: a writeable float64 ``(k, 3)`` copy of ``obstacles``
    (circles or an ObstacleSnapshot), less the ids in ``ignore`` (snapshot ids,
    else row indices); None without obstacles (``ignore`` is still checked).

    >>> circles_without([[0, 0, 1], [5, 5, 1]], 0).tolist()
    [[5.0, 5.0, 1.0]]
    """
    if obstacles is None:
        if ignore is not None:
            ignore_ids(ignore)
        return None
    snap_ids = getattr(obstacles, "ids", None)
    if hasattr(obstacles, "circles") and snap_ids is not None:  # an ObstacleSnapshot
        circles = np.array(obstacles.circles, dtype=np.float64)
        ids = np.asarray(snap_ids, dtype=np.int64)
    else:
        circles = np.array(as_circles(obstacles), dtype=np.float64)
        ids = np.arange(len(circles), dtype=np.int64)
    if ignore is not None:
        circles = np.ascontiguousarray(circles[~np.isin(ids, ignore_ids(ignore))])
    return circles
