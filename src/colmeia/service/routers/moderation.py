"""Moderation batches: upload records (a job), follow its progress, read results and report."""

from __future__ import annotations

import asyncio
import mimetypes
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import orjson
from fastapi import APIRouter, File, Form, HTTPException, Query, Request, UploadFile
from fastapi.responses import FileResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import iterate_in_threadpool

from colmeia.service.auth import Caller, Metered, Principal, state_of
from colmeia.service.jobs import Job
from colmeia.service.public import redacted
from colmeia.service.schemas import JobOut
from colmeia.service.state import NO_MODEL, ServiceState
from colmeia.service.uploads import save_uploads

router = APIRouter(prefix="/v1/moderation", tags=["moderation"])

Outcome = Literal["KEEP_ORIGINAL", "ANSWER_REVISED", "DO_NOT_ANSWER", "ERROR"]


def check_records(folder: Path, limit: int) -> int:
    """How many records the job's files hold, counted from disk a record at a time (never all
    of them in memory); 413 past ``limit``, 422 for a batch with none."""
    from colmeia.apps.moderation.io import read_file_records

    count = 0
    for path in sorted(folder.iterdir()):
        for _ in read_file_records(path):
            count += 1
            if count > limit:
                raise HTTPException(
                    413,
                    f"the batch has more than {limit:,} records; a job may hold {limit:,} "
                    "(COLMEIA_SERVICE_MAX_JOB_RECORDS): split it into several jobs",
                )
    if count == 0:
        raise HTTPException(
            422, "the batch holds no record: send JSON or JSONL files with at least one record"
        )
    return count


def moderation_job(state: ServiceState, principal: Principal, job_id: str) -> tuple[Job, Path]:
    """The tenant's moderation job and its folder, or 404."""
    job = state.jobs.get(principal.tenant, job_id)
    if job is None or job.kind != "moderation" or not job_id.isalnum():
        raise HTTPException(404, f"no moderation job {job_id!r}")
    return job, state.tenants.job_folder(principal.tenant, "moderation", job_id)


def public_lines(folder: Path, lines: Any) -> Any:
    """Result data as a tenant may read it: input files named inside the job (``input/a.json``,
    never the server's folders), no internal addresses or exception classes."""
    return redacted(lines, root=str(folder))


def public_key(folder: Path, key: str) -> str:
    """A result's key as the API shows it (a repeated id's key names its input file)."""
    return key.replace(str(folder).rstrip("/") + "/", "")


def read_results(folder: Path) -> list[dict[str, Any]]:
    """The job's result lines so far (a cut-off last line is left out), as a tenant reads them."""
    path = folder / "results.jsonl"
    if not path.is_file():
        return []
    out = []
    with path.open("rb") as fh:
        for line in fh:
            if line.strip():
                try:
                    out.append(orjson.loads(line))
                except orjson.JSONDecodeError:
                    continue
    return list(public_lines(folder, out))


@router.post(
    "/jobs",
    response_model=JobOut,
    status_code=202,
    summary="Moderate a batch of records (JSON/JSONL files): a job",
    responses={503: {"description": "No language model is configured"}},
)
async def create_job(
    request: Request,
    principal: Metered,
    files: list[UploadFile] = File(..., description="JSON or JSONL files of records."),
    threshold: float | None = Form(None, ge=0, le=10),
    max_rewrites: int | None = Form(None, ge=1, le=10),
    concurrency: int = Form(8, ge=1, le=64),
) -> JobOut:
    job = await start_moderation(
        state_of(request), principal, files, threshold, max_rewrites, concurrency
    )
    return JobOut(**job.as_dict())


