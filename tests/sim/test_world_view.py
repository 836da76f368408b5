"""The simulation on a World (navkit.sim.world_view, docs/rules.md §14.5).

Oracles: the grid simulation on the same NavGrid (tick by tick, unbounded
plans), ``Pathfinder``'s windowed answers (bounded plans), brute-force
distance checks (approach orders, the active region).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navkit.errors import ConfigError
from navkit.grid import NavGrid
from navkit.query.pathfinder import Pathfinder
from navkit.sim import Location, WorldView
from navkit.sim.world_view import reach
from navkit.world.local import BOUNDED
from navkit.world.procedural import rooms
from navkit.world.store import ChunkStore
from navkit.world.world import World

CS, MX, MZ, AR = 0.5, -3.0, 2.0, 0.2


def _grid(seed: int, d: int = 48, w: int = 64, weighted: bool = False) -> NavGrid:
    rng = np.random.default_rng(seed)
    walk = rng.random((d, w)) > 0.2
    walk[:, w // 2] = False
    walk[d // 2 - 3:d // 2 + 3, w // 2] = True  # one gap in a wall
    weights = rng.integers(1, 4, size=(d, w)).astype(np.int32) if weighted else None
    return NavGrid(walk, weights=weights, cell_size=CS, min_x=MX, min_z=MZ, agent_radius=AR)


def _centre(c: np.ndarray) -> tuple[float, float]:
    return (MX + (int(c[0]) + 0.5) * CS, MZ + (int(c[1]) + 0.5) * CS)


def _populate(loc: Location, grid: NavGrid, seed: int, n: int = 12) -> None:
    free = np.argwhere(grid.walkable)[:, ::-1]
    r = np.random.default_rng(seed)
    for i in range(n):
        loc.add_character(i, kind=("npc", "bot", "player")[i % 3],
                          position=_centre(free[r.integers(len(free))]), walk_speed=2.0)
    for i in range(n):
        if i % 4 == 3:
            loc.character(i).follow((i + 1) % n, 1.0)
        else:
            loc.character(i).set_target(_centre(free[r.integers(len(free))]))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_unbounded_world_sim_equals_the_grid_sim(seed: int) -> None:
    grid = _grid(seed)
    a = Location(grid)
    b = Location(WorldView(World.from_grid(grid, chunk=16), preset=None, agent_radius=AR))
    _populate(a, grid, seed + 10)
    _populate(b, grid, seed + 10)
    for t in range(240):
        ea, eb = a.step(), b.step()
        assert np.array_equal(a.positions(), b.positions()), f"tick {t}"
        assert (ea.arrived, ea.blocked_stops, ea.replans) == (eb.arrived, eb.blocked_stops,
                                                              eb.replans), f"tick {t}"
    assert a.stats.replans > 12 and a.stats.arrivals > 0
    assert a.stats.to_json_dict() == b.stats.to_json_dict()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), weighted=st.booleans(), k=st.integers(0, 4))
def test_bounded_plans_are_pathfinders_windowed_answers(seed: int, weighted: bool,
                                                        k: int) -> None:
    grid = _grid(seed % 7, weighted=weighted)
    view = WorldView(World.from_grid(grid, chunk=16), agent_radius=AR)
    pf = Pathfinder(grid)
    rng = np.random.default_rng(seed)
    free = np.argwhere(grid.walkable)[:, ::-1]
    s = free[rng.integers(len(free))]
    near = free[np.max(np.abs(free - s), axis=1) <= reach(BOUNDED)]
    g = near[rng.integers(len(near))]
    sw = (_centre(s)[0] + rng.uniform(-0.2, 0.2), _centre(s)[1] + rng.uniform(-0.2, 0.2))
    ew = (_centre(g)[0] + rng.uniform(-0.2, 0.2), _centre(g)[1] + rng.uniform(-0.2, 0.2))
    obs = np.column_stack([rng.uniform(MX, MX + 32, k), rng.uniform(MZ, MZ + 24, k),
                           rng.uniform(0.2, 1.0, k)]) if k else np.zeros((0, 3))
    got = view.find_path(sw, ew, obs)
    ss, gs = pf.snap(sw, obstacles=obs), pf.snap(ew, obstacles=obs)
    if ss is None or gs is None:
        return
    want = pf.find_path_to_nearest(sw, ew, obstacles=obs, budget=BOUNDED.budget,
                                   window=BOUNDED.window_for(ss, gs), algorithm="astar")
    assert got.status == want.status
    assert got.cost_int == want.cost_int
    assert got.expanded == want.expanded
    assert np.array_equal(got.cells, want.cells)
    assert np.array_equal(got.waypoints, want.waypoints)
    # ignore= drops rows (ids of a snapshot, or row numbers) before the query
    if k:
        snap = pf.snapshot(obs, ids=np.arange(k) * 10)
        a = view.find_path(sw, ew, snap, ignore=[0])
        b = view.find_path(sw, ew, obs[1:])
        c = view.find_path(sw, ew, obs, ignore=0)
        assert a.cost_int == b.cost_int == c.cost_int
        assert np.array_equal(a.waypoints, b.waypoints) and np.array_equal(a.waypoints,
                                                                          c.waypoints)


def test_a_far_bounded_plan_aims_within_reach() -> None:
    grid = NavGrid(np.ones((20, 200), bool), cell_size=CS, min_x=MX, min_z=MZ)
    view = WorldView(World.from_grid(grid, chunk=16))
    res = view.find_path(_centre(np.array([2, 10])), _centre(np.array([190, 10])),
                         np.zeros((0, 3)))
    assert res.found and res.end_cell == (2 + reach(BOUNDED), 10)
    assert res.expanded <= BOUNDED.budget


def _wall_world() -> tuple[NavGrid, Location]:
    """A 160 x 40 world with two walls and gaps: routes longer than one window."""
    walk = np.ones((40, 160), bool)
    walk[0:30, 50] = False
    walk[10:40, 100] = False
    grid = NavGrid(walk, cell_size=CS, min_x=MX, min_z=MZ)
    return grid, Location(World.from_grid(grid, chunk=16))


def test_an_approach_order_on_a_world_completes() -> None:
    grid, loc = _wall_world()
    view = loc.map
    assert isinstance(view, WorldView) and view.preset == BOUNDED
    hunter = loc.add_character("hunter", kind="npc", position=_centre(np.array([5, 5])),
                               walk_speed=3.0)
    loc.add_character("prey", kind="npc", position=_centre(np.array([150, 35])))
    hunter.follow("prey", 1.0)
    ends = []
    for _ in range(1200):
        loc.step()
        d = math.dist(loc["hunter"].position, loc["prey"].position)
        if d <= 1.0 + 1e-9:
            ends.append(loc.tick)
            break
    assert ends, f"still {d:.2f} m away"
    assert loc.stats.replans >= 3  # several bounded legs (then greedy steps, §10.5)
    assert loc["hunter"].following                           # in range: the order persists


def test_a_far_npc_walk_order_arrives_by_partial_plans() -> None:
    grid, loc = _wall_world()
    npc = loc.add_character("n", kind="npc", position=_centre(np.array([5, 35])), walk_speed=3.0)
    goal = _centre(np.array([155, 2]))
    npc.set_target(goal)
    loc.run(1500)
    assert math.dist(npc.position, goal) <= 0.05 + 1e-9 and loc.stats.arrivals == 1
    # a player walks the bounded legs too (§14.5), and arrives once: next to the
    # NPC that stands on the destination (an occupied goal resolves to the nearest cell)
    p = loc.add_character("p", kind="player", position=_centre(np.array([5, 20])))
    p.set_target(goal)
    loc.run(1500)
    assert math.dist(p.position, goal) <= 2 * CS + 1e-9 and loc.stats.arrivals == 2
    assert not p.is_moving()


def test_an_active_region_of_a_big_world() -> None:
    store = ChunkStore.from_source(rooms(seed=1, width=4096, depth=4096))
    world = World(store)
    with pytest.raises(ConfigError) as exc:
        Location(world)
    assert exc.value.field == "region"
    box = (1000, 1000, 1127, 1127)
    for preset in ("bounded", None):
        view = WorldView(world, region=box, preset=preset)
        loc = Location(view)
        walk = view.grid.walkable
        free = np.argwhere(walk)[:, ::-1]
        rng = np.random.default_rng(4)
        for i in range(6):
            c = free[rng.integers(len(free))] + np.array(box[:2])
            loc.add_character(i, kind="npc", position=(c[0] + 0.5, c[1] + 0.5), walk_speed=4.0)
            loc.character(i).set_target((c[0] + 400.5, c[1] - 300.5))   # far outside
            # (outside the region is unreachable: the plan's end is the arrival, §8.4)
        for _ in range(150):
            loc.step()
            pos = loc.positions()
            cells = np.floor(pos).astype(int)
            assert np.all((cells >= box[0]) & (cells <= box[2]))
            assert walk[cells[:, 1] - box[1], cells[:, 0] - box[0]].all()
        assert loc.stats.replans >= 6
        assert loc.stats.arrivals == (6 if preset else 0)  # (long plans: still walking)
    out = WorldView(world, region=box)
    loc = Location(out)
    a = loc.add_character("far", position=(2000.5, 2000.5))
    with pytest.raises(ConfigError, match="outside") as exc:
        a.set_target((2010.5, 2000.5))
    assert exc.value.field == "region" and "character 'far'" in str(exc.value)
    assert "(2000.500, 2000.500)" in str(exc.value)


def test_edits_force_replans_and_saving_is_refused(tmp_path) -> None:
    grid, loc = _wall_world()
    npc = loc.add_character("n", kind="npc", position=_centre(np.array([5, 35])), walk_speed=3.0)
    npc.set_target(_centre(np.array([40, 35])))
    loc.run(5)
    view = loc.map
    assert isinstance(view, WorldView)
    view.set_cells([(x, z) for x in (20, 21) for z in range(40)], [0] * 80)
    ev = loc.run(400)
    assert loc.stats.forced_replans >= 1
    xs = [(p - MX) / CS for p in (npc.position[0],)]
    assert xs[0] < 20 and sum(len(e.arrived) for e in ev) == 1   # walled off: nearest cell
    with pytest.raises(ConfigError) as exc:
        loc.save(tmp_path / "s.json")
    assert exc.value.field == "navigation"
    with pytest.raises(ConfigError):
        loc.set_area_available("door", True)


def _lanes(gap: bool) -> tuple[NavGrid, Any]:
    """240 x 40 cells, walls at x = 60, 120, 180: with ``gap``, each open at
    z 18..22 (on the straight line z = 20); else gaps at alternate ends (a route
    around walls wider than a bounded window)."""
    walk = np.ones((40, 240), bool)
    for x in (60, 120, 180):
        if gap:
            walk[:, x] = False
            walk[18:23, x] = True
        else:
            walk[0:30, x] = False
    if not gap:
        walk[0:30, 120] = True
        walk[10:40, 120] = False
    grid = NavGrid(walk, cell_size=CS, min_x=MX, min_z=MZ)
    return grid, lambda x, z: (MX + (x + 0.5) * CS, MZ + (z + 0.5) * CS)


@pytest.mark.parametrize("kind", ["player", "bot"])
def test_a_far_player_or_bot_walk_order_on_a_bounded_world_arrives(kind: str) -> None:
    grid, c = _lanes(gap=True)
    loc = Location(World.from_grid(grid, chunk=16))
    assert loc.map.preset == BOUNDED
    start, goal = c(5, 20), c(235, 20)
    # the oracle's route: over 200 cells, more than ten bounded legs
    route = Pathfinder(grid, "seed").find_path_cells((5, 20), (235, 20))
    assert len(route.cells) > 200 and len(route.cells) // reach(BOUNDED) >= 10
    ch = loc.add_character("w", kind=kind, position=start, walk_speed=4.0)
    done: list[Any] = []
    assert ch.set_target(goal, on_arrived=lambda who: done.append(who.id))
    walked, last = 0.0, start
    for _ in range(1000):
        loc.step()
        walked += math.dist(last, ch.position)
        last = ch.position
        if done:
            break
    assert done == ["w"] and loc.stats.arrivals == 1
    assert math.dist(ch.position, goal) <= 0.05 + 1e-9
    assert walked >= 200 * CS and loc.stats.replans >= 10  # leg after leg
    assert loc.stats.retries == 0  # legs are no retries (no cooldown)
    loc.run(30)
    assert not ch.is_moving() and loc.stats.arrivals == 1  # arrived once, and stays


def test_a_long_walk_on_a_grid_is_unchanged() -> None:
    """The grid simulation of a 240-cell walk, tick by tick: the figures recorded
    with the code before bounded legs existed (a grid plan is never a leg)."""
    import hashlib

    grid, c = _lanes(gap=False)
    loc = Location(grid)
    p = loc.add_character("p", kind="player", position=c(5, 35), walk_speed=4.0)
    b = loc.add_character("b", kind="bot", position=c(5, 3), walk_speed=3.0)
    p.set_target(c(235, 35))
    b.set_target(c(235, 3))
    h = hashlib.sha256()
    stopped: dict[Any, int] = {}
    for _ in range(1200):
        loc.step()
        h.update(np.round(loc.positions(), 6).tobytes())
        for ch in (p, b):
            if not ch.is_moving() and ch.id not in stopped:
                stopped[ch.id] = loc.tick
    assert stopped == {"p": 597, "b": 832}
    assert (loc.stats.replans, loc.stats.arrivals) == (2, 2)
    assert h.hexdigest() == "b817c82844c6769588187cdab0fe1b822a5ada9c6d9f958b1cdac889805574aa"
    # and the unbounded world simulation still equals it, tick by tick
    w = Location(WorldView(World.from_grid(grid, chunk=16), preset=None))
    wp = w.add_character("p", kind="player", position=c(5, 35), walk_speed=4.0)
    wb = w.add_character("b", kind="bot", position=c(5, 3), walk_speed=3.0)
    wp.set_target(c(235, 35))
    wb.set_target(c(235, 3))
    g = Location(grid)
    gp = g.add_character("p", kind="player", position=c(5, 35), walk_speed=4.0)
    gb = g.add_character("b", kind="bot", position=c(5, 3), walk_speed=3.0)
    gp.set_target(c(235, 35))
    gb.set_target(c(235, 3))
    for _ in range(900):
        g.step()
        w.step()
        assert np.array_equal(g.positions(), w.positions())
    assert g.stats.arrivals == w.stats.arrivals == 2


def test_a_bounded_walk_stuck_behind_a_wide_wall_stops_without_arriving() -> None:
    """A wall wider than the window: the last leg's next plan finds no path, so the
    player stands there (§8.4, a plan without a path), with no arrival."""
    grid, c = _lanes(gap=False)
    loc = Location(World.from_grid(grid, chunk=16))
    p = loc.add_character("p", kind="player", position=c(5, 3), walk_speed=4.0)
    p.set_target(c(235, 3))
    loc.run(400)
    cx = (p.position[0] - MX) / CS
    assert not p.is_moving() and loc.stats.arrivals == 0
    assert 40 <= cx < 60  # several legs, then the wall at x = 60 (its gap is 27 cells up)
