"""Integer step-cost models.

Kernels add integers only, so a route is bit-identical on every machine. A
model gives the cost of one cardinal and one diagonal step; reported costs are
divided by the cardinal cost ("cardinal-step units": 1.0 per straight step).

>>> SEED.card, SEED.diag
(10, 14)
>>> round(EXACT.diag / EXACT.card, 6)
1.414214
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ConfigError

__all__ = ["CostModel", "SEED", "EXACT", "cost_model"]


@dataclass(frozen=True)
class CostModel:
    """Integer costs of a cardinal and a diagonal step (both > 0)."""

    card: int
    diag: int
    name: str = "custom"

    def __post_init__(self) -> None:
        for label, v in (("card", self.card), ("diag", self.diag)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ConfigError(f"expected a positive int, got {v!r}", field=f"costs.{label}")
        if self.diag < self.card or self.diag > 2 * self.card:
            raise ConfigError(
                f"diagonal cost must lie in [card, 2*card] = [{self.card}, {2 * self.card}], "
                f"got {self.diag}",
                field="costs.diag",
            )
        if self.card > 10**9:
            raise ConfigError(f"cardinal cost too large for int64 path costs: {self.card}",
                              field="costs.card")


#: docs/rules.md §3.2: 10 per straight step, 14 per diagonal step.
SEED = CostModel(10, 14, "seed")
#: sqrt(2) to 7 significant digits: reproduces Moving AI optimal lengths.
EXACT = CostModel(1_000_000, 1_414_214, "exact")

_NAMED = {"seed": SEED, "exact": EXACT}


def cost_model(costs: str | CostModel | tuple[int, int]) -> CostModel:
    """Normalize ``"seed"``, ``"exact"``, a ``(card, diag)`` pair or a :class:`CostModel`."""
    if isinstance(costs, CostModel):
        return costs
    if isinstance(costs, str):
        try:
            return _NAMED[costs]
        except KeyError:
            raise ConfigError(f"expected one of {sorted(_NAMED)}, got {costs!r}",
                              field="costs") from None
    if isinstance(costs, tuple) and len(costs) == 2:
        return CostModel(costs[0], costs[1])
    raise ConfigError(f"expected 'seed', 'exact', (card, diag) or CostModel, got {costs!r}",
                      field="costs")
