"""Divergence benchmark on the hand-judged DEV SET: precision per type, recall in a region.

Usage: ``python bench/diverge.py [--db STORE] [--misses]``. Without ``--db`` the corpus is
ingested into a temporary store first.

The dev set (``tests/fixtures/diverge/dev_findings.toml``: findings judged real or noise
by reading both texts; ``dev_region.toml``: every real divergence of fi-2007 against
sv-2007 in a bounded region, found by reading) was used while tuning the checks, so
every figure printed here is a DEV-SET figure.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from benchstore import bench_store

from lawgraph.ingest.align.diverge_dev import evaluate, load


def out(line: str = "") -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def report(con: sqlite3.Connection, misses: bool) -> dict:
    judged, region = load()
    res = evaluate(con, judged, region)
    out(f"dev set: {len(judged)} judged findings, {len(region)} region divergences "
        f"(used for tuning: dev-set figures)")  # fmt: skip
    out(f"findings shown by default: {res['shown']} ({res['unjudged_shown']} not judged); "
        f"judged findings no longer given: {res['dropped']}")  # fmt: skip
    out("")
    out(f"{'type':<18} {'shown':>6} {'real':>6} {'precision':>10}")
    for t, c in sorted(res["precision"].items(), key=lambda x: (x[0] == "all", x[0])):
        p = c["real"] / c["shown"] if c["shown"] else float("nan")
        out(f"{t:<18} {c['shown']:>6} {c['real']:>6} {p:>10.3f}")
    out("")
    out(f"{'region type':<18} {'n':>6} {'found':>6} {'recall':>10}")
    for t, c in sorted(res["recall"].items(), key=lambda x: (x[0] == "all", x[0])):
        r = c["found"] / c["n"] if c["n"] else float("nan")
        out(f"{t:<18} {c['n']:>6} {c['found']:>6} {r:>10.3f}")
    if misses:
        out("")
        for d in res["misses"]:
            out(f"  missed {d.get('a')} ~ {d.get('b')} {d['type']}: {d.get('what', '')}")
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path)
    ap.add_argument("--misses", action="store_true")
    args = ap.parse_args()
    with bench_store(args.db, out) as db:
        con = sqlite3.connect(db)
        report(con, args.misses)


if __name__ == "__main__":
    main()
