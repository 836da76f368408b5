"""Local avoidance (ORCA, docs/rules.md §9.6) in the character simulation.

Oracles: brute-force pair distances and the static walkable grid (no overlap,
no wall entry), the figures and final-state digests of the simulation as it
was before avoidance existed (recorded from that code), repeated and
save/restore runs.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navkit import NavGrid
from navkit.errors import ConfigError
from navkit.sim import Location, load_scene

SCENES = Path(__file__).resolve().parents[2] / "navkit" / "examples" / "scenes"

#: Recorded from the simulation before avoidance was added (same scenes, same
#: ticks): arrivals, blocked stops, retries, replans, min gap, and the first 16
#: hex digits of sha256(positions bytes + facing bytes) at the end.
OLD = {
    "interior_crowd.json": (1500, 75, 461, 607, 807, 4.180976199086306e-05, "7164fac12dd3f17f"),
    "corridor_head_on.json": (400, 0, 2, 90, 92, 0.050378689973653024, "88d8612c89388489"),
    "follow.json": (800, 4, 0, 0, 4, 0.14713929966742645, "904f110b4f97c84b"),
}


def _digest(loc: Location) -> str:
    a = loc.state
    return hashlib.sha256(a.pos.tobytes() + a.facing.tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("name", sorted(OLD))
def test_none_is_the_old_simulation(name: str) -> None:
    ticks, arr, bs, ret, rep, gap, digest = OLD[name]
    for loc in (load_scene(SCENES / name), Location.from_scene(
            {**json.loads((SCENES / name).read_text()), "avoidance": "none"}, base=SCENES)):
        assert loc.avoidance == "none"
        loc.run(ticks)
        s = loc.stats
        assert (s.arrivals, s.blocked_stops, s.retries, s.replans) == (arr, bs, ret, rep)
        assert s.min_gap == gap
        assert _digest(loc) == digest
        assert "velocity" not in loc.state_dict()["characters"][0]
        assert "avoidance" not in loc.state_dict()


def test_interior_crowd_with_orca() -> None:
    loc = load_scene(SCENES / "interior_crowd.json")
    loc.set_avoidance("orca")
    gap = math.inf
    for _ in range(1500):
        ev = loc.step()
        gap = min(gap, ev.min_gap)
    s = loc.stats
    assert s.arrivals >= 108
    assert s.blocked_stops <= 46
    assert gap >= 0.0
    assert loc.min_contact_gap() >= 0.0


def test_corridor_pass() -> None:
    loc = load_scene(SCENES / "corridor_pass.json")
    assert loc.avoidance == "orca"
    east, west = loc["npc_east"], loc["npc_west"]
    arrived = []
    for _ in range(400):
        ev = loc.step()
        arrived += ev.arrived
        assert not ev.blocked_stops
        assert loc.min_contact_gap() >= 0.0
    assert sorted(arrived) == ["npc_east", "npc_west"]
    assert east.position[0] < 2.0 and west.position[0] > 16.0
    # without avoidance the same meeting stops them (docs/rules.md §9.4)
    old = load_scene(SCENES / "corridor_pass.json")
    old.set_avoidance("none")
    old.run(400)
    assert old.stats.blocked_stops > 0


def _random_loc(seed: int, n: int, avoid: str = "orca") -> Location:
    rng = np.random.default_rng(seed)
    walk = np.ones((24, 24), dtype=bool)
    for _ in range(6):
        x, z = (int(v) for v in rng.integers(0, 20, size=2))
        w, d = (int(v) for v in rng.integers(1, 5, size=2))
        walk[z:z + d, x:x + w] = False
    grid = NavGrid(walk, cell_size=0.5, agent_radius=0.3)
    loc = Location(grid, avoidance=avoid)
    free = np.argwhere(walk)
    placed: list[tuple[float, float]] = []
    k = 0
    while len(placed) < n and k < 500:
        k += 1
        z, x = free[int(rng.integers(len(free)))]
        p = grid.cell_center(int(x), int(z))
        if all((p[0] - a) ** 2 + (p[1] - b) ** 2 > 0.8 ** 2 for a, b in placed):
            kind = ("npc", "player", "bot")[len(placed) % 3]
            loc.add_character(len(placed), kind=kind, position=p,
                              walk_speed=float(rng.uniform(0.8, 2.5)))
            placed.append((float(p[0]), float(p[1])))
    for i in range(len(placed)):
        z, x = free[int(rng.integers(len(free)))]
        loc.character(i).set_target(grid.cell_center(int(x), int(z)))
    if len(placed) > 2:
        loc.character(1).follow(0, 1.0)
    return loc


def _walkable(loc: Location, pos: np.ndarray) -> bool:
    g = loc.map.grid
    cx = np.floor((pos[:, 0] - g.min_x) / g.cell_size).astype(int)
    cz = np.floor((pos[:, 1] - g.min_z) / g.cell_size).astype(int)
    inside = (cx >= 0) & (cz >= 0) & (cx < g.width) & (cz < g.depth)
    return bool(inside.all() and g.walkable[cz, cx].all())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 31), n=st.integers(2, 14))
def test_no_overlap_no_wall_entry(seed: int, n: int) -> None:
    loc = _random_loc(seed, n)
    assert _walkable(loc, loc.state.pos)
    for _ in range(60):
        loc.step()
        pos = loc.state.pos
        d = np.sqrt(((pos[:, None] - pos[None]) ** 2).sum(-1))
        r = loc.state.rc[:, None] + loc.state.rc[None, :]
        np.fill_diagonal(d, np.inf)
        assert (d >= r - 1e-12).all()
        assert _walkable(loc, pos)
        assert np.isfinite(loc.state.vel).all()


def test_deterministic_and_save_restore(tmp_path: Path) -> None:
    def run(loc: Location, ticks: int) -> None:
        loc.run(ticks)

    a = load_scene(SCENES / "interior_crowd.json")
    b = load_scene(SCENES / "interior_crowd.json")
    a.set_avoidance("orca")
    b.set_avoidance("orca")
    run(a, 700)
    run(b, 400)
    saved = b.save(tmp_path / "mid.json")
    obj = json.loads(saved.read_text())
    assert obj["avoidance"] == "orca"
    assert "velocity" in obj["characters"][0]
    c = Location.load(saved)
    assert c.avoidance == "orca"
    assert np.array_equal(c.state.vel, b.state.vel)
    run(b, 300)
    run(c, 300)
    for other in (b, c):
        assert np.array_equal(a.state.pos, other.state.pos)
        assert np.array_equal(a.state.vel, other.state.vel)
        assert np.array_equal(a.state.facing, other.state.facing)
        assert a.stats.to_json_dict() == other.stats.to_json_dict()


def test_head_on_in_the_open() -> None:
    """Two walkers head-on in open space pass without a blocked tick, each
    velocity within its walk speed."""
    grid = NavGrid(np.ones((20, 40), dtype=bool), cell_size=0.5, agent_radius=0.3)
    loc = Location(grid, avoidance="orca")
    loc.add_character("a", position=(2.25, 5.0), walk_speed=1.5)
    loc.add_character("b", position=(17.75, 5.0), walk_speed=1.5)
    loc["a"].set_target((19.75, 5.0))
    loc["b"].set_target((0.25, 5.0))
    blocked = 0
    for _ in range(300):
        ev = loc.step()
        blocked += ev.blocked
        v = np.sqrt((loc.state.vel ** 2).sum(1))
        assert (v <= loc.state.speed * (1 + 1e-12)).all()
    assert loc.stats.arrivals == 2 and blocked == 0 and loc.stats.retries == 0
    assert loc.stats.min_gap > 0.0
    # a deflected last step ends within the walk threshold of the target (§9.6)
    assert math.dist(loc["a"].position, (19.75, 5.0)) <= 0.05
    assert math.dist(loc["b"].position, (0.25, 5.0)) <= 0.05


def test_bad_avoidance_is_rejected() -> None:
    grid = NavGrid(np.ones((4, 4), dtype=bool), cell_size=0.5)
    with pytest.raises(ConfigError, match="avoidance"):
        Location(grid, avoidance="rvo")
    obj = json.loads((SCENES / "corridor_pass.json").read_text())
    with pytest.raises(ConfigError, match="avoidance"):
        Location.from_scene({**obj, "avoidance": "yes"}, base=SCENES)
    obj["characters"][0]["velocity"] = [float("nan"), 0.0]
    with pytest.raises(ConfigError, match=r"characters\[0\].velocity"):
        Location.from_scene(obj, base=SCENES)


def test_same_state_without_jit() -> None:
    """The avoidance kernels run with NUMBA_DISABLE_JIT=1 give the same state."""
    import os
    import subprocess
    import sys

    script = (
        "import json, sys, numba; from navkit.sim import load_scene\n"
        "assert numba.config.DISABLE_JIT\n"
        "loc = load_scene(sys.argv[1]); loc.run(int(sys.argv[2]))\n"
        "print(json.dumps(loc.state_dict(), sort_keys=True))\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", script, str(SCENES / "corridor_pass.json"), "130"],
                         capture_output=True, text=True, env=env, timeout=120, check=True)
    loc = load_scene(SCENES / "corridor_pass.json")
    loc.run(130)
    assert json.loads(out.stdout) == json.loads(json.dumps(loc.state_dict(), sort_keys=True))
