"""The baked .nkw file: round trips, uniform elision, damage detection, staleness, determinism.

Oracles: the source numpy arrays; byte comparison of files written by
independent batch runners; the documented header layout (struct offsets).
"""

from __future__ import annotations

import concurrent.futures
import os
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navkit.errors import FormatError
from navkit.grid import NavGrid
from navkit.world import ChunkStore, bake, encode_batch, is_stale, rooms
from navkit.world.chunkfile import HEADER_SIZE, MAGIC

from .test_store import grid_of, padded, random_cells

SET = settings(max_examples=20, deadline=None,
               suppress_health_check=[HealthCheck.function_scoped_fixture])
CODECS = ["zstd", "zlib", "blosc2-zstd", "blosc2-lz4"]


@SET
@given(st.integers(1, 90), st.integers(1, 90), st.sampled_from([16, 32]), st.booleans(),
       st.sampled_from(CODECS), st.integers(0, 2**32 - 1))
def test_round_trip_every_cell(tmp_path: Path, width: int, depth: int, chunk: int,
                               weighted: bool, codec: str, seed: int) -> None:
    cells = random_cells(np.random.default_rng(seed), width, depth, chunk, weighted)
    path = tmp_path / f"w{seed}.nkw"
    rep = bake(grid_of(cells), path, chunk=chunk, codec=codec, progress=False)
    with ChunkStore.open(path) as store:
        assert (store.width, store.depth, store.chunk) == (width, depth, chunk)
        np.testing.assert_array_equal(store.region(0, 0, width - 1, depth - 1), cells)
        pad = padded(cells, chunk)
        uni = 0
        for cz in range(store.nz):
            for cx in range(store.nx):
                ref = pad[cz * chunk:(cz + 1) * chunk, cx * chunk:(cx + 1) * chunk]
                np.testing.assert_array_equal(store.get(cx, cz), ref)
                is_uni = ref.min() == ref.max()
                uni += is_uni
                assert store.uniform_value(cx, cz) == (int(ref[0, 0]) if is_uni else None)
        assert rep.uniform == uni and rep.mixed == store.nx * store.nz - uni
        walk = cells[cells > 0]
        assert store.weighted == bool(walk.size and walk.max() > 1)
        assert store.min_weight == (int(walk.min()) if walk.size else 1)
        assert rep.file_bytes == os.path.getsize(path)
    os.remove(path)


def test_uniform_chunks_cost_no_blob(tmp_path: Path) -> None:
    cells = np.ones((1024, 1024), dtype=np.uint16)
    cells[:, 512:] = 0
    cells[100, 100] = 0  # one mixed chunk
    rep = bake(grid_of(cells), tmp_path / "u.nkw", chunk=64, progress=False)
    assert (rep.uniform, rep.mixed) == (255, 1)
    assert rep.file_bytes < 1500  # 256 chunks: index + one small blob, no 8 KB blobs
    store = ChunkStore.open(tmp_path / "u.nkw")
    assert store.get(5, 3) is store.get(2, 2)  # one shared array per value
    assert store.stats().uniform_served == 2 and store.stats().loads == 0


def test_open_reads_header_and_index_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    gen = rooms(seed=4, width=2048, depth=2048)
    bake(gen, tmp_path / "r.nkw", progress=False)
    reads: list[int] = []
    real = os.pread

    def spy(fd: int, n: int, off: int) -> bytes:
        reads.append(n)
        return real(fd, n, off)

    monkeypatch.setattr(os, "pread", spy)
    store = ChunkStore.open(tmp_path / "r.nkw")
    assert len(reads) == 3  # header, metadata, index
    assert sum(reads) < os.path.getsize(tmp_path / "r.nkw") / 4
    assert store.stats().loads == 0


def test_header_layout_is_as_documented(tmp_path: Path) -> None:
    grid = NavGrid(np.ones((40, 70), dtype=bool), cell_size=0.5, min_x=-3.0, min_z=2.0,
                   floor_y=1.25)
    bake(grid, tmp_path / "h.nkw", chunk=16, codec="zlib", progress=False)
    raw = (tmp_path / "h.nkw").read_bytes()
    assert raw[:8] == MAGIC == b"NAVKITW\x00"
    version, flags, chunk, width, depth, nx, nz = struct.unpack_from("<HHIQQII", raw, 8)
    assert (version, flags, chunk, width, depth, nx, nz) == (1, 0, 16, 70, 40, 5, 3)
    assert struct.unpack_from("<4d", raw, 40) == (0.5, -3.0, 2.0, 1.25)
    minw, cid, level, meta_len = struct.unpack_from("<HBbI", raw, 72)
    assert (minw, cid, level) == (1, 1, 6)
    ioff, ilen = struct.unpack_from("<QQ", raw, 80)
    assert ioff + ilen == len(raw) and HEADER_SIZE == 144


def test_bit_identical_whatever_runs_the_batches(tmp_path: Path) -> None:
    gen = rooms(seed=9, width=1500, depth=900)
    a = bake(gen, tmp_path / "a.nkw", progress=False)

    def threaded(fn, spec, batches):
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            yield from ex.map(lambda ids: fn(spec, ids), list(batches))

    def reversed_then_ordered(fn, spec, batches):
        bs = list(batches)
        res = {i: fn(spec, bs[i]) for i in reversed(range(len(bs)))}
        for i in range(len(bs)):
            yield res[i]

    bake(gen, tmp_path / "b.nkw", progress=False, map_batches=threaded, batch_chunks=7)
    bake(gen, tmp_path / "c.nkw", progress=False, map_batches=reversed_then_ordered,
         batch_chunks=100_000)
    ref = (tmp_path / "a.nkw").read_bytes()
    assert (tmp_path / "b.nkw").read_bytes() == ref
    assert (tmp_path / "c.nkw").read_bytes() == ref
    assert a.mixed > 0 and a.uniform > 0
    import pickle

    from navkit.world.bake import BakeSpec
    from navkit.world.sources import resolve_source

    spec = BakeSpec(resolve_source(gen, chunk=64), "zstd", 3)
    ids = np.arange(0, 24, dtype=np.int64)
    assert pickle.loads(pickle.dumps(encode_batch))(pickle.loads(pickle.dumps(spec)), ids) == \
        encode_batch(spec, ids)


