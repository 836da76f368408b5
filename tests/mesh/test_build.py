"""Mesh construction: free space, triangulation, merging, grids, local edits.

Oracles are shapely (areas, unions, distances, high-resolution buffers), brute
force (edge dictionaries, breadth-first search) and the level's own rules.
"""

from __future__ import annotations

import json
import math
from collections import deque
from pathlib import Path

import numpy as np
import pytest
import shapely

from navkit.errors import ConfigError, QueryError
from navkit.grid import NavGrid
from navkit.level import parse_level
from navkit.mesh import edit
from navkit.mesh.arrays import MeshArrays, from_polygons
from navkit.mesh.build import (
    DEFAULT_CHORD_ERROR,
    build_mesh,
    disk_polygon,
    free_space,
    polygon_area_ids,
    random_level,
    triangulate,
)
from navkit.mesh.from_grid import mesh_from_grid
from navkit.mesh.merge import merge_convex

EXAMPLES = Path(__file__).resolve().parents[2] / "navkit" / "examples"


# ------------------------------------------------------------------ helpers
def _edges(m: MeshArrays) -> tuple[np.ndarray, np.ndarray]:
    ps = m.poly_start
    nxt = np.arange(1, len(m.poly_verts) + 1)
    nxt[ps[1:] - 1] = ps[:-1]
    return m.poly_verts, m.poly_verts[nxt]


def check_mesh(m: MeshArrays, space: shapely.Geometry) -> None:
    """Convex CCW polygons, symmetric adjacency (brute force), fans, union == space."""
    polys = m.polygons()
    for i, p in enumerate(polys):
        q = np.roll(p, -1, axis=0)
        r = np.roll(p, -2, axis=0)
        d1 = q - p
        d2 = r - q
        cross = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
        assert cross.min() >= -1e-9, f"polygon {i} not convex"
        assert shapely.Polygon(p).exterior.is_ccw, f"polygon {i} not CCW"
    a, b = _edges(m)
    owner = np.repeat(np.arange(m.n_polygons), np.diff(m.poly_start))
    by_edge = {(int(u), int(w)): int(o) for u, w, o in zip(a, b, owner, strict=True)}
    for k, (u, w) in enumerate(zip(a, b, strict=True)):
        want = by_edge.get((int(w), int(u)), -1)
        assert m.poly_adj[k] == want
        if want >= 0:  # symmetric
            ks = np.flatnonzero((a == w) & (b == u))
            assert m.poly_adj[ks[0]] == owner[k]
    # fans: the polygons around each vertex are those that use it
    for u in range(m.n_vertices):
        fan = m.vert_polys[m.vert_start[u]:m.vert_start[u + 1]]
        assert set(int(x) for x in fan if x >= 0) == set(int(o) for o in owner[a == u])
    mu = shapely.union_all([shapely.Polygon(p) for p in polys])
    assert mu.symmetric_difference(space).area < 1e-9 * space.area
    area = sum(shapely.Polygon(p).area for p in polys)
    assert abs(area - space.area) < 1e-9 * space.area  # no overlaps
    # conforming: walls are exactly the space's boundary (a T-junction adds wall)
    e = m.vertices[b] - m.vertices[a]
    wall = float(np.hypot(e[:, 0], e[:, 1])[m.poly_adj < 0].sum())
    assert abs(wall - space.length) < 1e-9 * space.length


def mixed_level() -> dict:
    d = random_level(30, 20, 25, seed=7)
    d["boundaryPadding"] = 0.3
    d["areas"][0]["holes"] = [[[12, 12], [15, 12], [15, 14], [12, 14]]]
    d["areas"].append({"name": "annex", "polygon": [[30, 5], [36, 7], [33, 12], [29.5, 11]]})
    d["obstacles"].append({"name": "ell", "polygon": [[20, 2], [25, 2], [25, 3], [21, 3],
                                                      [21, 6], [20, 6]]})
    d["obstacles"].append({"name": "tri", "polygon": [[5, 15], [8, 15.5], [6, 17.5]]})
    return d


# --------------------------------------------------------------- free space
def test_free_space_clearance_and_area() -> None:
    cfg = parse_level(mixed_level())
    ce = DEFAULT_CHORD_ERROR
    fs = free_space(cfg, chord_error=ce)
    r = cfg.obstacle_radius
    bp = cfg.boundary_padding
    rings = shapely.get_rings(shapely.get_parts(fs))
    pts = []
    for ring in rings:
        c = shapely.get_coordinates(ring)
        pts.append(c[:-1])
        pts.append((c[:-1] + c[1:]) / 2)
    p = shapely.points(np.concatenate(pts))
    for o in cfg.obstacles:
        assert shapely.distance(o.geometry, p).min() >= r - 1e-9
    union = shapely.union_all([a.geometry for a in cfg.areas if a.available])
    assert shapely.covers(union, p).all()
    assert shapely.distance(union.boundary, p).min() >= bp - 1e-9
    # exact (high-resolution) free space: arcs within ce of the true ones
    exact = union.buffer(-bp, quad_segs=1024).difference(
        shapely.union_all([o.geometry for o in cfg.obstacles]).buffer(r, quad_segs=1024))
    assert abs(fs.area - exact.area) <= fs.length * ce
    assert fs.difference(exact).area <= fs.length * 1e-6  # on the safe side


