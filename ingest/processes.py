"""The ingest's forked processes: how many it may fork and whether it may fork at all
(:func:`default_workers`, :func:`forking_allowed`), a pool of workers that keep what they
computed from one task to the next (:class:`Pool`), and the rule that every forked
helper dies with the process that forked it (:func:`die_with_parent`).

Light on purpose: the parse workers are forked before the corpus-wide stages (and what
they import) are loaded.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import multiprocessing.connection as mp_connection
import os
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, NoReturn


def default_workers() -> int:
    """Worker processes for the ingest (parsing the books, deciding the pairs of books):
    ``$LAWGRAPH_JOBS`` if set, else
    the cores this process may use (at most :data:`MAX_WORKERS`); 1 where forking is not
    safe (not Linux, or other threads are running, as under a test server)."""
    env = os.environ.get("LAWGRAPH_JOBS", "").strip()
    if env.isdigit() and int(env) > 0:
        wanted = int(env)
    else:
        affinity = getattr(os, "sched_getaffinity", None)
        wanted = min(len(affinity(0)) if affinity else (os.cpu_count() or 1), MAX_WORKERS)
    if sys.platform != "linux" or threading.active_count() > 1:
        return 1
    return max(1, wanted)


MAX_WORKERS = 4


_LISTENERS: list[Callable[[str], None]] = []


def computed(stage: str) -> str:
    """The milestone of a stage whose work is done and which is only writing it (the
    alignment, once its workers have decided every pair of books)."""
    return f"{stage} computed"


def reached(milestone: str) -> None:
    """Tell whoever listens (:func:`listening`) that a stage reached ``milestone`` (as
    :func:`computed`): work that waits for it may start in a process beside."""
    for listener in list(_LISTENERS):
        listener(milestone)


@contextlib.contextmanager
def listening(listener: Callable[[str], None]):
    """Call ``listener`` with every milestone :func:`reached` while the block runs."""
    _LISTENERS.append(listener)
    try:
        yield
    finally:
        _LISTENERS.remove(listener)


def forking_allowed(workers: int | None = None) -> bool:
    """Whether work may go to a forked process: more than ``workers`` (by default
    :func:`default_workers`) is one, on Linux, with no other thread running, where the
    ``fork`` start method exists."""
    jobs = default_workers() if workers is None else workers
    return (
        jobs > 1
        and sys.platform == "linux"
        and threading.active_count() == 1
        and "fork" in mp.get_all_start_methods()
    )


def die_with_parent(parent: int) -> None:
    """In a process forked by ``parent`` (its pid, taken before the fork): be killed when
    that one dies, even by SIGKILL (Linux's ``PR_SET_PDEATHSIG``), so that no helper is
    left waiting forever for a message from a parent that is gone: a forked process holds
    copies of the parent's ends of the pipes made before the fork (its own among them),
    so it would never see them close. Without it, a helper killed so would also keep the
    temporary store locked, and no later ingest could remove it."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before this process asked
        os._exit(1)


PR_SET_PDEATHSIG = 1


class Pool:
    """Worker processes forked once, which keep what they computed from one task to the
    next: a task placed on a worker (:meth:`map` with ``place``) finds there what the
    worker's earlier tasks left (a pair of books lined up there is decided there).

    Use as a context manager; a worker that dies or a task that fails raises
    :class:`WorkerError` in the parent (never a hang), and leaving the block stops them.
    """

    def __init__(self, jobs: int) -> None:
        ctx = mp.get_context("fork")
        self.conns: list[Connection] = []
        self.procs: list = []
        self.broken = ""
        """Why the pool failed (a failed pool runs nothing more)."""
        try:
            for _ in range(jobs):
                mine, theirs = ctx.Pipe()
                proc = ctx.Process(target=_serve, args=(theirs, os.getpid()), daemon=True)
                proc.start()
                theirs.close()
                self.conns.append(mine)
                self.procs.append(proc)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, kind, *exc) -> None:
        self.close(at_once=kind is not None)

    def each(self, fn: Callable[[Any], Any], arg: Any) -> None:
        """``fn(arg)`` once in every worker (to hand them what the parent made since they
        were forked)."""
        self.map(fn, [arg] * len(self.conns), place=lambda i: i)

    def map(
        self,
        fn: Callable[[Any], Any],
        items: list,
        cost: Callable[[Any], float] | None = None,
        place: Callable[[int], int] | None = None,
        meanwhile: Callable[[], None] | None = None,
    ) -> list:
        """``fn`` over ``items``, their results in the order of ``items``. With ``place``
        (index of an item -> index of a worker) each item goes to that worker; else each
        goes to the first free worker, the costliest first (``cost``), so that no long one
        starts last while the others idle. ``meanwhile`` is called here once the workers
        have their first items."""
        if self.broken:
            raise WorkerError(f"the pool is not usable after an error: {self.broken}")
        order = sorted(range(len(items)), key=lambda i: -(cost(items[i]) if cost else 0))
        queues: list[list[int]] = [[] for _ in self.conns]
        shared: list[int] = []
        for i in order:
            (queues[place(i) % len(self.conns)] if place else shared).append(i)
        results: dict[int, Any] = {}
        busy: dict[int, int] = {}  # worker -> item

        def feed(w: int) -> None:
            queue = queues[w] or shared
            if queue:
                i = queue.pop(0)
                try:
                    self.conns[w].send((fn, items[i]))
                except OSError:
                    self._fail("a worker process died")
                busy[w] = i

        for w in range(len(self.conns)):
            feed(w)
        if meanwhile:
            try:
                meanwhile()
            except BaseException as exc:  # the workers' answers are still on their way
                self.broken = f"{type(exc).__name__}: {exc}"
                raise
        while busy:
            ready = mp_connection.wait([self.conns[w] for w in busy])
            for w in [w for w in list(busy) if self.conns[w] in ready]:
                try:
                    status, value = self.conns[w].recv()
                except (EOFError, OSError):
                    self._fail("a worker process died")
                if status == "error":
                    self._fail(value)
                results[busy.pop(w)] = value
                feed(w)
        return [results[i] for i in range(len(items))]

    def _fail(self, why: str) -> NoReturn:
        """Raise :class:`WorkerError`; the pool is unusable from then on (the other
        workers' answers may still be on their way)."""
        self.broken = why
        raise WorkerError(why)

    def close(self, at_once: bool = False) -> None:
        """Stop every worker: each when its task is done, or ``at_once`` (the parent gave
        up: a task failed, or it was interrupted)."""
        for conn in self.conns:
            with contextlib.suppress(OSError):
                conn.send(None)
            conn.close()
        for proc in self.procs:
            if at_once:
                proc.terminate()
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
                proc.join()
        self.conns, self.procs = [], []


class WorkerError(RuntimeError):
    """A task of a :class:`Pool` failed (its message), or its worker died."""


def _serve(conn: Connection, parent: int) -> None:
    """A :class:`Pool` worker: run the tasks sent until told to stop (``None``)."""
    die_with_parent(parent)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):  # the parent handles an interrupt
            return
        if task is None:
            return
        fn, arg = task
        try:
            out = ("ok", fn(arg))
        except BaseException as exc:  # the parent raises it
            out = ("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(out)
        except Exception as exc:  # a result that cannot be sent back
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
