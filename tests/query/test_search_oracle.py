"""navkit's search checked against oracles it did not produce (tests/reference.py).

Costs come from scipy's Dijkstra on an explicitly built move graph, paths are
re-validated and re-costed cell by cell, line of sight is checked with exact
rational geometry, and the queue order of docs/rules.md §3.4 is checked against a
textbook heapq A*. Hypothesis runs derandomized (fixed examples) with no
example database, so every run checks the same cases.
"""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import navkit
from navkit import ConfigError, NavGrid, NavkitError, Pathfinder, QueryError, Status
from tests.conftest import NAMED_COSTS, fixed
from tests.reference import (
    brute_line_of_sight,
    brute_snap,
    dijkstra_costs,
    is_valid_path,
    path_cost,
    reachable_nearest,
    reference_astar,
    segment_mean_weight,
)

#: (card, diag) of the named cost models, written out here rather than read from navkit.


# --------------------------------------------------------------------------- strategies
@st.composite
def costs_st(draw: st.DrawFn) -> tuple[object, int, int]:
    """``(costs argument, card, diag)``: a named model or a random valid pair."""
    name = draw(st.sampled_from(["seed", "exact", "pair"]))
    if name != "pair":
        return (name, *NAMED_COSTS[name])
    card = draw(st.integers(1, 40))
    diag = draw(st.integers(card, 2 * card))
    return ((card, diag), card, diag)


