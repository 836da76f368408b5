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
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import geometry as _geo
from .._kernels import hpa as _k
from .._kernels.search import GEN_LIMIT as _GEN_LIMIT
from ..costs import CostModel, cost_model
from ..errors import ConfigError, QueryError
from ..grid import NavGrid
from ..results import BatchResult, PathResult, Status
from .pathfinder import _pad

__all__ = ["HPAStar", "HPAStats", "UpdateReport", "DEFAULT_CLUSTER_SIZE", "DEFAULT_ENTRANCE_GAP"]

#: Default cluster edge in cells and entrance gap (docs/hpa.md has the
#: measurements behind them: 32/16 keeps the mean suboptimality near 2% on
#: the Moving AI game and city maps at about 100x the speed of A* on the
#: largest ones).
DEFAULT_CLUSTER_SIZE = 32
DEFAULT_ENTRANCE_GAP = 16
_MAX_CLUSTER_SIZE = 256
_INT64_SAFE = 1 << 62
#: Cluster count from which build kernels run threaded.
_PARALLEL_MIN = 32


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

    Queries are not thread-safe (one reusable workspace per object).
    """

    def __init__(
        self,
        grid: NavGrid,
        costs: str | CostModel | tuple[int, int] = "exact",
        cluster_size: int = DEFAULT_CLUSTER_SIZE,
        *,
        connectivity: int = 8,
        entrance_gap: int | None = DEFAULT_ENTRANCE_GAP,
    ):
        if not isinstance(grid, NavGrid):
            raise QueryError(f"expected a NavGrid, got {type(grid).__name__}")
        if isinstance(cluster_size, bool) or not isinstance(cluster_size, (int, np.integer)) or not (
            2 <= cluster_size <= _MAX_CLUSTER_SIZE
        ):
            raise ConfigError(f"expected an int in [2, {_MAX_CLUSTER_SIZE}], got {cluster_size!r}",
                              field="cluster_size")
        if connectivity not in (4, 8) or isinstance(connectivity, bool):
            raise ConfigError(f"expected 4 or 8, got {connectivity!r}", field="connectivity")
        if entrance_gap is not None and (
            isinstance(entrance_gap, bool) or not isinstance(entrance_gap, (int, np.integer)) or entrance_gap < 1
        ):
            raise ConfigError(f"expected None or an int >= 1, got {entrance_gap!r}", field="entrance_gap")
        self.costs = cost_model(costs)
        self.cluster_size = int(cluster_size)
        self.connectivity = int(connectivity)
        self.entrance_gap = None if entrance_gap is None else int(entrance_gap)
        self._gap = np.int64(0 if entrance_gap is None else entrance_gap)
        self._prune = True
        #: Queries answered by the plain A* fallback (see the module docstring).
        self.fallbacks = 0
        self._pf: Any = None
        self._gen = 0
        self.grid = grid
        self._nomarks = np.zeros(1, dtype=np.int32)
        C = self.cluster_size
        CC = C * C
        self._qws = (
            np.empty(4 * CC, dtype=np.int64),
            np.zeros(4 * CC, dtype=np.uint8),
            np.zeros(4 * CC, dtype=np.uint8),
            np.full(CC, _k.NO_CODE, dtype=np.uint8),
            np.full(4 * CC, _k.NO_CODE, dtype=np.uint8),
            np.empty(32 * CC + 8, dtype=np.int64),
            np.empty(32 * CC + 8, dtype=np.int64),
            np.empty(4 * C + 4, dtype=np.int64),
            np.empty(4 * C + 4, dtype=np.int64),
        )
        self._info = np.zeros(_k.INFO_SIZE, dtype=np.int64)
        self._out = np.empty(max(1024, min(grid.size + 2, 1 << 16)), dtype=np.int64)
        self._smooth_buf = np.empty(0, dtype=np.int64)
        self.rebuild()

    # ------------------------------------------------------------- grid data
    def _load_grid(self, grid: NavGrid) -> None:
        self.grid = grid
        C = self.cluster_size
        self._wp = grid.width + 2
        self._hp = grid.depth + 2
        self._ncx = -(-grid.width // C)
        self._ncz = -(-grid.depth // C)
        self._cells = _pad(grid.walkable, np.uint8, 0)
        self._set_weights(grid)
        self._geo = (np.int64(self._wp), np.int64(grid.width), np.int64(grid.depth), np.int64(C),
                     np.int64(self._ncx), np.int64(self._ncz))

    def _set_weights(self, grid: NavGrid) -> None:
        if grid.weights is not None:
            self._weights = _pad(grid.weights, np.int32, 1)
            walk_w = grid.weights[grid.walkable]
            self._wmin = int(walk_w.min()) if walk_w.size else 1
            wmax = int(grid.weights.max())
        else:
            self._weights = np.ones(1, dtype=np.int32)
            self._wmin = 1
            wmax = 1
        n = self._wp * self._hp
        if n * self.costs.diag * wmax >= _INT64_SAFE:
            raise ConfigError(
                f"path costs could overflow int64 on a {grid.width}x{grid.depth} grid with weights up to "
                f"{wmax}; use smaller step costs (e.g. costs='seed')",
                field="costs",
            )

    def _grid_t(self) -> tuple[Any, ...]:
        return (self._cells, self._weights, self.grid.weights is not None)

    def _model(self) -> tuple[Any, ...]:
        return (np.int64(self.costs.card), np.int64(self.costs.diag), self.connectivity == 8,
                np.int64(self._wmin))

    def _graph(self) -> tuple[Any, ...]:
        return (self._node_off, self._node_cell, self._node_x, self._node_z, self._node_cluster,
                self._adj_off, self._adj_to, self._adj_cost, self._trees, np.int64(self._nbits))

    # ------------------------------------------------------------------ build
    @property
    def n_clusters(self) -> int:
        return self._ncx * self._ncz

    def rebuild(self) -> HPAStats:
        """Build the whole abstraction from :attr:`grid`; returns :attr:`stats`."""
        t0 = time.perf_counter()
        phases: dict[str, float] = {}
        self._load_grid(self.grid)
        ncl = self.n_clusters
        clusters = np.arange(ncl, dtype=np.int64)
        grid_t, model = self._grid_t(), self._model()

        t = time.perf_counter()
        counts = np.zeros(ncl, dtype=np.int64)
        _k.count_nodes(self._cells, self._geo, self._gap, clusters, counts)
        node_off = np.zeros(ncl + 1, dtype=np.int64)
        np.cumsum(counts, out=node_off[1:])
        n = int(node_off[-1])
        node_cell = np.empty(n, dtype=np.int64)
        node_bits = np.empty(n, dtype=np.uint8)
        _k.fill_nodes(self._cells, self._geo, self._gap, clusters, node_off, node_cell, node_bits)
        phases["entrances"] = (time.perf_counter() - t) * 1e3

        t = time.perf_counter()
        self._set_nodes(node_off, node_cell, node_bits)
        adj_off, adj_to, adj_cost = self._rows_structure()
        _k.fill_rows(grid_t, self._geo, model, node_off, node_cell, node_bits, self._node_cluster,
                     adj_off, adj_to, adj_cost, np.arange(n, dtype=np.int64))
        self._adj_off, self._adj_to, self._adj_cost = adj_off, adj_to, adj_cost
        phases["adjacency"] = (time.perf_counter() - t) * 1e3

        t = time.perf_counter()
        C = self.cluster_size
        self._trees = np.full((n, C * C), _k.NO_CODE, dtype=np.uint8)
        _k.build_kernel(ncl >= _PARALLEL_MIN)(grid_t, self._geo, model, node_off, node_cell, adj_off, adj_cost,
                                              self._trees, clusters, self._prune)
        phases["cluster_dijkstra"] = (time.perf_counter() - t) * 1e3

        t = time.perf_counter()
        self._relabel()
        phases["components"] = (time.perf_counter() - t) * 1e3
        self._alloc_abstract()
        build_ms = (time.perf_counter() - t0) * 1e3
        self._stats = self._make_stats(build_ms, phases)
        return self._stats

    def _set_nodes(self, node_off: NDArray[np.int64], node_cell: NDArray[np.int64],
                   node_bits: NDArray[np.uint8]) -> None:
        n = len(node_cell)
        self._node_off = node_off
        self._node_cell = node_cell
        self._node_bits = node_bits
        self._node_x = (node_cell % self._wp).astype(np.int32)
        self._node_z = (node_cell // self._wp).astype(np.int32)
        self._node_cluster = np.repeat(np.arange(self.n_clusters, dtype=np.int32), np.diff(node_off))
        self._nbits = max(1, int(n + 1).bit_length())
        self._check_keys()

    def _check_keys(self) -> None:
        h_max = (self._wp + self._hp) * self.costs.diag * self._wmin
        if h_max >= 1 << (62 - self._nbits):
            raise ConfigError(
                f"heuristic values of a {self.grid.width}x{self.grid.depth} grid do not fit the abstract "
                "search's 64-bit queue keys; use smaller step costs (e.g. costs='seed')",
                field="costs",
            )

    def _rows_structure(self) -> tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.int64]]:
        n = len(self._node_cell)
        adj_off = np.empty(n + 1, dtype=np.int64)
        _k.row_lengths(self._node_off, self._node_bits, self._node_cluster, adj_off)
        e = int(adj_off[-1])
        return adj_off, np.empty(e, dtype=np.int32), np.empty(e, dtype=np.int64)

    def _relabel(self) -> None:
        n = self._wp * self._hp
        labels = getattr(self, "_labels", None)
        if labels is None or labels.shape[0] != n:
            self._labels = np.empty(n, dtype=np.int32)
        stack = np.empty(n, dtype=np.int32)
        self._n_components = int(_k.label_components(self._cells, np.int64(self._wp), self._labels, stack))
        self._labels_valid = True

    def _alloc_abstract(self) -> None:
        n = len(self._node_cell)
        rows = np.diff(self._adj_off)
        max_row = int(rows.max()) if n else 0
        cap = n + 1 + max_row + 16
        ws = getattr(self, "_aws_arrays", None)
        if ws is None or ws[0].shape[0] != n + 1 or ws[3].shape[0] < cap:
            self._aws_arrays = (
                np.zeros(n + 1, dtype=np.int64),
                np.zeros(n + 1, dtype=np.int32),
                np.zeros(n + 1, dtype=np.int32),
                np.empty(cap, dtype=np.int64),
                np.empty(cap, dtype=np.int64),
                np.zeros(n + 1, dtype=np.int32),
            )
            self._gen = 0

    def _make_stats(self, build_ms: float, phases: dict[str, float]) -> HPAStats:
        n = len(self._node_cell)
        edges = int(np.count_nonzero(self._adj_cost >= 0))
        mem = {
            "cells": self._cells.nbytes,
            "weights": self._weights.nbytes,
            "labels": self._labels.nbytes,
            "nodes": sum(a.nbytes for a in (self._node_off, self._node_cell, self._node_bits, self._node_x,
                                             self._node_z, self._node_cluster)),
            "adjacency": self._adj_off.nbytes + self._adj_to.nbytes + self._adj_cost.nbytes,
            "trees": self._trees.nbytes,
            "workspace": sum(a.nbytes for a in self._aws_arrays) + sum(a.nbytes for a in self._qws)
            + self._out.nbytes,
        }
        return HPAStats(build_ms=build_ms, cluster_size=self.cluster_size, clusters=self.n_clusters, nodes=n,
                        edges=edges, memory_bytes=int(sum(mem.values())), memory=mem, phases_ms=phases)

    @property
    def stats(self) -> HPAStats:
        """Build time, abstract graph size and memory (see :class:`HPAStats`)."""
        return self._stats

    # ----------------------------------------------------------------- update
    def _changed_cells(self, grid: NavGrid, changed: Any) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        if changed is None:
            diff = grid.walkable != self.grid.walkable
            if grid.weights is not None or self.grid.weights is not None:
                diff |= grid.weight_array() != self.grid.weight_array()
            zs, xs = np.nonzero(diff)
            return xs.astype(np.int64), zs.astype(np.int64)
        arr = np.asarray(changed)
        if arr.dtype == np.bool_ and arr.shape == self.grid.shape:
            zs, xs = np.nonzero(arr)
            return xs.astype(np.int64), zs.astype(np.int64)
        if arr.size == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        if arr.ndim == 1 and arr.shape[0] == 2:
            arr = arr.reshape(1, 2)
        if arr.ndim != 2 or arr.shape[1] != 2 or not np.issubdtype(arr.dtype, np.integer):
            raise QueryError(
                f"changed must be a bool mask of shape {self.grid.shape} or an (n, 2) int array of cells, "
                f"got {arr.dtype} {arr.shape}"
            )
        xs, zs = arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64)
        bad = (xs < 0) | (xs >= self.grid.width) | (zs < 0) | (zs >= self.grid.depth)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise QueryError(f"changed[{i}] = {tuple(arr[i])} is outside the {self.grid.width}x{self.grid.depth} grid")
        return xs, zs

    def _touched(self, xs: NDArray[np.int64], zs: NDArray[np.int64]) -> NDArray[np.int64]:
        C, ncx, ncz = self.cluster_size, self._ncx, self._ncz
        cx, cz = xs // C, zs // C
        lx, lz = xs - cx * C, zs - cz * C
        parts = [cz * ncx + cx]
        m = (lx == 0) & (cx > 0)
        parts.append((cz * ncx + cx - 1)[m])
        m = (lx == C - 1) & (cx + 1 < ncx)
        parts.append((cz * ncx + cx + 1)[m])
        m = (lz == 0) & (cz > 0)
        parts.append(((cz - 1) * ncx + cx)[m])
        m = (lz == C - 1) & (cz + 1 < ncz)
        parts.append(((cz + 1) * ncx + cx)[m])
        return np.unique(np.concatenate(parts)).astype(np.int64)

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
        xs, zs = self._changed_cells(grid, changed)
        old_grid = self.grid
        self._pf = None
        if len(xs) == 0:
            self.grid = grid
            return UpdateReport(ms=(time.perf_counter() - t0) * 1e3, changed_cells=0, touched_clusters=0,
                                mode="none")
        # patch the padded arrays at the changed cells
        pidx = (zs + 1) * self._wp + xs + 1
        new_walk = grid.walkable[zs, xs]
        walk_changed = bool(np.any(self._cells[pidx] != new_walk))
        self._cells[pidx] = new_walk
        self.grid = grid
        if (grid.weights is None) != (old_grid.weights is None):
            self._set_weights(grid)
        elif grid.weights is not None:
            self._weights[pidx] = grid.weights[zs, xs]
            walk_w = grid.weights[grid.walkable]
            self._wmin = int(walk_w.min()) if walk_w.size else 1
            self._set_weights_checks(grid)
        touched = self._touched(xs, zs)
        grid_t, model = self._grid_t(), self._model()

        # transitions of the touched clusters on the new cells
        ncl = self.n_clusters
        counts_t = np.zeros(len(touched), dtype=np.int64)
        _k.count_nodes(self._cells, self._geo, self._gap, touched, counts_t)
        tmp_off = np.zeros(ncl + 1, dtype=np.int64)
        starts_t = np.zeros(len(touched), dtype=np.int64)
        np.cumsum(counts_t[:-1], out=starts_t[1:])
        tmp_off[touched] = starts_t
        tmp_cell = np.empty(int(counts_t.sum()), dtype=np.int64)
        tmp_bits = np.empty(len(tmp_cell), dtype=np.uint8)
        _k.fill_nodes(self._cells, self._geo, self._gap, touched, tmp_off, tmp_cell, tmp_bits)

        old_off = self._node_off
        old_counts = np.diff(old_off)
        same = bool(np.array_equal(old_counts[touched], counts_t))
        if same:
            old_idx = np.concatenate([np.arange(old_off[c], old_off[c + 1]) for c in touched]) if len(
                touched) else np.zeros(0, np.int64)
            same = bool(np.array_equal(self._node_cell[old_idx], tmp_cell)
                        and np.array_equal(self._node_bits[old_idx], tmp_bits))
        if same:
            mode = "in-place"
            build = _k.build_kernel(len(touched) >= _PARALLEL_MIN)
            build(grid_t, self._geo, model, old_off, self._node_cell, self._adj_off, self._adj_cost, self._trees,
                  touched, self._prune)
            # inter edges into and out of the touched clusters (their costs follow the weights)
            around = self._with_neighbours(touched)
            rows = np.concatenate([np.arange(old_off[c], old_off[c + 1]) for c in around]).astype(np.int64)
            _k.fill_rows(grid_t, self._geo, model, old_off, self._node_cell, self._node_bits, self._node_cluster,
                         self._adj_off, self._adj_to, self._adj_cost, rows)
        else:
            mode = "splice"
            counts = old_counts.copy()
            counts[touched] = counts_t
            new_off = np.zeros(ncl + 1, dtype=np.int64)
            np.cumsum(counts, out=new_off[1:])
            n = int(new_off[-1])
            flag = np.zeros(ncl, dtype=np.uint8)
            flag[touched] = 1
            node_cell = np.empty(n, dtype=np.int64)
            node_bits = np.empty(n, dtype=np.uint8)
            old_cluster = self._node_cluster
            keep = flag[old_cluster] == 0
            old_ids = np.flatnonzero(keep)
            oc = old_cluster[old_ids]
            new_ids = new_off[oc] + old_ids - old_off[oc]
            node_cell[new_ids] = self._node_cell[old_ids]
            node_bits[new_ids] = self._node_bits[old_ids]
            tc_of = np.repeat(touched, counts_t)
            t_ids = new_off[tc_of] + np.arange(len(tmp_cell)) - tmp_off[tc_of]
            node_cell[t_ids] = tmp_cell
            node_bits[t_ids] = tmp_bits
            old_adj_off, old_cost, old_trees = self._adj_off, self._adj_cost, self._trees
            self._set_nodes(new_off, node_cell, node_bits)
            adj_off, adj_to, adj_cost = self._rows_structure()
            _k.fill_rows(grid_t, self._geo, model, new_off, node_cell, node_bits, self._node_cluster,
                         adj_off, adj_to, adj_cost, np.arange(n, dtype=np.int64))
            C = self.cluster_size
            trees = np.full((n, C * C), _k.NO_CODE, dtype=np.uint8)
            _k.splice(old_off, old_adj_off, old_cost, old_trees, new_off, adj_off, adj_cost, trees, flag)
            build = _k.build_kernel(len(touched) >= _PARALLEL_MIN)
            build(grid_t, self._geo, model, new_off, node_cell, adj_off, adj_cost, trees, touched, self._prune)
            self._adj_off, self._adj_to, self._adj_cost, self._trees = adj_off, adj_to, adj_cost, trees
            self._alloc_abstract()
        self._check_keys()
        if walk_changed:
            # relabelled lazily: see find_path_cells
            self._labels_valid = False
        self._stats = self._make_stats(self._stats.build_ms, dict(self._stats.phases_ms))
        return UpdateReport(ms=(time.perf_counter() - t0) * 1e3, changed_cells=int(len(xs)),
                            touched_clusters=int(len(touched)), mode=mode)

    def _set_weights_checks(self, grid: NavGrid) -> None:
        assert grid.weights is not None
        wmax = int(grid.weights.max())
        if self._wp * self._hp * self.costs.diag * wmax >= _INT64_SAFE:
            raise ConfigError("path costs could overflow int64 with these weights; use smaller step costs",
                              field="costs")

    def _with_neighbours(self, clusters: NDArray[np.int64]) -> NDArray[np.int64]:
        ncx, ncz = self._ncx, self._ncz
        cz, cx = clusters // ncx, clusters % ncx
        parts = [clusters, (clusters - 1)[cx > 0], (clusters + 1)[cx + 1 < ncx],
                 (clusters - ncx)[cz > 0], (clusters + ncx)[cz + 1 < ncz]]
        return np.unique(np.concatenate(parts))

    # ----------------------------------------------------------------- queries
    def _cell_arg(self, value: Any, name: str) -> tuple[int, int]:
        arr = np.asarray(value)
        if arr.shape != (2,):
            raise QueryError(f"{name} must be an (x, z) cell pair, got {value!r}")
        if arr.dtype == np.bool_ or not (
            np.issubdtype(arr.dtype, np.integer)
            or (np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))
        ):
            raise QueryError(f"{name} must hold two integers, got {value!r}")
        x, z = int(arr[0]), int(arr[1])
        if not (0 <= x < self.grid.width and 0 <= z < self.grid.depth):
            raise QueryError(
                f"{name} cell ({x}, {z}) is outside the {self.grid.width}x{self.grid.depth} grid "
                f"(x in [0, {self.grid.width - 1}], z in [0, {self.grid.depth - 1}])"
            )
        return (x, z)

    def _nodes_to_cells(self, nodes: NDArray[np.int64]) -> NDArray[np.int32]:
        out = np.empty((len(nodes), 2), dtype=np.int32)
        out[:, 0] = nodes % self._wp - 1
        out[:, 1] = nodes // self._wp - 1
        return out

    def _next_gen(self) -> int:
        if self._gen >= _GEN_LIMIT:
            self._aws_arrays[2].fill(0)
            self._gen = 0
        self._gen += 1
        return self._gen

    def _search(self, sn: int, gn: int) -> tuple[int, NDArray[np.int64] | None]:
        """Run the kernel; returns (status code, padded path or None)."""
        ag, apar, atag, ahf, ahk, apath = self._aws_arrays
        while True:
            aws = (ag, apar, atag, ahf, ahk, np.int64(self._next_gen()), apath)
            code = _k.query(self._grid_t(), self._geo, self._model(), self._graph(), self._qws, aws,
                            np.int64(sn), np.int64(gn), self._out, self._info)
            if code != _k.FOUND:
                return int(code), None
            n = int(self._info[_k.INFO_LEN])
            if n <= len(self._out):
                return int(code), self._out[:n]
            self._out = np.empty(2 * n, dtype=np.int64)

    def find_path_cells(self, start: ArrayLike, goal: ArrayLike, *, smooth: bool = False) -> PathResult:
        """HPA* path between two cells ``(x, z)``.

        ``cells`` is the refined cell chain (valid: adjacent steps, walkable,
        corner rule), ``cost`` its exact cost in cardinal-step units (at
        least the optimal cost, typically within a few percent), and
        ``waypoints`` the cell centres, string-pulled when ``smooth``.
        ``expanded`` counts abstract nodes expanded plus cells settled by the
        in-cluster searches (the direct candidate's A*, and on weighted grids
        the start's Dijkstra). Status is FOUND, UNREACHABLE (start and goal in
        different components), NO_START or NO_GOAL (blocked endpoint).
        """
        s = self._cell_arg(start, "start")
        g = self._cell_arg(goal, "goal")
        fy = self.grid.floor_y
        sn = (s[1] + 1) * self._wp + s[0] + 1
        gn = (g[1] + 1) * self._wp + g[0] + 1
        if self._cells[sn] == 0:
            return PathResult(Status.NO_START, start_cell=s, floor_y=fy)
        if self._cells[gn] == 0:
            return PathResult(Status.NO_GOAL, start_cell=s, floor_y=fy)
        if self._labels_valid and self._labels[sn] != self._labels[gn]:
            return PathResult(Status.UNREACHABLE, start_cell=s, floor_y=fy)
        if sn == gn:
            nodes = np.array([sn], dtype=np.int64)
            cost_int, expanded = 0, 0
        else:
            _code, found = self._search(sn, gn)
            expanded = int(self._info[_k.INFO_EXPANDED] + self._info[_k.INFO_SETTLED])
            if found is None:
                if not self._labels_valid:
                    self._relabel()
                if self._labels[sn] != self._labels[gn]:
                    return PathResult(Status.UNREACHABLE, expanded=expanded, start_cell=s, floor_y=fy)
                return self._fallback(s, g, smooth)
            nodes = found
            cost_int = int(self._info[_k.INFO_COST])
        cells = self._nodes_to_cells(nodes)
        if smooth and len(nodes) > 2:
            if len(self._smooth_buf) < len(nodes):
                self._smooth_buf = np.empty(max(len(nodes), 2 * len(self._smooth_buf)), dtype=np.int64)
            m = _geo.string_pull(self._cells, (self._nomarks, np.int32(0)), np.int64(self._wp), nodes,
                                 len(nodes), self._smooth_buf)
            kept = self._nodes_to_cells(self._smooth_buf[:m])
        else:
            kept = cells
        return PathResult(
            Status.FOUND,
            cells=cells,
            waypoints=self.grid.cells_to_world(kept),
            cost=cost_int / self.costs.card,
            cost_int=cost_int,
            expanded=expanded,
            start_cell=s,
            end_cell=g,
            floor_y=fy,
        )

    def _fallback(self, s: tuple[int, int], g: tuple[int, int], smooth: bool) -> PathResult:
        # Unreachable in theory (see the module docstring); kept as a safety net.
        from .pathfinder import Pathfinder

        self.fallbacks += 1
        if self._pf is None:
            self._pf = Pathfinder(self.grid, costs=self.costs, connectivity=self.connectivity)
        return self._pf.find_path_cells(s, g, smooth=smooth)

    def find_paths_batch(self, starts: ArrayLike, goals: ArrayLike, *, return_paths: bool = False) -> BatchResult:
        """Answer ``starts[i] -> goals[i]`` (cells, shape (n, 2)) one after another.

        Same answers as :meth:`find_path_cells` for each pair, as a
        :class:`~navkit.results.BatchResult` (no smoothing).
        """
        s = np.asarray(starts)
        g = np.asarray(goals)
        if s.ndim != 2 or s.shape[1] != 2 or g.shape != s.shape:
            raise QueryError(f"starts and goals must both have shape (n, 2), got {s.shape} and {g.shape}")
        n = len(s)
        status = np.zeros(n, dtype=np.uint8)
        cost_int = np.full(n, -1, dtype=np.int64)
        expanded = np.zeros(n, dtype=np.int64)
        parts: list[NDArray[np.int32]] = []
        for i in range(n):
            r = self.find_path_cells(s[i], g[i])
            status[i] = int(r.status)
            cost_int[i] = r.cost_int
            expanded[i] = r.expanded
            if return_paths:
                parts.append(np.asarray(r.cells, dtype=np.int32))
        cost = np.where(cost_int >= 0, cost_int / self.costs.card, np.inf)
        offsets = cells = None
        if return_paths:
            lengths = np.array([len(p) for p in parts], dtype=np.int64)
            offsets = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            cells = np.concatenate(parts) if parts else np.zeros((0, 2), np.int32)
        return BatchResult(status=status, cost=cost, cost_int=cost_int, expanded=expanded,
                           generated=np.zeros(n, dtype=np.int64), path_offsets=offsets, path_cells=cells)

    # ------------------------------------------------------------- inspection
    def abstract_nodes(self) -> NDArray[np.int32]:
        """Cells ``(x, z)`` of the abstract nodes, shape (N, 2), cluster-major order."""
        return self._nodes_to_cells(self._node_cell)

    def graph_arrays(self) -> dict[str, NDArray[Any]]:
        """Copies of the abstraction's arrays (for tests and debugging)."""
        return {
            "node_off": self._node_off.copy(),
            "node_cell": self._node_cell.copy(),
            "node_bits": self._node_bits.copy(),
            "adj_off": self._adj_off.copy(),
            "adj_to": self._adj_to.copy(),
            "adj_cost": self._adj_cost.copy(),
            "trees": self._trees.copy(),
            "cells": self._cells.copy(),
            "weights": (self._weights.copy() if self.grid.weights is not None else np.ones(1, np.int32)),
        }

    def components(self) -> NDArray[np.int32]:
        """Component label of every cell, shape (depth, width); 0 = blocked.

        Two cells are connected exactly when their labels are equal (and
        nonzero); labels are numbered in row-major order of first cells."""
        if not self._labels_valid:
            self._relabel()
        return self._labels.reshape(self._hp, self._wp)[1:-1, 1:-1].copy()

    def __repr__(self) -> str:
        st = self._stats
        return (f"HPAStar({self.grid!r}, costs={self.costs.name}, cluster_size={self.cluster_size}, "
                f"nodes={st.nodes}, edges={st.edges})")

