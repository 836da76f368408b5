"""Hostile ``.nkw`` files whose checksums hold but whose header lies about the chunks.

Each test pins a defect a hostile-input campaign found: a CRC-valid header that
contradicts its chunks (weights, the unweighted flag, edge chunks) gave
suboptimal answers; ``cell_size = 0`` or metadata nested 50,000 deep escaped
as ``ZeroDivisionError`` / ``RecursionError``; a few kilobytes declaring
millions of uniform chunks allocated hundreds of megabytes at open. The files
are rewritten here with the documented byte layout (docs/worlds.md), not with
navkit's writer, and every CRC is recomputed so that only the checks of the
contents can catch them.
"""

from __future__ import annotations

import json
import math
import struct
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest

from navkit.errors import FormatError
from navkit.grid import NavGrid
from navkit.world import ChunkStore, World, bake
from navkit.world.chunkfile import ChunkFile

#: The documented header (docs/worlds.md): 136 fixed bytes, then CRC and reserved.
FMT = "<8sHHIQQIIddddHBbIQQII32s"
HEADER = 144


def fields(raw: bytes) -> dict[str, object]:
    names = ("magic", "version", "flags", "chunk", "width", "depth", "nx", "nz", "cell_size",
             "min_x", "min_z", "floor_y", "min_weight", "codec", "level", "meta_len",
             "index_offset", "index_len", "index_crc", "mixed", "fingerprint")
    return dict(zip(names, struct.unpack_from(FMT, raw, 0), strict=True))


def forge(raw: bytes, *, meta: bytes | None = None, body: bytes | None = None,
          **changes: object) -> bytes:
    """``raw`` with header fields changed (and optionally new metadata bytes or a
    new body: blobs and index), offsets and every CRC made consistent again."""
    f = fields(raw)
    old_meta = raw[HEADER:HEADER + int(f["meta_len"])]  # type: ignore[call-overload]
    rest = raw[HEADER + len(old_meta):]
    meta = old_meta if meta is None else meta
    if body is not None:
        rest = body
    f.update(changes)
    f["meta_len"] = len(meta)
    if "index_offset" not in changes:
        f["index_offset"] = int(f["index_offset"]) + len(meta) - len(old_meta)  # type: ignore[call-overload]
    fixed = struct.pack(FMT, *f.values())
    crc = zlib.crc32(meta, zlib.crc32(fixed))
    return fixed + struct.pack("<II", crc, 0) + meta + rest


def baked(tmp_path: Path, cells: np.ndarray, name: str = "w.nkw", chunk: int = 16) -> Path:
    walk = cells > 0
    grid = NavGrid(walk, weights=np.maximum(cells, 1) if cells.max() > 1 else None)
    path = tmp_path / name
    bake(grid, path, chunk=chunk, codec="zlib", progress=False)
    return path


