"""The institutional assistant over HTTP: threads, messages streamed as server-sent events
(tokens, handoffs, tool calls, citations, approval and clarification requests), resume.

Each tenant has its own assistant: its own checkpoints (threads), case registry and document
collection, under the tenant's folder. The thread table of the service records which tenant owns
which thread and what it waits for (the approval queue).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any, Literal

import orjson
from fastapi import APIRouter, HTTPException, Query, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sse_starlette.sse import EventSourceResponse

from colmeia.errors import ColmeiaError, InputError
from colmeia.service.auth import Admin, Caller, Metered, Principal, state_of
from colmeia.service.names import ExistingName
from colmeia.service.state import ServiceState

router = APIRouter(prefix="/v1/assistant", tags=["assistant"])


class ThreadCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field(default="", max_length=200)
    collection: ExistingName | None = Field(
        default=None,
        description="Collection of official documents (default: COLMEIA_ASSISTANT_COLLECTION).",
    )


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=8000)
    flags: dict[str, bool] = Field(
        default_factory=dict,
        description="Capabilities on or off for this message, by short or long name: "
        "web (enable_web_search), system (enable_system_search), rag (enable_rag_processing); "
        "e.g. {'web': true}. An unknown name is refused (422).",
    )

    @field_validator("flags")
    @classmethod
    def _known_flags(cls, value: dict[str, bool]) -> dict[str, bool]:
        from colmeia.apps.assistant.graph import Flags

        try:
            return Flags.parse(value).as_dict() if value else {}
        except InputError as exc:
            raise ValueError(str(exc)) from None


class ResumeIn(BaseModel):
    """An approval decision, or the answer to a clarification question."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["approve", "reject", "edit"] | None = None
    arguments: dict[str, Any] | None = None
    text: str | None = Field(default=None, max_length=8000)


class ThreadOut(BaseModel):
    id: str
    title: str
    collection: str
    status: str
    pending: dict[str, Any] | None
    shared: bool = False
    created_at: float
    updated_at: float


