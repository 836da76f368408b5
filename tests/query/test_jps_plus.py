"""JPS+ (``algorithm="jps+"``, :mod:`navkit.query.jps_plus`) against independent oracles.

* the jump tables against a brute-force walk per cell and direction, written
  here from the definitions in docs/jps.md (forced side cells, the corner rule);
* query costs and statuses against A* (``Pathfinder`` with ``"astar"``), with and
  without obstacle circles and occupants, find-path-to-nearest included;
* budgets against navkit's online JPS (a budget counts jump points, so A*'s
  budget is another question), whose successors JPS+ reproduces;
* save / load round trips and foreign or broken files;
* a sample of Moving AI scenario lines against the optimal lengths.

Hypothesis runs derandomized with no example database.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import navkit
from navkit import NavGrid, Pathfinder, QueryError, Status
from navkit.errors import ConfigError, FormatError
from navkit.query.jps_plus import JPSPlus, JumpTables, grid_fingerprint
from tests.conftest import fixed
from tests.reference import is_valid_path, path_cost

BIG = 10**12
DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1))


# --------------------------------------------------------------------------- strategies
@st.composite
def scenes(draw: st.DrawFn, max_side: int = 18) -> dict[str, object]:
    depth = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.45, 0.6, 0.75, 0.85, 0.95, 1.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walk = rng.random((depth, width)) < density
    costs = draw(st.sampled_from(["seed", "exact", "pair"]))
    if costs == "pair":
        card = draw(st.integers(1, 30))
        costs = (card, draw(st.integers(card, 2 * card)))
    circles = [[float(rng.uniform(-1, width + 1)), float(rng.uniform(-1, depth + 1)),
                float(rng.uniform(0, 3))] for _ in range(draw(st.integers(0, 3)))]
    pick = st.tuples(st.integers(0, width - 1), st.integers(0, depth - 1))
    queries = draw(st.lists(st.tuples(pick, pick), min_size=1, max_size=6))
    return {"walk": walk, "costs": costs, "circles": circles, "queries": queries}


def _pf(scene: dict[str, object]) -> Pathfinder:
    return Pathfinder(NavGrid(scene["walk"]), costs=scene["costs"])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- brute force
def _free(walk: np.ndarray, x: int, z: int) -> bool:
    return 0 <= z < walk.shape[0] and 0 <= x < walk.shape[1] and bool(walk[z, x])


def _forced(walk: np.ndarray, x: int, z: int, dx: int, dz: int) -> bool:
    """Arriving at (x, z) by straight (dx, dz): a side cell free, the one behind it blocked."""
    for s in (-1, 1):
        if dz == 0 and _free(walk, x, z + s) and not _free(walk, x - dx, z + s):
            return True
        if dx == 0 and _free(walk, x + s, z) and not _free(walk, x + s, z - dz):
            return True
    return False


def _straight(walk: np.ndarray, x: int, z: int, dx: int, dz: int) -> int:
    """+d: a jump point d cells away; -d: a blocked cell d cells away."""
    d = 0
    while True:
        x, z, d = x + dx, z + dz, d + 1
        if not _free(walk, x, z):
            return -d
        if _forced(walk, x, z, dx, dz):
            return d


def _diagonal(walk: np.ndarray, x: int, z: int, dx: int, dz: int) -> int:
    """+t: step t reaches a cell whose straight components find a jump point;
    -T: none on the T legal (no corner cutting) steps."""
    t = 0
    while _free(walk, x + dx, z + dz) and _free(walk, x + dx, z) and _free(walk, x, z + dz):
        x, z, t = x + dx, z + dz, t + 1
        if _straight(walk, x, z, dx, 0) > 0 or _straight(walk, x, z, 0, dz) > 0:
            return t
    return -t


def _brute_tables(walk: np.ndarray) -> np.ndarray:
    """(depth, width, 8) entries of the free cells (0 elsewhere), unpadded cells."""
    h, w = walk.shape
    out = np.zeros((h, w, 8), dtype=np.int64)
    for z in range(h):
        for x in range(w):
            if walk[z, x]:
                for k, (dx, dz) in enumerate(DIRS):
                    f = _straight if k < 4 else _diagonal
                    out[z, x, k] = f(walk, x, z, dx, dz)
    return out


def _tables_of_free_cells(pf: Pathfinder, tables: JumpTables) -> np.ndarray:
    pg = pf.engine.padded
    tab = np.asarray(tables.tab, dtype=np.int64).reshape(pg.hp, pg.wp, 8)[1:-1, 1:-1]
    return np.where(pf.grid.walkable[:, :, None], tab, 0)


# --------------------------------------------------------------------------- tables
@fixed(60)
@given(scenes())
def test_tables_equal_brute_force_walk(scene):
    pf = _pf(scene)
    tables = JumpTables.build(pf)
    np.testing.assert_array_equal(_tables_of_free_cells(pf, tables), _brute_tables(scene["walk"]))
    assert tables.nbytes == 16 * pf.engine.padded.n
    assert tables.build_seconds >= 0.0


def test_tables_hand_example():
    walk = np.ones((5, 7), dtype=bool)
    walk[1, 3] = False  # a pillar: cells beside it become jump points
    pf = Pathfinder(NavGrid(walk))
    tab = _tables_of_free_cells(pf, JumpTables.build(pf))
    # going east on row 0 from (0, 0): (4, 0) has a free side cell (4, 1) whose
    # cell behind, (3, 1), is the pillar
    assert tab[0, 0, 0] == 4
    # row 4 sees no pillar: the wall at x = 7 is 7 cells from x = 0
    assert tab[4, 0, 0] == -7
    # north from (3, 4): nothing forced on the way, the pillar 3 cells away
    assert tab[4, 3, 3] == -3
    # diagonal SE from (0, 0): from (1, 1) both straight jumps end blocked; from
    # (2, 2) the east jump finds (4, 2) (its side (4, 1) free, (3, 1) the pillar)
    assert tab[0, 0, 4] == 2


# --------------------------------------------------------------------------- queries vs A*
@fixed(150)
@given(scenes())
def test_cost_and_status_equal_astar(scene):
    pf = _pf(scene)
    jp = JPSPlus(pf)
    walk = scene["walk"]
    for s, g in scene["queries"]:
        a = pf.find_path_cells(s, g, algorithm="astar")
        r = jp.cell_query(s, g, smooth=False, nearest=False, budget=BIG)
        assert r.status == a.status, (s, g)
        assert r.cost_int == a.cost_int, (s, g)
        if r.found:
            assert tuple(r.cells[0]) == s and tuple(r.cells[-1]) == g
            assert is_valid_path(walk, r.cells)
            assert path_cost(r.cells, None, pf.costs.card, pf.costs.diag) == r.cost_int
            np.testing.assert_array_equal(r.waypoints, pf.grid.cells_to_world(r.cells))
    assert jp.fallbacks == 0


@fixed(80)
@given(scenes())
def test_through_pathfinder_with_obstacles_equals_astar(scene):
    pf = _pf(scene)
    circles = np.array(scene["circles"], dtype=np.float64).reshape(-1, 3)
    obstacles = circles if len(circles) else None
    for s, g in scene["queries"]:
        a = pf.find_path_cells(s, g, algorithm="astar", obstacles=obstacles)
        r = pf.find_path_cells(s, g, algorithm="jps+", obstacles=obstacles)
        assert (r.status, r.cost_int) == (a.status, a.cost_int), (s, g)
        n = pf.find_path_cells(s, g, algorithm="jps+", obstacles=obstacles, nearest=True)
        an = pf.find_path_cells(s, g, algorithm="astar", obstacles=obstacles, nearest=True)
        assert (n.status, n.cost_int, n.end_cell) == (an.status, an.cost_int, an.end_cell)


@fixed(80)
@given(scenes())
def test_nearest_equals_astar(scene):
    pf = _pf(scene)
    jp = JPSPlus(pf)
    for s, g in scene["queries"]:
        a = pf.find_path_cells(s, g, algorithm="astar", nearest=True)
        r = jp.cell_query(s, g, smooth=False, nearest=True, budget=BIG)
        assert (r.status, r.cost_int, r.end_cell) == (a.status, a.cost_int, a.end_cell), (s, g)


@fixed(80)
@given(scenes(), st.integers(1, 12), st.booleans())
def test_budget_equals_online_jps(scene, budget, nearest):
    """A budget counts jump points: JPS+ reproduces online JPS's expansions exactly."""
    pf = _pf(scene)
    jp = JPSPlus(pf)
    for s, g in scene["queries"]:
        a = pf.engine.jps.cell_query(s, g, smooth=False, nearest=nearest, budget=budget)
        r = jp.cell_query(s, g, smooth=False, nearest=nearest, budget=budget)
        assert (r.status, r.cost_int, r.end_cell) == (a.status, a.cost_int, a.end_cell), (s, g)
        if not nearest or r.status != Status.NEAREST:
            assert (r.expanded, r.generated) == (a.expanded, a.generated)
            np.testing.assert_array_equal(r.cells, a.cells)