@st.composite
def grids(
    draw: st.DrawFn, max_side: int = 12, weighted: bool | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """A random ``(walkable, weights)`` pair, 1..max_side cells per side; weights 1..9 or None."""
    depth = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.4, 0.6, 0.75, 0.85, 0.95, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    walk = rng.random((depth, width)) < density
    if weighted is None:
        weighted = draw(st.booleans())
    weights = rng.integers(1, 10, size=(depth, width)).astype(np.int32) if weighted else None
    return walk, weights


def cells_st(walk: np.ndarray) -> st.SearchStrategy[tuple[int, int]]:
    """Any cell of the grid (walkable or not), biased towards walkable ones."""
    depth, width = walk.shape
    anywhere = st.tuples(st.integers(0, width - 1), st.integers(0, depth - 1))
    free = [(int(x), int(z)) for z, x in zip(*np.nonzero(walk), strict=True)]
    if not free:
        return anywhere
    return st.one_of(anywhere, st.sampled_from(free), st.sampled_from(free))


def make_pf(
    walk: np.ndarray,
    weights: np.ndarray | None,
    costs: object = "seed",
    conn: int = 8,
    **kw: object,
) -> Pathfinder:
    return Pathfinder(NavGrid(walk, weights=weights), costs=costs, connectivity=conn, **kw)


def free(walk: np.ndarray, cell: tuple[int, int]) -> bool:
    return bool(walk[cell[1], cell[0]])


def as_cells(arr: np.ndarray) -> list[tuple[int, int]]:
    return [(int(x), int(z)) for x, z in np.asarray(arr)]


def assert_no_path(r: navkit.PathResult) -> None:
    assert not r.has_path
    assert len(r.cells) == 0 and len(r.waypoints) == 0
    assert r.cost_int == -1 and r.cost == math.inf


# --------------------------------------------------------------------- the references themselves
def test_reference_dijkstra_against_networkx():
    """The scipy reference agrees with networkx on a graph built cell by cell."""
    import networkx as nx

    rng = np.random.default_rng(11)
    for _ in range(20):
        depth, width = (int(v) for v in rng.integers(1, 9, 2))
        walk = rng.random((depth, width)) < 0.75
        weights = rng.integers(1, 10, size=(depth, width))
        eight = bool(rng.random() < 0.5)
        card, diag = 7, 10
        g = nx.DiGraph()
        for z in range(depth):
            for x in range(width):
                g.add_node((x, z))
                for dx in (-1, 0, 1):
                    for dz in (-1, 0, 1):
                        if (dx, dz) == (0, 0) or (not eight and dx and dz):
                            continue
                        qx, qz = x + dx, z + dz
                        if not (0 <= qx < width and 0 <= qz < depth):
                            continue
                        if not (walk[z, x] and walk[qz, qx]):
                            continue
                        if dx and dz and not (walk[z, qx] and walk[qz, x]):
                            continue
                        step = diag if dx and dz else card
                        g.add_edge((x, z), (qx, qz), weight=step * int(weights[qz, qx]))
        src = (int(rng.integers(width)), int(rng.integers(depth)))
        if not walk[src[1], src[0]]:
            continue
        want = nx.single_source_dijkstra_path_length(g, src)
        got = dijkstra_costs(walk, weights, src, card, diag, eight)
        for z in range(depth):
            for x in range(width):
                assert got[z, x] == want.get((x, z), math.inf)


def test_reference_known_values():
    walk = np.ones((5, 5), dtype=bool)
    walk[1:4, 2] = False
    d = dijkstra_costs(walk, None, (0, 2), *NAMED_COSTS["exact"])
    assert d[2, 4] == 4 * 1_000_000 + 2 * 1_414_214  # round the wall: 6.828428
    path = [(0, 2), (1, 1), (1, 0), (2, 0), (3, 0), (4, 1), (4, 2)]
    assert is_valid_path(walk, np.array(path)) and path_cost(np.array(path), None, 10, 14) == 68
    assert not is_valid_path(walk, np.array([(1, 1), (2, 0)]))  # no corner cutting past (2, 1)
    assert not is_valid_path(walk, np.array([(0, 0), (1, 1)]), eight=False)
    assert not is_valid_path(walk, np.array([(0, 0), (2, 0)]))  # not adjacent
    assert brute_snap(walk, (2, 2), 1) == (1, 2)  # (1,2) and (3,2) tie at d2=1: lower index
    assert brute_snap(walk, (-3, 0), 2) is None and brute_snap(walk, (-2, 0), 2) == (0, 0)


# --------------------------------------------------------------------------- A* vs Dijkstra
@fixed(250)
@given(case=grids(), cm=costs_st(), conn=st.sampled_from([8, 4]), data=st.data())
def test_find_path_cells_matches_scipy_dijkstra(case, cm, conn, data):
    walk, weights = case
    costs, card, diag = cm
    eight = conn == 8
    pf = make_pf(walk, weights, costs, conn)
    dist_cache: dict[tuple[int, int], np.ndarray] = {}
    for _ in range(4):
        s = data.draw(cells_st(walk), label="start")
        g = data.draw(cells_st(walk), label="goal")
        for algorithm in ("astar", "dijkstra"):
            r = pf.find_path_cells(s, g, algorithm=algorithm)
            if not free(walk, s):
                assert r.status == Status.NO_START
                assert_no_path(r)
                continue
            if not free(walk, g):
                assert r.status == Status.NO_GOAL
                assert_no_path(r)
                continue
            if s not in dist_cache:
                dist_cache[s] = dijkstra_costs(walk, weights, s, card, diag, eight)
            want = dist_cache[s][g[1], g[0]]
            if not np.isfinite(want):
                assert r.status == Status.UNREACHABLE
                assert_no_path(r)
                continue
            assert r.status == Status.FOUND and r.found and r.has_path
            assert r.cost_int == int(want)
            assert r.cost == r.cost_int / card
            assert is_valid_path(walk, r.cells, eight=eight)
            assert as_cells(r.cells[[0, -1]]) == [s, g]
            assert path_cost(r.cells, weights, card, diag) == r.cost_int
            assert r.start_cell == s and r.end_cell == g
            np.testing.assert_array_equal(r.waypoints, r.cells + 0.5)  # cell_size 1, origin 0


@fixed(150)
@given(case=grids(), cm=costs_st(), conn=st.sampled_from([8, 4]), data=st.data())
def test_expansion_order_matches_reference_astar(case, cm, conn, data):
    """docs/rules.md §3.4 queue order (f, then larger g, then lower index): same
    expansions, pushes and parent chain as a heapq A* with that order, for A* and Dijkstra."""
    walk, weights = case
    costs, card, diag = cm
    pf = make_pf(walk, weights, costs, conn)
    wmin = int(weights[walk].min()) if weights is not None and walk.any() else 1
    for _ in range(3):
        s = data.draw(cells_st(walk), label="start")
        g = data.draw(cells_st(walk), label="goal")
        if not (free(walk, s) and free(walk, g)):
            continue
        for algorithm, hmul in (("astar", wmin), ("dijkstra", 0)):
            r = pf.find_path_cells(s, g, algorithm=algorithm)
            ref = reference_astar(walk, weights, s, g, card, diag, conn == 8, hmul)
            assert (r.status.name, r.expanded, r.generated) == (
                ref["status"],
                ref["expanded"],
                ref["generated"],
            )
            if r.found:
                assert as_cells(r.cells) == ref["path"]


@fixed(120)
@given(case=grids(), cm=costs_st(), conn=st.sampled_from([8, 4]), data=st.data())
def test_distance_field_matches_multisource_dijkstra(case, cm, conn, data):
    walk, weights = case
    costs, card, diag = cm
    pf = make_pf(walk, weights, costs, conn)
    sources = data.draw(st.lists(cells_st(walk), min_size=1, max_size=4), label="sources")
    want = dijkstra_costs(walk, weights, sources, card, diag, conn == 8)
    got = pf.distance_field_int(np.array(sources))
    assert got.shape == walk.shape and got.dtype == np.int64
    np.testing.assert_array_equal(got, np.where(np.isfinite(want), want, -1).astype(np.int64))
    field = pf.distance_field(np.array(sources))
    np.testing.assert_array_equal(field, np.where(np.isfinite(want), want / card, np.inf))
    # a single source may be given as one (x, z) pair
    one = pf.distance_field_int(np.array(sources[0]))
    want1 = dijkstra_costs(walk, weights, [sources[0]], card, diag, conn == 8)
    np.testing.assert_array_equal(one, np.where(np.isfinite(want1), want1, -1).astype(np.int64))


def test_distance_field_charges_the_entered_cell():
    # 1x3 corridor, weights 1, 5, 7: walking away from x=0 enters 5 then 7.
    walk = np.ones((1, 3), bool)
    weights = np.array([[1, 5, 7]])
    pf = make_pf(walk, weights, "seed")
    assert pf.distance_field_int([[0, 0]]).tolist() == [[0, 50, 120]]
    assert pf.distance_field_int([[2, 0]]).tolist() == [[60, 50, 0]]  # enters 5 then 1
    assert pf.find_path_cells((0, 0), (2, 0)).cost_int == 120
    assert pf.find_path_cells((2, 0), (0, 0)).cost_int == 60


# ------------------------------------------------------------------ line of sight and smoothing
@fixed(300)
@given(case=grids(max_side=14, weighted=False), data=st.data())
def test_line_of_sight_matches_exact_geometry(case, data):
    walk, _ = case
    pf = make_pf(walk, None)
    for _ in range(6):
        a = data.draw(cells_st(walk), label="a")
        b = data.draw(cells_st(walk), label="b")
        want = brute_line_of_sight(walk, a, b)
        assert pf.line_of_sight(a, b) == want
        assert pf.line_of_sight(b, a) == want


@pytest.mark.parametrize(
    ("blocked", "a", "b", "want"),
    [
        ([], (0, 0), (2, 2), True),
        ([(1, 0), (0, 1)], (0, 0), (1, 1), False),  # squeeze between two blocked cells
        ([(1, 0)], (0, 0), (1, 1), False),  # corner rule: one side cell blocked is enough
        ([(0, 1)], (0, 0), (1, 1), False),
        ([(2, 1)], (0, 0), (2, 2), False),  # the segment passes the corner (2, 2) too
        ([(1, 2)], (0, 0), (2, 2), False),
        ([(2, 0)], (0, 0), (2, 1), True),  # (0.5,0.5)->(2.5,1.5) never enters cell (2, 0)
        ([(1, 1)], (0, 0), (2, 1), False),  # ... but enters cell (1, 1)
        ([(1, 0)], (0, 0), (2, 1), False),  # ... and cell (1, 0)
        ([(0, 0)], (0, 0), (0, 0), False),  # a blocked cell does not see itself
        ([], (0, 0), (0, 0), True),
    ],
)
def test_line_of_sight_cases(blocked, a, b, want):
    walk = np.ones((3, 3), bool)
    for x, z in blocked:
        walk[z, x] = False
    assert brute_line_of_sight(walk, a, b) == want  # the reference itself
    assert make_pf(walk, None).line_of_sight(a, b) == want


def shortcut_ok(walk: np.ndarray, weights: np.ndarray | None, raw: list[tuple[int, int]],
                i0: int, i1: int, card: int = 10, diag: int = 14) -> bool:
    """May the string pull go straight from raw[i0] to raw[i1]? In sight, and on
    weighted terrain no dearer than the steps it replaces: the segment's mean
    weight (exact) times the cost model's charge for its displacement on
    uniform terrain, against the steps' costs times the weights entered."""
    if not brute_line_of_sight(walk, raw[i0], raw[i1]):
        return False
    if weights is None:
        return True
    steps = raw[i0 : i1 + 1]
    path = sum((card if abs(p[0] - q[0]) + abs(p[1] - q[1]) == 1 else diag)
               * int(weights[q[1], q[0]]) for p, q in pairwise(steps))
    adx, adz = abs(raw[i1][0] - raw[i0][0]), abs(raw[i1][1] - raw[i0][1])
    octile = card * (max(adx, adz) - min(adx, adz)) + diag * min(adx, adz)
    return segment_mean_weight(weights, raw[i0], raw[i1]) * octile <= path


def check_smoothing(walk: np.ndarray, raw: np.ndarray, kept: np.ndarray,
                    weights: np.ndarray | None = None) -> None:
    """docs/rules.md §5: kept cells are a subsequence of the raw path from its first to
    its last cell, each in sight of the previous, and each the *furthest* raw cell
    in sight of the previous one (on weighted terrain: the furthest whose
    shortcut costs no more than the path, :func:`shortcut_ok`; seed costs)."""
    raw_l, kept_l = as_cells(raw), as_cells(kept)
    if not raw_l:
        assert kept_l == []
        return
    assert kept_l[0] == raw_l[0] and kept_l[-1] == raw_l[-1]
    pos = []
    i = 0
    for c in kept_l:
        while i < len(raw_l) and raw_l[i] != c:
            i += 1
        assert i < len(raw_l), f"kept cell {c} is not on the raw path in order"
        pos.append(i)
        i += 1
    for i0, i1 in pairwise(pos):
        if i1 > i0 + 1:
            assert shortcut_ok(walk, weights, raw_l, i0, i1)
        for k in range(i1 + 1, len(raw_l)):
            assert not shortcut_ok(walk, weights, raw_l, i0, k), "a further cell qualified"


@fixed(150)
@given(case=grids(max_side=14), conn=st.sampled_from([8, 4]), data=st.data())
def test_smoothing_keeps_furthest_visible_cells(case, conn, data):
    walk, weights = case
    pf = make_pf(walk, weights, "seed", conn)
    for _ in range(3):
        s = data.draw(cells_st(walk), label="start")
        g = data.draw(cells_st(walk), label="goal")
        raw = pf.find_path_cells(s, g)
        sm = pf.find_path_cells(s, g, smooth=True)
        assert sm.status == raw.status and sm.cost_int == raw.cost_int
        np.testing.assert_array_equal(sm.cells, raw.cells)
        if not raw.found:
            continue
        kept = pf.smooth_cells(raw.cells)
        assert kept.dtype == np.int32 and kept.shape[1] == 2
        check_smoothing(walk, raw.cells, kept, weights)
        np.testing.assert_array_equal(sm.waypoints, kept + 0.5)
        # any list of cells can be string-pulled, e.g. the reversed path
        check_smoothing(walk, raw.cells[::-1], pf.smooth_cells(raw.cells[::-1].copy()), weights)
        if weights is not None:
            # with every weight 1 the weighted rule is the plain one
            ones = make_pf(walk, np.ones_like(weights), "seed", conn)
            np.testing.assert_array_equal(ones.smooth_cells(raw.cells),
                                          make_pf(walk, None, "seed", conn).smooth_cells(raw.cells))


def test_weighted_smoothing_stays_on_the_road():
    """A road (weight 1) around grass (weight 3): the raw path follows the road
    and so do the shortcuts; on uniform terrain the same query cuts across."""
    walk = np.ones((20, 20), bool)
    w = np.full((20, 20), 3, np.int32)
    w[0:2, :] = 1
    w[:, 18:20] = 1
    for costs in ("seed", "exact"):
        pf = make_pf(walk, w, costs)
        r = pf.find_path_cells((0, 0), (19, 19), smooth=True)
        pts = r.waypoints
        for p, q in pairwise(pts):
            # every cell the straight leg crosses is road
            for t in np.linspace(0, 1, 400):
                x, z = p + t * (q - p)
                assert w[int(np.floor(z)), int(np.floor(x))] == 1, (p, q)
        flat = make_pf(walk, None, costs).find_path_cells((0, 0), (19, 19), smooth=True)
        assert len(flat.waypoints) == 2


def test_smooth_cells_edge_cases():
    walk = np.ones((4, 4), bool)
    pf = make_pf(walk, None)
    assert pf.smooth_cells(np.zeros((0, 2), np.int64)).shape == (0, 2)
    assert pf.smooth_cells([[1, 2]]).tolist() == [[1, 2]]
    assert pf.smooth_cells([[0, 0], [1, 1], [2, 2], [3, 3]]).tolist() == [[0, 0], [3, 3]]
    assert pf.smooth_cells([[0, 0], [1, 0], [2, 0], [3, 1]]).tolist() == [[0, 0], [3, 1]]


def test_smooth_cells_small_integer_dtypes():
    """BUG: smooth_cells computes padded node indices in the input's dtype, so
    int8/uint8 cell arrays (a natural choice for small maps) overflow and the
    kernel string-pulls garbage nodes (it returned cells outside the grid)."""
    walk = np.ones((40, 40), bool)
    walk[10:30, 20] = False
    pf = make_pf(walk, None)
    raw = pf.find_path_cells((0, 20), (39, 20)).cells
    want = pf.smooth_cells(raw.astype(np.int64)).tolist()
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.uint64):
        try:
            got = pf.smooth_cells(raw.astype(dtype)).tolist()
        except NavkitError:
            continue  # refusing a dtype is acceptable; wrong answers are not
        assert got == want, f"dtype {np.dtype(dtype).name}"


