"""Jump Point Search (``algorithm="jps"``) against A* and the Moving AI optimal lengths.

JPS must return A*'s optimal integer cost on every query (the path itself may
be another optimal path), a full cell chain that is a legal move sequence,
and the same answers through the batch API. Hypothesis runs derandomized
with no example database, so every run checks the same cases.
"""

from __future__ import annotations

import time
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import navkit
from navkit import NavGrid, Pathfinder, QueryError, Status
from navkit._kernels import jps as _jps
from tests.conftest import fixed, movingai_dir
from tests.jitcheck import assert_same_without_jit
from tests.reference import brute_line_of_sight, is_valid_path, path_cost, reachable_nearest


# --------------------------------------------------------------------------- strategies
@st.composite
def scenes(draw: st.DrawFn, max_side: int = 20) -> dict[str, object]:
    """A random grid (up to 20x20), cost model, overlay circles and a few queries."""
    depth = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.45, 0.6, 0.75, 0.85, 0.95, 1.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walk = rng.random((depth, width)) < density
    costs = draw(st.sampled_from(["seed", "exact", "pair"]))
    if costs == "pair":
        card = draw(st.integers(1, 30))
        costs = (card, draw(st.integers(card, 2 * card)))
    k = draw(st.integers(0, 3))
    circles = [
        [float(rng.uniform(-1, width + 1)), float(rng.uniform(-1, depth + 1)),
         float(rng.uniform(0, 3))]
        for _ in range(k)
    ]
    pick = st.tuples(st.integers(0, width - 1), st.integers(0, depth - 1))
    queries = draw(st.lists(st.tuples(pick, pick), min_size=1, max_size=6))
    return {"walk": walk, "costs": costs, "circles": circles, "queries": queries}


def effective(pf: Pathfinder, circles: list[list[float]]) -> np.ndarray:
    """The walkable array with the overlay circles blocked (a cell is covered
    when its centre lies in a closed disc; cell size 1, origin 0)."""
    walk = pf.grid.walkable.copy()
    zz, xx = np.mgrid[0 : walk.shape[0], 0 : walk.shape[1]]
    for x, z, r in circles:
        walk &= (xx + 0.5 - x) ** 2 + (zz + 0.5 - z) ** 2 > r * r
    return walk


def card_diag(pf: Pathfinder) -> tuple[int, int]:
    return pf.costs.card, pf.costs.diag


def assert_jps_path(pf: Pathfinder, walk: np.ndarray, r: navkit.PathResult, s, g) -> None:
    """A found JPS path: full chain from s to g, legal moves, cells adding up to cost_int."""
    assert r.status == Status.FOUND
    assert tuple(r.cells[0]) == tuple(s) and tuple(r.cells[-1]) == tuple(g)
    assert is_valid_path(walk, r.cells), r.cells.tolist()
    assert path_cost(r.cells, None, *card_diag(pf)) == r.cost_int
    assert r.end_cell == tuple(g)
    np.testing.assert_array_equal(r.waypoints, pf.grid.cells_to_world(r.cells))


# --------------------------------------------------------------------------- JPS == A*
@fixed(300)
@given(scenes())
def test_jps_cost_equals_astar_random(scene):
    walk, circles = scene["walk"], scene["circles"]
    pf = Pathfinder(NavGrid(walk), costs=scene["costs"])
    obstacles = circles or None
    eff = effective(pf, circles)
    for s, g in scene["queries"]:
        note(f"{s} -> {g}, circles {circles}, costs {scene['costs']}")
        a = pf.find_path_cells(s, g, obstacles=obstacles)
        j = pf.find_path_cells(s, g, algorithm="jps", obstacles=obstacles)
        assert j.status == a.status
        assert j.cost_int == a.cost_int
        if a.status == Status.FOUND:
            assert_jps_path(pf, eff, j, s, g)
            assert j.expanded <= a.expanded
        else:
            assert len(j.cells) == 0
    # the overlay leaves the packed rows as they were
    if pf.engine.jps.built:
        fresh = Pathfinder(NavGrid(walk), costs=scene["costs"])
        for mine, theirs in zip(pf.engine.jps.bits()[:2], fresh.engine.jps.bits()[:2], strict=True):
            np.testing.assert_array_equal(mine, theirs)