def _thread_out(row: dict[str, Any]) -> ThreadOut:
    meta = orjson.loads(row["pending"]) if row["pending"] else {}
    return ThreadOut(
        id=row["id"],
        title=row["title"],
        collection=str(meta.get("collection", "")),
        status=row["status"],
        pending=meta.get("waiting"),
        shared=bool(meta.get("shared")),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _meta(row: dict[str, Any]) -> dict[str, Any]:
    meta = orjson.loads(row["pending"]) if row["pending"] else {}
    return meta if isinstance(meta, dict) else {}


def _visible(row: dict[str, Any], principal: Principal) -> bool:
    """A thread belongs to the key (or user) that made it; an admin of the tenant sees all,
    and a thread an admin shared is open to the whole tenant."""
    return (
        row["created_by"] == principal.actor
        or principal.role == "admin"
        or bool(_meta(row).get("shared"))
    )


def _row(state: ServiceState, principal: Principal, thread_id: str) -> dict[str, Any]:
    row = state.db.one(
        "SELECT * FROM threads WHERE id = ? AND tenant_id = ?", (thread_id, principal.tenant)
    )
    # another user's thread is answered like a missing one: its id tells nothing
    if row is None or not _visible(row, principal):
        raise HTTPException(404, f"no thread {thread_id!r}")
    return row


def _collection_of_name(name: str) -> str | None:
    from colmeia.store.base import NAME_RULE, name_problem

    problem = name_problem(name)
    return None if problem is None else f"{problem}; use {NAME_RULE}"


def _collection_usable(state: ServiceState, tenant: str, name: str) -> None:
    """A thread's collection: one of the tenant's, or a valid name for one to be made later
    (``leis;DROP`` is neither: 422 naming the field)."""
    if state.tenants.store(tenant).collection(name) is not None:
        return
    problem = _collection_of_name(name)
    if problem is not None:
        raise HTTPException(
            422,
            [
                {
                    "loc": ["body", "collection"],
                    "msg": f"collection {name[:64]!r} does not exist and is not a valid name: "
                    f"{problem}",
                    "type": "value_error",
                }
            ],
        )


def _collection_of(row: dict[str, Any]) -> str:
    meta = orjson.loads(row["pending"]) if row["pending"] else {}
    return str(meta.get("collection", ""))


async def assistant_for(state: ServiceState, tenant: str, collection: str) -> Any:
    """The tenant's assistant over ``collection`` (opened once per process)."""
    from colmeia.apps.assistant.session import open_assistant
    from colmeia.apps.assistant.settings import AssistantSettings

    key = (tenant, collection)
    cache: dict[tuple[str, str], Any] = state.extras.setdefault("assistants", {})
    lock: asyncio.Lock = state.extras.setdefault("assistants_lock", asyncio.Lock())
    async with lock:
        if key not in cache:
            store = state.tenants.store(tenant)
            if store.collection(collection) is None:
                raise HTTPException(
                    409,
                    f"the assistant reads the collection {collection!r}, which does not exist "
                    "yet: upload the official documents to it first",
                )
            settings = AssistantSettings(collection=collection, registry=None, checkpoints=None)
            home = state.tenants.folder(tenant)
            # each tenant has a case registry of its own (empty until it imports its cases
            # through /v1/registry/import), shared with the registry API
            registry = state.tenants.registry(tenant)
            web = None
            if state.settings.search.url:
                from colmeia.tools.builtins.web_search import web_search_tool

                web = web_search_tool(state.settings.search)
            cache[key] = await state.closers.enter_async_context(
                open_assistant(
                    store=store,
                    model=state.model,
                    settings=settings,
                    home=home,
                    registry=registry,
                    web_search=web,
                    embedder=state.embedder(),
                )
            )
        return cache[key]


def _busy(state: ServiceState, tenant: str, thread_id: str) -> asyncio.Lock:
    locks: dict[tuple[str, str], asyncio.Lock] = state.extras.setdefault("thread_locks", {})
    return locks.setdefault((tenant, thread_id), asyncio.Lock())


def _record(state: ServiceState, row: dict[str, Any], result: dict[str, Any]) -> None:
    current = state.db.one("SELECT pending FROM threads WHERE id = ?", (row["id"],))
    meta = {**_meta(current or row), "waiting": result.get("waiting")}
    status = str(result.get("status") or "answered")
    state.db.execute(
        "UPDATE threads SET status = ?, pending = ?, updated_at = ? WHERE id = ?",
        (status, orjson.dumps(meta).decode(), time.time(), row["id"]),
    )


def _marked(result: dict[str, Any]) -> dict[str, Any]:
    usage = result.get("usage") or {}
    return {**result, "simulated": bool(usage.get("simulated"))}


@router.post("/threads", response_model=ThreadOut, status_code=201, summary="Start a thread")
async def create_thread(request: Request, body: ThreadCreate, principal: Caller) -> ThreadOut:
    from colmeia.apps.assistant.settings import AssistantSettings

    state = state_of(request)
    collection = body.collection or AssistantSettings().collection
    if body.collection is not None:
        await asyncio.to_thread(_collection_usable, state, principal.tenant, body.collection)
    now = time.time()
    thread_id = uuid.uuid4().hex
    meta = orjson.dumps({"collection": collection, "waiting": None}).decode()
    await asyncio.to_thread(
        state.db.execute,
        "INSERT INTO threads(id, tenant_id, title, created_by, status, pending, created_at,"
        " updated_at) VALUES (?, ?, ?, ?, 'idle', ?, ?, ?)",
        (thread_id, principal.tenant, body.title, principal.actor, meta, now, now),
    )
    return _thread_out(await asyncio.to_thread(_row, state, principal, thread_id))


@router.get("/threads", response_model=list[ThreadOut], summary="The tenant's threads")
async def list_threads(
    request: Request, principal: Caller, limit: int = Query(100, ge=1, le=1000)
) -> list[ThreadOut]:
    rows = await asyncio.to_thread(
        state_of(request).db.query,
        "SELECT * FROM threads WHERE tenant_id = ? ORDER BY updated_at DESC",
        (principal.tenant,),
    )
    return [_thread_out(r) for r in rows if _visible(r, principal)][:limit]


@router.get(
    "/pending",
    response_model=list[ThreadOut],
    summary="The approval and clarification queue: threads waiting for a person",
)
async def pending(request: Request, principal: Caller) -> list[ThreadOut]:
    rows = await asyncio.to_thread(
        state_of(request).db.query,
        "SELECT * FROM threads WHERE tenant_id = ? AND status LIKE 'waiting%' ORDER BY updated_at",
        (principal.tenant,),
    )
    return [_thread_out(r) for r in rows if _visible(r, principal)]


@router.get("/threads/{thread_id}", summary="A thread with its conversation so far")
async def get_thread(request: Request, thread_id: str, principal: Caller) -> dict[str, Any]:
    state = state_of(request)
    row = await asyncio.to_thread(_row, state, principal, thread_id)
    out = _thread_out(row).model_dump()
    if row["status"] == "idle":
        return {**out, "messages": []}
    assistant = await assistant_for(state, principal.tenant, _collection_of(row))
    return {**out, "messages": await assistant.history(thread_id)}


@router.post(
    "/threads/{thread_id}/share",
    response_model=ThreadOut,
    summary="Share a thread with every key and user of the tenant (admin)",
)
async def share_thread(request: Request, thread_id: str, principal: Admin) -> ThreadOut:
    state = state_of(request)
    row = await asyncio.to_thread(_row, state, principal, thread_id)
    meta = orjson.dumps({**_meta(row), "shared": True}).decode()
    await asyncio.to_thread(
        state.db.execute, "UPDATE threads SET pending = ? WHERE id = ?", (meta, thread_id)
    )
    return _thread_out(await asyncio.to_thread(_row, state, principal, thread_id))


@router.delete("/threads/{thread_id}", status_code=204, summary="Delete a thread")
async def delete_thread(request: Request, thread_id: str, principal: Caller) -> None:
    state = state_of(request)
    row = await asyncio.to_thread(_row, state, principal, thread_id)
    if row["status"] != "idle":
        try:
            assistant = await assistant_for(state, principal.tenant, _collection_of(row))
            await assistant.delete(thread_id)
        except HTTPException:
            pass  # its collection is gone; the thread row still goes
    await asyncio.to_thread(
        state.db.execute,
        "DELETE FROM threads WHERE id = ? AND tenant_id = ?",
        (thread_id, principal.tenant),
    )


async def _turn(
    request: Request,
    principal: Principal,
    thread_id: str,
    make_payload: Any,
) -> Any:
    state = state_of(request)
    row = await asyncio.to_thread(_row, state, principal, thread_id)
    assistant = await assistant_for(state, principal.tenant, _collection_of(row))
    lock = _busy(state, principal.tenant, thread_id)
    if lock.locked():
        raise HTTPException(409, "this thread is answering another message; wait for it")
    try:
        payload = await make_payload(assistant)
    except InputError as exc:
        raise HTTPException(409, str(exc)) from exc

    if "text/event-stream" not in request.headers.get("accept", ""):
        async with lock:
            result: dict[str, Any] = {}
            async for event in assistant.events(thread_id, payload):
                if event["type"] == "result":
                    result = event["result"].as_dict()
            await asyncio.to_thread(_record, state, row, result)
        return _marked(result)

    async def stream() -> AsyncIterator[dict[str, str]]:
        async with lock:
            try:
                async for event in assistant.events(thread_id, payload):
                    for name, data in _sse(event):
                        if name == "result":
                            await asyncio.to_thread(_record, state, row, data)
                            data = _marked(data)
                        yield {"event": name, "data": orjson.dumps(data, default=str).decode()}
            except ColmeiaError as exc:
                yield {"event": "error", "data": orjson.dumps({"detail": str(exc)}).decode()}

    return EventSourceResponse(stream(), ping=15)


def _sse(event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The assistant's events as SSE events: ``token`` as the model writes, ``replace`` when
    what was streamed does not stand (the page shows ``text`` instead and keeps appending the
    tokens after it), handoffs and tool calls as they happen, then citations, then the result."""
    kind = event.get("type")
    if kind == "result":
        result = event["result"].as_dict()
        out: list[tuple[str, dict[str, Any]]] = []
        waiting = result.get("waiting")
        if waiting:
            out.append((str(waiting.get("type", "waiting")), waiting))
        out.append(("result", result))
        return out
    if kind == "answer":
        # the answer's text came as token (and replace) events while it was written
        return [("citation", c) for c in event.get("citations", [])]
    if kind in ("token", "replace", "handoff", "tool"):
        return [(str(kind), {k: v for k, v in event.items() if k != "type"})]
    return []


@router.post(
    "/threads/{thread_id}/messages",
    summary="Ask in a thread; JSON, or server-sent events with `Accept: text/event-stream`",
    responses={409: {"description": "The thread waits for an approval or answer, or is busy"}},
)
async def post_message(
    request: Request, thread_id: str, body: MessageIn, principal: Metered
) -> Any:
    async def payload(assistant: Any) -> Any:
        if await assistant.pending(thread_id) is not None:
            raise InputError(
                "this thread waits for an approval or an answer: resume it first "
                f"(POST /v1/assistant/threads/{thread_id}/resume)"
            )
        return assistant.make_input(body.text, body.flags)

    return await _turn(request, principal, thread_id, payload)


@router.post(
    "/threads/{thread_id}/resume",
    summary="Approve/reject/edit a pending tool call, or answer a clarification",
    responses={409: {"description": "The thread waits for nothing, or for another kind of answer"}},
)
async def resume(request: Request, thread_id: str, body: ResumeIn, principal: Metered) -> Any:
    async def payload(assistant: Any) -> Any:
        if body.action is not None:
            value: Any = {"action": body.action}
            if body.arguments is not None:
                value["arguments"] = body.arguments
        elif body.text is not None:
            value = body.text
        else:
            raise InputError("send an action (approve, reject, edit) or a text answer")
        return await assistant.resume_command(thread_id, value)

    return await _turn(request, principal, thread_id, payload)
