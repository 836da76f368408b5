"""HPA*: hierarchical path-finding on a cluster abstraction (Botea, Müller & Schaeffer 2004).

Quick start::

    >>> import numpy as np, navkit
    >>> walk = np.ones((40, 40), dtype=bool); walk[5:35, 20] = False
    >>> hpa = navkit.HPAStar(navkit.NavGrid(walk), costs="exact", cluster_size=8)
    >>> r = hpa.find_path_cells((2, 20), (38, 20))
    >>> r.status.name, len(r.cells) > 0, r.cost >= 38
    ('FOUND', True, True)
    >>> hpa.stats.clusters, hpa.stats.nodes > 0
    (25, True)

The grid is cut into square clusters of ``cluster_size`` cells (default 32).
On every border shared by two clusters, each maximal run of cells walkable on
both sides is an *entrance*; it gets one transition (a pair of cells facing
each other across the border) in its middle, or, when at least 6 cells long,
one at each end plus evenly spread ones at most ``entrance_gap`` (default 16)
cells apart. Transition cells are the nodes of the abstract graph; its edges
are the step across each transition and, inside every cluster, the cost
between every pair of its nodes, found by one Dijkstra search per node
restricted to the cluster under navkit's rules (8-connected, no corner
cutting, terrain weights, integer costs). An intra-cluster edge that costs
exactly as much as a detour through a third node of the cluster is dropped
(no distance changes). Each node keeps its Dijkstra tree over the whole
cluster (one byte per cell), so refining an abstract edge into cells, or
connecting a query's endpoint to the node, is a walk up a tree.

A query connects the goal to the nodes of its cluster through their trees,
and the start likewise (on weighted grids, where costs are not symmetric,
through a Dijkstra from the start restricted to its cluster); runs A* on the
abstract graph with the octile heuristic; and concatenates the stored cell
paths. When the two endpoints' clusters are the same or touch, an A* inside
the bounding box of the two clusters offers a direct candidate, and the
cheaper answer wins. The answer is a valid cell path of exactly the reported
cost, usually a few percent longer than optimal; ``smooth=True`` string-pulls
it.

Completeness: a straight step across a border lies in an entrance, whose
cells are joined along the border on both sides, so it can be replaced by a
detour through the entrance's transition; a diagonal step across a border
needs both side cells free, so it has a straight detour. Hence the abstract
graph joins whatever the grid joins, and an endpoint whose region of its
cluster touches no entrance can only reach cells of that cluster, which the
direct candidate covers: a path is found whenever one exists. Connected
components (4-connected: with the corner rule a diagonal step always has a
straight detour) are labelled at build time, so a query between components
returns UNREACHABLE without searching; after an :meth:`HPAStar.update` that
changed walkability they are relabelled on demand, the first time a search
fails. Should the abstract search ever fail inside one component, the query
falls back to plain A* (counted in :attr:`HPAStar.fallbacks`; the tests
assert it never happens).

Obstacles and nearest: the
abstraction describes the static grid only, so a query with ``obstacles``
(world circles, docs/rules.md §7) first runs HPA* as usual and keeps its
path when no cell of it, and no side cell of a diagonal step in it, is
covered by a circle (the path is then valid under the obstacles, of exactly
its cost, and smoothing avoids the circles too); otherwise the query is
answered by the :class:`~navkit.query.pathfinder.Pathfinder`'s A* with the
circles: optimal, status NO_START / NO_GOAL when a circle covers an
endpoint. ``nearest=True`` keeps HPA*'s answer for a reachable goal and
gives A*'s exact nearest answer (docs/rules.md §6, status NEAREST) for a
blocked or unreachable one. Such A* answers are counted in
:attr:`HPAStar.exact_answers`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import geometry as _geo
from .._kernels import hpa as _k
from .._kernels.layouts import AbstractSearchArgs, ClusterSearchArgs
from .._kernels.search import GEN_LIMIT as _GEN_LIMIT
from ..contract import (
    Place,
    RaycastHit,
    check_agent,
    deprecated_name,
    goal_of,
    world_pairs,
    world_point,
)
from ..costs import cost_model
from ..errors import ConfigError, QueryError, shown
from ..grid import NavGrid
from ..results import (
    BatchResult,
    PathResult,
    SearchTrace,
    Status,
    no_path,
    path_result,
    world_waypoints,
)
from .hpa_graph import ClusterGraph
from .obstacles import circles_without
from .padded import as_array
from .serial import serialized

if TYPE_CHECKING:
    from .pathfinder import Costs

__all__ = ["HPAStar", "HPAStats", "UpdateReport", "DEFAULT_CLUSTER_SIZE", "DEFAULT_ENTRANCE_GAP"]

#: Default cluster edge in cells and entrance gap (docs/hpa.md has the
#: measurements behind them: 32/16 keeps the mean suboptimality near 2% on
#: the Moving AI game and city maps at about 100x the speed of A* on the
#: largest ones).
DEFAULT_CLUSTER_SIZE = 32
DEFAULT_ENTRANCE_GAP = 16
_MAX_CLUSTER_SIZE = 256


@dataclass(frozen=True)
class HPAStats:
    """Size and cost of the abstraction.

    ``build_ms`` is the wall time of the last full build (entrances, nodes,
    adjacency, cluster Dijkstras, component labels), with its parts in
    ``phases_ms``. ``nodes`` / ``edges`` count abstract nodes and directed
    edges with a finite cost (intra-cluster pairs unreachable inside their
    cluster are stored as -1 and not counted). ``memory_bytes`` is every array
    the object holds (``memory`` itemises them), query buffers included.
    """

    build_ms: float
    cluster_size: int
    clusters: int
    nodes: int
    edges: int
    memory_bytes: int
    memory: dict[str, int] = field(default_factory=dict)
    phases_ms: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "build_ms": self.build_ms,
            "cluster_size": self.cluster_size,
            "clusters": self.clusters,
            "nodes": self.nodes,
            "edges": self.edges,
            "memory_bytes": self.memory_bytes,
            "memory": dict(self.memory),
            "phases_ms": dict(self.phases_ms),
        }


@dataclass(frozen=True)
class UpdateReport:
    """What :meth:`HPAStar.update` did.

    ``mode`` is ``"none"`` (nothing changed), ``"in-place"`` (the touched
    clusters kept their transitions: only their Dijkstras and the inter
    edges around them were recomputed) or ``"splice"`` (some transitions
    moved: the touched clusters were rebuilt and the rest copied into a
    renumbered graph). ``ms`` is the whole call. Component labels are not
    part of it: when walkability changed they are recomputed on demand (see
    :meth:`HPAStar.find_path_cells`).
    """

    ms: float
    changed_cells: int
    touched_clusters: int
    mode: str


class HPAStar:
    """Hierarchical path queries on one grid.

    Parameters
    ----------
    grid : NavGrid
        The map (walkability and terrain weights).
    costs : "seed", "exact", (card, diag) or CostModel
        Integer step costs, as for :class:`~navkit.query.pathfinder.Pathfinder`.
        ``"exact"`` (default) measures lengths in Moving AI units.
    cluster_size : int
        Cluster edge in cells (2 .. 256), default 32. Larger clusters mean
        fewer abstract nodes, more memory per node (a ``C*C`` byte tree) and
        costlier rebuilds of a touched cluster.
    connectivity : 8 or 4
        Eight-connected with the corner rule (default), or four-connected.
    entrance_gap : int or None
        Entrances shorter than 6 cells get one transition in their middle,
        longer ones one at each end (the paper's rule, which ``None``
        keeps); an integer ``k >= 1`` adds evenly spread transitions inside
        long entrances so that neighbours are at most ``k`` cells apart: more
        nodes, shorter paths. Default 16 (with clusters of 16 or fewer cells
        this is the paper's rule).

    The abstraction itself is :attr:`graph` (:class:`~navkit.query.hpa_graph.ClusterGraph`).

    Thread safety: one object may be shared by threads; its queries and edits take
    turns under its ``lock`` (:mod:`navkit.query.serial`). For parallel queries give
    each thread its own object, or use ``find_paths_cells`` (all cores).
    """

    def __init__(
        self,
        grid: NavGrid,
        costs: Costs = "exact",
        cluster_size: int = DEFAULT_CLUSTER_SIZE,
        *,
        connectivity: int = 8,
        entrance_gap: int | None = DEFAULT_ENTRANCE_GAP,
    ):
        if not isinstance(grid, NavGrid):
            raise QueryError(f"expected a NavGrid, got {type(grid).__name__}")
        if (isinstance(cluster_size, bool) or not isinstance(cluster_size, (int, np.integer))
                or not (2 <= cluster_size <= _MAX_CLUSTER_SIZE)):
            raise ConfigError(f"expected an int in [2, {_MAX_CLUSTER_SIZE}], got {cluster_size!r}",
                              field="cluster_size")
        if connectivity not in (4, 8) or isinstance(connectivity, bool):
            raise ConfigError(f"expected 4 or 8, got {connectivity!r}", field="connectivity")
        if entrance_gap is not None and (
            isinstance(entrance_gap, bool) or not isinstance(entrance_gap, (int, np.integer))
            or not 1 <= entrance_gap <= 1 << 20
        ):
            raise ConfigError(f"expected None or an int in [1, 2**20], got {shown(entrance_gap)}",
                              field="entrance_gap")
        self.costs = cost_model(costs)
        #: Held by every query and edit (re-entrant; see :mod:`navkit.query.serial`).
        self.lock = threading.RLock()
        self.cluster_size = int(cluster_size)
        self.connectivity = int(connectivity)
        self.entrance_gap = None if entrance_gap is None else int(entrance_gap)
        #: Queries answered by the plain A* fallback (see the module docstring).
        self.fallbacks = 0
        #: Queries with ``obstacles`` / ``nearest`` answered by the Pathfinder's A*.
        self.exact_answers = 0
        self._pf: Any = None
        self._version = 0
        self._gen = 0
        self._followed: Any = None  # weakref to the Pathfinder whose edits this follows
        self._pending: list[tuple[NDArray[np.int64], NDArray[np.int64]]] = []
        self.graph = ClusterGraph(grid, self.costs, self.cluster_size, self.connectivity == 8,
                                  0 if entrance_gap is None else int(entrance_gap))
        self._nomarks = np.zeros(1, dtype=np.int32)
        C = self.cluster_size
        CC = C * C
        self._qws = tuple(ClusterSearchArgs(
            g=np.empty(4 * CC, dtype=np.int64),
            closed=np.zeros(4 * CC, dtype=np.uint8),
            target=np.zeros(4 * CC, dtype=np.uint8),
            s_code=np.full(CC, _k.NO_CODE, dtype=np.uint8),
            d_code=np.full(4 * CC, _k.NO_CODE, dtype=np.uint8),
            hf=np.empty(32 * CC + 8, dtype=np.int64),
            hk=np.empty(32 * CC + 8, dtype=np.int64),
            s_cost=np.empty(4 * C + 4, dtype=np.int64),
            t_cost=np.empty(4 * C + 4, dtype=np.int64),
        ))
        self._info = np.zeros(_k.INFO_SIZE, dtype=np.int64)
        #: The refined path's padded nodes (grown on demand).
        self.path_buffer = np.empty(max(1024, min(grid.size + 2, 1 << 16)), dtype=np.int64)
        self._smooth_buf = np.empty(0, dtype=np.int32)
        self.rebuild()

    @property
    def grid(self) -> NavGrid:
        """The grid the abstraction describes."""
        return self.graph.grid

    @property
    def n_clusters(self) -> int:
        return self.graph.n_clusters

    # ------------------------------------------------------------------ build
    @serialized
    def rebuild(self) -> HPAStats:
        """Build the whole abstraction from :attr:`grid`; returns :attr:`stats`."""
        t0 = time.perf_counter()
        phases = self.graph.build()
        self._alloc_abstract()
        self._stats = self._make_stats((time.perf_counter() - t0) * 1e3, phases)
        return self._stats

    def _alloc_abstract(self) -> None:
        n = len(self.graph.node_cell)
        rows = np.diff(self.graph.adj_off)
        max_row = int(rows.max()) if n else 0
        cap = n + 1 + max_row + 16
        ws = getattr(self, "_aws", None)
        if ws is None or ws.g.shape[0] != n + 1 or ws.hf.shape[0] < cap:
            self._aws = AbstractSearchArgs(
                g=np.zeros(n + 1, dtype=np.int64),
                parent=np.zeros(n + 1, dtype=np.int32),
                tag=np.zeros(n + 1, dtype=np.int32),
                hf=np.empty(cap, dtype=np.int64),
                hk=np.empty(cap, dtype=np.int64),
                gen=0,
                path=np.zeros(n + 1, dtype=np.int32),
            )
            self._gen = 0

    def _make_stats(self, build_ms: float, phases: dict[str, float]) -> HPAStats:
        g = self.graph
        mem = g.memory()
        arrays = [a for a in self._aws if isinstance(a, np.ndarray)]
        mem["workspace"] = (sum(a.nbytes for a in arrays) + sum(a.nbytes for a in self._qws)
                            + self.path_buffer.nbytes)
        return HPAStats(build_ms=build_ms, cluster_size=self.cluster_size, clusters=g.n_clusters,
                        nodes=len(g.node_cell), edges=int(np.count_nonzero(g.adj_cost >= 0)),
                        memory_bytes=int(sum(mem.values())), memory=mem, phases_ms=phases)

    @property
    def stats(self) -> HPAStats:
        """Build time, abstract graph size and memory (see :class:`HPAStats`)."""
        return self._stats

    @serialized
    def update(self, grid: NavGrid, changed: ArrayLike | None = None) -> UpdateReport:
        """Switch to ``grid`` (same shape), rebuilding only the clusters it touches.

        ``changed`` lists the cells whose walkability or weight differs from
        the current grid: a bool mask of the grid's shape or an ``(n, 2)``
        array of ``(x, z)`` cells. Cells not listed must be unchanged (they
        are not re-read). ``None`` finds them by comparing the two grids
        (one pass over the grid). A changed cell touches its cluster and, when
        it lies on a border, the cluster across it (their shared entrances
        move). The result is identical to building a new ``HPAStar`` on
        ``grid`` (tests check every array).
        """
        t0 = time.perf_counter()
        if not isinstance(grid, NavGrid):
            raise QueryError(f"expected a NavGrid, got {type(grid).__name__}")
        if grid.shape != self.grid.shape:
            raise QueryError(f"update needs a grid of shape {self.grid.shape}, got {grid.shape}")
        xs, zs = self.graph.changed(grid, changed)
        self._pf = None
        if len(xs) == 0:
            self.graph.grid = grid
            return UpdateReport(ms=(time.perf_counter() - t0) * 1e3,
                                changed_cells=0, touched_clusters=0, mode="none")
        mode, touched = self.graph.update(grid, xs, zs)
        self._version += 1
        if mode == "splice":
            self._alloc_abstract()
        self._stats = self._make_stats(self._stats.build_ms, dict(self._stats.phases_ms))
        return UpdateReport(ms=(time.perf_counter() - t0) * 1e3, changed_cells=int(len(xs)),
                            touched_clusters=touched, mode=mode)

    def follow(self, pf: Any) -> None:
        """Follow the cell edits of Pathfinder ``pf`` (built on the same map):
        each :meth:`~navkit.query.pathfinder.Pathfinder.set_walkable` /
        ``set_weights`` queues its cells, and the next query first calls
        :meth:`update` with ``pf.grid`` and those cells, so only the touched
        clusters are rebuilt (docs/edits.md). ``pf`` holds this object weakly."""
        import weakref

        from .pathfinder import Pathfinder

        if not isinstance(pf, Pathfinder):
            raise QueryError(f"expected a Pathfinder, got {type(pf).__name__}")
        if pf.engine.padded.grid.shape != self.grid.shape:
            raise QueryError(f"the Pathfinder's grid has shape {pf.engine.padded.grid.shape}, "
                             f"this HPAStar's {self.grid.shape}")
        self._followed = weakref.ref(pf)
        self._pending = []
        pf.engine.edits.on_edit(self._note_edit, weak=True)
        if pf.version:
            self.update(pf.grid)

    def _note_edit(self, xs: NDArray[np.int64], zs: NDArray[np.int64]) -> None:
        self._pending.append((xs.copy(), zs.copy()))

    def sync(self) -> UpdateReport | None:
        """Apply the followed Pathfinder's queued edits now (queries do it
        first anyway); None when there were none."""
        if not self._pending:
            return None
        pf = self._followed() if self._followed is not None else None
        parts, self._pending = self._pending, []
        if pf is None:
            return None
        xs = np.concatenate([p[0] for p in parts])
        zs = np.concatenate([p[1] for p in parts])
        cells = np.unique(np.stack([xs, zs], axis=1), axis=0)
        return self.update(pf.grid, changed=cells)

    # ----------------------------------------------------------------- queries
    def _next_gen(self) -> int:
        if self._gen >= _GEN_LIMIT:
            self._aws.tag.fill(0)
            self._gen = 0
        self._gen += 1
        return self._gen

    def _search(self, sn: int, gn: int) -> tuple[int, NDArray[np.int64] | None]:
        """Run the kernel; returns (status code, padded path or None)."""
        g = self.graph
        while True:
            aws = tuple(self._aws._replace(gen=np.int64(self._next_gen())))
            code = _k.query(g.grid_args(), g.geo, g.model_args(), g.graph_args(), self._qws, aws,
                            np.int64(sn), np.int64(gn), self.path_buffer, self._info)
            if code != _k.FOUND:
                return int(code), None
            n = int(self._info[_k.INFO_LEN])
            if n <= len(self.path_buffer):
                return int(code), self.path_buffer[:n]
            self.path_buffer = np.empty(2 * n, dtype=np.int64)

    def _pathfinder(self) -> Any:
        """A Pathfinder on :attr:`grid` (made on first use, dropped by :meth:`update`)."""
        from .pathfinder import Pathfinder

        if self._pf is None:
            self._pf = Pathfinder(self.grid, costs=self.costs, connectivity=self.connectivity)
        return self._pf

    @serialized
    def find_path_cells(self, start: ArrayLike, goal: ArrayLike, *,
                        smooth: bool = False, obstacles: ArrayLike | None = None,
                        nearest: bool = False) -> PathResult:
        """HPA* path between two cells ``(x, z)``.

        ``cells`` is the refined cell chain (valid: adjacent steps, walkable,
        corner rule), ``cost`` its exact cost in cardinal-step units (at
        least the optimal cost, typically within a few percent), and
        ``waypoints`` the cell centres, string-pulled when ``smooth``.
        ``expanded`` counts abstract nodes expanded plus cells settled by the
        in-cluster searches (the direct candidate's A*, and on weighted grids
        the start's Dijkstra). Status is FOUND, UNREACHABLE (start and goal in
        different components), NO_START or NO_GOAL (blocked endpoint).

        ``obstacles``: world circles ``(k, 3)`` = ``(x, z, radius)`` blocking
        the cells whose centres they cover, for this query only; HPA*'s path
        is kept when it avoids them, else the Pathfinder's A* answers (exact).
        ``nearest=True``: a blocked or unreachable goal gets A*'s path to the
        nearest reachable cell (status NEAREST, docs/rules.md §6). See the
        module docstring.
        """
        if self._pending:
            self.sync()
        if obstacles is None and not nearest:
            return self._hpa_query(start, goal, smooth, None)
        pg = self.graph.pg
        s = pg.cell_arg(start, "start")
        e = pg.cell_arg(goal, "goal")
        if not isinstance(nearest, (bool, np.bool_)):
            raise QueryError(f"nearest must be a bool, got {shown(nearest)}")
        pf = self._pathfinder()
        with pf.lock, pf.engine.overlay.using(obstacles):  # (validates the circles)
            ov = pf.engine.overlay  # (the same padded layout as the graph's: one grid shape)
            marks = (ov.marks, np.int32(ov.mark)) if ov.mark else None
            res = self._hpa_query(s, e, smooth, marks)
            if res.found and (marks is None or not self._crosses(res.cells, marks)):
                return res
            if not nearest and marks is None:
                return res  # (NO_START / NO_GOAL / UNREACHABLE without obstacles: exact)
        self.exact_answers += 1
        return pf.find_path_cells(s, e, smooth=smooth, nearest=bool(nearest),
                                  obstacles=obstacles, algorithm="astar")

    def _crosses(self, cells: NDArray[np.int32],
                 marks: tuple[NDArray[np.int32], np.int32]) -> bool:
        """True when a cell of the path, or a side cell of one of its diagonal
        steps, carries the overlay mark ``marks = (marks, mark)`` (the corner rule)."""
        pg = self.graph.pg
        c = cells.astype(np.int64)
        side_a = np.stack([c[1:, 0], c[:-1, 1]], axis=1)
        side_b = np.stack([c[:-1, 0], c[1:, 1]], axis=1)
        allc = np.concatenate([c, side_a, side_b])
        nodes = pg.nodes(allc)
        return bool(np.any(marks[0][nodes] == marks[1]))

    def _hpa_query(self, start: ArrayLike, goal: ArrayLike, smooth: bool,
                   marks: tuple[NDArray[np.int32], np.int32] | None) -> PathResult:
        """The HPA* answer on the static grid; ``marks``: the overlay smoothing avoids."""
        g = self.graph
        pg = g.pg
        s = pg.cell_arg(start, "start")
        e = pg.cell_arg(goal, "goal")
        fy = self.grid.floor_y
        sn, gn = pg.node(*s), pg.node(*e)
        if g.cells[sn] == 0:
            return no_path(Status.NO_START, start_cell=s, floor_y=fy)
        if g.cells[gn] == 0:
            return no_path(Status.NO_GOAL, start_cell=s, floor_y=fy)
        if g.labels_valid and g.labels[sn] != g.labels[gn]:
            return no_path(Status.UNREACHABLE, start_cell=s, floor_y=fy)
        if sn == gn:
            nodes = np.array([sn], dtype=np.int64)
            cost_int, expanded = 0, 0
        else:
            _code, found = self._search(sn, gn)
            expanded = int(self._info[_k.INFO_EXPANDED] + self._info[_k.INFO_SETTLED])
            if found is None:
                if not g.labels_valid:
                    g.relabel()
                if g.labels[sn] != g.labels[gn]:
                    return no_path(Status.UNREACHABLE, expanded=expanded, start_cell=s, floor_y=fy)
                return self._fallback(s, e, smooth)
            nodes = found
            cost_int = int(self._info[_k.INFO_COST])
        cells = pg.nodes_to_cells(nodes)
        if smooth and len(nodes) > 2:
            if len(self._smooth_buf) < len(nodes):
                self._smooth_buf = np.empty(max(len(nodes), 2 * len(self._smooth_buf)),
                                            dtype=np.int32)
            # int32 nodes, as the Pathfinder's smoothing passes them: one compiled signature
            m = _geo.string_pull(g.cells, marks or (self._nomarks, np.int32(0)), np.int64(pg.wp),
                                 nodes.astype(np.int32), len(nodes), self._smooth_buf)
            kept = pg.nodes_to_cells(self._smooth_buf[:m])
        else:
            kept = cells
        return path_result(Status.FOUND, cells, self.grid.cells_to_world(kept),
                           cost_int, self.costs.card, expanded, 0, s, e, fy)

    def _fallback(self, s: tuple[int, int], g: tuple[int, int], smooth: bool) -> PathResult:
        # Unreachable in theory (see the module docstring); kept as a safety net.
        self.fallbacks += 1
        return self._pathfinder().find_path_cells(s, g, smooth=smooth, algorithm="astar")

    # ------------------------------------------------------ the contract
    @property
    def version(self) -> int:
        """Updates (:meth:`update`, followed edits) that changed cells."""
        return self._version

    @property
    def cell_size(self) -> float:
        """The grid's cell size, metres."""
        return float(self.grid.cell_size)

    @property
    def agent_radius(self) -> float:
        """The agent radius, metres, the grid was built for."""
        return float(self.grid.agent_radius)

    #: The scene's ``navigationMode`` for a simulation on this backend.
    navigation_mode = "grid"

    def _check(self, agent: Any, budget: Any, algorithm: Any) -> None:
        if agent is not None:
            check_agent(agent, self.agent_radius, "this HPAStar's grid")
        if budget is not None:
            raise ConfigError("HPAStar has no search budget (its abstract search is bounded "
                              "by the cluster graph); use a Pathfinder for budgeted queries",
                              field="budget")
        if algorithm not in ("auto", "hpa"):
            raise QueryError(f"algorithm must be 'auto' or 'hpa' on an HPAStar, "
                             f"got {shown(algorithm)}")

    @serialized
    def find_path(self, start: ArrayLike, goal: ArrayLike | None = None, *,
                  smooth: bool = True, nearest: bool = False, obstacles: Any = None,
                  ignore: Any = None, budget: int | None = None, algorithm: str = "auto",
                  agent: Any = None, **old: Any) -> PathResult:
        """Path between world points ``start`` and ``goal`` (metres): both snap to
        walkable cells as on a Pathfinder (docs/rules.md §4.1, avoiding
        ``obstacles``), :meth:`find_path_cells` joins them (HPA*: near-optimal), and
        the waypoint rules of docs/rules.md §4.2-§4.3 apply. A goal that snaps
        nowhere is ``NO_GOAL``, or with ``nearest=True`` the Pathfinder's
        find-path-to-nearest answers (exact A*). ``budget`` is refused
        (ConfigError): HPA* has none."""
        if old or goal is None:
            goal = goal_of(goal, old, "find_path", stacklevel=6)
        self._check(agent, budget, algorithm)
        sw, ew = world_point(start, "start"), world_point(goal, "goal")
        circles = circles_without(obstacles, ignore)
        if self._pending:
            self.sync()
        pf = self._pathfinder()
        fy = self.grid.floor_y
        s = pf.snap(sw, obstacles=circles)
        if s is None:
            return pf.explain(no_path(Status.NO_START, floor_y=fy), sw, ew)
        g = pf.snap(ew, obstacles=circles)
        if g is None:
            if not nearest:
                return pf.explain(no_path(Status.NO_GOAL, start_cell=s, floor_y=fy), sw, ew)
            self.exact_answers += 1
            return pf.find_path(sw, ew, smooth=smooth, nearest=True, obstacles=circles,
                                algorithm="astar")
        res = self.find_path_cells(s, g, smooth=smooth, obstacles=circles, nearest=nearest)
        if not res.has_path:
            return res
        gc = self.grid.world_to_cell(*ew)
        return world_waypoints(res, sw, ew, (int(gc[0]), int(gc[1])),
                               0.75 * float(self.grid.cell_size))

    def find_path_to_nearest(self, start: ArrayLike, goal: ArrayLike | None = None, *,
                             smooth: bool = True, obstacles: Any = None, ignore: Any = None,
                             budget: int | None = None, algorithm: str = "auto",
                             agent: Any = None, **old: Any) -> PathResult:
        """:meth:`find_path` with ``nearest=True``."""
        return self.find_path(start, goal, smooth=smooth, nearest=True, obstacles=obstacles,
                              ignore=ignore, budget=budget, algorithm=algorithm, agent=agent,
                              **old)

    def find_paths(self, starts: ArrayLike, goals: ArrayLike, *, nearest: bool = False,
                   budget: int | None = None, algorithm: str = "auto", obstacles: Any = None,
                   smooth: bool = True, agent: Any = None) -> list[PathResult]:
        """:meth:`find_path` for each pair ``starts[i] -> goals[i]`` (world metres), in order."""
        self._check(agent, budget, algorithm)
        s, g = world_pairs(starts, goals)
        return [self.find_path(s[i], g[i], nearest=nearest, obstacles=obstacles, smooth=smooth)
                for i in range(len(s))]

    @serialized
    def place(self, point: ArrayLike, *, obstacles: Any = None, agent: Any = None
              ) -> Place | None:
        """Where a world query from ``point`` starts (:meth:`Pathfinder.place
        <navkit.query.pathfinder.Pathfinder.place>` on this grid)."""
        self._check(agent, None, "auto")
        if self._pending:
            self.sync()
        return self._pathfinder().place(point, obstacles=circles_without(obstacles, None))

    @serialized
    def is_walkable(self, point: ArrayLike, *, agent: Any = None) -> bool:
        """True when world point ``point`` lies on a walkable cell."""
        self._check(agent, None, "auto")
        if self._pending:
            self.sync()
        return bool(self._pathfinder().is_walkable(point))

    @serialized
    def raycast(self, a: ArrayLike, b: ArrayLike, *, agent: Any = None) -> RaycastHit:
        """:meth:`Pathfinder.raycast <navkit.query.pathfinder.Pathfinder.raycast>` on this
        grid (docs/rules.md §15.5)."""
        self._check(agent, None, "auto")
        if self._pending:
            self.sync()
        return self._pathfinder().raycast(a, b)

    @serialized
    def nearest_point(self, point: ArrayLike, radius: float | None = None, *,
                      agent: Any = None) -> tuple[float, float] | None:
        """:meth:`Pathfinder.nearest_point
        <navkit.query.pathfinder.Pathfinder.nearest_point>` on this grid."""
        self._check(agent, None, "auto")
        if self._pending:
            self.sync()
        return self._pathfinder().nearest_point(point, radius)

    @serialized
    def last_search(self) -> SearchTrace | None:
        """The abstract nodes the last HPA* search closed (the start's cluster
        neighbours and the nodes its abstract A* expanded): their cells and integer
        costs from the start (None before any search)."""
        if self._gen == 0:
            return None
        aws = self._aws
        n = len(self.graph.node_cell)
        idx = np.flatnonzero(aws.tag[:n] == 2 * self._gen + 1)  # the kernel's closed tag
        cells = self.graph.pg.nodes_to_cells(self.graph.node_cell[idx])
        return SearchTrace(self._gen, cells, aws.g[idx].copy())

    @serialized
    def find_paths_cells(self, starts: ArrayLike, goals: ArrayLike, *,
                         return_paths: bool = False,
                         obstacles: ArrayLike | None = None) -> BatchResult:
        """Answer ``starts[i] -> goals[i]`` (cells, shape (n, 2)) one after another.

        Same answers as :meth:`find_path_cells` (with ``obstacles``) for each
        pair, as a :class:`~navkit.results.BatchResult` (no smoothing).
        """
        s = as_array(starts, "starts")
        g = as_array(goals, "goals")
        if s.ndim != 2 or s.shape[1] != 2 or g.shape != s.shape:
            raise QueryError("starts and goals must both have shape (n, 2), "
                             f"got {s.shape} and {g.shape}")
        results = [self.find_path_cells(s[i], g[i], obstacles=obstacles)
                   for i in range(len(s))]
        return BatchResult.from_results(results, self.costs.card, with_paths=return_paths)

    def find_paths_batch(self, starts: ArrayLike, goals: ArrayLike, *,
                         return_paths: bool = False,
                         obstacles: ArrayLike | None = None) -> BatchResult:
        """The old name of :meth:`find_paths_cells` (DeprecationWarning; goes in navkit 0.3)."""
        deprecated_name("HPAStar.find_paths_batch", "HPAStar.find_paths_cells")
        return self.find_paths_cells(starts, goals, return_paths=return_paths,
                                     obstacles=obstacles)

    # ------------------------------------------------------------- inspection
    @serialized
    def abstract_nodes(self) -> NDArray[np.int32]:
        """Cells ``(x, z)`` of the abstract nodes, shape (N, 2), cluster-major order."""
        if self._pending:
            self.sync()
        return self.graph.pg.nodes_to_cells(self.graph.node_cell)

    @serialized
    def graph_arrays(self) -> dict[str, NDArray[Any]]:
        """Copies of the abstraction's arrays (for tests and debugging)."""
        if self._pending:
            self.sync()
        g = self.graph
        return {
            "node_off": g.node_off.copy(),
            "node_cell": g.node_cell.copy(),
            "node_bits": g.node_bits.copy(),
            "adj_off": g.adj_off.copy(),
            "adj_to": g.adj_to.copy(),
            "adj_cost": g.adj_cost.copy(),
            "trees": g.trees.copy(),
            "cells": g.cells.copy(),
            "weights": (g.weights.copy() if self.grid.weights is not None
                        else np.ones(1, np.int32)),
        }

    @serialized
    def components(self) -> NDArray[np.int32]:
        """Component label of every cell, shape (depth, width); 0 = blocked.

        Two cells are connected exactly when their labels are equal (and
        nonzero); labels are numbered in row-major order of first cells."""
        if self._pending:
            self.sync()
        g = self.graph
        if not g.labels_valid:
            g.relabel()
        return g.pg.unpad(g.labels)

    def __repr__(self) -> str:
        st = self._stats
        return (f"HPAStar({self.grid!r}, costs={self.costs.name}, "
                f"cluster_size={self.cluster_size}, nodes={st.nodes}, edges={st.edges})")
