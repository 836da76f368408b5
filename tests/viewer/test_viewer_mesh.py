"""The viewer's navigation-mesh layer: ``GET /api/mesh``, ``POST /api/mesh/path``, and the page.

The API tests run the app in-process and check the drawing against the
mesh's own arrays rebuilt independently (shared edges found by brute force,
areas by shapely) and the paths against :meth:`navkit.NavMesh.find_path`; the
browser test toggles the layer in headless Chromium (see
``test_viewer_browser.py`` for how it is found and started).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("navkit.mesh.navmesh", reason="the mesh package does not import")

import shapely  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

import navkit.viewer.mesh as vmesh  # noqa: E402
from navkit import NavMap  # noqa: E402
from navkit.level import parse_level  # noqa: E402
from navkit.mesh.navmesh import NavMesh  # noqa: E402
from navkit.viewer import create_app  # noqa: E402
from tests.viewer.test_viewer_api import LEVEL, MAP_TEXT  # noqa: E402

BASE = "http://127.0.0.1:8765"
# world points of the cells the grid tests use (cell (x, z) has its centre at
# (x / 2 - 0.75, z / 2 - 0.75) m): west room, east room (straight through the
# door), the corridor, the island nothing reaches
WEST_W, EAST_W, CORRIDOR_W, ISLAND_W = [1.25, 1.25], [9.25, 1.25], [2.25, 7.25], [12.25, 1.25]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("viewer-mesh")
    level = d / "level.json"
    level.write_text(json.dumps(LEVEL), encoding="utf-8")
    grid_map = d / "small.map"
    grid_map.write_text(MAP_TEXT, encoding="utf-8")
    return {"level": level, "map": grid_map}


def _client(target: Path) -> TestClient:
    return TestClient(create_app(target, warm=False), base_url=BASE)


def _level_mesh(**changes: bool) -> NavMesh:
    cfg = parse_level(LEVEL)
    for name, available in changes.items():
        cfg = cfg.with_area_available(name, available)
    return NavMesh.from_level(cfg, weights="ignore")


def _pairs(flat: list[float]) -> list[tuple[float, float]]:
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]


def _edges(polygons: list[list[float]]) -> Counter[frozenset[tuple[float, float]]]:
    """Every polygon edge, undirected, with how many polygons have it (brute force)."""
    count: Counter[frozenset[tuple[float, float]]] = Counter()
    for flat in polygons:
        pts = _pairs(flat)
        for i, p in enumerate(pts):
            count[frozenset((p, pts[(i + 1) % len(pts)]))] += 1
    return count


def _segments(flat: list[float]) -> set[frozenset[tuple[float, float]]]:
    return {frozenset(((flat[i], flat[i + 1]), (flat[i + 2], flat[i + 3])))
            for i in range(0, len(flat), 4)}


def _check_drawing(out: dict[str, Any], mesh: NavMesh, free_area: float) -> None:
    polys = out["polygons"]
    assert out["nPolygons"] == len(polys) == mesh.n_polygons
    assert out["nVertices"] == mesh.n_vertices
    shapes = [shapely.Polygon(_pairs(p)) for p in polys]
    for s in shapes:  # convex, counter-clockwise (x right, z "up" in the maths sense)
        assert s.is_valid and s.exterior.is_ccw and abs(s.area - s.convex_hull.area) < 1e-9
    # they tile the free space: no overlap, the union has the free space's area
    total = sum(s.area for s in shapes)
    assert total == pytest.approx(free_area, rel=1e-6, abs=1e-6)
    assert shapely.union_all(shapes).area == pytest.approx(total, rel=1e-6)
    # portals: the edges two polygons share (once); walls: the edges only one has
    count = _edges(polys)
    assert _segments(out["portals"]) == {e for e, k in count.items() if k == 2}
    assert _segments(out["walls"]) == {e for e, k in count.items() if k == 1}
    assert len(out["portals"]) == 4 * out["nPortals"] and len(out["walls"]) == 4 * out["nWalls"]
    assert max(count.values()) <= 2


# ------------------------------------------------------------------- API
def test_mesh_is_lazy_and_matches_the_navmesh(files: dict[str, Path]) -> None:
    with _client(files["level"]) as c:
        view = c.app.state.viewer.map.searcher.mesh  # type: ignore[attr-defined]
        info = c.get("/api/info").json()["mesh"]
        assert info["available"] and info["methods"] == ["exact", "funnel"]
        assert info["built"] is False and view.builds == 0  # nothing built before it is asked
        r = c.get("/api/mesh")
        assert r.status_code == 200, r.text
        out = r.json()
        ref = _level_mesh()
        free = ref.space.area
        # independent: the level's walkable area by shapely (rooms, door, links, corridor,
        # island, less the crate): 16 + 16 + 4 + 2 + 2 + 20 + 4 - 0.25
        assert free == pytest.approx(63.75)
        _check_drawing(out, ref, free)
        assert out["version"] == 0 and out["weightsIgnored"] is True  # the mud weighs 4
        assert out["regions"] == 2  # the island is apart
        assert out["buildMs"] > 0 and view.builds == 1
        again = c.get("/api/mesh").json()
        assert again["buildMs"] == 0 and view.builds == 1  # cached
        assert again["polygons"] == out["polygons"]
        info = c.get("/api/info").json()["mesh"]
        assert info["built"] is True and info["polygons"] == ref.n_polygons


def test_mesh_is_rebuilt_when_the_map_changes(files: dict[str, Path]) -> None:
    with _client(files["level"]) as c:
        view = c.app.state.viewer.map.searcher.mesh  # type: ignore[attr-defined]
        before = c.get("/api/mesh").json()
        assert c.post("/api/areas", json={"name": "door", "available": False}).status_code == 200
        after = c.get("/api/mesh").json()
        assert after["version"] == 1 and view.builds == 2
        ref = _level_mesh(door=False)
        _check_drawing(after, ref, ref.space.area)
        assert ref.space.area == pytest.approx(63.75 - 4)
        assert after["polygons"] != before["polygons"]
        # the path now goes round by the corridor, as NavMesh says
        body = {"start": WEST_W, "goal": EAST_W}
        out = c.post("/api/mesh/path", json=body).json()
        exact = out["paths"]["exact"]
        want = ref.find_path(WEST_W, EAST_W)
        assert exact["status"] == want.status.name
        assert exact["waypoints"] == want.waypoints.tolist()
        # independent: the grid goes round by the corridor, so there is a way, and it is long
        grid = c.post("/api/path", json={"start": [4, 4], "goal": [20, 4]}).json()
        assert grid["found"]
        assert want.status.name == "FOUND", f"NavMesh finds no way round: {want}"
        assert exact["length"] == pytest.approx(want.length) and want.length > 8.0 + 4


def test_mesh_path_matches_navmesh_find_path(files: dict[str, Path]) -> None:
    ref = _level_mesh()
    with _client(files["level"]) as c:
        for goal in (EAST_W, CORRIDOR_W):
            body = {"start": WEST_W, "goal": goal, "methods": ["exact", "funnel"]}
            r = c.post("/api/mesh/path", json=body)
            assert r.status_code == 200, r.text
            out = r.json()
            assert out["start"] == WEST_W and out["goal"] == goal and out["version"] == 0
            assert out["nPolygons"] == ref.n_polygons and out["nearest"] is False
            assert set(out["paths"]) == {"exact", "funnel"}
            for method, p in out["paths"].items():
                want = ref.find_path(WEST_W, goal, algorithm=method)
                assert p["method"] == method and p["status"] == want.status.name == "FOUND"
                assert p["found"] and p["hasPath"]
                assert p["waypoints"] == want.waypoints.tolist()
                assert p["length"] == pytest.approx(want.length, rel=1e-12)
                assert (p["expanded"], p["generated"]) == (want.expanded, want.generated)
                assert (p["startPolygon"], p["endPolygon"]) == (want.start_polygon,
                                                                 want.end_polygon)
                pts = p["waypoints"]
                assert pts[0] == WEST_W and pts[-1] == goal
                assert p["length"] == pytest.approx(
                    sum(math.dist(a, b) for a, b in zip(pts, pts[1:], strict=False)))
                assert p["timeMs"] >= 0
            assert out["paths"]["exact"]["length"] <= out["paths"]["funnel"]["length"] + 1e-9
        # independent: through the door the shortest path is the straight line, 8 m
        straight = c.post("/api/mesh/path", json={"start": WEST_W, "goal": EAST_W}).json()
        assert list(straight["paths"]) == ["exact"]
        assert straight["paths"]["exact"]["length"] == pytest.approx(8.0)
        # the island: unreachable, or the nearest reachable point with nearest=true
        far = c.post("/api/mesh/path", json={"start": WEST_W, "goal": ISLAND_W}).json()
        p = far["paths"]["exact"]
        assert p["status"] == "UNREACHABLE" and not p["hasPath"]
        assert p["waypoints"] == [] and p["length"] is None
        near = c.post("/api/mesh/path",
                      json={"start": WEST_W, "goal": ISLAND_W, "nearest": True}).json()
        p = near["paths"]["exact"]
        want = ref.find_path_to_nearest(WEST_W, ISLAND_W)
        assert p["status"] == want.status.name == "NEAREST"
        assert p["waypoints"] == want.waypoints.tolist()


def test_mesh_of_a_plain_grid(files: dict[str, Path]) -> None:
    grid = NavMap.load(files["map"]).grid
    ref = NavMesh.from_grid(grid)
    with _client(files["map"]) as c:
        out = c.get("/api/mesh").json()
        # independent: the walkable cells' area
        free = float(np.count_nonzero(grid.walkable)) * grid.cell_size ** 2
        _check_drawing(out, ref, free)
        assert out["weightsIgnored"] is False
        a = [grid.min_x + 0.5 * grid.cell_size, grid.min_z + 2.5 * grid.cell_size]
        b = [grid.min_x + 9.5 * grid.cell_size, grid.min_z + 3.5 * grid.cell_size]
        p = c.post("/api/mesh/path", json={"start": a, "goal": b}).json()["paths"]["exact"]
        assert p["waypoints"] == ref.find_path(a, b).waypoints.tolist()
        # an obstacle dropped on the grid rebuilds the mesh around it
        cs = grid.cell_size
        square = [[grid.min_x + 1 * cs, grid.min_z + 0 * cs], [grid.min_x + 2 * cs, grid.min_z],
                  [grid.min_x + 2 * cs, grid.min_z + cs], [grid.min_x + cs, grid.min_z + cs]]
        assert c.post("/api/obstacles", json={"polygon": square}).status_code == 201
        after = c.get("/api/mesh").json()
        assert after["version"] == 1
        assert sum(shapely.Polygon(_pairs(q)).area for q in after["polygons"]) < free


def test_mesh_requests_are_validated(files: dict[str, Path]) -> None:
    with _client(files["level"]) as c:
        def err(body: Any, field: str | None, status: int = 400) -> None:
            r = c.post("/api/mesh/path", json=body)
            assert r.status_code == status, r.text
            e = r.json()["error"]
            assert e["field"] == field and e["message"], e

        err({"start": WEST_W}, "goal")
        err({"start": WEST_W, "goal": EAST_W, "method": "exact"}, "method")
        for methods in ([], ["astar"], ["exact", "exact"], "exact", [1], ["exact", "funnel", "x"]):
            err({"start": WEST_W, "goal": EAST_W, "methods": methods}, "methods")
        err({"start": WEST_W, "goal": EAST_W, "nearest": 1}, "nearest")
        err({"start": [1000, 0], "goal": EAST_W}, "start")
        r = c.post("/api/mesh/path", content=b'{"start": [1, 1], "goal": [0, NaN]}',
                   headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and "NaN" in r.json()["error"]["message"]
        err({"start": WEST_W, "goal": ["a", 1]}, "goal[0]")
        assert c.get("/api/mesh/path").status_code == 405
        assert c.post("/api/mesh", json={}).status_code == 405
        assert c.app.state.viewer.map.searcher.mesh.builds == 0  # type: ignore[attr-defined]


def test_without_the_mesh_package(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vmesh, "mesh_support", lambda: (False, "no meshes here"))
    with _client(files["level"]) as c:
        info = c.get("/api/info").json()["mesh"]
        assert info == {"available": False, "reason": "no meshes here", "methods": [],
                        "built": False}
        for r in (c.get("/api/mesh"),
                  c.post("/api/mesh/path", json={"start": WEST_W, "goal": EAST_W})):
            assert r.status_code == 501
            assert r.json()["error"]["code"] == "mesh_unavailable"
        # the grid side still works
        assert c.post("/api/path", json={"start": [4, 4], "goal": [20, 4]}).json()["found"]


# --------------------------------------------------------------- browser
def test_page_draws_the_mesh_and_its_path(files: dict[str, Path]) -> None:
    from tests.viewer.live import LiveServer
    from tests.viewer.test_viewer_browser import (
        CHROMIUM_ARGS,
        _chromium_path,
        _click_cell,
        _close,
        _open,
        _shot,
        _unavailable,
        _wait,
    )

    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:
        _unavailable(f"the playwright package is not installed ({e})")
    exe = _chromium_path()
    if exe is None:
        _unavailable("no Chromium found (apt-get install chromium, or set NAVKIT_CHROMIUM)")

    canvas_sum = """(() => { const c = document.getElementById('view');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) n += d[i] * 3 + d[i + 1] * 5 + d[i + 2] * 7;
        return n; })()"""
    with sync_playwright() as pw:
        try:
            br = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS,
                                    timeout=30_000)
        except Exception as e:  # noqa: BLE001 - cannot start here
            _unavailable(f"Chromium at {exe} did not start: {str(e).splitlines()[0][:300]}")
        try:
            ctx = br.new_context(viewport={"width": 1200, "height": 760})
            with LiveServer(files["level"]) as srv:
                page = _open(ctx, srv.url)
                assert page.is_enabled("#show-mesh") and not page.is_checked("#show-mesh")
                assert page.is_hidden("#row-mesh")
                page.evaluate("navkit.draw()")
                before = page.evaluate(canvas_sum)
                page.check("#show-mesh")
                _wait(page, "navkit.drawn.meshPolygons > 0")
                api = srv.api("GET", "/api/mesh")
                assert page.evaluate("navkit.drawn.meshPolygons") == api["nPolygons"]
                page.evaluate("navkit.draw()")
                assert page.evaluate(canvas_sum) != before  # the mesh is on the canvas
                assert "polygons" in page.inner_text("#mesh-meta")
                # a path query: the grid path and the mesh path beside it
                _click_cell(page, [4, 4])
                _click_cell(page, [20, 4])
                _wait(page, "navkit.drawn.query >= 1 && navkit.drawn.meshQuery >= 1")
                body = {"start": WEST_W, "goal": EAST_W, "methods": ["exact"], "nearest": True}
                want = srv.api("POST", "/api/mesh/path", json_body=body)["paths"]["exact"]
                assert page.evaluate("navkit.drawn.meshPaths.exact") == want["waypoints"]
                assert page.inner_text("#r-mesh").startswith(f"{want['length']:.3f} m")
                assert page.inner_text("#r-mesh").startswith("8.000 m")
                assert page.inner_text("#r-grid-m").endswith(" m")
                # and the funnel path when asked
                page.check("#mesh-funnel")
                _wait(page, "navkit.drawn.meshQuery >= 2 && navkit.drawn.meshPaths.funnel")
                assert page.inner_text("#r-funnel").endswith(" exp")
                assert float(page.inner_text("#r-funnel").split(" ")[0]) >= 8.0 - 1e-3
                # the polygons the exact search opened, drawn on request
                assert page.evaluate("navkit.drawn.meshSearched") == 0
                page.check("#mesh-searched")
                _wait(page, "navkit.drawn.meshSearched > 0")
                searched = srv.api("POST", "/api/mesh/path", json_body=body)["paths"]["exact"]
                assert page.evaluate("navkit.drawn.meshSearched") == len(searched["searched"])
                _shot(page, "viewer-mesh.png")
                page.uncheck("#show-mesh")
                _wait(page, "navkit.drawn.meshPolygons === 0")
                assert page.is_hidden("#row-mesh")
                assert page.evaluate("navkit.errors") == []  # no toast
                _close(page)  # and no page error
        finally:
            br.close()
