"""The viewer shows buildings (levels with ``floors``): the floors, the links, paths
across floors, links switched on and off, in the API and in the page.

Oracles: a :class:`navkit.floors.FloorMap` of the same file, edited the same way.
The browser test uses the harness of ``test_viewer_browser.py`` (headless Debian
Chromium through Playwright, skipped without it unless ``NAVKIT_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.testclient import TestClient  # noqa: E402

from navkit.floors import FloorMap  # noqa: E402
from navkit.viewer import create_app  # noqa: E402
from tests.viewer import test_viewer_browser as _browser_tests  # noqa: E402
from tests.viewer.live import LiveServer, canvas_pixel, shot  # noqa: E402
from tests.viewer.test_viewer_browser import LEVEL, _click_cell, _close, _open, _wait  # noqa: E402

chromium = _browser_tests.browser

REPO = Path(__file__).resolve().parents[2]
TAVERN = REPO / "navkit" / "examples" / "tavern.json"
BASE = "http://127.0.0.1:8765"

# world points (x, z) and their floors in the tavern
TAPROOM = ((2.0, 8.0), 0)
KITCHEN = ((17.0, 2.0), 0)
YARD = ((17.0, 8.0), 0)
ROOM1 = ((16.0, 2.0), 1)
ROOM2 = ((16.0, 7.0), 1)
LANDING = ((10.0, 8.0), 1)
PAIRS = [(TAPROOM, ROOM1), (ROOM1, KITCHEN), (ROOM2, TAPROOM), (LANDING, YARD),
         (TAPROOM, KITCHEN)]


@pytest.fixture()
def client() -> Iterator[TestClient]:
    with TestClient(create_app(TAVERN, warm=False), base_url=BASE) as c:
        yield c


def _oracle() -> FloorMap:
    return FloorMap(str(TAVERN), warm=False)


def _path(c: TestClient, a: Any, b: Any, **extra: Any) -> dict[str, Any]:
    body = {"start": list(a[0]), "goal": list(b[0]), "startFloor": a[1], "goalFloor": b[1],
            **extra}
    r = c.post("/api/floors/path", json=body)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _finite(v: float) -> float | None:
    """A number as the API's JSON gives it: null for inf."""
    return v if math.isfinite(v) else None


def _same(got: dict[str, Any], want: Any) -> None:
    """The API's answer is ``FloorMap.find_path``'s."""
    assert got["status"] == want.status.name
    assert got["cost"] == pytest.approx(_finite(want.cost))
    assert got["costInt"] == want.cost_int
    assert got["floors"] == [int(f) for f in want.floors]
    assert [s["name"] for s in got["links"]] == want.link_names
    assert [s["at"] for s in got["links"]] == [s.at for s in want.links]
    assert np.allclose(np.asarray(got["waypoints"], np.float64).reshape(-1, 2),
                       np.asarray(want.waypoints), atol=1e-4)
    assert got["length"] == pytest.approx(_finite(want.length), abs=1e-6)
    visited = [int(f) for i, f in enumerate(want.floors) if i == 0 or want.floors[i - 1] != f]
    assert got["floorsVisited"] == visited


# ----------------------------------------------------------------------- api
def test_a_building_loads_with_its_floors_and_links(client: TestClient) -> None:
    fm = _oracle()
    info = client.get("/api/info").json()
    assert info["kind"] == "building"
    b = info["building"]
    assert b == client.get("/api/floors").json()
    assert [f["name"] for f in b["floors"]] == list(fm.floor_names)
    assert [f["floorY"] for f in b["floors"]] == fm.floor_ys.tolist()
    assert [f["walkable"] for f in b["floors"]] == [
        int(fm.building.grid(i).walkable.sum()) for i in range(len(fm.floor_names))]
    assert b["shown"] == 0 and [f["shown"] for f in b["floors"]] == [True, False]
    # the map part of /api/info is the floor shown
    assert info["grid"]["walkable"] == b["floors"][0]["walkable"]
    assert info["grid"]["floorY"] == 0.0
    links = b["links"]
    assert [lk["name"] for lk in links] == list(fm.building.link_names)
    for got, lk in zip(links, fm.building.links, strict=True):
        assert got["kind"] == lk.kind and got["bidirectional"] == lk.bidirectional
        assert got["cost"] == pytest.approx(lk.cost)
        assert got["enabled"] is True
        assert (got["from"]["floor"], got["to"]["floor"]) == (lk.start.floor, lk.end.floor)
        assert got["from"]["point"] == list(lk.start.point)
        assert got["to"]["floorName"] == fm.floor_names[lk.end.floor]
        g = fm.building.grid(lk.end.floor)
        assert got["to"]["cell"] == list(g.world_to_cell(*lk.end.point))


