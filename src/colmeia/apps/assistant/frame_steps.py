"""The frame route's steps as plain functions: what ``begin`` writes for a dispatcher's decision,
what the RAG agent's node writes, what ``main`` delivers and what ``finish`` closes a turn with.

The graph's nodes (:mod:`.graph`, :mod:`.graph_replies`, :mod:`.graph_delivery`) wrap each in a
LangGraph ``Command``; the offline fast path (:mod:`.frame_turn`) runs the same functions
without building the graph. One body for both is what keeps their answers the same. Nothing
here imports LangGraph.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from colmeia.apps.assistant.case_cards import evidence_cards
from colmeia.apps.assistant.case_refs import read_case_refs
from colmeia.apps.assistant.conversation import MAX_CASES, case_heading, remember
from colmeia.apps.assistant.court_rules import local_case
from colmeia.apps.assistant.dispatch_decision import Decision
from colmeia.apps.assistant.graph_state import AssistantState, Flags, _add_list, fresh_turn_state
from colmeia.apps.assistant.offline import EMAIL_ADDRESS, OFFLINE_MODEL, asks_for_updates
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.errors import ColmeiaError
from colmeia.graphs.messages import ChatMessage, merge_messages

__all__ = [
    "REDUCERS",
    "apply_decision",
    "closing",
    "deliver_both",
    "deliver_rag",
    "fold",
    "frame_routes",
    "rag_step",
    "remembered",
    "told_cases",
]

Step = tuple[str, dict[str, Any]]

# The state's channels that merge an update instead of replacing it (AssistantState's
# Annotated reducers, as LangGraph applies them).
REDUCERS: dict[str, Callable[[Any, Any], Any]] = {
    "messages": merge_messages,
    "handoffs": _add_list,
    "tool_log": _add_list,
    "effects": lambda left, right: operator.or_(left or {}, right or {}),
}


def fold(state: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """``state`` after ``update``, each channel merged as LangGraph merges it."""
    out = dict(state)
    for key, value in update.items():
        reducer = REDUCERS.get(key)
        out[key] = reducer(out.get(key), value) if reducer is not None else value
    return out


def frame_routes(flags: Flags, attachments: Sequence[str], text: str, *, web_search: bool) -> bool:
    """Whether the frame's dispatcher takes the turn: every tool it uses is on, the web
    search is off (or not configured), there is no attachment, and the turn is not a request
    to follow a case (a subscription and a web search need the agents' approval). A request
    to follow names the case (or gives an address to write to): "a luz foi cortada sem
    avisar" or "tem processo sobre transporte? queria acompanhar" follow nothing yet."""
    if not (flags.enable_system_search and flags.enable_rag_processing) or attachments:
        return False
    if flags.enable_web_search and web_search:
        return False
    if EMAIL_ADDRESS.search(text):
        return False
    return not (asks_for_updates(text) and read_case_refs(text))


def remembered(state: AssistantState, evidence: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The thread's cases and their last facts after ``evidence`` (see conversation)."""
    found = [e for e in evidence if e.get("status") == "found" and e.get("number")]
    if not found:
        return {}
    facts = dict(state.get("case_facts", {}))
    facts.update({str(e["number"]): e for e in found})
    cases = remember(state.get("cases", []), found)
    # of several cases typed at once, the one the message asked of by its place ("como tá o
    # primeiro?") is the thread's case after the turn, not the last typed
    asked = [str(e["number"]) for e in found if e.get("asked")]
    cases = [*asked, *(n for n in cases if n not in asked)]
    # the other cases of a list the person just picked from were shown too: "e o outro?",
    # "e o de 2025?" point at them (after the one picked, which stays the thread's case)
    offered = _listed([*state.get("evidence", []), *evidence])
    cases = [*cases, *(n for n in offered if n not in cases)][:MAX_CASES]
    # the facts in the order the thread first named the cases (a dict keeps the place of a
    # key it updates): "o primeiro" and "o último" count in that order (told_cases)
    return {"cases": cases, "case_facts": {n: v for n, v in facts.items() if n in cases}}


def _listed(evidence: Sequence[dict[str, Any]]) -> list[str]:
    """The case numbers of the registry searches' lists in ``evidence``, in their order."""
    return [
        str(c["number"])
        for e in evidence
        if e.get("status") == "search"
        for c in e.get("cases") or []
        if isinstance(c, dict) and c.get("number")
    ]


def told_cases(state: AssistantState) -> list[str]:
    """The thread's cases in the order it first named them (see :func:`remembered`)."""
    return list(state.get("case_facts", {}))


def apply_decision(
    decision: Decision,
    state: AssistantState,
    fresh: list[ChatMessage],
    turn: int,
    *,
    offline: bool,
) -> Step:
    """The step for a dispatcher's decision: finish with its answer, wait on its question
    (``clarify``), or hand the law question to the RAG agent (``rag``)."""
    base: dict[str, Any] = {**fresh_turn_state(turn), "active_agent": "main"}
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
        # the question is part of the conversation the person saw (its history shows it)
        asked = ChatMessage.assistant(
            decision.question, agent="main", turn=turn, kind="clarification"
        )
        return "clarify", {
            **base,
            "messages": [*fresh, asked],
            "pending": decision.pending(),
            "evidence": decision.evidence,
            "status": "running",
        }
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
        return "rag", {
            **base,
            "messages": fresh,
            "handoff": record,
            "handoffs": [record],
            "turn_handoffs": 1,
            "status": "running",
        }
    answer = {**(decision.answer or {}), "mode": OFFLINE_MODEL if offline else "model"}
    msg = ChatMessage.assistant(str(answer.get("text", "")), agent="main", turn=turn, kind="answer")
    return "finish", {
        **base,
        "messages": [*fresh, msg],
        "answer": answer,
        "status": "answered",
        **remembered(state, answer.get("facts") or []),
    }


async def rag_step(pipeline: RagPipeline, state: AssistantState, sink: Any = None) -> Step:
    """The RAG pipeline on the task it was handed; the result goes back to ``main``.
    ``sink`` receives the generation's tokens (the graph's stream; ``None`` offline)."""
    turn = state.get("turn", 0)
    handoff = state.get("handoff") or {}
    task = str(handoff.get("task") or "")
    if not task:
        task = next(
            (m.content for m in reversed(state.get("messages", [])) if m.role == "user"), ""
        )
    try:
        facts = state.get("case_facts", {})
        result = await pipeline.run(
            task,
            context=str(handoff.get("context") or ""),
            attachments=state.get("attachments", []),
            sink=sink,
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
    if sink is not None:
        sink.settle(result["answer"], "final")
    back = {"from": "rag", "to": "main", "kind": "return", "turn": turn, "reason": "resultado"}
    msg = ChatMessage.assistant(result["answer"], agent="rag", turn=turn, kind="rag_result")
    return "main", {
        "rag": {**result, "turn": turn},
        "active_agent": "main",
        "handoffs": [back],
        "messages": [msg],
    }


def deliver_rag(state: AssistantState, rag: dict[str, Any], *, offline: bool) -> Step:
    """``main`` delivers the RAG agent's answer unchanged (or with the case part first)."""
    turn = state.get("turn", 0)
    case_part = (state.get("parts") or {}).get("case")
    if case_part is not None:
        return deliver_both(state, case_part, rag, offline=offline)
    answer = {
        "text": rag["answer"],
        "agent": "rag",
        "citations": rag.get("citations", []),
        "sources": rag.get("sources", []),
        "facts": [],
        **_rag_checks(rag, offline=offline),
    }
    msg = ChatMessage.assistant(rag["answer"], agent="main", turn=turn, kind="answer")
    return "finish", {"messages": [msg], "answer": answer, "status": "answered"}


def _rag_checks(rag: dict[str, Any], *, offline: bool) -> dict[str, Any]:
    """What an answer carries of the RAG agent's checks, and who wrote it."""
    return {
        "notes": rag.get("notes", []),
        "quality": rag.get("quality"),
        "passed": rag.get("passed"),
        "attempts": rag.get("attempts"),
        "extractive": rag.get("extractive"),
        "mode": OFFLINE_MODEL if offline else "model",
    }


def deliver_both(
    state: AssistantState, case_part: dict[str, Any], rag: dict[str, Any], *, offline: bool
) -> Step:
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
        f"{case_heading(case_part.get('facts', []), str(mixed.get('case', '')))}:\n{case_text}\n\n"
        f"Sobre a norma ({mixed.get('law', '')}):\n{rag['answer']}"
    )
    answer = {
        "text": text,
        "agent": "main",
        "citations": rag.get("citations", []),
        "facts": case_part.get("facts", []),
        **_rag_checks(rag, offline=offline),
        "parts": {"case": case_part["text"], "law": rag["answer"]},
    }
    msg = ChatMessage.assistant(text, agent="main", turn=turn, kind="answer")
    return "finish", {"messages": [msg], "answer": answer, "status": "answered"}


def closing(state: AssistantState, max_handoffs: int) -> dict[str, Any]:
    """What ``finish`` writes once no fallback answer applies: every turn ends with an answer
    record and a status, and an empty answer never reaches the person as one."""
    status = state.get("status") or "answered"
    turn = state.get("turn", 0)
    answer = state.get("answer")
    if answer is not None and status != "handoff_limit":
        if status != "answered" or str(answer.get("text") or "").strip():
            return {"status": status, "pending": None}
        status = "error"
    texts = {
        "handoff_limit": (
            f"Não consegui concluir: a pergunta passou de um agente a outro "
            f"{max_handoffs} vezes nesta rodada. Reformule a pergunta, "
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
