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

Caps are enforced by counters in the state (handoffs and model calls per turn), never by
asking a model; ``recursion_limit`` is a backstop set from them.
"""

from __future__ import annotations

import dataclasses
import logging
import uuid
from collections.abc import Sequence
from typing import Any

import orjson
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from colmeia.apps.assistant.cases import (
    case_answer,
    case_card,
    check_case_answer,
    evidence_cards,
    lookup_case,
    search_cases,
    search_terms,
)
from colmeia.apps.assistant.conversation import (
    aspect_of,
    context_block,
    remember,
    resolve_follow_up,
)
from colmeia.apps.assistant.court_rules import local_case
from colmeia.apps.assistant.dispatch import Decision, Dispatcher
from colmeia.apps.assistant.fallback import (
    UNANSWERED,
    fallback_answer,
    ranker_pipeline,
    unanswered,
)
from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.graph_rules import (
    _FOLLOW,
    _PICK,
    _REGISTRY_TOOLS,
    _STATED_ASPECTS,
    _answered_calls,
    _asked_part,
    _describe,
    _expected_kind,
    _guard_call,
    _is_json_payload,
    _named,
    _once_per_case,
    _pick,
    _Split,
    _states_aspect,
)
from colmeia.apps.assistant.graph_state import (
    _ASK_USER,
    _LOOKUP,
    _MOVEMENTS,
    _PKG,
    _SEARCH_CASES,
    _SUBSCRIBE,
    _TO_MAIN,
    _TO_RAG,
    _TO_SEARCH,
    AGENTS,
    FLAG_NAMES,
    AgentName,
    AssistantState,
    Flags,
    GraphConfig,
    _as_tool_text,
    _last_calls,
)
from colmeia.apps.assistant.ids import (
    CaseId,
    CaseKind,
    IdentifierError,
    bare_number,
    find_case_ids,
    mentions_case_words,
    read_case_id,
    read_case_ids,
)
from colmeia.apps.assistant.invented import invented_lookups, numbers_given
from colmeia.apps.assistant.offline import (
    ASK_NUMBER,
    OFFLINE_MODEL,
    RulesModel,
    asks_about_unnumbered_case,
    asks_for_updates,
    current_request,
    describes_a_case,
    mentions_case_and_norm,
    mentions_norm,
    route_of,
    split_mixed,
)
from colmeia.apps.assistant.rag_agent import RagPipeline, analyze_query
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.apps.assistant.routing import legal_route
from colmeia.apps.assistant.scope import out_of_scope
from colmeia.errors import ColmeiaError, ModelError
from colmeia.graphs.handoff import Handoff, handoff_command, plan_tool_calls
from colmeia.graphs.hitl import (
    ApprovalRequest,
    Clarification,
    ask_approval,
    ask_clarification,
    idempotency_key,
)
from colmeia.graphs.messages import ChatMessage
from colmeia.graphs.streaming import token_stream
from colmeia.graphs.views import build_view
from colmeia.llm.base import ChatModel, Message, ToolCall, ToolSpec, stream_to
from colmeia.llm.prompts import render_prompt
from colmeia.tools.registry import Tool

__all__ = ["AGENTS", "FLAG_NAMES", "AssistantGraph", "AssistantState", "Flags", "GraphConfig"]

log = logging.getLogger(__name__)


class AssistantGraph:
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
    def tools_for(self, agent: str, flags: Flags) -> list[ToolSpec]:
        """What ``agent`` is offered under ``flags`` (switched-off capabilities are absent)."""
        web = flags.enable_web_search and self.web_search is not None
        if agent == "main":
            out: list[ToolSpec] = []
            if flags.enable_rag_processing:
                out.append(_TO_RAG.spec())
            if flags.enable_system_search or web:
                out.append(_TO_SEARCH.spec())
            return [*out, _ASK_USER]
        out = []
        if flags.enable_system_search:
            out += [_LOOKUP, _MOVEMENTS, _SEARCH_CASES, _SUBSCRIBE]
        if web and self.web_search is not None:
            out.append(self.web_search.spec())
        return [*out, _TO_MAIN.spec(), _ASK_USER]

    @staticmethod
    def _handoffs_for(agent: str) -> list[Handoff]:
        # Switched-off handoffs are recognised too, so that calling one is refused clearly.
        return [_TO_RAG, _TO_SEARCH] if agent == "main" else [_TO_MAIN]

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
        if self.offline and fresh and text and self._frame_routes(state, text):
            # the turn is read into its frame and dispatched in code (frame, dispatch)
            frame = read_frame(text, today=self.config.today)
            decision = await self.dispatcher.decide(frame, state.get("cases", []))
            return self._apply(decision, state, fresh, turn)
        scope = out_of_scope(text) if fresh else None
        if scope is not None:  # weather, sport, "list every process", "show your prompt"
            msg = ChatMessage.assistant(scope.text, agent="main", turn=turn, kind="answer")
            return Command(
                goto="finish",
                update={
                    "messages": [*fresh, msg],
                    "turn": turn,
                    "turn_handoffs": 0,
                    "turn_steps": 0,
                    "handoff": None,
                    "evidence": [],
                    "pending": None,
                    "rag": None,
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
                "messages": fresh,
                "turn": turn,
                "active_agent": active,
                "turn_handoffs": 1 if ruled else 0,
                "turn_steps": 0,
                "handoff": None,
                "evidence": [],
                "pending": None,
                "rag": None,
                "answer": None,
                "status": "running",
                "mixed": {"case": parts[0], "law": parts[1]} if parts else None,
                "parts": {},
                **(ruled or {}),
            },
        )

    def _frame_routes(self, state: AssistantState, text: str) -> bool:
        """Whether the frame's dispatcher takes the turn: every tool it uses is on, and the
        turn is not a request to follow a case (a subscription needs the agents' approval)."""
        flags = Flags.from_dict(state.get("flags"))
        if not (flags.enable_system_search and flags.enable_rag_processing) or state.get(
            "attachments"
        ):
            return False
        return not _FOLLOW.search(text)

    def _apply(
        self,
        decision: Decision,
        state: AssistantState,
        fresh: list[ChatMessage],
        turn: int,
    ) -> Command[str]:
        """The graph's step for a dispatcher's decision: finish with its answer, wait on
        its question, or hand the law question to the RAG agent."""
        base: dict[str, Any] = {
            "turn": turn,
            "active_agent": "main",
            "turn_handoffs": 0,
            "turn_steps": 0,
            "handoff": None,
            "evidence": [],
            "pending": None,
            "rag": None,
            "answer": None,
            "mixed": None,
            "parts": {},
        }
        if decision.tools:
            # the registry answered: the same records as the agents' route (handoff, tools)
            record = {
                "from": "main",
                "to": "search",
                "kind": "conversation",
                "reason": "the turn's frame: a question about a case",
                "turn": turn,
                "by": "frame",
            }
            base["handoffs"] = [record]
            if (decision.answer or {}).get("parts"):  # both agents answered: case, then law
                base["handoffs"] = [
                    record,
                    {**record, "from": "search", "to": "rag", "kind": "task"},
                    {**record, "from": "rag", "to": "main", "kind": "return"},
                ]
            base["tool_log"] = [
                {"turn": turn, "agent": "search", "tool": name, "arguments": args, "guard": False}
                for name, args in decision.tools
            ]
        if decision.kind == "ask":
            return Command(
                goto="clarify",
                update={
                    **base,
                    "messages": fresh,
                    "pending": decision.pending(),
                    "evidence": decision.evidence,
                    "status": "running",
                },
            )
        if decision.kind == "law":
            record = {
                "from": "main",
                "to": "rag",
                "kind": "task",
                "reason": "the turn's frame: a question about the laws",
                "task": decision.law,
                "context": "",
                "turn": turn,
                "call_id": "",
                "by": "frame",
            }
            return Command(
                goto="rag",
                update={
                    **base,
                    "messages": fresh,
                    "handoff": record,
                    "handoffs": [record],
                    "turn_handoffs": 1,
                    "status": "running",
                },
            )
        answer = {**(decision.answer or {}), "mode": OFFLINE_MODEL if self.offline else "model"}
        msg = ChatMessage.assistant(
            str(answer.get("text", "")), agent="main", turn=turn, kind="answer"
        )
        return Command(
            goto="finish",
            update={
                **base,
                "messages": [*fresh, msg],
                "answer": answer,
                "status": "answered",
                **self._remembered(state, answer.get("facts") or []),
            },
        )

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

    def _request(self, view: Sequence[Message], state: AssistantState) -> str:
        """The person's request with a follow-up's case written out ("e as partes?" → "e as
        partes? (sobre TC/004506/2023)"), so the rules below see the case it is about."""
        text, _ = current_request(view)
        return resolve_follow_up(text, state.get("cases", []))

    def _answers_from_context(self, agent: str, content: str, state: AssistantState) -> bool:
        """An agent's direct answer to a follow-up, right by the thread's last facts: it
        stands (a model answering from context is not sent back to the registry)."""
        cases = state.get("cases", [])
        facts = state.get("case_facts", {})
        if not content.strip() or not cases or cases[0] not in facts:
            return False
        turn = state.get("turn", 0)
        if any(e.get("turn") == turn for e in state.get("tool_log", []) if e.get("agent") == agent):
            return False  # it used tools this turn: its answer is checked against them
        messages = [m for m in state.get("messages", []) if m.role == "user"]
        question = messages[-1].content if messages else ""
        if resolve_follow_up(question, cases) == question:
            return False
        found = facts[cases[0]]
        if check_case_answer(content, [found]):
            return False
        aspect = aspect_of(question)
        if aspect in _STATED_ASPECTS and not _states_aspect(content, aspect, found):
            return False  # "e as partes?" answered with where the case is: not an answer
        # it must say something of the case, not only be free of errors
        said = [p["name"] for p in found.get("parties", [])]
        said += [str((found.get("location") or {}).get("location", ""))]
        said += [str(found.get("record", {}).get(k, "")) for k in ("status", "rapporteur")]
        return any(x and x.lower() in content.lower() for x in said)

    def _override(
        self,
        agent: str,
        calls: list[ToolCall],
        view: Sequence[Message],
        flags: Flags,
        state: AssistantState,
    ) -> list[ToolCall]:
        """Calls that contradict a hard signal are replaced: a valid case number in the
        request goes to the registry, and the search agent does not ask for a case number on
        a question about documents. Anything else the model decided stands."""
        if not calls:
            return calls
        text = self._request(view, state)
        offered = {t.name for t in self.tools_for(agent, flags)}
        names = {c.name for c in calls}
        ids = [i for i in find_case_ids(text) if isinstance(i, CaseId)]
        redirect = names & {"transfer_to_rag", "ask_user"}
        turn = state.get("turn", 0)
        handed_back = any(
            h.get("from") == "search" and h.get("to") == "main" and h.get("turn") == turn
            for h in state.get("handoffs", [])
        )
        # the search agent's hand-back stands: it is not rewritten into the same lookup again
        if (
            agent == "main"
            and ids
            and "transfer_to_search" in offered
            and redirect
            and not handed_back
        ):
            return [_guard_call("transfer_to_search", reason="a pergunta cita um caso")]
        if (
            agent == "main"
            and not ids
            and "ask_user" in names
            and "transfer_to_search" in offered
            and not handed_back
            and describes_a_case(text)
            and search_terms(text)
        ):
            # "não sei o número, é sobre a merenda…": the coordinator asked for the number the
            # person said they do not have (the 1.5B model); the registry's search can find it
            return [_guard_call("transfer_to_search", reason="a pessoa descreve o caso")]
        mixed = state.get("mixed") and "case" not in (state.get("parts") or {})
        if agent == "main" and not mixed:
            route = route_of(text)
            if route == "search" and "transfer_to_rag" in names and not mentions_norm(text):
                # a case question without a norm ("o andamento do meu processo", "e as
                # partes?") has no answer in the laws: to the registry; a follow-up about the
                # thread's case after the search agent's lookups gets the registry's cards
                follow_up = text != current_request(view)[0]
                if handed_back and follow_up:
                    return []
                if not handed_back and "transfer_to_search" in offered:
                    return [_guard_call("transfer_to_search", reason="a pergunta é sobre um caso")]
            if (
                route == "rag"
                and names & {"transfer_to_search", "ask_user"}
                and "transfer_to_rag" in offered
                and analyze_query(text)["filters"].get("law_number")
            ):
                # a question naming a norm (LGPD, Lei 9.784) is about documents: no case to
                # look up and nothing to ask (the 0.5B model asked "qual é a sua dúvida?")
                return [_guard_call("transfer_to_rag", task=text)]
        if agent == "search" and "subscribe_updates" in names:
            unasked = self._instead_of_unasked_subscription(calls, state)
            if unasked is not None:
                if not unasked:
                    return []
                calls, names = unasked, {c.name for c in unasked}
        if agent == "search" and "lookup_case" in names:
            replaced = self._instead_of_invented(calls, text, ids, offered, state)
            if replaced is not None:
                return replaced
        if agent == "search" and "ask_user" in names and not ids:
            # "não sei o número, é sobre a merenda de Três Barras": the number is what the
            # person does not have; the registry's search is what they asked for (the 1.5B
            # model asked them for the number)
            searched = self._described_search(text, offered, state)
            if searched is not None:
                return searched
        looked_up = any(
            e.get("agent") == "search"
            and e.get("turn") == turn
            and e.get("tool") in _REGISTRY_TOOLS
            for e in state.get("tool_log", [])
        )
        asks_a_part = bool(ids and aspect_of(text)) and not mentions_norm(text)
        if agent == "search" and looked_up and "transfer_to_main" in names and asks_a_part:
            # "onde está o processo X e desde quando?" looked up, then handed back: the
            # question was all about the case, and the answer is the registry's record
            return []
        if agent == "search" and ids and "ask_user" in names and not mentions_norm(text):
            # every number the person gave was looked up this turn: the answer is the
            # registry's record, not a question back (the 0.5B model, having looked up
            # TC/000032/2023, asked the person "Onde está meu processo e desde quando?")
            read = {
                r.canonical
                for e in state.get("tool_log", [])
                if e.get("agent") == "search"
                and e.get("turn") == turn
                and e.get("tool") == "lookup_case"
                for r in read_case_ids(
                    str((e.get("arguments") or {}).get("number") or ""), today=self.config.today
                )[:1]
            }
            if {i.canonical for i in ids} <= read:
                return []
        if agent == "search" and mixed and looked_up and names & {"ask_user", "transfer_to_main"}:
            # the case part of a split question, looked up: its answer is the registry's
            # record, and the legal part goes on to the documents (not back to the coordinator)
            return []
        if agent == "search" and not names & _REGISTRY_TOOLS:
            # a hand-back after the lookups is the agent's decision, not a skipped lookup
            hand_back = names & {"ask_user", "transfer_to_main"} and not looked_up
            if ids and "lookup_case" in offered and hand_back:
                return [_guard_call("lookup_case", number=i.canonical) for i in ids[:5]]
            # a law question is not a registry search either ("LGPD crianças" as a query)
            searches_a_norm = "search_cases" in names and analyze_query(text)["filters"].get(
                "law_number"
            )
            if not ids and route_of(text) == "rag" and ("ask_user" in names or searches_a_norm):
                return [_guard_call("transfer_to_main", reason="a pergunta não é sobre um caso")]
        return calls

    def _instead_of_unasked_subscription(
        self, calls: list[ToolCall], state: AssistantState
    ) -> list[ToolCall] | None:
        """A subscription nobody asked for is not offered for approval: each becomes a lookup
        of its case (unless looked up this turn already). The 1.5B model, told which case of a
        list the person picked, subscribed an invented ``example@example.com`` to it.
        ``None`` when the person did ask to be told of movements this turn."""
        turn = state.get("turn", 0)
        said = [
            m.content or ""
            for m in state.get("messages", [])
            if m.turn == turn and (m.role == "user" or (m.role == "tool" and m.name == "ask_user"))
        ]
        if any(asks_for_updates(t) for t in said):
            return None
        looked_up = {
            r.canonical
            for e in state.get("tool_log", [])
            if e.get("turn") == turn and e.get("tool") == "lookup_case"
            for r in read_case_ids(
                str((e.get("arguments") or {}).get("number") or ""), today=self.config.today
            )[:1]
        }
        out: list[ToolCall] = []
        for call in calls:
            if call.name != "subscribe_updates":
                out.append(call)
                continue
            read = read_case_ids(str(call.arguments.get("number") or ""), today=self.config.today)
            if read and read[0].canonical not in looked_up:
                looked_up.add(read[0].canonical)
                out.append(_guard_call("lookup_case", number=read[0].canonical))
        log.info("a subscription nobody asked for was not offered: %s", calls)
        return out

    def _described_search(
        self, text: str, offered: set[str], state: AssistantState
    ) -> list[ToolCall] | None:
        """A ``search_cases`` call for a case the person describes without its number, unless
        the search agent already searched this turn (then its list, or its "nothing found",
        is the answer and a question about it may follow)."""
        terms = search_terms(text)
        if not (terms and describes_a_case(text) and "search_cases" in offered):
            return None
        turn = state.get("turn", 0)
        searched = any(
            e.get("agent") == "search" and e.get("turn") == turn and e.get("tool") == "search_cases"
            for e in state.get("tool_log", [])
        )
        return None if searched else [_guard_call("search_cases", query=" ".join(terms))]

    def _instead_of_invented(
        self,
        calls: list[ToolCall],
        text: str,
        ids: list[CaseId],
        offered: set[str],
        state: AssistantState,
    ) -> list[ToolCall] | None:
        """What the search agent does instead of looking up a number nobody gave
        (:mod:`colmeia.apps.assistant.invented`): the request's own numbers, a search for the
        case it describes, or the question for its number; ``None`` when no number was
        invented (or there is nothing better to do)."""
        today = self.config.today
        texts = [m.content or "" for m in state.get("messages", [])]
        known = numbers_given(text, texts, state.get("cases", []), today)
        invented = invented_lookups(calls, known, text, today)
        if not invented:
            return None
        log.info("lookup of a number nobody gave replaced: %s", [c.arguments for c in invented])
        if ids:
            return [_guard_call("lookup_case", number=i.canonical) for i in ids[:5]]
        terms = search_terms(text)
        if describes_a_case(text) and terms and "search_cases" in offered:
            return [_guard_call("search_cases", query=" ".join(terms))]
        if asks_about_unnumbered_case(text) and "ask_user" in offered:
            return [_guard_call("ask_user", question=ASK_NUMBER)]
        return None

    def _guard(
        self, agent: str, view: Sequence[Message], state: AssistantState, flags: Flags
    ) -> list[ToolCall]:
        """Tool calls that must happen although the model answered directly.

        A question with a case number is answered from the registry, and a question about
        documents from the RAG agent with citations, whatever a model prefers: a model that
        answers them itself invents (small models do). Greetings and questions about the
        assistant stay with the model. At most once per turn and agent, within the caps.
        """
        text = self._request(view, state)
        route = route_of(text)
        offered = {t.name for t in self.tools_for(agent, flags)}
        turn = state.get("turn", 0)
        moved = {
            (h.get("from"), h.get("to")) for h in state.get("handoffs", []) if h.get("turn") == turn
        }
        this_turn = [m for m in state.get("messages", []) if m.turn == turn]
        # the person's answer to a question starts afresh: a guard that asked for the number
        # does not keep the guard from looking up the number they gave
        replies = [i for i, m in enumerate(this_turn) if m.role == "tool" and m.name == "ask_user"]
        since = this_turn[replies[-1] + 1 :] if replies else this_turn
        called = [c for m in since if m.agent == agent for c in m.tool_calls]
        if any(c["id"].startswith("guard_") for c in called):
            return []
        if agent == "main":
            if (
                route == "search"
                and "transfer_to_search" in offered
                and ("search", "main") not in moved
            ):
                return [_guard_call("transfer_to_search", reason="a pergunta é sobre um caso")]
            if route == "rag" and "transfer_to_rag" in offered and ("rag", "main") not in moved:
                return [_guard_call("transfer_to_rag", task=text)]
            return []
        ids = [i for i in find_case_ids(text) if isinstance(i, CaseId)]
        used_registry = any(c["name"] in _REGISTRY_TOOLS for c in called)
        if ids and "lookup_case" in offered and not used_registry:
            return [_guard_call("lookup_case", number=i.canonical) for i in ids[:5]]
        if not ids and not used_registry:
            # a described case answered in words: the registry's search answers it
            searched = self._described_search(text, offered, state)
            if searched is not None:
                return searched
        if route == "rag" and "transfer_to_main" in offered:
            return [_guard_call("transfer_to_main", reason="a pergunta não é sobre um caso")]
        return []

    def _final(self, agent: str, text: str, state: AssistantState) -> dict[str, Any]:
        """The answer record; for the search agent, checked against the registry's records."""
        evidence = state.get("evidence", [])
        answer: dict[str, Any] = {
            "text": text.strip(),
            "agent": agent,
            "citations": [],
            "facts": evidence,
            "notes": [],
            "mode": OFFLINE_MODEL if self.offline else "model",
        }
        found_any = any(e.get("status") == "found" for e in evidence)
        # the coordinator's answer after the search agent's lookups is held to them as well
        if evidence and (agent == "search" or found_any):
            nothing_found = not found_any
            if not nothing_found:  # a list the person picked from is not the answer
                evidence = [e for e in evidence if e.get("status") != "search"]
                answer["facts"] = evidence
            problems = [] if nothing_found else check_case_answer(text, evidence)
            numbers = {str(e.get("number")) for e in evidence if e.get("number")}
            if not nothing_found and not problems and not any(n in text for n in numbers):
                problems = ["the answer does not name the case it looked up"]
            if not problems and _is_json_payload(text):
                # a small model echoing the tool's JSON: the person gets the card, not the dump
                problems = ["the answer is the tool's raw JSON"]
            asked = _asked_part(state, evidence)
            if not nothing_found and not problems and text.strip() and asked is not None:
                aspect, found = asked
                if not _states_aspect(text, aspect, found):
                    # "e quem são as partes?" answered without a party: the part asked for
                    answer["text"] = case_answer(found, aspect)
                    answer["replaced"] = [f"the answer leaves out the {aspect} asked for"]
                    answer["facts"] = _once_per_case(answer["facts"])
                    return answer
            if nothing_found or problems or not text.strip():
                if problems:
                    log.info("case answer replaced by the registry's cards: %s", problems)
                answer["text"] = evidence_cards(evidence)
                answer["replaced"] = problems
        answer["facts"] = _once_per_case(answer["facts"])
        return answer

    def _split_route(self, state: AssistantState, flags: Flags) -> Command[str] | None:
        """A question with a case part and a legal part: the coordinator hands the case part
        to the search agent first; the legal part follows (:meth:`_next_part`)."""
        mixed = state.get("mixed")
        turn = state.get("turn", 0)
        if not mixed or state.get("parts") or state.get("turn_handoffs", 0):
            return None
        if not (flags.enable_system_search and flags.enable_rag_processing):
            return None
        record = {
            "from": "main",
            "to": "search",
            "kind": "split",
            "reason": f"a pergunta tem duas partes; responda só a parte do caso: {mixed['case']}",
            "task": mixed["case"],
            "context": "",
            "turn": turn,
            "call_id": "",
        }
        return Command(
            goto="search",
            update={
                "active_agent": "search",
                "handoff": record,
                "handoffs": [record],
                "turn_handoffs": state.get("turn_handoffs", 0) + 1,
            },
        )

    def _next_part(
        self, agent: str, answer: dict[str, Any], state: AssistantState, flags: Flags
    ) -> Command[str] | None:
        """After the case part of a split question, the legal part goes to the RAG agent."""
        mixed = state.get("mixed")
        parts = state.get("parts") or {}
        if agent != "search" or not mixed or "case" in parts or not flags.enable_rag_processing:
            return None
        turn = state.get("turn", 0)
        record = {
            "from": "search",
            "to": "rag",
            "kind": "task",
            "reason": "a outra parte da pergunta é sobre normas",
            "task": mixed["law"],
            "context": "",
            "turn": turn,
            "call_id": "",
        }
        msg = ChatMessage.assistant(answer["text"], agent=agent, turn=turn, kind="part")
        return Command(
            goto="rag",
            update={
                "messages": [msg],
                "parts": {**parts, "case": answer},
                "handoff": record,
                "handoffs": [record],
                "turn_handoffs": state.get("turn_handoffs", 0) + 1,
                **self._remembered(state, answer.get("facts") or []),
            },
        )

    @staticmethod
    def _remembered(state: AssistantState, evidence: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The thread's cases and their last facts after ``evidence`` (see conversation)."""
        found = [e for e in evidence if e.get("status") == "found" and e.get("number")]
        if not found:
            return {}
        facts = dict(state.get("case_facts", {}))
        facts.update({str(e["number"]): e for e in found})
        cases = remember(state.get("cases", []), found)
        return {"cases": cases, "case_facts": {n: facts[n] for n in cases if n in facts}}

    def _deliver_rag(self, state: AssistantState, rag: dict[str, Any]) -> Command[str]:
        turn = state.get("turn", 0)
        case_part = (state.get("parts") or {}).get("case")
        if case_part is not None:
            return self._deliver_both(state, case_part, rag)
        answer = {
            "text": rag["answer"],
            "agent": "rag",
            "citations": rag.get("citations", []),
            "sources": rag.get("sources", []),
            "facts": [],
            "notes": rag.get("notes", []),
            "quality": rag.get("quality"),
            "passed": rag.get("passed"),
            "attempts": rag.get("attempts"),
            "extractive": rag.get("extractive"),
            "mode": OFFLINE_MODEL if self.offline else "model",
        }
        msg = ChatMessage.assistant(rag["answer"], agent="main", turn=turn, kind="answer")
        return Command(
            goto="finish", update={"messages": [msg], "answer": answer, "status": "answered"}
        )

    def _deliver_both(
        self, state: AssistantState, case_part: dict[str, Any], rag: dict[str, Any]
    ) -> Command[str]:
        """One answer for a split question: the case facts, then the cited passages."""
        turn = state.get("turn", 0)
        mixed = state.get("mixed") or {}
        case_text = str(case_part["text"])
        found = [e for e in case_part.get("facts", []) if e.get("status") == "found"]
        if any(
            str((e.get("record") or {}).get("status", "")).lower() not in case_text.lower()
            for e in found
        ):
            # "qual a situação?" is the case part's question: a phrasing that leaves the
            # registry's status out (checked, but silent on it) gives way to the record
            case_text = evidence_cards(found)
            case_part = {**case_part, "text": case_text}
        text = (
            f"Sobre o processo ({mixed.get('case', '')}):\n{case_text}\n\n"
            f"Sobre a norma ({mixed.get('law', '')}):\n{rag['answer']}"
        )
        answer = {
            "text": text,
            "agent": "main",
            "citations": rag.get("citations", []),
            "facts": case_part.get("facts", []),
            "notes": rag.get("notes", []),
            "quality": rag.get("quality"),
            "passed": rag.get("passed"),
            "attempts": rag.get("attempts"),
            "extractive": rag.get("extractive"),
            "mode": OFFLINE_MODEL if self.offline else "model",
            "parts": {"case": case_part["text"], "law": rag["answer"]},
        }
        msg = ChatMessage.assistant(text, agent="main", turn=turn, kind="answer")
        return Command(
            goto="finish", update={"messages": [msg], "answer": answer, "status": "answered"}
        )

    async def main(self, state: AssistantState, config: RunnableConfig) -> Command[str]:
        return await self._agent("main", state, config)

    async def search(self, state: AssistantState, config: RunnableConfig) -> Command[str]:
        return await self._agent("search", state, config)

    async def _tools(
        self, agent: AgentName, state: AssistantState, config: RunnableConfig
    ) -> Command[str]:
        turn = state.get("turn", 0)
        flags = Flags.from_dict(state.get("flags"))
        calls = _last_calls(state, agent)
        offered = {t.name for t in self.tools_for(agent, flags)}
        plan = plan_tool_calls(calls, self._handoffs_for(agent))
        out: list[ChatMessage] = []
        log_items: list[dict[str, Any]] = []
        evidence = list(state.get("evidence", []))
        approvals: list[dict[str, Any]] = []
        question: tuple[ToolCall, str] | None = None
        options: list[str] = []

        def answer(call: ToolCall, text: str) -> None:
            out.append(ChatMessage.tool(call.id, call.name, text, agent=agent, turn=turn))

        for call, reason in plan.refused:
            answer(call, reason)
            log_items.append({"turn": turn, "agent": agent, "tool": call.name, "refused": reason})
        done_before = _answered_calls(state, agent, turn)
        repeats = 0
        for call in plan.calls:
            key = (call.name, orjson.dumps(call.arguments, option=orjson.OPT_SORT_KEYS))
            if key in done_before and call.name not in ("ask_user",):
                repeats += 1
                answer(call, "Already done in this turn: use the result above.")
                log_items.append(
                    {"turn": turn, "agent": agent, "tool": call.name, "refused": "repeated"}
                )
            elif call.name not in offered:
                answer(call, f"Refused: the tool {call.name!r} is not available in this request.")
                log_items.append(
                    {"turn": turn, "agent": agent, "tool": call.name, "refused": "not available"}
                )
            elif call.name == "ask_user":
                if question is None:
                    question = (call, str(call.arguments.get("question") or "").strip())
                else:
                    answer(call, "Refused: ask one question at a time.")
            elif (unsourced := self._unsourced(call, state)) is not None:
                answer(call, unsourced)
                log_items.append(
                    {"turn": turn, "agent": agent, "tool": call.name, "refused": "unsourced number"}
                )
            elif call.name in self.config.approval_tools:
                approvals.append(
                    {"call_id": call.id, "tool": call.name, "arguments": call.arguments}
                )
            else:
                text, value = await self._run_tool(call)
                if isinstance(value, dict) and "status" in value:
                    evidence.append(value)
                answer(call, text)
                several = isinstance(value, dict) and len(value.get("cases") or []) > 1
                if several and question is None and isinstance(value, dict):
                    # several matches: the person picks one (read as a clarification reply)
                    pick = _guard_call("ask_user", question=case_card(value) + _PICK)
                    out.append(ChatMessage.assistant("", agent=agent, turn=turn, tool_calls=[pick]))
                    question = (pick, str(pick.arguments["question"]))
                    options = [str(c["number"]) for c in value["cases"]]
                log_items.append(
                    {
                        "turn": turn,
                        "agent": agent,
                        "tool": call.name,
                        "arguments": call.arguments,
                        "guard": call.id.startswith("guard_"),
                    }
                )
        update: dict[str, Any] = {"messages": out, "evidence": evidence, "tool_log": log_items}
        if plan.calls and repeats == len(plan.calls) and not plan.handoff and evidence:
            # A model repeating the lookups it already has is stuck: answer from the registry.
            final = self._final(agent, "", {**state, "evidence": evidence})
            more = self._next_part(agent, final, state, flags)
            if more is not None:
                return Command(
                    goto=more.goto, update={**update, **(more.update or {}), "messages": out}
                )
            msg = ChatMessage.assistant(final["text"], agent=agent, turn=turn, kind="answer")
            update.update(messages=[*out, msg], answer=final, status="answered")
            update.update(self._remembered(state, evidence))
            return Command(goto="finish", update=update)
        if plan.handoff is not None:
            call, handoff = plan.handoff
            if call.name not in offered:
                answer(call, f"Refused: {handoff.target} is switched off for this request.")
                return Command(goto=agent, update=update)
            cmd = handoff_command(
                call,
                handoff,
                source=agent,
                turn=turn,
                handoffs_so_far=state.get("turn_handoffs", 0),
                max_handoffs=self.config.max_handoffs_per_turn,
                limit_node="finish",
            )
            merged = dict(cmd.update or {})
            merged["messages"] = [*out, *merged.get("messages", [])]
            merged["tool_log"] = log_items
            if call.id.startswith("guard_"):
                merged["handoffs"] = [{**h, "guard": True} for h in merged.get("handoffs", [])]
            return Command(goto=cmd.goto, update=merged)
        if approvals:
            update["pending"] = {"type": "approval", "agent": agent, "items": approvals}
            return Command(goto="approve", update=update)
        if question is not None:
            call, text = question
            update["pending"] = {
                "type": "clarification",
                "agent": agent,
                "question": text or "Pode dar mais detalhes?",
                "call_id": call.id,
                "expects": _expected_kind(text),
                "options": options,
            }
            return Command(goto="clarify", update=update)
        return Command(goto=agent, update=update)

    async def main_tools(self, state: AssistantState, config: RunnableConfig) -> Command[str]:
        return await self._tools("main", state, config)

    async def search_tools(self, state: AssistantState, config: RunnableConfig) -> Command[str]:
        return await self._tools("search", state, config)

    def _unsourced(self, call: ToolCall, state: AssistantState) -> str | None:
        """Why a registry call's number is refused: a model must take it from the person or a
        tool's result (a search), never make one up (small models invent
        ``TC/001001/2023`` for "o processo da empresa X"). ``None`` when it is sourced."""
        if call.name not in _REGISTRY_TOOLS or call.id.startswith("guard_"):
            return None
        try:
            case = read_case_id(str(call.arguments.get("number", "")), today=self.config.today)
        except IdentifierError:
            return None  # the tool itself says what is wrong with it
        known = set(state.get("cases", []))
        for m in state.get("messages", []):
            if m.role == "user" or m.role == "tool":
                known.update(c.canonical for c in read_case_ids(m.content or ""))
                known.update(
                    i.canonical for i in find_case_ids(m.content or "") if isinstance(i, CaseId)
                )
        if case.canonical in known:
            return None
        # a bare number the person typed, read with the other kind, is theirs too
        if any(
            k.endswith(f"/{case.number:06d}/{case.year}")
            or k.endswith(f"-{case.year}-{case.number:05d}")
            for k in known
        ):
            return None
        return (
            f"Refused: {case.canonical} was not given by the person nor found by a tool; do not "
            "make up numbers. To find a case by a name, subject or unit, call search_cases; or "
            "ask the person for the number with ask_user."
        )

    async def _run_tool(self, call: ToolCall) -> tuple[str, Any]:
        args = call.arguments
        try:
            if call.name == "search_cases":
                found = await search_cases(
                    self.registry, str(args.get("query", "")), today=self.config.today
                )
                return _as_tool_text(found), found
            if call.name == "lookup_case":
                found = await lookup_case(
                    self.registry, str(args.get("number", "")), today=self.config.today
                )
                return _as_tool_text(found), found
            if call.name == "case_movements":
                return await self._movements(args)
        except ColmeiaError as exc:
            return f"Error: {exc}", None
        return f"Error: unknown tool {call.name!r}", None

    async def _movements(self, args: dict[str, Any]) -> tuple[str, Any]:
        try:
            case = read_case_id(str(args.get("number", "")), today=self.config.today)
        except IdentifierError as exc:
            return f"Error: {exc}", None
        limit = max(1, min(int(args.get("limit") or 10), 50))
        moves = await self.registry.movements(case, limit)
        if not moves and await self.registry.location(case) is None:
            value = {"status": "not_found", "number": case.canonical, "kind": case.kind}
            return _as_tool_text(value), value
        return _as_tool_text([m.as_dict() for m in moves]), None

    async def _side_effect(self, tool: str, args: dict[str, Any], key: str) -> str:
        """Run an approved side effect under ``key`` (the registry keeps it once per key)."""
        if tool == "subscribe_updates":
            try:
                case = read_case_id(str(args.get("number", "")), today=self.config.today)
            except IdentifierError as exc:
                return f"Error: {exc}"
            contact = str(args.get("contact", "")).strip()
            if "@" not in contact:
                return "Erro: a inscrição precisa de um e-mail de contato."
            if await self.registry.location(case) is None:
                return f"Erro: {case.canonical} não está no cadastro; nada foi registrado."
            sub = await self.registry.subscribe(case, contact, key)
            done = "registrada" if sub.created else "já estava registrada"
            return (
                f"Inscrição {done}: {sub.contact} receberá avisos de movimentação de {sub.number}."
            )
        if tool == "web_search" and self.web_search is not None:
            result = await self.web_search.run(args)
            return result.output
        return f"Error: {tool!r} cannot run here"

    async def approve(self, state: AssistantState, config: RunnableConfig) -> Command[str]:
        """Ask a person about one pending side effect (one interrupt), then run it or not."""
        pending = state.get("pending") or {}
        items = list(pending.get("items", []))
        agent = str(pending.get("agent", "search"))
        if not items:
            return Command(goto=agent, update={"pending": None})
        item, rest = items[0], items[1:]
        request = ApprovalRequest(
            tool=item["tool"],
            arguments=item["arguments"],
            call_id=item["call_id"],
            agent=agent,
            description=_describe(item["tool"], item["arguments"]),
        )
        decision = ask_approval(request)
        turn = state.get("turn", 0)
        thread = str(config.get("configurable", {}).get("thread_id", ""))
        key = idempotency_key(thread, item["call_id"], item["tool"])
        effects = state.get("effects", {})
        if decision.action == "reject":
            text = "A pessoa recusou esta ação; ela não foi executada." + (
                f" Motivo: {decision.reason}" if decision.reason else ""
            )
            done: dict[str, str] = {}
        elif key in effects:
            text, done = effects[key], {}
        else:
            # an edit changes the arguments it names and keeps the others
            # (resume --edit '{"contact": "..."}' keeps the case number)
            args = (
                {**item["arguments"], **decision.arguments}
                if decision.action == "edit" and decision.arguments
                else item["arguments"]
            )
            text = await self._side_effect(item["tool"], dict(args), key)
            done = {key: text}
        msg = ChatMessage.tool(item["call_id"], item["tool"], text, agent=agent, turn=turn)
        log_item = {
            "turn": turn,
            "agent": agent,
            "tool": item["tool"],
            "arguments": item["arguments"],
            "decision": decision.action,
        }
        update: dict[str, Any] = {
            "messages": [msg],
            "effects": done,
            "tool_log": [log_item],
            "pending": {**pending, "items": rest} if rest else None,
        }
        return Command(goto="approve" if rest else agent, update=update)

    async def clarify(self, state: AssistantState) -> Command[str]:
        """Ask the person the agent's question (one interrupt); resume with the answer."""
        pending = state.get("pending") or {}
        agent = str(pending.get("agent", "main"))
        turn = state.get("turn", 0)
        reply = ask_clarification(
            Clarification(question=str(pending.get("question", "")), agent=agent)
        )
        if agent == "frame":  # the dispatcher asked: it reads the reply
            said = ChatMessage.user(str(reply), id=f"u-{uuid.uuid4().hex[:12]}")
            said = dataclasses.replace(said, turn=turn)
            decision = await self.dispatcher.reply(str(reply), pending, state.get("cases", []))
            return self._apply(decision, state, [said], turn)
        reading = await self._read_reply(str(reply), pending)
        msg = ChatMessage.tool(
            str(pending.get("call_id", "")),
            "ask_user",
            f"Resposta da pessoa: {reply}" + (f" (lido como {reading})" if reading else ""),
            agent=agent,
            turn=turn,
        )
        return Command(goto=agent, update={"messages": [msg], "pending": None})

    async def _model_split(self, text: str) -> tuple[str, str] | None:
        """The model's split of a question the rules could not split (no conjunction between
        the parts); kept only when the case part holds a case number and the legal part none."""
        try:
            out = await self.model.structured(
                [Message.system(render_prompt(_PKG, "split.j2")), Message.user(text)],
                _Split,
                max_tokens=200,
            )
        except ColmeiaError as exc:
            log.info("the model did not split %r: %s", text[:80], exc)
            return None
        case, law = out.case_part.strip(), out.law_part.strip()

        def has_case(part: str) -> bool:
            return any(isinstance(i, CaseId) for i in find_case_ids(part))

        if not law or not has_case(case) or has_case(law):
            return None
        return case, law

    async def _reply_to_answer(self, state: AssistantState, text: str) -> str:
        """The case a new message gives when the previous answer asked for its number."""
        if not text or any(isinstance(i, CaseId) for i in find_case_ids(text)):
            return ""
        last = next(
            (
                m.content
                for m in reversed(state.get("messages", []))
                if m.role == "assistant" and m.kind == "answer"
            ),
            "",
        )
        expects = _expected_kind(last) if "?" in last else None
        if expects is None:
            # or the previous question was about a case without its number ("meu processo")
            asked = [m.content for m in state.get("messages", []) if m.role == "user" and m.turn]
            if asked and mentions_case_words(asked[-1]) and not find_case_ids(asked[-1]):
                expects = "case"
        if expects is None or len(text.split()) > 8:
            return ""
        return await self._read_reply(text, {"expects": expects, "options": []})

    async def _read_reply(self, reply: str, pending: dict[str, Any]) -> str:
        """A reply to "qual é o número?" read in the light of the question: ``4506/2023``,
        ``004506/2023``, "é o 4506 de 2023" or "é o 4506" (the registry finds the year) as
        the kind asked for, and "2" or "o segundo" as that item of a list. Returns the case
        as ``processo TC/004506/2023`` (``""`` when the reply is not a number), so the agent
        — model or rules — and the number check both see the canonical form."""
        expects = pending.get("expects")
        options = [str(o) for o in pending.get("options") or []]
        if expects is None:
            return ""
        if options:
            picked = _pick(reply, options, self.config.today)
            if picked is not None:
                return _named(picked)
        kind: CaseKind | None = expects if expects in ("process", "expediente") else None
        ids = read_case_ids(reply, kind=kind, today=self.config.today)
        if ids:
            if any(isinstance(i, CaseId) for i in find_case_ids(reply)) or kind is not None:
                return _named(ids[0].canonical)
            return _named(await self._either_kind(ids[0]))
        number = bare_number(reply)
        if number is None:
            return ""
        try:
            found = await self.registry.case_numbers(number)
        except ColmeiaError:
            return ""
        matching = [c.canonical for c in found if c.kind == (kind or "process")]
        return _named(matching[0]) if len(matching) == 1 else ""

    async def _either_kind(self, case: CaseId) -> str:
        """A bare number asked as "processo ou expediente": whichever the registry has."""
        try:
            if await self.registry.process(case) is None:
                other = CaseId("expediente", case.number, case.year)
                if await self.registry.expediente(other) is not None:
                    return other.canonical
        except ColmeiaError:
            pass
        return case.canonical

    async def rag(self, state: AssistantState, config: RunnableConfig) -> Command[str]:
        """The RAG pipeline on the task it was handed; the result goes back to main.

        Its generation streams (main delivers the answer unchanged); what the pipeline ends
        with — the best attempt, citations that did not hold removed — settles it.
        """
        tokens = token_stream(config, "rag")
        turn = state.get("turn", 0)
        handoff = state.get("handoff") or {}
        task = str(handoff.get("task") or "")
        if not task:
            task = next(
                (m.content for m in reversed(state.get("messages", [])) if m.role == "user"), ""
            )
        try:
            facts = state.get("case_facts", {})
            result = await self.rag_pipeline.run(
                task,
                context=str(handoff.get("context") or ""),
                attachments=state.get("attachments", []),
                sink=tokens,
                local=local_case([facts[n] for n in state.get("cases", []) if n in facts]),
            )
        except ColmeiaError as exc:
            result = {
                "answer": f"Não foi possível consultar os documentos: {exc}",
                "citations": [],
                "notes": [],
                "quality": 0.0,
                "passed": False,
            }
        if tokens is not None:
            tokens.settle(result["answer"], "final")
        back = {"from": "rag", "to": "main", "kind": "return", "turn": turn, "reason": "resultado"}
        msg = ChatMessage.assistant(result["answer"], agent="rag", turn=turn, kind="rag_result")
        return Command(
            goto="main",
            update={
                "rag": {**result, "turn": turn},
                "active_agent": "main",
                "handoffs": [back],
                "messages": [msg],
            },
        )

    async def finish(self, state: AssistantState) -> dict[str, Any]:
        """Close the turn: every turn ends with an answer record and a status."""
        status = state.get("status") or "answered"
        turn = state.get("turn", 0)
        if self._ranker is not None and unanswered(status, state.get("answer")):
            # the model left the person without an answer: the one given without a model
            why = status if status in UNANSWERED else "empty_answer"
            documents = Flags.from_dict(state.get("flags")).enable_rag_processing
            found = await fallback_answer(dict(state), self._ranker, why, documents=documents)
            if found is None:
                found = await self._registry_fallback(state, why)
            if found is not None:
                log.info("turn %s unanswered by the model (%s): offline answer given", turn, why)
                error = (state.get("answer") or {}).get("error")
                found.update({"mode": "model", **({"error": error} if error else {})})
                msg = ChatMessage.assistant(found["text"], agent="main", turn=turn, kind="answer")
                # the cases it shows are the thread's, as after any answer: "e em que
                # situação ele está?" next is about them (the 1.5B model lost the case here)
                remembered = self._remembered(state, found.get("facts") or [])
                return {
                    "status": "answered",
                    "answer": found,
                    "messages": [msg],
                    "pending": None,
                    **remembered,
                }
        answer = state.get("answer")
        if answer is not None and status != "handoff_limit":
            if status != "answered" or str(answer.get("text") or "").strip():
                return {"status": status, "pending": None}
            status = "error"  # an empty answer never reaches the person as one
        texts = {
            "handoff_limit": (
                f"Não consegui concluir: a pergunta passou de um agente a outro "
                f"{self.config.max_handoffs_per_turn} vezes nesta rodada. Reformule a pergunta, "
                "por favor, dizendo se ela é sobre um processo ou sobre uma norma."
            ),
            "step_limit": (
                "Não consegui concluir dentro do limite de etapas desta rodada. "
                "Reformule a pergunta de forma mais específica, por favor."
            ),
        }
        text = texts.get(status, "Não consegui concluir esta rodada.")
        msg = ChatMessage.assistant(text, agent="main", turn=turn, kind="answer")
        answer = {"text": text, "agent": "main", "citations": [], "facts": [], "notes": []}
        return {"status": status, "answer": answer, "messages": [msg], "pending": None}

    async def _registry_fallback(self, state: AssistantState, why: str) -> dict[str, Any] | None:
        """A question with case numbers the model left unanswered (the 1.5B listed the
        movements, then wrote nothing): the registry's cards for those numbers, looked up here
        without a model."""
        turn = state.get("turn", 0)
        users = [m for m in state.get("messages", []) if m.role == "user" and m.turn == turn]
        if not users:
            return None
        text = resolve_follow_up(users[-1].content or "", state.get("cases", []))
        ids = [i for i in find_case_ids(text, today=self.config.today) if isinstance(i, CaseId)]
        if not ids:
            return None
        try:
            evidence = [
                await lookup_case(self.registry, i.canonical, today=self.config.today)
                for i in ids[:5]
            ]
        except ColmeiaError as exc:
            log.info("no registry fallback for %r: %s", text[:80], exc)
            return None
        found = [e for e in evidence if e.get("status") == "found"]
        return {
            "text": evidence_cards(evidence),
            "agent": "search",
            "citations": [],
            "facts": found,
            "notes": [
                "O modelo de linguagem não concluiu esta resposta "
                f"({why}); segue a resposta sem o modelo: os dados do cadastro."
            ],
            "fallback": why,
        }

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
