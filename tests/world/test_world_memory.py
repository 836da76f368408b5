"""Bounded world memory (issue #17): the store's tiled cache of uniform values
and the hierarchy's graph bound keep answers identical to the uncapped run and
to answers recorded before the caches were capped."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navkit.grid import NavGrid
from navkit.world import store as store_mod
from navkit.world.procedural import rooms
from navkit.world.store import ChunkStore
from navkit.world.world import World

# Long-query answers recorded with navkit before this change (commit 5c465e4:
# uncapped-by-tile uniform cache, the old graph reset rule): start, goal, cost,
# sha1 of the int32 cells (first 12 hex digits).
ROOMS = "procedural:rooms?seed=3&width=1536&depth=1024"
ROOMS_ANSWERS = [
    ((1030, 824), (34, 827), 10018, "1ea6f222caae"),
    ((877, 418), (201, 46), 8362, "6250ea1fb993"),
    ((1, 49), (228, 1023), 10668, "786fd827b8a1"),
    ((293, 668), (1152, 240), 10438, "f2211ce664c4"),
    ((272, 919), (1225, 864), 9926, "3e56bed1cdf9"),
    ((177, 401), (964, 504), 9982, "b06206a8dd1e"),
    ((1022, 692), (1018, 62), 6368, "9ff9d021635e"),
    ((555, 900), (287, 65), 9714, "b7403e10e278"),
    ((523, 232), (836, 916), 8146, "4287071ee7c4"),
    ((1357, 893), (470, 18), 12766, "b656f9baa73d"),
    ((1195, 724), (1184, 1), 7434, "19c16b6c54f6"),
    ((58, 515), (514, 447), 6414, "f207c0866426"),
]
GRID_ANSWERS = [
    ((103, 148), (42, 94), 2834, "41dd6af1bc9c"),
    ((194, 1), (223, 146), 3934, "82450afb50ba"),
    ((126, 127), (172, 64), 2276, "9915cb060ba2"),
    ((59, 68), (154, 80), 2700, "d502c866aca1"),
    ((88, 9), (119, 129), 3756, "1ba2770cfdd1"),
    ((125, 0), (204, 103), 4062, "4e6c8248a7d8"),
    ((57, 130), (121, 94), 2198, "c270bb6fc9c8"),
    ((113, 130), (21, 94), 2840, "d229d1f298c9"),
    ((13, 29), (99, 85), 2798, "c69d92686470"),
    ((98, 148), (7, 39), 4646, "24c90e370a75"),
    ((67, 12), (184, 109), 4334, "c385fdd17852"),
    ((158, 143), (158, 59), 2446, "0e74824877e7"),
]


def _grid() -> NavGrid:
    rng = np.random.default_rng(11)
    walk = rng.random((150, 230)) > 0.3
    return NavGrid(walk, weights=rng.integers(1, 5, (150, 230)))


def _digest(cells: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(cells, dtype=np.int32).tobytes()).hexdigest()[:12]


def _answers(world: World, recorded: list) -> list[tuple[int, str]]:
    out = []
    for s, g, _, _ in recorded:
        r = world.find_path_cells(s, g)
        assert r.status.name == "FOUND"
        out.append((int(r.cost_int), _digest(r.cells)))
    return out


@pytest.mark.parametrize("which", ["rooms", "grid"])
def test_capped_caches_give_the_recorded_long_answers(which, monkeypatch):
    """Tiny caps (store LRU of 4 chunks, local blocks of one chunk, a graph
    dropped before every query, one tile of uniform values) force evictions
    everywhere; the answers equal the uncapped world's and the recorded ones."""
    recorded = ROOMS_ANSWERS if which == "rooms" else GRID_ANSWERS
    chunk = 64 if which == "rooms" else 16

    def make(cap: int, block_cap: int) -> World:
        if which == "rooms":
            store = ChunkStore.from_source(ROOMS, chunk=chunk, cap_bytes=cap)
        else:
            store = ChunkStore.from_grid(_grid(), chunk=chunk, cap_bytes=cap)
        return World(store, "seed", small_world_cells=0, block_cap_bytes=block_cap)

    expect = [(cost, digest) for _, _, cost, digest in recorded]
    free = make(1 << 30, 1 << 30)
    free.hierarchy.cap_bytes = 1 << 40
    assert _answers(free, recorded) == expect
    assert free.hierarchy.graph_resets == 0

    monkeypatch.setattr(store_mod, "UNIFORM_TILES", 1)
    tight = make(4 * chunk * chunk * 2, chunk * chunk * 2)
    tight.hierarchy.cap_bytes = 1
    assert _answers(tight, recorded) == expect
    h = tight.hierarchy
    assert h.graph_resets >= len(recorded) - 1  # dropped before every query but the first
    s = tight.store.stats()
    assert s.evictions > 0 and s.resident_bytes <= 4 * chunk * chunk * 2
    assert tight.local.blocks_dropped > 0