# ------------------------------------------------------------------- nearest (docs/rules.md §6)
@fixed(200)
@given(case=grids(), cm=costs_st(), conn=st.sampled_from([8, 4]), data=st.data())
def test_nearest_matches_reachable_set(case, cm, conn, data):
    walk, weights = case
    costs, card, diag = cm
    pf = make_pf(walk, weights, costs, conn)
    for _ in range(3):
        s = data.draw(cells_st(walk), label="start")
        g = data.draw(cells_st(walk), label="goal")
        r = pf.find_path_cells(s, g, nearest=True)
        if not free(walk, s):
            assert r.status == Status.NO_START
            assert_no_path(r)
            continue
        dist = dijkstra_costs(walk, weights, s, card, diag, conn == 8)
        if np.isfinite(dist[g[1], g[0]]):
            assert r.status == Status.FOUND and r.cost_int == int(dist[g[1], g[0]])
            assert as_cells(r.cells[[0, -1]]) == [s, g]
            continue
        best = reachable_nearest(dist, g)
        note(f"nearest reachable cell to {g}: {best}")
        if best == s:
            assert_no_path(r)  # docs/rules.md §6.2: the character stays put
            assert r.status != Status.FOUND
            continue
        assert r.status == Status.NEAREST and r.has_path and not r.found
        assert r.end_cell == best and r.start_cell == s
        assert is_valid_path(walk, r.cells, eight=conn == 8)
        assert as_cells(r.cells[[0, -1]]) == [s, best]
        assert r.cost_int == int(dist[best[1], best[0]]) == path_cost(r.cells, weights, card, diag)


