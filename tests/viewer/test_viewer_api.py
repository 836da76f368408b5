"""API tests of the visual debugger (``navkit view``): every endpoint, good and bad input.

Runs the Starlette app in-process (``starlette.testclient``); the browser
tests are in ``test_viewer_browser.py``.
"""

from __future__ import annotations

import json
import math
import socket
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.testclient import TestClient  # noqa: E402

from navkit import NavMap, Pathfinder  # noqa: E402
from navkit.level import parse_level  # noqa: E402
from navkit.viewer import create_app, expanded_costs, expanded_mask, search_generation  # noqa: E402
from navkit.viewer.search import Searcher  # noqa: E402
from navkit.viewer.state import parse_replay  # noqa: E402

BASE = "http://127.0.0.1:8765"
WS = "ws://127.0.0.1:8765/ws/sim"

# Two rooms joined by a door, and by a long way round through a muddy
# corridor; an island nothing reaches. Cells are 0.5 m and the grid starts at
# (-1, -1) m (the rasterizer's margin): it is 30 x 20 cells, and world point
# (x, z) lies in cell (2x + 2, 2z + 2).
LEVEL: dict[str, Any] = {
    "cellSize": 0.5,
    "agentRadius": 0.0,
    "objectPadding": 0.0,
    "areas": [
        {"name": "west", "polygon": [[0, 0], [4, 0], [4, 4], [0, 4]]},
        {"name": "east", "polygon": [[6, 0], [10, 0], [10, 4], [6, 4]]},
        {"name": "door", "polygon": [[4, 1], [6, 1], [6, 3], [4, 3]]},
        {"name": "link_w", "polygon": [[0.5, 4], [1.5, 4], [1.5, 6], [0.5, 6]]},
        {"name": "link_e", "polygon": [[8.5, 4], [9.5, 4], [9.5, 6], [8.5, 6]]},
        {"name": "corridor", "polygon": [[0, 6], [10, 6], [10, 8], [0, 8]]},
        {"name": "mud", "weight": 4, "polygon": [[3, 6], [7, 6], [7, 8], [3, 8]]},
        {"name": "island", "polygon": [[11, 0], [13, 0], [13, 2], [11, 2]]},
    ],
    "obstacles": [{"name": "crate", "polygon": [[1, 2.5], [1.5, 2.5], [1.5, 3], [1, 3]]}],
}
WEST = [4, 4]  # cell in the west room (world 1.25, 1.25)
EAST = [20, 4]  # cell in the east room, straight through the door
ISLAND = [26, 4]
BLOCKED = [12, 12]  # between the rooms and the corridor

SCENE: dict[str, Any] = {
    "navigation": LEVEL,
    "tickRate": 20,
    "characters": [
        {"id": "a", "kind": "npc", "position": [1.25, 1.25], "walkSpeed": 1.5},
        {"id": "b", "kind": "npc", "position": [9.25, 3.25], "walkSpeed": 1.5},
        {"id": 7, "kind": "player", "position": [2.25, 7.25]},
    ],
    "commands": [
        {"tick": 0, "character": "a", "moveTo": [9.25, 1.25]},
        {"tick": 0, "character": "b", "moveTo": [1.25, 3.25]},
    ],
}

MAP_TEXT = """type octile
height 6
width 10
map
..........
..........
....@@....
....@@....
..........
..........
"""


def _write(path: Path, obj: Any) -> Path:
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("viewer")
    out = {
        "level": _write(d / "level.json", LEVEL),
        "scene": _write(d / "scene.json", SCENE),
        "map": d / "small.map",
    }
    out["map"].write_text(MAP_TEXT, encoding="utf-8")
    from navkit.sim import ReplayWriter, load_scene

    loc = load_scene(out["scene"])
    out["replay"] = d / "run.jsonl"
    with ReplayWriter(out["replay"], loc) as w:
        for _ in range(30):
            w.record(loc.step())
    return out


def _client(target: Path, **kwargs: Any) -> TestClient:
    return TestClient(create_app(target, **kwargs), base_url=BASE)


@pytest.fixture()
def level(files: dict[str, Path]) -> Any:
    with _client(files["level"]) as c:
        yield c


@pytest.fixture()
def scene(files: dict[str, Path]) -> Any:
    with _client(files["scene"]) as c:
        yield c


@pytest.fixture()
def grid_map(files: dict[str, Path]) -> Any:
    with _client(files["map"]) as c:
        yield c


