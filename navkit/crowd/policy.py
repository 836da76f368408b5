"""A steering policy: the behaviours that give a simulation character its preferred velocity.

A :class:`SteeringPolicy` carries the :class:`~navkit.crowd.steering.Weights`
and :class:`~navkit.crowd.steering.SteeringParams` of the crowd's behaviours
and a ``max_force``; a :class:`~navkit.sim.Location` tick applies it to the
characters that have one (``Location(..., policy=...)`` for every character,
``character.set_policy(...)`` for one): their step is the steered velocity
(seek / arrive toward the current waypoint of their order, wander,
separation, alignment, cohesion among the other characters), and the
movement guard still checks it (docs/simulation.md "Steering policies").

>>> p = SteeringPolicy(Weights(seek=1.0, separation=2.0), max_force=6.0)
>>> p.to_json()
{'weights': {'seek': 1.0, 'separation': 2.0}, 'maxForce': 6.0}
>>> SteeringPolicy.from_json(p.to_json()) == p
True
>>> SteeringPolicy(Weights(flee=1.0))
Traceback (most recent call last):
...
navkit.errors.ConfigError: weights.flee: a character policy steers with seek, arrive, \
wander, separation, alignment, cohesion; got weight 1.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

from ..casing import to_camel
from ..errors import ConfigError
from .steering import BEHAVIOURS, SteeringParams, Weights

__all__ = ["SteeringPolicy", "POLICY_BEHAVIOURS", "check_policy"]

#: The behaviours a character policy may weight (the others need a crowd's
#: own data: threats, quarries, its grid, its paths, flow fields).
POLICY_BEHAVIOURS: tuple[str, ...] = ("seek", "arrive", "wander", "separation", "alignment",
                                      "cohesion")
_PARAMS = {to_camel(f.name): f.name for f in fields(SteeringParams)}


@dataclass(frozen=True)
class SteeringPolicy:
    """Steering of a simulation character (units: metres, seconds, radians).

    Parameters
    ----------
    weights : Weights
        Weights of :data:`POLICY_BEHAVIOURS` (the others must be 0).
    params : SteeringParams
        The behaviours' parameters (``path_radius``: an intermediate
        waypoint this close counts as reached; ``arrive_tolerance`` is not
        used: a character arrives within ``kWalkThreshold``).
    max_force : float
        The largest acceleration, m/s^2 (> 0); the speed limit is the
        character's ``walkSpeed``.
    """

    weights: Weights
    params: SteeringParams = field(default_factory=SteeringParams)
    max_force: float = 4.0

    def __post_init__(self) -> None:
        if not isinstance(self.weights, Weights):
            raise ConfigError(f"expected Weights, got {type(self.weights).__name__}",
                              field="weights")
        if not isinstance(self.params, SteeringParams):
            raise ConfigError(f"expected SteeringParams, got {type(self.params).__name__}",
                              field="params")
        for b in BEHAVIOURS:
            w = getattr(self.weights, b)
            if b not in POLICY_BEHAVIOURS and w != 0.0:
                raise ConfigError(f"a character policy steers with {', '.join(POLICY_BEHAVIOURS)}"
                                  f"; got weight {w!r}", field=f"weights.{b}")
        mf = self.max_force
        if isinstance(mf, bool) or not isinstance(mf, (int, float)) or not (
                math.isfinite(mf) and 0.0 < mf <= 1e9):
            raise ConfigError(f"expected a finite number in (0, 1e9], got {mf!r}",
                              field="max_force")
        object.__setattr__(self, "max_force", float(mf))

    def to_json(self) -> dict[str, Any]:
        """The policy as a JSON object (camelCase): nonzero weights, the
        parameters that differ from the defaults, ``maxForce``."""
        out: dict[str, Any] = {"weights": {b: getattr(self.weights, b) for b in POLICY_BEHAVIOURS
                                           if getattr(self.weights, b) != 0.0}}
        default = SteeringParams()
        params = {to_camel(f.name): getattr(self.params, f.name) for f in fields(SteeringParams)
                  if getattr(self.params, f.name) != getattr(default, f.name)}
        if params:
            out["params"] = params
        out["maxForce"] = self.max_force
        return out

    @classmethod
    def from_json(cls, obj: Any, field: str = "policy") -> SteeringPolicy:
        """The inverse of :meth:`to_json`; ConfigError naming ``field.key``
        for anything else (unknown keys included)."""
        if not isinstance(obj, dict):
            raise ConfigError(f"expected a JSON object, got {type(obj).__name__}", field=field)
        for key in obj:
            if key not in ("weights", "params", "maxForce"):
                raise ConfigError(f"unknown key {key!r}", field=f"{field}.{key}")
        raw_w = obj.get("weights", {})
        raw_p = obj.get("params", {})
        for name, raw, known in (("weights", raw_w, POLICY_BEHAVIOURS), ("params", raw_p, _PARAMS)):
            if not isinstance(raw, dict):
                raise ConfigError(f"expected a JSON object, got {type(raw).__name__}",
                                  field=f"{field}.{name}")
            for key, v in raw.items():
                if key not in known:
                    raise ConfigError(f"unknown key {key!r}; known: {', '.join(known)}",
                                      field=f"{field}.{name}.{key}")
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise ConfigError(f"expected a number, got {v!r}",
                                      field=f"{field}.{name}.{key}")
        try:
            weights = Weights(**raw_w)
        except ConfigError as e:
            raise ConfigError(e.reason, field=f"{field}.weights.{e.field}") from None
        try:
            params = SteeringParams(**{_PARAMS[k]: v for k, v in raw_p.items()})
        except ConfigError as e:
            raise ConfigError(e.reason, field=f"{field}.params.{to_camel(e.field or '')}") from None
        try:
            return cls(weights, params, obj.get("maxForce", 4.0))
        except ConfigError as e:
            name = "maxForce" if e.field == "max_force" else str(e.field)
            raise ConfigError(e.reason, field=f"{field}.{name}") from None


def check_policy(value: Any, name: str = "policy") -> SteeringPolicy | None:
    """``value`` as a policy (None: none); ConfigError naming ``name`` else."""
    if value is None or isinstance(value, SteeringPolicy):
        return value
    raise ConfigError(f"expected a SteeringPolicy or None, got {type(value).__name__}", field=name)
