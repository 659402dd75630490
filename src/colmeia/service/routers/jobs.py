"""The tenant's jobs (ingestion, moderation, reviews): list, status with progress, cancel."""

from __future__ import annotations

import asyncio
from typing import Literal

from fastapi import APIRouter, HTTPException, Query, Request

from colmeia.service.auth import Caller, require_owner, state_of
from colmeia.service.schemas import JobOut

router = APIRouter(prefix="/v1/jobs", tags=["jobs"])


@router.get("", response_model=list[JobOut], summary="The tenant's jobs, newest first")
async def list_jobs(
    request: Request,
    principal: Caller,
    kind: Literal["ingest", "moderation", "review", "library"] | None = None,
    limit: int = Query(50, ge=1, le=500),
) -> list[JobOut]:
    jobs = await asyncio.to_thread(state_of(request).jobs.recent, principal.tenant, kind, limit)
    return [JobOut(**j.as_dict()) for j in jobs]


@router.get("/{job_id}", response_model=JobOut, summary="A job's status, progress and result")
async def get_job(request: Request, job_id: str, principal: Caller) -> JobOut:
    job = await asyncio.to_thread(state_of(request).jobs.get, principal.tenant, job_id)
    if job is None:
        raise HTTPException(404, f"no job {job_id!r}")
    return JobOut(**job.as_dict())


@router.post("/{job_id}/cancel", response_model=JobOut, summary="Cancel a job not yet ended")
async def cancel_job(request: Request, job_id: str, principal: Caller) -> JobOut:
    jobs = state_of(request).jobs
    job = await asyncio.to_thread(jobs.get, principal.tenant, job_id)
    if job is None:
        raise HTTPException(404, f"no job {job_id!r}")
    require_owner(principal, job.created_by, f"job {job_id}")
    if not await asyncio.to_thread(jobs.cancel, principal.tenant, job_id):
        raise HTTPException(409, f"job {job_id} already ended ({job.status})")
    job = await asyncio.to_thread(jobs.get, principal.tenant, job_id)
    assert job is not None
    return JobOut(**job.as_dict())
