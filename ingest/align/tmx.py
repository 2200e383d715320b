"""Translation-memory exports of the aligned sentences: TMX 1.4 and CSV.

One ``tu`` per aligned sentence bead of two books (both sides with words, and a score
that is no sign of a wrong pairing: :func:`in_memory`), with a
``tuv`` per book carrying ``xml:lang``, and ``prop`` elements naming the provisions,
the bead and how the two provisions relate (``x-relation``), so translators' tools
(OmegaT, Trados, translate-toolkit) can load the pairs as a translation memory. Both
books must be in different languages: a TMX unit holds one segment per language.

The relation is the provisions' alignment: ``same``, ``renumbered`` or ``moved`` for a
shown equivalent, ``unconfirmed`` for a label twin of two editions whose sentences are
aligned although it is not shown as the equivalent (:func:`.calibration.unconfirmed`:
the rule may have been rewritten between the editions). A translator can leave those
units out of a memory, or check them first.
"""

from __future__ import annotations

import csv
import io
import sqlite3
from xml.etree import ElementTree as ET

from ..store import has_table
from .calibration import unconfirmed

TMX_HEADER = {
    "creationtool": "lawgraph",
    "creationtoolversion": "1",
    "segtype": "sentence",
    "o-tmf": "lawgraph-store",
    "adminlang": "en",
    "datatype": "plaintext",
}


MEMORY_SCORE = 0.35
"""A sentence bead scored below this (:mod:`.sentences`: the lexicon's reward and the length
cost) is left out of the translation memory; the CSV keeps it, marked. Read on the bundled
books, beads of two sentences with words between two languages: below 0.2 every one pairs
sentences that say different things (fi-1997 24 "Lisäksi:" against the whole of sv-2007
24's rule); from 0.2 to 0.35, 4 of 12 are translations (el-2017 32A2(b) "Μπορεί να
εφαρμοστούν οι Νόμοι 16Γ και 72Γ" stands against sv-2007 32B2 "Se lag 23 om passet skadar
den icke-felande sidan", 0.31); from 0.35 to 0.5 about 34 of 49. A wrong unit in a memory
is offered to a translator as a match."""
UNCONFIRMED_MEMORY_SCORE = 0.5
"""... and a bead of a label twin whose rule may have been rewritten (``unconfirmed``) from
this score on: from 0.35 to 0.5 only 2 of its 7 such beads were translations (el-2017 78D's
Greek national note against sv-2007 78D "Villkoren skall göras tillgängliga", 0.37)."""


def in_memory(text_a: str, text_b: str, score: float, relation: str = "") -> bool:
    """Whether a bead is a translation unit: words on both sides (not a bare "1." of a
    numbered list) and a score of at least :data:`MEMORY_SCORE`, or of
    :data:`UNCONFIRMED_MEMORY_SCORE` where the two provisions' ``relation`` (as
    :func:`standing` gives it) is ``unconfirmed``."""
    least = UNCONFIRMED_MEMORY_SCORE if relation == "unconfirmed" else MEMORY_SCORE
    return any(c.isalpha() for c in text_a) and any(c.isalpha() for c in text_b) and score >= least


class TmxError(ValueError):
    """The two documents cannot make a translation memory."""


def _pairs(con: sqlite3.Connection, doc_a: str, doc_b: str) -> list[tuple]:
    """Sentence beads between two documents, ``doc_a``'s side first, in book order."""
    if not has_table(con, "sentence_pairs"):
        return []
    rows = con.execute(
        "SELECT s.a, s.b, s.n, s.bead, s.a_text, s.b_text, s.score, al.relation, al.score "
        "FROM sentence_pairs s "
        "JOIN nodes na ON na.id = s.a JOIN nodes nb ON nb.id = s.b "
        "LEFT JOIN alignments al ON al.a = s.a AND al.b = s.b "
        "WHERE (na.doc = ? AND nb.doc = ?) OR (na.doc = ? AND nb.doc = ?) "
        "ORDER BY na.doc, na.ord, s.n",
        (doc_a, doc_b, doc_b, doc_a),
    ).fetchall()
    out = []
    for a, b, n, bead, ta, tb, score, relation, p in rows:
        if a.split("/", 1)[0] != doc_a:
            a, b, ta, tb, bead = b, a, tb, ta, bead[::-1]
        out.append((a, b, n, bead, ta, tb, score, standing(relation, p)))
    return out


