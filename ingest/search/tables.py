"""What a search reads besides the full-text index, held in memory once per store.

Besides its full-text matches, a query reads the word tables (a query word's lemma, the
lemmas sharing its stem, the known pieces of an unseen compound, the surface forms to
mark) and the nodes it found (titles, kinds, the provisions an index entry or a chapter
heading points to). Read from SQLite that was some twenty small queries per search. A
store never changes, so :func:`search_tables` reads those tables once per store
(:func:`ingest.store.derived`) and a search asks SQLite only for the matches.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from lawgraph.ingest import store


@dataclass(frozen=True)
class NodeRow:
    """The columns of a node that a search shows or follows."""

    doc: str
    label: str
    kind: str
    law: str | None
    title: str
    text: str
    targets: tuple[str, ...]  # an index entry's provisions (labels), as its book gives them


@dataclass
class SearchTables:
    """The store's word and node tables as a search reads them.

    Attributes:
        langs: document id -> language, in manifest order.
        indexed: whether the store has the full-text index.
        forms: (language, folded surface form) -> (lemma, stem).
        stem_lemmas: (language, stem) -> the lemmas of the forms with that stem.
        lemmas: language -> every lemma of that language.
        surfaces: (language, lemma) -> the surface forms with that lemma.
        compounds: (language, part) -> the compound lemmas with that part.
        nodes: node id -> its :class:`NodeRow`.
        by_label: label -> the ids of the nodes with that label, in manifest order.
        laws_under: node id -> the laws under it, in document order.
        opening: node id of a provision with neither title nor text of its own (the book
            puts all of it in its items: sv-2007 16B1) -> the label and text of the
            first provision under it that has text, to show in its place.
        fts_nodes: rowid in the full-text index -> node id.
    """

    langs: dict[str, str]
    indexed: bool
    forms: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    stem_lemmas: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    lemmas: dict[str, set[str]] = field(default_factory=dict)
    surfaces: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    compounds: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    nodes: dict[str, NodeRow] = field(default_factory=dict)
    by_label: dict[str, list[str]] = field(default_factory=dict)
    laws_under: dict[str, list[str]] = field(default_factory=dict)
    opening: dict[str, tuple[str, str]] = field(default_factory=dict)
    fts_nodes: dict[int, str] = field(default_factory=dict)


def search_tables(con: sqlite3.Connection) -> SearchTables:
    """The :class:`SearchTables` of the store ``con`` reads (read once per store)."""
    return store.derived(con, "search.tables", read_tables)


def read_tables(con: sqlite3.Connection) -> SearchTables:
    """Read :class:`SearchTables` from the store (what :func:`search_tables` keeps)."""
    langs = dict(con.execute("SELECT id, language FROM documents ORDER BY ord").fetchall())
    t = SearchTables(langs, store.has_table(con, "search_fts"))
    if store.has_table(con, "lemma_forms"):
        for lang, surface, lemma, stem in con.execute(
            "SELECT lang, surface, lemma, stem FROM lemma_forms"
        ):
            t.forms[(lang, surface)] = (lemma, stem)
            t.stem_lemmas.setdefault((lang, stem), []).append(lemma)
            t.lemmas.setdefault(lang, set()).add(lemma)
            t.surfaces.setdefault((lang, lemma), []).append(surface)
    if store.has_table(con, "compound_parts"):
        for lang, word, part in con.execute("SELECT lang, word, part FROM compound_parts"):
            t.compounds.setdefault((lang, part), []).append(word)
    parents: dict[str, str | None] = {}
    for node_id, doc, label, kind, law, title, text, attrs, parent in con.execute(
        "SELECT n.id, n.doc, n.label, n.kind, n.law, n.title, n.text, n.attrs, n.parent "
        "FROM nodes n JOIN documents d ON d.id = n.doc ORDER BY d.ord, n.ord"
    ):
        targets = tuple(json.loads(attrs).get("targets") or ()) if kind == "index_term" else ()
        t.nodes[node_id] = NodeRow(doc, label, kind, law, title, text, targets)
        t.by_label.setdefault(label, []).append(node_id)
        if kind == "law" and parent is not None:
            t.laws_under.setdefault(parent, []).append(node_id)
        parents[node_id] = parent
        if text:  # in document order: the first text under every empty provision above
            above = parent
            while above in t.nodes and above not in t.opening:
                row = t.nodes[above]
                if row.title or row.text:
                    break
                t.opening[above] = (label, text)
                above = parents.get(above)
    if t.indexed:
        t.fts_nodes = dict(con.execute("SELECT rowid, node FROM search_fts").fetchall())
    return t
