"""The viewer's HTTP connections: uvicorn's h11 protocol with a deadline for request heads
and a cap on open connections.

uvicorn has a keep-alive timeout but none for a request head: a client that
connects and sends half a head (or nothing) holds its connection for ever,
and uvicorn's ``limit_concurrency`` counts such connections, so 128 of them
shut every other client out with 503. :func:`protocol_class` makes the
protocol the viewer runs instead (uvicorn's ``limit_concurrency`` is off):

* a connection with no request in progress (just opened, or between two
  requests) is closed ``head_timeout`` seconds after it went idle: with a
  JSON 408 when part of a head had come, silently when nothing had;
* at most ``max_connections`` are open: one more closes the connection that
  has been idle longest (or is refused with a JSON 503 when every one is busy
  with a request), so new clients always get in.

A request's body is timed by the application (:mod:`navkit.viewer.server`).
"""

from __future__ import annotations

import asyncio
import http
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .api import error_body

__all__ = ["ViewerProtocol", "protocol_class", "raw_error"]


def raw_error(status: int, code: str, message: str) -> bytes:
    """A complete HTTP/1.1 error answer with a JSON body, closing the connection."""
    body = json.dumps(error_body(status, message, code)).encode()
    head = (f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}\r\n"
            f"content-type: application/json\r\ncontent-length: {len(body)}\r\n"
            f"connection: close\r\n\r\n")
    return head.encode("ascii") + body


class ViewerProtocol(H11Protocol):
    """uvicorn's h11 protocol with a request-head deadline and a connection cap."""

    head_timeout: float = 5.0
    max_connections: int = 512

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._head_timer: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._went_idle()
        if len(self.connections) > self.max_connections:
            self._make_room()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._went_idle()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._stop_timer()  # the WebSocket protocol takes the connection over
        super().handle_websocket_upgrade(event)

    # ----------------------------------------------------------- internals
    def busy(self) -> bool:
        """Whether a request is in progress (its response not yet complete)."""
        return self.cycle is not None and not self.cycle.response_complete

    def _went_idle(self) -> None:
        self._stop_timer()
        self.idle_since = self.loop.time()
        self._head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _stop_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.busy():
            return
        if self.conn.trailing_data[0]:  # part of a head came
            self.transport.write(raw_error(
                408, "timeout",
                f"the request head did not arrive within {self.head_timeout:g} s"))
        self.transport.close()

    def _make_room(self) -> None:
        idle = [c for c in self.connections
                if isinstance(c, ViewerProtocol) and c is not self and not c.busy()
                and not c.transport.is_closing()]
        if idle:
            min(idle, key=lambda c: c.idle_since).transport.close()
            return
        self.transport.write(raw_error(
            503, "too_many_connections",
            f"{self.max_connections} connections are busy; try again"))
        self.transport.close()


def protocol_class(*, head_timeout: float, max_connections: int) -> type[ViewerProtocol]:
    """A :class:`ViewerProtocol` with these settings, for uvicorn's ``http`` option."""
    attrs: dict[str, Any] = {"head_timeout": float(head_timeout),
                             "max_connections": int(max_connections)}
    return type("ViewerProtocol", (ViewerProtocol,), attrs)
