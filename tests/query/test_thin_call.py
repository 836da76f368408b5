"""The thin cell call (issue #19 item 3): ``find_path_cells``'s fast path and ``find_cost``.

Oracles, none of them navkit's: scipy's Dijkstra on an explicitly built move
graph (tests/reference.py) for costs and reachability, a path re-validated and
re-costed cell by cell, cell centres computed here from the grid's geometry,
the textbook heapq A* (``reference_astar``) for A*'s statuses and counts under
a budget, and the error messages of the general (obstacle) route.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from navkit import NavGrid, PathBuffer, Pathfinder, QueryError, Status
from navkit._kernels.search import GEN_LIMIT
from tests.conftest import NAMED_COSTS, fixed
from tests.reference import dijkstra_costs, is_valid_path, path_cost, reference_astar

ALGS = ("astar", "dijkstra", "jps", "jps+", "auto")


@st.composite
def scenes(draw: st.DrawFn) -> dict[str, Any]:
    """A random uniform or weighted grid, a cost model, start/goal cells and cell edits."""
    depth = draw(st.integers(1, 10))
    width = draw(st.integers(1, 10))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walk = rng.random((depth, width)) < draw(st.sampled_from([0.55, 0.75, 0.9, 1.0]))
    weights = (rng.integers(1, 6, size=(depth, width)).astype(np.int32)
               if draw(st.integers(0, 3)) == 0 else None)
    costs = draw(st.sampled_from(["seed", "exact"]))
    cell = st.tuples(st.integers(0, width - 1), st.integers(0, depth - 1))
    pairs = draw(st.lists(st.tuples(cell, cell), min_size=1, max_size=4))
    edits = draw(st.lists(cell, max_size=3))
    return {"walk": walk, "weights": weights, "costs": costs, "pairs": pairs, "edits": edits,
            "tables": draw(st.booleans())}


def oracle_cost(walk: np.ndarray, weights: np.ndarray | None, costs: str,
                s: tuple[int, int], g: tuple[int, int]) -> int:
    card, diag = NAMED_COSTS[costs]
    d = dijkstra_costs(walk, weights, s, card, diag)[g[1], g[0]]
    return -1 if not (walk[s[1], s[0]] and walk[g[1], g[0]]) or math.isinf(d) else int(d)


def usable_algs(pf: Pathfinder) -> list[Any]:
    out = []
    for a in ALGS:
        try:
            pf.resolve_algorithm(a)
        except QueryError:
            continue
        out.append(a)
    return out


@given(scenes())
@fixed(60)
def test_find_cost_and_fast_path_match_oracle(scene: dict[str, Any]) -> None:
    walk = np.array(scene["walk"])
    weights = scene["weights"]
    costs: Any = scene["costs"]
    card, _ = NAMED_COSTS[costs]
    pf = Pathfinder(NavGrid(walk.copy(), weights=weights), costs=costs)
    if scene["tables"] and weights is None:
        pf.precompute()
    for rnd in range(2):
        if rnd == 1:  # cell edits: every cache of the fast path must follow them
            cells = list(scene["edits"])
            if not cells:
                break
            arr = np.array(cells, dtype=np.int64)
            pf.set_walkable(arr, False)
            walk[arr[:, 1], arr[:, 0]] = False
        for s, g in scene["pairs"]:
            want = oracle_cost(walk, weights, costs, s, g)
            for alg in usable_algs(pf):
                r = pf.find_path_cells(s, g, algorithm=alg)
                assert pf.find_cost(s, g, algorithm=alg) == want, (alg, s, g)
                assert r.cost_int == want, (alg, s, g)
                if want < 0:
                    assert not r and r.cost == math.inf
                    want_status = (Status.NO_START if not walk[s[1], s[0]] else
                                   Status.NO_GOAL if not walk[g[1], g[0]] else Status.UNREACHABLE)
                    assert r.status is want_status
                    continue
                assert r.status is Status.FOUND
                assert r.start_cell == s and r.end_cell == g
                assert r.cells.dtype == np.int32 and r.waypoints.dtype == np.float64
                assert tuple(r.cells[0]) == s and tuple(r.cells[-1]) == g
                assert is_valid_path(walk, r.cells)
                assert path_cost(r.cells, weights, *NAMED_COSTS[costs]) == want
                assert r.cost == want / card
                centres = (r.cells + 0.5) * pf.grid.cell_size + [pf.grid.min_x, pf.grid.min_z]
                np.testing.assert_allclose(r.waypoints, centres)


@given(scenes(), st.integers(1, 12))
@fixed(40)
def test_astar_fast_path_counts_and_budget_match_reference(scene: dict[str, Any],
                                                           budget: int) -> None:
    """Status, cost and counts of A* through the fast path (budgets cached per value)
    are the textbook A*'s."""
    walk = np.array(scene["walk"])
    weights = scene["weights"]
    if weights is not None:
        return
    pf = Pathfinder(NavGrid(walk), costs="seed")
    for s, g in scene["pairs"]:
        if not (walk[s[1], s[0]] and walk[g[1], g[0]]):
            continue
        for b in (None, budget):
            ref: dict[str, Any] = reference_astar(walk, None, s, g, 10, 14, budget=b)
            r = pf.find_path_cells(s, g, algorithm="astar", budget=b)
            assert r.status.name == ref["status"]
            assert (r.expanded, r.generated) == (ref["expanded"], ref["generated"])
            want = ref["cost"] if ref["status"] == "FOUND" else -1
            assert r.cost_int == want
            assert pf.find_cost(s, g, algorithm="astar", budget=b) == want
            if r:
                assert [tuple(c) for c in r.cells.tolist()] == [tuple(c) for c in ref["path"]]


