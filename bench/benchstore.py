"""The store a benchmark reads: the one given with ``--db``, else a fresh ingest of the
corpus into a temporary folder (removed afterwards)."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from lawgraph.ingest.pipeline import ingest_corpus


@contextmanager
def bench_store(db: Path | None, say: Callable[[str], None] = print) -> Iterator[Path]:
    """Yield ``db``, or a freshly ingested temporary store (saying how long it took)."""
    if db is not None:
        yield db
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lawgraph.db"
        t = time.perf_counter()
        ingest_corpus(path)
        say(f"ingested in {time.perf_counter() - t:.1f} s")
        yield path
