"""Ingest cost, stage by stage, against the floor measured in the same run.

Each ingest runs in a fresh process (so dictionaries and spaCy load as on a newcomer's
machine) and prints every stage's time:

* floor: import spaCy and tokenize the five books with blank pipelines;
* cold: a new store with no form -> lemma table beside it (target <= 3 x floor);
* warm: ``--force`` with the table beside the store (a changed parser);
* unchanged: re-ingest of unchanged input (target <= 1 s).

``--profile`` adds the top entries of a cProfile of a cold ingest.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

FLOOR = """
import json, time
t = time.perf_counter()
import spacy
from ingest.corpus import DEFAULT_CORPUS, load_manifest, read_source
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
from ingest.pipeline import ingest_corpus
r = ingest_corpus(sys.argv[1], force=sys.argv[2] == "force")
print(json.dumps({"seconds": time.perf_counter() - t, "skipped": r.skipped,
                  "timings": r.timings}))
"""

PROFILE = """
import cProfile, pstats, sys
from ingest.pipeline import ingest_corpus
prof = cProfile.Profile()
prof.runcall(ingest_corpus, sys.argv[1], force=True, lemma_cache=False)
pstats.Stats(prof).sort_stats("cumulative").print_stats(int(sys.argv[2]))
"""


def _run(code: str, *args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", code, *args], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _line(name: str, got: dict) -> str:
    stages = ", ".join(f"{k} {v:.2f}" for k, v in got.get("timings", {}).items())
    return f"{name:10} {got['seconds']:6.2f} s" + (f"  ({stages})" if stages else "") + "\n"


def main(profile: bool = False, top: int = 25) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "lawgraph.db")
        floor = _run(FLOOR)
        cold = _run(INGEST, db, "force")
        warm = _run(INGEST, db, "force")
        same = _run(INGEST, db, "")
        out = sys.stdout
        out.write(_line("floor", floor))
        out.write(_line("cold", cold))
        out.write(_line("warm", warm))
        out.write(_line("unchanged", same))
        f = floor["seconds"]
        out.write(
            f"cold / floor = {cold['seconds'] / f:.2f} (target <= 3), "
            f"warm / floor = {warm['seconds'] / f:.2f}, "
            f"unchanged = {same['seconds']:.2f} s (skipped: {same['skipped']}, target <= 1 s)\n"
        )
        if profile:
            run = subprocess.run(
                [sys.executable, "-c", PROFILE, str(Path(tmp) / "p.db"), str(top)],
                check=True, capture_output=True, text=True,
            )  # fmt: skip
            out.write(run.stdout)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="add a cProfile of a cold run")
    parser.add_argument("--top", type=int, default=25, help="profile entries shown")
    args = parser.parse_args()
    main(args.profile, args.top)
