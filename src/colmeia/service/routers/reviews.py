"""Literature reviews: import a library (bibliography exports + PDFs) into a collection, run a
review of it (a job), screen works, export the table (CSV, XLSX, RIS, BibTeX, JSON, HTML)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, File, HTTPException, Query, Request, UploadFile
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from colmeia.errors import ConfigurationError
from colmeia.service.auth import Caller, Metered, Principal, require_owner, state_of
from colmeia.service.jobs import Job
from colmeia.service.names import ExistingName, NewName
from colmeia.service.schemas import JobOut
from colmeia.service.state import ServiceState
from colmeia.service.uploads import save_uploads

router = APIRouter(tags=["reviews"])

_MEDIA = {
    "csv": "text/csv",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "ris": "application/x-research-info-systems",
    "bib": "application/x-bibtex",
    "json": "application/json",
    "html": "text/html",
}


class ReviewCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=3, max_length=2000)
    collection: ExistingName
    top: int = Field(default=10, ge=1, le=50)


class Screening(BaseModel):
    model_config = ConfigDict(extra="forbid")

    work: str = Field(min_length=1, max_length=500, description="The work's doc_id or rank.")
    decision: Literal["include", "exclude", "pending"]
    reason: str = Field(default="", max_length=2000)
    notes: str = Field(default="", max_length=4000)


@router.post(
    "/v1/collections/{name}/library",
    response_model=JobOut,
    status_code=202,
    summary="Import bibliography exports (RIS/BibTeX/CSV) and their PDFs: a job",
)
async def import_library(
    request: Request,
    name: NewName,
    principal: Caller,
    files: list[UploadFile] = File(..., description="RIS, BibTeX or CSV exports, and PDFs."),
) -> JobOut:
    state = state_of(request)
    job_id = state.jobs.new_id()
    folder = state.tenants.job_folder(principal.tenant, "library", job_id)
    try:
        await save_uploads(
            files,
            folder / "input",
            allowed=(".ris", ".bib", ".bibtex", ".csv", ".pdf"),
            max_mb=state.service.max_upload_mb,
            max_files=state.service.max_files_per_upload,
            storage=state.files,
            max_csv_rows=state.service.max_csv_rows,
        )
    except HTTPException:
        await asyncio.to_thread(shutil.rmtree, folder, True)
        raise
    job = await asyncio.to_thread(
        state.jobs.create,
        principal.tenant,
        "library",
        {"collection": name},
        created_by=principal.bucket,
        job_id=job_id,
    )
    if state.worker is not None:
        state.worker.wake()
    return JobOut(**job.as_dict())


async def start_review(state: ServiceState, principal: Principal, body: ReviewCreate) -> Job:
    """Queue a review of ``body.collection`` (which must exist)."""
    if state.tenants.store(principal.tenant).collection(body.collection) is None:
        raise HTTPException(404, f"no collection named {body.collection!r}")
    job = await asyncio.to_thread(
        state.jobs.create,
        principal.tenant,
        "review",
        body.model_dump(),
        created_by=principal.bucket,
    )
    if state.worker is not None:
        state.worker.wake()
    return job


@router.post("/v1/reviews", response_model=JobOut, status_code=202, summary="Start a review: a job")
async def create_review(request: Request, body: ReviewCreate, principal: Metered) -> JobOut:
    return JobOut(**(await start_review(state_of(request), principal, body)).as_dict())


@router.get("/v1/reviews", response_model=list[JobOut], summary="The tenant's reviews")
async def list_reviews(
    request: Request, principal: Caller, limit: int = Query(50, ge=1, le=500)
) -> list[JobOut]:
    jobs = await asyncio.to_thread(state_of(request).jobs.recent, principal.tenant, "review", limit)
    return [JobOut(**j.as_dict()) for j in jobs]


def review_file(state: ServiceState, principal: Principal, review_id: str) -> tuple[Job, Path]:
    """The tenant's review job and its saved review (404 when absent or not finished)."""
    job = state.jobs.get(principal.tenant, review_id)
    if job is None or job.kind != "review" or not review_id.isalnum():
        raise HTTPException(404, f"no review {review_id!r}")
    path = state.tenants.job_folder(principal.tenant, "review", review_id) / "review.json"
    return job, path


@router.get("/v1/reviews/{review_id}", summary="A review: its job and, when done, the table")
async def get_review(request: Request, review_id: str, principal: Caller) -> dict[str, Any]:
    from colmeia.apps.literature import Review

    job, path = await asyncio.to_thread(review_file, state_of(request), principal, review_id)
    out: dict[str, Any] = {"job": job.as_dict(), "review": None}
    if path.is_file():
        review = await asyncio.to_thread(Review.load, path)
        out["review"] = review.as_dict()
        out["simulated"] = bool((job.result or {}).get("usage", {}).get("simulated"))
    return out


@router.post("/v1/reviews/{review_id}/screening", summary="Include or exclude a work")
async def screen(
    request: Request, review_id: str, body: Screening, principal: Caller
) -> dict[str, Any]:
    from colmeia.apps.literature import Review

    job, path = await asyncio.to_thread(review_file, state_of(request), principal, review_id)
    require_owner(principal, job.created_by, f"review {review_id}")
    if not path.is_file():
        raise HTTPException(409, "the review has not finished yet")
    review = await asyncio.to_thread(Review.load, path)
    try:
        review.screen(body.work, body.decision, body.reason, body.notes)
    except ConfigurationError as exc:
        raise HTTPException(422, str(exc)) from exc
    await asyncio.to_thread(review.save, path)
    return review.as_dict()["prisma"]  # type: ignore[no-any-return]


@router.get(
    "/v1/reviews/{review_id}/export",
    summary="The review table as CSV, XLSX, RIS, BibTeX, JSON or HTML",
    response_class=Response,
)
async def export(
    request: Request,
    review_id: str,
    principal: Caller,
    format: Literal["csv", "xlsx", "ris", "bib", "json", "html"] = "csv",
) -> Response:
    from colmeia.apps.literature import Review, export_review

    job, path = await asyncio.to_thread(review_file, state_of(request), principal, review_id)
    require_owner(principal, job.created_by, f"review {review_id}")
    if not path.is_file():
        raise HTTPException(409, "the review has not finished yet")
    review = await asyncio.to_thread(Review.load, path)
    target = path.parent / "exports" / f"review-{review_id[:8]}.{format}"
    await asyncio.to_thread(export_review, review, target)
    return FileResponse(target, media_type=_MEDIA[format], filename=target.name)
