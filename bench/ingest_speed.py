"""Time a full ingest of the corpus (target: under 10 s on the reference machine)."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from ingest.pipeline import ingest_corpus


def main(runs: int = 3) -> None:
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            t = time.perf_counter()
            report = ingest_corpus(Path(tmp) / f"b{i}.db", force=True)
            times.append(time.perf_counter() - t)
    for r in report.documents:
        sys.stdout.write(f"{r.doc.id:9} {r.stats['seconds']:.3f} s  {r.stats['nodes']} nodes\n")
    sys.stdout.write(
        f"full ingest: median {statistics.median(times):.2f} s, max {max(times):.2f} s "
        f"over {runs} runs (target < 10 s)\n"
    )


if __name__ == "__main__":
    main()
