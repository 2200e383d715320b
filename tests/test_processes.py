"""Worker processes that keep what they computed (:class:`ingest.processes.Pool`), and the
alignment run in them giving what it gives in one process.

Forking needs a process where no other thread runs: each test runs in a process of its
own.
"""

import json
import subprocess
import sys

POOL_SCRIPT = """
import json, os, time
from lawgraph.ingest.processes import Pool, WorkerError

KEPT = {}

def keep(item):
    KEPT[item] = os.getpid()
    return os.getpid()

def kept(item):
    return KEPT.get(item), os.getpid()

def told(value):
    KEPT["told"] = value

def read_told(_):
    return KEPT.get("told")

def square(x):
    time.sleep(0.01 * x)
    return x * x

def fail(x):
    if x == 3:
        raise ValueError(f"no {x}")
    return x

def die(x):
    if x == 2:
        os._exit(3)
    time.sleep(0.2)
    return x

out = {}
with Pool(2) as pool:
    items = list(range(8))
    out["squares"] = pool.map(square, items, cost=lambda x: x)
    place = {x: x % 2 for x in items}
    first = pool.map(keep, items, place=lambda i: place[items[i]])
    again = pool.map(kept, items, place=lambda i: place[items[i]])
    out["same_worker"] = all(k == p == f for (k, p), f in zip(again, first))
    out["workers"] = len(set(first))
    pool.each(told, "lexicons")
    out["told"] = pool.map(read_told, [0, 1], place=lambda i: i)
    try:
        pool.map(fail, items)
    except WorkerError as exc:
        out["failed"] = str(exc)
with Pool(2) as pool:
    try:
        pool.map(die, list(range(6)))
    except WorkerError as exc:
        out["died"] = str(exc)
    procs = pool.procs
out["stopped"] = not any(p.is_alive() for p in procs)
print(json.dumps(out))
"""


def _run(script: str, *args: str) -> dict:
    got = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=300
    )
    assert got.returncode == 0, got.stderr[-2000:]
    return json.loads(got.stdout.strip().splitlines()[-1])


def test_a_pool_keeps_each_workers_state_and_reports_failures():
    got = _run(POOL_SCRIPT)
    assert got["squares"] == [x * x for x in range(8)]  # in the items' order
    assert got["workers"] == 2 and got["same_worker"]  # placed tasks find what was kept
    assert got["told"] == ["lexicons", "lexicons"]  # handed to every worker
    assert got["failed"] == "ValueError: no 3"
    assert got["died"] == "a worker process died"
    assert got["stopped"]


ALIGN_SCRIPT = """
import json, sys
from lawgraph import store
from lawgraph.ingest import align, pipeline, processes

con = store.open_store(sys.argv[1])
heard = []

def rows(workers):
    with processes.listening(heard.append):
        got = align.align_corpus(con, workers=workers)
    shown = {f"{a} {b}": [(r.a, r.b, r.relation, r.score, r.flagged, r.method)
                          for r in rs] for (a, b), rs in got.rows.items()}
    return shown, sorted(map(repr, got.sentences)), len(got.matchers)

one, two = rows(1), rows(2)
stages = dict(pipeline.corpus_stages())
print(json.dumps({"same_rows": one[0] == two[0], "same_sentences": one[1] == two[1],
                  "pairs": len(one[0]), "rows": sum(map(len, one[0].values())),
                  "matchers": [one[2], two[2]], "heard": heard,
                  "awaited": processes.computed(pipeline.AFTER["search"]),
                  "named": stages.get(align.STAGE) is align.align_stage}))
"""


def test_the_alignment_in_worker_processes_is_the_alignment_in_one(ingested):
    got = _run(ALIGN_SCRIPT, str(ingested[0]))
    assert got["pairs"] == 6 and got["rows"] > 3000  # every pair of the four law books
    assert got["same_rows"] and got["same_sentences"]
    assert got["matchers"][0] > 0 and got["matchers"][1] == 0  # kept only in one process
    # the milestone the search index waits for is the one the alignment reaches, each run
    assert got["named"] and got["heard"] == [got["awaited"]] * 2


DIVERGE_SCRIPT = """
import json, sqlite3, sys
from lawgraph.ingest.align import diverge

con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
con.row_factory = sqlite3.Row

def checked(parallel):
    diverge._parallel = lambda n: parallel
    c = diverge._load(con)
    pairs, _ = diverge._pairs(con, c)
    rows, cal = diverge._checked(c, pairs)
    theirs = diverge._shared_out(c, pairs)
    laws = lambda idx: {c.nodes[pairs[i][0]]["law"] or c.nodes[pairs[i][0]]["label"] for i in idx}
    mine = [i for i in range(len(pairs)) if i not in set(theirs)]
    return rows, cal, len(pairs), len(theirs), laws(mine) & laws(theirs)

one, two = checked(False), checked(True)
print(json.dumps({"same_rows": repr(one[0]) == repr(two[0]), "same_calibration": one[1] == two[1],
                  "rows": len(one[0]), "pairs": one[2], "theirs": one[3],
                  "laws_in_both": sorted(one[4])}))
"""


def test_the_divergence_checks_in_two_processes_are_those_of_one(ingested):
    got = _run(DIVERGE_SCRIPT, str(ingested[0]))
    assert got["pairs"] > 1500 and got["rows"] > 100
    assert got["same_rows"] and got["same_calibration"]  # the same rows in the same order
    assert 0.3 * got["pairs"] < got["theirs"] < 0.7 * got["pairs"]  # about half each
    assert got["laws_in_both"] == []  # a law's pairs stay together


ORPHAN_SCRIPT = """
import sys, time
from lawgraph.ingest.processes import Pool
pool = Pool(2)
print(" ".join(str(p.pid) for p in pool.procs), flush=True)
time.sleep(60)
"""


def _gone(pid: int) -> bool:
    """Whether a process has ended (a zombie not yet reaped counts as ended)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return any(line.split()[1:2] == ["Z"] for line in fh if line.startswith("State:"))
    except FileNotFoundError:
        return True


def test_workers_do_not_outlive_a_killed_parent():
    """A parent killed with SIGKILL cannot stop its workers: they end by themselves (each
    keeps the other's pipe open, so none would see the parent's end close), even when
    it is killed before they have started."""
    import os
    import signal
    import time

    command = [sys.executable, "-c", ORPHAN_SCRIPT]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    pids = [int(x) for x in proc.stdout.readline().split()]
    assert len(pids) == 2 and not any(_gone(p) for p in pids)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(_gone(p) for p in pids):
        time.sleep(0.05)
    left = [p for p in pids if not _gone(p)]
    for pid in left:  # not left behind by a failing test either
        os.kill(pid, signal.SIGKILL)
    assert left == []
