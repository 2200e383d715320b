"""Several server processes on one port, each with a listening socket of its own.

With one listening socket shared by every worker (how ``uvicorn --workers`` runs), the
worker that wakes first takes every connection waiting, so a burst of new keep-alive
clients often lands on one worker while the others idle, for as long as the clients
stay. Here every worker process binds its own socket to the same address with
``SO_REUSEPORT`` and the kernel spreads new connections over them (by a hash of the
client's address and port). The supervisor restarts a worker that dies and stops them
all on ``SIGINT``/``SIGTERM``; a worker whose supervisor is killed stops too (Linux).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
from typing import Any

import uvicorn

log = logging.getLogger(__name__)
STARTUP_FAILURE = 3
"""A worker's exit code when its server could not start (then restarting it is pointless)."""
BACKLOG = 2048
PR_SET_PDEATHSIG = 1
STOP_SECONDS = 10.0


def supported() -> bool:
    """Whether this platform spreads connections over sockets listening on one address
    (Linux; elsewhere ``serve`` uses uvicorn's own workers on one shared socket)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def check_free(host: str, port: int) -> None:
    """Raise ``OSError`` if something already listens on ``host:port``.

    A socket that does not ask to share the address cannot be bound where any socket
    listens, so two ``lawgraph serve`` on one port fail as with one socket.
    """
    with socket.socket(_family(host), socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` beside the other workers' (``SO_REUSEPORT``)."""
    sock = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
        sock.set_inheritable(True)
    except BaseException:
        sock.close()
        raise
    return sock


def _end_with_parent(parent: int) -> None:
    """Ask Linux to send this process SIGTERM when its parent (the supervisor) dies."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the supervisor died before that
        sys.exit(0)


def _worker(options: dict[str, Any], parent: int) -> None:
    """One worker process: its own socket, one uvicorn server."""
    _end_with_parent(parent)
    config = uvicorn.Config(**options)
    server = uvicorn.Server(config)
    sock = listening_socket(config.host, config.port)
    server.run(sockets=[sock])
    if not server.started:
        sys.exit(STARTUP_FAILURE)


def run(workers: int, **options: Any) -> None:
    """Serve with ``workers`` processes, each running ``uvicorn.Server(Config(**options))``.

    ``options`` are :class:`uvicorn.Config` arguments (the app as an import string).
    Returns when the workers have stopped after ``SIGINT``/``SIGTERM``.

    Raises:
        OSError: if the address is taken.
        SystemExit: if a worker could not start its server.
    """
    check_free(options["host"], options["port"])
    spawn = multiprocessing.get_context("spawn")
    stopping = threading.Event()
    procs: list[multiprocessing.process.BaseProcess] = []

    def start(slot: int | None = None) -> None:
        proc = spawn.Process(target=_worker, args=(options, os.getpid()), name="lawgraph-worker")
        proc.start()
        if slot is None:
            procs.append(proc)
        else:
            procs[slot] = proc

    def stop(*_: Any) -> None:
        stopping.set()

    saved = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    failed = False
    try:
        for _ in range(workers):
            start()
        while not stopping.wait(0.5):
            for slot, proc in enumerate(procs):
                if proc.exitcode is None:
                    continue
                if proc.exitcode == STARTUP_FAILURE:
                    failed = True
                    stopping.set()
                    break
                log.warning("worker %s exited (%s); starting another", proc.pid, proc.exitcode)
                start(slot)
    finally:
        for proc in procs:
            if proc.exitcode is None:
                with contextlib.suppress(OSError):
                    proc.terminate()  # SIGTERM: uvicorn finishes the requests in flight
        for proc in procs:
            proc.join(STOP_SECONDS)
            if proc.exitcode is None:
                proc.kill()
                proc.join()
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    if failed:
        raise SystemExit("a worker could not start its server (see above)")
