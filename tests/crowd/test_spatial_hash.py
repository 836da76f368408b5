"""SpatialHash against scipy's cKDTree and brute force (ties on lattices included)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import cKDTree

from navkit.crowd import SpatialHash
from navkit.errors import QueryError
from tests.crowd.oracle import ckdtree_agrees, radius_keys


def brute_radius(pts, p, r, exclude=-1):
    d2, rr = radius_keys(pts, p, r)
    idx = np.flatnonzero(d2 <= rr)
    idx = idx[idx != exclude]
    return idx[np.lexsort((idx, d2[idx]))]


def brute_knn(pts, p, k, exclude=-1):
    d2 = ((pts - np.asarray(p)) ** 2).sum(axis=1)
    idx = np.arange(len(pts))
    idx = idx[idx != exclude]
    return idx[np.lexsort((idx, d2[idx]))][:k]


def lattice(nx, nz, step=1.0):
    xs, zs = np.meshgrid(np.arange(nx) * step, np.arange(nz) * step)
    return np.stack([xs.ravel(), zs.ravel()], axis=1)


@pytest.mark.parametrize("cell", [0.5, 1.0, 2.5])
@pytest.mark.parametrize("r", [0.0, 1.0, np.sqrt(2.0), 2.0, 3.5])
def test_lattice_ties_match_ckdtree(cell, r):
    pts = lattice(9, 7)
    h = SpatialHash(pts, cell)
    tree = cKDTree(pts)
    for p in [(4.0, 3.0), (0.0, 0.0), (4.5, 3.5), (-2.0, 8.0), (20.0, 20.0)]:
        got = h.query_radius(p, r)
        assert got.dtype == np.int32
        assert sorted(got.tolist()) == sorted(tree.query_ball_point(p, r))
        assert got.tolist() == brute_radius(pts, p, r).tolist()
    off, idx = h.query_radius_all(r)
    assert off.dtype == np.int64 and idx.dtype == np.int32 and off[-1] == len(idx)
    for i, want in enumerate(tree.query_ball_point(pts, r)):
        seg = idx[off[i]:off[i + 1]].tolist()
        assert sorted(seg) == sorted(set(want) - {i})
        assert seg == brute_radius(pts, pts[i], r, i).tolist()


@pytest.mark.parametrize("k", [1, 4, 9, 70])
def test_lattice_knn_ties(k):
    pts = lattice(8, 8)
    h = SpatialHash(pts, 1.0)
    tree = cKDTree(pts)
    for p in [(3.0, 3.0), (3.5, 3.5), (-4.0, 1.0), (100.0, -50.0)]:
        got = h.knn(p, k)
        want = brute_knn(pts, p, k)
        assert got.tolist() == want.tolist()
        d, _ = tree.query(p, k=min(k, len(pts)))
        np.testing.assert_array_equal(np.sort(np.atleast_1d(d)),
                                      np.sqrt(((pts[got] - p) ** 2).sum(axis=1)))
    allk = h.knn_all(k)
    assert allk.shape == (len(pts), k)
    for i in range(len(pts)):
        want = brute_knn(pts, pts[i], k, i).tolist()
        assert allk[i].tolist() == want + [-1] * (k - len(want))


points = st.lists(st.tuples(st.floats(-50, 50), st.floats(-50, 50)), min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(points, st.floats(0.0, 30.0), st.floats(0.1, 20.0), st.integers(0, 61))
def test_random_match_ckdtree(pts, r, cell, k):
    pts = np.array(pts, dtype=np.float64)
    # snap to a coarse lattice half the time: many exact ties
    if k % 2:
        pts = np.round(pts / 5.0) * 5.0
    h = SpatialHash(pts, cell)
    tree = cKDTree(pts)
    off, idx = h.query_radius_all(r)
    for i, want in enumerate(tree.query_ball_point(pts, r)):
        seg = idx[off[i]:off[i + 1]]
        if ckdtree_agrees(r):
            assert sorted(seg.tolist()) == sorted(set(want) - {i})
        assert seg.tolist() == brute_radius(pts, pts[i], r, i).tolist()
    q = pts[0] + 0.37
    assert h.query_radius(q, r).tolist() == brute_radius(pts, q, r).tolist()
    assert h.knn(q, k).tolist() == brute_knn(pts, q, k).tolist()
    kk = h.knn_all(k)
    for i in range(len(pts)):
        want = brute_knn(pts, pts[i], k, i).tolist()
        assert kk[i].tolist() == want + [-1] * (k - len(want))


@settings(max_examples=40, deadline=None)
@given(points, st.data())
def test_update_matches_rebuild(pts, data):
    pts = np.array(pts, dtype=np.float64)
    h = SpatialHash(pts, 3.0)
    n = len(pts)
    for _ in range(3):
        m = data.draw(st.integers(0, n))
        idx = np.array(data.draw(st.permutations(range(n)))[:m], dtype=np.int64)
        new = pts[idx] + np.array(data.draw(st.lists(st.tuples(st.floats(-8, 8), st.floats(-8, 8)),
                                                     min_size=m, max_size=m))).reshape(-1, 2)
        h.update(idx, new)
        pts[idx] = new
        np.testing.assert_array_equal(h.positions, pts)
        off, got = h.query_radius_all(4.0)
        for i, want in enumerate(cKDTree(pts).query_ball_point(pts, 4.0)):
            assert sorted(got[off[i]:off[i + 1]].tolist()) == sorted(set(want) - {i})


def test_uniform_square_large():
    rng = np.random.default_rng(7)
    pts = rng.random((20000, 2)) * 80.0
    h = SpatialHash(pts, 1.0)
    off, idx = h.query_radius_all(1.0)
    tree = cKDTree(pts)
    counts = np.array([len(x) - 1 for x in tree.query_ball_point(pts, 1.0)])
    np.testing.assert_array_equal(np.diff(off), counts)
    pairs = tree.query_pairs(1.0, output_type="ndarray")
    assert len(idx) == 2 * len(pairs)
    d, nn = tree.query(pts, k=5)
    got = h.knn_all(4)
    np.testing.assert_array_equal(got, nn[:, 1:])  # continuous data: no ties


def test_outlier_coarsens_but_stays_exact():
    pts = np.array([[0.0, 0.0], [0.5, 0.0], [1e9, 1e9]])
    h = SpatialHash(pts, 1e-6)
    assert h.query_radius((0.0, 0.0), 1.0).tolist() == [0, 1]
    assert h.knn((1e9, 1e9), 2).tolist() == [2, 1]


def test_empty_and_validation():
    h = SpatialHash(np.zeros((0, 2)), 1.0)
    assert h.query_radius((0, 0), 5).tolist() == []
    off, idx = h.query_radius_all(1.0)
    assert off.tolist() == [0] and len(idx) == 0
    with pytest.raises(QueryError, match="positions"):
        SpatialHash([[0.0, np.nan]], 1.0)
    with pytest.raises(QueryError, match="positions"):
        SpatialHash(np.zeros((3, 3)), 1.0)
    with pytest.raises(QueryError, match="cell_size"):
        SpatialHash(np.zeros((3, 2)), 0.0)
    h = SpatialHash(np.zeros((3, 2)), 1.0)
    with pytest.raises(QueryError, match="^r"):
        h.query_radius((0, 0), -1)
    with pytest.raises(QueryError, match="point"):
        h.query_radius((0, 0, 0), 1)
    with pytest.raises(QueryError, match="k"):
        h.knn((0, 0), -1)
    with pytest.raises(QueryError, match="indices"):
        h.update([5], [[0.0, 0.0]])
    with pytest.raises(QueryError, match="indices"):
        h.update([1, 1], [[0.0, 0.0], [1.0, 1.0]])
    with pytest.raises(QueryError, match="new_positions"):
        h.update([1], [[0.0, np.inf]])


@pytest.mark.parametrize("threads", [1, 2])
def test_query_radius_all_threads_match_brute(threads):
    rng = np.random.default_rng(5)
    pts = np.round(rng.random((9000, 2)) * 60.0, 1)  # ties
    h = SpatialHash(pts, 1.0)
    off, idx = h.query_radius_all(1.0, threads=threads)
    for i in range(0, len(pts), 97):
        assert idx[off[i]:off[i + 1]].tolist() == brute_radius(pts, pts[i], 1.0, i).tolist()
    off1, idx1 = h.query_radius_all(1.0, threads=1)
    assert np.array_equal(off, off1) and np.array_equal(idx, idx1)


@pytest.mark.parametrize("threads", [1, 2])
def test_dense_clusters_grow_the_buffers(threads):
    """A cluster far denser than the first query's guess (12 neighbours a point):
    the append buffers and the scratch grow mid-pass and the answer stays exact,
    then a sparse query on the same object reuses them."""
    rng = np.random.default_rng(8)
    dense = rng.random((6000, 2)) * 3.0  # ~6000 points within a few metres
    sparse = rng.random((3000, 2)) * 400.0 + 10.0
    pts = np.concatenate([dense, sparse])
    h = SpatialHash(pts, 1.0)
    for r in (2.0, 0.5, 2.5):
        off, idx = h.query_radius_all(r, threads=threads)
        for i in list(range(0, 6000, 613)) + list(range(6000, len(pts), 211)):
            assert idx[off[i]:off[i + 1]].tolist() == brute_radius(pts, pts[i], r, i).tolist()
