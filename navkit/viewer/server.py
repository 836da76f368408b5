"""The viewer's web application: :func:`create_app` and :func:`serve`.

Built on Starlette (routes, WebSocket) and served by uvicorn. The page is
plain HTML, ES modules and a canvas from the package's ``static/`` folder:
no build step, no network. Safety:

* binds to ``127.0.0.1`` unless told otherwise, and beyond loopback only
  when asked twice (``allow_remote``); answers only requests whose ``Host``
  is the bound address, a loopback name or a name the user allowed
  (``allow_hosts``), which stops DNS rebinding, wildcard binds included;
  state-changing requests and WebSockets from another origin get 403;
* serves exactly the files of ``static/`` (a fixed list made at start-up):
  any other path, traversal included, gets 404;
* limits request heads (16 KiB), bodies (1 MiB JSON, 64 MiB replay uploads)
  and WebSocket messages (64 KiB); a head must arrive within 5 s and a body
  within 30 s (408), and at most 512 connections are open, one more closing
  the longest idle (:mod:`navkit.viewer.transport`);
* validates every coordinate and name (:mod:`navkit.viewer.api`); errors
  are JSON and change nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError, MissingExtraError, NavkitError, require_extra

try:  # the viewer's web server is the navkit[viewer] extra
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.middleware.gzip import GZipMiddleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route, WebSocketRoute
except ModuleNotFoundError as exc:
    raise MissingExtraError("the viewer", "viewer", exc.name or "starlette") from exc

from . import api
from .protocol import LIMITS
from .state import ViewerState

__all__ = ["create_app", "serve", "bind_socket", "allowed_hosts", "check_bind", "is_loopback",
           "STATIC_DIR", "LOOPBACK_HOSTS"]

STATIC_DIR = Path(__file__).resolve().parent / "static"

#: Host names a loopback-bound viewer answers to.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

_CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
}

_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'none'"
)
_SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"content-security-policy", _CSP.encode()),
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _static_files() -> dict[str, tuple[Path, str]]:
    """URL name -> (file, content type) for every file under ``static/`` (made once)."""
    files: dict[str, tuple[Path, str]] = {}
    for p in sorted(STATIC_DIR.rglob("*")):
        if p.is_file() and p.suffix in _CONTENT_TYPES and not p.name.startswith("."):
            files[p.relative_to(STATIC_DIR).as_posix()] = (p, _CONTENT_TYPES[p.suffix])
    return files


def _host_name(value: str) -> str:
    """``host[:port]`` or ``[v6]:port`` -> the bare, lower-case host."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else value
    if value.count(":") == 1:
        return value.split(":", 1)[0]
    return value


_HOST_CHARS = re.compile(r"[a-z0-9._:-]+")


def is_loopback(host: str) -> bool:
    """Whether binding to ``host`` keeps the viewer on this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, *, allow_remote: bool) -> None:
    """Refuse (ConfigError) to bind beyond loopback unless ``allow_remote``."""
    if not allow_remote and not is_loopback(host):
        raise ConfigError(
            f"{host} is not a loopback address: anyone who can reach it could use the viewer, "
            f"edit the map and drive the simulation. To listen there anyway, pass "
            f"allow_remote=True (navkit view --allow-remote), and name the hosts clients will "
            f"use in allow_hosts (--allow-host NAME)", field="host")


def allowed_hosts(host: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The ``Host`` names a viewer bound to ``host`` answers to: the loopback names,
    ``host`` itself and the ``extra`` names (``name``, ``name:port`` or ``[v6]``).

    Raises ConfigError for an extra name that is not a host name or address."""
    names = set(LOOPBACK_HOSTS) | {_host_name(host)}
    for raw in extra:
        name = _host_name(raw) if isinstance(raw, str) else ""
        if not _HOST_CHARS.fullmatch(name):
            raise ConfigError(f"{str(raw)[:100]!r} is not a host name or address",
                              field="allow_hosts")
        names.add(name)
    return frozenset(names)


def _head_bytes(scope: Scope) -> int:
    """The size of a request's head: request line and header lines."""
    line = len(scope.get("method", "GET")) + len(scope.get("raw_path") or b"") + 12
    query = scope.get("query_string") or b""
    return line + (len(query) + 1 if query else 0) + sum(
        len(k) + len(v) + 4 for k, v in scope.get("headers", []))


