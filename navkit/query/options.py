"""Search options game developers know: diagonal modes, heuristics, a greedy
weight (docs/rules.md §3.9, docs/options.md).

Each option is checked here once and turned into the integers the kernels
read (:class:`~navkit._kernels.layouts.ModelArgs`): no option compiles a new
kernel variant.

>>> o = search_options(8, "always", "euclidean", 1.5)
>>> o.diagonal, o.eight, o.dmode, o.hkind, o.hw
('always', True, 2, 3, 1536)
>>> search_options(4, None, None, 1.0).diagonal
'never'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from ..costs import CostModel
from ..errors import ConfigError, shown
from .padded import PaddedGrid

__all__ = ["DiagonalMode", "Heuristic", "DIAGONAL_MODES", "HEURISTICS", "SearchOptions",
           "search_options", "check_greedy_keys", "WEIGHT_SHIFT", "MAX_GREEDY_WEIGHT",
           "euclid_scale"]

#: Godot's ``AStarGrid2D.DiagonalMode`` names (snake case).
DiagonalMode = Literal["never", "always", "at_least_one_walkable", "only_if_no_obstacles"]
#: The heuristics of the algorithm catalogue.
Heuristic = Literal["octile", "euclidean", "manhattan", "chebyshev"]

#: Diagonal mode -> the kernels' ``dmode`` (0: both side cells free, the corner
#: rule; 1: at least one; 2: none needed). ``"never"`` is 4-connected.
DIAGONAL_MODES: dict[str, int] = {"only_if_no_obstacles": 0, "at_least_one_walkable": 1,
                                  "always": 2, "never": 0}
#: Heuristic -> the kernels' ``hkind``.
HEURISTICS: dict[str, int] = {"octile": 0, "manhattan": 1, "chebyshev": 2, "euclidean": 3}
#: The greedy weight is applied as ``(h * hw) >> WEIGHT_SHIFT``, ``hw = round(w * 1024)``.
WEIGHT_SHIFT = 10
#: Largest greedy weight accepted.
MAX_GREEDY_WEIGHT = 1000.0
#: The Euclidean heuristic is shrunk by this relative margin, which covers
#: float64 rounding (docs/rules.md §3.9): it stays admissible and consistent.
EUCLID_MARGIN = 2.0 ** -16


@dataclass(frozen=True)
class SearchOptions:
    """Checked options: names, and the kernels' integers.

    ``dmode`` (0 / 1 / 2, see :data:`DIAGONAL_MODES`), ``hkind`` (see
    :data:`HEURISTICS`), ``hw`` (greedy weight in 1/1024), ``hs`` (the
    Euclidean heuristic's float scale, 0.0 unless ``heuristic="euclidean"``).
    """

    diagonal: str
    heuristic: str
    weight: float
    eight: bool
    dmode: int
    hkind: int
    hw: int
    hs: float

    @property
    def plain(self) -> bool:
        """True for octile with weight 1: the level queue's heuristic (uniform grids)."""
        return self.hkind == 0 and self.hw == 1 << WEIGHT_SHIFT

    @property
    def corner_rule(self) -> bool:
        """True when diagonals need both side cells free (or there are none)."""
        return self.dmode == 0

    @property
    def admissible(self) -> bool:
        """True when A* with these options returns optimal costs."""
        if self.hw != 1 << WEIGHT_SHIFT:
            return False
        return not (self.hkind == 1 and self.eight)


def euclid_scale(costs: CostModel, eight: bool) -> float:
    """Float scale ``s`` of the Euclidean heuristic ``floor(sqrt(dx*dx + dz*dz) * s)``:
    ``min(card, diag / sqrt(2))`` (``card`` when 4-connected), shrunk by
    :data:`EUCLID_MARGIN`, so no step costs less than ``s`` times its length.

    >>> round(euclid_scale(CostModel(10, 14), True), 4)
    9.8993
    """
    s = float(costs.card)
    if eight:
        s = min(s, costs.diag / math.sqrt(2.0))
    return s * (1.0 - EUCLID_MARGIN)


def search_options(connectivity: int, diagonal: str | None, heuristic: str | None,
                   weight: float, costs: CostModel | None = None) -> SearchOptions:
    """Check ``connectivity`` (4 / 8), ``diagonal`` (None: from connectivity),
    ``heuristic`` (None: octile) and ``weight`` (>= 1), raising
    :class:`ConfigError` naming the field; ``costs`` gives the Euclidean scale."""
    if isinstance(connectivity, bool) or connectivity not in (4, 8):
        raise ConfigError(f"expected 4 or 8, got {shown(connectivity)}", field="connectivity")
    if diagonal is None:
        diagonal = "only_if_no_obstacles" if connectivity == 8 else "never"
    elif not isinstance(diagonal, str) or diagonal not in DIAGONAL_MODES:
        raise ConfigError(f"expected one of {', '.join(map(repr, DIAGONAL_MODES))}, "
                          f"got {shown(diagonal)}", field="diagonal")
    elif connectivity == 4 and diagonal != "never":
        raise ConfigError(f"connectivity=4 has no diagonal moves, but diagonal={diagonal!r}; "
                          "pass connectivity=8 (or leave it out) with a diagonal mode",
                          field="diagonal")
    if heuristic is None:
        heuristic = "octile"
    elif not isinstance(heuristic, str) or heuristic not in HEURISTICS:
        raise ConfigError(f"expected one of {', '.join(map(repr, HEURISTICS))}, "
                          f"got {shown(heuristic)}", field="heuristic")
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        raise ConfigError(f"expected a number >= 1, got {shown(weight)}", field="weight")
    w = float(weight)
    if not math.isfinite(w) or w < 1.0 or w > MAX_GREEDY_WEIGHT:
        raise ConfigError(f"expected a finite number in [1, {MAX_GREEDY_WEIGHT:g}], "
                          f"got {shown(weight)}", field="weight")
    eight = diagonal != "never"
    hkind = HEURISTICS[heuristic]
    hs = euclid_scale(costs, eight) if hkind == 3 and costs is not None else 0.0
    return SearchOptions(diagonal=diagonal, heuristic=heuristic, weight=w, eight=eight,
                         dmode=DIAGONAL_MODES[diagonal], hkind=hkind,
                         hw=int(round(w * (1 << WEIGHT_SHIFT))), hs=hs)


def check_greedy_keys(pg: PaddedGrid, costs: CostModel, hw: int) -> None:
    """ConfigError (field ``weight``) when the greedy heuristic ``h * hw``
    overflows int64 or its queue keys ``(h << nbits) | node``."""
    if hw == 1 << WEIGHT_SHIFT:
        return
    hmax = pg.heuristic_max(costs)
    if hmax * hw >= 1 << 62 or (hmax * hw) >> WEIGHT_SHIFT >= 1 << (62 - pg.nbits):
        raise ConfigError(
            f"a greedy weight of {hw / (1 << WEIGHT_SHIFT):g} makes the heuristic values of a "
            f"{pg.width}x{pg.depth} grid too large for the search's 64-bit queue keys; use a "
            "smaller weight or smaller step costs (e.g. costs='seed')", field="weight")

