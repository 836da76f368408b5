"""The baked world file (``.nkw``): reader and streaming writer. Byte layout in docs/worlds.md.

All integers little-endian. A 144-byte header, the JSON metadata, the mixed
chunks' compressed blobs in chunk-id order (``id = cz * nx + cx``), then the
compressed chunk index. The index holds per chunk one u32 *entry* (bit 31
set: uniform chunk, value in bits 0-15; else the blob's compressed length)
followed by one u32 CRC-32 per chunk (of the compressed blob; 0 for uniform
chunks). Offsets are the cumulative sum of the lengths, computed at open;
in memory the reader keeps the entries (4 bytes a chunk) and, for the mixed
chunks only, their ids, CRCs and end offsets (20 bytes a mixed chunk).
Header + metadata, the index and every blob carry a CRC-32, so any damaged
byte is a :class:`~navkit.errors.FormatError` naming the file (and the chunk).
"""

from __future__ import annotations

import json
import math
import os
import struct
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import FormatError
from .codec import Codec, codec_by_id

__all__ = ["MAGIC", "FORMAT_VERSION", "HEADER_SIZE", "UNIFORM_BIT", "Header", "ChunkFile",
           "ChunkFileWriter", "read_header", "index_limit", "INDEX_FLOOR", "INDEX_RATIO",
           "MIN_WEIGHT_CHECK_CHUNKS"]

MAGIC = b"NAVKITW\x00"
FORMAT_VERSION = 1
#: <8s H H I Q Q I I d d d d H B b I Q Q I I 32s> then u32 header CRC, u32 reserved.
_FMT = "<8sHHIQQIIddddHBbIQQII32s"
_FIXED = struct.calcsize(_FMT)
HEADER_SIZE = _FIXED + 8
UNIFORM_BIT = np.uint32(1 << 31)
_MAX_META = 1 << 20
#: The decompressed chunk index (8 bytes a chunk) may take at most
#: ``max(INDEX_FLOOR, INDEX_RATIO * file bytes)`` unless the caller allows more
#: (``max_index_bytes=``): checked from the header before anything is allocated,
#: so a small file cannot declare billions of chunks. 64 MiB is 8,388,608 chunks
#: (3.4e10 cells at chunk 64); past it, a file must hold at least one byte per 16
#: bytes of index (worlds of baked buildings and terrain hold far more).
INDEX_FLOOR = 64 << 20
INDEX_RATIO = 16
#: A header ``min_weight`` above 1 scales the world's heuristic, so a lie would make
#: answers suboptimal before the chunk that contradicts it is ever read: it is used
#: only when every mixed chunk is read and checked at open, which files of at most
#: this many mixed chunks get (about 20 us each); larger ones are searched with 1.
MIN_WEIGHT_CHECK_CHUNKS = 4096


@dataclass(frozen=True)
class Header:
    """The header fields of a ``.nkw`` file (docs/worlds.md)."""

    chunk: int
    width: int
    depth: int
    nx: int
    nz: int
    cell_size: float
    min_x: float
    min_z: float
    floor_y: float
    min_weight: int
    weighted: bool
    codec_id: int
    level: int
    fingerprint: str
    meta: dict[str, Any]
    index_offset: int = 0
    index_len: int = 0
    index_crc: int = 0
    mixed: int = 0
    version: int = FORMAT_VERSION

    def pack(self) -> bytes:
        """Header + metadata bytes (with the header CRC)."""
        meta = json.dumps(self.meta, sort_keys=True, allow_nan=False).encode()
        fixed = struct.pack(_FMT, MAGIC, self.version, 1 if self.weighted else 0, self.chunk,
                            self.width, self.depth, self.nx, self.nz, self.cell_size,
                            self.min_x, self.min_z, self.floor_y, self.min_weight,
                            self.codec_id, self.level, len(meta), self.index_offset,
                            self.index_len, self.index_crc, self.mixed,
                            bytes.fromhex(self.fingerprint))
        crc = zlib.crc32(meta, zlib.crc32(fixed))
        return fixed + struct.pack("<II", crc, 0) + meta

    @property
    def data_offset(self) -> int:
        """Where the first blob starts."""
        return HEADER_SIZE + len(json.dumps(self.meta, sort_keys=True).encode())