def test_disk_polygon_error() -> None:
    for r in (0.05, 0.7, 3.0):
        d = disk_polygon(r, 0.005)
        dist = np.hypot(d[:, 0], d[:, 1])
        assert dist.max() - r <= 0.005 + 1e-12
        edge_dist = shapely.Polygon(d).exterior.distance(shapely.Point(0, 0))
        assert edge_dist >= r - 1e-12


def test_weights_and_empty() -> None:
    cfg = json.loads((EXAMPLES / "outdoor.json").read_text())
    level = parse_level(cfg)
    with pytest.raises(ConfigError) as ex:
        free_space(level)
    assert ex.value.field == "areas[0].weight"
    assert "out of scope" in str(ex.value)
    assert free_space(level, weights="ignore").area > 0
    full = {"areas": [{"name": "a", "polygon": [[0, 0], [2, 0], [2, 2], [0, 2]]}],
            "obstacles": [{"name": "o",
                           "polygon": [[0.5, 0.5], [1.5, 0.5], [1.5, 1.5], [0.5, 1.5]]}],
                "agentRadius": 1.0}
    with pytest.raises(ConfigError):
        build_mesh(parse_level(full))
    closed = {"areas": [{"name": "a", "available": False,
                         "polygon": [[0, 0], [2, 0], [2, 2], [0, 2]]}]}
    with pytest.raises(ConfigError):
        free_space(parse_level(closed))
    with pytest.raises(ConfigError):
        parse_level({"areas": [{"name": "a", "polygon": [[0, 0], [float("nan"), 0], [2, 2]]}]})


# -------------------------------------------------------------- whole build
@pytest.mark.parametrize("name", ["interior", "outdoor", "mixed"])
def test_build_and_merge(name: str) -> None:
    path = EXAMPLES / f"{name}.json"
    raw = mixed_level() if name == "mixed" else json.loads(path.read_text())
    cfg = parse_level(raw)
    tri_mesh, space = build_mesh(cfg, merge=False, weights="ignore")
    check_mesh(tri_mesh, space)
    merged = merge_convex(tri_mesh)
    check_mesh(merged, space)
    assert merged.n_polygons < tri_mesh.n_polygons
    assert np.all(np.diff(tri_mesh.poly_start) == 3)
    ids = polygon_area_ids(merged, cfg)
    assert ids.shape == (merged.n_polygons,) and ids.min() >= 0


def test_polygon_area_ids_last_listed() -> None:
    cfg = parse_level({"agentRadius": 0, "objectPadding": 0, "areas": [
        {"name": "a", "polygon": [[0, 0], [10, 0], [10, 4], [0, 4]]},
        {"name": "b", "polygon": [[6, 0], [10, 0], [10, 4], [6, 4]]}]})
    mesh, _ = build_mesh(cfg)
    ids = polygon_area_ids(mesh, cfg)
    for i, p in enumerate(mesh.polygons()):
        assert ids[i] == (1 if p[:, 0].mean() > 6 else 0)


def test_save_load_round_trip(tmp_path: Path) -> None:
    mesh, _ = build_mesh(parse_level(random_level(20, 15, 10, seed=4)))
    f = tmp_path / "m.npz"
    mesh.save(f, meta={"k": 1})
    back, meta = MeshArrays.load(f)
    assert meta == {"k": 1}
    for fld in ("vertices", "poly_start", "poly_verts", "poly_adj", "vert_start", "vert_polys",
                "vert_corner", "poly_region", "bucket_start", "bucket_polys"):
        assert np.array_equal(getattr(back, fld), getattr(mesh, fld)), fld


def test_from_polygons_errors_name_first_bad_polygon() -> None:
    v = np.array([[0, 0], [2, 0], [2, 1], [0, 1], [1, 0], [1, 1], [1.5, 0.5]], float)
    with pytest.raises(QueryError, match=r"polygons\[1\]: is not convex"):
        from_polygons(v, [[0, 4, 5, 3], [4, 1, 2, 5, 6]])
    with pytest.raises(QueryError, match=r"polygons\[1\]: repeats"):
        from_polygons(v, [[0, 4, 5, 3], [4, 1, 1]])
    with pytest.raises(QueryError, match="same direction"):
        from_polygons(v, [[0, 4, 5, 3], [0, 4, 5, 3]])
    m = from_polygons(v[:6], [[3, 5, 4, 0], [4, 1, 2, 5]])  # clockwise first polygon
    assert m.poly_verts[:4].tolist() == [0, 4, 5, 3]


