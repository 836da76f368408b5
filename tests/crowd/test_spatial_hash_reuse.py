"""SpatialHash's game-loop path: ``rebuild`` and ``query_radius_all(reuse=True)``
against a fresh build, brute force and scipy's cKDTree.

Inputs include duplicates, points exactly ``r`` apart (a half-metre lattice),
negative coordinates and cell sizes below and above the radius. The radius
rule is ``d² <= r²`` (docs/crowds.md "Spatial hash"), the answer order
(distance, then index).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import cKDTree

from navkit.crowd import SpatialHash
from navkit.errors import QueryError
from tests.crowd.oracle import ckdtree_agrees, radius_keys

CELLS = [0.3, 0.5, 1.0, 2.0, 3.7]
RADII = [0.0, 0.5, 1.0, float(np.sqrt(2.0)), 2.0, 2.5]


def brute_all(pts: np.ndarray, r: float) -> list[list[int]]:
    """Every point's neighbours within r (d² <= r², itself excluded), by (d², index)."""
    out = []
    for i in range(len(pts)):
        d2, rr = radius_keys(pts, pts[i], r)
        idx = np.flatnonzero(d2 <= rr)
        idx = idx[idx != i]
        out.append(idx[np.lexsort((idx, d2[idx]))].tolist())
    return out


def brute_knn_all(pts: np.ndarray, k: int) -> np.ndarray:
    out = np.full((len(pts), k), -1, dtype=np.int64)
    for i in range(len(pts)):
        d2 = ((pts - pts[i]) ** 2).sum(axis=1)
        idx = np.arange(len(pts))
        idx = idx[idx != i]
        best = idx[np.lexsort((idx, d2[idx]))][:k]
        out[i, :len(best)] = best
    return out


def csr_rows(off: np.ndarray, idx: np.ndarray) -> list[list[int]]:
    return [idx[off[i]:off[i + 1]].tolist() for i in range(len(off) - 1)]


# points on a half-metre lattice in [-4, 4] (duplicates and exact-r pairs are
# common), or anywhere in [-6, 6]
coord = st.one_of(st.integers(-8, 8).map(lambda v: v * 0.5),
                  st.floats(-6.0, 6.0, allow_nan=False, allow_infinity=False))
point_sets = st.lists(st.tuples(coord, coord), min_size=0, max_size=40).map(
    lambda ps: np.array(ps, dtype=np.float64).reshape(-1, 2))


@settings(max_examples=40, deadline=None)
@given(a=point_sets, b=point_sets, cell=st.sampled_from(CELLS), r=st.sampled_from(RADII),
       k=st.integers(0, 6))
def test_rebuild_equals_fresh_build(a, b, cell, r, k):
    h = SpatialHash(a, cell)
    h.query_radius_all(r, reuse=True)  # warm buffers sized for a
    h.rebuild(b)
    fresh = SpatialHash(b, cell)
    assert h.n == fresh.n == len(b)
    assert h.cell_size == fresh.cell_size and h.shape == fresh.shape
    assert np.array_equal(h.positions, b)
    want = brute_all(b, r)
    for reuse in (True, False):
        off, idx = h.query_radius_all(r, reuse=reuse)
        assert off.dtype == np.int64 and idx.dtype == np.int32
        assert csr_rows(off, idx) == want
    f_off, f_idx = fresh.query_radius_all(r)
    assert np.array_equal(off, f_off) and np.array_equal(idx, f_idx)
    assert np.array_equal(h.knn_all(k), brute_knn_all(b, k))
    for p in [(0.0, 0.0), (-3.5, 2.0), (10.0, -10.0)]:
        d2, rr = radius_keys(b, p, r)
        j = np.flatnonzero(d2 <= rr)
        assert h.query_radius(p, r).tolist() == j[np.lexsort((j, d2[j]))].tolist()
        assert h.knn(p, k).tolist() == fresh.knn(p, k).tolist()


@settings(max_examples=40, deadline=None)
@given(pts=point_sets.filter(lambda p: len(p) > 0), cell=st.sampled_from(CELLS),
       radii=st.lists(st.sampled_from(RADII + [6.0]), min_size=1, max_size=4))
def test_reuse_matches_ckdtree_and_brute(pts, cell, radii):
    """Successive reuse=True queries (growing and shrinking the kept buffers)."""
    h = SpatialHash(pts, cell)
    tree = cKDTree(pts)
    for r in radii:
        off, idx = h.query_radius_all(r, reuse=True)
        assert not off.flags.writeable and not idx.flags.writeable
        rows = csr_rows(off, idx)
        assert rows == brute_all(pts, r)
        for i, near in enumerate(tree.query_ball_point(pts, r) if ckdtree_agrees(r) else []):
            assert sorted(rows[i]) == sorted(set(near) - {i})


@settings(max_examples=40, deadline=None)
@given(pts=point_sets.filter(lambda p: len(p) > 0), cell=st.sampled_from(CELLS),
       r=st.sampled_from(RADII), data=st.data())