@fixed(60)
@given(scenes(max_side=14))
def test_auto_is_jps_on_uniform_grids(scene):
    pf = Pathfinder(NavGrid(scene["walk"]), costs=scene["costs"])
    for s, g in scene["queries"]:
        j = pf.find_path_cells(s, g, algorithm="jps")
        auto = pf.find_path_cells(s, g, algorithm="auto")
        assert (auto.status, auto.cost_int, auto.expanded, auto.generated) == (
            j.status, j.cost_int, j.expanded, j.generated)
        np.testing.assert_array_equal(auto.cells, j.cells)


def test_open_grid_and_corridor_costs():
    pf = Pathfinder(NavGrid(np.ones((40, 70), bool)), costs="exact")
    for s, g in [((0, 0), (69, 39)), ((69, 0), (0, 39)),
                 ((5, 20), (60, 20)), ((3, 3), (3, 3)), ((0, 39), (1, 0))]:
        a = pf.find_path_cells(s, g)
        j = pf.find_path_cells(s, g, algorithm="jps")
        assert j.cost_int == a.cost_int
        assert_jps_path(pf, pf.grid.walkable, j, s, g)
    # the start is the goal: one cell, cost 0
    r = pf.find_path_cells((3, 3), (3, 3), algorithm="jps")
    assert r.cells.tolist() == [[3, 3]] and r.cost_int == 0 and r.expanded == 1


def test_corner_rule_and_forced_neighbours():
    # a wall with a gap: the path must go through the gap without cutting its corners
    walk = np.ones((9, 9), bool)
    walk[4, :] = False
    walk[4, 6] = True
    pf = Pathfinder(NavGrid(walk), costs="seed")
    for s, g in [((0, 0), (0, 8)), ((8, 8), (1, 0)), ((6, 3), (6, 5)), ((5, 3), (7, 5))]:
        a = pf.find_path_cells(s, g)
        j = pf.find_path_cells(s, g, algorithm="jps")
        assert j.cost_int == a.cost_int
        assert_jps_path(pf, walk, j, s, g)
    # two blocked cells touching at a corner: no diagonal squeeze
    walk = np.ones((2, 2), bool)
    walk[0, 1] = walk[1, 0] = False
    r = Pathfinder(NavGrid(walk)).find_path_cells((0, 0), (1, 1), algorithm="jps")
    assert r.status == Status.UNREACHABLE and len(r.cells) == 0


def test_blocked_endpoints_and_statuses():
    walk = np.ones((5, 5), bool)
    walk[2, 2] = False
    pf = Pathfinder(NavGrid(walk))
    assert pf.find_path_cells((2, 2), (0, 0), algorithm="jps").status == Status.NO_START
    assert pf.find_path_cells((0, 0), (2, 2), algorithm="jps").status == Status.NO_GOAL
    enclosed = np.ones((5, 5), bool)
    enclosed[1:4, 1:4] = False
    enclosed[2, 2] = True
    pf = Pathfinder(NavGrid(enclosed))
    r = pf.find_path_cells((0, 0), (2, 2), algorithm="jps")
    assert r.status == Status.UNREACHABLE and r.cost_int == -1 and r.expanded > 0
    # obstacles cover the goal: NO_GOAL, as A* says
    pf = Pathfinder(NavGrid(np.ones((6, 6), bool)))
    assert pf.find_path_cells((0, 0), (5, 5), algorithm="jps",
                              obstacles=[[5.5, 5.5, 0.2]]).status == Status.NO_GOAL
    assert pf.find_path_cells((0, 0), (5, 5), obstacles=[[5.5, 5.5, 0.2]]).status == Status.NO_GOAL


