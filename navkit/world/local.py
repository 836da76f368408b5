"""Bounded local searches on a chunked world (docs/world-queries.md, docs/rules.md §3.6).

A local search reads only the chunks its window (and the start cell) covers:
they are assembled once into a dense *block* (cached, LRU in bytes, keyed by
the chunk span and checked against the chunks' versions), and the windowed
A* kernel :func:`navkit._kernels.world_search.window_search` runs on it with
navkit's integer costs and tie-breaks, the heuristic scaled by the *world's*
smallest weight, so answers equal ``Pathfinder(whole grid)`` with the same window.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import world_search as _ws
from ..errors import ConfigError, QueryError

__all__ = ["QueryPreset", "BOUNDED", "PRESETS", "LocalSearch", "Raw", "preset_window"]


@dataclass(frozen=True)
class QueryPreset:
    """A named bounded-query mode: a ``window`` x ``window`` box of cells centred
    on the midpoint of start and goal, and at most ``budget`` expansions.

    The centre is ``c = floor((s + g) / 2)`` per axis; the box runs from
    ``c - (window - 1) // 2`` to ``c + window // 2`` (for 38: 18 cells before the
    centre, 19 after).

    >>> BOUNDED.window_for((0, 0), (10, 3))
    (-13, -17, 24, 20)
    """

    window: int
    budget: int

    def window_for(self, start: tuple[int, int],
                   goal: tuple[int, int]) -> tuple[int, int, int, int]:
        """The inclusive cell box ``(x0, z0, x1, z1)`` for a query ``start -> goal``."""
        return preset_window(self.window, start, goal)


def preset_window(size: int, start: tuple[int, int],
                  goal: tuple[int, int]) -> tuple[int, int, int, int]:
    """The ``size`` x ``size`` box centred (floor) on the midpoint of two cells."""
    cx = (start[0] + goal[0]) // 2
    cz = (start[1] + goal[1]) // 2
    lo = (size - 1) // 2
    return (cx - lo, cz - lo, cx - lo + size - 1, cz - lo + size - 1)


#: Seed 003's bounded mode: a 38 x 38 window, 1,000 expansions.
BOUNDED = QueryPreset(window=38, budget=1000)
#: Presets by name (``preset=`` of the world queries).
PRESETS: dict[str, QueryPreset] = {"bounded": BOUNDED}


@dataclass
class Raw:
    """A local search's outcome, in world cells (``cells`` (n, 2) int32 or None)."""

    status: int
    expanded: int
    generated: int
    cells: NDArray[np.int32] | None
    cost: int


class _Block:
    __slots__ = ("cells", "x", "z", "versions", "store_version", "nbytes")

    def __init__(self, cells: NDArray[np.uint16], x: int, z: int,
                 versions: tuple[int, ...], store_version: int):
        self.cells = cells
        self.x = x
        self.z = z
        self.versions = versions
        self.store_version = store_version
        self.nbytes = int(cells.nbytes)

    def value(self, x: int, z: int) -> int | None:
        """World cell ``(x, z)``'s value when the block holds it, else None."""
        lx, lz = x - self.x, z - self.z
        c = self.cells
        if 0 <= lx < c.shape[1] and 0 <= lz < c.shape[0]:
            return int(c[lz, lx])
        return None


