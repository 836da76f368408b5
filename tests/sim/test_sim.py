"""The character simulation: API, constants, cooldown shuffle, scenes, state
round trips, determinism, the CLI, and invariants as a property test."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navkit import ConfigError, NavGrid, QueryError
from navkit.sim import (
    AnimationState,
    CharacterKind,
    Location,
    ReplayWriter,
    load_scene,
    parse_scene,
    read_replay,
)
from navkit.sim import constants as C
from navkit.sim.cooldowns import ms_to_ticks, retry_sequence, shuffle_for_id
from navkit.sim.planner import obstacle_snapshot

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "navkit" / "examples" / "scenes"


def open_grid(w: int = 30, d: int = 20, cs: float = 0.4) -> NavGrid:
    return NavGrid(np.ones((d, w), dtype=bool), cell_size=cs, agent_radius=0.45)


def corridor_grid(length: int = 40) -> NavGrid:
    walk = np.zeros((3, length), dtype=bool)
    walk[1, :] = True
    return NavGrid(walk, cell_size=0.4, agent_radius=0.45)


def state_text(loc: Location) -> str:
    return json.dumps(loc.state_dict(), sort_keys=True)


# ------------------------------------------------------------------ constants
def test_seed_constants():
    assert C.kWalkThreshold == C.WALK_THRESHOLD == 0.05
    assert C.TARGET_REPLAN_THRESHOLD == 0.25
    assert C.BLOCKED_REPLAN_TICKS == 3
    assert C.NPC_TALK_DISTANCE == 1.35
    assert C.movementContactRadius == 0.32
    assert C.collisionRadius == 0.45
    assert C.DEFAULT_RETRY_COOLDOWN_TICKS == tuple(range(2, 12))
    assert C.RepathDelay == 2.0 and C.ApproachGiveUpTicks == 40
    assert C.DEFAULT_TICK_RATE == 20.0
    assert (C.cellSize, C.agentRadius, C.objectPadding) == (0.4, 0.45, 0.25)


# ------------------------------------------------------------------ cooldowns
def _reference_shuffle(values, key):
    """The documented algorithm, written out independently."""
    mask = (1 << 64) - 1
    h = 0xCBF29CE484222325
    for b in str(key).encode("utf-8"):
        h = ((h ^ b) * 0x100000001B3) & mask
    state = h
    out = list(values)
    for i in range(len(out) - 1, 0, -1):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        j = z % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def test_retry_sequence_is_the_documented_shuffle():
    for key in ("npc_1", "npc_2", "guard", 7, "ä-ß"):
        seq = retry_sequence(key)
        assert seq == _reference_shuffle(list(range(2, 12)), key)
        assert sorted(seq) == list(range(2, 12))
    assert retry_sequence("npc_1") != retry_sequence("npc_2")
    assert shuffle_for_id([5], "x") == [5]


def test_cooldowns_from_json_are_clamped_and_shuffled():
    assert ms_to_ticks([200, 1100, 10, 0, -50, 74, 75], 20.0) == [4, 22, 1, 1, 1, 1, 2]
    loc = Location(open_grid())
    ms = [200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100]
    a = loc.add_character("a", position=(1, 1), retry_cooldown_ms=ms)
    assert list(a.retry_cooldowns) == shuffle_for_id([4, 6, 8, 10, 12, 14, 16, 18, 20, 22], "a")
    b = loc.add_character("b", position=(3, 1),
                          retry_cooldown_ticks=[0.2, -3, 2, 3, 4, 5, 6, 7, 8, 9.6])
    assert sorted(b.retry_cooldowns) == [1, 1, 2, 3, 4, 5, 6, 7, 8, 10]
    with pytest.raises(ConfigError, match="navigationRetryCooldownTicks"):
        loc.add_character("c", position=(5, 1), retry_cooldown_ticks=[1, 2, 3])
    with pytest.raises(ConfigError):
        loc.add_character("d", position=(5, 1), retry_cooldown_ticks=[1] * 10,
                          retry_cooldown_ms=[1] * 10)


# ------------------------------------------------------------------ characters
def test_add_character_validation_and_order():
    loc = Location(open_grid())
    loc.add_character("b", position=(1, 1))
    loc.add_character(10, kind="player", position=(3, 1))
    loc.add_character("a", kind=CharacterKind.BOT, position=(5, 1))
    loc.add_character(2, position=(7, 1))
    assert loc.ids == [2, 10, "a", "b"]
    assert loc["a"].kind is CharacterKind.BOT and loc[10].kind is CharacterKind.PLAYER
    with pytest.raises(ConfigError, match="already exists"):
        loc.add_character("a", position=(1, 1))
    with pytest.raises(ConfigError, match="walkSpeed"):
        loc.add_character("z", position=(1, 1), walk_speed=0)
    with pytest.raises(ConfigError, match="kind"):
        loc.add_character("z", kind="dragon", position=(1, 1))
    with pytest.raises(QueryError):
        loc.add_character("z", position=(1, math.nan))
    with pytest.raises(QueryError):
        loc.character("nobody")


def test_slot_references_survive_insertion():
    loc = Location(open_grid())
    loc.add_character("c", position=(6, 1))
    b = loc.add_character("b", position=(1, 1))
    b.follow("c", 2.0)
    loc.add_character("a", position=(3, 5))
    loc.add_character("d", position=(9, 5))
    assert loc.ids == ["a", "b", "c", "d"]
    assert b.follow_target == "c" and b.slot == 1
    assert loc["a"].follow_target is None and loc["d"].follow_target is None


def test_set_target_arrival_and_callback_once():
    loc = Location(open_grid())
    a = loc.add_character("a", position=(1.0, 1.0), walk_speed=1.5)
    calls = []
    assert a.set_target((8.0, 5.0), on_arrived=lambda c: calls.append((loc.tick, c.id)))
    assert a.requested_walk_target == (8.0, 5.0)
    assert a.walk_target == (8.0, 5.0)
    assert a.is_moving() and a.moving and len(a.path_waypoints) >= 1
    # within TARGET_REPLAN_THRESHOLD of the current destination: ignored
    assert not a.set_target((8.1, 5.1))
    assert a.requested_walk_target == (8.0, 5.0)
    anims = set()
    for _ in range(200):
        loc.step()
        anims.add(a.animation)
    assert len(calls) == 1 and calls[0][1] == "a"
    assert not a.is_moving() and not a.moving
    assert math.dist(a.position, (8.0, 5.0)) <= C.kWalkThreshold
    assert anims == {AnimationState.WALK, AnimationState.STAND}
    assert loc.stats.arrivals == 1
    # a destination far from the current one is not ignored
    assert a.set_target((2.0, 2.0))


def test_stop_in_place():
    loc = Location(open_grid())
    a = loc.add_character("a", position=(1.0, 1.0))
    fired = []
    a.set_target((9.0, 6.0), on_arrived=fired.append)
    loc.run(10)
    a.stop_in_place()
    assert not a.is_moving()
    assert a.walk_target == a.position == a.requested_walk_target
    assert len(a.path_waypoints) == 0 and a.movement_blocked_ticks == 0
    p = a.position
    loc.run(20)
    assert a.position == p and not fired


def test_facing_turns_at_rotation_speed():
    loc = Location(open_grid(), tick_rate=10.0)
    a = loc.add_character("a", position=(1.0, 1.0), rotation_speed=math.pi / 2, facing=0.0)
    a.set_target((1.0, 6.0))  # +Z: facing pi/2, a quarter turn away
    loc.step()
    assert a.facing == pytest.approx(math.pi / 20)
    loc.run(20)
    assert a.facing == pytest.approx(math.pi / 2)


def test_obstacle_snapshot_filter():
    pos = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 0.0], [4.0, 0.0]])
    radius = np.full(5, 1.2)
    solid = np.array([True, True, False, True, True])
    moved = np.array([0, 0, 0, 1, 0], dtype=np.uint8)
    snap = obstacle_snapshot(pos, radius, solid, moved, requester=0)
    assert snap[:, 0].tolist() == [1.0, 4.0]  # not self, not disabled/dead, not moving
    snap = obstacle_snapshot(pos, radius, solid, moved, requester=0, promoted=3)
    assert snap[:, 0].tolist() == [1.0, 3.0, 4.0]  # the promoted blocker, in slot order
    snap = obstacle_snapshot(pos, radius, solid, moved, requester=0, promoted=2)
    assert snap[:, 0].tolist() == [1.0, 4.0]  # promotion never revives a disabled one


def test_planning_avoids_standing_characters_only():
    grid = corridor_grid()
    loc = Location(grid)
    a = loc.add_character("a", position=grid.cell_center(1, 1))
    loc.add_character("b", position=grid.cell_center(20, 1))
    a.set_target(grid.cell_center(35, 1))
    # b stands in the one-wide corridor: a's plan ends before it (nearest), no fallback
    assert a.walk_target[0] < grid.cell_center(20, 1)[0] - 1.0
    assert a.requested_walk_target == grid.cell_center(35, 1)
    # once b walks, it is transparent to planning
    loc["b"].set_target(grid.cell_center(30, 1))
    loc.step()
    assert loc["b"].moved_last_tick
    a.stop_in_place()
    a.set_target(grid.cell_center(35, 1))
    assert a.walk_target == grid.cell_center(35, 1)


def test_obstacle_radius_matches_navmap():
    loc = Location(open_grid(cs=0.4))
    a = loc.add_character("a", position=(1, 1), collision_radius=0.45)
    assert loc.state.inflate[a.slot] == pytest.approx(loc.map.nav.obstacle_radius(0.45))
    assert loc.map.nav.obstacle_radius(0.45) == pytest.approx(0.45 + 0.45 + 0.4 * math.sqrt(2) / 2)


# ------------------------------------------------------------------ scenes
def _scene(**over):
    sc = {
        "navigation": {"cellSize": 0.4, "agentRadius": 0.45, "objectPadding": 0.25,
                       "areas": [{"name": "room", "polygon": [[0, 0], [10, 0], [10, 8], [0, 8]]}]},
        "tickRate": 20,
        "characters": [
            {"id": "p", "kind": "player", "position": [1, 1], "walkSpeed": 1.5,
             "rotationSpeed": 6.0},
            {"id": "n", "kind": "npc", "position": [8, 6], "walkSpeed": 1.2, "rotationSpeed": 6.0,
             "movementContactRadius": 0.3, "navigationAvoidanceRadius": 0.4},
        ],
        "commands": [{"tick": 2, "character": "p", "moveTo": [8, 1]}],
    }
    sc.update(over)
    return sc


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda s: s["characters"][1].update(walkSpeed=-1), "characters[1].walkSpeed"),
        (lambda s: s["characters"][0].update(kind="dragon"), "characters[0].kind"),
        (lambda s: s["characters"][0].pop("position"), "characters[0].position"),
        (lambda s: s["characters"][1].update(position=[1, "x"]), "characters[1].position[1]"),
        (lambda s: s["characters"][1].update(id="p"), "characters[1].id"),
        (lambda s: s["characters"][1].update(navigationRetryCooldownMs=[1, 2]),
         "characters[1].navigationRetryCooldownMs"),
        (lambda s: s["characters"][1].update(alive="yes"), "characters[1].alive"),
        (lambda s: s["commands"].append({"tick": 1, "character": "q", "moveTo": [1, 1]}),
         "commands[1].character"),
        (lambda s: s["commands"].append({"tick": 1, "character": "p", "moveTo": [1]}),
         "commands[1].moveTo"),
        (lambda s: s["commands"].append({"tick": -1, "character": "p", "stop": True}),
         "commands[1].tick"),
        (lambda s: s["commands"].append(
            {"tick": 1, "setAreaAvailable": {"name": "nope", "available": False}}),
         "commands[1].setAreaAvailable.name"),
        (lambda s: s["commands"].append({"tick": 1, "character": "p", "follow": "n"}),
         "commands[1].range"),
        (lambda s: s["commands"].append({"tick": 1, "character": "n", "talkTo": "p"}),
         "commands[1].talkTo"),
        (lambda s: s.update(tickRate=0), "tickRate"),
        (lambda s: s["navigation"]["areas"][0].update(polygon=[[0, 0], [1, 1]]),
         "navigation.areas[0].polygon"),
    ],
)
def test_scene_errors_name_the_field(mutate, field):
    sc = _scene()
    mutate(sc)
    with pytest.raises(ConfigError) as info:
        parse_scene(sc)
    assert info.value.field == field


def test_scene_file_errors(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{ nope")
    from navkit import FormatError

    with pytest.raises(FormatError):
        load_scene(p)
    p.write_text(json.dumps(_scene(navigation="missing.map")))
    with pytest.raises(ConfigError, match="not found") as info:
        load_scene(p)
    assert info.value.path == str(p)


def test_scene_with_grid_file_navigation(tmp_path):
    from navkit import save_grid

    (tmp_path / "maps").mkdir()
    save_grid(corridor_grid(20), tmp_path / "maps" / "corr.txt")
    sc = {"navigation": "maps/corr.txt", "characters": [{"id": 1, "position": [1.0, 0.6]}],
          "commands": [{"tick": 0, "character": 1, "moveTo": [6.0, 0.6]}]}
    (tmp_path / "s.json").write_text(json.dumps(sc))
    loc = load_scene(tmp_path / "s.json")
    loc.run(10)
    out = loc.save(tmp_path / "out" / "state.json")
    saved = json.loads(out.read_text())
    assert saved["navigation"] == "../maps/corr.txt"
    again = load_scene(out)
    loc.run(30)
    again.run(30)
    assert state_text(again) == state_text(loc)
    bad = dict(sc, commands=[{"tick": 0, "setAreaAvailable": {"name": "door", "available": True}}])
    with pytest.raises(ConfigError, match="static grid"):
        parse_scene(bad, base=tmp_path)


# ------------------------------------------------------------ determinism
def test_same_scene_twice_is_identical():
    a = load_scene(SCENES / "interior_crowd.json")
    b = load_scene(SCENES / "interior_crowd.json")
    a.run(330)
    b.run(330)
    assert state_text(a) == state_text(b)


def test_save_restore_continues_exactly(tmp_path):
    # the window holds a door closing (tick 300) and an added obstacle (500)
    full = load_scene(SCENES / "interior_crowd.json")
    part = load_scene(SCENES / "interior_crowd.json")
    full.run(520)
    part.run(280)
    path = part.save(tmp_path / "state.json")
    saved = json.loads(path.read_text())
    assert saved["tick"] == 280
    assert all({"id", "position", "movementContactRadius"} <= set(c) for c in saved["characters"])
    restored = load_scene(path)
    assert state_text(restored) == state_text(part)
    restored.run(240)
    assert restored.tick == full.tick == 520
    assert state_text(restored) == state_text(full)


def test_restore_follow_and_retry_state(tmp_path):
    full = load_scene(SCENES / "follow.json")
    full.run(700)
    part = load_scene(SCENES / "follow.json")
    part.run(350)
    restored = load_scene(part.save(tmp_path / "f.json"))
    restored.run(350)
    assert state_text(restored) == state_text(full)
    full = load_scene(SCENES / "corridor_head_on.json")
    full.run(200)
    part = load_scene(SCENES / "corridor_head_on.json")
    part.run(110)
    assert any(c.retry_ticks_left for c in part.characters)
    restored = load_scene(part.save(tmp_path / "c.json"))
    restored.run(90)
    assert state_text(restored) == state_text(full)


def test_pure_python_kernel_matches_jit(tmp_path):
    """The kernels run with NUMBA_DISABLE_JIT=1 give the same state."""
    script = (
        "import json, sys, numba; from navkit.sim import load_scene\n"
        "assert numba.config.DISABLE_JIT\n"
        "loc = load_scene(sys.argv[1]); loc.run(int(sys.argv[2]))\n"
        "print(json.dumps(loc.state_dict(), sort_keys=True))\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", script, str(SCENES / "corridor_head_on.json"),
                          "130"],
                         capture_output=True, text=True, env=env, timeout=120, check=True)
    loc = load_scene(SCENES / "corridor_head_on.json")
    loc.run(130)
    assert json.loads(out.stdout) == json.loads(state_text(loc))


# -------------------------------------------------------------- invariants
def _check_invariants(loc: Location) -> None:
    a = loc.state
    solid = np.flatnonzero((a.alive != 0) & (a.enabled != 0))
    p = a.pos[solid]
    r = a.rc[solid]
    for i in range(len(solid)):
        dx = p[i, 0] - p[i + 1:, 0]
        dz = p[i, 1] - p[i + 1:, 1]
        rr = r[i] + r[i + 1:]
        assert np.all(dx * dx + dz * dz >= rr * rr - 1e-12), \
            f"contact circles overlap at tick {loc.tick}"
    g = loc.map.grid
    for x, z in p:
        assert g.is_walkable(*g.world_to_cell(float(x), float(z))), \
            f"centre on a blocked cell at tick {loc.tick}"


@st.composite
def crowds(draw):
    w = draw(st.integers(10, 22))
    d = draw(st.integers(6, 14))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    walk = np.ones((d, w), dtype=bool)
    for _ in range(draw(st.integers(0, 6))):
        x, z = int(rng.integers(0, w)), int(rng.integers(0, d))
        walk[z:z + int(rng.integers(1, 4)), x:x + int(rng.integers(1, 4))] = False
    n = draw(st.integers(2, 9))
    return walk, n, seed


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowds())
def test_invariants_random_crowds(case):
    walk, n, seed = case
    rng = np.random.default_rng(seed)
    grid = NavGrid(walk, cell_size=0.4, agent_radius=0.3)
    loc = Location(grid)
    free = np.argwhere(walk)
    rng.shuffle(free)
    placed: list[tuple[float, float]] = []
    kinds = ("player", "bot", "npc")
    for z, x in free:
        if len(placed) == n:
            break
        p = grid.cell_center(int(x), int(z))
        if all(math.dist(p, q) >= 0.8 for q in placed):
            loc.add_character(len(placed), kind=kinds[int(rng.integers(3))], position=p,
                              walk_speed=float(rng.uniform(0.8, 3.0)))
            placed.append(p)
    if len(placed) < 2:
        return
    for cid in loc.ids:
        if rng.random() < 0.2 and cid > 0:
            loc[cid].follow(int(rng.integers(cid)), float(rng.uniform(0.5, 3.0)))
        else:
            z, x = free[int(rng.integers(len(free)))]
            loc.schedule({"tick": int(rng.integers(0, 4)), "character": cid,
                          "moveTo": list(grid.cell_center(int(x), int(z)))})
    _check_invariants(loc)
    for _ in range(45):
        loc.step()
        _check_invariants(loc)


# --------------------------------------------------------------------- CLI
def test_cli_sim(tmp_path):
    from typer.testing import CliRunner

    from navkit.cli import app

    runner = CliRunner()
    state = tmp_path / "state.json"
    rec = tmp_path / "replay.jsonl"
    png = tmp_path / "out.png"
    res = runner.invoke(app, ["sim", str(SCENES / "corridor_head_on.json"), "--ticks", "120",
                              "--save", str(state), "--record", str(rec), "--png", str(png),
                              "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    for key in ("arrivals", "blockedStops", "retries", "replans", "closestApproach", "meanTickMs",
                "p99TickMs"):
        assert key in summary
    assert summary["blockedStops"] == 2 and summary["closestApproach"] >= 0
    assert png.stat().st_size > 0
    records = list(read_replay(rec))
    assert records[0]["type"] == "header" and len(records) == 121
    assert records[-1]["tick"] == 119
    # continue the saved state: equals an uninterrupted run
    res2 = runner.invoke(app, ["sim", str(state), "--ticks", "30", "--json", "--save",
                               str(tmp_path / "s2.json")])
    assert res2.exit_code == 0, res2.output
    full = load_scene(SCENES / "corridor_head_on.json")
    full.run(150)
    saved = json.loads((tmp_path / "s2.json").read_text())
    assert saved["characters"] == json.loads(state_text(full))["characters"]
    res3 = runner.invoke(app, ["sim", str(SCENES / "corridor_head_on.json"), "--ticks", "5"])
    assert res3.exit_code == 0 and "closest approach" in res3.stdout
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"navigation": {"areas": []}}))
    res4 = runner.invoke(app, ["sim", str(bad), "--ticks", "5"])
    assert res4.exit_code == 2 and "navigation.areas" in res4.output


def test_replay_writer_matches_positions(tmp_path):
    loc = load_scene(SCENES / "follow.json")
    with ReplayWriter(tmp_path / "r.jsonl", loc) as w:
        for _ in range(15):
            w.record(loc.step())
    last = list(read_replay(tmp_path / "r.jsonl"))[-1]
    assert last["positions"] == [list(p) for p in loc.positions().tolist()]
    assert len(last["animation"]) == len(loc)


def test_save_in_memory_grid_writes_a_sidecar(tmp_path):
    walk = np.ones((12, 20), dtype=bool)
    walk[4:12, 8] = False
    loc = Location(NavGrid(walk, cell_size=0.5, min_x=-1.25, agent_radius=0.3))
    a = loc.add_character("a", position=(0.0, 5.0))
    a.set_target((7.0, 5.0))
    loc.run(10)
    with pytest.raises(ConfigError, match="no file"):
        loc.state_dict()
    path = loc.save(tmp_path / "s.json")
    assert json.loads(path.read_text())["navigation"] == "s.grid.npz"
    again = load_scene(path)
    loc.run(60)
    again.run(60)
    from navkit.sim import location_to_scene

    def chars(x: Location, name: str) -> str:
        return json.dumps(location_to_scene(x, sidecar=tmp_path / name)["characters"])

    assert chars(again, "x.npz") == chars(loc, "y.npz")


def test_replans_count_each_planner_query_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # a replan inside a tick used to be counted twice (stats and the tick's events)
    walk = np.ones((24, 24), bool)
    walk[4:20, 12] = False
    loc = Location(NavGrid(walk, cell_size=0.5))
    queries = []
    real = loc.map.find_path

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        queries.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(loc.map, "find_path", counting)
    a = loc.add_character("a", position=(1.25, 6.25))
    b = loc.add_character("b", position=(1.25, 8.25))
    a.set_target((10.25, 6.25))  # outside a tick
    for _ in range(5):
        loc.step()
    loc.add_obstacle("crate", [[2.5, 4.0], [3.5, 4.0], [3.5, 12.0], [2.5, 12.0]])
    b.set_target((10.25, 8.25))  # the crate forces a's replan inside the next tick
    for _ in range(40):
        loc.step()
    assert len(queries) >= 2
    assert loc.stats.replans == len(queries)
