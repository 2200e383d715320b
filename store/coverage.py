"""The home page's coverage matrix: which laws each book carries (law number x document)."""

from __future__ import annotations

import re
import sqlite3

from lawgraph.ingest.model import decode_attrs

from . import divergences, documents, has_table
from .features import feature


def _law_key(label: str, first: tuple[int, int] = (0, 0)) -> tuple:
    """Laws by number, national supplements (``SR3``, ``BL6``) after them: each series in
    the order the books print it (``first``: its first law's place, as (book in the
    manifest, place in that book)), then by number."""
    m = re.match(r"^([A-Z]*)(\d+)$", label)
    if m is None:
        return (2, (0, 0), label, 0)
    return (1 if m.group(1) else 0, first if m.group(1) else (0, 0), m.group(1), int(m.group(2)))


def _letters(label: str) -> str:
    """The letters a law label opens with (``SR`` of ``SR3``; none for ``12``)."""
    return label[: len(label) - len(label.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))]


def topic_counts(con: sqlite3.Connection) -> dict[str, int]:
    """How many Estonian topics are aligned to each law number (empty before alignment)."""
    if not has_table(con, "alignments"):
        return {}
    rows = con.execute(
        "SELECT n.law, count(DISTINCT a.a) FROM alignments a JOIN nodes n ON n.id = a.b "
        "WHERE a.relation = 'topic' AND n.law IS NOT NULL GROUP BY n.law"
    )
    return dict(rows.fetchall())


def coverage(con: sqlite3.Connection) -> dict:
    """Rows of law numbers, one cell per document.

    Returns:
        ``{"docs": [document ids], "rows": [{"law", "supplement", "cells": [...]}],
        "divergences": bool}``; a cell is ``{"doc", "state"
        ("text"|"title"|"topics"|"none"), "id", "title", "divergences" (int or None),
        "topics"}``.
        ``state`` "title" means the book lists the law (table of contents) without its text;
        "topics" is the Estonian book's topic count aligned to the law.
    """
    docs = documents(con)
    laws: dict[str, dict] = {}
    place = {d["id"]: i for i, d in enumerate(docs)}
    # (book, letters of a supplement series) -> its first law's place: book, then page
    series: dict[tuple[str, str], tuple[int, int]] = {}
    for row in con.execute(
        "SELECT id, doc, label, title, attrs, ord FROM nodes WHERE kind = 'law' ORDER BY ord"
    ):
        here = (place.get(row["doc"], len(place)), row["ord"])
        series.setdefault((row["doc"], _letters(row["label"])), here)
        attrs = decode_attrs(row["attrs"])
        entry = laws.setdefault(
            row["label"], {"docs": {}, "supplement": bool(attrs.get("supplement"))}
        )
        has_text = attrs.get("has_text", True) is not False
        entry["docs"][row["doc"]] = (row["id"], has_text, row["title"])
    counts_fn = feature(con, divergences.divergence_counts)
    counts = counts_fn(con) if counts_fn else None
    topics = topic_counts(con)
    rows = []

    def first(label: str) -> tuple[int, int]:
        return min(series[(d, _letters(label))] for d in laws[label]["docs"])

    for label in sorted(laws, key=lambda x: _law_key(x, first(x))):
        entry = laws[label]
        cells = []
        for d in docs:
            hit = entry["docs"].get(d["id"])
            if hit:
                state = "text" if hit[1] else "title"
            elif d["stats"].get("topics"):
                state = "topics" if topics.get(label) else "none"
            else:
                state = "none"
            cells.append(
                {
                    "doc": d["id"],
                    "state": state,
                    "id": hit[0] if hit else None,
                    "title": hit[2] if hit else "",
                    "topics": topics.get(label, 0) if state == "topics" else 0,
                    "divergences": counts.get((label, d["id"])) if counts is not None else None,
                }
            )
        rows.append({"law": label, "supplement": entry["supplement"], "cells": cells})
    return {"docs": [d["id"] for d in docs], "rows": rows, "divergences": counts is not None}
