"""Documents and their laws."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException

from lawgraph import store
from lawgraph.store.deps import Con, on_loop

from ..schemas import DocIdPath, DocumentOut, ErrorResponse, LawOut

router = APIRouter(prefix="/api/documents", tags=["documents"])


@router.get("", response_model=list[DocumentOut])
@on_loop
def list_documents(con: Con) -> list[dict]:
    """Every document with its language, edition, completeness and ingest counts."""
    return store.documents(con)


@router.get("/{doc_id}", response_model=DocumentOut, responses={404: {"model": ErrorResponse}})
@on_loop
def get_document(doc_id: DocIdPath, con: Con) -> dict:
    """One document."""
    doc = store.document(con, doc_id)
    if doc is None:
        raise HTTPException(404, f"unknown document {doc_id!r}")
    return doc


@router.get(
    "/{doc_id}/laws", response_model=list[LawOut], responses={404: {"model": ErrorResponse}}
)
@on_loop
def list_laws(doc_id: DocIdPath, con: Con) -> list[dict]:
    """The laws of one document, with whether the book carries their text."""
    if store.document(con, doc_id) is None:
        raise HTTPException(404, f"unknown document {doc_id!r}")
    return [
        {
            "id": n.id,
            "label": n.label,
            "title": n.title,
            "has_text": bool(n.attrs.get("has_text", True)),
            "supplement": bool(n.attrs.get("supplement")),
        }
        for n in store.nodes(con, doc_id, "law")
    ]
