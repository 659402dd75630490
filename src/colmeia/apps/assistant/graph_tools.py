"""The graph's tool nodes: which tools each agent has, running the calls an agent made
(registry lookups, searches, a web search), and the approval a side effect waits for."""

from __future__ import annotations

import logging
from typing import Any

import orjson
from langchain_core.runnables import RunnableConfig
from langgraph.types import Command

from colmeia.apps.assistant.case_cards import case_card
from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.case_search import search_cases
from colmeia.apps.assistant.graph_delivery import Delivery
from colmeia.apps.assistant.graph_rules import (
    _PICK,
    _REGISTRY_TOOLS,
    _answered_calls,
    _describe,
    _expected_kind,
    _guard_call,
)
from colmeia.apps.assistant.graph_state import (
    _ASK_USER,
    _LOOKUP,
    _MOVEMENTS,
    _SEARCH_CASES,
    _SUBSCRIBE,
    _TO_MAIN,
    _TO_RAG,
    _TO_SEARCH,
    AgentName,
    AssistantState,
    Flags,
    _as_tool_text,
    _last_calls,
)
from colmeia.apps.assistant.ids import (
    CaseId,
    IdentifierError,
    find_case_ids,
    read_case_id,
    read_case_ids,
)
from colmeia.errors import ColmeiaError
from colmeia.graphs.handoff import Handoff, handoff_command, plan_tool_calls
from colmeia.graphs.hitl import (
    ApprovalRequest,
    ask_approval,
    idempotency_key,
)
from colmeia.graphs.messages import ChatMessage
from colmeia.llm.base import ToolCall, ToolSpec

log = logging.getLogger(__name__)

# What the person is asked when the model calls ask_user without a question (the history shows it)
ASKED_WITHOUT_A_QUESTION = "Pode dar mais detalhes?"


class ToolNodes(Delivery):
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
                "question": text or ASKED_WITHOUT_A_QUESTION,
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
