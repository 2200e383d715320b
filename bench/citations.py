"""Print citation counts per document and precision/recall against the gold lists."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from lawgraph import store
from lawgraph.ingest.cite.evaluate import load_gold, score
from lawgraph.ingest.pipeline import ingest_corpus

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "cite"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "c.db"
        report = ingest_corpus(db, force=True)
        for r in report.documents:
            c = r.stats["citations"]
            sys.stdout.write(f"{r.doc.id:9} found {c['found']:4} resolved {c['resolved']:4} "
                             f"unresolved {c['unresolved']}\n")  # fmt: skip
        con = store.open_store(db)
        all_cites = store.citations(con)
        for path in sorted(FIXTURES.glob("gold/*.json")) + sorted(FIXTURES.glob("heldout/*.json")):
            gold = load_gold(path)
            nodes = store.nodes(con, gold["doc"])
            cites = [c for c in all_cites if c.source.startswith(gold["doc"] + "/")]
            s = score(gold, nodes, cites)
            sys.stdout.write(
                f"{path.parent.name:8} {s.doc:9} laws {','.join(s.laws):10} "
                f"gold {s.gold:3} found {s.found:3} "
                f"precision {s.precision:.3f} recall {s.recall:.3f}\n"
            )
            for m in s.missed:
                sys.stdout.write(f"    missed   {m}\n")
            for m in s.spurious:
                sys.stdout.write(f"    spurious {m}\n")
        con.close()


if __name__ == "__main__":
    main()
