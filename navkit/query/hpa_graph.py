"""HPA*'s abstraction: clusters, entrances, the abstract graph and its trees
(see :mod:`navkit.query.hpa`).

:class:`ClusterGraph` builds the abstraction of one grid and keeps it in step
with cell changes: a changed cell touches its cluster (and the one across a
border it lies on); the touched clusters are rebuilt *in place* when their
transitions stay where they were, or *spliced* into a renumbered graph when
they moved. Either way the arrays equal those of a fresh build.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import hpa as _k
from .._kernels.layouts import AbstractGraphArgs, ClusterGeometry, HpaGridArgs, ModelArgs
from ..costs import CostModel
from ..errors import ConfigError, QueryError
from ..grid import NavGrid
from .fanout import fan_out, max_threads
from .padded import PaddedGrid, pad

__all__ = ["ClusterGraph", "changed_cells"]

#: Clusters per thread from which the cluster Dijkstras run on more than one thread.
_PARALLEL_MIN = 32


def changed_cells(old: NavGrid, new: NavGrid,
                  changed: Any) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Columns and rows of the cells that differ between ``old`` and ``new``:
    given as a bool mask or an ``(n, 2)`` array of cells, or found by
    comparing the two grids (``changed=None``)."""
    if changed is None:
        diff = new.walkable != old.walkable
        if new.weights is not None or old.weights is not None:
            diff |= new.weight_array() != old.weight_array()
        zs, xs = np.nonzero(diff)
        return xs.astype(np.int64), zs.astype(np.int64)
    arr = np.asarray(changed)
    if arr.dtype == np.bool_ and arr.shape == old.shape:
        zs, xs = np.nonzero(arr)
        return xs.astype(np.int64), zs.astype(np.int64)
    if arr.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if arr.ndim == 1 and arr.shape[0] == 2:
        arr = arr.reshape(1, 2)
    if arr.ndim != 2 or arr.shape[1] != 2 or not np.issubdtype(arr.dtype, np.integer):
        raise QueryError(
            f"changed must be a bool mask of shape {old.shape} or an (n, 2) int array of cells, "
            f"got {arr.dtype} {arr.shape}"
        )
    xs, zs = arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64)
    bad = (xs < 0) | (xs >= old.width) | (zs < 0) | (zs >= old.depth)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise QueryError(f"changed[{i}] = {tuple(arr[i])} is outside the "
                         f"{old.width}x{old.depth} grid")
    return xs, zs


