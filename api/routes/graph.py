"""Citation graph queries and exports."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import Response

from graph.export import export_bytes, export_json
from graph.query import GraphQueryError, cites, diff, ego, path, rank

from ..deps import Con
from ..lookup import node_id_or_404
from ..schemas import CitationList, EgoGraph, ErrorResponse, GraphDiff, GraphPath, GraphRank

router = APIRouter(tags=["graph"])
ERRORS = {400: {"model": ErrorResponse}, 404: {"model": ErrorResponse}}
Depth = Annotated[int, Query(ge=1, le=10, description="hops to follow")]


def _query(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except GraphQueryError as exc:
        status = 404 if "unknown" in str(exc) or "no citation path" in str(exc) else 400
        raise HTTPException(status, str(exc)) from exc


@router.get("/api/nodes/{node_id:path}/citations", response_model=CitationList, responses=ERRORS)
def node_citations(node_id: str, request: Request, con: Con, depth: Depth = 1) -> dict:
    """Provisions this one cites (its sub-provisions' citations included)."""
    nid = node_id_or_404(con, node_id)
    hits = _query(cites, request.app.state.graph, nid, depth=depth)
    return {"id": nid, "depth": depth, "reverse": False, "results": hits}


@router.get("/api/nodes/{node_id:path}/cited-by", response_model=CitationList, responses=ERRORS)
def node_cited_by(node_id: str, request: Request, con: Con, depth: Depth = 1) -> dict:
    """Provisions that cite this one (or one of its sub-provisions)."""
    nid = node_id_or_404(con, node_id)
    hits = _query(cites, request.app.state.graph, nid, depth=depth, reverse=True)
    return {"id": nid, "depth": depth, "reverse": True, "results": hits}


@router.get("/api/nodes/{node_id:path}/ego", response_model=EgoGraph, responses=ERRORS)
def node_ego(
    node_id: str, request: Request, con: Con, radius: Annotated[int, Query(ge=1, le=3)] = 1
) -> dict:
    """The citation neighbourhood of a provision, both directions, as nodes and edges."""
    return _query(ego, request.app.state.graph, node_id_or_404(con, node_id), radius=radius)


@router.get("/api/graph/path", response_model=GraphPath, responses=ERRORS)
def graph_path(
    request: Request, con: Con,
    a: Annotated[str, Query(max_length=200)], b: Annotated[str, Query(max_length=200)],
    either: Annotated[bool, Query(description="follow citations in both directions")] = False,
) -> dict:  # fmt: skip
    """Shortest citation path from provision ``a`` to provision ``b``."""
    ia, ib = node_id_or_404(con, a), node_id_or_404(con, b)
    steps = _query(path, request.app.state.graph, ia, ib, either=either)
    return {"a": ia, "b": ib, "path": steps}


@router.get("/api/graph/rank", response_model=GraphRank, responses=ERRORS)
def graph_rank(
    request: Request,
    doc: Annotated[str, Query(max_length=40)],
    top: Annotated[int, Query(ge=1, le=200)] = 20,
) -> dict:
    """Most-cited laws and PageRank of laws in one document."""
    return _query(rank, request.app.state.graph, doc, top=top)


@router.get("/api/graph/diff", response_model=GraphDiff, responses=ERRORS)
def graph_diff(
    request: Request,
    a: Annotated[str, Query(max_length=40)],
    b: Annotated[str, Query(max_length=40)],
) -> dict:
    """Citation edges one document has and the other lacks, over shared labels."""
    return _query(diff, request.app.state.graph, a, b)


MEDIA = {"json": "application/json", "graphml": "application/xml", "gexf": "application/xml",
         "csv": "text/csv"}  # fmt: skip


@router.get("/api/graph/export", responses=ERRORS)
def graph_export(
    request: Request, con: Con, format: Annotated[str, Query(max_length=10)] = "json"
) -> Response:
    """The whole graph as JSON (export contract), GraphML, GEXF or a CSV edge list."""
    if format not in MEDIA:
        raise HTTPException(400, f"unknown format {format!r} (choose from {', '.join(MEDIA)})")
    g = request.app.state.graph
    if format == "json":
        import json

        body = json.dumps(export_json(con, g), ensure_ascii=False).encode("utf-8")
    else:
        body = export_bytes(con, format, g)
    headers = {"Content-Disposition": f'attachment; filename="lawgraph.{format}"'}
    return Response(body, media_type=MEDIA[format], headers=headers)
