"""Query expansion by the model: a researcher's question rewritten two or three ways (synonyms
of its key terms, the Portuguese of an English question), each searched, the works fused.

A paraphrase fails lexical search when its words are not the abstract's ("docentes" for
"professores", "anos 1600" for "século XVII", an English question over Portuguese abstracts);
the model knows the synonyms. The question itself always stays first in the fusion (reciprocal
rank fusion, k = 60), so a bad rewrite can only add candidates, never remove the question's own.
Without a model, or when the model fails, search runs on the question alone.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pydantic import BaseModel, Field

from colmeia.errors import ModelError
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt
from colmeia.rag.retrieve import DocumentResult, Filters, Retriever

__all__ = ["expand_query", "fused_search"]

log = logging.getLogger(__name__)

_MAX_WORDS = 40
_RRF_K = 60


class _Expansion(BaseModel):
    queries: list[str] = Field(description="Two or three rewritings of the question.")


async def expand_query(model: ChatModel | None, question: str, n: int = 3) -> list[str]:
    """``[question, rewriting…]`` (at most ``n`` rewritings, each cut to 40 words, repeats
    dropped); ``[question]`` without a model or when it fails."""
    if model is None:
        return [question]
    prompt = render_prompt("colmeia.apps.literature", "expand.j2", n=n)
    try:
        out = await model.structured(
            [Message.system(prompt), Message.user(question)],
            _Expansion,
            temperature=0.3,
            max_tokens=300,
        )
    except ModelError as exc:
        log.warning("query expansion failed, searching the question alone: %s", exc)
        return [question]
    seen = {" ".join(question.lower().split())}
    queries = [question]
    for q in out.queries:
        text = " ".join(q.split()[:_MAX_WORDS])
        key = text.lower()
        if text and key not in seen:
            seen.add(key)
            queries.append(text)
        if len(queries) > n:
            break
    return queries


def fused_search(
    retriever: Retriever,
    queries: Sequence[str],
    k: int,
    *,
    per_document: int = 1,
    filters: Filters | None = None,
) -> list[DocumentResult]:
    """The ``k`` best works over all ``queries`` by reciprocal rank fusion; each work keeps
    the passages of the query that ranked it best (the first query wins ties)."""
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, DocumentResult]] = {}
    for q in queries:
        found = retriever.search_documents(q, k, filters=filters, per_document=per_document)
        for rank, g in enumerate(found, start=1):
            scores[g.doc_id] = scores.get(g.doc_id, 0.0) + 1.0 / (_RRF_K + rank)
            if g.doc_id not in best or rank < best[g.doc_id][0]:
                best[g.doc_id] = (rank, g)
    order = sorted(scores, key=lambda d: -scores[d])[:k]
    return [DocumentResult(d, scores[d], best[d][1].title, best[d][1].hits) for d in order]
