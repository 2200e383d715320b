"""Divergences between versions as the divergence stage stored them
(:mod:`ingest.align.diverge`)."""

from __future__ import annotations

import sqlite3
from collections import Counter

from lawgraph.ingest.align.checks import QUIET_TYPES, SEVERITIES, TYPE_FACTOR, TYPES
from lawgraph.ingest.align.diverge import FAMILIES, divergence_row, node_divergences
from lawgraph.ingest.labels import label_key
from lawgraph.ingest.store import doc_pair_clause, has_table

from .reviews import STATES, attach

__all__ = [
    "FAMILIES",
    "QUIET_TYPES",
    "SEVERITY_ORDER",
    "SORTS",
    "TYPES",
    "DivergenceError",
    "divergence_counts",
    "divergences",
    "node_divergences",
    "pair_report",
    "report_findings",
    "sort_findings",
]

#: Orders a divergence report can be sorted in.
SORTS = ("score", "label", "type", "severity", "weight")
SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}
ASCENDING_FIRST = ("label", "type")
"""Sorts a reader wants in their natural order first (laws 1, 2 … 93; types A-Z); the
others highest first."""


class DivergenceError(ValueError):
    """A divergence query names an unknown type or severity."""


def divergences(
    con: sqlite3.Connection,
    doc_a: str | None = None,
    doc_b: str | None = None,
    type: str | None = None,
    severity: str | None = None,
    limit: int | None = None,
    family: str | None = None,
) -> list[dict]:
    """Divergences between two documents (either order), highest pair score first.

    Each row has ``a``, ``b`` (one may be None: a provision with no counterpart),
    ``doc_a``/``doc_b`` in manifest order, ``label``, ``type``, ``severity``, ``weight``,
    ``evidence`` (keyed by document id), ``message``, the pair's ``score``, the stable
    ``id`` and the ``family`` (:data:`FAMILIES`).
    With one document only, every pair involving it; with none, every pair.

    Raises:
        DivergenceError: for an unknown type or severity.
    """
    if type is not None and type not in TYPE_FACTOR:
        raise DivergenceError(f"unknown divergence type {type!r} (choose from {', '.join(TYPES)})")
    if severity is not None and severity not in SEVERITIES:
        raise DivergenceError(
            f"unknown severity {severity!r} (choose from {', '.join(SEVERITIES)})"
        )
    if family is not None and family not in FAMILIES:
        raise DivergenceError(
            f"unknown divergence family {family!r} (choose from {', '.join(FAMILIES)})"
        )
    if not has_table(con, "divergences"):
        return []
    sql = (
        "SELECT d.*, s.score FROM divergences d LEFT JOIN divergence_scores s "
        "ON s.a IS d.a AND s.b IS d.b AND s.doc_a = d.doc_a AND s.doc_b = d.doc_b "
        "WHERE "
    )
    pair, args = doc_pair_clause(doc_a, doc_b, "d")
    sql += pair
    if type:
        sql += " AND d.type = ?"
        args.append(type)
    if severity:
        sql += " AND d.severity = ?"
        args.append(severity)
    if family:
        sql += " AND d.family = ?"
        args.append(family)
    sql += " ORDER BY s.score DESC, d.label, d.weight DESC, d.type"
    if limit:
        sql += f" LIMIT {int(limit)}"
    return [divergence_row(r) for r in con.execute(sql, args)]


def sort_findings(rows: list[dict], sort: str, desc: bool = True) -> list[dict]:
    """``rows`` sorted by one of :data:`SORTS` (``desc``: highest first)."""
    keys = {
        "score": lambda r: (r.get("score") or 0, r["weight"]),
        "label": lambda r: (label_key(r["label"]), r["type"]),
        "type": lambda r: (r["type"], label_key(r["label"])),
        "severity": lambda r: (
            -SEVERITY_ORDER.get(r["severity"], 3),
            r.get("score") or 0,
            r["weight"],
        ),
        "weight": lambda r: (r["weight"],),
    }
    return sorted(rows, key=keys[sort], reverse=desc)


