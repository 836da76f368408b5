"""Scenario tests of the character simulation (docs/rules.md §6-§10)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from navkit import NavGrid
from navkit.level import NavLevel
from navkit.sim import Location, load_scene
from navkit.sim import constants as C

SCENES = Path(__file__).resolve().parents[2] / "navkit" / "examples" / "scenes"


def corridor(length: int = 40) -> NavGrid:
    walk = np.zeros((3, length), dtype=bool)
    walk[1, :] = True
    return NavGrid(walk, cell_size=0.4, agent_radius=0.45)


def rect(x0, z0, x1, z1):
    return [[x0, z0], [x1, z0], [x1, z1], [x0, z1]]


def two_rooms() -> NavLevel:
    """West and east rooms joined by a north and a south door; a closet off the east room."""
    return NavLevel({
        "cellSize": 0.25, "agentRadius": 0.3, "objectPadding": 0.1,
        "areas": [
            {"name": "west", "polygon": rect(0, 0, 8, 12)},
            {"name": "east", "polygon": rect(9, 0, 17, 12)},
            {"name": "door_north", "polygon": rect(7.9, 9, 9.1, 11)},
            {"name": "door_south", "polygon": rect(7.9, 1, 9.1, 3)},
            {"name": "closet", "polygon": rect(18, 4, 22, 8)},
            {"name": "door_closet", "available": False, "polygon": rect(16.9, 5, 18.1, 7)},
        ],
    })


def _min_gap_ok(loc: Location) -> None:
    assert loc.min_contact_gap() >= -1e-12


# --------------------------------------------------------------- head-on
def test_head_on_corridor_stop_and_retry_out_of_sync():
    loc = load_scene(SCENES / "corridor_head_on.json")
    east, west = loc["npc_east"], loc["npc_west"]
    assert east.retry_cooldowns != west.retry_cooldowns
    seq = {c.id: list(c.retry_cooldowns) for c in (east, west)}
    stops: dict[str, list[int]] = {"npc_east": [], "npc_west": []}
    retries: dict[str, list[int]] = {"npc_east": [], "npc_west": []}
    blocked_seen = {"npc_east": [], "npc_west": []}
    for _ in range(400):
        ev = loc.step()
        for cid in ev.blocked_stops:
            stops[cid].append(ev.tick)
        for cid in ev.retries:
            retries[cid].append(ev.tick)
        for c in (east, west):
            blocked_seen[c.id].append(c.movement_blocked_ticks)
        _min_gap_ok(loc)
    # both stopped once, after BLOCKED_REPLAN_TICKS blocked ticks, kept their destination
    for cid in stops:
        assert len(stops[cid]) == 1
        assert max(blocked_seen[cid]) == C.BLOCKED_REPLAN_TICKS - 1  # reset when it stops
        assert loc[cid].requested_walk_target != loc[cid].position
    # every retry consumed the next cooldown of the ID-shuffled sequence
    for cid in stops:
        t = stops[cid][0]
        expected = []
        for k in range(len(retries[cid])):
            t += seq[cid][k % 10]
            expected.append(t)
        assert retries[cid] == expected
        assert len(retries[cid]) > 10
    # not in sync: different retry ticks, with different gaps between them
    assert retries["npc_east"] != retries["npc_west"]
    gaps = {cid: np.diff(retries[cid]).tolist() for cid in retries}
    assert gaps["npc_east"][:9] != gaps["npc_west"][:9]
    # they waited where they met: the corridor stays blocked, nobody passed through
    assert west.position[0] < east.position[0]


# --------------------------------------------------------------- crossing
def test_crossing_paths_never_overlap_and_both_arrive():
    grid = NavGrid(np.ones((40, 40), dtype=bool), cell_size=0.4, agent_radius=0.45)
    loc = Location(grid)
    a = loc.add_character("a", kind="npc", position=(1.0, 8.0), walk_speed=1.5)
    b = loc.add_character("b", kind="npc", position=(8.0, 1.0), walk_speed=1.5)
    a.set_target((15.0, 8.0))
    b.set_target((8.0, 15.0))
    blocked = 0
    arrived = set()
    for _ in range(600):
        ev = loc.step()
        blocked += ev.blocked
        arrived.update(ev.arrived)
        _min_gap_ok(loc)
    assert blocked > 0  # they met at the crossing
    assert arrived == {"a", "b"}
    assert math.dist(a.position, (15.0, 8.0)) <= C.kWalkThreshold
    assert math.dist(b.position, (8.0, 15.0)) <= C.kWalkThreshold


# --------------------------------------------------------------- same direction
def test_following_traffic_waits_without_counting():
    grid = corridor(60)
    loc = Location(grid)
    lead = loc.add_character("lead", kind="npc", position=grid.cell_center(4, 1), walk_speed=0.8)
    tail = loc.add_character("tail", kind="npc", position=grid.cell_center(1, 1), walk_speed=1.6)
    lead.set_target(grid.cell_center(50, 1))
    loc.step()  # the leader walks: transparent to the follower's plan
    tail.set_target(grid.cell_center(40, 1))
    assert tail.walk_target == grid.cell_center(40, 1)
    waited = 0
    arrived = set()
    for _ in range(900):
        ev = loc.step()
        waited += ev.waited
        arrived.update(ev.arrived)
        assert tail.movement_blocked_ticks == 0 and lead.movement_blocked_ticks == 0
        assert not ev.blocked_stops
        _min_gap_ok(loc)
    assert waited > 50
    assert arrived == {"lead", "tail"}


# --------------------------------------------------------------- following
def test_follow_moving_target_greedy_in_the_open():
    grid = NavGrid(np.ones((40, 50), dtype=bool), cell_size=0.4, agent_radius=0.45)
    loc = Location(grid)
    lead = loc.add_character("lead", kind="player", position=(2.0, 2.0), walk_speed=1.2)
    dog = loc.add_character("dog", kind="bot", position=(1.0, 6.0), walk_speed=2.0)
    lead.set_target((18.0, 12.0))
    dog.follow("lead", 1.5)
    plans = loc.stats.replans
    for _ in range(400):
        loc.step()
        _min_gap_ok(loc)
    assert not lead.is_moving()
    assert dog.distance_to(lead) <= 1.5 + 1e-9
    assert dog.is_following() and not dog.is_moving()
    assert loc.stats.replans == plans  # open ground: greedy steps only, no planner
    # the order persists: the leader walks on, the dog comes along
    lead.set_target((3.0, 12.0))
    loc.run(400)
    assert dog.distance_to(lead) <= 1.5 + 1e-9


def test_follow_around_a_wall_uses_a_persistent_path():
    walk = np.ones((30, 30), dtype=bool)
    walk[3:30, 14:16] = False  # a wall with a gap at the top
    grid = NavGrid(walk, cell_size=0.4, agent_radius=0.45)
    loc = Location(grid)
    loc.add_character("t", kind="npc", position=grid.cell_center(25, 25))
    f = loc.add_character("f", kind="npc", position=grid.cell_center(4, 25), walk_speed=1.5)
    f.follow("t", 2.0)
    seen_path = False
    for _ in range(500):
        loc.step()
        seen_path |= len(f.path_waypoints) > 1
        _min_gap_ok(loc)
    assert seen_path
    assert f.distance_to(loc["t"]) <= 2.0 + 1e-9
    assert loc.stats.replans <= 3  # a stationary reachable goal is planned once


def test_follow_gives_up_on_unreachable_stationary_target():
    level = two_rooms()
    loc = Location(level)
    loc.add_character("hermit", kind="npc", position=(20.0, 6.0))  # in the closed closet
    f = loc.add_character("f", kind="npc", position=(3.0, 6.0), walk_speed=2.0)
    f.follow("hermit", 1.0)
    gave_up = []
    for _ in range(600):
        ev = loc.step()
        gave_up += [(ev.tick, c) for c in ev.gave_up]
    assert [c for _, c in gave_up] == ["f"]
    assert not f.is_following() and not f.is_moving()
    assert f.position[0] > 12.0  # it went as near as it could first


def test_walk_to_npc_fires_interaction_once():
    loc = load_scene(SCENES / "follow.json")
    got = []
    loc.on_interaction = lambda actor, npc: got.append((loc.tick, actor.id, npc.id))
    events = []
    for _ in range(1000):
        ev = loc.step()
        events += ev.interactions
    assert events == [("leader", "shopkeeper")]
    assert len(got) == 1
    assert loc["leader"].distance_to(loc["shopkeeper"]) <= C.NPC_TALK_DISTANCE + 1e-9
    assert not loc["leader"].is_moving() and not loc["leader"].is_following()


# --------------------------------------------------------------- map changes
def test_door_closing_mid_path_replans_through_the_other_door():
    level = two_rooms()
    loc = Location(level)
    a = loc.add_character("a", kind="npc", position=(2.0, 10.0), walk_speed=1.5)
    arrived = []
    a.set_target((15.0, 10.0), on_arrived=lambda c: arrived.append(loc.tick))
    loc.run(40)
    assert a.position[1] > 8.0  # heading for the north door
    before = loc.stats.replans
    loc.schedule({"tick": loc.tick, "setAreaAvailable": {"name": "door_north", "available": False}})
    zs = []
    for _ in range(500):
        loc.step()
        zs.append(a.position[1])
        if arrived:
            break
    assert loc.stats.forced_replans >= 1 and loc.stats.replans > before
    assert arrived and math.dist(a.position, (15.0, 10.0)) <= C.kWalkThreshold
    assert min(zs) < 3.0  # went round through the south door


def test_click_into_closed_room_walks_to_nearest_point():
    level = two_rooms()
    loc = Location(level)
    p = loc.add_character("p", kind="player", position=(10.0, 6.0), walk_speed=2.0)
    arrived = []
    p.set_target((20.0, 6.0), on_arrived=lambda c: arrived.append(c.position))
    assert p.requested_walk_target == (20.0, 6.0)
    assert p.walk_target[0] < 17.0  # the reachable end, short of the closet
    loc.run(200)
    assert len(arrived) == 1
    assert 15.5 < p.position[0] < 17.0 and abs(p.position[1] - 6.0) < 0.5
    # the door opens: a new click there is planned through it
    loc.set_area_available("door_closet", True)
    p.set_target((20.5, 6.0))
    loc.run(200)
    assert math.dist(p.position, (20.5, 6.0)) <= C.kWalkThreshold


def test_added_obstacle_forces_replan():
    level = two_rooms()
    loc = Location(level)
    a = loc.add_character("a", kind="npc", position=(1.0, 6.0), walk_speed=1.5)
    a.set_target((7.0, 6.0))
    loc.step()
    loc.add_obstacle("crate", rect(3.5, 4.5, 4.5, 7.5))
    loc.step()
    assert loc.stats.forced_replans == 1
    for _ in range(300):
        loc.step()
        g = loc.map.grid
        assert g.is_walkable(*g.world_to_cell(*a.position))
    assert math.dist(a.position, (7.0, 6.0)) <= C.kWalkThreshold


# --------------------------------------------------------------- players
def test_player_blocked_three_ticks_cancels_destination():
    grid = corridor(40)
    loc = Location(grid)
    p = loc.add_character("p", kind="player", position=grid.cell_center(1, 1), walk_speed=1.5)
    n = loc.add_character("n", kind="npc", position=grid.cell_center(38, 1), walk_speed=1.5)
    fired = []
    p.set_target(grid.cell_center(30, 1), on_arrived=fired.append)
    loc.step()
    n.set_target(grid.cell_center(5, 1))  # p walks: transparent, so n heads straight at it
    history = []
    stop_tick = None
    for _ in range(300):
        ev = loc.step()
        history.append(p.movement_blocked_ticks)
        if "p" in ev.blocked_stops:
            stop_tick = ev.tick
            break
        _min_gap_ok(loc)
    assert stop_tick is not None
    assert history[-4:-1] == [0, 1, 2] or history[-3:-1] == [1, 2]
    assert not p.is_moving()
    assert p.requested_walk_target == p.position == p.walk_target  # cancelled
    assert p.animation.name == "STAND"
    assert n.requested_walk_target == grid.cell_center(5, 1)  # the NPC keeps its destination
    loc.run(50)
    assert not fired and not p.is_moving()


def test_moving_target_is_replanned_at_most_every_two_seconds():
    walk = np.ones((40, 40), dtype=bool)
    walk[5:40, 18:20] = False  # a wall; the target walks on the far side
    grid = NavGrid(walk, cell_size=0.4, agent_radius=0.45)
    loc = Location(grid)
    t = loc.add_character("t", kind="npc", position=grid.cell_center(30, 35), walk_speed=0.6)
    f = loc.add_character("f", kind="npc", position=grid.cell_center(5, 35), walk_speed=1.0)
    t.set_target(grid.cell_center(30, 8))
    f.follow("t", 1.5)
    # every follow plan stamps the tick it ran in (the last plan of docs/rules.md §10.5)
    plan_ticks = []
    last = int(loc.state.f_last_plan[f.slot])
    for _ in range(300):
        ev = loc.step()
        stamp = int(loc.state.f_last_plan[f.slot])
        if stamp != last:
            assert stamp == ev.tick and ev.replans == 1  # one plan (the follower's), this tick
            plan_ticks.append(stamp)
            last = stamp
    assert len(plan_ticks) >= 2
    assert all(b - a >= loc.repath_ticks for a, b in zip(plan_ticks, plan_ticks[1:], strict=False))
    assert loc.repath_ticks == round(C.RepathDelay * loc.tick_rate) == 40


def test_map_switch_forces_replans():
    loc = Location(NavGrid(np.ones((20, 30), dtype=bool), cell_size=0.4, agent_radius=0.45))
    a = loc.add_character("a", kind="npc", position=(1.0, 1.0))
    a.set_target((10.0, 6.0))
    loc.run(5)
    walk = np.ones((20, 30), dtype=bool)
    walk[0:15, 12] = False
    loc.set_map(NavGrid(walk, cell_size=0.4, agent_radius=0.45))
    loc.step()
    assert loc.stats.forced_replans == 1
    loc.run(300)
    assert math.dist(a.position, (10.0, 6.0)) <= C.kWalkThreshold
