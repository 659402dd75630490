"""The tenant's case registry over HTTP: import cases (admin), look a case up, list and search
cases, follow a case's movements.

Each tenant has a registry of its own (``registry.db`` in its folder, see
:meth:`colmeia.service.tenants.TenantSpace.registry`); the tenant's assistant reads the same
one, so what an admin imports here is what the assistant answers from. Imports go through
:mod:`colmeia.apps.assistant.registry_io`, the same rules as ``colmeia registry import``: a
bad row is reported with where it is and what is wrong, and the rest is imported.

Case numbers in paths cannot hold ``/``: write ``TC-001234-2024`` (or any typing the
assistant understands, e.g. ``tc 1234 2024``), or use ``GET /v1/registry/lookup?number=``
with the number as typed.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, File, HTTPException, Query, Request, UploadFile
from pydantic import BaseModel, Field

from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.ids import CaseId, IdentifierError, parse_case_id
from colmeia.apps.assistant.registry_io import (
    NOTHING_TO_IMPORT,
    TABLES,
    UNKNOWN_TABLE,
    ImportProblem,
    TableRows,
    csv_rows,
    import_tables,
    json_rows,
    table_of,
)
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.errors import ConfigurationError
from colmeia.service.auth import Admin, Caller, state_of
from colmeia.service.uploads import read_uploads

__all__ = ["case_id", "find_case", "router"]

router = APIRouter(prefix="/v1/registry", tags=["registry"])

_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"description": "No such case in the tenant's registry (`not found`)"}
}
_INVALID: dict[int | str, dict[str, Any]] = {
    422: {"description": "Not a valid process or expediente number (says why)"}
}


class ImportProblemOut(BaseModel):
    where: str = Field(description="File and line (`processes.csv:3`) or JSON row (`[3]`)")
    reason: str


class ImportOut(BaseModel):
    files: list[str] = Field(description="The files (tables) read, in import order")
    imported: dict[str, int] = Field(description="Rows imported per table")
    problems: list[ImportProblemOut] = Field(description="Rows and files not imported, and why")
    counts: dict[str, int] = Field(description="What the registry holds after the import")
    merged: bool = Field(False, description="Whether rows were added to each case's (merge)")
    changes: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Per case changed: new, fields changed, rows added/removed/changed per table",
    )
    location_conflicts: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Cases whose recorded location contradicts their latest movement",
    )


class CaseOut(BaseModel):
    """Everything the registry holds about one case (what the assistant's tools read)."""

    kind: Literal["process", "expediente"]
    number: str = Field(description="Canonical number: TC/XXXXXX/YYYY or EXP-YYYY-XXXXX")
    typed: str = Field(description="The number as it was given")
    record: dict[str, Any]
    location: dict[str, Any] | None = Field(description="Where it is now and since when")
    parties: list[dict[str, Any]]
    movements: list[dict[str, Any]] = Field(description="The latest movements, newest first")
    documents: list[dict[str, Any]] = Field(description="The latest documents, newest first")


class CaseSummaryOut(BaseModel):
    kind: Literal["process", "expediente"]
    number: str
    date: str = Field(description="Filing date (process) or opening date (expediente)")
    type: str = Field(description="Class (process) or type (expediente)")
    unit: str = Field(description="Technical unit (process) or originating unit (expediente)")
    rapporteur: str
    status: str
    location: str
    subject: str


class CasePage(BaseModel):
    total: int = Field(description="Cases matching, over all pages")
    limit: int
    offset: int
    items: list[CaseSummaryOut]


class TimelineOut(BaseModel):
    """A case's path through the units: where it is and since when, and its movements."""

    kind: Literal["process", "expediente"]
    number: str
    location: dict[str, Any] | None
    total: int = Field(description="Movements the case has, over all pages")
    limit: int
    offset: int
    order: Literal["asc", "desc"]
    movements: list[dict[str, Any]]


def case_id(typed: str) -> CaseId:
    """``typed`` as a canonical case number, or a 422 saying what is wrong with it."""
    try:
        return parse_case_id(typed)
    except IdentifierError as exc:
        raise HTTPException(422, str(exc)) from None


def _not_found(case: CaseId) -> HTTPException:
    return HTTPException(404, f"{case.kind} {case.canonical} not found in this tenant's registry")


async def find_case(registry: SQLiteCaseRegistry, typed: str) -> dict[str, Any]:
    """The registry's lookup of ``typed`` (status ``found``), or a 422/404."""
    case = case_id(typed)
    found = await lookup_case(registry, case.canonical)
    if found.get("status") != "found":
        raise _not_found(case)
    return {**found, "typed": typed}


# -- import ---------------------------------------------------------------------------------


def _json_tables(name: str, data: bytes) -> dict[str, TableRows]:
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise HTTPException(422, f"{name}: not JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise HTTPException(
            422, f'{name}: expected an object of tables, e.g. {{"processes": [{{...}}]}}'
        )
    unknown = [k for k in doc if table_of(k) is None]
    if unknown:
        raise HTTPException(
            422, f"{name}: unknown tables {unknown}; use {', '.join(TABLES)} (CSV columns as keys)"
        )
    tables: dict[str, TableRows] = {}
    for key, rows in doc.items():
        table = table_of(key)
        assert table is not None
        label = f"{name}:{key}"
        if not isinstance(rows, list):
            raise HTTPException(422, f"{label}: expected a list of rows")
        tables[table] = (label, json_rows(label, rows))
    return tables


def _import(
    registry: SQLiteCaseRegistry, uploads: list[tuple[str, bytes]], merge: bool = False
) -> dict[str, Any]:
    problems: list[ImportProblem] = []
    tables: dict[str, TableRows] = {}
    for name, data in uploads:
        if name.lower().endswith(".json"):
            tables.update(_json_tables(name, data))
            continue
        table = table_of(name)
        if table is None:
            problems.append(ImportProblem(name, UNKNOWN_TABLE + " (or send one .json file)"))
        else:
            tables[table] = (name, csv_rows(name, data))
    if not tables:
        raise HTTPException(422, NOTHING_TO_IMPORT + "; or a .json file of those tables")
    try:
        report = import_tables(registry, tables, merge=merge)
    except ConfigurationError as exc:
        raise HTTPException(422, str(exc)) from None
    report.problems[:0] = problems
    return report.as_dict()


@router.post(
    "/import",
    response_model=ImportOut,
    summary="Import cases (admin): CSV files named by table, or a JSON file of tables",
    description=(
        "Multipart field `files`: `processes.csv`, `expedientes.csv`, `parties.csv`, "
        "`movements.csv`, `documents.csv` (or `processos`, `partes`, `movimentacoes`, "
        "`documentos`) with the columns `colmeia registry import` reads; or a `.json` file "
        'holding `{"processes": [{"number": "TC/001234/2024", ...}], "movements": [...]}` '
        "with the same columns as keys. Numbers are normalised, dates may be ISO or "
        "dd/mm/yyyy. A bad row is reported (file, line, reason) and skipped; the rest is "
        "imported. Importing a case again replaces its parties, movements and documents in "
        "the tables sent (merge=true adds them instead); the report says what changed per "
        "case and which locations contradict the latest movement."
    ),
    responses={
        403: {"description": "The key is not an admin key of the tenant"},
        413: {"description": "A file is larger than COLMEIA_SERVICE_MAX_UPLOAD_MB"},
    },
)
async def import_cases(
    request: Request,
    principal: Admin,
    files: Annotated[list[UploadFile], File(description="CSV files named by table, or JSON")],
    merge: Annotated[
        bool, Query(description="Add rows to each case's instead of replacing them")
    ] = False,
) -> ImportOut:
    state = state_of(request)
    uploads = await read_uploads(
        files,
        max_mb=state.service.max_upload_mb,
        max_files=state.service.max_files_per_upload,
        max_csv_rows=state.service.max_csv_rows,
    )
    registry = state.tenants.registry(principal.tenant)
    report = await asyncio.to_thread(_import, registry, uploads, merge)
    return ImportOut(**report, counts=await registry.counts())


# -- reads ----------------------------------------------------------------------------------


@router.get("/counts", summary="How many cases, parties, movements… the registry holds")
async def counts(request: Request, principal: Caller) -> dict[str, int]:
    return await state_of(request).tenants.registry(principal.tenant).counts()


@router.get(
    "/cases",
    response_model=CasePage,
    summary="List and search cases, newest first, a page at a time",
)
async def list_cases(
    request: Request,
    principal: Caller,
    q: Annotated[
        str,
        Query(
            max_length=200,
            description="Text in the number, subject, class/type, unit, rapporteur or a "
            "party's name; a case number in any typing matches that case",
        ),
    ] = "",
    kind: Annotated[Literal["process", "expediente"] | None, Query()] = None,
    status: Annotated[str, Query(max_length=100, description="Text in the status")] = "",
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> CasePage:
    text = q
    if q.strip():
        try:
            text = parse_case_id(q).canonical
        except IdentifierError:
            pass  # not a case number: plain text
    registry = state_of(request).tenants.registry(principal.tenant)
    total, items = await asyncio.to_thread(
        registry.search, text, kind=kind, status=status, limit=limit, offset=offset
    )
    return CasePage(
        total=total,
        limit=limit,
        offset=offset,
        items=[CaseSummaryOut(**c.as_dict()) for c in items],
    )


@router.get(
    "/lookup",
    response_model=CaseOut,
    summary="Look up a case by its number as typed (`tc 1234/2024`, `EXP-2024-00123`)",
    responses={**_NOT_FOUND, **_INVALID},
)
async def lookup(
    request: Request,
    principal: Caller,
    number: Annotated[str, Query(min_length=1, max_length=100)],
) -> CaseOut:
    registry = state_of(request).tenants.registry(principal.tenant)
    return CaseOut(**await find_case(registry, number))


@router.get(
    "/cases/{number}",
    response_model=CaseOut,
    summary="A case: its record, where it is, parties, latest movements and documents",
    responses={**_NOT_FOUND, **_INVALID},
)
async def get_case(request: Request, principal: Caller, number: str) -> CaseOut:
    registry = state_of(request).tenants.registry(principal.tenant)
    return CaseOut(**await find_case(registry, number))


@router.get(
    "/cases/{number}/movements",
    response_model=TimelineOut,
    summary="A case's timeline: every movement between units, and where it is since when",
    responses={**_NOT_FOUND, **_INVALID},
)
async def timeline(
    request: Request,
    principal: Caller,
    number: str,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    order: Annotated[
        Literal["asc", "desc"], Query(description="asc: oldest first (a timeline)")
    ] = "asc",
) -> TimelineOut:
    case = case_id(number)
    registry = state_of(request).tenants.registry(principal.tenant)
    location = await registry.location(case)
    if location is None:
        raise _not_found(case)
    every = await registry.movements(case, limit=1_000_000)  # newest first
    if order == "asc":
        every.reverse()
    return TimelineOut(
        kind=case.kind,
        number=case.canonical,
        location=location.as_dict(),
        total=len(every),
        limit=limit,
        offset=offset,
        order=order,
        movements=[m.as_dict() for m in every[offset : offset + limit]],
    )
