"""The graph page: a provision's citation neighbourhood, rankings, paths and exports.

Twins: /api/nodes/{id}/ego, /api/graph/rank, /api/graph/path, /api/graph/export.
"""

from __future__ import annotations

import sqlite3
from typing import Annotated

import networkx as nx
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from api.deps import Con, graph_of
from api.lookup import LookupError_, resolve_id
from graph.query import GraphQueryError, ego, path, rank
from ingest import store

from .svg import layout
from .templating import node_url, query_url, render

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Query(max_length=200)]
Depth = Annotated[int, Query(ge=1, le=3)]
EXPORTS = ("json", "graphml", "gexf", "csv")


def _rank(g: nx.MultiDiGraph, doc: str) -> dict:
    """:func:`graph.query.rank` for a document, cached on the (immutable) graph."""
    cache = g.graph.setdefault("_web_rank", {})
    if doc not in cache:
        cache[doc] = rank(g, doc, top=15)
    return cache[doc]


def _resolve(con: sqlite3.Connection, doc: str, text: str) -> str:
    """A node id from ``DOC/LABEL`` or from a label of ``doc`` (raises LookupError_)."""
    text = text.strip()
    try:
        return resolve_id(con, text)
    except LookupError_:
        return resolve_id(con, f"{doc}/{text}")


def _path(con: sqlite3.Connection, g: nx.MultiDiGraph, doc: str, a: str, b: str) -> dict:
    """The path finder's answer: ``{"a", "b", "path": [nodes], "error"}``."""
    out: dict = {"a": a, "b": b, "path": [], "error": None}
    try:
        ia, ib = _resolve(con, doc, a), _resolve(con, doc, b)
        ids = path(g, ia, ib)
    except (LookupError_, GraphQueryError) as exc:
        out["error"] = str(exc)
        return out
    out["path"] = [{"id": n, "label": g.nodes[n]["label"], "title": g.nodes[n]["title"],
                    "kind": g.nodes[n]["kind"]} for n in ids]  # fmt: skip
    out["a"], out["b"] = ia, ib
    return out


def _context(
    request: Request, con: sqlite3.Connection, doc: str, a: str, b: str, types: str = ""
) -> dict:
    """What every graph page shows; the download links pass ``doc`` and edge ``types``."""
    g = graph_of(request)
    return {
        "docs": store.documents(con),
        "current": store.document(con, doc),
        "rank": _rank(g, doc),
        "path": _path(con, g, doc, a, b) if a and b else None,
        "exports": [
            {"format": f, "url": query_url("/api/graph/export", format=f, doc=doc, types=types)}
            for f in EXPORTS
        ],
        "export_all": query_url("/api/graph/export", format="gexf", types=types),
    }


@router.get("/graph", response_class=HTMLResponse)
def graph_home(
    request: Request, con: Con, doc: Text = "", node: Text = "", depth: Depth = 1,
    a: Text = "", b: Text = "", types: Text = "",
) -> Response:  # fmt: skip
    """Rankings, path finder and exports of one document; ``node`` opens a neighbourhood."""
    docs = store.documents(con)
    doc = doc or docs[0]["id"]
    if store.document(con, doc) is None:
        raise HTTPException(404, f"unknown document {doc!r}")
    if node.strip():
        try:
            nid = _resolve(con, doc, node)
        except LookupError_ as exc:
            raise HTTPException(404, str(exc)) from exc
        return RedirectResponse(query_url(f"/graph/{nid}", depth=depth), status_code=303)
    ctx = _context(request, con, doc, a, b, types)
    return render(
        request,
        "graph.html",
        ctx | {"title": f"Citation graph of {doc}", "ego": None, "depth": depth,
               "twin": query_url("/api/graph/rank", doc=doc)},
    )  # fmt: skip


@router.get("/graph/{doc_id}/{label:path}", response_class=HTMLResponse)
def graph_node(
    request: Request, doc_id: str, label: str, con: Con, depth: Depth = 1,
    a: Text = "", b: Text = "", types: Text = "",
) -> Response:  # fmt: skip
    """The citation neighbourhood of a provision, drawn as SVG, ``depth`` hops out."""
    try:
        nid = resolve_id(con, f"{doc_id}/{label}")
    except LookupError_ as exc:
        raise HTTPException(404, str(exc)) from exc
    g = graph_of(request)
    try:
        hood = ego(g, nid, radius=depth)
    except GraphQueryError as exc:
        raise HTTPException(404, str(exc)) from exc
    ctx = _context(request, con, doc_id, a or nid, b, types)
    attrs = g.nodes[nid]
    name = attrs["label"] if attrs["law"] else attrs["title"]
    return render(
        request,
        "graph.html",
        ctx | {"title": f"Citations around {doc_id} {name}", "ego": layout(hood),
               "center": {"id": nid, **attrs}, "depth": depth, "node_url": node_url,
               "twin": query_url(f"/api/nodes/{nid}/ego", radius=depth)},
    )  # fmt: skip
