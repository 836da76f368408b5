"""HPA* queries with ``obstacles=`` circles and ``nearest=`` (issue #18 §5).

Oracles: scipy Dijkstra on the grid with the circles' cells removed (the
cells are computed centre by centre here, docs/rules.md §7.1), the
brute-force nearest cell of docs/rules.md §6.2, and a fresh Pathfinder with
the circles.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from navkit import HPAStar, NavGrid, Pathfinder, QueryError, Status
from tests.conftest import fixed
from tests.reference import dijkstra_costs, is_valid_path, path_cost, reachable_nearest

EXACT = (1_000_000, 1_414_214)


def covered(grid: NavGrid, circles: np.ndarray) -> np.ndarray:
    """Cells whose centre lies in a circle's closed disc, as ``[z, x]`` bools."""
    xs = grid.min_x + (np.arange(grid.width) + 0.5) * grid.cell_size
    zs = grid.min_z + (np.arange(grid.depth) + 0.5) * grid.cell_size
    out = np.zeros(grid.shape, dtype=bool)
    for x, z, r in np.asarray(circles, dtype=np.float64).reshape(-1, 3):
        out |= (xs[None, :] - x) ** 2 + (zs[:, None] - z) ** 2 <= r * r
    return out


def random_case(seed: int, depth: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    walk = rng.random((depth, width)) >= 0.2
    k = int(rng.integers(1, 5))
    circles = np.stack([rng.uniform(0, width, k), rng.uniform(0, depth, k),
                        rng.uniform(0.4, 2.5, k)], axis=1)
    return walk, circles


@fixed(30)
@given(seed=st.integers(0, 100_000), cluster=st.sampled_from([4, 5, 8]),
       weighted=st.booleans(), smooth=st.booleans())
def test_obstacle_queries_are_valid_and_exact_where_claimed(seed: int, cluster: int,
                                                            weighted: bool, smooth: bool) -> None:
    depth, width = 14, 17
    walk, circles = random_case(seed, depth, width)
    rng = np.random.default_rng(seed + 7)
    weights = rng.integers(1, 4, size=walk.shape).astype(np.int32) if weighted else None
    grid = NavGrid(walk, weights=weights)
    hpa = HPAStar(grid, costs=EXACT, cluster_size=cluster)
    free = walk & ~covered(grid, circles)
    zs, xs = np.nonzero(walk)
    for _ in range(6):
        i, j = rng.integers(0, len(xs), size=2)
        s, g = (int(xs[i]), int(zs[i])), (int(xs[j]), int(zs[j]))
        before = hpa.exact_answers
        r = hpa.find_path_cells(s, g, obstacles=circles, smooth=smooth)
        dist = dijkstra_costs(free, weights, s, *EXACT)
        want = dist[g[1], g[0]]
        if not free[s[1], s[0]]:
            assert r.status == Status.NO_START
        elif not free[g[1], g[0]]:
            assert r.status == Status.NO_GOAL
        elif not np.isfinite(want):
            assert r.status == Status.UNREACHABLE
        else:
            assert r.status == Status.FOUND
            assert is_valid_path(free, r.cells)  # avoids every circle, corner rule included
            assert path_cost(r.cells, weights, *EXACT) == r.cost_int
            assert r.cost_int >= int(want)
            if hpa.exact_answers > before:  # answered by A*: optimal
                assert r.cost_int == int(want)
            if smooth:  # the smoothed waypoints see each other through free cells only
                pf = Pathfinder(NavGrid(free, weights=weights), costs=EXACT)
                kept = np.floor(r.waypoints).astype(np.int64)  # (cell size 1, origin 0)
                for a, b in zip(kept[:-1], kept[1:], strict=True):
                    assert pf.line_of_sight(tuple(a), tuple(b))


def test_a_blocking_circle_is_walked_around_and_a_far_one_keeps_hpa() -> None:
    walk = np.ones((40, 40), dtype=bool)
    walk[5:35, 20] = False
    grid = NavGrid(walk)
    hpa = HPAStar(grid, costs=EXACT, cluster_size=8)
    plain = hpa.find_path_cells((2, 20), (38, 20))
    # far from the path: HPA*'s own answer is kept
    far = np.array([[38.5, 38.5, 0.6]])
    assert not covered(grid, far)[tuple(plain.cells[:, ::-1].T)].any()
    r = hpa.find_path_cells((2, 20), (38, 20), obstacles=far)
    assert hpa.exact_answers == 0
    assert r.cells.tolist() == plain.cells.tolist() and r.cost_int == plain.cost_int
    # across HPA*'s path: the answer avoids it, at the optimal cost of the blocked grid
    on_path = plain.cells[len(plain.cells) // 2]
    circle = np.array([[on_path[0] + 0.5, on_path[1] + 0.5, 1.5]])
    free = walk & ~covered(grid, circle)
    r = hpa.find_path_cells((2, 20), (38, 20), obstacles=circle)
    assert hpa.exact_answers == 1 and r.found and is_valid_path(free, r.cells)
    assert r.cost_int == int(dijkstra_costs(free, None, (2, 20), *EXACT)[20, 38])
    oracle = Pathfinder(grid, costs=EXACT).find_path_cells((2, 20), (38, 20), obstacles=circle,
                                                            algorithm="astar")
    assert r.cost_int == oracle.cost_int
    # a circle over the start
    r = hpa.find_path_cells((2, 20), (38, 20), obstacles=[[2.5, 20.5, 0.5]])
    assert r.status == Status.NO_START


@fixed(25)
@given(seed=st.integers(0, 100_000), with_circles=st.booleans())
def test_nearest_gives_the_rules_nearest_cell(seed: int, with_circles: bool) -> None:
    depth, width = 13, 15
    walk, circles = random_case(seed, depth, width)
    walk[:, 7] = False  # two halves: many goals unreachable
    grid = NavGrid(walk)
    hpa = HPAStar(grid, costs=EXACT, cluster_size=4)
    obstacles = circles if with_circles else None
    free = walk & ~covered(grid, circles) if with_circles else walk
    rng = np.random.default_rng(seed)
    zs, xs = np.nonzero(free)
    if len(xs) == 0:
        return
    for _ in range(5):
        i = int(rng.integers(0, len(xs)))
        s = (int(xs[i]), int(zs[i]))
        g = (int(rng.integers(0, width)), int(rng.integers(0, depth)))  # any cell, even blocked
        r = hpa.find_path_cells(s, g, nearest=True, obstacles=obstacles)
        dist = dijkstra_costs(free, None, s, *EXACT)
        if np.isfinite(dist[g[1], g[0]]):
            assert r.status == Status.FOUND and r.end_cell == g
            assert r.cost_int >= int(dist[g[1], g[0]])
        elif reachable_nearest(dist, g) == s:  # nothing reachable is closer: stay put (§6.2)
            assert r.status == Status.UNREACHABLE and not r.has_path
            continue
        else:
            assert r.status == Status.NEAREST
            end = reachable_nearest(dist, g)
            assert r.end_cell == end
            assert r.cost_int == int(dist[end[1], end[0]])
        assert is_valid_path(free, r.cells)
        assert path_cost(r.cells, None, *EXACT) == r.cost_int


def test_batch_with_obstacles_matches_single_queries() -> None:
    walk, circles = random_case(4, 16, 16)
    hpa = HPAStar(NavGrid(walk), costs=EXACT, cluster_size=4)
    zs, xs = np.nonzero(walk)
    starts = np.stack([xs[:6], zs[:6]], axis=1)
    goals = np.stack([xs[-6:], zs[-6:]], axis=1)
    batch = hpa.find_paths_batch(starts, goals, obstacles=circles)
    for i in range(6):
        r = hpa.find_path_cells(starts[i], goals[i], obstacles=circles)
        assert int(batch.cost_int[i]) == r.cost_int and int(batch.status[i]) == int(r.status)


def test_bad_obstacles_and_nearest_raise() -> None:
    hpa = HPAStar(NavGrid(np.ones((8, 8), bool)), cluster_size=4)
    with pytest.raises(QueryError):
        hpa.find_path_cells((0, 0), (7, 7), obstacles=[[1.0, 1.0]])
    with pytest.raises(QueryError, match="nearest must be a bool"):
        hpa.find_path_cells((0, 0), (7, 7), nearest="yes")  # type: ignore[arg-type]