@fixed(120)
@given(scenes())
def test_answer_equals_online_jps(scene):
    """Without a budget JPS+ returns online JPS's very answer: status, cost, the
    cells and waypoints of the path, and the counts (same successors, same queue
    order: the slot beside the heap and the table-read forced cells change no
    expansion)."""
    pf = _pf(scene)
    jp = JPSPlus(pf)
    for s, g in scene["queries"]:
        for nearest in (False, True):
            a = pf.engine.jps.cell_query(s, g, smooth=False, nearest=nearest, budget=BIG)
            r = jp.cell_query(s, g, smooth=False, nearest=nearest, budget=BIG)
            assert (r.status, r.cost_int, r.end_cell) == (a.status, a.cost_int, a.end_cell)
            assert (r.expanded, r.generated) == (a.expanded, a.generated), (s, g)
            np.testing.assert_array_equal(r.cells, a.cells)
            np.testing.assert_array_equal(r.waypoints, a.waypoints)


@fixed(60)
@given(scenes(max_side=24), st.integers(0, 4))
def test_trace_equals_online_trace(scene, cap):
    """The JPS+ trace (``jps_plus.trace``) writes what ``jps.jps_trace_body``
    writes, nodes, cells and world centres, also when the buffers are too short
    for the cells (``cap`` rows: nodes only)."""
    from navkit._kernels import jps as _jps
    from navkit._kernels import jps_plus as _jpk

    pf = _pf(scene)
    jp = JPSPlus(pf)
    pg = pf.engine.padded
    jps = pf.engine.jps
    geo = (0.25, -3.0, 0.5)
    for s, g in scene["queries"]:
        r = jp.cell_query(s, g, smooth=False, nearest=False, budget=BIG)
        if not r.found:
            continue
        m = len(r.cells)
        rows = m if cap == 0 else min(m, cap - 1)
        outs = []
        for fn in (_jpk.trace, _jps.jps_trace_body):
            nodes = np.full(pg.n, -7, dtype=np.int32)
            cells = np.full((rows, 2), -7, dtype=np.int32)
            pts = np.full((rows, 2), -7.0)
            got = fn(jps.nd, int(pg.wp), jps.model[2], pg.node(*s), pg.node(*g), nodes, cells,
                     pts, geo)
            outs.append((got, nodes, cells, pts))
        (m1, n1, c1, p1), (m2, n2, c2, p2) = outs
        assert m1 == m2 == m
        np.testing.assert_array_equal(n1, n2)
        np.testing.assert_array_equal(c1, c2)
        np.testing.assert_array_equal(p1, p2)


