"""Steering behaviours: their parameters and weights, validated.

Units: metres, seconds, radians. Agents have unit mass, so a *force* is an
acceleration (m/s^2) and ``max_force`` caps it.

>>> w = Weights(seek=1.0, separation=2.0)
>>> float(w.as_array()[BEHAVIOURS.index("separation")])
2.0
>>> SteeringParams(slow_radius=-1.0)
Traceback (most recent call last):
...
navkit.errors.ConfigError: slow_radius: expected a finite number > 0, got -1.0
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError

__all__ = ["BEHAVIOURS", "Weights", "SteeringParams", "BLENDINGS", "DEFAULT_PRIORITY",
           "priority_codes"]

#: Behaviour names, in the order of the weight columns (the kernel's codes).
BEHAVIOURS: tuple[str, ...] = ("seek", "flee", "arrive", "wander", "pursue", "evade",
                               "separation", "alignment", "cohesion", "walls", "path", "flow")
#: How the weighted behaviour forces are combined.
BLENDINGS = ("weighted", "priority")
#: Priority order of priority blending (Reynolds' prioritized acceleration allocation).
DEFAULT_PRIORITY: tuple[str, ...] = ("walls", "separation", "evade", "flee", "arrive", "seek",
                                     "pursue", "path", "flow", "cohesion", "alignment", "wander")


def _check(name: str, value: Any, *, positive: bool = False, lo: float | None = None,
           hi: float | None = None) -> float:
    if isinstance(value, bool):
        raise ConfigError(f"expected a number, got {value!r}", field=name)
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"expected a number, got {value!r}", field=name) from None
    if not math.isfinite(v) or (positive and v <= 0) or (not positive and v < 0):
        raise ConfigError(f"expected a finite number {'>' if positive else '>='} 0, got {value!r}",
                          field=name)
    if hi is not None and v > hi:
        raise ConfigError(f"expected at most {hi}, got {value!r}", field=name)
    return v


@dataclass(frozen=True)
class Weights:
    """Weight of each behaviour (dimensionless, >= 0; 0 switches it off).

    The steering force of an agent is ``sum(w_b * f_b)`` truncated to its max
    force (weighted blending), or the ``w_b * f_b`` taken in priority order
    until the max force is used up (priority blending)."""

    seek: float = 0.0
    flee: float = 0.0
    arrive: float = 0.0
    wander: float = 0.0
    pursue: float = 0.0
    evade: float = 0.0
    separation: float = 0.0
    alignment: float = 0.0
    cohesion: float = 0.0
    walls: float = 0.0
    path: float = 0.0
    flow: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, _check(f.name, getattr(self, f.name), hi=1e6))

    def as_array(self) -> NDArray[np.float64]:
        """The weights in :data:`BEHAVIOURS` order, float64 ``(12,)``."""
        return np.array([getattr(self, b) for b in BEHAVIOURS], dtype=np.float64)

    @classmethod
    def from_array(cls, row: Any) -> Weights:
        """The inverse of :meth:`as_array`."""
        vals = np.asarray(row, dtype=np.float64).reshape(-1)
        if len(vals) != len(BEHAVIOURS):
            raise ConfigError(f"expected {len(BEHAVIOURS)} weights, got {len(vals)}",
                              field="weights")
        return cls(**{b: float(v) for b, v in zip(BEHAVIOURS, vals, strict=True)})


@dataclass(frozen=True)
class SteeringParams:
    """Parameters shared by every agent of a crowd (metres, seconds, radians).

    Attributes
    ----------
    slow_radius : float
        Arrive (and the last waypoint of a path): the desired speed falls
        linearly from max speed to 0 inside this distance, m.
    arrive_tolerance : float
        Arrive: closer than this the agent brakes to a stop, m.
    flee_radius : float
        Flee / evade act only while the threat is closer than this, m
        (0 = always).
    wander_radius, wander_distance : float
        Wander: the circle's radius and its distance ahead of the agent, m.
    wander_jitter : float
        Wander: the circle angle changes by ``uniform(-0.5, 0.5) * jitter``
        radians per tick, drawn from a hash of (seed, agent, tick).
    max_prediction : float
        Pursue / evade: longest look-ahead of the quarry's motion, s.
    separation_radius, alignment_radius, cohesion_radius : float
        Neighbours closer than these count, m (``d < radius``).
    wall_lookahead : float
        Walls: length of the centre feeler, m (side feelers: 0.7 of it).
    feeler_angle : float
        Walls: angle of the two side feelers off the heading, rad.
    path_radius : float
        Path following: a waypoint closer than this counts as reached, m.
    arrival_radius : float
        Flow fields: agents whose walking distance to the goal is at most
        ``sqrt(arrival_radius**2 + arrived * arrival_spacing**2 / pi)`` stop
        and count as arrived (the area grows with the agents already there), m.
    arrival_spacing : float
        Flow fields: the room one arrived agent takes (side of its square), m.
    """

    slow_radius: float = 4.0
    arrive_tolerance: float = 0.05
    flee_radius: float = 0.0
    wander_radius: float = 1.0
    wander_distance: float = 2.0
    wander_jitter: float = 0.6
    max_prediction: float = 2.0
    separation_radius: float = 1.0
    alignment_radius: float = 2.0
    cohesion_radius: float = 2.0
    wall_lookahead: float = 2.0
    feeler_angle: float = 0.6
    path_radius: float = 0.75
    arrival_radius: float = 1.0
    arrival_spacing: float = 1.0

    def __post_init__(self) -> None:
        positive = {"slow_radius", "path_radius", "arrival_spacing"}
        for f in fields(self):
            v = _check(f.name, getattr(self, f.name), positive=f.name in positive, hi=1e9)
            object.__setattr__(self, f.name, v)
        if self.feeler_angle > math.pi / 2:
            raise ConfigError(f"expected at most pi/2, got {self.feeler_angle!r}",
                              field="feeler_angle")

    @property
    def neighbour_radius(self) -> float:
        """The largest of the three flocking radii, m."""
        return max(self.separation_radius, self.alignment_radius, self.cohesion_radius)

    def as_array(self) -> NDArray[np.float64]:
        """The parameters in field order, float64 (the kernel's ``params``)."""
        return np.array([getattr(self, f.name) for f in fields(self)], dtype=np.float64)

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def priority_codes(priority: Any) -> NDArray[np.int64]:
    """Behaviour codes of a priority order (every behaviour, each once)."""
    try:
        names = tuple(priority)
    except TypeError:
        raise ConfigError(f"expected a sequence of behaviour names, got {priority!r}",
                          field="priority") from None
    bad = [n for n in names if n not in BEHAVIOURS]
    if bad:
        raise ConfigError(f"unknown behaviour {bad[0]!r}; known: {', '.join(BEHAVIOURS)}",
                          field="priority")
    if len(set(names)) != len(names) or len(names) != len(BEHAVIOURS):
        raise ConfigError(f"must name each of the {len(BEHAVIOURS)} behaviours once",
                          field="priority")
    return np.array([BEHAVIOURS.index(n) for n in names], dtype=np.int64)
