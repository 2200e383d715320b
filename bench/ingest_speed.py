"""Ingest cost, stage by stage, against the floor measured in the same run.

Each ingest runs in a fresh process (so dictionaries and spaCy load as on a newcomer's
machine) and prints every stage's time:

* floor: import spaCy and tokenize the five books with blank pipelines;
* cold: a new store with no form -> lemma table beside it (target <= 3 x floor), with
  the dictionary index that ``make install`` builds (``lawgraph dictionaries``; the run
  says whether it was usable);
* no index: the same without the dictionary index (each dictionary opened from
  simplemma's compressed stream, as on an installation that has not built it);
* warm: ``--force`` with the table beside the store (a changed parser);
* unchanged: re-ingest of unchanged input (target <= 1 s);
* cli cold: ``lawgraph ingest`` (what ``make run`` runs) into a new store, with its
  progress bars, timed from outside its process.

Every run also prints its processor time (user + system, all its processes), and the
cold run's against the cores: the wall time can never be less than the processor time
over the cores, so this says how far the target is from what the work costs.

``--runs N`` repeats all of it N times (each run against its own floor) and prints the
medians of the ratios: the machine is shared and one run can be off by a second or two.
``--profile`` adds, for every stage of a cold ingest run in one process (workers 1, so
that the profiler sees all of it), the top entries of its cProfile.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLOOR = """
import json, time
t = time.perf_counter()
import spacy
from lawgraph.ingest.corpus import DEFAULT_CORPUS, load_manifest, read_source
for doc in load_manifest(DEFAULT_CORPUS):
    _, raw = read_source(doc, DEFAULT_CORPUS)
    nlp = spacy.blank(doc.language)
    nlp.max_length = max(nlp.max_length, len(raw) + 1)
    nlp.tokenizer(raw)
print(json.dumps({"seconds": time.perf_counter() - t}))
"""

INGEST = """
import json, sys, time
t = time.perf_counter()
from lawgraph.ingest.pipeline import ingest_corpus
r = ingest_corpus(sys.argv[1], force=sys.argv[2] == "force")
print(json.dumps({"seconds": time.perf_counter() - t, "skipped": r.skipped,
                  "timings": r.timings}))
"""

PROFILE = """
import cProfile, io, pstats, sys
from lawgraph.ingest import pipeline
top = int(sys.argv[2])
named = pipeline._named
profiles = {}

def profiled(name, stage, timings=None):
    def run(con):
        prof = profiles.setdefault(name, cProfile.Profile())
        return prof.runcall(named(name, stage, timings), con)
    return run

pipeline._named = profiled
parse_all = pipeline._parse_all

def parse_profiled(*args):
    prof = profiles.setdefault("read, parse and cite", cProfile.Profile())
    return prof.runcall(parse_all, *args)

pipeline._parse_all = parse_profiled
pipeline.ingest_corpus(sys.argv[1], force=True, lemma_cache=False, workers=1)
for name, prof in profiles.items():
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out).sort_stats("cumulative")
    stats.print_stats(top)
    body = out.getvalue()
    print(f"--- {name}: {stats.total_tt:.2f} s under the profiler")
    print(body[body.index("   ncalls"):].rstrip() if "   ncalls" in body else body)
