"""Search benchmark: relevance against Ctrl-F, latency in process and over HTTP, start, memory.

Usage: ``python bench/search.py [--db STORE] [--rounds N] [--clients 32]``. Without
``--db`` the corpus is ingested into a temporary store first.

Prints success@5 and MRR of the engine, of the engine without putting provision text
above index entries and chapter headings, and of a plain substring search over the same
texts, counting any hit and provision text only; search latency p50/p99 over the
relevance queries in process; the time from starting ``lawgraph serve`` to its first
answered search; latency p50/p99 through the HTTP API with 32 concurrent keep-alive
connections (a pool of threads, each with its own ``httpx.Client``), both closed-loop
(every client sends its next request as soon as the last one is answered: maximum
throughput) and paced (the clients together send a fixed request rate, below
saturation); and the server's resident memory (VmRSS and its peak VmHWM from
``/proc/<pid>/status``).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from lawgraph import store
from lawgraph.ingest.pipeline import ingest_corpus
from lawgraph.ingest.search import query
from lawgraph.ingest.search.evaluate import engine, evaluate, load_relevance, substring_baseline
from lawgraph.ingest.search.query import search

ROOT = Path(__file__).resolve().parent.parent


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of ``values``."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s)) - 1))]


def out(line: str = "") -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_status(pid: int) -> dict[str, str]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def relevance(con) -> None:
    """Success@5 and MRR, counting any hit (index entries too) and provision text only.

    The reference ``unranked`` is the engine with index entries and chapter headings left
    where BM25 puts them (the ranking before provision text was put first).
    """
    items = load_relevance()

    def unranked(item: dict) -> list[dict]:
        keep = query._text_first
        query._text_first = lambda con, req, scored: (scored, {})
        try:
            return engine(con)(item)
        finally:
            query._text_first = keep

    rankers = (("search", engine(con)), ("unranked", unranked),
               ("substring", substring_baseline(con)))  # fmt: skip
    for name, ranker in rankers:
        for text_only in (False, True):
            r = evaluate(con, items, ranker, text_only=text_only)
            what = "text" if text_only else "any "
            out(f"{name:9} {what}  success@5 {r['success_at_k']:.3f}  MRR {r['mrr']:.3f}  "
                f"({r['queries']} queries)")  # fmt: skip
            missed = [p["q"] for p in r["per_query"] if not p["ok"]]
            if name != "substring" and missed:
                out(f"                missed: {', '.join(missed)}")


def in_process(con, queries: list[str], rounds: int) -> None:
    for q in queries:
        search(con, q, limit=20)
    times = []
    for _ in range(rounds):
        for q in queries:
            t = time.perf_counter()
            search(con, q, limit=20)
            times.append((time.perf_counter() - t) * 1000)
    out(f"in process     p50 {pct(times, 50):6.2f} ms  p99 {pct(times, 99):6.2f} ms  "
        f"({len(times)} searches)")  # fmt: skip


def start_server(db: Path, port: int) -> tuple[subprocess.Popen, float]:
    exe = ROOT / ".venv" / "bin" / "lawgraph"
    cmd = [
        str(exe) if exe.exists() else "lawgraph",
        "serve",
        "--db",
        str(db),
        "--port",
        str(port),
        "--workers",
        "1",
    ]  # one process: its RSS is the server's
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/api/search"
    with httpx.Client() as c:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"server exited: {proc.stderr.read().decode()}")
            try:
                if c.get(url, params={"q": "straffkortet"}).status_code == 200:
                    return proc, time.perf_counter() - t0
            except httpx.TransportError:
                pass
            time.sleep(0.01)


def http_load(port: int, queries: list[str], clients: int, rounds: int, rate: float | None):
    """Run the queries from ``clients`` threads; ``rate`` = total requests/s or None."""
    url = f"http://127.0.0.1:{port}/api/search"
    local = threading.local()
    interval = clients / rate if rate else 0.0

    def worker(k: int) -> list[float]:
        c = getattr(local, "client", None) or httpx.Client(timeout=30)
        local.client = c
        times = []
        order = queries[k % len(queries) :] + queries[: k % len(queries)]
        nxt = time.perf_counter() + (k / clients) * interval
        for _ in range(rounds):
            for q in order:
                if interval:
                    delay = nxt - time.perf_counter()
                    if delay > 0:
                        time.sleep(delay)
                    nxt += interval
                t = time.perf_counter()
                r = c.get(url, params={"q": q, "limit": 20})
                times.append((time.perf_counter() - t) * 1000)
                if r.status_code != 200:
                    raise SystemExit(f"{q!r}: HTTP {r.status_code} {r.text}")
        return times

    t0 = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        times = [t for ts in pool.map(worker, range(clients)) for t in ts]
    wall = time.perf_counter() - t0
    return times, len(times) / wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, default=None)
    ap.add_argument("--rounds", type=int, default=20, help="in-process passes over the set")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--http-rounds", type=int, default=3, help="passes per HTTP client")
    ap.add_argument("--rate", type=float, default=200.0, help="paced run: requests/s in all")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db
        if db is None:
            db = Path(tmp) / "bench.db"
            ingest_corpus(db, force=True)
        con = store.open_store(db)
        stats = store.stage_stats(con, "search")
        out(f"search stage   {stats.get('seconds')} s at ingest, {stats.get('nodes')} nodes, "
            f"store {os.path.getsize(db) / 1e6:.1f} MB")  # fmt: skip
        relevance(con)
        queries = [i["q"] for i in load_relevance()]
        in_process(con, queries, args.rounds)
        con.close()
        port = free_port()
        proc, started = start_server(db, port)
        try:
            out(f"server start to first answered search  {started:.2f} s")
            st = proc_status(proc.pid)
            out(f"server RSS after start  {st['VmRSS']}")
            for label, rate in (("closed loop", None), (f"paced {args.rate:g}/s", args.rate)):
                times, tput = http_load(port, queries, args.clients, args.http_rounds, rate)
                p50, p99 = pct(times, 50), pct(times, 99)
                out(f"HTTP {args.clients} conns, {label:12} p50 {p50:6.2f} ms  "
                    f"p99 {p99:6.2f} ms  ({len(times)} requests, {tput:.0f}/s)")  # fmt: skip
            st = proc_status(proc.pid)
            out(f"server RSS after load   {st['VmRSS']} (peak {st['VmHWM']})")
        finally:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