# --------------------------------------------------------------------------- algorithm choice
def test_weights_raise_for_jps_and_auto_picks_astar():
    walk = np.ones((6, 8), bool)
    weights = np.ones((6, 8), np.int32)
    weights[:, 3] = 5
    pf = Pathfinder(NavGrid(walk, weights=weights), costs="seed")
    with pytest.raises(QueryError, match="JPS needs a uniform-cost grid"):
        pf.find_path_cells((0, 0), (7, 5), algorithm="jps")
    with pytest.raises(QueryError, match="JPS needs a uniform-cost grid"):
        pf.find_paths_batch([[0, 0]], [[7, 5]], algorithm="jps")
    with pytest.raises(QueryError, match="JPS needs a uniform-cost grid"):
        pf.find_path((0.5, 0.5), (7.5, 5.5), algorithm="jps")
    assert pf.resolve_algorithm("auto") == "astar"
    auto = pf.find_path_cells((0, 0), (7, 5), algorithm="auto")
    a = pf.find_path_cells((0, 0), (7, 5))
    assert (auto.cost_int, auto.expanded) == (a.cost_int, a.expanded)
    np.testing.assert_array_equal(auto.cells, a.cells)
    b = pf.find_paths_batch([[0, 0]], [[7, 5]], algorithm="auto")
    assert int(b.cost_int[0]) == a.cost_int and int(b.expanded[0]) == a.expanded
    # all-ones weights are no weights (NavGrid drops them): JPS is fine
    uniform = Pathfinder(NavGrid(walk, weights=np.ones((6, 8), np.int32)))
    assert uniform.resolve_algorithm("auto") == "jps"
    assert uniform.find_path_cells((0, 0), (7, 5), algorithm="jps").found


def test_four_connected_and_bad_names():
    pf = Pathfinder(NavGrid(np.ones((4, 4), bool)), connectivity=4)
    with pytest.raises(QueryError, match="8-connected"):
        pf.find_path_cells((0, 0), (3, 3), algorithm="jps")
    assert pf.resolve_algorithm("auto") == "astar"
    assert pf.find_path_cells((0, 0), (3, 3), algorithm="auto").cost == 6.0
    pf8 = Pathfinder(NavGrid(np.ones((4, 4), bool)))
    for bad in ("JPS", "jump", "", None):
        with pytest.raises(QueryError, match="algorithm must be one of"):
            pf8.find_path_cells((0, 0), (3, 3), algorithm=bad)
    assert pf8.resolve_algorithm("auto") == "jps"


def test_jps_keys_that_do_not_fit():
    # a grid where A*'s keys fit but JPS's coordinate codes need a bit more
    pf = Pathfinder(NavGrid(np.ones((3, 3), bool)), costs="exact")
    pf.engine.jps.fits = pf.engine.jps.usable = False
    with pytest.raises(QueryError, match="queue keys"):
        pf.find_path_cells((0, 0), (2, 2), algorithm="jps")
    assert pf.resolve_algorithm("auto") == "astar"
    assert pf.find_path_cells((0, 0), (2, 2), algorithm="auto").found


# --------------------------------------------------------------------------- batch
def test_batch_equals_single_queries():
    rng = np.random.default_rng(3)
    walk = rng.random((40, 50)) < 0.75
    pf = Pathfinder(NavGrid(walk), costs="exact")
    free = np.argwhere(walk)[:, ::-1]
    starts = free[rng.integers(len(free), size=120)]
    goals = free[rng.integers(len(free), size=120)]
    starts[3] = (0, 0) if not walk[0, 0] else starts[3]
    blocked = np.argwhere(~walk)[:, ::-1]
    goals[7] = blocked[0]
    for obstacles in (None, [[10.5, 10.5, 3.0], [30.0, 20.0, 5.0]]):
        for threads in (1, 2, 3):
            b = pf.find_paths_batch(starts, goals, algorithm="jps", return_paths=True,
                                    threads=threads, obstacles=obstacles)
            for i, (s, g) in enumerate(zip(starts, goals, strict=True)):
                r = pf.find_path_cells(tuple(int(v) for v in s), tuple(int(v) for v in g),
                                       algorithm="jps", obstacles=obstacles)
                assert int(b.status[i]) == int(r.status)
                assert int(b.cost_int[i]) == r.cost_int
                assert (int(b.expanded[i]), int(b.generated[i])) == (r.expanded, r.generated)
                np.testing.assert_array_equal(b.path(i), r.cells)
        a = pf.find_paths_batch(starts, goals, obstacles=obstacles)
        j = pf.find_paths_batch(starts, goals, algorithm="jps", obstacles=obstacles)
        np.testing.assert_array_equal(j.cost_int, a.cost_int)
        np.testing.assert_array_equal(j.status, a.status)
    assert int(b.status[7]) == Status.NO_GOAL


