"""Run an agent (ReAct, Plan-and-Solve, Reflection) on a task with tools the caller picks.

Tools: ``calculator``; ``web`` when a search API is configured; ``documents``: search the
tenant's own collections. ``Accept: text/event-stream`` streams each step as it happens.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any, Literal

import orjson
from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette.sse import EventSourceResponse

from colmeia.agents.factory import make_agent
from colmeia.agents.trace import RunStatus, Step, Trace
from colmeia.errors import ConfigurationError
from colmeia.llm.base import track_usage
from colmeia.service.auth import Metered, Principal, state_of
from colmeia.service.public import MODEL_FAILED, public_text, redacted
from colmeia.service.routers.search import retriever_for
from colmeia.service.state import NO_MODEL, ServiceState
from colmeia.tools.registry import Tool

router = APIRouter(prefix="/v1/agents", tags=["agents"])
log = logging.getLogger("colmeia.service")

ToolName = Literal["calculator", "web", "documents"]


def _default_tools() -> list[ToolName]:
    return ["calculator"]


class AgentRun(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task: str = Field(min_length=1, max_length=8000)
    paradigm: Literal["react", "plan", "reflect"] = "react"
    tools: list[ToolName] = Field(default_factory=_default_tools, max_length=3)
    max_steps: int = Field(default=8, ge=1, le=30)
    deadline_s: float = Field(default=120.0, ge=1.0, le=600.0)


def documents_tool(state: ServiceState, principal: Principal) -> Tool:
    """Search the caller's collections (and only theirs)."""

    async def search_documents(query: str, k: int = 5) -> str:
        """Search the organisation's documents; returns the best passages with their sources.

        Args:
            query: what to look for, in a few words.
            k: how many passages (1-10).
        """
        try:
            retriever = retriever_for(state, principal, [])
        except HTTPException as exc:
            return f"no documents to search: {exc.detail}"
        hits = await retriever.asearch(query, max(1, min(10, k)))
        return "\n\n".join(f"[{h.citation.label()}]\n{h.text}" for h in hits) or "nothing found"

    return Tool.from_function(search_documents, name="search_documents")


def _tools(state: ServiceState, principal: Principal, names: list[ToolName]) -> list[Tool]:
    from colmeia.tools.builtins import builtin_tools

    out: list[Tool] = []
    for name in dict.fromkeys(names):
        if name == "documents":
            out.append(documents_tool(state, principal))
        elif name == "web" and not state.settings.search.url:
            raise HTTPException(422, "the web tool is not configured here (COLMEIA_SEARCH_URL)")
        else:
            out.extend(builtin_tools([name], state.settings.search))
    return out


def _result(trace: Trace, usage: dict[str, Any], rid: str) -> dict[str, Any]:
    """The trace a caller may read: a model failure as a stable code and message (its
    address and exception in the log under the request id), no internals in any step."""
    data = trace.to_dict()
    error = str(data.get("error") or "")
    if error:
        log.error("request %s: the agent run ended with: %s", rid, error)
        model = trace.status == RunStatus.MODEL_ERROR
        data["error"] = MODEL_FAILED if model else public_text(error, where=f"request {rid}")
        data["error_code"] = "model_failed" if model else "agent_failed"
    data = redacted(data)
    return {**data, "simulated": bool(usage.get("simulated")), "usage": usage, "request_id": rid}


def _step(step: Step) -> str:
    return orjson.dumps(redacted(step.to_dict()), default=str).decode()


@router.post(
    "/run",
    summary="Run an agent; JSON trace, or its steps as server-sent events",
    responses={503: {"description": "No language model is configured"}},
)
async def run_agent(request: Request, body: AgentRun, principal: Metered) -> Any:
    state = state_of(request)
    rid = str(getattr(request.state, "request_id", ""))
    if state.model is None:
        raise HTTPException(503, NO_MODEL)
    try:
        tools = _tools(state, principal, body.tools)
        agent = make_agent(
            body.paradigm,
            state.model,
            tools,
            max_steps=body.max_steps,
            deadline=body.deadline_s,
        )
    except ConfigurationError as exc:
        raise HTTPException(422, str(exc)) from exc
    if "text/event-stream" not in request.headers.get("accept", ""):
        with track_usage() as tracker:
            trace = await agent.run(body.task)
        return _result(trace, tracker.usage.as_dict(), rid)

    async def events() -> AsyncIterator[dict[str, str]]:
        queue: asyncio.Queue[Step | None] = asyncio.Queue()
        with track_usage() as tracker:
            running = asyncio.create_task(agent.run(body.task, on_step=queue.put_nowait))
            running.add_done_callback(lambda _t: queue.put_nowait(None))
            while (step := await queue.get()) is not None:
                yield {"event": "step", "data": _step(step)}
            trace = await running
        data = orjson.dumps(_result(trace, tracker.usage.as_dict(), rid), default=str).decode()
        yield {"event": "result", "data": data}

    return EventSourceResponse(events())
