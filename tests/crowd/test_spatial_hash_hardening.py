"""SpatialHash under hostile use: shared between threads, huge k, tiny distances.

Oracles: the same queries on one thread (threads), exact rational arithmetic
(``fractions.Fraction``: tiny distances), and the error contract (a navkit
error naming the argument).
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from navkit.crowd import SpatialHash
from navkit.errors import NavkitError, QueryError

ROOT = Path(__file__).resolve().parents[2]

#: Eight threads share one hash and ask every query many times; each answer is
#: compared with the one the main thread got alone first. Before the hash had
#: its lock, query_radius / knn answered wrong and query_radius_all crashed the
#: process (glibc: free(): invalid next size), hence a child process.
_CHILD = """
import hashlib, json, threading
import numpy as np
from navkit.crowd import SpatialHash

rng = np.random.default_rng(5)
pts = np.round(rng.random((6000, 2)) * 60.0, 1)
h = SpatialHash(pts, 1.0)
queries = rng.random((40, 2)) * 60.0

def digest(*arrays):
    return hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)).hexdigest()

def answers(t):
    out = []
    for q in queries[t % 4::4]:
        out.append(digest(h.query_radius(q, 1.5 + t % 3)))
        out.append(digest(h.knn(q, 5 + t)))
    out.append(digest(*h.query_radius_all(0.8 + 0.1 * (t % 3), threads=1 + t % 2)))
    out.append(digest(h.knn_all(2 + t % 3)))
    return out

want = [answers(t) for t in range(8)]
bad = []

def work(t):
    for _ in range(6):
        if answers(t) != want[t]:
            bad.append(t)

threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
for th in threads:
    th.start()
for th in threads:
    th.join()
print(json.dumps(sorted(set(bad))))
"""


def test_shared_between_threads_answers_as_alone():
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                         text=True, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_rebuild_in_one_thread_while_others_query():
    """A rebuild (other points, other n) waits for the queries and they for it:
    every answer is one of the two point sets' answers, never a mix."""
    import threading

    rng = np.random.default_rng(8)
    a = rng.random((3000, 2)) * 40.0
    b = rng.random((2000, 2)) * 30.0
    h = SpatialHash(a, 1.0)
    ok = {tuple(SpatialHash(p, 1.0).query_radius((15.0, 15.0), 2.0).tolist()) for p in (a, b)}
    bad: list[object] = []

    def query() -> None:
        for _ in range(300):
            got = tuple(h.query_radius((15.0, 15.0), 2.0).tolist())
            if got not in ok:
                bad.append(got)

    def flip() -> None:
        for i in range(100):
            h.rebuild(b if i % 2 == 0 else a)

    ts = [threading.Thread(target=query) for _ in range(3)] + [threading.Thread(target=flip)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad


@pytest.mark.parametrize("k", [2**63, 2**31, 10**30])
def test_knn_all_huge_k_is_a_query_error(k):
    h = SpatialHash(np.array([[0.0, 0.0], [1.0, 0.0]]), 1.0)
    with pytest.raises(QueryError, match="^k: "):
        h.knn_all(k)
    assert h.knn((0.0, 0.0), k).tolist() == [0, 1]  # knn answers min(k, n)
    assert h.knn_all(3).tolist() == [[1, -1, -1], [0, -1, -1]]
    empty = SpatialHash(np.zeros((0, 2)), 1.0)
    with pytest.raises(NavkitError, match="^k: "):
        empty.knn_all(k)


def _exact_radius(pts: np.ndarray, p, r: float, exclude: int = -1) -> list[int]:
    """Points with d**2 <= r**2, by (d**2, index): the coordinate differences
    as float64 subtracts them (as every float brute force does), their
    squares and sums in rational arithmetic (no rounding, no underflow)."""
    px, pz = (float(v) for v in p)
    rr = Fraction(float(r)) ** 2
    keys = []
    for i, (x, z) in enumerate(pts.tolist()):
        d2 = Fraction(x - px) ** 2 + Fraction(z - pz) ** 2
        if d2 <= rr and i != exclude:
            keys.append((d2, i))
    return [i for _, i in sorted(keys)]


def test_radius_zero_answers_only_coincident_points():
    """The hostile-input case: a point 1e-300 m away is not within radius 0
    (its squared distance used to round to 0)."""
    pts = np.array([[0.0, 0.0], [1e-300, 0.0], [0.0, 0.0], [0.0, -5e-324], [3.0, 0.0]])
    h = SpatialHash(pts, 1.0)
    assert h.query_radius((0.0, 0.0), 0.0).tolist() == [0, 2]
    assert h.query_radius((1e-300, 0.0), 0.0).tolist() == [1]
    off, idx = h.query_radius_all(0.0)
    assert [idx[off[i]:off[i + 1]].tolist() for i in range(len(pts))] == [[2], [], [0], [], []]
    for i in range(len(pts)):
        assert idx[off[i]:off[i + 1]].tolist() == _exact_radius(pts, pts[i], 0.0, i)


@pytest.mark.parametrize("r", [0.0, 5e-324, 1e-310, 3e-300, 1e-200, 1e-150, 2.0**-401])
@pytest.mark.parametrize("cell", [1.0, 1e-300])
@pytest.mark.parametrize("unit", [2.0**-1000, 5e-324])
def test_tiny_radii_equal_exact_arithmetic(r, cell, unit):
    """Points on a lattice of 2**-1000 m (about 9e-302 m: its squares lie far
    below the float range) or of the smallest subnormal: every radius answer,
    point and batch, equals rational arithmetic, order included (on these
    lattices float64 differences, squares and sums of the scaled coordinates
    are exact; before, every square rounded to zero)."""
    rng = np.random.default_rng(3)
    pts = rng.integers(-40, 40, size=(60, 2)).astype(np.float64) * unit
    pts[:3] = [[0.0, 0.0], [0.0, 0.0], [unit, -unit]]
    h = SpatialHash(pts, cell)
    for q in (pts[0], pts[2], (unit * 0.5 if unit > 5e-324 else unit, 0.0)):
        assert h.query_radius(q, r).tolist() == _exact_radius(pts, q, r)
    for reuse in (False, True):
        off, idx = h.query_radius_all(r, reuse=reuse)
        for i in range(len(pts)):
            assert idx[off[i]:off[i + 1]].tolist() == _exact_radius(pts, pts[i], r, i)
