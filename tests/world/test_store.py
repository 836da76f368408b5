"""ChunkStore over grids and generators: cells, regions, LRU accounting, edits.

Oracles: the source numpy arrays (padded with zeros by hand), an independent
list-based LRU model, scipy.ndimage.label for connectivity.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from navkit.errors import ConfigError, QueryError
from navkit.grid import NavGrid
from navkit.world import ChunkStore, rooms

SETTINGS = settings(max_examples=30, deadline=None)


def random_cells(rng: np.random.Generator, width: int, depth: int, chunk: int,
                 weighted: bool, mixed: float = 0.25) -> np.ndarray:
    """A (depth, width) uint16 world: some chunks blocked, some open, some mixed."""
    cells = np.ones((depth, width), dtype=np.uint16)
    for cz in range(-(-depth // chunk)):
        for cx in range(-(-width // chunk)):
            sl = np.s_[cz * chunk:(cz + 1) * chunk, cx * chunk:(cx + 1) * chunk]
            kind = 2 if rng.random() < mixed else rng.integers(0, 3) % 2
            if kind == 0:
                cells[sl] = 0
            elif kind == 1:
                cells[sl] = 3 if weighted else 1
            elif kind == 2:
                blk = cells[sl]
                blk[...] = (rng.random(blk.shape) > 0.3).astype(np.uint16)
                if weighted:
                    blk *= rng.integers(1, 9, blk.shape).astype(np.uint16)
    return cells


def grid_of(cells: np.ndarray) -> NavGrid:
    return NavGrid(cells > 0, weights=np.maximum(cells, 1).astype(np.int32))


def padded(cells: np.ndarray, chunk: int) -> np.ndarray:
    d, w = cells.shape
    out = np.zeros((-(-d // chunk) * chunk, -(-w // chunk) * chunk), dtype=np.uint16)
    out[:d, :w] = cells
    return out


worlds = st.tuples(st.integers(1, 70), st.integers(1, 70), st.sampled_from([16, 32]),
                   st.booleans(), st.integers(0, 2**32 - 1))


@SETTINGS
@given(worlds)
def test_from_grid_every_chunk_and_cell(w: tuple[int, int, int, bool, int]) -> None:
    width, depth, chunk, weighted, seed = w
    rng = np.random.default_rng(seed)
    cells = random_cells(rng, width, depth, chunk, weighted)
    store = ChunkStore.from_grid(grid_of(cells), chunk=chunk)
    assert (store.nx, store.nz) == (-(-width // chunk), -(-depth // chunk))
    pad = padded(cells, chunk)
    for cz in range(store.nz):
        for cx in range(store.nx):
            a = store.get(cx, cz)
            ref = pad[cz * chunk:(cz + 1) * chunk, cx * chunk:(cx + 1) * chunk]
            assert a.shape == (chunk, chunk) and a.dtype == np.uint16 and a.flags.c_contiguous
            assert not a.flags.writeable
            np.testing.assert_array_equal(a, ref)
            u = store.uniform_value(cx, cz)
            if u is not None:
                assert (ref == u).all()
    walk = cells[cells > 0]
    assert store.weighted == bool(walk.size and walk.max() > 1)
    assert store.min_weight == (int(walk.min()) if walk.size else 1)
    assert store.to_grid().equals(grid_of(cells)) or not walk.size


@SETTINGS
@given(worlds, st.lists(st.tuples(st.integers(-20, 90), st.integers(-20, 90),
                                  st.integers(-1, 40), st.integers(-1, 40)), min_size=1,
                        max_size=6))
def test_region_and_cell_match_padded_source(w: tuple[int, int, int, bool, int],
                                             boxes: list[tuple[int, int, int, int]]) -> None:
    width, depth, chunk, weighted, seed = w
    cells = random_cells(np.random.default_rng(seed), width, depth, chunk, weighted)
    store = ChunkStore.from_grid(grid_of(cells), chunk=chunk)
    big = np.zeros((depth + 300, width + 300), dtype=np.uint16)
    big[100:100 + depth, 100:100 + width] = cells
    for x0, z0, dx, dz in boxes:
        x1, z1 = x0 + dx, z0 + dz
        got = store.region(x0, z0, x1, z1)
        h, ww = max(0, z1 - z0 + 1), max(0, x1 - x0 + 1)
        assert got.shape == (h, ww)
        if h and ww:
            np.testing.assert_array_equal(got, big[z0 + 100:z1 + 101, x0 + 100:x1 + 101])
            out = np.full((h, ww), 7, dtype=np.uint16)
            assert store.region(x0, z0, x1, z1, out=out) is out
            np.testing.assert_array_equal(out, got)
        assert store.cell(x0, z0) == int(big[z0 + 100, x0 + 100])


class ModelLRU:
    """Independent LRU model: a list ordered oldest first, bytes per chunk."""

    def __init__(self, cap: int):
        self.cap, self.evictions = cap, 0
        self.order: list[tuple[int, int]] = []

    def access(self, key: tuple[int, int], nbytes: int) -> bool:
        if key in self.order:
            self.order.remove(key)
            self.order.append(key)
            return True
        self.order.append(key)
        while len(self.order) * nbytes > self.cap and self.order:
            self.order.pop(0)
            self.evictions += 1
        return False


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 6), st.sampled_from([0, 1, 511]), st.lists(
    st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=1, max_size=60),
    st.lists(st.tuples(st.integers(0, 79), st.integers(0, 63)), max_size=5))
def test_lru_accounting_matches_a_model(seed: int, cap_chunks: int, extra: int,
                                        seq: list[tuple[int, int]],
                                        edits: list[tuple[int, int]]) -> None:
    chunk = 16
    cells = random_cells(np.random.default_rng(seed), 80, 64, chunk, True, mixed=0.8)
    nbytes = chunk * chunk * 2
    cap = cap_chunks * nbytes + extra  # exactly k chunks, or a little more
    store = ChunkStore.from_grid(grid_of(cells), chunk=chunk, cap_bytes=cap)
    ref = padded(cells, chunk).copy()
    if edits:
        e = np.array(edits)
        store.set_cells(e, 5)
        ref[e[:, 1], e[:, 0]] = 5
        store.reset_stats()
    pinned = {(x // chunk, z // chunk) for x, z in edits}
    model = ModelLRU(cap)
    hits = misses = uniform = 0
    for cx, cz in seq:
        a = store.get(cx, cz)
        np.testing.assert_array_equal(a, ref[cz * chunk:(cz + 1) * chunk,
                                             cx * chunk:(cx + 1) * chunk])
        blk = ref[cz * chunk:(cz + 1) * chunk, cx * chunk:(cx + 1) * chunk]
        if (cx, cz) in pinned:
            hits += 1
        elif blk.min() == blk.max():
            hits += 1
            uniform += 1
        elif model.access((cx, cz), nbytes):
            hits += 1
        else:
            misses += 1
        s = store.stats()
        assert s.resident_bytes - s.pinned_bytes <= cap
        assert s.pinned_chunks == len(pinned)
    s = store.stats()
    assert s.hits + s.misses == len(seq)
    assert (s.hits, s.misses, s.uniform_served) == (hits, misses, uniform)
    assert s.loads == misses
    assert s.evictions == model.evictions
    assert s.resident_chunks - s.pinned_chunks == len(model.order)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.lists(st.tuples(st.integers(0, 49), st.integers(0, 37),
                                                      st.integers(0, 9)), min_size=1,
                                            max_size=40))
def test_set_cells_edits_pins_and_versions(seed: int, edits: list[tuple[int, int, int]]) -> None:
    chunk = 16
    cells = random_cells(np.random.default_rng(seed), 50, 38, chunk, False)
    store = ChunkStore.from_grid(grid_of(cells), chunk=chunk, cap_bytes=0)
    ref = cells.copy()
    e = np.array(edits)
    for x, z, v in edits:  # last write wins
        ref[z, x] = v
    v0 = store.version
    touched = store.set_cells(e[:, :2], e[:, 2])
    expect = sorted({(x // chunk, z // chunk) for x, z, _ in edits})
    assert touched == expect
    assert store.version == v0 + 1
    for cz in range(store.nz):
        for cx in range(store.nx):
            assert store.chunk_version(cx, cz) == (1 if (cx, cz) in expect else 0)
    np.testing.assert_array_equal(store.region(0, 0, 49, 37), ref)
    assert store.stats().pinned_chunks == len(expect)  # cap 0: only pinned chunks resident
    walk = ref[ref > 0]
    assert store.min_weight <= (int(walk.min()) if walk.size else 1)
    if (walk > 1).any():
        assert store.weighted


def test_bad_arguments_raise_navkit_errors() -> None:
    store = ChunkStore.from_grid(NavGrid(np.ones((20, 20), dtype=bool)), chunk=16)
    with pytest.raises(QueryError):
        store.get(2, 0)
    with pytest.raises(QueryError):
        store.get(-1, 0)
    with pytest.raises(QueryError):
        store.set_cells([[20, 0]], 1)
    with pytest.raises(ConfigError, match="values"):
        store.set_cells([[0, 0]], 70000)
    with pytest.raises(ConfigError, match="chunk"):
        ChunkStore.from_grid(NavGrid(np.ones((4, 4), dtype=bool)), chunk=48)
    with pytest.raises(ConfigError, match="cap_bytes"):
        ChunkStore.from_grid(NavGrid(np.ones((4, 4), dtype=bool)), cap_bytes=-1)
    with store:
        pass
    with pytest.raises(QueryError, match="closed"):
        store.get(0, 0)


def test_generator_store_calls_fn_and_masks_the_edge() -> None:
    calls = []

    def fn(cx: int, cz: int, chunk: int) -> np.ndarray:
        calls.append((cx, cz))
        return np.full((chunk, chunk), 1 + (cx + 2 * cz) % 3, dtype=np.uint16)

    store = ChunkStore.from_generator(fn, 40, 20, chunk=16, name="t", params={"a": 1})
    a = store.get(2, 1)  # cells x 32..47 (40..47 outside), z 16..31 (20..31 outside)
    assert calls == [(2, 1)]
    assert (a[:4, :8] == 1 + (2 + 2) % 3).all() and (a[4:] == 0).all() and (a[:, 8:] == 0).all()
    other = ChunkStore.from_generator(fn, 40, 20, chunk=16, name="t", params={"a": 2})
    assert other.fingerprint != store.fingerprint
    with pytest.raises(ConfigError, match="chunk"):
        ChunkStore.from_generator(lambda cx, cz, c: np.zeros((3, 3)), 40, 20, chunk=16,
                                  name="bad", params={}).get(0, 0)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**40), st.permutations(list(range(16))))
def test_procedural_is_order_independent_and_uniform_hints_are_true(seed: int,
                                                                    order: list[int]) -> None:
    gen = rooms(seed=seed, width=256, depth=256)
    ref = {(i % 4, i // 4): gen(i % 4, i // 4, 64) for i in range(16)}
    for i in order:
        np.testing.assert_array_equal(gen(i % 4, i // 4, 64), ref[(i % 4, i // 4)])
        u = gen.uniform_value(i % 4, i // 4, 64)
        a = ref[(i % 4, i // 4)]
        assert (u is None) == (a.min() != a.max()) or (u is not None and (a == u).all())


def test_procedural_world_is_connected_along_roads() -> None:
    gen = rooms(seed=3, width=17 * 64, depth=17 * 64)
    store = ChunkStore.from_generator(gen, gen.width, gen.depth, chunk=64, name="rooms",
                                      params=gen.params)
    cells = store.region(0, 0, gen.width - 1, gen.depth - 1)
    kinds = gen.kinds(np.tile(np.arange(17), 17), np.repeat(np.arange(17), 17))
    assert {0, 1, 2, 3} <= set(kinds.tolist())  # fields, sea, buildings, forest all occur
    labels, _ = ndimage.label(cells > 0)  # 4-connected components
    road = np.zeros_like(cells, dtype=bool)
    for c in (0, 8, 16):
        road[c * 64:(c + 1) * 64, :] = True
        road[:, c * 64:(c + 1) * 64] = True
    ids = np.unique(labels[road & (cells > 0)])
    assert ids.tolist() == [ids[0]] and ids[0] > 0  # every road cell in one component
    walk = (cells > 0).sum()
    assert (labels == ids[0]).sum() > 0.9 * walk  # nearly every walkable cell reachable
