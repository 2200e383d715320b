"""The store as served: one immutable snapshot at a time, switched whole when the file changes.

A :class:`Snapshot` is everything derived from one store file: its id (the content hash
recorded at ingest), the knowledge graph, what the routes derive from the store (kept
once for all its connections), and a pool of read-only immutable connections, each used
by one request at a time. A :class:`StoreHolder` notices when the file at the
store path was replaced (by ``lawgraph ingest``), loads and verifies the new store in the
background while the old one keeps answering, and then switches every route at once.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import queue
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx

from lawgraph.ingest import store

GraphBuilder = Callable[[sqlite3.Connection], nx.MultiDiGraph]
"""What derives the knowledge graph from a store (:func:`graph.build.build_graph`)."""
SNAPSHOT_KEY = "lawgraph.snapshot"
"""Where the serving middleware pins the request's snapshot in the ASGI scope."""
CANCEL_KEY = "lawgraph.cancelled"
"""Where it keeps a :class:`threading.Event` set when the client of a ``GET`` goes away
before its answer."""

log = logging.getLogger(__name__)
IDLE_CONNECTIONS = 16
RELEASE_WAIT = 30.0
"""Seconds a worker waits for the requests still using an old store before settling."""
PROGRESS_STEPS = 20_000
"""SQLite virtual-machine steps between checks whether the request was cancelled."""


def settle_heap() -> None:
    """Collect garbage, then keep every object alive now out of the garbage collector's way.

    A snapshot is some 150,000 long-lived objects (the graph, the search tables); a full
    collection walks them all (about 60 ms with nothing else running), holding up every
    request of the worker. Frozen (:func:`gc.freeze`), they are never walked again.
    Called when a worker starts and after it switches to a new store.
    """
    gc.unfreeze()  # what the last call froze may be garbage now (an old snapshot)
    gc.collect()
    gc.freeze()


class StoreChanged(Exception):
    """The store file was replaced while a request still needed the old one."""