def test_batch_budget_and_generation_wrap():
    walk = np.ones((30, 30), bool)
    walk[10, 2:28] = False
    pf = Pathfinder(NavGrid(walk))
    starts = np.array([[15, 0]] * 5)
    goals = np.array([[15, 29]] * 5)
    b = pf.find_paths_batch(starts, goals, algorithm="jps", budget=1)
    assert (b.status == Status.BUDGET_EXHAUSTED).all() and (b.expanded == 1).all()
    full = pf.find_paths_batch(starts, goals, algorithm="jps")
    # the generations wrap around: state is cleared, answers unchanged
    from navkit._kernels.search import GEN_LIMIT as _GEN_LIMIT

    pf.engine.batches.jps_state[1][:] = _GEN_LIMIT - 2
    again = pf.find_paths_batch(starts, goals, algorithm="jps")
    np.testing.assert_array_equal(again.cost_int, full.cost_int)
    pf.engine.overlay.counters[0] = _GEN_LIMIT - 1  # the last JPS generation
    r = pf.find_path_cells((15, 0), (15, 29), algorithm="jps")
    assert r.cost_int == int(full.cost_int[0]) and pf.engine.overlay.counters[0] == 1


# ------------------------------------------------------------------------ nearest, budget, window
@fixed(120)
@given(scenes(max_side=12))
def test_nearest_with_jps_equals_astar(scene):
    pf = Pathfinder(NavGrid(scene["walk"]), costs=scene["costs"])
    obstacles = scene["circles"] or None
    for s, g in scene["queries"]:
        a = pf.find_path_cells(s, g, nearest=True, obstacles=obstacles)
        j = pf.find_path_cells(s, g, nearest=True, algorithm="jps", obstacles=obstacles)
        assert (j.status, j.cost_int, j.end_cell) == (a.status, a.cost_int, a.end_cell)
        if a.status == Status.NEAREST:
            # the same end cell (the flood picks A*'s) and cost; the path is
            # JPS's, maybe another shortest one
            assert is_valid_path(effective(pf, scene["circles"]), j.cells)
            assert tuple(j.cells[0]) == tuple(s) and tuple(j.cells[-1]) == j.end_cell
            assert path_cost(j.cells, None, *card_diag(pf)) == j.cost_int


def test_nearest_world_query_and_reference():
    walk = np.ones((12, 12), bool)
    walk[:, 6] = False  # the right half is cut off
    pf = Pathfinder(NavGrid(walk), costs="exact")
    a = pf.find_path_to_nearest((1.5, 5.5), (10.5, 5.5), algorithm="astar")
    j = pf.find_path_to_nearest((1.5, 5.5), (10.5, 5.5), algorithm="jps")
    assert j.status == a.status == Status.NEAREST
    assert (j.cost_int, j.end_cell) == (a.cost_int, a.end_cell)
    from tests.reference import dijkstra_costs

    want = reachable_nearest(dijkstra_costs(walk, None, (1, 5), 1_000_000, 1_414_214), (10, 5))
    assert j.end_cell == want
    # the goal cell blocked and nearest: A*'s answer too
    r = pf.find_path_cells((1, 5), (6, 5), nearest=True, algorithm="jps")
    assert r.status == Status.NEAREST and r.end_cell == (5, 5)


def test_budget_counts_jump_points():
    walk = np.ones((40, 40), bool)
    walk[20, 1:] = False
    pf = Pathfinder(NavGrid(walk))
    full = pf.find_path_cells((39, 39), (10, 0), algorithm="jps")
    assert full.found and full.expanded > 2
    r = pf.find_path_cells((39, 39), (10, 0), algorithm="jps", budget=full.expanded - 1)
    assert (r.status == Status.BUDGET_EXHAUSTED and r.expanded == full.expanded - 1
            and len(r.cells) == 0)
    # with nearest, the path to the expanded jump point closest to the goal (none while that
    # is the start)
    paths = 0
    for budget in range(1, full.expanded):
        r = pf.find_path_cells((39, 39), (10, 0), algorithm="jps", budget=budget, nearest=True)
        assert r.status == Status.BUDGET_EXHAUSTED and r.expanded == budget
        if r.has_path:
            paths += 1
            assert is_valid_path(walk, r.cells) and tuple(r.cells[0]) == (39, 39)
            assert r.end_cell != (39, 39) and tuple(r.cells[-1]) == r.end_cell
            assert path_cost(r.cells, None, 10, 14) == r.cost_int
    assert paths > 0
    ok = pf.find_path_cells((39, 39), (10, 0), algorithm="jps", budget=full.expanded)
    assert ok.found and ok.cost_int == full.cost_int


