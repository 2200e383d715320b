"""API documentation pages that work offline: Swagger UI and ReDoc from an installed package.

``fastapi_offline`` serves both UIs' assets from its own package folder. ReDoc's sidebar
shows a vendor logo from the web; the ReDoc page here allows images from this server only,
so the browser never asks for it.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html
from fastapi.responses import HTMLResponse
from fastapi_offline import FastAPIOffline

#: Where ``fastapi_offline`` mounts its copies of the Swagger UI and ReDoc assets.
ASSETS = "/static-offline-docs"
SELF_ONLY_IMAGES = '<meta http-equiv="Content-Security-Policy" content="img-src \'self\' data:">'


def offline_app(**kwargs) -> FastAPI:
    """A FastAPI app whose ``/docs`` and ``/redoc`` load nothing from outside the server."""
    app = FastAPIOffline(redoc_url=None, static_url=ASSETS, favicon_url="/favicon.ico", **kwargs)

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        page = get_redoc_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{root}/favicon.ico",
            with_google_fonts=False,
        )
        html = bytes(page.body).decode().replace("<head>", "<head>\n" + SELF_ONLY_IMAGES, 1)
        return HTMLResponse(html)

    return app