class _Guard:
    """ASGI middleware: head size, Host and Origin checks, request body limits, security
    headers."""

    def __init__(self, app: ASGIApp, *, allowed_hosts: frozenset[str],
                 body_limit: int, upload_limit: int, upload_paths: frozenset[str],
                 body_timeout: float):
        self.app = app
        self.allowed_hosts = allowed_hosts
        self.body_limit = body_limit
        self.upload_limit = upload_limit
        self.upload_paths = upload_paths
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        head = _head_bytes(scope)
        if head > LIMITS["headBytes"]:
            # uvicorn's h11 limit covers a head that is still arriving; this one came whole
            await self._refuse(scope, receive, send, 431, "head_too_large",
                               f"request head of {head} bytes is over the limit of "
                               f"{LIMITS['headBytes']}")
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        if _host_name(host) not in self.allowed_hosts:
            await self._refuse(scope, receive, send, 400, "bad_host",
                               f"unexpected Host header {host[:100]!r}: this viewer answers to "
                               f"{', '.join(sorted(self.allowed_hosts))}")
            return
        origin = headers.get("origin")
        method = scope.get("method", "GET")
        if origin is not None and (scope["type"] == "websocket" or method not in ("GET", "HEAD")):
            if origin == "null" or urlsplit(origin).netloc.lower() != host.lower():
                await self._refuse(scope, receive, send, 403, "cross_origin",
                                   f"requests from origin {origin[:100]!r} are not allowed")
                return
        if scope["type"] == "http" and method not in ("GET", "HEAD"):
            limit = self.upload_limit if scope.get("path") in self.upload_paths else self.body_limit
            length = headers.get("content-length")
            if length is not None:
                if not length.isdigit():
                    await self._refuse(scope, receive, send, 400, "bad_request",
                                       "invalid Content-Length")
                    return
                if int(length) > limit:
                    await self._refuse(scope, receive, send, 413, "too_large",
                                       f"request body of {int(length)} bytes is over the limit "
                                       f"of {limit}")
                    return
            chunks: list[bytes] = []
            size = 0
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.body_timeout
            while True:
                try:
                    msg = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
                except TimeoutError:
                    await self._refuse(scope, receive, send, 408, "timeout",
                                       f"the request body did not arrive within "
                                       f"{self.body_timeout:g} s")
                    return
                if msg["type"] == "http.disconnect":
                    return
                chunk = msg.get("body", b"")
                size += len(chunk)
                if size > limit:
                    await self._refuse(scope, receive, send, 413, "too_large",
                                       f"request body is over the limit of {limit} bytes")
                    return
                chunks.append(chunk)
                if not msg.get("more_body", False):
                    break
            body = b"".join(chunks)
            sent = False

            async def replay() -> Message:
                nonlocal sent
                if not sent:
                    sent = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            receive = replay

        async def send_with_headers(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                hdrs = list(msg.get("headers", []))
                have = {k.lower() for k, _ in hdrs}
                for k, v in _SECURITY_HEADERS:
                    if k not in have:
                        hdrs.append((k, v))
                if b"cache-control" not in have:
                    hdrs.append((b"cache-control", b"no-cache"))
                msg["headers"] = hdrs
            await send(msg)

        await self.app(scope, receive, send_with_headers if scope["type"] == "http" else send)

    @staticmethod
    async def _refuse(
        scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str
    ) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})
            return
        body = json.dumps(api.error_body(status, message, code)).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
            *_SECURITY_HEADERS,
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _json_error(status: int, message: str, code: str, field: str | None = None) -> JSONResponse:
    return api.json_response(api.error_body(status, message, code, field), status)


async def _on_api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, api.ApiError)
    return _json_error(exc.status, exc.message, exc.code, exc.field)


async def _on_navkit_error(request: Request, exc: Exception) -> Response:
    field = getattr(exc, "field", None)
    return _json_error(400, str(exc), type(exc).__name__, field)


async def _on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "error")
    msg = {
        404: f"nothing at {request.url.path[:200]!r}",
        405: f"{request.method} is not allowed here",
    }.get(exc.status_code, str(exc.detail))
    return _json_error(exc.status_code, msg, code)


async def _on_crash(request: Request, exc: Exception) -> Response:
    return _json_error(500, f"internal error: {type(exc).__name__}: {exc}"[:500], "internal_error")


