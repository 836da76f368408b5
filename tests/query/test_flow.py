"""Flow fields (navkit.query.flow) checked against oracles they did not produce.

Costs come from scipy's Dijkstra on the move graph of tests/reference.py,
reversed (a flow field holds the cost of walking *to* the goals); following
the directions is re-validated and re-costed cell by cell; the tie-break is
checked by brute force over each cell's neighbours; a partial update is
compared with a fresh build on the same map. Hypothesis runs derandomized.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

import navkit
from navkit import ConfigError, FlowField, FlowFieldCache, NavGrid, Pathfinder, QueryError
from navkit._kernels import flow as _k
from navkit.query.flow import DIRECTION_OFFSETS, DIRECTION_UNIT, GOAL, NONE, FlowBuffers
from tests.conftest import NAMED_COSTS, fixed
from tests.jitcheck import assert_same_without_jit
from tests.reference import grid_graph, is_valid_path, path_cost


# --------------------------------------------------------------------------- oracles
def reference_field(walk: np.ndarray, weights: np.ndarray | None, goals: np.ndarray,
                    card: int, diag: int, eight: bool) -> np.ndarray:
    """Cost of walking from every cell to the nearest goal (float, inf = no route), by scipy."""
    depth, width = walk.shape
    # reversed: sources are the goals
    graph = grid_graph(walk, weights, card, diag, eight).T.tocsr()
    src = np.unique([z * width + x for x, z in goals if walk[z, x]])
    if len(src) == 0:
        return np.full(walk.shape, np.inf)
    return np.asarray(dijkstra(graph, directed=True, indices=src,
                               min_only=True)).reshape(depth, width)


def brute_direction(walk: np.ndarray, weights: np.ndarray | None,
                    ref: np.ndarray, goals: set[tuple[int, int]], card: int,
                    diag: int, eight: bool, x: int, z: int) -> int:
    """The documented rule: goal -> GOAL; no route -> NONE; else the lowest code whose
    legal move reaches a goal at exactly this cell's cost."""
    if not np.isfinite(ref[z, x]):
        return NONE
    if (x, z) in goals:
        return GOAL
    depth, width = walk.shape
    for code, (dx, dz) in enumerate(DIRECTION_OFFSETS[: 8 if eight else 4]):
        nx, nz = x + int(dx), z + int(dz)
        if not (0 <= nx < width and 0 <= nz < depth and walk[nz, nx]):
            continue
        if code >= 4 and not (walk[z, nx] and walk[nz, x]):
            continue
        w = 1 if weights is None else int(weights[nz, nx])
        if (card if code < 4 else diag) * w + ref[nz, nx] == ref[z, x]:
            return code
    raise AssertionError(f"no neighbour achieves the cost of ({x}, {z})")


# --------------------------------------------------------------------------- strategies
@st.composite
def scene(draw: st.DrawFn, max_side: int = 12) -> dict[str, object]:
    depth = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    density = draw(st.sampled_from([0.0, 0.15, 0.3, 0.45]))
    walk = rng.random((depth, width)) >= density
    weighted = draw(st.booleans())
    weights = (rng.integers(1, draw(st.sampled_from([2, 4, 9])), size=(depth, width))
               if weighted else None)
    k = draw(st.integers(1, 3))
    goals = np.stack([rng.integers(0, width, k), rng.integers(0, depth, k)], axis=1)
    return {
        "walk": walk,
        "weights": weights,
        "goals": goals,
        "costs": draw(st.sampled_from(["seed", "exact"])),
        "eight": draw(st.booleans()) or draw(st.booleans()),  # mostly 8-connected
        "queue": draw(st.sampled_from(["auto", "buckets", "heap"])),
        "seed": seed,
    }


def build(sc: dict[str, object]) -> tuple[FlowField, NavGrid]:
    grid = NavGrid(sc["walk"], weights=sc["weights"])
    ff = FlowField(grid, sc["costs"], connectivity=8 if sc["eight"] else 4, queue=sc["queue"])
    return ff.build(sc["goals"]), grid


