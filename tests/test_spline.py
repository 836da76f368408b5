"""Catmull-Rom display smoothing (navkit.spline) against geometry computed here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from navkit.errors import ConfigError
from navkit.spline import MAX_SAMPLES, catmull_rom
from tests.conftest import fixed

coords = st.floats(-50, 50, allow_nan=False, allow_infinity=False)
paths = st.lists(st.tuples(coords, coords), min_size=2, max_size=8).map(
    lambda pts: np.array(pts, dtype=np.float64))


def _dedup(p: np.ndarray) -> np.ndarray:
    keep = np.ones(len(p), dtype=bool)
    keep[1:] = np.any(p[1:] != p[:-1], axis=1)
    return p[keep]


@fixed(60)
@given(paths, st.floats(0.5, 10))
def test_passes_through_every_waypoint_in_order(pts: np.ndarray, rate: float) -> None:
    out = catmull_rom(pts, rate)
    p = _dedup(pts)
    assert out.dtype == np.float64 and out.ndim == 2 and out.shape[1] == 2
    assert np.all(np.isfinite(out))
    assert np.array_equal(out[0], p[0]) and np.array_equal(out[-1], p[-1])
    # every waypoint appears exactly, in path order
    at = 0
    for w in p:
        hits = np.nonzero(np.all(out[at:] == w, axis=1))[0]
        assert len(hits), f"waypoint {w} missing"
        at += int(hits[0]) + 1


@fixed(60)
@given(paths, st.floats(0.5, 10))
def test_sample_count_follows_length(pts: np.ndarray, rate: float) -> None:
    p = _dedup(pts)
    chords = [math.dist(a, b) for a, b in zip(p[:-1], p[1:], strict=True)]
    expected = sum(max(1, math.ceil(c * rate)) for c in chords) + 1
    out = catmull_rom(pts, rate)
    assert len(out) == expected
    length = sum(chords)
    assert length * rate <= len(out) <= length * rate + len(chords) + 1


@fixed(40)
@given(st.tuples(coords, coords), st.tuples(st.floats(-1, 1), st.floats(-1, 1)),
       st.lists(st.floats(0.1, 20), min_size=1, max_size=6), st.floats(0.5, 8))
def test_collinear_input_stays_on_the_line(origin: tuple[float, float],
                                           direction: tuple[float, float],
                                           steps: list[float], rate: float) -> None:
    d = np.array(direction)
    if np.hypot(*d) < 1e-3:
        d = np.array([1.0, 0.0])
    d = d / np.hypot(*d)
    ts = np.concatenate(([0.0], np.cumsum(steps)))
    pts = np.array(origin) + ts[:, None] * d
    out = catmull_rom(pts, rate)
    rel = out - np.array(origin)
    off_line = np.abs(rel[:, 0] * d[1] - rel[:, 1] * d[0])  # distance to the line
    assert off_line.max() <= 1e-9 * max(1.0, float(np.abs(pts).max()))


def test_two_points_give_the_straight_segment() -> None:
    a, b = np.array([1.0, 2.0]), np.array([4.0, 6.0])  # 5 m
    out = catmull_rom(np.stack([a, b]), 2.0)
    assert len(out) == 11
    expected = a + np.linspace(0, 1, 11)[:, None] * (b - a)
    np.testing.assert_allclose(out, expected, atol=1e-12)


def _segment_distance(q: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ab = b - a
    t = np.clip(((q - a) @ ab) / (ab @ ab), 0, 1)
    return np.hypot(*(q - (a + t[:, None] * ab)).T)


def test_corner_is_rounded_but_stays_near_the_segments() -> None:
    pts = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0]])
    out = catmull_rom(pts, 4.0)
    dist = np.minimum(_segment_distance(out, pts[0], pts[1]),
                      _segment_distance(out, pts[1], pts[2]))
    # a curve (it leaves the polyline), but a centripetal one: the bulge stays small
    assert 0.1 < dist.max() < 2.5


def test_deterministic_and_input_untouched() -> None:
    pts = np.array([[0.0, 0.0], [3.0, 1.0], [3.5, 7.0], [9.0, 2.0]])
    before = pts.copy()
    a, b = catmull_rom(pts, 3.0), catmull_rom(pts.tolist(), 3.0)
    assert np.array_equal(a, b) and np.array_equal(pts, before)


def test_degenerate_inputs() -> None:
    assert catmull_rom(np.zeros((0, 2)), 4.0).shape == (0, 2)
    assert catmull_rom([[1.0, 2.0]], 4.0).tolist() == [[1.0, 2.0]]
    assert catmull_rom([[1.0, 2.0], [1.0, 2.0]], 4.0).tolist() == [[1.0, 2.0]]
    out = catmull_rom([[0.0, 0.0], [0.0, 0.0], [2.0, 0.0]], 1.0)
    assert out.tolist() == [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]]


@pytest.mark.parametrize("points", [
    [[0.0, 0.0, 1.0]], [[0.0, float("nan")], [1.0, 1.0]], [[0.0, float("inf")]], "ab",
    [[0.0, 0.0], [1.0]],
])
def test_bad_points_name_the_field(points: object) -> None:
    with pytest.raises(ConfigError) as e:
        catmull_rom(points, 4.0)  # type: ignore[arg-type]
    assert e.value.field == "points"


@pytest.mark.parametrize("rate", [0, -1.0, float("nan"), float("inf"), "4", True, None])
def test_bad_rate_names_the_field(rate: object) -> None:
    with pytest.raises(ConfigError) as e:
        catmull_rom([[0.0, 0.0], [1.0, 0.0]], rate)  # type: ignore[arg-type]
    assert e.value.field == "samples_per_metre"


def test_too_many_samples_is_refused() -> None:
    with pytest.raises(ConfigError) as e:
        catmull_rom([[0.0, 0.0], [1000.0, 0.0]], MAX_SAMPLES / 100)
    assert e.value.field == "samples_per_metre"


def test_path_result_spline_passes_through_its_waypoints() -> None:
    import navkit

    walk = np.ones((12, 12), dtype=bool)
    walk[2:10, 5] = False
    pf = navkit.Pathfinder(navkit.NavGrid(walk), costs="exact")
    res = pf.find_path_cells((1, 6), (10, 6), smooth=True)
    curve = res.spline(8.0)
    for w in res.waypoints:  # every waypoint is a sample of the curve
        assert np.min(np.hypot(*(curve - w).T)) < 1e-9
    assert len(curve) >= 8.0 * res.cost * 0.9
