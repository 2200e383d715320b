"""Relevance evaluation: success@k and MRR of the search engine and of a substring baseline.

The relevance set is data (``tests/fixtures/search/relevance.toml``): each query has a
language and the laws (et-1930s: topic ids) of which at least one must come up. A hit
counts when it is in a document of the query's language and it is, or an index term
pointing to, one of the expected laws (or topics).

The baseline is what a reader does with Ctrl-F: the case-insensitive substring of the
query in each provision's title and text, in the books of the query's language, in book
order.
"""

from __future__ import annotations

import re
import sqlite3
import tomllib
from collections.abc import Callable
from pathlib import Path

from ..model import decode_attrs
from .query import search

RELEVANCE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "search" / "relevance.toml"
Ranker = Callable[[dict], list[dict]]


def load_relevance(path: Path | str = RELEVANCE) -> list[dict]:
    """Read the relevance set: ``[{"q", "lang", "expect": [...], "form", "note"}]``."""
    with open(path, "rb") as fh:
        return tomllib.load(fh)["query"]


def hit_keys(hit: dict) -> set[str]:
    """What a hit counts for: its law, the laws its index term points to, or its topic."""
    keys = set()
    if hit.get("law"):
        keys.add(str(hit["law"]))
    if hit.get("kind") == "topic":
        keys.add(hit["id"].split("/", 1)[1])
    for target in hit.get("targets") or ():
        m = re.match(r"\d+", target.split("/", 1)[1])
        if m:
            keys.add(m.group(0))
    return keys


def engine(con: sqlite3.Connection, limit: int = 20) -> Ranker:
    """The search engine as a ranker (no filters: the query's language is not given)."""
    return lambda item: search(con, item["q"], limit=limit)["hits"]


def substring_baseline(con: sqlite3.Connection, limit: int = 20) -> Ranker:
    """Ctrl-F: nodes of the query's language whose title or text contains the query."""
    rows = con.execute(
        "SELECT n.id, n.doc, d.language, n.kind, n.law, n.title, n.text, n.attrs "
        "FROM nodes n JOIN documents d ON d.id = n.doc ORDER BY d.ord, n.ord"
    ).fetchall()

    books = [
        (
            r[2],
            (r[5] + "\n" + r[6]).casefold(),
            {
                "id": r[0],
                "doc": r[1],
                "lang": r[2],
                "kind": r[3],
                "law": r[4],
                "targets": [f"{r[1]}/{t}" for t in decode_attrs(r[7]).get("targets") or []],
            },
        )
        for r in rows
    ]

    def rank(item: dict) -> list[dict]:
        needle = item["q"].casefold()
        return [hit for lang, text, hit in books if lang == item["lang"] and needle in text][:limit]

    return rank


#: Hits that point to provisions rather than state them (not counted with ``text_only``).
POINTER_KINDS = frozenset({"index_term", "chapter"})


def evaluate(
    con: sqlite3.Connection, items: list[dict], ranker: Ranker, k: int = 5, text_only: bool = False
) -> dict:
    """Run every query and score it.

    With ``text_only`` a subject-index entry or chapter heading does not count as the
    relevant hit: only the provision (or topic) itself does.

    Returns:
        ``{"success_at_k", "mrr", "k", "queries", "per_query": [{"q", "lang", "rank",
        "ok"}]}``: ``rank`` is the 1-based rank of the first relevant hit (None if none in
        the list), ``ok`` whether it is within ``k``.
    """
    langs = dict(con.execute("SELECT id, language FROM documents").fetchall())
    per = []
    for item in items:
        expect = set(item["expect"])
        rank = None
        for i, hit in enumerate(ranker(item), 1):
            if text_only and hit.get("kind") in POINTER_KINDS:
                continue
            if langs.get(hit["doc"]) == item["lang"] and hit_keys(hit) & expect:
                rank = i
                break
        per.append(
            {
                "q": item["q"],
                "lang": item["lang"],
                "rank": rank,
                "ok": rank is not None and rank <= k,
            }
        )
    n = len(per) or 1
    return {
        "k": k,
        "queries": len(per),
        "success_at_k": sum(p["ok"] for p in per) / n,
        "mrr": sum(1 / p["rank"] for p in per if p["rank"]) / n,
        "per_query": per,
    }