def test_nearest_tie_goes_to_lower_index():
    # goal (3, 1) sits in a pocket cut off from the start's region; of the reachable
    # cells, (1, 0) and (1, 2) tie at squared distance 5 and (1, 0) has the lower index.
    walk = np.array(
        [
            [1, 1, 0, 0],
            [1, 0, 0, 1],
            [1, 1, 0, 0],
        ],
        bool,
    )
    pf = make_pf(walk, None)
    for start in ((0, 1), (1, 2), (0, 2)):
        r = pf.find_path_cells(start, (3, 1), nearest=True)
        assert r.status == Status.NEAREST and r.end_cell == (1, 0), start
    r = pf.find_path_cells((0, 1), (2, 1), nearest=True)  # a blocked goal: same rule
    assert r.status == Status.NEAREST and r.end_cell == (1, 0)


def test_nearest_isolated_start_and_found():
    walk = np.array([[1, 0, 1, 1]], bool)
    pf = make_pf(walk, None)
    r = pf.find_path_cells((0, 0), (3, 0), nearest=True)
    assert_no_path(r)
    assert r.status not in (Status.FOUND, Status.NEAREST)
    r = pf.find_path_cells((2, 0), (3, 0), nearest=True)
    assert r.status == Status.FOUND and r.cost_int == 10
    r = pf.find_path_cells((3, 0), (0, 0), nearest=True)  # blocked-off goal, nearest is (2, 0)
    assert r.status == Status.NEAREST and r.end_cell == (2, 0) and r.cost_int == 10
    r = pf.find_path_cells((3, 0), (1, 0), nearest=True)  # blocked goal itself
    assert r.status == Status.NEAREST and r.end_cell == (2, 0)
    r = pf.find_path_cells((3, 0), (1, 0))
    assert r.status == Status.NO_GOAL


# --------------------------------------------------------------------------- budget and window
@fixed(120)
@given(case=grids(), conn=st.sampled_from([8, 4]), data=st.data())
def test_budget_cuts_expansions_exactly(case, conn, data):
    walk, weights = case
    pf = make_pf(walk, weights, "seed", conn)
    s = data.draw(cells_st(walk), label="start")
    g = data.draw(cells_st(walk), label="goal")
    full = pf.find_path_cells(s, g, algorithm="astar")
    if not full.found:
        return
    needed = full.expanded
    # any budget >= needed gives the very same answer
    for b in (needed, needed + 1, 10**12):
        r = pf.find_path_cells(s, g, budget=b, algorithm="astar")
        assert (r.status, r.cost_int, r.expanded, r.generated) == (
            full.status,
            full.cost_int,
            needed,
            full.generated,
        )
        np.testing.assert_array_equal(r.cells, full.cells)
    if needed == 1:
        return
    k = data.draw(st.integers(1, needed - 1), label="budget")
    cut = pf.find_path_cells(s, g, budget=k, algorithm="astar")
    assert cut.status == Status.BUDGET_EXHAUSTED and cut.expanded == k
    assert_no_path(cut)
    # same pushes as the reference A* stopped after k expansions
    ref = reference_astar(
        walk,
        weights,
        s,
        g,
        10,
        14,
        conn == 8,
        int(weights[walk].min()) if weights is not None else 1,
        budget=k,
    )
    assert (ref["status"], ref["expanded"], ref["generated"]) == (
        "BUDGET_EXHAUSTED",
        k,
        cut.generated,
    )
    # the constructor's default budget, and a per-query override
    pfb = make_pf(walk, weights, "seed", conn, budget=k)
    r = pfb.find_path_cells(s, g, algorithm="astar")
    assert (r.status, r.expanded, r.generated) == (Status.BUDGET_EXHAUSTED, k, cut.generated)
    r = pfb.find_path_cells(s, g, budget=needed, algorithm="astar")
    assert r.status == Status.FOUND and r.cost_int == full.cost_int
    b = pfb.find_paths_batch([s], [g], algorithm="astar")
    assert b.status[0] == Status.BUDGET_EXHAUSTED and b.expanded[0] == k and b.cost_int[0] == -1


@fixed(150)
@given(case=grids(), cm=costs_st(), conn=st.sampled_from([8, 4]), data=st.data())
def test_window_matches_restricted_dijkstra(case, cm, conn, data):
    """A window allows entering (and squeezing past) only cells inside it; the start is exempt."""
    walk, weights = case
    costs, card, diag = cm
    depth, width = walk.shape
    pf = make_pf(walk, weights, costs, conn)
    s = data.draw(cells_st(walk), label="start")
    g = data.draw(cells_st(walk), label="goal")
    x0, x1 = sorted(
        data.draw(st.lists(st.integers(-2, width + 1), min_size=2, max_size=2), label="xs")
    )
    z0, z1 = sorted(
        data.draw(st.lists(st.integers(-2, depth + 1), min_size=2, max_size=2), label="zs")
    )
    if not (free(walk, s) and free(walk, g)):
        return
    zz, xx = np.mgrid[0:depth, 0:width]
    inside = (xx >= x0) & (xx <= x1) & (zz >= z0) & (zz <= z1)
    sub = walk & inside
    sub[s[1], s[0]] = True
    dist = dijkstra_costs(sub, weights, s, card, diag, conn == 8)
    want = dist[g[1], g[0]]
    r = pf.find_path_cells(s, g, window=(x0, z0, x1, z1))
    if np.isfinite(want):
        assert r.status == Status.FOUND and r.cost_int == int(want)
        assert is_valid_path(sub, r.cells, eight=conn == 8)
    else:
        assert r.status == Status.WINDOW_EXHAUSTED
        assert_no_path(r)
    # nearest within the window: the closest cell the windowed search can reach
    rn = pf.find_path_cells(s, g, window=(x0, z0, x1, z1), nearest=True)
    if not np.isfinite(want):
        best = reachable_nearest(dist, g)
        if best == s:
            assert not rn.has_path
        else:
            assert rn.status == Status.NEAREST and rn.end_cell == best
            assert rn.cost_int == int(dist[best[1], best[0]])


