"""The viewer plays a free steering crowd (``--crowd``, issue #16 section 4).

Oracles: an independent :class:`navkit.crowd.Crowd` built from the same file's
values by hand (positions and velocities after k ticks must equal the API's, to
the frames' rounding); the file's own agent count; and the crowd file's
checks (FormatError naming the file and field). The browser test loads the
page, steps the crowd and hovers an agent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.testclient import TestClient  # noqa: E402

from navkit import NavGrid  # noqa: E402
from navkit.crowd import Crowd, SteeringParams, Weights  # noqa: E402
from navkit.errors import FormatError  # noqa: E402
from navkit.query.flow import FlowField  # noqa: E402
from navkit.query.navmap import NavMap  # noqa: E402
from navkit.viewer import create_app  # noqa: E402
from navkit.viewer.crowdplay import read_crowd  # noqa: E402
from tests.viewer.live import LiveServer  # noqa: E402
from tests.viewer.test_viewer_browser import (  # noqa: E402
    _close,
    _open,
    _shot,
    _wait,
    browser,  # noqa: F401 - the module fixture: headless Chromium, or a skip
)

EXAMPLES = Path(__file__).resolve().parents[2] / "navkit" / "examples" / "crowds"
HALL, FLOCK = EXAMPLES / "hall.json", EXAMPLES / "flock.json"
BASE = "http://127.0.0.1"


def _client(crowd: Path | None = FLOCK, target: Path = HALL) -> TestClient:
    return TestClient(create_app(target, crowd=crowd, warm=False), base_url=BASE)


def _oracle(ticks: int) -> Crowd:
    """The example crowd built by hand from its file, run ``ticks`` ticks."""
    obj = json.loads(FLOCK.read_text(encoding="utf-8"))
    grid: NavGrid = NavMap.load(HALL).grid
    agents = obj["agents"]
    crowd = Crowd(np.array([a["position"] for a in agents], dtype=float), grid=grid,
                  params=SteeringParams(**obj["params"]), weights=Weights(**obj["weights"]),
                  max_speed=obj["maxSpeed"], max_force=obj["maxForce"],
                  velocities=np.array([a.get("velocity", [0, 0]) for a in agents], dtype=float),
                  seed=obj["seed"])
    for i, a in enumerate(agents):
        if "weights" in a:
            crowd.set_weights(Weights(**{**obj["weights"], **a["weights"]}), agents=[i])
    goals = np.array([grid.world_to_cell(x, z) for x, z in obj["flowGoals"]])
    crowd.follow_flow(crowd.add_flow_field(FlowField(grid).build(goals)))
    if ticks:
        crowd.run(ticks, 1.0 / obj["tickRate"])
    return crowd


def test_crowd_api_steps_like_the_crowd_itself() -> None:
    n = len(json.loads(FLOCK.read_text(encoding="utf-8"))["agents"])
    with _client() as c:
        info = c.get("/api/info").json()
        assert info["crowd"]["agents"] == n and info["crowd"]["tick"] == 0
        f0 = c.get("/api/crowd").json()
        assert f0["type"] == "crowd" and len(f0["pos"]) == 2 * n and len(f0["vel"]) == 2 * n
        f = c.post("/api/crowd/step", json={"ticks": 30}).json()
        assert f["tick"] == 30 and f["playing"] is False
        want = _oracle(30)
        pos, vel = np.reshape(f["pos"], (-1, 2)), np.reshape(f["vel"], (-1, 2))
        np.testing.assert_allclose(pos, want.positions, atol=0.5e-4 + 1e-9)  # 0.1 mm rounding
        np.testing.assert_allclose(vel, want.velocities, atol=0.5e-3 + 1e-9)  # 1 mm/s
        assert f["status"] == [int(s) for s in want.status]
        assert f["neighbourRadius"] == want.params.neighbour_radius
        assert f["pos"] != f0["pos"]
        r = c.post("/api/crowd/reset").json()
        assert r["tick"] == 0 and r["pos"] == f0["pos"]
        assert c.post("/api/crowd/play").json()["playing"] is True
        assert c.post("/api/crowd/pause").json()["playing"] is False
        bad = c.post("/api/crowd/step", json={"ticks": 0})
        assert bad.status_code == 400


def test_without_a_crowd_the_endpoints_say_so() -> None:
    with _client(crowd=None) as c:
        assert c.get("/api/info").json()["crowd"] is None
        r = c.get("/api/crowd")
        assert r.status_code == 409 and r.json()["error"]["code"] == "no_crowd"


def _bad(tmp_path: Path, obj: Any) -> str:
    p = tmp_path / "c.json"
    p.write_text(json.dumps(obj), encoding="utf-8")
    with pytest.raises(FormatError) as info:
        spec = read_crowd(p)
        spec.build(NavMap.load(HALL).grid)
    assert str(p) in str(info.value)
    return str(info.value)


def test_crowd_file_errors_name_file_and_field(tmp_path: Path) -> None:
    one = {"position": [1.0, 3.0]}
    assert "agents" in _bad(tmp_path, {"agents": []})
    assert "agents[0].position" in _bad(tmp_path, {"agents": [{"position": [1.0]}]})
    assert "agents[1].position" in _bad(tmp_path, {"agents": [one, {"position": [10.0, 0.5]}]})
    assert "agents[0].speed" in _bad(tmp_path, {"agents": [{**one, "speed": 1}]})
    assert "tickRate" in _bad(tmp_path, {"agents": [one], "tickRate": 0})
    assert "weights.flow" in _bad(tmp_path, {"agents": [one], "weights": {"flow": -1}})
    assert "weights" in _bad(tmp_path, {"agents": [one], "weights": {"fly": 1}})
    assert "params" in _bad(tmp_path, {"agents": [one], "params": {"slow_radius": 0}})
    assert "flowGoals[0]" in _bad(tmp_path, {"agents": [one], "flowGoals": [[1, "a"]]})
    assert "blending" in _bad(tmp_path, {"agents": [one], "blending": "sum"})
    assert "colour" in _bad(tmp_path, {"agents": [one], "colour": 1})


def test_page_draws_the_crowd_steps_and_hovers(browser: Any) -> None:  # noqa: F811
    n = len(json.loads(FLOCK.read_text(encoding="utf-8"))["agents"])
    with LiveServer(HALL, app_options={"crowd": FLOCK, "warm": False}) as srv:
        page = _open(browser, srv.url)
        try:
            assert page.evaluate("!document.getElementById('sec-crowd').hidden")
            drawn = _wait(page, "navkit.drawn.crowd && navkit.drawn.crowd.agents")
            assert drawn == n == srv.api("GET", "/api/crowd")["agents"]
            before = page.evaluate("navkit.crowd.pos")
            frames = page.evaluate("navkit.crowdFrames")
            page.click("#crowd-step")
            _wait(page, f"navkit.crowdFrames > {frames} && navkit.crowd.tick === 1")
            page.click("#crowd-step")
            _wait(page, "navkit.crowd.tick === 2")
            page.evaluate("navkit.requestRedraw()")
            _wait(page, "navkit.drawn.crowd.tick === 2")
            after = page.evaluate("navkit.crowd.pos")
            assert after != before
            assert after == srv.api("GET", "/api/crowd")["pos"]
            assert page.evaluate("navkit.drawn.crowd.velocities") > 0
            # hover agent 5: the dashed neighbour-radius circle and the readout
            g = srv.api("GET", "/api/info")["grid"]
            x = (after[10] - g["minX"]) / g["cellSize"]
            z = (after[11] - g["minZ"]) / g["cellSize"]
            px, py = page.evaluate(f"navkit.cellToClient({x}, {z})")
            page.mouse.move(px, py)
            hover = _wait(page, "navkit.drawn.crowd && navkit.drawn.crowd.hover")
            assert hover["index"] == 5
            assert hover["radius"] == pytest.approx(1.5)
            assert page.evaluate("!document.getElementById('crowd-hover').hidden")
            assert "neighbour radius 1.5 m" in page.inner_text("#crowd-hover")
            _shot(page, "viewer-free-crowd.png")
            page.mouse.move(1, 1)
            _wait(page, "navkit.drawn.crowd.hover === null")
        finally:
            _close(page)
