"""Doors that close and reopen while characters walk (docs/simulation.md, one tick):
a plan cut short by a closure is replanned when the way opens again."""

from __future__ import annotations

import json
import math

import pytest

from navkit.level import NavLevel
from navkit.sim import Location, parse_scene
from navkit.sim import constants as C


def rect(x0, z0, x1, z1):
    return [[x0, z0], [x1, z0], [x1, z1], [x0, z1]]


def one_door() -> NavLevel:
    """A west and an east room joined by a single door."""
    return NavLevel({
        "cellSize": 0.25, "agentRadius": 0.3, "objectPadding": 0.1,
        "areas": [
            {"name": "west", "polygon": rect(0, 0, 8, 6)},
            {"name": "east", "polygon": rect(9, 0, 17, 6)},
            {"name": "door", "polygon": rect(7.9, 2, 9.1, 4)},
        ],
    })


TARGET = (15.0, 3.0)


def walker(kind: str) -> tuple[Location, list]:
    loc = Location(one_door())
    a = loc.add_character("a", kind=kind, position=(1.0, 3.0), walk_speed=1.5)
    arrivals: list = []
    a.set_target(TARGET, on_arrived=lambda c: arrivals.append((loc.tick, c.position)))
    return loc, arrivals


def state_text(loc: Location) -> str:
    return json.dumps(loc.state_dict(), sort_keys=True)


@pytest.mark.parametrize("kind", ["player", "bot", "npc"])
def test_door_reopening_before_arrival_resumes_the_original_target(kind):
    loc, arrivals = walker(kind)
    a = loc["a"]
    loc.run(10)
    loc.set_area_available("door", False)
    loc.run(10)
    assert a.walk_target[0] < 8.0  # replanned to the near side of the door
    assert a.requested_walk_target == TARGET
    assert not arrivals and a.is_moving()
    loc.set_area_available("door", True)  # before it gets there
    loc.run(300)
    assert len(arrivals) == 1 and loc.stats.arrivals == 1
    tick, at = arrivals[0]
    assert math.dist(at, TARGET) <= C.kWalkThreshold
    assert math.dist(a.position, TARGET) <= C.kWalkThreshold
    assert a.requested_walk_target == TARGET and not a.is_moving()


def test_door_reopening_by_command_mid_walk_is_deterministic_and_survives_save(tmp_path):
    def scene() -> Location:
        loc, _ = walker("npc")
        loc.schedule({"tick": 10, "setAreaAvailable": {"name": "door", "available": False}})
        loc.schedule({"tick": 30, "setAreaAvailable": {"name": "door", "available": True}})
        return loc

    full, again, part = scene(), scene(), scene()
    full.run(300)
    again.run(300)
    assert state_text(full) == state_text(again)
    assert math.dist(full["a"].position, TARGET) <= C.kWalkThreshold
    assert full.stats.arrivals == 1
    part.run(20)  # saved while the plan is cut short
    saved = part.state_dict()
    assert saved["characters"][0]["shortPlan"] is True
    restored = parse_scene(json.loads(json.dumps(saved)))
    restored.run(280)
    assert state_text(restored) == state_text(full)


def test_arrival_at_the_near_side_ends_the_order():
    """A closed door reached before it reopens is an arrival (a click into a
    closed room): reopening later does not start the walk again."""
    loc, arrivals = walker("player")
    a = loc["a"]
    loc.run(10)
    loc.set_area_available("door", False)
    loc.run(200)
    assert len(arrivals) == 1 and a.position[0] < 8.0 and not a.is_moving()
    loc.set_area_available("door", True)
    loc.run(100)
    assert len(arrivals) == 1 and loc.stats.arrivals == 1 and a.position[0] < 8.0
