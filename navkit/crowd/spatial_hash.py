"""A uniform-grid spatial hash for neighbour queries over many 2-D points.

>>> import numpy as np, navkit
>>> pts = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [5.0, 5.0]])
>>> h = navkit.crowd.SpatialHash(pts, cell_size=1.0)
>>> h.query_radius((0.0, 0.0), 2.0).tolist()
[0, 1, 2]
>>> off, idx = h.query_radius_all(1.5)
>>> off.tolist(), idx.tolist()
([0, 1, 2, 2, 2], [1, 0])
>>> h.knn((4.0, 4.0), 2).tolist()
[3, 2]

A game tick rebuilds the same object and answers into kept buffers:

>>> h.rebuild(pts + 0.25)
>>> off, idx = h.query_radius_all(1.5, reuse=True)   # read-only views, reused next call
>>> idx.tolist()
[1, 0]

Layout (``navkit/_kernels/spatial_hash.py``): a counting sort of the points
by cell over a uniform grid of their bounding box (not a hashed table: one
pass, contiguous cell runs, rows of cells scanned as one range). When the box
would need more than ``max(4 n, 4096)`` cells the cell size doubles until it
fits, so a few far outliers cost speed, never correctness. Every answer is
sorted by distance, then point index (``d <= r`` for radius queries, as
``scipy.spatial.cKDTree.query_ball_point``), except that a radius below
``2**-400`` m compares coordinates scaled by ``2**600`` (exact: a power of
two), so the square of a tiny distance does not round to zero: a radius-0
query answers only the points at distance 0. k-nearest answers rank the
float64 squares (distances below about 1e-154 tie at 0, then rank by index).

The grid and its queries are navkit's one neighbour index
(:mod:`navkit._kernels.spatial_hash`), the one the crowd tick and the
simulation's movement guard and ORCA also run on.

**Threads.** One hash may be shared between threads: every method holds the
hash's lock while it reads or writes its buffers, so concurrent calls run one
after the other and give the answers they give alone (``query_radius_all``
still runs on several threads inside). The ``reuse=True`` views are
overwritten by the next ``reuse=True`` call from any thread.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import spatial_hash as _k
from ..agents.index import index_buffers
from ..errors import QueryError
from ..query.fanout import fan_out, max_threads

__all__ = ["SpatialHash", "as_points", "as_point", "as_radius", "as_threads", "split"]

#: Fewer points than this per thread: one thread (starting threads costs more).
MIN_PER_THREAD = 4096
#: The most entries one answer array may hold (``knn_all``'s ``n * k``).
MAX_ANSWER = 2**31 - 1


def as_points(values: ArrayLike, name: str) -> NDArray[np.float64]:
    """``values`` as a C-contiguous float64 ``(n, 2)`` array of finite numbers."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise QueryError(f"{name}: expected an (n, 2) array of numbers ({exc})") from None
    if arr.dtype == np.bool_ or not (np.issubdtype(arr.dtype, np.integer)
                                     or np.issubdtype(arr.dtype, np.floating)):
        raise QueryError(f"{name}: expected an (n, 2) array of numbers, got dtype {arr.dtype}")
    if arr.size == 0 and arr.ndim <= 2:
        arr = arr.reshape(0, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise QueryError(f"{name}: expected shape (n, 2), got {arr.shape}")
    out = np.ascontiguousarray(arr, dtype=np.float64)
    if out.size:  # min / max: no temporary arrays (NaN propagates into both)
        lo, hi = float(out.min()), float(out.max())
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise QueryError(f"{name}: contains NaN or infinite values")
        if -lo > 1e150 or hi > 1e150:
            raise QueryError(f"{name}: coordinates must lie within +-1e150")
    return out


def as_point(value: ArrayLike, name: str = "point") -> tuple[float, float]:
    """One finite point ``(x, z)``."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise QueryError(f"{name}: expected a point (x, z), got {value!r}") from None
    if arr.shape != (2,):
        raise QueryError(f"{name}: expected a point (x, z), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or float(np.abs(arr).max()) > 1e150:
        raise QueryError(f"{name}: must be finite and within +-1e150, got {arr.tolist()}")
    return float(arr[0]), float(arr[1])


def as_radius(value: Any, name: str = "r", *, positive: bool = False) -> float:
    """A finite radius >= 0 (> 0 with ``positive``)."""
    if isinstance(value, bool):
        raise QueryError(f"{name}: expected a number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise QueryError(f"{name}: expected a number, got {value!r}") from None
    if not math.isfinite(v) or v < 0 or (positive and v == 0) or v > 1e150:
        raise QueryError(f"{name}: expected a finite number {'>' if positive else '>='} 0 "
                         f"(at most 1e150), got {value!r}")
    return v


def as_threads(value: Any, n: int, name: str = "threads") -> int:
    """The thread count to use for ``n`` items: ``value`` (``None``: all of
    :func:`~navkit.query.fanout.max_threads`), at most ``max_threads()`` and
    one per :data:`MIN_PER_THREAD` items."""
    if value is None:
        want = max_threads()
    elif isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise QueryError(f"{name}: expected an integer >= 1 or None, got {value!r}")
    else:
        want = int(value)
    return max(1, min(want, max_threads(), -(-n // MIN_PER_THREAD)))


def split(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ranges covering ``[0, n)``, sizes differing by at most one."""
    return [(n * t // parts, n * (t + 1) // parts) for t in range(parts)]


def _as_count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise QueryError(f"{name}: expected an integer, got {value!r}")
    if value < 0:
        raise QueryError(f"{name}: expected >= 0, got {value}")
    return int(value)


def _scale(r: float) -> float:
    """The coordinate scale of a radius query (docs: tiny radii compare scaled)."""
    return _k.SCALE if r < _k.TINY_R else 1.0


class SpatialHash:
    """Points ``(n, 2)`` (world x, z, metres) sorted into square cells of
    ``cell_size`` metres, for radius and k-nearest queries.

    The structure owns a copy of the points (:attr:`positions`, read-only);
    :meth:`update` moves some of them, :meth:`rebuild` replaces them all
    (a game tick: no allocation once the buffers are large enough). Query
    answers are new arrays, except ``query_radius_all(r, reuse=True)``.
    A cell size near the usual query radius is best (3 x 3 cells per query).

    Safe to share between threads: each method holds the hash's lock while it
    runs (calls from several threads run one at a time, each with its own
    answer; see the module docstring).
    """

    def __init__(self, positions: ArrayLike, cell_size: float):
        self._lock = threading.Lock()
        self._cell_size = as_radius(cell_size, "cell_size", positive=True)
        self._cap = -1
        self._geom = np.zeros(5, dtype=np.float64)
        self._dims = np.zeros(2, dtype=np.int64)
        # query_radius_all's pair buffer (slots, grow-only) and per-thread sort scratch
        self._pairs = np.zeros(0, dtype=np.int32)
        self._tmp_idx = np.zeros((1, 64), dtype=np.int32)
        self._tmp_d2 = np.zeros((1, 64), dtype=np.float64)
        # query_radius_all(reuse=True) answers (grow-only)
        self._out_idx = np.zeros(0, dtype=np.int32)
        self._box = (0.0, 0.0, 0.0, 0.0)
        self._replace(as_points(positions, "positions"))

    def rebuild(self, positions: ArrayLike) -> None:
        """Replace every point by ``positions`` (m, 2) (any m) and re-sort them:
        the same structure as ``SpatialHash(positions, cell_size)`` with the
        cell size asked for at construction. Buffers are kept and grow only, so
        a tick that rebuilds the hash of the same agents allocates nothing."""
        pos = as_points(positions, "positions")
        with self._lock:
            self._replace(pos)

    def _replace(self, pos: NDArray[np.float64]) -> None:
        n = len(pos)
        if n >= 2**31 - 1:
            raise QueryError(f"positions: at most {2**31 - 2} points, got {n}")
        if n > self._cap:
            self._grow(n)
        self._n = n
        self._max_cells = max(4 * n, 4096)
        self._pos = self._pos_buf[:n]
        self._pos[...] = pos
        self._order = self._order_buf[:n]
        self._slot = self._slot_buf[:n]
        self._cellid = self._cellid_buf[:n]
        self._spos = self._spos_buf[:n]
        self._counts = self._counts_buf[:n]
        self._qidx = self._qidx_buf[:n]
        self._qd2 = self._qd2_buf[:n]
        self._rebuild()

    def _grow(self, n: int) -> None:
        """Point buffers for ``n`` points (at least twice the old capacity)."""
        cap = max(n, 2 * self._cap)
        self._cap = cap
        self._pos_buf = np.zeros((cap, 2), dtype=np.float64)
        ix = index_buffers(cap, max(4 * cap, 4096))  # the index (geometry: self._geom)
        self._cell_start, self._order_buf, self._slot_buf = ix.cell_start, ix.order, ix.slot
        self._spos_buf, self._cellid_buf = ix.spos, ix.cellid
        # query_radius_all: pairs past the stencil, wide slots, the runs' cursors
        self._counts_buf = np.zeros(cap, dtype=np.int32)
        self._wide_buf = np.zeros(cap, dtype=np.uint8)
        (self._rstart_buf, self._ostart_buf, self._cur_buf, self._cur2_buf,
         self._soff_buf) = (np.zeros(cap, dtype=np.int64) for _ in range(5))
        self._out_off = np.zeros(cap + 1, dtype=np.int64)
        # query_radius: its answer before the copy
        self._qidx_buf = np.zeros(cap, dtype=np.int32)
        self._qd2_buf = np.zeros(cap, dtype=np.float64)

    def _rebuild(self) -> None:
        _k.build(self._pos, self._cell_size, self._max_cells, self._geom, self._dims,
                 self._cell_start, self._order, self._slot, self._spos, self._cellid)
        if self._n:
            g = self._geom
            self._box = (float(g[0]), float(g[1]), float(g[3]), float(g[4]))

    # ------------------------------------------------------------- properties
    @property
    def n(self) -> int:
        """Number of points."""
        return self._n

    @property
    def cell_size(self) -> float:
        """The cell size in use, metres (the one asked for, or doubled until the
        grid fits ``max(4 n, 4096)`` cells)."""
        return float(self._geom[2])

    @property
    def shape(self) -> tuple[int, int]:
        """Grid shape ``(nz, nx)`` in cells."""
        return int(self._dims[1]), int(self._dims[0])

    @property
    def positions(self) -> NDArray[np.float64]:
        """The points ``(n, 2)``, a read-only view (it follows :meth:`update`
        and :meth:`rebuild`: copy it to keep a tick's positions)."""
        v = self._pos.view()
        v.setflags(write=False)
        return v

    def _args(self) -> tuple[Any, ...]:
        return (self._geom, self._dims, self._cell_start, self._order)

    # ---------------------------------------------------------------- queries
    def query_radius(self, point: ArrayLike, r: float) -> NDArray[np.int32]:
        """Indices (int32) of the points within ``r`` metres of ``point``
        (``d <= r``), sorted by distance then index."""
        px, pz = as_point(point)
        rv = as_radius(r)
        with self._lock:
            c = int(_k.radius_point(px, pz, rv, _scale(rv), -1, self._geom, self._dims,
                                    self._cell_start, self._order, self._spos, self._qidx,
                                    self._qd2, 0, self._n))
            return self._qidx[:c].copy()

    def query_radius_all(self, r: float, *, threads: int | None = None, reuse: bool = False
                         ) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
        """Every point's neighbours within ``r`` metres, itself excluded, as CSR:
        ``offsets`` int64 ``(n + 1,)`` and ``indices`` int32; point i's
        neighbours are ``indices[offsets[i]:offsets[i + 1]]``, sorted by
        distance then index.

        ``reuse=True`` answers with read-only views of buffers the hash keeps
        (grow-only): no allocation and no first-touch page faults, but the next
        ``reuse=True`` call overwrites them (copy what must outlive it).

        Each unordered pair of points is tested once, over a half stencil of
        cells (about ``r / cell_size`` cells each way): every point gets a
        run of a pair buffer (room for its candidates), one pass writes each
        pair into both points' runs, then each run is sorted into its place
        in point order. The passes run on ``threads`` threads (default
        :func:`~navkit.query.fanout.max_threads`), each on its own range of
        cell rows (one range when the grid has too few rows); the answer is
        the same for any thread count."""
        rv = as_radius(r)
        nt = as_threads(threads, self._n)
        with self._lock:
            if rv < _k.TINY_R:
                return self._tiny_radius_all(rv, reuse)
            return self._radius_all(rv, nt, reuse)

    def _tiny_radius_all(self, rv: float, reuse: bool
                         ) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
        """``query_radius_all`` for a radius below ``2**-400`` m: point by point,
        on scaled coordinates (the module docstring), one thread."""
        n = self._n
        offsets = self._out_off[:n + 1] if reuse else np.empty(n + 1, dtype=np.int64)
        offsets[0] = 0
        args = (rv, _k.SCALE, self._geom, self._dims, self._cell_start, self._order, self._slot,
                self._spos, offsets)
        _k.radius_each(*args, self._out_idx[:0], self._qd2[:0], False)
        np.cumsum(offsets, out=offsets)
        total = int(offsets[n])
        indices = self._indices(total, reuse)
        _k.radius_each(*args, indices, np.empty(total, dtype=np.float64), True)
        return self._answer(offsets, indices, reuse)

    def _indices(self, total: int, reuse: bool) -> NDArray[np.int32]:
        """An answer's indices array: new, or a view of the kept buffer (grown)."""
        if not reuse:
            return np.empty(total, dtype=np.int32)
        if self._out_idx.shape[0] < total:
            self._out_idx = np.zeros(total + total // 4 + 64, dtype=np.int32)
        return self._out_idx[:total]

    def _radius_all(self, rv: float, threads: int, reuse: bool
                    ) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
        n = self._n
        offsets = self._out_off[:n + 1] if reuse else np.empty(n + 1, dtype=np.int64)
        if n == 0:
            offsets[0] = 0
            indices = self._out_idx[:0] if reuse else np.empty(0, dtype=np.int32)
            return self._answer(offsets, indices, reuse)
        nx, nz = int(self._dims[0]), int(self._dims[1])
        k = self._stencil(rv)
        rows = self._row_split(threads, nx, nz, k)
        nt = len(rows)
        rstart, ostart = self._rstart_buf[:n], self._ostart_buf[:n]
        cur, cur2 = self._cur_buf[:n], self._cur2_buf[:n]
        soff, wide = self._soff_buf[:n], self._wide_buf[:n]
        grid = (rv, k, self._geom, self._dims, self._cell_start, self._spos)
        sizes = [0] * nt

        def runs(t: int) -> None:
            sizes[t] = int(_k.pair_runs(*grid, rows[t][0], rows[t][1], self._counts, rstart,
                                        ostart, cur, cur2, wide))

        fan_out(nt, n, runs)
        base = [sum(sizes[:t]) for t in range(nt + 1)]  # each range's part of the pair buffer
        if self._pairs.shape[0] < base[nt]:
            self._pairs = np.empty(base[nt] + base[nt] // 4 + 64, dtype=np.int32)
        pairs = self._pairs

        def fill(t: int) -> None:
            _k.pair_fill(*grid, rows[t][0], rows[t][1], wide, pairs, base[t], base[t + 1], cur,
                         cur2)

        fan_out(nt, n, fill)
        total, widest = (int(v) for v in _k.pair_offsets(self._order, rstart, ostart, cur, cur2,
                                                          offsets, soff))
        if self._tmp_idx.shape[0] < nt or self._tmp_idx.shape[1] < widest:
            cols = max(widest + widest // 4, self._tmp_idx.shape[1])
            self._tmp_idx = np.zeros((nt, cols), dtype=np.int32)
            self._tmp_d2 = np.zeros((nt, cols), dtype=np.float64)
        indices = self._indices(total, reuse)
        starts = self._cell_start

        def emit(t: int) -> None:
            _k.pair_emit(self._spos, self._order, rstart, ostart, cur, cur2, soff,
                         pairs[base[t]:], int(starts[rows[t][0] * nx]),
                         int(starts[rows[t][1] * nx]), indices, self._tmp_idx[t], self._tmp_d2[t])

        fan_out(nt, n, emit)
        return self._answer(offsets, indices, reuse)

    def _stencil(self, r: float) -> int:
        """The half stencil's half-width in cells for radius ``r``: the query box
        reaches under ``k + 0.5`` cells each way, so a pair is at most ``k + 1``
        cells apart (at least 1, at most the grid)."""
        cs = float(self._geom[2])
        reach = r * (1.0 + _k.RANGE_SLACK) + _k.RANGE_SLACK * cs
        return int(min(max(reach / cs + 0.5, 1.0), float(max(self._dims[0], self._dims[1]))))

    def _row_split(self, nt: int, nx: int, nz: int, k: int) -> list[tuple[int, int]]:
        """``nt`` (or fewer) ranges of cell rows covering the grid, balanced by
        points, each at least ``k + 1`` rows (a pair reaches ``k + 1`` rows on)."""
        if nt > 1:
            starts = self._cell_start[:nx * nz + 1:nx]  # slot of each row's first point
            cuts = np.searchsorted(starts, [self._n * t // nt for t in range(1, nt)])
            bounds = [0, *(int(c) for c in cuts), nz]
            ranges = list(zip(bounds[:-1], bounds[1:], strict=True))
            if all(b - a >= k + 1 for a, b in ranges):
                return ranges
        return [(0, nz)]

    @staticmethod
    def _answer(offsets: NDArray[np.int64], indices: NDArray[np.int32], reuse: bool
                ) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
        if reuse:
            offsets = offsets.view()
            indices = indices.view()
            offsets.setflags(write=False)
            indices.setflags(write=False)
        return offsets, indices

    def knn(self, point: ArrayLike, k: int) -> NDArray[np.int32]:
        """Indices (int32) of the ``min(k, n)`` points nearest ``point``, sorted
        by distance then index."""
        px, pz = as_point(point)
        kc = _as_count(k, "k")
        with self._lock:
            kk = min(kc, self._n)
            out = np.empty(kk, dtype=np.int32)
            d2 = np.empty(kk, dtype=np.float64)
            c = int(_k.knn_point(px, pz, kk, -1, self._geom, self._dims, self._cell_start,
                                 self._order, self._spos, out, d2, 0))
            return out[:c]

    def knn_all(self, k: int) -> NDArray[np.int32]:
        """Each point's ``k`` nearest other points, int32 ``(n, k)``, sorted by
        distance then index; ``-1`` pads rows when ``k >= n``."""
        kk = _as_count(k, "k")
        with self._lock:
            n = self._n
            if kk > MAX_ANSWER or n * kk > MAX_ANSWER:
                raise QueryError(f"k: knn_all answers n x k = {n} x {kk} entries, at most "
                                 f"{MAX_ANSWER} (columns past n - 1 = {n - 1} are -1 padding)")
            out = np.empty(n * kk, dtype=np.int32)
            d2 = np.empty(n * kk, dtype=np.float64)
            if kk:
                _k.knn_all(kk, self._geom, self._dims, self._cell_start, self._order, self._slot,
                           self._spos, out, d2)
            return out.reshape(n, kk)

    # ----------------------------------------------------------------- update
    def update(self, indices: ArrayLike, new_positions: ArrayLike) -> None:
        """Move points ``indices`` (m,) to ``new_positions`` (m, 2).

        Incremental while the moved points stay inside the box the grid was
        built on: a point staying in its cell costs O(1), one changing cell
        shifts the entries between its two cells; beyond about ``n`` shifted
        entries in all, or a point leaving the box, it rebuilds (O(n)).
        Indices must be distinct."""
        try:
            idx = np.asarray(indices)
        except (TypeError, ValueError):
            raise QueryError("indices: expected an array of point indices") from None
        if idx.ndim != 1 or (idx.size and (idx.dtype == np.bool_
                                           or not np.issubdtype(idx.dtype, np.integer))):
            raise QueryError(f"indices: expected a 1-D integer array, got shape {idx.shape} "
                             f"dtype {idx.dtype}")
        new = as_points(new_positions, "new_positions")
        if len(new) != len(idx):
            raise QueryError(f"new_positions: expected {len(idx)} rows like indices, "
                             f"got {len(new)}")
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= 2**31 - 1):
            raise QueryError(f"indices: must lie in [0, {self._n - 1}]")
        idx32 = idx.astype(np.int32)
        if len(np.unique(idx32)) != len(idx32):
            raise QueryError("indices: must be distinct")
        if not len(idx32):
            return
        with self._lock:
            if int(idx32.max()) >= self._n:
                raise QueryError(f"indices: must lie in [0, {self._n - 1}]")
            self._move(idx32, new)

    def _move(self, idx32: NDArray[np.int32], new: NDArray[np.float64]) -> None:
        self._pos[idx32] = new
        x0, z0, x1, z1 = self._box
        inside = bool(np.all((new[:, 0] >= x0) & (new[:, 0] <= x1)
                             & (new[:, 1] >= z0) & (new[:, 1] <= z1)))
        if not inside:
            self._rebuild()
            return
        status = int(_k.update(idx32, np.ascontiguousarray(new), self._n + 64, self._geom,
                               self._dims, self._cell_start, self._order, self._slot,
                               self._spos))
        if status != 0:
            self._rebuild()

    def __repr__(self) -> str:
        nz, nx = self.shape
        return f"SpatialHash(n={self._n}, cell_size={self.cell_size:g}, cells={nx}x{nz})"
