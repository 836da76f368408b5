"""Long (unwindowed) world queries: the hierarchy gives valid, priced, never
better-than-optimal paths; small worlds and close pairs are exact."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navkit.errors import ConfigError
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
        opt = pf.find_path_cells(s, g, algorithm="astar")  # (A*'s own cells)
        a = small.find_path_cells(s, g, algorithm="astar")
        assert a.status == opt.status and a.cost_int == opt.cost_int
        assert np.array_equal(a.cells, opt.cells)
        # the whole grid lies within the 3 x 3 chunks around start and goal: exact local search
        b = region.find_path_cells(s, g, algorithm="astar")
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


# ----------------------------------------------------------- the graph itself
def _chunk_oracle(grid, box, src):
    """Pathfinder on the chunk's own sub-grid: exact in-chunk costs from ``src``."""
    x0, z0, x1, z1 = box
    walk = grid.walkable[z0:z1 + 1, x0:x1 + 1]
    w = grid.weight_array()[z0:z1 + 1, x0:x1 + 1]
    return Pathfinder(NavGrid(walk, weights=w), "seed"), (src[0] - x0, src[1] - z0)


def _patchwork(seed):
    """A grid of 16-cell chunks: uniform fields of random weight, blocked
    chunks, and mixed chunks with random walls and weights."""
    rng = np.random.default_rng(seed)
    nx, nz = (int(v) for v in rng.integers(3, 7, 2))
    walk = np.ones((nz * 16, nx * 16), bool)
    wts = np.ones((nz * 16, nx * 16), np.int32)
    for cz in range(nz):
        for cx in range(nx):
            sl = np.s_[cz * 16:(cz + 1) * 16, cx * 16:(cx + 1) * 16]
            kind = rng.integers(0, 4)
            if kind == 0:
                wts[sl] = rng.integers(1, 5)
            elif kind == 1 and rng.random() < 0.5:
                walk[sl] = False
            else:
                walk[sl] = rng.random((16, 16)) > 0.25
                wts[sl] = rng.integers(1, 4, (16, 16))
    return rng, NavGrid(walk, weights=wts)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_graph_edges_are_exact_in_chunk_costs(seed):
    """Every intra-chunk edge (analytic on uniform chunks, the chunk kernel on
    mixed ones) equals a Pathfinder's optimum on that chunk's own sub-grid;
    every border link is one straight step priced by the cell entered."""
    _, grid = _patchwork(seed)
    store = ChunkStore.from_grid(grid, chunk=16)
    world = World(store, "seed", small_world_cells=0)
    h = world.hierarchy
    wts = grid.weight_array()
    uniform_seen = 0
    for cz in range(store.nz):
        for cx in range(store.nx):
            e = h.entry(cx, cz)
            box = h.chunk_box(cx, cz)
            if store.uniform_value(cx, cz) == 0:
                assert len(e.ids) == 0
                continue
            uniform_seen += store.uniform_value(cx, cz) is not None
            for p in e.ids.tolist():
                if p in e.pos and h._ready[p] == 0:
                    h._expand_mixed(e, p)
                x, z = int(h._nx[p]), int(h._nz[p])
                pf, ls = _chunk_oracle(grid, box, (x, z))
                a0, n = int(h._adj[0, p]), int(h._adj[1, p])
                for t, c in zip(h._e_to[a0:a0 + n].tolist(), h._e_cost[a0:a0 + n].tolist(),
                                strict=True):
                    tx, tz = int(h._nx[t]), int(h._nz[t])
                    if (tx // 16, tz // 16) == (cx, cz):
                        r = pf.find_path_cells(ls, (tx - box[0], tz - box[1]))
                        assert r.status == Status.FOUND and r.cost_int == c
                    else:
                        assert abs(tx - x) + abs(tz - z) == 1
                        assert grid.walkable[tz, tx] and c == CARD * int(wts[tz, tx])
    assert uniform_seen >= 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), cap=st.sampled_from([1, 1 << 30]))
def test_patchwork_long_queries_valid_bounded_and_capped(seed, cap):
    rng, grid = _patchwork(seed)
    pf = Pathfinder(grid, "seed")
    world = World(ChunkStore.from_grid(grid, chunk=16), "seed", small_world_cells=0)
    world.hierarchy.cap_bytes = cap  # 1: the graph is dropped before every query
    free = np.argwhere(grid.walkable)
    through_graph = 0
    for _ in range(5):
        s = tuple(int(v) for v in free[rng.integers(len(free))][::-1])
        g = tuple(int(v) for v in free[rng.integers(len(free))][::-1])
        opt = pf.find_path_cells(s, g)
        r = world.find_path_cells(s, g)
        through_graph += world.last_algorithm.startswith("hierarchy")
        assert (r.status == Status.FOUND) == (opt.status == Status.FOUND)
        if r.status == Status.FOUND:
            assert opt.cost_int <= r.cost_int
            assert tuple(r.cells[0]) == s and tuple(r.cells[-1]) == g
            _check_path(grid, r)
    if cap == 1:  # every hierarchy query after the first finds the graph over the cap
        assert world.hierarchy.graph_resets >= through_graph - 1


