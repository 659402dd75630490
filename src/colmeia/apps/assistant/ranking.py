"""Legal-structure aware ranking: passages ranked as parts of their article.

Retrieval ranks chunks one by one, and an article is cut in many (caput, §§, incisos, and a
whole-article chunk). A question about the rights of a data subject hits Art. 18's caput and
three of its incisos, each a little below one passage of Art. 9º that happens to repeat the
question's words; ranked chunk by chunk, Art. 9º wins. Here every chunk is scored by its
retrieval rank (reciprocal, as in rank fusion) and its relevance grade (how much of the
question it covers, :func:`colmeia.apps.assistant.rag_scores.grade_passage`), plus a bonus when
it states the relation the question asks for (a deadline's time span, a definition's drafting,
see :mod:`colmeia.apps.assistant.relations`); chunks are then grouped by law and article, an
article scores its best chunk plus a little for each further chunk of it that was found, and
each article is represented by its best chunk. Passages outside any article (a chapter's
whole text) rank after the articles: they cannot be cited down to a dispositivo.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from colmeia.apps.assistant.legal import article_key, parse_legal_path
from colmeia.apps.assistant.relations import Relation, states_relation
from colmeia.rag.retrieve import Hit

__all__ = ["RankedArticle", "rank_articles"]

# Weights measured on the shipped laws' question set (in-sample): retrieval order and grade
# count about equally; the relation and extra-chunk bonuses break ties between articles.
_RANK_WEIGHT = 0.5
_GRADE_WEIGHT = 0.5
_RELATION_BONUS = 0.12
_EXTRA_CHUNK_BONUS = 0.04
_MAX_EXTRA_CHUNKS = 3
_NO_ARTICLE_FACTOR = 0.6


@dataclass(slots=True)
class RankedArticle:
    """One article (or a passage outside articles) with its score and its chunks, best first."""

    key: str
    score: float
    hits: list[Hit]

    @property
    def best(self) -> Hit:
        return self.hits[0]


def rank_articles(
    hits: Sequence[Hit],
    grades: dict[str, float],
    relation: Relation = "other",
    *,
    boost: Callable[[Hit], float] | None = None,
) -> list[RankedArticle]:
    """Articles best first; ``hits`` in retrieval order, ``grades`` by chunk id.

    ``boost`` adds a per-chunk amount (e.g. for the passages defining the asked term).
    """
    scored: list[tuple[float, int, Hit]] = []
    for position, hit in enumerate(hits):
        retrieval = 10.0 / (10.0 + position)
        score = _RANK_WEIGHT * retrieval + _GRADE_WEIGHT * grades.get(hit.chunk_id, 0.0)
        if relation != "other" and states_relation(relation, hit.text):
            score += _RELATION_BONUS
        if boost is not None:
            score += boost(hit)
        scored.append((score, position, hit))
    groups: dict[str, list[tuple[float, int, Hit]]] = {}
    for item in scored:
        ref = parse_legal_path(item[2].citation.path)
        key = article_key(ref.law, ref.article) if ref.article else f"chunk:{item[2].chunk_id}"
        groups.setdefault(key, []).append(item)
    ranked: list[RankedArticle] = []
    for key, items in groups.items():
        items.sort(key=lambda x: (-x[0], x[1]))
        unique = {h.chunk_id for _, _, h in items}
        score = items[0][0] + _EXTRA_CHUNK_BONUS * min(len(unique) - 1, _MAX_EXTRA_CHUNKS)
        if key.startswith("chunk:"):
            score *= _NO_ARTICLE_FACTOR
        ranked.append(RankedArticle(key, score, [h for _, _, h in items]))
    first_seen = {key: min(p for _, p, _ in items) for key, items in groups.items()}
    ranked.sort(key=lambda r: (-r.score, first_seen[r.key]))
    return ranked
