"""The searches behind a flow field: buffers, the bucket ring and the heap, repairs.

A field is one int64 word per padded node (cost, direction code and flags;
layout in :mod:`navkit._kernels.flow`). :class:`FlowSearch` runs a Dijkstra
backward from seed nodes into it, on a ring of buckets of width
``card * smallest weight`` (a bucket never changes once reached, so no heap
is needed) or, for weights spread very widely, on a 4-ary heap; both give
the same field. :class:`FlowBuffers` are the scratch arrays that several
fields of one map can share.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import flow as _k
from .._kernels.layouts import BucketPoolArgs, FlowGridArgs, FlowModelArgs, HeapArgs, SeedArgs
from ..costs import CostModel
from .overlay import stamp
from .padded import PaddedGrid

__all__ = ["FlowBuffers", "FlowSearch", "PoolExhausted", "GOAL"]

#: Direction code of a goal cell.
GOAL = _k.GOAL

_MARK_LIMIT = (1 << 30) - 2


class PoolExhausted(Exception):
    """The bucket search ran out of pool chunks (a test-sized :class:`FlowBuffers`)."""


class FlowBuffers:
    """Search buffers one or more fields of the same map can share (not thread-safe).

    Between runs every pool chunk is free, so fields may take turns with one
    set of buffers. ``chunk`` and ``chunks`` (entries per chunk, number of
    chunks) exist for tests; a pool smaller than the bound in
    :mod:`navkit._kernels.flow` can run out, and the field then rebuilds on
    the heap.
    """

    def __init__(self, n: int, chunk: int = _k.CHUNK, chunks: int | None = None):
        self.n = n
        self.chunk = int(chunk)
        self.fixed_chunks = chunks
        self.marks = np.zeros(n, dtype=np.int32)
        self.mark_counter = 0
        self._nchunks = 0
        self._ent = np.zeros(0, dtype=np.int32)
        self._cnext = np.zeros(0, dtype=np.int32)
        self._meta = np.zeros(3, dtype=np.int64)
        self._stack: NDArray[np.int32] | None = None
        self._hf: NDArray[np.int64] | None = None
        self._hk: NDArray[np.int64] | None = None

    def pool(self, nb: int) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int64]]:
        """``(ent, cnext, meta)`` with enough chunks for a ring of ``nb`` buckets."""
        need = -(-self.n // self.chunk) + 2 * nb + _k.POOL_SLACK
        if self.fixed_chunks is not None:
            need = self.fixed_chunks
        if need > self._nchunks:
            self._nchunks = need
            self._ent = np.empty(need * self.chunk, dtype=np.int32)
            self._cnext = np.empty(need, dtype=np.int32)
            self.free_all()
        return (self._ent, self._cnext, self._meta)

    def free_all(self) -> None:
        """Put every chunk back on the free list (after an aborted run)."""
        self._cnext[:] = np.arange(1, self._nchunks + 1, dtype=np.int32)  # 0 -> 1 -> ... -> -1
        if self._nchunks:
            self._cnext[-1] = -1
        self._meta[:] = (0, self._nchunks, self.chunk)

    @property
    def stack(self) -> NDArray[np.int32]:
        """Scratch of one int32 per node."""
        if self._stack is None:
            self._stack = np.empty(self.n, dtype=np.int32)
        return self._stack

    def heap(self) -> tuple[Any, ...]:
        """The heap's arrays, a :class:`~navkit._kernels.layouts.HeapArgs`
        (allocated on first use)."""
        if self._hf is None or self._hk is None:
            self._hf = np.empty(self.n + 8, dtype=np.int64)
            self._hk = np.empty(self.n + 8, dtype=np.int64)
        return tuple(HeapArgs(hf=self._hf, hk=self._hk))

    def next_mark(self) -> int:
        """A fresh overlay mark (clearing the marks when the counter wraps around)."""
        self.mark_counter += 1
        if self.mark_counter >= _MARK_LIMIT:
            self.marks.fill(0)
            self.mark_counter = 1
        return self.mark_counter


class FlowSearch:
    """The field's searches on one padded grid: ``free`` (this field's passable
    nodes), ``pk`` (the field words) and the bucket ring."""

    def __init__(self, pg: PaddedGrid, cells: NDArray[np.uint8],
                 weights: NDArray[np.int32], costs: CostModel, eight: bool,
                 queue: str, width: int, nb: int, buffers: FlowBuffers):
        self.pg = pg
        # writeable, as the kernels' other callers pass it: one compiled signature
        self.cells = cells if cells.flags.writeable else cells.copy()
        self.weights = weights
        self.costs = costs
        self.eight = eight
        self.queue = queue
        self.width = width
        self.nb = nb
        self.buffers = buffers
        n = pg.n
        self.bhead = np.full(nb, -1, dtype=np.int32)
        self.btail = np.full(nb, -1, dtype=np.int32)
        self.bfill = np.zeros(nb, dtype=np.int32)
        self.pk = np.full(n, _k.BLOCKED, dtype=np.int64)
        self.free = np.zeros(n, dtype=np.uint8)
        self.goal = np.zeros(n, dtype=np.uint8)
        # the field unpacked into (depth, width) arrays, and the revision they show
        self._dirs: NDArray[np.int8] | None = None
        self._dirs_rev = -1
        self._costs: tuple[NDArray[np.int64], NDArray[np.float64]] | None = None
        self._costs_rev = -1

    def directions(self, revision: int) -> NDArray[np.int8]:
        """The direction codes as a read-only int8 ``(depth, width)`` array,
        unpacked again when ``revision`` moved on."""
        if self._dirs is None:
            self._dirs = np.empty(self.pg.grid.shape, dtype=np.int8)
        dirs = self._dirs
        if self._dirs_rev != revision:
            dirs.flags.writeable = True
            _k.unpack(self.pk, np.int64(self.pg.wp), np.int64(self.pg.hp),
                      np.zeros(0, dtype=np.int64), dirs.reshape(-1))
            dirs.flags.writeable = False
            self._dirs_rev = revision
        return dirs

    def cost_arrays(self, revision: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """The integer costs (-1: unreachable) and the costs in cardinal-step units
        (inf: unreachable), read-only ``(depth, width)`` arrays."""
        if self._costs is None:
            shape = self.pg.grid.shape
            self._costs = (np.empty(shape, dtype=np.int64), np.empty(shape, dtype=np.float64))
        ci, cf = self._costs
        if self._costs_rev != revision:
            ci.flags.writeable = True
            cf.flags.writeable = True
            _k.unpack(self.pk, np.int64(self.pg.wp), np.int64(self.pg.hp), ci.reshape(-1),
                      np.zeros(0, dtype=np.int8))
            np.divide(ci, self.costs.card, out=cf)
            cf[ci < 0] = np.inf
            ci.flags.writeable = False
            cf.flags.writeable = False
            self._costs_rev = revision
        return self._costs

    def grid_args(self) -> tuple[Any, ...]:
        return tuple(FlowGridArgs(free=self.free, weights=self.weights, wp=np.int64(self.pg.wp),
                                  weighted=self.pg.weighted, eight=self.eight))

    def model_args(self) -> tuple[Any, ...]:
        c = self.costs
        return tuple(FlowModelArgs(card=np.int64(c.card), diag=np.int64(c.diag),
                                   width=np.int64(self.width), nb=np.int64(self.nb)))

    def stamp(self, circles: NDArray[np.float64]) -> int:
        """Stamp ``circles`` under a fresh mark; 0 (no overlay) when there are none."""
        if len(circles) == 0:
            return 0
        mark = self.buffers.next_mark()
        stamp(self.pg, circles, self.buffers.marks, mark, self.buffers.marks, 0)
        return mark

    def reset(self, mark: int) -> None:
        """Make every node unreached, passable when its cell is and no obstacle
        under ``mark`` covers it."""
        _k.reset(self.free, self.cells, self.buffers.marks, np.int32(mark), self.pk)

    def run(self, snode: NDArray[np.int64], scost: NDArray[np.int64],
            scode: NDArray[np.int8]) -> int:
        """Spread the field from seed nodes at their costs and codes; returns the cells expanded.

        Raises :class:`PoolExhausted` when the bucket pool ran out."""
        if len(snode) == 0:
            return 0
        if len(snode) > 1:
            order = np.argsort(scost, kind="stable")
            snode, scost, scode = snode[order], scost[order], scode[order]
        seeds = tuple(SeedArgs(node=snode, cost=scost, code=scode))
        if self.queue == "buckets":
            ent, cnext, meta = self.buffers.pool(self.nb)
            pool = tuple(BucketPoolArgs(ent=ent, cnext=cnext, bhead=self.bhead,
                                        btail=self.btail, bfill=self.bfill, meta=meta))
            expanded = int(_k.run_buckets(self.grid_args(), self.model_args(),
                                          self.pk, pool, seeds))
            if expanded != _k.POOL_EXHAUSTED:
                return expanded
            raise PoolExhausted
        return int(_k.run_heap(self.grid_args(), self.model_args(),
                               self.pk, self.buffers.heap(), seeds))

    def from_goals(self, goal_nodes: NDArray[np.int64]) -> int:
        """Run from the passable goal nodes at cost 0; returns the cells expanded."""
        live = goal_nodes[self.free[goal_nodes] != 0]
        return self.run(live, np.zeros(len(live), dtype=np.int64),
                        np.full(len(live), GOAL, dtype=np.int8))

    def recover(self, circles: NDArray[np.float64], goal_nodes: NDArray[np.int64]) -> int:
        """After the bucket pool ran out (a test-sized pool only): empty the
        ring and build from scratch on the heap; returns the cells expanded."""
        self.buffers.free_all()
        self.bhead.fill(-1)
        self.btail.fill(-1)
        self.bfill.fill(0)
        queue, self.queue = self.queue, "heap"
        try:
            self.reset(self.stamp(circles))
            return self.from_goals(goal_nodes)
        finally:
            self.queue = queue

    def repair(self, blocked: NDArray[np.int64], freed: NDArray[np.int64]) -> tuple[int, int]:
        """The repair searches after cells were ``blocked`` / ``freed``; returns
        ``(invalidated, expanded)``.

        Blocked cells reset the subtree of the direction forest below them,
        recomputed from its boundary; freed cells seed a search that spreads
        only the decreases they cause."""
        nbl, nfr = len(blocked), len(freed)
        out = self.buffers.stack
        invalidated = 0
        expanded = 0
        if nbl:
            invalidated = int(_k.invalidate(self.grid_args(), self.pk, blocked, out))
            nodes_i = out[:invalidated].astype(np.int64)
            snode = np.empty(invalidated, dtype=np.int64)
            scost = np.empty(invalidated, dtype=np.int64)
            scode = np.empty(invalidated, dtype=np.int8)
            ns = int(_k.boundary_seeds(self.grid_args(), self.model_args(),
                                       self.pk, nodes_i, snode, scost, scode))
            expanded += self.run(snode[:ns], scost[:ns], scode[:ns])
        if nfr:
            cap = 9 * nfr
            snode = np.empty(cap, dtype=np.int64)
            scost = np.empty(cap, dtype=np.int64)
            scode = np.empty(cap, dtype=np.int8)
            ns = int(_k.freed_seeds(self.grid_args(), self.model_args(), self.pk, self.goal, freed,
                                    snode, scost, scode))
            expanded += self.run(snode[:ns], scost[:ns], scode[:ns])
        return invalidated, expanded

    def diff(self, mark: int, nodes: NDArray[np.int64] | None,
             box: tuple[int, int, int, int]) -> tuple[int, int]:
        """Compare ``free`` with the cells under ``mark`` at ``nodes`` (or in the
        inclusive cell ``box``), updating it; returns ``(blocked, freed)``: the
        blocked nodes are ``buffers.stack[:blocked]``, the freed ones its last ``freed``."""
        out = self.buffers.stack
        marks = self.buffers.marks
        if nodes is not None:
            nbl, nfr = _k.diff_nodes(self.free, self.cells, marks, np.int32(mark), nodes, out)
        elif box[0] > box[2] or box[1] > box[3]:
            nbl, nfr = 0, 0
        else:
            x0, z0, x1, z1 = (np.int64(v + 1) for v in box)
            nbl, nfr = _k.diff_box(self.free, self.cells, marks, np.int32(mark),
                                   np.int64(self.pg.wp), x0, z0, x1, z1, out)
        return int(nbl), int(nfr)
