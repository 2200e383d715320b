"""JSON routes: search.

Each search takes a connection of the request's store snapshot for itself alone, so
concurrent requests never share a connection. A plain search (under a millisecond) runs
on the event-loop thread, which avoids a thread hand-off per request, and is answered by
:class:`SearchShortcut` before the framework's routing; an expanded search (glossary and
alignment lookups, tens of milliseconds) runs on a worker thread so that it does not hold
up the others.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import parse_qsl

import orjson
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from lawgraph.store.deps import snapshot
from lawgraph.store.features import feature
from lawgraph.store.search import MAX_LIMIT, SearchError, respelled_finding, search
from lawgraph.store.serving import StoreChanged

from ..middleware import CANCEL_KEY, SNAPSHOT_KEY
from ..schemas import ErrorResponse

router = APIRouter(tags=["search"])
PATH = "/api/search"
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
    via_relation: str | None = Field(
        None,
        description="with expand: how it relates to ``via`` (the alignment's relation: same, "
        "renumbered, moved, split, merged, partial, law or topic; unconfirmed for a label twin "
        "not confirmed as the equivalent; label where the store has no alignment)",
    )
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
    respelled: str | None = Field(
        None,
        description="when nothing is found: the query as the books spell it (a word typed "
        "without å, ä, ö or accents), which finds something",
    )


@router.get(PATH, response_model=SearchResult, response_model_exclude_none=True, responses=ERRORS)
async def search_route(
    request: Request,
    q: Annotated[str, Query(description="words in any language, or a provision label")] = "",
    doc: Annotated[str | None, Query(description="only this document")] = None,
    lang: Annotated[str | None, Query(description="only this language: fi, sv, el, et")] = None,
    kind: Annotated[
        str | None,
        Query(description="law (or text), definition, index (or index_term), topic or other"),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="hits at most")] = 20,
    expand: Annotated[bool, Query(description="add translations and aligned provisions")] = False,
) -> JSONResponse:
    """Language-aware full-text search over every book, or a jump to a provision label."""
    snap = snapshot(request)

    def run() -> dict:
        with snap.connection(request.scope.get(CANCEL_KEY)) as con:
            return _searched(
                con,
                q,
                limit,
                lambda text, n: search(
                    con,
                    text,
                    doc=doc or None,
                    lang=lang or None,
                    kind=kind or None,
                    limit=n,
                    expand=expand,
                ),
            )

    try:
        # A plain search takes about a millisecond: run it on the event loop. Expansion
        # reads the glossary and alignments (tens of ms): run it on a worker thread.
        result = await run_in_threadpool(run) if expand else run()
    except SearchError as exc:
        raise HTTPException(400, str(exc)) from exc
    # search() returns JSON-ready dicts of this shape: skip revalidating them.
    return SearchJSON(result)


class SearchParams(BaseModel):
    """The parameters of :func:`search_route`, as one model (the same types and bounds)."""

    model_config = ConfigDict(extra="ignore")

    q: str = ""
    doc: str | None = None
    lang: str | None = None
    kind: str | None = None
    limit: int = Field(20, ge=1, le=MAX_LIMIT)
    expand: bool = False


class SearchShortcut:
    """ASGI middleware that answers a plain ``GET /api/search`` without the framework.

    Search is the busiest route and its own work is under a millisecond; FastAPI's
    per-request machinery (exception layers, routing, parameter and dependency solving)
    added a fifth to it. This answers the requests :func:`search_route` answers 200
    without expansion, with the same search and the same bytes: the parameters are
    checked against :class:`SearchParams`, and any request it is not sure of (an invalid
    parameter, ``expand``, a query the search refuses) goes on to the route, which answers
    it as always. The route stays the documented one.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == PATH and scope["method"] == "GET":
            answer = _plain_search(scope)
            if answer is not None:
                await answer(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _plain_search(scope: Scope) -> SearchJSON | None:
    """The answer to a valid search without expansion, or None (the route decides)."""
    snap = scope.get(SNAPSHOT_KEY)
    try:
        # the parameters as the route reads them (starlette's QueryParams: the last value
        # of a repeated name), without building the multi-value dict
        query = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
        p = SearchParams.model_validate(dict(query))
    except ValidationError:
        return None
    if snap is None or p.expand:
        return None
    try:
        with snap.connection(scope.get(CANCEL_KEY)) as con:
            result = _searched(
                con,
                p.q,
                p.limit,
                lambda text, n: search(
                    con, text, doc=p.doc or None, lang=p.lang or None, kind=p.kind or None, limit=n
                ),
            )
    except (SearchError, StoreChanged):  # the route's error handlers answer these
        return None
    return SearchJSON(result)


def _searched(
    con: sqlite3.Connection, q: str, limit: int, find: Callable[[str, int], dict]
) -> dict:
    """``find(q, limit)`` (the search with the request's filters), with ``respelled`` when
    it has no hit and the query as the books spell it (:func:`store.search.respelled`)
    finds something with the same filters."""
    result = find(q, limit)
    if result["hits"] or feature(con, respelled_finding) is None:
        return result
    spelt, again = respelled_finding(con, result["query"], lambda text: find(text, 1)["hits"])
    if again:
        result["respelled"] = spelt
    return result


class SearchJSON(JSONResponse):
    """A search answer as JSON, encoded by orjson: the bytes ``JSONResponse`` writes for
    these answers (strings, whole numbers, scores rounded to thousandths) in a tenth of
    the time."""

    def render(self, content: dict) -> bytes:
        return orjson.dumps(content)
