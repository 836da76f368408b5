"""Edits go through the store, invalidate only the touched chunks' caches,
and later queries equal a fresh Pathfinder on the edited grid."""

from __future__ import annotations

import numpy as np

from navkit.grid import NavGrid
from navkit.query.pathfinder import Pathfinder
from navkit.results import Status
from navkit.world.store import ChunkStore
from navkit.world.world import World


def test_local_query_after_edit_equals_fresh_pathfinder():
    rng = np.random.default_rng(7)
    walk = rng.random((96, 96)) > 0.25
    walk[0, 0] = True
    grid = NavGrid(walk)
    world = World(ChunkStore.from_grid(grid, chunk=32))
    win = (0, 0, 95, 95)
    world.find_path_cells((0, 0), (60, 60), window=win, nearest=True)
    far = world.find_path_cells((70, 70), (80, 80), window=(64, 64, 95, 95))
    built = world.stats().blocks_built
    cells = rng.integers(0, 40, (30, 2))
    touched = world.set_walkable(cells, False)
    assert touched == sorted({(int(x) // 32, int(z) // 32) for x, z in cells})
    w2 = walk.copy()
    w2[cells[:, 1], cells[:, 0]] = False
    w2[0, 0] = True
    world.set_walkable([[0, 0]], True)
    pf = Pathfinder(NavGrid(w2))
    for s, g in [((0, 0), (60, 60)), ((5, 5), (90, 3)), ((2, 50), (50, 2))]:
        a = pf.find_path_cells(s, g, window=win, nearest=True)
        b = world.find_path_cells(s, g, window=win, nearest=True)
        assert (a.status, a.cost_int, a.expanded) == (b.status, b.cost_int, b.expanded)
        assert np.array_equal(a.cells, b.cells)
    # the untouched chunk's block survives: no rebuild for it
    before = world.stats().blocks_built
    again = world.find_path_cells((70, 70), (80, 80), window=(64, 64, 95, 95))
    assert world.stats().blocks_built == before and again.cost_int == far.cost_int
    assert built <= before


def test_weighted_edit_and_hierarchy_invalidation():
    grid = NavGrid(np.ones((128, 128), bool))
    world = World(ChunkStore.from_grid(grid, chunk=32), small_world_cells=0)
    r0 = world.find_path_cells((2, 2), (125, 125))
    assert r0.status == Status.FOUND
    n_cached = world.stats().graph_entries_cached
    assert n_cached > 0
    # a wall across the diagonal inside chunk (1, 1) only
    wall = np.array([(x, 50) for x in range(32, 64)])
    world.set_walkable(wall, False)
    st = world.stats()
    # (1, 1) and its four neighbours dropped at most; the rest survive
    assert st.graph_entries_cached >= n_cached - 5
    r1 = world.find_path_cells((2, 2), (125, 125))
    walk = np.ones((128, 128), bool)
    walk[50, 32:64] = False
    opt = Pathfinder(NavGrid(walk)).find_path_cells((2, 2), (125, 125))
    assert r1.status == Status.FOUND and r1.cost_int >= opt.cost_int
    assert not np.any(np.all(r1.cells[:, None, :] == wall[None, :, :], axis=2))
    # weights: a costly band; the windowed answer matches a fresh Pathfinder
    band = np.array([(x, z) for x in range(60, 70) for z in range(0, 128)])
    world.set_cells(band, 9)
    wts = np.ones((128, 128), np.int32)
    wts[:, 60:70] = 9
    pf = Pathfinder(NavGrid(walk, weights=wts))
    a = pf.find_path_cells((50, 10), (80, 12), window=(40, 0, 100, 40))
    b = world.find_path_cells((50, 10), (80, 12), window=(40, 0, 100, 40))
    assert (a.status, a.cost_int) == (b.status, b.cost_int)
    assert np.array_equal(a.cells, b.cells)
