"""``Pathfinder.find_path_into`` and :class:`navkit.PathBuffer` (issue #19 item 3).

Oracles: scipy's Dijkstra on an explicitly built move graph (tests/reference.py)
for costs and reachability, paths re-validated and re-costed cell by cell, and
``find_path_cells``' answer (cells, waypoints, status and counts) of the same
query on a second Pathfinder that never saw a buffer.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from navkit import ConfigError, NavGrid, PathBuffer, Pathfinder, QueryError, Status
from tests.conftest import NAMED_COSTS, fixed
from tests.query.test_thin_call import oracle_cost, scenes, usable_algs
from tests.reference import is_valid_path, path_cost


def same_answer(buf: PathBuffer, n: int, r: Any) -> None:
    """``buf`` (``n`` returned) holds exactly the PathResult ``r``."""
    assert n == buf.n == len(r.cells)
    assert buf.status is r.status
    assert buf.cost_int == r.cost_int and buf.cost == r.cost
    assert (buf.expanded, buf.generated) == (r.expanded, r.generated)
    np.testing.assert_array_equal(buf.cells, r.cells)
    np.testing.assert_array_equal(buf.waypoints, r.waypoints)
    assert buf.cells.dtype == np.int32 and buf.waypoints.dtype == np.float64


@given(scenes(), st.integers(1, 4), st.integers(1, 12))
@fixed(60)
def test_into_matches_find_path_cells_and_oracle(scene: dict[str, Any], cap: int,
                                                 budget: int) -> None:
    walk = np.array(scene["walk"])
    weights = scene["weights"]
    costs: Any = scene["costs"]
    card, diag = NAMED_COSTS[costs]
    pf = Pathfinder(NavGrid(walk.copy(), weights=weights), costs=costs)
    ref = Pathfinder(NavGrid(walk.copy(), weights=weights), costs=costs)
    if scene["tables"] and weights is None:
        pf.precompute()
        ref.precompute()
    buf = PathBuffer(capacity=cap)  # small: paths longer than it grow it
    for rnd in range(2):
        if rnd == 1:
            if not scene["edits"]:
                break
            arr = np.array(scene["edits"], dtype=np.int64)
            pf.set_walkable(arr, False)
            ref.set_walkable(arr, False)
            walk[arr[:, 1], arr[:, 0]] = False
        for s, g in scene["pairs"]:
            want = oracle_cost(walk, weights, costs, s, g)
            for alg in usable_algs(pf):
                for b in (None, budget):
                    n = pf.find_path_into(s, g, buf, algorithm=alg, budget=b)
                    same_answer(buf, n, ref.find_path_cells(s, g, algorithm=alg, budget=b))
                    if b is not None:
                        continue
                    assert buf.cost_int == want, (alg, s, g)
                    if want < 0:
                        assert n == 0 and buf.cost == math.inf and not buf.found
                        continue
                    assert buf.found and tuple(buf.cells[0]) == s and tuple(buf.cells[-1]) == g
                    assert is_valid_path(walk, buf.cells)
                    assert path_cost(buf.cells, weights, card, diag) == want
                    centres = ((buf.cells + 0.5) * pf.grid.cell_size
                               + [pf.grid.min_x, pf.grid.min_z])
                    np.testing.assert_allclose(buf.waypoints, centres)


@pytest.mark.parametrize("alg", ["astar", "dijkstra", "jps", "jps+", "auto"])
def test_buffer_grows_and_is_overwritten(alg: Any) -> None:
    walk = np.ones((3, 120), bool)
    pf = Pathfinder(NavGrid(walk.copy()))
    buf = PathBuffer(capacity=1)
    assert pf.find_path_into((0, 1), (119, 1), buf, algorithm=alg) == 120
    assert buf.capacity >= 120 and buf.cost == 119.0
    assert buf.cells[:, 0].tolist() == list(range(120))
    long = buf.result()
    assert long.start_cell == (0, 1) and long.end_cell == (119, 1) and long.cost_int == 1190
    view = buf.cells
    assert pf.find_path_into((5, 0), (7, 0), buf, algorithm=alg) == 3
    assert view[:3].tolist() == [[5, 0], [6, 0], [7, 0]]  # a view: overwritten in place
    assert long.cells[:3].tolist() == [[0, 1], [1, 1], [2, 1]]  # result(): copies
    assert buf.cells.tolist() == [[5, 0], [6, 0], [7, 0]]
    pf.set_walkable(np.array([[60, z] for z in range(3)]), False)
    assert pf.find_path_into((0, 1), (119, 1), buf, algorithm=alg) == 0
    assert buf.status is Status.UNREACHABLE and buf.cost_int == -1 and len(buf.cells) == 0
    assert buf.result().status is Status.UNREACHABLE and not buf.result()


def test_blocked_ends_budget_and_occupants() -> None:
    walk = np.ones((5, 7), bool)
    walk[2, 2] = False
    pf = Pathfinder(NavGrid(walk.copy()))
    pf.precompute()
    buf = PathBuffer()
    for alg in ("astar", "jps", "jps+"):
        pf.find_path_into((0, 0), (6, 4), buf, algorithm=alg)  # counts left in the stats
        assert pf.find_path_into((2, 2), (6, 4), buf, algorithm=alg) == 0
        assert buf.status is Status.NO_START and (buf.expanded, buf.generated) == (0, 0)
        assert pf.find_path_into((0, 0), (2, 2), buf, algorithm=alg) == 0
        assert buf.status is Status.NO_GOAL and (buf.expanded, buf.generated) == (0, 0)
        assert pf.find_path_into((0, 0), (6, 4), buf, algorithm=alg, budget=1) == 0
        assert buf.status is Status.BUDGET_EXHAUSTED
    # occupants: JPS+ answers through online JPS, as find_path_cells does
    wall = walk.copy()
    wall[:, 3] = False
    wall[0, 3] = True
    for z in range(1, 5):
        pf.add_occupant(3.5, z + 0.5, 0.2)
    want = oracle_cost(wall, None, "seed", (0, 4), (6, 4))
    before = pf.engine.cells.jps_plus.fallbacks
    for alg in ("astar", "jps", "jps+", "auto"):
        n = pf.find_path_into((0, 4), (6, 4), buf, algorithm=alg)
        same_answer(buf, n, pf.find_path_cells((0, 4), (6, 4), algorithm=alg))
        assert buf.cost_int == want and is_valid_path(wall, buf.cells)
    assert pf.engine.cells.jps_plus.fallbacks > before


def test_first_jps_plus_query_builds_tables() -> None:
    pf = Pathfinder(NavGrid(np.ones((6, 6), bool)))
    buf = PathBuffer()
    assert pf.engine.cells.jps_plus is None
    assert pf.find_path_into((0, 0), (5, 3), buf, algorithm="jps+") == 6
    assert pf.engine.cells.jps_plus is not None and buf.cost_int == 62
    assert pf.find_path_into((0, 0), (5, 3), buf, algorithm="jps+") == 6


def test_bad_buffer_options_and_algorithms() -> None:
    pf = Pathfinder(NavGrid(np.ones((3, 4), bool)))
    with pytest.raises(QueryError, match="PathBuffer"):
        pf.find_path_into((0, 0), (1, 1), pf.find_path_cells((0, 0), (1, 1)))  # type: ignore
    for cap in (0, -1, 1.5, True, "8"):
        with pytest.raises(ConfigError, match="capacity"):
            PathBuffer(capacity=cap)  # type: ignore[arg-type]
    for kw in ({"budget": 0}, {"algorithm": "bogus"}):
        with pytest.raises(QueryError) as a:
            pf.find_path_cells((0, 0), (3, 2), **kw)
        with pytest.raises(QueryError) as b:
            pf.find_path_into((0, 0), (3, 2), PathBuffer(), **kw)
        assert str(a.value) == str(b.value)
    weighted = Pathfinder(NavGrid(np.ones((3, 4), bool), weights=np.full((3, 4), 2, np.int32)))
    with pytest.raises(QueryError, match="uniform-cost"):
        weighted.find_path_into((0, 0), (3, 2), PathBuffer(), algorithm="jps")
    buf = PathBuffer()
    assert weighted.find_path_into((0, 0), (3, 2), buf) == 4 and buf.cost_int == 76


def test_into_is_recorded_as_a_cell_query(tmp_path) -> None:
    out = tmp_path / "q.jsonl"
    pf = Pathfinder(NavGrid(np.ones((3, 4), bool)), record=out)
    buf = PathBuffer()
    assert pf.find_path_into((0, 0), (3, 2), buf) == 4 and buf.cost_int == 38
    pf.record.close()
    rows = [json.loads(ln) for ln in out.read_text().splitlines()][1:]  # after the header
    assert [r["kind"] for r in rows] == ["find_path_cells"]