def report_findings(
    con: sqlite3.Connection,
    doc_a: str | None,
    doc_b: str | None,
    *,
    type: str | None = None,
    severity: str | None = None,
    family: str | None = None,
    decided: dict[str, dict] | None = None,
    state: str | None = None,
    sort: str | None = None,
    desc: bool = True,
) -> tuple[list[dict], dict[str, int]]:
    """The findings a divergence report lists, with the same parameters everywhere it is
    read: the divergence page's table, its CSV download and its JSON twin.

    Args:
        con: the store.
        doc_a: one document (or None: every pair).
        doc_b: the other (or None).
        type: a divergence type, ``all`` for every type, or None/empty: every type but
            the checks that are right too rarely to be shown unless asked for
            (:data:`QUIET_TYPES`).
        severity: only this severity (None/empty: any).
        family: ``translation``, ``edition`` or ``national``; ``all`` for translation
            divergences and edition changes together (national additions are listed
            apart); None/empty: every family.
        decided: the review states (:func:`store.reviews.load`), attached to each row.
        state: only findings in this review state (None/empty: any).
        sort: one of :data:`SORTS` (None/empty: the store's order, highest pair score
            first).
        desc: with ``sort``, highest first.

    Returns:
        The rows (:func:`divergences`, with ``review_state`` and ``review_note``), and
        how many quiet findings of each type were left out.

    Raises:
        DivergenceError: an unknown type, severity, family, review state or sort.
    """
    if state and state not in STATES:
        raise DivergenceError(f"unknown review state {state!r} (choose from {', '.join(STATES)})")
    if sort and sort not in SORTS:
        raise DivergenceError(f"unknown sort {sort!r} (choose from {', '.join(SORTS)})")
    if family and family != "all" and family not in FAMILIES:
        raise DivergenceError(
            f"unknown divergence family {family!r} (choose from {', '.join(FAMILIES)}, all)"
        )
    rows = divergences(
        con,
        doc_a,
        doc_b,
        type=None if type in (None, "", "all") else type,
        severity=severity or None,
        family=None if family in (None, "", "all") else family,
    )
    if family == "all":
        rows = [r for r in rows if r["family"] != "national"]
    attach(rows, decided or {})
    if state:
        rows = [r for r in rows if r["review_state"] == state]
    hidden: Counter = Counter()
    if not type:
        hidden = Counter(r["type"] for r in rows if r["type"] in QUIET_TYPES)
        rows = [r for r in rows if r["type"] not in QUIET_TYPES]
    if sort:
        rows = sort_findings(rows, sort, desc)
    return rows, dict(sorted(hidden.items()))


def divergence_counts(con: sqlite3.Connection) -> dict[tuple[str, str], int]:
    """How many divergences involve each document's provisions of each law: those the
    report lists unless asked for more (no quiet finding, :data:`QUIET_TYPES`, and no
    national addition, which is no divergence of a translation).

    Returns ``{(law, doc): count}``: a divergence between ``fi-2007/12C1`` and
    ``sv-2007/12C1`` counts once for ``("12", "fi-2007")`` and once for
    ``("12", "sv-2007")``; a provision with no counterpart counts for its own document
    only. Laws are law numbers as strings (``"12"``, ``"SR3"``).
    """
    if not has_table(con, "divergences"):
        return {}
    marks = ",".join("?" * len(QUIET_TYPES))
    counted = f"family != 'national' AND type NOT IN ({marks})"
    rows = con.execute(
        "SELECT n.law, n.doc, count(*) FROM ("
        f" SELECT a AS id FROM divergences WHERE a IS NOT NULL AND {counted}"
        f" UNION ALL SELECT b FROM divergences WHERE b IS NOT NULL AND {counted}"
        ") x JOIN nodes n ON n.id = x.id GROUP BY n.law, n.doc",
        (*QUIET_TYPES, *QUIET_TYPES),
    )
    return {(law, doc): n for law, doc, n in rows if law}


def pair_report(con: sqlite3.Connection, doc_a: str, doc_b: str, top: int = 20) -> dict:
    """The document-pair summary: counts by type and severity, top pairs, provisions
    present in one document and absent in the other (tops of unmatched subtrees)."""
    out: dict = {
        "a": doc_a,
        "b": doc_b,
        "by_type": {},
        "by_severity": {},
        "by_family": {},
        "top": [],
        "only_in": {doc_a: [], doc_b: []},
    }
    if not has_table(con, "divergences"):
        return out
    pair, args = doc_pair_clause(doc_a, doc_b)
    for col, key in (("type", "by_type"), ("severity", "by_severity"), ("family", "by_family")):
        rows = con.execute(
            f"SELECT {col}, count(*) FROM divergences WHERE {pair} GROUP BY {col}", args
        )
        out[key] = dict(rows)
    rows = con.execute(
        f"SELECT * FROM divergence_scores WHERE {pair} ORDER BY score DESC, label LIMIT ?",
        (*args, top),
    )
    out["top"] = [{k: r[k] for k in r.keys()} for r in rows]  # noqa: SIM118
    if has_table(con, "divergence_gaps"):
        for doc, other in ((doc_a, doc_b), (doc_b, doc_a)):
            rows = con.execute(
                "SELECT g.node, g.label, g.kind, g.law, g.national, t.id FROM divergence_gaps g "
                "LEFT JOIN nodes t ON t.doc = g.other AND t.label = g.label "
                "WHERE g.doc = ? AND g.other = ?",
                (doc, other),
            )
            # ``twin``: the other book has a provision of the same label, which the
            # alignment did not confirm as the counterpart (rewritten, or rendered apart)
            out["only_in"][doc] = [
                {"id": r[0], "label": r[1], "kind": r[2], "law": r[3], "national": bool(r[4]),
                 "twin": r[5]}
                for r in rows
            ]  # fmt: skip
    return out
