"""A model reranker over the ranking's candidate articles (opt-in, with a model configured).

The ranking puts a lay question's right article among its first five far more often than
first; a model reading the question against each candidate — its text, its heading and the
caput of the article it belongs to — can tell "quanto tempo tenho para reclamar" from the
article that merely mentions "reclamação". The model sees at most ``top_n`` candidates, each
under an id the system gave (``A1``…), and answers ``{"order": [...]}``. Its answer is
validated: an id the system did not give, a repeated id or a malformed reply is dropped, and
the candidates it left out keep the ranking's order after the ones it chose. A failed call
keeps the ranking's order. The model never adds a passage; it only reorders what was found.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from colmeia.errors import ColmeiaError
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt
from colmeia.rag.retrieve import Hit

__all__ = ["ArticleChoice", "Candidate", "ModelArticleReranker", "apply_choice"]

log = logging.getLogger(__name__)
_TEXT_CHARS = 600


class ArticleChoice(BaseModel):
    """The model's reply: candidate ids, best first."""

    order: list[str] = Field(default_factory=list, description="Candidate ids, best first.")


@dataclass(frozen=True, slots=True)
class Candidate:
    """One article as the model sees it."""

    id: str
    label: str
    text: str
    heading: str = ""
    caput: str = ""


def apply_choice(ids: Sequence[str], order: Sequence[str]) -> list[int]:
    """Positions of ``ids`` in the model's ``order``, validated: unknown and repeated ids are
    dropped, ids it left out follow in their own order."""
    known = {cid: i for i, cid in enumerate(ids)}
    chosen: list[int] = []
    for raw in order:
        i = known.get(str(raw).strip().strip("[]").upper())
        if i is not None and i not in chosen:
            chosen.append(i)
    return chosen + [i for i in range(len(ids)) if i not in chosen]


class ModelArticleReranker:
    """Reorders the first ``top_n`` ranked articles with one structured model call."""

    def __init__(self, model: ChatModel, *, top_n: int = 6) -> None:
        self.model = model
        self.top_n = top_n

    def candidates(self, best: Sequence[Hit], caputs: dict[str, str]) -> list[Candidate]:
        """The articles' best passages as the prompt shows them (``caputs`` by chunk id)."""
        return [
            Candidate(
                f"A{i}",
                h.citation.label(),
                h.text[:_TEXT_CHARS],
                h.heading,
                caputs.get(h.chunk_id, "")[:_TEXT_CHARS],
            )
            for i, h in enumerate(best[: self.top_n], start=1)
        ]

    async def order(self, question: str, candidates: Sequence[Candidate]) -> list[int]:
        """Positions of ``candidates`` best first (the given order when the call fails)."""
        keep = list(range(len(candidates)))
        if len(candidates) < 2:
            return keep
        prompt = render_prompt(
            "colmeia.apps.assistant", "article_choice.j2", candidates=list(candidates)
        )
        try:
            reply = await self.model.structured(
                [Message.system(prompt), Message.user(question)], ArticleChoice
            )
        except ColmeiaError as exc:
            log.info("model reranker failed, keeping the ranking's order: %s", exc)
            return keep
        ids = [c.id for c in candidates]
        unknown = [o for o in reply.order if str(o).strip().strip("[]").upper() not in ids]
        if unknown:
            log.info("model reranker named ids it was not given (dropped): %s", unknown[:5])
        return apply_choice(ids, reply.order)