def _pread(fd: int, n: int, off: int, path: str, what: str) -> bytes:
    try:
        b = os.pread(fd, n, off)
    except OSError as exc:
        raise FormatError(f"cannot read {what}: {exc.strerror or exc}", path=path) from None
    if len(b) != n:
        raise FormatError(f"file is truncated: {what} needs {n} bytes at offset {off}, "
                          f"found {len(b)}", path=path)
    return b


def read_header(fd: int, path: str) -> tuple[Header, int]:
    """The header of an open ``.nkw`` file and its data offset; FormatError on any damage."""
    head = _pread(fd, HEADER_SIZE, 0, path, "the header")
    if head[:8] != MAGIC:
        raise FormatError(f"not a navkit world file (magic {head[:8]!r}, expected {MAGIC!r})",
                          path=path)
    f = struct.unpack(_FMT, head[:_FIXED])
    crc, _ = struct.unpack("<II", head[_FIXED:HEADER_SIZE])
    version = f[1]
    if version != FORMAT_VERSION:
        raise FormatError(f"unsupported world file version {version} (this navkit reads "
                          f"{FORMAT_VERSION}); bake it again", path=path)
    meta_len = f[15]
    if meta_len > _MAX_META:
        raise FormatError(f"header damaged: metadata length {meta_len}", path=path)
    meta_b = _pread(fd, meta_len, HEADER_SIZE, path, "the metadata")
    if zlib.crc32(meta_b, zlib.crc32(head[:_FIXED])) != crc:
        raise FormatError("header checksum mismatch (the file is damaged)", path=path)
    try:
        meta = json.loads(meta_b.decode())
        if not isinstance(meta, dict):
            raise ValueError("not an object")
    except (ValueError, UnicodeDecodeError) as exc:
        raise FormatError(f"bad metadata: {str(exc)[:200]}", path=path) from None
    except RecursionError:
        raise FormatError("bad metadata: JSON nested too deeply", path=path) from None
    name, radius = meta.get("name", ""), meta.get("agent_radius", 0.0)
    if not isinstance(name, str):
        raise FormatError("metadata field 'name': expected a string", path=path)
    if radius is not None and (isinstance(radius, bool) or not isinstance(radius, (int, float))
                               or not 0 <= radius < 1e300):
        raise FormatError("metadata field 'agent_radius': expected a finite number >= 0 "
                          "(metres)", path=path)
    (_, _, flags, chunk, width, depth, nx, nz, cs, mx, mz, fy, minw, cid, level, _,
     ioff, ilen, icrc, mixed, fp) = f
    h = Header(chunk, width, depth, nx, nz, cs, mx, mz, fy, minw, bool(flags & 1), cid, level,
               fp.hex(), meta, ioff, ilen, icrc, mixed, version)
    ok = (16 <= chunk <= 1024 and chunk & (chunk - 1) == 0 and 1 <= width and 1 <= depth
          and nx == -(-width // chunk) and nz == -(-depth // chunk) and flags < 2
          and nx * nz < 1 << 36 and 0 <= mixed <= nx * nz)
    if not ok:
        raise FormatError("header fields are inconsistent (sizes, chunk)", path=path)
    _check_geometry(h, path)
    if not h.weighted and h.min_weight > 1:
        raise FormatError(f"header says unweighted (every walkable cell weighs 1) and "
                          f"min_weight = {h.min_weight}", path=path)
    return h, HEADER_SIZE + meta_len


def _check_geometry(h: Header, path: str) -> None:
    """cell_size in NavGrid's range, the origin and the far corner finite."""
    from ..grid import MAX_CELL_SIZE, MIN_CELL_SIZE

    cs = h.cell_size
    if not (math.isfinite(cs) and MIN_CELL_SIZE <= cs <= MAX_CELL_SIZE):
        raise FormatError(f"header field cell_size: must lie in [{MIN_CELL_SIZE:g}, "
                          f"{MAX_CELL_SIZE:g}] metres, got {cs!r}", path=path)
    for name, v, extent in (("min_x", h.min_x, h.width), ("min_z", h.min_z, h.depth),
                            ("floor_y", h.floor_y, 0)):
        if not math.isfinite(v) or not math.isfinite(v + extent * cs) or abs(v) > 1e300:
            raise FormatError(f"header field {name}: must be finite (with the world's "
                              f"extent), got {v!r}", path=path)


def index_limit(file_bytes: int) -> int:
    """Most bytes the decompressed index of a ``file_bytes`` file may take
    (:data:`INDEX_FLOOR`, :data:`INDEX_RATIO`)."""
    return max(INDEX_FLOOR, INDEX_RATIO * int(file_bytes))


class ChunkFile:
    """An open ``.nkw`` file: header and index in memory, blobs read with ``os.pread``.

    The header is checked against the chunks: at open against the index
    (uniform values, edge chunks) and the file size (the index may unpack to at
    most :func:`index_limit` bytes, or ``max_index_bytes``); each mixed chunk
    when it is first read (its weights against ``weighted`` / ``min_weight``,
    its cells beyond the world's edge). A contradiction is a FormatError naming
    the file (and the chunk).
    """

    def __init__(self, path: str | os.PathLike[str], *, max_index_bytes: int | None = None):
        self.path = os.fspath(path)
        self.max_index_bytes = max_index_bytes
        try:
            self.fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except OSError as exc:
            raise FormatError(f"cannot open: {exc.strerror or exc}", path=self.path) from None
        try:
            self._load()
        except BaseException:
            os.close(self.fd)
            self.fd = -1
            raise

    def _load(self) -> None:
        path = self.path
        h, data_off = read_header(self.fd, path)
        self.header = h
        size = os.fstat(self.fd).st_size
        try:
            self.codec: Codec = codec_by_id(h.codec_id, h.level)
        except ValueError:
            raise FormatError(f"unknown codec id {h.codec_id}", path=path) from None
        if h.index_offset < data_off or h.index_offset + h.index_len != size:
            raise FormatError(f"file is truncated or padded: index at {h.index_offset} + "
                              f"{h.index_len} bytes, file has {size}", path=path)
        n = h.nx * h.nz
        limit = (index_limit(size) if self.max_index_bytes is None
                 else int(self.max_index_bytes))
        if 8 * n > limit:
            raise FormatError(f"header declares {h.nx} x {h.nz} = {n:_} chunks, whose index "
                              f"unpacks to {8 * n:_} bytes: more than the {limit:_} allowed "
                              f"for a file of {size:_} bytes (ChunkStore.open(..., "
                              "max_index_bytes=) allows more)", path=path)
        if h.index_len > 8 * n + 1024 + (8 * n) // 8:
            raise FormatError(f"chunk index of {h.index_len:_} bytes stored is longer than "
                              f"{n:_} chunks need", path=path)
        blob = _pread(self.fd, h.index_len, h.index_offset, path, "the chunk index")
        if zlib.crc32(blob) != h.index_crc:
            raise FormatError("chunk index checksum mismatch (the file is damaged)", path=path)
        try:
            raw = self.codec.decompress(blob, 8 * n)
        except ValueError as exc:
            raise FormatError(f"chunk index cannot be decompressed: {exc}", path=path) from None
        arr = np.frombuffer(raw, dtype="<u4")
        #: Per chunk its u32 entry (uniform: bit 31 and the value; mixed: the blob's length).
        self.entries: NDArray[np.uint32] = arr[:n].astype(np.uint32, copy=True)
        mixed = (self.entries & UNIFORM_BIT) == 0
        #: Ids (``cz * nx + cx``) of the mixed chunks, ascending; their blobs' CRCs and end
        #: offsets relative to the data section (held for mixed chunks only: 20 bytes per
        #: mixed chunk instead of 12 per chunk).
        self.mixed_ids: NDArray[np.int64] = np.flatnonzero(mixed)
        del mixed
        nmixed = len(self.mixed_ids)
        crcs = arr[n:]
        lengths = self.entries[self.mixed_ids].astype(np.int64)
        if nmixed != h.mixed or np.count_nonzero(lengths) != nmixed:
            raise FormatError("chunk index is inconsistent with the header", path=path)
        self.mixed_crcs: NDArray[np.uint32] = crcs[self.mixed_ids].astype(np.uint32)
        del arr, crcs, raw
        ends = np.cumsum(lengths, out=lengths)
        if data_off + (int(ends[-1]) if nmixed else 0) != h.index_offset:
            raise FormatError("chunk index lengths do not add up to the data section",
                              path=path)
        self.mixed_ends: NDArray[np.int64] = ends
        self.data_offset = data_off
        self.file_bytes = size
        self.uniform_count = n - nmixed
        self._check_uniform()

    def _check_uniform(self) -> None:
        """The uniform chunks' index entries against the header: a value and no
        other bits, weights against ``weighted`` / ``min_weight``, and an edge
        chunk (one reaching past the world) blocked, as its outside cells are."""
        h = self.header
        e = self.entries
        uni = (e & UNIFORM_BIT) != 0
        bad = uni & ((e & np.uint32(0x7FFF0000)) != 0)
        if bad.any():
            raise self._chunk_error(int(np.argmax(bad)), "has a damaged uniform entry")
        vals = np.where(uni, e & np.uint32(0xFFFF), 0)
        if not h.weighted:
            bad = vals > 1
            if bad.any():
                i = int(np.argmax(bad))
                raise self._chunk_error(i, f"is uniform weight {int(vals[i])}, but the header "
                                           "says the world is unweighted")
        if h.min_weight > 1:
            bad = (vals > 0) & (vals < h.min_weight)
            if bad.any():
                i = int(np.argmax(bad))
                raise self._chunk_error(i, f"is uniform weight {int(vals[i])}, below the "
                                           f"header's min_weight {h.min_weight}")
        c = h.chunk
        if h.width % c:
            col = vals.reshape(h.nz, h.nx)[:, -1]
            if col.any():
                cz = int(np.argmax(col != 0))
                raise self._chunk_error(cz * h.nx + h.nx - 1, "reaches past the world's edge "
                                        "but is uniform walkable (cells beyond are blocked)")
        if h.depth % c:
            row = vals.reshape(h.nz, h.nx)[-1]
            if row.any():
                cx = int(np.argmax(row != 0))
                raise self._chunk_error((h.nz - 1) * h.nx + cx, "reaches past the world's "
                                        "edge but is uniform walkable (cells beyond are blocked)")

    def checked_min_weight(self, max_chunks: int = MIN_WEIGHT_CHECK_CHUNKS) -> int:
        """The header's ``min_weight`` (at least 1) when it is checked: trivially
        for 1, else by reading every mixed chunk (FormatError on a contradiction)
        when there are at most ``max_chunks``; 1 otherwise (a safe heuristic scale)."""
        mw = max(1, int(self.header.min_weight))
        if mw == 1:
            return 1
        if len(self.mixed_ids) > max_chunks:
            return 1
        nx = self.header.nx
        for i in self.mixed_ids.tolist():
            self.read(i % nx, i // nx)
        return mw

    def _chunk_error(self, i: int, what: str) -> FormatError:
        nx = self.header.nx
        return FormatError(f"chunk ({i % nx}, {i // nx}) {what}: the header contradicts the "
                           "chunks (damaged or altered file)", path=self.path)

    def _check_chunk(self, cx: int, cz: int, a: NDArray[np.uint16]) -> None:
        """A mixed chunk's cells against the header (on its first read)."""
        h = self.header
        i = cz * h.nx + cx
        if not h.weighted and int(a.max()) > 1:
            raise self._chunk_error(i, f"holds weight {int(a.max())}, but the header says the "
                                       "world is unweighted")
        if h.min_weight > 1:
            low = int((a - np.uint16(1)).min()) + 1  # the smallest walkable weight (0 -> 65536)
            if low < h.min_weight:
                raise self._chunk_error(i, f"holds weight {low}, below the header's "
                                           f"min_weight {h.min_weight}")
        c = h.chunk
        wx, wz = h.width - cx * c, h.depth - cz * c
        if (wx < c and a[:, wx:].any()) or (wz < c and a[wz:, :].any()):
            raise self._chunk_error(i, "has walkable cells beyond the world's edge")

    def close(self) -> None:
        """Close the file descriptor (idempotent)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def uniform(self, cx: int, cz: int) -> int | None:
        """The value of uniform chunk ``(cx, cz)`` from the index, else None."""
        e = int(self.entries[cz * self.header.nx + cx])
        return (e & 0xFFFF) if e & (1 << 31) else None

    def blob_span(self, cx: int, cz: int) -> tuple[int, int] | None:
        """File offset and length of mixed chunk ``(cx, cz)``'s blob; None for a
        uniform chunk."""
        b = self._blob(cz * self.header.nx + cx)
        return None if b is None else (b[0], b[1])

    def _blob(self, i: int) -> tuple[int, int, int] | None:
        """Offset, length and CRC of chunk ``i``'s blob (None: uniform); its rank
        among the mixed chunks by binary search."""
        e = int(self.entries[i])
        if e & (1 << 31):
            return None
        r = int(np.searchsorted(self.mixed_ids, i))
        return self.data_offset + int(self.mixed_ends[r]) - e, e, int(self.mixed_crcs[r])

    def read(self, cx: int, cz: int) -> NDArray[np.uint16]:
        """Mixed chunk ``(cx, cz)``: pread, CRC check, decompress; a read-only
        ``(chunk, chunk)`` uint16 array. FormatError naming the chunk on damage."""
        i = cz * self.header.nx + cx
        c = self.header.chunk
        b = self._blob(i)
        if b is None:
            return np.full((c, c), int(self.entries[i]) & 0xFFFF, dtype=np.uint16)
        off, length, crc = b
        where = f"chunk ({cx}, {cz})"
        blob = _pread(self.fd, length, off, self.path, where)
        if zlib.crc32(blob) != crc:
            raise FormatError(f"{where} fails its checksum (the file is damaged)",
                              path=self.path)
        try:
            raw = self.codec.decompress(blob, 2 * c * c)
        except ValueError as exc:
            raise FormatError(f"{where} cannot be decompressed: {exc}", path=self.path) from None
        a = np.frombuffer(raw, dtype="<u2").reshape(c, c).astype(np.uint16, copy=False)
        self._check_chunk(cx, cz, a)
        return a


class ChunkFileWriter:
    """Streams a ``.nkw`` file: :meth:`add` each chunk in id order, then :meth:`finish`.

    Writes ``path + '.partial'`` and renames it over ``path`` on finish, so a
    failed bake never leaves a half-written world under the final name.
    """

    def __init__(self, path: str | os.PathLike[str], header: Header, codec: Codec):
        self.path = os.fspath(path)
        self.tmp = self.path + ".partial"
        self.header = header
        self.codec = codec
        n = header.nx * header.nz
        self.index = np.zeros(2 * n, dtype="<u4")  # entries then CRCs, as stored
        self.entries = self.index[:n]
        self.crcs = self.index[n:]
        self.next_id = 0
        self.mixed = 0
        self.fh = open(self.tmp, "wb")  # noqa: SIM115 - closed in finish / abort
        self.fh.write(header.pack())
        self.pos = self.fh.tell()

    def add(self, entry: int, crc: int, blob: bytes) -> None:
        """The next chunk: ``entry`` (uniform bit + value, or the blob length), CRC, blob."""
        i = self.next_id
        self.entries[i] = entry
        if not entry & (1 << 31):
            self.crcs[i] = crc
            self.fh.write(blob)
            self.pos += len(blob)
            self.mixed += 1
        self.next_id = i + 1

    def add_batch(self, entries: NDArray[np.int64], crcs: NDArray[np.int64], blobs: bytes) -> None:
        """The next ``len(entries)`` chunks at once: their entries and CRCs (as in
        :meth:`add`; a uniform chunk's CRC is ignored) and their blobs joined in order."""
        i = self.next_id
        k = entries.shape[0]
        if i + k > self.entries.shape[0]:
            raise RuntimeError(f"bake added {i + k} of {self.entries.shape[0]} chunks")
        e = entries.astype(np.uint32)
        self.entries[i:i + k] = e
        mixed = (e & np.uint32(1 << 31)) == 0
        self.crcs[i:i + k] = np.where(mixed, crcs, 0).astype(np.uint32)
        self.fh.write(blobs)
        self.pos += len(blobs)
        self.mixed += int(mixed.sum())
        self.next_id = i + k

    def finish(self, *, min_weight: int, weighted: bool) -> int:
        """Write the index, rewrite the header; returns the file size in bytes."""
        if self.next_id != self.entries.shape[0]:
            self.abort()
            raise RuntimeError(f"bake wrote {self.next_id} of {self.entries.shape[0]} chunks")
        index = self.codec.compress(self.index.data.cast("B"))
        self.fh.write(index)
        h = self.header
        final = Header(h.chunk, h.width, h.depth, h.nx, h.nz, h.cell_size, h.min_x, h.min_z,
                       h.floor_y, min_weight, weighted, h.codec_id, h.level, h.fingerprint,
                       h.meta, self.pos, len(index), zlib.crc32(index), self.mixed)
        packed = final.pack()
        if len(packed) != len(h.pack()):
            self.abort()
            raise RuntimeError("header size changed while baking")
        self.fh.seek(0)
        self.fh.write(packed)
        self.fh.flush()
        os.fsync(self.fh.fileno())
        self.fh.close()
        os.replace(self.tmp, self.path)
        self.header = final
        return self.pos + len(index)

    def abort(self) -> None:
        """Close and delete the partial file."""
        if not self.fh.closed:
            self.fh.close()
        try:
            os.unlink(self.tmp)
        except OSError:
            pass
