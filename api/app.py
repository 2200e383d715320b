"""The FastAPI application: JSON API and HTML pages on one app over a read-only store."""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import networkx as nx
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware

from lawgraph import store
from lawgraph.graph.build import build_graph
from lawgraph.graph.query import citation_index
from lawgraph.store.serving import StoreChanged, StoreHolder, settle_heap
from lawgraph.web.pages import STATIC, TEMPLATES
from lawgraph.web.pages import router as pages_router

from . import errors
from .cache import ResponseCache
from .docs import offline_app
from .middleware import CSP, SECURITY_HEADERS, ServingMiddleware
from .routes import align, compare, coverage, documents, glossary, graph, health, nodes, search

log = logging.getLogger(__name__)
VERSION = "0.1.0"
MAX_IN_FLIGHT = 128
CACHE_MB = 32.0


def indexed_graph(con: sqlite3.Connection) -> nx.MultiDiGraph:
    """The knowledge graph of a store, its citation edges indexed (what the graph routes
    read), made once per store when it is loaded."""
    graph = build_graph(con)
    citation_index(graph)
    return graph


def create_app(
    db: Path | str | None = None,
    allowed_hosts: Sequence[str] | None = None,
    max_in_flight: int = MAX_IN_FLIGHT,
    cache_mb: float = CACHE_MB,
) -> FastAPI:
    """Open and verify the store read-only and build the app.

    Args:
        db: the store (default ``$LAWGRAPH_DB`` or ``var/lawgraph.db``); when the file at
            this path is replaced, the app switches to the new store as a whole.
        allowed_hosts: Host header values to answer (None: any).
        max_in_flight: requests handled at once; more are answered 503 with Retry-After.
        cache_mb: memory for whole answers kept per store id (0: no answer cache).

    Raises:
        StoreError: if the store is missing, of another schema version or damaged.
    """
    path = store.resolve_db(db)
    holder = StoreHolder(path, indexed_graph)
    app = offline_app(
        title="lawgraph",
        version=VERSION,
        description=__doc__,
        dependencies=[Depends(errors.plain_parameters)],
    )
    app.state.holder = holder
    app.state.db = str(path)
    errors.install(app)
    app.include_router(health.router)
    app.include_router(search.router)  # early: the routes are tried in order
    app.include_router(documents.router)
    app.include_router(coverage.router)
    app.include_router(graph.router)  # before nodes: /api/nodes/{id}/citations
    app.include_router(align.router)  # before nodes: /api/nodes/{id}/aligned
    app.include_router(nodes.router)
    for feature in (compare, glossary):
        app.include_router(feature.router)

    app.include_router(pages_router)
    static = STATIC
    app.mount("/static", StaticFiles(directory=static), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(static / "favicon.svg", media_type="image/svg+xml")

    titles = {
        400: "Bad request",
        404: "Not found",
        405: "Method not allowed",
        500: "Server error",
        503: "Busy",
    }

    def page_or_json(request: Request, status: int, message: str, headers=None) -> Response:
        response: Response
        if request.url.path.startswith(("/api", "/static")):
            response = errors.error_response(status, message)
        else:
            response = TEMPLATES.TemplateResponse(
                request,
                "error.html",
                {"title": titles.get(status, "Error"), "message": message},
                status_code=status,
            )
        response.headers.update(headers or {})  # a 405's Allow (RFC 9110), a 503's Retry-After
        return response

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        return page_or_json(request, exc.status_code, str(exc.detail), exc.headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError):
        return page_or_json(request, 400, errors.validation_message(exc))

    @app.exception_handler(StoreChanged)
    async def store_changed(request: Request, exc: StoreChanged):
        return page_or_json(
            request, 503, "the store is being replaced; retry shortly", {"Retry-After": "1"}
        )

    @app.exception_handler(Exception)
    async def server_error(request: Request, exc: Exception):
        rid = request.scope.get("state", {}).get("request_id", "-")
        log.error("request %s %s failed", rid, request.url.path, exc_info=exc)
        response = page_or_json(request, 500, f"internal error (request id {rid})")
        # answered outside the serving middleware: add what it would have added
        for k, v in [
            *SECURITY_HEADERS,
            (b"content-security-policy", CSP.encode()),
            (b"x-request-id", rid.encode()),
            (b"cache-control", b"no-store"),
        ]:
            response.headers[k.decode()] = v.decode()
        return response

    # FastAPI documents replacing the method to change the schema
    app.openapi = lambda: _openapi_with_400(app)  # type: ignore[method-assign]
    app.add_middleware(search.SearchShortcut)  # innermost: inside the cache and gzip
    app.add_middleware(GZipMiddleware, minimum_size=1024)
    app.add_middleware(ResponseCache, max_bytes=int(cache_mb * 1024 * 1024))
    app.add_middleware(
        ServingMiddleware,
        holder=holder,
        max_in_flight=max_in_flight,
        allowed_hosts=allowed_hosts,
        version=VERSION,
    )
    return app


def _openapi_with_400(app: FastAPI) -> dict:
    """The OpenAPI schema, documenting the 400 error shape the app answers instead of 422."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = FastAPI.openapi(app)
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
    for operations in schema.get("paths", {}).values():
        for op in operations.values():
            responses = op.get("responses", {})
            if responses.pop("422", None) is not None and "400" not in responses:
                responses["400"] = {"description": "Bad request", "content": error}
    components = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    app.openapi_schema = schema
    return schema


def app_from_env() -> FastAPI:
    """The app for ``lawgraph serve --workers N`` (each worker process builds its own).

    Reads ``LAWGRAPH_DB``, ``LAWGRAPH_ALLOWED_HOSTS`` (comma-separated),
    ``LAWGRAPH_MAX_IN_FLIGHT`` and ``LAWGRAPH_CACHE_MB``.
    """
    hosts = os.environ.get("LAWGRAPH_ALLOWED_HOSTS")
    app = create_app(
        os.environ.get("LAWGRAPH_DB"),
        allowed_hosts=[h for h in hosts.split(",") if h] if hosts else None,
        max_in_flight=int(os.environ.get("LAWGRAPH_MAX_IN_FLIGHT", MAX_IN_FLIGHT)),
        cache_mb=float(os.environ.get("LAWGRAPH_CACHE_MB", CACHE_MB)),
    )
    # a worker process holds little but what it serves: keep that out of the garbage
    # collector's way, now and after every switch to a new store
    app.state.holder.settle = True
    settle_heap()
    return app
