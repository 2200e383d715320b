"""Ingest the corpus duplicated N times (ids suffixed) and compare time and peak memory with 1x.

Every copy of a book is a document of its own (``fi-1997`` and ``fi-1997-2`` …), so the
corpus-wide stages see N times the documents. A copy shares language and edition with
its original, so the alignment decides it against its original only and composes its
rows with every other book through it (``Corpus.direct_pairs``). Each ingest runs in a
fresh process with no lemma table beside its store; peak memory is that process's
maximum resident set size.
Target: the 4x ingest takes <= 4.5 x the 1x time.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from lawgraph.ingest.corpus import DEFAULT_CORPUS

INGEST = """
import json, resource, sys, time
t = time.perf_counter()
from lawgraph.ingest.pipeline import ingest_corpus
r = ingest_corpus(sys.argv[1], sys.argv[2], force=True)
print(json.dumps({"seconds": time.perf_counter() - t, "documents": len(r.documents),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "timings": r.timings}))
"""


def _toml_value(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def duplicated_corpus(dest: Path, copies: int) -> Path:
    """Write ``dest`` as the corpus with every book ``copies`` times (ids suffixed)."""
    dest.mkdir(parents=True)
    for path in DEFAULT_CORPUS.iterdir():
        if path.is_dir():  # parser settings, errata
            shutil.copytree(path, dest / path.name)
        elif path.name != "manifest.toml":
            shutil.copy(path, dest / path.name)
    manifest = tomllib.loads((DEFAULT_CORPUS / "manifest.toml").read_text(encoding="utf-8"))
    lines = [f"schema = {manifest['schema']}"]
    for copy in range(1, copies + 1):
        for entry in manifest["document"]:
            entry = dict(entry, id=entry["id"] + ("" if copy == 1 else f"-{copy}"))
            lines.append("\n[[document]]")
            lines += [f"{k} = {_toml_value(v)}" for k, v in entry.items()]
    (dest / "manifest.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dest


def _ingest(db: Path, corpus: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", INGEST, str(db), str(corpus)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(copies: int = 4) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        results = {}
        for n in (1, copies):
            corpus = duplicated_corpus(tmp / f"corpus{n}", n)
            results[n] = got = _ingest(tmp / f"s{n}" / "lawgraph.db", corpus)
            stages = ", ".join(f"{k} {v:.2f}" for k, v in got["timings"].items())
            sys.stdout.write(
                f"{n}x: {got['documents']} documents, {got['seconds']:.2f} s, "
                f"peak {got['peak_mb']:.0f} MB  ({stages})\n"
            )
        one, many = results[1], results[copies]
        sys.stdout.write(
            f"{copies}x / 1x: time {many['seconds'] / one['seconds']:.2f} (target <= 4.5), "
            f"peak memory {many['peak_mb'] / one['peak_mb']:.2f}\n"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=4)
    main(parser.parse_args().copies)
