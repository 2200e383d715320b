"""Both passages of a divergence finding, side by side and sentence-aligned, with the
tokens the finding is about marked (the numbers, the citations, the modal words, the
words that carry a concept, a sentence with no counterpart)."""

from __future__ import annotations

import re
import sqlite3

from markupsafe import Markup, escape

from lawgraph.ingest.align.checks import NUMBER_WORDS
from lawgraph.ingest.nlp import fold
from lawgraph.store.align import sentence_pairs

_WORD = re.compile(r"\w+", re.UNICODE)


def _text(con: sqlite3.Connection, node: str | None) -> str:
    """The provision's own text, or, when it has none (a section made of items), the
    texts of its sub-provisions in order."""
    if not node:
        return ""
    row = con.execute("SELECT text FROM nodes WHERE id = ?", (node,)).fetchone()
    if row and row[0]:
        return row[0]
    rows = con.execute(
        "WITH RECURSIVE below(id) AS (SELECT id FROM nodes WHERE parent = ? "
        "UNION ALL SELECT n.id FROM nodes n JOIN below ON n.parent = below.id) "
        "SELECT n.text FROM nodes n JOIN below ON n.id = below.id ORDER BY n.ord",
        (node,),
    ).fetchall()
    return " ".join(r[0] for r in rows if r[0])


def _language(con: sqlite3.Connection, doc: str) -> str:
    row = con.execute("SELECT language FROM documents WHERE id = ?", (doc,)).fetchone()
    return row[0] if row else ""


def _spans(con, finding: dict, doc: str, node: str | None, lang: str, text: str) -> list:
    """Character spans of ``text`` to mark for this side of the finding."""
    ev = finding.get("evidence") or {}
    mine = ev.get(doc) or []
    kind = finding["type"]
    out: list[tuple[int, int]] = []
    if kind == "numbers":
        spelled = NUMBER_WORDS.get(lang, {})
        for value in mine:
            digits = re.escape(str(value).rstrip("%"))
            out += [m.span() for m in re.finditer(rf"(?<![\w.,]){digits}(?![\w])", text)]
            word = spelled.get(int(value)) if str(value).isdigit() else None
            if word:
                out += [
                    m.span() for m in _WORD.finditer(text) if re.fullmatch(word, fold(m.group()))
                ]
    elif kind == "cited-targets":
        for item in mine:
            raw = item.get("raw") if isinstance(item, dict) else None
            if raw:
                out += [m.span() for m in re.finditer(re.escape(raw), text)]
    elif kind == "sentence":
        for sentence in mine:
            i = text.find(sentence)
            if i >= 0:
                out.append((i, i + len(sentence)))
    elif kind in ("modal", "contrast", "qualifier"):
        folded = fold(text)
        said = (ev.get("words") or {}).get(doc) or []
        if len(folded) == len(text) and text in mine:  # only the finding's own sentence
            for w in said:
                rx = rf"(?<!\w){re.escape(fold(w))}(?![\w-])"
                out += [m.span() for m in re.finditer(rx, folded)]
    elif kind == "concept-missing" and node:
        concepts = [k for k in mine if isinstance(k, str)]
        rows = con.execute(
            "SELECT DISTINCT concept, surface FROM concept_hits WHERE node = ?", (node,)
        ).fetchall()
        for concept, surface in rows:
            if concept not in concepts:
                continue
            out += [m.span() for m in re.finditer(re.escape(surface), text)]
    return out


def _marked(text: str, spans: list[tuple[int, int]]) -> Markup:
    """``text`` escaped, with every span in ``<mark>``."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    parts, at = [], 0
    for start, end in merged:
        parts.append(escape(text[at:start]))
        parts.append(Markup("<mark>") + escape(text[start:end]) + Markup("</mark>"))
        at = end
    parts.append(escape(text[at:]))
    return Markup("").join(parts)


def passages(con: sqlite3.Connection, finding: dict) -> dict:
    """``{"docs": (doc_a, doc_b), "langs": (...), "rows": [(html_a, html_b, bead)]}``: the
    aligned sentences of the pair when the alignment stored them, else the two texts."""
    a, b = finding.get("a"), finding.get("b")
    da, db = finding["doc_a"], finding["doc_b"]
    la, lb = _language(con, da), _language(con, db)
    text_a, text_b = _text(con, a), _text(con, b)
    beads = sentence_pairs(con, a, b) if a and b else []
    pieces = [(s["a"], s["b"], s["bead"]) for s in beads] or [(text_a, text_b, "")]
    rows = []
    for xa, xb, bead in pieces:
        rows.append(
            (
                _marked(xa, _spans(con, finding, da, a, la, xa)) if xa else Markup(""),
                _marked(xb, _spans(con, finding, db, b, lb, xb)) if xb else Markup(""),
                bead,
            )
        )
    return {"docs": (da, db), "langs": (la, lb), "rows": rows}
