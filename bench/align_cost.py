"""What the lexical alignment costs a cold ingest, against the code before it, same run.

Usage: ``python bench/align_cost.py [--base REF] [--rounds N]``.

The base (default: the last commit before the alignment learned a lexicon from the
corpus) is checked out into a temporary git worktree; each round ingests the bundled
corpus from scratch with the base code and with the working tree, alternately, each in a
fresh process (so both pay for loading their libraries). Prints every run, the medians,
their ratio (target: at most 1.2) and each version's stage times.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = "c982992"
"""The last commit before the lexicon, the calibrated matcher and sentence alignment."""
TARGET = 1.2

RUN = """
import importlib, json, sys, tempfile, time
from pathlib import Path
tree, module = Path(sys.argv[1]).resolve(), sys.argv[2]
sys.path.insert(0, str(tree))
pipeline = importlib.import_module(module)
if not Path(pipeline.__file__).resolve().is_relative_to(tree):
    sys.exit(f"{module} came from {pipeline.__file__}, not from {tree}")
with tempfile.TemporaryDirectory() as d:
    t = time.perf_counter()
    r = pipeline.ingest_corpus(d + "/x.db", corpus_dir=tree / "corpus", force=True)
    print(json.dumps({"seconds": time.perf_counter() - t,
                      "stages": {k: v.get("seconds") for k, v in r.stages.items()}}))
"""


def out(line: str = "") -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def pipeline_module(tree: Path) -> str:
    """The module to import for a tree: its own top-level ``ingest`` package before the
    folders installed under the ``lawgraph`` namespace, else ``lawgraph.ingest`` (which
    only the working tree, installed in editable mode, provides)."""
    with open(tree / "pyproject.toml", "rb") as fh:
        setup = tomllib.load(fh).get("tool", {}).get("setuptools", {})
    namespaced = setup.get("package-dir", {}).get("lawgraph") == "."
    return "lawgraph.ingest.pipeline" if namespaced else "ingest.pipeline"


def ingest(tree: Path) -> dict:
    """One cold ingest with ``tree``'s code, in a fresh process (which checks that the
    code it imported is that tree's)."""
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(tree), pipeline_module(tree)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"ingest with {tree} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default=BASE)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(base),
                        args.base], check=True, capture_output=True)  # fmt: skip
        try:
            runs: dict[str, list[dict]] = {"base": [], "head": []}
            for i in range(args.rounds):
                for name, tree in (("base", base), ("head", ROOT)):
                    r = ingest(tree)
                    runs[name].append(r)
                    stages = " ".join(f"{k} {v:.2f}" for k, v in r["stages"].items())
                    out(f"round {i + 1} {name:4}: {r['seconds']:6.2f} s  ({stages})")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                           capture_output=True)  # fmt: skip
    med = {k: statistics.median(r["seconds"] for r in v) for k, v in runs.items()}
    ratio = med["head"] / med["base"]
    out()
    out(f"cold ingest, median of {args.rounds}: base ({args.base}) {med['base']:.2f} s, "
        f"this tree {med['head']:.2f} s, ratio {ratio:.3f} (target <= {TARGET}: "
        f"{'met' if ratio <= TARGET else 'NOT met'})")  # fmt: skip
    for name, rs in runs.items():
        keys = rs[0]["stages"].keys()
        per = ", ".join(f"{k} {statistics.median(r['stages'][k] for r in rs):.2f}" for k in keys)
        out(f"  {name} stages (median s): {per}")


if __name__ == "__main__":
    main()