"""


def _children_cpu() -> float:
    """Processor seconds (user + system) of every finished child process so far, their
    own children included (each waits for its workers)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(code: str, *args: str, env: dict | None = None) -> dict:
    cpu = _children_cpu()
    out = subprocess.run(
        [sys.executable, "-c", code, *args], check=True, capture_output=True, text=True,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    got = json.loads(out.stdout.strip().splitlines()[-1])
    got["cpu"] = _children_cpu() - cpu
    return got


def _cores() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else (os.cpu_count() or 1)


def _cli_cold(db: str) -> dict:
    """``lawgraph ingest`` (what ``make run`` runs) into a new store, timed from outside."""
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "from lawgraph.api.cli import run; run()", "ingest", "--db", db,
         "--no-warnings"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return {"seconds": time.perf_counter() - t}


def _line(name: str, got: dict) -> str:
    stages = ", ".join(f"{k} {v:.2f}" for k, v in got.get("timings", {}).items())
    cpu = f", cpu {got['cpu']:.2f} s" if "cpu" in got else ""
    return f"{name:10} {got['seconds']:6.2f} s{cpu}" + (f"  ({stages})" if stages else "") + "\n"


def _budget(floor: dict, cold: dict, cores: int) -> str:
    """What the cold target leaves: on ``cores`` cores a run can take no less wall time
    than its processor time over ``cores``, however well its stages overlap."""
    target = 3 * floor["seconds"]
    return (
        f"cold processor time {cold['cpu']:.2f} s on {cores} cores: no overlap can make it "
        f"shorter than {cold['cpu'] / cores:.2f} s; the target 3 x floor = {target:.2f} s "
        f"allows at most {target * cores:.2f} s of processor time "
        f"(the floor itself uses {floor['cpu']:.2f} s)\n"
    )


def main(profile: bool = False, top: int = 12, runs: int = 1) -> None:
    out = sys.stdout
    from lawgraph.ingest import lemma_dict
    from lawgraph.ingest.corpus import DEFAULT_CORPUS, load_manifest

    langs = sorted({doc.language for doc in load_manifest(DEFAULT_CORPUS)})
    usable = {lang: lemma_dict.index_status(lang) for lang in langs}
    out.write(
        f"dictionary index {lemma_dict.index_dir()}: "
        + ", ".join(f"{k} {v}" for k, v in usable.items())
        + "\n"
    )
    ratios: dict[str, list[float]] = {"cold": [], "no index": [], "cli cold": [], "warm": []}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(1, runs + 1):
            db = str(Path(tmp) / f"run{n}" / "lawgraph.db")
            floor = _run(FLOOR)
            cold = _run(INGEST, db, "force")
            bare = _run(
                INGEST,
                str(Path(tmp) / f"bare{n}" / "lawgraph.db"),
                "force",
                env={lemma_dict.INDEX_ENV: str(Path(tmp) / "no index")},
            )
            warm = _run(INGEST, db, "force")
            same = _run(INGEST, db, "")
            cli = _cli_cold(str(Path(tmp) / f"cli{n}" / "lawgraph.db"))
            if runs > 1:
                out.write(f"run {n}\n")
            out.write(_line("floor", floor))
            out.write(_line("cold", cold))
            out.write(_line("no index", bare))
            out.write(_line("warm", warm))
            out.write(_line("unchanged", same))
            out.write(_line("cli cold", cli))
            out.write(_budget(floor, cold, _cores()))
            f = floor["seconds"]
            for name, got in (
                ("cold", cold),
                ("no index", bare),
                ("cli cold", cli),
                ("warm", warm),
            ):
                ratios[name].append(got["seconds"] / f)
            out.write(
                f"cold / floor = {cold['seconds'] / f:.2f} (target <= 3), "
                f"no index / floor = {bare['seconds'] / f:.2f}, "
                f"cli cold / floor = {cli['seconds'] / f:.2f}, "
                f"warm / floor = {warm['seconds'] / f:.2f}, "
                f"unchanged = {same['seconds']:.2f} s (skipped: {same['skipped']}, target <= 1 s)\n"
            )
        if runs > 1:
            out.write(
                f"median of {runs} runs (each against its own floor): "
                + ", ".join(f"{k} / floor {statistics.median(v):.2f}" for k, v in ratios.items())
                + "\n"
            )
        if profile:
            run = subprocess.run(
                [sys.executable, "-c", PROFILE, str(Path(tmp) / "p.db"), str(top)],
                check=True, capture_output=True, text=True,
                env={**os.environ, "LAWGRAPH_JOBS": "1"},
            )  # fmt: skip
            out.write(run.stdout)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="add a cProfile of a cold run")
    parser.add_argument("--top", type=int, default=12, help="profile entries per stage")
    parser.add_argument("--runs", type=int, default=1, help="repeat, and print the medians")
    args = parser.parse_args()
    main(args.profile, args.top, args.runs)
