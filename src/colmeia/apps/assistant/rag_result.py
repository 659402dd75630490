"""What the RAG agent answers with: the passages an extractive answer quotes, a model's
answer with the ranking's evidence kept first (:func:`ranker_first`), and the result handed
back to the coordinator (answer, citations, sources, quality, notes)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from colmeia.apps.assistant.court_rules import source_kind
from colmeia.apps.assistant.legal import parse_legal_path, validity
from colmeia.apps.assistant.rag_scores import _article_of
from colmeia.apps.assistant.rag_state import RagState
from colmeia.rag.generate import CheckedCitation, CitedAnswer
from colmeia.rag.retrieve import Hit

__all__ = ["ranker_first"]


def _closest(passages: Sequence[Hit], scores: dict[str, float]) -> list[Hit]:
    """The passages quoted as an extractive answer: the articles ranked about as high as the
    best one (at most three), else the first."""
    best = max(scores.get(h.chunk_id, 0.0) for h in passages)
    close = [h for h in passages if scores.get(h.chunk_id, 0.0) >= best - 0.15]
    return close[:3] or list(passages[:1])


def _rank_key(hit: Hit) -> str:
    """What the ranking ranks: an article (any of its chunks), else the passage itself."""
    return _article_of(hit) or f"chunk:{hit.chunk_id}"


_BY_RANKING = "trecho que a busca classificou primeiro; acrescentado às fontes"


def ranker_first(answer: CitedAnswer, ranker: CitedAnswer, ranked: Sequence[Hit]) -> CitedAnswer:
    """A model's answer over the ranked passages, with the ranking's evidence kept first.

    ``ranker`` is the answer without a model (the passages the ranking put first, best first),
    ``ranked`` the ranking's articles, best first. The result keeps the model's text and its
    checked citations, but:

    * the ranking's passages lead the citations, in its order, each marked in the text when
      the model did not cite it (a small model cites the neighbours of the right article: seen
      on the 1.5B local model);
    * the model's further citations follow in the ranking's order;
    * a citation of a passage whose article the ranking did not rank is dropped.

    So the passages an answer gives, in order, are never worse than without a model: the
    first is the same, and a passage the model did not cite keeps its place
    (:func:`colmeia.eval.assistant.answer_passages`).
    """
    position: dict[str, int] = {}
    for i, r_hit in enumerate(ranked):
        position.setdefault(_rank_key(r_hit), i)
    passages = list(answer.passages)
    by_chunk = {h.chunk_id: h for h in passages}
    pid_of = {h.chunk_id: f"P{i}" for i, h in enumerate(passages, start=1)}
    text = answer.answer
    kept: list[CheckedCitation] = []
    rejected = list(answer.rejected)
    for c in answer.citations:
        hit = by_chunk.get(c.chunk_id)
        if hit is None or _rank_key(hit) not in position:
            c.supported, c.reason = False, "outside the passages the ranking found"
            rejected.append(c)
            text = text.replace(f"[{c.passage_id}]", "")
            continue
        kept.append(c)
    first: list[CheckedCitation] = []
    for r in ranker.citations:
        mine = next((c for c in kept if c.chunk_id == r.chunk_id), None)
        if mine is None:
            if r.chunk_id not in pid_of:
                hit = next(h for h in ranker.passages if h.chunk_id == r.chunk_id)
                passages.append(hit)
                pid_of[hit.chunk_id] = f"P{len(passages)}"
            pid = pid_of[r.chunk_id]
            quote = (
                " ".join(by_chunk[r.chunk_id].text.split()[:12]) if r.chunk_id in by_chunk else ""
            )
            mine = CheckedCitation(pid, True, _BY_RANKING, quote, r.chunk_id, r.doc_id, r.citation)
            if f"[{pid}]" not in text:
                text = f"{text} [{pid}]"
        first.append(mine)
    leading = {c.chunk_id for c in first}

    def rank(c: CheckedCitation) -> int:
        return position[_rank_key(by_chunk[c.chunk_id])]

    rest = sorted((c for c in kept if c.chunk_id not in leading), key=rank)
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", text)).strip()
    return CitedAnswer(
        answer.question,
        text,
        [*first, *rest],
        rejected,
        passages,
        False,
        answer.model,
        answer.withheld,
    )


def _result(
    text: str,
    answer: CitedAnswer | None,
    quality: float,
    passed: bool,
    state: RagState,
    notes: list[str],
) -> dict[str, Any]:
    best = state.get("best") or {}
    ranked: list[Hit] = best.get("ranked", state.get("ranked", []))
    lead = set(best.get("lead", []))
    position: dict[str, int] = {}
    for i, r_hit in enumerate(ranked, start=1):
        position.setdefault(_rank_key(r_hit), i)
    citations: list[dict[str, Any]] = []
    cited_keys: set[str] = set()
    if answer is not None:
        for c in answer.citations:
            cit = c.citation
            ref = parse_legal_path(cit.path if cit else "", cit.page if cit else 0)
            hit = next((h for h in answer.passages if h.chunk_id == c.chunk_id), None)
            key = _rank_key(hit) if hit is not None else f"chunk:{c.chunk_id}"
            cited_keys.add(key)
            citations.append(
                {
                    "passage": c.passage_id,
                    "label": cit.label() if cit else c.doc_id,
                    **ref.as_dict(),
                    # whose norm: Constituição Federal, lei federal, jurisprudência, tribunal
                    "source": source_kind(
                        cit.path if cit else "", hit.doc_type if hit is not None else ""
                    ),
                    "doc_id": c.doc_id,
                    "chunk_id": c.chunk_id,
                    "quote": c.quote,
                    "validity": validity(hit.text if hit else "", c.doc_id).as_dict(),
                    # who put it in the answer: the ranking (its best passages, always kept
                    # first) or the model; and the place of its article in the ranking
                    "by": "ranking" if answer.extractive or c.chunk_id in lead else "model",
                    "rank": position.get(key),
                }
            )
    sources = [
        {
            "label": h.citation.label(),
            **parse_legal_path(h.citation.path, h.citation.page).as_dict(),
            "doc_id": h.doc_id,
            "chunk_id": h.chunk_id,
            "rank": position.get(_rank_key(h)),
        }
        for h in ranked
        if _rank_key(h) not in cited_keys and answer is not None
    ]
    return {
        "answer": text,
        "citations": citations,
        "sources": sources,
        "rejected": [r.as_dict() for r in answer.rejected] if answer else [],
        "extractive": bool(answer.extractive) if answer else True,
        "quality": quality,
        "passed": passed,
        "attempts": state.get("retries", 0),
        "queries": state.get("tried", []),
        "analysis": state.get("analysis", {}),
        "notes": notes,
    }