# --------------------------------------------------------------------------- exactness
@fixed(300)
@given(scene())
def test_descent_reaches_a_goal_at_the_dijkstra_cost(sc: dict[str, object]) -> None:
    """From every reachable cell, following the directions is a legal walk that ends
    on a goal having paid exactly the cell's cost, which is scipy's Dijkstra cost."""
    ff, grid = build(sc)
    walk = np.asarray(sc["walk"])
    card, diag = NAMED_COSTS[str(sc["costs"])]
    eight = bool(sc["eight"])
    ref = reference_field(walk, grid.weights, np.asarray(sc["goals"]), card, diag, eight)
    note(f"walk=\n{walk.astype(int)}\ngoals={np.asarray(sc['goals']).tolist()}")
    got = np.where(ff.cost_int < 0, np.inf, ff.cost_int.astype(np.float64))
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(ff.cost, ref / card)
    goals = {(int(x), int(z)) for x, z in np.asarray(sc["goals"])}
    for z, x in zip(*np.nonzero(np.isfinite(ref)), strict=True):
        chain = ff.follow((x, z))
        assert tuple(chain[0]) == (x, z)
        assert tuple(chain[-1]) in goals
        assert is_valid_path(walk, chain, eight=eight)
        assert path_cost(chain, grid.weights, card, diag) == ff.cost_int[z, x] == ref[z, x]
    assert ff.reached == int(np.isfinite(ref).sum())


@fixed(200)
@given(scene(max_side=9))
def test_directions_follow_the_documented_tie_break(sc: dict[str, object]) -> None:
    ff, grid = build(sc)
    walk = np.asarray(sc["walk"])
    card, diag = NAMED_COSTS[str(sc["costs"])]
    eight = bool(sc["eight"])
    ref = reference_field(walk, grid.weights, np.asarray(sc["goals"]), card, diag, eight)
    goals = {(int(x), int(z)) for x, z in np.asarray(sc["goals"]) if walk[z, x]}
    expect = np.array([[brute_direction(walk, grid.weights, ref, goals, card, diag, eight, x, z)
                        for x in range(walk.shape[1])] for z in range(walk.shape[0])],
                      dtype=np.int8)
    np.testing.assert_array_equal(ff.direction, expect)


@fixed(100)
@given(scene(max_side=10))
def test_bucket_and_heap_queues_agree(sc: dict[str, object]) -> None:
    grid = NavGrid(sc["walk"], weights=sc["weights"])
    fields = [FlowField(grid, sc["costs"], queue=q).build(sc["goals"]) for q in ("buckets", "heap")]
    np.testing.assert_array_equal(fields[0].cost_int, fields[1].cost_int)
    np.testing.assert_array_equal(fields[0].direction, fields[1].direction)


def test_unreachable_and_blocked_cells() -> None:
    walk = np.ones((5, 7), dtype=bool)
    walk[:, 3] = False  # a wall splits the map
    ff = FlowField(NavGrid(walk)).build([(0, 0)])
    assert np.all(ff.direction[:, 4:] == NONE) and np.all(ff.direction[:, 3] == NONE)
    assert np.all(np.isinf(ff.cost[:, 3:])) and np.all(ff.cost_int[:, 3:] == -1)
    assert ff.next_cell(5, 2) is None and ff.follow((5, 2)).shape == (0, 2)
    assert ff.direction[0, 0] == GOAL and ff.next_cell(0, 0) == (0, 0)
    assert ff.follow((0, 0)).tolist() == [[0, 0]]
    assert ff.reached == 15


def test_blocked_goal_is_ignored_until_freed() -> None:
    walk = np.ones((4, 4), dtype=bool)
    walk[0, 0] = False
    pf = Pathfinder(NavGrid(walk))
    ff = FlowField(pf).build([(0, 0), (3, 3)])
    assert ff.direction[0, 0] == NONE and ff.direction[3, 3] == GOAL
    assert ff.cost_int[0, 1] == 38  # (1, 0) -> (3, 3): two diagonals and a straight step
    # a goal that is blocked only by an obstacle counts again once the obstacle leaves
    ff2 = FlowField(pf).build([(3, 3)], obstacles=[[3.5, 3.5, 0.3]])
    assert ff2.reached == 0
    up = ff2.update(obstacles=None)
    assert up.freed == 1 and ff2.direction[3, 3] == GOAL and ff2.reached == 15


