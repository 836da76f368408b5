"""``find_paths_batch(..., algorithm="jps+")`` on the JPS+ tables (and goal bounds).

Oracles: the same pairs through ``find_path_cells`` one by one (status, cost,
counts, cells: a batch runs the very search a single query runs), online JPS's
batch (same answers as JPS+ without bounds) and scipy's Dijkstra for the cost.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from navkit import NavGrid, Pathfinder
from tests.conftest import fixed
from tests.query.test_thin_call import oracle_cost


def pairs_of(walk: np.ndarray, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    h, w = walk.shape
    return (np.stack([rng.integers(0, w, k), rng.integers(0, h, k)], axis=1),
            np.stack([rng.integers(0, w, k), rng.integers(0, h, k)], axis=1))


def same_as_single(pf: Pathfinder, s: np.ndarray, g: np.ndarray, b: Any,
                   algorithm: str = "jps+") -> None:
    for i in range(len(s)):
        r = pf.find_path_cells(tuple(s[i]), tuple(g[i]), algorithm=algorithm)
        assert int(b.status[i]) == int(r.status), i
        assert int(b.cost_int[i]) == r.cost_int, i
        assert (int(b.expanded[i]), int(b.generated[i])) == (r.expanded, r.generated), i
        if b.path_cells is not None:
            np.testing.assert_array_equal(b.path(i), r.cells)


@given(st.integers(0, 2**32 - 1), st.booleans(), st.integers(1, 3))
@fixed(25)
def test_batch_on_tables_equals_single_queries(seed: int, bounds: bool, threads: int) -> None:
    rng = np.random.default_rng(seed)
    walk = rng.random((int(rng.integers(1, 16)), int(rng.integers(1, 16)))) < 0.75
    pf = Pathfinder(NavGrid(walk), costs="exact")
    pf.precompute(goal_bounds=bounds)
    s, g = pairs_of(walk, 12, seed)
    jp = pf.engine.cells.jps_plus
    assert jp is not None
    n = jp.fallbacks
    for paths in (False, True):
        b = pf.find_paths_batch(s, g, algorithm="jps+", threads=threads, return_paths=paths)
        same_as_single(pf, s, g, b)
        on = pf.find_paths_batch(s, g, algorithm="jps", threads=threads, return_paths=paths)
        assert list(on.cost_int) == list(b.cost_int)
        if not bounds:  # JPS+ is online JPS's very search
            assert list(on.expanded) == list(b.expanded)
    assert jp.fallbacks == n  # the tables answered
    want = [oracle_cost(walk, None, "exact", tuple(a), tuple(c)) for a, c in zip(s, g, strict=True)]
    assert list(b.cost_int) == want


def test_auto_batches_use_the_tables_and_fall_back_with_occupants() -> None:
    walk = np.ones((20, 30), dtype=bool)
    walk[2:18, 15] = False
    pf = Pathfinder(NavGrid(walk.copy()), costs="exact")
    pf.precompute()
    pf.engine.cells.set_jps_plus(pf.engine.cells.jps_plus, auto=True)
    assert pf.resolve_algorithm("auto") == "jps+"
    s, g = pairs_of(walk, 40, 1)
    jp = pf.engine.cells.jps_plus
    assert jp is not None
    b = pf.find_paths_batch(s, g, return_paths=True)
    same_as_single(pf, s, g, b)
    assert jp.fallbacks == 0
    h = pf.add_occupant(15.5, 0.5, 0.3)  # closes the top gap: online JPS answers
    b = pf.find_paths_batch(s, g, return_paths=True)
    assert jp.fallbacks == len(s)
    same_as_single(pf, s, g, b, algorithm="jps")
    pf.remove_occupant(h)
    pf.set_walkable([[15, 0]], False)  # the same wall as an edit: the tables follow it
    b = pf.find_paths_batch(s, g)
    assert jp.fallbacks == len(s)
    walk[0, 15] = False
    assert list(b.cost_int) == [oracle_cost(walk, None, "exact", tuple(a), tuple(c))
                                for a, c in zip(s, g, strict=True)]


@pytest.mark.parametrize("obstacles", [None, [[15.5, 19.5, 0.4]]])
def test_batch_with_obstacles_runs_online(obstacles: Any) -> None:
    walk = np.ones((20, 30), dtype=bool)
    walk[2:18, 15] = False
    pf = Pathfinder(NavGrid(walk.copy()), costs="exact")
    pf.precompute()
    s, g = pairs_of(walk, 20, 2)
    b = pf.find_paths_batch(s, g, algorithm="jps+", obstacles=obstacles)
    on = pf.find_paths_batch(s, g, algorithm="jps", obstacles=obstacles)
    assert list(b.cost_int) == list(on.cost_int)
    assert pf.engine.cells.jps_plus.fallbacks == (0 if obstacles is None else len(s))
