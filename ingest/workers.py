"""How many processes the ingest may fork, and whether it may fork at all.

Light on purpose: the parse workers are forked before the corpus-wide stages (and what
they import) are loaded.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import threading


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
