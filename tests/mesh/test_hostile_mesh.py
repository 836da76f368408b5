"""Hostile and random input for mesh construction, loading and obstacle cuts.

Random levels (hypothesis) must either build a valid mesh whose union is the
free space (shapely is the oracle) or raise ConfigError for an empty free
space; hostile levels and files must raise navkit errors with clear messages.
``NAVKIT_FUZZ_EXAMPLES`` raises the example count for a long local run.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st

from navkit.errors import ConfigError, FormatError, NavkitError, QueryError
from navkit.level import parse_level
from navkit.mesh import edit
from navkit.mesh.arrays import MeshArrays
from navkit.mesh.build import MAX_MESH_VERTICES, build_mesh, free_space, random_level
from navkit.mesh.navmesh import NavMesh
from navkit.results import Status
from tests.conftest import fixed
from tests.mesh.test_build import check_mesh

N_FUZZ = int(os.environ.get("NAVKIT_FUZZ_EXAMPLES", "200"))


# ---------------------------------------------------------------- strategies
def _ring(kind: str, cx: float, cz: float, size: float, angle: float, aspect: float,
          k: int, seed: int) -> list[list[float]]:
    """A simple polygon: rectangle, convex polygon or star (concave), rotated."""
    rng = np.random.default_rng(seed)
    if kind == "rect":
        pts = np.array([[-1, -aspect], [1, -aspect], [1, aspect], [-1, aspect]], float) * size / 2
    else:
        ang = np.sort(rng.uniform(0, 2 * math.pi, k))
        ang = np.unique(np.round(ang, 6))
        if len(ang) < 3:
            ang = np.array([0.0, 2.0, 4.0])
        rad = np.ones_like(ang) if kind == "convex" else rng.uniform(0.25, 1.0, len(ang))
        pts = np.stack([np.cos(ang) * rad, np.sin(ang) * rad * aspect], axis=1) * size / 2
        if kind == "convex":
            hull = shapely.convex_hull(shapely.multipoints(pts))
            if not isinstance(hull, shapely.Polygon):
                pts = np.array([[-1, -1], [1, -1], [0, 1]], float) * size / 2
            else:
                pts = shapely.get_coordinates(hull.exterior)[:-1]
    c, s = math.cos(angle), math.sin(angle)
    rot = pts @ np.array([[c, s], [-s, c]])
    return [[float(x + cx), float(z + cz)] for x, z in rot]


@st.composite
def shapes(draw: Any, lo: float, hi: float, smin: float, smax: float) -> list[list[float]]:
    kind = draw(st.sampled_from(["rect", "rect", "convex", "star"]))
    size = draw(st.one_of(st.floats(smin, smax), st.sampled_from([1e-6, 1e-3, 0.01])))
    angle = draw(st.one_of(st.just(0.0), st.just(math.pi / 4), st.floats(0, math.pi)))
    aspect = draw(st.one_of(st.just(1.0), st.floats(0.05, 1.0)))
    cx = draw(st.floats(lo, hi))
    cz = draw(st.floats(lo, hi))
    k = draw(st.integers(3, 9))
    seed = draw(st.integers(0, 2 ** 16))
    return _ring(kind, cx, cz, size, angle, aspect, k, seed)


@st.composite
def levels(draw: Any) -> dict[str, Any]:
    """Random levels: overlapping / touching / nearly touching areas, holes and
    obstacles of every kind, and paddings including 0."""
    n_areas = draw(st.integers(1, 3))
    areas = []
    for i in range(n_areas):
        ring = draw(shapes(0, 10, 4, 14))
        area: dict[str, Any] = {"name": f"a{i}", "polygon": ring}
        n_holes = draw(st.integers(0, 2))
        holes = []
        shell = shapely.Polygon(ring)
        for _ in range(n_holes):
            h = draw(shapes(2, 8, 0.1, 3))
            cand = shapely.Polygon(ring, [*holes, h])
            if cand.is_valid and shell.contains(shapely.Polygon(h)):
                holes.append(h)
        if holes:
            area["holes"] = holes
        if draw(st.booleans()) and i:
            area["available"] = False
        areas.append(area)
    obstacles = []
    base = draw(st.lists(shapes(-1, 11, 0.05, 3), max_size=10))
    for j, o in enumerate(base):
        obstacles.append({"name": f"o{j}", "polygon": o})
        # a copy shifted by a hair: nearly touching / nearly coincident edges
        if draw(st.integers(0, 4)) == 0:
            eps = draw(st.sampled_from([0.0, 1e-15, 1e-12, 1e-9, 1e-6]))
            dx = draw(st.sampled_from([0.0, 1.0, -1.0]))
            shift = [[x + dx * 1.0 + eps, z + eps] for x, z in o]
            obstacles.append({"name": f"o{j}b", "polygon": shift})
    radius = st.one_of(st.just(0.0), st.floats(0.0, 1.0), st.sampled_from([1e-9, 0.45]))
    return {"cellSize": 0.5, "agentRadius": draw(radius), "objectPadding": draw(radius),
            "boundaryPadding": draw(st.one_of(st.just(0.0), st.floats(0.0, 0.6))),
            "areas": areas, "obstacles": obstacles}


def _parse_or_none(raw: dict[str, Any]) -> Any:
    try:
        return parse_level(raw)
    except ConfigError:
        return None  # an invalid polygon: the parser's business, not the mesh's


@fixed(N_FUZZ)
@given(levels())
def test_random_levels_build_or_config_error(raw: dict[str, Any]) -> None:
    cfg = _parse_or_none(raw)
    if cfg is None:
        return
    try:
        mesh = NavMesh.from_level(cfg)
    except ConfigError as exc:
        assert "empty" in str(exc) or "no available area" in str(exc)
        # the oracle agrees: (almost) nothing is left
        avail = shapely.union_all([a.geometry for a in cfg.areas if a.available])
        if avail.is_empty:
            return
        r = cfg.obstacle_radius
        exact = avail.buffer(-cfg.boundary_padding) if cfg.boundary_padding > 0 else avail
        if cfg.obstacles:
            exact = exact.difference(shapely.union_all(
                [o.geometry for o in cfg.obstacles]).buffer(r, quad_segs=64))
        assert exact.area <= 1e-6 * max(avail.area, 1.0) + exact.length * 0.02
        return
    space = mesh.space
    check_mesh(mesh.arrays, space)
    # the mesh's free space keeps the clearance (oracle: shapely distances)
    pts = shapely.points(mesh.arrays.vertices)
    for o in cfg.obstacles:
        assert shapely.distance(o.geometry, pts).min() >= cfg.obstacle_radius - 1e-6


# ------------------------------------------------------------ hostile levels
def _square(x0: float, z0: float, s: float) -> list[list[float]]:
    return [[x0, z0], [x0 + s, z0], [x0 + s, z0 + s], [x0, z0 + s]]


def _level(obstacles: list[Any], **kw: Any) -> dict[str, Any]:
    return {"cellSize": 0.5, "agentRadius": 0.3, "objectPadding": 0.0,
            "areas": [{"name": "floor", "polygon": _square(0, 0, 10)}],
            "obstacles": [{"name": f"o{i}", "polygon": p} for i, p in enumerate(obstacles)], **kw}


@pytest.mark.parametrize("poly, field", [
    ([[1, 1], [3, 3], [3, 1], [1, 3]], "obstacles[0].polygon"),          # bow tie
    ([[1, 1], [2, 2], [3, 3]], "obstacles[0].polygon"),                  # collinear
    ([[1, 1], [float("nan"), 1], [2, 2]], "obstacles[0].polygon[1]"),
    ([[1, 1], [float("inf"), 1], [2, 2]], "obstacles[0].polygon[1]"),
    ([[1, 1], [1e16, 1], [2, 2]], "obstacles[0].polygon[1]"),
])
def test_hostile_polygons_config_error(poly: list[Any], field: str) -> None:
    with pytest.raises(ConfigError) as ex:
        NavMesh.from_level(_level([poly]))
    assert ex.value.field == field
    assert str(ex.value).startswith(field)


def test_huge_coordinates_build_or_config_error() -> None:
    for off in (1e6, 1e10, 1e14):
        raw = _level([_square(off + 4, off + 4, 2)], cellSize=1e6)
        raw["areas"][0]["polygon"] = _square(off, off, 1e3 if off > 1e12 else 10)
        try:
            mesh = NavMesh.from_level(raw)
        except ConfigError as exc:
            assert exc.field in ("areas", "obstacles")
            continue
        check_mesh(mesh.arrays, mesh.space)  # union is the free space
        floor = shapely.box(*raw["areas"][0]["polygon"][0], *raw["areas"][0]["polygon"][2])
        oracle = floor.difference(shapely.box(off + 4, off + 4, off + 6, off + 6).buffer(
            0.3, quad_segs=64))
        assert abs(mesh.space.area - oracle.area) < 0.02 * oracle.area


def test_vertex_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    from navkit.mesh import build
    assert MAX_MESH_VERTICES == 2_000_000
    monkeypatch.setattr(build, "MAX_MESH_VERTICES", 2_000)
    rng = np.random.default_rng(0)
    obs = [_square(float(x), float(z), 0.01) for x, z in rng.uniform(0.5, 9.5, (300, 2))]
    with pytest.raises(ConfigError) as ex:
        NavMesh.from_level(_level(obs))
    assert ex.value.field == "obstacles" and "MAX_MESH_VERTICES" in str(ex.value)
    small = NavMesh.from_level(_level(obs[:20]))  # under the cap: builds
    assert small.n_vertices <= 2_000


def test_tiny_and_touching_obstacles() -> None:
    # shared edges, a corner touch, nanometre gaps, a 1e-12 m obstacle
    obs = [_square(2, 2, 1), _square(3, 2, 1), _square(4, 3, 1), _square(5 + 1e-9, 3, 1),
           _square(7, 7, 1e-12), [[2.179, 3.000000000000001], [2.5, 6], [2.179, 3]]]
    for r in (0.0, 0.3):
        raw = _level([o for o in obs if len(o) == 4], agentRadius=r)
        raw["areas"][0]["holes"] = [[[8, 1], [9, 1], [9, 1.5 + 1e-12], [8, 1.5]]]
        mesh = NavMesh.from_level(raw)
        check_mesh(mesh.arrays, mesh.space)


# ------------------------------------------------------------ hostile files
def _save(tmp: Path, name: str, **arrays: Any) -> Path:
    header = {"format": "navkit-mesh", "version": 1, "meta": {}}
    arrays.setdefault("header", np.frombuffer(json.dumps(header).encode(), np.uint8))
    p = tmp / name
    with open(p, "wb") as f:
        np.savez(f, **arrays)
    return p


def _good() -> dict[str, Any]:
    return {"vertices": np.array([[0, 0], [2, 0], [2, 1], [0, 1]], float),
            "poly_start": np.array([0, 4], np.int32),
            "poly_verts": np.array([0, 1, 2, 3], np.int32)}


def _variant(**kw: Any) -> dict[str, Any]:
    d = _good()
    d.update(kw)
    return d


HOSTILE_FILES: dict[str, dict[str, Any]] = {
    "float_ids": _variant(poly_verts=np.array([0.0, 1, 2, 3])),
    "out_of_range": _variant(poly_verts=np.array([0, 1, 2, 9], np.int32)),
    "negative": _variant(poly_verts=np.array([0, 1, 2, -1], np.int32)),
    "start_past_end": _variant(poly_start=np.array([0, 7], np.int64)),
    "decreasing": _variant(poly_start=np.array([0, 4, 2, 4], np.int64)),
    "non_convex": _variant(vertices=np.array([[0, 0], [2, 0], [1, 0.2], [1, 2]], float)),
    "flat": _variant(vertices=np.array([[0, 0], [1, 0], [2, 0], [3, 0]], float)),
    "nan": _variant(vertices=np.array([[0, 0], [2, 0], [2, np.nan], [0, 1]], float)),
    "huge": _variant(vertices=np.array([[0, 0], [2e300, 0], [2, 1], [0, 1]], float)),
    "vertices_1d": _variant(vertices=np.zeros(8)),
    "vertices_str": _variant(vertices=np.array([["a", "b"]] * 4)),
    "complex": _variant(vertices=np.zeros((4, 2), complex)),
    "overlap": _variant(poly_start=np.array([0, 4, 8], np.int32),
                        poly_verts=np.array([0, 1, 2, 3, 0, 1, 2, 3], np.int32)),
    "missing": {"vertices": np.zeros((4, 2))},
    "pickle": _variant(vertices=np.array([object(), 1], dtype=object)),
    "bad_header": _variant(header=np.frombuffer(b"\xff\xfe{", np.uint8)),
    "wrong_version": _variant(header=np.frombuffer(json.dumps(
        {"format": "navkit-mesh", "version": 99}).encode(), np.uint8)),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_load_hostile_npz(tmp_path: Path, name: str) -> None:
    arrays = HOSTILE_FILES[name]
    if name == "pickle":
        p = tmp_path / "pickle.npz"
        np.savez(p, allow_pickle=True, **{"header": _good()["poly_start"], **arrays})
    else:
        p = _save(tmp_path, f"{name}.npz", **arrays)
    with pytest.raises(FormatError) as ex:
        NavMesh.load(p)
    assert str(p) in str(ex.value)
    assert ex.value.reason


def test_load_good_and_garbage(tmp_path: Path) -> None:
    p = _save(tmp_path, "good.npz", **_good())
    m = NavMesh.load(p)
    assert m.n_polygons == 1 and math.isclose(m.space.area, 2.0)
    for name, data in (("empty", b""), ("text", b"hello"), ("truncated", p.read_bytes()[:60]),
                       ("flipped", p.read_bytes()[:40] + b"\x00" * 40 + p.read_bytes()[80:])):
        q = tmp_path / f"{name}.npz"
        q.write_bytes(data)
        with pytest.raises(FormatError) as ex:
            NavMesh.load(q)
        assert str(q) in str(ex.value)


def test_load_zip_bomb_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from navkit.mesh import arrays as arr
    monkeypatch.setattr(arr, "MAX_FILE_BYTES", 1 << 20)
    p = tmp_path / "bomb.npz"
    buf = io.BytesIO()
    np.savez_compressed(buf, **_variant(vertices=np.zeros((200_000, 2))))
    p.write_bytes(buf.getvalue())
    assert p.stat().st_size < 100_000
    with pytest.raises(FormatError) as ex:
        MeshArrays.load(p)
    assert "MAX_FILE_BYTES" in str(ex.value)
    with zipfile.ZipFile(p) as zf:  # the oracle: what it would have unpacked to
        assert sum(i.file_size for i in zf.infolist()) > (1 << 20)


# ---------------------------------------------------------- obstacle circles
def test_circles_hostile() -> None:
    mesh = NavMesh.from_level(random_level(20, 10, 6, seed=4))
    a, b = (0.6, 0.6), (19.4, 9.4)
    base = mesh.find_path(a, b)
    assert base.status == Status.FOUND
    # radius 0 circles change nothing
    r0 = mesh.find_path(a, b, obstacles=[[10.0, 5.0, 0.0], [3.0, 3.0, 0.0]])
    assert r0.status == Status.FOUND and math.isclose(r0.length, base.length, rel_tol=1e-12)
    # a circle over the whole level, or a huge one: no start
    for r in (30.0, 1e9):
        res = mesh.find_path(a, b, obstacles=[[10.0, 5.0, r]])
        assert res.status == Status.NO_START
    for bad in ([[1.0, math.nan, 1.0]], [[1.0, 1.0, -1.0]], [[1.0, 2.0]], [[1e300, 0.0, 1.0]]):
        with pytest.raises(QueryError):
            mesh.find_path(a, b, obstacles=bad)
    # a cut path keeps out of every true circle (oracle: shapely distance)
    circles = np.array([[10.0, 5.0, 0.8], [5.0, 3.0, 0.8], [15.0, 7.0, 0.8]])
    res = mesh.find_path(a, b, obstacles=circles)
    if res.has_path:
        line = shapely.LineString(res.waypoints)
        for x, z, r in circles:
            assert line.distance(shapely.Point(x, z)) >= r - 1e-9
    with pytest.raises(QueryError):
        edit.cut_circles(mesh.arrays, mesh.space, [[10.0, 5.0, 1e6]])


def test_errors_are_navkit_errors() -> None:
    for bad in ({"areas": []}, {"areas": [{"name": "a", "polygon": "x"}]}, {"areas": [1]}):
        with pytest.raises(NavkitError):
            NavMesh.from_level(bad)
    with pytest.raises(ConfigError):
        free_space(parse_level(_level([_square(-1, -1, 12)])))
    mesh, space = build_mesh(parse_level(_level([])))
    assert math.isclose(space.area, 100.0)
