"""The viewer's HTTP and WebSocket endpoints, and the validation of everything they receive.

Every endpoint answers JSON (the grid is raw bytes). A bad request gets a
4xx answer ``{"error": {"status", "code", "message", "field"}}`` and changes
nothing: arguments are validated completely before the state is touched,
and every change runs under the state's lock.

==================================  ===============================================================
endpoint                            what it does
==================================  ===============================================================
``GET /api/info``                   map geometry, algorithms, areas, obstacles, scene, limits
``GET /api/grid``                   one byte per cell (``[z, x]`` order): 0 blocked, ``k``
                                    walkable with weight ``legend[k-1]``; headers
                                    ``X-Navkit-Width``, ``X-Navkit-Depth``, ``X-Navkit-Version``,
                                    ``X-Navkit-Legend``
``POST /api/path``                  ``{"start": [x, z], "goal": [x, z], "algorithm"?: "auto"}``
                                    (cells): raw and smoothed path, nearest cell, cost, nodes
                                    expanded, time, expanded-cell heat map
``GET /api/mesh``                   the navigation mesh of the map now (built on first use,
                                    rebuilt when the version changes): polygons, portals, walls
``POST /api/mesh/path``             ``{"start": [x, z], "goal": [x, z], "methods"?: ["exact",
                                    "funnel"], "nearest"?: B}`` (world metres): one mesh path
                                    per method, its length, nodes expanded, time
``POST /api/areas``                 ``{"name": N, "available": B}``: open / close an area (door)
``POST /api/reset``                 drop every edit (doors, obstacles, circles, parameters):
                                    read the target file again (a scene: the simulation too)
``POST /api/flow``                  ``{"goal": [x, z], "every"?: n}`` (cells): flow-field arrows
``GET /api/hpa``                    HPA*'s clusters, entrances (abstract nodes) and their edges
``GET /api/cell?x=X&z=Z``           one cell for the inspector: world centre, weight, areas, ...
``POST /api/circles``               ``{"center": [x, z], "radius": r, "name"?: N}`` (metres)
``DELETE /api/circles/{name}``      remove a circle obstacle
``GET /api/level``                  the edited level as JSON (``navkit.level.parse_level``)
``POST /api/level/rebuild``         ``{"cellSize"?, "agentRadius"?, "objectPadding"?,
                                    "boundaryPadding"?}``: rebuild the level live
``POST /api/obstacles``             ``{"polygon": [[x, z], ...], "name"?: N}`` (world metres)
``DELETE /api/obstacles/{name}``    remove an obstacle
``GET /api/floors``                 a building's floors (name, ``floorY``), the floor shown,
                                    its links (ends, kind, cost, on or off)
``POST /api/floors/show``           ``{"floor": F}`` (index or name): show that floor (the map
                                    endpoints above answer for the floor shown)
``POST /api/floors/links``          ``{"name": N, "enabled": B}``: switch a link on or off
``POST /api/floors/path``           ``{"start": [x, z], "goal": [x, z], "startFloor": F,
                                    "goalFloor": F, "algorithm"?: "auto", "mode"?: "grid"}``
                                    (world metres; mode "mesh": the floors' nav meshes):
                                    a path across floors, its pieces per floor, links, cost
``GET /api/sim``                    the simulation now (full frame)
``POST /api/sim/play``, ``/pause``  start / stop the live simulation
``POST /api/sim/step``              ``{"ticks": n}`` (pauses first)
``POST /api/sim/speed``             ``{"speed": s}``: ticks per second = tick rate x s
``POST /api/sim/reset``             reload the scene file
``POST /api/sim/target``            ``{"id": ID, "target": [x, z]}``: walk a character somewhere
``GET /api/sim/characters/{id}``    one character's full state
``GET /api/crowd``                  the ``--crowd`` crowd now: positions, velocities, radii
``POST /api/crowd/play``, ``/pause`` start / stop the crowd
``POST /api/crowd/step``            ``{"ticks": n}`` (pauses first); ``/reset``: tick 0
``POST /api/replay``                upload a ``navkit sim --record`` file (JSON lines)
``GET /api/replay``, ``DELETE``     the loaded replay; forget it
``WS /ws/sim``                      a full frame on connect, then one frame per batch of ticks
                                    (and the crowd's ``{"type": "crowd"}`` frames)
==================================  ===============================================================
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from ..errors import MissingExtraError, NavkitError

try:  # the viewer's web server is the navkit[viewer] extra
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.websockets import WebSocket, WebSocketDisconnect
except ModuleNotFoundError as exc:
    raise MissingExtraError("the viewer", "viewer", exc.name or "starlette") from exc

from ..grid import NavGrid
from .crowdplay import CrowdPlayback
from .floors import ALGORITHMS as FLOOR_ALGORITHMS
from .floors import MESH_ALGORITHMS, BuildingState
from .layers import BUILD_PARAMS
from .mesh import MESH_METHODS, MeshLayer, MeshTooLarge, MeshUnavailable
from .playback import Playback
from .protocol import LIMITS, MAX_COORD, is_int, is_number, loads, show
from .replay import parse_replay
from .state import ViewerState

__all__ = ["ApiError", "error_body", "json_response", "ROUTES_DOC"]

ROUTES_DOC = __doc__

#: Content types a replay upload may have.
_REPLAY_TYPES = (
    "application/x-ndjson",
    "application/jsonl",
    "application/json-lines",
    "text/plain",
    "application/octet-stream",
)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.: ")


_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 409: "conflict",
          413: "too_large", 415: "unsupported_media_type"}


class ApiError(Exception):
    """A request the viewer refuses: HTTP ``status``, a ``code`` word, a message, the field."""

    def __init__(
        self, status: int, message: str, *, code: str | None = None, field: str | None = None
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code or _CODES.get(status, "error")
        self.field = field


def error_body(status: int, message: str, code: str, field: str | None = None) -> dict[str, Any]:
    return {"error": {"status": status, "code": code, "message": message, "field": field}}


class _AsciiJSON(JSONResponse):
    """JSON in ASCII: text a client sent (a lone surrogate ``\\ud800`` included) is
    escaped, never a reason to fail."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False,
                          separators=(",", ":")).encode("ascii")


