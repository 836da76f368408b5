"""World local (windowed) queries equal Pathfinder's on the whole grid."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navkit.errors import ConfigError
from navkit.grid import NavGrid
from navkit.query.pathfinder import Pathfinder
from navkit.results import Status
from navkit.world.local import BOUNDED, QueryPreset, preset_window
from navkit.world.store import ChunkStore
from navkit.world.world import World


def _same(a, b):
    assert a.status == b.status
    assert a.cost_int == b.cost_int
    assert a.expanded == b.expanded
    assert np.array_equal(a.cells, b.cells)


def _grid(seed, weighted):
    rng = np.random.default_rng(seed)
    w, d = (int(v) for v in rng.integers(5, 70, 2))
    walk = rng.random((d, w)) > rng.uniform(0, 0.45)
    wts = rng.integers(2 if seed % 3 == 0 else 1, 6, (d, w)) if weighted else None
    return rng, NavGrid(walk, weights=wts, cell_size=float(rng.choice([1.0, 0.4])),
                        min_x=float(rng.uniform(-5, 5)), min_z=float(rng.uniform(-5, 5)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), weighted=st.booleans(), eight=st.booleans())
def test_windowed_cell_queries_equal_pathfinder(seed, weighted, eight):
    rng, grid = _grid(seed, weighted)
    conn = 8 if eight else 4
    pf = Pathfinder(grid, "seed", connectivity=conn)
    world = World(ChunkStore.from_grid(grid, chunk=16), "seed", connectivity=conn)
    W, D = grid.width, grid.depth
    for _ in range(8):
        s = (int(rng.integers(0, W)), int(rng.integers(0, D)))
        g = (int(rng.integers(0, W)), int(rng.integers(0, D)))
        x0, z0 = int(rng.integers(-4, W)), int(rng.integers(-4, D))
        win = (x0, z0, x0 + int(rng.integers(0, 40)), z0 + int(rng.integers(0, 40)))
        nearest = bool(rng.random() < 0.5)
        budget = int(rng.integers(1, 300)) if rng.random() < 0.3 else None
        obs = None
        if rng.random() < 0.4:
            obs = np.column_stack([rng.uniform(grid.min_x, grid.max_x, 3),
                                   rng.uniform(grid.min_z, grid.max_z, 3),
                                   rng.uniform(0, 3 * grid.cell_size, 3)])
        algo = "dijkstra" if rng.random() < 0.2 else "astar"
        a = pf.find_path_cells(s, g, window=win, nearest=nearest, budget=budget,
                               obstacles=obs, algorithm=algo)
        b = world.find_path_cells(s, g, window=win, nearest=nearest, budget=budget,
                                  obstacles=obs, algorithm=algo)
        _same(a, b)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), weighted=st.booleans())
def test_windowed_world_queries_equal_pathfinder(seed, weighted):
    rng, grid = _grid(seed, weighted)
    pf = Pathfinder(grid, "seed", snap_radius=3.0)
    world = World(ChunkStore.from_grid(grid, chunk=16), "seed", snap_radius=3.0)
    lo = np.array([grid.min_x - 2, grid.min_z - 2])
    hi = np.array([grid.max_x + 2, grid.max_z + 2])
    for _ in range(6):
        sp = tuple(float(v) for v in rng.uniform(lo, hi))
        ep = tuple(float(v) for v in rng.uniform(lo, hi))
        x0, z0 = int(rng.integers(-4, grid.width)), int(rng.integers(-4, grid.depth))
        win = (x0, z0, x0 + int(rng.integers(5, 45)), z0 + int(rng.integers(5, 45)))
        nearest = bool(rng.random() < 0.5)
        smooth = bool(rng.random() < 0.5)
        obs = None
        if rng.random() < 0.4:
            obs = np.column_stack([rng.uniform(lo[0], hi[0], 2), rng.uniform(lo[1], hi[1], 2),
                                   rng.uniform(0, 2.0, 2)])
        a = pf.find_path(sp, ep, window=win, nearest=nearest, smooth=smooth, obstacles=obs,
                         algorithm="astar")
        b = world.find_path(sp, ep, window=win, nearest=nearest, smooth=smooth, obstacles=obs,
                            algorithm="astar")
        _same(a, b)
        assert np.allclose(a.waypoints, b.waypoints, rtol=0, atol=1e-9)


def test_blocked_endpoints_and_edges():
    walk = np.ones((40, 40), bool)
    walk[10, 10] = False
    grid = NavGrid(walk)
    world = World(ChunkStore.from_grid(grid, chunk=16))
    pf = Pathfinder(grid)
    for s, g, win in [((10, 10), (3, 3), (0, 0, 20, 20)), ((3, 3), (10, 10), (0, 0, 20, 20)),
                      ((0, 0), (39, 39), (0, 0, 39, 39)), ((39, 0), (30, 9), (25, -5, 45, 12))]:
        _same(pf.find_path_cells(s, g, window=win), world.find_path_cells(s, g, window=win))
    assert world.find_path_cells((10, 10), (3, 3), window=(0, 0, 9, 9)).status == Status.NO_START
    assert world.find_path_cells((3, 3), (10, 10), window=(0, 0, 9, 9)).status == Status.NO_GOAL


def test_goal_outside_window_is_window_exhausted():
    grid = NavGrid(np.ones((64, 64), bool))
    world = World(ChunkStore.from_grid(grid, chunk=16))
    r = world.find_path_cells((2, 2), (60, 60), window=(0, 0, 10, 10))
    assert r.status == Status.WINDOW_EXHAUSTED
    r = world.find_path_cells((2, 2), (60, 60), window=(0, 0, 10, 10), nearest=True)
    assert r.status == Status.NEAREST and r.end_cell == (10, 10)


def test_bounded_preset():
    assert BOUNDED == QueryPreset(window=38, budget=1000)
    assert preset_window(38, (0, 0), (10, 4)) == (-13, -16, 24, 21)
    rng = np.random.default_rng(5)
    walk = rng.random((128, 128)) > 0.3
    grid = NavGrid(walk)
    world = World(ChunkStore.from_grid(grid, chunk=32))
    pf = Pathfinder(grid)
    for _ in range(30):
        s = tuple(int(v) for v in rng.integers(0, 128, 2))
        g = tuple(int(v) for v in rng.integers(0, 128, 2))
        a = pf.find_path_cells(s, g, window=BOUNDED.window_for(s, g), budget=1000)
        b = world.find_path_cells(s, g, preset="bounded")
        _same(a, b)
    with pytest.raises(ConfigError):
        world.find_path_cells((0, 0), (1, 1), preset="nope")


def test_local_query_touches_only_window_chunks():
    grid = NavGrid(np.ones((256, 256), bool))
    store = ChunkStore.from_grid(grid, chunk=32)
    world = World(store)
    r = world.find_path_cells((40, 40), (50, 45), window=(36, 36, 60, 60))
    assert r.status == Status.FOUND
    assert world.stats().last_chunks_touched == 1
    r = world.find_path_cells((20, 40), (50, 45), window=(20, 36, 60, 60))
    assert world.stats().last_chunks_touched == 2


def test_record_hook_logs_effective_options():
    from navkit.corpus.record import options_dict

    class Rec:
        def __init__(self):
            self.calls = []

        def log(self, kind, **kw):
            self.calls.append((kind, kw))

    rec = Rec()
    world = World(ChunkStore.from_grid(NavGrid(np.ones((64, 64), bool)), chunk=16), record=rec)
    world.find_path_cells((1, 1), (9, 5), preset="bounded")
    world.find_path_to_nearest((1.5, 1.5), (9.5, 5.5), window=(0, 0, 20, 20))
    (k1, a), (k2, b) = rec.calls
    assert (k1, k2) == ("find_path_cells", "find_path_to_nearest")
    assert a["options"]["window"] == list(BOUNDED.window_for((1, 1), (9, 5)))
    assert a["options"]["budget"] == 1000 and b["options"]["nearest"] is True
    ref = options_dict(world.costs, 8, algorithm="astar", smooth=False, nearest=False,
                       budget=1000, window=(0, 0, 1, 1), snap_radius=8.0)
    assert set(a["options"]) == set(ref)
    assert a["result"].status == Status.FOUND and a["seconds"] >= 0
