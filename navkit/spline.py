"""Catmull-Rom smoothing of a path's waypoints, for display only.

A path's straight segments are what collision and movement follow; a spline
through the same waypoints only looks nicer on screen (it may cut a corner
a character could not). :func:`catmull_rom` is the centripetal variant
(``alpha = 0.5``): it passes through every waypoint, has no cusp and no
self-intersection within a segment, and overshoots less than the uniform
variant. The two end segments use phantom points reflected through the end
waypoints (``P[-1] = 2 P[0] - P[1]``), so a two-point path stays its straight
segment. Plain numpy: a path has few waypoints.

>>> import numpy as np
>>> catmull_rom(np.array([[0.0, 0.0], [2.0, 0.0]]), 2.0).round(12).tolist()
[[0.0, 0.0], [0.5, 0.0], [1.0, 0.0], [1.5, 0.0], [2.0, 0.0]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import ConfigError, shown

__all__ = ["catmull_rom", "ALPHA", "MAX_SAMPLES"]

#: Centripetal parameterisation: knot spacing ``|P[i+1] - P[i]| ** ALPHA``.
ALPHA = 0.5
#: Most points one call returns; more raises ConfigError (``samples_per_metre`` too high).
MAX_SAMPLES = 1_000_000


def _check_points(points: ArrayLike) -> NDArray[np.float64]:
    try:
        p = np.array(points, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ConfigError(f"expected an (m, 2) array of numbers, got {shown(points)}",
                          field="points") from exc
    if p.size == 0:
        return np.zeros((0, 2), dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != 2:
        raise ConfigError(f"expected shape (m, 2), got {p.shape}", field="points")
    if not np.all(np.isfinite(p)):
        bad = int(np.argmax(~np.all(np.isfinite(p), axis=1)))
        raise ConfigError(f"points[{bad}] is not finite: {p[bad].tolist()}", field="points")
    return p


def _check_rate(samples_per_metre: Any) -> float:
    ok = isinstance(samples_per_metre, (int, float, np.integer, np.floating))
    if isinstance(samples_per_metre, bool) or not ok:
        raise ConfigError(f"expected a number > 0, got {shown(samples_per_metre)}",
                          field="samples_per_metre")
    rate = float(samples_per_metre)
    if not math.isfinite(rate) or rate <= 0:
        raise ConfigError(f"expected a finite number > 0, got {shown(samples_per_metre)}",
                          field="samples_per_metre")
    return rate


def catmull_rom(points: ArrayLike, samples_per_metre: float = 4.0) -> NDArray[np.float64]:
    """Sample the centripetal Catmull-Rom spline through ``points``.

    Parameters
    ----------
    points : array_like, shape (m, 2)
        Waypoints in metres (world ``(x, z)``), in path order. Repeated
        consecutive points are merged.
    samples_per_metre : float
        Sampling density (> 0): segment ``i`` gets ``max(1, ceil(chord_i *
        samples_per_metre))`` samples, so about ``length * samples_per_metre``
        points in all.

    Returns
    -------
    float64 array, shape (k, 2)
        The first waypoint, samples along each segment, and exactly every
        waypoint at its segment boundary; the last point is the last
        waypoint. ``(0, 2)`` for no points, the point itself for one.

    Raises ConfigError naming ``points`` or ``samples_per_metre`` on bad
    input, and ``samples_per_metre`` when more than :data:`MAX_SAMPLES` points
    would come out.

    >>> out = catmull_rom([[0, 0], [1, 1], [2, 0]], 8.0)
    >>> out[0].tolist(), out[-1].tolist(), bool(np.any(np.all(out == [1.0, 1.0], axis=1)))
    ([0.0, 0.0], [2.0, 0.0], True)
    """
    p = _check_points(points)
    rate = _check_rate(samples_per_metre)
    if len(p) > 1:  # merge repeats: a zero-length segment has no knot spacing
        keep = np.ones(len(p), dtype=bool)
        keep[1:] = np.any(p[1:] != p[:-1], axis=1)
        p = p[keep]
    m = len(p)
    if m <= 1:
        return p.copy()
    chord = np.hypot(*(p[1:] - p[:-1]).T)
    counts = np.maximum(1, np.ceil(chord * rate)).astype(np.int64)
    total = int(counts.sum()) + 1
    if total > MAX_SAMPLES:
        raise ConfigError(f"{shown(samples_per_metre)} gives {total} samples for a path of "
                          f"{float(chord.sum()):.6g} m, more than {MAX_SAMPLES}",
                          field="samples_per_metre")
    # phantom end points reflected through the end waypoints
    ext = np.empty((m + 2, 2), dtype=np.float64)
    ext[1:-1] = p
    ext[0] = 2.0 * p[0] - p[1]
    ext[-1] = 2.0 * p[-1] - p[-2]
    gaps = np.hypot(*(ext[1:] - ext[:-1]).T) ** ALPHA
    knots = np.concatenate(([0.0], np.cumsum(gaps)))
    out = np.empty((total, 2), dtype=np.float64)
    at = 0
    for i in range(m - 1):  # the segment from p[i] = ext[i + 1] to p[i + 1] = ext[i + 2]
        n = int(counts[i])
        p0, p1, p2, p3 = ext[i], ext[i + 1], ext[i + 2], ext[i + 3]
        t0, t1, t2, t3 = knots[i], knots[i + 1], knots[i + 2], knots[i + 3]
        frac = (np.arange(n, dtype=np.float64) / n)[:, None]
        if not (t0 < t1 < t2 < t3):  # knots merged in float (a tiny gap beside a huge one)
            out[at:at + n] = p1 + frac * (p2 - p1)
            out[at] = p1
            at += n
            continue
        t = t1 + (t2 - t1) * frac
        # Barry-Goldman pyramid
        a1 = p0 * ((t1 - t) / (t1 - t0)) + p1 * ((t - t0) / (t1 - t0))
        a2 = p1 * ((t2 - t) / (t2 - t1)) + p2 * ((t - t1) / (t2 - t1))
        a3 = p2 * ((t3 - t) / (t3 - t2)) + p3 * ((t - t2) / (t3 - t2))
        b1 = a1 * ((t2 - t) / (t2 - t0)) + a2 * ((t - t0) / (t2 - t0))
        b2 = a2 * ((t3 - t) / (t3 - t1)) + a3 * ((t - t1) / (t3 - t1))
        c = b1 * ((t2 - t) / (t2 - t1)) + b2 * ((t - t1) / (t2 - t1))
        if not np.all(np.isfinite(c)):  # (cannot happen with increasing knots; kept safe)
            c = p1 + frac * (p2 - p1)
        c[0] = p1  # exactly the waypoint
        out[at:at + n] = c
        at += n
    out[at] = p[-1]
    return out
