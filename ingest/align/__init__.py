"""Alignment of provisions across languages and editions.

The ``align`` ingest stage (:func:`align_stage`) writes the ``alignments`` table:

* ``label`` rows pair provisions with the same canonical label in two documents
  (and same-language definitions with the same slug); ``relation`` says whether
  the documents are of the same edition (fi-2007/sv-2007) or not;
* content evidence (:mod:`.evidence`) scores every pair; where a renumbering shows,
  ``content`` rows pair the provisions that really correspond (:mod:`.content`) and
  the label rows they contradict are kept with ``flagged = 1``; label rows the
  content confirms become ``label+content``;
* ``topic`` rows rank laws for each Estonian topic by glossary concepts
  (:mod:`.topics`).

Serve-time readers (:func:`aligned`, :func:`alignments`, :func:`equivalent`,
:func:`topic_candidates`) live in :mod:`.query`.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter

from .content import Row, align_pair, best_map, pair_order
from .evidence import concept_idf, fingerprints
from .label import load_corpus
from .query import aligned, alignments, equivalent, topic_candidates
from .topics import topic_rows

__all__ = ["align_stage", "aligned", "alignments", "equivalent", "topic_candidates"]

SCHEMA = """
CREATE TABLE alignments (
  a TEXT NOT NULL, b TEXT NOT NULL, doc_a TEXT NOT NULL, doc_b TEXT NOT NULL,
  relation TEXT NOT NULL, method TEXT NOT NULL, score REAL NOT NULL,
  flagged INTEGER NOT NULL, evidence TEXT NOT NULL
);
CREATE INDEX alignments_a ON alignments(a);
CREATE INDEX alignments_b ON alignments(b);
CREATE INDEX alignments_docs ON alignments(doc_a, doc_b);
"""


def align_stage(con: sqlite3.Connection) -> dict:
    """Align provisions across documents and write the ``alignments`` table.

    Returns:
        Row counts per document pair and method, the flagged count, and seconds taken.
    """
    started = time.perf_counter()
    con.executescript(SCHEMA)
    corpus = load_corpus(con)
    fps = fingerprints(con, corpus)
    idf = concept_idf(fps)
    counts: Counter = Counter()
    flagged = 0
    done: dict[tuple[str, str], dict[str, str]] = {}
    for doc_a, doc_b in pair_order(corpus):
        relation = corpus.relation(doc_a, doc_b)
        rows = align_pair(corpus, fps, doc_a, doc_b, idf, done)
        done[(doc_a, doc_b)], done[(doc_b, doc_a)] = best_map(rows)
        _write(con, rows, doc_a, doc_b, relation)
        counts.update(f"{doc_a}|{doc_b}|{r.method}" for r in rows)
        flagged += sum(r.flagged for r in rows)
    for doc_b, rows in topic_rows(con, corpus).items():
        doc_a = next(iter({r.a.split("/", 1)[0] for r in rows}), "")
        _write(con, rows, doc_a, doc_b, "topic")
        counts.update(f"{doc_a}|{doc_b}|topic" for _ in rows)
    con.commit()
    return {
        "rows": sum(counts.values()),
        "flagged": flagged,
        "by_pair": dict(sorted(counts.items())),
        "seconds": round(time.perf_counter() - started, 3),
    }


def _write(con: sqlite3.Connection, rows: list[Row], doc_a: str, doc_b: str, rel: str) -> None:
    con.executemany(
        "INSERT INTO alignments VALUES (?,?,?,?,?,?,?,?,?)",
        [
            (r.a, r.b, doc_a, doc_b, rel, r.method, r.score, r.flagged,
             json.dumps(r.evidence, ensure_ascii=False, sort_keys=True))
            for r in rows
        ],
    )  # fmt: skip
