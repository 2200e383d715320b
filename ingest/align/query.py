"""Serve-time readers of the ``alignments`` table (pure, read-only, JSON-ready)."""

from __future__ import annotations

import json
import sqlite3

from ..store import doc_pair_clause, has_table


def _row(r: sqlite3.Row, node_id: str | None = None) -> dict:
    d = {k: r[k] for k in ("a", "b", "doc_a", "doc_b", "editions", "relation", "method",
                           "score", "flagged")}  # fmt: skip
    d["flagged"] = bool(d["flagged"])
    d["evidence"] = json.loads(r["evidence"])
    if node_id is not None:
        other = r["b"] if r["a"] == node_id else r["a"]
        doc, _, label = other.partition("/")
        d.update(id=other, doc=doc, label=label)
    return d


def _order(d: dict) -> tuple:
    return (d["flagged"], -d["score"], d["id"])


def aligned(con: sqlite3.Connection, node_id: str) -> list[dict]:
    """The node's counterparts in other documents, best first (flagged ones last).

    Each item: ``{"id","doc","label","method","score","flagged","relation",
    "evidence"}`` (plus the raw row's ``a``/``b``/``doc_a``/``doc_b``).
    """
    if not has_table(con, "alignments"):
        return []
    rows = con.execute(
        "SELECT * FROM alignments WHERE a = ? UNION ALL SELECT * FROM alignments WHERE b = ?",
        (node_id, node_id),
    ).fetchall()
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


def topic_candidates(con: sqlite3.Connection, topic_id: str) -> list[dict]:
    """Candidate laws of an Estonian topic, best first, with the concepts behind them."""
    if not has_table(con, "alignments"):
        return []
    rows = con.execute(
        "SELECT * FROM alignments WHERE a = ? AND relation = 'topic' ORDER BY score DESC, b",
        (topic_id,),
    ).fetchall()
    return [_row(r, topic_id) for r in rows]
