"""The graph's delivering nodes: a turn's final answer (checked against the registry), the
RAG agent's node, the two parts of a mixed question put together, and ``finish``
(:mod:`colmeia.apps.assistant.graph` wires them)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.types import Command

from colmeia.apps.assistant.case_cards import case_answer, evidence_cards
from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.cases import check_case_answer, states_a_record_fact
from colmeia.apps.assistant.conversation import (
    resolve_follow_up,
)
from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.fallback import (
    UNANSWERED,
    fallback_answer,
    unanswered,
)
from colmeia.apps.assistant.frame_steps import closing, deliver_rag, rag_step, remembered
from colmeia.apps.assistant.graph_rules import (
    _asked_part,
    _is_json_payload,
    _once_per_case,
    _states_aspect,
)
from colmeia.apps.assistant.graph_state import (
    AssistantState,
    Flags,
    GraphConfig,
)
from colmeia.apps.assistant.ids import (
    CaseId,
    find_case_ids,
)
from colmeia.apps.assistant.offline import (
    OFFLINE_MODEL,
)
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.errors import ColmeiaError
from colmeia.graphs.messages import ChatMessage
from colmeia.graphs.streaming import token_stream
from colmeia.llm.base import ChatModel
from colmeia.tools.registry import Tool

log = logging.getLogger(__name__)


class Delivery:
    # set by AssistantGraph.__init__
    model: ChatModel
    offline: bool
    registry: CaseRegistry
    rag_pipeline: RagPipeline
    web_search: Tool | None
    config: GraphConfig
    dispatcher: Dispatcher
    _ranker: RagPipeline | None

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
            said = [e for e in evidence if e.get("status") == "found"]
            if (
                not problems
                and text.strip()
                and not any(states_a_record_fact(text, e) for e in said)
            ):
                problems = ["the answer states nothing of the record it looked up"]
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
        return remembered(state, evidence)

    def _deliver_rag(self, state: AssistantState, rag: dict[str, Any]) -> Command[str]:
        goto, update = deliver_rag(state, rag, offline=self.offline)
        return Command(goto=goto, update=update)

    async def rag(self, state: AssistantState, config: RunnableConfig) -> Command[str]:
        """The RAG pipeline on the task it was handed; the result goes back to main.

        Its generation streams (main delivers the answer unchanged); what the pipeline ends
        with — the best attempt, citations that did not hold removed — settles it.
        """
        goto, update = await rag_step(self.rag_pipeline, state, token_stream(config, "rag"))
        return Command(goto=goto, update=update)

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
        return closing(state, self.config.max_handoffs_per_turn)

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