def test_results_own_their_arrays() -> None:
    """A result keeps its cells after later queries reuse the path buffers."""
    walk = np.ones((12, 12), bool)
    walk[2:10, 5] = False
    pf = Pathfinder(NavGrid(walk))
    pf.precompute()
    for alg in ("astar", "jps", "jps+"):
        r1 = pf.find_path_cells((0, 6), (11, 6), algorithm=alg)
        keep_c, keep_w = r1.cells.copy(), r1.waypoints.copy()
        pf.find_path_cells((11, 0), (0, 11), algorithm=alg)
        pf.find_path_cells((3, 3), (3, 3), algorithm=alg)
        np.testing.assert_array_equal(r1.cells, keep_c)
        np.testing.assert_array_equal(r1.waypoints, keep_w)


@given(st.integers(0, 2**32 - 1), st.sampled_from([1.0, 0.5, 0.3, 2.75]),
       st.floats(-1e3, 1e3, allow_nan=False), st.floats(-1e3, 1e3, allow_nan=False))
@fixed(30)
def test_waypoints_made_on_access_are_the_grids_centres(seed: int, cell_size: float,
                                                        min_x: float, min_z: float) -> None:
    """The hot path's results make their waypoints on first access: bit for bit
    ``NavGrid.cells_to_world`` of their cells and the smoothing route's (the kernel's)
    floats; kept once made; through pickle, ``dataclasses.replace`` and repr."""
    import dataclasses
    import pickle

    rng = np.random.default_rng(seed)
    walk = rng.random((9, 11)) < 0.8
    grid = NavGrid(walk, cell_size=cell_size, min_x=min_x, min_z=min_z, floor_y=0.5)
    pf = Pathfinder(grid)
    pf.precompute()
    free = np.argwhere(walk)
    s, g = (tuple(int(v) for v in free[i][::-1]) for i in rng.integers(0, len(free), 2))
    buf = PathBuffer(2)  # small: find_path_into grows it, the kernel writes the centres
    for alg in ("astar", "jps", "jps+"):
        r = pf.find_path_cells(s, g, algorithm=alg)
        if not r:
            continue
        assert "waypoints" not in vars(r)  # not made yet
        want = grid.cells_to_world(r.cells)
        back = pickle.loads(pickle.dumps(r))
        assert np.array_equal(r.waypoints, want) and r.waypoints is r.waypoints
        assert np.array_equal(back.waypoints, want)
        assert np.array_equal(dataclasses.replace(r).waypoints, want)
        assert f"waypoints={len(r.cells)}" in repr(r)
        n = pf.find_path_into(s, g, buf, algorithm=alg)
        assert n == len(r.cells) and np.array_equal(buf.waypoints, want)  # the kernel's floats
        assert np.array_equal(r.points3d()[:, 1], np.full(n, 0.5))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pf.find_path_cells(s, s).nope  # noqa: B018