class ClusterGraph:
    """The abstraction of one grid (arrays in :mod:`navkit._kernels.hpa`'s layout).

    ``cells`` and ``weights`` are padded copies that :meth:`update` patches;
    ``labels`` holds 4-connected component labels, recomputed on demand
    after walkability changed (``labels_valid``).
    """

    def __init__(self, grid: NavGrid, costs: CostModel, cluster_size: int, eight: bool, gap: int):
        self.costs = costs
        self.cluster_size = cluster_size
        self.eight = eight
        self.gap = np.int64(gap)
        self.prune = True
        self.pg = PaddedGrid(grid)  # index maths (the shape never changes)
        self.labels = np.empty(self.pg.n, dtype=np.int32)
        self.labels_valid = False
        self.n_components = 0
        self.load(grid)

    # ------------------------------------------------------------- the grid
    def load(self, grid: NavGrid) -> None:
        """Take every cell of ``grid`` (a full rebuild follows)."""
        self.grid = grid
        pg = self.pg
        C = self.cluster_size
        self.ncx = -(-grid.width // C)
        self.ncz = -(-grid.depth // C)
        self.cells = pad(grid.walkable, np.uint8, 0)
        self.set_weights(grid)
        self.geo = tuple(ClusterGeometry(wp=np.int64(pg.wp), width=np.int64(grid.width),
                                         depth=np.int64(grid.depth), size=np.int64(C),
                                         ncx=np.int64(self.ncx), ncz=np.int64(self.ncz)))

    def set_weights(self, grid: NavGrid) -> None:
        """Take the terrain weights of ``grid`` (ConfigError when costs could overflow)."""
        if grid.weights is not None:
            self.weights = pad(grid.weights, np.int32, 1)
            walk_w = grid.weights[grid.walkable]
            self.wmin = int(walk_w.min()) if walk_w.size else 1
            wmax = int(grid.weights.max())
        else:
            self.weights = np.ones(1, dtype=np.int32)
            self.wmin = 1
            wmax = 1
        if self.pg.n * self.costs.diag * wmax >= 1 << 62:
            raise ConfigError(
                f"path costs could overflow int64 on a {grid.width}x{grid.depth} grid with "
                f"weights up to {wmax}; use smaller step costs (e.g. costs='seed')",
                field="costs",
            )

    @property
    def n_clusters(self) -> int:
        return self.ncx * self.ncz

    def grid_args(self) -> tuple[Any, ...]:
        return tuple(HpaGridArgs(cells=self.cells, weights=self.weights,
                                 weighted=self.grid.weights is not None))

    def model_args(self) -> tuple[Any, ...]:
        return tuple(ModelArgs(card=np.int64(self.costs.card), diag=np.int64(self.costs.diag),
                               eight=self.eight, hmul=np.int64(self.wmin)))

    def graph_args(self) -> tuple[Any, ...]:
        return tuple(AbstractGraphArgs(
            node_off=self.node_off, node_cell=self.node_cell, node_x=self.node_x,
            node_z=self.node_z, node_cluster=self.node_cluster, adj_off=self.adj_off,
            adj_to=self.adj_to, adj_cost=self.adj_cost, trees=self.trees,
            nbits=np.int64(self.nbits)))

    # ---------------------------------------------------------------- build
    def build(self) -> dict[str, float]:
        """Build the whole abstraction from :attr:`grid`; returns each phase's milliseconds."""
        phases: dict[str, float] = {}
        self.load(self.grid)
        ncl = self.n_clusters
        clusters = np.arange(ncl, dtype=np.int64)
        grid_t, model = self.grid_args(), self.model_args()

        t = time.perf_counter()
        counts = np.zeros(ncl, dtype=np.int64)
        _k.count_nodes(self.cells, self.geo, self.gap, clusters, counts)
        node_off = np.zeros(ncl + 1, dtype=np.int64)
        np.cumsum(counts, out=node_off[1:])
        n = int(node_off[-1])
        node_cell = np.empty(n, dtype=np.int64)
        node_bits = np.empty(n, dtype=np.uint8)
        _k.fill_nodes(self.cells, self.geo, self.gap, clusters, node_off, node_cell, node_bits)
        phases["entrances"] = (time.perf_counter() - t) * 1e3

        t = time.perf_counter()
        self._set_nodes(node_off, node_cell, node_bits)
        adj_off, adj_to, adj_cost = self._rows_structure()
        _k.fill_rows(grid_t, self.geo, model, node_off, node_cell, node_bits, self.node_cluster,
                     adj_off, adj_to, adj_cost, np.arange(n, dtype=np.int64))
        self.adj_off, self.adj_to, self.adj_cost = adj_off, adj_to, adj_cost
        phases["adjacency"] = (time.perf_counter() - t) * 1e3

        t = time.perf_counter()
        C = self.cluster_size
        self.trees = np.full((n, C * C), _k.NO_CODE, dtype=np.uint8)
        self._build_clusters(grid_t, model, node_off, node_cell, adj_off, adj_cost, self.trees,
                             clusters)
        phases["cluster_dijkstra"] = (time.perf_counter() - t) * 1e3

        t = time.perf_counter()
        self.relabel()
        phases["components"] = (time.perf_counter() - t) * 1e3
        return phases

    def _build_clusters(self, grid_t: Any, model: Any, node_off: NDArray[np.int64],
                        node_cell: NDArray[np.int64], adj_off: NDArray[np.int64],
                        adj_cost: NDArray[np.int64], trees: NDArray[np.uint8],
                        clusters: NDArray[np.int64]) -> None:
        """The cluster Dijkstras of ``clusters`` (:func:`navkit._kernels.hpa.build_clusters`),
        shared out over threads, every ``n``-th cluster to one thread, when there are at
        least ``_PARALLEL_MIN`` per thread; each thread writes only its clusters' rows."""
        clusters = np.ascontiguousarray(clusters, dtype=np.int64)
        n = max(1, min(max_threads(), len(clusters) // _PARALLEL_MIN))

        def work(t: int) -> None:
            _k.build_clusters(grid_t, self.geo, model, node_off, node_cell, adj_off, adj_cost,
                              trees, np.ascontiguousarray(clusters[t::n]), self.prune)

        fan_out(n, len(clusters), work)

    def _set_nodes(self, node_off: NDArray[np.int64], node_cell: NDArray[np.int64],
                   node_bits: NDArray[np.uint8]) -> None:
        n = len(node_cell)
        wp = self.pg.wp
        self.node_off = node_off
        self.node_cell = node_cell
        self.node_bits = node_bits
        self.node_x = (node_cell % wp).astype(np.int32)
        self.node_z = (node_cell // wp).astype(np.int32)
        self.node_cluster = np.repeat(np.arange(self.n_clusters, dtype=np.int32), np.diff(node_off))
        self.nbits = max(1, int(n + 1).bit_length())
        self.check_keys()

    def check_keys(self) -> None:
        """ConfigError when the abstract search's 64-bit queue keys cannot hold the heuristic."""
        if (self.pg.wp + self.pg.hp) * self.costs.diag * self.wmin >= 1 << (62 - self.nbits):
            raise ConfigError(
                f"heuristic values of a {self.grid.width}x{self.grid.depth} grid do not fit "
                "the abstract search's 64-bit queue keys; use smaller step costs "
                "(e.g. costs='seed')",
                field="costs",
            )

    def _rows_structure(self) -> tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.int64]]:
        n = len(self.node_cell)
        adj_off = np.empty(n + 1, dtype=np.int64)
        _k.row_lengths(self.node_off, self.node_bits, self.node_cluster, adj_off)
        e = int(adj_off[-1])
        return adj_off, np.empty(e, dtype=np.int32), np.empty(e, dtype=np.int64)

    def relabel(self) -> None:
        """Recompute the component labels."""
        stack = np.empty(self.pg.n, dtype=np.int32)
        self.n_components = int(_k.label_components(self.cells, np.int64(self.pg.wp),
                                                    self.labels, stack))
        self.labels_valid = True

    def memory(self) -> dict[str, int]:
        """Bytes held, by part (the query workspaces not included)."""
        return {
            "cells": self.cells.nbytes,
            "weights": self.weights.nbytes,
            "labels": self.labels.nbytes,
            "nodes": sum(a.nbytes for a in (self.node_off, self.node_cell, self.node_bits,
                                            self.node_x, self.node_z, self.node_cluster)),
            "adjacency": self.adj_off.nbytes + self.adj_to.nbytes + self.adj_cost.nbytes,
            "trees": self.trees.nbytes,
        }

    # --------------------------------------------------------------- update
    def touched(self, xs: NDArray[np.int64], zs: NDArray[np.int64]) -> NDArray[np.int64]:
        """Clusters whose abstraction cells ``(xs, zs)`` change: their own, and
        across a border they lie on."""
        C, ncx, ncz = self.cluster_size, self.ncx, self.ncz
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

    def _with_neighbours(self, clusters: NDArray[np.int64]) -> NDArray[np.int64]:
        ncx, ncz = self.ncx, self.ncz
        cz, cx = clusters // ncx, clusters % ncx
        parts = [clusters, (clusters - 1)[cx > 0], (clusters + 1)[cx + 1 < ncx],
                 (clusters - ncx)[cz > 0], (clusters + ncx)[cz + 1 < ncz]]
        return np.unique(np.concatenate(parts))

    def update(self, grid: NavGrid, xs: NDArray[np.int64],
               zs: NDArray[np.int64]) -> tuple[str, int]:
        """Switch to ``grid``, whose cells ``(xs, zs)`` (at least one) changed; returns
        ``(mode, touched clusters)``, mode ``"in-place"`` or ``"splice"``."""
        old_grid = self.grid
        pidx = self.pg.nodes_xz(xs, zs)
        new_walk = grid.walkable[zs, xs]
        walk_changed = bool(np.any(self.cells[pidx] != new_walk))
        self.cells[pidx] = new_walk
        self.grid = grid
        if (grid.weights is None) != (old_grid.weights is None):
            self.set_weights(grid)
        elif grid.weights is not None:
            self.weights[pidx] = grid.weights[zs, xs]
            walk_w = grid.weights[grid.walkable]
            self.wmin = int(walk_w.min()) if walk_w.size else 1
            if self.pg.n * self.costs.diag * int(grid.weights.max()) >= 1 << 62:
                raise ConfigError("path costs could overflow int64 with these weights; "
                                  "use smaller step costs", field="costs")
        touched = self.touched(xs, zs)
        counts_t, tmp_off, tmp_cell, tmp_bits = self._transitions(touched)
        old_off = self.node_off
        same = bool(np.array_equal(np.diff(old_off)[touched], counts_t))
        if same:
            old_idx = (np.concatenate([np.arange(old_off[c], old_off[c + 1]) for c in touched])
                       if len(touched) else np.zeros(0, np.int64))
            same = bool(np.array_equal(self.node_cell[old_idx], tmp_cell)
                        and np.array_equal(self.node_bits[old_idx], tmp_bits))
        if same:
            self._rebuild_in_place(touched)
        else:
            self._splice(touched, counts_t, tmp_off, tmp_cell, tmp_bits)
        self.check_keys()
        if walk_changed:
            self.labels_valid = False  # relabelled on demand
        return ("in-place" if same else "splice"), int(len(touched))

    def _transitions(
        self, touched: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.uint8]]:
        """The touched clusters' transitions on the current cells: counts, offsets, cells, bits."""
        counts_t = np.zeros(len(touched), dtype=np.int64)
        _k.count_nodes(self.cells, self.geo, self.gap, touched, counts_t)
        tmp_off = np.zeros(self.n_clusters + 1, dtype=np.int64)
        starts_t = np.zeros(len(touched), dtype=np.int64)
        np.cumsum(counts_t[:-1], out=starts_t[1:])
        tmp_off[touched] = starts_t
        tmp_cell = np.empty(int(counts_t.sum()), dtype=np.int64)
        tmp_bits = np.empty(len(tmp_cell), dtype=np.uint8)
        _k.fill_nodes(self.cells, self.geo, self.gap, touched, tmp_off, tmp_cell, tmp_bits)
        return counts_t, tmp_off, tmp_cell, tmp_bits

    def _rebuild_in_place(self, touched: NDArray[np.int64]) -> None:
        grid_t, model = self.grid_args(), self.model_args()
        old_off = self.node_off
        self._build_clusters(grid_t, model, old_off, self.node_cell, self.adj_off,
                             self.adj_cost, self.trees, touched)
        # inter edges into and out of the touched clusters (their costs follow the weights)
        around = self._with_neighbours(touched)
        rows = np.concatenate([np.arange(old_off[c], old_off[c + 1])
                               for c in around]).astype(np.int64)
        _k.fill_rows(grid_t, self.geo, model, old_off, self.node_cell, self.node_bits,
                     self.node_cluster, self.adj_off, self.adj_to, self.adj_cost, rows)

    def _splice(self, touched: NDArray[np.int64], counts_t: NDArray[np.int64],
                tmp_off: NDArray[np.int64], tmp_cell: NDArray[np.int64],
                tmp_bits: NDArray[np.uint8]) -> None:
        grid_t, model = self.grid_args(), self.model_args()
        ncl = self.n_clusters
        old_off = self.node_off
        counts = np.diff(old_off)
        counts[touched] = counts_t
        new_off = np.zeros(ncl + 1, dtype=np.int64)
        np.cumsum(counts, out=new_off[1:])
        n = int(new_off[-1])
        flag = np.zeros(ncl, dtype=np.uint8)
        flag[touched] = 1
        node_cell = np.empty(n, dtype=np.int64)
        node_bits = np.empty(n, dtype=np.uint8)
        old_cluster = self.node_cluster
        old_ids = np.flatnonzero(flag[old_cluster] == 0)
        oc = old_cluster[old_ids]
        new_ids = new_off[oc] + old_ids - old_off[oc]
        node_cell[new_ids] = self.node_cell[old_ids]
        node_bits[new_ids] = self.node_bits[old_ids]
        tc_of = np.repeat(touched, counts_t)
        t_ids = new_off[tc_of] + np.arange(len(tmp_cell)) - tmp_off[tc_of]
        node_cell[t_ids] = tmp_cell
        node_bits[t_ids] = tmp_bits
        old_adj_off, old_cost, old_trees = self.adj_off, self.adj_cost, self.trees
        self._set_nodes(new_off, node_cell, node_bits)
        adj_off, adj_to, adj_cost = self._rows_structure()
        _k.fill_rows(grid_t, self.geo, model, new_off, node_cell, node_bits, self.node_cluster,
                     adj_off, adj_to, adj_cost, np.arange(n, dtype=np.int64))
        C = self.cluster_size
        trees = np.full((n, C * C), _k.NO_CODE, dtype=np.uint8)
        _k.splice(old_off, old_adj_off, old_cost, old_trees,
                  new_off, adj_off, adj_cost, trees, flag)
        self._build_clusters(grid_t, model, new_off, node_cell, adj_off, adj_cost, trees,
                             touched)
        self.adj_off, self.adj_to, self.adj_cost, self.trees = adj_off, adj_to, adj_cost, trees

    def changed(self, grid: NavGrid,
                changed: ArrayLike | None) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """:func:`changed_cells` between the current grid and ``grid``."""
        return changed_cells(self.grid, grid, changed)