def test_window_queries_run_astar():
    walk = np.ones((20, 20), bool)
    pf = Pathfinder(NavGrid(walk))
    for kw in ({"window": (0, 0, 9, 9)}, {"window": (0, 0, 9, 9), "nearest": True}):
        a = pf.find_path_cells((1, 1), (15, 15), **kw)
        j = pf.find_path_cells((1, 1), (15, 15), algorithm="jps", **kw)
        assert (j.status, j.cost_int, j.expanded) == (a.status, a.cost_int, a.expanded)


# ---------------------------------------------------------- smoothing, world queries, occupants
@fixed(80)
@given(scenes(max_side=16))
def test_smoothing_on_jps_paths(scene):
    walk = scene["walk"]
    pf = Pathfinder(NavGrid(walk), costs=scene["costs"])
    for s, g in scene["queries"]:
        j = pf.find_path_cells(s, g, algorithm="jps", smooth=True)
        if not j.found:
            continue
        cells = np.floor(j.waypoints).astype(np.int64)  # cell size 1, origin 0: centres -> cells
        assert tuple(cells[0]) == tuple(s) and tuple(cells[-1]) == tuple(g)
        for a, b in pairwise(cells):
            assert brute_line_of_sight(walk, a, b)
        # the same as smoothing the raw chain by hand
        np.testing.assert_array_equal(pf.smooth_cells(j.cells), cells)


def test_world_find_path_with_jps():
    walk = np.ones((30, 30), bool)
    walk[5:25, 15] = False
    grid = NavGrid(walk, cell_size=0.5, min_x=-3.0, min_z=2.0, floor_y=1.25)
    pf = Pathfinder(grid, costs="exact")
    a = pf.find_path((-2.0, 3.0), (10.0, 15.0))
    j = pf.find_path((-2.0, 3.0), (10.0, 15.0), algorithm="jps")
    assert j.status == a.status == Status.FOUND
    assert j.cost_int == a.cost_int and j.floor_y == 1.25
    np.testing.assert_allclose(j.waypoints[-1], (10.0, 15.0))
    assert is_valid_path(walk, j.cells)
    o = [[3.0, 10.0, 1.0]]
    a = pf.find_path((-2.0, 3.0), (10.0, 15.0), obstacles=o)
    j = pf.find_path((-2.0, 3.0), (10.0, 15.0), algorithm="auto", obstacles=o)
    assert j.cost_int == a.cost_int


def test_occupants_keep_packed_rows_in_sync():
    walk = np.ones((25, 25), bool)
    walk[12, 3:22] = False
    pf = Pathfinder(NavGrid(walk), costs="seed")
    pf.find_path_cells((0, 0), (24, 24), algorithm="jps")  # packs the rows now
    rng = np.random.default_rng(9)
    handles = []
    for step in range(25):
        if handles and rng.random() < 0.4:
            pf.remove_occupant(handles.pop(int(rng.integers(len(handles)))))
        else:
            x, z, r = rng.uniform(0, 25), rng.uniform(0, 25), rng.uniform(0.3, 3.0)
            handles.append(pf.add_occupant(x, z, r))
        fresh = Pathfinder(NavGrid(pf.engine.occupancy.cells.reshape(27, 27)[1:-1, 1:-1] > 0),
                           costs="seed")
        for mine, theirs in zip(pf.engine.jps.bits()[:2], fresh.engine.jps.bits()[:2], strict=True):
            np.testing.assert_array_equal(mine, theirs, err_msg=f"step {step}")
        for s, g in [((0, 0), (24, 24)), ((24, 0), (0, 24)), ((12, 0), (12, 24))]:
            a = pf.find_path_cells(s, g)
            j = pf.find_path_cells(s, g, algorithm="jps")
            assert (j.status, j.cost_int) == (a.status, a.cost_int)


