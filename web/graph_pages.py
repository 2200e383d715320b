"""The graph page: a provision's citation neighbourhood, rankings, paths and exports.

Twins: /api/nodes/{id}/ego, /api/graph/rank, /api/graph/path, /api/graph/export.
"""

from __future__ import annotations

import sqlite3
from typing import Annotated
from urllib.parse import urlencode

import networkx as nx
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from lawgraph import store
from lawgraph.graph.build import citation_graph
from lawgraph.graph.query import GraphQueryError, ego, path, rank, subtree_set
from lawgraph.store.deps import Con, graph_of, on_loop
from lawgraph.store.lookup import LookupError_, resolve_id

from .svg import layout
from .templating import LAW_KINDS, book_label, node_url, query_url, render

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


def _path(
    con: sqlite3.Connection, g: nx.MultiDiGraph, doc: str, a: str, b: str, either: bool
) -> dict:
    """The path finder's answer: ``{"a", "b", "either", "path": [nodes], "error"}``.

    Every step after the first says whether it follows a citation forwards (the previous
    provision cites this one) or backwards (this one cites the previous).
    """
    out: dict = {"a": a, "b": b, "either": either, "path": [], "error": None}
    try:
        ia, ib = _resolve(con, doc, a), _resolve(con, doc, b)
        ids = path(g, ia, ib, either=either)
    except (LookupError_, GraphQueryError) as exc:
        out["error"] = str(exc)
        return out
    cg = citation_graph(g, g.nodes[ia]["doc"])
    out["path"] = [
        {
            "id": n,
            "label": g.nodes[n]["label"],
            "title": g.nodes[n]["title"],
            "kind": g.nodes[n]["kind"],
            "step": None if i == 0 else ("cites" if cg.has_edge(ids[i - 1], n) else "cited-by"),
        }
        for i, n in enumerate(ids)
    ]
    out["a"], out["b"] = ia, ib
    return out


def _context(
    request: Request,
    con: sqlite3.Connection,
    doc: str,
    a: str,
    b: str,
    either: bool,
    types: str = "",
) -> dict:
    """What every graph page shows; the download links pass ``doc`` and edge ``types``."""
    g = graph_of(request)
    return {
        "docs": store.documents(con),
        "current": store.document(con, doc),
        "rank": _rank(g, doc),
        "path": _path(con, g, doc, a, b, either) if a and b else None,
        "exports": [
            {"format": f, "url": query_url("/api/graph/export", format=f, doc=doc, types=types)}
            for f in EXPORTS
        ],
        "export_all": query_url("/api/graph/export", format="gexf", types=types),
    }


def _short(text: str, size: int = 22) -> str:
    return text if len(text) <= size else text[: size - 1].rstrip() + "…"


def _drawing(g: nx.MultiDiGraph, hood: dict, found: list[dict]) -> dict:
    """The neighbourhood laid out, with the steps of a found path added and marked.

    A path step inside the centre's own subtree is the centre (the neighbourhood counts
    its sub-provisions' citations as its own); steps outside the neighbourhood are drawn
    too, joined by the citations the path follows.
    """
    center = hood["center"]
    inner = subtree_set(g, center)
    steps: list[tuple[str, str | None]] = []
    for p in found:
        n = center if p["id"] in inner else p["id"]
        if not steps or steps[-1][0] != n:
            steps.append((n, p["step"]))
    have = {n["id"] for n in hood["nodes"]}
    nodes = list(hood["nodes"])
    for n, _ in steps:
        if n not in have:
            have.add(n)
            a = g.nodes[n]
            nodes.append({"id": n, "doc": a["doc"], "label": a["label"], "title": a["title"]})
    edges = list(hood["edges"])
    pairs = {(e["source"], e["target"]) for e in edges}
    for (u, _), (v, step) in zip(steps, steps[1:], strict=False):
        src, dst = (u, v) if step == "cites" else (v, u)
        if (src, dst) not in pairs:
            pairs.add((src, dst))
            edges.append({"source": src, "target": dst, "raw": ""})
    for n in nodes:
        n["law"] = g.nodes[n["id"]].get("law") or ""
        lawlike = g.nodes[n["id"]].get("kind") in LAW_KINDS
        name = n["title"] or n["label"]
        n["shown"] = book_label(n["id"], n["label"]) if lawlike else _short(name)
    return layout({"center": center, "nodes": nodes, "edges": edges}, path=[n for n, _ in steps])


@router.get("/graph", response_class=HTMLResponse)
@on_loop
def graph_home(
    request: Request,
    con: Con,
    doc: Text = "",
    node: Text = "",
    depth: Depth = 1,
    a: Text = "",
    b: Text = "",
    either: bool = False,
    types: Text = "",
) -> Response:
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
    ctx = _context(request, con, doc, a, b, either, types)
    return render(
        request,
        "graph.html",
        ctx
        | {
            "title": f"Citation graph of {doc}",
            "ego": None,
            "depth": depth,
            "twin": query_url("/api/graph/rank", doc=doc),
        },
    )


@router.get("/graph/{doc_id}", response_class=HTMLResponse)
@router.get("/graph/{doc_id}/", response_class=HTMLResponse, include_in_schema=False)
def graph_document(request: Request, doc_id: str, con: Con) -> Response:
    """``/graph/sv-2007``: the document's graph page (``/graph?doc=sv-2007``, with the
    other parameters it was given)."""
    if store.document(con, doc_id) is None:
        known = ", ".join(d["id"] for d in store.documents(con))
        raise HTTPException(404, f"unknown document {doc_id!r} (known: {known})")
    rest = [(k, v) for k, v in request.query_params.multi_items() if k != "doc"]
    return RedirectResponse(
        query_url("/graph", doc=doc_id) + ("&" + urlencode(rest) if rest else ""),
        status_code=307,
    )


@router.get("/graph/{doc_id}/{label:path}", response_class=HTMLResponse)
@on_loop
def graph_node(
    request: Request,
    doc_id: str,
    label: str,
    con: Con,
    depth: Depth = 1,
    a: Text = "",
    b: Text = "",
    either: bool = False,
    types: Text = "",
) -> Response:
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
    ctx = _context(request, con, doc_id, a or nid, b, either, types)
    found = ctx["path"]["path"] if ctx["path"] else []
    attrs = g.nodes[nid]
    name = book_label(nid, attrs["label"]) if attrs["law"] else attrs["title"]
    return render(
        request,
        "graph.html",
        ctx
        | {
            "title": f"Citations around {doc_id} {name}",
            "ego": _drawing(g, hood, found),
            "center": {"id": nid, **attrs},
            "depth": depth,
            "node_url": node_url,
            "twin": query_url(f"/api/nodes/{nid}/ego", radius=depth),
        },
    )