def test_graph_reset_keeps_room_for_the_next_query():
    """A graph holding less than one query's growth below its cap is dropped
    before the next query (rebuilt to the same size, same answer); one with
    room to spare is kept and reused (nothing built)."""
    s, g, cost, digest = ROOMS_ANSWERS[3]
    for factor, resets in ((1.5, 1), (3.0, 0)):
        world = World(ChunkStore.from_source(ROOMS, chunk=64), "seed", small_world_cells=0)
        h = world.hierarchy
        h.cap_bytes = 1 << 40
        empty = h.graph_bytes
        world.find_path_cells(s, g)
        one = h.graph_bytes
        h.cap_bytes = one + int((one - empty) * (factor - 1.0))
        r = world.find_path_cells(s, g)
        assert (r.cost_int, _digest(r.cells)) == (cost, digest)
        assert h.graph_resets == resets
        if resets:
            assert h.graph_bytes == one and h.last_entries_built > 0
        else:
            assert h.last_entries_built == 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), tiles=st.integers(1, 3))
def test_tiled_uniform_values_match_the_cells(seed, tiles):
    """``uniform_value`` from the tiled cache equals the chunk's own cells
    (min == max; edge chunks only when all blocked), in random access order,
    with a tile cap small enough to evict."""
    rng = np.random.default_rng(seed)
    c = 16
    nx, nz = (int(v) for v in rng.integers(17, 26, 2))
    width, depth = nx * c - int(rng.integers(0, c)), nz * c - int(rng.integers(0, c))
    # per chunk: blocked, open with weight 1 or 3, or mixed
    kinds = rng.integers(0, 4, (nz, nx))
    cells = np.zeros((nz * c, nx * c), dtype=np.int64)
    for cz in range(nz):
        for cx in range(nx):
            k = kinds[cz, cx]
            blk = cells[cz * c:(cz + 1) * c, cx * c:(cx + 1) * c]
            blk[...] = (0, 1, 3)[k] if k < 3 else rng.integers(0, 3, (c, c))
    cells = cells[:depth, :width]
    grid = NavGrid(cells > 0, weights=np.maximum(cells, 1))
    old = store_mod.UNIFORM_TILES
    store_mod.UNIFORM_TILES = tiles
    try:
        store = ChunkStore.from_grid(grid, chunk=c)
        order = rng.permutation(nx * nz)[:150]
        for i in order.tolist():
            cx, cz = i % nx, i // nx
            full = np.zeros((c, c), dtype=np.int64)
            part = cells[cz * c:(cz + 1) * c, cx * c:(cx + 1) * c]
            full[:part.shape[0], :part.shape[1]] = np.where(part > 0, np.maximum(part, 1), 0)
            lo, hi = int(full.min()), int(full.max())
            assert store.uniform_value(cx, cz) == (lo if lo == hi else None)
    finally:
        store_mod.UNIFORM_TILES = old


def test_tiled_uniform_values_match_the_generator(monkeypatch):
    """On a procedural source, each chunk's cached value equals the
    generator's own one-chunk answer."""
    monkeypatch.setattr(store_mod, "UNIFORM_TILES", 2)
    gen = rooms(seed=5, width=2000, depth=1500)
    store = ChunkStore.from_source("procedural:rooms?seed=5&width=2000&depth=1500", chunk=64)
    rng = np.random.default_rng(3)
    for _ in range(300):
        cx, cz = int(rng.integers(0, store.nx)), int(rng.integers(0, store.nz))
        v = gen.uniform_value(cx, cz, 64)
        edge = (cx + 1) * 64 > 2000 or (cz + 1) * 64 > 1500
        assert store.uniform_value(cx, cz) == (None if edge and v != 0 else v)
