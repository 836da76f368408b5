"""The Detour-style baseline: A* over polygons plus the simple stupid funnel.

Oracles: every segment of a path is checked against the free space in exact
rational arithmetic (:func:`tests.mesh.test_locate.leave_fraction`, with a
1e-7 m allowance), and the length against the shortest path of a visibility
graph (shapely ``covers`` on the space grown by 1e-9 m, so that segments
between boundary vertices are not wrongly refused, plus scipy's Dijkstra).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from navkit.errors import QueryError
from navkit.mesh.build import triangulate
from navkit.mesh.funnel import FunnelSearch
from navkit.mesh.locate import locate
from tests.conftest import fixed
from tests.mesh.test_locate import _rings, leave_fraction, make_space, rects

W, H = 20.0, 14.0


def random_space(seed: int, n_rects: int) -> shapely.Geometry:
    """The box ``[0, W] x [0, H]`` minus ``n_rects`` random rectangles."""
    rng = np.random.default_rng(seed)
    holes = []
    for _ in range(n_rects):
        x, z = rng.uniform([-1, -1], [W, H])
        w, h = rng.uniform(0.3, 5.0, size=2)
        holes.append(shapely.box(x, z, x + w, z + h))
    space = shapely.box(0, 0, W, H)
    if holes:
        space = space.difference(shapely.union_all(holes))
    return shapely.make_valid(space)


def visibility_length(space: shapely.Geometry, a: np.ndarray, b: np.ndarray) -> float:
    """Shortest path length from a to b in the closed space (inf when none):
    Dijkstra over a, b and every boundary vertex, joined where they see each other."""
    verts = np.concatenate([shapely.get_coordinates(space), [a, b]])
    verts = np.unique(verts, axis=0)
    ia = int(np.nonzero((verts == a).all(axis=1))[0][0])
    ib = int(np.nonzero((verts == b).all(axis=1))[0][0])
    if ia == ib:
        return 0.0
    grown = space.buffer(1e-9, join_style="mitre")
    shapely.prepare(grown)
    i, j = np.triu_indices(len(verts), k=1)
    segs = shapely.linestrings(np.stack([verts[i], verts[j]], axis=1))
    ok = shapely.covers(grown, segs)
    i, j = i[ok], j[ok]
    w = np.hypot(*(verts[i] - verts[j]).T)
    n = len(verts)
    g = coo_matrix((np.concatenate([w, w]), (np.concatenate([i, j]), np.concatenate([j, i]))),
                   shape=(n, n)).tocsr()
    return float(dijkstra(g, indices=ia)[ib])


def check_path(rings: list, pts: np.ndarray) -> None:
    """Every segment lies in the closed space (1e-7 m allowance)."""
    for p, q in zip(pts[:-1], pts[1:], strict=True):
        t = leave_fraction(rings, p, q)
        if t < 1.0:  # allow a sliver of 1e-7 m
            assert (1.0 - t) * float(np.linalg.norm(q - p)) <= 1e-7, (p.tolist(), q.tolist(), t)


def check_queries(space: shapely.Geometry, seed: int, n_queries: int) -> None:
    arrays = triangulate(space)
    search = FunnelSearch(arrays)
    rings = _rings(space)
    rng = np.random.default_rng(seed + 1)
    cand = rng.uniform([0, 0], [W, H], size=(40, 2))
    cand = np.concatenate([cand[shapely.covers(space, shapely.points(cand))],
                           arrays.vertices[rng.integers(len(arrays.vertices), size=3)]])
    for _ in range(n_queries):
        a = cand[rng.integers(len(cand))]
        b = cand[rng.integers(len(cand))]
        sp = locate(arrays, *a)
        gp = locate(arrays, *b)
        assert sp >= 0 and gp >= 0
        out = search.find(a[0], a[1], sp, b[0], b[1], gp)
        want = visibility_length(space, a, b)
        if out.status == 1:
            assert out.waypoints.shape == (0, 2) and out.length == math.inf
            # unreachable; or joined only through a single point, which the
            # mesh's regions (shared edges) do not cross
            assert not math.isfinite(want) or arrays.poly_region[sp] != arrays.poly_region[gp]
            continue
        assert out.status == 0, (a.tolist(), b.tolist(), want)
        pts = out.waypoints
        assert pts.dtype == np.float64 and pts.ndim == 2 and pts.shape[1] == 2
        assert pts[0].tolist() == a.tolist() and pts[-1].tolist() == b.tolist()
        check_path(rings, pts)
        length = float(np.sum(np.hypot(*np.diff(pts, axis=0).T)))
        assert abs(out.length - length) <= 1e-9 * max(1.0, length)
        assert out.length >= want - 1e-9, (a.tolist(), b.tolist(), out.length, want)
        assert out.expanded >= 0 and out.generated >= out.expanded


@fixed(100)
@given(seed=st.integers(0, 2**31 - 1), n_rects=st.integers(0, 25))
def test_funnel_paths_are_valid_and_not_shorter(seed: int, n_rects: int) -> None:
    space = random_space(seed, n_rects)
    if not space.is_empty and space.area >= 1.0:
        check_queries(space, seed, 4)


@fixed(60)
@given(rs=rects, seed=st.integers(0, 2**31 - 1))
def test_funnel_on_degenerate_spaces(rs: list[tuple[int, int, int, int]], seed: int) -> None:
    """Rectangles on a half-metre grid: collinear corners, touching obstacles."""
    space = make_space(rs)
    if not space.is_empty and space.area >= 1.0:
        check_queries(space, seed, 3)


def far_pair(space: shapely.Geometry) -> tuple[np.ndarray, np.ndarray]:
    """Two free points near opposite corners of the box."""
    grid = np.stack(np.meshgrid(np.linspace(0.01, W - 0.01, 60),
                                np.linspace(0.01, H - 0.01, 40)), axis=-1).reshape(-1, 2)
    free = grid[shapely.covers(space, shapely.points(grid))]
    return free[np.argmin(free.sum(axis=1))], free[np.argmax(free.sum(axis=1))]


def test_funnel_budget_and_bad_input() -> None:
    space = random_space(7, 10)
    arrays = triangulate(space)
    search = FunnelSearch(arrays)
    a, b = far_pair(space)
    sp, gp = locate(arrays, *a), locate(arrays, *b)
    out = search.find(a[0], a[1], sp, b[0], b[1], gp, max_nodes=1)
    assert out.status == 2 and out.waypoints.shape == (0, 2) and out.expanded == 1
    assert search.find(a[0], a[1], sp, b[0], b[1], gp).status == 0
    with pytest.raises(QueryError, match="start_poly"):
        search.find(a[0], a[1], arrays.n_polygons, b[0], b[1], gp)
    with pytest.raises(QueryError, match="goal_poly"):
        search.find(a[0], a[1], sp, b[0], b[1], sp if sp != gp else -1)
    with pytest.raises(QueryError, match="max_nodes"):
        search.find(a[0], a[1], sp, b[0], b[1], gp, max_nodes=0)
    with pytest.raises(QueryError, match="sx"):
        search.find(math.nan, a[1], sp, b[0], b[1], gp)


def test_funnel_unreachable_and_heap_growth() -> None:
    # two rooms with no door: different regions
    space = shapely.MultiPolygon([shapely.box(0, 0, 4, 4), shapely.box(5, 0, 9, 4)])
    arrays = triangulate(space)
    search = FunnelSearch(arrays)
    out = search.find(1.0, 1.0, locate(arrays, 1, 1), 6.0, 1.0, locate(arrays, 6, 1))
    assert out.status == 1 and out.length == math.inf
    # a tiny heap must grow and give the same answer
    space = random_space(3, 12)
    arrays = triangulate(space)
    a, b = far_pair(space)
    sp, gp = locate(arrays, *a), locate(arrays, *b)
    big = FunnelSearch(arrays).find(*a, sp, *b, gp)
    small = FunnelSearch(arrays)
    small._hf = np.zeros(1)
    small._hk = np.zeros(1, dtype=np.int64)
    got = small.find(*a, sp, *b, gp)
    assert got.status == big.status
    np.testing.assert_array_equal(got.waypoints, big.waypoints)