def wall_map() -> np.ndarray:
    """9x9 open map with a wall at x=3 for z=0..5: from (0, 0) to (6, 0) the only
    way round is through z >= 6."""
    walk = np.ones((9, 9), bool)
    walk[0:6, 3] = False
    return walk


def test_window_excluding_the_route():
    pf = make_pf(wall_map(), None)
    full = pf.find_path_cells((0, 0), (6, 0))
    assert full.found and full.cells[:, 1].max() == 6
    r = pf.find_path_cells((0, 0), (6, 0), window=(0, 0, 8, 5))
    assert r.status == Status.WINDOW_EXHAUSTED
    assert_no_path(r)
    assert r.expanded == 3 * 6  # exactly the cells x in 0..2, z in 0..5
    r = pf.find_path_cells((0, 0), (6, 0), window=(0, 0, 8, 5), nearest=True)
    assert r.status == Status.NEAREST and r.end_cell == (2, 0)


@pytest.mark.parametrize("window", [(0, 0, 6, 6), (0, 0, 8, 8), (-5, -5, 100, 100), (0, 0, 6, 7)])
def test_window_containing_the_route(window):
    pf = make_pf(wall_map(), None)
    full = pf.find_path_cells((0, 0), (6, 0), algorithm="astar")
    r = pf.find_path_cells((0, 0), (6, 0), window=window)
    assert r.status == Status.FOUND and r.cost_int == full.cost_int
    assert r.expanded <= full.expanded


def test_window_excluding_the_goal():
    pf = make_pf(np.ones((5, 5), bool), None)
    r = pf.find_path_cells((0, 0), (4, 4), window=(0, 0, 3, 3))
    assert r.status == Status.WINDOW_EXHAUSTED


# --------------------------------------------------------------------------- batch and determinism
def single_rows(pf: Pathfinder, starts, goals, budget=None):
    return [pf.find_path_cells(s, g, budget=budget) for s, g in zip(starts, goals, strict=True)]


def assert_batch_equals_singles(b: navkit.BatchResult, rows, paths: bool) -> None:
    assert len(b) == len(rows)
    for i, r in enumerate(rows):
        got = (int(b.status[i]), int(b.cost_int[i]), int(b.expanded[i]), int(b.generated[i]))
        want = (int(r.status), r.cost_int, r.expanded, r.generated)
        assert got == want, f"query {i}"
        assert b.cost[i] == r.cost
        if paths:
            np.testing.assert_array_equal(
                b.path(i), r.cells, err_msg=f"query {i} ({r.status.name})"
            )


@fixed(100)
@given(case=grids(), cm=costs_st(), conn=st.sampled_from([8, 4]), data=st.data())
def test_batch_equals_single_queries(case, cm, conn, data):
    walk, weights = case
    costs, _, _ = cm
    pf = make_pf(walk, weights, costs, conn)
    pairs = data.draw(
        st.lists(st.tuples(cells_st(walk), cells_st(walk)), min_size=0, max_size=12), label="pairs"
    )
    budget = data.draw(st.one_of(st.none(), st.integers(1, 40)), label="budget")
    starts = np.array([p[0] for p in pairs], dtype=np.int64).reshape(-1, 2)
    goals = np.array([p[1] for p in pairs], dtype=np.int64).reshape(-1, 2)
    rows = single_rows(pf, starts, goals, budget)
    for threads in (None, 1, 3):
        b = pf.find_paths_batch(starts, goals, budget=budget, threads=threads)
        assert b.path_offsets is None and b.path_cells is None
        assert_batch_equals_singles(b, rows, paths=False)
        bp = pf.find_paths_batch(starts, goals, budget=budget, threads=threads, return_paths=True)
        assert_batch_equals_singles(bp, rows, paths=True)
    assert (
        b.status.dtype == np.uint8 and b.cost_int.dtype == np.int64 and b.cost.dtype == np.float64
    )


def test_batch_paths_after_a_blocked_endpoint():
    """BUG: with return_paths=True, a query whose start or goal cell is blocked
    (NO_START / NO_GOAL) reports the path of the previous query answered by the
    same thread instead of an empty path (the kernel skips resetting its length)."""
    walk = np.ones((6, 6), bool)
    walk[0, 5] = False  # cell (5, 0) is blocked
    pf = make_pf(walk, None)
    starts = [[0, 0], [5, 0], [1, 1], [0, 0]]
    goals = [[3, 3], [1, 1], [5, 0], [2, 0]]
    for threads in (1, None):
        b = pf.find_paths_batch(starts, goals, return_paths=True, threads=threads)
        assert [Status(int(c)) for c in b.status] == [
            Status.FOUND,
            Status.NO_START,
            Status.NO_GOAL,
            Status.FOUND,
        ]
        assert b.path(1).shape == (0, 2), (
            f"threads={threads}: NO_START row got path {b.path(1).tolist()}"
        )
        assert b.path(2).shape == (0, 2), (
            f"threads={threads}: NO_GOAL row got path {b.path(2).tolist()}"
        )


def test_batch_paths_after_budget_exhausted():
    walk = np.ones((8, 8), bool)
    pf = make_pf(walk, None)
    b = pf.find_paths_batch(
        [[0, 0], [0, 0]], [[1, 1], [7, 7]], return_paths=True, budget=3, threads=1,
        algorithm="astar",
    )
    assert b.status.tolist() == [Status.FOUND, Status.BUDGET_EXHAUSTED]
    assert b.path(0).tolist() == [[0, 0], [1, 1]] and b.path(1).shape == (0, 2)


def test_batch_empty_and_paths_not_requested():
    pf = make_pf(np.ones((3, 3), bool), None)
    b = pf.find_paths_batch(np.zeros((0, 2), np.int64), np.zeros((0, 2), np.int64))
    assert len(b) == 0
    with pytest.raises(ValueError):
        pf.find_paths_batch([[0, 0]], [[1, 1]]).path(0)


def result_key(r: navkit.PathResult) -> tuple:
    return (
        int(r.status),
        r.cost_int,
        r.expanded,
        r.generated,
        r.cells.tolist(),
        r.waypoints.tolist(),
        r.start_cell,
        r.end_cell,
    )


