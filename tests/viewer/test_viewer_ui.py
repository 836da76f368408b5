"""Browser tests of the viewer's newer controls (issue #18): labels and hover
highlights, legends and colour scales, the busy indicator and compile/search times,
flow arrows, HPA* clusters, JPS jump points, the smooth curve, circle obstacles,
per-character path colours, the inspector table, the axis marker, saving the level
and the build-parameter panel.

Same harness as ``test_viewer_browser.py`` (headless Debian Chromium through
Playwright, skipped without it unless ``NAVKIT_REQUIRE_BROWSER=1``). What the page
drew is read from ``window.navkit`` (``navkit.drawn`` is filled by every frame);
oracles are the API's answers, :mod:`navkit.level` and the Python palette index.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from navkit.level import parse_level, rasterize  # noqa: E402
from navkit.viewer.layers import palette_index  # noqa: E402
from tests.viewer import test_viewer_browser as _browser_tests  # noqa: E402
from tests.viewer.live import LiveServer, canvas_pixel, shot, write_json_files  # noqa: E402
from tests.viewer.test_viewer_browser import (  # noqa: E402
    EAST,
    LEVEL,
    SCENE,
    WEST,
    _click_cell,
    _close,
    _open,
    _wait,
)

#: The module-wide Chromium context of test_viewer_browser (a fixture, shared here).
chromium = _browser_tests.browser

FLAT: dict[str, Any] = copy.deepcopy(LEVEL)
FLAT["areas"][6].pop("weight")  # no terrain weights: JPS applies
# the page's palette (static/app.js PALETTE), indexed by navkit.viewer.layers.palette_index
PALETTE = ["#1971c2", "#e8590c", "#2f9e44", "#ae3ec9", "#f08c00", "#0c8599",
           "#c2255c", "#5c940d", "#3b5bdb", "#a61e4d", "#495057", "#d9480f"]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_json_files(tmp_path_factory.mktemp("viewer-ui"),
                            {"level": LEVEL, "flat": FLAT, "scene": SCENE})


@pytest.fixture()
def level(files: dict[str, Path]) -> Iterator[LiveServer]:
    with LiveServer(files["level"]) as srv:
        yield srv


@pytest.fixture()
def flat(files: dict[str, Path]) -> Iterator[LiveServer]:
    with LiveServer(files["flat"]) as srv:
        yield srv



def _query(page: Any, a: list[int], b: list[int], n: int) -> dict[str, Any]:
    _click_cell(page, a)
    _click_cell(page, b)
    _wait(page, f"navkit.drawn.query >= {n}")
    result: dict[str, Any] = page.evaluate("navkit.result")
    return result


def _grid_walk(srv: LiveServer) -> np.ndarray:
    import urllib.request

    with urllib.request.urlopen(srv.url + "api/grid", timeout=10) as r:
        w, d = int(r.headers["X-Navkit-Width"]), int(r.headers["X-Navkit-Depth"])
        return np.frombuffer(r.read(), dtype=np.uint8).reshape(d, w) > 0


def test_labels_and_hover_highlight(chromium: Any, level: LiveServer) -> None:
    page = _open(chromium, level.url)
    try:
        labels = _wait(page, "navkit.drawn.labels && navkit.drawn.labels.length "
                             "&& navkit.drawn.labels")
        assert {"door", "west", "east", "crate"} <= set(labels)
        page.hover("[data-hover-kind=area][data-hover-name=door]")
        _wait(page, "navkit.drawn.highlight === 'door'")
        assert page.evaluate("navkit.highlight") == {"kind": "area", "name": "door"}
        shot(page, "viewer-ui-highlight.png")
        page.mouse.move(900, 700)
        _wait(page, "navkit.highlight === null && navkit.drawn.highlight === null")
        page.hover("[data-hover-kind=obstacle][data-hover-name=crate]")
        _wait(page, "navkit.drawn.highlight === 'crate'")
        page.uncheck("#show-labels")
        _wait(page, "navkit.drawn.labels.length === 0")
    finally:
        _close(page)


def test_legends_and_colour_scales(chromium: Any, level: LiveServer) -> None:
    page = _open(chromium, level.url)
    try:
        assert page.is_visible("#sec-legend")
        assert page.inner_text("#terrain-min") == "×1" and page.inner_text("#terrain-max") == "×4"
        assert not page.is_visible("#sec-heat-legend")
        res = _query(page, WEST, EAST, 1)
        api = level.api("POST", "/api/path", json_body={"start": WEST, "goal": EAST})
        assert res["heat"]["maxCost"] == api["heat"]["maxCost"] > 0
        assert page.is_visible("#sec-heat-legend")
        assert page.inner_text("#heat-min") == "0"
        shown = float(page.inner_text("#heat-max").replace(",", ""))
        assert shown == pytest.approx(api["heat"]["maxCost"], abs=0.006)
        assert page.evaluate("navkit.legendRange.max") == api["heat"]["maxCost"]
        page.uncheck("#show-heat")
        _wait(page, "document.getElementById('sec-heat-legend').hidden")
    finally:
        _close(page)


def test_busy_indicator_and_compile_time(chromium: Any, files: dict[str, Path]) -> None:
    with LiveServer(files["level"], app_options={"warm": False}) as srv:
        page = _open(chromium, srv.url)
        try:
            _query(page, WEST, EAST, 1)
            log = page.evaluate("navkit.busyLog")
            assert log and log[0].startswith("compiling"), log
            assert "first call" in page.inner_text("#r-compile")
            _click_cell(page, [20, 6], shift=True)
            _wait(page, "navkit.drawn.query >= 2")
            assert page.evaluate("navkit.busyLog").pop() == "searching…"
            assert "warm" in page.inner_text("#r-compile")
            assert page.evaluate("navkit.result.compileMs") == 0
            _wait(page, "document.getElementById('busy').hidden && navkit.busy === null")
        finally:
            _close(page)


def test_flow_arrows(chromium: Any, flat: LiveServer) -> None:
    page = _open(chromium, flat.url)
    try:
        _query(page, WEST, EAST, 1)
        page.check("#show-flow")
        n = _wait(page, "navkit.drawn.flowArrows")
        api = flat.api("POST", "/api/flow", json_body={"goal": EAST})
        assert n == api["count"] == page.evaluate("navkit.flow.count")
        assert page.evaluate("navkit.flow.arrows") == api["arrows"]
        shot(page, "viewer-ui-flow.png")
        page.uncheck("#show-flow")
        _wait(page, "navkit.drawn.flowArrows === 0")
    finally:
        _close(page)


def test_hpa_clusters(chromium: Any, level: LiveServer) -> None:
    page = _open(chromium, level.url)
    try:
        page.check("#show-hpa")
        drawn = _wait(page, "navkit.drawn.hpa")
        api = level.api("GET", "/api/hpa")
        assert drawn["nodes"] == len(api["nodes"]) > 0
        assert drawn["edges"] == len(api["edges"]) > 0
        assert drawn["clusters"] == api["clustersX"] * api["clustersZ"]
        assert "clusters of" in page.inner_text("#layer-meta")
        shot(page, "viewer-ui-hpa.png")
    finally:
        _close(page)


def test_jps_jump_points_and_smooth_curve(chromium: Any, flat: LiveServer) -> None:
    page = _open(chromium, flat.url)
    try:
        page.select_option("#algorithm", "jps")
        res = _query(page, WEST, [20, 14], 1)
        assert res["resolvedAlgorithm"] == "jps"
        _wait(page, "navkit.drawn.jumpPoints")
        drawn = page.evaluate("navkit.drawn.jumpPoints")
        assert drawn["expanded"] == res["expanded"] == len(res["jumpPoints"]["expanded"])
        assert drawn["generated"] == len(res["jumpPoints"]["generated"])
        page.check("#show-spline")
        _wait(page, "navkit.drawn.spline > 0")
        assert page.evaluate("navkit.drawn.spline") == len(res["spline"])
        shot(page, "viewer-ui-jps.png")
        page.uncheck("#show-spline")
        _wait(page, "navkit.drawn.spline === 0")
        page.select_option("#algorithm", "astar")  # A* has no jump points
        _wait(page, "navkit.result && navkit.result.algorithm === 'astar' "
                    "&& navkit.drawn.query >= 2")
        page.evaluate("navkit.requestRedraw()")
        _wait(page, "navkit.drawn.jumpPoints === null")
    finally:
        _close(page)


def test_circle_obstacle_tool(chromium: Any, flat: LiveServer) -> None:
    page = _open(chromium, flat.url)
    try:
        cell = [6, 6]
        before = canvas_pixel(page, cell)
        page.check("#tool-circle")
        page.fill("#circle-radius", "0.8")
        _click_cell(page, cell)
        _wait(page, "navkit.drawn.circles === 1")
        circles = flat.api("GET", "/api/info")["circles"]
        assert len(circles) == 1 and circles[0]["radius"] == 0.8
        assert canvas_pixel(page, cell) != before
        # the circle blocks its cells for queries
        p = flat.api("POST", "/api/path", json_body={"start": WEST, "goal": cell})
        assert p["status"] == "NEAREST"
        _click_cell(page, cell)  # click it again: removed
        _wait(page, "navkit.drawn.circles === 0")
        assert flat.api("GET", "/api/info")["circles"] == []
    finally:
        _close(page)


def test_inspector_table(chromium: Any, level: LiveServer) -> None:
    page = _open(chromium, level.url)
    try:
        page.check("#tool-inspect")
        _click_cell(page, WEST)
        _wait(page, "navkit.cellInfo")
        assert page.inner_text("#cell-table td[data-key=cell]") == "(4, 4)"
        assert page.inner_text("#cell-table td[data-key=walkable]") == "yes"
        assert page.inner_text("#cell-table td[data-key=areas]") == "west"
        assert page.inner_text("#cell-table td[data-key=world]") == "(1.25, 1.25)"
        page.click("[data-inspect-area=door]")
        _wait(page, "navkit.inspectedArea === 'door'")
        assert page.text_content("#cell-title") == "Area door"
        assert page.inner_text("#cell-table td[data-key=available]") == "yes"
    finally:
        _close(page)


def test_axis_marker(chromium: Any, level: LiveServer) -> None:
    page = _open(chromium, level.url)
    try:
        axis = _wait(page, "navkit.drawn.axis")
        g = level.api("GET", "/api/info")["grid"]
        assert axis["atCorner"] and axis["origin"] == [g["minX"], g["minZ"]]
        assert axis["x"].startswith("+x") and axis["z"].startswith("+z")
        page.uncheck("#show-axes")
        _wait(page, "navkit.drawn.axis === null")
    finally:
        _close(page)


def test_save_level_round_trip(chromium: Any, level: LiveServer) -> None:
    page = _open(chromium, level.url)
    try:
        page.uncheck("#area-door")
        _wait(page, "navkit.drawn.mapLoads >= 2")
        with page.expect_download() as dl:
            page.click("#save-level")
        assert dl.value.suggested_filename == "level_edited.json"
        text = _wait(page, "navkit.savedLevel")
        saved = parse_level(json.loads(text))
        assert [a.available for a in saved.areas if a.name == "door"] == [False]
        assert np.array_equal(rasterize(saved).walkable, _grid_walk(level))
    finally:
        _close(page)


def test_build_parameters_rebuild_live(chromium: Any, level: LiveServer) -> None:
    page = _open(chromium, level.url)
    try:
        assert page.input_value("#p-cellSize") == "0.5"
        page.fill("#p-cellSize", "-1")
        page.click("#rebuild")
        _wait(page, "!document.getElementById('params-error').hidden")
        assert "cellSize" in page.inner_text("#params-error")
        assert level.api("GET", "/api/info")["grid"]["cellSize"] == 0.5  # nothing changed
        page.fill("#p-cellSize", "0.25")
        page.click("#rebuild")
        _wait(page, "navkit.info.grid.cellSize === 0.25 && navkit.grid.cs === 0.25")
        assert page.is_hidden("#params-error")
        want = copy.deepcopy(LEVEL)
        want["cellSize"] = 0.25
        oracle = rasterize(parse_level(want))
        assert page.evaluate("[navkit.grid.w, navkit.grid.d]") == [oracle.width, oracle.depth]
        assert np.array_equal(_grid_walk(level), oracle.walkable)
    finally:
        _close(page)


def test_character_path_colours_and_inspector(chromium: Any, files: dict[str, Path]) -> None:
    with LiveServer(files["scene"]) as srv:
        page = _open(chromium, srv.url)
        try:
            page.click("#sim-step")
            colours = _wait(page, "Object.keys(navkit.drawn.pathColors).length >= 2 "
                                  "&& navkit.drawn.pathColors")
            assert colours == {i: PALETTE[palette_index(i)] for i in colours}
            assert {"a", "b"} <= set(colours)
            assert page.evaluate("navkit.paletteIndex('a')") == palette_index("a")
            page.check("#tool-inspect")
            x, y = page.evaluate("""() => {
                const i = navkit.sim.ids.indexOf('a'), g = navkit.info.grid;
                return navkit.cellToClient((navkit.sim.pos[2 * i] - g.minX) / g.cellSize - 0.5,
                                           (navkit.sim.pos[2 * i + 1] - g.minZ) / g.cellSize - 0.5);
            }""")
            page.mouse.click(x, y)
            _wait(page, "navkit.inspected && navkit.inspected.id === 'a'")
            assert page.inner_text("#inspect-table td[data-key=id]") == "a"
            shot(page, "viewer-ui-scene.png")
        finally:
            _close(page)
