"""The viewer's server under real uvicorn and real sockets: request-head limits and
timeouts, the connection cap, slow bodies.

These are what a test client cannot show: they live in uvicorn's protocol and
in how the server treats connections that never finish a request.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.viewer.live import LiveServer  # noqa: E402

MAP_TEXT = "type octile\nheight 4\nwidth 6\nmap\n......\n..@@..\n......\n......\n"
HALF_HEAD = b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n"


@pytest.fixture(scope="module")
def small_map(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("viewer-server") / "small.map"
    p.write_text(MAP_TEXT)
    return p


def _get(srv: LiveServer, path: str = "/api/info", timeout: float = 10.0) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(srv.url.rstrip("/") + path, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _connect(srv: LiveServer, first: bytes = b"") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    if first:
        s.sendall(first)
    return s


def _read_all(s: socket.socket, timeout: float) -> bytes:
    """Everything the server sends until it closes the connection (or ``timeout``)."""
    s.settimeout(timeout)
    out = b""
    try:
        while chunk := s.recv(65536):
            out += chunk
    except TimeoutError:
        out += b"<still open>"
    except ConnectionResetError:
        pass
    return out


def _read_response(s: socket.socket) -> bytes:
    """One whole response (head and ``content-length`` body) from a kept-alive connection."""
    s.settimeout(10)
    raw = b""
    while b"\r\n\r\n" not in raw:
        raw += s.recv(65536)
    head, body = raw.split(b"\r\n\r\n", 1)
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:")))
    while len(body) < length:
        body += s.recv(65536)
    return head + b"\r\n\r\n" + body


def _status(raw: bytes) -> int:
    return int(raw.split(b" ", 2)[1]) if raw.startswith(b"HTTP/1.") else 0


def test_a_whole_head_over_16_kib_is_refused(small_map: Path) -> None:
    with LiveServer(small_map, app_options={"warm": False}) as srv:
        for pad, expect in ((15_000, 200), (40_000, 431)):
            s = _connect(srv)
            s.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                      b"X-Pad: " + b"a" * pad + b"\r\n\r\n")  # one write: one complete head
            raw = _read_all(s, 10)
            s.close()
            assert _status(raw) in ((expect,) if expect == 200 else (431, 400)), raw[:200]
        s = _connect(srv, b"GET /" + b"a" * 40_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        raw = _read_all(s, 10)
        s.close()
        assert _status(raw) in (431, 400), raw[:200]
        assert _get(srv)[0] == 200


def test_idle_half_sent_requests_do_not_shut_others_out(small_map: Path) -> None:
    with LiveServer(small_map, app_options={"warm": False}) as srv:  # the default settings
        idle = [_connect(srv, HALF_HEAD) for _ in range(140)]
        try:
            time.sleep(0.3)
            for _ in range(5):
                status, body = _get(srv)
                assert status == 200, body
        finally:
            for s in idle:
                s.close()


def test_slow_request_heads_time_out(small_map: Path) -> None:
    with LiveServer(small_map, app_options={"warm": False},
                    config_options={"head_timeout": 1.0}) as srv:
        half = [_connect(srv, HALF_HEAD) for _ in range(5)]
        silent = [_connect(srv) for _ in range(5)]
        # a keep-alive connection that answers one request, then sends half a head
        kept = _connect(srv, b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert _status(_read_response(kept)) == 200
        kept.sendall(HALF_HEAD)
        start = time.monotonic()
        for s in [*half, kept]:
            raw = _read_all(s, 5)
            assert _status(raw) == 408, raw[:200]
            assert json.loads(raw.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "timeout"
        for s in silent:
            assert _read_all(s, 5) == b""
        assert time.monotonic() - start < 4
        assert _get(srv)[0] == 200
        for s in [*half, *silent, kept]:
            s.close()


def test_connections_past_the_cap_close_the_longest_idle(small_map: Path) -> None:
    with LiveServer(small_map, app_options={"warm": False},
                    config_options={"max_connections": 20, "head_timeout": 60.0}) as srv:
        idle = []
        for _ in range(40):
            idle.append(_connect(srv, HALF_HEAD))
            time.sleep(0.005)
        try:
            time.sleep(0.3)
            assert _get(srv)[0] == 200
            closed = [i for i, s in enumerate(idle) if _read_all(s, 0.2) != b"<still open>"]
            # the oldest went first; the newest are still there
            assert len(closed) >= 20 and closed[:20] == list(range(20)), closed
            assert 39 not in closed
        finally:
            for s in idle:
                s.close()


def test_a_slow_body_times_out(small_map: Path) -> None:
    with LiveServer(small_map, app_options={"warm": False, "body_timeout": 1.0}) as srv:
        s = _connect(srv, b"POST /api/obstacles HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"poly")
        start = time.monotonic()
        raw = _read_all(s, 5)
        s.close()
        assert _status(raw) == 408, raw[:200]
        assert time.monotonic() - start < 4
        assert _get(srv)[1]["obstacles"] == []


def test_answers_on_a_kept_alive_connection_are_not_held_back(small_map: Path) -> None:
    # asyncio turns Nagle's algorithm off only for sockets that say IPPROTO_TCP; without
    # it every answer after the first on a connection waited ~40 ms for a delayed ACK
    from navkit.viewer.server import bind_socket

    with bind_socket("127.0.0.1", 0) as sock:
        assert sock.proto == socket.IPPROTO_TCP
    with LiveServer(small_map, app_options={"warm": False}) as srv:
        s = _connect(srv)
        times = []
        for _ in range(6):
            t0 = time.perf_counter()
            s.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert _status(_read_response(s)) == 200
            times.append(time.perf_counter() - t0)
        s.close()
        assert sorted(times)[2] < 0.030, times  # most well under a delayed ACK
