"""HTML pages; each has a JSON twin under /api.

Core pages live here (home, document, provision, go-to-provision); the graph, search,
compare, divergence and glossary pages have their own modules, mounted on this router.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from lawgraph import store
from lawgraph.ingest.labels import normalise_label
from lawgraph.store.align import equivalent
from lawgraph.store.compare import PROVISION_KINDS
from lawgraph.store.coverage import coverage
from lawgraph.store.deps import Con, on_loop
from lawgraph.store.lookup import LookupError_, resolve_id
from lawgraph.store.title_only import title_only

from . import compare_pages, feature_pages, graph_pages
from .provision import provision_view
from .templating import (
    LANG_NAMES,
    LAW_KINDS,
    STATIC,
    TEMPLATES,
    book_label,
    node_url,
    query_url,
    render,
)

__all__ = ["LANG_NAMES", "STATIC", "TEMPLATES", "router"]

router = APIRouter(tags=["pages"], include_in_schema=False)
Text = Annotated[str, Query(max_length=200)]

#: What a typed label says about the language of the book the user reads.
LANGUAGE_HINTS = {
    "el": re.compile(r"[\u0370-\u03ff]"),
    "sv": re.compile(r"^\s*lag\b", re.IGNORECASE),
    "fi": re.compile(r"^\s*laki\b|\bpykälä", re.IGNORECASE),
}
_DOC_PREFIX = re.compile(r"^\s*[a-z]{2}-\d{4}s?(?:[/\s]|$)")
_SPECIAL = ("def/", "fn/", "index/", "topic/", "preface/", "chapter/")


@router.get("/", response_class=HTMLResponse)
def home(request: Request, con: Con) -> Response:
    """The corpus at a glance (twins: /api/documents and /api/coverage)."""
    return render(
        request,
        "home.html",
        {
            "docs": store.documents(con),
            "matrix": coverage(con),
            "title": "lawgraph",
            "twin": "/api/coverage",
        },
    )


@router.get("/doc/{doc_id}", response_class=HTMLResponse)
@on_loop
def document_page(request: Request, doc_id: str, con: Con) -> Response:
    """A document's table of contents (twin: /api/documents/{doc}/laws)."""
    doc = store.document(con, doc_id)
    if doc is None:
        raise HTTPException(404, f"unknown document {doc_id!r}")
    tops = [
        n
        for n in store.nodes(con, doc_id)
        if n.kind in ("law", "preface", "topic", "definition", "chapter")
    ]
    return render(
        request,
        "document.html",
        {
            "doc": doc,
            "nodes": tops,
            "title": f"{doc['title']} ({doc['id']})",
            "twin": f"/api/documents/{doc_id}/laws",
        },
    )


@router.get("/doc/{doc_id}/{label:path}", response_class=HTMLResponse)
@on_loop
def node_page(request: Request, doc_id: str, label: str, con: Con, came: Text = "") -> Response:
    """One provision with its children, citations and equivalents (twin: /api/nodes/…);
    ``came``: the provision of another book the user typed the label of (:func:`go`)."""
    if label.endswith("/") or not label:  # /doc/sv-2007/16B1/, /doc/sv-2007/
        where = node_url(f"{doc_id}/{label.strip('/')}").rstrip("/")
        return RedirectResponse(query_url(where, came=came) if came else where, status_code=301)
    try:
        nid = resolve_id(con, f"{doc_id}/{label}")
    except LookupError_ as exc:
        page = _title_only_page(request, con, doc_id, label)
        if page is None:
            raise HTTPException(404, str(exc)) from exc
        return page
    if nid != f"{doc_id}/{label}":
        where = query_url(node_url(nid), came=came) if came else node_url(nid)
        return RedirectResponse(where, status_code=301)
    view = provision_view(con, nid)
    view["came"] = _came(con, came, nid)
    n = view["n"]
    doc = store.document(con, doc_id)
    lawlike = n["kind"] in LAW_KINDS
    name = n["label"] if lawlike else "" if n["title"] else book_label(nid, n["label"])
    title = " ".join(x for x in (doc_id, name, n["title"]) if x) or nid
    return render(
        request, "node.html", view | {"doc": doc, "title": title, "twin": f"/api/nodes/{nid}"}
    )


def _came(con: sqlite3.Connection, came: str, nid: str) -> dict | None:
    """What the page says about the provision of another book the user typed the label
    of: ``{"id", "equivalent"}`` (whether ``nid`` is its equivalent), or None."""
    doc = nid.split("/", 1)[0]
    if not came or came.split("/", 1)[0] == doc or store.node(con, came) is None:
        return None
    return {"id": came, "equivalent": equivalent(con, came, doc) == nid}


def _title_only_found(con: sqlite3.Connection, doc_id: str, label: str):
    """(canonical label, :func:`title_only` of it) for a provision under a law the book
    gives only by its title that another translation of the edition has; None else."""
    try:
        canonical = normalise_label(label)
    except ValueError:
        return None
    found = title_only(con, doc_id, canonical)
    if found is None or not found["equivalents"]:
        return None
    return canonical, found


