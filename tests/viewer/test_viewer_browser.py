"""Browser tests of the visual debugger: the real page in headless Chromium.

Driven by Playwright (the ``playwright`` Python package) with Debian's
``chromium`` (``/usr/bin/chromium``, or ``$NAVKIT_CHROMIUM``) as the
executable: nothing is downloaded. The viewer runs under uvicorn on a free
port in a background thread. Screenshots go to ``out/test-artifacts/``.

When Chromium (or Playwright) is missing or cannot start, the tests are
skipped with the reason, unless ``NAVKIT_REQUIRE_BROWSER=1``, which turns
that into a failure (set it where the browser must be there, as in CI).

Waiting is done by polling ``page.evaluate`` from Python: the page's
Content-Security-Policy forbids ``eval``, which ``page.wait_for_function``
with a string needs.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.viewer.live import LiveServer, canvas_pixel  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "out" / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REQUIRED = os.environ.get("NAVKIT_REQUIRE_BROWSER", "") not in ("", "0")

# Same level as test_viewer_api: two rooms, a door, a muddy way round.
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
WEST, EAST, BLOCKED = [4, 4], [20, 4], [12, 12]
SCENE: dict[str, Any] = {
    "navigation": LEVEL,
    "tickRate": 20,
    "characters": [
        {"id": "a", "kind": "npc", "position": [1.25, 1.25], "walkSpeed": 1.5},
        {"id": "b", "kind": "npc", "position": [9.25, 3.25], "walkSpeed": 1.5},
        {"id": "c", "kind": "npc", "position": [2.25, 7.25]},
    ],
    "commands": [
        {"tick": 0, "character": "a", "moveTo": [9.25, 1.25]},
        {"tick": 0, "character": "b", "moveTo": [1.25, 3.25]},
    ],
}


def _chromium_path() -> str | None:
    env = os.environ.get("NAVKIT_CHROMIUM")
    if env:
        return env
    for name in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if os.access(name, os.X_OK):
            return name
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"NAVKIT_REQUIRE_BROWSER is set but the browser tests cannot run: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium context with a fresh profile (module-wide)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:
        _unavailable(f"the playwright package is not installed ({e})")
    exe = _chromium_path()
    if exe is None:
        _unavailable("no Chromium found (apt-get install chromium, or set NAVKIT_CHROMIUM)")
    profile = tempfile.mkdtemp(prefix="navkit-chromium-")
    pw = sync_playwright().start()
    try:
        try:
            ctx = pw.chromium.launch_persistent_context(
                profile, executable_path=exe, headless=True, args=CHROMIUM_ARGS,
                viewport={"width": 1200, "height": 760}, timeout=30_000,
            )
        except Exception as e:  # noqa: BLE001 - any launch failure means "cannot run here"
            _unavailable(f"Chromium at {exe} did not start: {str(e).splitlines()[0][:300]}")
        try:
            yield ctx
        finally:
            ctx.close()
    finally:
        pw.stop()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("viewer-browser")
    level = d / "level.json"
    level.write_text(json.dumps(LEVEL))
    scene = d / "scene.json"
    scene.write_text(json.dumps(SCENE))
    from navkit.sim import ReplayWriter, load_scene

    loc = load_scene(scene)
    replay = d / "run.jsonl"
    with ReplayWriter(replay, loc) as w:
        for _ in range(40):
            w.record(loc.step())
    return {"level": level, "scene": scene, "replay": replay}


def _wait(page: Any, expr: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expr)
        if value:
            return value
        if time.monotonic() > deadline:
            errors = page.evaluate("navkit.errors")
            raise AssertionError(f"timed out waiting for {expr!r}; page errors: {errors}")
        time.sleep(0.03)


_PAGE_ERRORS: dict[int, list[str]] = {}


def _open(browser: Any, url: str) -> Any:
    page = browser.new_page()
    errors = _PAGE_ERRORS.setdefault(id(page), [])
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    _wait(page, "window.navkit && window.navkit.ready")
    page.evaluate("navkit.requestRedraw()")
    page.wait_for_timeout(50)
    return page


def _close(page: Any) -> None:
    errors = _PAGE_ERRORS.pop(id(page), [])
    page.close()
    assert errors == [], errors


def _click_cell(page: Any, cell: list[int], *, shift: bool = False) -> None:
    x, y = page.evaluate(f"navkit.cellToClient({cell[0]}, {cell[1]})")
    if shift:
        page.keyboard.down("Shift")
    try:
        page.mouse.click(x, y)
    finally:
        if shift:
            page.keyboard.up("Shift")


def _shot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    assert path.stat().st_size > 1000
    return path


# -------------------------------------------------------------------- tests
def test_map_loads_and_draws(browser: Any, files: dict[str, Path]) -> None:
    with LiveServer(files["level"]) as srv:
        page = _open(browser, srv.url)
        assert "level.json" in page.inner_text("#map-name")
        assert page.evaluate("[navkit.grid.w, navkit.grid.d]") == [30, 20]
        walk, blocked = canvas_pixel(page, WEST), canvas_pixel(page, BLOCKED)
        mud = canvas_pixel(page, [10, 16])
        assert min(walk) > 200  # light ground
        assert max(blocked) < 80  # dark wall
        assert mud != walk and mud[0] > mud[2]  # weight-4 mud is tinted brown
        options = page.eval_on_selector_all("#algorithm option", "os => os.map(o => o.value)")
        assert options == [a["name"] for a in srv.api("GET", "/api/info")["algorithms"]]
        assert page.is_checked("#area-door") and not page.is_hidden("#sec-areas")
        _close(page)


def test_clicked_path_matches_the_api(browser: Any, files: dict[str, Path]) -> None:
    with LiveServer(files["level"]) as srv:
        page = _open(browser, srv.url)
        _click_cell(page, WEST)
        _click_cell(page, EAST)
        _wait(page, "navkit.drawn.query >= 1")
        query = {"start": WEST, "goal": EAST, "algorithm": "astar"}
        api = srv.api("POST", "/api/path", json_body=query)
        drawn = page.evaluate("navkit.drawn")
        assert drawn["raw"] == api["cells"] and drawn["smooth"] == api["smoothed"]
        assert page.evaluate("[navkit.start, navkit.goal]") == [WEST, EAST]
        assert page.inner_text("#r-status") == "FOUND"
        assert page.inner_text("#r-expanded") == str(api["expanded"])
        assert page.inner_text("#r-cost") == "16"
        # the path is on the canvas: the smoothed line's colour in a cell half way along it
        mid = api["cells"][len(api["cells"]) // 2]
        r, g, b = canvas_pixel(page, mid)
        assert r > 150 and g < 120 and b < 120, (r, g, b)
        shot = _shot(page, "viewer-path.png")
        # an unreachable goal: the nearest-reachable marker
        _click_cell(page, [26, 4], shift=True)
        _wait(page, "navkit.drawn.query >= 2")
        far = srv.api("POST", "/api/path", json_body={"start": WEST, "goal": [26, 4]})
        assert far["nearest"] and page.evaluate("navkit.drawn.nearest") == far["endCell"]
        assert page.evaluate("navkit.drawn.raw") == far["cells"]
        assert "nearest" in page.inner_text("#r-status")
        _shot(page, "viewer-nearest.png")
        assert shot.exists()
        _close(page)


def test_door_toggle_changes_the_path(browser: Any, files: dict[str, Path]) -> None:
    with LiveServer(files["level"]) as srv:
        page = _open(browser, srv.url)
        _click_cell(page, WEST)
        _click_cell(page, EAST)
        _wait(page, "navkit.drawn.query >= 1")
        before = page.evaluate("navkit.drawn.raw")
        page.uncheck("#area-door")
        _wait(page, "navkit.drawn.query >= 2 && navkit.drawn.mapLoads >= 2")
        after = page.evaluate("navkit.drawn.raw")
        api = srv.api("POST", "/api/path", json_body={"start": WEST, "goal": EAST})
        assert after != before and after == api["cells"]
        assert api["version"] == 1 and float(page.inner_text("#r-cost")) > 16
        assert canvas_pixel(page, [11, 4])[0] < 80  # the closed door is drawn as wall
        _shot(page, "viewer-door-closed.png")
        # an obstacle dropped on the new path moves it again
        page.check("#tool-obstacle")
        page.fill("#obstacle-size", "2")
        cell = after[len(after) // 2]
        _click_cell(page, cell)
        _wait(page, "navkit.drawn.query >= 3")
        moved = page.evaluate("navkit.drawn.raw")
        assert moved != after and cell not in moved
        names = [o["name"] for o in srv.api("GET", "/api/info")["obstacles"]]
        assert names == ["crate", "viewer_1"]
        _close(page)


def test_scene_plays_and_positions_advance(browser: Any, files: dict[str, Path]) -> None:
    with LiveServer(files["scene"]) as srv:
        page = _open(browser, srv.url)
        _wait(page, "navkit.sim && navkit.sim.ids && navkit.sim.ids.length === 3")
        assert not page.is_hidden("#sec-sim")
        start = page.evaluate("navkit.sim.pos.slice()")
        assert page.evaluate("navkit.sim.tick") == 0
        page.click("#sim-play")
        _wait(page, "navkit.sim.tick >= 15")
        page.click("#sim-pause")
        _wait(page, "!navkit.sim.playing")
        server = srv.api("GET", "/api/sim")
        tick = server["tick"]
        _wait(page, f"navkit.sim.tick === {tick}")  # the last frame may land after the pause answer
        pos = page.evaluate("navkit.sim.pos.slice()")
        assert server["pos"] == pos
        moved = [abs(pos[i] - start[i]) + abs(pos[i + 1] - start[i + 1]) for i in range(0, 6, 2)]
        assert moved[0] > 0.5 and moved[1] > 0.5 and moved[2] == 0, moved
        assert page.evaluate("navkit.sim.state")[:2] == "ww"
        assert page.evaluate("navkit.drawn.characters") == 3
        # step, then inspect a character by clicking it
        page.click("#sim-step")
        _wait(page, f"navkit.sim.tick === {tick + 1}")
        page.check("#tool-inspect")
        x, y = page.evaluate(
            """(() => { const g = navkit.info.grid, p = navkit.sim.pos, v = navkit.view;
                 const r = document.getElementById('view').getBoundingClientRect();
                 return [r.left + v.ox + (p[0] - g.minX) / g.cellSize * v.scale,
                         r.top + v.oy + (p[1] - g.minZ) / g.cellSize * v.scale]; })()""")
        page.mouse.click(x, y)
        _wait(page, "navkit.inspected && navkit.inspected.id === 'a'")
        assert page.text_content("#inspect-id") == "a"
        state = json.loads(page.text_content("#inspect") or "")["state"]
        assert state in ("walking", "blocked", "waiting", "idle")
        _shot(page, "viewer-scene.png")
        _close(page)


def test_replay_scrubs(browser: Any, files: dict[str, Path]) -> None:
    with LiveServer(files["level"]) as srv:
        page = _open(browser, srv.url)
        page.set_input_files("#replay-file", str(files["replay"]))
        _wait(page, "navkit.replay && navkit.replay.data.frames.length === 40")
        page.fill("#replay-slider", "39")
        page.dispatch_event("#replay-slider", "input")
        _wait(page, "navkit.replay.index === 39")
        assert "tick 39" in page.inner_text("#replay-tick")
        _wait(page, "navkit.drawn.characters === 3")
        assert srv.api("GET", "/api/replay")["lastTick"] == 39
        _shot(page, "viewer-replay.png")
        _close(page)