def test_long_path_beyond_path_buffers_equals_online_jps():
    """A path longer than the path buffers (1,024 rows at first): the trace fills
    only the node chain and the query side converts it, as for online JPS."""
    walk = np.ones((7, 1500), dtype=bool)
    walk[1:6, 200:1300:100] = False  # pillars: jump points along the way
    walk[3, 1250:1260] = False
    cells = [((0, 3), (1499, 3)), ((1499, 6), (0, 0)), ((3, 0), (1496, 6))]
    pf = Pathfinder(NavGrid(walk), costs="exact")
    jp = JPSPlus(pf)
    plus = [jp.cell_query(s, g, smooth=False, nearest=False, budget=BIG) for s, g in cells]
    other = Pathfinder(NavGrid(walk), costs="exact")
    for (s, g), r in zip(cells, plus, strict=True):
        a = other.jps.cell_query(s, g, smooth=False, nearest=False, budget=BIG)
        assert r.found and len(r.cells) > 1024
        assert (r.cost_int, r.expanded, r.generated) == (a.cost_int, a.expanded, a.generated)
        np.testing.assert_array_equal(r.cells, a.cells)
        np.testing.assert_array_equal(r.waypoints, a.waypoints)
        assert is_valid_path(walk, r.cells)
        assert r.cost_int == other.find_path_cells(s, g, algorithm="astar").cost_int