def pair_standing(con: sqlite3.Connection, a: str, b: str) -> str:
    """:func:`standing` of two provisions' alignment row (either way round; empty if
    there is none)."""
    if not has_table(con, "alignments"):
        return ""
    row = con.execute(
        "SELECT relation, score FROM alignments WHERE a = ? AND b = ? UNION ALL "
        "SELECT relation, score FROM alignments WHERE a = ? AND b = ?",
        (a, b, b, a),
    ).fetchone()
    return standing(*row) if row else ""


def standing(relation: str | None, p: float | None) -> str:
    """How the two provisions of a sentence bead relate: their alignment's relation, or
    ``unconfirmed`` for a label twin not shown as the equivalent (empty if unknown)."""
    if relation is None:
        return ""
    return "unconfirmed" if unconfirmed(relation, float(p or 0.0)) else relation


def _language(con: sqlite3.Connection, doc: str) -> str:
    row = con.execute("SELECT language FROM documents WHERE id = ?", (doc,)).fetchone()
    if row is None:
        raise TmxError(f"unknown document {doc!r}")
    return row[0]


def tmx_bytes(con: sqlite3.Connection, doc_a: str, doc_b: str) -> bytes:
    """The aligned sentences of two documents as a TMX 1.4 file.

    Raises:
        TmxError: an unknown document, or two documents of the same language.
    """
    la, lb = _language(con, doc_a), _language(con, doc_b)
    if la == lb:
        raise TmxError(f"{doc_a} and {doc_b} are both in {la!r}: a TMX unit needs two languages")
    every = _pairs(con, doc_a, doc_b)
    pairs = [x for x in every if in_memory(x[4], x[5], x[6], x[7])]
    if not every:
        raise TmxError(
            f"{doc_a} and {doc_b} have no aligned sentences (no provision of one "
            f"is shown as the equivalent of a provision of the other)"
        )
    if not pairs:
        raise TmxError(
            f"none of the aligned sentences of {doc_a} and {doc_b} is matched closely "
            f"enough for a translation memory (the CSV export lists them)"
        )
    root = ET.Element("tmx", version="1.4")
    ET.SubElement(root, "header", {"srclang": la, **TMX_HEADER})
    body = ET.SubElement(root, "body")
    xml_lang = "{http://www.w3.org/XML/1998/namespace}lang"
    for a, b, _n, bead, ta, tb, score, relation in pairs:
        tu = ET.SubElement(body, "tu")
        for key, value in (
            ("x-source", a),
            ("x-target", b),
            ("x-bead", bead),
            ("x-score", f"{score:.3f}"),
            ("x-relation", relation),
        ):
            if not value:
                continue
            ET.SubElement(tu, "prop", type=key).text = value
        for lang, text in ((la, ta), (lb, tb)):
            tuv = ET.SubElement(tu, "tuv", {xml_lang: lang})
            ET.SubElement(tuv, "seg").text = text
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def sentences_csv(con: sqlite3.Connection, doc_a: str, doc_b: str) -> bytes:
    """The aligned sentences of two documents as CSV (gaps included), UTF-8 with a byte
    order mark so that spreadsheet programs read the Greek and Finnish letters right.
    ``in_memory`` says whether the bead is a unit of the TMX export (:func:`in_memory`);
    empty for two books of one language, which have no TMX (and whose beads' scores do
    not measure a translation)."""
    two_languages = _language(con, doc_a) != _language(con, doc_b)
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(
        ["source", "target", "n", "bead", "source_text", "target_text", "score", "relation"]
        + ["in_memory"]
    )
    for row in _pairs(con, doc_a, doc_b):
        kept = "yes" if in_memory(row[4], row[5], row[6], row[7]) else "no"
        w.writerow([*row, kept if two_languages else ""])
    return out.getvalue().encode("utf-8-sig")