BAD_CELLS = [(1.5, 0), (True, False), (0,), "ab", (4, 0), (0, -1), (0, 3), None, (0, 0, 0),
             (np.nan, 0), [[0, 0]]]


@pytest.mark.parametrize("bad", BAD_CELLS, ids=repr)
def test_find_cost_rejects_what_find_path_cells_rejects(bad: object) -> None:
    pf = Pathfinder(NavGrid(np.ones((3, 4), bool)))
    for where in ("start", "goal"):
        args = (bad, (0, 0)) if where == "start" else ((0, 0), bad)
        with pytest.raises(QueryError) as a:
            pf.find_path_cells(*args)
        with pytest.raises(QueryError) as b:
            pf.find_cost(*args)
        with pytest.raises(QueryError) as c:  # the general route: an obstacle circle
            pf.find_path_cells(*args, obstacles=[[-50.0, -50.0, 0.1]])
        with pytest.raises(QueryError) as d:  # the path into a buffer
            pf.find_path_into(*args, PathBuffer())
        assert str(a.value) == str(b.value) == str(c.value) == str(d.value)
        assert where in str(a.value)


@pytest.mark.parametrize("kw", [{"budget": 0}, {"budget": True}, {"budget": 1.5},
                                {"algorithm": "bogus"}, {"algorithm": "JPS"}])
def test_bad_options_raise_alike(kw: dict[str, Any]) -> None:
    pf = Pathfinder(NavGrid(np.ones((3, 4), bool)))
    with pytest.raises(QueryError) as a:
        pf.find_path_cells((0, 0), (3, 2), **kw)
    with pytest.raises(QueryError) as b:
        pf.find_cost((0, 0), (3, 2), **kw)
    assert str(a.value) == str(b.value)


@pytest.mark.parametrize("alg", ["jps", "jps+"])
def test_jps_where_it_does_not_apply_raises_alike(alg: Any) -> None:
    w = np.ones((3, 4), np.int32)
    w[1, 1] = 3
    for pf in (Pathfinder(NavGrid(np.ones((3, 4), bool), weights=w)),
               Pathfinder(NavGrid(np.ones((3, 4), bool)), connectivity=4),
               Pathfinder(NavGrid(np.ones((3, 4), bool)), heuristic="euclidean")):
        with pytest.raises(QueryError) as a:
            pf.find_path_cells((0, 0), (3, 2), algorithm=alg)
        with pytest.raises(QueryError) as b:
            pf.find_cost((0, 0), (3, 2), algorithm=alg)
        assert str(a.value) == str(b.value)
        assert pf.find_cost((0, 0), (3, 2)) == pf.find_path_cells((0, 0), (3, 2)).cost_int


def test_numpy_and_float_cells_are_accepted() -> None:
    pf = Pathfinder(NavGrid(np.ones((3, 4), bool)))
    for s in ((np.int64(0), np.int64(0)), np.array([0, 0]), [0, 0], (0.0, 0.0)):
        assert pf.find_cost(s, (3, 2)) == 38
        assert pf.find_path_cells(s, (3, 2)).cost_int == 38


def test_occupants_and_obstacles_after_fast_queries() -> None:
    """Occupants block the fast path and find_cost; a query with obstacles in between
    leaves no trace on the next plain query."""
    walk = np.ones((5, 7), bool)
    pf = Pathfinder(NavGrid(walk))
    pf.precompute()
    wall = walk.copy()
    wall[:, 3] = False
    wall[0, 3] = True
    hs = [pf.add_occupant(3.5, z + 0.5, 0.2) for z in range(1, 5)]
    want = oracle_cost(wall, None, "seed", (0, 4), (6, 4))
    for alg in ("astar", "jps", "jps+", "auto"):
        assert pf.find_cost((0, 4), (6, 4), algorithm=alg) == want
        r = pf.find_path_cells((0, 4), (6, 4), algorithm=alg)
        assert r.cost_int == want and is_valid_path(wall, r.cells)
        blocked = pf.find_path_cells((0, 4), (6, 4), algorithm=alg,
                                     obstacles=[[3.5, 0.5, 0.3]])
        assert blocked.status is Status.UNREACHABLE
        assert pf.find_path_cells((0, 4), (6, 4), algorithm=alg).cost_int == want
    for h in hs:
        pf.remove_occupant(h)
    free = oracle_cost(walk, None, "seed", (0, 4), (6, 4))
    assert all(pf.find_cost((0, 4), (6, 4), algorithm=a) == free
               for a in ("astar", "jps", "jps+", "auto"))