def test_agrees_with_pathfinder_distance_field_when_unweighted() -> None:
    """Without weights walking to and from the goals cost the same, so the
    integration field equals the Pathfinder's distance field."""
    rng = np.random.default_rng(11)
    walk = rng.random((40, 53)) < 0.7
    grid = NavGrid(walk)
    goals = np.array([[3, 4], [50, 30], [20, 20]])
    for costs in ("seed", "exact"):
        pf = Pathfinder(grid, costs)
        ff = FlowField(pf).build(goals)
        np.testing.assert_array_equal(ff.cost_int,
                                      pf.distance_field_int(goals[walk[goals[:, 1], goals[:, 0]]]))


def test_a_larger_map_against_scipy() -> None:
    rng = np.random.default_rng(3)
    walk = rng.random((90, 120)) < 0.72
    weights = rng.integers(1, 6, size=walk.shape)
    goals = np.array([[5, 5], [100, 70]])
    for w in (None, weights):
        grid = NavGrid(walk, weights=w)
        for costs, (card, diag) in NAMED_COSTS.items():
            ff = FlowField(grid, costs).build(goals)
            ref = reference_field(walk, grid.weights, goals, card, diag, True)
            np.testing.assert_array_equal(np.where(ff.cost_int < 0, np.inf, ff.cost_int), ref)


def test_wide_weights_pick_the_heap() -> None:
    walk = np.ones((6, 6), dtype=bool)
    w = np.ones((6, 6), dtype=np.int32)
    w[2, :] = 60000
    grid = NavGrid(walk, weights=w)
    assert FlowField(grid).queue == "heap"
    assert FlowField(NavGrid(walk)).queue == "buckets"
    a = FlowField(grid).build([(0, 0)])
    b = FlowField(grid, queue="buckets").build([(0, 0)])
    np.testing.assert_array_equal(a.cost_int, b.cost_int)
    np.testing.assert_array_equal(a.direction, b.direction)


# --------------------------------------------------------------------------- partial update
@st.composite
def update_scene(draw: st.DrawFn) -> dict[str, object]:
    sc = draw(scene(max_side=11))
    rng = np.random.default_rng(int(sc["seed"]) ^ 0x5EED)
    depth, width = np.asarray(sc["walk"]).shape

    def circles() -> np.ndarray:
        m = int(rng.integers(0, 5))
        return np.stack([rng.integers(0, width, m) + 0.5, rng.integers(0, depth, m) + 0.5,
                         rng.choice([0.3, 0.8, 1.2, 1.6], m)], axis=1)

    sc["steps"] = [(circles(), draw(st.sampled_from(["none", "box", "mask", "occupant", "keep"])))
                   for _ in range(draw(st.integers(1, 4)))]
    sc["first"] = circles()
    return sc


@fixed(250)
@given(update_scene())
def test_partial_update_equals_a_full_rebuild(sc: dict[str, object]) -> None:
    """Cells blocked and freed by moving obstacles and occupants: the repaired
    field equals a fresh build, costs and tie-breaks included."""
    grid = NavGrid(sc["walk"], weights=sc["weights"])
    pf = Pathfinder(grid, str(sc["costs"]), connectivity=8 if sc["eight"] else 4)
    ff = FlowField(pf, queue=str(sc["queue"])).build(sc["goals"], obstacles=sc["first"])
    circles = sc["first"]
    handles: list[int] = []
    for step, (new, how) in enumerate(sc["steps"]):
        if how == "none":
            ff.update(obstacles=new)
            circles = new
        elif how == "box":
            ff.update((-3, -3, grid.width + 3, grid.depth + 3), obstacles=new)
            circles = new
        elif how == "mask":
            ff.update(np.ones(grid.shape, dtype=bool), obstacles=new)
            circles = new
        elif how == "occupant":
            if handles and step % 2:
                pf.remove_occupant(handles.pop())
            else:
                handles.append(pf.add_occupant(float(new[0, 0]) if len(new) else 0.5, 0.5, 0.7))
            ff.update()
        else:
            ff.update()
        fresh = FlowField(pf, queue="buckets").build(sc["goals"],
                                                     obstacles=circles if len(circles) else None)
        np.testing.assert_array_equal(ff.cost_int, fresh.cost_int)
        np.testing.assert_array_equal(ff.direction, fresh.direction)
        assert ff.reached == fresh.reached