async def start_moderation(
    state: ServiceState,
    principal: Principal,
    files: list[UploadFile],
    threshold: float | None,
    max_rewrites: int | None,
    concurrency: int,
) -> Job:
    """Keep the uploaded records in a new job's folder, then queue the job."""
    if state.model is None:
        raise HTTPException(503, NO_MODEL)
    job_id = state.jobs.new_id()
    folder = state.tenants.job_folder(principal.tenant, "moderation", job_id)
    try:
        await save_uploads(
            files,
            folder / "input",
            allowed=(".json", ".jsonl"),
            max_mb=state.service.max_upload_mb,
            max_files=state.service.max_files_per_upload,
            storage=state.files,
        )
        await asyncio.to_thread(check_records, folder / "input", state.service.max_job_records)
    except HTTPException:
        await asyncio.to_thread(shutil.rmtree, folder, True)
        raise
    job = await asyncio.to_thread(
        state.jobs.create,
        principal.tenant,
        "moderation",
        {"threshold": threshold, "max_rewrites": max_rewrites, "concurrency": concurrency},
        created_by=principal.bucket,
        job_id=job_id,
    )
    if state.worker is not None:
        state.worker.wake()
    return job


@router.get("/jobs", response_model=list[JobOut], summary="The tenant's moderation jobs")
async def list_jobs(
    request: Request, principal: Caller, limit: int = Query(50, ge=1, le=500)
) -> list[JobOut]:
    jobs = await asyncio.to_thread(
        state_of(request).jobs.recent, principal.tenant, "moderation", limit
    )
    return [JobOut(**j.as_dict()) for j in jobs]


@router.get("/jobs/{job_id}", response_model=JobOut, summary="A moderation job's progress")
async def get_job(request: Request, job_id: str, principal: Caller) -> JobOut:
    job, _ = await asyncio.to_thread(moderation_job, state_of(request), principal, job_id)
    return JobOut(**job.as_dict())


@router.get("/jobs/{job_id}/results", summary="Result lines (one per input record)")
async def results(
    request: Request,
    job_id: str,
    principal: Caller,
    outcome: Outcome | None = None,
    offset: int = Query(0, ge=0),
    limit: int = Query(100, ge=1, le=1000),
) -> dict[str, Any]:
    state = state_of(request)
    _, folder = await asyncio.to_thread(moderation_job, state, principal, job_id)
    await state.files.fetch(folder)  # written by the replica that ran the job
    lines = await asyncio.to_thread(read_results, folder)
    if outcome:
        lines = [r for r in lines if r.get("outcome") == outcome]
    return {"total": len(lines), "offset": offset, "items": lines[offset : offset + limit]}


@router.get(
    "/jobs/{job_id}/results.jsonl",
    summary="The results file as written (JSONL)",
    response_class=Response,
)
async def results_file(request: Request, job_id: str, principal: Caller) -> Response:
    state = state_of(request)
    _, folder = await asyncio.to_thread(moderation_job, state, principal, job_id)
    await state.files.fetch(folder)  # written by the replica that ran the job
    path = folder / "results.jsonl"
    if not path.is_file():
        raise HTTPException(404, "no results yet")

    def lines() -> Iterator[bytes]:
        with path.open("rb") as fh:
            for line in fh:
                try:
                    yield orjson.dumps(public_lines(folder, orjson.loads(line))) + b"\n"
                except orjson.JSONDecodeError:
                    continue  # a line cut off by a crash

    return StreamingResponse(
        iterate_in_threadpool(lines()),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{job_id}.jsonl"'},
    )


@router.get(
    "/jobs/{job_id}/report/{name}",
    summary="The evaluation report (report.html, its PNG plots, summary.json)",
    response_class=Response,
)
async def report_file(request: Request, job_id: str, name: str, principal: Caller) -> Response:
    state = state_of(request)
    _, folder = await asyncio.to_thread(moderation_job, state, principal, job_id)
    await state.files.fetch(folder)  # written by the replica that ran the job
    report = (folder / "report").resolve()
    path = (report / name).resolve()
    if not path.is_relative_to(report) or not path.is_file():
        raise HTTPException(404, f"no report file {name!r} (the job may not have finished)")
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return FileResponse(path, media_type=kind)


# -- the review queue: people judge what the system changed or withheld ------------------------


class VerdictIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: Literal["accept", "reject", "edit"]
    note: str = Field(default="", max_length=4000)
    edited_answer: str | None = Field(default=None, max_length=20_000)


