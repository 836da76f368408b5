"""What a mesh search returns to the :class:`~navkit.mesh.NavMesh` facade."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["SearchOutcome"]


class SearchOutcome(NamedTuple):
    """One search on a mesh, before the facade wraps it in a result.

    ``status`` uses :class:`navkit.Status` codes (0 found, 1 unreachable,
    2 budget exhausted); ``waypoints`` is a fresh ``(m, 2)`` float64 array of
    world ``(x, z)`` metres from start to goal inclusive (empty without a
    path); ``length`` is the path's Euclidean length in metres (``inf``
    without a path); ``expanded`` / ``generated`` count search nodes.
    """

    status: int
    waypoints: NDArray[np.float64]
    length: float
    expanded: int
    generated: int