def _err(r: Any, status: int, field: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"}, body
    e = body["error"]
    assert e["status"] == status and isinstance(e["message"], str) and e["message"]
    if field is not None:
        assert e["field"] == field, e
    return e


def _oracle(start: list[int], goal: list[int], *, door: bool = True) -> Any:
    cfg = parse_level(LEVEL)
    nav = NavMap(cfg)
    if not door:
        nav.set_area_available("door", False)
    return nav.pathfinder.find_path_cells(tuple(start), tuple(goal), smooth=True, nearest=True)


# ----------------------------------------------------------------- the map
def test_info_describes_the_level(level: TestClient) -> None:
    info = level.get("/api/info").json()
    assert info["kind"] == "map" and info["name"] == "level.json"
    g = info["grid"]
    assert (g["width"], g["depth"], g["cellSize"], g["weighted"]) == (30, 20, 0.5, True)
    assert [a["name"] for a in info["areas"]] == [a["name"] for a in LEVEL["areas"]]
    door = next(a for a in info["areas"] if a["name"] == "door")
    assert door["available"] is True and door["polygon"] == [[4, 1], [6, 1], [6, 3], [4, 3]]
    assert [o["name"] for o in info["obstacles"]] == ["crate"]
    names = [a["name"] for a in info["algorithms"]]
    import navkit.query.pathfinder as pfmod

    for name in getattr(pfmod, "ALGORITHMS", ("astar", "dijkstra")):
        assert name in names
    # JPS (when navkit has it) does not apply to a weighted grid, and says why
    jps = next((a for a in info["algorithms"] if a["name"] == "jps"), None)
    if jps is not None:
        assert jps["available"] is False and "weight" in jps["reason"]
    # the library's default; on this weighted grid it runs A*
    assert info["defaultAlgorithm"] == "auto" and info["autoAlgorithm"] == "astar"
    assert info["scene"] is None and info["replay"] is None
    assert info["limits"]["bodyBytes"] == 1 << 20


def test_grid_bytes_match_the_navmap(level: TestClient) -> None:
    r = level.get("/api/grid")
    assert r.status_code == 200 and r.headers["content-type"] == "application/octet-stream"
    w, d = int(r.headers["x-navkit-width"]), int(r.headers["x-navkit-depth"])
    legend = [int(v) for v in r.headers["x-navkit-legend"].split(",")]
    assert legend == [1, 4]
    codes = np.frombuffer(r.content, dtype=np.uint8).reshape(d, w)
    grid = NavMap(parse_level(LEVEL)).grid
    assert np.array_equal(codes > 0, grid.walkable)
    weights = np.array([0, *legend])[codes]
    assert np.array_equal(weights[grid.walkable], grid.weight_array()[grid.walkable])
    assert r.headers["x-navkit-version"] == "0"


def test_path_matches_the_pathfinder(level: TestClient) -> None:
    r = level.post("/api/path", json={"start": WEST, "goal": EAST})
    assert r.status_code == 200, r.text
    out = r.json()
    ref = _oracle(WEST, EAST)
    assert out["status"] == "FOUND" and out["found"] and not out["nearest"]
    assert out["cells"] == ref.cells.tolist()
    assert out["cost"] == pytest.approx(16.0) and out["costInt"] == ref.cost_int
    assert out["expanded"] == ref.expanded and out["timeMs"] >= 0
    assert out["smoothed"][0] == WEST and out["smoothed"][-1] == EAST
    assert out["endCell"] == EAST and out["algorithm"] == "auto"  # the default
    assert out["resolvedAlgorithm"] == "astar"
    heat = out["heat"]
    assert heat["count"] == out["expanded"]
    import base64

    data = np.frombuffer(base64.b64decode(heat["data"]), dtype=np.uint8)
    assert len(data) == heat["w"] * heat["h"] and int((data > 0).sum()) == heat["count"]
    assert heat["maxCost"] <= out["cost"] + 1e-9


def test_dijkstra_expands_more_for_the_same_cost(level: TestClient) -> None:
    a = level.post("/api/path", json={"start": WEST, "goal": EAST, "algorithm": "astar"}).json()
    d = level.post("/api/path", json={"start": WEST, "goal": EAST, "algorithm": "dijkstra"}).json()
    assert d["cost"] == a["cost"] and d["expanded"] > a["expanded"]
    assert d["heat"]["count"] == d["expanded"]


def test_unreachable_goal_gives_the_nearest_cell(level: TestClient) -> None:
    out = level.post("/api/path", json={"start": WEST, "goal": ISLAND}).json()
    ref = _oracle(WEST, ISLAND)
    assert out["status"] == "NEAREST" and out["nearest"] and not out["found"]
    assert out["endCell"] == list(ref.end_cell) and out["endCell"] != ISLAND
    assert out["cells"][-1] == out["endCell"]


def test_blocked_start_has_no_path_and_no_stale_heat(level: TestClient) -> None:
    level.post("/api/path", json={"start": WEST, "goal": EAST})  # leaves expanded cells behind
    out = level.post("/api/path", json={"start": BLOCKED, "goal": EAST}).json()
    assert out["status"] == "NO_START" and not out["hasPath"] and out["cells"] == []
    assert out["cost"] is None and out["heat"]["count"] == 0


@pytest.mark.heavy  # compiles every algorithm's kernels when numba's cache is cold
def test_every_algorithm_answers(files: dict[str, Path]) -> None:
    with _client(files["map"]) as c:
        info = c.get("/api/info").json()
        for a in info["algorithms"]:
            body = {"start": [0, 0], "goal": [9, 5], "algorithm": a["name"]}
            out = c.post("/api/path", json=body)
            assert out.status_code == 200, (a, out.text)
            assert out.json()["status"] == "FOUND", a


def test_areas_toggle_changes_the_next_path(level: TestClient) -> None:
    before = level.post("/api/path", json={"start": WEST, "goal": EAST}).json()
    r = level.post("/api/areas", json={"name": "door", "available": False})
    assert r.status_code == 200
    assert r.json() == {"name": "door", "available": False, "changed": True, "version": 1}
    after = level.post("/api/path", json={"start": WEST, "goal": EAST}).json()
    ref = _oracle(WEST, EAST, door=False)
    assert after["cells"] == ref.cells.tolist() and after["cost"] > before["cost"]
    assert after["version"] == 1
    info = level.get("/api/info").json()
    assert next(a for a in info["areas"] if a["name"] == "door")["available"] is False
    # the same state again changes nothing
    r = level.post("/api/areas", json={"name": "door", "available": False})
    assert r.json()["changed"] is False and r.json()["version"] == 1
    level.post("/api/areas", json={"name": "door", "available": True})
    again = level.post("/api/path", json={"start": WEST, "goal": EAST}).json()
    assert again["cells"] == before["cells"]


def test_obstacles_add_and_remove(level: TestClient) -> None:
    before = level.post("/api/path", json={"start": WEST, "goal": EAST}).json()
    # a block across the door's middle (world x 4.5..5.5, z 1..3)
    poly = [[4.5, 1.0], [5.5, 1.0], [5.5, 3.0], [4.5, 3.0]]
    r = level.post("/api/obstacles", json={"polygon": poly})
    assert r.status_code == 201, r.text
    name = r.json()["name"]
    assert name.startswith("viewer_") and r.json()["version"] == 1
    listed = {o["name"]: o for o in r.json()["obstacles"]}
    assert listed[name]["added"] is True and listed["crate"]["added"] is False
    codes = np.frombuffer(level.get("/api/grid").content, dtype=np.uint8).reshape(20, 30)
    assert codes[4, 11] == 0 and codes[4, 10] > 0  # cell (11, 4): centre (4.75, 1.25) inside
    blocked = level.post("/api/path", json={"start": WEST, "goal": EAST}).json()
    assert blocked["cost"] > before["cost"]
    assert [11, 4] not in blocked["cells"]
    # a named one, then a clash
    box2 = {"name": "box 2", "polygon": [[1, 6.5], [2, 6.5], [2, 7.5]]}
    r = level.post("/api/obstacles", json=box2)
    assert r.status_code == 201 and r.json()["name"] == "box 2"
    _err(level.post("/api/obstacles", json={"name": "box 2", "polygon": poly}), 409, "name")
    # remove both, and one from the level file
    assert level.delete(f"/api/obstacles/{name}").status_code == 200
    assert level.delete("/api/obstacles/box%202").status_code == 200
    r = level.delete("/api/obstacles/crate")
    assert r.status_code == 200 and r.json()["obstacles"] == []
    _err(level.delete("/api/obstacles/crate"), 404, "name")
    again = level.post("/api/path", json={"start": WEST, "goal": EAST}).json()
    assert again["cost"] == before["cost"]


def test_a_failed_obstacle_add_changes_nothing(level: TestClient) -> None:
    crossed = {"polygon": [[0, 0], [2, 2], [2, 0], [0, 2]]}  # self-intersecting
    for _ in range(3):
        _err(level.post("/api/obstacles", json=crossed), 400, "polygon")
    info = level.get("/api/info").json()
    assert info["version"] == 0 and [o["name"] for o in info["obstacles"]] == ["crate"]
    r = level.post("/api/obstacles", json={"polygon": [[0, 0], [1, 0], [1, 1]]})
    assert r.status_code == 201 and r.json()["name"] == "viewer_1"  # no number skipped
    r = level.post("/api/obstacles", json={"polygon": [[2, 0], [3, 0], [3, 1]]})
    assert r.json()["name"] == "viewer_2"


def test_plain_grid_has_no_areas_but_takes_obstacles(grid_map: TestClient) -> None:
    info = grid_map.get("/api/info").json()
    assert info["areas"] == [] and info["obstacles"] == [] and not info["grid"]["weighted"]
    e = _err(grid_map.post("/api/areas", json={"name": "door", "available": True}), 400, "name")
    assert "none" in e["message"]
    r = grid_map.post("/api/obstacles", json={"polygon": [[0, 0], [3, 0], [3, 3], [0, 3]]})
    assert r.status_code == 201
    assert r.json()["obstacles"][0]["polygon"] == [[0, 0], [3, 0], [3, 3], [0, 3]]
    out = grid_map.post("/api/path", json={"start": [0, 0], "goal": [9, 5]}).json()
    assert out["status"] == "NO_START"


# ------------------------------------------------------------- bad input
BAD_PATHS = [
    ({"goal": EAST}, "start"),
    ({"start": WEST}, "goal"),
    ({"start": WEST, "goal": EAST, "extra": 1}, "extra"),
    ({"start": [2.5, 2], "goal": EAST}, "start"),
    ({"start": [True, 2], "goal": EAST}, "start"),
    ({"start": "2,2", "goal": EAST}, "start"),
    ({"start": [2, 2, 0], "goal": EAST}, "start"),
    ({"start": [-1, 2], "goal": EAST}, "start"),
    ({"start": WEST, "goal": [30, 0]}, "goal"),
    ({"start": WEST, "goal": [0, 20]}, "goal"),
    ({"start": WEST, "goal": [0, 10**30]}, "goal"),
    ({"start": WEST, "goal": None}, "goal"),
    ({"start": WEST, "goal": EAST, "algorithm": "bogo"}, "algorithm"),
    ({"start": WEST, "goal": EAST, "algorithm": ["astar"]}, "algorithm"),
]


@pytest.mark.parametrize(("body", "field"), BAD_PATHS)
def test_bad_path_requests(level: TestClient, body: dict[str, Any], field: str) -> None:
    _err(level.post("/api/path", json=body), 400, field)


def test_bad_bodies_get_clear_errors_and_change_nothing(level: TestClient) -> None:
    hdr = {"content-type": "application/json"}
    _err(level.post("/api/path", content=b"{not json", headers=hdr), 400)
    _err(level.post("/api/path", content=b'{"start": [NaN, 1], "goal": [1, 1]}', headers=hdr), 400)
    _err(level.post("/api/path", content=b"[1, 2]", headers=hdr), 400)
    _err(level.post("/api/path", content=b"", headers=hdr), 400)
    _err(level.post("/api/path", content=b"\xff\xfe", headers=hdr), 400)
    e = _err(level.post("/api/path", content=json.dumps({"start": WEST, "goal": EAST}),
                        headers={"content-type": "text/plain"}), 415)
    assert e["code"] == "unsupported_media_type"
    big = json.dumps({"start": WEST, "goal": EAST, "pad": "x" * (1 << 20)})
    assert _err(level.post("/api/path", content=big, headers=hdr), 413)["code"] == "too_large"

    def chunks() -> Any:
        for _ in range(40):
            yield b"x" * 32768

    _err(level.post("/api/path", content=chunks(), headers=hdr), 413)
    for body, field in [
        ({"name": "door"}, "available"),
        ({"name": "door", "available": "no"}, "available"),
        ({"name": "door", "available": 0}, "available"),
        ({"name": "nowhere", "available": False}, "name"),
        ({"name": "", "available": False}, "name"),
        ({"name": 5, "available": False}, "name"),
        ({"name": "x" * 500, "available": False}, "name"),
    ]:
        _err(level.post("/api/areas", json=body), 400, field)
    for body, field in [
        ({}, "polygon"),
        ({"polygon": [[0, 0], [1, 1]]}, "polygon"),
        ({"polygon": [[0, 0], [1, 0], [1, "a"]]}, "polygon[2][1]"),
        ({"polygon": [[0, 0], [1, 0], [1e9, 1]]}, "polygon[2]"),
        ({"polygon": [[0, 0]] * 65}, "polygon"),
        ({"polygon": [[0, 0], [2, 2], [2, 0], [0, 2]]}, "polygon"),  # self-intersecting
        ({"polygon": [[0, 0], [1, 0], [1, 1]], "name": "../x"}, "name"),
        ({"polygon": [[0, 0], [1, 0], [1, 1]], "colour": "red"}, "colour"),
    ]:
        _err(level.post("/api/obstacles", json=body), 400, field)
    _err(level.delete("/api/obstacles/nothing_here"), 404, "name")
    # nothing changed, and the server still answers
    info = level.get("/api/info").json()
    assert info["version"] == 0 and [o["name"] for o in info["obstacles"]] == ["crate"]
    assert all(a["available"] for a in info["areas"])
    assert level.post("/api/path", json={"start": WEST, "goal": EAST}).json()["status"] == "FOUND"


def test_unknown_routes_and_methods_are_json(level: TestClient) -> None:
    assert _err(level.get("/api/nothing"), 404)["code"] == "not_found"
    assert _err(level.get("/api/path"), 405)["code"] == "method_not_allowed"
    assert _err(level.put("/api/info"), 405)["code"] == "method_not_allowed"


# ------------------------------------------------------------------ safety
def test_static_files_and_traversal(level: TestClient) -> None:
    r = level.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "content-security-policy" in r.headers
    assert r.headers["x-content-type-options"] == "nosniff"
    html = r.text
    js = level.get("/static/app.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    css = level.get("/static/style.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    for text in (html, js.text, css.text):  # no CDN, no network: only the page's own server
        assert "http://" not in text and "https://" not in text and "//cdn" not in text
    for bad in [
        "/static/../server.py",
        "/static/%2e%2e/server.py",
        "/static/..%2fserver.py",
        "/static/%2e%2e%2f%2e%2e%2fgrid.py",
        "/static/style.css/../../api.py",
        "/static//etc/passwd",
        "/static/%00",
        "/static/nothing.js",
        "/static/",
        "/../navkit/viewer/server.py",
        "/server.py",
        "/static/..\\server.py",
    ]:
        r = level.get(bad)
        assert r.status_code == 404, (bad, r.status_code)
        assert "def create_app" not in r.text


def test_host_and_origin_checks(files: dict[str, Path]) -> None:
    app = create_app(files["level"], warm=False)
    with TestClient(app, base_url="http://evil.example:8765") as c:
        assert _err(c.get("/api/info"), 400)["code"] == "bad_host"
    with _client(files["level"], warm=False) as c:
        r = c.post("/api/areas", json={"name": "door", "available": False},
                   headers={"origin": "http://evil.example"})
        assert _err(r, 403)["code"] == "cross_origin"
        r = c.post("/api/areas", json={"name": "door", "available": False},
                   headers={"origin": "null"})
        _err(r, 403)
        assert c.get("/api/info").json()["version"] == 0
        r = c.post("/api/areas", json={"name": "door", "available": False},
                   headers={"origin": "http://127.0.0.1:8765"})
        assert r.status_code == 200
        assert c.get("/api/info", headers={"host": "localhost:8765"}).status_code == 200


def test_a_remote_bind_keeps_a_host_allow_list(files: dict[str, Path]) -> None:
    app = create_app(files["level"], host="0.0.0.0", allow_hosts=["box.lan", "10.0.0.7"],
                     warm=False)
    with TestClient(app, base_url="http://evil.example:8765") as c:
        e = _err(c.get("/api/info"), 400)
        assert e["code"] == "bad_host" and "box.lan" in e["message"]
        for host in ("box.lan:8765", "BOX.LAN", "10.0.0.7:1", "0.0.0.0:8765", "127.0.0.1:8765",
                     "localhost", "[::1]:8765"):
            assert c.get("/api/info", headers={"host": host}).status_code == 200, host
        r = c.post("/api/areas", json={"name": "door", "available": False},
                   headers={"host": "box.lan:8765", "origin": "http://evil.example"})
        assert _err(r, 403)["code"] == "cross_origin"
    with TestClient(create_app(files["level"], host="0.0.0.0", warm=False),
                    base_url="http://box.lan:1") as c:
        assert _err(c.get("/api/info"), 400)["code"] == "bad_host"


def test_serve_refuses_a_remote_bind_unless_asked(files: dict[str, Path], monkeypatch: Any) -> None:
    import uvicorn

    from navkit.errors import ConfigError
    from navkit.viewer import serve

    def run(self: Any, sockets: Any = None) -> None:
        raise AssertionError("served")

    monkeypatch.setattr(uvicorn.Server, "run", run)

    for host in ("0.0.0.0", "::", "192.0.2.1", "example.com"):
        with pytest.raises(ConfigError, match="allow_remote"):
            serve(files["map"], host=host, port=0)
    with pytest.raises(ConfigError, match="host name"):
        serve(files["map"], port=0, allow_hosts=["bad name"])


# -------------------------------------------------------------- simulation
def _positions(frame: dict[str, Any]) -> np.ndarray:
    return np.array(frame["pos"], dtype=float).reshape(-1, 2)


def test_sim_frame_and_step(scene: TestClient) -> None:
    info = scene.get("/api/info").json()
    assert info["kind"] == "scene" and info["scene"]["characters"] == 3
    f0 = scene.get("/api/sim").json()
    assert f0["type"] == "frame" and f0["full"] and f0["tick"] == 0
    assert f0["ids"] == [7, "a", "b"] and f0["kinds"] == ["player", "npc", "npc"]
    assert f0["radii"] == [pytest.approx(0.32)] * 3 and len(f0["pos"]) == 6
    f1 = scene.post("/api/sim/step", json={"ticks": 10}).json()
    assert f1["tick"] == 10 and not f1["playing"]
    moved = np.hypot(*(_positions(f1) - _positions(f0)).T)
    assert moved[0] == 0 and moved[1] > 0.5 and moved[2] > 0.5
    assert f1["state"][1:] == "ww" and f1["state"][0] == "i"
    assert len(f1["paths"]["1"]) >= 1 and f1["wp"][1] >= 0
    assert scene.post("/api/sim/step").json()["tick"] == 11  # empty body: one tick


def test_sim_play_pause_speed_reset(scene: TestClient) -> None:
    r = scene.post("/api/sim/speed", json={"speed": 8})
    assert r.status_code == 200 and r.json()["speed"] == 8.0
    assert scene.post("/api/sim/play").json()["playing"] is True
    deadline = time.monotonic() + 10
    tick = 0
    while time.monotonic() < deadline and tick < 20:
        time.sleep(0.05)
        tick = scene.get("/api/sim").json()["tick"]
    assert tick >= 20
    paused = scene.post("/api/sim/pause", content=b"{}",
                        headers={"content-type": "application/json"})
    assert paused.json()["playing"] is False
    t1 = scene.get("/api/sim").json()["tick"]
    time.sleep(0.2)
    assert scene.get("/api/sim").json()["tick"] == t1
    r = scene.post("/api/sim/reset").json()
    assert r["tick"] == 0 and r["full"]


def test_sim_websocket_streams_ticks(scene: TestClient) -> None:
    with scene.websocket_connect(WS) as ws:
        first = ws.receive_json()
        assert first["type"] == "frame" and first["full"] and first["ids"] == [7, "a", "b"]
        scene.post("/api/sim/step", json={"ticks": 3})
        msg = ws.receive_json()
        assert msg["type"] == "frame" and msg["tick"] == 3 and not msg["full"]
        scene.post("/api/sim/speed", json={"speed": 4})
        assert ws.receive_json() == {**ws_status(scene), "type": "status"}
        scene.post("/api/sim/play")
        ticks = []
        while len(ticks) < 5:
            m = ws.receive_json()
            if m["type"] == "frame":
                ticks.append(m["tick"])
        assert ticks == sorted(ticks) and ticks[-1] > 3
        scene.post("/api/sim/pause")
        scene.post("/api/areas", json={"name": "door", "available": False})
        kinds = set()
        for _ in range(50):
            m = ws.receive_json()
            kinds.add(m["type"])
            if m["type"] == "map":
                assert m["version"] == 1
                break
        assert "map" in kinds


def ws_status(client: TestClient) -> dict[str, Any]:
    info = client.get("/api/info").json()["scene"]
    return {k: info[k] for k in ("tick", "tickRate", "characters", "playing", "speed", "stats")}


def test_sim_target_and_character(scene: TestClient) -> None:
    r = scene.post("/api/sim/target", json={"id": 7, "target": [2.25, 1.25]})
    assert r.status_code == 200 and r.json()["accepted"] is True
    scene.post("/api/sim/step", json={"ticks": 2})
    c = scene.get("/api/sim/characters/7").json()
    assert c["id"] == 7 and c["kind"] == "player" and c["navigating"] is True
    assert c["requestedWalkTarget"] == [2.25, 1.25] and c["state"] == "walking"
    for key in ("pathWaypoints", "retryCooldownSequence", "movementBlockedTicks", "retryTicksLeft",
                "facing"):
        assert key in c
    a = scene.get("/api/sim/characters/a").json()
    assert a["id"] == "a" and a["movementContactRadius"] == pytest.approx(0.32)
    _err(scene.get("/api/sim/characters/zzz"), 404, "id")
    _err(scene.get("/api/sim/characters/" + "x" * 300), 400, "id")


def test_bad_sim_requests(scene: TestClient) -> None:
    for body, field in [({"ticks": 0}, "ticks"), ({"ticks": 1001}, "ticks"),
                        ({"ticks": "5"}, "ticks"), ({"ticks": True}, "ticks"),
                        ({"ticks": 1.5}, "ticks"), ({"tiks": 2}, "tiks")]:
        _err(scene.post("/api/sim/step", json=body), 400, field)
    for body, field in [({"speed": 0}, "speed"), ({"speed": 1000}, "speed"),
                        ({"speed": "fast"}, "speed"), ({}, "speed"), ({"speed": None}, "speed")]:
        _err(scene.post("/api/sim/speed", json=body), 400, field)
    _err(scene.post("/api/sim/speed", content=b'{"speed": Infinity}',
                    headers={"content-type": "application/json"}), 400)
    for body, field in [({"id": "nobody", "target": [1, 1]}, "id"),
                        ({"id": True, "target": [1, 1]}, "id"),
                        ({"id": "a", "target": [1]}, "target"),
                        ({"id": "a", "target": [1e6, 1]}, "target"),
                        ({"id": "a", "target": ["x", 1]}, "target[0]"), ({"id": "a"}, "target")]:
        _err(scene.post("/api/sim/target", json=body), 400, field)
    _err(scene.post("/api/sim/play", json={"now": True}), 400, "now")
    f = scene.get("/api/sim").json()
    assert f["tick"] == 0 and not f["playing"] and f["speed"] == 1.0


def test_sim_endpoints_need_a_scene(level: TestClient) -> None:
    for url in ("/api/sim/play", "/api/sim/pause", "/api/sim/step", "/api/sim/reset"):
        assert _err(level.post(url), 409)["code"] == "not_a_scene"
    _err(level.get("/api/sim"), 409)
    _err(level.get("/api/sim/characters/a"), 409)
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect) as exc, level.websocket_connect(WS) as ws:
        ws.receive_json()
    assert exc.value.code == 4409


def test_cross_origin_websocket_is_refused(scene: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect) as exc, scene.websocket_connect(
            WS, headers={"origin": "http://evil.example"}) as ws:
        ws.receive_json()
    assert exc.value.code == 1008 and "origin" in exc.value.reason
    with scene.websocket_connect(WS, headers={"origin": "http://127.0.0.1:8765"}) as ws:
        assert ws.receive_json()["full"] is True


# ---------------------------------------------------- hostile JSON bodies
BIG = "9" * 400  # past float range
HUGE = "9" * 4400  # past Python's int-parsing limit
DEEP = "[" * 100_000 + "]" * 100_000
NESTED = "[" * 40 + "]" * 40  # past the depth limit, well within Python's recursion limit

HOSTILE_BODIES = [
    ("/api/path", DEEP, None),
    ("/api/path", '{"start": @, "goal": [1, 1]}'.replace("@", DEEP), None),
    ("/api/path", '{"start": @, "goal": [1, 1]}'.replace("@", NESTED), None),
    ("/api/path", '{"start": [@, 1], "goal": [1, 1]}'.replace("@", BIG), "start"),
    ("/api/path", '{"start": [1, 1], "goal": [1, -@]}'.replace("@", HUGE), "goal"),
    ("/api/path", '{"start": [1, 1], "goal": [1, 1], "\\ud800": 1}', "\ud800"),
    ("/api/obstacles", '{"polygon": [[@, 0], [1, 0], [1, 1]]}'.replace("@", BIG), "polygon[0][0]"),
    ("/api/obstacles", '{"polygon": [[0, 0], [1, @], [1, 1]]}'.replace("@", HUGE), "polygon[1][1]"),
    ("/api/obstacles", '{"polygon": [[0, 0], [1, 0], [1e400, 1]]}', "polygon[2][0]"),
    ("/api/obstacles", '{"polygon": [[0, 0], [1, 0], [-1e16, 1]]}', "polygon[2][0]"),
    ("/api/obstacles", '{"polygon": [[0, 0], [1, 0], [1, 1]], "name": @}'.replace("@", BIG),
     "name"),
    ("/api/sim/speed", '{"speed": @}'.replace("@", BIG), "speed"),
    ("/api/sim/speed", '{"speed": @}'.replace("@", HUGE), "speed"),
    ("/api/sim/speed", '{"speed": 1e400}', "speed"),
    ("/api/sim/speed", '{"speed": -@}'.replace("@", BIG), "speed"),
    ("/api/sim/target", '{"id": "a", "target": [@, 1]}'.replace("@", BIG), "target[0]"),
    ("/api/sim/target", '{"id": "a", "target": [1, @]}'.replace("@", HUGE), "target[1]"),
    ("/api/sim/target", '{"id": @, "target": [1, 1]}'.replace("@", BIG), "id"),
    ("/api/sim/step", '{"ticks": @}'.replace("@", HUGE), "ticks"),
    ("/api/areas", '{"name": "door", "available": @}'.replace("@", BIG), "available"),
]


@pytest.mark.parametrize(("url", "text", "field"), HOSTILE_BODIES,
                         ids=[f"{u}-{i}" for i, (u, _, _) in enumerate(HOSTILE_BODIES)])
def test_hostile_bodies_get_400_naming_the_field(
    scene: TestClient, url: str, text: str, field: str | None
) -> None:
    r = scene.post(url, content=text.encode(), headers={"content-type": "application/json"})
    e = _err(r, 400, field)
    assert len(e["message"]) < 600
    if field is None:
        assert "nested" in e["message"]
    info = scene.get("/api/info").json()
    assert info["version"] == 0 and info["scene"]["speed"] == 1.0


def test_json_nesting_within_the_limit_is_parsed(level: TestClient) -> None:
    # depth 3 is all a request needs; an unknown key may nest up to the limit
    body = '{"start": [4, 4], "goal": [20, 4], "x": %s}' % ("[" * 30 + "]" * 30)
    e = _err(level.post("/api/path", content=body, headers={"content-type": "application/json"}),
             400, "x")
    assert "unknown key" in e["message"]
    body = '{"start": [4, 4], "goal": [20, 4], "pad": "%s"}' % ("[" * 5000)  # inside a string
    e = _err(level.post("/api/path", content=body, headers={"content-type": "application/json"}),
             400, "pad")


def _replay_with(files: dict[str, Path], header: dict[str, Any] | None = None,
                 tick: str | None = None) -> str:
    lines = files["replay"].read_text().splitlines()
    head = lines[0] if header is None else json.dumps({**json.loads(lines[0]), **header})
    return head + "\n" + (lines[1] if tick is None else tick)


def _tick_line(**fields: str) -> str:
    parts = {"type": '"tick"', "tick": "0",
             "positions": "[[1, 1], [2, 2], [3, 3]]", **fields}
    return "{" + ", ".join(f'"{k}": {v}' for k, v in parts.items()) + "}"


HOSTILE_REPLAYS = [
    ({"tickRate": "BIG"}, None, "tickRate", 1),
    ({"tickRate": 1e300}, None, "tickRate", 1),
    ({"ids": ["BIG", "a", "b"]}, None, "ids", 1),
    ({"ids": [2**60, "a", "b"]}, None, "ids", 1),
    ({"movementContactRadius": ["BIG", 1, 1]}, None, "movementContactRadius", 1),
    ({"startTick": "BIG"}, None, "startTick", 1),
    (None, _tick_line(positions=f"[[{BIG}, 1], [2, 2], [3, 3]]"), "positions", 2),
    (None, _tick_line(positions=f"[[1, 1], [2, {HUGE}], [3, 3]]"), "positions", 2),
    (None, _tick_line(positions="[[1, 1], [2, 2], [3, 1e300]]"), "positions", 2),
    (None, _tick_line(positions="[[1, 1], [2, 2], [3, -1e16]]"), "positions", 2),
    (None, _tick_line(positions=DEEP), None, 2),
    (None, _tick_line(positions=NESTED), None, 2),
    (None, _tick_line(tick=BIG), "tick", 2),
    (None, _tick_line(tick=HUGE), "tick", 2),
    (None, _tick_line(tick=str(2**60)), "tick", 2),
    (None, _tick_line(events='{"arrived": [1e400]}'), "events", 2),
    (None, _tick_line(events='{"arrived": [@]}'.replace("@", BIG)), "events", 2),
    (None, _tick_line(events='{"interactions": [[1, {"x": 1}]]}'), "events", 2),
]


@pytest.mark.parametrize(("header", "tick", "field", "line"), HOSTILE_REPLAYS,
                         ids=[f"{f}-{i}" for i, (_, _, f, _) in enumerate(HOSTILE_REPLAYS)])
def test_hostile_replays_get_400_naming_line_and_field(
    scene: TestClient, files: dict[str, Path], header: dict[str, Any] | None, tick: str | None,
    field: str | None, line: int
) -> None:
    text = _replay_with(files, header, tick).replace('"BIG"', BIG)
    r = scene.post("/api/replay", content=text.encode(),
                   headers={"content-type": "application/x-ndjson"})
    e = _err(r, 400)
    assert f"line {line}" in e["message"] and len(e["message"]) < 600, e
    if field is None:
        assert "nested" in e["message"], e
    else:
        assert e["field"] == field, e
    _err(scene.get("/api/replay"), 404)


def test_replay_ids_that_are_not_utf8_text_still_give_json(
    scene: TestClient, files: dict[str, Path]
) -> None:
    text = _replay_with(files).replace('"a"', '"\\ud800"', 1)
    r = scene.post("/api/replay", content=text.encode(),
                   headers={"content-type": "application/x-ndjson"})
    assert r.status_code in (200, 400), r.text
    assert r.json()


# ------------------------------------------------------------------ replays
def test_replay_upload_get_delete(scene: TestClient, files: dict[str, Path]) -> None:
    _err(scene.get("/api/replay"), 404)
    text = files["replay"].read_text()
    r = scene.post("/api/replay", content=text, headers={"content-type": "application/x-ndjson"})
    assert r.status_code == 200, r.text
    rep = r.json()
    assert rep["segments"][0]["ids"] == [7, "a", "b"] and len(rep["frames"]) == 30
    assert (rep["firstTick"], rep["lastTick"]) == (0, 29)
    first = rep["frames"][0]["pos"]
    assert len(first) == 6 and rep["frames"][-1]["pos"] != first
    assert scene.get("/api/replay").json() == rep
    assert scene.get("/api/info").json()["replay"]["frames"] == 30
    assert scene.delete("/api/replay").json() == {"deleted": True}
    _err(scene.get("/api/replay"), 404)


def test_bad_replays(scene: TestClient, files: dict[str, Path]) -> None:
    lines = files["replay"].read_text().splitlines()
    ndjson = {"content-type": "application/x-ndjson"}
    header = json.loads(lines[0])
    tick = json.loads(lines[1])
    cases = [
        ("{oops", "line 1"),
        (json.dumps(tick), "before the first header"),
        (json.dumps({**header, "format": "other/9"}), "format"),
        (lines[0] + "\n" + json.dumps({**tick, "positions": [[0, 0]]}), "line 2"),
        (lines[0] + "\n" + json.dumps({**tick, "positions": [[0, 0], [1, "x"], [2, 2]]}), "line 2"),
        (lines[0] + "\n" + lines[2] + "\n" + lines[1], "line 3"),  # ticks out of order
        (lines[0] + "\n" + json.dumps({**tick, "animation": "2x1"}), "animation"),
        (json.dumps({**header, "ids": ["a", "a", "b"]}), "repeats"),
        ("[]", "JSON object"),
        ("", "no header"),
    ]
    for text, needle in cases:
        e = _err(scene.post("/api/replay", content=text, headers=ndjson), 400)
        assert needle in e["message"], (needle, e["message"])
    _err(scene.post("/api/replay", content=lines[0], headers={"content-type": "image/png"}), 415)
    _err(scene.post("/api/replay", content=b"\xff\xfe\xfd", headers=ndjson), 400)
    _err(scene.get("/api/replay"), 404)


def test_large_replays_fit_the_upload_limit(scene: TestClient, files: dict[str, Path]) -> None:
    lines = files["replay"].read_text().splitlines()
    tick = json.loads(lines[1])
    body = [lines[0]] + [json.dumps({**tick, "tick": t}) for t in range(12_000)]
    text = "\n".join(body)
    assert len(text) > (1 << 20)  # over the JSON limit, under the replay limit
    r = scene.post("/api/replay", content=text, headers={"content-type": "application/x-ndjson"})
    assert r.status_code == 200 and len(r.json()["frames"]) == 12_000


def test_a_failing_tick_pauses_and_reports(scene: TestClient) -> None:
    st = scene.app.state.viewer  # type: ignore[attr-defined]

    def broken() -> Any:
        raise RuntimeError("kaboom")

    st.loc.step = broken
    with scene.websocket_connect(WS) as ws:
        assert ws.receive_json()["full"]
        scene.post("/api/sim/play")
        for _ in range(20):
            m = ws.receive_json()
            if m["type"] == "error":
                assert "kaboom" in m["message"]
                break
        else:
            raise AssertionError("no error message")
    del st.loc.step
    f = scene.get("/api/sim").json()
    assert f["playing"] is False and f["tick"] == 0
    assert scene.post("/api/sim/step").json()["tick"] == 1


def test_replay_preloaded_from_the_command_line(files: dict[str, Path]) -> None:
    with _client(files["level"], replay=files["replay"], warm=False) as c:
        assert c.get("/api/info").json()["replay"]["frames"] == 30
        assert len(c.get("/api/replay").json()["frames"]) == 30


def test_parse_replay_accepts_what_the_recorder_writes(files: dict[str, Path]) -> None:
    rep = parse_replay(files["replay"].read_text())
    assert rep["segments"][0]["tickRate"] == 20.0 and rep["frames"][3]["tick"] == 3


# --------------------------------------------------------- the helper, the CLI
def test_expanded_mask_matches_the_search() -> None:
    from navkit import NavGrid

    rng = np.random.default_rng(7)
    walk = rng.random((30, 40)) > 0.25
    walk[0, 0] = walk[29, 39] = True
    pf = Pathfinder(NavGrid(walk))
    gen = search_generation(pf)
    r = pf.find_path_cells((0, 0), (39, 29), algorithm="dijkstra")
    mask = expanded_mask(pf, since=gen)
    costs = expanded_costs(pf, since=gen)
    assert int(mask.sum()) == r.expanded and np.array_equal(mask, costs >= 0)
    assert not mask[~walk].any()
    if r.found:  # Dijkstra closes cells in cost order: every closed cell costs at most the goal
        assert costs.max() <= r.cost_int and costs[29, 39] == r.cost_int
    dist = pf.distance_field_int(np.array([[0, 0]]))
    assert np.array_equal(costs[mask], dist[mask])
    gen = search_generation(pf)
    blocked = tuple(int(v) for v in np.argwhere(~walk)[0][::-1])
    pf.find_path_cells(blocked, (39, 29))  # no search runs
    assert not expanded_mask(pf, since=gen).any()


def test_searcher_lists_what_navkit_has() -> None:
    from navkit import NavGrid

    pf = Pathfinder(NavGrid(np.ones((4, 4), bool)))
    names = Searcher().names(pf)
    assert names[:2] == ["astar", "dijkstra"]
    try:
        import navkit.query.hpa  # noqa: F401

        assert "hpa" in names
    except ImportError:
        assert "hpa" not in names


def test_cli_view_errors(files: dict[str, Path], tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from navkit.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["view", "--help"])
    assert r.exit_code == 0 and "--port" in r.output and "--no-open" in r.output
    r = runner.invoke(app, ["view", str(tmp_path / "missing.map"), "--no-open"])
    assert r.exit_code == 2 and "error:" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    r = runner.invoke(app, ["view", str(bad), "--no-open"])
    assert r.exit_code == 2 and "invalid JSON" in r.output
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = runner.invoke(app, ["view", str(files["map"]), "--no-open", "--port", str(port)])
        assert r.exit_code == 2 and "cannot listen" in r.output


def test_cli_view_remote_needs_allow_remote(files: dict[str, Path], monkeypatch: Any) -> None:
    import uvicorn
    from typer.testing import CliRunner

    from navkit.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["view", "--help"])
    assert "--allow-remote" in r.output and "--allow-host" in r.output
    for host in ("0.0.0.0", "192.0.2.1"):
        r = runner.invoke(app, ["view", str(files["map"]), "--no-open", "--host", host])
        assert r.exit_code == 2 and "error:" in r.output and "--allow-remote" in r.output
    r = runner.invoke(app, ["view", str(files["map"]), "--no-open", "--allow-host", "a b"])
    assert r.exit_code == 2 and "error:" in r.output
    ran: list[Any] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: ran.append(self))
    r = runner.invoke(app, ["view", str(files["map"]), "--no-open", "--port", "0", "--host",
                            "0.0.0.0", "--allow-remote", "--allow-host", "box.lan"])
    assert r.exit_code == 0, r.output
    assert len(ran) == 1 and "navkit viewer: http://0.0.0.0:" in r.output
    assert "warning:" in r.output and "box.lan" in r.output and "--allow-host" in r.output
    served = TestClient(ran[0].config.app, base_url="http://box.lan:8765")  # no lifespan
    assert served.get("/api/info").status_code == 200
    assert served.get("/api/info", headers={"host": "0.0.0.0:8765"}).status_code == 200
    assert _err(served.get("/api/info", headers={"host": "evil.example"}), 400)
    r = runner.invoke(app, ["view", str(files["map"]), "--no-open", "--port", "0"])
    assert r.exit_code == 0 and "warning" not in r.output and len(ran) == 2


def test_limits_are_sane() -> None:
    from navkit.viewer.state import LIMITS

    assert LIMITS["minSpeed"] > 0 and math.isfinite(LIMITS["maxSpeed"])
    assert LIMITS["bodyBytes"] < LIMITS["replayBytes"]
