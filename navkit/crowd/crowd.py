"""A crowd of steering agents, advanced one tick at a time by one kernel.

>>> import numpy as np, navkit
>>> from navkit.crowd import Crowd, Weights
>>> c = Crowd([[0.0, 0.0], [10.0, 0.0]], weights=Weights(arrive=1.0), max_speed=2.0,
...           max_force=4.0)
>>> c.set_targets([[5.0, 0.0], [5.0, 0.0]])
>>> c.run(200, 0.05)
>>> np.round(c.positions, 1).tolist()
[[5.0, 0.0], [5.0, 0.0]]

State is navkit's one agent store (:class:`navkit.agents.AgentStore`: a
structure of arrays, one row per agent in agent order, the IDs 0 .. n-1)
that the kernel (:mod:`navkit._kernels.steering`) reads and writes in place;
a tick allocates nothing. Its neighbours come from the one neighbour index
(:mod:`navkit._kernels.spatial_hash`). Units: metres, seconds; agents have
unit mass, so ``max_force`` is the largest acceleration (m/s^2). See
docs/crowds.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import steering as _k
from ..agents.store import AgentStore, agent_columns
from ..errors import ConfigError, NavkitError, QueryError
from ..grid import NavGrid
from ..query.fanout import fan_out
from .spatial_hash import as_points, as_threads, split
from .steering import (
    BEHAVIOURS,
    BLENDINGS,
    DEFAULT_PRIORITY,
    SteeringParams,
    Weights,
    priority_codes,
)

__all__ = ["Crowd", "MOVING", "ARRIVED", "UNREACHABLE", "STATE_VERSION"]

MOVING = _k.MOVING
ARRIVED = _k.ARRIVED
UNREACHABLE = _k.UNREACHABLE
#: Version of :meth:`Crowd.state_dict`'s layout.
STATE_VERSION = 1

#: The most ticks one :meth:`Crowd.run` call advances (and the tick counter's bound).
MAX_TICKS = 2**31 - 1

#: The agent store's columns: the shared ones (``pos``, ``vel``, ``speed`` =
#: ``max_speed``) and the crowd's own.
COLUMNS = {
    **agent_columns(),
    "head": (np.float64, (2,), 0.0),
    "max_force": (np.float64, (), 0.0),
    "weights": (np.float64, (len(BEHAVIOURS),), 0.0),
    "target": (np.float64, (2,), 0.0),
    "threat": (np.float64, (2,), 0.0),
    "chase": (np.int32, (), -1),
    "avoid": (np.int32, (), -1),
    "wander": (np.float64, (), 0.0),
    "path_idx": (np.int32, (), 0),
    "flow_id": (np.int32, (), -1),
    "status": (np.int8, (), 0),
}
#: :meth:`Crowd.state_dict`'s row arrays -> store columns.
_ROW_ARRAYS = {"pos": "pos", "vel": "vel", "head": "head", "max_speed": "speed",
               "max_force": "max_force", "weights": "weights", "target": "target",
               "threat": "threat", "chase": "chase", "avoid": "avoid", "wander": "wander",
               "path_idx": "path_idx", "flow_id": "flow_id", "status": "status"}


def _per_agent(value: Any, n: int, name: str, *, positive: bool = True) -> NDArray[np.float64]:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"expected a number or {n} numbers, got {value!r}", field=name) from None
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise ConfigError(f"expected a number or shape ({n},), got {arr.shape}", field=name)
    if not np.all(np.isfinite(arr)) or (positive and np.any(arr <= 0)):
        raise ConfigError(f"expected finite numbers{' > 0' if positive else ''}", field=name)
    return np.ascontiguousarray(arr)


class Crowd:
    """Agents steered by weighted behaviours (see :data:`~navkit.crowd.steering.BEHAVIOURS`).

    Parameters
    ----------
    positions : (n, 2) array
        Start positions, world (x, z) metres; with a ``grid`` each must lie in
        a walkable cell.
    grid : NavGrid or None
        The map for wall avoidance, the wall cut and flow fields; ``None``:
        open, unbounded space.
    params : SteeringParams
        Behaviour parameters shared by every agent.
    weights : Weights
        Every agent's behaviour weights (:meth:`set_weights` changes them per agent).
    max_speed, max_force : float or (n,) array
        m/s and m/s^2, > 0.
    velocities : (n, 2) array or None
        Start velocities, m/s (default zero).
    blending : "weighted" or "priority"
    priority : sequence of the 12 behaviour names
        The order of priority blending (weighted blending sums in it too).
    seed : int
        Seed of the wander noise (a hash of seed, agent and tick).
    threads : int or None
        Threads a tick may use (default :func:`navkit.query.fanout.max_threads`;
        one per 4096 agents at most). The result is bit-identical for any count.
    """

    def __init__(
        self,
        positions: ArrayLike,
        *,
        grid: NavGrid | None = None,
        params: SteeringParams | None = None,
        weights: Weights | None = None,
        max_speed: Any = 1.5,
        max_force: Any = 3.0,
        velocities: ArrayLike | None = None,
        blending: str = "weighted",
        priority: Sequence[str] = DEFAULT_PRIORITY,
        seed: int = 0,
        threads: int | None = None,
    ):
        pos = as_points(positions, "positions").copy()
        n = len(pos)
        if n >= 2**31 - 1:
            raise QueryError(f"positions: at most {2**31 - 2} agents, got {n}")
        params = SteeringParams() if params is None else params
        if not isinstance(params, SteeringParams):
            raise ConfigError(f"expected SteeringParams, got {type(params).__name__}",
                              field="params")
        weights = Weights() if weights is None else weights
        if not isinstance(weights, Weights):
            raise ConfigError(f"expected Weights, got {type(weights).__name__}", field="weights")
        if blending not in BLENDINGS:
            raise ConfigError(f"expected one of {BLENDINGS}, got {blending!r}", field="blending")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not (
                0 <= int(seed) < 2**63):
            raise ConfigError(f"expected an integer in [0, 2**63), got {seed!r}", field="seed")
        if grid is not None and not isinstance(grid, NavGrid):
            raise ConfigError(f"expected a NavGrid or None, got {type(grid).__name__}",
                              field="grid")
        self._n = n
        self._threads = as_threads(threads, n)
        self._parts = split(n, self._threads)
        self._params = params
        self._blending = blending
        self._priority = tuple(priority)
        self._prio = priority_codes(self._priority)
        self._seed = int(seed)
        self._tick = 0
        self._grid = grid
        # ---- state: the agent store (agent i in row i)
        vel = np.zeros((n, 2)) if velocities is None else as_points(velocities, "velocities")
        if vel.shape != (n, 2):
            raise QueryError(f"velocities: expected shape ({n}, 2), got {vel.shape}")
        speed_limit = _per_agent(max_speed, n, "max_speed")
        force = _per_agent(max_force, n, "max_force")
        self._store = AgentStore(COLUMNS)
        self._store.append_many(n, pos=pos, vel=vel, speed=speed_limit, max_force=force,
                                weights=weights.as_array(), target=pos, threat=pos)
        #: Row arrays by :meth:`state_dict` name (views of the store's columns).
        self._a: dict[str, NDArray[Any]] = {k: getattr(self._store, c)
                                            for k, c in _ROW_ARRAYS.items()}
        vel = self._a["vel"]
        speed = np.hypot(vel[:, 0], vel[:, 1])
        head = self._a["head"]
        head[:, 0] = 1.0
        moving = speed > 0
        head[moving] = vel[moving] / speed[moving, None]
        self._path_off = np.zeros(n + 1, dtype=np.int64)
        self._path_pts = np.zeros((0, 2))
        # ---- world
        if grid is not None:
            self._walk = np.ascontiguousarray(grid.walkable, dtype=np.uint8)
            self._check_free(pos, "positions")
            shape = grid.shape
        else:
            self._walk = np.ones((1, 1), dtype=np.uint8)
            shape = (1, 1)
        self._clear = np.zeros(self._walk.shape, dtype=np.int32)
        _k.clearance(self._walk, self._clear)
        self._flow_dir = np.full((0, *shape), -1, dtype=np.int8)
        self._flow_cost = np.full((0, *shape), np.inf)
        # ---- workspace
        self._max_cells = 4 * n + 4096
        self._ws = _k.CrowdWork(
            cell_start=np.zeros(self._max_cells + 1, dtype=np.int32),
            order=np.zeros(n, dtype=np.int32), slot=np.zeros(n, dtype=np.int32),
            cellid=np.zeros(n, dtype=np.int32), spos=np.zeros((n, 2)), svel=np.zeros((n, 2)),
            geom=np.zeros(5), dims=np.zeros(2, dtype=np.int64),
            arrived=np.zeros(1, dtype=np.int64), max_cells=self._max_cells)
        self._pack()

    # -------------------------------------------------------------- plumbing
    def _pack(self) -> None:
        """Build the kernel's tuples (after any change of array identity)."""
        a = self._a
        self._st = tuple(_k.CrowdState(
            pos=a["pos"], vel=a["vel"], head=a["head"], max_speed=a["max_speed"],
            max_force=a["max_force"], weights=a["weights"], target=a["target"],
            threat=a["threat"], chase=a["chase"], avoid=a["avoid"], wander=a["wander"],
            path_off=self._path_off, path_pts=self._path_pts, path_idx=a["path_idx"],
            flow_id=a["flow_id"], status=a["status"]))
        nf = len(self._flow_dir)
        fd = self._flow_dir if nf else np.full((1, *self._walk.shape), -1, dtype=np.int8)
        fc = self._flow_cost if nf else np.full((1, *self._walk.shape), np.inf)
        g = self._grid
        self._wd = tuple(_k.CrowdWorld(
            has_grid=int(g is not None), walk=self._walk,
            min_x=float(g.min_x) if g is not None else 0.0,
            min_z=float(g.min_z) if g is not None else 0.0,
            cell=float(g.cell_size) if g is not None else 1.0,
            flow_dir=np.ascontiguousarray(fd), flow_cost=np.ascontiguousarray(fc),
            clear=self._clear))
        ws = self._ws
        if len(ws.arrived) != max(nf, 1):
            ws = ws._replace(arrived=np.zeros(max(nf, 1), dtype=np.int64))
            self._ws = ws
        self._ws_t = tuple(ws)
        self._params_arr = self._params.as_array()
        self._blend = 0 if self._blending == "weighted" else 1

    def _agents(self, agents: Any) -> NDArray[np.int64]:
        if agents is None:
            return np.arange(self._n)
        try:
            idx = np.asarray(agents)
        except (TypeError, ValueError):
            raise QueryError("agents: expected agent indices") from None
        if idx.ndim == 0:
            idx = idx.reshape(1)
        if idx.ndim != 1 or (idx.size and (idx.dtype == np.bool_
                                           or not np.issubdtype(idx.dtype, np.integer))):
            raise QueryError(f"agents: expected a 1-D integer array, got {idx.dtype} {idx.shape}")
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= self._n):
            raise QueryError(f"agents: indices must lie in [0, {self._n - 1}]")
        return idx.astype(np.int64)

    def _check_free(self, pts: NDArray[np.float64], name: str) -> None:
        g = self._grid
        if g is None or not len(pts):
            return
        fx = np.floor((pts[:, 0] - g.min_x) / g.cell_size)
        fz = np.floor((pts[:, 1] - g.min_z) / g.cell_size)
        inside = (fx >= 0) & (fx < g.width) & (fz >= 0) & (fz < g.depth)
        ok = inside.copy()
        ok[inside] = g.walkable[fz[inside].astype(np.int64), fx[inside].astype(np.int64)]
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise QueryError(f"{name}[{i}] = {pts[i].tolist()} is not in a walkable cell")

    # ------------------------------------------------------------ properties
    @property
    def n(self) -> int:
        return self._n

    @property
    def tick(self) -> int:
        """Ticks run so far."""
        return self._tick

    @property
    def store(self) -> AgentStore:
        """The agents' columns (:class:`navkit.agents.AgentStore`, row i = agent i):
        read them through the read-only properties; the setters validate."""
        return self._store

    @property
    def params(self) -> SteeringParams:
        return self._params

    @property
    def grid(self) -> NavGrid | None:
        return self._grid

    def _view(self, key: str) -> NDArray[Any]:
        v = self._a[key].view()
        v.setflags(write=False)
        return v

    @property
    def positions(self) -> NDArray[np.float64]:
        """(n, 2) metres, read-only view (live)."""
        return self._view("pos")

    @property
    def velocities(self) -> NDArray[np.float64]:
        """(n, 2) m/s, read-only view (live)."""
        return self._view("vel")

    @property
    def headings(self) -> NDArray[np.float64]:
        """(n, 2) unit vectors, read-only view (live)."""
        return self._view("head")

    @property
    def status(self) -> NDArray[np.int8]:
        """(n,) int8: 0 moving, 1 arrived (flow field), 2 unreachable."""
        return self._view("status")

    @property
    def weights(self) -> NDArray[np.float64]:
        """(n, 12) behaviour weights, columns in BEHAVIOURS order, read-only view."""
        return self._view("weights")

    # --------------------------------------------------------------- setters
    def set_weights(self, weights: Weights, agents: Any = None) -> None:
        """Give ``agents`` (default all) these behaviour weights."""
        if not isinstance(weights, Weights):
            raise ConfigError(f"expected Weights, got {type(weights).__name__}", field="weights")
        self._a["weights"][self._agents(agents)] = weights.as_array()

    def set_limits(self, *, max_speed: Any = None, max_force: Any = None,
                   agents: Any = None) -> None:
        """Set max speed (m/s) and / or max force (m/s^2) of ``agents``."""
        idx = self._agents(agents)
        if max_speed is not None:
            self._a["max_speed"][idx] = _per_agent(max_speed, len(idx), "max_speed")
        if max_force is not None:
            self._a["max_force"][idx] = _per_agent(max_force, len(idx), "max_force")

    def _points_for(self, pts: ArrayLike, idx: NDArray[np.int64], name: str) -> NDArray[Any]:
        raw = np.asarray(pts)
        if raw.shape == (2,):
            raw = np.broadcast_to(raw, (len(idx), 2))
        arr = as_points(raw, name)
        if len(arr) != len(idx):
            raise QueryError(f"{name}: expected {len(idx)} rows, got {len(arr)}")
        return arr

    def set_targets(self, targets: ArrayLike, agents: Any = None) -> None:
        """Seek / arrive targets, (m, 2) or one point for all ``agents``, metres."""
        idx = self._agents(agents)
        self._a["target"][idx] = self._points_for(targets, idx, "targets")

    def set_threats(self, threats: ArrayLike, agents: Any = None) -> None:
        """Points to flee from, (m, 2) or one point, metres."""
        idx = self._agents(agents)
        self._a["threat"][idx] = self._points_for(threats, idx, "threats")

    def _set_agent_refs(self, key: str, others: Any, agents: Any) -> None:
        idx = self._agents(agents)
        arr = np.asarray(others)
        if arr.ndim == 0:
            arr = np.full(len(idx), arr)
        if arr.shape != (len(idx),) or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
            raise QueryError(f"{key}: expected {len(idx)} agent indices")
        if arr.size and (int(arr.min()) < -1 or int(arr.max()) >= self._n):
            raise QueryError(f"{key}: indices must lie in [-1, {self._n - 1}]")
        self._a[key][idx] = arr.astype(np.int32)

    def set_chase(self, quarry: Any, agents: Any = None) -> None:
        """The agent each of ``agents`` pursues (-1: none)."""
        self._set_agent_refs("chase", quarry, agents)

    def set_avoid(self, pursuer: Any, agents: Any = None) -> None:
        """The agent each of ``agents`` evades (-1: none)."""
        self._set_agent_refs("avoid", pursuer, agents)

    def set_path(self, agent: int, waypoints: ArrayLike | None) -> None:
        """Waypoints ``(m, 2)`` (metres) for one agent to follow, e.g.
        ``Pathfinder.find_path(...).waypoints``; ``None`` or empty clears it."""
        i = int(self._agents(agent)[0])
        pts = np.zeros((0, 2)) if waypoints is None else as_points(waypoints, "waypoints")
        counts = np.diff(self._path_off)
        old = [self._path_pts[self._path_off[k]:self._path_off[k + 1]] for k in range(self._n)]
        old[i] = pts
        counts[i] = len(pts)
        self._path_off = np.zeros(self._n + 1, dtype=np.int64)
        np.cumsum(counts, out=self._path_off[1:])
        self._path_pts = np.ascontiguousarray(np.concatenate(old, axis=0)
                                              if self._n else np.zeros((0, 2)))
        self._a["path_idx"][i] = 0
        self._pack()

    def add_flow_field(self, field: Any) -> int:
        """Copy a built :class:`navkit.FlowField` of this crowd's grid; returns its id."""
        if self._grid is None:
            raise ConfigError("a crowd without a grid cannot follow flow fields", field="grid")
        g = getattr(field, "grid", None)
        if not isinstance(g, NavGrid) or g.shape != self._grid.shape or (
                g.cell_size, g.min_x, g.min_z) != (self._grid.cell_size, self._grid.min_x,
                                                   self._grid.min_z):
            raise ConfigError("the flow field must be built on a grid of the crowd's shape and "
                              "geometry", field="field")
        try:
            direction = np.asarray(field.direction, dtype=np.int8)
            cost = np.asarray(field.cost, dtype=np.float64) * float(g.cell_size)
        except Exception as exc:  # an unbuilt field raises QueryError
            raise ConfigError(f"expected a built FlowField ({exc})", field="field") from None
        self._flow_dir = np.ascontiguousarray(np.concatenate([self._flow_dir, direction[None]]))
        self._flow_cost = np.ascontiguousarray(np.concatenate([self._flow_cost, cost[None]]))
        self._pack()
        return len(self._flow_dir) - 1

    def follow_flow(self, field_id: int, agents: Any = None) -> None:
        """``agents`` follow flow field ``field_id`` (-1: none); resets their status."""
        if isinstance(field_id, bool) or not isinstance(field_id, (int, np.integer)) or not (
                -1 <= int(field_id) < len(self._flow_dir)):
            raise QueryError("field_id: expected -1 or an id from add_flow_field, "
                             f"got {field_id!r}")
        idx = self._agents(agents)
        self._a["flow_id"][idx] = int(field_id)
        st = self._a["status"]
        st[idx] = MOVING
        if field_id >= 0 and len(idx):
            g = self._grid
            assert g is not None
            p = self._a["pos"][idx]
            cx = np.clip(np.floor((p[:, 0] - g.min_x) / g.cell_size), 0, g.width - 1)
            cz = np.clip(np.floor((p[:, 1] - g.min_z) / g.cell_size), 0, g.depth - 1)
            codes = self._flow_dir[int(field_id), cz.astype(np.int64), cx.astype(np.int64)]
            st[idx[codes < 0]] = UNREACHABLE

    # --------------------------------------------------------------- queries
    def unreachable(self) -> NDArray[np.int64]:
        """Agents following a flow field from a cell with no route to its goals."""
        return np.flatnonzero(self._a["status"] == UNREACHABLE)

    def arrived(self) -> NDArray[np.int64]:
        """Agents that reached their flow field's goal area and stopped."""
        return np.flatnonzero(self._a["status"] == ARRIVED)

    # ------------------------------------------------------------------- run
    def _dt(self, dt: Any) -> float:
        if isinstance(dt, bool):
            raise QueryError(f"dt: expected seconds > 0, got {dt!r}")
        try:
            v = float(dt)
        except (TypeError, ValueError):
            raise QueryError(f"dt: expected seconds > 0, got {dt!r}") from None
        if not math.isfinite(v) or v <= 0 or v > 1e6:
            raise QueryError(f"dt: expected seconds in (0, 1e6], got {dt!r}")
        return v

    @property
    def threads(self) -> int:
        """Threads a tick uses."""
        return self._threads

    def _tick_threads(self, dt: float) -> None:
        """One tick on the pool: the serial hash build, then one agent range per thread."""
        _k.prepare(self._st, self._wd, self._ws_t, self._params_arr)
        args = (self._st, self._wd, self._ws_t, self._params_arr, self._prio, self._blend, dt,
                self._tick, self._seed)
        parts = self._parts

        def work(t: int) -> None:
            _k.advance(*args, parts[t][0], parts[t][1])

        fan_out(self._threads, self._n, work)
        self._tick += 1

    def step(self, dt: float) -> None:
        """Advance every agent by ``dt`` seconds (one kernel call per thread)."""
        v = self._dt(dt)
        if self._threads > 1:
            self._tick_threads(v)
            return
        _k.step(self._st, self._wd, self._ws_t, self._params_arr, self._prio, self._blend,
                v, self._tick, self._seed)
        self._tick += 1

    def run(self, ticks: int, dt: float) -> None:
        """``ticks`` steps of ``dt`` seconds (one kernel call for all on one thread);
        ``ticks`` in ``[0, MAX_TICKS]``."""
        if isinstance(ticks, bool) or not isinstance(ticks, (int, np.integer)) or not (
                0 <= ticks <= MAX_TICKS):
            raise QueryError(f"ticks: expected an integer in [0, {MAX_TICKS}], got {ticks!r}")
        if self._tick + int(ticks) >= 2**62:
            raise QueryError(f"ticks: the tick counter ({self._tick}) would pass 2**62")
        v = self._dt(dt)
        if self._threads > 1:
            for _ in range(int(ticks)):
                self._tick_threads(v)
            return
        _k.run(self._st, self._wd, self._ws_t, self._params_arr, self._prio, self._blend,
               v, self._tick, self._seed, int(ticks))
        self._tick += int(ticks)

    # ----------------------------------------------------------- save / load
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue identically: copies of the arrays,
        parameters, tick, seed, the grid and flow fields (see :meth:`from_state`)."""
        g = self._grid
        out: dict[str, Any] = {k: v.copy() for k, v in self._a.items()}
        out.update(
            version=STATE_VERSION, tick=self._tick, seed=self._seed, blending=self._blending,
            priority=list(self._priority), params=self._params.to_dict(),
            path_off=self._path_off.copy(), path_pts=self._path_pts.copy(),
            flow_dir=self._flow_dir.copy(), flow_cost=self._flow_cost.copy(),
            grid=None if g is None else {
                "walkable": np.asarray(g.walkable).copy(), "cell_size": g.cell_size,
                "min_x": g.min_x, "min_z": g.min_z,
                "weights": None if g.weights is None else np.asarray(g.weights).copy()})
        return out

    @classmethod
    def from_state(cls, state: dict[str, Any], *, threads: int | None = None) -> Crowd:
        """A crowd from :meth:`state_dict`; stepping it continues bit-identically
        (``threads`` as in :class:`Crowd`). Every value is checked as the
        constructor and the setters check it: ConfigError naming the key."""
        if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
            raise ConfigError(f"expected a crowd state of version {STATE_VERSION}",
                              field="version")
        gd = _entry(state, "grid")
        grid = None if gd is None else _state_grid(gd)
        params = _entry(state, "params")
        if not isinstance(params, dict):
            raise ConfigError(f"expected a dict, got {type(params).__name__}", field="params")
        try:
            sp = SteeringParams(**params)
        except TypeError as e:
            raise ConfigError(f"not SteeringParams fields ({e})", field="params") from None
        try:
            c = cls(_state_array(state, "pos", np.float64, None), grid=grid, params=sp,
                    blending=_entry(state, "blending"), priority=_entry(state, "priority"),
                    seed=_entry(state, "seed"), threads=threads)
        except QueryError as e:  # the positions (shape, range, walkable cells)
            raise ConfigError(str(e), field="pos") from None
        n = c._n
        rows = {k: _state_array(state, k, c._a[k].dtype, c._a[k].shape) for k in _ROW_ARRAYS}
        for k in ("max_speed", "max_force"):
            _per_agent(rows[k], n, k)
        _check_rows(rows, n)
        off = _state_array(state, "path_off", np.int64, (n + 1,))
        pts = _state_array(state, "path_pts", np.float64, None).reshape(-1, 2) \
            if np.size(_entry(state, "path_pts")) else np.zeros((0, 2))
        if off[0] != 0 or off[-1] != len(pts) or np.any(np.diff(off) < 0):
            raise ConfigError("path offsets do not match the waypoints", field="path_off")
        counts = np.diff(off)
        if np.any(rows["path_idx"] < 0) or np.any(rows["path_idx"] > np.maximum(counts - 1, 0)):
            raise ConfigError("expected each agent's waypoint index on its path",
                              field="path_idx")
        fdir = _state_array(state, "flow_dir", np.int8, None)
        fcost = _state_array(state, "flow_cost", np.float64, None, finite=False)
        if fdir.ndim != 3 or fdir.shape[1:] != c._walk.shape or fcost.shape != fdir.shape:
            raise ConfigError("flow fields do not match the grid", field="flow_dir")
        if np.any(np.isnan(fcost)):
            raise ConfigError("contains NaN", field="flow_cost")
        if np.any(rows["flow_id"] < -1) or np.any(rows["flow_id"] >= len(fdir)):
            raise ConfigError(f"expected -1 or a flow field id < {len(fdir)}", field="flow_id")
        tick = _entry(state, "tick")
        if isinstance(tick, bool) or not isinstance(tick, (int, np.integer)) or not (
                0 <= tick < 2**62):
            raise ConfigError(f"expected an integer in [0, 2**62), got {tick!r}", field="tick")
        for k, arr in rows.items():
            c._a[k][...] = arr
        c._path_off = off.copy()
        c._path_pts = np.ascontiguousarray(pts)
        c._flow_dir = np.ascontiguousarray(fdir)
        c._flow_cost = np.ascontiguousarray(fcost)
        c._tick = int(tick)
        c._pack()
        return c

    def __repr__(self) -> str:
        return (f"Crowd(n={self._n}, tick={self._tick}, blending={self._blending}, "
                f"grid={'none' if self._grid is None else self._grid.shape})")



def _entry(state: dict[str, Any], key: str) -> Any:
    try:
        return state[key]
    except KeyError:
        raise ConfigError("missing from the crowd state", field=key) from None


def _state_array(state: dict[str, Any], key: str, dtype: Any, shape: tuple[int, ...] | None,
                 *, finite: bool = True) -> NDArray[Any]:
    """``state[key]`` as an array of ``dtype`` (and ``shape``), finite unless
    told; ConfigError naming ``key`` else."""
    raw = _entry(state, key)
    try:
        arr = np.asarray(raw)
        if arr.dtype == object or (np.issubdtype(np.dtype(dtype), np.integer)
                                   and arr.size and not np.issubdtype(arr.dtype, np.integer)):
            raise TypeError(f"dtype {arr.dtype}")
        arr = np.array(arr, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise ConfigError(f"expected an array of {np.dtype(dtype)} ({e})", field=key) from None
    if shape is not None and arr.shape != shape:
        raise ConfigError(f"expected shape {shape}, got {arr.shape}", field=key)
    if finite and arr.dtype.kind == "f" and arr.size and not np.all(np.isfinite(arr)):
        raise ConfigError("contains NaN or infinite values", field=key)
    return arr


def _check_rows(rows: dict[str, NDArray[Any]], n: int) -> None:
    """The values :meth:`Crowd.from_state` restores, checked as the setters check them."""
    for k in ("vel", "target", "threat"):
        if rows[k].size and float(np.abs(rows[k]).max()) > 1e150:
            raise ConfigError("values must lie within +-1e150", field=k)
    w = rows["weights"]
    if np.any(w < 0) or np.any(w > 1e6):
        raise ConfigError("expected weights in [0, 1e6]", field="weights")
    for k in ("chase", "avoid"):
        if np.any(rows[k] < -1) or np.any(rows[k] >= n):
            raise ConfigError(f"expected -1 or an agent index < {n}", field=k)
    if not np.all(np.isin(rows["status"], (MOVING, ARRIVED, UNREACHABLE))):
        raise ConfigError("expected status codes 0, 1 or 2", field="status")


def _state_grid(gd: Any) -> NavGrid:
    if not isinstance(gd, dict):
        raise ConfigError(f"expected a dict or None, got {type(gd).__name__}", field="grid")
    try:
        return NavGrid(_entry(gd, "walkable"), cell_size=_entry(gd, "cell_size"),
                       min_x=_entry(gd, "min_x"), min_z=_entry(gd, "min_z"),
                       weights=_entry(gd, "weights"))
    except ConfigError as e:
        raise ConfigError(e.reason, field=f"grid.{e.field}" if e.field else "grid") from None
    except (NavkitError, TypeError, ValueError) as e:
        raise ConfigError(str(e), field="grid") from None
