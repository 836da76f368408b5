"""The chunk store: a world of ``width x depth`` cells, cut into square chunks, loaded on demand.

Cell content is one uint16: 0 blocked, ``w >= 1`` walkable with terrain
weight ``w``. Chunk ``(cx, cz)`` holds cells ``x in [cx*chunk, (cx+1)*chunk)``,
``z in [cz*chunk, (cz+1)*chunk)``; its array is ``(chunk, chunk)``, indexed
``[z, x]`` (local), C-contiguous, read-only. Cells of an edge chunk beyond
the world read 0.

Sources: a baked ``.nkw`` file (:meth:`ChunkStore.open`), a
:class:`~navkit.grid.NavGrid` (:meth:`ChunkStore.from_grid`) or a generator
(:meth:`ChunkStore.from_generator`). Decompressed mixed chunks live in an LRU
capped in bytes; uniform chunks are served from the index (one shared
read-only array per value); edited chunks are pinned.

Every chunk access (:meth:`get`, and each chunk :meth:`cell` / :meth:`region`
touch) counts once: a *hit* (pinned, resident or uniform) or a *miss* (a
load), so ``hits + misses`` is the number of accesses.

>>> import numpy as np
>>> from navkit.grid import NavGrid
>>> walk = np.ones((40, 70), dtype=bool); walk[5, 3] = False
>>> store = ChunkStore.from_grid(NavGrid(walk), chunk=16)
>>> store.nx, store.nz, store.cell(3, 5), store.cell(4, 5), store.cell(70, 0)
(5, 3, 0, 1, 0)
>>> store.uniform_value(4, 2), store.uniform_value(0, 0)
(None, None)
>>> store.uniform_value(1, 1)
1
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, QueryError
from ..grid import MAX_CELLS, NavGrid
from .chunkfile import ChunkFile
from .sources import (
    GeneratorSpec,
    GridSpec,
    SourceSpec,
    check_chunk_size,
    generator_spec,
    grid_spec,
    make_chunk,
    resolve_source,
    uniform_values,
)

__all__ = ["ChunkStore", "StoreStats", "DEFAULT_CAP_BYTES"]

#: Default LRU cap: 64 MiB of decompressed mixed chunks.
DEFAULT_CAP_BYTES = 64 << 20


@dataclass(frozen=True)
class StoreStats:
    """Counters of a :class:`ChunkStore` since it opened (or :meth:`~ChunkStore.reset_stats`).

    ``resident_*`` count the LRU and the pinned (edited) chunks; ``pinned_*``
    the pinned ones alone, so ``resident_bytes - pinned_bytes <= cap_bytes``.
    ``decompress_seconds``: time spent loading chunks (read + decompress, or generate).
    """

    resident_chunks: int
    resident_bytes: int
    cap_bytes: int
    hits: int
    misses: int
    evictions: int
    loads: int
    decompress_seconds: float
    uniform_served: int
    pinned_chunks: int = 0
    pinned_bytes: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The counters as a JSON-ready dict."""
        return dict(self.__dict__)


#: Uniform values of a generator / grid source are computed for a tile of
#: ``_TILE x _TILE`` chunks in one batch and kept as one int32 array per tile.
_TILE = 16
#: Most tiles kept (LRU): 2048 tiles of 256 chunks, about 2.3 MiB.
UNIFORM_TILES = 2048


