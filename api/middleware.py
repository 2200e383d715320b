"""One ASGI middleware for what every answer shares.

It pins the store snapshot a request is answered from, bounds the work in flight (503 with
``Retry-After`` past the limit), answers ``HEAD`` like ``GET`` without a body, refuses
unknown ``Host`` headers when hosts are configured, never reflects the Host into a
redirect, answers ``If-None-Match`` from the store id (304), and adds the security
headers, ``ETag``, ``Cache-Control`` and an ``X-Request-ID`` to every answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import uuid
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lawgraph.store.serving import CANCEL_KEY, SNAPSHOT_KEY, StoreHolder

MAX_BODY = 64 * 1024
HEALTH_PATH = "/api/health"
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# Swagger UI and ReDoc pages (assets served from this server by fastapi-offline) start
# with an inline script; nothing is loaded from elsewhere
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; "
    "object-src 'none'; frame-ancestors 'none'"
)
DOCS_PATHS = ("/docs", "/redoc")
MUTABLE_PATHS = ("/divergences", "/api/divergences")
"""Answers that also depend on the review file beside the store (review states, and the
page's per-browser form token): never an ETag from the store id, never kept."""
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
STATIC_CACHE = b"public, max-age=86400"
DYNAMIC_CACHE = b"no-cache"  # always revalidate: the ETag answers 304 while the store is the same


def host_name(host: str) -> str:
    """The host part of a Host header (no port; IPv6 brackets kept)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class ServingMiddleware:
    """See the module docstring."""

    def __init__(
        self,
        app: ASGIApp,
        holder: StoreHolder,
        max_in_flight: int = 64,
        allowed_hosts: Iterable[str] | None = None,
        retry_after: int = 1,
        version: str = "",
    ) -> None:
        self.app = app
        self.holder = holder
        self.max_in_flight = max_in_flight
        self.allowed = {host_name(h) for h in allowed_hosts} if allowed_hosts else None
        self.retry_after = retry_after
        self.version = version
        self.in_flight = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex[:16]
        scope.setdefault("state", {})["request_id"] = request_id
        headers = dict(scope["headers"])
        host = headers.get(b"host", b"").decode("latin-1")
        if self.allowed is not None and host_name(host) not in self.allowed:
            await _plain_error(send, 400, "bad_request", "unknown Host header", request_id)
            return
        path = scope["path"]
        if self.in_flight >= self.max_in_flight and path != HEALTH_PATH:
            await _plain_error(
                send,
                503,
                "busy",
                "server busy, retry shortly",
                request_id,
                [(b"retry-after", str(self.retry_after).encode())],
            )
            return
        length = headers.get(b"content-length", b"0")
        if not length.isdigit() or int(length) > MAX_BODY:
            await _plain_error(
                send, 413, "too_large", f"request body over {MAX_BODY} bytes", request_id
            )
            return
        snap = self.holder.current()
        scope[SNAPSHOT_KEY] = snap
        head = scope["method"] == "HEAD"
        if head:
            scope = {**scope, "method": "GET"}
        is_get = scope["method"] == "GET"
        static = path.startswith("/static/")
        mutable = path.startswith(MUTABLE_PATHS)
        etag = f'W/"{snap.store_id[:24]}-{self.version}"'.encode()
        if (
            is_get
            and not static
            and not mutable
            and etag in _etags(headers.get(b"if-none-match", b""))
        ):
            await send(
                {
                    "type": "http.response.start",
                    "status": 304,
                    "headers": [
                        (b"etag", etag),
                        (b"cache-control", DYNAMIC_CACHE),
                        (b"x-request-id", request_id.encode()),
                        *SECURITY_HEADERS,
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        csp = (DOCS_CSP if path.startswith(DOCS_PATHS) else CSP).encode()

        async def send_wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                out = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.lower() not in (b"location", b"cache-control", b"etag")
                    or (static and k.lower() == b"etag")
                ]
                for k, v in message.get("headers", []):
                    if k.lower() == b"location":
                        out.append((k, _relative(v)))
                out += [
                    *SECURITY_HEADERS,
                    (b"content-security-policy", csp),
                    (b"x-request-id", request_id.encode()),
                ]
                if is_get and static:
                    out.append((b"cache-control", STATIC_CACHE))
                elif is_get and message["status"] == 200 and not mutable:
                    out += [(b"etag", etag), (b"cache-control", DYNAMIC_CACHE)]
                else:
                    out.append((b"cache-control", b"no-store"))
                message = {**message, "headers": out}
            elif message["type"] == "http.response.body" and head:
                message = {**message, "body": b""}
            await send(message)

        self.in_flight += 1
        try:
            if is_get:
                await _cancel_on_disconnect(self.app, scope, receive, send_wrapped)
            else:
                await self.app(scope, receive, send_wrapped)
        finally:
            self.in_flight -= 1


async def _cancel_on_disconnect(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """Run ``app`` for a ``GET`` and stop it when the client goes away first.

    The request body of a ``GET`` is read here, then the client connection is watched
    while the answer is made: on ``http.disconnect`` the application task is cancelled
    and ``scope[CANCEL_KEY]`` is set, which aborts the store queries of the request
    (:meth:`store.serving.Snapshot.connection`) and the steps that check it.
    """
    first = await receive()
    while first["type"] == "http.request" and first.get("more_body", False):
        first = await receive()  # a GET body means nothing here: drop it
    cancelled = scope[CANCEL_KEY] = threading.Event()
    if first["type"] == "http.disconnect":
        cancelled.set()
        return
    gone = asyncio.Event()
    delivered = False

    async def app_receive() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await gone.wait()
        return {"type": "http.disconnect"}

    answered = False

    async def send_and_note(message: Message) -> None:
        nonlocal answered
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            answered = True  # before sending: the server may report the disconnect at once
        await send(message)

    task = asyncio.ensure_future(app(scope, app_receive, send_and_note))

    async def watch() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        # uvicorn reports a disconnect as soon as the answer is complete: work left
        # after that (closing dependencies, returning a connection) is not cancelled
        if not task.done() and not answered:
            cancelled.set()
            gone.set()
            task.cancel()

    watcher = asyncio.ensure_future(watch())
    try:
        await task
    except asyncio.CancelledError:
        if not cancelled.is_set():
            raise  # the server itself is stopping this request
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher


def _etags(value: bytes) -> set[bytes]:
    return {t.strip() for t in value.split(b",") if t.strip()}


def _relative(location: bytes) -> bytes:
    """A redirect target without scheme and host (the Host header is never echoed)."""
    parts = urlsplit(location.decode("latin-1"))
    rel = (
        (parts.path or "/")
        + (f"?{parts.query}" if parts.query else "")
        + (f"#{parts.fragment}" if parts.fragment else "")
    )
    if rel.startswith("//"):
        rel = "/" + rel.lstrip("/")
    return rel.encode("latin-1")


async def _plain_error(
    send: Send,
    status: int,
    code: str,
    message: str,
    request_id: str,
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        (b"x-request-id", request_id.encode()),
        *SECURITY_HEADERS,
        (b"content-security-policy", CSP.encode()),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