def test_determinism_repeat_and_order():
    rng = np.random.default_rng(2024)
    walk = rng.random((40, 50)) < 0.7
    weights = rng.integers(1, 6, size=walk.shape)
    queries = [
        (
            (int(rng.integers(50)), int(rng.integers(40))),
            (int(rng.integers(50)), int(rng.integers(40))),
            bool(rng.random() < 0.5),
            bool(rng.random() < 0.3),
        )
        for _ in range(60)
    ]
    for w in (None, weights):
        pf = make_pf(walk, w, "exact")

        def run(p, qs):
            return [
                result_key(p.find_path_cells(s, g, smooth=sm, nearest=nr)) for s, g, sm, nr in qs
            ]

        first = run(pf, queries)
        assert run(pf, queries) == first
        # interleave other work on the same workspace, then run in reverse on a fresh pathfinder
        pf.distance_field([[0, 0], [10, 10]])
        pf.find_paths_batch([q[0] for q in queries], [q[1] for q in queries], return_paths=True)
        assert run(pf, queries) == first
        pf2 = make_pf(walk, w, "exact")
        assert run(pf2, queries[::-1])[::-1] == first
        starts = np.array([q[0] for q in queries])
        goals = np.array([q[1] for q in queries])
        b1 = pf.find_paths_batch(starts, goals, return_paths=True)
        b2 = pf2.find_paths_batch(starts[::-1], goals[::-1], return_paths=True, threads=1)
        for name in ("status", "cost_int", "expanded", "generated"):
            np.testing.assert_array_equal(getattr(b1, name), getattr(b2, name)[::-1])
        for i in range(len(queries)):
            if (
                b1.status[i] == Status.FOUND
            ):  # other rows: see test_batch_paths_after_a_blocked_endpoint
                np.testing.assert_array_equal(b1.path(i), b2.path(len(queries) - 1 - i))


def test_large_costs_do_not_overflow():
    """Exact costs times large terrain weights on a few hundred thousand cells: the
    answer must still be exact, or the constructor must refuse with ConfigError
    (for at least one of these weight levels it must accept)."""
    rng = np.random.default_rng(7)
    side = 600
    walk = rng.random((side, side)) < 0.8
    goals = ((side - 1, side - 1), (side - 1, 0), (300, 450))
    for x, z in ((1, 1), *goals):
        walk[z - 1 : z + 2, x - 1 : x + 2] = True  # no walled-in endpoints
    noise = rng.random(walk.shape) < 0.1
    accepted = 0
    for wmin in (65535, 20000, 5000, 1000):
        weights = np.where(noise, min(wmin + 500, 65535), wmin).astype(np.int32)
        try:
            pf = Pathfinder(NavGrid(walk, weights=weights), costs="exact")
        except ConfigError:
            continue
        accepted += 1
        dist = dijkstra_costs(walk, weights, (0, 0), *NAMED_COSTS["exact"])
        assert dist[np.isfinite(dist)].max() < 2**53  # the float64 reference is exact
        for goal in goals:
            want = dist[goal[1], goal[0]]
            assert np.isfinite(want)
            r = pf.find_path_cells((0, 0), goal)
            assert r.status == Status.FOUND and r.cost_int == int(want), (wmin, goal)
            b = pf.find_paths_batch([[0, 0]], [goal])
            assert b.status[0] == Status.FOUND and b.cost_int[0] == int(want), (wmin, goal)
    assert accepted > 0, "every weight level was refused"


# --------------------------------------------------------------------------- world queries
CELL_SIZES = [0.25, 0.5, 1.0, 2.0]  # 8 m is a whole number of cells for each


@st.composite
def world_points(draw: st.DrawFn, walk: np.ndarray, cs: float, min_x: float, min_z: float):
    """A world point well inside a cell (so its cell is unambiguous), up to 12 cells
    off the grid."""
    depth, width = walk.shape
    cx = draw(st.integers(-12, width + 11))
    cz = draw(st.integers(-12, depth + 11))
    fx = draw(st.sampled_from([0.05, 0.3, 0.5, 0.72, 0.95]))
    fz = draw(st.sampled_from([0.05, 0.3, 0.5, 0.72, 0.95]))
    return (cx, cz), (min_x + (cx + fx) * cs, min_z + (cz + fz) * cs)


@fixed(200)
@given(
    case=grids(max_side=12),
    cs=st.sampled_from(CELL_SIZES),
    origin=st.sampled_from([(0.0, 0.0), (-3.5, 7.25), (12.0, -40.0)]),
    data=st.data(),
)
def test_world_queries_snap_trim_and_exact_end(case, cs, origin, data):
    walk, weights = case
    min_x, min_z = origin
    grid = NavGrid(walk, weights=weights, cell_size=cs, min_x=min_x, min_z=min_z, floor_y=1.5)
    pf = Pathfinder(grid)
    radius = int(8 / cs)
    (scell, sw) = data.draw(world_points(walk, cs, min_x, min_z), label="start")
    (ecell, ew) = data.draw(world_points(walk, cs, min_x, min_z), label="end")
    s = brute_snap(walk, scell, radius)
    g = brute_snap(walk, ecell, radius)
    assert pf.snap(sw) == s
    assert pf.snap(ew) == g
    r = pf.find_path(sw, ew)
    if s is None:
        assert r.status == Status.NO_START and not r.has_path
        return
    if g is None:
        assert r.status == Status.NO_GOAL and not r.has_path
        return
    assert r.start_cell == s
    dist = dijkstra_costs(walk, weights, s, 10, 14)
    if not np.isfinite(dist[g[1], g[0]]):
        assert r.status == Status.UNREACHABLE and not r.has_path
        return
    assert r.status == Status.FOUND and r.end_cell == g
    assert r.cost_int == int(dist[g[1], g[0]])
    assert is_valid_path(walk, r.cells) and as_cells(r.cells[[0, -1]]) == [s, g]
    kept = pf.smooth_cells(r.cells)
    check_smoothing(walk, r.cells, kept, weights)
    pts = np.column_stack([min_x + (kept[:, 0] + 0.5) * cs, min_z + (kept[:, 1] + 0.5) * cs])
    if ecell == g:  # the end's own cell is walkable: the path ends exactly at the end point
        pts[-1] = ew
    if len(pts) > 1 and math.hypot(pts[0, 0] - sw[0], pts[0, 1] - sw[1]) <= 0.75 * cs:
        pts = pts[1:]
    np.testing.assert_allclose(r.waypoints, pts, rtol=0, atol=1e-9)
    if ecell == g:
        assert tuple(r.waypoints[-1]) == ew
    p3 = r.points3d()
    assert p3.shape == (len(pts), 3) and np.all(p3[:, 1] == 1.5)
    # (x, y, z) points are accepted and give the same answer
    r3 = pf.find_path((sw[0], 99.0, sw[1]), (ew[0], -1.0, ew[1]))
    np.testing.assert_array_equal(r3.waypoints, r.waypoints)


