"""The viewer's extra layers: flow-field arrows, HPA* clusters and entrances, JPS jump
points, display splines, circle obstacles, cell inspection, level export and rebuilds,
and the split of a request's time into compile and search.

Plain functions and small classes over the public query and level APIs; called by
:class:`~navkit.viewer.map_state.MapState` with the state's lock held, on validated input.

>>> import numpy as np, navkit
>>> pf = navkit.Pathfinder(navkit.NavGrid(np.ones((4, 6), dtype=bool)))
>>> layer = flow_layer(pf, (5, 0), every=2)
>>> layer["goal"], layer["every"], layer["reached"]
([5, 0], 2, 24)
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..query.pathfinder import Pathfinder
from ..results import PathResult
from .protocol import round4

__all__ = [
    "FLOW_MAX_ARROWS",
    "SPLINE_SAMPLES_PER_METRE",
    "REBUILD_MAX_CELLS",
    "BUILD_PARAMS",
    "KernelClock",
    "flow_layer",
    "hpa_layer",
    "jump_points",
    "spline_points",
    "circle_cells",
    "palette_index",
    "rebuilt_config",
]

#: At most this many flow arrows per answer (the lattice step grows to fit).
FLOW_MAX_ARROWS = 4096
#: Samples per metre of the display spline (:meth:`PathResult.spline`).
SPLINE_SAMPLES_PER_METRE = 4.0
#: A rebuild from the viewer may make at most this many cells.
REBUILD_MAX_CELLS = 4_000_000
#: Build parameters the panel edits: JSON key -> :class:`~navkit.level.LevelConfig` field.
BUILD_PARAMS = {
    "cellSize": "cell_size",
    "agentRadius": "agent_radius",
    "objectPadding": "object_padding",
    "boundaryPadding": "boundary_padding",
}
#: Size of the per-character path palette (the page holds the colours).
PALETTE_SIZE = 12


# ------------------------------------------------------------------ timing
class KernelClock:
    """Splits a request's time into compile time and search time.

    numba compiles (or loads from its cache) a kernel on its first call in a
    process. The first request of each ``kind`` (``"astar"``, ``"jps"``, ``"flow"``,
    ...) in this server is therefore run twice: the first run's time minus the
    second's is reported as ``compileMs`` and the second run's as ``searchMs``;
    later requests run once (``compileMs`` 0). The answers of both runs are
    identical (the searches are deterministic), so the second one is returned.
    """

    def __init__(self) -> None:
        self.warm: set[str] = set()

    def run(self, kind: str, fn: Callable[[], Any]) -> tuple[Any, float, float, bool]:
        """``(result, search_ms, compile_ms, first_call)`` of ``fn()``."""
        first = kind not in self.warm
        t0 = time.perf_counter()
        out = fn()
        t1 = time.perf_counter()
        if not first:
            return out, (t1 - t0) * 1000.0, 0.0, False
        out = fn()
        t2 = time.perf_counter()
        self.warm.add(kind)
        first_ms, again_ms = (t1 - t0) * 1000.0, (t2 - t1) * 1000.0
        return out, again_ms, max(0.0, first_ms - again_ms), True


# -------------------------------------------------------------------- flow
def flow_layer(
    pf: Pathfinder, goal: tuple[int, int], *, every: int | None = None
) -> dict[str, Any]:
    """A flow field toward ``goal`` (built with :class:`~navkit.query.flow.FlowField`
    on ``pf``, occupants included) as arrows on every ``every``-th cell.

    ``arrows`` is flat ``[x0, z0, d0, x1, z1, d1, ...]``: cells ``(x, z)`` on the
    lattice ``x, z = every // 2 + k * every`` with a move direction ``d`` in 0..7
    (``directionOffsets[d]`` is the step ``(dx, dz)``), as :func:`navkit.render.render_flow`
    draws them; ``maxCost`` is the largest cost to the goal (cardinal steps).
    """
    from ..query.flow import DIRECTION_OFFSETS, FlowField

    g = pf.grid
    if every is None:
        every = max(1, math.ceil(math.sqrt(g.width * g.depth / FLOW_MAX_ARROWS)))
    ff = FlowField(pf).build([goal])
    dirs = np.array(ff.direction, dtype=np.int64)
    cost = np.array(ff.cost_int, dtype=np.int64)
    sub = dirs[every // 2::every, every // 2::every]
    zs, xs = np.nonzero((sub >= 0) & (sub < 8))
    xs = xs * every + every // 2
    zs = zs * every + every // 2
    flat = np.stack([xs, zs, dirs[zs, xs]], axis=1).ravel()
    reached = cost >= 0
    return {
        "goal": [int(goal[0]), int(goal[1])],
        "every": int(every),
        "arrows": flat.tolist(),
        "count": len(xs),
        "reached": int(reached.sum()),
        "maxCost": float(cost[reached].max()) / pf.costs.card if reached.any() else 0.0,
        "expanded": int(ff.expanded),
        "directionOffsets": np.asarray(DIRECTION_OFFSETS).tolist(),
    }


# --------------------------------------------------------------------- HPA*
def hpa_layer(hpa: Any) -> dict[str, Any]:
    """HPA*'s abstraction for drawing: the cluster size and counts, the abstract
    nodes (entrance cells, ``nodes`` ``[[x, z], ...]``) and the inter-cluster edges
    (``edges`` ``[[i, j], ...]``, node indices, ``i < j``: the entrances' crossings)."""
    nodes = np.asarray(hpa.abstract_nodes(), dtype=np.int64)
    arrays = hpa.graph_arrays()
    off = np.asarray(arrays["adj_off"], dtype=np.int64)
    to = np.asarray(arrays["adj_to"], dtype=np.int64)
    cs = int(hpa.cluster_size)
    cluster = (nodes[:, 1] // cs) * 1_000_000 + nodes[:, 0] // cs if len(nodes) else nodes[:, 0]
    src = np.repeat(np.arange(len(off) - 1, dtype=np.int64), np.diff(off))[: len(to)]
    inter = (src < to) & (cluster[src] != cluster[to]) if len(to) else np.zeros(0, dtype=bool)
    edges = np.stack([src[inter], to[inter]], axis=1)
    g = hpa.grid
    return {
        "clusterSize": cs,
        "clustersX": math.ceil(g.width / cs),
        "clustersZ": math.ceil(g.depth / cs),
        "nodes": nodes.tolist(),
        "edges": np.unique(edges, axis=0).tolist() if len(edges) else [],
    }


# ---------------------------------------------------------------------- JPS
def jump_points(pf: Pathfinder, start: Any = None) -> dict[str, Any] | None:
    """The jump points of ``pf``'s last JPS search: ``expanded`` (closed) and
    ``generated`` (pushed, not closed) cells ``[[x, z], ...]`` in node order
    (:meth:`JPS.last_search_state <navkit.query.jps.JPS.last_search_state>`;
    ``start``: the query's start cell ``(x, z)``, or None); None when no JPS
    search ran.
    """
    jps = getattr(getattr(pf, "engine", pf), "jps", None)
    st = None if start is None else (int(start[0]), int(start[1]))
    state = jps.last_search_state(st) if jps is not None else None
    if state is None:
        return None
    expanded, generated = state
    return {"expanded": expanded.tolist(), "generated": generated.tolist()}


# ------------------------------------------------------------------ splines
def spline_points(res: PathResult) -> list[list[float]]:
    """The path's display curve (:meth:`PathResult.spline`), world metres, rounded
    as the page gets coordinates; empty without a path."""
    if not res.has_path or len(res.waypoints) == 0:
        return []
    pts = res.spline(SPLINE_SAMPLES_PER_METRE)
    return [[round4(x), round4(z)] for x, z in np.asarray(pts)]


# ------------------------------------------------------------------ circles
def circle_cells(grid: Any, x: float, z: float, radius: float) -> NDArray[np.int64]:
    """Cells ``(k, 2)`` whose centre lies in the closed disc (docs/rules.md §7.1)."""
    cs = grid.cell_size
    x0 = max(0, math.floor((x - radius - grid.min_x) / cs) - 1)
    x1 = min(grid.width - 1, math.ceil((x + radius - grid.min_x) / cs) + 1)
    z0 = max(0, math.floor((z - radius - grid.min_z) / cs) - 1)
    z1 = min(grid.depth - 1, math.ceil((z + radius - grid.min_z) / cs) + 1)
    if x0 > x1 or z0 > z1:
        return np.zeros((0, 2), dtype=np.int64)
    xs = np.arange(x0, x1 + 1)
    zs = np.arange(z0, z1 + 1)
    cx = grid.min_x + (xs + 0.5) * cs
    cz = grid.min_z + (zs + 0.5) * cs
    inside = (cx[None, :] - x) ** 2 + (cz[:, None] - z) ** 2 <= radius * radius
    zz, xx = np.nonzero(inside)
    return np.stack([xs[xx], zs[zz]], axis=1).astype(np.int64)


def palette_index(ident: str | int) -> int:
    """The path colour of a character: FNV-1a (32 bit) of ``str(ident)``'s UTF-8 bytes
    modulo the palette size; the page computes the same.

    >>> palette_index("npc_1") == palette_index("npc_1")
    True
    """
    h = 0x811C9DC5
    for b in str(ident).encode("utf-8"):
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h % PALETTE_SIZE


# ------------------------------------------------------------------ rebuild
def rebuilt_config(config: Any, params: dict[str, float]) -> Any:
    """``config`` (a :class:`~navkit.level.LevelConfig`) with new build parameters
    (JSON keys of :data:`BUILD_PARAMS`); ConfigError naming the key when a value is
    refused, or when the grid would exceed :data:`REBUILD_MAX_CELLS`."""
    changes = {BUILD_PARAMS[k]: v for k, v in params.items()}
    fld = "cellSize" if "cellSize" in params else next(iter(params), "cellSize")
    cs = float(changes.get("cell_size", config.cell_size))
    if cs > 0:  # the cell count first, so that the message names the parameter changed
        x0, z0, x1, z1 = config.bounds()
        m = cs * 2 + float(changes.get("agent_radius", config.agent_radius)) + float(
            changes.get("object_padding", config.object_padding))
        cells = math.ceil((x1 - x0 + 2 * m) / cs) * math.ceil((z1 - z0 + 2 * m) / cs)
        if cells > REBUILD_MAX_CELLS:
            raise ConfigError(
                f"the rebuilt grid would have about {cells:,} cells, more than the viewer's "
                f"{REBUILD_MAX_CELLS:,}: use a larger cellSize", field=fld)
    return dataclasses.replace(config, **changes)
