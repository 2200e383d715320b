"""The FastAPI application: JSON API and HTML pages on one app over a read-only store."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ingest import store

from . import errors
from .routes import align, compare, coverage, documents, glossary, graph, nodes, search


def create_app(db: Path | str | None = None) -> FastAPI:
    """Open the store read-only and build the app.

    Raises:
        StoreError: if the store is missing or of another schema version.
    """
    path = store.resolve_db(db)
    con = store.open_store(path)
    app = FastAPI(title="lawgraph", version="0.1.0", description=__doc__)
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
    app.mount("/static", StaticFiles(directory=Path(__file__).parent.parent / "web" / "static"),
              name="static")  # fmt: skip

    @app.exception_handler(StarletteHTTPException)
    async def page_or_json_error(request: Request, exc: StarletteHTTPException):
        if request.url.path.startswith("/api") or request.url.path.startswith("/static"):
            return errors.error_response(exc.status_code, str(exc.detail))
        return TEMPLATES.TemplateResponse(
            request, "error.html", {"title": "Not found", "message": str(exc.detail)},
            status_code=exc.status_code,
        )  # fmt: skip

    return app