def test_first_waypoint_trim_and_exact_end():
    grid = NavGrid(np.ones((5, 10), bool), cell_size=0.4, min_x=-2.0, min_z=1.0)
    pf = Pathfinder(grid)
    start = (-2.0 + 0.4 * 0.5 + 0.01, 1.0 + 0.2)  # 0.01 m from the centre of cell (0, 0)
    end = (-2.0 + 0.4 * 9 + 0.33, 1.0 + 0.4 * 4 + 0.05)  # inside cell (9, 4)
    r = pf.find_path(start, end)
    assert r.status == Status.FOUND and r.start_cell == (0, 0) and r.end_cell == (9, 4)
    # straight line of sight from (0, 0) to (9, 4): smoothed to two cells, first one trimmed
    assert r.waypoints.tolist() == [list(end)]
    r = pf.find_path(start, end, smooth=False)
    assert len(r.waypoints) == len(r.cells) - 1
    assert tuple(r.waypoints[-1]) == end


def test_end_snapped_keeps_cell_centre():
    walk = np.ones((3, 6), bool)
    walk[:, 5] = False
    pf = Pathfinder(NavGrid(walk))
    r = pf.find_path((0.5, 1.5), (5.6, 1.2))  # end cell (5, 1) blocked -> snapped to (4, 1)
    assert r.status == Status.FOUND and r.end_cell == (4, 1)
    assert tuple(r.waypoints[-1]) == (4.5, 1.5)


def test_find_path_nearest_goal_far_outside_grid():
    """BUG (docs/rules.md §6.3): find-path-to-nearest with an end point far outside the
    grid (no walkable cell within 8 m) measures 'nearest' to a point clamped onto
    the grid border instead of to the end point's own cell, and so can end at a
    cell that is not the reachable cell closest to the requested destination."""
    walk = np.zeros((10, 10), bool)
    walk[:, :6] = True  # columns x <= 5 ...
    walk[0, :] = True  # ... plus the top row out to x = 9
    pf = Pathfinder(NavGrid(walk))
    dist = dijkstra_costs(walk, None, (0, 9), 10, 14)
    end_cell = (100, 5)
    want = reachable_nearest(dist, end_cell)  # (9, 0): 91^2 + 5^2 < 95^2
    assert want == (9, 0)
    r = pf.find_path((0.5, 9.5), (100.5, 5.5), nearest=True)
    assert r.status == Status.NEAREST
    assert r.end_cell == want


def test_find_path_nearest_goal_outside_grid_within_snap():
    walk = np.ones((4, 4), bool)
    walk[:, 2] = False
    pf = Pathfinder(NavGrid(walk))
    # end at cell (6, 1): snaps to (3, 1), which is cut off by the wall at x=2
    r = pf.find_path((0.5, 1.5), (6.5, 1.5))
    assert r.status == Status.UNREACHABLE
    r = pf.find_path_to_nearest((0.5, 1.5), (6.5, 1.5))
    assert r.status == Status.NEAREST and r.end_cell == (1, 1)


@pytest.mark.parametrize(
    "bad",
    [
        (math.nan, 0.0),
        (0.0, math.inf),
        (-math.inf, 1.0),
        (1.0, 2.0, math.nan),
        (1.0,),
        (1.0, 2.0, 3.0, 4.0),
        "ab",
        None,
    ],
)
def test_world_point_errors(bad):
    pf = Pathfinder(NavGrid(np.ones((3, 3), bool)))
    with pytest.raises(QueryError):
        pf.find_path(bad, (1.0, 1.0))
    with pytest.raises(QueryError):
        pf.find_path((1.0, 1.0), bad)
    with pytest.raises(QueryError):
        pf.snap(bad)
    with pytest.raises(QueryError):
        pf.find_path_to_nearest((1.0, 1.0), bad)


# --------------------------------------------------------------------------- bad input
@pytest.fixture(scope="module")
def pf55() -> Pathfinder:
    walk = np.ones((5, 5), bool)
    walk[2, 2] = False
    return Pathfinder(NavGrid(walk))


BAD_CELLS = [
    (-1, 0),
    (5, 0),
    (0, 5),
    (0, -1),
    (10**20, 0),  # out of bounds
    (0.5, 1),
    (1, 2.25),
    (math.nan, 1),
    (math.inf, 0),  # not whole / not finite
    (True, False),
    np.array([True, False]),  # bools
    (1, 2, 3),
    (1,),
    5,
    [[1, 2]],
    (),
    None,
    "ab",
    ("1", "2"),
    (1 + 0j, 2),  # shapes / types
]


@pytest.mark.parametrize("bad", BAD_CELLS, ids=repr)
def test_bad_cells_raise_query_error(pf55, bad):
    with pytest.raises(QueryError):
        pf55.find_path_cells(bad, (0, 0))
    with pytest.raises(QueryError):
        pf55.find_path_cells((0, 0), bad)
    with pytest.raises(QueryError):
        pf55.line_of_sight(bad, (0, 0))
    with pytest.raises(QueryError):
        pf55.distance_field([bad] if not isinstance(bad, np.ndarray) else bad[None])


def test_whole_float_cells_are_accepted(pf55):
    a = pf55.find_path_cells((0.0, 1.0), np.array([4.0, 4.0]))
    b = pf55.find_path_cells((0, 1), (4, 4))
    assert result_key(a) == result_key(b)
    assert (
        pf55.find_path_cells(np.array([0, 1], np.uint8), np.array([4, 4], np.int16)).cost_int
        == b.cost_int
    )


@pytest.mark.parametrize(
    ("starts", "goals"),
    [
        (np.array([[0.0, 0.0]]), np.array([[1, 1]])),  # float dtype
        (np.array([[0, 0]]), np.array([[1.5, 1]])),
        (np.array([[True, False]]), np.array([[1, 1]])),  # bool dtype
        (np.array([[0, 0]], dtype=object), np.array([[1, 1]])),
        (np.array([["0", "0"]]), np.array([[1, 1]])),
        (np.array([0, 0]), np.array([1, 1])),  # 1-D
        (np.array([[0, 0, 0]]), np.array([[1, 1, 1]])),  # (n, 3)
        (np.zeros((1, 2, 2), np.int64), np.zeros((1, 2, 2), np.int64)),
        (np.array([[0, 0], [1, 1]]), np.array([[1, 1]])),  # length mismatch
        (np.array([[0, 5]]), np.array([[1, 1]])),  # out of bounds
        (np.array([[-1, 0]]), np.array([[1, 1]])),
        (np.array([[0, 0]]), np.array([[5, 0]])),
        (np.array([[0, 0]], np.uint64) + np.uint64(2**63), np.array([[1, 1]])),
    ],
)
def test_bad_batch_arrays_raise_query_error(pf55, starts, goals):
    with pytest.raises(QueryError):
        pf55.find_paths_batch(starts, goals)
    with pytest.raises(QueryError):
        pf55.find_paths_batch(starts, goals, return_paths=True)