class LocalSearch:
    """Windowed searches over a :class:`~navkit.world.store.ChunkStore`.

    ``hmul`` is the heuristic's weight scale (the world's smallest walkable
    weight); ``cap_bytes`` bounds the cached blocks.
    """

    def __init__(self, store: Any, card: int, diag: int, eight: bool, hmul: int,
                 cap_bytes: int = 16 << 20):
        self.store = store
        self.card, self.diag, self.eight, self.hmul = int(card), int(diag), bool(eight), int(hmul)
        self.cap_bytes = int(cap_bytes)
        self._blocks: OrderedDict[tuple[int, int, int, int], _Block] = OrderedDict()
        self._bytes = 0
        self._gen = 0
        self._n = 0
        self._alloc(4096)
        self._marks = np.zeros(4096, dtype=np.uint8)
        self._tmask = np.zeros(4096, dtype=np.uint8)
        self._dummy = np.zeros(1, dtype=np.uint8)
        self._out = np.zeros(_ws.OUT_SIZE, dtype=np.int64)
        self._prm = np.zeros(_ws.P_SIZE, dtype=np.int64)
        self._path = np.zeros((4096, 2), dtype=np.int64)
        self._last_slots = 0
        self._nopath = np.zeros((0, 2), dtype=np.int64)
        self._empty = np.zeros((1, 1), dtype=np.uint16)
        #: Counters: blocks built, block hits, blocks dropped, chunks read.
        self.blocks_built = 0
        self.block_hits = 0
        self.blocks_dropped = 0
        self.chunks_read = 0
        self.last_chunks = 0

    def _alloc(self, n: int) -> None:
        self._n = n
        self._buf = np.zeros((7, n), dtype=np.int64)
        self._g = self._buf[0]
        self._parent = self._buf[1]
        self._tag = self._buf[2]
        self._gen = 0

    # ------------------------------------------------------------- blocks
    def block(self, wx0: int, wz0: int, wx1: int, wz1: int) -> _Block:
        """The cached block of the chunks covering world cells ``wx0..wx1``,
        ``wz0..wz1`` (inside the world)."""
        st = self.store
        c = st.chunk
        cx0, cz0, cx1, cz1 = wx0 // c, wz0 // c, wx1 // c, wz1 // c
        key = (cx0, cz0, cx1, cz1)
        b = self._blocks.get(key)
        sv = st.version
        if b is not None:
            if b.store_version == sv:
                self._blocks.move_to_end(key)
                self.block_hits += 1
                return b
            vers = tuple(st.chunk_version(x, z) for z in range(cz0, cz1 + 1)
                         for x in range(cx0, cx1 + 1))
            if vers == b.versions:
                b.store_version = sv
                self._blocks.move_to_end(key)
                self.block_hits += 1
                return b
            self._drop(key)
        vers = tuple(st.chunk_version(x, z) for z in range(cz0, cz1 + 1)
                     for x in range(cx0, cx1 + 1))
        cells = np.ascontiguousarray(st.region(cx0 * c, cz0 * c, (cx1 + 1) * c - 1,
                                               (cz1 + 1) * c - 1), dtype=np.uint16)
        self.chunks_read += len(vers)
        b = _Block(cells, cx0 * c, cz0 * c, vers, sv)
        self._blocks[key] = b
        self._bytes += b.nbytes
        self.blocks_built += 1
        while self._bytes > self.cap_bytes and len(self._blocks) > 1:
            self._drop(next(iter(self._blocks)))
        return b

    def _drop(self, key: tuple[int, int, int, int]) -> None:
        b = self._blocks.pop(key)
        self._bytes -= b.nbytes
        self.blocks_dropped += 1

    def invalidate(self, chunks: list[tuple[int, int]]) -> int:
        """Drop the cached blocks that hold any of ``chunks``; returns how many."""
        drop = [k for k in self._blocks
                if any(k[0] <= cx <= k[2] and k[1] <= cz <= k[3] for cx, cz in chunks)]
        for k in drop:
            self._drop(k)
        return len(drop)

    @property
    def cached_blocks(self) -> int:
        return len(self._blocks)

    # ------------------------------------------------------------- search
    def run(self, s: tuple[int, int], hgoal: tuple[int, int], bgoal: tuple[int, int],
            window: tuple[int, int, int, int], budget: int, circles: NDArray[np.float64] | None,
            *, hmul: int | None = None, reverse: bool = False,
            want_path: bool = True, targets: NDArray[np.int64] | None = None) -> Raw:
        """One windowed search from world cell ``s`` toward ``hgoal`` (heuristic
        and goal test; any cell), nearest tracking toward ``bgoal``, inside
        ``window`` (world cells, already clipped to the world; ``x0 > x1`` for
        an empty one). The start must be free (checked by the caller).
        ``targets`` (world cells ``(k, 2)`` inside the window): stop once all are
        closed (read their costs with :meth:`costs_at`)."""
        wx0, wz0, wx1, wz1 = window
        if wx0 > wx1 or wz0 > wz1:  # empty window: only the start
            bx, bz = s[0], s[1]
            cells = self._empty
            x0 = z0 = 1
            x1 = z1 = 0
            self.last_chunks = 0
        else:
            b = self.block(wx0, wz0, wx1, wz1)
            bx, bz = b.x, b.z
            cells = b.cells
            x0, z0, x1, z1 = wx0 - bx, wz0 - bz, wx1 - bx, wz1 - bz
            self.last_chunks = len(b.versions)
        ww, wd = max(0, x1 - x0 + 1), max(0, z1 - z0 + 1)
        n = ww * wd + 1
        if n > self._n:
            self._alloc(max(n, 2 * self._n))
        self._gen += 1
        if self._gen > (1 << 60):
            self._tag[:] = 0
            self._gen = 1
        use_marks = circles is not None and len(circles) > 0
        marks = self._dummy
        if use_marks:
            st = self.store
            if self._marks.size < n:
                self._marks = np.zeros(max(n, 2 * self._marks.size), dtype=np.uint8)
            marks = self._marks
            marks[: n] = 0
            _ws.stamp_window(marks, wx0, wz0, ww, wd, float(st.min_x), float(st.min_z),
                             float(st.cell_size), circles)
        out = self._out
        sx, sz = s[0] - bx, s[1] - bz
        nt = 0
        tmask = self._dummy
        tslots = None
        if targets is not None and len(targets):
            if self._tmask.size < n:
                self._tmask = np.zeros(max(n, 2 * self._tmask.size), dtype=np.uint8)
            tmask = self._tmask
            tslots = (targets[:, 1] - bz - z0) * ww + (targets[:, 0] - bx - x0)
            tslots = tslots[tslots != ((sz - z0) * ww + sx - x0)]
            tslots = np.unique(tslots)
            tmask[tslots] = 1
            nt = len(tslots)
        prm = self._prm
        prm[:] = (x0, z0, x1, z1, sx, sz, hgoal[0] - bx, hgoal[1] - bz, bgoal[0] - bx,
                  bgoal[1] - bz, self.card, self.diag, self.eight,
                  self.hmul if hmul is None else hmul, reverse, budget, self._gen, use_marks, nt)
        path = self._path if want_path else self._nopath
        status = _ws.window_search(cells, marks, tmask, prm, self._buf, out, path)
        if tslots is not None:
            tmask[tslots] = 0
        while want_path and status == 0 and out[_ws.O_NPATH] < 0:  # the path buffer was too short
            self._path = path = np.zeros((2 * len(self._path), 2), dtype=np.int64)
            self._gen += 1
            prm[_ws.P_GEN] = self._gen
            prm[_ws.P_NTARGETS] = 0
            status = _ws.window_search(cells, marks, self._dummy, prm, self._buf, out, path)
        self._last = (ww, x0, z0, sx, sz, bx, bz)
        self._last_slots = ww * wd
        cells_out = None
        if want_path and status == 0:
            k = int(out[_ws.O_NPATH])
            cells_out = path[:k].astype(np.int32)
            if bx or bz:
                cells_out += np.array((bx, bz), dtype=np.int32)
        return Raw(status, int(out[_ws.O_EXPANDED]), int(out[_ws.O_GENERATED]), cells_out,
                   int(out[_ws.O_COST]))

    def trace(self, end_slot: int) -> NDArray[np.int32]:
        """World cells from the last search's start to slot ``end_slot``."""
        ww, x0, z0, sx, sz, bx, bz = self._last
        ss = int(self._out[_ws.O_START])
        while True:
            k = _ws.window_trace(self._parent, ss, end_slot, ww, x0, z0, sx, sz,
                                 len(self._path), self._path)
            if k >= 0:
                break
            self._path = np.zeros((2 * len(self._path), 2), dtype=np.int64)
        cells = self._path[:k].astype(np.int32)
        cells[:, 0] += bx
        cells[:, 1] += bz
        return cells

    @property
    def best(self) -> tuple[int, int]:
        """The last search's nearest slot and its cost."""
        return int(self._out[_ws.O_BEST]), int(self._out[_ws.O_BEST_COST])

    @property
    def start_slot(self) -> int:
        return int(self._out[_ws.O_START])

    def closed(self) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
        """The world cells ``(k, 2)`` int32 the last search closed, in slot order
        (row-major in its window; a start outside the window last), and their
        integer costs ``(k,)`` int64."""
        ww, x0, z0, sx, sz, bx, bz = self._last
        nslots = self._last_slots
        closed = int(self._out[_ws.O_CLOSED])
        slots = np.flatnonzero(self._tag[: nslots + 1] == closed)
        cells = np.empty((len(slots), 2), dtype=np.int32)
        inside = slots < nslots
        if ww:
            cells[inside, 0] = slots[inside] % ww + x0 + bx
            cells[inside, 1] = slots[inside] // ww + z0 + bz
        cells[~inside] = (sx + bx, sz + bz)
        return cells, self._g[slots].copy()

    def costs_at(self, cells: NDArray[np.int64]) -> NDArray[np.int64]:
        """The last search's cost to each of ``cells`` (world, (k, 2); inside
        its window), -1 where not closed."""
        ww, x0, z0, sx, sz, bx, bz = self._last
        lx = cells[:, 0] - bx - x0
        lz = cells[:, 1] - bz - z0
        slots = lz * ww + lx
        closed = int(self._out[_ws.O_CLOSED])
        ok = self._tag[slots] == closed
        return np.where(ok, self._g[slots], -1)