def test_showing_a_floor_switches_the_map_endpoints(client: TestClient) -> None:
    fm = _oracle()
    for floor, name in ((1, "upstairs"), ("ground", "ground"), ("upstairs", "upstairs")):
        r = client.post("/api/floors/show", json={"floor": floor})
        assert r.status_code == 200, r.text
        i = list(fm.floor_names).index(name)
        assert r.json()["shown"] == i
        assert r.json()["grid"]["floorY"] == float(fm.floor_ys[i])
        grid = client.get("/api/grid")
        codes = np.frombuffer(grid.content, np.uint8).reshape(
            int(grid.headers["X-Navkit-Depth"]), int(grid.headers["X-Navkit-Width"]))
        assert np.array_equal(codes > 0, fm.building.grid(i).walkable)
        info = client.get("/api/info").json()
        assert [a["name"] for a in info["areas"]] == list(fm.building.levels[i].area_names)


def test_cross_floor_paths_equal_floormap(client: TestClient) -> None:
    fm = _oracle()
    floors_seen = set()
    for a, b in PAIRS:
        for algo in ("auto", "dijkstra"):
            got = _path(client, a, b, algorithm=algo)
            want = fm.find_path(a[0], b[0], start_floor=a[1], goal_floor=b[1], algorithm=algo)
            _same(got, want)
            floors_seen.add(tuple(got["floorsVisited"]))
            # pieces: one per floor run, cut where a link is taken; links say where
            assert len(got["pieces"]) == len(got["links"]) + 1
            for s, before, after in zip(got["links"], got["pieces"], got["pieces"][1:],
                                        strict=False):
                assert before["points"][-1] == s["from"] and after["points"][0] == s["to"]
                assert (before["floor"], after["floor"]) == (s["fromFloor"], s["toFloor"])
            assert got["pieces"][0]["points"][0] == list(a[0])
    assert {(0, 1), (1, 0), (0,)} <= floors_seen  # up, down and level


def test_mesh_routes_equal_floormesh(client: TestClient) -> None:
    from navkit.floors import Building
    from navkit.floors.mesh import FloorMesh

    fm = FloorMesh(Building(str(TAVERN)), weights="ignore")
    for a, b in PAIRS[:3]:
        for algo in ("exact", "funnel"):
            got = _path(client, a, b, mode="mesh", algorithm=algo)
            want = fm.find_path(a[0], b[0], start_floor=a[1], goal_floor=b[1], algorithm=algo)
            assert got["status"] == want.status.name and got["mode"] == "mesh"
            assert got["length"] == pytest.approx(want.length)
            assert np.allclose(got["waypoints"], want.waypoints, atol=1e-4)
            assert got["floors"] == want.floors.tolist()
            assert [s["index"] for s in got["links"]] == want.links
            assert got["cost"] is None and got["weightsIgnored"] is True  # the yard weighs 2
            assert len(got["pieces"]) == len(want.links) + 1
    client.post("/api/floors/links", json={"name": "stairs", "enabled": False})
    fm.building.set_link_enabled("stairs", False)
    got = _path(client, TAPROOM, ROOM1, mode="mesh")
    want = fm.find_path(TAPROOM[0], ROOM1[0], start_floor=0, goal_floor=1)
    assert [s["index"] for s in got["links"]] == want.links == [1]
    assert got["length"] == pytest.approx(want.length)