@pytest.mark.parametrize("threads", [0, -3])
def test_bad_batch_threads(pf55, threads):
    with pytest.raises(QueryError):
        pf55.find_paths_batch([[0, 0]], [[1, 1]], threads=threads)


@pytest.mark.parametrize("threads", ["x", None.__class__, 2.5j])
def test_batch_threads_of_wrong_type_raise_navkit_error(pf55, threads):
    """BUG (minor): threads='x' escapes as a bare ValueError/TypeError from int(),
    not a navkit QueryError."""
    with pytest.raises(NavkitError):
        pf55.find_paths_batch([[0, 0]], [[1, 1]], threads=threads)


@pytest.mark.parametrize("budget", [0, -1, True, False, 1.5, "3", 2.0])
def test_bad_budget(pf55, budget):
    with pytest.raises(QueryError):
        pf55.find_path_cells((0, 0), (4, 4), budget=budget)
    with pytest.raises(QueryError):
        pf55.find_paths_batch([[0, 0]], [[4, 4]], budget=budget)
    with pytest.raises(QueryError):
        pf55.find_path((0.5, 0.5), (4.5, 4.5), budget=budget)
    with pytest.raises(QueryError):
        Pathfinder(pf55.grid, budget=budget)


def test_budget_accepts_numpy_ints(pf55):
    assert (
        pf55.find_path_cells((0, 0), (4, 4), budget=np.int64(3), algorithm="astar").status
        == Status.BUDGET_EXHAUSTED
    )


@pytest.mark.parametrize(
    "window",
    [(3, 0, 1, 4), (0, 3, 4, 1), (0, 0, 1), "abcd", 5, (0, 0, "a", 1), (0, math.nan, 1, 1)],
)
def test_bad_window(pf55, window):
    with pytest.raises(QueryError):
        pf55.find_path_cells((0, 0), (4, 4), window=window)


@pytest.mark.parametrize(
    "window", [(0, 0, math.inf, 4), (-math.inf, 0, 4, 4), (0, 0, 4, np.float64("inf"))]
)
def test_non_finite_window_raises_query_error(pf55, window):
    """BUG: an infinite window bound escapes as OverflowError (int(inf)), which is
    not a NavkitError; NaN in the same place is a QueryError."""
    with pytest.raises(QueryError):
        pf55.find_path_cells((0, 0), (4, 4), window=window)


def test_bad_algorithm(pf55):
    with pytest.raises(QueryError):
        pf55.find_path_cells((0, 0), (4, 4), algorithm="bfs")


@pytest.mark.parametrize(
    "costs",
    [
        "foo",
        "SEED",
        (10, 30),
        (10, 9),
        (0, 0),
        (-10, -14),
        (10.0, 14.0),
        (True, True),
        [10, 14],
        (10, 14, 20),
        None,
        10,
    ],
)
def test_bad_costs(costs):
    with pytest.raises(ConfigError):
        Pathfinder(NavGrid(np.ones((2, 2), bool)), costs=costs)


@pytest.mark.parametrize(
    "kw",
    [
        {"connectivity": 6},
        {"connectivity": True},
        {"connectivity": "8"},
        {"snap_radius": -1.0},
        {"snap_radius": math.nan},
        {"snap_radius": math.inf},
    ],
)
def test_bad_pathfinder_options(kw):
    with pytest.raises(ConfigError):
        Pathfinder(NavGrid(np.ones((2, 2), bool)), **kw)


def test_pathfinder_needs_a_navgrid_or_an_array():
    with pytest.raises(QueryError):
        Pathfinder([[True]])  # a list is neither


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (0, 0)])
def test_empty_grid(shape):
    with pytest.raises(ConfigError):
        NavGrid(np.ones(shape, bool))


@pytest.mark.parametrize(
    "walk",
    [np.ones(5, bool), np.ones((2, 2, 2), bool), np.array([[np.nan, 1.0]]), np.array([["a"]])],
)
def test_bad_walkable(walk):
    with pytest.raises(ConfigError):
        NavGrid(walk)


def test_bad_distance_field_args(pf55):
    for bad in (
        np.zeros((0, 2), np.int64),
        np.zeros((2, 3), np.int64),
        [[0.5, 1]],
        [[9, 9]],
        np.zeros((1, 2, 2), np.int64),
    ):
        with pytest.raises(QueryError):
            pf55.distance_field_int(bad)
    with pytest.raises(QueryError):
        pf55.distance_field([[0, 0]], out=np.empty((4, 4)))
    with pytest.raises(QueryError):
        pf55.distance_field([[0, 0]], out=np.empty((5, 5), np.float32))
    out = np.empty((5, 5))
    assert pf55.distance_field([[0, 0]], out=out) is out


def test_bad_smooth_cells_args(pf55):
    for bad in (
        np.zeros((3,), np.int64),
        np.zeros((2, 3), np.int64),
        np.array([[0.0, 1.0]]),
        np.array([[True, False]]),
        np.array([[0, 5]]),
        np.array([[-1, 0]]),
        np.array([[5, 0], [0, 0]]),
    ):
        with pytest.raises(QueryError):
            pf55.smooth_cells(bad)


@fixed(300)
@given(
    value=st.one_of(
        st.tuples(st.integers(-(2**70), 2**70), st.integers(-(2**70), 2**70)),
        st.tuples(st.floats(), st.floats()),
        st.lists(st.integers(-10, 10), max_size=4),
        st.text(max_size=3),
        st.none(),
        st.booleans(),
    )
)
def test_arbitrary_cell_arguments_never_crash(pf55, value):
    for call in (
        lambda: pf55.find_path_cells(value, (0, 0)),
        lambda: pf55.find_path_cells((0, 0), value, nearest=True, smooth=True),
        lambda: pf55.line_of_sight(value, (4, 4)),
        lambda: pf55.find_path(value, (1.0, 1.0)),
    ):
        try:
            call()
        except NavkitError:
            pass
