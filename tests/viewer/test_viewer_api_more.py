"""API tests of the viewer's newer routes (issue #18): flow arrows, HPA* clusters, JPS
jump points, display splines, compile/search time, circle obstacles, the cell
inspector, saving the edited level and rebuilding it with new parameters.

Oracles are independent of the viewer: the Pathfinder on the same grid, the level
rasterized by :mod:`navkit.level`, brute-force cell tests, FNV-1a test vectors.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.testclient import TestClient  # noqa: E402

from navkit import NavGrid, Pathfinder  # noqa: E402
from navkit.level import parse_level, rasterize  # noqa: E402
from navkit.viewer import create_app  # noqa: E402
from navkit.viewer.layers import palette_index  # noqa: E402
from tests.viewer.test_viewer_api import BLOCKED, EAST, LEVEL, MAP_TEXT, SCENE, WEST  # noqa: E402

BASE = "http://127.0.0.1:8765"
# the same two rooms without the mud's weight: JPS applies
FLAT: dict[str, Any] = copy.deepcopy(LEVEL)
FLAT["areas"][6].pop("weight")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("viewer-more")
    out = {"level": d / "level.json", "flat": d / "flat.json", "scene": d / "scene.json",
           "map": d / "small.map"}
    out["level"].write_text(json.dumps(LEVEL))
    out["flat"].write_text(json.dumps(FLAT))
    out["scene"].write_text(json.dumps(SCENE))
    out["map"].write_text(MAP_TEXT)
    return out


def _client(target: Path) -> TestClient:
    return TestClient(create_app(target, warm=False), base_url=BASE)


@pytest.fixture()
def level(files: dict[str, Path]) -> Any:
    with _client(files["level"]) as c:
        yield c


@pytest.fixture()
def flat(files: dict[str, Path]) -> Any:
    with _client(files["flat"]) as c:
        yield c


def _err(r: Any, status: int, field: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, r.text
    e = r.json()["error"]
    assert e["status"] == status and e["message"]
    if field is not None:
        assert e["field"] == field, e
    return e


def _grid(c: TestClient) -> tuple[np.ndarray, dict[str, str]]:
    r = c.get("/api/grid")
    w, d = int(r.headers["x-navkit-width"]), int(r.headers["x-navkit-depth"])
    return np.frombuffer(r.content, dtype=np.uint8).reshape(d, w), dict(r.headers)


def _walk(c: TestClient) -> np.ndarray:
    return _grid(c)[0] > 0


def _cost(pf: Pathfinder, a: tuple[int, int], b: tuple[int, int]) -> int:
    return int(pf.find_path_cells(a, b).cost_int)


# ------------------------------------------------------------------- flow
def test_flow_arrows_point_downhill(flat: TestClient) -> None:
    goal = (EAST[0], EAST[1])
    r = flat.post("/api/flow", json={"goal": list(goal), "every": 2})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["every"] == 2 and out["goal"] == list(goal)
    walk = _walk(flat)
    pf = Pathfinder(NavGrid(walk))  # the oracle: exact costs to the goal
    arrows = np.array(out["arrows"]).reshape(-1, 3)
    assert len(arrows) == out["count"] > 20
    for x, z, d in arrows.tolist():
        assert x % 2 == 1 and z % 2 == 1  # the lattice every // 2 + k * every
        dx, dz = out["directionOffsets"][d]
        step = 14 if dx and dz else 10
        here = _cost(pf, (x, z), goal)
        assert here == step + _cost(pf, (x + dx, z + dz), goal), (x, z, d)
    # every reachable lattice cell but the goal has an arrow
    lattice = {(x, z) for z in range(1, walk.shape[0], 2) for x in range(1, walk.shape[1], 2)
               if walk[z, x] and (x, z) != goal and pf.find_path_cells((x, z), goal).found}
    assert {(x, z) for x, z, _ in arrows.tolist()} == lattice
    assert out["reached"] == sum(
        1 for z, x in zip(*np.nonzero(walk), strict=True)
        if pf.find_path_cells((int(x), int(z)), goal).found or (x, z) == goal)


def test_flow_validation(flat: TestClient) -> None:
    _err(flat.post("/api/flow", json={}), 400, "goal")
    _err(flat.post("/api/flow", json={"goal": [99, 0]}), 400, "goal")
    _err(flat.post("/api/flow", json={"goal": [1, 1], "every": 0}), 400, "every")
    _err(flat.post("/api/flow", json={"goal": [1, 1], "every": True}), 400, "every")
    _err(flat.post("/api/flow", json={"goal": [1, 1], "x": 1}), 400, "x")


# ------------------------------------------------------------------- HPA*
def test_hpa_clusters_and_entrances(level: TestClient) -> None:
    r = level.get("/api/hpa")
    assert r.status_code == 200, r.text
    h = r.json()
    walk = _walk(level)
    d, w = walk.shape
    cs = h["clusterSize"]
    assert h["clustersX"] == math.ceil(w / cs) and h["clustersZ"] == math.ceil(d / cs) > 1
    nodes = [tuple(n) for n in h["nodes"]]
    assert nodes and all(walk[z, x] for x, z in nodes)

    def cluster(c: tuple[int, int]) -> tuple[int, int]:
        return (c[0] // cs, c[1] // cs)

    linked = set()
    for i, j in h["edges"]:
        a, b = nodes[i], nodes[j]
        assert cluster(a) != cluster(b) and max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1
        linked.add(frozenset((cluster(a), cluster(b))))
    # brute force: clusters side by side with walkable cells facing each other are linked
    for z in range(d):
        for x in range(w):
            for dx, dz in ((1, 0), (0, 1)):
                x2, z2 = x + dx, z + dz
                if x2 < w and z2 < d and walk[z, x] and walk[z2, x2] \
                        and cluster((x, z)) != cluster((x2, z2)):
                    assert frozenset((cluster((x, z)), cluster((x2, z2)))) in linked, (x, z)


# -------------------------------------------------------------------- JPS
def test_jps_jump_points(flat: TestClient) -> None:
    r = flat.post("/api/path", json={"start": WEST, "goal": EAST, "algorithm": "jps"}).json()
    assert r["status"] == "FOUND" and r["resolvedAlgorithm"] == "jps"
    jp = r["jumpPoints"]
    expanded = {tuple(c) for c in jp["expanded"]}
    generated = {tuple(c) for c in jp["generated"]}
    assert len(jp["expanded"]) == r["expanded"]
    assert not expanded & generated and tuple(WEST) in expanded
    walk = _walk(flat)
    assert all(walk[z, x] for x, z in expanded | generated)
    cells = np.array(r["cells"])
    steps = np.diff(cells, axis=0)
    turns = {tuple(cells[i]) for i in range(1, len(steps)) if (steps[i] != steps[i - 1]).any()}
    assert turns <= expanded | generated  # the path bends only at jump points
    # A* has no jump points
    a = flat.post("/api/path", json={"start": WEST, "goal": EAST, "algorithm": "astar"}).json()
    assert a["jumpPoints"] is None and a["costInt"] == r["costInt"]


def test_spline_passes_through_waypoints(level: TestClient) -> None:
    r = level.post("/api/path", json={"start": WEST, "goal": [20, 14]}).json()
    spline = np.array(r["spline"])
    wps = np.array(r["waypoints"])
    assert len(wps) >= 3 and len(spline) > len(wps)
    assert np.allclose(spline[0], wps[0], atol=1e-4) and np.allclose(spline[-1], wps[-1], atol=1e-4)
    for p in wps:
        assert np.min(np.hypot(*(spline - p).T)) < 1e-3
    none = level.post("/api/path", json={"start": BLOCKED, "goal": EAST}).json()
    assert none["spline"] == []


def test_compile_time_apart_from_search_time(files: dict[str, Path]) -> None:
    with _client(files["flat"]) as c:
        info = c.get("/api/info").json()
        assert info["warmKinds"] == []
        first = c.post("/api/path", json={"start": WEST, "goal": EAST, "algorithm": "astar"}).json()
        again = c.post("/api/path", json={"start": WEST, "goal": EAST, "algorithm": "astar"}).json()
        assert first["firstCall"] is True and again["firstCall"] is False
        assert first["compileMs"] >= 0 and again["compileMs"] == 0
        assert first["searchMs"] >= 0 and again["searchMs"] == again["timeMs"]
        assert first["cells"] == again["cells"]
        assert c.get("/api/info").json()["warmKinds"] == ["astar"]
        f1 = c.post("/api/flow", json={"goal": EAST}).json()
        f2 = c.post("/api/flow", json={"goal": EAST}).json()
        assert (f1["firstCall"], f2["firstCall"]) == (True, False) and f1["arrows"] == f2["arrows"]


# ---------------------------------------------------------------- circles
def _disc(walk: np.ndarray, meta: dict[str, Any], x: float, z: float, r: float) -> np.ndarray:
    d, w = walk.shape
    cx = meta["minX"] + (np.arange(w) + 0.5) * meta["cellSize"]
    cz = meta["minZ"] + (np.arange(d) + 0.5) * meta["cellSize"]
    return (cx[None, :] - x) ** 2 + (cz[:, None] - z) ** 2 <= r * r


def test_circle_blocks_cells_by_centre(flat: TestClient) -> None:
    meta = flat.get("/api/info").json()["grid"]
    walk = _walk(flat)
    before = flat.post("/api/path", json={"start": WEST, "goal": EAST}).json()
    r = flat.post("/api/circles", json={"center": [5.0, 2.0], "radius": 0.8, "name": "plug"})
    assert r.status_code == 201, r.text
    disc = _disc(walk, meta, 5.0, 2.0, 0.8)
    assert r.json()["circles"] == [{"name": "plug", "center": [5.0, 2.0], "radius": 0.8,
                                    "cells": int(disc.sum())}]
    after = flat.post("/api/path", json={"start": WEST, "goal": EAST}).json()
    oracle = Pathfinder(NavGrid(walk & ~disc)).find_path_cells(tuple(WEST), tuple(EAST))
    assert after["costInt"] == oracle.cost_int > before["costInt"]
    assert not any(disc[z, x] for x, z in after["cells"])
    zs, xs = np.nonzero(disc)
    cell = flat.get(f"/api/cell?x={xs[0]}&z={zs[0]}").json()
    assert cell["circles"] == ["plug"]
    # the saved level has no circles: they are occupants, not level geometry
    assert flat.get("/api/level").headers["x-navkit-circles"] == "1"
    _err(flat.post("/api/circles", json={"center": [5.0, 2.0], "radius": 0.5, "name": "plug"}),
         409, "name")
    assert flat.delete("/api/circles/plug").status_code == 200
    again = flat.post("/api/path", json={"start": WEST, "goal": EAST}).json()
    assert again["costInt"] == before["costInt"]
    _err(flat.delete("/api/circles/plug"), 404, "name")


def test_circle_validation(flat: TestClient) -> None:
    version = flat.get("/api/info").json()
    _err(flat.post("/api/circles", json={"center": [5.0, 2.0], "radius": 0}), 400, "radius")
    _err(flat.post("/api/circles", json={"center": [5.0, 2.0], "radius": -1}), 400, "radius")
    _err(flat.post("/api/circles", json={"center": [5.0, 2.0], "radius": 1e9}), 400, "radius")
    _err(flat.post("/api/circles", json={"center": [500.0, 2.0], "radius": 1}), 400, "center")
    _err(flat.post("/api/circles", json={"center": ["a", 2.0], "radius": 1}), 400, "center[0]")
    _err(flat.post("/api/circles", json={"center": [5.0, 2.0]}), 400, "radius")
    _err(flat.post("/api/circles", json={"center": [5, 2], "radius": 1, "name": "a/b"}), 400,
         "name")
    assert flat.get("/api/info").json()["circles"] == version["circles"] == []


# --------------------------------------------------------------- inspector
def test_cell_inspector(level: TestClient) -> None:
    meta = level.get("/api/info").json()["grid"]
    mud = [2 * 5 + 2, 2 * 7 + 2]  # world (5.25, 7.25): the mud
    c = level.get(f"/api/cell?x={mud[0]}&z={mud[1]}").json()
    assert c["cell"] == mud and c["walkable"] is True and c["weight"] == 4
    assert set(c["areas"]) == {"corridor", "mud"}
    assert c["world"] == [meta["minX"] + (mud[0] + 0.5) * meta["cellSize"],
                          meta["minZ"] + (mud[1] + 0.5) * meta["cellSize"]]
    b = level.get(f"/api/cell?x={BLOCKED[0]}&z={BLOCKED[1]}").json()
    assert b["walkable"] is False and b["weight"] is None and b["areas"] == []
    crate = level.get("/api/cell?x=4&z=7").json()  # world (1.25, 2.75): in the crate
    assert crate["obstacles"] == ["crate"] and crate["walkable"] is False
    _err(level.get("/api/cell?x=1"), 400, "z")
    _err(level.get("/api/cell?x=1&z=a"), 400, "z")
    _err(level.get("/api/cell?x=1&z=999"), 400, "cell")
    _err(level.get("/api/cell?x=1&z=1&y=2"), 400, "y")


# ------------------------------------------------------------------- save
def test_saved_level_parses_to_the_grid_shown(level: TestClient) -> None:
    assert level.post("/api/areas", json={"name": "door", "available": False}).status_code == 200
    poly = [[7.0, 1.0], [8.0, 1.0], [8.0, 2.0], [7.0, 2.0]]
    assert level.post("/api/obstacles", json={"polygon": poly, "name": "box"}).status_code == 201
    r = level.get("/api/level")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    saved = parse_level(r.json())
    assert [a.available for a in saved.areas if a.name == "door"] == [False]
    assert "box" in saved.obstacle_names
    oracle = rasterize(saved)
    codes, headers = _grid(level)
    assert np.array_equal(codes > 0, oracle.walkable)
    legend = [int(v) for v in headers["x-navkit-legend"].split(",")]
    weights = np.where(codes > 0, np.array([0, *legend])[codes], 0)
    assert oracle.weights is not None
    assert np.array_equal(weights, np.where(oracle.walkable, oracle.weights, 0))
    # and differs from the file as loaded: the edits are in it
    assert not np.array_equal(rasterize(parse_level(LEVEL)).walkable, oracle.walkable)


def test_save_and_rebuild_need_a_level(files: dict[str, Path]) -> None:
    with _client(files["map"]) as c:
        _err(c.get("/api/level"), 409)
        _err(c.post("/api/level/rebuild", json={"cellSize": 1.0}), 409)
        assert c.get("/api/info").json()["buildParams"] is None
    with _client(files["scene"]) as c:
        assert c.get("/api/level").status_code == 200
        _err(c.post("/api/level/rebuild", json={"cellSize": 1.0}), 409)


# ---------------------------------------------------------------- rebuild
def test_rebuild_with_new_parameters(level: TestClient) -> None:
    level.post("/api/areas", json={"name": "door", "available": False})
    v0 = level.get("/api/info").json()["version"]
    r = level.post("/api/level/rebuild", json={"cellSize": 0.25, "agentRadius": 0.1})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["buildParams"]["cellSize"] == 0.25 and out["version"] > v0
    want = copy.deepcopy(LEVEL)
    want.update(cellSize=0.25, agentRadius=0.1)
    want["areas"][2]["available"] = False  # the door stays closed
    oracle = rasterize(parse_level(want))
    codes, headers = _grid(level)
    assert codes.shape == oracle.walkable.shape and np.array_equal(codes > 0, oracle.walkable)
    info = level.get("/api/info").json()
    assert info["grid"]["cellSize"] == 0.25 and int(headers["x-navkit-version"]) == info["version"]
    # queries run on the new grid
    p = level.post("/api/path", json={"start": [8, 8], "goal": [40, 8]}).json()
    assert p["costInt"] == Pathfinder(oracle).find_path_cells((8, 8), (40, 8)).cost_int


@pytest.mark.parametrize(("body", "field"), [
    ({"cellSize": -1}, "cellSize"),
    ({"cellSize": 0}, "cellSize"),
    ({"cellSize": 0.0005}, "cellSize"),
    ({"agentRadius": "big"}, "agentRadius"),
    ({"objectPadding": -0.5}, "objectPadding"),
    ({"boundaryPadding": None}, "boundaryPadding"),
    ({"cellsize": 1}, "cellsize"),
    ({}, None),
])
def test_rebuild_validation(level: TestClient, body: dict[str, Any], field: str | None) -> None:
    before = level.get("/api/info").json()
    e = _err(level.post("/api/level/rebuild", json=body), 400, field)
    if field:
        assert field in e["message"] or e["field"] == field
    after = level.get("/api/info").json()
    assert after["version"] == before["version"] and after["grid"] == before["grid"]


def test_palette_index_is_fnv1a() -> None:
    # FNV-1a 32-bit test vectors (Fowler, Noll, Vo): "" -> 0x811c9dc5, "a" -> 0xe40c292c,
    # "foobar" -> 0xbf9cf968
    assert palette_index("") == 0x811C9DC5 % 12
    assert palette_index("a") == 0xE40C292C % 12
    assert palette_index("foobar") == 0xBF9CF968 % 12
    assert palette_index(7) == palette_index("7")
