"""JSON routes: alignments of provisions across documents.

``GET /api/nodes/{id}/aligned`` lists a provision's counterparts in the other books
(best first; flagged label matches last), and ``GET /api/alignments`` lists rows of
the ``alignments`` table between documents, filtered by method and flag.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel

from ingest import store
from ingest.align import aligned, alignments

from ..deps import Con
from ..lookup import node_id_or_404
from ..schemas import ErrorResponse

router = APIRouter(tags=["align"])
ERRORS = {400: {"model": ErrorResponse}, 404: {"model": ErrorResponse}}
Method = Literal["label", "content", "label+content", "topic"]


class AlignedOut(BaseModel):
    id: str
    doc: str
    label: str
    method: str
    score: float
    flagged: bool
    relation: str
    evidence: dict[str, Any]


class AlignedList(BaseModel):
    id: str
    results: list[AlignedOut]


class AlignmentOut(BaseModel):
    a: str
    b: str
    doc_a: str
    doc_b: str
    relation: str
    method: str
    score: float
    flagged: bool
    evidence: dict[str, Any]


class AlignmentList(BaseModel):
    doc_a: str | None
    doc_b: str | None
    method: str | None
    flagged: bool | None
    count: int
    results: list[AlignmentOut]


@router.get("/api/nodes/{node_id:path}/aligned", response_model=AlignedList, responses=ERRORS)
def node_aligned(node_id: str, con: Con) -> dict:
    """The provision's equivalents in other documents, best first."""
    nid = node_id_or_404(con, node_id)
    return {"id": nid, "results": aligned(con, nid)}


def _doc(con, doc: str | None) -> str | None:
    if doc is not None and store.document(con, doc) is None:
        known = ", ".join(d["id"] for d in store.documents(con))
        raise HTTPException(400, f"unknown document {doc!r} (known: {known})")
    return doc


@router.get("/api/alignments", response_model=AlignmentList, responses=ERRORS)
def list_alignments(
    con: Con,
    doc_a: Annotated[str | None, Query(max_length=40)] = None,
    doc_b: Annotated[str | None, Query(max_length=40)] = None,
    method: Method | None = None,
    flagged: bool | None = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 200,
) -> dict:
    """Alignment rows between documents (either order), best score first."""
    _doc(con, doc_a)
    _doc(con, doc_b)
    rows = alignments(con, doc_a, doc_b, method=method, flagged=flagged, limit=limit)
    return {"doc_a": doc_a, "doc_b": doc_b, "method": method, "flagged": flagged,
            "count": len(rows), "results": rows}  # fmt: skip
