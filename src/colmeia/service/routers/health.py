"""Liveness, readiness and Prometheus metrics (no authentication: for the orchestrator)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from colmeia.errors import ColmeiaError
from colmeia.service.auth import state_of

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="The process is alive")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get(
    "/readyz",
    summary="The service can serve: database, rate-limit backend and job worker answer",
    responses={503: {"description": "Something it needs is not available"}},
)
async def readyz(request: Request) -> JSONResponse:
    state = state_of(request)
    checks: dict[str, str] = {}
    try:
        await asyncio.to_thread(state.db.one, "SELECT 1 AS ok")
        checks["database"] = "ok"
    except ColmeiaError as exc:
        checks["database"] = f"error: {exc}"
    try:
        await state.limiter.counters.ping()
        checks["limits"] = "redis" if state.service.redis_url else "in-process"
    except ColmeiaError as exc:
        checks["limits"] = f"error: {exc}"
    if state.worker is not None:
        checks["jobs"] = f"worker running ({state.worker.busy} busy)"
    else:
        checks["jobs"] = "not run by this process"
    checks["model"] = (
        ("simulated" if state.simulated else state.settings.llm.model or "configured")
        if state.model is not None
        else "none configured (extractive answers only)"
    )
    ok = not any(v.startswith("error") for v in checks.values())
    return JSONResponse(
        {"status": "ok" if ok else "unavailable", "checks": checks}, 200 if ok else 503
    )


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def metrics(request: Request) -> Response:
    registry = state_of(request).metrics.registry
    data = await asyncio.to_thread(generate_latest, registry)
    return Response(data, media_type=CONTENT_TYPE_LATEST)