def test_update_equals_fresh_build(pts, cell, r, data):
    """Moves inside a cell, across cells and out of the box all give the fresh answer."""
    h = SpatialHash(pts, cell)
    h.query_radius_all(r, reuse=True)
    moved = pts.copy()
    for _ in range(data.draw(st.integers(1, 3))):
        m = data.draw(st.integers(1, len(pts)))
        idx = data.draw(st.permutations(range(len(pts))))[:m]
        step = data.draw(st.sampled_from([0.01, 0.7, 3.0, 20.0]))
        new = moved[idx] + data.draw(st.sampled_from([-1.0, 1.0])) * step
        h.update(idx, new)
        moved[idx] = new
    fresh = SpatialHash(moved, cell)
    assert np.array_equal(h.positions, moved)
    off, idx_ = h.query_radius_all(r, reuse=True)
    assert csr_rows(off, idx_) == brute_all(moved, r)
    f_off, f_idx = fresh.query_radius_all(r)
    assert np.array_equal(off, f_off) and np.array_equal(idx_, f_idx)
    assert np.array_equal(h.knn_all(3), fresh.knn_all(3))


@pytest.mark.parametrize("cell", [0.5, 1.0, 2.0])
def test_game_loop_ticks_two_threads(cell):
    """Ticks of 12,000 agents moving a little (two thread ranges): each tick's
    rebuild + reuse answer equals a fresh build on one thread, and brute force
    on sampled agents."""
    rng = np.random.default_rng(21)
    side = float(np.sqrt(12_000 * np.pi / 10.0))
    pts = np.round(rng.random((12_000, 2)) * side - side / 2, 2)  # ties, negative coordinates
    h = SpatialHash(pts, cell)
    for _ in range(4):
        pts = np.round(pts + rng.normal(scale=0.05, size=pts.shape), 2)
        h.rebuild(pts)
        off, idx = h.query_radius_all(1.0, threads=2, reuse=True)
        f_off, f_idx = SpatialHash(pts, cell).query_radius_all(1.0, threads=1)
        assert np.array_equal(off, f_off) and np.array_equal(idx, f_idx)
        for i in range(0, len(pts), 997):
            d2 = ((pts - pts[i]) ** 2).sum(axis=1)
            j = np.flatnonzero(d2 <= 1.0)
            j = j[j != i]
            assert idx[off[i]:off[i + 1]].tolist() == j[np.lexsort((j, d2[j]))].tolist()


def test_reuse_tick_allocates_no_arrays():
    """After a warm-up tick, rebuild + query_radius_all(reuse=True) of the same
    agents moved a little allocates no array data (tracemalloc sees numpy's
    buffers); a fresh SpatialHash + query allocates megabytes."""
    rng = np.random.default_rng(3)
    pts = rng.random((20_000, 2)) * 80.0
    moved = pts + rng.normal(scale=0.01, size=pts.shape)
    h = SpatialHash(pts, 1.0)
    for p in (moved, pts):  # warm-up: buffers reach their size
        h.rebuild(p)
        h.query_radius_all(1.0, reuse=True)
    tracemalloc.start()
    try:
        for p in (moved, pts, moved):
            h.rebuild(p)
            h.query_radius_all(1.0, reuse=True)
        _, peak_reuse = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        SpatialHash(moved, 1.0).query_radius_all(1.0)
        _, peak_fresh = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak_reuse < 64 * 1024
    assert peak_fresh - base > 1_000_000


def test_reuse_views_are_overwritten_by_the_next_reuse_call():
    pts = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])
    h = SpatialHash(pts, 1.0)
    off, idx = h.query_radius_all(1.0, reuse=True)
    assert csr_rows(off, idx) == [[1], [0], []]
    kept = (off.copy(), idx.copy())
    h.query_radius_all(2.0, reuse=True)
    assert csr_rows(*kept) == [[1], [0], []]
    assert csr_rows(*h.query_radius_all(2.0)) == [[1], [0, 2], [1]]


def test_rebuild_validates_and_keeps_the_old_points():
    pts = np.array([[0.0, 0.0], [1.0, 0.0]])
    h = SpatialHash(pts, 1.0)
    for bad, match in [([[0.0, np.nan]], "NaN"), ([[np.inf, 0.0]], "NaN or infinite"),
                       ([[1e200, 0.0]], "1e150"), ([[-1e200, 0.0]], "1e150"),
                       ([1.0, 2.0, 3.0], "shape"), ([["a", "b"]], "dtype")]:
        with pytest.raises(QueryError, match="positions") as err:
            h.rebuild(bad)
        assert match in str(err.value)
    assert np.array_equal(h.positions, pts)
    assert h.query_radius_all(1.0)[1].tolist() == [1, 0]
    h.rebuild(np.zeros((0, 2)))
    assert h.n == 0 and h.query_radius_all(1.0, reuse=True)[0].tolist() == [0]