@fixed(40)
@given(scenes())
def test_occupants_fall_back_and_recover(scene):
    pf = _pf(scene)
    jp = JPSPlus(pf)
    walk = scene["walk"]
    h, w = walk.shape
    handle = pf.add_occupant(w / 2, h / 2, 1.2)
    for s, g in scene["queries"]:
        a = pf.find_path_cells(s, g, algorithm="astar")
        r = jp.cell_query(s, g, smooth=False, nearest=False, budget=BIG)
        assert (r.status, r.cost_int) == (a.status, a.cost_int)
    pf.remove_occupant(handle)
    assert jp.static
    before = jp.fallbacks
    for s, g in scene["queries"]:
        a = pf.find_path_cells(s, g, algorithm="astar")
        r = jp.cell_query(s, g, smooth=False, nearest=False, budget=BIG)
        assert (r.status, r.cost_int) == (a.status, a.cost_int)
    assert jp.fallbacks == before


def test_occupant_counts_as_dynamic():
    pf = Pathfinder(NavGrid(np.ones((10, 10), dtype=bool)))
    jp = JPSPlus(pf)
    assert jp.static
    handle = pf.add_occupant(5.0, 5.0, 1.0)
    assert not jp.static
    r = jp.cell_query((0, 5), (9, 5), smooth=False, nearest=False, budget=BIG)
    assert jp.fallbacks == 1
    assert r.cost_int == pf.find_path_cells((0, 5), (9, 5)).cost_int
    pf.remove_occupant(handle)
    assert jp.static


def test_smooth_and_dispatch():
    walk = np.ones((12, 12), dtype=bool)
    walk[2:10, 6] = False
    pf = Pathfinder(NavGrid(walk), costs="exact")
    a = pf.find_path_cells((0, 6), (11, 6), smooth=True)
    r = pf.find_path_cells((0, 6), (11, 6), smooth=True, algorithm="jps+")
    assert r.cost_int == a.cost_int and r.found
    assert pf.resolve_algorithm("jps+") == "jps+"
    assert pf.engine.cells.jps_plus is not None  # built on first use
    w = pf.find_path((0.5, 6.5), (11.5, 6.5), algorithm="jps+")
    assert w.found and w.cost == pytest.approx(a.cost)


def test_weighted_or_four_connected_raise():
    walk = np.ones((4, 4), dtype=bool)
    weighted = Pathfinder(NavGrid(walk, weights=np.full((4, 4), 2, dtype=np.int32)))
    with pytest.raises(QueryError):
        weighted.find_path_cells((0, 0), (3, 3), algorithm="jps+")
    with pytest.raises(QueryError):
        JPSPlus(weighted)
    four = Pathfinder(NavGrid(walk), connectivity=4)
    with pytest.raises(QueryError):
        four.find_path_cells((0, 0), (3, 3), algorithm="jps+")
    with pytest.raises(ConfigError):
        JumpTables.build(object())


