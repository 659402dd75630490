"""Conversations with the assistant: ask, resume, list and delete threads.

An :class:`Assistant` runs the graph of :mod:`colmeia.apps.assistant.graph` over a
checkpointer, so a thread survives the process: ``ask`` a question in one process, and
``resume`` its pending approval or clarification in another. Every turn returns a
:class:`TurnResult` with a status, the answer, its citations or registry facts, the
handoffs and tool calls of the turn, and what the model calls cost.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from langgraph.types import Command

from colmeia.apps.assistant.fast_threads import adoptable, forget, prepare
from colmeia.apps.assistant.frame_turn import turn_input
from colmeia.apps.assistant.graph import AssistantGraph, Flags, GraphConfig
from colmeia.apps.assistant.graph_tools import ASKED_WITHOUT_A_QUESTION
from colmeia.apps.assistant.offline import OFFLINE_MODEL
from colmeia.apps.assistant.parts import case_registry, graph_config, rag_pipeline
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.rag_state import RagConfig
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.apps.assistant.sampling import FixedTemperature
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.apps.assistant.turn_result import TurnResult, answered_result, check_thread
from colmeia.errors import InputError
from colmeia.graphs.checkpoint import ThreadInfo, delete_thread, list_threads, open_checkpointer
from colmeia.graphs.hitl import parse_resume
from colmeia.graphs.streaming import STREAM_TOKENS
from colmeia.llm.base import ChatModel, track_usage
from colmeia.rag.index.embedders import Embedder
from colmeia.store.base import Store
from colmeia.tools.registry import Tool

__all__ = ["Assistant", "TurnResult", "open_assistant"]

log = logging.getLogger(__name__)


class Assistant:
    """The assistant over one checkpointer: threads persist across processes."""

    def __init__(
        self,
        model: ChatModel | None,
        registry: CaseRegistry,
        rag: RagPipeline,
        checkpointer: Any,
        *,
        web_search: Tool | None = None,
        config: GraphConfig | None = None,
        temperature: float | None = None,
    ) -> None:
        self.checkpointer = checkpointer
        # recorded with every turn (what the model calls were sent; see sampling.py)
        self.settings: dict[str, Any] = {} if model is None else {"temperature": temperature}
        self.graph = AssistantGraph(
            model, registry, rag, web_search=web_search, config=config, checkpointer=checkpointer
        )
        self.mode = OFFLINE_MODEL if model is None else "model"
        self._fast_table = False  # the fast path's table exists (see _adopt)
        # LangGraph's overloads do not accept our dict inputs; the state schema checks them.
        self._g: Any = self.graph.graph

    def _config(self, thread_id: str) -> dict[str, Any]:
        return {
            "configurable": {"thread_id": check_thread(thread_id)},
            "recursion_limit": self.graph.recursion_limit,
        }

    async def ask(
        self,
        thread_id: str,
        text: str,
        *,
        flags: Flags | dict[str, bool] | None = None,
        attachments: Sequence[str] = (),
    ) -> TurnResult:
        """Ask ``text`` in ``thread_id``.

        A thread waiting for the answer to its question ("Qual é o número?") takes ``text`` as
        that answer, as ``chat`` does: a person answers by typing, whichever command they use.
        A thread waiting for an approval is refused (approve or reject it with :meth:`resume`).
        """
        pending = await self.pending(thread_id)
        if pending is not None and pending.get("type") == "clarification":
            return await self.resume(thread_id, text)
        return await self._run(thread_id, self._input(text, flags, attachments))

    async def resume(self, thread_id: str, value: Any) -> TurnResult:
        """Answer what the thread waits for: an approval decision or a clarification text.

        ``value`` is checked first (:func:`colmeia.graphs.hitl.parse_resume`): a wrong kind
        of answer raises :class:`InputError` and leaves the thread as it was.
        """
        pending = await self.pending(thread_id)
        if pending is None:
            raise InputError(
                f"thread {thread_id!r} is not waiting for an approval or an answer; "
                "ask a new question instead"
            )
        return await self._run(thread_id, Command(resume=parse_resume(pending, value)))

    def _input(
        self, text: str, flags: Flags | dict[str, bool] | None, attachments: Sequence[str]
    ) -> dict[str, Any]:
        return turn_input(text, flags, attachments)

    async def _run(self, thread_id: str, payload: Any) -> TurnResult:
        config = self._config(thread_id)
        if not isinstance(payload, Command) and await self.pending(thread_id) is not None:
            raise InputError(
                f"thread {thread_id!r} is waiting for an approval; approve or reject it first "
                "(resume)"
            )
        with track_usage() as tracker:
            await self._g.ainvoke(payload, config)
        return await self._result(thread_id, tracker.usage.as_dict())

    async def events(
        self, thread_id: str, payload: dict[str, Any] | Command[Any]
    ) -> AsyncIterator[dict[str, Any]]:
        """Run a turn and yield what happens as it happens: tokens, handoffs, tool calls, the
        answer, and last ``{"type": "result", "result": TurnResult}``.

        ``payload`` is :meth:`make_input`'s value or a resume ``Command``. Answer text comes as
        ``{"type": "token", "agent", "text"}`` events while the model writes it, and
        ``{"type": "replace", "agent", "text", "reason"}`` when what was streamed does not stand
        (see :mod:`colmeia.graphs.streaming`). The text of the last ``replace`` (or ``""``)
        followed by the later tokens is, by the ``answer`` event, the answer — and ``""`` when
        the turn waits for a person. An answer nothing streamed (offline rules, the registry's
        own cards) comes as one token.
        """
        await self._adopt(thread_id)
        config = self._config(thread_id)
        config["configurable"][STREAM_TOKENS] = True
        shown = ""

        def settle(final: str, agent: str) -> dict[str, Any] | None:
            if shown == final:
                return None
            if not shown:
                return {"type": "token", "agent": agent, "text": final}
            return {"type": "replace", "agent": agent, "text": final, "reason": "final"}

        with track_usage() as tracker:
            async for mode, chunk in self._g.astream(
                payload, config, stream_mode=["updates", "custom"]
            ):
                if mode == "custom":  # a token or a replace (TokenStream is the only writer)
                    shown = chunk["text"] if chunk["type"] == "replace" else shown + chunk["text"]
                    yield chunk
                    continue
                for update in chunk.values():
                    for event in _events(update):
                        if event["type"] == "answer":
                            fix = settle(str(event["text"]), str(event.get("agent", "")))
                            if fix is not None:
                                # a token when nothing was shown, else a replace: shown is its text
                                shown = fix["text"]
                                yield fix
                        yield event
        result = await self._result(thread_id, tracker.usage.as_dict())
        if result.waiting is None:
            fix = settle(result.answer, result.agent)
        else:  # the question or the approval request is shown by itself, not as the answer
            fix = settle("", result.agent)
        if fix is not None:
            yield fix
        yield {"type": "result", "result": result}

    def make_input(
        self,
        text: str,
        flags: Flags | dict[str, bool] | None = None,
        attachments: Sequence[str] = (),
    ) -> dict[str, Any]:
        """The graph input for a new question (for :meth:`events`)."""
        return self._input(text, flags, attachments)

    async def resume_command(self, thread_id: str, value: Any) -> Command[Any]:
        """The checked resume ``Command`` for :meth:`events`."""
        pending = await self.pending(thread_id)
        if pending is None:
            raise InputError(f"thread {thread_id!r} is not waiting for anything")
        return Command(resume=parse_resume(pending, value))

    async def _adopt(self, thread_id: str | None = None) -> None:
        """Take over the threads the offline fast path began (:mod:`.fast_threads`): their
        state becomes their checkpoint, as if ``finish`` had just written it."""
        if type(self.checkpointer).__name__ != "AsyncSqliteSaver":
            return  # the fast path keeps threads in SQLite checkpoint databases only
        conn = self.checkpointer.conn
        if not self._fast_table:  # once per process, not on every turn
            await prepare(conn)
            self._fast_table = True
        for tid, state in await adoptable(conn, thread_id):
            config = self._config(tid)
            # a crash between the two writes below leaves both: the checkpoint stands
            if await self.checkpointer.aget_tuple(config) is None:
                await self._g.aupdate_state(config, state, as_node="finish")
                log.info("thread %s begun offline without the graph: adopted", tid)
            await forget(conn, tid)

    async def pending(self, thread_id: str) -> dict[str, Any] | None:
        """What the thread waits for (the interrupt's value), or ``None``."""
        await self._adopt(thread_id)
        snapshot = await self._g.aget_state(self._config(thread_id))
        for task in snapshot.tasks:
            for intr in task.interrupts:
                # the graph's two interrupts (colmeia.graphs.hitl) both send a dict
                return dict(intr.value)
        return None

    async def _result(self, thread_id: str, usage: dict[str, Any]) -> TurnResult:
        snapshot = await self._g.aget_state(self._config(thread_id))
        state: dict[str, Any] = dict(snapshot.values)
        turn = int(state.get("turn", 0))
        waiting = await self.pending(thread_id)
        handoffs = [h for h in state.get("handoffs", []) if h.get("turn") == turn]
        tools = [t for t in state.get("tool_log", []) if t.get("turn") == turn]
        if waiting is not None:
            kind = waiting.get("type", "")
            text = str(waiting.get("question") or waiting.get("description") or "")
            return TurnResult(
                thread_id,
                f"waiting_{kind}",
                text,
                str(waiting.get("agent", "")),
                # what the registry said so far: the list a "qual deles?" asks to pick from
                facts=list(state.get("evidence") or []),
                waiting=waiting,
                handoffs=handoffs,
                tools=tools,
                mode=self.mode,
                usage=usage,
                turn=turn,
                settings=dict(self.settings),
            )
        return answered_result(thread_id, state, self.mode, usage, self.settings)

    async def history(self, thread_id: str) -> list[dict[str, Any]]:
        """The conversation as the person saw it: questions, clarifications and answers."""
        await self._adopt(thread_id)
        snapshot = await self._g.aget_state(self._config(thread_id))
        out: list[dict[str, Any]] = []
        for m in snapshot.values.get("messages", []):
            if m.role == "user":
                out.append({"turn": m.turn, "role": "user", "text": m.content})
            elif m.role == "assistant" and m.kind in ("answer", "clarification"):
                out.append(
                    {"turn": m.turn, "role": "assistant", "agent": m.agent, "text": m.content}
                )
            elif m.role == "tool" and m.name == "ask_user":
                out.append({"turn": m.turn, "role": "user", "text": m.content.split(": ", 1)[-1]})
            elif m.role == "assistant":
                for c in m.tool_calls:
                    if c["name"] == "ask_user":
                        q = str(c["arguments"].get("question") or ASKED_WITHOUT_A_QUESTION)
                        out.append(
                            {"turn": m.turn, "role": "assistant", "agent": m.agent, "text": q}
                        )
        return out

    async def threads(self) -> list[ThreadInfo]:
        """Every thread, most recent first."""
        await self._adopt()
        return await list_threads(self.checkpointer)

    async def delete(self, thread_id: str) -> bool:
        """Delete a thread; ``False`` when there was none."""
        await self._adopt(check_thread(thread_id))
        return await delete_thread(self.checkpointer, check_thread(thread_id))


def _events(update: Any) -> list[dict[str, Any]]:
    if not isinstance(update, dict):  # "__interrupt__"'s is a tuple of interrupts: no event
        return []
    out: list[dict[str, Any]] = []
    for h in update.get("handoffs") or []:
        out.append({"type": "handoff", **h})
    for t in update.get("tool_log") or []:
        out.append({"type": "tool", **t})
    answer = update.get("answer")
    if isinstance(answer, dict) and answer.get("text"):
        out.append({"type": "answer", **answer})
    return out


@asynccontextmanager
async def open_assistant(
    *,
    store: Store,
    model: ChatModel | None,
    settings: AssistantSettings | None = None,
    home: Path = Path(".colmeia"),
    registry: CaseRegistry | None = None,
    checkpoints: str | None = None,
    web_search: Tool | None = None,
    rag_sources: Sequence[Path] = (),
    reranker: Any = None,
    today: dt.date | None = None,
    rag_config: RagConfig | None = None,
    embedder: Embedder | None = None,
) -> AsyncIterator[Assistant]:
    """An :class:`Assistant` with its registry and checkpointer opened from ``settings``;
    ``embedder`` (the one the collection was ingested with) makes its search hybrid."""
    from colmeia.graphs.messages import ChatMessage as _Msg

    s = settings or AssistantSettings()
    if model is not None and not isinstance(model, FixedTemperature):
        model = FixedTemperature(model, s.temperature)
    reg = registry if registry is not None else case_registry(s, home)
    url = checkpoints or s.checkpoints_url(home)
    config = graph_config(s, today)
    rag = rag_pipeline(
        store,
        s,
        model,
        reranker=reranker,
        rag_config=rag_config,
        rag_sources=rag_sources,
        embedder=embedder,
    )
    try:
        async with open_checkpointer(url, allowed=[_Msg]) as saver:
            yield Assistant(
                model,
                reg,
                rag,
                saver,
                web_search=web_search,
                config=config,
                temperature=s.temperature,
            )
    finally:
        if registry is None:
            await reg.close()
