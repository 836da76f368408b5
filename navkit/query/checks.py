"""Path checking under the grid rules: is a cell path legal, how long is it, is it optimal.

The rules are the Moving AI ones navkit follows: 8-connected moves, a
straight step costs 1 and a diagonal ``sqrt(2)``, no blocked cell, and no
corner cutting (a diagonal step needs both side cells walkable). Cells are
``(x, y)`` (``y`` is the grid row, ``z`` in navkit's world terms) and
``walkable`` is indexed ``[y, x]``, as :attr:`NavGrid.walkable
<navkit.grid.NavGrid.walkable>` is.

:func:`path_length` re-measures any library's answer, :func:`step_length`
measures a chain of king moves while ignoring obstacles (what a
corner-cutting answer would cost), and :func:`is_optimal` compares a length
with a scenario's printed optimum ``L`` under the tolerance the Moving AI
files need (``0.005 + 1e-5 * L``: they print about 6 significant digits; the
same as :meth:`ScenarioSet.tolerance <navkit.formats.movingai.ScenarioSet.tolerance>`).

>>> import numpy as np
>>> w = np.ones((3, 3), bool)
>>> length, why = path_length([(0, 0), (1, 1), (2, 2)], w, (0, 0), (2, 2))
>>> round(length, 6), why, is_optimal(length, 2.828427)
(2.828427, 'ok', True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["path_length", "step_length", "is_optimal", "SQRT2"]

#: Cost of a diagonal step.
SQRT2 = math.sqrt(2.0)


def path_length(
    cells: Any, walkable: NDArray[np.bool_], start: Sequence[int], goal: Sequence[int]
) -> tuple[float | None, str]:
    """Length of a cell path ``(x, y)`` under the grid rules, or ``(None, why)``.

    ``why`` is ``"ok"`` for a legal path, else one of ``"no path"``,
    ``"wrong endpoints"``, ``"off the map"``, ``"blocked cell"``, ``"jump"``
    (a step longer than one cell) or ``"corner cut"``.

    >>> w = np.ones((3, 3), bool); w[1, 1] = False
    >>> path_length([(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)], w, (0, 0), (2, 2))
    (4.0, 'ok')
    >>> path_length([(0, 1), (1, 0)], w, (0, 1), (1, 0))
    (None, 'corner cut')
    """
    arr = np.asarray(cells, dtype=np.int64)
    if arr.size == 0:
        return None, "no path"
    arr = arr.reshape(-1, 2)
    ends = (tuple(arr[0]), tuple(arr[-1]))
    if ends != (tuple(int(v) for v in start), tuple(int(v) for v in goal)):
        return None, "wrong endpoints"
    h, w = walkable.shape
    x, y = arr[:, 0], arr[:, 1]
    if (x < 0).any() or (x >= w).any() or (y < 0).any() or (y >= h).any():
        return None, "off the map"
    if not walkable[y, x].all():
        return None, "blocked cell"
    d = np.diff(arr, axis=0)
    adx, ady = np.abs(d[:, 0]), np.abs(d[:, 1])
    if (adx > 1).any() or (ady > 1).any():
        return None, "jump"
    diag = (adx == 1) & (ady == 1)
    if diag.any():
        x0, y0 = x[:-1][diag], y[:-1][diag]
        dx, dy = d[diag, 0], d[diag, 1]
        if not (walkable[y0, x0 + dx] & walkable[y0 + dy, x0]).all():
            return None, "corner cut"
    n_diag = int(diag.sum())
    n_straight = int(((adx + ady) == 1).sum())
    return n_straight + SQRT2 * n_diag, "ok"


def step_length(cells: Any) -> float | None:
    """Octile length of a chain of king moves, ignoring obstacles and corners (None if it jumps).

    >>> round(step_length([(0, 0), (1, 1), (1, 2)]), 6)
    2.414214
    """
    arr = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
    d = np.abs(np.diff(arr, axis=0))
    if (d > 1).any():
        return None
    return float(((d.sum(axis=1) == 1).sum()) + SQRT2 * int((d.sum(axis=1) == 2).sum()))


def is_optimal(length: float | None, optimal: float) -> bool:
    """True when ``length`` is within ``0.005 + 1e-5 * optimal`` of ``optimal`` (None: False).

    >>> is_optimal(1704.0, 1703.999133), is_optimal(None, 1.0), is_optimal(2.0, 1.0)
    (True, False, False)
    """
    return length is not None and abs(length - optimal) <= 0.005 + 1e-5 * optimal
