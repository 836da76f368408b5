"""Characters across floors (navkit.floors.sim): stairs up and down, floors apart,
link capacity and queue order, determinism, save/restore mid-ride, links switched off."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from navkit.errors import ConfigError, QueryError
from navkit.floors import Building
from navkit.floors.examples import two_floors
from navkit.floors.sim import LINK_REACH, BuildingSim
from navkit.sim import Location

SMALL = {"contact_radius": 0.04, "collision_radius": 0.05}


def _ladder_building(stairs: bool = True) -> dict:
    """Two 8 x 4 m floors, 3 m apart: a ladder at (2, 2) (capacity 1 by default,
    cost 1.5 m) and, optionally, stairs at the east end."""
    area = [[0, 0], [8, 0], [8, 4], [0, 4]]
    links = [{"name": "ladder", "kind": "ladder", "from": {"floor": "low", "point": [2.0, 2.0]},
              "to": {"floor": "high", "point": [2.0, 2.0]}, "cost": 1.5}]
    if stairs:
        links.append({"name": "stairs", "kind": "stairs",
                      "from": {"floor": "low", "point": [7.0, 1.0]},
                      "to": {"floor": "high", "point": [7.0, 3.0]}})
    return {"cellSize": 0.5, "agentRadius": 0.0, "objectPadding": 0.0,
            "floors": [{"name": "low", "floorY": 0.0, "areas": [{"name": "a", "polygon": area}]},
                       {"name": "high", "floorY": 3.0,
                        "areas": [{"name": "b", "polygon": area}]}],
            "links": links}


def _ride_ticks(cost: float, speed: float, rate: float = 20.0) -> int:
    return max(1, math.ceil(cost / (speed / rate) - 1e-9))


def _link_ticks(evs, kind):
    """{(character, link): [ticks]} of entered or left events."""
    out: dict = {}
    for ev in evs:
        for e in getattr(ev, kind):
            assert e.tick == ev.tick
            out.setdefault((e.character, e.link), []).append(e.tick)
    return out


def _arrival(evs, sid):
    ticks = [ev.tick for ev in evs if sid in ev.arrived]
    return ticks[0] if ticks else None


def test_characters_climb_and_descend_the_stairs():
    sim = BuildingSim(two_floors())
    sim.add_character("up", position=(2.0, 0.0, 4.0))
    sim.add_character("down", position=(19.0, 3.5, 6.0))
    assert sim.floor_of("up") == 0 and sim.floor_of("down") == 1
    assert sim.set_target("up", (18.0, 3.5, 4.0))
    assert sim.set_target("down", (3.0, 0.0, 6.0))
    assert sim.route("up") == ["stairs"] and sim.route("down") == ["stairs"]
    evs = sim.run(260)
    cost = sim.building.links[0].cost
    ride = _ride_ticks(cost, 1.5)
    entered, left = _link_ticks(evs, "entered"), _link_ticks(evs, "left")
    for sid, goal, floor, y in (("up", (18.0, 4.0), 1, 3.5), ("down", (3.0, 6.0), 0, 0.0)):
        assert _arrival(evs, sid) is not None, sid
        assert sim.floor_of(sid) == floor and sim.phase(sid) == "idle"
        x, h, z = sim.position(sid)
        assert h == y and math.hypot(x - goal[0], z - goal[1]) <= 0.05
        (e,), (lv,) = entered[(sid, "stairs")], left[(sid, "stairs")]
        assert lv - e == ride  # the ride lasts ceil(cost / (speed * dt)) ticks
        assert e < lv < _arrival(evs, sid)
    # each queued where the stairs start on its floor: the lower end going up, the upper going down
    queued = {e.character: e.tick for ev in evs for e in ev.queued}
    assert queued == {"up": entered[("up", "stairs")][0], "down": entered[("down", "stairs")][0]}


@pytest.mark.parametrize("up", [True, False])
def test_positions_on_the_link_are_interpolated_in_3d(up):
    sim = BuildingSim(two_floors())
    lo, hi = np.array([10.0, 0.0, 4.0]), np.array([14.0, 3.5, 4.0])  # the stairs' ends
    a, b = (lo, hi) if up else (hi, lo)
    sim.add_character("a", position=tuple(a))
    sim.set_target("a", (16.0, 3.5, 4.0) if up else (5.0, 0.0, 4.0))
    ev = sim.step()
    assert [e.character for e in ev.entered] == ["a"]
    ride = _ride_ticks(sim.building.links[0].cost, 1.5)
    for k in range(1, ride):
        sim.step()
        assert sim.phase("a") == "riding" and sim.character("a") is None
        assert sim.position("a") == pytest.approx(tuple(a + k / ride * (b - a)))
    assert sim.positions().shape == (1, 3)
    assert [e.character for e in sim.step().left] == ["a"]
    assert sim.position("a") == tuple(b) and sim.floor_of("a") == (1 if up else 0)


def test_same_xz_on_different_floors_do_not_block():
    """Two characters swap places through the same x-z spots, one per floor: each
    arrives at the tick it arrives when alone on the building."""
    def run(which):
        sim = BuildingSim(two_floors())
        if "g" in which:
            sim.add_character("g", position=(14.5, 0.0, 6.0))
            sim.set_target("g", (18.5, 0.0, 6.0))
        if "u" in which:
            sim.add_character("u", position=(18.5, 3.5, 6.0))
            sim.set_target("u", (14.5, 3.5, 6.0))
        evs = sim.run(90)
        return evs, sim

    both, sim = run("gu")
    alone = {sid: _arrival(run(sid)[0], sid) for sid in "gu"}
    assert alone["g"] is not None and alone["u"] is not None
    assert {sid: _arrival(both, sid) for sid in "gu"} == alone
    assert not any(f.blocked_stops or f.retries for ev in both for f in ev.floors)
    # on one floor the same walk is a head-on meeting: the guard stops them
    loc = Location(Building(two_floors()).levels[0].config)
    a = loc.add_character("g", position=(14.5, 6.0))
    b = loc.add_character("u", position=(18.5, 6.0))
    a.set_target((18.5, 6.0))
    b.set_target((14.5, 6.0))
    one = loc.run(90)
    assert any(ev.blocked_stops or ev.retries for ev in one) or \
        [ev.tick for ev in one if "g" in ev.arrived] != [alone["g"]]


def test_a_ladder_serves_three_in_stable_id_order():
    sim = BuildingSim(_ladder_building())
    assert sim.building.links[0].capacity == 1
    # added out of order, all within reach of the ladder's foot: they queue in tick 0
    for sid, x in (("c", 2.0), ("a", 2.1), ("b", 1.9)):
        sim.add_character(sid, position=(x, 0.0, 2.0), **SMALL)
        assert math.hypot(x - 2.0, 0.0) <= LINK_REACH
    for sid, z in (("c", 3.5), ("a", 0.5), ("b", 3.0)):
        sim.set_target(sid, (5.0, 3.0, z))
    riding = []
    evs = []
    for _ in range(120):
        evs.append(sim.step())
        riding.append(sum(sim.phase(i) == "riding" for i in sim.ids))
    assert max(riding) == 1  # capacity 1: never two on the ladder
    assert [e.tick for e in evs[0].queued] == [0, 0, 0]
    entered = [(e.character, e.tick) for ev in evs for e in ev.entered]
    left = dict((e.character, e.tick) for ev in evs for e in ev.left)
    assert [c for c, _ in entered] == ["a", "b", "c"]  # same queue tick: stable-ID order
    ticks = [t for _, t in entered]
    assert ticks == sorted(set(ticks))  # strictly ordered
    ride = _ride_ticks(1.5, 1.5)
    for (c0, t0), (_, t1) in zip(entered, entered[1:], strict=False):
        assert left[c0] - t0 == ride and left[c0] <= t1  # no two on it at once
    assert all(_arrival(evs, sid) is not None for sid in "abc")
    assert all(sim.floor_of(sid) == 1 for sid in "abc")


def test_an_occupied_link_end_holds_the_rider():
    sim = BuildingSim(_ladder_building(stairs=False))
    sim.add_character("rider", position=(2.0, 0.0, 2.0), **SMALL)
    sim.add_character("squatter", position=(2.0, 3.0, 2.0), **SMALL)  # on the ladder's top
    sim.set_target("rider", (5.0, 3.0, 2.0))
    ride = _ride_ticks(1.5, 1.5)
    evs = sim.run(ride + 5)
    assert not any(ev.left for ev in evs) and sim.phase("rider") == "riding"
    assert sim.position("rider") == (2.0, 3.0, 2.0)  # waits at the end of the ride
    sim.set_target("squatter", (2.0, 3.0, 3.5))
    evs, clear = [], []
    for _ in range(80):
        evs.append(sim.step())
        x, _, z = sim.position("squatter")
        clear.append(math.hypot(x - 2.0, z - 2.0) >= 2 * SMALL["contact_radius"])
    lt = [e.tick for ev in evs for e in ev.left]
    assert len(lt) == 1 and _arrival(evs, "rider") is not None
    # it left at the first tick the squatter stood clear of the end point
    assert lt[0] == evs[clear.index(True)].tick > evs[0].tick


def _scenario() -> BuildingSim:
    sim = BuildingSim(_ladder_building())
    for sid, x in ((1, 2.0), (2, 2.1), (3, 1.9)):
        sim.add_character(sid, position=(x, 0.0, 2.0), **SMALL)
        sim.set_target(sid, (6.0, 3.0, 0.5 + sid))
    sim.add_character("w", position=(1.0, 3.0, 1.0))
    sim.set_target("w", (6.5, 0.0, 3.0))  # down, by the stairs or the ladder
    sim.add_character("x", position=(5.0, 0.0, 3.0))
    sim.set_target("x", (1.0, 0.0, 1.0))  # stays on its floor
    return sim


def _trace(sim: BuildingSim, ticks: int) -> list[np.ndarray]:
    out = []
    for _ in range(ticks):
        sim.step()
        out.append(sim.positions())
    return out


def test_two_runs_are_equal_bit_for_bit():
    a, b = _scenario(), _scenario()
    ta, tb = _trace(a, 80), _trace(b, 80)
    assert all(np.array_equal(p, q) for p, q in zip(ta, tb, strict=True))
    assert json.dumps(a.state_dict()) == json.dumps(b.state_dict())


def test_restore_mid_ride_equals_an_uninterrupted_run(tmp_path):
    whole = _scenario()
    ref = _trace(whole, 90)
    part = _scenario()
    head = _trace(part, 30)
    assert any(part.phase(i) == "riding" for i in part.ids)  # saved during a traversal
    assert any(part.phase(i) == "queued" for i in part.ids)
    saved = json.loads(json.dumps(part.state_dict()))
    back = BuildingSim.from_state_dict(saved)
    assert back.tick == 30 and back.ids == part.ids
    assert json.dumps(back.state_dict()) == json.dumps(saved)
    tail = _trace(back, 60)
    assert all(np.array_equal(p, q) for p, q in zip(head + tail, ref, strict=True))
    assert json.dumps(back.state_dict()) == json.dumps(whole.state_dict())
    # the file form too
    again = BuildingSim.load(part.save(tmp_path / "b.json"))
    assert np.array_equal(_trace(again, 60)[-1], ref[-1])


def test_switching_a_link_off_makes_the_queue_replan():
    sim = BuildingSim(_ladder_building())
    sim.add_character("a", position=(2.0, 0.0, 2.0), **SMALL)
    sim.add_character("b", position=(2.1, 0.0, 2.0), **SMALL)
    for sid, z in (("a", 1.0), ("b", 3.0)):
        sim.set_target(sid, (4.0, 3.0, z))
        assert sim.route(sid) == ["ladder"]
    ev = sim.step()
    assert [e.character for e in ev.entered] == ["a"] and sim.phase("b") == "queued"
    assert sim.set_link_enabled("ladder", False)
    evs = sim.run(200)
    assert evs[0].replanned == ["b"] and sim.route("b") in (["stairs"], [])
    # a finishes its ride; b goes round by the stairs
    assert [(e.character, e.link) for ev in evs for e in ev.left] == [("a", "ladder"),
                                                                    ("b", "stairs")]
    assert _arrival(evs, "a") is not None and _arrival(evs, "b") is not None
    assert not any(ev.no_route for ev in evs)


def test_switching_the_only_link_off_ends_the_order():
    sim = BuildingSim(_ladder_building(stairs=False))
    sim.add_character("a", position=(2.0, 0.0, 2.0), **SMALL)
    sim.add_character("b", position=(2.1, 0.0, 2.0), **SMALL)
    for sid in "ab":
        sim.set_target(sid, (4.0, 3.0, 2.0))
    sim.step()
    sim.set_link_enabled("ladder", False)
    ev = sim.step()
    assert ev.replanned == ["b"] and ev.no_route == ["b"] and sim.phase("b") == "idle"
    assert sim.floor_of("b") == 0 and sim.phase("a") == "riding"
    assert not sim.set_target("b", (4.0, 3.0, 2.0))  # still no route
    sim.set_link_enabled("ladder", True)
    assert sim.set_target("b", (4.0, 3.0, 2.0))


def test_doors_act_on_their_floor():
    sim = BuildingSim(_ladder_building(stairs=False))
    assert sim.set_area_available("b", False)
    assert not sim.building.levels[1].grid.walkable.any()
    assert not sim.locations[1].map.grid.walkable.any()
    assert sim.locations[0].map.grid.walkable.any()
    sim.add_character("a", position=(5.0, 0.0, 2.0))
    assert not sim.set_target("a", (5.0, 3.0, 2.0), floor="high")
    sim.set_area_available("b", True, floor="high")
    assert sim.set_target("a", (5.0, 3.0, 2.0), floor="high")
    assert sim.route("a") == ["ladder"]


def test_bad_input_names_the_field():
    sim = BuildingSim(two_floors())
    sim.add_character("a", position=(2.0, 4.0))
    with pytest.raises(ConfigError) as e:
        sim.add_character("a", position=(15.0, 3.5, 4.0))
    assert e.value.field == "id"
    with pytest.raises(QueryError):
        sim.set_target("nobody", (1.0, 1.0))
    with pytest.raises(ConfigError) as e:
        sim.add_character("b", position=(2.0, 4.0), floor="attic")
    assert e.value.field == "floor"
    with pytest.raises(ConfigError) as e:
        BuildingSim.from_state_dict({"format": "other"})
    assert e.value.field == "format"


def test_an_order_given_on_a_link_is_planned_at_its_end():
    sim = BuildingSim(_ladder_building(stairs=False))
    sim.add_character("a", position=(2.0, 0.0, 2.0), **SMALL)
    sim.set_target("a", (5.0, 3.0, 2.0))
    sim.run(3)
    assert sim.phase("a") == "riding" and sim.route("a") == ["ladder"]
    assert sim.set_target("a", (1.0, 0.0, 1.0))  # back down: planned when it leaves
    evs = sim.run(80)
    moves = [(e.link, e.tick) for ev in evs for e in ev.entered + ev.left]
    assert [m[0] for m in moves] == ["ladder"] * 3  # left up, entered and left down
    assert _arrival(evs, "a") is not None and sim.floor_of("a") == 0
    x, y, z = sim.position("a")
    assert y == 0.0 and math.hypot(x - 1.0, z - 1.0) <= 0.05
    js = json.loads(json.dumps([ev.to_json_dict() for ev in evs]))
    assert sum(len(e["left"]) for e in js) == 2 and len(js[0]["floors"]) == 2


def test_a_bad_state_names_the_field():
    good = _scenario().state_dict()
    for key, value, fld in (("linksEnabled", [True], "linksEnabled"),
                            ("floors", [], "floors"),
                            ("building", {"floors": []}, "building.floors")):
        with pytest.raises(ConfigError) as e:
            BuildingSim.from_state_dict({**good, key: value})
        assert e.value.field == fld
    with pytest.raises(ConfigError) as e:
        BuildingSim.from_state_dict({k: v for k, v in good.items() if k != "characters"})
    assert e.value.field == "characters"


def _door_building() -> dict:
    """A low floor cut in two but for a 1 m door, a high floor over all of it,
    stairs up at each end."""
    low = [{"name": "west", "polygon": [[0, 0], [4, 0], [4, 4], [0, 4]]},
           {"name": "door", "polygon": [[4, 1], [5, 1], [5, 2], [4, 2]]},
           {"name": "east", "polygon": [[5, 0], [9, 0], [9, 4], [5, 4]]}]
    return {"cellSize": 0.5, "agentRadius": 0.0, "objectPadding": 0.0,
            "floors": [{"name": "low", "floorY": 0.0, "areas": low},
                       {"name": "high", "floorY": 3.0,
                        "areas": [{"name": "h", "polygon": [[0, 0], [9, 0], [9, 4], [0, 4]]}]}],
            "links": [{"name": "w", "kind": "stairs", "from": {"floor": "low", "point": [1, 3]},
                       "to": {"floor": "high", "point": [1, 1]}},
                      {"name": "e", "kind": "stairs", "from": {"floor": "low", "point": [8, 3]},
                       "to": {"floor": "high", "point": [8, 1]}}]}


def _door_run(sim: BuildingSim, first: int, last: int) -> list[np.ndarray]:
    out = []
    for t in range(first, last):
        if t == 10:
            sim.set_area_available("door", False)  # (already closed by a caller: no change)
        sim.step()
        out.append(sim.positions())
    return out


def _door_scenario() -> BuildingSim:
    sim = BuildingSim(_door_building())
    sim.add_character("a", position=(2.0, 0.0, 1.0))
    sim.add_character("b", position=(8.5, 3.0, 3.5))
    assert sim.set_target("a", (7.0, 0.0, 1.0)) and sim.route("a") == []  # through the door
    assert sim.set_target("b", (6.0, 0.0, 3.0)) and sim.route("b") == ["e"]
    return sim


def test_a_closed_door_sends_a_walker_round_by_the_floor_above():
    sim = _door_scenario()
    evs = sim.run(10)
    assert sim.set_area_available("door", False)
    evs.append(sim.step())
    assert evs[-1].replanned == ["a"]  # b's route keeps its link: it goes on
    assert sim.route("a") == ["w", "e"] and sim.route("b") == ["e"]
    assert np.array_equal(sim.locations[0].map.grid.walkable, sim.building.grid(0).walkable)
    evs += sim.run(300)
    left = [(e.character, e.link) for ev in evs for e in ev.left]
    assert sorted(left) == [("a", "e"), ("a", "w"), ("b", "e")]
    for sid, goal in (("a", (7.0, 1.0)), ("b", (6.0, 3.0))):
        assert _arrival(evs, sid) is not None and sim.floor_of(sid) == 0
        x, _, z = sim.position(sid)
        assert math.hypot(x - goal[0], z - goal[1]) <= 0.05
    # opening the door again shortens nobody's finished order
    assert sim.set_area_available("door", True) and not sim.step().replanned


def test_restore_after_a_door_closed_equals_an_uninterrupted_run():
    whole = _door_scenario()
    ref = _door_run(whole, 0, 120)
    part = _door_scenario()
    head = _door_run(part, 0, 40)
    back = BuildingSim.from_state_dict(json.loads(json.dumps(part.state_dict())))
    tail = _door_run(back, 40, 120)
    assert all(np.array_equal(p, q) for p, q in zip(head + tail, ref, strict=True))
    # saved between the door's closing and the next tick: the restored run reroutes too
    part = _door_scenario()
    head = _door_run(part, 0, 10)
    assert part.set_area_available("door", False)
    saved = json.loads(json.dumps(part.state_dict()))
    assert saved["rerouteDue"]
    tail = _door_run(BuildingSim.from_state_dict(saved), 10, 120)
    assert all(np.array_equal(p, q) for p, q in zip(head + tail, ref, strict=True))


def test_an_order_to_where_it_stands_arrives_on_the_next_tick():
    sim = BuildingSim(_ladder_building())
    sim.add_character("a", position=(5.0, 0.0, 2.0))
    assert sim.set_target("a", (5.1, 0.0, 2.0))
    assert sim.step().arrived == ["a"] and sim.phase("a") == "idle"


def test_an_edit_that_keeps_the_route_keeps_the_queue():
    sim = BuildingSim(_ladder_building(stairs=False))
    for sid, x in (("a", 2.0), ("b", 2.1)):
        sim.add_character(sid, position=(x, 0.0, 2.0), **SMALL)
        sim.set_target(sid, (5.0, 3.0, 1.0 if sid == "a" else 3.0))
    assert [e.character for e in sim.step().entered] == ["a"]
    sim.add_obstacle("crate", [[6, 0], [7, 0], [7, 1], [6, 1]], floor="high")
    assert sim.locations[1].map.grid.walkable.sum() == sim.building.grid(1).walkable.sum() < \
        sim.building.grid(0).walkable.sum()
    evs = sim.run(30)
    assert not any(ev.replanned for ev in evs) and sim.phase("b") in ("queued", "riding")
    left_a = [e.tick for ev in evs for e in ev.left if e.character == "a"]
    assert [e.tick for ev in evs for e in ev.entered if e.character == "b"] == left_a
    sim.remove_obstacle("crate")
    w0 = sim.building.grid(0).walkable
    assert np.array_equal(sim.building.grid(1).walkable, w0)  # the same area on both floors
    assert np.array_equal(sim.locations[1].map.grid.walkable, w0)
