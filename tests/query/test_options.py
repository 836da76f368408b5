"""Diagonal modes, heuristics, the greedy weight and fractional weights
(docs/rules.md §3.9) checked against scipy's Dijkstra on explicitly built
edge sets (the oracle below knows nothing of navkit's kernels).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

from navkit import ConfigError, NavGrid, Pathfinder, QueryError, Status
from tests.conftest import fixed

MODES = ("only_if_no_obstacles", "at_least_one_walkable", "always", "never")
STRAIGHT = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAG = ((1, 1), (-1, 1), (1, -1), (-1, -1))


# ------------------------------------------------------------------ the oracle
def step_ok(walk: np.ndarray, x: int, z: int, dx: int, dz: int, mode: str) -> bool:
    """Whether the step (x, z) -> (x + dx, z + dz) is legal under Godot's ``mode``."""
    depth, width = walk.shape

    def free(cx: int, cz: int) -> bool:
        return 0 <= cx < width and 0 <= cz < depth and bool(walk[cz, cx])

    if not free(x, z) or not free(x + dx, z + dz):
        return False
    if dx == 0 or dz == 0:
        return True
    if mode == "never":
        return False
    sides = free(x + dx, z) + free(x, z + dz)
    need = {"only_if_no_obstacles": 2, "at_least_one_walkable": 1, "always": 0}[mode]
    return sides >= need


def oracle(walk: np.ndarray, weights: np.ndarray | None, card: float, diag: float, mode: str,
           start: tuple[int, int]) -> np.ndarray:
    """Cost from ``start`` to every cell (inf: unreachable); a step pays its unit
    cost times the weight (float allowed) of the cell entered."""
    depth, width = walk.shape
    w = np.ones(walk.shape) if weights is None else np.asarray(weights, dtype=np.float64)
    rows, cols, vals = [], [], []
    for z in range(depth):
        for x in range(width):
            for dx, dz in STRAIGHT + DIAG:
                if step_ok(walk, x, z, dx, dz, mode):
                    unit = card if dx == 0 or dz == 0 else diag
                    rows.append(z * width + x)
                    cols.append((z + dz) * width + x + dx)
                    vals.append(unit * w[z + dz, x + dx])
    n = depth * width
    m = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    return dijkstra(m, indices=start[1] * width + start[0])


def check_path(walk: np.ndarray, weights: np.ndarray | None, card: int, diag: int, mode: str,
               cells: np.ndarray) -> int:
    """Assert every step of ``cells`` is legal under ``mode``; return its integer cost."""
    w = np.ones(walk.shape, dtype=np.int64) if weights is None else weights
    cost = 0
    for (x0, z0), (x1, z1) in zip(cells[:-1].tolist(), cells[1:].tolist(), strict=True):
        dx, dz = x1 - x0, z1 - z0
        assert max(abs(dx), abs(dz)) == 1, (x0, z0, x1, z1)
        assert step_ok(walk, x0, z0, dx, dz, mode), ((x0, z0), (x1, z1), mode)
        cost += (card if dx == 0 or dz == 0 else diag) * int(w[z1, x1])
    return cost


@st.composite
def worlds(draw: st.DrawFn, weighted: bool | None = None) -> tuple:
    depth = draw(st.integers(1, 9))
    width = draw(st.integers(1, 9))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walk = rng.random((depth, width)) < draw(st.sampled_from([0.55, 0.7, 0.85, 1.0]))
    if weighted is None:
        weighted = draw(st.booleans())
    weights = rng.integers(1, 8, size=walk.shape).astype(np.int32) if weighted else None
    card = draw(st.integers(1, 20))
    diag = draw(st.integers(card, 2 * card))
    s = (draw(st.integers(0, width - 1)), draw(st.integers(0, depth - 1)))
    g = (draw(st.integers(0, width - 1)), draw(st.integers(0, depth - 1)))
    return walk, weights, card, diag, s, g


def _run(pf: Pathfinder, s, g, **kw):
    return pf.find_path_cells(s, g, algorithm=kw.pop("algorithm", "astar"), **kw)


