"""JPS+ under run-time cell edits (issue #19 item 1): the tables follow
``set_walkable`` in place.

Oracles: a fresh ``JumpTables.build`` of the edited grid (entry for entry), a
fresh Pathfinder's online JPS on the edited grid (same path and counts) and
scipy's Dijkstra (tests/reference.py) for the cost.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from navkit import ConfigError, NavGrid, Pathfinder, QueryError
from navkit.query.jps_plus import JPSPlus, JumpTables
from tests.conftest import fixed
from tests.query.test_thin_call import oracle_cost


@st.composite
def edit_scenes(draw: st.DrawFn) -> dict[str, Any]:
    depth = draw(st.integers(1, 14))
    width = draw(st.integers(1, 14))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walk = rng.random((depth, width)) < draw(st.sampled_from([0.6, 0.75, 0.9]))
    cell = st.tuples(st.integers(0, width - 1), st.integers(0, depth - 1))
    edits = draw(st.lists(st.tuples(st.lists(cell, min_size=1, max_size=4), st.booleans()),
                          min_size=1, max_size=5))
    pairs = draw(st.lists(st.tuples(cell, cell), min_size=1, max_size=4))
    return {"walk": walk, "edits": edits, "pairs": pairs, "bounds": draw(st.booleans())}


@given(edit_scenes())
@fixed(50)
def test_tables_follow_edits_entry_for_entry(scene: dict[str, Any]) -> None:
    walk = np.array(scene["walk"])
    pf = Pathfinder(NavGrid(walk.copy()), costs="exact")
    pf.precompute(goal_bounds=scene["bounds"])
    for cells, value in scene["edits"]:
        arr = np.array(cells, dtype=np.int64)
        pf.set_walkable(arr, value)
        walk[arr[:, 1], arr[:, 0]] = value
        jp = pf.engine.cells.jps_plus
        assert jp is not None
        if pf.version:  # a cell changed: the bounds (not updated) are gone
            assert jp.goal_bounds is None
        fresh = Pathfinder(NavGrid(walk.copy()), costs="exact")
        assert np.array_equal(jp.tables.tab, JumpTables.build(fresh).tab)
        assert jp.tables.matches(fresh)
        for s, g in scene["pairs"]:
            a = pf.find_path_cells(s, g, algorithm="jps+")
            b = fresh.find_path_cells(s, g, algorithm="jps")
            assert (a.status, a.cost_int) == (b.status, b.cost_int)
            if not scene["bounds"] or pf.version:  # without bounds: JPS's very answer
                np.testing.assert_array_equal(a.cells, b.cells)
                assert (a.expanded, a.generated) == (b.expanded, b.generated)
            assert a.cost_int == oracle_cost(walk, None, "exact", s, g)


def test_tables_handed_in_are_copied_not_shared() -> None:
    walk = np.ones((9, 12), dtype=bool)
    walk[1:8, 5] = False
    pf1 = Pathfinder(NavGrid(walk.copy()), costs="exact")
    pf2 = Pathfinder(NavGrid(walk.copy()), costs="exact")
    tables = pf1.precompute()
    pf2.engine.cells.set_jps_plus(JPSPlus(pf2, tables))
    before = tables.tab.copy()
    pf1.set_walkable([[5, 0]], False)  # closes the top gap of pf1 only
    assert np.array_equal(tables.tab, before)
    assert pf1.find_cost((0, 0), (11, 0), algorithm="jps+") == \
        pf1.find_cost((0, 0), (11, 0), algorithm="astar")
    assert pf2.find_cost((0, 0), (11, 0), algorithm="jps+") == \
        pf2.find_cost((0, 0), (11, 0), algorithm="astar") == 11 * pf2.costs.card
    assert pf2.engine.cells.jps_plus is not None and pf2.engine.cells.jps_plus.tables is tables


def test_wide_edits_rebuild_and_weights_drop_the_tables() -> None:
    walk = np.ones((30, 30), dtype=bool)
    pf = Pathfinder(NavGrid(walk.copy()), costs="exact")
    pf.precompute()
    jp = pf.engine.cells.jps_plus
    assert jp is not None
    box = np.zeros((30, 30), dtype=bool)
    box[5:25, 5:25] = True
    box[10:20, 10:20] = False
    pf.set_walkable(box, False)  # 300 cells over a 20x20 box: rebuilt, not updated
    assert jp.tables.rebuilds == 1 and jp.tables.updates == 1
    walk[box] = False
    assert np.array_equal(jp.tables.tab, JumpTables.build(Pathfinder(NavGrid(walk))).tab)
    assert pf.find_cost((0, 0), (29, 29), algorithm="jps+") == \
        oracle_cost(walk, None, "exact", (0, 0), (29, 29))
    pf.set_weights((0, 0, 1, 1), 3)  # JPS no longer applies: the tables go
    assert pf.engine.cells.jps_plus is None and pf.resolve_algorithm("auto") == "astar"


def test_edit_under_an_occupant_and_after_it_leaves() -> None:
    walk = np.ones((7, 9), dtype=bool)
    pf = Pathfinder(NavGrid(walk.copy()), costs="exact")
    pf.precompute()
    jp = pf.engine.cells.jps_plus
    assert jp is not None
    h = pf.add_occupant(4.5, 3.5, 0.2)
    assert not jp.static
    pf.set_walkable([[4, 3]], False)  # the occupant's cell: now a wall too
    pf.remove_occupant(h)
    assert jp.static  # the wall is static now: the tables hold it
    walk[3, 4] = False
    fresh = Pathfinder(NavGrid(walk), costs="exact")
    n = jp.fallbacks
    for s, g in (((0, 3), (8, 3)), ((4, 0), (4, 6)), ((0, 0), (8, 6))):
        a = pf.find_path_cells(s, g, algorithm="jps+")
        b = fresh.find_path_cells(s, g, algorithm="jps")
        np.testing.assert_array_equal(a.cells, b.cells)
    assert jp.fallbacks == n  # answered on the tables


def test_update_refuses_another_grid_and_cells_outside() -> None:
    """Kernels run without bounds checks: a direct ``JumpTables.update`` call with
    another grid's Pathfinder or cells outside the grid is refused first."""
    small = Pathfinder(NavGrid(np.ones((5, 6), dtype=bool)))
    tables = small.precompute()
    big = Pathfinder(NavGrid(np.ones((9, 9), dtype=bool)))
    with pytest.raises(ConfigError, match="5"):
        tables.update(big, [1], [1])
    for xs, zs in (([6], [0]), ([0], [5]), ([-1], [0]), ([1, 2], [1])):
        with pytest.raises(QueryError):
            tables.update(small, xs, zs)
    assert tables.update(small, [], []) == 0 and tables.updates == 0
