"""Serve-time readers of the ``alignments`` table (pure, read-only, JSON-ready)."""

from __future__ import annotations

import json
import sqlite3

from ..store import doc_pair_clause, has_table
from .tmx import standing

METHODS = (
    "label",
    "content",
    "label+content",
    "title",
    "edition",
    "third-book",
    "candidate",
    "topic",
)
"""How a row was found: by label, by content, both, by title (a law a book gives only by
title), through the same edition's twin, confirmed through a third book (:mod:`.third`), as
the closest candidate, or for a topic."""


def _turned(evidence: dict) -> dict:
    """Evidence written from the row's ``a`` side, read from its ``b`` side."""
    ev = dict(evidence)
    if isinstance(ev.get("terms"), list):
        ev["terms"] = [[t[1], t[0], *t[2:]] for t in ev["terms"]]
    for key in ("numbers", "cited_laws"):
        if isinstance(ev.get(key), dict):
            d = dict(ev[key])
            d["only_a"], d["only_b"] = d.get("only_b", []), d.get("only_a", [])
            ev[key] = d
    if isinstance(ev.get("titles"), list):
        ev["titles"] = ev["titles"][::-1]
    if isinstance(ev.get("length"), dict):
        ev["length"] = {k: round(1 / v, 3) for k, v in ev["length"].items()}
    return ev


def _row(r: sqlite3.Row, node_id: str | None = None) -> dict:
    d = {
        k: r[k]
        for k in ("a", "b", "doc_a", "doc_b", "editions", "relation", "method", "score", "flagged")
    }
    d["flagged"] = bool(d["flagged"])
    d["evidence"] = json.loads(r["evidence"])
    if node_id is not None and r["b"] == node_id:
        d["evidence"] = _turned(d["evidence"])
    if node_id is not None:
        other = r["b"] if r["a"] == node_id else r["a"]
        if r["b"] == node_id and d["relation"] in ("split", "merged"):
            # seen from a part, the provision it shares with its siblings is a merger
            d["relation"] = "merged" if d["relation"] == "split" else "split"
        doc, _, label = other.partition("/")
        d.update(id=other, doc=doc, label=label)
    d["standing"] = standing(d["relation"], d["score"])
    return d


def _order(d: dict) -> tuple:
    return (d["flagged"], -d["score"], d["id"])


def aligned(con: sqlite3.Connection, node_id: str) -> list[dict]:
    """The node's counterparts in other documents, best first (flagged ones last).

    Each item: ``{"id","doc","label","method","score","flagged","relation","standing",
    "evidence"}`` (plus the raw row's ``a``/``b``/``doc_a``/``doc_b``), the evidence read
    from ``node_id``'s side; ``standing`` is the relation, or ``unconfirmed`` for a label
    twin not confirmed as the equivalent (:func:`.tmx.standing`). A ``none`` row (another
    provision's closest candidate) is listed only on that provision's side.
    """
    if not has_table(con, "alignments"):
        return []
    rows = con.execute(
        "SELECT * FROM alignments WHERE a = ? UNION ALL SELECT * FROM alignments WHERE b = ? "
        "AND relation != 'none'",
        (node_id, node_id),
    ).fetchall()  # a ``none`` row names a's closest candidate: it says nothing about b
    return sorted((_row(r, node_id) for r in rows), key=_order)


def alignments(
    con: sqlite3.Connection,
    doc_a: str | None = None,
    doc_b: str | None = None,
    method: str | None = None,
    flagged: bool | None = None,
    limit: int | None = None,
) -> list[dict]:
    """Alignment rows, optionally between two documents (either order), of one method,
    flagged or not; in document pair order, best score first."""
    if not has_table(con, "alignments"):
        return []
    pair, args = doc_pair_clause(doc_a, doc_b)
    sql = f"SELECT * FROM alignments WHERE {pair}"
    if method:
        sql += " AND method = ?"
        args.append(method)
    if flagged is not None:
        sql += " AND flagged = ?"
        args.append(int(flagged))
    sql += " ORDER BY doc_a, doc_b, score DESC, a, b"
    if limit:
        sql += " LIMIT ?"
        args.append(int(limit))
    return [_row(r) for r in con.execute(sql, args)]


EQUIVALENT = ("same", "renumbered", "moved")
"""Relations shown as "the equivalent"; ``split``/``merged`` rows are parts of one,
``partial`` a rewritten counterpart, ``none``/``not-equivalent`` rows are not equivalents."""


def equivalent(con: sqlite3.Connection, node_id: str, doc: str) -> str | None:
    """The equivalent of ``node_id`` in ``doc`` (same, renumbered or moved), or None when
    there is no reliable one."""
    for d in aligned(con, node_id):
        if d["doc"] == doc and not d["flagged"] and d["relation"] in EQUIVALENT:
            return d["id"]
    return None


def topic_candidates(con: sqlite3.Connection, topic_id: str, none: bool = False) -> list[dict]:
    """Candidate laws of an Estonian topic in every law book, best first, with the
    concepts behind them; with ``none``, the books where no law covers the topic
    (``relation`` ``none``, ``id``: the closest law, for the evidence) instead."""
    if not has_table(con, "alignments"):
        return []
    rows = con.execute(
        "SELECT * FROM alignments WHERE a = ? AND editions = 'topic' AND relation = ? "
        "ORDER BY doc_b, score DESC, b",
        (topic_id, "none" if none else "topic"),
    ).fetchall()
    return [_row(r, topic_id) for r in rows]