# ------------------------------------------------------------ admissible runs
@fixed(60)
@given(world=worlds(), mode=st.sampled_from(MODES),
       heuristic=st.sampled_from(["octile", "euclidean", "chebyshev"]))
def test_admissible_heuristics_are_optimal(world, mode, heuristic):
    """Every diagonal mode with an admissible heuristic: A*'s integer cost is
    scipy's Dijkstra on the mode's edge set, the path is legal under the mode
    and costs what it claims; Dijkstra and ``"auto"`` agree."""
    walk, weights, card, diag, s, g = world
    pf = Pathfinder(NavGrid(walk, weights), costs=(card, diag), diagonal=mode,
                    heuristic=heuristic)
    best = oracle(walk, weights, card, diag, mode, s)[g[1] * walk.shape[1] + g[0]]
    for algorithm in ("astar", "dijkstra", "auto"):
        r = _run(pf, s, g, algorithm=algorithm)
        if not walk[s[1], s[0]]:
            assert r.status == Status.NO_START
        elif not walk[g[1], g[0]]:
            assert r.status == Status.NO_GOAL
        elif math.isinf(best):
            assert r.status == Status.UNREACHABLE
        else:
            assert r.status == Status.FOUND
            assert r.cost_int == best
            assert check_path(walk, weights, card, diag, mode, r.cells) == r.cost_int


@fixed(40)
@given(world=worlds(), mode=st.sampled_from(MODES[:3]), data=st.data())
def test_modes_with_obstacles_window_and_fields(world, mode, data):
    """The general kernels (per-query blocked cells, windows) and distance
    fields follow the diagonal mode too."""
    walk, weights, card, diag, s, g = world
    depth, width = walk.shape
    pf = Pathfinder(NavGrid(walk, weights), costs=(card, diag), diagonal=mode)
    bx, bz = data.draw(st.integers(0, width - 1)), data.draw(st.integers(0, depth - 1))
    blocked = walk.copy()
    blocked[bz, bx] = False
    r = pf.find_path_cells(s, g, blocked_cells=[(bx, bz)])
    best = oracle(blocked, weights, card, diag, mode, s)[g[1] * width + g[0]]
    if r.status == Status.FOUND:
        assert r.cost_int == best
        assert check_path(blocked, weights, card, diag, mode, r.cells) == r.cost_int
    else:
        assert math.isinf(best) or not blocked[s[1], s[0]] or not blocked[g[1], g[0]]
    # a window covering the whole grid changes nothing
    r2 = pf.find_path_cells(s, g, window=(0, 0, width - 1, depth - 1))
    best2 = oracle(walk, weights, card, diag, mode, s)[g[1] * width + g[0]]
    if r2.status == Status.FOUND:
        assert r2.cost_int == best2
    if walk[s[1], s[0]]:
        field = pf.distance_field_int([s])
        want = oracle(walk, weights, card, diag, mode, s).reshape(depth, width)
        assert np.array_equal(np.where(np.isinf(want), -1, want).astype(np.int64), field)


@fixed(30)
@given(world=worlds(weighted=False), mode=st.sampled_from(MODES[:3]),
       heuristic=st.sampled_from(["octile", "manhattan", "euclidean"]))
def test_level_queue_equals_heap_and_batch(world, mode, heuristic):
    """On uniform grids the level queue (octile) and the heap expand the same
    nodes under every diagonal mode; batches answer as single queries."""
    walk, _, card, diag, s, g = world
    pf = Pathfinder(NavGrid(walk), costs=(card, diag), diagonal=mode, heuristic=heuristic)
    if not (walk[s[1], s[0]] and walk[g[1], g[0]]):
        return
    sn, gn = pf.engine.padded.node(*s), pf.engine.padded.node(*g)
    a = pf.engine.astar.run(sn, gn, 1 << 40, None, pf.engine.padded.wmin).copy()
    b = pf.engine.astar.run(sn, gn, 1 << 40, None, pf.engine.padded.wmin, level_queue=False).copy()
    assert a.tolist() == b.tolist()
    single = pf.find_path_cells(s, g)
    batch = pf.find_paths_batch([s, s], [g, g], threads=1)
    assert batch.cost_int.tolist()[0] == (single.cost_int if single.found else -1)


