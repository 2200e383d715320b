"""A provision's citation lists: what it cites and what cites it.

The provision page and its JSON twin (``/api/nodes/{id}``) show the same lists, made
here from the ``citations`` table. A provision's own sub-provisions count as the
provision (Law 16 cites what 16B1(a) cites), and references between two parts of the
same provision are left out of both lists: the text links them where they stand.
References the citation stage could not resolve are kept with their reason and listed
apart, in words.
"""

from __future__ import annotations

import sqlite3

from .title_only import title_only

__all__ = ["UNRESOLVED_WORDS", "cited_by", "cites", "subtree_ids", "subtree_rows", "unresolved"]

#: What each unresolved reason (:func:`ingest.cite.resolve.resolve_span`) means, in words.
UNRESOLVED_WORDS = {
    "damaged-label": "the label is damaged in the scanned text, so it is not guessed",
    "relative-outside-law": "a reference to a part of the same law, written outside any law",
    "not-in-book": "this book has no such provision",
    "no-text": "this book gives only the title of that law",
}

_SUBTREE = """
WITH RECURSIVE sub(id, depth) AS (
  SELECT id, 0 FROM nodes WHERE id = ?
  UNION ALL SELECT n.id, sub.depth + 1 FROM nodes n JOIN sub ON n.parent = sub.id
)
SELECT n.*, sub.depth FROM nodes n JOIN sub ON n.id = sub.id ORDER BY n.ord
"""


def subtree_rows(con: sqlite3.Connection, node_id: str) -> list[sqlite3.Row]:
    """The node's row and the rows of everything under it, in document order, each with
    its ``depth`` below the node."""
    return con.execute(_SUBTREE, (node_id,)).fetchall()


def subtree_ids(con: sqlite3.Connection, node_id: str) -> list[str]:
    """The node's id and the ids of everything under it, in document order."""
    return [r["id"] for r in subtree_rows(con, node_id)]


def _marks(ids: list[str]) -> str:
    return ",".join("?" * len(ids))


def cites(con: sqlite3.Connection, node_id: str, inside: list[str]) -> list[dict]:
    """Provisions outside the node that it or one of its sub-provisions cites.

    Args:
        con: the store.
        node_id: the provision.
        inside: ids of the provision's subtree (:func:`subtree_ids`; targets inside it
            are not listed).

    Returns:
        One entry per cited provision, in the order the text first cites it: ``id``,
        ``doc``, ``label``, ``kind``, ``title`` and ``refs``, each reference as
        ``{"raw", "source", "ref", "nearest"}`` (``source``: the sub-provision whose text
        has it; ``ref``: the label it names; ``nearest``: resolved to the closest
        provision that exists, not to ``ref`` itself).
    """
    inner = set(inside)
    out: dict[str, dict] = {}
    rows = con.execute(
        f"SELECT c.source, c.target, c.raw, c.ref, c.reason, t.doc, t.label, t.kind, t.title "
        f"FROM citations c JOIN nodes s ON s.id = c.source JOIN nodes t ON t.id = c.target "
        f"WHERE c.source IN ({_marks(inside)}) ORDER BY s.ord, c.field DESC, c.start",
        inside,
    )
    for r in rows:
        if r["target"] in inner:
            continue
        entry = out.setdefault(r["target"], _entry(r["target"], r))
        entry["refs"].append(
            {
                "raw": r["raw"],
                "source": r["source"],
                "ref": r["ref"],
                "nearest": r["reason"] == "nearest-ancestor",
            }
        )
    return list(out.values())


def _entry(node_id: str, r: sqlite3.Row) -> dict:
    """A provision of a list, before its references are added."""
    keys = ("doc", "label", "kind", "title")
    return {"id": node_id, **{k: r[k] for k in keys}, "refs": []}


def unresolved(con: sqlite3.Connection, inside: list[str]) -> list[dict]:
    """References in the provision's text (or its sub-provisions') that name no provision
    of the store, in text order.

    Each: ``{"raw", "source", "ref", "reason", "why", "law", "equivalents"}``: ``why`` is
    the reason in words (:data:`UNRESOLVED_WORDS`); for a law the book gives only by
    its title (``no-text``), ``law`` is that law's id and ``equivalents`` the ids of the
    provision in the other translations of the same edition (:func:`title_only`), else
    None and an empty list.
    """
    rows = con.execute(
        f"SELECT c.source, c.raw, c.ref, c.reason, s.doc FROM citations c "
        f"JOIN nodes s ON s.id = c.source "
        f"WHERE c.source IN ({_marks(inside)}) AND c.target IS NULL "
        f"ORDER BY s.ord, c.field DESC, c.start",
        inside,
    )
    out = []
    for r in rows:
        missing = title_only(con, r["doc"], r["ref"]) if r["reason"] == "no-text" else None
        out.append(
            {
                "raw": r["raw"],
                "source": r["source"],
                "ref": r["ref"],
                "reason": r["reason"],
                "why": UNRESOLVED_WORDS.get(r["reason"], r["reason"]),
                "law": missing["law"]["id"] if missing else None,
                "equivalents": [e["id"] for e in missing["equivalents"]] if missing else [],
            }
        )
    return out


def cited_by(con: sqlite3.Connection, node_id: str, inside: list[str]) -> list[dict]:
    """Provisions outside the node that cite it or one of its sub-provisions.

    Args:
        con: the store.
        node_id: the provision.
        inside: ids of the provision's subtree (citations from inside are not listed).

    Returns:
        One entry per citing provision (document order): ``id``, ``doc``, ``label``,
        ``kind``, ``title`` and ``refs`` (the raw texts and which node they point at).
    """
    inner = set(inside)
    out: dict[str, dict] = {}
    rows = con.execute(
        f"SELECT c.source, c.target, c.raw, n.doc, n.label, n.kind, n.title, n.ord "
        f"FROM citations c JOIN nodes n ON n.id = c.source "
        f"WHERE c.target IN ({_marks(inside)}) ORDER BY n.ord",
        inside,
    )
    for r in rows:
        if r["source"] in inner:
            continue
        entry = out.setdefault(r["source"], _entry(r["source"], r))
        entry["refs"].append({"raw": r["raw"], "target": r["target"]})
    return list(out.values())