# ----------------------------------------------------------------- helpers
def circle_blocks(store: Any, circles: NDArray[np.float64] | None, x: int, z: int) -> bool:
    """True when a circle covers the centre of world cell ``(x, z)`` (docs/rules.md §7.1)."""
    if circles is None or len(circles) == 0:
        return False
    cs = float(store.cell_size)
    cx = float(store.min_x) + (x + 0.5) * cs
    cz = float(store.min_z) + (z + 0.5) * cs
    dx = cx - circles[:, 0]
    dz = cz - circles[:, 1]
    return bool(np.any(dx * dx + dz * dz <= circles[:, 2] * circles[:, 2]))


def free(store: Any, circles: NDArray[np.float64] | None, x: int, z: int) -> bool:
    """Walkable, inside the world and not under a circle."""
    if not (0 <= x < store.width and 0 <= z < store.depth):
        return False
    return store.cell(x, z) != 0 and not circle_blocks(store, circles, x, z)


def snap(store: Any, circles: NDArray[np.float64] | None, cx: int, cz: int,
         rings: int) -> tuple[int, int] | None:
    """docs/rules.md §4.1: the free cell within ``rings`` square rings of cell
    ``(cx, cz)`` (which may lie outside the world) with the smallest squared
    cell distance, ties to the lower linear index; None when there is none.
    Reads the box in growing steps, so only the chunks near the point load."""
    if free(store, circles, cx, cz):
        return (cx, cz)
    r = min(rings, 8)
    while True:
        x0, z0 = max(cx - r, 0), max(cz - r, 0)
        x1, z1 = min(cx + r, store.width - 1), min(cz + r, store.depth - 1)
        best = None
        if x0 <= x1 and z0 <= z1:
            box = store.region(x0, z0, x1, z1) != 0
            if circles is not None and len(circles):
                cs = float(store.cell_size)
                xs = float(store.min_x) + (np.arange(x0, x1 + 1) + 0.5) * cs
                zs = float(store.min_z) + (np.arange(z0, z1 + 1) + 0.5) * cs
                for c in circles:
                    dx = xs - c[0]
                    dz = zs - c[1]
                    box &= ~((dz[:, None] * dz[:, None] + dx[None, :] * dx[None, :]) <= c[2] * c[2])
            zz, xx = np.nonzero(box)
            if len(zz):
                ax = xx.astype(np.int64) + x0
                az = zz.astype(np.int64) + z0
                d2 = (ax - cx) ** 2 + (az - cz) ** 2
                i = int(np.lexsort((ax, az, d2))[0])  # d2, then z, then x: linear order
                best = (int(ax[i]), int(az[i]), int(d2[i]))
        if best is not None and (best[2] < (r + 1) ** 2 or r >= rings):
            return (best[0], best[1])
        if r >= rings:
            return None
        far = max(cx - (store.width - 1), -cx, cz - (store.depth - 1), -cz, 0)
        r = min(rings, max(2 * r, far + 1))


