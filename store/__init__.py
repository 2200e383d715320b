"""The store-reading layer: what graph, api, web and the CLI read from the store.

Ingest writes the store (:mod:`ingest.store` owns its schema and file handling); every
reader of a served store goes through this package: the rows of documents, nodes and
citations here, and the corpus-wide features in their modules (:mod:`store.align`,
:mod:`store.divergences`, :mod:`store.glossary`, :mod:`store.search`,
:mod:`store.compare`), with id lookup (:mod:`store.lookup`), the coverage matrix, the
review states kept beside the store and the served snapshots.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from lawgraph.ingest.model import Citation, Node, ParseWarning, decode_attrs
from lawgraph.ingest.store import (
    DEFAULT_DB,
    SCHEMA_VERSION,
    StoreError,
    content_hash,
    derived,
    has_table,
    meta,
    open_store,
    resolve_db,
    stage_stats,
    verify_store,
)

__all__ = [
    "DEFAULT_DB",
    "SCHEMA_VERSION",
    "StoreError",
    "children",
    "citations",
    "content_hash",
    "derived",
    "document",
    "documents",
    "has_table",
    "meta",
    "node",
    "nodes",
    "open_store",
    "resolve_db",
    "stage_stats",
    "verify_store",
    "warnings",
]


def _node(row: sqlite3.Row) -> Node:
    return Node(
        id=row["id"],
        doc=row["doc"],
        label=row["label"],
        kind=row["kind"],
        law=row["law"],
        title=row["title"],
        text=row["text"],
        parent=row["parent"],
        order=row["ord"],
        start=row["start"],
        end=row["end"],
        line=row["line"],
        attrs=decode_attrs(row["attrs"]),
    )


def _document_rows(con: sqlite3.Connection) -> tuple[tuple[tuple[tuple[str, Any], ...], str], ...]:
    rows = con.execute("SELECT * FROM documents ORDER BY ord").fetchall()
    return tuple(
        (tuple((k, r[k]) for k in r.keys() if k not in ("ord", "stats")), r["stats"])  # noqa: SIM118
        for r in rows
    )


def documents(con: sqlite3.Connection) -> list[dict]:
    """Return every document as a dict (with its ingest ``stats``), in manifest order."""
    rows = derived(con, "documents", _document_rows)
    return [dict(fields, stats=json.loads(stats)) for fields, stats in rows]


def document(con: sqlite3.Connection, doc_id: str) -> dict | None:
    """Return one document, or None."""
    return next((d for d in documents(con) if d["id"] == doc_id), None)


def node(con: sqlite3.Connection, node_id: str) -> Node | None:
    """Return one node by id, or None."""
    row = con.execute("SELECT * FROM nodes WHERE id = ?", (node_id,)).fetchone()
    return _node(row) if row else None


def children(con: sqlite3.Connection, node_id: str) -> list[Node]:
    """Return the direct children of a node in document order."""
    rows = con.execute("SELECT * FROM nodes WHERE parent = ? ORDER BY ord", (node_id,))
    return [_node(r) for r in rows]


def nodes(
    con: sqlite3.Connection, doc_id: str | None = None, kind: str | None = None
) -> list[Node]:
    """Return nodes, optionally of one document and/or one kind, in document order."""
    sql, args = "SELECT * FROM nodes WHERE 1=1", []
    if doc_id:
        sql += " AND doc = ?"
        args.append(doc_id)
    if kind:
        sql += " AND kind = ?"
        args.append(kind)
    rows = con.execute(sql + " ORDER BY doc, ord", args)
    return [_node(r) for r in rows]


def warnings(con: sqlite3.Connection, doc_id: str | None = None) -> list[ParseWarning]:
    """Return the ingestion warnings, optionally for one document."""
    sql = "SELECT doc, line, message FROM warnings"
    rows = con.execute(sql + " WHERE doc = ?", (doc_id,)) if doc_id else con.execute(sql)
    return [ParseWarning(*r) for r in rows]


def _citation(row: sqlite3.Row) -> Citation:
    return Citation(
        source=row["source"],
        raw=row["raw"],
        ref=row["ref"],
        kind=row["kind"],
        relative=bool(row["relative"]),
        start=row["start"],
        end=row["end"],
        target=row["target"],
        reason=row["reason"],
        field=row["field"],
    )


def citations(
    con: sqlite3.Connection, source: str | None = None, target: str | None = None
) -> list[Citation]:
    """Return citations, optionally from one source node or to one target node."""
    sql, args = "SELECT * FROM citations WHERE 1=1", []
    if source:
        sql += " AND source = ?"
        args.append(source)
    if target:
        sql += " AND target = ?"
        args.append(target)
    return [_citation(r) for r in con.execute(sql + " ORDER BY rowid", args)]