def _title_only_url(con: sqlite3.Connection, text: str) -> str | None:
    """The page of ``DOC/LABEL`` when :func:`_title_only_page` shows it, else None."""
    doc_id, _, label = text.partition("/")
    got = _title_only_found(con, doc_id, label)
    return node_url(f"{doc_id}/{got[0]}") if got else None


def _title_only_page(
    request: Request, con: sqlite3.Connection, doc_id: str, label: str
) -> Response | None:
    """The page of a provision under a law the book gives only by its title (fi-2007's
    Laws 19-93): it says so and points to the provision in the other translations of the
    same edition. None (a 404 follows) when the label is no such provision, or when no
    translation of the edition has it either.
    """
    got = _title_only_found(con, doc_id, label)
    if got is None:
        return None
    canonical, found = got
    if canonical != label:
        return RedirectResponse(node_url(f"{doc_id}/{canonical}"), status_code=301)
    law = store.node(con, found["law"]["id"])
    return render(
        request,
        "title_only.html",
        {
            "found": found,
            "doc": store.document(con, doc_id),
            "breadcrumbs": [vars(law)] if law else [],
            "title": f"{doc_id} {canonical} (only the law's title in this book)",
            "twin": f"/api/nodes/{found['law']['id']}",
        },
    )


def _other_language(con: sqlite3.Connection, text: str, doc: str) -> str | None:
    """The provision ``text`` names in the one book of the language its script or words
    say (a Greek-script label is the Greek book's numbering), when that is not ``doc``'s
    language; None otherwise."""
    d = store.document(con, doc)
    if d is None:
        return None
    try:
        found = _candidates(con, text)
    except ValueError:
        return None
    for lang, rx in LANGUAGE_HINTS.items():
        if lang == d["language"] or not rx.search(text):
            continue
        mine = [r["id"] for r in found if r["language"] == lang]
        if len(mine) == 1:
            return mine[0]
    return None


def _candidates(con: sqlite3.Connection, text: str) -> list[sqlite3.Row]:
    """Nodes in any document whose label is what ``text`` names (raises ValueError)."""
    text = text.strip()
    label = text if text.startswith(_SPECIAL) else normalise_label(text)
    return con.execute(
        "SELECT n.id, n.doc, n.label, n.title, n.kind, d.language FROM nodes n "
        "JOIN documents d ON d.id = n.doc WHERE n.label = ? ORDER BY d.ord",
        (label,),
    ).fetchall()


@router.get("/go", response_class=HTMLResponse)
@on_loop
def go(request: Request, con: Con, label: Text = "", doc: Text = "") -> Response:
    """Go to a provision typed in any form (twin: /api/nodes/{doc}/{label}).

    With a document (or a ``DOC/LABEL`` text) it redirects to that provision; without,
    to the one document that has the label, or to a page listing the documents that do.
    A Greek-script label prefers the Greek book. Text that is no label goes to search.
    """
    text = label.strip()
    if not text:
        raise HTTPException(400, "type a provision label, e.g. 16B1 or Νόμος 20ΣΤ5")
    if doc and not text.startswith(_SPECIAL) and not _DOC_PREFIX.match(text):
        try:
            normalise_label(text)
        except ValueError:  # words, not a label: search them in that document
            return RedirectResponse(query_url("/search", q=text, doc=doc), status_code=303)
    if doc or _DOC_PREFIX.match(text):
        came = _other_language(con, text, doc) if doc else None
        if came is not None:
            eq = equivalent(con, came, doc)
            if eq is not None:
                return RedirectResponse(query_url(node_url(eq), came=came), status_code=303)
        try:
            nid = resolve_id(con, f"{doc}/{text}" if doc else text)
        except LookupError_ as exc:
            shown = _title_only_url(con, f"{doc}/{text}" if doc else text)
            if shown is None:
                raise HTTPException(404, str(exc)) from exc
            return RedirectResponse(shown, status_code=303)
        where = query_url(node_url(nid), came=came) if came and came != nid else node_url(nid)
        return RedirectResponse(where, status_code=303)
    try:
        found = _candidates(con, text)
    except ValueError:
        return RedirectResponse(query_url("/search", q=text), status_code=303)
    hinted = [
        r
        for r in found
        for lang, rx in LANGUAGE_HINTS.items()
        if rx.search(text) and r["language"] == lang
    ]
    choices = hinted or found
    if not choices:
        raise HTTPException(404, f"no document has a provision {normalise_label(text)}")
    if len(choices) == 1:
        return RedirectResponse(node_url(choices[0]["id"]), status_code=303)
    return render(
        request,
        "go.html",
        {
            "typed": text,
            "label": choices[0]["label"],
            "choices": [dict(r) for r in choices],
            # a footnote, preface or index entry of one book is not the same text in another
            "comparable": all(r["kind"] in PROVISION_KINDS for r in choices),
            "title": f"Provision {choices[0]['label']} in {len(choices)} documents",
            "twin": query_url("/api/search", q=choices[0]["label"]),
        },
    )


router.include_router(graph_pages.router)
router.include_router(feature_pages.router)
router.include_router(compare_pages.router)