def review_queue(folder: Path, outcome: str | None = None) -> dict[str, Any]:
    """The job's review items (what was revised or withheld) with their latest verdicts."""
    from colmeia.apps.moderation.results import read_results as results_by_key
    from colmeia.apps.moderation.review import (
        QUEUE_OUTCOMES,
        VerdictLog,
        agreement,
        filter_items,
        review_items,
        verdicts_path,
    )

    results = folder / "results.jsonl"
    items = review_items(results_by_key(results))
    queue = filter_items(items, outcomes=[outcome] if outcome else QUEUE_OUTCOMES)
    latest = VerdictLog(verdicts_path(results)).latest()
    return {
        "agreement": agreement(items, latest),
        "items": [public_lines(folder, _item(i, latest, folder)) for i in queue],
    }


def review_item(folder: Path, key: str) -> dict[str, Any] | None:
    """One result as a review item with its latest verdict, in the queue or not (a verdict
    may be given on any result), or ``None`` when the job has no such result."""
    from colmeia.apps.moderation.results import read_results as results_by_key
    from colmeia.apps.moderation.review import VerdictLog, review_items, verdicts_path

    results = folder / "results.jsonl"
    found = next(
        (i for i in review_items(results_by_key(results)) if public_key(folder, i.key) == key),
        None,
    )
    if found is None:
        return None
    return dict(
        public_lines(folder, _item(found, VerdictLog(verdicts_path(results)).latest(), folder))
    )


def _item(i: Any, latest: dict[str, Any], folder: Path) -> dict[str, Any]:
    return {
        "key": public_key(folder, i.key),
        "id": i.id,
        "outcome": i.outcome,
        "question": i.question,
        "original": i.original,
        "proposed": i.proposed,
        "reason": i.reason,
        "scores_original": i.scores_original,
        "scores_final": i.scores_final,
        "violations": i.violations,
        "diff": i.diff(),
        "verdict": _verdict(latest.get(i.key), i.answer_sha),
    }


def _verdict(record: Any, sha: str) -> dict[str, Any] | None:
    if record is None:
        return None
    return {
        "verdict": record.verdict,
        "by": record.by,
        "at": record.at,
        "note": record.note,
        "edited_answer": record.edited_answer,
        "stale": record.answer_sha != sha,
    }


def give_verdict(folder: Path, key: str, body: VerdictIn, actor: str) -> dict[str, Any]:
    """Record a person's verdict on one item durably; the item with its verdict."""
    from colmeia.apps.moderation.results import read_results as results_by_key
    from colmeia.apps.moderation.review import (
        VerdictLog,
        VerdictRecord,
        review_items,
        verdicts_path,
    )
    from colmeia.errors import ConfigurationError

    results = folder / "results.jsonl"
    item = next(
        (i for i in review_items(results_by_key(results)) if public_key(folder, i.key) == key),
        None,
    )
    if item is None:
        raise HTTPException(404, f"no result {key[:80]!r} in this job")
    try:
        record = VerdictRecord.of(
            item, body.verdict, by=actor, note=body.note, edited_answer=body.edited_answer
        )
    except ConfigurationError as exc:
        raise HTTPException(422, str(exc)) from exc
    VerdictLog(verdicts_path(results)).append(record)
    return {"key": key, "outcome": item.outcome, "verdict": _verdict(record, item.answer_sha)}


@router.get("/jobs/{job_id}/review", summary="The review queue with verdicts and agreement")
async def get_review_queue(
    request: Request,
    job_id: str,
    principal: Caller,
    outcome: Literal["revised", "withheld", "kept", "error"] | None = None,
) -> dict[str, Any]:
    state = state_of(request)
    _, folder = await asyncio.to_thread(moderation_job, state, principal, job_id)
    await state.files.fetch(folder)  # written by the replica that ran the job
    return await asyncio.to_thread(review_queue, folder, outcome)


@router.post("/jobs/{job_id}/review/{key}", summary="A person's verdict on one item")
async def post_verdict(
    request: Request, job_id: str, key: str, body: VerdictIn, principal: Caller
) -> dict[str, Any]:
    state = state_of(request)
    _, folder = await asyncio.to_thread(moderation_job, state, principal, job_id)
    await state.files.fetch(folder)  # written by the replica that ran the job
    return await asyncio.to_thread(give_verdict, folder, key, body, principal.actor)