# ---------------------------------------------------- inadmissible on purpose
@fixed(50)
@given(world=worlds(), mode=st.sampled_from(MODES))
def test_manhattan_never_beats_the_optimum(world, mode):
    """Manhattan overestimates with diagonals: a legal path, never cheaper
    than the optimum (and exactly optimal 4-connected)."""
    walk, weights, card, diag, s, g = world
    pf = Pathfinder(NavGrid(walk, weights), costs=(card, diag), diagonal=mode,
                    heuristic="manhattan")
    best = oracle(walk, weights, card, diag, mode, s)[g[1] * walk.shape[1] + g[0]]
    r = _run(pf, s, g)
    if r.status == Status.FOUND:
        assert r.cost_int >= best
        assert check_path(walk, weights, card, diag, mode, r.cells) == r.cost_int
        if mode == "never":
            assert r.cost_int == best
    else:
        assert math.isinf(best) or not walk[s[1], s[0]] or not walk[g[1], g[0]]


def test_manhattan_only_when_asked() -> None:
    """The default heuristic is octile; manhattan's suboptimal answer appears
    only when asked for (a known case: the diagonal detour)."""
    walk = np.ones((6, 6), dtype=bool)
    walk[1:5, 3] = False
    walk[0, 3] = False
    best = oracle(walk, None, 10, 14, "only_if_no_obstacles", (0, 0))[5 * 6 + 5]
    default = Pathfinder(NavGrid(walk))
    assert default.options.heuristic == "octile" and default.options.weight == 1.0
    assert default.find_path_cells((0, 0), (5, 5)).cost_int == best
    greedy = Pathfinder(NavGrid(walk), heuristic="manhattan")
    assert greedy.options.heuristic == "manhattan"
    assert not greedy.options.admissible and default.options.admissible


@fixed(60)
@given(world=worlds(), mode=st.sampled_from(MODES),
       w=st.sampled_from([1.0, 1.25, 1.5, 2.0, 3.0, 7.77]))
def test_greedy_weight_bound(world, mode, w):
    """weight=w: a legal path costing at most ``w' * optimum``, w' =
    round(w * 1024) / 1024 (the integer factor the kernel applies)."""
    walk, weights, card, diag, s, g = world
    pf = Pathfinder(NavGrid(walk, weights), costs=(card, diag), diagonal=mode, weight=w)
    best = oracle(walk, weights, card, diag, mode, s)[g[1] * walk.shape[1] + g[0]]
    r = _run(pf, s, g)
    if r.status == Status.FOUND:
        assert best <= r.cost_int <= round(w * 1024) * best / 1024
        assert check_path(walk, weights, card, diag, mode, r.cells) == r.cost_int
    else:
        assert math.isinf(best) or not walk[s[1], s[0]] or not walk[g[1], g[0]]


def test_greedy_weight_expands_fewer() -> None:
    """On an open field a greedy weight expands fewer cells than plain A*
    (octile with seed costs ties nothing away: many equal-f cells)."""
    rng = np.random.default_rng(3)
    walk = rng.random((60, 60)) > 0.2
    weights = rng.integers(1, 4, size=walk.shape)
    walk[0, 0] = walk[59, 59] = True
    grid = NavGrid(walk, weights.astype(np.int32))
    plain = Pathfinder(grid).find_path_cells((0, 0), (59, 59), algorithm="astar")
    fast = Pathfinder(grid, weight=2.0).find_path_cells((0, 0), (59, 59), algorithm="astar")
    assert plain.found and fast.found
    assert fast.expanded < plain.expanded
    assert plain.cost_int <= fast.cost_int <= 2 * plain.cost_int


# ------------------------------------------------------- fractional weights
@st.composite
def float_costs(draw: st.DrawFn) -> tuple:
    depth = draw(st.integers(1, 8))
    width = draw(st.integers(1, 8))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    c = rng.choice([0.5, 1.0, 3.0, 0.25], size=(depth, width)) * rng.uniform(0.9, 1.1,
                                                                             (depth, width))
    c[rng.random((depth, width)) < 0.2] = 0.0
    s = (draw(st.integers(0, width - 1)), draw(st.integers(0, depth - 1)))
    g = (draw(st.integers(0, width - 1)), draw(st.integers(0, depth - 1)))
    res = draw(st.sampled_from([None, 10, 1000]))
    return c, s, g, res


