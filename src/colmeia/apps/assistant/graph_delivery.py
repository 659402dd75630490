"""The graph's delivering nodes: a turn's final answer (checked against the registry), the
RAG agent's node, the two parts of a mixed question put together, and ``finish``
(:mod:`colmeia.apps.assistant.graph` wires them)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.types import Command

from colmeia.apps.assistant.cases import (
    case_answer,
    check_case_answer,
    evidence_cards,
    lookup_case,
)
from colmeia.apps.assistant.conversation import (
    remember,
    resolve_follow_up,
)
from colmeia.apps.assistant.court_rules import local_case
from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.fallback import (
    UNANSWERED,
    fallback_answer,
    unanswered,
)
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
