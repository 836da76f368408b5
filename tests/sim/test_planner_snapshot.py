"""The planning phase's shared obstacle snapshot (issue #18 item 3, docs/rules.md §7.3, §7.6).

Oracle: the same runs with :attr:`Planner.shared_snapshot` off, where every plan
builds its own :func:`obstacle_snapshot` circle array (the planner before the
change). Every character's position, path and retry state must agree bit for bit
at every tick. The snapshot's rows minus a plan's ignored rows are also checked
against :func:`obstacle_snapshot` directly, for random masks.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navkit import NavGrid
from navkit.sim import Location
from navkit.sim.planner import MapView, Planner, TickSnapshot, obstacle_snapshot

SCENES = Path(__file__).resolve().parents[2] / "navkit" / "examples" / "scenes"

#: Per-slot fields compared each tick (exact equality).
FIELDS = ("pos", "facing", "walk_target", "wp_n", "wp_i", "active", "timer", "rblocker",
          "partial", "short", "blocked", "cur")


def _frame(loc: Location) -> dict[str, np.ndarray]:
    s = loc.state
    out = {f: np.array(getattr(s, f), copy=True) for f in FIELDS}
    m = int(s.wp_n.max()) if s.n else 0
    wp = np.zeros((s.n, m, 2))
    for i in range(s.n):
        k = int(s.wp_n[i])
        wp[i, :k] = s.wp[i, :k]
    out["wp"] = wp
    return out


def _run(make: Any, ticks: int, shared: bool, monkeypatch: pytest.MonkeyPatch,
         toggle: Any = None) -> tuple[list[dict[str, np.ndarray]], list[int]]:
    monkeypatch.setattr(Planner, "shared_snapshot", shared)
    loc = make()
    frames, replans = [], []
    for t in range(ticks):
        if toggle is not None:
            toggle(loc, t)
        replans.append(loc.step().replans)
        frames.append(_frame(loc))
    return frames, replans


def _compare(make: Any, ticks: int, monkeypatch: pytest.MonkeyPatch, toggle: Any = None) -> int:
    """Run both ways; assert equal frames; return the plans answered with ``ignore=``."""
    ref, ref_plans = _run(make, ticks, False, monkeypatch, toggle)
    shared_calls = [0]
    orig = MapView.find_path

    def counting(self: MapView, start: Any, end: Any, obstacles: Any, ignore: Any = None) -> Any:
        if ignore is not None:
            shared_calls[0] += 1
        return orig(self, start, end, obstacles, ignore)

    monkeypatch.setattr(MapView, "find_path", counting)
    got, got_plans = _run(make, ticks, True, monkeypatch, toggle)
    assert got_plans == ref_plans
    for t, (a, b) in enumerate(zip(ref, got, strict=True)):
        for f in a:
            assert np.array_equal(a[f], b[f]), f"{f} differs at tick {t}"
    return shared_calls[0]


def _scene(name: str) -> Any:
    obj = json.loads((SCENES / name).read_text(encoding="utf-8"))
    return lambda: Location.from_scene(json.loads(json.dumps(obj)), base=SCENES)


@pytest.mark.parametrize("name,ticks", [
    ("corridor_head_on.json", 300), ("corridor_pass.json", 300), ("follow.json", 300),
    ("interior_crowd.json", 400), ("interior_crowd_mesh.json", 150)])
def test_scenes_match_per_plan_snapshots(name: str, ticks: int,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _compare(_scene(name), ticks, monkeypatch)


def test_door_toggles_share_the_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing and opening doors forces many replans in one tick: the shared path runs."""
    doors = ["door_south_12", "door_north_12", "door_south_01"]

    def toggle(loc: Location, t: int) -> None:
        if t % 25 == 10:
            loc.set_area_available(doors[(t // 25) % 3], (t // 25) % 2 == 1)

    n = _compare(_scene("interior_crowd.json"), 300, monkeypatch, toggle)
    assert n > 20


def test_mesh_scene_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mesh map's find_path takes no ``ignore=``: every plan builds its own circles."""
    assert _compare(_scene("interior_crowd_mesh.json"), 60, monkeypatch) == 0


@st.composite
def crowds(draw: Any) -> tuple[np.ndarray, int, int]:
    w = draw(st.integers(8, 18))
    d = draw(st.integers(5, 12))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    walk = np.ones((d, w), dtype=bool)
    for _ in range(draw(st.integers(0, 6))):
        x, z = int(rng.integers(0, w)), int(rng.integers(0, d))
        walk[z:z + int(rng.integers(1, 4)), x:x + int(rng.integers(1, 4))] = False
    return walk, draw(st.integers(2, 10)), seed


def _random_location(walk: np.ndarray, n: int, seed: int) -> Location:
    rng = np.random.default_rng(seed)
    grid = NavGrid(walk, cell_size=0.4, agent_radius=0.3)
    loc = Location(grid)
    free = np.argwhere(walk)
    rng.shuffle(free)
    placed: list[tuple[float, float]] = []
    for z, x in free:
        if len(placed) == n:
            break
        p = grid.cell_center(int(x), int(z))
        if all(math.dist(p, q) >= 0.8 for q in placed):
            loc.add_character(len(placed), kind=("npc", "npc", "bot")[int(rng.integers(3))],
                              position=p, walk_speed=float(rng.uniform(0.8, 3.0)))
            placed.append(p)
    for cid in loc.ids:
        if rng.random() < 0.2 and cid > 0:
            loc[cid].follow(int(rng.integers(cid)), float(rng.uniform(0.5, 2.0)))
        else:
            for _ in range(2):
                z, x = free[int(rng.integers(len(free)))]
                loc.schedule({"tick": int(rng.integers(0, 40)), "character": cid,
                              "moveTo": list(grid.cell_center(int(x), int(z)))})
    return loc


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=crowds())
def test_random_crowds_match_per_plan_snapshots(case: Any,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    walk, n, seed = case
    _compare(lambda: _random_location(walk, n, seed), 80, monkeypatch)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**31 - 1))
def test_snapshot_minus_ignored_rows_is_the_plan_snapshot(n: int, seed: int) -> None:
    """Oracle: :func:`obstacle_snapshot` for every requester and promotion."""
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, 5, (n, 2))
    radius = rng.uniform(0.1, 1.0, n)
    solid = rng.random(n) < 0.8
    moved = (rng.random(n) < 0.5).astype(np.uint8)
    plans = [int(s) for s in np.flatnonzero(solid)]
    promoted = {s: int(rng.integers(-1, n)) for s in plans if rng.random() < 0.5}
    tick = TickSnapshot(pos, radius, solid.copy(), moved, list(promoted.values()))
    circles = np.asarray(tick.snap)
    for s in plans:
        p = promoted.get(s, -1)
        ig = tick.ignore(s, p)
        rows = [ig] if isinstance(ig, int) else ig
        keep = np.ones(len(circles), bool)
        keep[rows] = False
        want = obstacle_snapshot(pos, radius, solid.copy(), moved, s, p)
        assert np.array_equal(circles[keep], want)
