"""The HTTP routes, one module per capability; each calls the app layer and nothing else."""

from __future__ import annotations

from fastapi import FastAPI

__all__ = ["include_routers"]


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

    for module in (
        health,
        me,
        collections,
        jobs,
        search,
        assistant,
        registry,
        moderation,
        reviews,
        agents,
    ):
        app.include_router(module.router)
    mount_web(app)


def mount_web(app: FastAPI) -> None:
    """The web UI: pages under /ui, static files (htmx vendored) under /static."""
    from pathlib import Path

    from fastapi import HTTPException, Request
    from fastapi.exception_handlers import http_exception_handler
    from fastapi.responses import RedirectResponse
    from fastapi.staticfiles import StaticFiles
    from starlette.exceptions import HTTPException as StarletteHTTPException
    from starlette.responses import Response

    from colmeia.service.web.routes import SignInRequired, error_page, router

    app.include_router(router)
    static = Path(__file__).resolve().parents[1] / "web" / "static"
    app.mount("/static", StaticFiles(directory=static), name="static")

    @app.get("/", include_in_schema=False)
    async def home() -> RedirectResponse:
        return RedirectResponse("/ui/search", status_code=303)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        # a person in the browser gets a page (a 429 included), an API client JSON
        if request.url.path.startswith("/ui/") and not request.headers.get("hx-request"):
            return error_page(request, HTTPException(exc.status_code, exc.detail, exc.headers))
        return await http_exception_handler(request, exc)

    @app.exception_handler(SignInRequired)
    async def sign_in(request: Request, exc: SignInRequired) -> RedirectResponse:
        if request.headers.get("hx-request"):
            response = RedirectResponse("/ui/login", status_code=303)
            response.headers["HX-Redirect"] = "/ui/login"
            return response
        return RedirectResponse("/ui/login", status_code=303)
