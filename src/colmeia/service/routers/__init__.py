"""The HTTP routes, one module per capability; each calls the app layer and nothing else."""

from __future__ import annotations

from fastapi import FastAPI

__all__ = ["include_routers"]


def include_routers(app: FastAPI) -> None:
    """Mount every router (and the web UI) on ``app``."""
    from colmeia.service.routers import collections, health, jobs, me, moderation, search

    for module in (health, me, collections, jobs, search, moderation):
        app.include_router(module.router)
