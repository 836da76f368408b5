"""``JPS.last_search_state``: the jump points of the last JPS search (issue #18 item 8).

Oracle: a brute-force check on the walkable array of the JPS rules (docs/jps.md
"How it works", docs/rules.md §3.1): every jump point a search reports is its
start, its goal, or a cell with a forced neighbour (for some straight direction
``d`` and side ``s``: the side cell is free and the side cell one step behind is
blocked). Expanded points also lie on walkable cells, and the start is expanded.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from navkit import NavGrid
from navkit.query.pathfinder import Pathfinder

DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _free(walk: np.ndarray, x: int, z: int) -> bool:
    d, w = walk.shape
    return 0 <= x < w and 0 <= z < d and bool(walk[z, x])


def _forced(walk: np.ndarray, x: int, z: int) -> bool:
    for dx, dz in DIRS:
        for sx, sz in ((dz, dx), (-dz, -dx)):  # the two sides of a straight move
            if _free(walk, x + sx, z + sz) and not _free(walk, x + sx - dx, z + sz - dz):
                return True
    return False


def _check(walk: np.ndarray, pf: Pathfinder, s: tuple[int, int], g: tuple[int, int]) -> None:
    state = pf.engine.jps.last_search_state(s)
    assert state is not None
    expanded, generated = state
    assert expanded.dtype == np.int32 and expanded.ndim == 2 and expanded.shape[1] == 2
    assert generated.dtype == np.int32 and generated.shape[1:] == (2,)
    exp = {tuple(map(int, c)) for c in expanded}
    gen = {tuple(map(int, c)) for c in generated}
    assert not exp & gen
    assert s in exp
    for x, z in exp | gen:
        assert _free(walk, x, z), (x, z)
        assert (x, z) in (s, g) or _forced(walk, x, z), (x, z)


@st.composite
def maps(draw: Any) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
    w = draw(st.integers(4, 24))
    d = draw(st.integers(4, 20))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    walk = rng.random((d, w)) > draw(st.sampled_from([0.0, 0.15, 0.3]))
    free = np.argwhere(walk)
    if len(free) < 2:
        walk[0, 0] = walk[-1, -1] = True
        free = np.argwhere(walk)
    i, j = rng.integers(0, len(free), 2)
    return walk, (int(free[i][1]), int(free[i][0])), (int(free[j][1]), int(free[j][0]))


@settings(max_examples=60, deadline=None)
@given(maps())
def test_cell_query_jump_points_obey_the_jps_rules(case: Any) -> None:
    walk, s, g = case
    pf = Pathfinder(NavGrid(walk))
    res = pf.find_path_cells(s, g, algorithm="jps")
    _check(walk, pf, s, g)
    if res.found:  # the path's ends are jump points of the search
        assert tuple(map(int, res.cells[0])) == s and tuple(map(int, res.cells[-1])) == g


def test_world_query_and_the_last_search_only() -> None:
    walk = np.ones((12, 16), dtype=bool)
    walk[2:10, 7] = False
    walk[5, 3:7] = False
    pf = Pathfinder(NavGrid(walk))
    assert pf.engine.jps.last_search_state() is None
    res = pf.find_path((0.5, 0.5), (14.5, 10.5))  # "auto": the one-call JPS world query
    assert res.found
    _check(walk, pf, (0, 0), (14, 10))
    first = [a.copy() for a in pf.engine.jps.last_search_state((0, 0))]  # type: ignore[union-attr]
    pf.find_path_cells((15, 0), (15, 1), algorithm="jps")
    _check(walk, pf, (15, 0), (15, 1))
    second = pf.engine.jps.last_search_state()
    assert second is not None
    assert not np.array_equal(first[0], second[0])
    # a world query toward an unreachable goal: the flood, then JPS to the nearest cell
    walk2 = walk.copy()
    walk2[:, 7] = False
    pf3 = Pathfinder(NavGrid(walk2))
    res = pf3.find_path_to_nearest((0.5, 0.5), (14.5, 10.5))
    assert res.status.name == "NEAREST"
    assert res.end_cell is not None
    _check(walk2, pf3, (0, 0), (int(res.end_cell[0]), int(res.end_cell[1])))
    exp, gen = pf3.jps.last_search_state((15, 11))  # type: ignore[misc]
    assert exp.shape == gen.shape == (0, 2)  # no search started there
    # an open grid: only start and goal (no forced neighbours anywhere)
    pf2 = Pathfinder(NavGrid(np.ones((6, 6), dtype=bool)))
    pf2.find_path_cells((0, 0), (5, 3), algorithm="jps")
    exp, gen = pf2.engine.jps.last_search_state()  # type: ignore[misc]
    assert {tuple(c) for c in exp.tolist()} <= {(0, 0), (5, 3)}
    assert (0, 0) in {tuple(c) for c in exp.tolist()}
