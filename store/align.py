"""Alignments between versions as the alignment stage stored them: equivalents with their
evidence, Estonian topic candidates, the learned lexicon, aligned sentences and the
translation-memory exports (:mod:`ingest.align` makes them; the compare stage reads them
the same way)."""

from __future__ import annotations

import sqlite3

from lawgraph.ingest.align import (
    EQUIVALENT,
    METHODS,
    TmxError,
    aligned,
    alignments,
    equivalent,
    in_memory,
    law_topics,
    lexicon_lookup,
    lexicon_pairs,
    pair_standing,
    sentence_pairs,
    sentences_csv,
    standing,
    tmx_bytes,
    topic_candidates,
)
from lawgraph.ingest.store import derived, has_table

__all__ = [
    "EQUIVALENT",
    "METHODS",
    "SentenceCounts",
    "TmxError",
    "aligned",
    "alignments",
    "equivalent",
    "law_topics",
    "lexicon_lookup",
    "lexicon_pairs",
    "pair_standing",
    "sentence_counts",
    "sentence_pairs",
    "sentences_csv",
    "tmx_bytes",
    "topic_candidates",
]


#: Aligned sentences per pair of documents: ``(doc_a, doc_b) -> (rows, units, alone)``,
#: both orders of each pair: ``rows`` the beads (gaps included, what the CSV export
#: holds), ``units`` the beads a translation memory keeps (a TMX export's ``tu``
#: elements, :func:`ingest.align.tmx.in_memory`; none for two books of one language),
#: ``alone`` the sentences with no counterpart (one side empty).
SentenceCounts = dict[tuple[str, str], tuple[int, int, int]]


def _sentence_counts(con: sqlite3.Connection) -> SentenceCounts:
    if not has_table(con, "sentence_pairs"):
        return {}
    rows = con.execute(
        "SELECT na.doc, nb.doc, s.a_text, s.b_text, s.score, da.language != db.language, "
        "al.relation, al.score "
        "FROM sentence_pairs s JOIN nodes na ON na.id = s.a JOIN nodes nb ON nb.id = s.b "
        "JOIN documents da ON da.id = na.doc JOIN documents db ON db.id = nb.doc "
        "LEFT JOIN alignments al ON al.a = s.a AND al.b = s.b"
    )
    out: SentenceCounts = {}
    for doc_a, doc_b, text_a, text_b, score, two_languages, relation, p in rows:
        alone = int(not (text_a and text_b))
        kept = int(in_memory(text_a, text_b, score, standing(relation, p))) if two_languages else 0
        for key in ((doc_a, doc_b), (doc_b, doc_a)):
            n, units, lone = out.get(key, (0, 0, 0))
            out[key] = (n + 1, units + kept, lone + alone)
    return out


def sentence_counts(con: sqlite3.Connection) -> SentenceCounts:
    """How many aligned sentences each pair of documents has (:data:`SentenceCounts`),
    so a page links the translation-memory exports (:func:`tmx_bytes`,
    :func:`sentences_csv`) only of pairs that have some. Made once per served store."""
    return derived(con, "sentence_counts", _sentence_counts)
