"""What the RAG agent's steps pass each other (:class:`RagState`) and the knobs of its
pipeline (:class:`RagConfig`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from colmeia.rag.generate import CitedAnswer
from colmeia.rag.retrieve import Hit

__all__ = ["RagConfig", "RagState"]


class RagState(TypedDict, total=False):
    question: str
    context: str
    local: str
    attachments: list[str]
    missing: str
    jurisdiction: str
    analysis: dict[str, Any]
    query: str
    tried: list[str]
    rewrites: int
    retries: int
    exhausted: bool
    ready: bool
    ingested: list[str]
    hits: list[Hit]
    grades: dict[str, float]
    relevant: list[Hit]
    scores: dict[str, float]
    ranked: list[Hit]
    passages: list[Hit]
    answer: CitedAnswer | None
    quality: float
    best: dict[str, Any] | None
    notes: list[str]
    result: dict[str, Any]


@dataclass(slots=True)
class RagConfig:
    """Knobs of the pipeline (defaults are what the assistant uses)."""

    k: int = 10
    min_relevant: int = 2
    relevance: float = 0.3
    quality: float = 0.7
    max_rewrites: int = 2
    max_quality_retries: int = 3
    max_passages: int = 6
    sources: list[Path] = field(default_factory=list)
    # words taken from the question's nearest passages (dense neighbours); 0: none
    neighbour_terms: int = 6
    # the law's nouns for the question's verbs and back (NomLex-PT, :mod:`.lexicon`)
    nominalizations: bool = True
    # words sharing a sense with the question's (OpenWordNet-PT, :mod:`.synonyms`): how many,
    # and the weight of their list in the fusion (0: not searched). Off: at 1.0 lay-dev's
    # hit@5 rose two questions, the frozen lay-test2 lost two first places (docs/assistant.md,
    # issue 32's sixth round)
    synonym_terms: int = 4
    synonym_weight: float = 0.0
    # only for the question's words the collection uses in at most this many passages
    synonym_max_df: int | None = 20
