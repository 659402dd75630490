"""The job kinds the worker runs. Each is a thin adapter: job parameters in, an app call, its
report out. Every runner may be run again from the start after a crash without losing or
repeating anything: ingestion skips documents already stored (by content hash) and moderation
resumes from its results file.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colmeia.service.gate import pause_at
from colmeia.service.jobs import JobContext, Runner
from colmeia.service.state import ServiceState

if TYPE_CHECKING:
    from collections.abc import Callable

    from colmeia.apps.moderation.batch import BatchProgress, BatchSummary
    from colmeia.apps.moderation.roles import ModerationConfig

__all__ = ["runners", "write_job_report"]

log = logging.getLogger(__name__)


def _relative(text: str, root: Path) -> str:
    prefix = str(root.resolve()) + "/"
    return text.replace(prefix, "")


async def _imported(*modules: str) -> None:
    """Import heavy app modules in a thread: an import in the event loop would stall every
    request for the seconds LangGraph and matplotlib take to load."""
    for name in modules:
        await asyncio.to_thread(importlib.import_module, name)


def _ingest(state: ServiceState) -> Runner:
    async def run(ctx: JobContext) -> dict[str, Any]:
        await _imported("colmeia.rag.pipeline", "colmeia.rag.ingest")
        from colmeia.rag.pipeline import IngestProgress, ingest
        from colmeia.rag.retrieve import Retriever

        job = ctx.job
        collection = str(job.params["collection"])
        store = state.tenants.store(job.tenant_id)
        root = state.tenants.collection_files(job.tenant_id, collection)
        await state.files.fetch(root)  # uploaded through another replica: from the bucket
        paths = [root / name for name in job.params["files"]]
        embedder = state.embedder()

        def on_progress(p: IngestProgress) -> None:
            pause_at(state.service.test_gate, "ingest", p.files_done)
            ctx.progress(
                files_done=p.files_done,
                files_total=p.files_total,
                documents=p.documents,
                chunks=p.chunks,
                current=Path(p.current).name if p.current else "",
            )

        report = await asyncio.to_thread(
            ingest,
            store,
            collection,
            paths,
            chunker=str(job.params.get("chunker") or "auto"),
            embedder=embedder,
            progress=on_progress,
            relative_to=root,
            memory_mb=state.settings.ingest_memory_mb,
        )
        ctx.progress(
            files_done=report.files,
            files_total=report.files,
            documents=report.documents,
            chunks=report.chunks,
            current="building the search index",
        )
        if report.documents:
            await asyncio.to_thread(Retriever(store, collection, embedder=embedder).warm)
        out = report.as_dict()
        out["errors"] = [
            {"source": _relative(e["source"], root), "reason": _relative(e["reason"], root)}
            for e in out["errors"]
        ]
        failed = len({e["source"].split("#")[0] for e in out["errors"]})
        out["items"] = {
            "total": max(report.files, failed),
            "failed": failed,
            "first_error": (
                f"{out['errors'][0]['source']}: {out['errors'][0]['reason']}" if failed else ""
            ),
        }
        return out

    return run


def _moderation(state: ServiceState) -> Runner:
    async def run(ctx: JobContext) -> dict[str, Any]:
        await _imported("colmeia.apps.moderation.batch", "colmeia.apps.moderation.report")
        from colmeia.apps.moderation.batch import moderate_files
        from colmeia.apps.moderation.roles import load_config
        from colmeia.errors import InputError

        job = ctx.job
        folder = state.tenants.job_folder(job.tenant_id, "moderation", job.id)
        # the inputs, and the results of an earlier run that another replica began (resume)
        await state.files.fetch(folder)
        inputs = sorted((folder / "input").iterdir())
        out = folder / "results.jsonl"
        params = job.params
        config = load_config(
            None, threshold=params.get("threshold"), max_rewrites=params.get("max_rewrites")
        )

        def on_progress(p: BatchProgress) -> None:
            pause_at(state.service.test_gate, "moderation", p.finished)
            ctx.progress(
                total=p.total,
                finished=p.finished,
                skipped=p.skipped,
                done=p.done,
                counts=dict(p.counts),
            )

        concurrency = int(params.get("concurrency") or 8)
        if state.service.executor == "ray":
            summary = await _moderate_on_ray(state, inputs, out, config, concurrency, on_progress)
        else:
            summary = await moderate_files(
                inputs,
                out,
                config=config,
                llm=state.settings.llm,
                concurrency=concurrency,
                resume=True,
                on_progress=on_progress,
            )
        if summary.total == 0:
            # nothing was moderated: not a success (an empty upload is refused; this is a
            # job whose files lost their records)
            raise InputError("the batch holds no record: nothing was moderated")
        errors = summary.counts.get("ERROR", 0)
        for outcome, n in summary.counts.items():  # throughput, for the dashboard
            state.metrics.moderated.labels(outcome).inc(n)
        result: dict[str, Any] = {
            "items": {
                "total": summary.total,
                "failed": errors + len(summary.missing),
                "first_error": summary.stop_reason or "",
            },
            "status": summary.status,
            "total": summary.total,
            "resumed_from": summary.skipped,
            "written": summary.done,
            "counts": summary.counts,
            "missing": summary.missing,
            "wall_s": round(summary.wall_s, 3),
        }
        memory_mb = state.service.report_memory_mb
        kind, said = await asyncio.to_thread(
            _bounded_report, out, (inputs, folder / "report"), memory_mb
        )
        if kind == "ok":
            result["report"] = said
        else:
            result["report_error"] = _relative(said, folder)
        await state.files.publish_tree(folder)  # results and report, for every replica
        return result

    return run


def write_job_report(out: Path, where: tuple[list[Path], Path]) -> tuple[str, str]:
    """Write a moderation job's report: ``("ok", page name)`` or ``("error", why)``. Run in a
    child by :func:`_bounded_report` (a module-level function, as pickle names it)."""
    from colmeia.apps.moderation.report import write_report
    from colmeia.errors import ColmeiaError

    inputs, folder = where
    try:
        return "ok", write_report(out, inputs, folder).html.name
    except ColmeiaError as exc:
        return "error", str(exc)


def _bounded_report(out: Path, where: tuple[list[Path], Path], memory_mb: int) -> tuple[str, str]:
    """The report reads every result and record of the job at once; in a child bounded to
    ``memory_mb`` its memory is given back when it ends, and one that needs more fails alone
    (the job's results stay). 0: in this process."""
    if memory_mb == 0:
        return write_job_report(out, where)
    from colmeia.rag.bounded import BoundedReader, FileFailed

    with BoundedReader(memory_mb) as child:
        made = child.read(write_job_report, out, where)
    if isinstance(made, FileFailed):
        log.warning("moderation report %s not written: %s", out, made.reason)
        if "memory" in made.reason:
            return "error", (
                f"the report needed more memory than {memory_mb} MB "
                "(COLMEIA_SERVICE_REPORT_MEMORY_MB); the results are complete"
            )
        return "error", "the report could not be written (see the log); the results are complete"
    return made


async def _moderate_on_ray(
    state: ServiceState,
    inputs: list[Path],
    out: Path,
    config: ModerationConfig,
    per_worker: int,
    on_progress: Callable[[BatchProgress], None],
) -> BatchSummary:
    """The job's records run in Ray workers; this replica writes the results and the lease."""
    from colmeia.apps.moderation.batch import open_batch
    from colmeia.apps.moderation.distributed import ray_moderation

    settings = state.service
    workers = settings.ray_workers
    llm = state.settings.llm
    prepared = await asyncio.to_thread(open_batch, inputs, out, config=config, llm=llm, resume=True)
    with prepared as batch:
        async with ray_moderation(
            config,
            llm,
            workers=workers,
            per_worker=per_worker,
            address=settings.ray_address,
            background_start=True,
        ) as (moderate, pool):
            return await batch.run(
                concurrency=pool.concurrency,
                on_progress=on_progress,
                moderate=moderate,
                engine={
                    "name": "ray",
                    "workers": workers,
                    "per_worker": per_worker,
                    "address": settings.ray_address,
                },
            )


def _library(state: ServiceState) -> Runner:
    """Bibliography exports (RIS/BibTeX/CSV) and their PDFs → a collection of works."""

    async def run(ctx: JobContext) -> dict[str, Any]:
        await _imported("colmeia.apps.literature")
        from colmeia.apps.literature import import_library
        from colmeia.rag.pipeline import IngestProgress

        job = ctx.job
        folder = state.tenants.job_folder(job.tenant_id, "library", job.id)
        await state.files.fetch(folder / "input")
        files = sorted((folder / "input").iterdir())
        sources = [f for f in files if f.suffix.lower() in (".ris", ".bib", ".bibtex", ".csv")]
        pdfs = folder / "input" if any(f.suffix.lower() == ".pdf" for f in files) else None

        def on_progress(p: IngestProgress) -> None:
            ctx.progress(files_done=p.files_done, files_total=p.files_total, documents=p.documents)

        report = await asyncio.to_thread(
            import_library,
            state.tenants.store(job.tenant_id),
            str(job.params["collection"]),
            sources,
            pdf_dir=pdfs,
            embedder=state.embedder(),
            progress=on_progress,
        )
        out: dict[str, Any] = _relative_all(report.as_dict(), folder)
        return out

    return run


def _review(state: ServiceState) -> Runner:
    """A literature review of the works of a collection, saved beside the job."""

    async def run(ctx: JobContext) -> dict[str, Any]:
        await _imported("colmeia.apps.literature")
        from colmeia.apps.literature import arun_review

        job = ctx.job
        p = job.params
        folder = state.tenants.job_folder(job.tenant_id, "review", job.id)
        review = await arun_review(
            state.tenants.store(job.tenant_id),
            str(p["collection"]),
            str(p["question"]),
            top=int(p.get("top") or 10),
            model=state.model,
            model_name=state.settings.llm.model if state.model else "",
            embedder=state.embedder(),
            cache_dir=state.tenants.folder(job.tenant_id) / "review-cache",
            progress=lambda done, total, info: ctx.progress(done=done, total=total, current=info),
        )
        await asyncio.to_thread(review.save, folder / "review.json")
        await state.files.publish([folder / "review.json"])
        return {
            "works": len(review.works),
            "model": review.model,
            "prisma": review.as_dict()["prisma"],
        }

    return run


def _relative_all(data: Any, root: Path) -> Any:
    if isinstance(data, str):
        return _relative(data, root)
    if isinstance(data, list | tuple):
        return [_relative_all(v, root) for v in data]
    if isinstance(data, dict):
        return {k: _relative_all(v, root) for k, v in data.items()}
    return data


def runners(state: ServiceState) -> dict[str, Runner]:
    """The runner of each job kind, bound to this service."""
    return {
        "ingest": _ingest(state),
        "moderation": _moderation(state),
        "library": _library(state),
        "review": _review(state),
    }