def weighted_cells(rng: np.random.Generator, n: int = 48) -> np.ndarray:
    """Every chunk mixed (a wall cell in each), weights 1 on a corridor, 5 elsewhere."""
    cells = np.full((n, n), 5, dtype=np.uint16)
    cells[n // 2, :] = 1  # a cheap corridor across
    cells[::16, ::16] = 0
    cells[rng.integers(0, n, 20), rng.integers(0, n, 20)] = 0
    cells[n // 2, :] = 1
    return cells


def test_min_weight_above_the_cells_is_a_format_error_not_a_longer_path(tmp_path: Path):
    cells = weighted_cells(np.random.default_rng(1))
    path = baked(tmp_path, cells)
    raw = path.read_bytes()
    assert fields(raw)["min_weight"] == 1
    truth = World.open(str(path)).find_path_cells((0, 24), (47, 24))
    liar = tmp_path / "liar.nkw"
    liar.write_bytes(forge(raw, min_weight=2))
    # a min_weight above 1 scales the heuristic: checked against every chunk at open
    with pytest.raises(FormatError, match="min_weight") as ei:
        World.open(str(liar))
    assert ei.value.path == str(liar)
    assert truth.cost_int > 0
    # too many chunks to read at open: the header's value is not used (1 instead)
    cf = ChunkFile(liar)
    try:
        assert cf.checked_min_weight(max_chunks=len(cf.mixed_ids) - 1) == 1
    finally:
        cf.close()
    honest = weighted_cells(np.random.default_rng(1))
    honest[honest == 1] = 2  # every walkable cell weighs 2 or 5: min_weight 2 is true
    path2 = baked(tmp_path, honest, "two.nkw")
    with ChunkStore.open(path2) as st:
        assert st.min_weight == 2
    w2 = World.open(str(path2))
    assert w2.find_path_cells((0, 24), (47, 24)).cost_int == \
        World.from_grid(NavGrid(honest > 0, weights=np.maximum(honest, 1)), chunk=16
                        ).find_path_cells((0, 24), (47, 24)).cost_int


def test_unweighted_flag_over_weighted_chunks_is_a_format_error(tmp_path: Path):
    cells = weighted_cells(np.random.default_rng(2))
    path = baked(tmp_path, cells)
    liar = tmp_path / "flat.nkw"
    liar.write_bytes(forge(path.read_bytes(), flags=0))
    world = World.open(str(liar))
    with pytest.raises(FormatError, match="unweighted"):
        world.find_path_cells((0, 24), (47, 24), window=(0, 0, 47, 47))
    with pytest.raises(FormatError, match="unweighted"):
        ChunkStore.open(liar).to_grid()


def test_uniform_chunks_are_checked_against_the_header_at_open(tmp_path: Path):
    cells = np.ones((64, 64), dtype=np.uint16)
    cells[:, 32:] = 3  # uniform chunks of weight 1 and 3
    path = baked(tmp_path, cells)
    raw = path.read_bytes()
    with ChunkStore.open(path) as st:
        assert st.min_weight == 1 and st.weighted
    (tmp_path / "a.nkw").write_bytes(forge(raw, min_weight=2))
    with pytest.raises(FormatError, match="below the header's min_weight"):
        ChunkStore.open(tmp_path / "a.nkw")
    (tmp_path / "b.nkw").write_bytes(forge(raw, flags=0))
    with pytest.raises(FormatError, match="unweighted"):
        ChunkStore.open(tmp_path / "b.nkw")
    (tmp_path / "c.nkw").write_bytes(forge(raw, flags=0, min_weight=3))
    with pytest.raises(FormatError, match="unweighted"):
        ChunkStore.open(tmp_path / "c.nkw")


def test_chunks_reaching_past_the_world_edge_must_be_blocked_there(tmp_path: Path):
    cells = np.ones((32, 32), dtype=np.uint16)
    path = baked(tmp_path, cells)  # 2 x 2 uniform chunks of 16
    raw = path.read_bytes()
    # the same file claiming a 30 x 32 world: its right chunks would be walkable past x = 29
    (tmp_path / "edge.nkw").write_bytes(forge(raw, width=30))
    with pytest.raises(FormatError, match="past the world's edge"):
        ChunkStore.open(tmp_path / "edge.nkw")
    cells = np.ones((32, 32), dtype=np.uint16)
    cells[::16, ::16] = 0  # every chunk mixed
    path = baked(tmp_path, cells, "m.nkw")
    (tmp_path / "edge2.nkw").write_bytes(forge(path.read_bytes(), width=30))
    with ChunkStore.open(tmp_path / "edge2.nkw") as st:
        with pytest.raises(FormatError, match="beyond the world's edge"):
            st.get(1, 0)


@pytest.mark.parametrize("change", [
    {"cell_size": 0.0}, {"cell_size": -1.0}, {"cell_size": math.nan}, {"cell_size": math.inf},
    {"cell_size": 1e-320}, {"min_x": math.inf}, {"min_z": math.nan}, {"floor_y": -math.inf},
    {"min_x": 1.7e308, "cell_size": 1e9},
])
def test_bad_geometry_in_the_header_is_a_format_error(tmp_path: Path, change: dict):
    path = baked(tmp_path, np.ones((20, 20), dtype=np.uint16))
    bad = tmp_path / "g.nkw"
    bad.write_bytes(forge(path.read_bytes(), **change))
    with pytest.raises(FormatError, match=next(iter(change))) as ei:
        World.open(str(bad))
    assert ei.value.path == str(bad)


@pytest.mark.parametrize("meta", [
    b"[" * 50_000 + b"]" * 50_000,
    b'{"a": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    b'{"agent_radius": [1]}', b'{"agent_radius": -1}', b'{"name": {"x": 1}}',
])
def test_hostile_metadata_is_a_format_error(tmp_path: Path, meta: bytes):
    path = baked(tmp_path, np.ones((20, 20), dtype=np.uint16))
    bad = tmp_path / "m.nkw"
    bad.write_bytes(forge(path.read_bytes(), meta=meta))
    with pytest.raises(FormatError, match="metadata"):
        World.open(str(bad))


def _uniform_index(n: int) -> bytes:
    """A valid zstd index of ``n`` uniform walkable chunks, compressed as it streams
    (never the whole raw index in memory)."""
    import io

    import zstandard

    out = io.BytesIO()
    with zstandard.ZstdCompressor(level=3).stream_writer(
            out, size=8 * n, closefd=False) as w:
        block = np.full(1 << 16, 0x80000001, dtype="<u4").tobytes()
        for _ in range(n // (1 << 16)):
            w.write(block)
        zero = bytes(len(block))
        for _ in range(n // (1 << 16)):
            w.write(zero)
    return out.getvalue()


def test_small_file_declaring_millions_of_chunks_is_refused_before_allocating(tmp_path: Path):
    path = baked(tmp_path, np.ones((32, 32), dtype=np.uint16))
    raw = path.read_bytes()
    n = 1 << 24  # 4096 x 4096 chunks of 16: a 128 MiB index
    index = _uniform_index(n)
    f = fields(raw)
    data_off = HEADER + int(f["meta_len"])  # type: ignore[call-overload]
    big = tmp_path / "big.nkw"
    big.write_bytes(forge(raw, body=index, width=16 * 4096, depth=16 * 4096, nx=4096, nz=4096,
                          mixed=0, codec=2, level=3, index_offset=data_off, index_len=len(index),
                          index_crc=zlib.crc32(index)))
    assert big.stat().st_size < 64 * 1024
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match="chunks") as ei:
            ChunkStore.open(big)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "max_index_bytes" in str(ei.value) and ei.value.path == str(big)
    assert peak < 8 << 20, peak
    with ChunkStore.open(big, max_index_bytes=8 * n) as st:  # allowed: it opens, and reads
        assert st.uniform_value(4095, 4095) == 1 and st.cell(65_535, 65_535) == 1


def test_honest_files_still_open_and_answer(tmp_path: Path):
    rng = np.random.default_rng(4)
    cells = weighted_cells(rng)
    cells[:, 40:] = 0  # uniform blocked chunks too
    path = baked(tmp_path, cells[:, :45])  # edge chunks of 45 % 16 = 13 cells
    with ChunkStore.open(path) as st:
        np.testing.assert_array_equal(st.region(0, 0, 44, 47), cells[:, :45])
        for cz in range(st.nz):
            for cx in range(st.nx):
                st.get(cx, cz)
    meta = json.dumps({"name": "x", "agent_radius": 0.25}).encode()
    ok = tmp_path / "ok.nkw"
    ok.write_bytes(forge(path.read_bytes(), meta=meta))
    with ChunkStore.open(ok) as st:
        assert st.name == "x"
