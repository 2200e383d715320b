"""Laws a book gives only by their title, and the provisions under them.

fi-2007's text stops inside Law 18: Laws 19-93 are in the store as law nodes with their
title from the table of contents, ``attrs["has_text"] = False`` and ``attrs["missing"]``
(why), and no provisions under them. A reader who asks for such a law, or for one of its
provisions (``fi-2007/40B1``, a reference ``ks. 65B3`` in the book's own text), is told
that the book gives only the law's title and is pointed to the provision in the other
translations of the same edition (sv-2007): the alignment makes the title-only law the
twin of the same law there (``fi-2007/40`` is ``sv-2007/40``), so a provision under it is
the provision of the same label under that twin.
"""

from __future__ import annotations

import sqlite3

from lawgraph.ingest.store import has_table, title_only_law_id

from . import align, document, documents, node

__all__ = ["title_only", "title_only_law"]


def title_only_law(con: sqlite3.Connection, doc_id: str, label: str) -> dict | None:
    """The law of ``doc_id`` that ``label`` is or falls under, if the book gives it only
    by its title: ``{"id", "label", "title", "missing"}``; None otherwise.

    The law is the nearest ancestor label (``40B1`` -> ``40B`` -> ``40``) that is a node of
    the document; a label under a law with text (or under no law) gives None.
    """
    law_id = title_only_law_id(con, doc_id, label)
    found = node(con, law_id) if law_id else None
    if found is None:
        return None
    return {
        "id": found.id,
        "label": found.label,
        "title": found.title,
        "missing": found.attrs.get("missing", ""),
    }


def title_only(con: sqlite3.Connection, doc_id: str, label: str) -> dict | None:
    """What to show for ``label`` in ``doc_id`` when the book gives only its law's title.

    Args:
        con: the store.
        doc_id: a document id (an unknown one gives None).
        label: a canonical label: the title-only law itself or a provision under it,
            whether or not the store has a node for it.

    Returns:
        None when ``label`` is not (under) a law the book gives only by its title; else
        ``{"doc", "language", "label", "law": {...}, "equivalents": [...]}``, where ``law``
        is :func:`title_only_law`'s and ``equivalents`` lists, per other document of the
        same edition (manifest order), the provision that carries the text there:
        ``{"id", "doc", "language", "label", "kind", "title", "text", "law"}`` (``law``:
        that document's equivalent of the whole law). A provision the twin law lacks is
        left out, so an empty list means that no translation of the edition has it.
    """
    doc = document(con, doc_id)
    if doc is None:
        return None
    law = title_only_law(con, doc_id, label)
    if law is None:
        return None
    rest = label[len(law["label"]) :]
    out = []
    for other in documents(con):
        if other["id"] == doc_id or other["edition"] != doc["edition"]:
            continue
        if has_table(con, "alignments"):
            twin = align.equivalent(con, law["id"], other["id"])
        else:  # within one edition the law number is the identity
            twin = f"{other['id']}/{law['label']}"
        if twin is None:
            continue
        twin_label = twin.split("/", 1)[1]
        there = node(con, f"{other['id']}/{twin_label}{rest}")
        if there is None:
            continue
        out.append(
            {
                "id": there.id,
                "doc": there.doc,
                "language": other["language"],
                "label": there.label,
                "kind": there.kind,
                "title": there.title,
                "text": there.text,
                "law": twin,
            }
        )
    return {
        "doc": doc_id,
        "language": doc["language"],
        "label": label,
        "law": law,
        "equivalents": out,
    }