def test_switching_a_link_off_changes_the_answer(client: TestClient) -> None:
    fm = _oracle()
    before = _path(client, TAPROOM, ROOM1)
    assert [s["name"] for s in before["links"]] == ["stairs"]
    r = client.post("/api/floors/links", json={"name": "stairs", "enabled": False})
    assert r.status_code == 200, r.text
    assert r.json()["changed"] is True
    assert [lk["enabled"] for lk in r.json()["links"]] == [False, True, True]
    assert client.get("/api/info").json()["edits"] == [
        {"kind": "link", "name": "stairs", "change": "switched off"}]
    fm.set_link_enabled("stairs", False)
    after = _path(client, TAPROOM, ROOM1)
    _same(after, fm.find_path(TAPROOM[0], ROOM1[0], start_floor=0, goal_floor=1))
    assert [s["name"] for s in after["links"]] != ["stairs"]
    assert after["cost"] > before["cost"]
    # every way up off: no path; the one-way window still goes down
    client.post("/api/floors/links", json={"name": "ladder", "enabled": False})
    fm.set_link_enabled("ladder", False)
    none = _path(client, TAPROOM, ROOM1)
    _same(none, fm.find_path(TAPROOM[0], ROOM1[0], start_floor=0, goal_floor=1))
    assert none["hasPath"] is False and none["cost"] is None
    down = _path(client, ROOM1, YARD)
    assert [s["name"] for s in down["links"]] == ["window"]
    # reset: the file's links again
    assert client.post("/api/reset").status_code == 200
    assert client.get("/api/info").json()["edits"] == []
    assert _path(client, TAPROOM, ROOM1)["links"] == before["links"]


def test_an_obstacle_on_the_floor_shown_changes_the_building(client: TestClient) -> None:
    fm = _oracle()
    client.post("/api/floors/show", json={"floor": "upstairs"})
    before = _path(client, TAPROOM, ROOM1)
    # block room1's doorway from the landing (upstairs): the route must come round
    door = [[13.0, 1.4], [15.0, 1.4], [15.0, 3.1], [13.0, 3.1]]
    r = client.post("/api/obstacles", json={"polygon": door, "name": "crate"})
    assert r.status_code == 201, r.text
    fm.add_obstacle("crate", door, floor=1)
    after = _path(client, TAPROOM, ROOM1)
    _same(after, fm.find_path(TAPROOM[0], ROOM1[0], start_floor=0, goal_floor=1))
    assert after["cost"] != before["cost"]
    edits = client.get("/api/info").json()["edits"]
    assert edits == [{"kind": "obstacle", "name": "upstairs:crate", "change": "added"}]
    # the ground floor's map does not have it
    client.post("/api/floors/show", json={"floor": 0})
    assert "crate" not in [o["name"] for o in client.get("/api/info").json()["obstacles"]]


def test_circles_on_any_floor_block_routes(client: TestClient) -> None:
    fm = _oracle()
    before = _path(client, TAPROOM, ROOM1)
    # a circle over the foot of the stairs (ground), another on the landing (upstairs)
    r = client.post("/api/circles", json={"center": [10.5, 1.0], "radius": 1.0})
    assert r.status_code == 201, r.text
    client.post("/api/floors/show", json={"floor": 1})
    client.post("/api/circles", json={"center": [12.0, 6.0], "radius": 0.8})
    circles = [[10.5, 1.0, 1.0, 0], [12.0, 6.0, 0.8, 1]]
    after = _path(client, TAPROOM, ROOM1)
    _same(after, fm.find_path(TAPROOM[0], ROOM1[0], start_floor=0, goal_floor=1,
                              obstacles=circles))
    assert [s["name"] for s in before["links"]] == ["stairs"]
    assert [s["name"] for s in after["links"]] == ["ladder"]


