"""Cross-language expansion: glossary translations of the query, aligned provisions of hits.

Both use the tables of the stages before search only when they exist: the glossary's
``concept_terms`` (through :func:`ingest.glossary.lookup_term`) and the ``alignments``
(through :func:`ingest.align.aligned`). Without an ``alignments`` table a hit's
counterparts are the provisions with the same label in the other documents that
number their laws (the same-edition rule), marked with method ``label``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from lawgraph.ingest import store

from .analyze import query_words

MAX_ALTERNATIVES = 24
MAX_LOOKUPS = 5  # the whole query and its first words (a glossary lookup costs ~30 ms)
MAX_TERM_WORDS = 6
_LAW_KINDS = ("law", "section", "subsection", "item", "subitem")


def glossary_alternatives(
    con: sqlite3.Connection, q: str, words: list[str], analyse: Callable
) -> tuple[list[str], list, list[str]]:
    """Translate the query through the glossary into FTS alternatives.

    The whole query and its first words are looked up; every term of every concept
    found (in every language) becomes an alternative: the AND of its words' groups,
    analysed in the term's language.

    Args:
        con: the store.
        q: the query text.
        words: its folded words.
        analyse: :func:`ingest.search.query.analyse_word`.

    Returns:
        (FTS expressions, the word groups they are made of, their languages).
    """
    if not store.has_table(con, "concept_terms"):
        return [], [], []
    from lawgraph.ingest.glossary import lookup_term

    concepts: dict[str, dict] = {}
    for text in list(dict.fromkeys([q, *words]))[:MAX_LOOKUPS]:
        for c in lookup_term(con, text):
            concepts.setdefault(c["id"], c)
    exprs: list[str] = []
    groups: list = []
    langs: set[str] = set()
    seen: set[tuple[str, str]] = set()
    for c in concepts.values():
        for lang, terms in (c.get("terms") or {}).items():
            for term in terms:
                key = (lang, " ".join(query_words(term)))
                if key in seen or not key[1] or len(exprs) >= MAX_ALTERNATIVES:
                    continue
                seen.add(key)
                term_groups = [analyse(con, w, [lang]) for w in key[1].split()[:MAX_TERM_WORDS]]
                exprs.append("(" + " AND ".join(g.expr() for g in term_groups) + ")")
                groups += term_groups
                langs.add(lang)
    return exprs, groups, sorted(langs)


def counterparts(con: sqlite3.Connection, node_id: str) -> list[tuple[str, float, str]]:
    """The provisions aligned with ``node_id`` in other documents, best first: (id, score,
    the alignment's relation, ``unconfirmed`` for a label twin not confirmed as the
    equivalent, or ``label`` for the same label where nothing is aligned).

    Uses the ``alignments`` table when the store has one (flagged rows left out), else
    the same label in the other documents that number their laws.
    """
    doc = node_id.split("/", 1)[0]
    if store.has_table(con, "alignments"):
        from lawgraph.ingest.align import aligned

        out: list[tuple[str, float, str]] = []
        docs = {doc}
        for row in aligned(con, node_id):
            if row.get("flagged") or row["doc"] in docs:
                continue
            docs.add(row["doc"])
            out.append((row["id"], float(row.get("score") or 0.0), row["standing"]))
        return out
    row = con.execute("SELECT label, kind FROM nodes WHERE id = ?", (node_id,)).fetchone()
    if row is None or row[1] not in _LAW_KINDS:
        return []
    rows = con.execute(
        "SELECT n.id FROM nodes n JOIN documents d ON d.id = n.doc "
        f"WHERE n.label = ? AND n.doc != ? AND n.kind IN ({','.join('?' * len(_LAW_KINDS))}) "
        "ORDER BY d.ord",
        (row[0], doc, *_LAW_KINDS),
    ).fetchall()
    return [(r[0], 1.0, "label") for r in rows]


def aligned_hits(con: sqlite3.Connection, scored: list[tuple]) -> list[tuple]:
    """Insert after each (id, score) its counterparts as (id, score, via, relation) rows.

    A counterpart already in the list (as a hit or as another hit's counterpart) is not
    repeated; its score is the hit's score times the alignment score.
    """
    seen = {s[0] for s in scored}
    out: list[tuple] = []
    for node_id, score, *_ in scored:
        out.append((node_id, score))
        for other, weight, relation in counterparts(con, node_id):
            if other not in seen:
                seen.add(other)
                out.append((other, score * weight, node_id, relation))
    return out
