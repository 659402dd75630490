"""A turn a model left without an answer gets the answer the assistant gives without one.

With a model, a turn can end with nothing for the person: the model's reply is empty or its
tool calls cannot be read twice running (the client gives up: a model error), a refused handoff
or repeated hand-offs reach the step or handoff cap, or the agent's last word is empty. Offline
the same question has an answer — the registry's card for a case that was looked up, the
question for the number when a case was asked about without one, the ranking's best passages
quoted and cited for a question about the laws — so that is what the person gets (:func:`fallback_answer`), marked with why. The RAG pipeline run here has no
model: it does not depend on the model that just failed.
"""

from __future__ import annotations

import logging
from typing import Any

from colmeia.apps.assistant.case_cards import evidence_cards
from colmeia.apps.assistant.conversation import resolve_follow_up
from colmeia.apps.assistant.offline import ASK_NUMBER, asks_about_unnumbered_case, route_of
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.errors import ColmeiaError

__all__ = ["UNANSWERED", "fallback_answer", "ranker_pipeline", "unanswered"]

log = logging.getLogger(__name__)

# Statuses of a turn that ended without an answer of the agents' own.
UNANSWERED = frozenset({"error", "handoff_limit", "step_limit"})

_NOTE = (
    "O modelo de linguagem não concluiu esta resposta ({why}); segue a resposta "
    "sem o modelo: {what}."
)


def unanswered(status: str, answer: dict[str, Any] | None) -> bool:
    """Whether a turn ending with ``status`` and ``answer`` left the person without one."""
    if status in UNANSWERED:
        return True
    return answer is None or not str(answer.get("text") or "").strip()


def ranker_pipeline(rag: RagPipeline) -> RagPipeline:
    """The RAG pipeline of ``rag`` without its model: same store, ranking and gates."""
    return RagPipeline(
        rag.store,
        rag.collection,
        None,
        retriever=rag.retriever,
        reranker=rag.reranker,
        config=rag.config,
        court_collection=rag.court_collection,
        jurisprudence_collection=rag.jurisprudence_collection,
    )


async def fallback_answer(
    state: dict[str, Any], ranker: RagPipeline, why: str, *, documents: bool
) -> dict[str, Any] | None:
    """The answer record for a turn left unanswered (``why``), or ``None`` when there is
    nothing better than the message the turn has: the registry's cards when cases were
    looked up this turn; the question for its number when the person asked about a case
    without one (their next message is then read as that number); else — for a question that
    is not about a case, with ``documents`` on — the ranking's cited passages when it found
    any."""
    turn = state.get("turn", 0)
    found = [e for e in state.get("evidence") or [] if e.get("status") == "found"]
    if found:
        return {
            "text": evidence_cards(found),
            "agent": "search",
            "citations": [],
            "facts": found,
            "notes": [_NOTE.format(why=why, what="os dados do cadastro")],
            "fallback": why,
        }
    users = [m for m in state.get("messages", []) if m.role == "user" and m.turn == turn]
    question = resolve_follow_up(users[-1].content, state.get("cases", [])) if users else ""
    if question and asks_about_unnumbered_case(question):
        return {
            "text": ASK_NUMBER,
            "agent": "search",
            "citations": [],
            "facts": [],
            "notes": [_NOTE.format(why=why, what="o pedido do número do processo")],
            "fallback": why,
        }
    if not documents or not question or route_of(question) == "search":
        return None
    try:
        result = await ranker.run(question, attachments=state.get("attachments", []))
    except ColmeiaError as exc:
        log.info("no fallback answer for %r: %s", question[:80], exc)
        return None
    if not result.get("citations"):
        return None
    return {
        "text": result["answer"],
        "agent": "rag",
        "citations": result.get("citations", []),
        "sources": result.get("sources", []),
        "facts": [],
        "notes": [
            _NOTE.format(why=why, what="os trechos mais bem classificados dos documentos"),
            *result.get("notes", []),
        ],
        "quality": result.get("quality"),
        "passed": result.get("passed"),
        "attempts": result.get("attempts"),
        "extractive": True,
        "fallback": why,
    }
