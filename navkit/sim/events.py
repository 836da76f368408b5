"""What a :class:`~navkit.sim.Location` reports: one tick's events, the running totals."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["TickEvents", "SimStats"]


@dataclass
class TickEvents:
    """What happened during one tick (IDs in stable-ID order)."""

    tick: int
    arrived: list[Any] = field(default_factory=list)
    blocked_stops: list[Any] = field(default_factory=list)
    retries: list[Any] = field(default_factory=list)
    interactions: list[tuple[Any, Any]] = field(default_factory=list)
    gave_up: list[Any] = field(default_factory=list)
    #: Characters added or moved since the last tick onto a point no plan can
    #: start from (in a wall, nothing navigable within the snap radius;
    #: docs/rules.md §9.7). Each was also warned about with a ``NavkitWarning``.
    in_wall: list[Any] = field(default_factory=list)
    replans: int = 0
    moved: int = 0
    blocked: int = 0
    waited: int = 0
    #: Smallest ``distance - r_i - r_j`` between neighbouring contact circles (inf: none near).
    min_gap: float = math.inf

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "tick": self.tick,
            "arrived": list(self.arrived),
            "blockedStops": list(self.blocked_stops),
            "retries": list(self.retries),
            "interactions": [list(p) for p in self.interactions],
            "gaveUp": list(self.gave_up),
            "replans": self.replans,
            "minGap": None if not math.isfinite(self.min_gap) else self.min_gap,
            **({"inWall": list(self.in_wall)} if self.in_wall else {}),
        }


@dataclass
class SimStats:
    """Counters over a location's life (saved with its state)."""

    ticks: int = 0
    arrivals: int = 0
    blocked_stops: int = 0
    retries: int = 0
    replans: int = 0
    forced_replans: int = 0
    interactions: int = 0
    gave_up: int = 0
    min_gap: float = math.inf

    def add(self, ev: TickEvents) -> None:
        self.ticks += 1
        self.arrivals += len(ev.arrived)
        self.blocked_stops += len(ev.blocked_stops)
        self.retries += len(ev.retries)
        self.replans += ev.replans
        self.interactions += len(ev.interactions)
        self.gave_up += len(ev.gave_up)
        if ev.min_gap < self.min_gap:
            self.min_gap = ev.min_gap

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "ticks": self.ticks,
            "arrivals": self.arrivals,
            "blockedStops": self.blocked_stops,
            "retries": self.retries,
            "replans": self.replans,
            "forcedReplans": self.forced_replans,
            "interactions": self.interactions,
            "gaveUp": self.gave_up,
            "minGap": None if not math.isfinite(self.min_gap) else self.min_gap,
        }

    @classmethod
    def from_json_dict(cls, d: dict[str, Any]) -> SimStats:
        mg = d.get("minGap")
        return cls(
            ticks=int(d.get("ticks", 0)), arrivals=int(d.get("arrivals", 0)),
            blocked_stops=int(d.get("blockedStops", 0)), retries=int(d.get("retries", 0)),
            replans=int(d.get("replans", 0)), forced_replans=int(d.get("forcedReplans", 0)),
            interactions=int(d.get("interactions", 0)), gave_up=int(d.get("gaveUp", 0)),
            min_gap=math.inf if mg is None else float(mg),
        )
