"""The FastAPI application: JSON API and HTML pages on one app over a read-only store."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ingest import store

from . import errors
from .docs import offline_app
from .routes import align, compare, coverage, documents, glossary, graph, nodes, search


def create_app(db: Path | str | None = None) -> FastAPI:
    """Open the store read-only and build the app.

    Raises:
        StoreError: if the store is missing or of another schema version.
    """
    path = store.resolve_db(db)
    con = store.open_store(path)
    app = offline_app(title="lawgraph", version="0.1.0", description=__doc__)
    app.state.con = con
    app.state.db = str(path)
    from graph.build import build_graph

    app.state.graph = build_graph(con)
    errors.install(app)
    app.include_router(documents.router)
    app.include_router(coverage.router)
    app.include_router(graph.router)  # before nodes: /api/nodes/{id}/citations
    app.include_router(align.router)  # before nodes: /api/nodes/{id}/aligned
    app.include_router(nodes.router)
    for feature in (compare, glossary, search):
        app.include_router(feature.router)

    from web.pages import TEMPLATES
    from web.pages import router as pages_router

    app.include_router(pages_router)
    static = Path(__file__).parent.parent / "web" / "static"
    app.mount("/static", StaticFiles(directory=static), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(static / "favicon.svg", media_type="image/svg+xml")

    titles = {400: "Bad request", 404: "Not found", 405: "Method not allowed"}

    def page_or_json(request: Request, status: int, message: str):
        if request.url.path.startswith(("/api", "/static")):
            return errors.error_response(status, message)
        return TEMPLATES.TemplateResponse(
            request, "error.html", {"title": titles.get(status, "Error"), "message": message},
            status_code=status,
        )  # fmt: skip

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        return page_or_json(request, exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError):
        return page_or_json(request, 400, errors.validation_message(exc))

    return app
