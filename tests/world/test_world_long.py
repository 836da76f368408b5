"""Long (unwindowed) world queries: the hierarchy gives valid, priced, never
better-than-optimal paths; small worlds and close pairs are exact."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from navkit.grid import NavGrid
from navkit.query.pathfinder import Pathfinder
from navkit.results import Status
from navkit.world.store import ChunkStore
from navkit.world.world import World

CARD, DIAG = 10, 14


def _check_path(grid, r):
    """Every step legal (corner rule), cost = sum of step costs."""
    walk = grid.walkable
    w = grid.weight_array()
    cells = r.cells
    cost = 0
    for (x0, z0), (x1, z1) in zip(cells[:-1].tolist(), cells[1:].tolist(), strict=True):
        dx, dz = x1 - x0, z1 - z0
        assert max(abs(dx), abs(dz)) == 1
        assert walk[z1, x1]
        if dx and dz:
            assert walk[z0, x1] and walk[z1, x0]
            cost += DIAG * int(w[z1, x1])
        else:
            cost += CARD * int(w[z1, x1])
    assert cost == r.cost_int


def _grid(seed, weighted):
    rng = np.random.default_rng(seed)
    w, d = (int(v) for v in rng.integers(20, 110, 2))
    walk = rng.random((d, w)) > rng.uniform(0, 0.35)
    wts = rng.integers(1, 5, (d, w)) if weighted else None
    return rng, NavGrid(walk, weights=wts)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), weighted=st.booleans())
def test_hierarchy_paths_valid_and_never_below_optimal(seed, weighted):
    rng, grid = _grid(seed, weighted)
    pf = Pathfinder(grid, "seed")
    world = World(ChunkStore.from_grid(grid, chunk=16), "seed", small_world_cells=0)
    free = np.argwhere(grid.walkable)
    for _ in range(6):
        s = tuple(int(v) for v in free[rng.integers(len(free))][::-1])
        g = tuple(int(v) for v in free[rng.integers(len(free))][::-1])
        opt = pf.find_path_cells(s, g)
        r = world.find_path_cells(s, g)
        assert (r.status == Status.FOUND) == (opt.status == Status.FOUND)
        if r.status == Status.FOUND:
            assert r.cost_int >= opt.cost_int
            assert tuple(r.cells[0]) == s and tuple(r.cells[-1]) == g
            _check_path(grid, r)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), weighted=st.booleans())
def test_small_world_and_one_region_are_exact(seed, weighted):
    rng, grid = _grid(seed, weighted)
    pf = Pathfinder(grid, "seed")
    small = World(ChunkStore.from_grid(grid, chunk=16), "seed")  # whole-world Pathfinder
    region = World(ChunkStore.from_grid(grid, chunk=64), "seed", small_world_cells=0)
    free = np.argwhere(grid.walkable)
    for _ in range(5):
        s = tuple(int(v) for v in free[rng.integers(len(free))][::-1])
        g = tuple(int(v) for v in free[rng.integers(len(free))][::-1])
        opt = pf.find_path_cells(s, g)
        a = small.find_path_cells(s, g)
        assert a.status == opt.status and a.cost_int == opt.cost_int
        assert np.array_equal(a.cells, opt.cells)
        # the whole grid lies within the 3 x 3 chunks around start and goal: exact local search
        b = region.find_path_cells(s, g)
        assert b.status == opt.status and b.cost_int == opt.cost_int
        assert np.array_equal(b.cells, opt.cells)


def test_cross_world_long_query_on_a_maze_like_world():
    rng = np.random.default_rng(3)
    walk = np.ones((256, 256), bool)
    for k in range(16, 256, 32):  # walls with gaps
        walk[k, :] = False
        walk[k, rng.integers(0, 256, 4)] = True
    grid = NavGrid(walk)
    pf = Pathfinder(grid)
    world = World(ChunkStore.from_grid(grid, chunk=32), small_world_cells=0)
    opt = pf.find_path_cells((3, 3), (250, 250))
    r = world.find_path_cells((3, 3), (250, 250))
    assert r.status == Status.FOUND and world.last_algorithm == "hierarchy"
    _check_path(grid, r)
    assert opt.cost_int <= r.cost_int <= 1.2 * opt.cost_int
    assert world.stats().graph_entries_cached > 0
    # unreachable goal (walled in)
    walk2 = walk.copy()
    walk2[200:210, 200] = walk2[200:210, 209] = False
    walk2[200, 200:210] = walk2[209, 200:210] = False
    w2 = World(ChunkStore.from_grid(NavGrid(walk2), chunk=32), small_world_cells=0)
    assert w2.find_path_cells((3, 3), (205, 205)).status == Status.UNREACHABLE


def test_long_world_query_with_obstacles_refines_around_them():
    grid = NavGrid(np.ones((200, 200), bool))
    world = World(ChunkStore.from_grid(grid, chunk=32), small_world_cells=0)
    obs = np.array([[100.5, 100.5, 6.0]])
    r = world.find_path((2.5, 2.5), (197.5, 197.5), obstacles=obs, smooth=False)
    assert r.status == Status.FOUND
    c = r.cells.astype(float) + 0.5
    assert np.all(np.hypot(c[:, 0] - 100.5, c[:, 1] - 100.5) > 6.0)
    _check_path(grid, r)
