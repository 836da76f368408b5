"""The viewer API (navkit/viewer/api.py) through starlette's TestClient.

Each case builds a fresh app on a scene, a polygon level or a Moving AI map
(sometimes a mutated file: ``create_app`` must refuse it with a NavkitError)
and sends one to four requests to its endpoints: bodies with wrong types,
extreme and huge numbers, NaN literals, deep nesting, invalid UTF-8, wrong
content types, odd path parameters, mutated replay uploads, and a WebSocket
connection. A 500 is an exception that escaped an endpoint; a 4xx must carry
the ``{"error": {...}}`` body; a path answered 200 must be a legal cell chain.
"""

from __future__ import annotations

import importlib.util
import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tests.reference import is_valid_path

from .core import (
    BIG300,
    BIG4400,
    NUMBERS,
    Case,
    Context,
    Gen,
    ServerError,
    check,
    extreme_like,
    show,
)
from .gen_levels import json_text, random_level
from .gen_readers import EXAMPLES, mutate
from .gen_sim import SCENES, random_scene

BASE_URL = "http://127.0.0.1:8765"
HAVE_STARLETTE = importlib.util.find_spec("starlette") is not None

_VALUES: tuple[Any, ...] = NUMBERS + (
    [1, 1], [0, 0], [-1, 0], [1.5, 2], [BIG300, 0], [BIG4400, 1], [2**63, 2**63], [True, 1],
    [1, 2, 3], [[1, 2]], "a", "door", "a0", "x" * 200, {"x": 1}, [1e308, 1e308],
    [math.nan, 0], [3, 3],
)


def _target(g: Gen) -> tuple[str, Any]:
    kind = g.choice(["example-scene", "scene", "scene", "level", "map"])
    if kind == "example-scene":
        return kind, SCENES / g.choice(["corridor_head_on.json", "follow.json"])
    if kind == "scene":
        return kind, random_scene(g)
    if kind == "level":
        return kind, random_level(g)
    return kind, EXAMPLES / "arena.map"


def _body(g: Gen, obj: Any) -> tuple[bytes, str]:
    """Encoded body and its content type (mostly JSON, sometimes hostile bytes or types)."""
    raw = json_text(obj).encode()
    how = g.choice(["json"] * 16 + ["deep", "bytes", "type", "utf16", "big", "huge", "nan"])
    ctype = "application/json"
    if how == "deep":
        n = g.choice([1000, 100_000])
        raw = b'{"a": ' + b"[" * n + b"]" * n + b"}"
    elif how == "bytes":
        raw, _ = mutate(g, raw, text=True)
    elif how == "type":
        ctype = g.choice(["text/plain", "", "application/x-www-form-urlencoded",
                          "APPLICATION/JSON", "application/json; charset=latin-1"])
    elif how == "utf16":
        raw = raw.decode().encode("utf-16")
    elif how == "big":
        raw = raw.replace(b"1", b"9" * 4400, 1)
    elif how == "huge":
        raw = b'{"x": "' + b"a" * ((1 << 20) + 10) + b'"}'
    elif how == "nan":
        raw = raw.replace(b"1", b"NaN", 1)
    return raw, ctype