def test_update_is_local() -> None:
    """A small obstacle on a big open map recomputes few cells."""
    grid = NavGrid(np.ones((200, 200), dtype=bool))
    ff = FlowField(grid, "exact").build([(10, 10)])
    up = ff.update((140, 140, 160, 160), obstacles=[[150.5, 150.5, 2.0]])
    assert up.blocked == 13 and up.freed == 0
    assert 0 < up.invalidated < 5000 and up.expanded < 5000  # of 40,000 cells: the shadow behind it
    up = ff.update((140, 140, 160, 160), obstacles=None)
    assert up.freed == 13 and up.expanded < 5000
    fresh = FlowField(grid, "exact").build([(10, 10)])
    np.testing.assert_array_equal(ff.cost_int, fresh.cost_int)
    np.testing.assert_array_equal(ff.direction, fresh.direction)
    assert ff.update().blocked == 0  # nothing changed


def test_bucket_pool_compaction() -> None:
    """Superseded entries are dropped and their chunks handed back; the slot
    being consumed is left alone."""
    ch, nb = 2, 3
    ws = FlowBuffers(64, chunk=ch)
    ent, cnext, meta = ws.pool(nb)
    bhead = np.full(nb, -1, np.int32)
    btail = np.full(nb, -1, np.int32)
    bfill = np.zeros(nb, np.int32)
    pk = np.full(64, _k.UNREACHED, np.int64)
    width, k, cs = 10, 5, 0

    def push(slot: int, q: int) -> None:  # what run_buckets does inline
        t, f = btail[slot], bfill[slot]
        if t < 0 or f == ch:
            c = int(meta[0])
            meta[0] = cnext[c]
            meta[1] -= 1
            cnext[c] = -1
            if t < 0:
                bhead[slot] = c
            else:
                cnext[t] = c
            btail[slot] = t = c
            f = 0
        ent[t * ch + f] = q
        bfill[slot] = f + 1

    # slot 1 holds bucket 6, costs [60, 70): nodes 1..5 wait there; 2 was
    # expanded from an earlier bucket since (settled), 4 moved to bucket 7
    for q in range(1, 6):
        cost = {2: 41, 4: 75}.get(q, 61)
        pk[q] = (cost << _k.SHIFT) | (1 << 1) | (_k.SETTLED if q == 2 else 0)
        push(1, q)
    push(0, 9)  # the slot being consumed
    free_before = int(meta[1])
    dropped = _k._compact_pool(ent, cnext, bhead, btail, bfill, meta, pk, k, cs, width, nb)
    assert dropped == 2
    kept = []
    c = bhead[1]
    while c >= 0:
        m = bfill[1] if c == btail[1] else ch
        kept += ent[c * ch: c * ch + m].tolist()
        c = cnext[c]
    assert kept == [1, 3, 5]
    assert int(meta[1]) == free_before + 1  # three chunks held five entries, two hold three
    assert bhead[0] >= 0 and ent[bhead[0] * ch] == 9


@pytest.mark.parametrize("chunks", [14, 40, 60, 400])
def test_tight_bucket_pool(chunks: int) -> None:
    """One-entry chunks and a pool far below the bound: compaction keeps the
    search going, and when even that is not enough the field is rebuilt on the
    heap. Either way the answer is the same."""
    rng = np.random.default_rng(3)
    walk = rng.random((24, 24)) < 0.8
    w = rng.integers(1, 9, size=walk.shape)
    for weights in (None, w):
        grid = NavGrid(walk, weights=weights)
        ws = FlowBuffers(26 * 26, chunk=1, chunks=chunks)
        ff = FlowField(grid, queue="buckets", buffers=ws).build([(3, 3), (20, 17)])
        ref = FlowField(grid, queue="heap").build([(3, 3), (20, 17)])
        np.testing.assert_array_equal(ff.cost_int, ref.cost_int)
        np.testing.assert_array_equal(ff.direction, ref.direction)
        ff.update(obstacles=[[10.5, 10.5, 3.0]])
        ref.update(obstacles=[[10.5, 10.5, 3.0]])
        np.testing.assert_array_equal(ff.cost_int, ref.cost_int)
        np.testing.assert_array_equal(ff.direction, ref.direction)
        assert ff.queue == "buckets"