def test_long_path_grows_the_buffers():
    # a serpentine: the path is much longer than the first cell buffer
    walk = np.zeros((61, 61), bool)
    walk[::2, :] = True
    for z in range(1, 61, 2):
        walk[z, 60 if (z // 2) % 2 == 0 else 0] = True
    pf = Pathfinder(NavGrid(walk), costs="exact")
    pf.engine.jps_bufs.cells = np.zeros((4, 2), np.int32)
    pf.engine.jps_bufs.pts = np.zeros((4, 2), np.float64)
    j = pf.find_path_cells((0, 0), (0, 60), algorithm="jps")
    a = pf.find_path_cells((0, 0), (0, 60))
    assert j.cost_int == a.cost_int and len(j.cells) > 1024
    np.testing.assert_array_equal(j.cells, a.cells)  # one corridor: one path
    np.testing.assert_array_equal(j.waypoints, pf.grid.cells_to_world(j.cells))
    assert len(pf.engine.jps_bufs.cells) >= len(j.cells)


def test_packing_layout():
    walk = np.zeros((3, 70), bool)
    walk[1, :] = True
    walk[0, 5] = True
    pf = Pathfinder(NavGrid(walk))
    rows, cols, wp, nwr, nwc = pf.engine.jps.bits()
    assert (wp, nwr, nwc) == (72, 4, 3)
    assert (nwr, nwc) == (_jps.words_per_line(72), _jps.words_per_line(5))

    def word(b, nw, line, w, k):
        return int(b[3 * (line * nw + w) + k]) & ((1 << 64) - 1)

    # padded row 2 = grid row 1: padded cells 1..70, over words 1 (bits 1..63) and 2 (bits 0..6)
    assert word(rows, nwr, 2, 1, 0) == ((1 << 64) - 1) ^ 1
    assert word(rows, nwr, 2, 2, 0) == (1 << 7) - 1
    assert word(rows, nwr, 2, 0, 0) == word(rows, nwr, 2, 3, 0) == 0  # guard words
    # its side row above holds only padded cell 6, whose neighbours 5 and 7 are blocked:
    # forced at 6 going forwards (5 behind it is blocked) and backwards (7 behind it)
    assert word(rows, nwr, 2, 1, 1) == 1 << 6 and word(rows, nwr, 2, 1, 2) == 1 << 6
    assert word(rows, nwr, 2, 2, 1) == word(rows, nwr, 2, 2, 2) == 0
    # column 6 (grid x 5): padded rows 1 and 2 passable
    assert word(cols, nwc, 6, 1, 0) == 0b110
    # its side columns 5 and 7 hold row 2 only: forced at 2 going forwards (1 behind is blocked)
    assert word(cols, nwc, 6, 1, 1) == 1 << 2 and word(cols, nwc, 6, 1, 2) == 1 << 2


# --------------------------------------------------------------------------- without the JIT
def test_kernels_without_jit():
    """The JPS kernels run as plain Python (NUMBA_DISABLE_JIT=1) and agree with the
    compiled ones."""
    code = (
        "import numpy as np, navkit\n"
        "rng = np.random.default_rng(5)\n"
        "walk = rng.random((12, 14)) < 0.75\n"
        "pf = navkit.Pathfinder(navkit.NavGrid(walk), costs='exact')\n"
        "free = np.argwhere(walk)[:, ::-1]\n"
        "out = []\n"
        "for i in range(12):\n"
        "    s = tuple(int(v) for v in free[rng.integers(len(free))])\n"
        "    g = tuple(int(v) for v in free[rng.integers(len(free))])\n"
        "    r = pf.find_path_cells(s, g, algorithm='jps', "
        "obstacles=[[6.0, 6.0, 1.5]] if i % 3 == 0 else None)\n"
        "    out.append([int(r.status), r.cost_int, r.expanded, r.generated, r.cells.tolist()])\n"
        "h = pf.add_occupant(3.0, 3.0, 1.2)\n"
        "b = pf.find_paths_batch(free[:6], free[-6:], algorithm='jps', return_paths=True, "
        "threads=2)\n"
        "out.append([b.status.tolist(), b.cost_int.tolist(), b.path_cells.tolist()])\n"
        "pf.remove_occupant(h)\n"
        "r = pf.find_path_cells((int(free[0, 0]), int(free[0, 1])), "
        "(int(free[-1, 0]), int(free[-1, 1])),\n"
        "                       algorithm='jps', budget=2, nearest=True)\n"
        "out.append([int(r.status), r.cost_int, r.cells.tolist()])\n"
        "print(out)\n"
    )
    assert_same_without_jit(code)


# --------------------------------------------------------------------------- Moving AI
def _scen_names() -> list[str]:
    d = movingai_dir()
    return sorted(p.name for p in d.glob("*.scen")) if d.is_dir() else []


SCEN_FILES = _scen_names()
#: Lines per file in the default run: evenly spaced, plus the first, the last and the longest.
SAMPLE = 30


def _load(movingai: Path, name: str) -> tuple[Pathfinder, navkit.formats.ScenarioSet]:
    scen = navkit.read_scenarios(movingai / name)
    return Pathfinder(navkit.load_grid(movingai / scen.map_basename), costs="exact"), scen


def _mismatches(name, scen, idx, status, cost) -> list[str]:
    tol = scen.tolerance()[idx]
    opt = scen.optimal[idx]
    bad = (status != Status.FOUND) | ~(np.abs(cost - opt) <= tol)
    return [
        f"{name}:{int(scen.lines[i])}: {tuple(scen.start[i])} -> {tuple(scen.goal[i])}: "
        f"{Status(int(s)).name} {c:.6f}, optimal {o}"
        for i, s, c, o in zip(idx[bad], status[bad], cost[bad], opt[bad], strict=True)
    ]


@pytest.mark.parametrize("name", SCEN_FILES)
def test_scenario_sample(movingai, name):
    pf, scen = _load(movingai, name)
    n = len(scen)
    idx = np.unique(np.concatenate([np.linspace(0, n - 1, num=min(SAMPLE, n))
                                    .round().astype(np.int64),
                                    [n - 1, int(np.argmax(scen.optimal))]]))
    status = np.empty(len(idx), dtype=np.int64)
    cost = np.empty(len(idx), dtype=np.float64)
    walk = pf.grid.walkable
    for j, i in enumerate(idx):
        s = (int(scen.start[i, 0]), int(scen.start[i, 1]))
        g = (int(scen.goal[i, 0]), int(scen.goal[i, 1]))
        r = pf.find_path_cells(s, g, algorithm="jps")
        status[j], cost[j] = int(r.status), r.cost
        if r.found:
            assert_jps_path(pf, walk, r, s, g)
    bad = _mismatches(name, scen, idx, status, cost)
    assert not bad, f"{len(bad)} of {len(idx)} lines differ:\n" + "\n".join(bad[:20])
    # the same lines through the batch API
    b = pf.find_paths_batch(scen.start[idx], scen.goal[idx], algorithm="jps")
    np.testing.assert_array_equal(b.cost, cost)


@pytest.mark.heavy
def test_every_scenario_line(movingai):
    """Every line of every file with JPS through the batch API (make test-heavy);
    prints the time."""
    total = 0
    bad: list[str] = []
    t0 = time.perf_counter()
    for name in SCEN_FILES:
        pf, scen = _load(movingai, name)
        t1 = time.perf_counter()
        b = pf.find_paths_batch(scen.start, scen.goal, algorithm="jps")
        print(f"{name}: {len(scen)} lines, {time.perf_counter() - t1:.2f} s")
        bad += _mismatches(name, scen, np.arange(len(scen)), b.status, b.cost)
        total += len(scen)
    print(f"JPS: {total} lines in {time.perf_counter() - t0:.1f} s")
    assert total > 0
    assert not bad, f"{len(bad)} of {total} lines differ:\n" + "\n".join(bad[:40])


# --------------------------------------------------------------------------- benchmark script
def test_bench_jps_smoke(movingai, tmp_path, capsys):
    import json

    from navkit.bench import jps as bench_jps

    out = tmp_path / "jps.json"
    assert bench_jps.main(["--data", str(movingai), "--maps", "den520d",
                           "--queries", "4", "--rounds", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "den520d" in text and ("PASS" in text or "MISS" in text)
    data = json.loads(out.read_text())
    row = data["maps"][0]
    assert row["queries"] == 4 and row["optimal"]["jps"] == 4 and row["jpsCostEqualsAstar"] == 4
    assert row["expanded"]["jpsMedian"] > 0 and row["medianUs"]["jps"] > 0
    assert bench_jps.main(["--data", str(tmp_path / "nowhere")]) == 2
    assert bench_jps.main(["--data", str(movingai), "--queries", "0"]) == 2
