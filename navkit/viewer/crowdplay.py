"""A free steering crowd (:class:`navkit.crowd.Crowd`) as the viewer plays it
(``navkit view MAP --crowd CROWD.json``, docs/crowds.md "In the viewer").

A crowd file is a JSON object (every key but ``agents`` optional)::

    {"crowd": 1,                               # format version
     "tickRate": 20, "seed": 7, "blending": "weighted",
     "params": {"separation_radius": 0.8},     # SteeringParams fields (m, s, rad)
     "weights": {"flow": 1, "separation": 1.5, "walls": 2},   # every agent's
     "maxSpeed": 1.5, "maxForce": 4.0,         # m/s, m/s^2
     "agentRadius": 0.25,                      # m, the drawn disc
     "flowGoals": [[x, z], ...],               # world points: one flow field, all follow it
     "target": [x, z],                         # seek / arrive target of every agent
     "agents": [{"position": [x, z], "velocity": [vx, vz],
                 "weights": {...}, "maxSpeed": 2.0, "maxForce": 5.0}, ...]}

The crowd runs on the static grid of the map the viewer shows (walls, the wall
cut, the flow field). :func:`read_crowd` raises
:class:`~navkit.errors.FormatError` naming the file and the field.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import FormatError, NavkitError
from ..grid import NavGrid
from .protocol import round4, round_vel

__all__ = ["CrowdSpec", "read_crowd", "CrowdPlayback", "MAX_AGENTS"]

#: Most agents a crowd file may hold.
MAX_AGENTS = 100_000
_KEYS = {"crowd", "tickRate", "seed", "blending", "params", "weights", "maxSpeed", "maxForce",
         "agentRadius", "flowGoals", "target", "agents"}
_AGENT_KEYS = {"position", "velocity", "weights", "maxSpeed", "maxForce"}


class CrowdSpec:
    """A checked crowd file: what :meth:`build` makes a :class:`~navkit.crowd.Crowd` of."""

    def __init__(self, obj: dict[str, Any], path: Path):
        self.path = path
        self.obj = obj
        self.tick_rate = float(obj.get("tickRate", 20.0))
        self.agent_radius = float(obj.get("agentRadius", 0.25))

    def build(self, grid: NavGrid) -> Any:
        """The crowd at tick 0 on ``grid`` (FormatError naming the field when a
        value is out of range or an agent starts in a wall)."""
        from ..crowd import Crowd, SteeringParams, Weights
        from ..query.flow import FlowField

        o, path = self.obj, self.path
        agents = o["agents"]
        pos = np.array([a["position"] for a in agents], dtype=np.float64).reshape(-1, 2)
        vel = np.array([a.get("velocity", [0.0, 0.0]) for a in agents],
                       dtype=np.float64).reshape(-1, 2)
        for i, p in enumerate(pos):
            cx, cz = grid.world_to_cell(float(p[0]), float(p[1]))
            if not grid.is_walkable(cx, cz):
                raise FormatError(f"agents[{i}].position: {p.tolist()} is not on a walkable cell",
                                  path=path)
        try:
            params = SteeringParams(**o.get("params", {}))
        except (NavkitError, TypeError) as e:
            raise FormatError(f"params: {e}", path=path) from None
        base = o.get("weights", {})
        try:
            weights = Weights(**base)
            per = [Weights(**{**base, **a["weights"]}) if "weights" in a else None for a in agents]
        except (NavkitError, TypeError) as e:
            raise FormatError(f"weights: {e}", path=path) from None
        speed = np.array([a.get("maxSpeed", o.get("maxSpeed", 1.5)) for a in agents], np.float64)
        force = np.array([a.get("maxForce", o.get("maxForce", 3.0)) for a in agents], np.float64)
        try:
            crowd = Crowd(pos, grid=grid, params=params, weights=weights, max_speed=speed,
                          max_force=force, velocities=vel, blending=o.get("blending", "weighted"),
                          seed=int(o.get("seed", 0)))
            for i, w in enumerate(per):
                if w is not None:
                    crowd.set_weights(w, agents=[i])
            if "target" in o:
                crowd.set_targets(o["target"])
            if o.get("flowGoals"):
                cells = np.array([grid.world_to_cell(float(x), float(z))
                                  for x, z in o["flowGoals"]], dtype=np.int64)
                crowd.follow_flow(crowd.add_flow_field(FlowField(grid).build(cells)))
        except NavkitError as e:
            raise FormatError(f"crowd: {e}", path=path) from None
        return crowd


def _fail(path: Path, field: str, message: str) -> FormatError:
    return FormatError(f"{field}: {message}", path=path)


def _num(v: Any, path: Path, field: str, lo: float, hi: float) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
            or not lo <= v <= hi:
        raise _fail(path, field, f"expected a number in [{lo:g}, {hi:g}], got {v!r}")
    return float(v)


def _point(v: Any, path: Path, field: str, lim: float = 1e9) -> list[float]:
    if not isinstance(v, list) or len(v) != 2:
        raise _fail(path, field, f"expected [x, z], got {v!r}")
    return [_num(c, path, f"{field}[{k}]", -lim, lim) for k, c in enumerate(v)]


def _table(v: Any, path: Path, field: str) -> dict[str, float]:
    if not isinstance(v, dict):
        raise _fail(path, field, f"expected an object of numbers, got {type(v).__name__}")
    return {str(k): _num(x, path, f"{field}.{k}", 0.0, 1e9) for k, x in v.items()}


def read_crowd(path: str | Path) -> CrowdSpec:
    """Read and check a crowd file (see the module docstring)."""
    from ..sim.snapshot import read_json  # deep nesting, huge integers: FormatError

    p = Path(path)
    if not p.is_file():
        raise FormatError("not a file", path=p)
    obj = read_json(p)
    if not isinstance(obj, dict):
        raise _fail(p, "crowd", "expected a JSON object")
    extra = sorted(set(obj) - _KEYS)
    if extra:
        raise _fail(p, extra[0], f"unknown key; known: {', '.join(sorted(_KEYS))}")
    if obj.get("crowd", 1) != 1:
        raise _fail(p, "crowd", f"expected format version 1, got {obj['crowd']!r}")
    agents = obj.get("agents")
    if not isinstance(agents, list) or not 1 <= len(agents) <= MAX_AGENTS:
        raise _fail(p, "agents", f"expected a list of 1 to {MAX_AGENTS} agents")
    for i, a in enumerate(agents):
        f = f"agents[{i}]"
        if not isinstance(a, dict) or "position" not in a:
            raise _fail(p, f, "expected an object with a position")
        bad = sorted(set(a) - _AGENT_KEYS)
        if bad:
            raise _fail(p, f"{f}.{bad[0]}", f"unknown key; known: {', '.join(sorted(_AGENT_KEYS))}")
        _point(a["position"], p, f"{f}.position")
        if "velocity" in a:
            _point(a["velocity"], p, f"{f}.velocity", 1e6)
        if "weights" in a:
            _table(a["weights"], p, f"{f}.weights")
        for k in ("maxSpeed", "maxForce"):
            if k in a:
                _num(a[k], p, f"{f}.{k}", 1e-9, 1e6)
    _num(obj.get("tickRate", 20), p, "tickRate", 1.0, 1000.0)
    _num(obj.get("agentRadius", 0.25), p, "agentRadius", 0.0, 1e6)
    for k in ("maxSpeed", "maxForce"):
        if k in obj:
            _num(obj[k], p, k, 1e-9, 1e6)
    seed = obj.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise _fail(p, "seed", f"expected an integer in [0, 2**63), got {seed!r}")
    if obj.get("blending", "weighted") not in ("weighted", "priority"):
        raise _fail(p, "blending", f"expected weighted or priority, got {obj['blending']!r}")
    for k in ("params", "weights"):
        if k in obj:
            _table(obj[k], p, k)
    if "target" in obj:
        _point(obj["target"], p, "target")
    goals = obj.get("flowGoals", [])
    if not isinstance(goals, list):
        raise _fail(p, "flowGoals", "expected a list of [x, z] points")
    for i, g in enumerate(goals):
        _point(g, p, f"flowGoals[{i}]")
    return CrowdSpec(obj, p)


class CrowdPlayback:
    """The crowd of a crowd file for the page: play and pause, speed, stepping, frames.

    Called by :class:`~navkit.viewer.state.ViewerState` with its lock held. A tick
    is ``1 / tickRate`` s of :meth:`Crowd.step <navkit.crowd.Crowd.step>`.
    """

    def __init__(self, spec: CrowdSpec, grid: NavGrid):
        self.spec = spec
        self.grid = grid
        self.speed = 1.0
        self.reset()

    def reset(self) -> None:
        """Back to tick 0 as the file says (paused)."""
        self.crowd = self.spec.build(self.grid)
        self.playing = False

    @property
    def tick_rate(self) -> float:
        return self.spec.tick_rate

    def step(self, ticks: int) -> None:
        """Run ``ticks`` ticks (one kernel call; blocking, call on a worker thread)."""
        if ticks > 0:
            self.crowd.run(int(ticks), 1.0 / self.spec.tick_rate)

    def summary(self) -> dict[str, Any]:
        c = self.crowd
        return {"tick": int(c.tick), "tickRate": self.tick_rate, "agents": int(c.n),
                "playing": self.playing, "speed": self.speed,
                "file": self.spec.path.name}

    def frame(self) -> dict[str, Any]:
        """``{"type": "crowd", ...}``: positions ``pos`` and velocities ``vel`` (flat
        ``[x0, z0, x1, ...]``, m and m/s), ``status`` per agent (0 moving, 1 arrived,
        2 unreachable), the drawn ``agentRadius`` and the ``neighbourRadius`` (the
        largest flocking radius, m)."""
        c = self.crowd
        return {
            "type": "crowd",
            **self.summary(),
            "agentRadius": self.spec.agent_radius,
            "neighbourRadius": float(c.params.neighbour_radius),
            "separationRadius": float(c.params.separation_radius),
            "pos": [round4(v) for v in np.asarray(c.positions).ravel()],
            "vel": round_vel(np.asarray(c.velocities)),
            "status": [int(s) for s in np.asarray(c.status)],
        }
