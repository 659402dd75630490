"""Liveness, readiness and Prometheus metrics (no authentication: for the orchestrator)."""

from __future__ import annotations

import asyncio
import logging
import time

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from colmeia.errors import ColmeiaError
from colmeia.service.auth import state_of
from colmeia.service.state import ServiceState

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="The process is alive")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get(
    "/readyz",
    summary="The service can serve: database, rate-limit backend, model server and job worker",
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
        await state.limiter.quota_counters.ping()
        checks["limits"] = (
            "redis"
            if state.service.redis_url
            else "token quotas in the database, request rates in this process"
        )
    except ColmeiaError as exc:
        checks["limits"] = f"error: {exc}"
    if state.worker is not None:
        checks["jobs"] = f"worker running ({state.worker.busy} busy)"
    else:
        checks["jobs"] = "not run by this process"
    checks["model"] = await _model_check(state)
    ok = not any(v.startswith("error") for v in checks.values())
    return JSONResponse(
        {"status": "ok" if ok else "unavailable", "checks": checks}, 200 if ok else 503
    )


_PROBE_TTL_S = 10.0
log = logging.getLogger(__name__)


async def _model_check(state: ServiceState) -> str:
    """The model server answers (a cached probe of its ``/models``, at most one every 10 s:
    orchestrators poll readiness often and must not load the model server)."""
    if state.model is None:
        return "none configured (extractive answers only)"
    base = state.settings.llm.base_url
    if state.simulated or not base:
        return "simulated" if state.simulated else "in process"
    cached = state.extras.get("model_probe")
    now = time.monotonic()
    if cached is not None and now - cached[0] < _PROBE_TTL_S:
        return str(cached[1])
    import httpx

    try:
        async with httpx.AsyncClient(timeout=2.0) as client:
            r = await client.get(base.rstrip("/") + "/models")
        verdict = (
            "ok" if r.status_code < 500 else f"error: the model server answers {r.status_code}"
        )
    except httpx.HTTPError as exc:
        # where the model server is stays in the log: /readyz needs no credentials
        log.warning("readiness: the model server at %s does not answer: %s", base, exc)
        verdict = "error: the model server does not answer"
    state.extras["model_probe"] = (now, verdict)
    return verdict


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def metrics(request: Request) -> Response:
    registry = state_of(request).metrics.registry
    data = await asyncio.to_thread(generate_latest, registry)
    return Response(data, media_type=CONTENT_TYPE_LATEST)
