"""Collections of the caller's tenant: list, create, delete; upload documents (an ingestion job),
list and delete documents, open a passage."""

from __future__ import annotations

import asyncio
import shutil
from typing import Annotated

from fastapi import APIRouter, File, Form, HTTPException, Path, Request, UploadFile

from colmeia.rag.retrieve import Citation
from colmeia.service.auth import Caller, Principal, state_of
from colmeia.service.jobs import Job
from colmeia.service.names import ExistingName, NewName
from colmeia.service.schemas import (
    CitationOut,
    CollectionCreate,
    CollectionOut,
    DocumentOut,
    JobOut,
    PassageOut,
)
from colmeia.service.state import ServiceState
from colmeia.service.uploads import save_uploads
from colmeia.store.base import Store

router = APIRouter(prefix="/v1/collections", tags=["collections"])

CollectionName = Annotated[ExistingName, Path(description="A collection of the tenant.")]
NewCollection = Annotated[
    NewName, Path(description="A collection (created if new: letters, digits, '.', '_', '-').")
]
_CHUNKERS = ("auto", "legal", "paragraphs", "recursive")


def _existing(store: Store, name: str) -> None:
    if store.collection(name) is None:
        raise HTTPException(404, f"no collection named {name!r}")


@router.get("", response_model=list[CollectionOut], summary="The tenant's collections")
async def list_collections(request: Request, principal: Caller) -> list[CollectionOut]:
    store = state_of(request).tenants.store(principal.tenant)
    infos = await asyncio.to_thread(store.collections)
    return [
        CollectionOut(name=c.name, documents=c.documents, chunks=c.chunks, embedder=c.embedder)
        for c in infos
    ]


@router.post("", response_model=CollectionOut, status_code=201, summary="Create a collection")
async def create_collection(
    request: Request, body: CollectionCreate, principal: Caller
) -> CollectionOut:
    store = state_of(request).tenants.store(principal.tenant)
    await asyncio.to_thread(store.ensure_collection, body.name)
    info = store.collection(body.name)
    assert info is not None
    return CollectionOut(name=info.name, documents=info.documents, chunks=info.chunks)


@router.delete("/{name}", status_code=204, summary="Delete a collection and its documents")
async def delete_collection(request: Request, name: CollectionName, principal: Caller) -> None:
    state = state_of(request)
    store = state.tenants.store(principal.tenant)
    if not await asyncio.to_thread(store.delete_collection, name):
        raise HTTPException(404, f"no collection named {name!r}")
    folder = state.tenants.folder(principal.tenant) / "collections" / name
    await asyncio.to_thread(shutil.rmtree, folder, True)
    await asyncio.to_thread(_remove_library_inputs, state, principal.tenant, name)


def _remove_library_inputs(state: ServiceState, tenant: str, collection: str) -> int:
    """The bibliography files and PDFs imported into ``collection`` go with it (each import
    job kept them in its folder); the number of job folders removed."""
    removed = 0
    for job in state.jobs.recent(tenant, "library", 100_000):
        if job.params.get("collection") != collection:
            continue
        if job.status in ("queued", "running"):
            state.jobs.cancel(tenant, job.id)
        root = state.tenants.folder(tenant) / "library" / job.id
        shutil.rmtree(root, ignore_errors=True)
        removed += 1
    return removed


@router.get(
    "/{name}/documents", response_model=list[DocumentOut], summary="Documents of a collection"
)
async def list_documents(
    request: Request, name: CollectionName, principal: Caller
) -> list[DocumentOut]:
    store = state_of(request).tenants.store(principal.tenant)
    _existing(store, name)
    docs = await asyncio.to_thread(store.documents, name)
    return [
        DocumentOut(
            doc_id=d.doc_id,
            title=d.title,
            doc_type=d.doc_type,
            year=d.year,
            chunks=d.n_chunks,
            metadata=d.metadata,
        )
        for d in docs
    ]


@router.post(
    "/{name}/documents",
    response_model=JobOut,
    status_code=202,
    summary="Upload documents: an ingestion job (poll /v1/jobs/{id})",
    responses={
        413: {"description": "A file or the request is too large"},
        415: {"description": "A file type that is not accepted"},
    },
)
async def upload_documents(
    request: Request,
    name: NewCollection,
    principal: Caller,
    files: list[UploadFile] = File(..., description="PDF, DOCX, HTML, Markdown, text, CSV…"),
    chunker: str = Form("auto", description="auto | legal | paragraphs | recursive"),
) -> JobOut:
    job = await start_ingestion(state_of(request), principal, name, files, chunker)
    return JobOut(**job.as_dict())


async def start_ingestion(
    state: ServiceState, principal: Principal, name: str, files: list[UploadFile], chunker: str
) -> Job:
    """Keep the uploaded files in the collection's folder and queue their ingestion."""
    if chunker not in _CHUNKERS:
        raise HTTPException(422, f"unknown chunker {chunker!r}; use one of {', '.join(_CHUNKERS)}")
    from colmeia.rag.ingest.extract import SUPPORTED_SUFFIXES

    svc = state.service
    folder = state.tenants.collection_files(principal.tenant, name)
    # a type the ingester cannot read is refused now (415), not accepted and failed later
    readable = tuple(t for t in svc.upload_types if t in SUPPORTED_SUFFIXES or t == ".csv")
    saved = await save_uploads(
        files,
        folder,
        allowed=readable,
        max_mb=svc.max_upload_mb,
        max_files=svc.max_files_per_upload,
        storage=state.files,
        max_csv_rows=svc.max_csv_rows,
    )
    store = state.tenants.store(principal.tenant)
    await asyncio.to_thread(store.ensure_collection, name)
    job = await asyncio.to_thread(
        state.jobs.create,
        principal.tenant,
        "ingest",
        {"collection": name, "files": saved, "chunker": chunker},
        created_by=principal.bucket,
    )
    if state.worker is not None:
        state.worker.wake()
    return job


@router.delete("/{name}/documents/{doc_id:path}", status_code=204, summary="Delete one document")
async def delete_document(
    request: Request, name: CollectionName, doc_id: str, principal: Caller
) -> None:
    state = state_of(request)
    store = state.tenants.store(principal.tenant)
    _existing(store, name)
    if not await asyncio.to_thread(store.delete_documents, name, [doc_id]):
        raise HTTPException(404, f"no document {doc_id!r} in {name!r}")
    folder = state.tenants.collection_files(principal.tenant, name)
    kept = (folder / doc_id).resolve()
    if kept.is_relative_to(folder.resolve()) and kept.is_file():
        kept.unlink(missing_ok=True)


@router.get(
    "/{name}/passages/{chunk_id:path}",
    response_model=PassageOut,
    summary="One passage with its citation (what a citation opens)",
)
async def get_passage(
    request: Request, name: CollectionName, chunk_id: str, principal: Caller
) -> PassageOut:
    store = state_of(request).tenants.store(principal.tenant)
    _existing(store, name)
    found = (await asyncio.to_thread(store.get_chunks, name, [chunk_id])).get(chunk_id)
    if found is None:
        raise HTTPException(404, f"no passage {chunk_id!r} in {name!r}")
    return PassageOut(
        collection=name,
        chunk_id=found.chunk_id,
        doc_id=found.doc_id,
        seq=found.seq,
        text=found.text,
        heading=found.heading,
        citation=CitationOut.model_validate(Citation.of_chunk(found).as_dict()),
    )
