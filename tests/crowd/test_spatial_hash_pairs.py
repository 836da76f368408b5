"""``SpatialHash.query_radius_all``'s pair passes (half stencil of cells, pairs
outside the stencil, thread ranges of cell rows and their spill) against
brute force and scipy's cKDTree, and one thread against two, in this process
and under ``NUMBA_NUM_THREADS=1``."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import cKDTree

from navkit.crowd import SpatialHash
from tests.crowd.oracle import radius_keys

ROOT = Path(__file__).resolve().parents[2]


def brute_rows(pts: np.ndarray, r: float, which=None) -> dict[int, list[int]]:
    out = {}
    for i in range(len(pts)) if which is None else which:
        d2, rr = radius_keys(pts, pts[i], r)
        j = np.flatnonzero(d2 <= rr)
        j = j[j != i]
        out[int(i)] = j[np.lexsort((j, d2[j]))].tolist()
    return out


def check(pts: np.ndarray, off: np.ndarray, idx: np.ndarray, r: float, which=None) -> None:
    assert off.dtype == np.int64 and idx.dtype == np.int32 and off[-1] == len(idx)
    for i, want in brute_rows(pts, r, which).items():
        assert idx[off[i]:off[i + 1]].tolist() == want, i


def sample(n: int, step: int) -> list[int]:
    return list(range(0, n, step)) + [n - 1]


# r / cell: stencil half-width 1 (r == cell: points on cell borders have query
# boxes one cell past the stencil), 1 with most boxes past it (1.4), 2 and 3
@pytest.mark.parametrize("cell,r", [(1.0, 1.0), (1.0, 1.4), (0.5, 1.0), (0.4, 1.1), (2.0, 1.0)])
def test_two_row_ranges_match_one_and_brute(cell, r):
    rng = np.random.default_rng(11)
    n = 12_000
    side = float(np.sqrt(n * np.pi / 10.0))
    pts = rng.random((n, 2)) * side
    pts[::3] = np.round(pts[::3] / cell) * cell  # a third exactly on cell borders
    pts[1::7] = pts[::7][:len(pts[1::7])]  # duplicates
    h = SpatialHash(pts, cell)
    nx, nz = int(h._dims[0]), int(h._dims[1])
    k = h._stencil(r)
    assert len(h._row_split(2, nx, nz, k)) == 2  # the spill path runs
    off2, idx2 = h.query_radius_all(r, threads=2)
    off1, idx1 = h.query_radius_all(r, threads=1)
    assert np.array_equal(off1, off2) and np.array_equal(idx1, idx2)
    tree = cKDTree(pts)
    counts = np.array([len(x) - 1 for x in tree.query_ball_point(pts, r)])
    np.testing.assert_array_equal(np.diff(off1), counts)
    # every point of the rows around the thread border, and a sample elsewhere
    cut = h._row_split(2, nx, nz, k)[0][1]
    zrow = np.minimum(((pts[:, 1] - h._geom[1]) / h.cell_size).astype(np.int64), nz - 1)
    near = np.flatnonzero(np.abs(zrow - cut) <= k + 1)
    check(pts, off1, idx1, r, sorted(set(near.tolist()) | set(sample(n, 101))))


def test_many_thread_ranges(monkeypatch):
    """Four row ranges (more than the machine's cores): the same answer."""
    import navkit.crowd.spatial_hash as shm

    monkeypatch.setattr(shm, "max_threads", lambda: 4)
    rng = np.random.default_rng(12)
    pts = np.round(rng.random((20_000, 2)) * 80.0, 1)  # ties and cell-border points
    h = SpatialHash(pts, 1.0)
    nx, nz = int(h._dims[0]), int(h._dims[1])
    assert len(h._row_split(4, nx, nz, 1)) == 4
    off4, idx4 = h.query_radius_all(1.0, threads=4)
    off1, idx1 = h.query_radius_all(1.0, threads=1)
    assert np.array_equal(off1, off4) and np.array_equal(idx1, idx4)
    check(pts, off1, idx1, 1.0, sample(len(pts), 89))


def test_row_split_falls_back_to_one_range():
    """Too few rows for the stencil (every range needs k + 1 rows): one range."""
    pts = np.random.default_rng(2).random((9000, 2)) * [400.0, 3.0]
    h = SpatialHash(pts, 1.0)
    nx, nz = int(h._dims[0]), int(h._dims[1])
    assert nz <= 4 and h._row_split(2, nx, nz, 2) == [(0, nz)]
    off2, idx2 = h.query_radius_all(2.0, threads=2)
    off1, idx1 = h.query_radius_all(2.0, threads=1)
    assert np.array_equal(off1, off2) and np.array_equal(idx1, idx2)
    check(pts, off1, idx1, 2.0, sample(len(pts), 97))


@pytest.mark.parametrize("pts", [np.zeros((0, 2)), np.array([[3.0, -2.0]]),
                                 np.array([[1.0, 1.0]] * 5),
                                 np.array([[0.0, 0.0], [1e-300, 0.0], [1e12, -1e12],
                                           [1e12, -1e12]]),
                                 np.array([[-1e149, 0.0], [1e149, 1.0], [0.0, 0.0], [0.5, 0.0]])])
@pytest.mark.parametrize("r", [0.0, 1.0, 1e13])
def test_small_and_spread_sets(pts, r):
    h = SpatialHash(pts, 1.0)
    for reuse in (False, True):
        off, idx = h.query_radius_all(r, reuse=reuse)
        check(pts, off, idx, r)


coord = st.one_of(st.integers(-12, 12).map(lambda v: v * 0.25),
                  st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False))


