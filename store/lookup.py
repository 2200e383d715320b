"""Turn what a user typed (``sv-2007/16 B 1``, ``el-2017 Νόμος 20ΣΤ5``) into a node id."""

from __future__ import annotations

import re
import sqlite3

from lawgraph.ingest.labels import normalise_label

from . import document, documents, node
from .title_only import title_only

_SPECIAL = ("def/", "fn/", "index/", "topic/", "preface/", "chapter/")


class LookupError_(Exception):
    """The text names no document or no node."""


class MalformedId(LookupError_):
    """The text is not written as a node id (``DOC/LABEL``) at all."""


def resolve_id(con: sqlite3.Connection, text: str) -> str:
    """Return the id of the node ``text`` names.

    Raises:
        LookupError_: with a message that says what is missing.
    """
    text = text.strip()
    m = re.match(r"^([a-z]{2}-\d{4}s?)(?:[/\s]+(.*))?$", text)
    if not m:
        head = re.split(r"[/\s]", text, maxsplit=1)[0]
        if "/" in text and head and document(con, head) is None:
            known = ", ".join(d["id"] for d in documents(con))
            raise LookupError_(f"unknown document {head!r} in {text!r} (known: {known})")
        raise MalformedId(f"not a node id: {text!r} (expected DOC/LABEL, e.g. sv-2007/16B1)")
    doc, rest = m.group(1), (m.group(2) or "").strip()
    if document(con, doc) is None:
        known = ", ".join(d["id"] for d in documents(con))
        raise LookupError_(f"unknown document {doc!r} (known: {known})")
    if not rest:
        raise MalformedId(f"{text!r} names a document; give a label too, e.g. {doc}/16")
    if rest.startswith(_SPECIAL) or node(con, f"{doc}/{rest}"):
        label = rest
    else:
        try:
            label = normalise_label(rest)
        except ValueError as exc:
            raise MalformedId(str(exc)) from exc
    node_id = f"{doc}/{label}"
    if node(con, node_id) is None:
        raise LookupError_(missing_message(con, doc, label))
    return node_id


def missing_message(con: sqlite3.Connection, doc: str, label: str) -> str:
    """Why ``doc`` has no node ``label``, in words: a law the book gives only by its title
    (fi-2007's Laws 19-93) is named, with where the text is in the same edition."""
    found = title_only(con, doc, label)
    if found is None:
        return f"{doc} has no provision {label}"
    law = found["law"]
    out = (
        f"{doc} has no provision {label}: the book gives only the title of Law "
        f"{law['label']} ({law['title']})"
    )
    if law["missing"]:
        out += f"; {law['missing']}"
    if found["equivalents"]:
        out += "; its text in the same edition: " + ", ".join(e["id"] for e in found["equivalents"])
    else:
        out += f"; no translation of the same edition has a provision {label} either"
    return out


def query_node_id(con: sqlite3.Connection, name: str, text: str) -> str:
    """:func:`resolve_id` of a query parameter ``name``: an HTTP 400 naming it if the text
    is not written as a node id, a 404 if it names no provision."""
    from fastapi import HTTPException

    try:
        return resolve_id(con, text)
    except MalformedId as exc:
        raise HTTPException(400, f"{name}: {exc}") from exc
    except LookupError_ as exc:
        raise HTTPException(404, f"{name}: {exc}") from exc


def node_id_or_404(con: sqlite3.Connection, text: str) -> str:
    """:func:`resolve_id` for routes: a text that names no node is an HTTP 404."""
    from fastapi import HTTPException

    try:
        return resolve_id(con, text)
    except LookupError_ as exc:
        raise HTTPException(404, str(exc)) from exc
