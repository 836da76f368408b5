"""The spatial-hash tests' brute-force radius oracle, with the hash's rule for tiny radii.

A radius query compares ``dx * dx + dz * dz <= r * r`` in float64; for a
radius below ``2**-400`` m both sides would round toward zero (a point
1e-300 m away would pass a radius-0 test), so the comparison is made on
coordinates times ``2**600`` (exact: a power of two). ``scipy``'s cKDTree
squares as it is: it agrees on membership for radii of ``2**-400`` and more.
"""

from __future__ import annotations

import numpy as np

TINY_R = 2.0**-400
SCALE = 2.0**600


def radius_keys(pts: np.ndarray, p, r: float) -> tuple[np.ndarray, float]:
    """The squared distances of ``pts`` (n, 2) from ``p`` and the squared radius,
    as a radius-``r`` query compares them."""
    s = SCALE if r < TINY_R else 1.0
    with np.errstate(over="ignore"):
        d = (pts - np.asarray(p, dtype=np.float64)) * s
        return (d**2).sum(axis=1), (r * s) ** 2


def ckdtree_agrees(r: float) -> bool:
    """cKDTree's membership is the oracle's (no tiny radius)."""
    return r >= TINY_R
