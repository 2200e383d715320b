"""Citation graph queries and exports."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import StreamingResponse

from lawgraph.graph.export import FORMATS, MEDIA_TYPES, ExportError, parse_selection, stream_export
from lawgraph.graph.query import GraphQueryError, cites, diff, ego, path, rank
from lawgraph.store.deps import Con, graph_of, on_loop, snapshot
from lawgraph.store.lookup import node_id_or_404, query_node_id

from ..schemas import (
    CitationList,
    EgoGraph,
    ErrorResponse,
    GraphDiff,
    GraphPath,
    GraphRank,
    NodeIdPath,
    NodeIdQuery,
)

router = APIRouter(tags=["graph"])
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse},
    404: {"model": ErrorResponse},
}
Depth = Annotated[int, Query(ge=1, le=10, description="hops to follow")]


def _query(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except GraphQueryError as exc:
        status = 404 if "unknown" in str(exc) or "no citation path" in str(exc) else 400
        raise HTTPException(status, str(exc)) from exc


@router.get("/api/nodes/{node_id:path}/citations", response_model=CitationList, responses=ERRORS)
@on_loop
def node_citations(node_id: NodeIdPath, request: Request, con: Con, depth: Depth = 1) -> dict:
    """Provisions this one cites (its sub-provisions' citations included)."""
    nid = node_id_or_404(con, node_id)
    hits = _query(cites, graph_of(request), nid, depth=depth)
    return {"id": nid, "depth": depth, "reverse": False, "results": hits}


@router.get("/api/nodes/{node_id:path}/cited-by", response_model=CitationList, responses=ERRORS)
@on_loop
def node_cited_by(node_id: NodeIdPath, request: Request, con: Con, depth: Depth = 1) -> dict:
    """Provisions that cite this one (or one of its sub-provisions)."""
    nid = node_id_or_404(con, node_id)
    hits = _query(cites, graph_of(request), nid, depth=depth, reverse=True)
    return {"id": nid, "depth": depth, "reverse": True, "results": hits}


@router.get("/api/nodes/{node_id:path}/ego", response_model=EgoGraph, responses=ERRORS)
@on_loop
def node_ego(
    node_id: NodeIdPath,
    request: Request,
    con: Con,
    radius: Annotated[int, Query(ge=1, le=3, description="hops out, both directions")] = 1,
) -> dict:
    """The citation neighbourhood of a provision, both directions, as nodes and edges."""
    return _query(ego, graph_of(request), node_id_or_404(con, node_id), radius=radius)


@router.get("/api/graph/path", response_model=GraphPath, responses=ERRORS)
def graph_path(
    request: Request,
    con: Con,
    a: NodeIdQuery,
    b: NodeIdQuery,
    either: Annotated[bool, Query(description="follow citations in both directions")] = False,
) -> dict:
    """Shortest citation path from provision ``a`` to provision ``b`` (each a node id,
    ``DOC/LABEL``: one written otherwise is a 400, one that names no provision a 404)."""
    ia, ib = query_node_id(con, "a", a), query_node_id(con, "b", b)
    steps = _query(path, graph_of(request), ia, ib, either=either)
    return {"a": ia, "b": ib, "path": steps}


@router.get("/api/graph/rank", response_model=GraphRank, responses=ERRORS)
def graph_rank(
    request: Request,
    doc: Annotated[str, Query(max_length=40, description="a document id, e.g. sv-2007")],
    top: Annotated[int, Query(ge=1, le=200, description="laws at most")] = 20,
) -> dict:
    """Most-cited laws and PageRank of laws in one document."""
    return _query(rank, graph_of(request), doc, top=top)


@router.get("/api/graph/diff", response_model=GraphDiff, responses=ERRORS)
def graph_diff(
    request: Request,
    a: Annotated[str, Query(max_length=40, description="a document id, e.g. fi-1997")],
    b: Annotated[str, Query(max_length=40, description="another one, e.g. sv-2007")],
) -> dict:
    """Citation edges one document has and the other lacks, over shared labels."""
    return _query(diff, graph_of(request), a, b)


@router.get(
    "/api/graph/export",
    responses=ERRORS
    | {
        200: {
            "description": "the graph file, streamed",
            "content": {m: {} for m in MEDIA_TYPES.values()},
        }
    },
)
def graph_export(
    request: Request,
    format: Annotated[str, Query(max_length=10, description="json, graphml, gexf or csv")] = "json",
    doc: Annotated[
        str | None, Query(max_length=200, description="only these documents, comma-separated")
    ] = None,
    types: Annotated[
        str | None,
        Query(
            max_length=100,
            description=(
                "only these edge types, comma-separated: contains, indexes, cites, aligned"
            ),
        ),
    ] = None,
) -> StreamingResponse:
    """The graph as JSON (export contract), GraphML, GEXF or a CSV edge list, streamed.

    ``doc`` keeps the nodes of those documents and the edges between them; ``types``
    keeps those edge types. GEXF declares the edge type as the attribute ``edge_type``.
    """
    snap = snapshot(request)
    if format not in MEDIA_TYPES:
        raise HTTPException(400, f"unknown format {format!r} (choose from {', '.join(FORMATS)})")
    with snap.connection() as con:
        try:
            sel = parse_selection(con, doc, types)
        except ExportError as exc:
            raise HTTPException(400, str(exc)) from exc

    def chunks() -> Iterator[bytes]:
        with snap.connection() as con:
            for chunk in stream_export(con, format, sel):
                yield chunk.encode("utf-8")

    name = "-".join(["lawgraph", *sorted(sel.docs or ()), *sorted(sel.types or ())])
    headers = {"Content-Disposition": f'attachment; filename="{name}.{format}"'}
    return StreamingResponse(chunks(), media_type=MEDIA_TYPES[format], headers=headers)