@pytest.mark.parametrize(("url", "body", "field"), [
    ("/api/floors/show", {"floor": 2}, "floor"),
    ("/api/floors/show", {"floor": "cellar"}, "floor"),
    ("/api/floors/show", {"floor": True}, "floor"),
    ("/api/floors/show", {}, "floor"),
    ("/api/floors/links", {"name": "lift", "enabled": False}, "name"),
    ("/api/floors/links", {"name": "stairs", "enabled": "no"}, "enabled"),
    ("/api/floors/path", {"start": [2, 8], "goal": [16, 2], "startFloor": 0}, "goalFloor"),
    ("/api/floors/path", {"start": [2, 8], "goal": [16, 2], "startFloor": 0, "goalFloor": 5},
     "goalFloor"),
    ("/api/floors/path", {"start": [2, 8], "goal": [900, 2], "startFloor": 0, "goalFloor": 1},
     "goal"),
    ("/api/floors/path", {"start": [2], "goal": [16, 2], "startFloor": 0, "goalFloor": 1},
     "start"),
    ("/api/floors/path", {"start": [2, 8], "goal": [16, 2], "startFloor": 0, "goalFloor": 1,
                          "algorithm": "hpa"}, "algorithm"),
    ("/api/floors/path", {"start": [2, 8], "goal": [16, 2], "startFloor": 0, "goalFloor": 1,
                          "floor": 0}, "floor"),
    ("/api/floors/path", {"start": [2, 8], "goal": [16, 2], "startFloor": 0, "goalFloor": 1,
                          "mode": "navmesh"}, "mode"),
    ("/api/floors/path", {"start": [2, 8], "goal": [16, 2], "startFloor": 0, "goalFloor": 1,
                          "mode": "mesh", "algorithm": "jps"}, "algorithm"),
])
def test_bad_requests_get_a_json_error(client: TestClient, url: str, body: dict[str, Any],
                                       field: str) -> None:
    r = client.post(url, json=body)
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["field"] == field and err["message"]


def test_blocked_ends_answer_a_status_not_an_error(client: TestClient) -> None:
    fm = _oracle()
    # (-2.5, 8) on the upstairs floor: off the map, nothing walkable within the snap radius
    got = _path(client, ((-2.5, 8.0), 1), ROOM1)
    _same(got, fm.find_path((-2.5, 8.0), ROOM1[0], start_floor=1, goal_floor=1))
    assert got["status"] == "NO_START" and "upstairs" in got["reason"]


def test_building_only_endpoints_refuse_other_maps(tmp_path: Path) -> None:
    level = tmp_path / "level.json"
    level.write_text(json.dumps(LEVEL))
    with TestClient(create_app(level, warm=False), base_url=BASE) as c:
        assert c.get("/api/info").json()["building"] is None
        r = c.get("/api/floors")
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_a_building"
        r = c.post("/api/floors/path", json={"start": [1, 1], "goal": [2, 2], "startFloor": 0,
                                              "goalFloor": 0})
        assert r.status_code == 409


def test_level_endpoints_on_a_building(client: TestClient) -> None:
    fm = _oracle()
    r = client.get("/api/level")
    assert r.status_code == 200
    assert r.json() == fm.building.config.to_json_dict()
    # edited: a link off and an obstacle upstairs are in the saved building
    client.post("/api/floors/links", json={"name": "ladder", "enabled": False})
    client.post("/api/floors/show", json={"floor": 1})
    crate = [[15.0, 6.0], [16.0, 6.0], [16.0, 7.0], [15.0, 7.0]]
    client.post("/api/obstacles", json={"polygon": crate, "name": "crate"})
    saved = FloorMap(client.get("/api/level").json(), warm=False)
    assert saved.building.link_enabled("ladder") is False
    assert "crate" in saved.building.levels[1].obstacle_names
    fm.add_obstacle("crate", crate, floor=1)
    assert np.array_equal(saved.building.grid(1).walkable, fm.building.grid(1).walkable)
    r = client.post("/api/level/rebuild", json={"cellSize": 0.5})
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_a_level"


# ------------------------------------------------------------------- browser
def _cell(x: float, z: float) -> list[int]:
    g = _oracle().building.grid(0)
    return list(g.world_to_cell(x, z))


