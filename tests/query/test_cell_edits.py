"""Run-time cell edits (``Pathfinder.set_walkable`` / ``set_weights``, docs/edits.md).

Oracle: a fresh :class:`Pathfinder` on a NavGrid built from arrays the test
edits itself (never from the edited Pathfinder), asked the same queries.
Hypothesis runs derandomized (:func:`tests.conftest.fixed`).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from navkit import ConfigError, NavGrid, Pathfinder, QueryError, Status
from navkit._kernels import jps as _jps
from navkit.query.flow import FlowField
from tests.conftest import fixed


@st.composite
def edit_scenes(draw: st.DrawFn) -> dict[str, object]:
    depth = draw(st.integers(2, 12))
    width = draw(st.integers(2, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walk = rng.random((depth, width)) < draw(st.sampled_from([0.6, 0.8, 1.0]))
    weighted = draw(st.booleans())
    weights = rng.integers(1, 5, size=(depth, width)) if weighted else None
    edits = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["cells", "mask", "wbox", "wcells", "wone"]))
        edits.append((kind, int(rng.integers(0, 2**31))))
    cell = st.tuples(st.integers(0, width - 1), st.integers(0, depth - 1))
    queries = draw(st.lists(st.tuples(cell, cell), min_size=1, max_size=4))
    return {"walk": walk, "weights": weights, "edits": edits, "queries": queries,
            "costs": draw(st.sampled_from(["seed", "exact"]))}


def apply_edit(pf: Pathfinder, walk: np.ndarray, weights: np.ndarray, kind: str,
               seed: int) -> None:
    """Edit ``pf`` and the oracle arrays ``walk`` / ``weights`` the same way."""
    rng = np.random.default_rng(seed)
    d, w = walk.shape
    if kind == "cells":
        k = int(rng.integers(1, 6))
        cells = np.stack([rng.integers(0, w, k), rng.integers(0, d, k)], axis=1)
        vals = rng.random(k) < 0.5
        if k == 1:  # one cell as plain ints: the no-array path
            pf.set_walkable([cells[0].tolist()], bool(vals[0]))
        else:
            pf.set_walkable(cells, vals)
        for (x, z), v in zip(cells.tolist(), vals.tolist(), strict=True):
            walk[z, x] = v  # later duplicates win, as in numpy assignment
    elif kind == "mask":
        mask = rng.random((d, w)) < 0.2
        val = bool(rng.random() < 0.5)
        pf.set_walkable(mask, val)
        walk[mask] = val
    elif kind == "wbox":
        x0, x1 = sorted(rng.integers(0, w, 2).tolist())
        z0, z1 = sorted(rng.integers(0, d, 2).tolist())
        vals = rng.integers(1, 6, size=(z1 - z0 + 1, x1 - x0 + 1))
        pf.set_weights((x0, z0, x1, z1), vals)
        weights[z0 : z1 + 1, x0 : x1 + 1] = vals
    elif kind == "wcells":
        k = int(rng.integers(1, 5))
        xs, zs = rng.integers(0, w, k), rng.integers(0, d, k)
        vals = rng.integers(1, 6, k)
        pf.set_weights(np.stack([xs, zs], axis=1), vals)
        weights[zs, xs] = vals
    else:  # one cell back to plain ground
        x, z = int(rng.integers(0, w)), int(rng.integers(0, d))
        pf.set_weights([[x, z]], 1)
        weights[z, x] = 1


def compare(pf: Pathfinder, fresh: Pathfinder, queries: list) -> None:
    for s, g in queries:
        for algorithm in ("astar", "dijkstra", "auto"):
            for nearest in (False, True):
                a = pf.find_path_cells(s, g, algorithm=algorithm, nearest=nearest)
                b = fresh.find_path_cells(s, g, algorithm=algorithm, nearest=nearest)
                assert (a.status, a.cost_int) == (b.status, b.cost_int), (s, g, algorithm)
                if algorithm == "astar":
                    np.testing.assert_array_equal(a.cells, b.cells)
        # (a grid once weighted stays weighted)
        if fresh.engine.jps.usable and pf.engine.jps.usable:
            a = pf.find_path_cells(s, g, algorithm="jps")
            b = fresh.find_path_cells(s, g, algorithm="jps")
            assert (a.status, a.cost_int) == (b.status, b.cost_int)
        win = (min(s[0], g[0]), min(s[1], g[1]), max(s[0], g[0]) + 1, max(s[1], g[1]) + 1)
        a = pf.find_path_cells(s, g, window=win)
        b = fresh.find_path_cells(s, g, window=win)
        assert (a.status, a.cost_int) == (b.status, b.cost_int)
        circles = [[s[0] + 1.5, s[1] + 0.5, 0.7]]
        a = pf.find_path_cells(s, g, obstacles=circles, nearest=True)
        b = fresh.find_path_cells(s, g, obstacles=circles, nearest=True)
        assert (a.status, a.cost_int) == (b.status, b.cost_int)
        ws, wg = (s[0] + 0.5, s[1] + 0.5), (g[0] + 0.5, g[1] + 0.5)
        for fn in ("find_path", "find_path_to_nearest"):
            a = getattr(pf, fn)(ws, wg)
            b = getattr(fresh, fn)(ws, wg)
            assert (a.status, a.cost_int) == (b.status, b.cost_int), fn
            np.testing.assert_array_equal(a.waypoints, b.waypoints)
    src = np.array([queries[0][0]])
    np.testing.assert_array_equal(pf.distance_field_int(src), fresh.distance_field_int(src))


@fixed(40)
@given(edit_scenes())
def test_edits_answer_like_a_fresh_pathfinder(scene: dict) -> None:
    walk = scene["walk"].copy()
    d, w = walk.shape
    weights = (scene["weights"].copy() if scene["weights"] is not None
               else np.ones((d, w), dtype=np.int64))
    pf = Pathfinder(NavGrid(scene["walk"], weights=scene["weights"]), costs=scene["costs"])
    # warm the JPS rows and the one-call world query, so edits must update them
    pf.find_path_cells(scene["queries"][0][0], scene["queries"][0][1], algorithm="auto")
    pf.find_path((0.5, 0.5), (w - 0.5, d - 0.5), obstacles=[[1.0, 1.0, 0.6]])
    version = pf.version
    for kind, seed in scene["edits"]:
        before = (pf.engine.padded.cells.copy(), pf.engine.padded.weights.copy())
        apply_edit(pf, walk, weights, kind, seed)
        note(f"{kind} {seed}")
        changed = not (np.array_equal(before[0], pf.engine.padded.cells)
                       and np.array_equal(before[1], pf.engine.padded.weights))
        assert pf.version == version + int(changed)
        version = pf.version
        oracle = NavGrid(walk.copy(), weights=weights.copy())
        np.testing.assert_array_equal(pf.grid.walkable, walk)
        if oracle.weights is not None:
            np.testing.assert_array_equal(pf.grid.weights, weights)
        fresh = Pathfinder(oracle, costs=scene["costs"])
        np.testing.assert_array_equal(pf.engine.occupancy.cells, fresh.engine.occupancy.cells)
        assert pf.engine.padded.wmin == fresh.engine.padded.wmin
        if not pf.engine.padded.weighted:
            np.testing.assert_array_equal(pf.engine.occupancy.moves, fresh.engine.occupancy.moves)
        if pf.engine.jps.built:
            rows, cols = pf.engine.jps.bits()[:2]
            frows, fcols = fresh.engine.jps.bits()[:2]
            np.testing.assert_array_equal(rows, frows)
            np.testing.assert_array_equal(cols, fcols)
        compare(pf, fresh, scene["queries"])


def test_edit_under_occupant_and_batch() -> None:
    walk = np.ones((6, 8), dtype=bool)
    pf = Pathfinder(NavGrid(walk))
    h = pf.add_occupant(3.5, 2.5, 0.4)
    pf.set_walkable([[3, 2]], False)  # under the occupant
    pf.set_walkable([[3, 2]], True)
    assert not pf.engine.occupancy.free((3, 2))  # the occupant still blocks it
    pf.remove_occupant(h)
    assert pf.engine.occupancy.free((3, 2))
    pf.set_walkable(np.array([[4, z] for z in range(6)]), False)
    fresh_walk = walk.copy()
    fresh_walk[:, 4] = False
    fresh = Pathfinder(NavGrid(fresh_walk))
    starts, goals = np.array([[0, 0], [1, 5]]), np.array([[7, 5], [2, 2]])
    a, b = pf.find_paths_batch(starts, goals), fresh.find_paths_batch(starts, goals)
    np.testing.assert_array_equal(a.status, b.status)
    np.testing.assert_array_equal(a.cost, b.cost)
    assert a.status[0] == Status.UNREACHABLE


def test_unweighted_becomes_weighted() -> None:
    walk = np.ones((5, 7), dtype=bool)
    pf = Pathfinder(NavGrid(walk))
    assert pf.resolve_algorithm("auto") == "jps"
    pf.find_path((0.5, 0.5), (6.5, 4.5))  # builds the JPS rows and kernel arguments
    assert pf.set_weights((2, 0, 4, 4), 1) == 0  # all ones: nothing changes
    assert not pf.engine.padded.weighted and pf.version == 0
    pf.set_weights((2, 0, 4, 4), 7)
    assert pf.engine.padded.weighted and pf.resolve_algorithm("auto") == "astar"
    with pytest.raises(QueryError):
        pf.find_path_cells((0, 0), (6, 4), algorithm="jps")
    w = np.ones((5, 7), dtype=np.int32)
    w[:, 2:5] = 7
    fresh = Pathfinder(NavGrid(walk, weights=w))
    a, b = pf.find_path((0.5, 0.5), (6.5, 4.5)), fresh.find_path((0.5, 0.5), (6.5, 4.5))
    assert a.cost_int == b.cost_int
    np.testing.assert_array_equal(a.waypoints, b.waypoints)


def test_flow_field_follows_edits() -> None:
    walk = np.ones((6, 9), dtype=bool)
    pf = Pathfinder(NavGrid(walk))
    ff = FlowField(pf)
    ff.build([(8, 3)])
    before = ff.cost_at((0, 3)) if hasattr(ff, "cost_at") else None
    pf.set_walkable(np.array([[4, z] for z in range(5)]), False)
    walk2 = walk.copy()
    walk2[:5, 4] = False
    ref = FlowField(Pathfinder(NavGrid(walk2)))
    ref.build([(8, 3)])
    assert ff.stale
    ff.refresh()
    np.testing.assert_array_equal(ff.cost_int, ref.cost_int)
    assert before is None or before != ff.cost_at((0, 3))


@pytest.mark.parametrize("call, exc, field", [
    (lambda pf: pf.set_walkable([[9, 0]], False), QueryError, None),
    (lambda pf: pf.set_walkable([[0, -1]], False), QueryError, None),
    (lambda pf: pf.set_walkable([[0.5, 1]], False), QueryError, None),
    (lambda pf: pf.set_walkable([[0, 1, 2]], False), QueryError, None),
    (lambda pf: pf.set_walkable(np.ones((3, 3), bool), False), QueryError, None),
    (lambda pf: pf.set_walkable([[0, 1]], 1), QueryError, None),
    (lambda pf: pf.set_walkable([[0, 1], [1, 1]], [True]), QueryError, None),
    (lambda pf: pf.set_weights((0, 0, 9, 1), 2), QueryError, None),
    (lambda pf: pf.set_weights((2, 0, 1, 1), 2), QueryError, None),
    (lambda pf: pf.set_weights((0, 0, 1, 1), np.ones((3, 3))), QueryError, None),
    (lambda pf: pf.set_weights((0, 0, 1, 1), float("nan")), ConfigError, "values"),
    (lambda pf: pf.set_weights((0, 0, 1, 1), True), ConfigError, "values"),
    (lambda pf: pf.set_weights((0, 0, 1, 1), 0), ConfigError, "values"),
    (lambda pf: pf.set_weights((0, 0, 1, 1), 70000), ConfigError, "values"),
    (lambda pf: pf.set_weights((0, 0, 1, 1), 2.5), ConfigError, "values"),
    (lambda pf: pf.set_weights([[0, 0]], "x"), ConfigError, "values"),
    (lambda pf: pf.find_path_cells((0, 0), (1, 1), blocked_cells=[[9, 9]]), QueryError, None),
    (lambda pf: pf.find_path_cells((0, 0), (1, 1), blocked_cells=[[0.5, 1]]), QueryError, None),
])
def test_bad_edits_raise(call, exc, field) -> None:
    pf = Pathfinder(NavGrid(np.ones((4, 5), dtype=bool)))
    with pytest.raises(exc) as info:
        call(pf)
    if field is not None:
        assert info.value.field == field
    assert pf.version == 0
    assert pf.find_path_cells((0, 0), (4, 3)).status == Status.FOUND


def test_weights_that_overflow_keys_are_refused_and_rolled_back() -> None:
    pf = Pathfinder(NavGrid(np.ones((200, 200), bool), weights=np.full((200, 200), 2)),
                    costs=(10**9, 2 * 10**9))
    with pytest.raises(ConfigError):
        pf.set_weights((0, 0, 199, 199), 65535)
    assert pf.engine.padded.wmin == 2 and int(pf.engine.padded.weights.max()) == 2


@fixed(25)
@given(st.integers(2, 10), st.integers(2, 10), st.integers(0, 2**32 - 1))
def test_blocked_cells_match_a_grid_with_them_blocked(w: int, d: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    walk = rng.random((d, w)) < 0.8
    pf = Pathfinder(NavGrid(walk))
    k = int(rng.integers(1, 6))
    blocked = np.stack([rng.integers(0, w, k), rng.integers(0, d, k)], axis=1)
    walk2 = walk.copy()
    walk2[blocked[:, 1], blocked[:, 0]] = False
    fresh = Pathfinder(NavGrid(walk2))
    for _ in range(4):
        s = (int(rng.integers(0, w)), int(rng.integers(0, d)))
        g = (int(rng.integers(0, w)), int(rng.integers(0, d)))
        for algorithm in ("astar", "auto"):
            a = pf.find_path_cells(s, g, blocked_cells=blocked, algorithm=algorithm, nearest=True)
            b = fresh.find_path_cells(s, g, algorithm=algorithm, nearest=True)
            assert (a.status, a.cost_int) == (b.status, b.cost_int)
        ws, wg = (s[0] + 0.5, s[1] + 0.5), (g[0] + 0.5, g[1] + 0.5)
        a = pf.find_path_to_nearest(ws, wg, blocked_cells=blocked)
        b = fresh.find_path_to_nearest(ws, wg)
        assert (a.status, a.cost_int) == (b.status, b.cost_int)
        np.testing.assert_array_equal(a.waypoints, b.waypoints)
    # the cells are blocked for those queries only
    plain = Pathfinder(NavGrid(walk))
    s, g = (0, 0), (w - 1, d - 1)
    assert pf.find_path_cells(s, g).cost_int == plain.find_path_cells(s, g).cost_int


def test_jps_rows_follow_a_single_cell_edit_locally() -> None:
    walk = np.ones((64, 200), dtype=bool)
    pf = Pathfinder(NavGrid(walk))
    pf.find_path_cells((0, 0), (199, 63), algorithm="jps")
    rows = pf.engine.jps.bits()[0]
    before = rows.copy()
    pf.set_walkable([[100, 30]], False)
    diff = np.flatnonzero(rows != before)
    # only words of rows 30 +- 1 change (3 int64 per word, nwr words per row)
    nwr = _jps.words_per_line(pf.engine.padded.wp)
    assert len(diff) and set((diff // (3 * nwr)).tolist()) <= {30, 31, 32}


def test_a_cell_listed_twice_takes_its_last_value() -> None:
    pf = Pathfinder(NavGrid(np.ones((3, 3), dtype=bool)))
    assert pf.set_walkable([[1, 1], [1, 1]], [False, True]) == 0
    assert pf.grid.walkable[1, 1]
    pf.set_weights([[1, 1], [1, 1], [0, 0]], [5, 2, 3])
    assert pf.grid.weights[1, 1] == 2 and pf.grid.weights[0, 0] == 3


def test_hpa_follows_the_pathfinder_edits() -> None:
    from navkit.query.hpa import HPAStar

    rng = np.random.default_rng(5)
    walk = rng.random((40, 48)) < 0.85
    pf = Pathfinder(NavGrid(walk), costs="exact")
    hpa = HPAStar(NavGrid(walk), cluster_size=8)
    hpa.follow(pf)
    ref_walk = walk.copy()
    for _ in range(5):
        cells = np.stack([rng.integers(0, 48, 3), rng.integers(0, 40, 3)], axis=1)
        vals = rng.random(3) < 0.5
        pf.set_walkable(cells, vals)
        for (x, z), v in zip(cells.tolist(), vals.tolist(), strict=True):
            ref_walk[z, x] = v
    report = hpa.sync()
    assert report is not None and report.touched_clusters < hpa.n_clusters
    fresh = HPAStar(NavGrid(ref_walk.copy()), cluster_size=8)
    got, want = hpa.graph_arrays(), fresh.graph_arrays()
    for key in want:
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)
    pf.set_walkable([[0, 0]], not ref_walk[0, 0])  # queued, applied by the next query
    ref_walk[0, 0] = not ref_walk[0, 0]
    free = np.argwhere(ref_walk)
    s, g = tuple(free[0][::-1].tolist()), tuple(free[-1][::-1].tolist())
    b = HPAStar(NavGrid(ref_walk), cluster_size=8).find_path_cells(s, g)
    a = hpa.find_path_cells(s, g)
    assert (a.status, a.cost_int) == (b.status, b.cost_int)


def test_navmap_cell_edits_survive_map_changes_and_flow_follows() -> None:
    from navkit.query.navmap import NavMap

    walk = np.ones((10, 12), dtype=bool)
    nav = NavMap(NavGrid(walk.copy()))
    ff = FlowField(nav.pathfinder)
    ff.build([(11, 5)])
    assert nav.set_walkable([[5, z] for z in range(10)], False) == 10
    assert nav.version == 1
    assert not nav.find_path((0.5, 5.5), (11.5, 5.5)).has_path
    nav.add_obstacle("crate", [(8.0, 0.0), (9.0, 0.0), (9.0, 3.0), (8.0, 3.0)])  # a map change
    assert nav.version == 2
    nav.set_walkable([[5, 7]], True)  # a gap in the wall
    expect = np.array(nav.grid.walkable)
    assert not expect[:, 5].sum() == 0 and expect[7, 5]
    fresh = Pathfinder(NavGrid(expect.copy()))
    a = nav.find_path((0.5, 5.5), (11.5, 5.5))
    b = fresh.find_path((0.5, 5.5), (11.5, 5.5))
    assert a.has_path and a.cost_int == b.cost_int
    np.testing.assert_array_equal(nav.pathfinder.grid.walkable, expect)
    # the field on nav.pathfinder saw the wall, the crate and the gap
    ref = FlowField(Pathfinder(NavGrid(expect.copy())))
    ref.build([(11, 5)])
    np.testing.assert_array_equal(ff.cost_int, ref.cost_int)
    nav.remove_obstacle("crate")  # the cell edits stay
    assert not nav.grid.walkable[3, 5] and nav.grid.walkable[7, 5] and nav.grid.walkable[1, 8]
    nav.set_weights((0, 0, 2, 9), 3)
    w = np.ones((10, 12), dtype=np.int32)
    w[:, :3] = 3
    fresh = Pathfinder(NavGrid(np.array(nav.grid.walkable), weights=w))
    a = nav.find_path((0.5, 5.5), (11.5, 5.5))
    assert a.cost_int == fresh.find_path((0.5, 5.5), (11.5, 5.5)).cost_int


def test_flow_cache_keys_on_the_edit_version() -> None:
    from navkit.query.flow_cache import FlowFieldCache

    pf = Pathfinder(NavGrid(np.ones((5, 8), dtype=bool)))
    cache = FlowFieldCache(8)
    a = cache.get(pf, [(7, 2)])
    assert cache.get(pf, [(7, 2)]) is a
    pf.set_walkable([[4, z] for z in range(4)], False)
    b = cache.get(pf, [(7, 2)])
    ref_walk = np.ones((5, 8), dtype=bool)
    ref_walk[:4, 4] = False
    ref = FlowField(Pathfinder(NavGrid(ref_walk))).build([(7, 2)])
    np.testing.assert_array_equal(b.cost_int, ref.cost_int)


def test_unweighted_grid_refuses_overflowing_weights_unchanged() -> None:
    pf = Pathfinder(NavGrid(np.ones((300, 300), bool)), costs=(10**9, 2 * 10**9))
    with pytest.raises(ConfigError) as info:
        pf.set_weights((0, 0, 9, 9), 65535)
    assert info.value.field == "values"
    assert not pf.engine.padded.weighted and pf.resolve_algorithm("auto") == "jps"


@pytest.mark.parametrize("seed", [3, 11])
def test_move_masks_built_at_the_first_astar_query_see_earlier_edits(seed: int) -> None:
    """On a grid JPS answers, the level-queue A*'s move masks are built at the
    first A* query (issue #13). Edits and occupants made before it must be in
    them: the A* answers equal those of a Pathfinder whose masks were built
    first and then kept current edit by edit, and a fresh Pathfinder on the
    edited cells (the occupants removed again)."""
    rng = np.random.default_rng(seed)
    walk = rng.random((20, 26)) < 0.8
    late = Pathfinder(NavGrid(walk), costs="exact")  # masks not built yet
    early = Pathfinder(NavGrid(walk), costs="exact")
    early.find_path_cells((0, 0), (1, 1), algorithm="astar")  # masks built now
    edited = walk.copy()
    cells = rng.integers(0, (26, 20), size=(12, 2))
    for pf in (late, early):
        pf.find_path_cells((0, 0), (25, 19))  # JPS
        pf.set_walkable(cells, False)
        pf.add_occupant(12.5, 9.5, 1.6)
    edited[cells[:, 1], cells[:, 0]] = False
    free = np.argwhere(edited)[:, ::-1]
    pairs = free[rng.integers(0, len(free), size=(25, 2))]
    for s, g in pairs:
        a = late.find_path_cells(tuple(s), tuple(g), algorithm="astar")
        b = early.find_path_cells(tuple(s), tuple(g), algorithm="astar")
        assert (a.status, a.cost_int, a.expanded) == (b.status, b.cost_int, b.expanded)
        assert np.array_equal(a.cells, b.cells)
    handle = next(iter(late.occupants))
    late.remove_occupant(handle)
    fresh = Pathfinder(NavGrid(edited), costs="exact")
    for s, g in pairs:
        a = late.find_path_cells(tuple(s), tuple(g), algorithm="astar")
        f = fresh.find_path_cells(tuple(s), tuple(g), algorithm="astar")
        assert (a.status, a.cost_int, a.expanded) == (f.status, f.cost_int, f.expanded)