# --------------------------------------------------------------------------- queries
def test_lookup_batch_equals_per_unit() -> None:
    rng = np.random.default_rng(7)
    walk = rng.random((30, 40)) < 0.75
    grid = NavGrid(walk, cell_size=0.5, min_x=-3.0, min_z=2.0)
    ff = FlowField(grid).build([(20, 15), (2, 2)])
    pts = np.stack([rng.uniform(-5.0, 19.0, 500), rng.uniform(0.0, 19.0, 500)], axis=1)
    batch = ff.lookup(pts)
    assert batch.shape == (500, 2)
    for p, v in zip(pts, batch, strict=True):
        cx, cz = grid.world_to_cell(float(p[0]), float(p[1]))
        if grid.in_bounds(cx, cz):
            nxt = ff.next_cell(cx, cz)
            if nxt is None or nxt == (cx, cz):
                assert v.tolist() == [0.0, 0.0]
            else:
                d = np.array([nxt[0] - cx, nxt[1] - cz], dtype=np.float64)
                np.testing.assert_allclose(v, d / np.hypot(*d))
        else:
            assert v.tolist() == [0.0, 0.0]
    # (x, y, z) points read x and z; one point alone works too
    pts3 = np.stack([pts[:, 0], np.zeros(500), pts[:, 1]], axis=1)
    np.testing.assert_array_equal(ff.lookup(pts3), batch)
    np.testing.assert_array_equal(ff.lookup(pts[3]), batch[3:4])
    cells = rng.integers(-2, 42, size=(300, 2))
    codes = ff.lookup_cells(cells)
    for (x, z), code in zip(cells, codes, strict=True):
        inside = 0 <= x < 40 and 0 <= z < 30
        assert code == (ff.direction[z, x] if inside else NONE)


def test_direction_unit_table() -> None:
    assert (DIRECTION_UNIT[NONE].tolist() == [0.0, 0.0]
            and DIRECTION_UNIT[GOAL].tolist() == [0.0, 0.0])
    np.testing.assert_allclose(np.hypot(DIRECTION_UNIT[:8, 0], DIRECTION_UNIT[:8, 1]), 1.0)
    assert DIRECTION_OFFSETS.tolist() == [[1, 0], [0, 1], [-1, 0], [0, -1],
                                          [1, 1], [-1, 1], [-1, -1], [1, -1]]


def test_arrays_are_read_only_views_refreshed_by_each_build() -> None:
    ff = FlowField(NavGrid(np.ones((3, 3), dtype=bool))).build([(0, 0)])
    with pytest.raises(ValueError):
        ff.direction[0, 0] = 3
    with pytest.raises(ValueError):
        ff.cost[0, 0] = 1.0
    before = ff.cost_int.copy()
    ff.build([(2, 2)])
    assert ff.cost_int[2, 2] == 0 and not np.array_equal(before, ff.cost_int)
    assert ff.revision == 2


def test_validation_messages() -> None:
    grid = NavGrid(np.ones((4, 5), dtype=bool))
    ff = FlowField(grid)
    with pytest.raises(QueryError, match="not been built"):
        _ = ff.direction
    with pytest.raises(QueryError, match="outside the 5x4 grid"):
        ff.build([(5, 0)])
    with pytest.raises(QueryError, match="non-empty"):
        ff.build(np.zeros((0, 2), dtype=int))
    with pytest.raises(QueryError, match="integer cells"):
        ff.build([(0.5, 1.0)])
    with pytest.raises(QueryError, match="negative radius"):
        ff.build([(0, 0)], obstacles=[[1.0, 1.0, -1.0]])
    ff.build([(0, 0)])
    with pytest.raises(QueryError, match="region mask"):
        ff.update(np.ones((2, 2), dtype=bool))
    with pytest.raises(QueryError, match="region"):
        ff.update("everywhere")
    with pytest.raises(QueryError, match="not finite"):
        ff.lookup([[np.nan, 0.0]])
    with pytest.raises(QueryError, match=r"\(n, 2\) or \(n, 3\)"):
        ff.lookup(np.zeros((2, 4)))
    with pytest.raises(QueryError, match="outside"):
        ff.next_cell(9, 9)
    with pytest.raises(QueryError, match="integer"):
        ff.lookup_cells([[0.5, 1.5]])
    with pytest.raises(ConfigError, match="queue"):
        FlowField(grid, queue="fifo")
    with pytest.raises(ConfigError, match="connectivity"):
        FlowField(grid, connectivity=6)
    with pytest.raises(QueryError, match="NavGrid or a Pathfinder"):
        FlowField(np.ones((3, 3)))  # type: ignore[arg-type]
    user = np.array([[1.0, 1.0, 0.5]])
    ff.build([(0, 0)], obstacles=user)
    assert user.flags.writeable  # the caller's array is not frozen