# --------------------------------------------------------------------------- save / load
def test_save_load_round_trip(tmp_path: Path):
    rng = np.random.default_rng(7)
    walk = rng.random((30, 40)) < 0.8
    pf = Pathfinder(NavGrid(walk))
    t = JumpTables.build(pf)
    path = tmp_path / "t.npz"
    t.save(path)
    u = JumpTables.load(path, pf)
    np.testing.assert_array_equal(u.tab, t.tab)
    assert u.fingerprint == t.fingerprint == grid_fingerprint(pf.engine.padded)
    assert u.matches(pf)
    jp = JPSPlus(pf, u)
    r = jp.cell_query((0, 0), (39, 29), smooth=False, nearest=True, budget=BIG)
    a = pf.find_path_cells((0, 0), (39, 29), nearest=True)
    assert (r.status, r.cost_int) == (a.status, a.cost_int)


def test_load_rejects_other_grid_and_garbage(tmp_path: Path):
    walk = np.ones((8, 8), dtype=bool)
    pf = Pathfinder(NavGrid(walk))
    path = tmp_path / "t.npz"
    JumpTables.build(pf).save(path)
    walk2 = walk.copy()
    walk2[3, 3] = False
    other = Pathfinder(NavGrid(walk2))
    with pytest.raises(FormatError) as e:
        JumpTables.load(path, other)
    assert e.value.path == str(path)
    with pytest.raises(ConfigError):
        JPSPlus(other, JumpTables.build(pf))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(FormatError):
        JumpTables.load(bad, pf)
    np.savez(tmp_path / "wrong.npz", tab=np.zeros(3, dtype=np.int16))
    with pytest.raises(FormatError):
        JumpTables.load(tmp_path / "wrong.npz", pf)
    cut = tmp_path / "cut.npz"  # a truncated file: zipfile's own error before
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(FormatError, match="not a JPS[+] table file") as e:
        JumpTables.load(cut, pf)
    assert e.value.path == str(cut)


# --------------------------------------------------------------------------- Moving AI
@pytest.mark.parametrize("name", ["den520d.map.scen", "AR0011SR.map.scen", "maze512-1-0.map.scen"])
def test_movingai_sample_optimal(movingai, name):
    path = movingai / name
    if not path.is_file():
        pytest.skip(f"{name} not in {movingai}")
    scen = navkit.read_scenarios(path)
    pf = Pathfinder(navkit.load_grid(movingai / scen.map_basename), costs="exact")
    jp = JPSPlus(pf)
    n = len(scen)
    idx = np.unique(np.concatenate([np.linspace(0, n - 1, 40).round().astype(np.int64),
                                    [n - 1, int(np.argmax(scen.optimal))]]))
    tol = scen.tolerance()
    bad = []
    for i in idx:
        s = (int(scen.start[i][0]), int(scen.start[i][1]))
        g = (int(scen.goal[i][0]), int(scen.goal[i][1]))
        r = jp.cell_query(s, g, smooth=False, nearest=False, budget=BIG)
        if r.status != Status.FOUND or abs(r.cost - scen.optimal[i]) > tol[i]:
            bad.append(f"{name}:{int(scen.lines[i])}: {r.status.name} {r.cost} "
                       f"vs {scen.optimal[i]}")
    assert not bad, "\n".join(bad[:20])