def _requests(g: Gen, cell: Callable[[], list[int]], point: Callable[[], list[float]],
              ids: list[Any]) -> list[dict[str, Any]]:
    out = []
    for _ in range(g.randint(1, 4)):
        ep = g.choice(["path"] * 5 + ["areas", "obstacles", "obstacles", "del-obstacle", "info",
                                      "grid", "sim", "play", "pause", "step", "speed", "reset",
                                      "target", "target", "character", "replay", "replay",
                                      "get-replay", "del-replay", "ws", "odd"])

        def v(ok: Any) -> Any:
            if g.chance(0.25):
                return extreme_like(g, ok) if g.chance(0.4) else g.choice(_VALUES)
            return ok

        body: Any = None
        method, path = "POST", ""
        if ep == "path":
            path = "/api/path"
            body = {"start": v(cell()), "goal": v(cell())}
            if g.chance(0.5):
                body["algorithm"] = v(g.choice(["astar", "dijkstra", "jps", "auto", "hpa",
                                                "flow", "bfs"]))
        elif ep == "areas":
            path, body = "/api/areas", {"name": v(g.choice(["a0", "a1", "door", "west"])),
                                        "available": v(g.chance(0.5))}
        elif ep == "obstacles":
            p = point()
            poly = [p, [p[0] + 1, p[1]], [p[0], p[1] + 1]]
            path, body = "/api/obstacles", {"polygon": v(poly) if g.chance(0.7) else
                                            [v(q) for q in poly] + [point()] * g.choice([0, 70])}
            if g.chance(0.5):
                body["name"] = v(g.choice(["box", "o0", "a b", "x/y", "\u00e9", "viewer_1"]))
        elif ep == "del-obstacle":
            method = "DELETE"
            path = "/api/obstacles/" + g.choice(["o0", "o1", "box", "nope", "%00", "a%2Fb",
                                                 "x" * 300, "..%2F..", "viewer_1", "%ff"])
        elif ep in ("info", "grid", "sim"):
            method, path = "GET", f"/api/{ep}"
        elif ep in ("play", "pause", "reset"):
            path = f"/api/sim/{ep}"
            body = g.choice([None, {}, {"x": 1}, [1]])
        elif ep == "step":
            path, body = "/api/sim/step", {"ticks": v(g.randint(1, 30))}
        elif ep == "speed":
            path, body = "/api/sim/speed", {"speed": v(g.uniform(0.1, 8))}
        elif ep == "target":
            path, body = "/api/sim/target", {"id": v(g.choice(ids or ["x"])), "target": v(point())}
        elif ep == "character":
            method = "GET"
            path = "/api/sim/characters/" + g.choice([str(i) for i in ids] + [
                "nobody", "%00", "x" * 300, "", "0", "-1", "%ff"])
        elif ep == "replay":
            path = "/api/replay"
            body = "REPLAY"
        elif ep == "get-replay":
            method, path = "GET", "/api/replay"
        elif ep == "del-replay":
            method, path = "DELETE", "/api/replay"
        elif ep == "ws":
            method, path = "WS", "/ws/sim"
        else:
            method = g.choice(["GET", "PUT", "PATCH", "POST", "DELETE"])
            path = g.choice(["/api/path", "/api/nope", "/", "/static/../api.py", "/api/sim/step",
                             "/static/" + "x" * 300, "/api/grid"])
            body = g.choice([None, {}, {"a": 1}])
        out.append({"ep": ep, "method": method, "path": path, "body": body})
    return out


