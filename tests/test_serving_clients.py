"""Clients that misbehave on a real socket: slow or unfinished requests, oversized heads
and bodies, and clients that go away before their answer."""

import asyncio
import socket
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import uvicorn

from lawgraph.api import protocol
from lawgraph.api.app import create_app
from lawgraph.api.protocol import GuardedHTTPProtocol
from lawgraph.store.deps import Con


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(ingested):
    """The app on a loopback port with the guarded protocol (1 s request deadline), and a
    route that runs a store query until it is interrupted."""
    app = create_app(ingested[0])
    interrupted: list[float] = []

    @app.get("/test/endless-query")
    def endless(con: Con) -> dict:
        try:
            con.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                        "SELECT count(*) FROM n").fetchone()  # fmt: skip
        except sqlite3.OperationalError:
            interrupted.append(time.monotonic())
            raise
        return {}

    port = free_port()
    saved = protocol.request_timeout
    protocol.request_timeout = lambda: 1.0
    config = uvicorn.Config(app, host="127.0.0.1", port=port, http=GuardedHTTPProtocol,
                            log_level="critical", timeout_keep_alive=5)  # fmt: skip
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started
    yield port, app, interrupted
    srv.should_exit = True
    thread.join(10)
    protocol.request_timeout = saved


def read_until_closed(sock: socket.socket, limit: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and when that was."""
    sock.settimeout(limit)
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            return data, float("inf")
        except ConnectionResetError:  # closed with unread data from us still queued
            return data, time.monotonic()
        if not chunk:
            return data, time.monotonic()
        data += chunk


def test_unfinished_headers_are_closed_within_the_deadline(server):
    port = server[0]
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    t0 = time.monotonic()
    for s in socks:
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # never ends
    for s in socks:
        data, closed = read_until_closed(s, 5.0)
        assert closed - t0 < 3.0, "a connection with unfinished headers stayed open"
        assert data.startswith(b"HTTP/1.1 408")
        s.close()


def test_silent_connection_is_closed(server):
    with socket.create_connection(("127.0.0.1", server[0])) as s:
        t0 = time.monotonic()
        _, closed = read_until_closed(s, 5.0)
        assert closed - t0 < 3.0


def test_slow_but_steady_client_is_still_cut_at_the_deadline(server):
    with socket.create_connection(("127.0.0.1", server[0])) as s:
        t0 = time.monotonic()
        s.sendall(b"GET /api/health HTTP/1.1\r\n")
        for _ in range(8):  # a header every 0.3 s: the whole head would take 2.4 s
            time.sleep(0.3)
            try:
                s.sendall(b"X-A: b\r\n")
            except OSError:
                break
        data, closed = read_until_closed(s, 5.0)
        assert closed - t0 < 3.5
        assert b" 200 " not in data


def test_keep_alive_requests_each_get_a_new_deadline(server):
    with socket.create_connection(("127.0.0.1", server[0])) as s:
        s.settimeout(5)
        for _ in range(3):  # 3 requests over 1.8 s on one connection, each on time
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head = s.recv(65536)
            assert head.startswith(b"HTTP/1.1 200"), head[:80]
            time.sleep(0.6)


def test_oversized_head_and_body_are_refused(server):
    port = server[0]
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 40_000)
        data, _ = read_until_closed(s, 5.0)
        assert data.startswith(b"HTTP/1.1 431")
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"POST /divergences/review HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Length: 10000000\r\n\r\n" + b"a" * 1000)  # fmt: skip
        data, _ = read_until_closed(s, 5.0)
        assert data.startswith(b"HTTP/1.1 413")
    with socket.create_connection(("127.0.0.1", port)) as s:  # chunked: counted as it comes
        s.sendall(b"POST /divergences/review HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")  # fmt: skip
        try:
            for _ in range(100):
                s.sendall(b"2000\r\n" + b"a" * 0x2000 + b"\r\n")
        except OSError:
            pass
        data, closed = read_until_closed(s, 5.0)
        assert closed != float("inf") and b" 200 " not in data


def test_work_stops_when_the_client_goes_away(server):
    port, app, interrupted = server
    mw_in_flight = lambda: app.middleware_stack and _serving(app).in_flight  # noqa: E731
    before = len(interrupted)
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /test/endless-query HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    time.sleep(0.5)  # the query is running
    assert len(interrupted) == before
    gone = time.monotonic()
    s.close()
    deadline = gone + 5
    while len(interrupted) == before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(interrupted) == before + 1, "the query kept running for a client that left"
    assert interrupted[-1] - gone < 2.0
    while mw_in_flight() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert mw_in_flight() == 0
    # the server goes on answering, on a connection from the same pool
    with socket.create_connection(("127.0.0.1", port)) as s2:
        s2.settimeout(5)
        s2.sendall(b"GET /api/documents HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert s2.recv(100).startswith(b"HTTP/1.1 200")


def _serving(app):
    """The ServingMiddleware instance in the app's built middleware stack."""
    from lawgraph.api.middleware import ServingMiddleware

    layer = app.middleware_stack
    while layer is not None and not isinstance(layer, ServingMiddleware):
        layer = getattr(layer, "app", None)
    assert layer is not None
    return layer


def test_disconnect_after_the_answer_is_no_cancellation():
    """uvicorn reports ``http.disconnect`` as soon as an answer is complete: work the app
    still does after its answer (closing dependencies, giving its store connection back to
    the pool) is not cancelled, and the request is not marked as abandoned."""
    from lawgraph.api.middleware import CANCEL_KEY, _cancel_on_disconnect

    done = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
        await asyncio.sleep(0.05)  # the teardown after the answer
        done.append(scope[CANCEL_KEY].is_set())

    async def run():
        answered = asyncio.Event()
        messages = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive():
            if messages:
                return messages.pop()
            await answered.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.body" and not message.get("more_body"):
                answered.set()

        scope = {"type": "http", "method": "GET", "path": "/"}
        await _cancel_on_disconnect(app, scope, receive, send)
        return scope

    with ThreadPoolExecutor(1) as pool:  # a loop of its own, whatever else the suite runs
        scope = pool.submit(asyncio.run, run()).result()
    assert done == [False], "the work after the answer was cancelled"
    assert not scope[CANCEL_KEY].is_set()