def create_app(
    target: str | Path,
    *,
    replay: str | Path | None = None,
    crowd: str | Path | None = None,
    host: str = "127.0.0.1",
    allow_hosts: Iterable[str] = (),
    warm: bool = True,
    body_timeout: float = LIMITS["bodySeconds"],
) -> Starlette:
    """The viewer application for a map or scene file.

    ``target``: any map :func:`navkit.load_grid` reads, or a scene JSON file.
    ``replay``: a ``navkit sim --record`` file to load at start. ``crowd``: a
    crowd file (:mod:`navkit.viewer.crowdplay`) to play on the map. ``host``: the
    address the server binds to; the app answers only ``Host`` headers naming
    it, a loopback name or one of ``allow_hosts`` (see :func:`allowed_hosts`;
    a wildcard address like ``0.0.0.0`` is no exception). ``warm``: load
    the search kernels in the background at start-up. ``body_timeout``: seconds a
    client has to send a request body (then 408).

    Raises :class:`~navkit.errors.NavkitError` when the target cannot be read.
    """
    allowed = allowed_hosts(host, allow_hosts)
    state = ViewerState(target, replay=replay, crowd=crowd)
    static = _static_files()

    async def index(request: Request) -> Response:
        p, ctype = static["index.html"]
        return Response(p.read_bytes(), media_type=ctype)

    async def static_file(request: Request) -> Response:
        name = request.path_params["name"]
        entry = static.get(name)
        if entry is None:
            raise api.ApiError(404, f"no static file {name[:200]!r}")
        p, ctype = entry
        return Response(p.read_bytes(), media_type=ctype)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state.start()

        async def warm_up() -> None:
            async with state.lock:
                await asyncio.to_thread(state.warm_up)

        task = asyncio.get_running_loop().create_task(warm_up()) if warm else None
        try:
            yield
        finally:
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
            await state.stop()
            for ws in list(state.clients):
                with contextlib.suppress(Exception):
                    await ws.close(code=1001)
            state.clients.clear()

    routes = [
        Route("/", index, methods=["GET", "HEAD"]),
        Route("/static/{name:path}", static_file, methods=["GET", "HEAD"]),
        Route("/api/info", api.info, methods=["GET"]),
        Route("/api/grid", api.grid, methods=["GET"]),
        Route("/api/path", api.path, methods=["POST"]),
        Route("/api/mesh", api.mesh_get, methods=["GET"]),
        Route("/api/mesh/path", api.mesh_path, methods=["POST"]),
        Route("/api/areas", api.set_area, methods=["POST"]),
        Route("/api/reset", api.reset_edits, methods=["POST"]),
        Route("/api/obstacles", api.add_obstacle, methods=["POST"]),
        Route("/api/obstacles/{name:path}", api.remove_obstacle, methods=["DELETE"]),
        Route("/api/flow", api.flow, methods=["POST"]),
        Route("/api/hpa", api.hpa, methods=["GET"]),
        Route("/api/cell", api.cell, methods=["GET"]),
        Route("/api/circles", api.add_circle, methods=["POST"]),
        Route("/api/circles/{name:path}", api.remove_circle, methods=["DELETE"]),
        Route("/api/level", api.level_get, methods=["GET"]),
        Route("/api/level/rebuild", api.level_rebuild, methods=["POST"]),
        Route("/api/floors", api.floors_get, methods=["GET"]),
        Route("/api/floors/show", api.floors_show, methods=["POST"]),
        Route("/api/floors/links", api.floors_link, methods=["POST"]),
        Route("/api/floors/path", api.floors_path, methods=["POST"]),
        Route("/api/sim", api.sim_get, methods=["GET"]),
        Route("/api/sim/play", api.sim_play, methods=["POST"]),
        Route("/api/sim/pause", api.sim_pause, methods=["POST"]),
        Route("/api/sim/step", api.sim_step, methods=["POST"]),
        Route("/api/sim/speed", api.sim_speed, methods=["POST"]),
        Route("/api/sim/reset", api.sim_reset, methods=["POST"]),
        Route("/api/sim/target", api.sim_target, methods=["POST"]),
        Route("/api/sim/characters/{cid:path}", api.sim_character, methods=["GET"]),
        Route("/api/crowd", api.crowd_get, methods=["GET"]),
        Route("/api/crowd/play", api.crowd_play, methods=["POST"]),
        Route("/api/crowd/pause", api.crowd_pause, methods=["POST"]),
        Route("/api/crowd/step", api.crowd_step, methods=["POST"]),
        Route("/api/crowd/reset", api.crowd_reset, methods=["POST"]),
        Route("/api/replay", api.replay_get, methods=["GET"]),
        Route("/api/replay", api.replay_post, methods=["POST"]),
        Route("/api/replay", api.replay_delete, methods=["DELETE"]),
        WebSocketRoute("/ws/sim", api.sim_socket),
    ]
    middleware = [
        Middleware(_Guard, allowed_hosts=allowed, body_limit=LIMITS["bodyBytes"],
                   upload_limit=LIMITS["replayBytes"], upload_paths=frozenset({"/api/replay"}),
                   body_timeout=body_timeout),
        Middleware(GZipMiddleware, minimum_size=2048, compresslevel=1),
    ]
    handlers: dict[Any, Any] = {
        api.ApiError: _on_api_error,
        NavkitError: _on_navkit_error,
        HTTPException: _on_http_error,
        Exception: _on_crash,
    }
    app = Starlette(routes=routes, middleware=middleware, exception_handlers=handlers,
                    lifespan=lifespan)
    app.state.viewer = state
    return app


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0: any free port).

    Raises OSError (address in use, bad address) before anything starts.
    """
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, addr = infos[0]
    # the protocol too: asyncio turns Nagle off (TCP_NODELAY) only on IPPROTO_TCP sockets,
    # and with it on every answer but a connection's first waited for a delayed ACK (40 ms)
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def url_for(sock: socket.socket) -> str:
    """``http://host:port/`` of a bound socket (IPv6 hosts bracketed)."""
    host, port = sock.getsockname()[:2]
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def uvicorn_config(
    app: Starlette,
    *,
    head_timeout: float = LIMITS["headSeconds"],
    max_connections: int = LIMITS["connections"],
    **kwargs: Any,
) -> Any:
    """uvicorn settings for the viewer: small WebSocket messages, small headers, no server
    banner, and the viewer's h11 protocol (:mod:`navkit.viewer.transport`): a request
    head must arrive within ``head_timeout`` seconds, at most ``max_connections`` are
    open (one more closes the longest idle). ``kwargs`` override uvicorn options."""
    require_extra(("uvicorn", "websockets"), "the viewer", "viewer")
    import uvicorn

    from .transport import protocol_class

    opts: dict[str, Any] = {
        "log_level": "warning",
        # uvicorn's h11 protocol (h11 is uvicorn's own dependency) with a head deadline
        # and a connection cap; its incomplete-head limit below applies
        "http": protocol_class(head_timeout=head_timeout, max_connections=max_connections),
        "ws_max_size": LIMITS["wsMessageBytes"],
        "h11_max_incomplete_event_size": LIMITS["headBytes"],
        "limit_concurrency": None,  # it counts idle connections: the protocol caps instead
        "timeout_keep_alive": 5,
        "server_header": False,
        "proxy_headers": False,
        "lifespan": "on",
    }
    opts.update(kwargs)
    return uvicorn.Config(app, **opts)


def serve(
    target: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    replay: str | Path | None = None,
    crowd: str | Path | None = None,
    allow_remote: bool = False,
    allow_hosts: Iterable[str] = (),
    on_ready: Callable[[str], Any] | None = None,
) -> None:
    """Run the viewer until interrupted. ``on_ready(url)`` is called once the
    socket is bound (before the first request is served).

    A ``host`` beyond loopback needs ``allow_remote``; ``allow_hosts`` names
    the other hosts clients reach it by (see :func:`create_app`). Raises
    ConfigError for those, for a port it cannot listen on, or a bad target."""
    require_extra(("uvicorn", "websockets"), "the viewer", "viewer")
    import uvicorn

    check_bind(host, allow_remote=allow_remote)
    app = create_app(target, replay=replay, crowd=crowd, host=host, allow_hosts=allow_hosts)
    try:
        sock = bind_socket(host, port)
    except OSError as e:
        raise ConfigError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    url = url_for(sock)
    server = uvicorn.Server(uvicorn_config(app))
    if on_ready is not None:
        on_ready(url)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
