"""JSON routes: search.

Each search takes a connection of the request's store snapshot for itself alone, so
concurrent requests never share a connection. A plain search (about a millisecond) runs
on the event-loop thread, which avoids a thread hand-off per request; an expanded search
(glossary and alignment lookups, tens of milliseconds) runs on a worker thread so that it
does not hold up the others.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from lawgraph.store.deps import snapshot
from lawgraph.store.search import MAX_LIMIT, SearchError, search

from ..middleware import CANCEL_KEY
from ..schemas import ErrorResponse

router = APIRouter(tags=["search"])
ERRORS: dict[int | str, dict[str, Any]] = {400: {"model": ErrorResponse}}


class SeeAlso(BaseModel):
    """An index entry or chapter heading pointing to a hit."""

    id: str
    title: str


class SearchHit(BaseModel):
    """One hit: a provision, definition, index term, topic or heading."""

    id: str
    doc: str
    lang: str | None = None
    kind: str
    label: str
    law: str | None = None
    title: str
    snippet: str = Field(description="HTML-escaped excerpt, matches in <mark>")
    score: float
    targets: list[str] | None = Field(None, description="an index term's provisions")
    via: str | None = Field(None, description="with expand: the hit this one is aligned with")
    see_also: list[SeeAlso] | None = Field(
        None, description="index entries and chapter headings that point to this provision"
    )


class SearchResult(BaseModel):
    """The answer to a search."""

    query: str
    label: str | None = Field(None, description="canonical label when the query names one")
    mode: str = Field(description="label, all (every word matched), any, translation, none")
    hits: list[SearchHit]
    took_ms: float


@router.get(
    "/api/search", response_model=SearchResult, response_model_exclude_none=True, responses=ERRORS
)
async def search_route(
    request: Request,
    q: Annotated[str, Query(description="words in any language, or a provision label")] = "",
    doc: Annotated[str | None, Query(description="only this document")] = None,
    lang: Annotated[str | None, Query(description="only this language: fi, sv, el, et")] = None,
    kind: Annotated[str | None, Query(description="law, definition, index, topic or other")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 20,
    expand: Annotated[bool, Query(description="add translations and aligned provisions")] = False,
) -> JSONResponse:
    """Language-aware full-text search over every book, or a jump to a provision label."""
    snap = snapshot(request)

    def run() -> dict:
        with snap.connection(request.scope.get(CANCEL_KEY)) as con:
            return search(
                con,
                q,
                doc=doc or None,
                lang=lang or None,
                kind=kind or None,
                limit=limit,
                expand=expand,
            )

    try:
        # A plain search takes about a millisecond: run it on the event loop. Expansion
        # reads the glossary and alignments (tens of ms): run it on a worker thread.
        result = await run_in_threadpool(run) if expand else run()
    except SearchError as exc:
        raise HTTPException(400, str(exc)) from exc
    # search() returns JSON-ready dicts of this shape: skip revalidating them.
    return JSONResponse(result)
