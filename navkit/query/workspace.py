"""Reusable search buffers: one workspace per query object (or one row per thread).

A search allocates nothing grid-sized: it runs on these arrays under a fresh
*generation* (a node's ``tag`` says whether the current search has seen it),
so starting a search costs one counter increment, and the arrays are
cleared only when the counter wraps around (every ``GEN_LIMIT`` searches).
Layouts: :mod:`navkit._kernels.search`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import search as _search
from .._kernels.layouts import RingArgs, WorkspaceArgs

__all__ = ["Workspace"]

_GEN_LIMIT = _search.GEN_LIMIT


class Workspace:
    """Reusable search buffers for a padded grid of ``n`` nodes (``rows`` copies for threads)."""

    #: Largest ring of the level queue: 2**16 entries per stream.
    MAX_RING_BITS = 16
    #: First ring length, 2**10 entries per stream: a short ring is reused in
    #: cache; a search that fills one grows them (see :meth:`grow_rings`).
    START_RING_BITS = 10

    def __init__(self, n: int, rows: int | None = None, heap_extra: int = 0,
                 ring_bits: int | None = None, max_ring_bits: int | None = None):
        shape: tuple[int, ...] = (n,) if rows is None else (rows, n)
        h = n + 8 + heap_extra  # JPS needs heap_extra = _kernels.jps.heap_reserve(wp, hp)
        hshape: tuple[int, ...] = (h,) if rows is None else (rows, h)
        self.n = n
        self._rows = rows
        self.g = np.zeros(shape, dtype=np.int64)
        self.parent = np.zeros(shape, dtype=np.int32)
        self.tag = np.zeros(shape, dtype=np.int32)
        self.pos = np.zeros(shape, dtype=np.int32)  # A*'s heap slot of each open node
        self.hf = np.zeros(hshape, dtype=np.int64)
        self.hk = np.zeros(hshape, dtype=np.int64)
        self.gens = np.zeros(1 if rows is None else rows, dtype=np.int64)
        self._gen0 = 0
        self.path = np.zeros(shape, dtype=np.int32)
        self.smooth = np.zeros(n, dtype=np.int32) if rows is None else np.zeros(0, dtype=np.int32)
        # the level queue's streams (see _kernels.search): a ring per f step,
        # START_RING_BITS long, grown up to the grid's length or 2**16 (a full
        # ring at that length makes the query rerun on the heap)
        if max_ring_bits is None:
            max_ring_bits = min(max(int(n - 1).bit_length(), 6), self.MAX_RING_BITS)
        self.max_ring_bits = int(max_ring_bits)
        if ring_bits is None:
            ring_bits = min(self.START_RING_BITS, self.max_ring_bits)
        self._alloc_rings(int(ring_bits))
        nht = _search.HT_SIZE
        self.ht = np.zeros((nht,) if rows is None else (rows, nht), dtype=np.int64)
        assert WorkspaceArgs._fields[-1] == "gen"  # args() appends it
        self._head = tuple(WorkspaceArgs(g=self.g, parent=self.parent, tag=self.tag,
                                         pos=self.pos, hf=self.hf, hk=self.hk, gen=0))[:-1]

    def _alloc_rings(self, ring_bits: int) -> None:
        self.ring_bits = ring_bits
        self.rings_version = getattr(self, "rings_version", -1) + 1
        rlen = _search.NSTREAMS << ring_bits
        shape = (rlen,) if self._rows is None else (self._rows, rlen)
        self.rf = np.zeros(shape, dtype=np.int64)
        self.rk = np.zeros(shape, dtype=np.int64)

    def set_rings(self, ring_bits: int, max_ring_bits: int | None = None) -> None:
        """New level-queue rings of ``2**ring_bits`` entries per stream (and a
        new growth cap): for tests of ring overflow and growth."""
        if max_ring_bits is not None:
            self.max_ring_bits = int(max_ring_bits)
        self._alloc_rings(int(ring_bits))

    def grow_rings(self) -> bool:
        """Make the level queue's rings four times longer (up to ``max_ring_bits``)
        after a search filled one; False when they are already that long. At
        most a few times per workspace: searches allocate nothing."""
        if self.ring_bits >= self.max_ring_bits:
            return False
        self._alloc_rings(min(self.ring_bits + 2, self.max_ring_bits))
        return True

    def next_gen(self) -> int:
        """Start a new search in row 0: bump its generation (clearing the tags on
        wrap-around). A kernel may advance ``gens[0]`` too (it is then re-read)."""
        gen = self._gen0 + 1
        if gen >= _GEN_LIMIT or self.gens[0] != self._gen0:
            if gen >= _GEN_LIMIT or self.gens.max() >= _GEN_LIMIT:
                self.tag.fill(0)
                self.gens.fill(0)
            gen = int(self.gens[0]) + 1
        self.gens[0] = self._gen0 = gen
        return gen

    def next_gens(self, count: int) -> int:
        """Reserve ``count`` searches in row 0 (generations ``gen .. gen + count - 1``,
        clearing the tags first when they would wrap around); returns ``gen``."""
        self.reserve_gens(count + 1)
        gen = self.next_gen()
        self.gens[0] = self._gen0 = gen + count - 1
        return gen

    def reserve_gens(self, per_row: int) -> None:
        """Make sure every row can run ``per_row`` more searches without wrapping."""
        if self.gens.max() + per_row >= _GEN_LIMIT:
            self.tag.fill(0)
            self.gens.fill(0)

    def closed_nodes(self) -> NDArray[np.intp]:
        """Padded nodes that row 0's last search closed (its tag, without the
        level queue's back bits, is ``2 * gen + 1``)."""
        return np.flatnonzero((self.tag & _search.TAG_LOW) == 2 * int(self.gens[0]) + 1)

    def args(self, gen: int) -> tuple[Any, ...]:
        """Row 0 as the kernels' workspace group (:class:`~navkit._kernels.layouts.WorkspaceArgs`)
        for a search of generation ``gen``."""
        return self._head + (gen,)  # a plain int: numba types it int64 too, faster

    def ring_args(self, offsets: NDArray[np.int64], moves: NDArray[np.uint8]) -> tuple[Any, ...]:
        """Row 0's level-queue group (:class:`~navkit._kernels.layouts.RingArgs`)
        for these ``f`` steps and move masks."""
        return tuple(RingArgs(rf=self.rf, rk=self.rk, ht=self.ht, offs=offsets,
                              rbits=np.int64(self.ring_bits), moves=moves))