class _SpecBacking:
    def __init__(self, spec: SourceSpec, nx: int, nz: int):
        self.spec = spec
        self.nx, self.nz = nx, nz
        self.tiles: OrderedDict[int, NDArray[np.int32]] = OrderedDict()
        self.tiles_made = 0

    def _tile(self, tx: int, tz: int) -> NDArray[np.int32]:
        key = tz * (self.nx // _TILE + 1) + tx
        t = self.tiles.get(key)
        if t is not None:
            self.tiles.move_to_end(key)
            return t
        cx0, cz0 = tx * _TILE, tz * _TILE
        w, h = min(_TILE, self.nx - cx0), min(_TILE, self.nz - cz0)
        zz, xx = np.divmod(np.arange(w * h, dtype=np.int64), w)
        vals = uniform_values(self.spec, xx + cx0, zz + cz0)
        t = np.full((_TILE, _TILE), -1, dtype=np.int32)
        t[:h, :w] = vals.reshape(h, w)
        self.tiles[key] = t
        self.tiles_made += 1
        while len(self.tiles) > UNIFORM_TILES:
            self.tiles.popitem(last=False)
        return t

    def uniform(self, cx: int, cz: int) -> int | None:
        v = int(self._tile(cx // _TILE, cz // _TILE)[cz % _TILE, cx % _TILE])
        return None if v < 0 else v

    def load(self, cx: int, cz: int) -> NDArray[np.uint16]:
        return make_chunk(self.spec, cx, cz)

    def close(self) -> None:
        pass


class _FileBacking:
    def __init__(self, cf: ChunkFile):
        self.cf = cf

    def uniform(self, cx: int, cz: int) -> int | None:
        return self.cf.uniform(cx, cz)

    def load(self, cx: int, cz: int) -> NDArray[np.uint16]:
        return self.cf.read(cx, cz)

    def close(self) -> None:
        self.cf.close()


def _check_cap(cap_bytes: Any) -> int:
    if isinstance(cap_bytes, bool) or not isinstance(cap_bytes, (int, np.integer)) \
            or cap_bytes < 0:
        raise ConfigError(f"expected an int >= 0 (bytes), got {cap_bytes!r}", field="cap_bytes")
    return int(cap_bytes)


class ChunkStore:
    """A chunked world; see the module docstring. Thread-safe; a context manager."""

    chunk: int
    width: int
    depth: int
    nx: int
    nz: int
    cell_size: float
    min_x: float
    min_z: float
    floor_y: float
    name: str
    fingerprint: str
    weighted: bool
    min_weight: int
    version: int
    path: str | None
    meta: dict[str, Any]

    def __init__(self, backing: _SpecBacking | _FileBacking, *, chunk: int, width: int,
                 depth: int, geometry: tuple[float, float, float, float], name: str,
                 fingerprint: str, weighted: bool, min_weight: int, path: str | None,
                 meta: dict[str, Any], cap_bytes: int):
        self._backing = backing
        self.chunk = chunk
        self.width = width
        self.depth = depth
        self.nx = -(-width // chunk)
        self.nz = -(-depth // chunk)
        self.cell_size, self.min_x, self.min_z, self.floor_y = geometry
        self.name = name
        self.fingerprint = fingerprint
        self.weighted = weighted
        self.min_weight = min_weight
        self.version = 0
        self.path = path
        self.meta = meta
        self._cap = _check_cap(cap_bytes)
        self._lock = threading.RLock()
        self._lru: OrderedDict[tuple[int, int], NDArray[np.uint16]] = OrderedDict()
        self._lru_bytes = 0
        self._pinned: dict[tuple[int, int], NDArray[np.uint16]] = {}
        self._pinned_uniform: dict[tuple[int, int], int | None] = {}
        self._versions: dict[tuple[int, int], int] = {}
        self._shared: dict[int, NDArray[np.uint16]] = {}
        self._closed = False
        self.reset_stats()

    # ------------------------------------------------------------ constructors
    @classmethod
    def open(cls, path: Any, *, cap_bytes: int = DEFAULT_CAP_BYTES,
             max_index_bytes: int | None = None) -> ChunkStore:
        """Open a baked ``.nkw`` file: reads the header and the index only, and
        checks them against each other (a mixed chunk is checked against the
        header when first read; :class:`~navkit.world.chunkfile.ChunkFile`). A
        header ``min_weight`` above 1 is used only when checked against every
        chunk at open (files of at most
        :data:`~navkit.world.chunkfile.MIN_WEIGHT_CHECK_CHUNKS` mixed chunks),
        else :attr:`min_weight` is 1.
        ``max_index_bytes``: the most bytes the index may unpack to (default
        :func:`~navkit.world.chunkfile.index_limit` of the file's size)."""
        cap = _check_cap(cap_bytes)
        if max_index_bytes is not None and (isinstance(max_index_bytes, bool) or not isinstance(
                max_index_bytes, (int, np.integer)) or max_index_bytes < 0):
            raise ConfigError(f"expected an int >= 0 (bytes), got {max_index_bytes!r}",
                              field="max_index_bytes")
        cf = ChunkFile(path, max_index_bytes=max_index_bytes)
        h = cf.header
        try:
            min_weight = cf.checked_min_weight()
        except BaseException:
            cf.close()
            raise
        return cls(_FileBacking(cf), chunk=h.chunk, width=h.width, depth=h.depth,
                   geometry=(h.cell_size, h.min_x, h.min_z, h.floor_y),
                   name=str(h.meta.get("name", "")), fingerprint=h.fingerprint,
                   weighted=h.weighted, min_weight=min_weight, path=cf.path,
                   meta=h.meta, cap_bytes=cap)

    @classmethod
    def from_spec(cls, spec: SourceSpec, *, cap_bytes: int = DEFAULT_CAP_BYTES) -> ChunkStore:
        """A store over a source spec (:mod:`navkit.world.sources`)."""
        cap = _check_cap(cap_bytes)
        if isinstance(spec, GridSpec):
            cells = spec.cells
            walk = cells[cells > 0]
            weighted = bool(walk.size and int(walk.max()) > 1)
            minw = int(walk.min()) if walk.size else 1
            width, depth = spec.width, spec.depth
        else:
            weighted = bool(getattr(spec.fn, "weighted", True))
            minw = int(getattr(spec.fn, "min_weight", 1))
            width, depth = spec.width, spec.depth
        return cls(_SpecBacking(spec, -(-width // spec.chunk), -(-depth // spec.chunk)),
                   chunk=spec.chunk, width=width, depth=depth,
                   geometry=spec.geometry, name=spec.name, fingerprint=spec.fingerprint,
                   weighted=weighted, min_weight=max(1, minw), path=None, meta=spec.meta,
                   cap_bytes=cap)

    @classmethod
    def from_grid(cls, grid: NavGrid, *, chunk: int = 64,
                  cap_bytes: int = DEFAULT_CAP_BYTES) -> ChunkStore:
        """A store over an in-memory :class:`~navkit.grid.NavGrid`."""
        return cls.from_spec(grid_spec(grid, chunk), cap_bytes=cap_bytes)

    @classmethod
    def from_generator(cls, fn: Callable[[int, int, int], ArrayLike], width: int, depth: int, *,
                       chunk: int = 64, name: str, params: dict[str, Any],
                       cell_size: float = 1.0, min_x: float = 0.0, min_z: float = 0.0,
                       cap_bytes: int = DEFAULT_CAP_BYTES) -> ChunkStore:
        """A store over ``fn(cx, cz, chunk) -> uint16 (chunk, chunk)``, called on first touch.

        ``weighted`` / ``min_weight`` come from ``fn``'s attributes of those names
        (default True / 1: a safe lower bound for heuristics).
        """
        spec = generator_spec(fn, width, depth, chunk=chunk, name=name, params=params,
                              cell_size=cell_size, min_x=min_x, min_z=min_z)
        return cls.from_spec(spec, cap_bytes=cap_bytes)

    @classmethod
    def from_source(cls, source: Any, *, chunk: int = 64,
                    cap_bytes: int = DEFAULT_CAP_BYTES) -> ChunkStore:
        """A store over anything :func:`~navkit.world.sources.resolve_source` takes,
        or a ``.nkw`` path (opened)."""
        import os

        if isinstance(source, (str, os.PathLike)) and os.fspath(source).endswith(".nkw"):
            return cls.open(source, cap_bytes=cap_bytes)
        return cls.from_spec(resolve_source(source, chunk=chunk), cap_bytes=cap_bytes)

    # ----------------------------------------------------------------- access
    def _check_chunk(self, cx: Any, cz: Any) -> tuple[int, int]:
        for v in (cx, cz):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise QueryError(f"chunk coordinates must be ints, got ({cx!r}, {cz!r})")
        if not (0 <= cx < self.nx and 0 <= cz < self.nz):
            raise QueryError(f"chunk ({cx}, {cz}) lies outside the world's {self.nx} x "
                             f"{self.nz} chunks")
        if self._closed:
            raise QueryError(f"the world store {self.path or self.name!r} is closed")
        return int(cx), int(cz)

    def _shared_array(self, value: int) -> NDArray[np.uint16]:
        a = self._shared.get(value)
        if a is None:
            a = np.full((self.chunk, self.chunk), value, dtype=np.uint16)
            a.setflags(write=False)
            self._shared[value] = a
        return a

    def _fetch(self, key: tuple[int, int]) -> NDArray[np.uint16]:
        # caller holds the lock; key validated
        a = self._pinned.get(key)
        if a is not None:
            self._hits += 1
            return a
        a = self._lru.get(key)
        if a is not None:
            self._lru.move_to_end(key)
            self._hits += 1
            return a
        u = self._backing.uniform(*key)
        if u is not None:
            self._hits += 1
            self._uniform_served += 1
            return self._shared_array(u)
        t0 = time.perf_counter()
        a = self._backing.load(*key)
        self._dt += time.perf_counter() - t0
        self._misses += 1
        self._loads += 1
        if a.flags.writeable:
            a.setflags(write=False)
        self._lru[key] = a
        self._lru_bytes += a.nbytes
        while self._lru_bytes > self._cap and self._lru:
            _, old = self._lru.popitem(last=False)
            self._lru_bytes -= old.nbytes
            self._evictions += 1
        return a

    def get(self, cx: int, cz: int) -> NDArray[np.uint16]:
        """Chunk ``(cx, cz)``: a read-only ``(chunk, chunk)`` uint16 array, ``[z, x]`` local.

        Loads it on first touch; it may be evicted by a later access, but the
        array handed out stays valid (copy what a query needs).
        """
        key = self._check_chunk(cx, cz)
        with self._lock:
            return self._fetch(key)

    def uniform_value(self, cx: int, cz: int) -> int | None:
        """The value of a uniform chunk without loading it; None if mixed or unknown."""
        key = self._check_chunk(cx, cz)
        with self._lock:
            if key in self._pinned:
                return self._pinned_uniform.get(key)
            return self._backing.uniform(*key)

    def chunk_version(self, cx: int, cz: int) -> int:
        """Edit counter of one chunk (0 until :meth:`set_cells` touches it)."""
        key = self._check_chunk(cx, cz)
        return self._versions.get(key, 0)

    def cell(self, x: int, z: int) -> int:
        """Cell ``(x, z)``'s value (0 blocked, else its weight); 0 outside the world."""
        for v in (x, z):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise QueryError(f"cell coordinates must be ints, got ({x!r}, {z!r})")
        if not (0 <= x < self.width and 0 <= z < self.depth):
            return 0
        c = self.chunk
        a = self.get(int(x) // c, int(z) // c)
        return int(a[int(z) % c, int(x) % c])

    def region(self, x0: int, z0: int, x1: int, z1: int,
               out: NDArray[np.uint16] | None = None) -> NDArray[np.uint16]:
        """The inclusive cell box ``[x0, x1] x [z0, z1]`` as a ``(z1-z0+1, x1-x0+1)`` uint16
        array (``[z, x]``); cells outside the world read 0; an empty box gives shape 0.

        ``out``: a C-contiguous uint16 array of that shape to fill instead.
        """
        for v in (x0, z0, x1, z1):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise QueryError(f"region bounds must be ints, got {(x0, z0, x1, z1)!r}")
        x0, z0, x1, z1 = int(x0), int(z0), int(x1), int(z1)
        h, w = max(0, z1 - z0 + 1), max(0, x1 - x0 + 1)
        if h * w > MAX_CELLS:
            raise QueryError(f"region of {h * w} cells exceeds the limit of {MAX_CELLS}")
        if out is None:
            out = np.zeros((h, w), dtype=np.uint16)
        else:
            if not isinstance(out, np.ndarray) or out.shape != (h, w) \
                    or out.dtype != np.uint16 or not out.flags.c_contiguous \
                    or not out.flags.writeable:
                raise QueryError(f"out must be a writeable C-contiguous uint16 array of shape "
                                 f"{(h, w)}")
            out[...] = 0
        if h == 0 or w == 0:
            return out
        c = self.chunk
        ax0, az0 = max(x0, 0), max(z0, 0)
        ax1, az1 = min(x1, self.width - 1), min(z1, self.depth - 1)
        if ax0 > ax1 or az0 > az1:
            return out
        with self._lock:
            for cz in range(az0 // c, az1 // c + 1):
                for cx in range(ax0 // c, ax1 // c + 1):
                    if self._closed:
                        raise QueryError("the world store is closed")
                    a = self._fetch((cx, cz))
                    gx0, gz0 = max(ax0, cx * c), max(az0, cz * c)
                    gx1, gz1 = min(ax1, cx * c + c - 1), min(az1, cz * c + c - 1)
                    out[gz0 - z0:gz1 - z0 + 1, gx0 - x0:gx1 - x0 + 1] = \
                        a[gz0 - cz * c:gz1 - cz * c + 1, gx0 - cx * c:gx1 - cx * c + 1]
        return out

    def to_grid(self) -> NavGrid:
        """The whole world as a :class:`~navkit.grid.NavGrid` (small worlds / tests)."""
        if self.width * self.depth > MAX_CELLS:
            raise ConfigError(f"world of {self.width * self.depth} cells exceeds a NavGrid's "
                              f"{MAX_CELLS}", field="world")
        cells = self.region(0, 0, self.width - 1, self.depth - 1)
        walk = cells > 0
        weights = np.maximum(cells, 1).astype(np.int32) if self.weighted else None
        return NavGrid(walk, weights=weights, cell_size=self.cell_size, min_x=self.min_x,
                       min_z=self.min_z, floor_y=self.floor_y,
                       agent_radius=float(self.meta.get("agent_radius", 0.0) or 0.0),
                       name=self.name)

    # ---------------------------------------------------------------- editing
    def set_cells(self, cells: ArrayLike, values: ArrayLike) -> list[tuple[int, int]]:
        """Write ``values`` (scalar or ``(k,)``, 0..65535) into ``cells`` (``(k, 2)`` int
        ``(x, z)``); the last write to a repeated cell wins. Returns the touched chunks,
        sorted; they are pinned in memory and their :meth:`chunk_version` bumps."""
        c_arr = np.asarray(cells)
        if c_arr.size == 0:
            return []
        if c_arr.ndim != 2 or c_arr.shape[1] != 2 or not (
                np.issubdtype(c_arr.dtype, np.integer)):
            raise QueryError(f"cells must be a (k, 2) integer array of (x, z), got shape "
                             f"{c_arr.shape} dtype {c_arr.dtype}")
        c_arr = c_arr.astype(np.int64)
        k = c_arr.shape[0]
        v_arr = np.asarray(values)
        if v_arr.ndim == 0:
            v_arr = np.full(k, v_arr)
        if v_arr.shape != (k,) or not (np.issubdtype(v_arr.dtype, np.integer)
                                       or v_arr.dtype == np.bool_):
            raise ConfigError(f"values must be an int scalar or ({k},) ints, got shape "
                              f"{v_arr.shape} dtype {v_arr.dtype}", field="values")
        if int(v_arr.min()) < 0 or int(v_arr.max()) > 65535:
            raise ConfigError(f"values must lie in [0, 65535], got [{v_arr.min()}, "
                              f"{v_arr.max()}]", field="values")
        xs, zs = c_arr[:, 0], c_arr[:, 1]
        bad = (xs < 0) | (xs >= self.width) | (zs < 0) | (zs >= self.depth)
        if bad.any():
            i = int(np.argmax(bad))
            raise QueryError(f"cell ({xs[i]}, {zs[i]}) lies outside the {self.width} x "
                             f"{self.depth} world")
        vals = v_arr.astype(np.uint16)
        c = self.chunk
        cid = (zs // c) * self.nx + (xs // c)
        order = np.argsort(cid, kind="stable")
        cid_s = cid[order]
        bounds = np.flatnonzero(np.diff(cid_s)) + 1
        starts = np.concatenate(([0], bounds))
        ends = np.concatenate((bounds, [k]))
        touched: list[tuple[int, int]] = []
        with self._lock:
            if self._closed:
                raise QueryError("the world store is closed")
            for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
                idx = order[s:e]
                ch = int(cid_s[s])
                key = (ch % self.nx, ch // self.nx)
                base = self._fetch(key).copy()
                base[zs[idx] % c, xs[idx] % c] = vals[idx]  # stable order: last write wins
                base.setflags(write=False)
                old = self._lru.pop(key, None)
                if old is not None:
                    self._lru_bytes -= old.nbytes
                self._pinned[key] = base
                lo, hi = int(base.min()), int(base.max())
                self._pinned_uniform[key] = lo if lo == hi else None
                self._versions[key] = self._versions.get(key, 0) + 1
                touched.append(key)
            walk = vals[vals > 0]
            if walk.size:
                if int(walk.max()) > 1:
                    self.weighted = True
                self.min_weight = min(self.min_weight, int(walk.min()))
            self.version += 1
        return sorted(touched)

    # ------------------------------------------------------------------ stats
    def stats(self) -> StoreStats:
        """The counters (:class:`StoreStats`)."""
        with self._lock:
            pb = sum(a.nbytes for a in self._pinned.values())
            return StoreStats(
                resident_chunks=len(self._lru) + len(self._pinned),
                resident_bytes=self._lru_bytes + pb, cap_bytes=self._cap, hits=self._hits,
                misses=self._misses, evictions=self._evictions, loads=self._loads,
                decompress_seconds=self._dt, uniform_served=self._uniform_served,
                pinned_chunks=len(self._pinned), pinned_bytes=pb)

    def reset_stats(self) -> None:
        """Zero the counters (residency is kept)."""
        self._hits = self._misses = self._evictions = self._loads = 0
        self._uniform_served = 0
        self._dt = 0.0

    @property
    def cells(self) -> int:
        """Number of cells, ``width * depth``."""
        return self.width * self.depth

    @property
    def chunks(self) -> int:
        """Number of chunks, ``nx * nz``."""
        return self.nx * self.nz

    @property
    def spec(self) -> SourceSpec | None:
        """The source spec of a grid / generator store (None for a baked file)."""
        b = self._backing
        return b.spec if isinstance(b, _SpecBacking) else None

    def close(self) -> None:
        """Release the file and the resident chunks (idempotent)."""
        with self._lock:
            self._closed = True
            self._backing.close()
            self._lru.clear()
            self._lru_bytes = 0

    def __enter__(self) -> ChunkStore:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"ChunkStore({self.name or self.path or 'unnamed'}: {self.width}x{self.depth} "
                f"cells, chunk={self.chunk}, {self.nx}x{self.nz} chunks"
                f"{', weighted' if self.weighted else ''})")


_ = (math, GeneratorSpec, check_chunk_size)
