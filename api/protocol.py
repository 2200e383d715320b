"""Uvicorn's HTTP protocol with a deadline for receiving each request.

Uvicorn closes an idle keep-alive connection after ``timeout_keep_alive`` seconds, but a
client that opens a connection and sends its headers (or its body) slowly, or never
finishes them, holds the connection open indefinitely. :class:`GuardedHTTPProtocol`
gives every request :data:`REQUEST_TIMEOUT` seconds, counted from the connection (for
the first request) or from the request's first byte, to arrive whole (request line,
headers and body). Past it a request whose headers are not complete is answered
``408 Request Timeout`` and the connection is closed; one whose body is not complete is
closed (the application then receives ``http.disconnect``).

It also bounds sizes: a request line and headers over :data:`MAX_HEAD` bytes are answered
``431`` and a body over :data:`MAX_BODY` bytes ``413`` (the connection is closed after
either).

``lawgraph serve`` uses it with ``http=GuardedHTTPProtocol``; ``LAWGRAPH_REQUEST_TIMEOUT``
sets the deadline in seconds.
"""

from __future__ import annotations

import asyncio
import os

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

REQUEST_TIMEOUT = 10.0
MAX_HEAD = 16 * 1024
MAX_BODY = 64 * 1024


def _refusal(status: bytes, text: bytes) -> bytes:
    return (
        b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"content-length: " + str(len(text)).encode() + b"\r\nconnection: close\r\n\r\n" + text
    )


def request_timeout() -> float:
    """The deadline in seconds (``LAWGRAPH_REQUEST_TIMEOUT`` or :data:`REQUEST_TIMEOUT`)."""
    try:
        value = float(os.environ.get("LAWGRAPH_REQUEST_TIMEOUT", REQUEST_TIMEOUT))
    except ValueError:
        return REQUEST_TIMEOUT
    return value if value > 0 else REQUEST_TIMEOUT


class GuardedHTTPProtocol(HttpToolsProtocol):
    """See the module docstring."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        self._head: int | None = 0  # bytes of the request head so far (None: head complete)
        self._body = 0
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and (self.cycle is None or self.cycle.response_complete):
            self._arm()  # the first bytes of a new request on a kept-alive connection
            self._head, self._body = 0, 0
        if self._head is not None:
            self._head += len(data)
        super().data_received(data)
        if self._head is not None and self._head > MAX_HEAD and not self.transport.is_closing():
            self._refuse(b"431 Request Header Fields Too Large", b"request head too large\n")

    def on_headers_complete(self) -> None:
        self._head = None
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        self._body += len(body)
        if self._body > MAX_BODY:
            if not self.transport.is_closing():
                self._refuse(b"413 Content Too Large", b"request body too large\n")
            return
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(request_timeout(), self._expired)

    def _disarm(self) -> None:
        deadline = getattr(self, "_deadline", None)
        if deadline is not None:
            deadline.cancel()
            self._deadline = None

    def _refuse(self, status: bytes, text: bytes) -> None:
        self._disarm()
        if self.cycle is None or self.cycle.response_complete:
            self.transport.write(_refusal(status, text))
        self.transport.close()

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete:
            self.transport.write(
                _refusal(b"408 Request Timeout", b"request timeout\n")
            )  # the head never completed: nothing answered yet
        self.transport.close()
