"""Render time of every HTML page on the full corpus (median and max over several runs).

Usage: ``python bench/render.py [--db STORE] [--runs N]``. Without ``--db`` the corpus is
ingested into a temporary store first. Times are measured through the ASGI app in
process (no network), after one warm-up request per route; any route whose median is
over the budget is flagged.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BUDGET_MS = 100.0
ROUTES = [
    "/",
    "/doc/sv-2007",
    "/doc/el-2017",
    "/doc/sv-2007/16",
    "/doc/el-2017/80",
    "/doc/sv-2007/16B1(a)",
    "/doc/fi-1997/12C2",
    "/doc/el-2017/chapter/index",
    "/doc/et-1930s/topic/kolbmata-pakkumine",
    "/go?label=16B1",
    "/graph",
    "/graph?doc=el-2017",
    "/graph/sv-2007/16",
    "/graph/sv-2007/16?depth=2",
    "/graph/sv-2007/16?depth=3",
    "/graph/el-2017/12C?b=64",
    "/graph/el-2017/16?depth=2",
    "/graph/sv-2007/12?a=12&b=27B1&either=true",
    "/search?q=återtaget+bud",
    "/search?q=rangaistuskortti",
    "/search?q=συμπαίκτη",
    "/search?q=revoke&expand=true",
    "/search?q=16B1",
    "/search?q=xyzzyq",
    "/compare/16",
    "/compare/12",
    "/compare/16B?docs=fi-1997&docs=sv-2007",
    "/divergences",
    "/divergences?a=el-2017&b=sv-2007",
    "/divergences?a=fi-1997&b=sv-2007&type=structure",
    "/glossary",
    "/glossary/revoke",
]


def main() -> int:
    """Print the per-route render times; exit 1 if a route is over budget."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="an ingested store (default: ingest now)")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

    from lawgraph.api.app import create_app

    db = args.db
    if db is None:
        from lawgraph.ingest.pipeline import ingest_corpus

        db = Path(tempfile.mkdtemp()) / "lawgraph.db"
        print(f"ingesting into {db} …", file=sys.stderr)
        ingest_corpus(db)
    client = TestClient(create_app(db), follow_redirects=False)
    over = []
    print(f"{'route':58} {'status':>6} {'median ms':>10} {'max ms':>8}")
    for route in ROUTES:
        status = client.get(route).status_code  # warm-up (and per-graph caches)
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            client.get(route)
            times.append((time.perf_counter() - t0) * 1000)
        med, worst = statistics.median(times), max(times)
        flag = "  OVER BUDGET" if med > BUDGET_MS else "  (max over)" if worst > BUDGET_MS else ""
        if med > BUDGET_MS:
            over.append(route)
        print(f"{route:58} {status:>6} {med:>10.1f} {worst:>8.1f}{flag}")
    print(f"{len(ROUTES)} routes, {args.runs} runs each; budget {BUDGET_MS:.0f} ms; "
          f"median over budget: {', '.join(over) or 'none'}")  # fmt: skip
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
