"""A learned ranking of articles: the question read against each candidate dispositivo in its
context, scored by a logistic model over retrieval features.

:func:`colmeia.apps.assistant.ranking.rank_articles` adds hand-set weights; here the same
signals and a few more are features of each candidate *article* (its chunks grouped by law and
article), and the weights are learned from the lay questions shipped with the articles, each
asked of a collection expanded with the other half of them (never from an evaluation set), see
``bench/train_article_ranker.py``. On the development sets it does not beat the hand-set
weights at the first place (laws 0.917 vs 0.867, lay-dev 0.782 vs 0.831, lay-dev2 0.63 both,
the trainer's own measure), so it stays opt-in (``COLMEIA_ASSISTANT_RANKER=learned``):

* ``retrieval`` — reciprocal position of the article's best chunk in the fused list;
* ``grade`` — the best chunk's relevance grade (question coverage, idf-weighted);
* ``relation`` — a chunk states the asked relation (deadline, definition, who, when);
* ``chunks`` — how many of the article's chunks were found (capped);
* ``lexical`` / ``dense`` — reciprocal best rank in the word list and in the vector list:
  a lay question shares few words with the law but lands near it in the vector space;
* ``law_share`` — the share of the first candidates that come from the same law: the law
  a question is about gathers many of its dispositivos near the top, a stray article of
  another law does not;
* ``heading`` — the share of the question's content words found in the article's headings
  (chapter, section) and its caput: the context the chunk sits in;
* ``caput`` — the best chunk is (or includes) the article's caput, the rule itself;
* ``specific`` — lex specialis: the best chunk limits itself to some bodies ("a empresa
  pública", "a União") that the question does not name; the general rule should win;
* ``boost`` — the passage defines the asked term (definition index);
* ``cosine`` — how near the question the article's nearest chunk is in the vector space,
  in standard deviations from the candidates' mean (every candidate has one, not only those
  the vector search returned; the stored vectors are read, nothing is embedded again);
* ``section`` / ``parent`` — the share of the question's content words that only the
  context holds, not the dispositivos' own text: the chapter and section titles ("Da
  Proteção Contratual"), and the rule an inciso or alínea completes (its parent's text,
  which LexML gives it in place of the titles and the ingestion keeps as its heading). A lay
  question often shares its words with the heading and the caput while the dispositivo that
  answers it says none of them;
* ``hand`` / ``hand_score`` — the hand-set ranking's place (reciprocal) and score (in standard
  deviations from the candidates' mean): the model learns how far to move from it;
* ``near`` / ``asked`` — how near the question the article's nearest passage (less its
  hubness) and its nearest shipped question lie, in standard deviations.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources

from colmeia.apps.assistant.legal import article_key, parse_legal_path
from colmeia.apps.assistant.relations import Relation, content_terms, states_relation
from colmeia.rag.retrieve import Hit

__all__ = [
    "FEATURES",
    "ArticleCandidate",
    "ArticleRanker",
    "article_candidates",
    "standardised",
]

FEATURES = (
    "retrieval",
    "grade",
    "relation",
    "chunks",
    "lexical",
    "dense",
    "law_share",
    "heading",
    "caput",
    "specific",
    "boost",
    "cosine",
    "section",
    "parent",
    "hand",
    "hand_score",
    "near",
    "asked",
)
_LAW_WINDOW = 20
_MAX_CHUNKS = 4
# Bodies a dispositivo can limit itself to; named by the chunk but not by the question, they
# mark a special rule (lex specialis) that gives way to the general one.
_BODIES = re.compile(
    r"\b(empresa publica|sociedade de economia mista|subsidiaria|concessionaria|permissionaria"
    r"|poder concedente|uniao|estados|municipios|distrito federal|autoridade nacional|anpd"
    r"|orgaos? de pesquisa|instituic[a-z]+ financeir[a-z]+|entidades? privadas?|forcas armadas)\b"
)


def _fold(text: str) -> str:
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@dataclass(slots=True)
class ArticleCandidate:
    """One article (or a passage outside articles) with its chunks, best first."""

    key: str
    hits: list[Hit]
    features: dict[str, float]
    first_seen: int

    @property
    def best(self) -> Hit:
        return self.hits[0]


def _context(hit: Hit) -> str:
    # The label names the article; the heading and path hold the chapter/section titles the
    # lexml rows carry in front of their text ("[ … | DISPOSIÇÕES PRELIMINARES | ]").
    lead = re.match(r"^\[(.*?)\]", hit.text)
    return " ".join([hit.heading, hit.citation.path, lead.group(1) if lead else ""])


# A heading part that is a parent dispositivo's text ("Art. 49. O consumidor…", "Art 49 …"),
# not a chapter or section title.
_PARENT_PART = re.compile(r"^Art\.?\s*\d")


def _context_parts(hits: Sequence[Hit]) -> tuple[str, str]:
    """(the section and chapter titles, the parent dispositivos' text) of ``hits``' headings."""
    sections: list[str] = []
    parents: list[str] = []
    for hit in hits:
        for part in hit.heading.split(" > "):
            (parents if _PARENT_PART.match(part.strip()) else sections).append(part)
    return " ".join(sections), " ".join(parents)


def article_candidates(
    question: str,
    hits: Sequence[Hit],
    grades: dict[str, float],
    relation: Relation = "other",
    *,
    boost: Callable[[Hit], float] | None = None,
    similarity: dict[str, float] | None = None,
) -> list[ArticleCandidate]:
    """The candidate articles of ``hits`` (in retrieval order) with their features;
    ``similarity`` is each chunk's cosine to the question (by chunk id), when known."""
    q_terms = set(content_terms(question))
    q_folded = _fold(question)
    q_bodies = set(_BODIES.findall(q_folded))
    laws: list[str] = []
    groups: dict[str, list[tuple[int, Hit]]] = {}
    for position, hit in enumerate(hits):
        ref = parse_legal_path(hit.citation.path)
        if position < _LAW_WINDOW:
            laws.append(ref.law)
        key = article_key(ref.law, ref.article) if ref.article else f"chunk:{hit.chunk_id}"
        groups.setdefault(key, []).append((position, hit))
    near = standardised(
        {
            key: max((similarity.get(h.chunk_id, -1.0) for _, h in items), default=-1.0)
            for key, items in groups.items()
        }
        if similarity
        else {}
    )
    out: list[ArticleCandidate] = []
    for key, items in groups.items():
        chunk_scores = []
        for position, hit in items:
            score = 10.0 / (10.0 + position) + grades.get(hit.chunk_id, 0.0)
            chunk_scores.append((score, position, hit))
        chunk_scores.sort(key=lambda t: (-t[0], t[1]))
        best = chunk_scores[0][2]
        first = min(p for p, _ in items)
        ref = parse_legal_path(best.citation.path)
        lexical = [h.lexical_rank for _, h in items if h.lexical_rank]
        dense = [h.dense_rank for _, h in items if h.dense_rank]
        context_terms = set(content_terms(" ".join(_context(h) for _, h in items)))
        best_bodies = set(_BODIES.findall(_fold(best.text)))
        own_terms = set(content_terms(" ".join(h.text for _, h in items)))
        sections, parents = _context_parts([h for _, h in items])
        only_context = q_terms - own_terms
        features = {
            "retrieval": 10.0 / (10.0 + first),
            "grade": max(grades.get(h.chunk_id, 0.0) for _, h in items),
            "relation": float(
                relation != "other" and any(states_relation(relation, h.text) for _, h in items)
            ),
            "chunks": min(len({h.chunk_id for _, h in items}), _MAX_CHUNKS) / _MAX_CHUNKS,
            "lexical": 10.0 / (10.0 + min(lexical)) if lexical else 0.0,
            "dense": 10.0 / (10.0 + min(dense)) if dense else 0.0,
            "law_share": laws.count(ref.law) / max(len(laws), 1) if ref.law else 0.0,
            "heading": len(q_terms & context_terms) / max(len(q_terms), 1),
            "caput": float(
                any("caput" in h.citation.path.lower() or "_cpt" in h.doc_id for _, h in items)
            ),
            "specific": float(bool(best_bodies - q_bodies) and not q_bodies),
            "boost": max((boost(h) for _, h in items), default=0.0) if boost else 0.0,
            "cosine": near.get(key, 0.0),
            "section": len(only_context & set(content_terms(sections))) / max(len(q_terms), 1),
            "parent": len(only_context & set(content_terms(parents))) / max(len(q_terms), 1),
        }
        out.append(ArticleCandidate(key, [h for _, _, h in chunk_scores], features, first))
    return out


def standardised(values: dict[str, float]) -> dict[str, float]:
    """Each value in standard deviations from the mean of the known ones (-1 = unknown, left
    out); {} when fewer than two are known or they are all equal."""
    known = [v for v in values.values() if v > -1.0]
    if len(known) < 2:
        return {}
    mean = sum(known) / len(known)
    sd = math.sqrt(sum((v - mean) ** 2 for v in known) / len(known))
    if sd <= 0:
        return {}
    return {k: (v - mean) / sd for k, v in values.items() if v > -1.0}


class ArticleRanker:
    """Logistic weights over :data:`FEATURES`; :meth:`rank` orders candidates best first."""

    def __init__(self, weights: dict[str, float], bias: float = 0.0) -> None:
        unknown = set(weights) - set(FEATURES)
        if unknown:
            raise ValueError(f"unknown ranking features: {sorted(unknown)}")
        self.weights = weights
        self.bias = bias

    @classmethod
    def shipped(cls) -> ArticleRanker:
        """The weights trained on generated questions, shipped as package data."""
        text = (
            resources.files("colmeia.apps.assistant")
            .joinpath("data/article_ranker.json")
            .read_text(encoding="utf-8")
        )
        data = json.loads(text)
        return cls({k: float(v) for k, v in data["weights"].items()}, float(data["bias"]))

    def score(self, features: dict[str, float]) -> float:
        """The model's probability, plus the definition boost as it is: the passage drafted as
        the asked term's definition goes first, as with the hand-set weights (the development
        set has too few definition questions to learn that from)."""
        z = self.bias + sum(w * features.get(name, 0.0) for name, w in self.weights.items())
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0))) + features.get("boost", 0.0)

    def rank(self, candidates: Sequence[ArticleCandidate]) -> list[tuple[float, ArticleCandidate]]:
        scored = [(self.score(c.features), c) for c in candidates]
        # passages outside any article cannot be cited down to a dispositivo: after articles
        scored.sort(key=lambda t: (t[1].key.startswith("chunk:"), -t[0], t[1].first_seen))
        return scored
