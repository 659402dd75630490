"""The HTTP routes, one module per capability; each calls the app layer and nothing else."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from fastapi import FastAPI

__all__ = ["include_routers"]

log = logging.getLogger(__name__)


def _said(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {
            "application/json": {
                "example": {"detail": "what failed and what to do", "request_id": "…"}
            }
        },
    }


# What every API operation may answer besides its own statuses (the middleware, the auth
# dependency and the error handlers stand in front of every route).
COMMON: dict[int | str, dict[str, Any]] = {
    400: _said("The body could not be parsed (not JSON, or a broken multipart form)"),
    401: _said("No or unknown credentials (checked before the body is read)"),
    403: _said("Not allowed: another tenant's resource, an admin operation, a cross-site form"),
    413: _said("The request body is larger than COLMEIA_SERVICE_MAX_REQUEST_MB"),
    422: _said("The request is not valid: the detail names the field"),
    429: _said("Rate limit, token quota or failed sign-ins: see Retry-After"),
    503: _said("The database or the limits backend is not available"),
}
UPLOADS: dict[int | str, dict[str, Any]] = {
    415: _said("A file of a type that is not accepted (the detail names the file)"),
}
MODEL: dict[int | str, dict[str, Any]] = {
    404: _said("No such collection, thread or job of the tenant"),
    409: _said("The thread or job is not in a state that allows this"),
    502: _said("The language model did not answer; retry later"),
}


def include_routers(app: FastAPI) -> None:
    """Mount every router (and the web UI) on ``app``."""
    from colmeia.service.routers import (
        agents,
        assistant,
        collections,
        health,
        jobs,
        me,
        moderation,
        registry,
        reviews,
        search,
    )

    app.include_router(health.router)
    for module in (me, collections, jobs, search, assistant, registry, moderation, reviews, agents):
        extra: dict[int | str, dict[str, Any]] = {}
        if module in (collections, registry, moderation, reviews):
            extra |= UPLOADS
        if module in (search, assistant, agents, moderation, reviews, collections, jobs):
            extra |= MODEL
        app.include_router(module.router, responses={**COMMON, **extra})
    mount_web(app)


_DOCS = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>colmeia API · {kind}</title>
<link rel="icon" href="/docs-assets/favicon.png">{head}</head>
<body>{body}</body></html>"""


# ReDoc's footer fetches its logo from a CDN (no option turns it off); the CSP blocks that, a
# console error on every /redoc. The script is served with the logo pointed at a local file.
_REDOC_LOGO = b'src:"https://cdn.redoc.ly/redoc/logo-mini.svg"'


def _local_redoc(script: Path) -> bytes:
    """ReDoc's standalone script, its one remote asset (the footer logo) made local."""
    code = script.read_bytes()
    if _REDOC_LOGO not in code:
        log.warning("ReDoc's script no longer names its CDN logo; serving it unchanged")
    return code.replace(_REDOC_LOGO, b'src:"/static/redoc-logo.svg"')


def mount_api_docs(app: FastAPI) -> None:
    """Swagger UI on /docs and ReDoc on /redoc from the assets the fastapi-offline package
    ships (works offline, versions pinned by the lock file), started by a local script."""
    import fastapi_offline
    from fastapi.responses import HTMLResponse, Response
    from fastapi.staticfiles import StaticFiles

    assets = Path(fastapi_offline.__file__).parent / "static"
    app.mount("/docs-assets", StaticFiles(directory=assets), name="docs-assets")
    redoc_js = _local_redoc(assets / "redoc.standalone.js")

    @app.get("/redoc.standalone.js", include_in_schema=False)
    async def redoc_script() -> Response:
        return Response(redoc_js, media_type="text/javascript; charset=utf-8")

    @app.get("/docs", include_in_schema=False)
    async def swagger() -> HTMLResponse:
        return HTMLResponse(
            _DOCS.format(
                kind="Swagger UI",
                head='<link rel="stylesheet" href="/docs-assets/swagger-ui.css">',
                body='<div id="swagger-ui"></div>'
                '<script src="/docs-assets/swagger-ui-bundle.js"></script>'
                '<script src="/static/api-docs.js"></script>',
            )
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return HTMLResponse(
            _DOCS.format(
                kind="ReDoc",
                head="",
                body='<redoc spec-url="/openapi.json"></redoc>'
                '<script src="/redoc.standalone.js"></script>',
            )
        )


def _shown(detail: str, rid: str) -> str:
    """A refusal's detail is written for the caller; should it quote an exception that names
    an internal (an address, a class, a path), the internal goes to the log, not out."""
    from colmeia.service.public import has_internals, scrub

    if not has_internals(detail):
        return detail
    log.error("request %s: %s", rid, detail)
    return scrub(detail)


def mount_web(app: FastAPI) -> None:
    """The web UI: pages under /ui, static files (htmx vendored) under /static."""
    from pathlib import Path

    from fastapi import HTTPException, Request
    from fastapi.exception_handlers import http_exception_handler
    from fastapi.responses import JSONResponse, RedirectResponse
    from fastapi.staticfiles import StaticFiles
    from starlette.exceptions import HTTPException as StarletteHTTPException
    from starlette.responses import Response

    from colmeia.service.public import error_body
    from colmeia.service.web.routes import SignInRequired, error_page, router

    app.include_router(router)
    static = Path(__file__).resolve().parents[1] / "web" / "static"
    app.mount("/static", StaticFiles(directory=static), name="static")
    mount_api_docs(app)

    @app.get("/", include_in_schema=False)
    async def home() -> RedirectResponse:
        return RedirectResponse("/ui/search", status_code=303)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        # a person in the browser gets a page (a 429 included), an API client JSON
        if request.url.path.startswith("/ui/"):
            # a page for a person; for htmx a fragment it swaps in (htmx swaps no 4xx/5xx
            # by itself: static/app.js lets these through), never JSON the page cannot show
            return error_page(request, HTTPException(exc.status_code, exc.detail, exc.headers))
        if exc.status_code < 400:
            return await http_exception_handler(request, exc)
        detail = exc.detail
        if isinstance(detail, str):
            rid = getattr(request.state, "request_id", "")
            detail = _shown(detail, rid)
        rid = getattr(request.state, "request_id", "")
        return JSONResponse(
            error_body(exc.status_code, detail, rid),
            status_code=exc.status_code,
            headers=exc.headers,
        )

    @app.exception_handler(SignInRequired)
    async def sign_in(request: Request, exc: SignInRequired) -> RedirectResponse:
        if request.headers.get("hx-request"):
            response = RedirectResponse("/ui/login", status_code=303)
            response.headers["HX-Redirect"] = "/ui/login"
            return response
        return RedirectResponse("/ui/login", status_code=303)
