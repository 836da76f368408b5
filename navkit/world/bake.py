"""Bake a world source into a ``.nkw`` file, streaming, batch by batch.

The per-batch work is :func:`encode_batch` (a picklable top-level function of a
picklable :class:`BakeSpec` and an int64 array of chunk ids), so any
``map_batches(fn, spec, batches) -> Iterator[list]`` that yields results in
batch order (the default: :func:`serial_map_batches`; a Dask one in
``navkit.distributed``) writes the very same bytes. Memory stays bounded: the
writer keeps only the index (8 bytes per chunk) and one batch in flight.
"""

from __future__ import annotations

import os
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, FormatError
from .chunkfile import ChunkFile, ChunkFileWriter, Header
from .codec import DEFAULT_CODEC, Codec, get_codec
from .sources import SourceSpec, check_chunk_size, make_chunk, resolve_source, uniform_values

__all__ = ["BakeSpec", "BakeReport", "bake", "BatchResult", "encode_batch", "serial_map_batches",
           "plan_batches", "is_stale", "MapBatches"]

#: One chunk's result: (index entry, CRC-32, blob, smallest walkable weight or 0,
#: largest weight).
MapBatches = Callable[[Callable[..., "BatchResult"], "BakeSpec", Iterable[NDArray[np.int64]]],
                      Iterator["BatchResult"]]
_UNI = 1 << 31
#: Aim for batches of about this many mixed-chunk-equivalents (~20+ ms of work).
_BATCH_CHUNKS = 2048


@dataclass(frozen=True, eq=False)
class BakeSpec:
    """Everything :func:`encode_batch` needs: the source spec and the codec."""

    source: SourceSpec
    codec: str
    level: int

    @property
    def nx(self) -> int:
        return -(-self.source.width // self.source.chunk)

    @property
    def nz(self) -> int:
        return -(-self.source.depth // self.source.chunk)


@dataclass(frozen=True)
class BatchResult:
    """What :func:`encode_batch` returns for one batch of chunks (compact, so
    that a Dask task ships a few arrays rather than a tuple per chunk).

    ``entries`` (int64, one per chunk: ``2**31 | value`` for a uniform chunk,
    else its blob's length), ``crcs`` (int64, CRC-32 of each blob, 0 for a
    uniform chunk), ``blobs`` (the mixed chunks' blobs joined in id order),
    ``min_weight`` (the smallest weight > 0, 0 for none) and ``max_value``."""

    entries: NDArray[np.int64]
    crcs: NDArray[np.int64]
    blobs: bytes
    min_weight: int
    max_value: int

    def __len__(self) -> int:
        return int(self.entries.shape[0])

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, BatchResult) and np.array_equal(self.entries, other.entries)
                and np.array_equal(self.crcs, other.crcs) and self.blobs == other.blobs
                and self.min_weight == other.min_weight and self.max_value == other.max_value)

    __hash__ = None  # type: ignore[assignment]


def encode_batch(spec: BakeSpec, ids: NDArray[np.int64]) -> BatchResult:
    """Encode the chunks ``ids`` (``id = cz * nx + cx``) into a :class:`BatchResult`.
    Uniform chunks give ``entry = 2**31 | value`` and no blob."""
    codec: Codec = get_codec(spec.codec, spec.level)
    ids = np.asarray(ids, dtype=np.int64)
    nx = spec.nx
    cxs, czs = ids % nx, ids // nx
    uni = uniform_values(spec.source, cxs, czs)
    entries = np.empty(ids.shape[0], dtype=np.int64)
    crcs = np.zeros(ids.shape[0], dtype=np.int64)
    blobs: list[bytes] = []
    u_pos = uni >= 0
    entries[u_pos] = np.int64(_UNI) | uni[u_pos].astype(np.int64)
    minw = int(uni[uni > 0].min()) if (uni > 0).any() else 0
    maxv = int(uni[u_pos].max()) if u_pos.any() else 0
    for i in np.flatnonzero(~u_pos).tolist():
        a = make_chunk(spec.source, int(cxs[i]), int(czs[i]))
        lo, hi = int(a.min()), int(a.max())
        maxv = max(maxv, hi)
        if lo == hi:  # a generator or grid chunk that happens to be uniform
            entries[i] = _UNI | lo
            if lo and (minw == 0 or lo < minw):
                minw = lo
            continue
        blob = codec.compress(a.astype("<u2", copy=False).tobytes())
        w = a[a > 0]
        if w.size:
            mw = int(w.min())
            if minw == 0 or mw < minw:
                minw = mw
        entries[i] = len(blob)
        crcs[i] = zlib.crc32(blob)
        blobs.append(blob)
    return BatchResult(entries, crcs, b"".join(blobs), minw, maxv)