@settings(max_examples=60, deadline=None)
@given(pts=st.lists(st.tuples(coord, coord), min_size=1, max_size=80),
       cell=st.sampled_from([0.25, 0.3, 0.5, 0.7, 1.0, 1.5]),
       r=st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, 1.0000001, 1.4, 2.0]))
def test_borders_and_ties_match_brute(pts, cell, r):
    """Points on a quarter-metre lattice (on cell borders, exactly r apart,
    duplicated) or anywhere: every stencil width, boxes past the stencil."""
    p = np.array(pts, dtype=np.float64)
    off, idx = SpatialHash(p, cell).query_radius_all(r)
    check(p, off, idx, r)


def _digest(off: np.ndarray, idx: np.ndarray) -> str:
    return hashlib.sha256(off.tobytes() + idx.tobytes()).hexdigest()


_CHILD = """
import hashlib, json, sys
import numpy as np
from navkit.crowd import SpatialHash
from navkit.query.fanout import max_threads
rng = np.random.default_rng(31)
pts = np.round(rng.random((30_000, 2)) * 97.0, 2)
off, idx = SpatialHash(pts, 1.0).query_radius_all(1.0)
print(json.dumps([max_threads(), hashlib.sha256(off.tobytes() + idx.tobytes()).hexdigest()]))
"""


def test_numba_num_threads_one_gives_the_same_arrays():
    """A process with ``NUMBA_NUM_THREADS=1`` answers bit for bit like two
    row ranges here."""
    rng = np.random.default_rng(31)
    pts = np.round(rng.random((30_000, 2)) * 97.0, 2)
    h = SpatialHash(pts, 1.0)
    nx, nz = int(h._dims[0]), int(h._dims[1])
    assert len(h._row_split(2, nx, nz, 1)) == 2
    here = _digest(*h.query_radius_all(1.0, threads=2))
    env = dict(os.environ, NUMBA_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                         text=True, check=True, cwd=ROOT)
    threads, child = json.loads(out.stdout.strip().splitlines()[-1])
    assert threads == 1
    assert child == here


