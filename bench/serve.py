"""Serving benchmark: throughput and latency under concurrency, and memory under exports.

Usage: ``python bench/serve.py [--db STORE] [--seconds 10] [--mixed-seconds 60] [--workers N]
[--json FILE]``.
Without ``--db`` the corpus is ingested into a temporary store first.

Starts ``lawgraph serve`` (``--workers``, default the core count) on a free loopback port
and loads it from this process with asyncio keep-alive connections (a minimal HTTP/1.1
client, so the load generator costs little of the cores it shares with the server):

- ``/api/health`` at 32 connections, closed loop: the reference every figure is set
  against, measured in the same run;
- search over the relevance-set queries (varied, four languages) at 32 connections,
  closed loop, as a ratio of the health throughput; and open loop at 300 requests/s
  offered (latency counted from the time each request was due, so queueing counts);
- ``/compare/16`` at 1 and at 64 connections, and the ratio;
- a mixed load of 64 clients over search, provision pages, compare and graph routes
  for ``--mixed-seconds`` (60): p50, p99 and errors (any status but 200, 503 included);
- the same loads once more against a server started with ``--cache-mb 0``, so every
  answer is computed (the first server keeps repeated answers per store id);
- the server's resident memory (VmRSS summed over its processes) after start, after the
  loads above, after 16 concurrent GEXF exports, and after 16 more.

Prints a table and, with ``--json``, writes the figures as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lawgraph.ingest.pipeline import ingest_corpus  # noqa: E402
from lawgraph.ingest.search.evaluate import load_relevance  # noqa: E402

MIXED = ["/api/search?q={q}", "/doc/sv-2007/{law}", "/doc/el-2017/{law}B", "/compare/{law}",
         "/api/nodes/fi-2007/{law}", "/graph/sv-2007/{law}", "/api/nodes/sv-2007/{law}/ego",
         "/api/compare/{law}"]  # fmt: skip


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of ``values``."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s)) - 1))] if s else float("nan")


class Conn:
    """One keep-alive HTTP/1.1 connection (Content-Length and chunked bodies)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> tuple[int, int]:
        """GET ``path``; returns (status, body bytes)."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if x)}
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
            size = len(body)
        else:  # chunked
            size = 0
            while True:
                n = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
                await self.reader.readexactly(n + 2)
                size += n
                if n == 0:
                    break
        if headers.get("connection") == "close":
            self.close()
        return status, size

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


async def closed_loop(port: int, paths: list[str], clients: int, seconds: float) -> dict:
    """``clients`` connections each sending its next request when the last is answered."""
    times: list[float] = []
    errors: dict[str, int] = {}
    end = time.perf_counter() + seconds

    async def client(k: int) -> None:
        c = Conn(port)
        i = k
        while time.perf_counter() < end:
            t = time.perf_counter()
            try:
                status, _ = await c.get(paths[i % len(paths)])
            except (OSError, asyncio.IncompleteReadError, ValueError):
                status = 0
                c.close()
            times.append((time.perf_counter() - t) * 1000)
            if status != 200:
                key = f"{status} {paths[i % len(paths)]}"
                errors[key] = errors.get(key, 0) + 1
            i += 1
        c.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(client(k) for k in range(clients)))
    wall = time.perf_counter() - t0
    return {"rps": len(times) / wall, "p50_ms": pct(times, 50), "p99_ms": pct(times, 99),
            "requests": len(times), "errors": sum(errors.values()), "failed": errors}  # fmt: skip


async def open_loop(port: int, paths: list[str], rate: float, seconds: float) -> dict:
    """Requests due at a fixed rate on a pool of connections; latency from the due time."""
    pool: asyncio.Queue[Conn] = asyncio.Queue()
    for _ in range(64):
        pool.put_nowait(Conn(port))
    times: list[float] = []
    errors = 0

    async def one(due: float, path: str) -> None:
        nonlocal errors
        c = await pool.get()
        try:
            status, _ = await c.get(path)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            status = 0
            c.close()
        times.append((time.perf_counter() - due) * 1000)
        errors += status != 200
        pool.put_nowait(c)

    t0 = time.perf_counter()
    tasks = []
    for i in range(int(rate * seconds)):
        due = t0 + i / rate
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        tasks.append(asyncio.create_task(one(due, paths[i % len(paths)])))
    await asyncio.gather(*tasks)
    while not pool.empty():
        pool.get_nowait().close()
    return {"offered_rps": rate, "p50_ms": pct(times, 50), "p99_ms": pct(times, 99),
            "requests": len(times), "errors": errors}  # fmt: skip


def server_pids(root: int) -> list[int]:
    """``root`` and its descendants."""
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(d.name)] = int(fields[1])
            except (OSError, IndexError):
                continue
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += [c for c, pp in parents.items() if pp == p]
    return out


def rss_mb(root: int) -> float:
    """VmRSS of ``root`` and its descendants, in MB."""
    total = 0
    for pid in server_pids(root):
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def per_process_rss(root: int) -> list[float]:
    """VmRSS in MB of each process of the server (supervisor first)."""
    out = []
    for pid in server_pids(root):
        try:
            status = Path(f"/proc/{pid}/status").read_text().splitlines()
        except OSError:
            continue
        out += [int(x.split()[1]) / 1024 for x in status if x.startswith("VmRSS:")]
    return out


async def exports(port: int, n: int) -> tuple[float, int]:
    """``n`` concurrent whole-graph GEXF exports: (seconds, errors)."""
    t0 = time.perf_counter()
    results = await asyncio.gather(*(Conn(port).get("/api/graph/export?format=gexf")
                                     for _ in range(n)), return_exceptions=True)  # fmt: skip
    errors = sum(1 for r in results if isinstance(r, BaseException) or r[0] != 200)
    return time.perf_counter() - t0, errors


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: Path, port: int, workers: int, cache_mb: float) -> subprocess.Popen:
    exe = ROOT / ".venv" / "bin" / "lawgraph"
    cmd = [str(exe) if exe.exists() else "lawgraph", "serve", "--db", str(db),
           "--port", str(port), "--workers", str(workers), "--cache-mb", str(cache_mb)]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read().decode()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
                s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                if b" 200 " in s.recv(100):
                    return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("server did not start within 60 s")


async def paths() -> tuple[list[str], list[str]]:
    """The search mix (relevance-set queries) and the mixed-route load (shuffled)."""
    from urllib.parse import quote

    queries = [quote(i["q"]) for i in load_relevance()]
    rnd = random.Random(13)
    laws = [str(n) for n in range(1, 93)]
    mixed = [p.format(q=rnd.choice(queries), law=rnd.choice(laws)) for p in MIXED * 40]
    rnd.shuffle(mixed)
    return [f"/api/search?q={q}&limit=20" for q in queries], mixed


async def warm(port: int, urls: list[str]) -> list[str]:
    """Ask every URL once (as a long-running server would have been); keep those answering 200
    (a few generated provision labels do not exist in every book)."""
    ok = set()
    for path in set(urls):
        if (await Conn(port).get(path))[0] == 200:
            ok.add(path)
    return [u for u in urls if u in ok]


async def run(port: int, pid: int, seconds: float, workers: int, mixed_seconds: float) -> dict:
    """Every load against a server with its answer cache on."""
    search, mixed = await paths()
    search, mixed = await warm(port, search), await warm(port, mixed)
    r: dict = {"workers": workers, "seconds": seconds, "mixed_seconds": mixed_seconds,
               "rss_start_mb": rss_mb(pid), "mixed_urls": len(set(mixed))}  # fmt: skip
    r["health_32"] = await closed_loop(port, ["/api/health"], 32, seconds)
    r["search_32"] = await closed_loop(port, search, 32, seconds)
    r["search_open_300"] = await open_loop(port, search, 300, seconds)
    r["compare_1"] = await closed_loop(port, ["/compare/16"], 1, seconds)
    r["compare_64"] = await closed_loop(port, ["/compare/16"], 64, seconds)
    r["mixed_64"] = await closed_loop(port, mixed, 64, mixed_seconds)
    r["rss_before_exports_mb"] = rss_mb(pid)
    r["exports_16_s"], r["exports_16_errors"] = await exports(port, 16)
    r["rss_after_16_gexf_mb"] = rss_mb(pid)
    await exports(port, 16)
    r["rss_after_32_gexf_mb"] = rss_mb(pid)
    r["search_vs_health"] = r["search_32"]["rps"] / r["health_32"]["rps"]
    r["compare_64_vs_1"] = r["compare_64"]["rps"] / r["compare_1"]["rps"]
    return r


async def run_uncached(port: int, seconds: float, mixed_seconds: float) -> dict:
    """The loads that repeat answers, against a server with no answer cache."""
    search, mixed = await paths()
    search, mixed = await warm(port, search), await warm(port, mixed)
    r = {"health_32": await closed_loop(port, ["/api/health"], 32, seconds)}
    r["search_32"] = await closed_loop(port, search, 32, seconds)
    r["search_open_300"] = await open_loop(port, search, 300, seconds)
    r["compare_1"] = await closed_loop(port, ["/compare/16"], 1, seconds)
    r["compare_64"] = await closed_loop(port, ["/compare/16"], 64, seconds)
    r["mixed_64"] = await closed_loop(port, mixed, 64, mixed_seconds)
    r["search_vs_health"] = r["search_32"]["rps"] / r["health_32"]["rps"]
    r["compare_64_vs_1"] = r["compare_64"]["rps"] / r["compare_1"]["rps"]
    return r


ROWS = [("/api/health, 32 conn (reference)", "health_32"), ("search mix, 32 conn", "search_32"),
        ("search mix, 300 req/s offered", "search_open_300"),
        ("/compare/16, 1 conn", "compare_1"), ("/compare/16, 64 conn", "compare_64"),
        ("mixed routes, 64 clients {mixed}", "mixed_64")]  # fmt: skip


def table(r: dict, title: str) -> None:
    print(title)
    print(f"{'load':34} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for name, key in ROWS:
        x = r[key]
        name = name.format(mixed=f"({r.get('mixed_seconds', 0):.0f} s)")
        rps = x.get("rps", x.get("offered_rps"))
        print(f"{name:34} {rps:8.0f} {x['p50_ms']:8.1f} {x['p99_ms']:8.1f} {x['errors']:7d}")
    print(f"search / health throughput        {r['search_vs_health']:.2f}  (target >= 0.25)")
    print(f"search p99 at 300 req/s           {r['search_open_300']['p99_ms']:.1f} ms "
          "(target <= 25)")  # fmt: skip
    print(f"compare 64 conn / 1 conn          {r['compare_64_vs_1']:.2f}  (target >= 0.8)")
    print(f"mixed p99                         {r['mixed_64']['p99_ms']:.1f} ms "
          f"(target < 250, errors {r['mixed_64']['errors']})")  # fmt: skip


def report(r: dict) -> None:
    table(r, f"lawgraph serve, {r['workers']} worker(s), {r['seconds']:.0f} s per load, loopback, "
             f"answer cache on ({r['mixed_urls']} distinct mixed URLs)")  # fmt: skip
    print(f"server RSS: start {r['rss_start_mb']:.0f} MB, after the loads above "
          f"{r['rss_before_exports_mb']:.0f} MB, after 16 concurrent GEXF exports "
          f"{r['rss_after_16_gexf_mb']:.0f} MB ({r['exports_16_s']:.1f} s, "
          f"{r['exports_16_errors']} errors), after 16 more {r['rss_after_32_gexf_mb']:.0f} MB "
          "(target <= 300 per process)")  # fmt: skip
    each = ", ".join(f"{x:.0f}" for x in r.get("rss_per_process_mb", []))
    print(f"RSS per process at the end (MB): {each}")
    if "uncached" in r:
        print()
        table(r["uncached"], "the same server with --cache-mb 0 (every answer computed)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, help="store to serve (default: ingest a temporary one)")
    ap.add_argument("--seconds", type=float, default=10.0, help="length of each load")
    ap.add_argument("--mixed-seconds", type=float, default=60.0, help="length of the mixed load")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db
        if db is None:
            db = Path(tmp) / "lawgraph.db"
            ingest_corpus(db)
        port = free_port()
        proc = start_server(db, port, args.workers, 32)
        try:
            result = asyncio.run(run(port, proc.pid, args.seconds, args.workers,
                                     args.mixed_seconds))  # fmt: skip
            result["rss_per_process_mb"] = per_process_rss(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        proc = start_server(db, port, args.workers, 0)
        try:
            result["uncached"] = asyncio.run(run_uncached(port, args.seconds, args.mixed_seconds))
            result["uncached"]["mixed_seconds"] = args.mixed_seconds
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
