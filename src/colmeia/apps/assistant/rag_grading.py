"""The RAG agent's grading step: each passage graded, the articles ranked (hand-set
weights, the learned ranker, a model reranker), and the relevant passages chosen
(:mod:`colmeia.apps.assistant.rag_agent` wires it)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from colmeia.apps.assistant.article_choice import ModelArticleReranker
from colmeia.apps.assistant.article_ranker import (
    ArticleCandidate,
    ArticleRanker,
    article_candidates,
    standardised,
)
from colmeia.apps.assistant.definitions import DefinitionIndex
from colmeia.apps.assistant.hubness import hubness
from colmeia.apps.assistant.legal import law_key, parse_legal_path
from colmeia.apps.assistant.lex_specialis import limited_to_some_bodies, names_a_body
from colmeia.apps.assistant.rag_passages import _caput_id, _subdivision
from colmeia.apps.assistant.rag_query import _names_part, asked_clause
from colmeia.apps.assistant.rag_retrieval import _THREAD_NORM, Retrieval
from colmeia.apps.assistant.rag_scores import grade_passage
from colmeia.apps.assistant.rag_state import RagState
from colmeia.apps.assistant.ranking import RankedArticle, rank_articles
from colmeia.apps.assistant.relations import Relation
from colmeia.apps.assistant.scope import named_norms
from colmeia.errors import ColmeiaError, QueryError
from colmeia.rag.retrieve import Hit

log = logging.getLogger(__name__)
_DEFINITION_BOOST = 0.3
# The question's nearness to a passage in the vector space (standard deviations from the
# candidates' mean) as a hand-set bonus: 0.1 chosen on the lay development set
# (0 / 0.05 / 0.1 / 0.2 gave hit@1 0.516 / 0.540 / 0.556 / 0.532); the formal set is unchanged.
_NEARNESS_WEIGHT = 0.1
# The question's nearness to the lay questions generated for a passage's article
# (:mod:`colmeia.rag.expansion`; standard deviations from the candidates' mean), as the same
# kind of bonus. On the lay development set, with the retriever's expansion at its defaults,
# 0 / 0.1 / 0.2 / 0.4 gave hit@1 0.742 / 0.782 / 0.790 / 0.790 (lay questions only); with the
# questions in the law's terms too, 0.1 / 0.2: 0.782 / 0.806, the project's conversations 30 /
# 31 of 31, the formal set 0.933 / 0.917 at hit@1. At 0.4 the formal set lost three first places.
_ASKED_WEIGHT = 0.2
# A passage this many standard deviations nearer the question than the candidates' mean is
# relevant whatever its word coverage: 1.5 on the lay development set (whole runs, hit@1
# 0.492 → 0.516; 2.0 gave 0.500); the formal set is unchanged. The same bound for the
# nearness of its article's shipped questions (lay-dev hit@1 0.806 → 0.855, formal unchanged,
# conversations 31/31, independent4 77 → 79 of 85 turns; not tuned: the bound as it was).
_NEAR_RELEVANT = 1.5
# How much of a passage's hubness (its mean cosine to its nearest passages) comes off its
# cosine to the question. On lay-dev's first ranking, 0 / 0.5 / 0.75 / 1.0 gave hit@1 0.548 /
# 0.556 / 0.581 / 0.581 and hit@5 0.790 / 0.815 / 0.823 / 0.847 (nearness weight 0.15 from
# 0.75 on); from 0.75 the formal set lost a first place (Lei 14.129's article that rewrites
# the LAI's Art. 12 came before it), at 0.5 it gained one.
_HUB_FACTOR = 0.5
# What an article limited to some bodies (the federal executive…) loses when the question
# names none of them (:mod:`.lex_specialis`); on lay-dev's first ranking 0.1 / 0.2 / 0.3
# moved 2 / 4 / 4 questions up and none down (at 0.3 one first place less than 0.2), the
# formal set unchanged at each.
_SPECIALIS_PENALTY = 0.2


class Grading(Retrieval):
    """The grading step of :class:`~colmeia.apps.assistant.rag_agent.RagPipeline`."""

    # set by RagPipeline.__init__
    article_ranker: ArticleRanker | None
    model_reranker: ModelArticleReranker | None

    def candidates(
        self, state: RagState, grades: dict[str, float]
    ) -> tuple[list[ArticleCandidate], Relation]:
        """The candidate articles of the retrieved passages with their ranking features."""
        analysis = state.get("analysis", {})
        relation: Relation = analysis.get("relation", "other")
        weights: dict[str, float] = analysis.get("definition_weights", {})

        def boost(hit: Hit) -> float:
            # A definition question: the passage drafted as the term's definition goes first.
            if relation != "definition":
                return 0.0
            return _DEFINITION_BOOST * weights.get(hit.chunk_id, 0.0)

        hits = state.get("hits", [])
        found = article_candidates(
            state["question"],
            hits,
            grades,
            relation,
            boost=boost,
            similarity=self._similarity(state["question"], hits),
        )
        return found, relation

    def _similarity(self, question: str, hits: Sequence[Hit]) -> dict[str, float]:
        """Each passage's cosine to the question, from the stored vectors ({} without them)."""
        if self.retriever.embedder is None or not hits:
            return {}
        try:
            vectors = self.retriever.chunk_vectors([h.chunk_id for h in hits])
            if not vectors:
                return {}
            query = self.retriever.embed_query(question)
        except (ColmeiaError, QueryError) as exc:
            log.info("no vector similarity for ranking: %s", exc)
            return {}
        return {cid: float(vec @ query) for cid, vec in vectors.items()}

    def hand_ranking(
        self, state: RagState, grades: dict[str, float]
    ) -> tuple[list[RankedArticle], dict[str, float], dict[str, float]]:
        """The articles by the hand-set weights of :func:`rank_articles`, with each passage's
        nearness to the question (its cosine less part of its hubness) and the nearness of its
        article's shipped questions, both in standard deviations from the candidates' mean."""
        analysis = state.get("analysis", {})
        question = state["question"]
        hits = state.get("hits", [])
        relation = analysis.get("relation", "other")
        weights: dict[str, float] = analysis.get("definition_weights", {})
        # each cosine less part of the passage's hubness: near this question, not near
        # every question (:mod:`.hubness`)
        cosines = self._similarity(question, hits)
        ids = [h.chunk_id for h in hits]
        asked_by = self.retriever.expansion_similarity(question, ids) if _ASKED_WEIGHT > 0 else {}
        clause = asked_clause(question)
        if clause:
            # a situation told, then the question: "…e negaram. quanto tempo eu tenho pra
            # recorrer?" — nearness to the whole and to what is asked, alike
            own = self._similarity(clause, hits)
            cosines = {c: (v + own.get(c, v)) / 2 for c, v in cosines.items()}
            if asked_by:
                mine = self.retriever.expansion_similarity(clause, ids)
                asked_by = {c: (v + mine.get(c, v)) / 2 for c, v in asked_by.items()}
        hubs = hubness(self.store, self.collection) if cosines else {}
        near = standardised(
            {cid: cos - _HUB_FACTOR * hubs.get(cid, 0.0) for cid, cos in cosines.items()}
        )
        asked = standardised(asked_by)

        def boost(hit: Hit) -> float:
            # how near the question the passage lies in the vector space, for every
            # candidate (not only those the vector search returned)
            nearness = _NEARNESS_WEIGHT * near.get(hit.chunk_id, 0.0)
            nearness += _ASKED_WEIGHT * asked.get(hit.chunk_id, 0.0)
            if relation != "definition":
                return nearness
            return nearness + _DEFINITION_BOOST * weights.get(hit.chunk_id, 0.0)

        ranked = rank_articles(hits, grades, relation, boost=boost)
        named = analysis.get("filters", {})
        if any(named.get(k) for k in ("inciso", "paragraph", "caput")):
            # the part named leads its article, however near another part's vector lies
            for article in ranked:
                article.hits.sort(
                    key=lambda h: not _names_part(named, parse_legal_path(h.citation.path))
                )
        if not names_a_body(question):
            # lex specialis: an article whose rule is for some bodies only (any of its
            # passages found says so, its caput or an inciso under it) gives way to the
            # general rule when the question names none of them
            for article in ranked:
                if any(limited_to_some_bodies(f"{h.heading} {h.text}") for h in article.hits):
                    article.score -= _SPECIALIS_PENALTY
            ranked.sort(key=lambda a: -a.score)
        return ranked, near, asked

    def learned_candidates(
        self,
        state: RagState,
        grades: dict[str, float],
        ranked: Sequence[RankedArticle],
        near: dict[str, float],
        asked: dict[str, float],
    ) -> list[ArticleCandidate]:
        """The candidate articles with the learned ranker's features: the retrieval's and the
        ranking's own signals (:func:`article_candidates`), the hand-set ranking's place and
        score, and how near the question the article's passages and shipped questions lie."""
        found, _ = self.candidates(state, grades)
        place = {a.key: n for n, a in enumerate(ranked)}
        score = standardised({a.key: a.score for a in ranked})
        for c in found:
            cids = [h.chunk_id for h in c.hits]
            c.features["hand"] = 1.0 / (1.0 + place.get(c.key, len(place)))
            c.features["hand_score"] = score.get(c.key, 0.0)
            c.features["near"] = max((near.get(i, 0.0) for i in cids), default=0.0)
            c.features["asked"] = max((asked.get(i, 0.0) for i in cids), default=0.0)
        return found

    async def grade(self, state: RagState) -> RagState:
        """Grade each passage's relevance, rank them as parts of their articles, keep the
        best passage of each article whose grade reaches the threshold (best article first).

        Articles are ordered by the learned ranker (:mod:`.article_ranker`) when one is set,
        else by the hand-set weights of :func:`rank_articles`."""
        analysis = state.get("analysis", {})
        question = state["question"]
        grades: dict[str, float] = dict(state.get("grades", {}))
        stats = DefinitionIndex.for_collection(self.store, self.collection)
        hits = state.get("hits", [])
        graded = str(analysis.get("grade_query") or question)
        for hit in hits:
            grades[hit.chunk_id] = grade_passage(graded, hit, analysis, stats.idf)
        ranked, near, asked = self.hand_ranking(state, grades)
        if self.article_ranker is not None:
            found = self.learned_candidates(state, grades, ranked, near, asked)
            order = {c.key: n for n, (_, c) in enumerate(self.article_ranker.rank(found))}
            ranked.sort(key=lambda a: order.get(a.key, len(order)))
        if self.model_reranker is not None and len(ranked) > 1:
            ranked = await self._model_order(question, ranked)
        named_first = self._named_norm_first(question, analysis, ranked, grades, near, asked)
        clauses = set(analysis.get("in_force", []))
        if clauses:
            # A vigência question: the norm's vigência clause goes first, as a definition does
            # for "o que é X" (its words rarely match the question's).
            ranked.sort(key=lambda a: not any(h.chunk_id in clauses for h in a.hits))
            for article in ranked:
                # and within the article, the caput's rule before its paragraphs' details and
                # exceptions (LC 95, Art. 11): LINDB Art. 1's "a lei começa a vigorar… quarenta
                # e cinco dias depois…", not its § 3 on a text published again
                article.hits.sort(key=lambda h: (h.chunk_id not in clauses, _subdivision(h)))
        scores = {a.best.chunk_id: round(a.score, 4) for a in ranked}
        if named_first is not None and scores:
            # quoted, whatever its words scored beside the other norm's (see _closest)
            scores[named_first.best.chunk_id] = max(scores.values())
        if clauses and scores and analysis.get("in_force_known"):
            # the clause of the norm asked leads whatever its words scored: the extractive
            # answer quotes the articles scored near the best one (_closest), and a clause
            # scored far below it was left out of the answer it leads ("a LAI vale desde
            # quando?" quoted Art. 24's secrecy terms, Art. 47 "Esta Lei entra em vigor…" only
            # among the sources). A clause of a norm merely found is left to its score.
            highest = max(scores.values())
            for article in ranked:
                if article.best.chunk_id in clauses:
                    scores[article.best.chunk_id] = highest
        relevant = [
            h
            for article in ranked
            for h in article.hits[:1]
            if grades.get(h.chunk_id, 0.0) >= self.config.relevance
            # or the vectors vouch for it: a lay question shares few words with the law
            or any(near.get(c.chunk_id, 0.0) >= _NEAR_RELEVANT for c in article.hits)
            # or the questions people ask that the article answers lie nearest this one
            or any(asked.get(c.chunk_id, 0.0) >= _NEAR_RELEVANT for c in article.hits)
        ]
        if relevant and relevant[0] is not ranked[0].best:
            # The gate says whether there is an answer and which articles join it, not which
            # comes first: the article the ranking put first leads whenever any passes. Left
            # out, a lower article with more of the question's words led instead (the
            # instalments a buyer loses on withdrawal, CDC Art. 53, behind Lei 9.784's
            # withdrawal of a request): on the development sets the ranking's first place was
            # the right one ten times where the gate's was six (words only).
            relevant = [ranked[0].best, *[h for h in relevant if h is not ranked[0].best]]
        if not relevant and ranked and hits:
            # Nothing reaches the threshold: the passage retrieval put first still stands if
            # its article also ranks first (both signals agree on it); so does the article
            # ranked first when it holds the passage nearest the question by vectors (a lay
            # question shares few words with the law, so its coverage grade stays low).
            top = ranked[0].best
            nearest = max(near, key=lambda cid: near[cid]) if near else None
            if (
                top.chunk_id == hits[0].chunk_id
                or any(h is hits[0] for h in ranked[0].hits)
                or any(h.chunk_id == nearest for h in ranked[0].hits)
            ):
                relevant = [top]
        return {
            "grades": grades,
            "relevant": relevant,
            "scores": scores,
            "ranked": [a.best for a in ranked[: self.config.max_passages]],
        }

    def _named_norm_first(
        self,
        question: str,
        analysis: dict[str, Any],
        ranked: list[RankedArticle],
        grades: dict[str, float],
        near: dict[str, float],
        asked: dict[str, float],
    ) -> RankedArticle | None:
        """Put first the best article of the norm the question itself names ("a constituição
        fala alguma coisa sobre licitação?"), when one of its passages is relevant; the
        article moved, or ``None``. Another norm's article on more of the question's words
        answers a question nobody asked of it. The thread's norm a follow-up is searched
        within (``… (Lei 8.078/1990)``) is no norm the question names."""
        law = analysis.get("filters", {}).get("law_number")
        if not law or not ranked or not named_norms(_THREAD_NORM.sub("", question)):
            return None
        own = [a for a in ranked if law_key(parse_legal_path(a.best.citation.path).law) == law]
        if not own or own[0] is ranked[0]:
            return None
        first = own[0]
        relevant = any(
            grades.get(h.chunk_id, 0.0) >= self.config.relevance
            or near.get(h.chunk_id, 0.0) >= _NEAR_RELEVANT
            or asked.get(h.chunk_id, 0.0) >= _NEAR_RELEVANT
            for h in first.hits
        )
        if not relevant:
            return None
        ranked.remove(first)
        ranked.insert(0, first)
        return first

    async def _model_order(self, question: str, ranked: list[RankedArticle]) -> list[RankedArticle]:
        """The first articles as the model reranker orders them (each shown with its caput)."""
        assert self.model_reranker is not None
        head = ranked[: self.model_reranker.top_n]
        best = [a.best for a in head]
        wanted = {h.chunk_id: _caput_id(h) for h in best}
        ids = [c for c in wanted.values() if c]
        found = self.store.get_chunks(self.collection, ids) if ids else {}
        caputs = {cid: found[c].text for cid, c in wanted.items() if c and c in found}
        candidates = self.model_reranker.candidates(best, caputs)
        order = await self.model_reranker.order(question, candidates)
        return [head[i] for i in order] + ranked[len(head) :]
