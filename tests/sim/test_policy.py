"""Steering policies inside a Location tick (docs/simulation.md "Steering policies").

Oracles: the static walkable grid (every step's segment sampled densely:
no point in a blocked cell), brute-force pair distances (no contact circles
come to overlap), the recorded digests of the simulation without policies
(tests/sim/test_avoidance.py), a run that never stopped (save / restore), and
the error contract (ConfigError naming the field).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest

from navkit import NavGrid
from navkit.crowd import SteeringParams, SteeringPolicy, Weights
from navkit.errors import ConfigError
from navkit.sim import Location, load_scene

SCENES = Path(__file__).resolve().parents[2] / "navkit" / "examples" / "scenes"


def walled_grid() -> NavGrid:
    """20 x 14 cells of 0.5 m; a wall across x = 5 m with a gap at the top."""
    walk = np.ones((14, 20), dtype=bool)
    walk[0:11, 10] = False
    return NavGrid(walk, cell_size=0.5, agent_radius=0.3)


def in_walkable(grid: NavGrid, p: np.ndarray) -> bool:
    cx = int(math.floor((p[0] - grid.min_x) / grid.cell_size))
    cz = int(math.floor((p[1] - grid.min_z) / grid.cell_size))
    return 0 <= cx < grid.width and 0 <= cz < grid.depth and bool(grid.walkable[cz, cx])


def assert_steps_clear(grid: NavGrid, before: np.ndarray, after: np.ndarray) -> None:
    """Every step's segment, sampled every 1 mm, stays in walkable cells."""
    for p, q in zip(before, after, strict=True):
        n = int(np.hypot(*(q - p)) / 1e-3) + 2
        for t in np.linspace(0.0, 1.0, n):
            assert in_walkable(grid, p + t * (q - p)), (p, q, t)


def digest(loc: Location) -> str:
    a = loc.state
    return hashlib.sha256(a.pos.tobytes() + a.facing.tobytes()).hexdigest()[:16]


def test_seek_reaches_its_target_behind_a_wall_without_crossing_it():
    grid = walled_grid()
    loc = Location(grid)
    a = loc.add_character("a", position=(1.25, 1.25), walk_speed=2.0)
    a.set_policy(SteeringPolicy(Weights(seek=1.0)))
    assert a.set_target((8.75, 1.25))
    arrived = []
    for _ in range(600):
        before = loc.positions()
        ev = loc.step()
        assert_steps_clear(grid, before, loc.positions())
        arrived += ev.arrived
        if arrived:
            break
    assert arrived == ["a"]
    assert math.dist(a.position, (8.75, 1.25)) <= 0.05
    assert not a.is_moving()
    assert loc.state.vel[a.slot].tolist() == [0.0, 0.0]  # an arrival stops it


def test_arrive_slows_down_and_stops_on_the_target():
    loc = Location(NavGrid(np.ones((10, 30), dtype=bool), cell_size=0.5))
    a = loc.add_character(0, position=(1.25, 2.25), walk_speed=1.5)
    a.set_policy(SteeringPolicy(Weights(arrive=1.0), SteeringParams(slow_radius=1.0)))
    a.set_target((12.25, 2.25))
    speeds = []
    for _ in range(1000):
        ev = loc.step()
        speeds.append(float(np.hypot(*loc.state.vel[0])))
        if ev.arrived:
            break
    assert ev.arrived == [0]
    assert max(speeds) <= 1.5 + 1e-12
    assert speeds[-2] < 0.2  # slowed down inside slow_radius