def _baked(tmp_path: Path) -> tuple[Path, np.ndarray]:
    cells = random_cells(np.random.default_rng(5), 70, 50, 16, True)
    path = tmp_path / "f.nkw"
    bake(grid_of(cells), path, chunk=16, progress=False)
    return path, cells


def _uniform_chunk(cf, store):
    i = int(np.flatnonzero((cf.entries & np.uint32(1 << 31)) != 0)[0])
    return i % store.nx, i // store.nx


def test_format_errors_name_file_and_chunk(tmp_path: Path) -> None:
    path, _ = _baked(tmp_path)
    raw = bytearray(path.read_bytes())
    bad = tmp_path / "bad.nkw"

    def opened(data: bytes) -> ChunkStore:
        bad.write_bytes(data)
        return ChunkStore.open(bad)

    with pytest.raises(FormatError, match="not a navkit world") as e:
        opened(b"XXXXXXXX" + bytes(raw[8:]))
    assert e.value.path == str(bad)
    v2 = bytearray(raw)
    v2[8] = 2
    with pytest.raises(FormatError, match="version 2"):
        opened(bytes(v2))
    with pytest.raises(FormatError, match="truncated"):
        opened(bytes(raw[:-5]))
    with pytest.raises(FormatError, match="truncated"):
        opened(bytes(raw[:60]))
    with pytest.raises(FormatError):
        opened(b"")
    ioff = struct.unpack_from("<Q", raw, 80)[0]
    idx = bytearray(raw)
    idx[ioff + 3] ^= 0x10
    with pytest.raises(FormatError, match="index checksum"):
        opened(bytes(idx))
    store = ChunkStore.open(path)
    cf = store._backing.cf  # type: ignore[union-attr]
    i = int(np.flatnonzero((cf.entries & np.uint32(1 << 31)) == 0)[3])
    cx, cz = i % store.nx, i // store.nx
    off, length = cf.blob_span(cx, cz)
    assert length == int(cf.entries[i]) and cf.blob_span(*_uniform_chunk(cf, store)) is None
    blob = bytearray(raw)
    blob[off + 2] ^= 0xFF
    s2 = opened(bytes(blob))
    with pytest.raises(FormatError, match=rf"chunk \({cx}, {cz}\) fails its checksum") as e:
        s2.get(cx, cz)
    assert str(bad) in str(e.value)
    with pytest.raises(FormatError, match="cannot open"):
        ChunkStore.open(tmp_path / "missing.nkw")


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 10**9), st.integers(1, 255)), min_size=1, max_size=4),
       st.one_of(st.none(), st.integers(0, 10**9)))
def test_fuzz_damaged_files_give_correct_data_or_format_error(
        tmp_path: Path, flips: list[tuple[int, int]], cut: int | None) -> None:
    path = tmp_path / "fz.nkw"
    if not path.exists():
        cells = random_cells(np.random.default_rng(6), 50, 40, 16, True)
        bake(grid_of(cells), path, chunk=16, progress=False)
        np.save(tmp_path / "fz.npy", cells)
    cells = np.load(tmp_path / "fz.npy")
    raw = bytearray(path.read_bytes())
    for pos, x in flips:
        raw[pos % len(raw)] ^= x
    if cut is not None:
        raw = raw[:cut % (len(raw) + 1)]
    bad = tmp_path / "fz_bad.nkw"
    bad.write_bytes(bytes(raw))
    try:
        store = ChunkStore.open(bad)
    except FormatError as exc:
        assert exc.path == str(bad)
        return
    pad = padded(cells, 16)
    for cz in range(store.nz):
        for cx in range(store.nx):
            try:
                a = store.get(cx, cz)
            except FormatError as exc:
                assert f"chunk ({cx}, {cz})" in str(exc)
                continue
            np.testing.assert_array_equal(a, pad[cz * 16:(cz + 1) * 16, cx * 16:(cx + 1) * 16])
    store.close()


def test_staleness(tmp_path: Path) -> None:
    cells = random_cells(np.random.default_rng(7), 40, 40, 16, False)
    path = tmp_path / "s.nkw"
    assert is_stale(path, grid_of(cells))  # missing
    bake(grid_of(cells), path, chunk=16, progress=False)
    assert ChunkStore.open(path).fingerprint == ChunkStore.from_grid(grid_of(cells),
                                                                     chunk=16).fingerprint
    assert not is_stale(path, grid_of(cells))
    cells2 = cells.copy()
    cells2[3, 3] = 0 if cells[3, 3] else 1
    assert is_stale(path, grid_of(cells2))
    assert is_stale(path, grid_of(cells), chunk=32)
    moved = NavGrid(cells > 0, min_x=1.0)
    assert is_stale(path, moved)
    gen = rooms(seed=1, width=300, depth=300)
    bake(gen, path, progress=False)
    assert not is_stale(path, gen)
    assert not is_stale(path, "procedural:rooms?seed=1&width=300&depth=300")
    assert is_stale(path, rooms(seed=2, width=300, depth=300))
    path.write_bytes(b"junk")
    assert is_stale(path, gen)