def reach(preset: QueryPreset) -> int:
    """Cells (Chebyshev) a bounded plan aims ahead: ``window // 2 - 1`` (18 for 38),
    so the preset's window holds the start cell and the aimed cell.

    >>> reach(QueryPreset(window=38, budget=1000))
    18
    """
    return max(1, preset.window // 2 - 1)


def snap_rings(snap_radius: float, cell_size: float) -> int:
    """``floor(snap_radius / cell_size + 1e-9)`` square rings (docs/rules.md §4.1)."""
    v = snap_radius / cell_size + 1e-9
    return int(math.floor(v)) if v < (1 << 30) else (1 << 30)


def check_window(window: Any) -> tuple[int, int, int, int]:
    """A window ``(x0, z0, x1, z1)`` of four integers with ``x0 <= x1``, ``z0 <= z1``."""
    if (type(window) is tuple and len(window) == 4 and all(type(v) is int for v in window)
            and window[0] <= window[2] and window[1] <= window[3]):
        return window
    try:
        vals = [float(v) for v in window]
    except (TypeError, ValueError, OverflowError):
        raise QueryError(f"window must be (x0, z0, x1, z1) cells, got {window!r}") from None
    if len(vals) != 4 or not all(math.isfinite(v) and v == int(v) for v in vals):
        raise QueryError(f"window must be four finite integers (x0, z0, x1, z1), got {window!r}")
    x0, z0, x1, z1 = (int(v) for v in vals)
    if x0 > x1 or z0 > z1:
        raise QueryError(f"window must have x0 <= x1 and z0 <= z1, got {tuple(window)}")
    return x0, z0, x1, z1


def get_preset(preset: str | QueryPreset | None) -> QueryPreset | None:
    """A preset by name (``"bounded"``), a :class:`QueryPreset`, or None."""
    if preset is None or isinstance(preset, QueryPreset):
        return preset
    if isinstance(preset, str) and preset in PRESETS:
        return PRESETS[preset]
    raise ConfigError(f"unknown preset {preset!r}; known: {', '.join(sorted(PRESETS))}",
                      field="preset")