def test_pathfinder_defaults_and_occupants() -> None:
    pf = Pathfinder(NavGrid(np.ones((6, 6), dtype=bool)), "exact", connectivity=4)
    ff = FlowField(pf)
    assert ff.costs.name == "exact" and ff.connectivity == 4
    ff.build([(0, 0)])
    assert ff.cost_int[5, 5] == 10 * 1_000_000
    h = pf.add_occupant(2.5, 2.5, 0.4)
    assert ff.update().blocked == 1 and ff.direction[2, 2] == NONE
    pf.remove_occupant(h)
    assert ff.update().freed == 1
    np.testing.assert_array_equal(ff.cost_int, FlowField(pf).build([(0, 0)]).cost_int)


def test_kernels_without_jit() -> None:
    """The kernels run as plain Python (NUMBA_DISABLE_JIT=1) and agree with the compiled ones."""
    code = (
        "import numpy as np, navkit\n"
        "from navkit.query.flow import FlowBuffers\n"
        "rng = np.random.default_rng(2)\n"
        "walk = rng.random((9, 11)) < 0.75\n"
        "w = rng.integers(1, 4, size=walk.shape)\n"
        "out = []\n"
        "for weights in (None, w):\n"
        "    for queue in ('buckets', 'heap'):\n"
        "        pf = navkit.Pathfinder(navkit.NavGrid(walk, weights=weights))\n"
        "        ff = navkit.FlowField(pf, queue=queue).build([(1, 1), (9, 7)])\n"
        "        out.append([ff.cost_int.tolist(), ff.direction.tolist(), "
        "ff.follow((10, 0)).tolist()])\n"
        "        ff.update(obstacles=[[4.5, 4.5, 1.5]])\n"
        "        out.append([ff.cost_int.tolist(), ff.direction.tolist()])\n"
        "        ff.update(obstacles=[[6.5, 3.5, 1.0]])\n"
        "        out.append([ff.cost_int.tolist(), ff.direction.tolist()])\n"
        "    ws = FlowBuffers(13 * 11, chunk=1, chunks=40)  # compaction runs\n"
        "    ff = navkit.FlowField(navkit.NavGrid(walk, weights=weights), queue='buckets', "
        "buffers=ws)\n"
        "    out.append(ff.build([(1, 1), (9, 7)]).cost_int.tolist())\n"
        "print(out)\n"
    )
    assert_same_without_jit(code, timeout=120)


# --------------------------------------------------------------------------- cache
def test_cache_hits_misses_and_lru() -> None:
    grid = NavGrid(np.ones((10, 10), dtype=bool))
    cache = FlowFieldCache(maxsize=2)
    a = cache.get(grid, [(9, 9)])
    assert cache.get(grid, [(9, 9), (9, 9)]) is a  # goals are a set
    b = cache.get(grid, [(9, 9), (0, 0)])
    assert cache.get(grid, [(0, 0), (9, 9)]) is b
    assert cache.get(grid, [(9, 9)], costs="exact") is not a
    assert cache.stats == {"hits": 2, "misses": 3, "evictions": 1,
                           "invalidations": 0, "size": 2, "maxsize": 2}
    assert cache.get(grid, [(9, 9)]) is not a  # a was evicted
    assert a.cost_int[0, 0] == 126


def test_cache_keys_obstacles_versions_and_occupants() -> None:
    pf = Pathfinder(NavGrid(np.ones((8, 8), dtype=bool)))
    cache = FlowFieldCache()
    obs = np.array([[3.5, 3.5, 1.0], [6.5, 1.5, 0.5]])
    a = cache.get(pf, [(0, 0)], obstacles=obs)
    assert cache.get(pf, [(0, 0)], obstacles=obs[::-1]) is a  # row order does not matter
    assert cache.get(pf, [(0, 0)]) is not a
    v1 = cache.get(pf, [(0, 0)], version=1)
    assert cache.get(pf, [(0, 0)], version=1) is v1 and cache.get(pf, [(0, 0)], version=2) is not v1
    plain = cache.get(pf, [(0, 0)])
    h = pf.add_occupant(4.5, 4.5, 0.4)
    moved = cache.get(pf, [(0, 0)])
    assert moved is not plain and moved.direction[4, 4] == NONE
    pf.remove_occupant(h)
    assert cache.get(pf, [(0, 0)]) is plain  # the same occupants again: the same map
    # a field changed behind the cache's back is rebuilt on its next lookup
    plain.build([(7, 7)])
    again = cache.get(pf, [(0, 0)])
    assert again is plain and again.direction[0, 0] == GOAL


