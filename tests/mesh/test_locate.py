"""Point location, nearest point and raycast on meshes of random free spaces.

Oracles: shapely (exact point predicates) on the free space and on each
polygon of the mesh; for segments, exact rational arithmetic (shapely's
``covers`` of a segment that starts on the boundary is not robust). Free
spaces are a box minus random rectangles on a half-metre grid, so points and
rays meet vertices and edges exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st

from navkit.errors import QueryError
from navkit.mesh.build import triangulate
from navkit.mesh.locate import (
    is_walkable,
    locate,
    locate_many,
    nearest_point,
    nearest_point_in_region,
    raycast,
)
from tests.conftest import fixed

W, H = 20.0, 14.0

rects = st.lists(
    st.tuples(st.integers(-2, 39), st.integers(-2, 27), st.integers(1, 10), st.integers(1, 10)),
    max_size=10,
)


def make_space(rs: list[tuple[int, int, int, int]]) -> shapely.Geometry:
    """The box ``[0, W] x [0, H]`` minus rectangles (half-metre units)."""
    space = shapely.box(0, 0, W, H)
    holes = [shapely.box(x / 2, z / 2, (x + w) / 2, (z + h) / 2) for x, z, w, h in rs]
    if holes:
        space = space.difference(shapely.union_all(holes))
    return shapely.make_valid(space)


def build(rs: list[tuple[int, int, int, int]]):  # type: ignore[no-untyped-def]
    space = make_space(rs)
    if space.is_empty or space.area < 1.0:
        return None, None, None
    arrays = triangulate(space)
    polys = np.array([shapely.Polygon(p) for p in arrays.polygons()], dtype=object)
    shapely.prepare(space)
    shapely.prepare(polys)
    return space, arrays, polys


def sample_points(space: shapely.Geometry, arrays, rng: np.random.Generator,  # type: ignore[no-untyped-def]
                  n: int) -> np.ndarray:
    """Uniform points over a box a little larger than the space, every vertex,
    points on edges (on the half-metre grid and interpolated), grid points."""
    parts = [rng.uniform([-1, -1], [W + 1, H + 1], size=(n, 2)),
             arrays.vertices,
             rng.integers(-2, 2 * int(W) + 3, size=(n, 2)) / 2.0]
    v = arrays.vertices
    e0 = arrays.poly_verts
    e1 = np.roll(arrays.poly_verts, -1)
    e1[arrays.poly_start[1:] - 1] = arrays.poly_verts[arrays.poly_start[:-1]]
    pick = rng.integers(0, len(e0), size=n)
    t = rng.uniform(0, 1, size=(n, 1))
    parts.append(v[e0[pick]] + t * (v[e1[pick]] - v[e0[pick]]))
    parts.append(0.5 * (v[e0[pick]] + v[e1[pick]]))
    return np.concatenate(parts)


def oracle_locate(polys: np.ndarray, pts: np.ndarray) -> np.ndarray:
    cov = shapely.covers(polys[:, None], shapely.points(pts)[None, :])
    first = np.argmax(cov, axis=0)
    return np.where(cov.any(axis=0), first, -1)


@fixed(100)
@given(rs=rects, seed=st.integers(0, 2**31 - 1))
def test_locate_matches_shapely(rs: list[tuple[int, int, int, int]], seed: int) -> None:
    space, arrays, polys = build(rs)
    if space is None:
        return
    rng = np.random.default_rng(seed)
    pts = sample_points(space, arrays, rng, 60)
    want = oracle_locate(polys, pts)
    got = locate_many(arrays, pts)
    assert got.dtype == np.int32 and got.shape == (len(pts),)
    bad = np.nonzero(got != want)[0]
    assert len(bad) == 0, (pts[bad[:5]].tolist(), got[bad[:5]].tolist(), want[bad[:5]].tolist())
    # the union of the polygons is the free space
    in_space = shapely.covers(space, shapely.points(pts))
    np.testing.assert_array_equal(got >= 0, in_space)
    for i in range(0, len(pts), 17):
        assert locate(arrays, *pts[i]) == want[i]
        assert is_walkable(arrays, *pts[i]) == (want[i] >= 0)


@fixed(100)
@given(rs=rects, seed=st.integers(0, 2**31 - 1),
       max_dist=st.sampled_from([0.0, 0.3, 2.0, math.inf]))
def test_nearest_point_matches_shapely(rs: list[tuple[int, int, int, int]], seed: int,
                                       max_dist: float) -> None:
    space, arrays, polys = build(rs)
    if space is None:
        return
    rng = np.random.default_rng(seed)
    pts = np.concatenate([rng.uniform([-8, -8], [W + 8, H + 8], size=(25, 2)),
                          sample_points(space, arrays, rng, 3)[::7],
                          [[-300.0, 5.0], [W / 2, 1e4]]])
    dist_poly = shapely.distance(polys[:, None], shapely.points(pts)[None, :])
    for i, (x, z) in enumerate(pts):
        d = float(space.distance(shapely.Point(x, z)))
        p, qx, qz = nearest_point(arrays, float(x), float(z), max_dist)
        if d > max_dist + 1e-9:
            assert p == -1 and math.isnan(qx) and math.isnan(qz)
            continue
        if d >= max_dist - 1e-9 and p == -1:
            continue  # on the limit: either answer is right
        assert p >= 0, (x, z, d)
        assert abs(math.hypot(qx - x, qz - z) - d) <= 1e-9
        assert float(polys[p].distance(shapely.Point(qx, qz))) <= 1e-9
        if d == 0.0:
            assert (qx, qz) == (x, z)
        # no lower polygon is notably closer (ties go to the lowest)
        assert np.all(dist_poly[:p, i] >= d - 1e-9)
        assert abs(dist_poly[p, i] - d) <= 1e-9


@fixed(50)
@given(rs=rects, seed=st.integers(0, 2**31 - 1))
def test_nearest_point_in_region(rs: list[tuple[int, int, int, int]], seed: int) -> None:
    space, arrays, polys = build(rs)
    if space is None:
        return
    rng = np.random.default_rng(seed)
    regions = np.unique(arrays.poly_region)
    for x, z in rng.uniform([-3, -3], [W + 3, H + 3], size=(8, 2)):
        for r in regions:
            members = np.nonzero(arrays.poly_region == r)[0]
            dists = shapely.distance(polys[members], shapely.Point(x, z))
            d = float(dists.min())
            p, qx, qz = nearest_point_in_region(arrays, float(x), float(z), int(r))
            assert arrays.poly_region[p] == r
            assert abs(math.hypot(qx - x, qz - z) - d) <= 1e-9
            assert float(polys[p].distance(shapely.Point(qx, qz))) <= 1e-9
            assert np.all(dists[members < p] >= d - 1e-9)
    assert nearest_point_in_region(arrays, 1.0, 1.0, int(regions.max()) + 1)[0] == -1


def _rings(space: shapely.Geometry) -> list[tuple[list[tuple[Fraction, Fraction]], list]]:
    """Each polygon of the space as (exterior, holes), vertices as exact fractions."""
    out = []
    for poly in getattr(space, "geoms", [space]):
        def ring(r: shapely.LinearRing) -> list[tuple[Fraction, Fraction]]:
            return [(Fraction(x), Fraction(z)) for x, z in np.asarray(r.coords)[:-1]]
        out.append((ring(poly.exterior), [ring(h) for h in poly.interiors]))
    return out


def _on_ring(ring: list, px: Fraction, pz: Fraction) -> bool:
    n = len(ring)
    for i in range(n):
        (ax, az), (bx, bz) = ring[i], ring[(i + 1) % n]
        if (bx - ax) * (pz - az) - (bz - az) * (px - ax) == 0 and \
                min(ax, bx) <= px <= max(ax, bx) and min(az, bz) <= pz <= max(az, bz):
            return True
    return False


def _inside_ring(ring: list, px: Fraction, pz: Fraction) -> bool:
    """Strictly inside (the point is not on the ring): crossing parity."""
    inside = False
    n = len(ring)
    for i in range(n):
        (ax, az), (bx, bz) = ring[i], ring[(i + 1) % n]
        if (az > pz) != (bz > pz):
            x = ax + (pz - az) * (bx - ax) / (bz - az)
            if x > px:
                inside = not inside
    return inside


def exact_covers_point(rings: list, px: Fraction, pz: Fraction) -> bool:
    """True when the closed free space holds the point (exact arithmetic)."""
    for ext, holes in rings:
        if _on_ring(ext, px, pz) or any(_on_ring(h, px, pz) for h in holes):
            return True
        if _inside_ring(ext, px, pz) and not any(_inside_ring(h, px, pz) for h in holes):
            return True
    return False


def leave_fraction(rings: list, a: np.ndarray, b: np.ndarray) -> float:
    """The largest t in [0, 1] such that the segment a -> a + t (b - a) lies in
    the closed free space, exactly: the segment is cut where it meets the
    boundary, and each piece is in or out as its midpoint is."""
    ax, az, bx, bz = (Fraction(float(c)) for c in (a[0], a[1], b[0], b[1]))
    dx, dz = bx - ax, bz - az
    if dx == 0 and dz == 0:
        return 1.0 if exact_covers_point(rings, ax, az) else 0.0
    ts = {Fraction(0), Fraction(1)}
    for ext, holes in rings:
        for ring in [ext, *holes]:
            n = len(ring)
            for i in range(n):
                (cx, cz), (ex, ez) = ring[i], ring[(i + 1) % n]
                ex, ez = ex - cx, ez - cz
                den = dx * ez - dz * ex
                wx, wz = cx - ax, cz - az
                if den != 0:
                    t = (wx * ez - wz * ex) / den
                    s = (wx * dz - wz * dx) / den
                    if 0 <= t <= 1 and 0 <= s <= 1:
                        ts.add(t)
                elif wx * dz - wz * dx == 0:  # collinear: the edge's ends
                    dd = dx * dx + dz * dz
                    for qx, qz in ((wx, wz), (wx + ex, wz + ez)):
                        t = (qx * dx + qz * dz) / dd
                        if 0 <= t <= 1:
                            ts.add(t)
    order = sorted(ts)
    if not exact_covers_point(rings, ax, az):
        return 0.0
    for t0, t1 in zip(order, order[1:], strict=False):
        m = (t0 + t1) / 2
        if not exact_covers_point(rings, ax + m * dx, az + m * dz):
            return float(t0)
    return 1.0


@fixed(100)
@given(rs=rects, seed=st.integers(0, 2**31 - 1))
def test_raycast_matches_shapely(rs: list[tuple[int, int, int, int]], seed: int) -> None:
    space, arrays, polys = build(rs)
    if space is None:
        return
    rng = np.random.default_rng(seed)
    rings = _rings(space)
    pts = sample_points(space, arrays, rng, 20)
    starts = pts[shapely.covers(space, shapely.points(pts))]
    ends = np.concatenate([pts, rng.uniform([-2, -2], [W + 2, H + 2], size=(20, 2))])
    v = arrays.vertices
    for _ in range(25):
        a = starts[rng.integers(len(starts))]
        kind = rng.integers(4)
        if kind == 0:  # through a vertex, on and beyond it
            w = v[rng.integers(len(v))]
            b = a + (w - a) * rng.choice([1.0, 2.0, 3.0])
        elif kind == 1:  # along a grid line (slides along walls)
            b = a.copy()
            b[rng.integers(2)] += rng.choice([-1, 1]) * rng.integers(1, 30) / 2.0
        else:
            b = ends[rng.integers(len(ends))]
        covering = np.nonzero(shapely.covers(polys, shapely.Point(a)))[0]
        want_t = leave_fraction(rings, a, b)
        clear = want_t == 1.0 and exact_covers_point(rings, Fraction(b[0]), Fraction(b[1]))
        results = [raycast(arrays, float(a[0]), float(a[1]), sp, float(b[0]), float(b[1]))
                   for sp in (-1, int(covering[-1]))]
        for hit, t, hx, hz, last in results:
            assert hit == (not clear), (a.tolist(), b.tolist(), t, want_t)
            assert 0.0 <= t <= 1.0
            if clear:
                assert (t, hx, hz) == (1.0, float(b[0]), float(b[1]))
                assert polys[last].covers(shapely.Point(b))
            else:
                assert abs(t - want_t) <= 1e-9, \
                    (a.tolist(), b.tolist(), t, want_t)
                h = a + t * (b - a)
                assert math.hypot(hx - h[0], hz - h[1]) <= 1e-9
                assert float(polys[last].distance(shapely.Point(hx, hz))) <= 1e-9


def test_raycast_start_checks() -> None:
    space, arrays, polys = build([(10, 10, 4, 4)])
    assert raycast(arrays, -1.0, -1.0, -1, 1.0, 1.0)[::4] == (True, -1)
    with pytest.raises(QueryError, match="start_poly"):
        raycast(arrays, 1.0, 1.0, arrays.n_polygons, 2.0, 2.0)
    far = int(np.argmax(shapely.distance(polys, shapely.Point(1.0, 1.0))))
    with pytest.raises(QueryError, match="start_poly"):
        raycast(arrays, 1.0, 1.0, far, 2.0, 2.0)
    with pytest.raises(QueryError, match="xz"):
        locate_many(arrays, np.zeros((3, 3)))
    with pytest.raises(QueryError, match="max_dist"):
        nearest_point(arrays, 1.0, 1.0, -1.0)
