"""A bounded in-memory cache of whole answers, keyed by the store id.

The store never changes under a snapshot, so a ``GET`` answer is a function of the store id,
the path and query, and whether the client takes gzip. Answers of 200 up to
``MAX_ENTRY`` bytes are kept, least recently used first out, within ``max_bytes``; the
cache empties when the served store changes. Exports (streamed), the health probe and the
divergence report (review states live beside the store; the page sets a form token) are
not cached.
"""

from __future__ import annotations

from collections import OrderedDict

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .middleware import MUTABLE_PATHS, SNAPSHOT_KEY

MAX_ENTRY = 512 * 1024
UNCACHED = ("/api/graph/export", "/api/health", "/static/", *MUTABLE_PATHS)


class ResponseCache:
    """ASGI middleware; see the module docstring."""

    def __init__(self, app: ASGIApp, max_bytes: int = 32 * 1024 * 1024) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.size = 0
        self.store_id: str | None = None
        self.entries: OrderedDict[tuple, tuple[int, list, bytes]] = OrderedDict()
        self.hits = self.misses = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        snap = scope.get(SNAPSHOT_KEY)
        cacheable = (
            self.max_bytes > 0
            and scope["type"] == "http"
            and scope["method"] == "GET"
            and snap is not None
            and not scope["path"].startswith(UNCACHED)
        )
        if not cacheable or snap is None:
            await self.app(scope, receive, send)
            return
        if snap.store_id != self.store_id:
            self.entries.clear()
            self.size, self.store_id = 0, snap.store_id
        headers = dict(scope["headers"])
        gzip = b"gzip" in headers.get(b"accept-encoding", b"")
        key = (snap.store_id, scope["path"], scope.get("query_string", b""), gzip)
        hit = self.entries.get(key)
        if hit is not None:
            self.entries.move_to_end(key)
            self.hits += 1
            status, response_headers, body = hit
            await send(
                {"type": "http.response.start", "status": status, "headers": list(response_headers)}
            )
            await send({"type": "http.response.body", "body": body})
            return
        self.misses += 1
        start: Message | None = None
        parts: list[bytes] = []
        size = 0

        async def send_and_keep(message: Message) -> None:
            nonlocal start, size
            if message["type"] == "http.response.start":
                start = message
            elif start is not None and start["status"] == 200 and size <= MAX_ENTRY:
                parts.append(message.get("body", b""))
                size += len(parts[-1])
                if not message.get("more_body", False) and size <= MAX_ENTRY:
                    self._put(key, start["status"], start.get("headers", []), b"".join(parts))
            await send(message)

        await self.app(scope, receive, send_and_keep)

    def _put(self, key: tuple, status: int, headers: list, body: bytes) -> None:
        if key[0] != self.store_id or len(body) > self.max_bytes:
            return  # made from a store no longer served, or too big
        if key in self.entries:
            self.size -= len(self.entries.pop(key)[2])
        self.entries[key] = (status, list(headers), body)
        self.size += len(body)
        while self.size > self.max_bytes:
            _, (_, _, old) = self.entries.popitem(last=False)
            self.size -= len(old)