# -------------------------------------------------------------------- grids
def _components(a: np.ndarray) -> int:
    seen = np.zeros_like(a, dtype=bool)
    n = 0
    for z0, x0 in zip(*np.nonzero(a), strict=True):
        if seen[z0, x0]:
            continue
        n += 1
        q = deque([(z0, x0)])
        seen[z0, x0] = True
        while q:
            z, x = q.popleft()
            for dz, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                zz, xx = z + dz, x + dx
                if 0 <= zz < a.shape[0] and 0 <= xx < a.shape[1] and a[zz, xx] and not seen[zz, xx]:
                    seen[zz, xx] = True
                    q.append((zz, xx))
    return n


def test_from_grid_random() -> None:
    rng = np.random.default_rng(0)
    for _ in range(60):
        d, w = rng.integers(1, 10, 2)
        a = rng.random((d, w)) < rng.uniform(0.3, 0.9)
        if not a.any():
            continue
        cs, x0, z0 = 0.5, -1.25, 3.0
        mesh, space = mesh_from_grid(NavGrid(a, cell_size=cs, min_x=x0, min_z=z0))
        zs, xs = np.nonzero(a)
        cells = shapely.union_all(shapely.box(x0 + xs * cs, z0 + zs * cs, x0 + (xs + 1) * cs,
                                              z0 + (zs + 1) * cs))
        check_mesh(mesh, cells)
        # corner-touching cells are not connected: regions are 4-connected components
        assert len(set(mesh.poly_region.tolist())) == _components(a)


def test_from_grid_corner_touch_has_no_portal() -> None:
    a = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]], bool)
    mesh, space = mesh_from_grid(NavGrid(a))
    assert space.area == 5.0
    a_, b_ = _edges(mesh)
    e = mesh.vertices[b_] - mesh.vertices[a_]
    portal = np.hypot(e[:, 0], e[:, 1])[mesh.poly_adj >= 0]
    assert portal.size == 0 or portal.min() > 0.5
    assert len(set(mesh.poly_region.tolist())) == 3
    with pytest.raises(ConfigError):
        mesh_from_grid(NavGrid(np.zeros((2, 2), bool)))


# -------------------------------------------------------------------- edits
def test_door_toggle_local_rebuild_equals_full() -> None:
    cfg = parse_level(random_level(40, 20, 30, seed=2, doors=2))
    mesh, space = build_mesh(cfg)
    for name, state in (("door0", False), ("door1", False), ("door0", True)):
        new = cfg.with_area_available(name, state)
        sp = free_space(new)
        reg = new.area(name).geometry.envelope.buffer(new.boundary_padding + new.obstacle_radius)
        before = dict(edit.STATS)
        out = edit.rebuild_region(mesh, sp, reg)
        assert edit.STATS["local"] == before["local"] + 1
        check_mesh(out, sp)
        # polygons far from the door are kept as they were, in order, first
        far = [p for p in mesh.polygons() if shapely.Polygon(p).distance(reg) > 1e-6]
        got = out.polygons()[:len(far)]
        assert all(np.array_equal(f, g) for f, g in zip(far, got, strict=False))
        mesh, cfg = out, new
    assert len(set(mesh.poly_region.tolist())) == 1  # door0 open again joins the rooms


def test_cut_circles() -> None:
    cfg = parse_level(random_level(30, 20, 15, seed=9))
    mesh, space = build_mesh(cfg)
    circles = np.array([[5.0, 5.0, 0.8], [15.0, 10.0, 1.5], [15.5, 10.5, 0.4], [29.5, 19.5, 2.0]])
    out = edit.cut_circles(mesh, space, circles)
    want = space
    for x, z, r in circles:
        want = want.difference(shapely.Point(x, z).buffer(r, quad_segs=256))
    mu = shapely.union_all([shapely.Polygon(p) for p in out.polygons()])
    assert mu.difference(want).area < 1e-9  # outside every true circle
    assert abs(mu.area - want.area) <= 2 * math.pi * circles[:, 2].sum() * DEFAULT_CHORD_ERROR
    for x, z, r in circles:
        for p in out.polygons():
            assert shapely.Polygon(p).distance(shapely.Point(x, z)) >= r - 1e-9
    check_mesh(out, shapely.union_all([shapely.Polygon(p) for p in out.polygons()]))
    with pytest.raises(QueryError):
        edit.cut_circles(mesh, space, [[1.0, float("nan"), 1.0]])
    with pytest.raises(QueryError):
        edit.cut_circles(mesh, space, [[15.0, 10.0, 100.0]])


def test_triangulate_conforming_holes() -> None:
    sq = shapely.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)],
                         [[(2, 2), (4, 2), (4, 4), (2, 4)], [(4, 4), (6, 4), (6, 6), (4, 6)]])
    check_mesh(triangulate(sq), sq)
