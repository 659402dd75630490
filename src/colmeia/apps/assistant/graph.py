"""The assistant's graph: a swarm of three agents with handoffs and a human in the loop.

::

                 ┌──────────────────────── active agent (kept per thread) ─────────────┐
    START → begin ┤                                                                     │
                 ├→ main ⇄ main_tools ── transfer_to_rag (task) ──→ rag ── result ──→ main
                 │        │  ask_user ↘                                                  │
                 │        └─ transfer_to_search (whole conversation) ─→ search          │
                 └→ search ⇄ search_tools ── side effect → approve (interrupt) ─→ search │
                          │    ask_user → clarify (interrupt) → asking agent             │
                          └─ transfer_to_main ─→ main                                    │
    every final answer, the handoff cap and the step cap → finish → END ────────────────┘

* **main** (coordinator, entry point) answers general questions and decides handoffs;
* **rag** is the RAG pipeline (:mod:`colmeia.apps.assistant.rag_agent`): it gets a task,
  not the conversation, and hands a cited answer back to main, which delivers it unchanged
  (re-phrasing would undo the citation checks);
* **search** reads the case registry (and the web, with approval). Its tools return the
  registry's records; the model only phrases them, and the phrasing is checked against
  them (:func:`~colmeia.apps.assistant.cases.check_case_answer`) — if it adds anything, or
  if nothing was found, the answer is the registry's own card.

Most turns never reach the agents: ``begin`` reads the turn into its frame (the classifier's,
or with a model where it is unsure the model's, validated — :mod:`.model_frame`) and the
dispatcher (:mod:`.dispatch`) decides in code, offline and with a model alike. The agents'
route above takes subscriptions, attachments, turns with a capability switched off, and every
turn with ``routing="agents"``.

Caps are enforced by counters in the state (handoffs and model calls per turn), never by
asking a model; ``recursion_limit`` is a backstop set from them.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from colmeia.apps.assistant.conversation import (
    context_block,
    previous_question,
    resolve_follow_up,
    thread_norms,
    thread_topic,
)
from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.fallback import (
    ranker_pipeline,
)
from colmeia.apps.assistant.frame import TurnFrame, read_frame
from colmeia.apps.assistant.frame_steps import frame_routes, told_cases
from colmeia.apps.assistant.graph_replies import Replies
from colmeia.apps.assistant.graph_state import (
    _PKG,
    AGENTS,
    FLAG_NAMES,
    AgentName,
    AssistantState,
    Flags,
    GraphConfig,
    fresh_turn_state,
)
from colmeia.apps.assistant.model_frame import frame_by_model
from colmeia.apps.assistant.offline import (
    RulesModel,
    mentions_case_and_norm,
    split_mixed,
)
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.apps.assistant.routing import legal_route
from colmeia.apps.assistant.scope import out_of_scope
from colmeia.errors import ModelError
from colmeia.graphs.messages import ChatMessage
from colmeia.graphs.streaming import token_stream
from colmeia.graphs.views import build_view
from colmeia.llm.base import ChatModel, stream_to
from colmeia.llm.prompts import render_prompt
from colmeia.tools.registry import Tool

__all__ = ["AGENTS", "FLAG_NAMES", "AssistantGraph", "AssistantState", "Flags", "GraphConfig"]

log = logging.getLogger(__name__)


class AssistantGraph(Replies):
    """Builds and holds the compiled graph; one per process (it is stateless per thread)."""

    def __init__(
        self,
        model: ChatModel | None,
        registry: CaseRegistry,
        rag: RagPipeline,
        *,
        web_search: Tool | None = None,
        config: GraphConfig | None = None,
        checkpointer: Any = None,
    ) -> None:
        self.model: ChatModel = model if model is not None else RulesModel()
        self.offline = model is None
        self.registry = registry
        self.rag_pipeline = rag
        self.web_search = web_search
        self.config = config or GraphConfig()
        self.dispatcher = Dispatcher(registry, rag, self.config.today)
        # what a turn the model leaves unanswered falls back to (the ranking, no model)
        self._ranker = ranker_pipeline(rag) if model is not None else None
        self.graph = self._build().compile(checkpointer=checkpointer, name="assistant")

    @property
    def recursion_limit(self) -> int:
        c = self.config
        return 4 * c.max_steps_per_turn + 3 * c.max_handoffs_per_turn + 20

    # ------------------------------------------------------------------ tools per agent

    # ------------------------------------------------------------------ nodes
    async def begin(self, state: AssistantState) -> Command[str]:
        """A new turn: stamp the question with the turn, reset the per-turn counters."""
        turn = state.get("turn", 0) + 1
        fresh = [
            dataclasses.replace(m, turn=turn)
            for m in state.get("messages", [])
            if m.role == "user" and m.turn == 0
        ]
        active = state.get("active_agent") or "main"
        if active not in ("main", "search"):
            active = "main"
        text = fresh[-1].content if fresh else ""
        by_frame = self.offline or self.config.routing == "frame"
        if by_frame and fresh and text and self._frame_routes(state, text):
            # the turn is read into its frame and dispatched in code (frame, dispatch); with
            # a model, the model fills the frame where the classifier is unsure (model_frame)
            frame = await self._read_frame(state, text)
            # the previous turn's answer is still in the state until this turn resets it
            norms = thread_norms(state.get("answer"))
            decision = await self.dispatcher.decide(
                frame,
                state.get("cases", []),
                norms,
                told_cases(state),
                previous_question(state.get("messages", []), turn),
                topic=thread_topic(state.get("answer")),
            )
            return self._apply(decision, state, fresh, turn)
        scope = out_of_scope(text) if fresh else None
        if scope is not None:  # weather, sport, "list every process", "show your prompt"
            msg = ChatMessage.assistant(scope.text, agent="main", turn=turn, kind="answer")
            return Command(
                goto="finish",
                update={
                    **fresh_turn_state(turn),
                    "messages": [*fresh, msg],
                    "answer": {
                        "text": scope.text,
                        "agent": "main",
                        "citations": [],
                        "facts": [],
                        "notes": [],
                        "scope": scope.kind,
                    },
                    "status": "answered",
                },
            )
        reading = await self._reply_to_answer(state, text)
        if reading:
            # the last answer asked for the number in words (not with ask_user): the person's
            # "32/2023" is that number, read as ask_user's replies are
            fresh[-1] = dataclasses.replace(fresh[-1], content=f"{text} (lido como {reading})")
        parts = split_mixed(text)
        if parts is None and not self.offline and mentions_case_and_norm(text):
            parts = await self._model_split(text)
        ruled = await self._rules_route(state, text, parts is not None or bool(reading))
        return Command(
            goto="rag" if ruled else active,
            update={
                **fresh_turn_state(turn),
                "messages": fresh,
                "active_agent": active,
                "turn_handoffs": 1 if ruled else 0,
                "status": "running",
                "mixed": {"case": parts[0], "law": parts[1]} if parts else None,
                **(ruled or {}),
            },
        )

    async def _read_frame(self, state: AssistantState, text: str) -> TurnFrame:
        """The turn's frame: the classifier's offline; with a model, the model's where the
        classifier is unsure, its slots validated by the parsers."""
        if self.offline:
            return read_frame(text, today=self.config.today)
        reading = await frame_by_model(
            self.model,
            text,
            state.get("cases", []),
            today=self.config.today,
            below=self.config.frame_by_model_below,
        )
        log.info(
            "turn frame by the %s: %s/%s", reading.by, reading.frame.intent, reading.frame.aspect
        )
        return reading.frame

    def _frame_routes(self, state: AssistantState, text: str) -> bool:
        """Whether the frame's dispatcher takes the turn (:func:`.frame_steps.frame_routes`)."""
        flags = Flags.from_dict(state.get("flags"))
        attachments = state.get("attachments") or []
        return frame_routes(flags, attachments, text, web_search=self.web_search is not None)

    async def _rules_route(
        self, state: AssistantState, text: str, case_part: bool
    ) -> dict[str, Any] | None:
        """With a model, a question the rules are confident is about the laws (and has no case
        part) goes straight to the RAG agent (:mod:`colmeia.apps.assistant.routing`); the
        handoff record says the rules decided it and why. Offline the rules route anyway."""
        flags = Flags.from_dict(state.get("flags"))
        if self.offline or case_part or not flags.enable_rag_processing:
            return None
        question = resolve_follow_up(text, state.get("cases", []))
        earlier = state.get("turn", 0) > 0
        ruled = await legal_route(question, self.rag_pipeline, earlier_turns=earlier)
        if ruled is None:
            return None
        record = {
            "from": "main",
            "to": "rag",
            "kind": "task",
            "reason": ruled.why,
            "task": question,
            "context": "",
            "turn": state.get("turn", 0) + 1,
            "call_id": "",
            "by": "rules",
        }
        return {"handoff": record, "handoffs": [record]}

    def _instructions(self, agent: AgentName, flags: Flags) -> str:
        web = flags.enable_web_search and self.web_search is not None
        if agent == "main":
            return render_prompt(
                _PKG,
                "main.j2",
                rag=flags.enable_rag_processing,
                search=flags.enable_system_search or web,
                web=web,
            )
        return render_prompt(_PKG, "search.j2", registry=flags.enable_system_search, web=web)

    async def _agent(
        self, agent: AgentName, state: AssistantState, config: RunnableConfig | None = None
    ) -> Command[str]:
        turn = state.get("turn", 0)
        flags = Flags.from_dict(state.get("flags"))
        if agent == "main":
            rag = state.get("rag")
            if rag is not None and rag.get("turn") == turn:
                return self._deliver_rag(state, rag)
            split = self._split_route(state, flags)
            if split is not None:
                return split
        steps = state.get("turn_steps", 0)
        if steps >= self.config.max_steps_per_turn:
            return Command(goto="finish", update={"status": "step_limit"})
        context = context_block(state.get("cases", []), state.get("case_facts", {}))
        instructions = self._instructions(agent, flags)
        view = build_view(
            state.get("messages", []),
            agent=agent,
            instructions=f"{instructions}\n\n{context}" if context else instructions,
            turn=turn,
            budget_tokens=self.config.history_tokens,
            handoff=state.get("handoff"),
        )
        # The step may end in an answer the person reads: stream it (provisionally, see
        # colmeia.graphs.streaming) and settle it below once the step's outcome is known.
        tokens = token_stream(config, agent)
        try:
            with stream_to(tokens):
                result = await self.model.chat(
                    view.messages,
                    tools=self.tools_for(agent, flags),
                    max_tokens=self.config.max_answer_tokens,
                )
        except ModelError as exc:
            log.info("agent %s: model error: %s", agent, exc)
            if tokens is not None:
                tokens.settle("", "model_error")
            return Command(
                goto="finish",
                update={
                    "status": "error",
                    "answer": {
                        "text": "O modelo de linguagem não respondeu; tente novamente em instantes.",
                        "agent": agent,
                        "error": f"{type(exc).__name__}: {exc}",
                    },
                },
            )
        calls = self._override(agent, result.tool_calls, view.messages, flags, state)
        content = result.content if calls is result.tool_calls else ""
        from_context = not calls and self._answers_from_context(agent, content, state)
        if not calls and not from_context:
            calls = self._guard(agent, view.messages, state, flags)
            if calls:  # the model's text is not delivered: it skipped the registry or the laws
                log.info("agent %s answered directly; guarded route %s", agent, calls[0].name)
                content = ""
        msg = ChatMessage.assistant(content, agent=agent, turn=turn, tool_calls=calls)
        update: dict[str, Any] = {"turn_steps": steps + 1}
        if calls:
            if tokens is not None:  # text before a tool call, or a reply a guard set aside
                tokens.settle("", "guarded_route" if content != result.content else "tool_call")
            update["messages"] = [msg]
            return Command(goto=f"{agent}_tools", update=update)
        answer = self._final(agent, result.content, state)
        if from_context:
            answer["facts"] = [state.get("case_facts", {})[n] for n in state.get("cases", [])[:1]]
        more = self._next_part(agent, answer, state, flags)
        if more is not None:
            if tokens is not None:
                tokens.settle("", "tool_call")
            return more
        if tokens is not None:
            tokens.settle(answer["text"], "registry_check" if "replaced" in answer else "final")
        msg.content = answer["text"]
        msg.kind = "answer"
        update.update(messages=[msg], answer=answer, status="answered")
        update.update(self._remembered(state, answer.get("facts") or []))
        return Command(goto="finish", update=update)

    async def main(self, state: AssistantState, config: RunnableConfig) -> Command[str]:
        return await self._agent("main", state, config)

    async def search(self, state: AssistantState, config: RunnableConfig) -> Command[str]:
        return await self._agent("search", state, config)

    # ------------------------------------------------------------------ wiring
    def _build(self) -> StateGraph[AssistantState]:
        g: StateGraph[AssistantState] = StateGraph(AssistantState)
        g.add_node("begin", self.begin, destinations=("main", "search", "rag", "finish"))
        g.add_node("main", self.main, destinations=("main_tools", "search", "finish"))
        g.add_node("search", self.search, destinations=("search_tools", "rag", "finish"))
        g.add_node(
            "main_tools",
            self.main_tools,
            destinations=("main", "rag", "search", "approve", "clarify", "finish"),
        )
        g.add_node(
            "search_tools",
            self.search_tools,
            destinations=("search", "main", "rag", "approve", "clarify", "finish"),
        )
        g.add_node("approve", self.approve, destinations=("approve", "main", "search"))
        g.add_node("clarify", self.clarify, destinations=("main", "search"))
        g.add_node("rag", self.rag, destinations=("main",))
        g.add_node("finish", self.finish)
        g.add_edge(START, "begin")
        g.add_edge("finish", END)
        return g
