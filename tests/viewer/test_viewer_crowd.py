"""The viewer for crowds: velocities in frames, avoidance radii and mode, and the page's
velocity arrows, hover circle and inspector speed.

The oracle for ``vel`` is the simulation itself: a second :class:`navkit.sim.Location`
run from the same scene (deterministic), whose position change over one tick times the
tick rate is the velocity; and the frames' own positions, differenced at the scene's
tick rate.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.testclient import TestClient  # noqa: E402

from navkit.sim import Location  # noqa: E402
from navkit.viewer import create_app  # noqa: E402
from navkit.viewer.playback import Playback  # noqa: E402
from tests.viewer.live import LiveServer  # noqa: E402
from tests.viewer.test_viewer_api import BASE, SCENE, WS  # noqa: E402
from tests.viewer.test_viewer_browser import (  # noqa: E402
    _close,
    _open,
    _shot,
    _wait,
    browser,  # noqa: F401 - the module fixture: headless Chromium, or a skip
)

RATE = SCENE["tickRate"]
#: ``pos`` is rounded to 0.1 mm, ``vel`` to 1 mm/s: a velocity from two rounded
#: positions is off by at most 2 x 0.05 mm x rate, plus the 0.5 mm/s of ``vel``.
POS_TOL = 2 * 0.5e-4 * RATE + 0.5e-3 + 1e-9
VEL_TOL = 0.5e-3 + 1e-9


def _scene(tmp_path: Path, **extra: Any) -> Path:
    path = tmp_path / "scene.json"
    path.write_text(json.dumps({**SCENE, **extra}), encoding="utf-8")
    return path


def _oracle(scene: dict[str, Any], ticks: int) -> tuple[list[Any], np.ndarray]:
    """IDs and the velocity (n, 2) over tick ``ticks`` of an independent run."""
    loc = Location.from_scene(scene)
    for _ in range(ticks - 1):
        loc.step()
    before = loc.positions()
    loc.step()
    return loc.ids, (loc.positions() - before) * loc.tick_rate


def _pairs(flat: list[float]) -> np.ndarray:
    return np.asarray(flat, dtype=np.float64).reshape(-1, 2)


@pytest.mark.parametrize("avoidance", ["none", "orca"])
def test_frames_carry_velocities(tmp_path: Path, avoidance: str) -> None:
    extra = {} if avoidance == "none" else {"avoidance": avoidance}
    with TestClient(create_app(_scene(tmp_path, **extra)), base_url=BASE) as client, \
            client.websocket_connect(WS) as ws:
        first = ws.receive_json()
        n = len(first["ids"])
        assert first["full"] and first["vel"] == [0.0] * (2 * n)
        assert first["avoidance"] == avoidance
        assert first["avoidRadii"] == [pytest.approx(0.45)] * n  # the default radius
        assert client.get("/api/info").json()["scene"]["avoidance"] == avoidance
        client.post("/api/sim/step", json={"ticks": 4})
        f4 = ws.receive_json()
        client.post("/api/sim/step", json={"ticks": 1})
        f5 = ws.receive_json()
        client.post("/api/sim/step", json={"ticks": 3})  # a batch: the last tick's velocity
        f8 = ws.receive_json()
        assert (f4["tick"], f5["tick"], f8["tick"]) == (4, 5, 8)
        for f in (f4, f5, f8):
            assert not f["full"] and len(f["vel"]) == len(f["pos"]) == 2 * n
            assert all(isinstance(v, float) and round(v, 3) == v for v in f["vel"])
        # the frames' own positions, one tick apart
        diff = (_pairs(f5["pos"]) - _pairs(f4["pos"])) * RATE
        assert np.abs(_pairs(f5["vel"]) - diff).max() <= POS_TOL
        # an independent run of the same scene
        for f in (f5, f8):
            ids, want = _oracle({**SCENE, **extra}, f["tick"])
            assert ids == first["ids"]
            assert np.abs(_pairs(f["vel"]) - want).max() <= VEL_TOL
        speeds = np.hypot(*_pairs(f8["vel"]).T)
        by_id = dict(zip(first["ids"], speeds, strict=True))
        assert by_id["a"] == pytest.approx(1.5, abs=0.01)  # walks at its walkSpeed
        assert by_id[7] == 0.0  # stands
        # the character's own page: velocity and speed over the last tick
        c = client.get("/api/sim/characters/a").json()
        i = first["ids"].index("a")
        assert c["velocity"] == pytest.approx(list(want[i]), abs=1e-9)
        assert c["speed"] == pytest.approx(math.hypot(*want[i]), abs=1e-9)
        # GET /api/sim is a full frame with the same velocities
        full = client.get("/api/sim").json()
        assert full["full"] and full["vel"] == f8["vel"]
        # reset: tick 0 again, nothing moved yet
        r = client.post("/api/sim/reset").json()
        assert r["tick"] == 0 and r["vel"] == [0.0] * (2 * n)


def test_velocities_follow_characters_added_between_ticks() -> None:
    """A character added between ticks stands (velocity 0) until it moves; the others
    keep theirs (rows are matched by ID, not by slot)."""
    loc = Location.from_scene(SCENE)
    pb = Playback(loc)
    pb.frame(full=True)
    pb.step(3)
    before = _pairs(pb.frame()["vel"])
    ids0 = list(loc.ids)
    loc.add_character("0", position=[3.25, 1.25])  # sorts first: every slot moves
    f = pb.frame()
    assert f["full"] and f["ids"] == loc.ids and loc.ids != ids0
    vel = _pairs(f["vel"])
    assert vel.shape == (len(loc.ids), 2)
    for i, cid in enumerate(loc.ids):
        want = before[ids0.index(cid)] if cid in ids0 else (0.0, 0.0)
        assert tuple(vel[i]) == tuple(want), cid
    # the next tick: position changes by ID, the new character from where it stood
    pos0 = {cid: p for cid, p in zip(loc.ids, loc.positions(), strict=True)}
    pb.step(1)
    vel = _pairs(pb.frame()["vel"])
    for i, (cid, p) in enumerate(zip(loc.ids, loc.positions(), strict=True)):
        assert np.abs(vel[i] - (p - pos0[cid]) * RATE).max() <= VEL_TOL, cid


# ------------------------------------------------------------------ browser
def test_page_draws_velocities_and_hover_radius(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    _browser_checks(browser, _scene(tmp_path, avoidance="orca"))


def _browser_checks(ctx: Any, scene: Path) -> None:
    with LiveServer(scene) as srv:
        page = _open(ctx, srv.url)
        _wait(page, "navkit.sim && navkit.sim.ids && navkit.sim.ids.length === 3")
        assert not page.is_hidden("#row-avoidance")
        assert page.inner_text("#sim-avoidance") == "orca"
        page.click("#sim-step")
        _wait(page, "navkit.sim.tick === 1")
        page.click("#sim-step")
        _wait(page, "navkit.sim.tick === 2")
        server = srv.api("GET", "/api/sim")
        assert page.evaluate("navkit.sim.vel") == server["vel"]
        moving = sum(1 for i in range(0, len(server["vel"]), 2)
                     if math.hypot(server["vel"][i], server["vel"][i + 1]) >= 1e-3)
        assert moving == 2
        assert page.evaluate("navkit.drawn.velocities") == 0  # off by default
        page.check("#show-velocities")
        _wait(page, f"navkit.drawn.velocities === {moving}")
        # hover character "a": its avoidance radius circle, its speed in the status line
        i = server["ids"].index("a")
        x, y = page.evaluate(
            f"""(() => {{ const g = navkit.info.grid, p = navkit.sim.pos, v = navkit.view;
                 const r = document.getElementById('view').getBoundingClientRect();
                 return [r.left + v.ox + (p[{2 * i}] - g.minX) / g.cellSize * v.scale,
                         r.top + v.oy + (p[{2 * i + 1}] - g.minZ) / g.cellSize * v.scale]; }})()""")
        page.mouse.move(x, y)
        _wait(page, "navkit.drawn.hover && navkit.drawn.hover.id === 'a'")
        hover = page.evaluate("navkit.drawn.hover")
        speed = math.hypot(server["vel"][2 * i], server["vel"][2 * i + 1])
        assert hover["radius"] == pytest.approx(server["avoidRadii"][i])
        assert hover["speed"] == pytest.approx(speed, abs=1e-9)
        assert f"{speed:.2f} m/s" in page.inner_text("#cursor")
        # inspect it: the inspector shows the speed
        page.check("#tool-inspect")
        page.mouse.click(x, y)
        _wait(page, "navkit.inspected && navkit.inspected.id === 'a'")
        assert page.inner_text("#inspect-speed") == f"{speed:.2f} m/s"
        assert page.evaluate("navkit.inspected.speed") == pytest.approx(speed, abs=2e-3)
        _shot(page, "viewer-crowd.png")
        # the arrows go away again
        page.uncheck("#show-velocities")
        _wait(page, "navkit.drawn.velocities === 0")
        page.mouse.move(2, 2)
        _wait(page, "navkit.drawn.hover === null")
        _close(page)
