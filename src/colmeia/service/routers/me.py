"""Who am I, and the tenant's audit log."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Query, Request

from colmeia.service import audit
from colmeia.service.auth import Admin, Caller, state_of
from colmeia.service.schemas import AuditEntry, MeOut

router = APIRouter(prefix="/v1", tags=["account"])


@router.get("/me", response_model=MeOut, summary="The caller's tenant, role and limits")
async def me(request: Request, principal: Caller) -> MeOut:
    state = state_of(request)
    quota = await state.limiter.quota(principal.bucket, principal.token_quota)
    return MeOut(
        tenant=principal.tenant,
        actor=principal.actor,
        role=principal.role,
        via=principal.via,
        rate_limit_per_minute=principal.rate_limit,
        token_quota=principal.token_quota,
        tokens_left=quota.remaining,
        tokens_held_per_request=min(
            state_of(request).service.request_token_reserve, principal.token_quota
        ),
    )


@router.get(
    "/audit", response_model=list[AuditEntry], summary="The tenant's audit log (admin keys)"
)
async def audit_log(
    request: Request,
    principal: Admin,
    limit: int = Query(100, ge=1, le=1000),
    actor: str | None = Query(None, max_length=200),
) -> list[AuditEntry]:
    rows = await asyncio.to_thread(
        audit.entries, state_of(request).db, principal.tenant, limit=limit, actor=actor
    )
    return [AuditEntry(**r) for r in rows]
