"""Searches across floors equal Dijkstra on the layered graph built from the rules alone."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navkit.errors import ConfigError
from navkit.floors import Building, FloorSearch, parse_building
from navkit.results import Status

from .oracle import MOVES, add_random_links, building_dict, distances, layered_graph


def _random_building(seed: int, floors: int, links: int):
    rng = np.random.default_rng(seed)
    obj = building_dict(rng, floors)
    base = Building(parse_building(obj))
    grids = [base.grid(f) for f in range(floors)]
    add_random_links(obj, grids, rng, links)
    return obj, Building(obj), grids, rng


def _check_steps(path, search: FloorSearch, obj, grids, card, diag) -> int:
    """Every step a legal move or an enabled link; returns the summed cost."""
    cells = path.cells
    total = 0
    for i in range(1, len(cells)):
        (fa, xa, za), (fb, xb, zb) = cells[i - 1].tolist(), cells[i].tolist()
        k = int(path.entered[i])
        if k >= 0:
            lk = search.building.links[k]
            assert search.building.link_states[k] == 1
            ends = search.building.link_end_nodes()[k]
            a, b = search.node((fa, xa, za)), search.node((fb, xb, zb))
            fwd = (ends[0], ends[1])
            assert (a, b) == fwd or (lk.bidirectional and (b, a) == fwd)
            total += max(1, int(round(lk.cost / grids[0].cell_size * card)))
            continue
        assert fa == fb and (xb - xa, zb - za) in MOVES
        walk = grids[fb].walkable
        assert walk[zb, xb]
        if xa != xb and za != zb:
            assert walk[za, xb] and walk[zb, xa]
        w = 1 if grids[fb].weights is None else int(grids[fb].weights[zb, xb])
        total += (diag if xa != xb and za != zb else card) * w
    return total


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), floors=st.integers(1, 3), links=st.integers(0, 6),
       costs=st.sampled_from(["seed", "exact"]))
def test_paths_and_fields_equal_dijkstra(seed, floors, links, costs):
    obj, b, grids, rng = _random_building(seed, floors, links)
    s = FloorSearch(b, costs)
    card, diag = s.costs.card, s.costs.diag
    graph = layered_graph(grids, obj, card, diag)
    free = np.argwhere(b.stacked()[0] == 1).ravel()
    if not len(free):
        return
    for _ in range(4):
        a = int(rng.choice(free))
        dist = distances(graph, a)
        # the field from a equals Dijkstra's distances
        field = s.field([tuple(s.cells_of(np.array([a]))[0])]).ravel()
        ref = np.where(np.isinf(dist), -1, dist).astype(np.int64)
        assert np.array_equal(field, ref)
        for t in rng.choice(free, 3):
            t = int(t)
            cs, ct = s.cells_of(np.array([a, t]))
            r = s.path(tuple(cs), tuple(ct))
            if np.isinf(dist[t]):
                assert r.status == Status.UNREACHABLE
                continue
            assert r.status == Status.FOUND
            assert r.cost_int == int(dist[t])
            assert tuple(r.cells[0]) == tuple(cs) and tuple(r.cells[-1]) == tuple(ct)
            assert _check_steps(r, s, obj, grids, card, diag) == r.cost_int
            rd = s.path(tuple(cs), tuple(ct), dijkstra=True)
            assert rd.cost_int == r.cost_int and rd.expanded >= r.expanded


def test_switching_a_link_off_and_on():
    from navkit.floors.examples import two_floors

    b = Building(two_floors())
    s = FloorSearch(b)
    up = s.path((0, 2, 8), (1, 38, 8))
    assert up.status == Status.FOUND and up.links == [0]
    b.set_link_enabled("stairs", False)
    assert s.path((0, 2, 8), (1, 38, 8)).status == Status.UNREACHABLE
    b.set_link_enabled("stairs", True)
    assert s.path((0, 2, 8), (1, 38, 8)).cost_int == up.cost_int


def test_a_one_way_link_is_not_walked_back():
    from navkit.floors.examples import two_floors

    obj = two_floors()
    obj["links"][0]["bidirectional"] = False
    s = FloorSearch(Building(obj))
    assert s.path((0, 2, 8), (1, 38, 8)).status == Status.FOUND
    assert s.path((1, 38, 8), (0, 2, 8)).status == Status.UNREACHABLE


def test_a_closed_door_on_one_floor_only():
    from navkit.floors.examples import two_floors

    obj = two_floors()
    obj["floors"][1]["areas"].append(
        {"name": "hall", "polygon": [[16, 0], [17, 0], [17, 10], [16, 10]], "available": True})
    b = Building(obj)
    with pytest.raises(ConfigError, match="several floors"):
        b.set_area_available("hall", False)
    assert b.set_area_available("hall", False, floor="upper")
    assert b.levels[0].is_area_available("hall")


@pytest.mark.parametrize("mutate, field", [
    (lambda o: o["links"][0]["to"].__setitem__("floor", "attic"), "links[0].to.floor"),
    (lambda o: o["links"][0]["from"].__setitem__("point", [12.5, 5.0]), "links[0].from.point"),
    (lambda o: o["links"][0].__setitem__("cost", 0), "links[0].cost"),
    (lambda o: o["links"].append(dict(o["links"][0])), "links[1].name"),
    (lambda o: o["floors"].append(dict(o["floors"][0])), "floors[2].name"),
    (lambda o: o["floors"].extend([dict(o["floors"][0], name=f"f{i}") for i in range(1000)]),
     "floors"),
    (lambda o: o["links"][0].__setitem__("kind", "rope"), "links[0].kind"),
    (lambda o: o.__setitem__("areas", []), "areas"),
    (lambda o: o["floors"][1]["areas"][0].__setitem__("polygon", [[0, 0], [1, 1]]),
     "floors[1].areas[0].polygon"),
])
def test_hostile_buildings_name_the_field(mutate, field):
    from navkit.floors.examples import two_floors

    obj = two_floors()
    mutate(obj)
    with pytest.raises(ConfigError) as e:
        Building(obj)
    assert e.value.field == field


def test_zero_cost_links_cannot_make_a_free_cycle():
    from navkit.floors.examples import two_floors

    obj = two_floors()
    obj["links"][0]["cost"] = 1e-9  # positive, tiny: its search cost is 1, never 0
    s = FloorSearch(Building(obj))
    r = s.path((0, 2, 8), (1, 38, 8))
    assert r.status == Status.FOUND and r.links == [0]
