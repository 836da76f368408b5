"""API tests of what the server holds between page loads and what the page defaults to:
the ``edits`` list of ``/api/info`` and ``POST /api/reset``, the ``auto`` default
algorithm, and Tiled maps whose doors open and close like a JSON level's.

Oracles: a fresh app on the same file (the map as the file says), the Pathfinder's own
``resolve_algorithm``, and :func:`navkit.formats.tiled.read_tiled_level` toggled by hand.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.testclient import TestClient  # noqa: E402

from navkit import NavMap, load_grid  # noqa: E402
from navkit.viewer import create_app  # noqa: E402
from tests.viewer.test_viewer_api import BASE, EAST, LEVEL, SCENE, WEST  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DUNGEON = REPO / "navkit" / "examples" / "dungeon.tmj"
FLAT: dict[str, Any] = copy.deepcopy(LEVEL)
FLAT["areas"][6].pop("weight")  # no terrain weights: auto is JPS


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("viewer-edits")
    out = {"level": d / "level.json", "flat": d / "flat.json", "scene": d / "scene.json",
           "plain_tiled": d / "plain.tmj"}
    out["level"].write_text(json.dumps(LEVEL))
    out["flat"].write_text(json.dumps(FLAT))
    out["scene"].write_text(json.dumps(SCENE))
    doc = json.loads(DUNGEON.read_text())  # the same map without its door objects
    doc["layers"] = [lay for lay in doc["layers"] if lay["type"] != "objectgroup"]
    out["plain_tiled"].write_text(json.dumps(doc))
    return out


def _client(target: Path) -> TestClient:
    return TestClient(create_app(target, warm=False), base_url=BASE)


def _grid(c: TestClient) -> tuple[bytes, int]:
    r = c.get("/api/grid")
    assert r.status_code == 200
    return r.content, int(r.headers["X-Navkit-Version"])


def _walk(c: TestClient) -> np.ndarray:
    r = c.get("/api/grid")
    w, d = int(r.headers["X-Navkit-Width"]), int(r.headers["X-Navkit-Depth"])
    return np.frombuffer(r.content, dtype=np.uint8).reshape(d, w) > 0


# ----------------------------------------------------------- default algorithm
@pytest.mark.parametrize("name", ["level", "flat"])
def test_default_algorithm_is_auto(files: dict[str, Path], name: str) -> None:
    oracle = NavMap.load(files[name]).pathfinder.resolve_algorithm("auto")
    with _client(files[name]) as c:
        info = c.get("/api/info").json()
        assert info["defaultAlgorithm"] == "auto"
        assert info["autoAlgorithm"] == oracle == ("astar" if name == "level" else "jps")
        got = c.post("/api/path", json={"start": WEST, "goal": EAST}).json()  # no algorithm
        assert got["algorithm"] == "auto" and got["resolvedAlgorithm"] == oracle
        same = c.post("/api/path", json={"start": WEST, "goal": EAST, "algorithm": oracle}).json()
        assert got["cells"] == same["cells"] and got["cost"] == same["cost"]


# -------------------------------------------------------------- edits, reset
def test_edits_are_listed_and_reset_drops_them(files: dict[str, Path]) -> None:
    with _client(files["level"]) as fresh:
        start_bytes, _ = _grid(fresh)
        start_info = fresh.get("/api/info").json()
    with _client(files["level"]) as c:
        assert c.get("/api/info").json()["edits"] == []
        # close and reopen a door: nothing differs from the file, nothing is listed
        c.post("/api/areas", json={"name": "island", "available": False})
        c.post("/api/areas", json={"name": "island", "available": True})
        assert c.get("/api/info").json()["edits"] == []
        c.post("/api/areas", json={"name": "door", "available": False})
        assert c.post("/api/obstacles", json={"polygon": [[6.5, 0.5], [7.5, 0.5], [7.5, 1.5]],
                                              "name": "box"}).status_code == 201
        assert c.delete("/api/obstacles/crate").status_code == 200
        assert c.post("/api/circles", json={"center": [2.0, 7.0], "radius": 0.6}).status_code == 201
        edits = c.get("/api/info").json()["edits"]
        assert edits == [
            {"kind": "area", "name": "door", "change": "closed"},
            {"kind": "obstacle", "name": "box", "change": "added"},
            {"kind": "obstacle", "name": "crate", "change": "removed"},
            {"kind": "circle", "name": "circle_1", "change": "added"},
        ]
        r = c.post("/api/level/rebuild", json={"agentRadius": 0.25})
        assert r.status_code == 200
        edits = c.get("/api/info").json()["edits"]
        assert edits[-1] == {"kind": "parameter", "name": "agentRadius", "change": "0 -> 0.25"}
        assert len(edits) == 5  # the rebuild kept the door, the obstacles and the circle
        edited_bytes, version = _grid(c)
        assert edited_bytes != start_bytes
        r = c.post("/api/reset")
        assert r.status_code == 200
        out = r.json()
        assert out["edits"] == [] and out["version"] > version and not out["scene"]
        info = c.get("/api/info").json()
        assert info["edits"] == [] and info["circles"] == []
        for k in ("areas", "obstacles", "buildParams", "grid"):
            assert info[k] == start_info[k], k
        after, v2 = _grid(c)
        assert after == start_bytes and v2 == out["version"]
        # edits after a reset are counted from the reset
        c.post("/api/areas", json={"name": "door", "available": False})
        assert [e["name"] for e in c.get("/api/info").json()["edits"]] == ["door"]
        assert _grid(c)[1] > v2


def test_reset_on_a_plain_grid(files: dict[str, Path]) -> None:
    with _client(files["plain_tiled"]) as c:
        start, _ = _grid(c)
        c.post("/api/obstacles", json={"polygon": [[1, 1], [3, 1], [3, 3], [1, 3]]})
        assert c.get("/api/info").json()["edits"] == [
            {"kind": "obstacle", "name": "viewer_1", "change": "added"}]
        assert _grid(c)[0] != start
        assert c.post("/api/reset").json()["edits"] == []
        assert _grid(c)[0] == start
        assert c.get("/api/info").json()["obstacles"] == []


def test_reset_on_a_scene_restarts_it(files: dict[str, Path]) -> None:
    with _client(files["scene"]) as c:
        c.post("/api/sim/step", json={"ticks": 5})
        c.post("/api/areas", json={"name": "door", "available": False})
        assert c.get("/api/info").json()["edits"] == [
            {"kind": "area", "name": "door", "change": "closed"}]
        out = c.post("/api/reset").json()
        assert out["scene"] and out["edits"] == []
        assert c.get("/api/sim").json()["tick"] == 0
        assert [a["available"] for a in c.get("/api/info").json()["areas"]
                if a["name"] == "door"] == [True]


def test_reset_validation(files: dict[str, Path]) -> None:
    with _client(files["level"]) as c:
        c.post("/api/areas", json={"name": "door", "available": False})
        r = c.post("/api/reset", json={"everything": True})
        assert r.status_code == 400 and r.json()["error"]["field"] == "everything"
        r = c.post("/api/reset", content=b"x", headers={"content-type": "text/plain"})
        assert r.status_code == 415
        assert c.get("/api/reset").status_code == 405
        r = c.post("/api/reset", headers={"origin": "http://evil.example"})
        assert r.status_code == 403
        assert len(c.get("/api/info").json()["edits"]) == 1  # refused: nothing changed


# ---------------------------------------------------------------- Tiled doors
def test_tiled_doors_toggle_like_level_doors(files: dict[str, Path]) -> None:
    from navkit.formats.tiled import read_tiled_level

    oracle = read_tiled_level(DUNGEON)
    with _client(DUNGEON) as c:
        info = c.get("/api/info").json()
        doors = [a["name"] for a in info["areas"] if not a["generated"]]
        assert doors == ["door1", "door2"]
        assert all(a["name"].startswith("tiles:") for a in info["areas"] if a["generated"])
        assert np.array_equal(_walk(c), oracle.grid.walkable)
        # every door open: the tile grid inside the level's 2-cell margin
        assert np.array_equal(_walk(c)[2:-2, 2:-2], load_grid(DUNGEON).walkable)
        r = c.post("/api/areas", json={"name": "door1", "available": False})
        assert r.status_code == 200 and r.json()["changed"]
        oracle.set_area_available("door1", False)
        assert np.array_equal(_walk(c), oracle.grid.walkable)
        assert c.get("/api/info").json()["edits"] == [
            {"kind": "area", "name": "door1", "change": "closed"}]
        # the saved level reads back to the grid served
        from navkit.level import parse_level, rasterize

        saved = c.get("/api/level")
        assert saved.status_code == 200
        assert np.array_equal(rasterize(parse_level(saved.json())).walkable, _walk(c))
        assert c.post("/api/reset").json()["edits"] == []
        assert np.array_equal(_walk(c), read_tiled_level(DUNGEON).grid.walkable)


def test_tiled_door_closes_the_way(files: dict[str, Path]) -> None:
    from navkit.formats.tiled import read_tiled_level

    # tiles (1, 1) and (7, 1): west and east rooms, joined by door1 at tile (5, 3) and,
    # the long way, by door2 and the bottom corridor; cells = tiles + the 2-cell margin
    west, east, door1 = [3, 3], [9, 3], [7, 5]
    nav = NavMap(read_tiled_level(DUNGEON))
    with _client(DUNGEON) as c:
        open_path = c.post("/api/path", json={"start": west, "goal": east}).json()
        assert open_path["status"] == "FOUND" and door1 in open_path["cells"]
        c.post("/api/areas", json={"name": "door1", "available": False})
        closed = c.post("/api/path", json={"start": west, "goal": east}).json()
        nav.set_area_available("door1", False)
        want = nav.pathfinder.find_path_cells(tuple(west), tuple(east), nearest=True)
        assert closed["status"] == "FOUND" and door1 not in closed["cells"]
        assert closed["cells"] == np.asarray(want.cells).tolist()
        assert closed["cost"] == pytest.approx(want.cost) and closed["cost"] > open_path["cost"]


def test_tiled_map_without_doors_stays_a_plain_grid(files: dict[str, Path]) -> None:
    with _client(files["plain_tiled"]) as c:
        info = c.get("/api/info").json()
        assert info["areas"] == [] and info["buildParams"] is None
        assert np.array_equal(_walk(c), load_grid(files["plain_tiled"]).walkable)