def file_key(path: Path) -> tuple[int, int, int, int] | None:
    """What identifies the file now at ``path`` (device, inode, size, mtime), or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


@dataclass(eq=False)
class Snapshot:
    """One verified store and what is derived from it."""

    path: Path
    store_id: str
    key: tuple[int, int, int, int] | None
    graph: nx.MultiDiGraph
    schema_version: int = store.SCHEMA_VERSION
    derived: dict = field(default_factory=dict, repr=False)
    """What the routes derive from this store (:func:`ingest.store.derived`), shared by
    every connection to it."""
    _idle: queue.SimpleQueue = field(default_factory=queue.SimpleQueue, repr=False)

    @classmethod
    def load(cls, path: Path, build_graph: GraphBuilder) -> Snapshot:
        """Open, verify and load the store at ``path``.

        Args:
            path: the store file.
            build_graph: derives the knowledge graph from the store.

        Raises:
            StoreError: if it is missing, of another version or damaged.
        """
        from lawgraph.ingest.search.tables import search_tables

        key = file_key(path)
        con = store.open_store(path, verify=True, immutable=True)
        try:
            store_id = store.meta(con, "content_hash") or ""
            graph = build_graph(con)
            # made here (in the background when the store is replaced), not by the first
            # request that needs them (``build_graph`` indexes the graph's citations)
            search_tables(con)
            snap = cls(path, store_id, key, graph, derived=con.derived)
        except BaseException:
            con.close()
            raise
        snap._idle.put(con)
        return snap

    def _open(self) -> sqlite3.Connection:
        con = store.open_store(self.path, immutable=True)
        if store.meta(con, "content_hash") != self.store_id:
            con.close()
            raise StoreChanged(f"{self.path} was replaced; retry")
        con.derived = self.derived
        return con

    @contextlib.contextmanager
    def connection(self, cancelled: threading.Event | None = None) -> Iterator[sqlite3.Connection]:
        """A read-only connection to this store, for the caller alone until it exits.

        Args:
            cancelled: when given, a query running while it is set is aborted
                (``sqlite3.OperationalError: interrupted``): the client went away.

        Raises:
            StoreChanged: if a new connection is needed but the file is another store now.
        """
        try:
            con = self._idle.get_nowait()
        except queue.Empty:
            con = self._open()
        if cancelled is not None:
            con.set_progress_handler(cancelled.is_set, PROGRESS_STEPS)
        try:
            yield con
        finally:
            if cancelled is not None and cancelled.is_set():
                # The client went away: this cleanup may run while the request's query
                # still runs in another thread. Touching the connection now would wait
                # for SQLite's lock while holding the GIL that the query's cancel check
                # needs (a deadlock); the query stops at its next check and the
                # connection is closed when the last reference to it goes.
                pass
            else:
                if cancelled is not None:
                    con.set_progress_handler(None, 0)
                if self._idle.qsize() < IDLE_CONNECTIONS:
                    self._idle.put(con)
                else:
                    con.close()


class StoreHolder:
    """The snapshot being served, replaced whole when the store file changes."""

    def __init__(
        self,
        path: Path | str,
        build_graph: GraphBuilder,
        check_interval: float = 0.25,
        settle: bool = False,
    ) -> None:
        """Load the store at ``path`` (verified).

        Args:
            path: the store file.
            build_graph: derives the knowledge graph of each store loaded.
            check_interval: seconds between checks whether the file was replaced.
            settle: call :func:`settle_heap` after each switch to a new store (a server
                worker: the process holds nothing but what it serves).

        Raises:
            StoreError: if it is missing, of another version or damaged.
        """
        self.path = Path(path)
        self.check_interval = check_interval
        self.build_graph = build_graph
        self.settle = settle
        self._snap = Snapshot.load(self.path, build_graph)
        self._checked = time.monotonic()
        self._loading: tuple[int, int, int, int] | None = None
        self._failed: tuple[int, int, int, int] | None = None
        self.error: str | None = None
        self._lock = threading.Lock()

    def current(self) -> Snapshot:
        """The snapshot to answer a request with (starts loading a new one if the file moved)."""
        now = time.monotonic()
        if now - self._checked >= self.check_interval:
            self._checked = now
            key = file_key(self.path)
            stale = key is not None and key != self._snap.key
            if key is not None and stale and key not in (self._loading, self._failed):
                self._start_loading(key)
        return self._snap

    def _start_loading(self, key: tuple[int, int, int, int]) -> None:
        with self._lock:
            if self._loading is not None:
                return
            self._loading = key
        threading.Thread(target=self._load, args=(key,), daemon=True, name="store-load").start()

    def _load(self, key: tuple[int, int, int, int]) -> None:
        try:
            snap = Snapshot.load(self.path, self.build_graph)
        except (store.StoreError, OSError, sqlite3.Error) as exc:
            self._failed, self.error = key, str(exc)
            log.error("new store refused, still serving %s: %s", self._snap.store_id[:12], exc)
        else:
            old = weakref.ref(self._snap)
            self._snap, self._failed, self.error = snap, None, None
            log.warning("now serving store %s", snap.store_id[:12])
            if self.settle:
                # once the requests still answered from the old store are done (or after
                # a while), so that the old store is freed rather than frozen
                deadline = time.monotonic() + RELEASE_WAIT
                while old() is not None and time.monotonic() < deadline:
                    time.sleep(0.05)
                settle_heap()
        finally:
            self._loading = None

    def wait_for(self, store_id: str | None = None, timeout: float = 30.0) -> Snapshot:
        """Check the file now and wait until its store (or ``store_id``) is served (for tests)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._checked = 0.0
            snap = self.current()
            settled = self._loading is None and (file_key(self.path) in (snap.key, self._failed))
            if (snap.store_id == store_id) if store_id else settled:
                return snap
            time.sleep(0.05)
        raise TimeoutError(f"store at {self.path} not switched within {timeout} s")