def json_response(obj: Any, status: int = 200) -> JSONResponse:
    """Every JSON answer of the viewer (errors included)."""
    return _AsciiJSON(obj, status_code=status)



def _state(request: Request | WebSocket) -> ViewerState:
    st: ViewerState = request.app.state.viewer
    return st


_ok = json_response


# -------------------------------------------------------------- validation
async def read_json(request: Request, *, allow_empty: bool = False) -> dict[str, Any]:
    """The request's JSON object body (Content-Type application/json)."""
    body = await request.body()
    if not body.strip():
        if allow_empty:
            return {}
        raise ApiError(400, "expected a JSON object body")
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise ApiError(415, f"expected Content-Type: application/json, got {ctype or 'none'!r}")
    if len(body) > LIMITS["bodyBytes"]:
        raise ApiError(413, f"request body over {LIMITS['bodyBytes']} bytes")
    try:
        obj = loads(body.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ApiError(400, f"the body is not UTF-8 text: {e.reason}") from None
    except ValueError as e:
        raise ApiError(400, str(e)) from None
    if not isinstance(obj, dict):
        raise ApiError(400, f"expected a JSON object, got {type(obj).__name__}")
    return obj


def check_keys(obj: dict[str, Any], required: Sequence[str], optional: Sequence[str] = ()) -> None:
    for k in required:
        if k not in obj:
            raise ApiError(400, f"missing {k!r}", field=k)
    for k in obj:
        if k not in required and k not in optional:
            allowed = ", ".join(map(repr, (*required, *optional))) or "none"
            raise ApiError(400, f"unknown key {show(k)} (allowed: {allowed})", field=str(k)[:64])


def check_cell(v: Any, fld: str, grid: NavGrid) -> tuple[int, int]:
    """A cell ``[x, z]`` of two integers inside the grid."""
    if (
        not isinstance(v, list)
        or len(v) != 2
        or any(isinstance(c, bool) or not isinstance(c, int) for c in v)
    ):
        raise ApiError(400, f"expected a cell [x, z] of two integers, got {show(v)}", field=fld)
    x, z = v
    if not grid.in_bounds(x, z):
        raise ApiError(
            400,
            f"cell ({x}, {z}) is outside the {grid.width}x{grid.depth} grid "
            f"(x in [0, {grid.width - 1}], z in [0, {grid.depth - 1}])",
            field=fld,
        )
    return (int(x), int(z))


def _number(v: Any, fld: str, lo: float = -MAX_COORD, hi: float = MAX_COORD) -> float:
    """A finite number in ``[lo, hi]`` (world coordinates by default)."""
    if not is_number(v) or not lo <= v <= hi:
        raise ApiError(400, f"expected a number in [{lo:g}, {hi:g}], got {show(v)}", field=fld)
    return float(v)


def check_point(
    v: Any, fld: str, grid: NavGrid, *, margin_cells: float = 8.0
) -> tuple[float, float]:
    """A world point ``[x, z]`` in metres, on the grid or within ``margin_cells`` of it."""
    if not isinstance(v, list) or len(v) != 2:
        raise ApiError(400, f"expected a world point [x, z], got {show(v)}", field=fld)
    x = _number(v[0], f"{fld}[0]")
    z = _number(v[1], f"{fld}[1]")
    m = margin_cells * grid.cell_size
    if not (grid.min_x - m <= x <= grid.max_x + m and grid.min_z - m <= z <= grid.max_z + m):
        raise ApiError(
            400,
            f"point ({x:g}, {z:g}) lies outside the map (x in [{grid.min_x:g}, {grid.max_x:g}], "
            f"z in [{grid.min_z:g}, {grid.max_z:g}] metres)",
            field=fld,
        )
    return (x, z)


def check_polygon(v: Any, fld: str, grid: NavGrid) -> list[list[float]]:
    n = LIMITS["polygonPoints"]
    if not isinstance(v, list) or not 3 <= len(v) <= n:
        raise ApiError(400, f"expected a list of 3 to {n} points [x, z], got {show(v)}", field=fld)
    return [list(check_point(p, f"{fld}[{i}]", grid)) for i, p in enumerate(v)]


def check_name(v: Any, fld: str) -> str:
    n = LIMITS["nameLength"]
    if not isinstance(v, str) or not 1 <= len(v) <= n:
        raise ApiError(400, f"expected a name of 1 to {n} characters, got {show(v)}", field=fld)
    return v


def check_known(name: str, known: Sequence[str], what: str, fld: str, status: int = 400) -> str:
    if name not in known:
        if not known:
            raise ApiError(status, f"no {what} called {show(name)}: this map has none", field=fld)
        listed = ", ".join(map(repr, known[:20])) + (", ..." if len(known) > 20 else "")
        raise ApiError(status, f"no {what} called {show(name)} (known: {listed})", field=fld)
    return name


def check_bool(v: Any, fld: str) -> bool:
    if not isinstance(v, bool):
        raise ApiError(400, f"expected true or false, got {show(v)}", field=fld)
    return v


def check_int(v: Any, fld: str, lo: int, hi: int) -> int:
    if not is_int(v, lo, hi):
        raise ApiError(400, f"expected an integer in [{lo}, {hi}], got {show(v)}", field=fld)
    return v


def _scene(st: ViewerState) -> Playback:
    """The scene's simulation (409 when the viewer shows a plain map)."""
    if st.sim is None:
        raise ApiError(409, f"{st.name} is a map, not a scene: there is no simulation",
                       code="not_a_scene")
    return st.sim


# ------------------------------------------------------------------- map
async def info(request: Request) -> Response:
    st = _state(request)
    async with st.lock:
        out = st.info()
        out["mesh"] = _mesh_view(st).summary(st.nav)
        return _ok(out)


async def grid(request: Request) -> Response:
    st = _state(request)
    async with st.lock:
        version, data, legend = st.map.grid_bytes()
        g = st.nav.grid
        headers = {
            "X-Navkit-Width": str(g.width),
            "X-Navkit-Depth": str(g.depth),
            "X-Navkit-Version": str(version),
            "X-Navkit-Legend": ",".join(map(str, legend)),
            "Cache-Control": "no-store",
        }
    return Response(data, media_type="application/octet-stream", headers=headers)


async def path(request: Request) -> Response:
    st = _state(request)
    body = await read_json(request)
    check_keys(body, ("start", "goal"), ("algorithm",))
    async with st.lock:
        g = st.nav.grid
        start = check_cell(body["start"], "start", g)
        goal = check_cell(body["goal"], "goal", g)
        algo = body.get("algorithm", "auto")
        infos = {a.name: a for a in st.map.searcher.algorithms(st.nav.pathfinder)}
        if not isinstance(algo, str) or algo not in infos:
            known = ", ".join(map(repr, infos))
            raise ApiError(400, f"algorithm must be one of {known}, got {show(algo)}",
                           field="algorithm")
        if not infos[algo].available:
            raise ApiError(400, f"algorithm {algo!r} does not apply here: {infos[algo].reason}",
                           field="algorithm")
        out = await asyncio.to_thread(st.map.find_path, start, goal, algo)
    return _ok(out)


# ------------------------------------------------------------------ mesh
def _mesh_view(st: ViewerState) -> MeshLayer:
    view: MeshLayer = st.map.searcher.mesh
    return view


async def _on_mesh(st: ViewerState, fn: Any, *args: Any) -> Any:
    """``fn(st.nav, *args)`` on a worker thread (the lock held by the caller); 501 when
    this navkit has no meshes."""
    try:
        return await asyncio.to_thread(fn, st.nav, *args)
    except MeshUnavailable as e:
        raise ApiError(501, str(e), code="mesh_unavailable") from None
    except MeshTooLarge as e:
        raise ApiError(413, str(e), code="mesh_too_large") from None


def check_methods(v: Any, fld: str) -> list[str]:
    """A non-empty list of distinct mesh path methods (``"exact"``, ``"funnel"``)."""
    known = ", ".join(map(repr, MESH_METHODS))
    if (not isinstance(v, list) or not 1 <= len(v) <= len(MESH_METHODS)
            or any(not isinstance(m, str) or m not in MESH_METHODS for m in v)
            or len(set(v)) != len(v)):
        raise ApiError(400, f"expected a list of distinct methods out of {known}, got {show(v)}",
                       field=fld)
    return [str(m) for m in v]


async def mesh_get(request: Request) -> Response:
    st = _state(request)
    view = _mesh_view(st)
    async with st.lock:
        out = await _on_mesh(st, view.drawing)
    return _ok(out)


async def mesh_path(request: Request) -> Response:
    st = _state(request)
    body = await read_json(request)
    check_keys(body, ("start", "goal"), ("methods", "nearest"))
    methods = check_methods(body.get("methods", ["exact"]), "methods")
    nearest = check_bool(body.get("nearest", False), "nearest")
    async with st.lock:
        g = st.nav.grid
        start = check_point(body["start"], "start", g)
        goal = check_point(body["goal"], "goal", g)
        out = await _on_mesh(st, _mesh_view(st).find_path, start, goal, methods, nearest)
    return _ok(out)


async def set_area(request: Request) -> Response:
    st = _state(request)
    body = await read_json(request)
    check_keys(body, ("name", "available"))
    name = check_name(body["name"], "name")
    available = check_bool(body["available"], "available")
    async with st.lock:
        check_known(name, list(st.nav.area_names), "area", "name")
        out = await asyncio.to_thread(st.map.set_area, name, available)
    await st.broadcast({"type": "map", "version": out["version"]})
    return _ok(out)


async def reset_edits(request: Request) -> Response:
    """``POST /api/reset``: forget every edit; answers the new version and ``edits`` (empty)."""
    st = _state(request)
    check_keys(await read_json(request, allow_empty=True), ())
    async with st.lock:
        out = await asyncio.to_thread(st.reset_edits)
        frame = None if st.sim is None else st.sim.frame()
    await st.broadcast({"type": "map", "version": out["version"]})
    if frame is not None:
        await st.broadcast({**frame, "reset": True})
    return _ok(out)


async def add_obstacle(request: Request) -> Response:
    st = _state(request)
    body = await read_json(request)
    check_keys(body, ("polygon",), ("name",))
    name = check_name(body["name"], "name") if "name" in body else None
    if name is not None and not set(name) <= _NAME_CHARS:
        raise ApiError(400, "a name may hold letters, digits, spaces and _ - . : only",
                       field="name")
    async with st.lock:
        polygon = check_polygon(body["polygon"], "polygon", st.nav.grid)
        if name is not None and name in st.nav.obstacle_names:
            raise ApiError(409, f"an obstacle called {name!r} already exists", field="name")
        out = await asyncio.to_thread(st.map.add_obstacle, name, polygon)
    await st.broadcast({"type": "map", "version": out["version"]})
    return _ok(out, 201)


async def remove_obstacle(request: Request) -> Response:
    st = _state(request)
    name = check_name(request.path_params["name"], "name")
    async with st.lock:
        check_known(name, list(st.nav.obstacle_names), "obstacle", "name", status=404)
        out = await asyncio.to_thread(st.map.remove_obstacle, name)
    await st.broadcast({"type": "map", "version": out["version"]})
    return _ok(out)


# ---------------------------------------------------------------- layers
async def flow(request: Request) -> Response:
    st = _state(request)
    body = await read_json(request)
    check_keys(body, ("goal",), ("every",))
    every = check_int(body["every"], "every", 1, 1024) if "every" in body else None
    async with st.lock:
        goal = check_cell(body["goal"], "goal", st.nav.grid)
        out = await asyncio.to_thread(st.map.flow, goal, every)
    return _ok(out)


async def hpa(request: Request) -> Response:
    st = _state(request)
    async with st.lock:
        out = await asyncio.to_thread(st.map.hpa)
    return _ok(out)


async def cell(request: Request) -> Response:
    st = _state(request)
    q = request.query_params
    for k in q:
        if k not in ("x", "z"):
            raise ApiError(400, f"unknown query parameter {show(k)} (allowed: 'x', 'z')",
                           field=str(k)[:64])
    vals = []
    for k in ("x", "z"):
        raw = q.get(k)
        if raw is None:
            raise ApiError(400, f"missing {k!r}", field=k)
        text = raw.strip()
        if not (text.lstrip("-").isdigit() and len(text) <= 12):
            raise ApiError(400, f"expected an integer, got {show(raw)}", field=k)
        vals.append(int(text))
    async with st.lock:
        c = check_cell(vals, "cell", st.nav.grid)
        return _ok(st.map.cell_info(c))


async def add_circle(request: Request) -> Response:
    st = _state(request)
    body = await read_json(request)
    check_keys(body, ("center", "radius"), ("name",))
    name = check_name(body["name"], "name") if "name" in body else None
    if name is not None and not set(name) <= _NAME_CHARS:
        raise ApiError(400, "a name may hold letters, digits, spaces and _ - . : only",
                       field="name")
    async with st.lock:
        g = st.nav.grid
        x, z = check_point(body["center"], "center", g, margin_cells=0.0)
        most = 64.0 * g.cell_size
        radius = _number(body["radius"], "radius", 0.0, most)
        if radius <= 0:
            raise ApiError(400, f"expected a radius > 0 metres, got {show(body['radius'])}",
                           field="radius")
        if name is not None and name in st.map.circles:
            raise ApiError(409, f"a circle called {name!r} already exists", field="name")
        out = await asyncio.to_thread(st.map.add_circle, name, x, z, radius)
    await st.broadcast({"type": "map", "version": st.version})
    return _ok(out, 201)


async def remove_circle(request: Request) -> Response:
    st = _state(request)
    name = check_name(request.path_params["name"], "name")
    async with st.lock:
        check_known(name, list(st.map.circles), "circle", "name", status=404)
        out = await asyncio.to_thread(st.map.remove_circle, name)
    await st.broadcast({"type": "map", "version": st.version})
    return _ok(out)


def _level_only(st: ViewerState, what: str) -> None:
    if st.building is not None:
        raise ApiError(409, f"{st.name} is a building: {what} (GET /api/level saves the "
                       "whole building)", code="not_a_level")
    if st.nav.level is None:
        raise ApiError(409, f"{st.name} is not a JSON level: {what}", code="not_a_level")


async def level_get(request: Request) -> Response:
    st = _state(request)
    async with st.lock:
        if st.building is not None:
            out = st.building.level_json()
        else:
            _level_only(st, "there is no level to save")
            out = st.map.level_json()
    stem = st.target.stem if st.kind == "map" else st.target.stem + "_navigation"
    resp = _ok(out)
    resp.headers["Content-Disposition"] = f'attachment; filename="{stem}_edited.json"'
    resp.headers["X-Navkit-Circles"] = str(len(st.map.circles))
    return resp


async def level_rebuild(request: Request) -> Response:
    st = _state(request)
    body = await read_json(request)
    check_keys(body, (), tuple(BUILD_PARAMS))
    if not body:
        raise ApiError(400, f"expected at least one of {', '.join(map(repr, BUILD_PARAMS))}")
    params = {k: _number(v, k, 0.0, 1e6) for k, v in body.items()}
    if st.sim is not None:
        raise ApiError(409, "a scene's level is rebuilt by editing the scene file (its "
                       "characters stand on the old grid)", code="not_a_level")
    async with st.lock:
        _level_only(st, "its floors are rebuilt by editing the building file")
        out = await asyncio.to_thread(st.map.rebuild, params)
    await st.broadcast({"type": "map", "version": out["version"]})
    return _ok(out)


# -------------------------------------------------------------- building
def _building(st: ViewerState) -> BuildingState:
    """The building (409 when the viewer shows a single-floor map or a scene)."""
    if st.building is None:
        raise ApiError(409, f"{st.name} is not a building (a level with floors): it has one "
                       "floor and no links", code="not_a_building")
    return st.building


def check_floor(v: Any, fld: str, names: Sequence[str]) -> int:
    """A floor: its index (an integer) or its name."""
    if isinstance(v, str):
        check_known(v, list(names), "floor", fld)
        return list(names).index(v)
    if not is_int(v, 0, len(names) - 1):
        raise ApiError(400, f"expected a floor index in [0, {len(names) - 1}] or a floor name "
                       f"({', '.join(map(repr, names))}), got {show(v)}", field=fld)
    return int(v)


async def floors_get(request: Request) -> Response:
    st = _state(request)
    b = _building(st)
    async with st.lock:
        return _ok(b.summary())


async def floors_show(request: Request) -> Response:
    st = _state(request)
    b = _building(st)
    body = await read_json(request)
    check_keys(body, ("floor",))
    async with st.lock:
        floor = check_floor(body["floor"], "floor", b.fm.floor_names)
        return _ok(b.show(floor))


async def floors_link(request: Request) -> Response:
    st = _state(request)
    b = _building(st)
    body = await read_json(request)
    check_keys(body, ("name", "enabled"))
    name = check_name(body["name"], "name")
    enabled = check_bool(body["enabled"], "enabled")
    async with st.lock:
        check_known(name, list(b.fm.building.link_names), "link", "name")
        return _ok(b.set_link(name, enabled))


async def floors_path(request: Request) -> Response:
    st = _state(request)
    b = _building(st)
    body = await read_json(request)
    check_keys(body, ("start", "goal", "startFloor", "goalFloor"), ("algorithm", "mode"))
    mode = body.get("mode", "grid")
    if mode not in ("grid", "mesh"):
        raise ApiError(400, f"mode must be 'grid' or 'mesh', got {show(mode)}", field="mode")
    algo = body.get("algorithm", "auto")
    known = FLOOR_ALGORITHMS if mode == "grid" else MESH_ALGORITHMS
    if not isinstance(algo, str) or algo not in known:
        raise ApiError(400, f"algorithm must be one of {', '.join(map(repr, known))} for "
                       f"mode {mode!r}, got {show(algo)}", field="algorithm")
    async with st.lock:
        names = b.fm.floor_names
        sf = check_floor(body["startFloor"], "startFloor", names)
        gf = check_floor(body["goalFloor"], "goalFloor", names)
        start = check_point(body["start"], "start", b.fm.building.grid(sf))
        goal = check_point(body["goal"], "goal", b.fm.building.grid(gf))
        try:
            out = await asyncio.to_thread(b.find_path, start, goal, sf, gf, algo, mode)
        except (ImportError, MeshUnavailable) as e:
            raise ApiError(501, f"meshes are unavailable here: {e}",
                           code="mesh_unavailable") from None
    return _ok(out)


# ------------------------------------------------------------ simulation
async def sim_get(request: Request) -> Response:
    st = _state(request)
    sim = _scene(st)
    async with st.lock:
        return _ok(sim.frame(full=True))


async def _set_playing(request: Request, crowd: bool, playing: bool) -> Response:
    """Play or pause the scene (``crowd`` False) or the free crowd: a body-less
    POST; wakes the player's loop on play, broadcasts and answers its summary."""
    st = _state(request)
    player: Playback | CrowdPlayback = _crowd(st) if crowd else _scene(st)
    check_keys(await read_json(request, allow_empty=True), ())
    async with st.lock:
        player.playing = playing
        if playing:
            (st.crowd_wake if crowd else st.wake).set()
        out = player.summary()
    await st.broadcast({"type": "crowdStatus" if crowd else "status", **out})
    return _ok(out)


async def sim_play(request: Request) -> Response:
    return await _set_playing(request, crowd=False, playing=True)


async def sim_pause(request: Request) -> Response:
    return await _set_playing(request, crowd=False, playing=False)


async def sim_step(request: Request) -> Response:
    st = _state(request)
    sim = _scene(st)
    body = await read_json(request, allow_empty=True)
    check_keys(body, (), ("ticks",))
    ticks = check_int(body.get("ticks", 1), "ticks", 1, LIMITS["stepTicks"])
    async with st.lock:
        sim.playing = False
        await asyncio.to_thread(sim.step, ticks)
        frame = sim.frame()
        out = sim.frame(full=True)
    await st.broadcast(frame)
    return _ok(out)


async def sim_speed(request: Request) -> Response:
    st = _state(request)
    sim = _scene(st)
    body = await read_json(request)
    check_keys(body, ("speed",))
    speed = _number(body["speed"], "speed", LIMITS["minSpeed"], LIMITS["maxSpeed"])
    async with st.lock:
        sim.speed = speed
        out = sim.summary()
    await st.broadcast({"type": "status", **out})
    return _ok(out)


async def sim_reset(request: Request) -> Response:
    st = _state(request)
    sim = _scene(st)
    check_keys(await read_json(request, allow_empty=True), ())
    async with st.lock:
        await asyncio.to_thread(st.reset)
        frame = sim.frame()
        out = sim.frame(full=True)
    await st.broadcast({**frame, "reset": True})
    return _ok(out)


async def sim_target(request: Request) -> Response:
    st = _state(request)
    sim = _scene(st)
    body = await read_json(request)
    check_keys(body, ("id", "target"))
    raw = body["id"]
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise ApiError(400, f"expected a character ID (a string or an integer), got {show(raw)}",
                       field="id")
    async with st.lock:
        if raw not in sim.loc:
            raise ApiError(400, f"no character with ID {show(raw)}", field="id")
        point = check_point(body["target"], "target", st.nav.grid, margin_cells=0.0)
        c = sim.loc.character(raw)
        out = await asyncio.to_thread(sim.set_target, c, point)
    return _ok(out)


async def sim_character(request: Request) -> Response:
    st = _state(request)
    sim = _scene(st)
    raw = request.path_params["cid"]
    if not 1 <= len(raw) <= 256:
        raise ApiError(400, "expected a character ID of 1 to 256 characters", field="id")
    async with st.lock:
        try:
            c = sim.find_character(raw)
        except NavkitError as e:
            raise ApiError(404, str(e), field="id") from None
        return _ok(sim.character_detail(c))


# ---------------------------------------------------------------- replay
async def replay_get(request: Request) -> Response:
    st = _state(request)
    if st.replay is None:
        raise ApiError(404, "no replay loaded: POST a `navkit sim --record` file to /api/replay",
                       code="no_replay")
    return _ok(st.replay)


async def replay_post(request: Request) -> Response:
    st = _state(request)
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype not in _REPLAY_TYPES:
        got = ctype or "none"
        raise ApiError(415, f"expected a JSON-lines body (application/x-ndjson), got {got!r}")
    body = await request.body()
    if len(body) > LIMITS["replayBytes"]:
        raise ApiError(413, f"replay over {LIMITS['replayBytes']} bytes")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ApiError(400, f"replay is not UTF-8 text: {e.reason}") from None
    replay = await asyncio.to_thread(parse_replay, text)
    async with st.lock:
        st.replay = replay
    return _ok(replay)


async def replay_delete(request: Request) -> Response:
    st = _state(request)
    async with st.lock:
        had = st.replay is not None
        st.replay = None
    return _ok({"deleted": had})


# ------------------------------------------------------------- websocket
def _crowd(st: ViewerState) -> CrowdPlayback:
    """The crowd (409 when the viewer was started without ``--crowd``)."""
    if st.crowd is None:
        raise ApiError(409, "no crowd: start the viewer with --crowd CROWD.json", code="no_crowd")
    return st.crowd


async def crowd_get(request: Request) -> Response:
    st = _state(request)
    crowd = _crowd(st)
    async with st.lock:
        return _ok(crowd.frame())


async def crowd_play(request: Request) -> Response:
    return await _set_playing(request, crowd=True, playing=True)


async def crowd_pause(request: Request) -> Response:
    return await _set_playing(request, crowd=True, playing=False)


async def crowd_step(request: Request) -> Response:
    """``{"ticks": k}`` (default 1): pause and advance ``k`` ticks; answers the frame."""
    st = _state(request)
    crowd = _crowd(st)
    body = await read_json(request, allow_empty=True)
    check_keys(body, (), ("ticks",))
    ticks = check_int(body.get("ticks", 1), "ticks", 1, LIMITS["stepTicks"])
    async with st.lock:
        crowd.playing = False
        await asyncio.to_thread(crowd.step, ticks)
        out = crowd.frame()
    await st.broadcast(out)
    return _ok(out)


async def crowd_reset(request: Request) -> Response:
    st = _state(request)
    crowd = _crowd(st)
    check_keys(await read_json(request, allow_empty=True), ())
    async with st.lock:
        await asyncio.to_thread(crowd.reset)
        out = crowd.frame()
    await st.broadcast(out)
    return _ok(out)


async def sim_socket(ws: WebSocket) -> None:
    st = _state(ws)
    sim = st.sim
    if sim is None and st.crowd is None:
        await ws.close(code=4409, reason="not a scene")
        return
    if len(st.clients) >= LIMITS["wsClients"]:
        await ws.close(code=1013, reason="too many viewers")
        return
    await ws.accept()
    try:
        async with st.lock:
            first = [] if sim is None else [sim.frame(full=True)]
            if st.crowd is not None:
                first.append(st.crowd.frame())
            st.clients.add(ws)
        for snapshot in first:
            await ws.send_text(json.dumps(snapshot, allow_nan=False, separators=(",", ":")))
        while True:
            # the page sends nothing that matters; reading notices the close
            # (uvicorn's ws_max_size bounds what a client can push)
            msg = await ws.receive()
            if msg.get("type") == "websocket.disconnect":
                break
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        st.clients.discard(ws)
