"""An offline turn on the frame route without LangGraph: the same steps as the graph's nodes
(:mod:`.frame_steps`), run in order over the thread's state.

Without a model, ``begin`` reads the turn into its frame and the dispatcher decides it in
code; a law question then goes through the RAG agent's node and ``main`` delivers its answer;
``finish`` closes the turn. None of that needs the graph, and building it (LangGraph,
langchain_core, langsmith) was three quarters of the CLI's start-up. :class:`FrameTurns` runs
those steps and returns the thread's state after the turn, or ``None`` for every turn it cannot
take exactly as the graph would: a turn the frame route does not take (a subscription, an
attachment, the web search or a tool switched off), and a turn that waits for the person (a
clarification is a LangGraph interrupt, resumed only by the graph). The caller then runs the
turn on the graph instead.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from colmeia.apps.assistant.conversation import previous_question, thread_norms, thread_topic
from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.fast_threads import FastThreads, encode_state
from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.frame_steps import (
    apply_decision,
    closing,
    deliver_rag,
    fold,
    frame_routes,
    rag_step,
    told_cases,
)
from colmeia.apps.assistant.graph_state import AssistantState, Flags, GraphConfig
from colmeia.apps.assistant.offline import OFFLINE_MODEL
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.apps.assistant.turn_result import TurnResult, answered_result, check_thread
from colmeia.errors import InputError
from colmeia.graphs.messages import ChatMessage, new_id
from colmeia.llm.base import track_usage

__all__ = ["FrameTurns", "ask_without_graph", "turn_input"]

MAX_QUESTION_CHARS = 8000


def turn_input(
    text: str, flags: Flags | dict[str, bool] | None, attachments: Sequence[str] = ()
) -> dict[str, Any]:
    """What a new question writes into its thread (the graph's input): the person's message,
    not yet stamped with its turn, the flags and the attachments. Refuses an empty or an
    overlong question with :class:`InputError`."""
    if not isinstance(text, str) or not text.strip():
        raise InputError("the question is empty: type what you want to know")
    if len(text) > MAX_QUESTION_CHARS:
        raise InputError(
            f"the question has {len(text):,} characters; the limit is {MAX_QUESTION_CHARS:,}. "
            "Ask about one thing at a time"
        )
    f = flags if isinstance(flags, Flags) else Flags.from_dict(flags)
    return {
        "messages": [ChatMessage.user(text.strip(), id=new_id("u"))],
        "flags": f.as_dict(),
        "attachments": [str(Path(a)) for a in attachments],
    }


def _typed(state: dict[str, Any]) -> AssistantState:
    # the state as the graph's nodes read it (a TypedDict of the same keys)
    return cast("AssistantState", state)


class FrameTurns:
    """Offline turns on the frame route, run without the graph (see the module's text)."""

    def __init__(
        self,
        registry: CaseRegistry,
        rag: RagPipeline,
        config: GraphConfig | None = None,
        *,
        web_search: bool = False,
    ) -> None:
        self.config = config or GraphConfig()
        self.rag = rag
        self.dispatcher = Dispatcher(registry, rag, self.config.today)
        # whether a web search tool is configured (a turn that asks for it goes to the agents)
        self.web_search = web_search

    async def turn(
        self,
        state: dict[str, Any],
        text: str,
        flags: Flags | dict[str, bool] | None = None,
        attachments: Sequence[str] = (),
    ) -> dict[str, Any] | None:
        """The thread's state after the turn ``text`` (``state`` is the thread's state before
        it, ``{}`` for a new thread), or ``None`` when the graph must take the turn."""
        state = fold(state, turn_input(text, flags, attachments))
        # begin: stamp the question with its turn; the frame route decides it in code
        turn = int(state.get("turn", 0)) + 1
        fresh = [
            dataclasses.replace(m, turn=turn)
            for m in state.get("messages", [])
            if m.role == "user" and m.turn == 0
        ]
        said = fresh[-1].content if fresh else ""
        routed = frame_routes(
            Flags.from_dict(state.get("flags")),
            state.get("attachments") or [],
            said,
            web_search=self.web_search,
        )
        if not said or not routed:
            return None
        frame = read_frame(said, today=self.config.today)
        norms = thread_norms(state.get("answer"))
        decision = await self.dispatcher.decide(
            frame,
            state.get("cases", []),
            norms,
            told_cases(_typed(state)),
            previous_question(state.get("messages", []), turn),
            topic=thread_topic(state.get("answer")),
        )
        goto, update = apply_decision(decision, _typed(state), fresh, turn, offline=True)
        if goto not in ("rag", "finish"):  # "clarify": an interrupt only the graph resumes
            return None
        state = fold(state, update)
        if goto == "rag":
            _, update = await rag_step(self.rag, _typed(state))
            state = fold(state, update)
            # main: the RAG agent's answer is this turn's; main delivers it unchanged
            _, update = deliver_rag(_typed(state), state["rag"], offline=True)
            state = fold(state, update)
        return fold(state, closing(_typed(state), self.config.max_handoffs_per_turn))


async def ask_without_graph(
    threads: FastThreads,
    turns: FrameTurns,
    thread_id: str,
    text: str,
    flags: Flags | dict[str, bool] | None = None,
) -> TurnResult | None:
    """Ask ``text`` in ``thread_id`` on the fast path, its state kept in ``threads``; ``None``
    (nothing written) when the thread is already the graph's or the turn must be."""
    if threads.on_graph(check_thread(thread_id)):
        return None
    with track_usage() as tracker:
        after = await turns.turn(threads.load(thread_id) or {}, text, flags)
    data = encode_state(after) if after is not None else None
    if after is None or data is None:
        return None
    threads.save(thread_id, data, dt.datetime.now(dt.UTC).isoformat())
    # offline: the mode the graph's session reports, and no model settings
    return answered_result(thread_id, after, OFFLINE_MODEL, tracker.usage.as_dict(), {})
