"""Each steering behaviour against an analytic expectation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import pdist

from navkit.crowd import Crowd, SteeringParams, Weights
from navkit.errors import ConfigError


def test_seek_reaches_target():
    c = Crowd([[0.0, 0.0]], weights=Weights(seek=1.0), max_speed=2.0, max_force=5.0)
    c.set_targets([[10.0, 5.0]])
    best = np.inf
    for _ in range(200):
        c.step(0.05)
        best = min(best, float(np.hypot(*(c.positions[0] - [10.0, 5.0]))))
        assert np.hypot(*c.velocities[0]) <= 2.0 + 1e-12
    assert best < 0.1  # passes through the target (seek does not brake)


@pytest.mark.parametrize("start", [(0.0, 0.0), (-30.0, 12.0), (3.0, -0.5)])
def test_arrive_stops_without_overshoot(start):
    p = SteeringParams(slow_radius=4.0, arrive_tolerance=0.05)
    c = Crowd([start], params=p, weights=Weights(arrive=1.0), max_speed=3.0, max_force=6.0)
    target = np.array([5.0, 1.0])
    c.set_targets([target])
    axis = (target - start) / np.linalg.norm(target - start)
    for _ in range(600):
        c.step(0.05)
        # never past the target along the approach line
        assert float(np.dot(c.positions[0] - target, axis)) <= 1e-9
    assert np.hypot(*(c.positions[0] - target)) <= 0.05 + 1e-9
    assert np.hypot(*c.velocities[0]) < 1e-3


def test_flee_increases_distance():
    c = Crowd([[1.0, 0.5], [-2.0, -3.0]], weights=Weights(flee=1.0), max_speed=2.0)
    c.set_threats([0.0, 0.0])
    d_prev = np.hypot(c.positions[:, 0], c.positions[:, 1])
    for _ in range(50):
        c.step(0.1)
        d = np.hypot(c.positions[:, 0], c.positions[:, 1])
        assert np.all(d >= d_prev - 1e-12)
        d_prev = d
    assert np.all(d_prev > 8.0)


def test_flee_radius_limits_panic():
    p = SteeringParams(flee_radius=3.0)
    c = Crowd([[10.0, 0.0]], params=p, weights=Weights(flee=1.0))
    c.set_threats([0.0, 0.0])
    c.run(20, 0.1)
    assert c.positions[0].tolist() == [10.0, 0.0]


def test_alignment_converges_headings():
    rng = np.random.default_rng(3)
    pos = rng.random((40, 2)) * 4.0
    ang = rng.uniform(-1.2, 1.2, 40)
    vel = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    p = SteeringParams(alignment_radius=10.0)
    c = Crowd(pos, velocities=vel, params=p, weights=Weights(alignment=1.0), max_speed=1.0,
              max_force=2.0)

    def spread():
        h = c.headings
        mean = h.mean(axis=0)
        return float(1.0 - np.hypot(*mean))

    s0 = spread()
    c.run(100, 0.05)
    assert spread() < s0 * 0.01


def test_separation_keeps_minimum_distance():
    rng = np.random.default_rng(5)
    pos = rng.random((60, 2)) * 1.5  # dense: mean spacing ~0.2 m
    p = SteeringParams(separation_radius=1.0)
    c = Crowd(pos, params=p, weights=Weights(separation=1.0), max_speed=1.0, max_force=4.0)
    d0 = pdist(c.positions).min()
    c.run(300, 0.05)
    d1 = pdist(c.positions).min()
    assert d0 < 0.05 and d1 > 0.6


def test_coincident_agents_separate():
    c = Crowd([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], weights=Weights(separation=1.0))
    c.run(50, 0.05)
    assert pdist(c.positions).min() > 0.5


def test_cohesion_pulls_toward_centroid():
    rng = np.random.default_rng(8)
    pos = rng.normal(size=(30, 2)) * 3.0
    p = SteeringParams(cohesion_radius=100.0)
    c = Crowd(pos, params=p, weights=Weights(cohesion=1.0, arrive=0.0), max_speed=1.0)
    centroid = pos.mean(axis=0)
    r0 = np.hypot(*(pos - centroid).T).mean()
    c.run(40, 0.05)
    r1 = np.hypot(*(c.positions - centroid).T).mean()
    assert r1 < r0 * 0.8
    # symmetric forces: the centroid stays (to rounding)
    np.testing.assert_allclose(c.positions.mean(axis=0), centroid, atol=0.2)


def test_wander_reproducible_and_within_max_speed():
    def run(seed):
        c = Crowd(np.zeros((20, 2)) + np.arange(20)[:, None], weights=Weights(wander=1.0),
                  max_speed=1.3, seed=seed)
        speeds = []
        for _ in range(100):
            c.step(0.05)
            speeds.append(np.hypot(*c.velocities.T).max())
        return c.positions.copy(), max(speeds)

    a, sa = run(11)
    b, sb = run(11)
    other, _ = run(12)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, other)
    assert sa <= 1.3 + 1e-12 and sa > 0.5


def test_pursue_catches_and_evade_escapes():
    c = Crowd([[0.0, 0.0], [5.0, 0.0]], velocities=[[0.0, 0.0], [0.0, 1.0]],
              max_speed=np.array([3.0, 1.0]), max_force=6.0)
    c.set_weights(Weights(pursue=1.0), agents=[0])
    c.set_weights(Weights(seek=1.0), agents=[1])
    c.set_targets([[5.0, 100.0]], agents=[1])
    c.set_chase([1], agents=[0])
    best = np.inf
    for _ in range(200):
        c.step(0.05)
        best = min(best, float(np.hypot(*(c.positions[0] - c.positions[1]))))
    assert best < 0.2
    e = Crowd([[0.0, 0.0], [2.0, 0.0]], max_speed=np.array([2.0, 1.5]))
    e.set_weights(Weights(pursue=1.0), agents=[0])
    e.set_weights(Weights(evade=1.0), agents=[1])
    e.set_chase([1], agents=[0])
    e.set_avoid([0], agents=[1])
    e.run(10, 0.05)
    assert e.positions[1, 0] > 2.2 and e.velocities[1, 0] > 1.4  # runs away along +x
    e.run(200, 0.05)
    assert np.hypot(*(e.positions[0] - e.positions[1])) < 2.0  # the faster pursuer gains


def test_priority_blending_spends_budget_in_order():
    # seek (priority) and flee (lower) pull opposite ways: the first uses the whole budget
    pr = ("seek", "flee", "arrive", "wander", "pursue", "evade", "separation", "alignment",
          "cohesion", "walls", "path", "flow")
    c = Crowd([[0.0, 0.0]], weights=Weights(seek=1.0, flee=1.0), blending="priority",
              priority=pr, max_speed=1.0, max_force=2.0)
    c.set_targets([[10.0, 0.0]])
    c.set_threats([[-1.0, 0.0]])  # flee also pushes +x: would add if budget remained
    c.step(0.1)
    assert abs(c.velocities[0, 0] - 0.2) < 1e-12  # max_force * dt, seek alone
    w = Crowd([[0.0, 0.0]], weights=Weights(seek=1.0, flee=1.0), max_speed=1.0, max_force=2.0)
    w.set_targets([[10.0, 0.0]])
    w.set_threats([[-1.0, 0.0]])
    w.step(0.1)
    assert abs(w.velocities[0, 0] - 0.2) < 1e-12  # weighted: the sum, truncated


def test_params_validation():
    with pytest.raises(ConfigError, match="separation_radius"):
        SteeringParams(separation_radius=float("nan"))
    with pytest.raises(ConfigError, match="seek"):
        Weights(seek=-1.0)
    with pytest.raises(ConfigError, match="priority"):
        Crowd([[0.0, 0.0]], blending="priority", priority=("seek",))
    with pytest.raises(ConfigError, match="blending"):
        Crowd([[0.0, 0.0]], blending="sum")
    w = Weights(flow=2.0, walls=1.0)
    assert Weights.from_array(w.as_array()) == w