def test_flocking_walkers_never_overlap_and_never_enter_walls():
    grid = walled_grid()
    pol = SteeringPolicy(Weights(seek=1.0, separation=2.0, cohesion=0.3, alignment=0.3,
                                 wander=0.2), SteeringParams(separation_radius=1.0))
    loc = Location(grid, policy=pol)
    rng = np.random.default_rng(4)
    for i in range(8):
        loc.add_character(i, position=(0.75 + 0.8 * (i % 4), 1.25 + 0.9 * (i // 4)),
                          walk_speed=float(rng.uniform(1.0, 2.0)))
    loc.add_character("still", position=(3.25, 5.25))  # no order: flocks and wanders
    for i in range(8):
        loc[i].set_target((8.25 + 0.6 * (i % 2), 1.25 + 0.7 * (i // 2)))
    assert all(c.policy == pol for c in loc)
    for _ in range(400):
        before = loc.positions()
        loc.step()
        assert loc.min_contact_gap() >= 0.0
        assert_steps_clear(grid, before, loc.positions())
    assert loc.stats.arrivals >= 4


def test_orca_after_the_policy_keeps_the_guard():
    grid = NavGrid(np.ones((12, 30), dtype=bool), cell_size=0.5)
    loc = Location(grid, avoidance="orca",
                   policy=SteeringPolicy(Weights(seek=1.0, separation=0.5)))
    for i in range(4):
        loc.add_character(f"e{i}", position=(1.25, 1.75 + i), walk_speed=1.4)
        loc.add_character(f"w{i}", position=(13.75, 1.75 + i), walk_speed=1.4)
    for i in range(4):
        loc[f"e{i}"].set_target((13.75, 1.75 + i))
        loc[f"w{i}"].set_target((1.25, 1.75 + i))
    for _ in range(500):
        loc.step()
        assert loc.min_contact_gap() >= 0.0
    assert loc.stats.arrivals >= 6


def _policy_location() -> Location:
    grid = walled_grid()
    loc = Location(grid, policy=SteeringPolicy(
        Weights(arrive=1.0, separation=1.5, alignment=0.2, cohesion=0.2, wander=0.3),
        SteeringParams(separation_radius=0.9, wander_jitter=0.8), max_force=5.0))
    for i in range(6):
        loc.add_character(i, position=(0.75 + 0.9 * (i % 3), 0.75 + 1.0 * (i // 3)))
    loc.add_character("plain", position=(2.25, 5.25))
    loc["plain"].set_policy(None)
    loc.add_character("wanderer", position=(4.25, 6.25))
    loc["wanderer"].set_policy(SteeringPolicy(Weights(wander=1.0)))
    for i in range(6):
        loc[i].set_target((8.25, 0.75 + 0.8 * i))
    loc["plain"].set_target((2.25, 1.25))
    return loc


def test_save_restore_mid_run_continues_identically(tmp_path):
    loc = _policy_location()
    loc.run(37)
    path = loc.save(tmp_path / "mid.json")
    saved = json.loads(path.read_text())
    assert saved["policy"]["weights"] == {"arrive": 1.0, "wander": 0.3, "separation": 1.5,
                                          "alignment": 0.2, "cohesion": 0.2}
    chars = {c["id"]: c for c in saved["characters"]}
    assert chars["plain"]["policy"] is None and "wanderAngle" not in chars["plain"]
    assert chars["wanderer"]["policy"] == {"weights": {"wander": 1.0}, "maxForce": 4.0}
    assert all("velocity" in c for c in saved["characters"])
    again = Location.load(path)
    resaved = json.loads(again.save(tmp_path / "again.json").read_text())
    assert {k: v for k, v in resaved.items() if k != "navigation"} == \
        {k: v for k, v in saved.items() if k != "navigation"}
    for _ in range(120):
        e1 = loc.step()
        e2 = again.step()
        assert (e1.arrived, e1.min_gap) == (e2.arrived, e2.min_gap)
    assert digest(loc) == digest(again)
    assert np.array_equal(loc.state.vel, again.state.vel)
    assert np.array_equal(loc.state.wander, again.state.wander)


def test_repeated_runs_are_identical():
    a, b = _policy_location(), _policy_location()
    a.run(150)
    b.run(150)
    assert digest(a) == digest(b)
    assert np.array_equal(a.state.wander, b.state.wander)


@pytest.mark.parametrize("name,ticks,want", [("corridor_head_on.json", 400, "88d8612c89388489"),
                                             ("follow.json", 800, "904f110b4f97c84b")])
def test_no_policy_gives_the_recorded_simulation(name, ticks, want):
    """The digests recorded before policies existed (tests/sim/test_avoidance.py):
    without a policy, and with one set and cleared before the run."""
    loc = load_scene(SCENES / name)
    loc.run(ticks)
    assert digest(loc) == want
    assert "policy" not in json.dumps(loc.state_dict())
    loc = load_scene(SCENES / name)
    first = loc.characters[0]
    first.set_policy(SteeringPolicy(Weights(seek=1.0)))
    first.set_policy(None)
    loc.run(ticks)
    assert digest(loc) == want


def test_policy_api_and_validation():
    loc = Location(NavGrid(np.ones((4, 4), dtype=bool), cell_size=0.5))
    a = loc.add_character("a", position=(0.25, 0.25))
    assert a.policy is None
    with pytest.raises(ConfigError) as err:
        a.set_policy(Weights(seek=1.0))  # type: ignore[arg-type]
    assert err.value.field == "policy"
    with pytest.raises(ConfigError) as err:
        Location(NavGrid(np.ones((4, 4), dtype=bool)), policy="seek")
    assert err.value.field == "policy"
    for bad, field in [(dict(weights=Weights(pursue=1.0)), "weights.pursue"),
                       (dict(weights=Weights(seek=1.0), max_force=0.0), "max_force"),
                       (dict(weights=Weights(seek=1.0), max_force=math.inf), "max_force"),
                       (dict(weights=Weights(seek=1.0), params={}), "params")]:
        with pytest.raises(ConfigError) as err:
            SteeringPolicy(**bad)  # type: ignore[arg-type]
        assert err.value.field == field


_SCENE = {"navigation": {"cellSize": 0.5, "agentRadius": 0.2,
                         "areas": [{"name": "a", "polygon": [[0, 0], [6, 0], [6, 4], [0, 4]]}]},
          "characters": [{"id": "a", "position": [1.25, 1.25]},
                         {"id": "b", "position": [3.25, 1.25]}]}


@pytest.mark.parametrize("patch,field", [
    ({"policy": {"weights": {"flee": 1.0}}}, "policy.weights.flee"),
    ({"policy": {"weights": {"seek": -1.0}}}, "policy.weights.seek"),
    ({"policy": {"weights": {"seek": 1.0}, "params": {"slowRadius": 0.0}}},
     "policy.params.slowRadius"),
    ({"policy": {"weights": {"seek": 1.0}, "params": {"feelerAngle": 3.0}}},
     "policy.params.feelerAngle"),
    ({"policy": {"weights": {"seek": 1.0}, "maxForce": 0}}, "policy.maxForce"),
    ({"policy": {"weights": {"seek": 1.0}, "extra": 1}}, "policy.extra"),
    ({"policy": "seek"}, "policy"),
    ({"characters": [{"id": "a", "position": [1.25, 1.25],
                      "policy": {"weights": {"wander": "x"}}}]},
     "characters[0].policy.weights.wander"),
    ({"characters": [{"id": "a", "position": [1.25, 1.25],
                      "policy": {"weights": {"seek": 1.0}, "params": {"pathRadius": 0.0}}}]},
     "characters[0].policy.params.pathRadius"),
    ({"characters": [{"id": "a", "position": [1.25, 1.25], "wanderAngle": math.nan}]},
     "characters[0].wanderAngle"),
])
def test_saved_policies_are_validated_on_load(patch, field):
    with pytest.raises(ConfigError) as err:
        Location.from_scene({**_SCENE, **patch})
    assert err.value.field == field


def test_scene_policy_applies_to_its_characters():
    pol = {"weights": {"seek": 1.0, "separation": 0.5}, "params": {"separationRadius": 0.8},
           "maxForce": 3.0}
    loc = Location.from_scene({**_SCENE, "policy": pol})
    want = SteeringPolicy(Weights(seek=1.0, separation=0.5),
                          SteeringParams(separation_radius=0.8), max_force=3.0)
    assert loc["a"].policy == loc["b"].policy == want
    assert want.to_json() == pol
    scene = {**_SCENE, "characters": [{**_SCENE["characters"][0], "policy": None},
                                      _SCENE["characters"][1]]}
    loc = Location.from_scene({**scene, "policy": pol})
    assert loc["a"].policy is None and loc["b"].policy == want


def test_policy_tick_agrees_without_jit():
    """tick_steer and its helpers as plain Python (``NUMBA_DISABLE_JIT=1``)
    give the compiled run's bits, without and with ORCA."""
    from tests.jitcheck import assert_same_without_jit

    assert_same_without_jit(
        "import hashlib, numpy as np\n"
        "from navkit import NavGrid\n"
        "from navkit.sim import Location\n"
        "from navkit.crowd import SteeringPolicy, Weights\n"
        "walk = np.ones((8, 12), bool); walk[0:5, 6] = False\n"
        "pol = SteeringPolicy(Weights(seek=1.0, separation=1.0, wander=0.2, alignment=0.2,\n"
        "                             cohesion=0.1))\n"
        "for avoidance in ('none', 'orca'):\n"
        "    loc = Location(NavGrid(walk, cell_size=0.5), policy=pol, avoidance=avoidance)\n"
        "    for i in range(4):\n"
        "        loc.add_character(i, position=(0.75 + 0.6 * i, 0.75))\n"
        "    loc.add_character('w', position=(1.25, 3.25))\n"
        "    for i in range(4):\n"
        "        loc[i].set_target((5.25, 0.75 + 0.5 * i))\n"
        "    loc.run(150)\n"
        "    a = loc.state\n"
        "    print(hashlib.sha256(a.pos.tobytes() + a.vel.tobytes() + a.wander.tobytes()\n"
        "                         + a.facing.tobytes()).hexdigest(), loc.stats.arrivals)\n",
        timeout=900)


def test_policies_cleared_saved_and_set_again_continue_identically(tmp_path):
    """Velocities are not kept while no character steers (and not saved): a
    steered tick after plain ones starts from rest, in the run that never
    stopped and in the restored one alike."""
    loc = _policy_location()
    loc.run(20)
    for c in loc:
        c.set_policy(None)
    loc.run(5)
    again = Location.load(loc.save(tmp_path / "plain.json"))
    assert "velocity" not in json.loads((tmp_path / "plain.json").read_text())["characters"][0]
    pol = SteeringPolicy(Weights(seek=1.0, separation=1.0))
    for x in (loc, again):
        for c in x:
            c.set_policy(pol)
        x.run(60)
    assert digest(loc) == digest(again)
    assert np.array_equal(loc.state.vel, again.state.vel)
