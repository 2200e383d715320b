"""HTML pages; each has a JSON twin under /api."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from api.deps import Con
from api.routes.nodes import node_detail
from ingest import store

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
LANG_NAMES = {"fi": "suomi", "el": "ελληνικά", "sv": "svenska", "et": "eesti"}
router = APIRouter(tags=["pages"], include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
def home(request: Request, con: Con) -> HTMLResponse:
    """The corpus at a glance (twin: /api/documents)."""
    docs = store.documents(con)
    return TEMPLATES.TemplateResponse(
        request, "home.html", {"docs": docs, "lang_names": LANG_NAMES, "title": "lawgraph"}
    )


@router.get("/doc/{doc_id}", response_class=HTMLResponse)
def document_page(request: Request, doc_id: str, con: Con) -> HTMLResponse:
    """A document's table of contents (twin: /api/documents/{doc}/laws)."""
    doc = store.document(con, doc_id)
    if doc is None:
        raise HTTPException(404, f"unknown document {doc_id!r}")
    tops = [n for n in store.nodes(con, doc_id) if n.kind in ("law", "preface", "topic",
            "definition", "chapter")]  # fmt: skip
    return TEMPLATES.TemplateResponse(
        request, "document.html", {"doc": doc, "nodes": tops, "title": doc["title"]}
    )


@router.get("/doc/{doc_id}/{label:path}", response_class=HTMLResponse)
def node_page(request: Request, doc_id: str, label: str, con: Con) -> HTMLResponse:
    """One provision with its children (twin: /api/nodes/{doc}/{label})."""
    detail = node_detail(con, f"{doc_id}/{label}")
    doc = store.document(con, doc_id)
    return TEMPLATES.TemplateResponse(
        request,
        "node.html",
        {"n": detail, "doc": doc, "title": f"{detail['doc']} {detail['label']} {detail['title']}"},
    )