# --------------------------------------------------------------------------- goal bounding
def _brute_boxes(walk: np.ndarray, card: int, diag: int, x: int, z: int) -> list[tuple]:
    """Per direction, the box of cells some optimal path from (x, z) reaches
    leaving that way: networkx-free brute force from the distance fields of the
    start's eight neighbours (d(n, t) + step == d(s, t))."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import dijkstra

    h, w = walk.shape
    idx = np.arange(h * w).reshape(h, w)
    rows, cols, vals = [], [], []
    for zz in range(h):
        for xx in range(w):
            if not walk[zz, xx]:
                continue
            for dx, dz in DIRS:
                nx, nz = xx + dx, zz + dz
                if not _free(walk, nx, nz):
                    continue
                if dx and dz and not (_free(walk, nx, zz) and _free(walk, xx, nz)):
                    continue
                rows.append(idx[zz, xx])
                cols.append(idx[nz, nx])
                vals.append(diag if dx and dz else card)
    graph = coo_matrix((vals, (rows, cols)), shape=(h * w, h * w)).tocsr()
    ds = dijkstra(graph, indices=idx[z, x])
    out = []
    for dx, dz in DIRS:
        nx, nz = x + dx, z + dz
        ok = _free(walk, nx, nz) and (not (dx and dz) or (_free(walk, nx, z)
                                                          and _free(walk, x, nz)))
        if not ok:
            out.append(None)
            continue
        dn = dijkstra(graph, indices=idx[nz, nx])
        step = diag if dx and dz else card
        with np.errstate(invalid="ignore"):
            hit = np.isfinite(ds) & (np.abs(dn + step - ds) < 1e-9)
        zs, xs = np.nonzero(hit.reshape(h, w))
        out.append((xs.min(), zs.min(), xs.max(), zs.max()) if len(xs) else None)
    return out


@fixed(25)
@given(scenes(max_side=10))
def test_goal_bounds_equal_brute_force(scene):
    from navkit.query.goal_bounds import GoalBounds, jump_points

    pf = _pf(scene)
    tables = JumpTables.build(pf)
    gb = GoalBounds.build(pf, tables)
    pg = pf.engine.padded
    walk = scene["walk"]
    nodes = jump_points(tables, pf)
    assert gb.jump_points == len(nodes)
    boxes = np.asarray(gb.boxes, dtype=np.int64).reshape(-1, 8, 4)
    for j, q in enumerate(nodes[:8]):
        x, z = int(q % pg.wp) - 1, int(q // pg.wp) - 1
        want = _brute_boxes(walk, pf.costs.card, pf.costs.diag, x, z)
        for k in range(8):
            got = boxes[j, k]
            if want[k] is None:
                assert got[0] > got[2], (x, z, k)
            else:
                assert tuple(got - 1) == want[k], (x, z, k)


@fixed(25)
@given(scenes(max_side=10))
def test_legal_moves_follow_the_corner_rule(scene):
    """The goal-bounds build's per-node step sets against the rule read off the grid."""
    from navkit._kernels.jps_plus import DIRS, legal_moves

    pf = _pf(scene)
    walk = scene["walk"]
    pg = pf.engine.padded
    moves = np.zeros(pg.n, dtype=np.uint8)
    legal_moves(pg.cells, int(pg.wp), moves)
    h, w = walk.shape
    free = lambda x, z: 0 <= x < w and 0 <= z < h and bool(walk[z, x])  # noqa: E731
    for z in range(-1, h + 1):
        for x in range(-1, w + 1):
            want = 0
            for k, (dx, dz) in enumerate(DIRS):
                if free(x, z) and free(x + dx, z + dz) and (
                        not (dx and dz) or (free(x + dx, z) and free(x, z + dz))):
                    want |= 1 << k
            assert int(moves[(z + 1) * pg.wp + x + 1]) == want, (x, z)


@fixed(100)
@given(scenes())
def test_goal_bounded_costs_equal_astar(scene):
    from navkit.query.goal_bounds import GoalBounds

    pf = _pf(scene)
    tables = JumpTables.build(pf)
    jp = JPSPlus(pf, tables, GoalBounds.build(pf, tables))
    for s, g in scene["queries"]:
        a = pf.find_path_cells(s, g, algorithm="astar")
        r = jp.cell_query(s, g, smooth=False, nearest=False, budget=BIG)
        assert (r.status, r.cost_int) == (a.status, a.cost_int), (s, g)
        if r.found:
            assert is_valid_path(scene["walk"], r.cells)
            assert path_cost(r.cells, None, pf.costs.card, pf.costs.diag) == r.cost_int
        n = jp.cell_query(s, g, smooth=False, nearest=True, budget=BIG)
        an = pf.find_path_cells(s, g, algorithm="astar", nearest=True)
        assert (n.status, n.cost_int, n.end_cell) == (an.status, an.cost_int, an.end_cell)