def serial_map_batches(fn: Callable[..., BatchResult], spec: BakeSpec,
                       batches: Iterable[NDArray[np.int64]]) -> Iterator[BatchResult]:
    """The default ``map_batches``: ``fn(spec, ids)`` for each batch, in order, in-process."""
    for ids in batches:
        yield fn(spec, ids)


def plan_batches(nx: int, nz: int, batch_chunks: int = _BATCH_CHUNKS
                 ) -> Iterator[NDArray[np.int64]]:
    """Chunk ids in row bands: whole chunk rows joined (or a row split) into batches of about
    ``batch_chunks`` chunks, in id order."""
    n = nx * nz
    step = batch_chunks if nx >= batch_chunks else nx * max(1, batch_chunks // nx)
    for s in range(0, n, step):
        yield np.arange(s, min(n, s + step), dtype=np.int64)


@dataclass(frozen=True)
class BakeReport:
    """What :func:`bake` wrote."""

    path: str
    width: int
    depth: int
    chunk: int
    chunks: int
    uniform: int
    mixed: int
    file_bytes: int
    bytes_per_cell: float
    seconds: float
    codec: str
    level: int
    fingerprint: str
    up_to_date: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return asdict(self)


def _progress(total: int, enabled: bool, label: str) -> Any:
    if not enabled or not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    p = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                 TimeRemainingColumn(), console=Console(file=sys.stderr), transient=True)
    p.start()
    p.add_task(label, total=total)
    return p


def bake(source: Any, path: str | os.PathLike[str], *, chunk: int = 64,
         codec: str = DEFAULT_CODEC, level: int | None = None, progress: bool = True,
         map_batches: MapBatches | None = None, batch_chunks: int = _BATCH_CHUNKS,
         load_options: dict[str, Any] | None = None) -> BakeReport:
    """Bake ``source`` (a NavGrid, a generator, a spec, a map path or
    ``procedural:NAME?...``) into ``path``; returns a :class:`BakeReport`.

    ``chunk``: cells per chunk side (power of two, 16-1024). ``codec`` / ``level``:
    see :mod:`navkit.world.codec`. ``progress``: a rich bar on stderr when it is a
    terminal. ``map_batches``: runs :func:`encode_batch` over the batches and yields
    the results in order (default in-process). The file is written as
    ``path + '.partial'`` and renamed when complete.
    """
    t0 = time.perf_counter()
    chunk = check_chunk_size(chunk)
    cdc = get_codec(codec, level)
    if isinstance(batch_chunks, bool) or not isinstance(batch_chunks, int) or batch_chunks < 1:
        raise ConfigError(f"expected an int >= 1, got {batch_chunks!r}", field="batch_chunks")
    src = resolve_source(source, chunk=chunk, load_options=load_options)
    spec = BakeSpec(src, cdc.name, cdc.level)
    nx, nz = spec.nx, spec.nz
    meta = dict(src.meta)
    meta.setdefault("name", src.name)
    header = Header(chunk, src.width, src.depth, nx, nz, *src.geometry, 0, False, cdc.id,
                    cdc.level, src.fingerprint, meta)
    writer = ChunkFileWriter(path, header, cdc)
    mapper = map_batches or serial_map_batches
    bar = _progress(nx * nz, progress, f"baking {os.fspath(path)}")
    minw, weighted, uniform = 0, False, 0
    try:
        for results in mapper(encode_batch, spec, plan_batches(nx, nz, batch_chunks)):
            writer.add_batch(results.entries, results.crcs, results.blobs)
            uniform += int(((results.entries & _UNI) != 0).sum())
            mw = results.min_weight
            if mw and (minw == 0 or mw < minw):
                minw = mw
            if results.max_value > 1:
                weighted = True
            if bar is not None:
                bar.update(bar.task_ids[0], advance=len(results))
        size = writer.finish(min_weight=minw, weighted=weighted)
    except BaseException:
        writer.abort()
        raise
    finally:
        if bar is not None:
            bar.stop()
    cells = src.width * src.depth
    n = nx * nz
    return BakeReport(os.fspath(path), src.width, src.depth, chunk, n, uniform, n - uniform,
                      size, size / cells, time.perf_counter() - t0, cdc.name, cdc.level,
                      src.fingerprint)


def is_stale(path: str | os.PathLike[str], source: Any, *, chunk: int | None = None,
             load_options: dict[str, Any] | None = None) -> bool:
    """True when ``path`` is missing, unreadable, or its fingerprint differs from ``source``'s
    (computed with the file's chunk size unless ``chunk`` is given)."""
    try:
        cf = ChunkFile(path)
    except FormatError:
        return True
    try:
        c = cf.header.chunk if chunk is None else check_chunk_size(chunk)
        fp = cf.header.fingerprint
    finally:
        cf.close()
    return resolve_source(source, chunk=c, load_options=load_options).fingerprint != fp