@fixed(50)
@given(case=float_costs(), mode=st.sampled_from(MODES))
def test_fractional_weights_against_float_oracle(case, mode):
    """A tcod-style float cost array: the weights are round(c * res); the
    reported cost (over res) lies within the documented rounding of the
    float optimum: ``0.5 / res`` per step, steps of both paths counted, and
    equals the Dijkstra of the mapped integers exactly."""
    c, s, g, res = case
    grid = NavGrid.from_costs(c, resolution=res)
    r_ = grid.meta["weight_resolution"]
    assert r_ == (100 if res is None else res)
    walk = c != 0
    assert np.array_equal(grid.walkable, walk)
    pf = Pathfinder(grid, costs=(10, 14), diagonal=mode)
    width = c.shape[1]
    best_f = oracle(walk, c, 10, 14, mode, s)[g[1] * width + g[0]]
    best_i = oracle(walk, grid.weight_array(), 10, 14, mode, s)[g[1] * width + g[0]]
    r = _run(pf, s, g)
    if r.status != Status.FOUND:
        assert math.isinf(best_f) or not walk[s[1], s[0]] or not walk[g[1], g[0]]
        return
    assert r.cost_int == best_i
    steps = len(r.cells) - 1
    slack = 0.5 / r_ * 1.4 * (steps + c.size) + 1e-9
    assert abs(r.cost_int / (10 * r_) - best_f / 10) <= slack


def test_from_costs_mapping_and_errors() -> None:
    g = NavGrid.from_costs(np.array([[0, 1, 2], [5, 0, 1]]))
    assert g.weights is not None
    assert g.weights.tolist() == [[1, 1, 2], [5, 1, 1]]
    assert g.walkable.tolist() == [[False, True, True], [True, False, True]]
    assert g.meta["weight_resolution"] == 1
    # half to even: 0.125 * 100 = 12.5 -> 12, 0.135 * 100 = 13.5 -> 14
    h = NavGrid.from_costs(np.array([[0.125, 0.135]]))
    assert h.weight_array().tolist() == [[12, 14]]
    for bad, field in ((np.array([[1.0, -1.0]]), "costs"), (np.array([[np.nan]]), "costs"),
                       (np.array([[0.001]]), "costs"), (np.array([[1000.0]]), "costs"),
                       (np.ones(3), "costs")):
        with pytest.raises(ConfigError) as e:
            NavGrid.from_costs(bad)
        assert e.value.field == field
    with pytest.raises(ConfigError) as e:
        NavGrid.from_costs(np.ones((2, 2)), resolution=0)
    assert e.value.field == "resolution"
    with pytest.raises(ConfigError, match="from_costs"):
        NavGrid(np.ones((1, 2), bool), weights=np.array([[0.5, 1.0]]))


@fixed(30)
@given(world=worlds())
def test_pathfinder_takes_arrays(world):
    """``Pathfinder(ndarray)``: a bool array is the walkable grid, an int array
    tcod-style costs (0 = wall); both answer like the oracle."""
    walk, weights, card, diag, s, g = world
    mode = "only_if_no_obstacles"
    a = Pathfinder(walk, costs=(card, diag))
    w = np.ones(walk.shape, dtype=np.int64) if weights is None else weights.astype(np.int64)
    b = Pathfinder(np.where(walk, w, 0), costs=(card, diag))
    assert np.array_equal(b.grid.walkable, walk)
    for pf, wts in ((a, None), (b, w)):
        best = oracle(walk, wts, card, diag, mode, s)[g[1] * walk.shape[1] + g[0]]
        r = pf.find_path_cells(s, g)
        if r.status == Status.FOUND:
            assert r.cost_int == best


