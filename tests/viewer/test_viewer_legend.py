"""Browser tests of the on-canvas legend, label placement, the notice of edits the server
holds (and its Reset), the ``auto`` default, Tiled doors, the agent-radius preview and
the per-area colours.

Same harness as ``test_viewer_browser.py`` (headless Debian Chromium through
Playwright, skipped without it unless ``NAVKIT_REQUIRE_BROWSER=1``). What the page drew
is read from ``window.navkit.drawn`` (filled by every frame); oracles are the API's
answers, the canvas' own pixels and the Python palette index.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from navkit.viewer.layers import palette_index  # noqa: E402
from tests.viewer import test_viewer_browser as _browser_tests  # noqa: E402
from tests.viewer.live import LiveServer, shot, write_json_files  # noqa: E402
from tests.viewer.test_viewer_browser import (  # noqa: E402
    EAST,
    LEVEL,
    WEST,
    _click_cell,
    _close,
    _open,
    _wait,
)
from tests.viewer.test_viewer_ui import PALETTE  # noqa: E402

chromium = _browser_tests.browser

REPO = Path(__file__).resolve().parents[2]
DUNGEON = REPO / "navkit" / "examples" / "dungeon.tmj"
FLAT: dict[str, Any] = copy.deepcopy(LEVEL)
FLAT["areas"][6].pop("weight")
FLAT["agentRadius"] = 0.25
# 96 rooms of 1 m in a tight 12 x 8 block, long names: at the fitted zoom a room is
# narrower than its label, and the labels cannot all fit
CROWDED: dict[str, Any] = {
    "cellSize": 0.25, "agentRadius": 0.0, "objectPadding": 0.0,
    "areas": [{"name": f"storeroom_{i:02d}",
               "polygon": [[x, z], [x + 1, z], [x + 1, z + 1], [x, z + 1]]}
              for i, (x, z) in enumerate((x, z) for z in range(8) for x in range(12))],
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_json_files(tmp_path_factory.mktemp("viewer-legend"),
                            {"level": LEVEL, "flat": FLAT, "crowded": CROWDED})


@pytest.fixture()
def flat(files: dict[str, Path]) -> Iterator[LiveServer]:
    with LiveServer(files["flat"]) as srv:
        yield srv



def _canvas_rgb(page: Any, x: float, y: float) -> list[int]:
    """RGB of the canvas at (x, y) CSS pixels from its top left corner."""
    return page.evaluate(
        """([x, y]) => {
            const c = document.getElementById('view');
            const k = c.width / c.getBoundingClientRect().width;
            const d = c.getContext('2d')
                .getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data;
            return [d[0], d[1], d[2]];
        }""", [x, y])


def _hex(colour: str) -> list[int]:
    return [int(colour[i:i + 2], 16) for i in (1, 3, 5)]


def _labels(page: Any) -> dict[str, Any]:
    out: dict[str, Any] = page.evaluate(
        "({names: navkit.drawn.labels, boxes: navkit.drawn.labelBoxes,"
        " skipped: navkit.drawn.labelsSkipped, legend: navkit.drawn.legendBox})")
    return out


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
            and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"])


def _legend_labels(page: Any) -> list[str]:
    return [e["label"] for e in page.evaluate("navkit.drawn.legend")]


# ---------------------------------------------------------------------- tests
def test_legend_names_what_is_drawn_in_its_colours(chromium: Any, flat: LiveServer) -> None:
    page = _open(chromium, flat.url)
    try:
        assert page.evaluate("navkit.info.defaultAlgorithm") == "auto"
        assert page.input_value("#algorithm") == "auto"
        res = _query_cells(page, WEST, [20, 14], 1)
        assert res["algorithm"] == "auto" and res["resolvedAlgorithm"] == "jps"
        assert page.inner_text("#r-algorithm") == "auto → jps"
        assert page.inner_text("#r-expanded") == str(res["expanded"])
        _wait(page, "navkit.drawn.jumpPoints && navkit.drawn.legend.length")
        labels = _legend_labels(page)
        for want in ("raw path (every cell)", "smoothed grid path", "start", "goal",
                     "jump point (expanded)", "jump point (pushed)", "obstacle"):
            assert want in labels, (want, labels)
        assert "smooth curve" not in labels and "mesh path (exact)" not in labels
        # each area is drawn in its own colour (the Python palette); eight areas are one
        # legend entry with their colours, a closed one is listed by name
        colours = page.evaluate("navkit.drawn.areaColors")
        assert list(colours) == [a["name"] for a in FLAT["areas"]]
        assert colours == {n: PALETTE[palette_index(n)] for n in colours}
        entries = {e["label"]: e for e in page.evaluate("navkit.drawn.legend")}
        assert entries["8 areas, each in its own colour"]["color"] == list(colours.values())
        page.uncheck("#area-door")
        _wait(page, "navkit.drawn.mapLoads >= 2 && navkit.drawn.query >= 2")
        page.evaluate("navkit.requestRedraw()")
        _wait(page, "navkit.drawn.legend.some(e => e.label === 'door (closed)')")
        entries = {e["label"]: e for e in page.evaluate("navkit.drawn.legend")}
        assert entries["door (closed)"]["color"] == colours["door"]
        # the swatches are on the canvas, in the colour listed
        for label in ("raw path (every cell)", "smoothed grid path", "jump point (expanded)",
                      "start", "goal", "door (closed)"):
            e = entries[label]
            got = _canvas_rgb(page, e["x"], e["y"])
            assert max(abs(a - b) for a, b in zip(got, _hex(e["color"]), strict=True)) <= 3, \
                (label, got, e["color"])
        # the order: paths, then markers, then the map's areas and obstacles
        order = [e["label"] for e in page.evaluate("navkit.drawn.legend")]
        assert order.index("smoothed grid path") < order.index("start") < order.index("obstacle")
        # hide the raw path, show the smooth curve: the legend follows
        page.uncheck("#show-raw")
        page.check("#show-spline")
        _wait(page, "navkit.drawn.spline > 0")
        labels = _legend_labels(page)
        assert "raw path (every cell)" not in labels and "smooth curve" in labels
        mesh = page.evaluate("!document.getElementById('show-mesh').disabled")
        if mesh:  # the mesh paths, each in its colour
            page.check("#show-mesh")
            page.check("#mesh-funnel")
            _wait(page, "navkit.drawn.meshPaths && navkit.drawn.meshPaths.funnel")
            labels = _legend_labels(page)
            assert "mesh path (exact)" in labels and "mesh path (funnel)" in labels
        shot(page, "viewer-legend.png")
        # A*: no jump points, none in the legend
        page.select_option("#algorithm", "astar")
        _wait(page, "navkit.result && navkit.result.algorithm === 'astar' "
                    "&& navkit.drawn.query >= 3")
        page.evaluate("navkit.requestRedraw()")
        _wait(page, "navkit.drawn.jumpPoints === null")
        assert not [x for x in _legend_labels(page) if x.startswith("jump point")]
        assert page.inner_text("#r-algorithm") == "astar"
        page.uncheck("#show-legend")
        _wait(page, "navkit.drawn.legend.length === 0 && navkit.drawn.legendBox === null")
    finally:
        _close(page)


def _query_cells(page: Any, a: list[int], b: list[int], n: int) -> dict[str, Any]:
    _click_cell(page, a)
    _click_cell(page, b)
    _wait(page, f"navkit.drawn.query >= {n}")
    out: dict[str, Any] = page.evaluate("navkit.result")
    return out


def test_labels_never_overlap(chromium: Any, files: dict[str, Path]) -> None:
    with LiveServer(files["crowded"]) as srv:
        page = _open(chromium, srv.url)
        try:
            page.set_viewport_size({"width": 760, "height": 520})
            # the page's resize handler has run (the canvas buffer has the new size) ...
            _wait(page, "(() => { const c = document.getElementById('view'); "
                        "const r = c.getBoundingClientRect(); const d = window.devicePixelRatio "
                        "|| 1; return r.width < 760 && c.width === Math.max(1, "
                        "Math.round(r.width * d)); })()")
            page.evaluate("navkit.fitView()")
            # ... and a frame at the fitted scale is drawn: every polygon is in view
            _wait(page, "navkit.drawn.scale === navkit.view.scale && navkit.drawn.labelBoxes && "
                        "navkit.drawn.labels.length + navkit.drawn.labelsSkipped.length === "
                        f"{len(CROWDED['areas'])}")
            got = _labels(page)
            names = {a["name"] for a in CROWDED["areas"]}
            assert set(got["names"]) | set(got["skipped"]) == names
            assert not set(got["names"]) & set(got["skipped"])
            assert got["skipped"], "the crowded level should not fit every label"
            boxes = got["boxes"]
            assert [b["name"] for b in boxes] == got["names"]
            for i, a in enumerate(boxes):
                assert not _overlap(a, got["legend"]), a
                for b in boxes[i + 1:]:
                    assert not _overlap(a, b), (a, b)
            shot(page, "viewer-labels.png")
            # zoomed in, more of them fit, still apart
            few = len(boxes)
            page.keyboard.press("+")
            page.keyboard.press("+")
            page.keyboard.press("+")
            _wait(page, f"navkit.drawn.labels.length > {few}")
            boxes = _labels(page)["boxes"]
            for i, a in enumerate(boxes):
                for b in boxes[i + 1:]:
                    assert not _overlap(a, b), (a, b)
        finally:
            page.set_viewport_size({"width": 1200, "height": 760})
            _close(page)


def test_edits_notice_survives_a_reload_and_reset_drops_the_edits(
        chromium: Any, files: dict[str, Path]) -> None:
    with LiveServer(files["level"]) as srv:
        page = _open(chromium, srv.url)
        try:
            assert page.is_hidden("#edits")
            page.uncheck("#area-door")
            _wait(page, "!document.getElementById('edits').hidden")
            assert "1 edit" in page.inner_text("#edits-text")
            assert "door closed" in page.inner_text("#edits-text")
        finally:
            _close(page)
        # a new page load: the server still holds the edit, and says so
        page = _open(chromium, srv.url)
        try:
            assert page.is_visible("#edits")
            assert "door closed" in page.inner_text("#edits-text")
            assert not page.is_checked("#area-door")
            assert [e["name"] for e in srv.api("GET", "/api/info")["edits"]] == ["door"]
            shot(page, "viewer-edits-notice.png")
            loads = page.evaluate("navkit.mapLoads")
            page.click("#edits-reset")
            _wait(page, f"navkit.resets === 1 && navkit.mapLoads > {loads}")
            _wait(page, "document.getElementById('edits').hidden")
            assert page.is_checked("#area-door")
            assert srv.api("GET", "/api/info")["edits"] == []
        finally:
            _close(page)


def test_radius_preview(chromium: Any, flat: LiveServer) -> None:
    page = _open(chromium, flat.url)
    try:
        res = _query_cells(page, WEST, EAST, 1)
        page.check("#show-radius")
        assert page.input_value("#preview-radius") == "0.25"  # the level's agentRadius
        assert "0.25 m" in page.inner_text("#radius-meta")
        x, y = page.evaluate("navkit.cellToClient(10, 14)")
        page.mouse.move(x, y)
        drawn = _wait(page, "navkit.drawn.radius && navkit.drawn.radius.cursor "
                            "&& navkit.drawn.radius")
        assert drawn["radius"] == 0.25 and drawn["waypoints"] == len(res["waypoints"])
        assert "agent radius 0.25 m" in _legend_labels(page)
        # the dashed circle is on the canvas: one radius right of the cursor
        page.fill("#preview-radius", "1.5")
        _wait(page, "navkit.drawn.radius.radius === 1.5")
        g = page.evaluate("navkit.info.grid")
        scale = page.evaluate("navkit.view.scale")
        r = page.evaluate("document.getElementById('view').getBoundingClientRect()")
        edge_x = x - r["x"] + 1.5 / g["cellSize"] * scale
        near = [_canvas_rgb(page, edge_x + dx, y - r["y"]) for dx in (-1, 0, 1)]
        want = _hex("#12b886")
        assert any(max(abs(a - b) for a, b in zip(c, want, strict=True)) < 60 for c in near), near
        shot(page, "viewer-radius.png")
        page.mouse.move(2, 2)  # off the canvas (the panel): no cursor circle
        _wait(page, "navkit.drawn.radius && !navkit.drawn.radius.cursor")
        page.uncheck("#show-radius")
        _wait(page, "navkit.drawn.radius === null")
    finally:
        _close(page)


def test_tiled_doors_toggle_in_the_page(chromium: Any) -> None:
    with LiveServer(DUNGEON) as srv:
        page = _open(chromium, srv.url)
        try:
            doors = page.eval_on_selector_all("#areas input[type=checkbox]",
                                              "els => els.map(e => e.dataset.area)")
            assert doors == ["door1", "door2"]  # the tile rectangles are not listed
            west, east = [3, 3], [9, 3]
            _query_cells(page, west, east, 1)
            assert [7, 5] in page.evaluate("navkit.drawn.raw")  # through door1
            page.uncheck("#area-door1")
            _wait(page, "navkit.drawn.query >= 2 && navkit.drawn.mapLoads >= 2")
            api = srv.api("POST", "/api/path", json_body={"start": west, "goal": east})
            drawn = page.evaluate("navkit.drawn.raw")
            assert drawn == api["cells"] and [7, 5] not in drawn
            assert "door1 (closed)" in page.evaluate("navkit.drawn.legend.map(e => e.label)")
            assert "door1" in page.evaluate("navkit.drawn.labels")
            assert "tiles:0" not in page.evaluate("navkit.drawn.labels")
            shot(page, "viewer-tiled-door.png")
        finally:
            _close(page)


def test_legend_names_the_characters_of_a_scene(chromium: Any, tmp_path: Path) -> None:
    from tests.viewer.test_viewer_browser import SCENE

    scene = tmp_path / "scene.json"
    scene.write_text(json.dumps(SCENE))
    with LiveServer(scene) as srv:
        page = _open(chromium, srv.url)
        try:
            page.click("#sim-step")
            _wait(page, "Object.keys(navkit.drawn.pathColors).length >= 2")
            page.evaluate("navkit.requestRedraw()")
            page.wait_for_timeout(100)
            drawn = page.evaluate("navkit.drawn")
            entries = {e["label"]: e for e in drawn["legend"]}
            paths = entries["character paths (own colours)"]
            assert sorted(paths["color"]) == sorted(set(drawn["pathColors"].values()))
            names = {"w": "walking", "b": "blocked", "r": "waiting to retry", "i": "idle"}
            states = set(srv.api("GET", "/api/sim")["state"])
            assert set(drawn["charStates"]) == states
            listed = {k[len("character: "):] for k in entries if k.startswith("character: ")}
            assert listed == {names[s] for s in states}
            assert "velocity (1 s)" not in entries  # the velocities checkbox is off
        finally:
            _close(page)