@pytest.mark.parametrize("cell,r", [(1.0, 1.0), (1.0, 1.4), (0.5, 1.2)])
def test_a_row_range_writes_only_its_runs(cell, r):
    """The kernels one range at a time: range 0's fill moves the cursors of
    its own slots and the second runs (``cur2``) of range 1's first k + 1
    rows only, never range 1's own runs, so the two ranges can run at once."""
    from navkit._kernels import spatial_hash as _k

    rng = np.random.default_rng(13)
    pts = rng.random((6000, 2)) * 40.0
    pts[::2] = np.round(pts[::2] / cell) * cell  # cell borders: query boxes past the stencil
    h = SpatialHash(pts, cell)
    n = len(pts)
    nx, nz = int(h._dims[0]), int(h._dims[1])
    k = h._stencil(r)
    (z0, z1), (_, z2) = h._row_split(2, nx, nz, k)
    rstart, ostart = np.zeros(n, np.int64), np.zeros(n, np.int64)
    cur, cur2 = np.zeros(n, np.int64), np.zeros(n, np.int64)
    wide, ecnt = np.zeros(n, np.uint8), np.zeros(n, np.int32)
    grid = (r, k, h._geom, h._dims, h._cell_start, h._spos)
    # range 1 first: its runs do not depend on range 0 having run
    size1 = int(_k.pair_runs(*grid, z1, z2, ecnt, rstart, ostart, cur, cur2, wide))
    size0 = int(_k.pair_runs(*grid, z0, z1, ecnt, rstart, ostart, cur, cur2, wide))
    assert wide.sum() > 0
    buf = np.full(size0 + size1, -1, np.int32)
    split_slot = int(h._cell_start[z1 * nx])
    second_end = int(h._cell_start[min(z1 + k + 1, nz) * nx])
    _k.pair_fill(*grid, z0, z1, wide, buf, 0, size0, cur, cur2)
    assert np.array_equal(cur[split_slot:], ostart[split_slot:])  # range 1's own runs untouched
    assert np.array_equal(cur2[:split_slot], rstart[:split_slot])
    assert np.array_equal(cur2[second_end:], rstart[second_end:])
    assert (cur2[split_slot:second_end] > rstart[split_slot:second_end]).any()
    assert (cur2 <= ostart).all()  # second runs stay in their room
    ends = np.append(rstart[split_slot + 1:], size1)
    for s in range(split_slot, n):  # range 1's own runs unwritten
        assert (buf[size0 + ostart[s]:size0 + ends[s - split_slot]] == -1).all()
    _k.pair_fill(*grid, z1, z2, wide, buf, size0, size0 + size1, cur, cur2)
    off = np.zeros(n + 1, np.int64)
    soff = np.zeros(n, np.int64)
    total, widest = _k.pair_offsets(h._order, rstart, ostart, cur, cur2, off, soff)
    idx = np.zeros(total, np.int32)
    tmp = (np.zeros(widest + 1, np.int32), np.zeros(widest + 1, np.float64))
    _k.pair_emit(h._spos, h._order, rstart, ostart, cur, cur2, soff, buf, 0, split_slot, idx, *tmp)
    _k.pair_emit(h._spos, h._order, rstart, ostart, cur, cur2, soff, buf[size0:], split_slot, n,
                 idx, *tmp)
    check(pts, off, idx, r, sample(n, 37))
    o1, i1 = h.query_radius_all(r, threads=1)
    assert np.array_equal(o1, off) and np.array_equal(i1, idx)


def _ranges_by_hand(pts: np.ndarray, cell: float, r: float, cuts: list[int]):
    """query_radius_all's kernels over the row ranges split at ``cuts``, each
    range's runs sized before any other range ran; buffers sized exactly."""
    from navkit._kernels import spatial_hash as _k

    h = SpatialHash(pts, cell)
    n = len(pts)
    nx, nz = int(h._dims[0]), int(h._dims[1])
    k = h._stencil(r)
    bounds = [0, *cuts, nz]
    rows = list(zip(bounds[:-1], bounds[1:], strict=True))
    assert all(b - a >= k + 1 for a, b in rows)
    rstart, ostart = np.zeros(n, np.int64), np.zeros(n, np.int64)
    cur, cur2 = np.zeros(n, np.int64), np.zeros(n, np.int64)
    wide, ecnt = np.zeros(n, np.uint8), np.zeros(n, np.int32)
    grid = (r, k, h._geom, h._dims, h._cell_start, h._spos)
    sizes = [int(_k.pair_runs(*grid, a, b, ecnt, rstart, ostart, cur, cur2, wide))
             for a, b in reversed(rows)][::-1]
    base = [sum(sizes[:t]) for t in range(len(rows) + 1)]
    buf = np.zeros(base[-1], np.int32)
    for t, (a, b) in enumerate(rows):
        _k.pair_fill(*grid, a, b, wide, buf, base[t], base[t + 1], cur, cur2)
    off = np.zeros(n + 1, np.int64)
    soff = np.zeros(n, np.int64)
    total, widest = _k.pair_offsets(h._order, rstart, ostart, cur, cur2, off, soff)
    idx = np.zeros(total, np.int32)
    tmp = (np.zeros(widest + 1, np.int32), np.zeros(widest + 1, np.float64))
    for t, (a, b) in enumerate(rows):
        _k.pair_emit(h._spos, h._order, rstart, ostart, cur, cur2, soff, buf[base[t]:],
                     int(h._cell_start[a * nx]), int(h._cell_start[b * nx]), idx, *tmp)
    return off, idx


