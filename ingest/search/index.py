"""The search index built at ingest time.

Tables (all written by :func:`search_stage`):

* ``search_fts``: an FTS5 table, one row per node, with UNINDEXED ``node``, ``doc``,
  ``lang`` and ``kind`` (the kind group of :data:`KIND_GROUPS`) columns and five
  indexed columns: ``title`` and ``body`` hold the folded surface words, ``title_lemmas``
  and ``body_lemmas`` the lemma of each of those words (token for token), ``parts`` the
  lemmas of the parts of the node's compound words. The text is folded here
  (:func:`ingest.nlp.fold`: lowercase, Greek accents removed), so the ``unicode61``
  tokenizer runs with ``remove_diacritics 0`` and keeps ä ö å õ ü apart.
* ``lemma_forms(lang, surface, lemma, stem, freq)``: every folded word of the corpus with
  its lemma and Snowball stem, so that queries never load a lemma dictionary.
* ``compound_parts(lang, word, part)``: the parts of each compound lemma.
"""

from __future__ import annotations

import sqlite3
import time
from collections import Counter

from ..store import TwoSteps
from .analyze import Analyzer, Form
from .compound import split_compound

#: Node kind -> the kind group a search can filter on.
KIND_GROUPS: dict[str, str] = {
    "law": "law",
    "section": "law",
    "subsection": "law",
    "item": "law",
    "subitem": "law",
    "footnote": "law",
    "definition": "definition",
    "index_term": "index",
    "topic": "topic",
    "preface": "other",
    "chapter": "other",
}

SCHEMA = """
CREATE TABLE lemma_forms (
  lang TEXT NOT NULL, surface TEXT NOT NULL, lemma TEXT NOT NULL, stem TEXT NOT NULL,
  freq INTEGER NOT NULL, PRIMARY KEY (lang, surface)
) WITHOUT ROWID;
CREATE INDEX lemma_forms_lemma ON lemma_forms(lang, lemma);
CREATE INDEX lemma_forms_stem ON lemma_forms(lang, stem, lemma);
CREATE TABLE compound_parts (
  lang TEXT NOT NULL, word TEXT NOT NULL, part TEXT NOT NULL, PRIMARY KEY (lang, word, part)
) WITHOUT ROWID;
CREATE INDEX compound_parts_part ON compound_parts(lang, part);
CREATE VIRTUAL TABLE search_fts USING fts5(
  node UNINDEXED, doc UNINDEXED, lang UNINDEXED, kind UNINDEXED,
  title, body, title_lemmas, body_lemmas, parts,
  tokenize = 'unicode61 remove_diacritics 0'
);
"""


def _compounds(an: Analyzer) -> dict[str, tuple[str, str]]:
    """Split every lemma of one language's vocabulary that is a compound of known words."""
    lemmas = {f.lemma for f in an.forms.values()}

    def known(word: str) -> str | None:
        if word in lemmas:
            return word
        f = an.forms.get(word)
        return f.lemma if f else None

    out = {}
    for lemma in sorted(lemmas):
        parts = split_compound(lemma, an.lang, known)
        if parts:
            out[lemma] = parts
    return out


def search_prepare(con: sqlite3.Connection) -> dict:
    """The first step of :data:`search_stage` (reads the nodes only): every node
    analysed, the compounds split, the rows of the three tables made."""
    t0 = time.perf_counter()
    langs = dict(con.execute("SELECT id, language FROM documents").fetchall())
    analyzers: dict[str, Analyzer] = {}
    rows = []
    for node_id, doc, kind, title, text in con.execute(
        "SELECT id, doc, kind, title, text FROM nodes ORDER BY doc, ord"
    ).fetchall():
        lang = langs[doc]
        an = analyzers.get(lang) or analyzers.setdefault(lang, Analyzer(lang))
        rows.append(
            (
                node_id,
                doc,
                lang,
                KIND_GROUPS.get(kind, "other"),
                an.analyse(title),
                an.analyse(text),
            )
        )
    compounds = {lang: _compounds(an) for lang, an in analyzers.items()}

    def parts(lang: str, forms: list[Form]) -> str:
        split = compounds[lang]
        return " ".join(p for f in forms if f.lemma in split for p in split[f.lemma])

    return {
        "fts": [
            (
                node_id,
                doc,
                lang,
                group,
                " ".join(f.surface for f in tf),
                " ".join(f.surface for f in bf),
                " ".join(f.lemma for f in tf),
                " ".join(f.lemma for f in bf),
                parts(lang, tf + bf),
            )
            for node_id, doc, lang, group, tf, bf in rows
        ],
        "forms": [
            (lang, f.surface, f.lemma, f.stem, an.freq[f.surface])
            for lang, an in analyzers.items()
            for f in an.forms.values()
        ],
        "parts": [
            (lang, word, part)
            for lang, split in compounds.items()
            for word, pair in split.items()
            for part in pair
            if part != word
        ],
        "kinds": dict(sorted(Counter(r[3] for r in rows).items())),
        "forms_per_language": {lang: len(an.forms) for lang, an in sorted(analyzers.items())},
        "compounds": {lang: len(c) for lang, c in sorted(compounds.items())},
        "seconds": time.perf_counter() - t0,
    }


def search_finish(con: sqlite3.Connection, prepared: dict) -> dict:
    """The second step of :data:`search_stage`: write the full-text index, the surface ->
    lemma table and the compound parts.

    Returns:
        Statistics: nodes indexed, word forms and compounds per language, seconds.
    """
    t0 = time.perf_counter()
    con.executescript(SCHEMA)
    con.executemany("INSERT INTO search_fts VALUES (?,?,?,?,?,?,?,?,?)", prepared["fts"])
    con.executemany("INSERT INTO lemma_forms VALUES (?,?,?,?,?)", prepared["forms"])
    con.executemany("INSERT OR IGNORE INTO compound_parts VALUES (?,?,?)", prepared["parts"])
    con.execute("INSERT INTO search_fts(search_fts) VALUES ('optimize')")
    con.execute("ANALYZE lemma_forms")
    con.execute("ANALYZE compound_parts")
    con.commit()
    return {
        "nodes": len(prepared["fts"]),
        "kinds": prepared["kinds"],
        "forms": prepared["forms_per_language"],
        "compounds": prepared["compounds"],
        "seconds": round(prepared["seconds"] + time.perf_counter() - t0, 2),
    }


search_stage = TwoSteps(search_prepare, search_finish)
"""Build the full-text index, the surface -> lemma table and the compound parts: the
first step only reads the nodes (see :class:`ingest.store.TwoSteps`)."""
