"""The viewer's server under real uvicorn and real sockets: request-head limits and
timeouts, the connection cap, slow bodies.

These are what a test client cannot show: they live in uvicorn's protocol and
in how the server treats connections that never finish a request.
"""

from __future__ import annotations

import json
import socket
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