def test_runs_hold_pairs_from_past_the_stencil_below_a_range():
    """Tight runs: every point of a cluster's stencil is its neighbour, and a
    cluster one row under the next range's first row (its query box two rows
    up, past its stencil) adds its points to them. The next range must count
    those pairs for its runs (they are found by the range below)."""
    a = np.array([[5.5, 5.9]] * 5)  # row 5, box up to row 7
    b = np.array([[5.5, 7.05]] * 3)  # row 7: 1.15 m from a, two rows up
    corners = np.array([[0.0, 0.0], [12.0, 12.0]])
    pts = np.concatenate([corners, a, b, a + [3.0, 0.0], b + [3.1, 0.0]])
    for cuts in ([6], [7], [3, 6], [5, 9]):
        off, idx = _ranges_by_hand(pts, 1.0, 1.4, cuts)
        check(pts, off, idx, 1.4)
    off, idx = SpatialHash(pts, 1.0).query_radius_all(1.4)
    check(pts, off, idx, 1.4)


@pytest.mark.parametrize("threads", [1, 2])
def test_dense_cells_keep_the_pair_buffer_small(threads):
    """20,000 points in one cell (cell 1 km, r 5 cm): the runs hold the
    neighbours, not every candidate (20,000 each, 1.6 GB)."""
    rng = np.random.default_rng(14)
    pts = rng.random((20_000, 2)) * 50.0
    pts[:40] = pts[40:80]  # duplicates
    h = SpatialHash(pts, 1000.0)
    assert h.shape == (1, 1)
    off, idx = h.query_radius_all(0.05, threads=threads)
    assert h._pairs.shape[0] < 4 * (len(idx) + len(pts)) + 1000
    tree = cKDTree(pts)
    want = [len(x) - 1 for x in tree.query_ball_point(pts, 0.05)]
    np.testing.assert_array_equal(np.diff(off), want)
    check(pts, off, idx, 0.05, sample(len(pts), 211) + list(range(80)))


def test_pair_kernels_agree_without_jit():
    """The pair kernels as plain Python (``NUMBA_DISABLE_JIT=1``) give the
    compiled answer: lattice ties, cell-border points, two row ranges."""
    from tests.jitcheck import assert_same_without_jit

    assert_same_without_jit(
        "import hashlib, numpy as np\n"
        "from navkit.crowd import SpatialHash\n"
        "rng = np.random.default_rng(3)\n"
        "pts = np.round(rng.random((700, 2)) * 9.0, 1)\n"
        "for cell, r in ((1.0, 1.0), (0.5, 1.3), (2.0, 0.7), (1.0, 1.45)):\n"
        "    h = SpatialHash(pts, cell)\n"
        "    for t in (1, 2):\n"
        "        off, idx = h.query_radius_all(r, threads=t)\n"
        "        print(cell, r, t, hashlib.sha256(off.tobytes() + idx.tobytes()).hexdigest())\n"
        "from tests.crowd.test_spatial_hash_pairs import _ranges_by_hand\n"
        "for cell, r, cuts in ((1.0, 1.45, [3, 6]), (0.5, 1.0, [7])):\n"
        "    off, idx = _ranges_by_hand(pts, cell, r, cuts)\n"
        "    print(cuts, hashlib.sha256(off.tobytes() + idx.tobytes()).hexdigest())\n")