def test_generation_wrap_around_and_reserved_generations() -> None:
    walk = np.ones((9, 9), bool)
    walk[1:8, 4] = False
    pf = Pathfinder(NavGrid(walk))
    pf.precompute()
    want = oracle_cost(walk, None, "seed", (0, 4), (8, 4))
    pf.engine.overlay.counters[0] = GEN_LIMIT - 3  # JPS's generations about to wrap around
    pf.engine.workspace.gens[0] = GEN_LIMIT - 3  # A*'s too
    buf = PathBuffer()
    for _ in range(6):
        for alg in ("astar", "jps", "jps+"):
            assert pf.find_path_cells((0, 4), (8, 4), algorithm=alg).cost_int == want
            assert pf.find_cost((0, 4), (8, 4), algorithm=alg) == want
            assert pf.find_path_into((0, 4), (8, 4), buf, algorithm=alg) > 0
            assert buf.cost_int == want
    gen = pf.engine.workspace.next_gens(50)  # reserved for a benchmark's kernel loop
    assert pf.engine.workspace.next_gen() == gen + 50
    gen = pf.engine.jps.next_gen(50)
    assert pf.engine.jps.next_gen() == gen + 50


def test_kernel_call_is_the_query_search() -> None:
    """The benchmarks' kernel-alone call leaves the cost find_cost returns."""
    walk = np.ones((9, 9), bool)
    walk[1:8, 4] = False
    pf = Pathfinder(NavGrid(walk), costs="exact")
    pf.precompute()
    s, g = (0, 4), (8, 4)
    want = oracle_cost(walk, None, "exact", s, g)
    k, args = pf.engine.astar.kernel_call(s, g, pf.budget, pf.engine.padded.wmin,
                                          pf.engine.workspace.next_gens(1))
    assert k(*args) == 0 and int(pf.engine.astar.stats[5]) == want
    for q in (pf.engine.jps, pf.engine.cells.jps_plus):
        assert q is not None
        k, args = q.kernel_call(s, g, pf.budget, pf.engine.jps.next_gen())
        stats = pf.engine.astar.stats
        assert k(*args) > 0 and int(stats[0]) == 0 and int(stats[5]) == want


def test_find_cost_is_recorded_as_a_cell_query(tmp_path) -> None:
    out = tmp_path / "q.jsonl"
    pf = Pathfinder(NavGrid(np.ones((3, 4), bool)), record=out)
    assert pf.find_cost((0, 0), (3, 2)) == 38
    pf.record.close()
    import json

    rows = [json.loads(ln) for ln in out.read_text().splitlines()][1:]  # after the header
    assert [r["kind"] for r in rows] == ["find_path_cells"]
    assert rows[0]["start"] == [0, 0] and rows[0]["goal"] == [3, 2]


def test_tables_a_first_jps_plus_query_built_follow_edits() -> None:
    """Regression: tables built by a first ``"jps+"`` query (no precompute) were kept
    after a cell edit, and JPS+ then cut a corner the edit had blocked."""
    pf = Pathfinder(NavGrid(np.ones((2, 2), bool)))
    assert pf.find_path_cells((0, 0), (1, 1), algorithm="jps+").cost_int == 14
    pf.set_walkable(np.array([[0, 1]]), False)
    walk = np.ones((2, 2), bool)
    walk[1, 0] = False
    want = oracle_cost(walk, None, "seed", (0, 0), (1, 1))
    assert want == 20
    assert pf.find_path_cells((0, 0), (1, 1), algorithm="jps+").cost_int == want
    assert pf.find_cost((0, 0), (1, 1), algorithm="jps+") == want