def test_open_field_is_near_optimal_and_loads_no_uniform_chunk():
    """Open fields (uniform chunks) are never loaded, and the route through
    them stays within 3 % of Pathfinder's optimum (chunk 64: transitions at
    both ends and the middle of each open border)."""
    walk = np.ones((512, 512), bool)
    wts = np.ones((512, 512), np.int32)
    wts[:, 256:320] = 3  # a uniform band of weight 3, chunk aligned
    walk[100:140, 40:60] = False  # two mixed chunks
    grid = NavGrid(walk, weights=wts)
    pf = Pathfinder(grid, "seed")
    store = ChunkStore.from_grid(grid, chunk=64)
    world = World(store, "seed", small_world_cells=0)
    rng = np.random.default_rng(2)
    worst = 1.0
    for _ in range(20):
        s = (int(rng.integers(0, 128)), int(rng.integers(0, 512)))
        g = (int(rng.integers(384, 512)), int(rng.integers(0, 512)))
        if not (walk[s[1], s[0]] and walk[g[1], g[0]]):
            continue
        opt = pf.find_path_cells(s, g)
        r = world.find_path_cells(s, g)
        assert world.last_algorithm == "hierarchy"
        _check_path(grid, r)
        worst = max(worst, r.cost_int / opt.cost_int)
    assert worst <= 1.03
    mixed = {(x // 64, z // 64) for z in range(100, 140) for x in range(40, 60)}
    assert store.stats().loads <= len(mixed)


def _far_pairs(rng, grid, n):
    """``n`` pairs of walkable cells in different chunks (so the hierarchy runs)."""
    free = np.argwhere(grid.walkable)
    out = []
    while len(out) < n:
        s = tuple(int(v) for v in free[rng.integers(len(free))][::-1])
        g = tuple(int(v) for v in free[rng.integers(len(free))][::-1])
        if max(abs(s[0] - g[0]), abs(s[1] - g[1])) > 40:
            out.append((s, g))
    return out


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), budget=st.integers(0, 40),
       weights=st.sampled_from([(1.0, 1.5), (1.0, 1.1, 1.25, 3.0), (2.0,)]))
def test_weighted_attempts_stay_within_their_weight(seed, budget, weights):
    """An attempt that runs out of expansions hands over to the next weight; the
    route it finds costs at most that weight times the exact abstract optimum
    (weighted A* with a consistent heuristic), and refined paths stay valid."""
    rng, grid = _patchwork(seed)
    pf = Pathfinder(grid, "seed")
    exact = World(ChunkStore.from_grid(grid, chunk=16), "seed", small_world_cells=0)
    exact.hierarchy.weights = (1.0,)
    world = World(ChunkStore.from_grid(grid, chunk=16), "seed", small_world_cells=0)
    h = world.hierarchy
    h.weights, h.attempt_expansions = weights, budget
    for s, g in _far_pairs(rng, grid, 4):
        a1 = exact.hierarchy.abstract_path(s, g)
        aw = h.abstract_path(s, g)
        assert (a1 is None) == (aw is None)
        if a1 is not None and aw is not None:
            assert a1[1] <= aw[1] <= h.last_weight * a1[1]
            assert 1 <= h.last_attempts <= len(weights)
            assert h.last_weight == weights[h.last_attempts - 1]
            if h.last_attempts < len(weights):  # answered before the last weight: in budget
                assert h.last_expanded - (h.last_attempts - 1) * budget <= budget
        opt = pf.find_path_cells(s, g)
        r = world.find_path_cells(s, g)
        assert (r.status == Status.FOUND) == (opt.status == Status.FOUND)
        if r.status == Status.FOUND:
            assert opt.cost_int <= r.cost_int
            assert world.stats().last_abstract_weight == h.last_weight
            _check_path(grid, r)


def test_weighted_attempts_do_not_depend_on_the_graph_cap():
    """The attempts stop on expansion counts, never on memory: the answers (and
    the weight that gave them) are the same whether the graph is kept or
    dropped before every attempt."""
    rng, grid = _patchwork(7)
    worlds = []
    for cap in (1, 1 << 40):
        w = World(ChunkStore.from_grid(grid, chunk=16), "seed", small_world_cells=0)
        w.hierarchy.cap_bytes, w.hierarchy.attempt_expansions = cap, 150
        worlds.append(w)
    weights_seen = set()
    for s, g in _far_pairs(rng, grid, 12):
        a, b = (w.find_path_cells(s, g) for w in worlds)
        assert a.status == b.status and a.cost_int == b.cost_int
        assert np.array_equal(a.cells, b.cells)
        assert worlds[0].hierarchy.last_weight == worlds[1].hierarchy.last_weight
        weights_seen.add(worlds[0].hierarchy.last_weight)
    assert worlds[0].hierarchy.graph_resets > worlds[1].hierarchy.graph_resets == 0
    assert len(weights_seen) > 1  # the budget of 150 expansions made some queries hand over


def test_weights_must_be_at_least_one():
    world = World(ChunkStore.from_grid(NavGrid(np.ones((64, 64), bool)), chunk=16),
                  small_world_cells=0)
    for bad in ((0.5,), (), "ab", (1.0, float("nan"))):
        with pytest.raises(ConfigError, match="weights"):
            world.hierarchy.weights = bad
    world.hierarchy.weights = [1, 1.5]
    assert world.hierarchy.weights == (1.0, 1.5)