def _check_response(resp: Any, req: dict[str, Any], st: Any, ctx: Context) -> bool:
    """Raise on a 500 or a malformed answer; True when the request was accepted."""
    code = resp.status_code
    if code >= 500:
        raise ServerError(f"HTTP {code}: {_crash_sig(ctx)}", resp.text[:300])
    if 400 <= code < 500:
        try:
            err = resp.json()["error"]
            ok = (err["status"] == code and isinstance(err["code"], str)
                  and isinstance(err["message"], str))
        except Exception:
            ok = False
        check(ok, "4xx answer without an error body", f"{code} {resp.text[:200]}")
        return False
    if req["ep"] == "path" and code == 200:
        out = resp.json()
        cells = np.array(out["cells"], dtype=np.int64).reshape(-1, 2)
        grid = st.nav.grid
        eight = st.nav.pathfinder.connectivity == 8
        if len(cells):
            check(is_valid_path(grid.walkable, cells, eight), "viewer path makes an illegal step",
                  str(cells.tolist())[:200])
            check(list(cells[0]) == req["body"]["start"], "viewer path does not start at start")
            if out["found"]:
                check(list(cells[-1]) == req["body"]["goal"], "viewer path misses the goal")
    if req["path"].startswith("/api/") and req["path"] != "/api/grid" and code < 300:
        try:
            json.loads(resp.text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        except ValueError:
            check(False, "viewer answered invalid JSON", resp.text[:200])
    return True


def _crash_sig(ctx: Context) -> str:
    return ctx.server_sig or "unknown exception"


def _rejected() -> Exception:
    """The outcome of a case whose requests the viewer refused with a 4xx error answer."""
    from navkit.errors import NavkitError

    class Rejected(NavkitError):
        pass

    return Rejected("the viewer refused a request (4xx with an error body)")


def gen_requests(g: Gen) -> Case:
    kind, target = _target(g)
    bad_target = g.chance(0.08)
    seed_tick = g.randint(0, 3)

    def run(ctx: Context) -> None:
        from starlette.requests import Request
        from starlette.testclient import TestClient
        from starlette.websockets import WebSocketDisconnect

        from navkit.sim import Location, ReplayWriter
        from navkit.viewer import create_app

        from .core import exception_signature

        if isinstance(target, dict):
            p = ctx.tmp / ("scene.json" if kind == "scene" else "level.json")
            p.write_text(json_text(target))
        else:
            p = target
        if bad_target:
            data, how = mutate(g, p.read_bytes(), text=True)
            ctx.note(f"target mutated: {how}")
            p = ctx.tmp / ("bad" + p.suffix)
            p.write_bytes(data)
        ctx.at("create_app")
        app = create_app(p, warm=False)
        original = app.exception_handlers.get(Exception)

        async def record(request: Request, exc: Exception) -> Any:
            sig, trace = exception_signature(exc)
            ctx.server_trace = trace
            ctx.server_sig = sig
            assert original is not None
            return await original(request, exc)

        app.add_exception_handler(Exception, record)
        replay = b""
        if kind.endswith("scene"):
            loc = Location.load(p)
            rec = ctx.tmp / "rec.jsonl"
            with ReplayWriter(rec, loc) as w:
                loc.run(seed_tick + 3, on_tick=w.record)
            replay = rec.read_bytes()
        with TestClient(app, base_url=BASE_URL, raise_server_exceptions=False) as client:
            st = app.state.viewer
            grid = st.nav.grid
            ids = list(st.loc.ids) if st.loc is not None else []

            def cell() -> list[int]:
                return [g.randint(0, grid.width - 1), g.randint(0, grid.depth - 1)]

            def point() -> list[float]:
                return [grid.min_x + g.random() * grid.width * grid.cell_size,
                        grid.min_z + g.random() * grid.depth * grid.cell_size]

            reqs = _requests(g, cell, point, ids)
            accepted = True
            ctx.note("requests: " + ", ".join(f"{r['method']} {r['path'][:40]} "
                                              f"{show(r['body'], 60)}" for r in reqs))
            for req in reqs:
                ctx.at(f"{req['method']} {req['path'].split('/api/')[-1][:30] or req['path']}")
                if req["method"] == "WS":
                    try:
                        url = BASE_URL.replace("http", "ws") + req["path"]
                        with client.websocket_connect(url) as ws:
                            frame = json.loads(ws.receive_text())
                            check(isinstance(frame, dict) and frame, "empty WebSocket frame")
                    except WebSocketDisconnect as e:  # refused: a map is no scene
                        check(st.sim is None and e.code == 4409,
                              "WebSocket closed on a scene", f"code {e.code} {e.reason}")
                        accepted = False
                    continue
                headers: dict[str, str] = {}
                content: bytes | None = None
                if req["body"] == "REPLAY":
                    content, how = (mutate(g, replay, text=True) if g.chance(0.7)
                                    else (replay, ""))
                    headers["content-type"] = g.choice(["application/x-ndjson", "text/plain",
                                                        "application/json", ""])
                elif req["body"] is not None:
                    content, ctype = _body(g, req["body"])
                    if ctype:
                        headers["content-type"] = ctype
                resp = client.request(req["method"], req["path"], content=content,
                                      headers=headers)
                accepted &= _check_response(resp, req, st, ctx)
        if not accepted:
            raise _rejected()

    return Case("viewer", "viewer API", f"{kind}{' (mutated file)' if bad_target else ''}", run)


GENERATORS: list[tuple[int, Callable[[Gen], Case]]] = [(1, gen_requests)]