def test_cache_invalidation() -> None:
    g1 = NavGrid(np.ones((5, 5), dtype=bool))
    g2 = NavGrid(np.ones((6, 6), dtype=bool))
    cache = FlowFieldCache(8)
    cache.get(g1, [(0, 0)])
    cache.get(g1, [(4, 4)])
    cache.get(g2, [(0, 0)])
    assert cache.invalidate(g1) == 2 and len(cache) == 1
    assert cache.invalidate() == 1 and len(cache) == 0
    assert cache.stats["invalidations"] == 2
    cache.get(g2, [(0, 0)])
    assert cache.stats["misses"] == 4
    cache.clear()
    assert cache.stats == {"hits": 0, "misses": 0, "evictions": 0,
                           "invalidations": 0, "size": 0, "maxsize": 8}
    with pytest.raises(ConfigError):
        FlowFieldCache(0)
    with pytest.raises(QueryError, match="hashable"):
        cache.get(g1, [(0, 0)], version=[1])


def test_exports() -> None:
    assert navkit.FlowField is FlowField and navkit.FlowFieldCache is FlowFieldCache
    assert "FlowField" in navkit.__all__ and "FlowFieldCache" in navkit.__all__


# --------------------------------------------------------------------------- CLI and benchmark
def _invoke(*args: object) -> object:
    from typer.testing import CliRunner

    from navkit.cli import app

    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture()
def small_map(tmp_path):  # type: ignore[no-untyped-def]
    walk = np.ones((9, 12), dtype=bool)
    walk[2, 2:9] = False
    walk[4, 5:9] = walk[7, 5:9] = False  # a walled pocket: cells x 6-7, z 5-6
    walk[4:8, 5] = walk[4:8, 8] = False
    path = tmp_path / "small.npy"
    np.save(path, walk)
    return path, walk


def test_cli_flow_cells_json_and_png(small_map, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from PIL import Image

    path, walk = small_map
    png = tmp_path / "out" / "flow.png"
    r = _invoke("flow", path, "--cells", "--goal", "0,0",
                "--goal", "11,8", "--costs", "exact", "--png", png, "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    ff = FlowField(NavGrid(walk), "exact").build([(0, 0), (11, 8)])
    assert out["goalCells"] == [[0, 0], [11, 8]] and out["reached"] == ff.reached
    assert out["unreachedWalkable"] == int(walk.sum()) - ff.reached > 0  # the pocket
    assert out["maxCost"] == pytest.approx(float(ff.cost[np.isfinite(ff.cost)].max()))
    with Image.open(png) as img:
        assert img.size[0] == 12 * img.size[1] // 9


def test_cli_flow_world_goal_and_table(small_map) -> None:  # type: ignore[no-untyped-def]
    path, _walk = small_map
    r = _invoke("flow", path, "--goal", "3.2,0.7")
    assert r.exit_code == 0, r.output
    assert "(3, 0)" in r.stdout and "reached" in r.stdout


def test_cli_flow_no_route_and_bad_input(small_map) -> None:  # type: ignore[no-untyped-def]
    path, _walk = small_map
    # a blocked goal
    assert _invoke("flow", path, "--cells", "--goal", "2,2", "--json").exit_code == 1
    r = _invoke("flow", path, "--cells", "--goal", "40,2")
    assert r.exit_code == 2 and "outside" in r.output
    assert _invoke("flow", path, "--goal", "1;2").exit_code == 2


def test_bench_flow_smoke(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from navkit.bench import flow as bench_flow

    out = tmp_path / "b.json"
    rc = bench_flow.main(["--data", str(tmp_path), "--size", "48",
                          "--repeat", "1", "--json", str(out)])
    assert rc == 0
    res = json.loads(out.read_text())["results"]
    assert [r["grid"] for r in res] == ["open 48"]
    for peer in res[0]["peers"].values():
        assert peer["status"] == "not installed" or peer["agrees"]
    assert bench_flow.main(["--peers", "nope"]) == 2
