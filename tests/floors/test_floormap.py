"""World queries on buildings: the floor of a point, snapping, results, nearest-reachable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navkit.contract import Navigator
from navkit.errors import QueryError
from navkit.floors import FloorMap
from navkit.floors.examples import two_floors
from navkit.results import Status

from .oracle import distances, layered_graph
from .test_floor_search import _random_building


def test_a_path_up_the_stairs():
    fm = FloorMap(two_floors())
    assert isinstance(fm, Navigator)
    r = fm.find_path((1.0, 0.0, 4.0), (19.0, 3.5, 4.0))
    assert r.status == Status.FOUND
    assert r.link_names == ["stairs"] and r.links[0].kind == "stairs"
    at = r.links[0].at
    # the link's ends are consecutive waypoints on the two floors
    assert r.floors[at] == 0 and r.floors[at + 1] == 1
    assert np.allclose(r.waypoints[at], (10.25, 4.25)) and np.allclose(r.waypoints[at + 1],
                                                                          (14.25, 4.25))
    assert np.allclose(r.heights, np.where(r.floors == 1, 3.5, 0.0))
    assert r.points3d().shape == (len(r.waypoints), 3)
    assert np.allclose(r.waypoints[-1], (19.0, 4.0))  # the exact end point (§4.3)
    walked = sum(np.hypot(*(r.waypoints[i] - r.waypoints[i - 1]))
                 for i in range(1, len(r.waypoints)) if i - 1 != at)
    walked += np.hypot(r.waypoints[0, 0] - 1.0, r.waypoints[0, 1] - 4.0)
    assert r.length == pytest.approx(walked + fm.building.links[0].cost)


def test_floor_of_follows_the_height_rule():
    fm = FloorMap(two_floors())
    assert fm.floor_of((15, 3.5, 5)) == 1
    assert fm.floor_of((15, 3.5 - 1e-7, 5)) == 1  # within the tolerance
    assert fm.floor_of((15, 3.4, 5)) == 0
    assert fm.floor_of((2, 3.5, 5)) == 0  # the upper floor has no cell there
    assert fm.floor_of((15, 5)) == 0
    assert fm.floor_of((15, 0.0, 5), "upper") == 1


def test_no_start_names_the_floor():
    fm = FloorMap(two_floors())
    r = fm.find_path((500.0, 3.5, 4.0), (19.0, 3.5, 4.0))
    assert r.status == Status.NO_START and "outside the map" in r.reason and "'upper'" in r.reason


def test_obstacles_act_on_their_floor_only():
    fm = FloorMap(two_floors())
    base = fm.find_path((1.0, 0.0, 4.0), (19.0, 3.5, 4.0))
    # a circle over the stairs' upper end blocks the route ...
    up = fm.find_path((1.0, 0.0, 4.0), (19.0, 3.5, 4.0), obstacles=[[14.25, 4.25, 0.6, 1]])
    assert up.status == Status.NO_GOAL or up.status == Status.UNREACHABLE or \
        up.cost > base.cost
    # ... the same circle on the ground floor (nowhere near the route there) does not
    same = fm.find_path((1.0, 0.0, 4.0), (19.0, 3.5, 4.0), obstacles=[[16.0, 8.0, 0.6, 0]])
    assert same.cost == base.cost
    with pytest.raises(QueryError, match="x, z, radius, floor"):
        fm.find_path((1.0, 0.0, 4.0), (19.0, 3.5, 4.0), obstacles=[[14.0, 4.0, 0.6]])
    # the buffer is restored after the query
    assert fm.find_path((1.0, 0.0, 4.0), (19.0, 3.5, 4.0)).cost == base.cost


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), floors=st.integers(1, 3), links=st.integers(0, 5))
def test_world_queries_equal_dijkstra_between_snapped_cells(seed, floors, links):
    obj, b, grids, rng = _random_building(seed, floors, links)
    fm = FloorMap(b)
    s = fm.search
    graph = layered_graph(grids, obj, s.costs.card, s.costs.diag)
    ys = b.floor_ys
    for _ in range(6):
        fa, fb = (int(v) for v in rng.integers(0, floors, 2))
        pa = (float(rng.uniform(-1, 11)), float(ys[fa]), float(rng.uniform(-1, 11)))
        pb = (float(rng.uniform(-1, 11)), float(ys[fb]), float(rng.uniform(-1, 11)))
        r = fm.find_path(pa, pb, start_floor=fa, goal_floor=fb)
        ps = fm.place(pa, floor=fa)
        pg = fm.place(pb, floor=fb)
        if ps is None:
            assert r.status == Status.NO_START
            continue
        if pg is None:
            assert r.status == Status.NO_GOAL
            continue
        a = s.node((fa, *ps.cell))
        t = s.node((fb, *pg.cell))
        dist = distances(graph, a)
        if np.isinf(dist[t]):
            assert r.status == Status.UNREACHABLE
            near = fm.find_path_to_nearest(pa, pb, start_floor=fa, goal_floor=fb)
            # the reachable cell nearest the goal cell in 3-D, ties to the lower node
            reach = np.flatnonzero(~np.isinf(dist))
            cells = s.cells_of(reach)
            cs = b.cell_size
            d = ((cells[:, 1] - pg.cell[0]) * cs) ** 2 + ((cells[:, 2] - pg.cell[1]) * cs) ** 2 \
                + (ys[cells[:, 0]] - ys[fb]) ** 2
            best = int(reach[np.lexsort((reach, d))[0]])
            if best == a:
                assert not near.has_path
            else:
                assert near.status == Status.NEAREST
                assert s.node(tuple(near.cells[-1])) == best
                assert near.cost_int == int(dist[best])
            continue
        assert r.status == Status.FOUND
        assert r.cost_int == int(dist[t])
        assert set(r.floors.tolist()) <= set(range(floors))
        # every floor change happens at a link taken
        changes = [i for i in range(1, len(r.floors)) if r.floors[i] != r.floors[i - 1]]
        assert all(any(st.at == i - 1 for st in r.links) for i in changes)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), floors=st.integers(1, 3), links=st.integers(0, 6),
       weighted=st.booleans())
def test_every_algorithm_gives_dijkstras_cost(seed, floors, links, weighted):
    """The route through link ends (any single-floor algorithm per piece) and the
    layered search cost what Dijkstra on the layered graph says."""
    obj, b, grids, rng = _random_building(seed, floors, links)
    if not weighted:
        for fl in obj["floors"]:
            for a in fl["areas"]:
                a["weight"] = 1
        from navkit.floors import Building

        b = Building(obj)
        grids = [b.grid(f) for f in range(floors)]
    fm = FloorMap(b)
    s = fm.search
    graph = layered_graph(grids, obj, s.costs.card, s.costs.diag)
    free = np.flatnonzero(b.stacked()[0] == 1)
    if not len(free):
        return
    algos = ["auto", "astar", "layered", "dijkstra"] + ([] if weighted else ["jps", "jps+"])
    for _ in range(4):
        a, t = (int(v) for v in rng.choice(free, 2))
        ref = distances(graph, a)[t]
        ca, ct = (tuple(int(v) for v in c) for c in s.cells_of(np.array([a, t])))
        for algo in algos:
            r = fm.find_path_cells(ca, ct, algorithm=algo)
            if np.isinf(ref):
                assert r.status == Status.UNREACHABLE, algo
                continue
            assert r.status == Status.FOUND and r.cost_int == int(ref), algo
            assert tuple(r.cells[0]) == ca and tuple(r.cells[-1]) == ct
            # each step a move within a floor or an enabled link
            for i in range(1, len(r.cells)):
                (fa, xa, za), (fb, xb, zb) = r.cells[i - 1].tolist(), r.cells[i].tolist()
                if fa != fb or max(abs(xa - xb), abs(za - zb)) != 1:
                    k = r.links[[st.at for st in r.links].index(i - 1)].index
                    assert b.link_states[k] == 1, algo


def test_the_seeds_bounded_case_stairs_outside_the_window():
    """A target one floor up, right above the start, with the stairs far outside the
    bounded preset's 38 x 38 box: the bounded query ends WINDOW_EXHAUSTED, the
    default route finds the stairs."""
    obj = {"cellSize": 0.5, "agentRadius": 0.0, "objectPadding": 0.0,
           "floors": [{"name": "ground", "areas": [
                           {"name": "hall", "polygon": [[0, 0], [60, 0], [60, 10], [0, 10]]}]},
                      {"name": "upper", "floorY": 3.5, "areas": [
                           {"name": "hall", "polygon": [[0, 0], [60, 0], [60, 10], [0, 10]]}]}],
           "links": [{"name": "stairs", "kind": "stairs",
                      "from": {"floor": "ground", "point": [55.0, 5.0]},
                      "to": {"floor": "upper", "point": [57.0, 5.0]}}]}
    fm = FloorMap(obj)
    bounded = fm.find_path((5.0, 0.0, 5.0), (5.0, 3.5, 5.0), preset="bounded")
    assert bounded.status == Status.WINDOW_EXHAUSTED and not bounded.has_path
    full = fm.find_path((5.0, 0.0, 5.0), (5.0, 3.5, 5.0))
    assert full.status == Status.FOUND and full.link_names == ["stairs"]
    # with the stairs inside the box the bounded query finds them too
    near = fm.find_path((50.0, 0.0, 5.0), (52.0, 3.5, 5.0), preset="bounded")
    assert near.status == Status.FOUND and near.link_names == ["stairs"]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), floors=st.integers(1, 3), links=st.integers(0, 5))
def test_windowed_queries_equal_dijkstra_inside_the_window(seed, floors, links):
    from scipy.sparse.csgraph import dijkstra

    obj, b, grids, rng = _random_building(seed, floors, links)
    fm = FloorMap(b)
    s = fm.search
    graph = layered_graph(grids, obj, s.costs.card, s.costs.diag).tolil()
    free = np.flatnonzero(b.stacked()[0] == 1)
    if not len(free):
        return
    x0, z0 = (int(v) for v in rng.integers(0, 6, 2))
    win = (x0, z0, x0 + int(rng.integers(2, 8)), z0 + int(rng.integers(2, 8)))
    cells = s.cells_of(np.arange(s.nodes))
    outside = np.flatnonzero((cells[:, 1] < win[0]) | (cells[:, 1] > win[2])
                             | (cells[:, 2] < win[1]) | (cells[:, 2] > win[3]))
    for _ in range(4):
        a, t = (int(v) for v in rng.choice(free, 2))
        g = graph.copy()
        cut = outside[outside != a]  # the start is expanded wherever it lies (§3.6)
        g[:, cut] = 0
        ref = dijkstra(g.tocsr(), directed=True, indices=a)[t]
        ca, ct = (tuple(int(v) for v in c) for c in s.cells_of(np.array([a, t])))
        r = s.path(ca, ct, window=win)
        if np.isinf(ref):
            assert r.status == Status.WINDOW_EXHAUSTED
        else:
            assert r.status == Status.FOUND and r.cost_int == int(ref)


@pytest.mark.parametrize("cell", [(0, 87, 4), (0, -1, 4), (2, 1, 1), (-1, 1, 1), (0, 1, 47),
                                  ("attic", 1, 1), (0, 1), "cell"])
def test_cells_outside_the_building_are_query_errors(cell):
    """A cell past a row's end must not wrap onto the next row (every algorithm)."""
    from navkit.errors import ConfigError

    fm = FloorMap(Path(__file__).resolve().parents[2] / "navkit" / "examples" / "tavern.json")
    for algo in ("auto", "layered"):
        with pytest.raises((QueryError, ConfigError)):
            fm.find_path_cells(cell, (1, 70, 10), algorithm=algo)