def test_goal_bounds_guard_and_mismatch():
    from navkit.query.goal_bounds import GoalBounds

    rng = np.random.default_rng(3)
    pf = Pathfinder(NavGrid(rng.random((20, 20)) < 0.7))
    with pytest.raises(ConfigError):
        GoalBounds.build(pf, max_jump_points=1)
    other = Pathfinder(NavGrid(rng.random((20, 20)) < 0.7))
    with pytest.raises(ConfigError):
        JPSPlus(other, goal_bounds=GoalBounds.build(pf))


def test_goal_bounds_threads_save_and_load(tmp_path):
    """Any thread count builds the same boxes; save / load round-trips them, and
    a file for another grid, other step costs or a damaged file is a FormatError
    naming the file."""
    from navkit.query.goal_bounds import GoalBounds

    rng = np.random.default_rng(5)
    grid = NavGrid(rng.random((40, 50)) < 0.75)
    pf = Pathfinder(grid, costs="exact")
    one = GoalBounds.build(pf, threads=1)
    three = GoalBounds.build(pf, threads=3)
    assert np.array_equal(one.index, three.index) and np.array_equal(one.boxes, three.boxes)
    path = tmp_path / "b.npz"
    one.save(path)
    back = GoalBounds.load(path, pf)
    assert np.array_equal(back.index, one.index) and np.array_equal(back.boxes, one.boxes)
    jp = JPSPlus(pf, goal_bounds=back)
    for _ in range(20):
        free = np.argwhere(grid.walkable)
        s, g = (tuple(int(v) for v in free[rng.integers(len(free))][::-1]) for _ in range(2))
        assert jp.cell_query(s, g, smooth=False, nearest=False, budget=BIG).cost_int == \
            pf.find_path_cells(s, g, algorithm="astar").cost_int
    with pytest.raises(FormatError, match="another grid") as e:
        GoalBounds.load(path, Pathfinder(NavGrid(rng.random((40, 50)) < 0.75), costs="exact"))
    assert str(path) in str(e.value)
    with pytest.raises(FormatError, match="another grid"):
        GoalBounds.load(path, Pathfinder(grid, costs="seed"))
    with np.load(path) as f:
        parts = dict(f)
    parts["index"] = parts["index"].copy()
    parts["index"][parts["index"] >= 0] = 10**6  # rows out of range
    np.savez(tmp_path / "bad.npz", **parts)
    with pytest.raises(FormatError, match="damaged"):
        GoalBounds.load(tmp_path / "bad.npz", pf)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(FormatError, match="not a goal-bounds file"):
        GoalBounds.load(tmp_path / "junk.npz", pf)
    (tmp_path / "cut.npz").write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(FormatError, match="not a goal-bounds file"):
        GoalBounds.load(tmp_path / "cut.npz", pf)


def test_pathfinder_saves_and_loads_goal_bounds(tmp_path):
    rng = np.random.default_rng(8)
    grid = NavGrid(rng.random((30, 30)) < 0.8)
    pf = Pathfinder(grid, costs="exact")
    with pytest.raises(QueryError, match="no goal bounds"):
        pf.save_bounds(tmp_path / "b.npz")
    pf.precompute(goal_bounds=True)
    pf.save_bounds(tmp_path / "b.npz")
    again = Pathfinder(grid, costs="exact")
    again.precompute(bounds=tmp_path / "b.npz")
    gb = again.cells.jps_plus.goal_bounds
    assert gb is not None and np.array_equal(gb.boxes, pf.engine.cells.jps_plus.goal_bounds.boxes)
    free = np.argwhere(grid.walkable)
    for _ in range(10):
        s, g = (tuple(int(v) for v in free[rng.integers(len(free))][::-1]) for _ in range(2))
        assert again.find_path_cells(s, g, algorithm="jps+").cost_int == \
            pf.find_path_cells(s, g, algorithm="astar").cost_int