# ------------------------------------------------------------------ dispatch
def test_jps_refuses_other_options() -> None:
    walk = np.ones((5, 5), dtype=bool)
    options: list[dict[str, Any]] = [{"diagonal": "always"}, {"diagonal": "at_least_one_walkable"},
                                     {"heuristic": "euclidean"}, {"weight": 1.5}]
    for kw in options:
        pf = Pathfinder(walk, **kw)
        assert pf.resolve_algorithm("auto") == "astar"
        with pytest.raises(QueryError, match="JPS needs diagonal"):
            pf.find_path_cells((0, 0), (4, 4), algorithm="jps")
        with pytest.raises(QueryError, match="JPS needs diagonal"):
            pf.find_path((0.5, 0.5), (4.5, 4.5), algorithm="jps")
        assert pf.find_path((0.5, 0.5), (4.5, 4.5)).found
    assert Pathfinder(walk).resolve_algorithm("auto") == "jps"


def test_option_errors() -> None:
    walk = np.ones((3, 3), dtype=bool)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"connectivity": 4, "diagonal": "always"}, "diagonal"),
        ({"connectivity": 8, "diagonal": "never"}, "diagonal"),
        ({"diagonal": "sometimes"}, "diagonal"),
        ({"heuristic": "dijkstra"}, "heuristic"),
        ({"weight": 0.5}, "weight"),
        ({"weight": float("nan")}, "weight"),
        ({"weight": True}, "weight"),
        ({"weight": "2"}, "weight"),
        ({"connectivity": 6}, "connectivity"),
    ]
    for kw, field in cases:
        with pytest.raises(ConfigError) as e:
            Pathfinder(walk, **kw)
        assert e.value.field == field, kw
    assert Pathfinder(walk, diagonal="never").connectivity == 4
    assert Pathfinder(walk, connectivity=4).options.diagonal == "never"
    with pytest.raises(QueryError):
        Pathfinder([[1, 0]])  # type: ignore[arg-type]  # neither a NavGrid nor an array


def test_euclidean_heuristic_values() -> None:
    """The Euclidean heuristic is floor(|d| * min(card, diag / sqrt 2) * (1 - 2**-16))
    times the smallest weight: below the octile distance, never above any path."""
    from navkit._kernels.search import heuristic_opt
    from navkit.costs import CostModel
    from navkit.query.options import euclid_scale

    for card, diag in ((10, 14), (10, 20), (1_000_000, 1_414_214), (3, 3)):
        hs = euclid_scale(CostModel(card, diag), True)
        for dx in range(0, 40, 7):
            for dz in range(0, 40, 5):
                h = heuristic_opt(dx, dz, 0, 0, card, diag, True, 2, 3, 1024, hs)
                octile = (card * max(dx, dz) + (diag - card) * min(dx, dz)) * 2
                assert h <= octile
                exact = math.sqrt(dx * dx + dz * dz) * min(card, diag / math.sqrt(2))
                assert h == 2 * math.floor(exact * (1 - 2.0 ** -16)) or \
                    abs(h / 2 - exact * (1 - 2.0 ** -16)) < 1


def test_options_same_without_jit() -> None:
    """The kernels as plain Python (NUMBA_DISABLE_JIT) answer as the compiled
    ones under every option."""
    from tests.jitcheck import assert_same_without_jit

    code = (
        "import numpy as np\n"
        "from navkit import NavGrid, Pathfinder\n"
        "rng = np.random.default_rng(5)\n"
        "walk = rng.random((12, 12)) < 0.75\n"
        "w = rng.integers(1, 4, walk.shape).astype(np.int32)\n"
        "out = []\n"
        "for mode in ('only_if_no_obstacles', 'at_least_one_walkable', 'always', 'never'):\n"
        "    for h, wt in (('octile', 1.0), ('euclidean', 1.0), ('manhattan', 1.0),\n"
        "                  ('chebyshev', 2.5)):\n"
        "        for grid in (NavGrid(walk), NavGrid(walk, w)):\n"
        "            pf = Pathfinder(grid, diagonal=mode, heuristic=h, weight=wt)\n"
        "            for s, g in (((0, 0), (11, 11)), ((3, 9), (10, 1))):\n"
        "                r = pf.find_path_cells(s, g, algorithm='astar', nearest=True)\n"
        "                out.append((r.status.name, r.cost_int, r.expanded, r.cells.tolist()))\n"
        "print(out)\n"
    )
    assert_same_without_jit(code)
