"""The viewer under real uvicorn on a free loopback port, in a background thread.

Shared by the browser tests and the server tests, which need real sockets
(timeouts, header limits, connection counts) rather than a test client.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import uvicorn

from navkit.viewer.server import bind_socket, create_app, url_for, uvicorn_config


class LiveServer:
    """``with LiveServer(target) as srv:`` serves ``target`` at ``srv.url`` (``srv.port``).

    ``app_options`` go to :func:`create_app`, ``config_options`` to
    :func:`uvicorn_config`.
    """

    def __init__(self, target: Path, *, app_options: dict[str, Any] | None = None,
                 config_options: dict[str, Any] | None = None):
        self.app = create_app(target, **(app_options or {}))
        self.sock = bind_socket("127.0.0.1", 0)
        self.url = url_for(self.sock)
        self.port = int(self.sock.getsockname()[1])
        self.server = uvicorn.Server(uvicorn_config(self.app, **(config_options or {})))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the viewer server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()

    def api(self, method: str, path: str, json_body: Any = None) -> Any:
        """The JSON answer of one request (raises ``urllib.error.HTTPError`` on 4xx/5xx)."""
        data = None if json_body is None else json.dumps(json_body).encode()
        req = urllib.request.Request(self.url.rstrip("/") + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())


#: Screenshots the browser tests leave for a person to look at.
ARTIFACTS = Path(__file__).resolve().parents[2] / "out" / "test-artifacts"


def shot(page: Any, name: str) -> None:
    """Save a screenshot of ``page`` as :data:`ARTIFACTS` / ``name``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


def write_json_files(folder: Path, objects: dict[str, Any]) -> dict[str, Path]:
    """Write each object as ``folder / f"{name}.json"``; name -> its path."""
    out = {}
    for name, obj in objects.items():
        out[name] = folder / f"{name}.json"
        out[name].write_text(json.dumps(obj))
    return out


def canvas_pixel(page: Any, cell: list[int]) -> list[int]:
    """RGB of the canvas pixel at a cell's centre."""
    return page.evaluate(
        """([x, z]) => {
            const c = document.getElementById('view');
            const r = c.getBoundingClientRect();
            const [px, py] = navkit.cellToClient(x, z);
            const k = c.width / r.width;
            const d = c.getContext('2d').getImageData(
                Math.floor((px - r.left) * k), Math.floor((py - r.top) * k), 1, 1).data;
            return [d[0], d[1], d[2]];
        }""",
        cell,
    )