def test_page_switches_floors_and_routes_across_them(chromium: Any) -> None:
    fm = _oracle()
    with LiveServer(TAVERN) as srv:
        page = _open(chromium, srv.url)
        buttons = page.locator("#floor-buttons button")
        assert buttons.count() == 2
        assert "ground" in buttons.nth(0).inner_text() and "3.2" in buttons.nth(1).inner_text()
        # plain cells: no legend, labels, outlines or area tints (the tint arrives with the
        # areas, asynchronously) over the pixels compared below
        for box in ("#show-legend", "#show-labels", "#show-polygons", "#show-area-colors"):
            page.uncheck(box)
        taproom = _cell(2.0, 8.0)  # walkable on the ground floor, blocked upstairs
        assert fm.building.grid(0).walkable[taproom[1], taproom[0]]
        assert not fm.building.grid(1).walkable[taproom[1], taproom[0]]
        # a frame drawn after the boxes were unchecked (no legend, no labels over the cell)
        _wait(page, "navkit.drawn.building && navkit.drawn.building.floor === 0 && "
                    "!navkit.drawn.legendBox && navkit.drawn.labels.length === 0")
        ground = canvas_pixel(page, taproom)
        ends0 = page.evaluate("navkit.drawn.building.ends.map(e => e.name + ':' + e.end)")
        assert sorted(ends0) == ["ladder:from", "stairs:from", "window:to"]
        # the route's start on the ground floor, its goal upstairs
        _click_cell(page, taproom)
        page.click("#floor-buttons button[data-floor='1']")
        _wait(page, "navkit.floorSwitches === 1 && navkit.drawn.building.floor === 1")
        assert page.evaluate("navkit.grid.codes.filter(c => c > 0).length") == int(
            fm.building.grid(1).walkable.sum())
        upstairs = canvas_pixel(page, taproom)
        assert ground == [236, 236, 230] and upstairs == [38, 40, 48]
        ends1 = page.evaluate("navkit.drawn.building.ends.map(e => e.name + ':' + e.end)")
        assert sorted(ends1) == ["ladder:to", "stairs:to", "window:from"]
        room1 = _cell(16.0, 2.0)
        _click_cell(page, room1)
        _wait(page, "navkit.routeCount === 1")
        want = fm.find_path(page.evaluate("navkit.routeStart.point"),
                            page.evaluate("navkit.routeGoal.point"), start_floor=0, goal_floor=1)
        route = page.evaluate("navkit.route")
        _same(route, want)
        items = page.locator("#route-links li")
        assert [items.nth(i).get_attribute("data-link") for i in range(items.count())] \
            == want.link_names == ["stairs"]
        assert page.inner_text("#route-floors") == "ground → upstairs"
        page.check("#show-labels")
        _wait(page, "navkit.drawn.building.pieces.length === 1 && navkit.drawn.linkLabels.length")
        legs = page.evaluate("navkit.drawn.building.legs")
        assert [(g["name"], g["tag"]) for g in legs] == [("stairs", "arrives")]
        labels = page.evaluate("navkit.drawn.linkLabels.map(l => l.text)")
        assert "stairs (stairs) → ground" in labels
        assert "window (jump) → ground" in labels
        shot(page, "viewer_floors_route.png")
        # switch the stairs off in the list: the route goes by the ladder
        page.uncheck("#links input[data-link='stairs']")
        _wait(page, "navkit.routeCount === 2")
        fm.set_link_enabled("stairs", False)
        want = fm.find_path(page.evaluate("navkit.routeStart.point"),
                            page.evaluate("navkit.routeGoal.point"), start_floor=0, goal_floor=1)
        _same(page.evaluate("navkit.route"), want)
        assert page.locator("#route-links li").first.get_attribute("data-link") == "ladder"
        _wait(page, "navkit.drawn.linkLabels.some(l => l.text.endsWith('(off)'))")
        assert srv.api("GET", "/api/floors")["links"][0]["enabled"] is False
        # the same route on the floors' nav meshes
        page.select_option("#floor-algorithm", "mesh:exact")
        _wait(page, "navkit.routeCount === 3")
        route = page.evaluate("navkit.route")
        assert route["mode"] == "mesh" and [s["name"] for s in route["links"]] == ["ladder"]
        shown = page.inner_text("#route-length").split()[0].replace(",", "")
        assert float(shown) == pytest.approx(route["length"], abs=1e-3)
        _close(page)
