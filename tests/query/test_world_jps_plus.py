"""World queries on JPS+ tables (issue #19 item 1): ``find_path`` with
``algorithm="jps+"``, or ``"auto"`` where it picks the tables, runs the
one-call world query on them (``navkit._kernels.query.world_jps_plus_free``).

Oracles: a second Pathfinder without tables answering the same world query
with online JPS (same snapped cells, waypoints, cost and counts: JPS+ without
goal bounds is JPS's very search), and scipy's Dijkstra (tests/reference.py)
for the cost with goal bounds. A spy checks which kernel ran.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from navkit import NavGrid, Pathfinder
from navkit._kernels import query as _query
from tests.conftest import fixed
from tests.query.test_thin_call import oracle_cost


def _spy(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = {"tables": 0, "free": 0, "general": 0}
    for key, name in (("tables", "world_jps_plus_free"), ("free", "world_jps_free"),
                      ("general", "world_jps")):
        kernel = getattr(_query, name)

        def spy(*a: Any, _k: Any = kernel, _key: str = key) -> Any:
            calls[_key] += 1
            return _k(*a)

        monkeypatch.setattr(_query, name, spy)
    return calls


def _same(a: Any, b: Any, counts: bool = True) -> None:
    assert (a.status, a.cost_int, a.start_cell, a.end_cell) == \
        (b.status, b.cost_int, b.start_cell, b.end_cell)
    np.testing.assert_array_equal(a.cells, b.cells)
    np.testing.assert_array_equal(a.waypoints, b.waypoints)
    if counts:
        assert (a.expanded, a.generated) == (b.expanded, b.generated)


@st.composite
def world_scenes(draw: st.DrawFn) -> dict[str, Any]:
    depth = draw(st.integers(2, 16))
    width = draw(st.integers(2, 16))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walk = rng.random((depth, width)) < draw(st.sampled_from([0.6, 0.75, 0.9]))
    # world points anywhere in (and a little outside) the grid: some ends snap
    point = st.tuples(st.floats(-1.5, width + 1.5), st.floats(-1.5, depth + 1.5))
    pairs = draw(st.lists(st.tuples(point, point), min_size=1, max_size=5))
    return {"walk": walk, "pairs": pairs, "smooth": draw(st.booleans()),
            "bounds": draw(st.booleans())}


@given(world_scenes())
@fixed(80)
def test_world_jps_plus_answers_online_jps(scene: dict[str, Any]) -> None:
    walk = scene["walk"]
    pf = Pathfinder(NavGrid(walk.copy()), costs="exact")
    pf.precompute(goal_bounds=scene["bounds"])
    ref = Pathfinder(NavGrid(walk.copy()), costs="exact")
    for sw, ew in scene["pairs"]:
        a = pf.find_path(sw, ew, smooth=scene["smooth"], algorithm="jps+")
        b = ref.find_path(sw, ew, smooth=scene["smooth"], algorithm="jps")
        if not scene["bounds"]:
            _same(a, b)
            continue
        # goal bounds: the same cost and ends; a path among equally short ones
        assert (a.status, a.cost_int, a.start_cell, a.end_cell) == \
            (b.status, b.cost_int, b.start_cell, b.end_cell)
        if a.found:
            assert a.start_cell is not None and a.end_cell is not None
            assert a.cost_int == oracle_cost(walk, None, "exact", a.start_cell, a.end_cell)
            steps = np.abs(np.diff(a.cells, axis=0))
            assert steps.max(initial=1) <= 1 and walk[a.cells[:, 1], a.cells[:, 0]].all()


def test_the_tables_kernel_runs_and_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    walk = np.ones((20, 24), dtype=bool)
    walk[3:17, 11] = False
    walk[10, 2:9] = False
    pf = Pathfinder(NavGrid(walk.copy()), costs="exact")
    pf.precompute()
    ref = Pathfinder(NavGrid(walk.copy()), costs="exact")
    calls = _spy(monkeypatch)
    sw, ew = (1.5, 1.5), (22.5, 18.5)
    _same(pf.find_path(sw, ew, algorithm="jps+"), ref.find_path(sw, ew, algorithm="jps"))
    assert calls == {"tables": 1, "free": 1, "general": 0}  # ref ran the online kernel
    # an end on a blocked cell: snapped by the general kernel, on online JPS
    _same(pf.find_path(sw, (11.5, 8.5), algorithm="jps+"),
          ref.find_path(sw, (11.5, 8.5), algorithm="jps"))
    assert calls["tables"] == 2 and calls["general"] == 2
    # circles and find-path-to-nearest: online JPS (the tables describe the static grid)
    circles = np.array([[15.5, 5.5, 1.5]])
    _same(pf.find_path(sw, ew, algorithm="jps+", obstacles=circles),
          ref.find_path(sw, ew, algorithm="jps", obstacles=circles))
    _same(pf.find_path_to_nearest(sw, (11.5, 8.5), algorithm="jps+"),
          ref.find_path_to_nearest(sw, (11.5, 8.5), algorithm="jps"))
    assert calls["tables"] == 2
    # an occupant changes cells: online JPS until it leaves
    h = pf.add_occupant(18.5, 12.5, 1.0)
    ref.add_occupant(18.5, 12.5, 1.0)
    _same(pf.find_path(sw, ew, algorithm="jps+"), ref.find_path(sw, ew, algorithm="jps"))
    assert calls["tables"] == 2
    pf.remove_occupant(h)
    pf.find_path(sw, ew, algorithm="jps+")
    assert calls["tables"] == 3
    # a cell edit: the tables follow it, the answers stay online JPS's
    pf.set_walkable([[11, 2]], False)
    ref2 = Pathfinder(NavGrid(pf.grid.walkable.copy()), costs="exact")
    _same(pf.find_path(sw, ew, algorithm="jps+"), ref2.find_path(sw, ew, algorithm="jps"))
    assert calls["tables"] == 4


def test_auto_uses_the_tables_where_it_picks_them(monkeypatch: pytest.MonkeyPatch) -> None:
    walk = np.ones((40, 40), dtype=bool)  # a few long walls: few jump points
    walk[5:35, 20] = False
    walk[20, 3:15] = False
    pf = Pathfinder(NavGrid(walk.copy()), costs="exact", precompute=True)
    assert pf.resolve_algorithm("auto") == "jps+"
    ref = Pathfinder(NavGrid(walk.copy()), costs="exact")
    calls = _spy(monkeypatch)
    for sw, ew in (((1.5, 1.5), (38.5, 38.5)), ((30.2, 2.7), (3.1, 37.9)),
                   ((10.5, 25.5), (10.5, 10.5))):
        _same(pf.find_path(sw, ew), ref.find_path(sw, ew))
    assert calls["tables"] == 3
    # without tables "auto" stays online JPS
    assert ref.resolve_algorithm("auto") == "jps"
    assert calls["free"] == 3
