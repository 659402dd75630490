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

    from fastapi import Request
    from fastapi.responses import RedirectResponse
    from fastapi.staticfiles import StaticFiles

    from colmeia.service.web.routes import SignInRequired, router

    app.include_router(router)
    static = Path(__file__).resolve().parents[1] / "web" / "static"
    app.mount("/static", StaticFiles(directory=static), name="static")

    @app.get("/", include_in_schema=False)
    async def home() -> RedirectResponse:
        return RedirectResponse("/ui/search", status_code=303)

    @app.exception_handler(SignInRequired)
    async def sign_in(request: Request, exc: SignInRequired) -> RedirectResponse:
        if request.headers.get("hx-request"):
            response = RedirectResponse("/ui/login", status_code=303)
            response.headers["HX-Redirect"] = "/ui/login"
            return response
        return RedirectResponse("/ui/login", status_code=303)
