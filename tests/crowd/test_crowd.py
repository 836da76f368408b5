"""Crowd: walls never entered, flow fields, paths, determinism, save / restore."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import navkit
from navkit.crowd import Crowd, SteeringParams, Weights
from navkit.errors import ConfigError, QueryError

FLOCK = Weights(separation=1.5, alignment=1.0, cohesion=1.0, wander=0.5, walls=3.0)


def cells_of(grid, pts):
    fx = np.floor((pts[:, 0] - grid.min_x) / grid.cell_size)
    fz = np.floor((pts[:, 1] - grid.min_z) / grid.cell_size)
    return fx, fz


def all_free(grid, pts):
    fx, fz = cells_of(grid, pts)
    inside = (fx >= 0) & (fx < grid.width) & (fz >= 0) & (fz < grid.depth)
    if not inside.all():
        return False
    return bool(grid.walkable[fz.astype(int), fx.astype(int)].all())


def random_free_points(grid, rng, n):
    free = np.argwhere(grid.walkable)  # (z, x)
    pick = free[rng.integers(0, len(free), n)]
    jitter = rng.random((n, 2))
    return np.stack([grid.min_x + (pick[:, 1] + jitter[:, 0]) * grid.cell_size,
                     grid.min_z + (pick[:, 0] + jitter[:, 1]) * grid.cell_size], axis=1)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.5, 1.0, 2.0]), st.floats(0.0, 0.45),
       st.sampled_from(["weighted", "priority"]))
def test_walls_never_entered(seed, cell, density, blending):
    rng = np.random.default_rng(seed)
    walk = rng.random((12, 15)) >= density
    walk[0, 0] = True
    grid = navkit.NavGrid(walk, cell_size=cell, min_x=-3.0, min_z=2.0)
    n = 30
    pos = random_free_points(grid, rng, n)
    vel = rng.normal(size=(n, 2)) * 3.0
    w = Weights(seek=1.0, separation=1.0, wander=1.0, walls=float(rng.integers(0, 2)))
    c = Crowd(pos, grid=grid, weights=w, velocities=vel, max_speed=6.0, max_force=40.0,
              blending=blending, seed=int(seed % 1000))
    c.set_targets(rng.random((n, 2)) * 40.0 - 10.0)  # often inside walls or off the map
    for _ in range(40):
        c.step(float(rng.choice([0.02, 0.1, 0.5])))
        assert all_free(grid, c.positions)


def test_fast_agent_does_not_tunnel_through_thin_wall():
    walk = np.ones((5, 20), dtype=bool)
    walk[:, 10] = False
    grid = navkit.NavGrid(walk)
    c = Crowd([[2.5, 2.5]], grid=grid, weights=Weights(seek=1.0), max_speed=50.0,
              max_force=1e4)
    c.set_targets([[18.5, 2.5]])
    for _ in range(20):
        c.step(0.1)  # 5 m per tick: would jump the wall
        assert c.positions[0, 0] < 10.0
    # it slid along z or stopped, never crossed
    assert all_free(grid, c.positions)


def test_wall_avoidance_turns_before_contact():
    walk = np.ones((20, 20), dtype=bool)
    walk[:, 12:] = False
    grid = navkit.NavGrid(walk)
    p = SteeringParams(wall_lookahead=3.0)
    c = Crowd([[2.5, 10.0]], grid=grid, params=p, velocities=[[1.0, 0.2]],
              weights=Weights(wander=1.0, walls=4.0), blending="priority", max_speed=1.0,
              max_force=3.0, seed=4)
    closest = np.inf
    for _ in range(400):
        c.step(0.05)
        closest = min(closest, 12.0 - c.positions[0, 0])
    assert closest > 0.3


def test_flow_field_arrival_spreads_and_reports_pockets():
    walk = np.ones((40, 40), dtype=bool)
    walk[10:30, 20] = False
    walk[0:6, 30:36] = False  # a pocket cut off by walls:
    walk[1:5, 31:35] = True
    grid = navkit.NavGrid(walk)
    ff = navkit.FlowField(grid).build([(35, 20)])
    rng = np.random.default_rng(2)
    pos = random_free_points(grid, rng, 300)
    pos = pos[pos[:, 0] < 15]
    pocket = np.array([[32.5, 2.5], [33.2, 3.1]])
    pos = np.concatenate([pos, pocket])
    n = len(pos)
    p = SteeringParams(separation_radius=0.8, arrival_radius=1.0, arrival_spacing=0.8)
    c = Crowd(pos, grid=grid, params=p, weights=Weights(flow=1.0, separation=1.5, walls=2.0),
              max_speed=2.0, max_force=6.0)
    fid = c.add_flow_field(ff)
    c.follow_flow(fid)
    assert c.unreachable().tolist() == [n - 2, n - 1]
    c.run(1000, 0.05)
    assert all_free(grid, c.positions)
    assert c.unreachable().tolist() == [n - 2, n - 1]
    arrived = c.arrived()
    assert len(arrived) >= 0.9 * (n - 2)
    goal = np.array([35.5, 20.5])
    d = np.hypot(*(c.positions[arrived] - goal).T)
    # spread out around the goal, not piled on one cell
    assert np.sum(d < 1.0) <= 6
    from scipy.spatial.distance import pdist
    assert np.median(pdist(c.positions[arrived])) > 2.0
    assert np.hypot(*c.velocities[arrived].T).max() < 0.5


def test_path_following_reaches_end():
    walk = np.ones((30, 30), dtype=bool)
    walk[5:25, 15] = False
    grid = navkit.NavGrid(walk)
    res = navkit.Pathfinder(grid).find_path((3.5, 15.5), (27.5, 15.5))
    wp = res.waypoints
    assert len(wp) >= 2
    c = Crowd([[3.5, 15.5]], grid=grid, weights=Weights(path=1.0, walls=0.5),
              max_speed=2.0, max_force=8.0)
    c.set_path(0, wp)
    for _ in range(800):
        c.step(0.05)
        assert all_free(grid, c.positions)
    assert np.hypot(*(c.positions[0] - wp[-1])) < 0.1


def make_flock(seed=1, n=400):
    rng = np.random.default_rng(seed)
    walk = rng.random((64, 64)) > 0.08
    grid = navkit.NavGrid(walk)
    pos = random_free_points(grid, rng, n)
    ff = navkit.FlowField(grid).build([(32, 32)])
    c = Crowd(pos, grid=grid, weights=FLOCK, max_speed=1.5, max_force=4.0, seed=seed)
    fid = c.add_flow_field(ff)
    c.set_weights(Weights(flow=1.0, separation=1.0, walls=2.0), agents=np.arange(0, n, 3))
    c.follow_flow(fid, agents=np.arange(0, n, 3))
    c.set_path(5, [[10.0, 10.0], [50.0, 50.0]])
    c.set_weights(Weights(path=1.0, separation=0.5), agents=[5])
    return c


def test_deterministic_and_save_restore():
    a = make_flock()
    b = make_flock()
    a.run(60, 0.05)
    for _ in range(60):
        b.step(0.05)
    assert np.array_equal(a.positions, b.positions)
    assert np.array_equal(a.velocities, b.velocities)
    saved = a.state_dict()
    a.run(40, 0.05)
    r = Crowd.from_state(saved)
    assert r.tick == 60
    r.run(40, 0.05)
    assert np.array_equal(a.positions, r.positions)
    assert np.array_equal(a.velocities, r.velocities)
    assert np.array_equal(a.status, r.status)


def test_no_allocation_per_tick():
    import tracemalloc

    c = make_flock(n=200)
    c.step(0.05)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for _ in range(50):
        c.step(0.05)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    assert grown < 20_000  # bytes: no arrays per tick (the crowd holds ~100 kB)


def test_validation():
    walk = np.ones((4, 4), dtype=bool)
    walk[1, 1] = False
    grid = navkit.NavGrid(walk)
    with pytest.raises(QueryError, match="positions"):
        Crowd([[1.5, 1.5]], grid=grid)
    with pytest.raises(QueryError, match="positions"):
        Crowd([[np.nan, 0.0]])
    with pytest.raises(ConfigError, match="max_speed"):
        Crowd([[0.5, 0.5]], max_speed=0.0)
    c = Crowd([[0.5, 0.5]], grid=grid)
    with pytest.raises(QueryError, match="dt"):
        c.step(0.0)
    with pytest.raises(QueryError, match="agents"):
        c.set_targets([1.0, 1.0], agents=[3])
    with pytest.raises(ConfigError, match="field"):
        c.add_flow_field(navkit.FlowField(navkit.NavGrid(np.ones((5, 5), bool))).build([(0, 0)]))
    with pytest.raises(ConfigError, match="grid"):
        Crowd([[0.0, 0.0]]).add_flow_field(navkit.FlowField(grid).build([(0, 0)]))
    with pytest.raises(QueryError, match="field_id"):
        c.follow_flow(3)


def test_threads_give_bit_identical_states():
    """1 and 2 threads (and the one-kernel run) give the same bits: every agent
    reads only the tick's start snapshot."""
    rng = np.random.default_rng(11)
    walk = rng.random((80, 80)) > 0.08
    grid = navkit.NavGrid(walk)
    n = 9000
    pos = random_free_points(grid, rng, n)
    vel = rng.normal(size=(n, 2))
    ff = navkit.FlowField(grid).build([(40, 40)])
    crowds = []
    for threads in (1, 2):
        c = Crowd(pos, grid=grid, weights=Weights(separation=1.5, alignment=1.0, cohesion=1.0,
                                                   wander=0.5, walls=2.0, pursue=0.5, flow=1.0),
                  velocities=vel, max_speed=1.5, max_force=4.0, seed=3, threads=threads)
        c.set_chase(rng.integers(-1, n, n) if threads == 1 else crowds[0].state_dict()["chase"])
        c.follow_flow(c.add_flow_field(ff), agents=np.arange(0, n, 2))
        crowds.append(c)
    if navkit.query.fanout.max_threads() >= 2:
        assert crowds[1].threads == 2
    crowds[0].run(20, 0.05)
    for _ in range(20):
        crowds[1].step(0.05)
    a, b = crowds[0].state_dict(), crowds[1].state_dict()
    for k in ("pos", "vel", "head", "wander", "status"):
        assert np.array_equal(a[k], b[k]), k
    assert not np.array_equal(a["pos"], pos)  # they moved
