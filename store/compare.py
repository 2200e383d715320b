"""The compare view of a provision: every version side by side (:mod:`ingest.compare`).

The comparison of a law in every document is read from the table ingest made; another
selection of documents, or a provision below a law, is lined up on request.
"""

from __future__ import annotations

import json
import sqlite3

from lawgraph.ingest.compare import (
    PROVISION_KINDS,
    TABLE,
    CompareError,
    ProvisionNotFound,
    compare_label,
)
from lawgraph.ingest.labels import normalise_label
from lawgraph.ingest.store import has_table

__all__ = ["PROVISION_KINDS", "CompareError", "ProvisionNotFound", "compare", "precomputed"]


def compare(con: sqlite3.Connection, label: str, docs: list[str] | None = None) -> dict:
    """Every version of a provision, its sub-provisions lined up, divergences attached.

    Args:
        con: read-only store connection.
        label: a provision label in any typed form (``16 B 1``, ``lag 16B1``, ``20ΣΤ5``).
        docs: documents to show, in this order (default: every document with a version).

    Returns:
        ``{"label", "query", "reference", "docs", "versions": {doc: cell | None-like},
        "rows": [{"key", "depth", "cells": {doc: cell | None}, "gaps", "divergences",
        "sentences"}], "divergences", "scores", "topics", "sentences"}`` (a row of one
        book under a label the lead book uses for another rule has the key
        ``<label>-<doc>`` and ``"shown": "<label> (<doc>)"``); ``reference`` is the
        version the others are read against (the newest edition's); ``sentences`` pairs
        the reference version (or the row's cell of its book) with each other one,
        sentence by sentence. A cell is
        ``{"id","doc","label","kind","title","text","attrs"}``; a version found through the
        content alignment has ``via``; a cell that its row's reference (the reference's
        book's cell, else the newest edition's) does not have as its equivalent has
        ``standing``: ``{"to", "label", "relation": "partial" | "unconfirmed"}`` (a label
        twin rewritten, or not confirmed), with ``through`` (the cell it was lined up
        through) when the two have no alignment of their own.

    Raises:
        CompareError: the text is not a label, or a document is unknown.
        ProvisionNotFound: no (requested) document has the provision.
    """
    try:
        canon = normalise_label(label)
    except ValueError as exc:
        raise CompareError(str(exc)) from exc
    if not docs:
        kept = precomputed(con, canon)
        if kept is not None:
            return {**kept, "query": label}
    return compare_label(con, canon, label, docs)


def precomputed(con: sqlite3.Connection, canon: str) -> dict | None:
    """The comparison of a law in every document as ingest stored it (None if not stored)."""
    if not has_table(con, TABLE):
        return None
    row = con.execute(f"SELECT result FROM {TABLE} WHERE label = ?", (canon,)).fetchone()
    return json.loads(row[0]) if row else None