def law_topics(con: sqlite3.Connection, law_ids: list[str]) -> list[dict]:
    """Estonian topics whose candidate laws include one of ``law_ids``, best first, one
    entry per topic: ``{"id", "title", "context", "law", "score", "rank", "why"}``
    (``context``: the title of the topic it stands under, when other topics share its
    title; else None)."""
    if not law_ids or not has_table(con, "alignments"):
        return []
    marks = ",".join("?" * len(law_ids))
    rows = con.execute(
        f"SELECT a.a, a.b, a.score, a.evidence, n.title, "
        f"(SELECT count(*) FROM nodes t WHERE t.doc = n.doc AND t.kind = n.kind "
        f"AND t.title = n.title), p.title FROM alignments a "
        f"LEFT JOIN nodes n ON n.id = a.a LEFT JOIN nodes p ON p.id = n.parent "
        f"WHERE a.editions = 'topic' AND a.flagged = 0 "
        f"AND a.b IN ({marks}) ORDER BY a.score DESC, a.a",
        law_ids,
    ).fetchall()
    out, seen = [], set()
    for topic, law, score, evidence, title, namesakes, parent in rows:
        if topic in seen:
            continue
        seen.add(topic)
        ev = json.loads(evidence)
        out.append(
            {
                "id": topic,
                "title": title,
                # a title several topics share ("Passimine"): the topic it stands under
                "context": parent if (namesakes or 0) > 1 else None,
                "law": law,
                "score": score,
                "rank": ev.get("rank"),
                "why": ev.get("why", ""),
            }
        )
    return out


def lexicon_pairs(con: sqlite3.Connection) -> list[dict]:
    """The language pairs of the learned lexicon, each with its number of word pairs."""
    rows = con.execute(
        "SELECT lang_a, lang_b, COUNT(*) FROM lexicon GROUP BY lang_a, lang_b ORDER BY 1, 2"
    ).fetchall()
    return [{"lang_a": a, "lang_b": b, "entries": n} for a, b, n in rows]


def lexicon_lookup(
    con: sqlite3.Connection,
    word: str,
    lang: str | None = None,
    to: str | None = None,
    top: int = 5,
) -> list[dict]:
    """Learned translations of ``word`` (any inflection the corpus has) into the other
    languages, most probable first.

    The word is folded and read as a lemma of the lexicon, as the form the lexicon shows
    for a lemma, or, through the search index's ``lemma_forms``, as the lemma of a form the
    books use (``revokin`` -> ``revokki``), so no lemmatiser is loaded. Each item:
    ``{"lang", "word", "word_shown", "to", "translation", "surface", "shown", "p",
    "p_back"}`` where ``p`` = t(translation | word), ``p_back`` = t(word | translation),
    ``surface`` is the translation's most frequent form in the books, folded, ``shown`` the
    same as the books write it and ``word_shown`` the word's own (``word`` and
    ``translation`` are the lexicon's keys: lemmas, or stems of words the dictionary
    lacks).
    """
    from ..nlp import fold

    if not has_table(con, "lexicon"):
        return []
    folded = fold(word.strip())
    keys: set[tuple[str, str]] = set()
    if has_table(con, "lemma_forms"):
        keys = {
            (r[0], r[1])
            for r in con.execute("SELECT lang, lemma FROM lemma_forms WHERE surface = ?", (folded,))
        }
    for side in ("a", "b"):
        keys |= {
            (r[0], r[1])
            for r in con.execute(
                f"SELECT DISTINCT lang_{side}, word_{side} FROM lexicon "
                f"WHERE word_{side} = ? OR surface_{side} = ?",
                (folded, folded),
            )
        }
    found: dict[tuple, dict] = {}
    for lg, lemma in sorted(keys):
        if lang and lg != lang:
            continue
        for side, other, p, back in (("a", "b", "p_ab", "p_ba"), ("b", "a", "p_ba", "p_ab")):
            rows = con.execute(
                f"SELECT lang_{other}, word_{other}, surface_{other}, {p}, {back}, "
                f"shown_{side}, shown_{other} FROM lexicon "
                f"WHERE lang_{side} = ? AND word_{side} = ? AND lang_{other} != lang_{side} "
                f"AND {p} >= 0.05",
                (lg, lemma),
            ).fetchall()
            for to_lang, trans, surface, pf, pb, word_shown, shown in rows:
                if to and to_lang != to:
                    continue
                key = (lg, lemma, to_lang, trans)
                if key not in found or found[key]["p"] < pf:
                    found[key] = {
                        "lang": lg,
                        "word": lemma,
                        "word_shown": word_shown,
                        "to": to_lang,
                        "translation": trans,
                        "surface": surface,
                        "shown": shown,
                        "p": round(pf, 3),
                        "p_back": round(pb, 3),
                    }
    per: dict[tuple, int] = {}
    result = []
    for item in sorted(found.values(), key=lambda x: (x["lang"], x["word"], x["to"], -x["p"])):
        k = (item["lang"], item["word"], item["to"])
        per[k] = per.get(k, 0) + 1
        if per[k] <= top:
            result.append(item)
    return result
