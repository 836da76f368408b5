"""NavMesh, the facade: snapping, nearest, obstacles, doors, batches, files, bad input.

Oracles: shapely distances and coverage, the visibility-graph reference of
tests/mesh/oracle.py, scipy's Dijkstra on the octile grid graph.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

import navkit
from navkit import ConfigError, NavGrid, NavMesh, QueryError, Status
from navkit.level import parse_level

from .oracle import visibility_length

LEVEL = {
    "agentRadius": 0.3, "objectPadding": 0.1,
    "areas": [
        {"name": "west", "polygon": [[0, 0], [10, 0], [10, 8], [0, 8]]},
        {"name": "door", "polygon": [[9.5, 3], [12.5, 3], [12.5, 5], [9.5, 5]]},
        {"name": "east", "polygon": [[12, 0], [22, 0], [22, 8], [12, 8]]},
        {"name": "island", "polygon": [[30, 0], [34, 0], [34, 4], [30, 4]]},
    ],
    "obstacles": [
        {"name": "block", "polygon": [[4, 2], [6, 2], [6, 6], [4, 6]]},
        {"name": "tri", "polygon": [[15, 1], [18, 4], [15, 6]]},
    ],
}


@pytest.fixture(scope="module")
def mesh() -> NavMesh:
    return NavMesh.from_level(parse_level(LEVEL))


def _inside(space: shapely.Geometry, pts: np.ndarray, tol: float = 1e-7) -> bool:
    grown = space.buffer(tol)
    return all(grown.covers(shapely.LineString(pts[i:i + 2])) for i in range(len(pts) - 1))


def test_exported_from_the_package() -> None:
    assert navkit.NavMesh is NavMesh
    assert navkit.mesh.NavMesh is NavMesh


def test_path_through_the_door_is_the_visibility_optimum(mesh: NavMesh) -> None:
    r = mesh.find_path((1, 1), (20, 7))
    assert r.status == Status.FOUND
    want = visibility_length(mesh.space, (1, 1), (20, 7))
    assert r.length == pytest.approx(want, rel=1e-9)
    assert _inside(mesh.space, r.waypoints)
    assert r.waypoints[0].tolist() == [1, 1] and r.waypoints[-1].tolist() == [20, 7]
    seg = np.diff(r.waypoints, axis=0)
    assert r.length == pytest.approx(float(np.hypot(seg[:, 0], seg[:, 1]).sum()))


def test_funnel_is_valid_and_never_shorter(mesh: NavMesh) -> None:
    rng = np.random.default_rng(3)
    pts = _sample(mesh.space.geoms[0] if hasattr(mesh.space, "geoms") else mesh.space, 60, rng)
    for a, b in zip(pts[::2], pts[1::2], strict=True):
        ex = mesh.find_path(a, b)
        fu = mesh.find_path(a, b, method="funnel")
        assert ex.status == fu.status == Status.FOUND
        assert fu.length >= ex.length - 1e-9
        assert _inside(mesh.space, fu.waypoints)
        assert fu.method == "funnel"


def _sample(space: shapely.Geometry, n: int, rng: np.random.Generator) -> list[tuple[float, float]]:
    x0, z0, x1, z1 = space.bounds
    out: list[tuple[float, float]] = []
    while len(out) < n:
        p = (float(rng.uniform(x0, x1)), float(rng.uniform(z0, z1)))
        if space.covers(shapely.Point(p)):
            out.append(p)
    return out


def test_snapping_and_no_start_no_goal(mesh: NavMesh) -> None:
    # (5, 4) is inside the block: snaps to the nearest free point
    r = mesh.find_path((5, 4), (1, 1))
    assert r.status == Status.FOUND
    # (several free points may be nearest: compare the distance, and that it is on the mesh)
    want = mesh.space.distance(shapely.Point(5, 4))
    assert math.dist(r.waypoints[0], (5, 4)) == pytest.approx(want, abs=1e-9)
    assert mesh.space.buffer(1e-9).covers(shapely.Point(*r.waypoints[0]))
    assert mesh.find_path((-50, -50), (1, 1)).status == Status.NO_START
    assert mesh.find_path((1, 1), (-50, -50)).status == Status.NO_GOAL
    assert mesh.nearest_point((-50, -50)) is None
    assert mesh.nearest_point((-50, -50), radius=100) is not None


def test_unreachable_island_and_nearest(mesh: NavMesh) -> None:
    r = mesh.find_path((1, 1), (32, 2))
    assert r.status == Status.UNREACHABLE and not r.has_path
    n = mesh.find_path_to_nearest((1, 1), (32, 2))
    assert n.status == Status.NEAREST
    main = [g for g in mesh.space.geoms if g.covers(shapely.Point(1, 1))][0]
    want = main.distance(shapely.Point(32, 2))
    assert math.dist(n.waypoints[-1], (32, 2)) == pytest.approx(want, abs=1e-9)
    assert _inside(mesh.space, n.waypoints)


def test_obstacle_circles_are_kept_out_of(mesh: NavMesh) -> None:
    free = mesh.find_path((1, 4), (9, 4))
    circles = np.array([[7.5, 4.0, 0.8], [2.5, 3.0, 0.5]])
    r = mesh.find_path((1, 4), (9, 4), obstacles=circles)
    assert r.status == Status.FOUND
    line = shapely.LineString(r.waypoints)
    for x, z, rad in circles:
        assert line.distance(shapely.Point(x, z)) >= rad - 1e-6
    assert r.length >= free.length - 1e-9
    # bounds: around disks inscribed in the circles (smaller) and around grown ones (larger)
    inner = mesh.space.difference(shapely.union_all(
        [shapely.Point(x, z).buffer(rad, quad_segs=64) for x, z, rad in circles]))
    outer = mesh.space.difference(shapely.union_all(
        [shapely.Point(x, z).buffer(rad * 1.02 + 0.02, quad_segs=64) for x, z, rad in circles]))
    assert visibility_length(inner, (1, 4), (9, 4)) - 1e-6 <= r.length
    assert r.length <= visibility_length(outer, (1, 4), (9, 4)) + 1e-6
    # the same snapshot in another order is the same cut (cached)
    again = mesh.find_path((1, 4), (9, 4), obstacles=circles[::-1])
    assert again.length == r.length


def test_door_closing_reroutes_and_bumps_the_version() -> None:
    m = NavMesh.from_level(parse_level(LEVEL))
    v = m.version
    assert m.find_path((1, 1), (20, 7)).found
    assert m.set_area_available("door", False) is True
    assert m.version == v + 1
    assert m.set_area_available("door", False) is False
    assert m.find_path((1, 1), (20, 7)).status == Status.UNREACHABLE
    fresh = NavMesh.from_level(parse_level(LEVEL).with_area_available("door", False))
    assert m.space.symmetric_difference(fresh.space).area < 1e-9
    m.set_area_available("door", True)
    assert m.find_path((1, 1), (20, 7)).length == pytest.approx(
        NavMesh.from_level(parse_level(LEVEL)).find_path((1, 1), (20, 7)).length, rel=1e-12)


def test_obstacle_polygons_can_be_added_and_removed() -> None:
    m = NavMesh.from_level(parse_level(LEVEL))
    before = m.find_path((1, 7), (9, 7)).length
    m.add_obstacle("crate", [[2, 6], [3, 6], [3, 8], [2, 8]])
    after = m.find_path((1, 7), (9, 7))
    assert after.length > before
    assert after.length == pytest.approx(visibility_length(m.space, (1, 7), (9, 7)), rel=1e-9)
    m.remove_obstacle("crate")
    assert m.find_path((1, 7), (9, 7)).length == pytest.approx(before, rel=1e-12)


def test_batch_equals_single_queries(mesh: NavMesh) -> None:
    rng = np.random.default_rng(9)
    pts = np.array(_sample(mesh.space, 80, rng))
    starts, ends = pts[:40], pts[40:]
    for method in ("exact", "funnel"):
        batch = mesh.find_paths(starts, ends, method=method, threads=2)
        for i, b in enumerate(batch):
            one = mesh.find_path(starts[i], ends[i], method=method)
            assert b.status == one.status and b.length == one.length
            assert np.array_equal(b.waypoints, one.waypoints)


def test_save_and_load(tmp_path, mesh: NavMesh) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "m.npz"
    mesh.save(path)
    back = NavMesh.load(path)
    assert back.n_polygons == mesh.n_polygons
    assert back.find_path((1, 1), (20, 7)).length == mesh.find_path((1, 1), (20, 7)).length
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(navkit.FormatError, match="bad.npz"):
        NavMesh.load(bad)


@pytest.mark.parametrize("start", [(math.nan, 1.0), (1.0, math.inf), (1e300, 0.0), "a", (1,)])
def test_bad_points_raise_query_error(mesh: NavMesh, start) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(QueryError):
        mesh.find_path(start, (1, 1))


def test_bad_options_raise(mesh: NavMesh) -> None:
    with pytest.raises(QueryError, match="method"):
        mesh.find_path((1, 1), (2, 2), method="dijkstra")
    with pytest.raises(QueryError, match="max_nodes"):
        mesh.find_path((1, 1), (2, 2), max_nodes=0)
    with pytest.raises(QueryError, match="obstacles"):
        mesh.find_path((1, 1), (2, 2), obstacles=[[1, 2]])
    with pytest.raises(QueryError, match="not on the mesh"):
        mesh.raycast((-40, -40), (1, 1))


def test_budget_is_reported(mesh: NavMesh) -> None:
    r = mesh.find_path((1, 1), (20, 7), max_nodes=1)
    assert r.status in (Status.BUDGET_EXHAUSTED, Status.FOUND)
    assert r.expanded <= 2


def test_weights_and_empty_space_are_config_errors() -> None:
    weighted = dict(LEVEL, areas=[dict(LEVEL["areas"][0], weight=3)])
    with pytest.raises(ConfigError, match=r"areas\[0\]\.weight"):
        NavMesh.from_level(weighted)
    NavMesh.from_level(weighted, weights="ignore")
    covered = {"areas": [{"name": "a", "polygon": [[0, 0], [1, 0], [1, 1], [0, 1]]}],
               "obstacles": [{"name": "o", "polygon": [[0, 0], [1, 0], [1, 1], [0, 1]]}]}
    with pytest.raises(ConfigError, match="empty"):
        NavMesh.from_level(covered)


def test_raycast_and_locate(mesh: NavMesh) -> None:
    hit = mesh.raycast((1, 4), (9, 4))
    assert hit.hit and 0 < hit.fraction < 1
    # the block inflated by 0.4 starts at x = 3.6 (never closer; arcs within the chord error)
    assert 3.6 - 0.006 <= hit.point[0] <= 3.6 + 1e-9
    clear = mesh.raycast((1, 1), (9, 1))
    assert not clear.hit and clear.fraction == 1.0
    assert mesh.is_walkable((1, 1)) and not mesh.is_walkable((5, 4))
    assert mesh.locate((1, 1)) >= 0 and mesh.locate((5, 4)) == -1


def _octile(walk: np.ndarray, a: tuple[int, int], b: tuple[int, int]) -> float:
    """Octile optimum (no corner cutting) between cells a and b by scipy Dijkstra."""
    d, w = walk.shape
    rows, cols, vals = [], [], []
    for z in range(d):
        for x in range(w):
            if not walk[z, x]:
                continue
            for dx, dz in ((1, 0), (0, 1), (1, 1), (-1, 1)):
                nx, nz = x + dx, z + dz
                if not (0 <= nx < w and 0 <= nz < d and walk[nz, nx]):
                    continue
                if dx and dz and not (walk[z, nx] and walk[nz, x]):
                    continue
                rows.append(z * w + x)
                cols.append(nz * w + nx)
                vals.append(math.sqrt(2) if dx and dz else 1.0)
    g = coo_matrix((vals, (rows, cols)), shape=(w * d, w * d))
    dist = dijkstra(g, directed=False, indices=a[1] * w + a[0])
    return float(dist[b[1] * w + b[0]])


def test_grid_mesh_between_euclid_and_octile() -> None:
    rng = np.random.default_rng(5)
    walk = rng.random((24, 30)) > 0.25
    grid = NavGrid(walk, cell_size=1.0)
    m = NavMesh.from_grid(grid)
    cells = np.argwhere(walk)
    for _ in range(40):
        (az, ax), (bz, bx) = cells[rng.choice(len(cells), 2, replace=False)]
        oct_len = _octile(walk, (ax, az), (bx, bz))
        r = m.find_path((ax + 0.5, az + 0.5), (bx + 0.5, bz + 0.5))
        if math.isinf(oct_len):
            # corner-touching cells are not connected, so the mesh may still reach it
            # only through an edge-connected route, which the octile graph also has
            assert r.status == Status.UNREACHABLE
            continue
        assert r.status == Status.FOUND
        assert r.length <= oct_len + 1e-9
        assert r.length >= math.dist((ax, az), (bx, bz)) - 1e-9


def test_last_search_names_the_polygons_searched(mesh: NavMesh) -> None:
    r = mesh.find_path((1, 1), (20, 7))
    polys = mesh.last_search()
    assert len(polys) and np.all(np.diff(polys) > 0)
    # the path's end polygon was reached, so its polygon was searched
    assert mesh.locate((20, 7)) in set(polys.tolist()) or r.end_polygon in set(polys.tolist())
    mesh.find_path((1, 1), (20, 7), method="funnel")
    closed = mesh.last_search("funnel")
    assert mesh.locate((1, 1)) in set(closed.tolist())
    assert 0 < len(closed) <= mesh.n_polygons
