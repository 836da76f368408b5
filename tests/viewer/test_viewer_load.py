"""Load test of the viewer's server: ``navkit view`` in a subprocess (real uvicorn on a
free loopback port), 8 clients sending 2,000 requests between them while 200 idle
half-sent requests are held open the whole time.

The requests are spread over ``SPREAD`` seconds (more than the server's 5 s
head timeout), so the server times the idle connections out while it
answers the others; each one closed is opened again at once, so about 200
stay open throughout. No answer may be a 5xx, none may fail or time out.
Prints the request count and the p50 / p99 latency (``pytest -s`` shows
them). Bounded: about 15 s on two cores, 60 s at most.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.viewer.test_viewer_api import EAST, LEVEL, WEST  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CLIENTS = 8
REQUESTS = 2000
IDLE = 200
HALF_HEAD = b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n"
HEAD_TIMEOUT = 5.0  # the server's default (LIMITS["headSeconds"])
SPREAD = HEAD_TIMEOUT + 3.0  # seconds the requests are spread over (each client paced)
LOAD_SECONDS = 60.0  # the clients give up after this (or after 10 failed requests)


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """``navkit view LEVEL --port 0 --no-open`` in a subprocess: its port, once it answers."""
    level = tmp_path_factory.mktemp("viewer-load") / "level.json"
    level.write_text(json.dumps(LEVEL))
    env = {**os.environ, "PYTHONUNBUFFERED": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "navkit", "view", str(level), "--port", "0", "--no-open"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert proc.stdout is not None
        seen = []
        while not (line := proc.stdout.readline()).startswith("navkit viewer: "):
            seen.append(line)  # notices (kernels compiling) may come first
            assert line and len(seen) < 20, "".join(seen)
        assert line.startswith("navkit viewer: http://127.0.0.1:"), line
        port = int(line.split("http://127.0.0.1:", 1)[1].split("/", 1)[0])
        deadline = time.monotonic() + 120  # the search kernels may have to compile first
        while True:
            try:
                status, _ = _request(http.client.HTTPConnection("127.0.0.1", port, timeout=60),
                                     "POST", "/api/path", {"start": WEST, "goal": EAST})
                assert status == 200
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.2)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def _request(conn: http.client.HTTPConnection, method: str, path: str,
             body: Any = None, raw: bytes | None = None) -> tuple[int, bytes]:
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    headers = {"Content-Type": "application/json"} if data is not None else {}
    conn.request(method, path, body=data, headers=headers)
    r = conn.getresponse()
    return r.status, r.read()


def _mix(rng: random.Random) -> tuple[str, str, Any, bytes | None]:
    """One request of the mix: reads, path queries, door toggles, bad input."""
    k = rng.random()
    if k < 0.25:
        return "GET", "/api/info", None, None
    if k < 0.40:
        return "GET", "/api/grid", None, None
    if k < 0.70:
        cell = [rng.randrange(30), rng.randrange(20)]
        return "POST", "/api/path", {"start": WEST, "goal": cell}, None
    if k < 0.75:
        return "POST", "/api/areas", {"name": "door", "available": rng.random() < 0.5}, None
    if k < 0.80:
        return "GET", "/", None, None
    if k < 0.90:
        return "POST", "/api/path", {"start": WEST, "goal": [10**30, 1]}, None
    return "POST", "/api/obstacles", None, b'{"polygon": [[1e400, 0], [1, 0], [1, 1]]}'


class _IdleCrowd:
    """``count`` connections that each sent half a request head, opened again as soon
    as the server closes one; counts the closes."""

    def __init__(self, port: int, count: int):
        self.port = port
        self.socks = [self._open() for _ in range(count)]
        self.first = list(self.socks)
        self.closed = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._keep, daemon=True)
        self.thread.start()

    def _open(self) -> socket.socket:
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        s.sendall(HALF_HEAD)
        s.setblocking(False)
        return s

    @staticmethod
    def _gone(s: socket.socket) -> bool:
        try:
            s.recv(65536)  # data (a 408) or EOF: the server closed it
        except BlockingIOError:
            return False
        except OSError:
            pass
        return True

    def _keep(self) -> None:
        while not self.stop.wait(0.1):
            for i, s in enumerate(self.socks):
                if self._gone(s):
                    s.close()
                    self.closed += 1
                    self.socks[i] = self._open()

    def first_all_closed(self) -> bool:
        return all(s.fileno() == -1 for s in self.first)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for s in self.socks:
            s.close()


def test_load_with_idle_half_sent_requests(viewer: int) -> None:
    idle = _IdleCrowd(viewer, IDLE)
    latencies: list[float] = []
    statuses: Counter[int] = Counter()
    errors: list[str] = []
    lock = threading.Lock()
    give_up = threading.Event()
    start = time.monotonic()
    timer = threading.Timer(LOAD_SECONDS, give_up.set)
    timer.start()

    def client(seed: int) -> None:
        rng = random.Random(seed)
        conn = http.client.HTTPConnection("127.0.0.1", viewer, timeout=5)
        count = REQUESTS // CLIENTS
        for i in range(count):
            time.sleep(max(0.0, start + SPREAD * i / count - time.monotonic()))
            if give_up.is_set():
                break
            method, path, body, raw = _mix(rng)
            t0 = time.perf_counter()
            try:
                status, _ = _request(conn, method, path, body, raw)
            except (OSError, http.client.HTTPException) as e:
                with lock:
                    errors.append(f"{method} {path}: {type(e).__name__}: {e}")
                    if len(errors) >= 10:
                        give_up.set()
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", viewer, timeout=5)
                continue
            dt = time.perf_counter() - t0
            with lock:
                latencies.append(dt)
                statuses[status] += 1
        conn.close()

    try:
        threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - start
        closed_during_load = idle.closed
        # the idle connections held since the start are closed by the server's head timeout
        deadline = start + HEAD_TIMEOUT + 10
        while not idle.first_all_closed() and time.monotonic() < deadline:
            time.sleep(0.1)
        timed_out = idle.first_all_closed()
        closed = idle.closed
    finally:
        timer.cancel()
        idle.close()
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    print(f"\nviewer load: {len(latencies)} requests from {CLIENTS} clients in {elapsed:.1f} s "
          f"({len(latencies) / elapsed:.0f}/s) with {IDLE} idle half-sent requests held open "
          f"({closed} timed out by the server and reopened); statuses {dict(statuses)}; "
          f"latency p50 {q[49] * 1000:.1f} ms, p99 {q[98] * 1000:.1f} ms, "
          f"max {max(latencies, default=0.0) * 1000:.1f} ms")
    assert not errors, errors[:5]
    assert len(latencies) == REQUESTS
    assert not [s for s in statuses if s >= 500], statuses
    assert set(statuses) <= {200, 400}, statuses
    assert timed_out and closed_during_load >= IDLE and closed >= IDLE
