"""The RAG agent: a step pipeline (:mod:`colmeia.graphs.flow`) over colmeia's RAG core.

::

    check_collection → analyze → ingest_attachments? → retrieve → grade ─┬─ enough relevant ─→ enrich
          │ (missing, no sources)                          ↑              └─ too few, < max → rewrite ┘
          ↓                                                └────────── rewrite ←─ quality ≤ 0.7, < 3 retries
        prepare ← validate ← generate ← rerank ← enrich                           │
          ↑____________________ quality > 0.7, or 3 retries: answer with the best and say so

Every node is a method of :class:`RagPipeline` taking and returning plain state dicts, so
each can be called and tested alone. With no model the pipeline still answers: the query is
analysed and rewritten by rules, passages graded by term coverage, and the answer is the best
passages themselves, cited (extractive). With a model, generation cites passages ``[P1]`` and
every citation is checked against its passage (``colmeia.rag.generate``).

For laws, each passage's validity in time is read from its text's annotations and its URN
date: revoked and vetoed dispositivos are never used as support (a note says they were left
out), amended ones are flagged with the amending act.

The steps live in parts by job, chained as one class: :mod:`.rag_retrieval` (retrieve,
rewrite), :mod:`.rag_grading` (grade), :mod:`.rag_answering` (enrich, rerank, generate,
validate, write, prepare). The rules they use are modules of their own: reading a question
(:mod:`.rag_query`), scoring passages and answers (:mod:`.rag_scores`), passages beyond one
search (:mod:`.rag_passages`) and the result handed back (:mod:`.rag_result`). This module
holds the collection checks, the analysis, the routing between collections, the wiring and
:meth:`RagPipeline.run`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from colmeia.apps.assistant.article_choice import ModelArticleReranker
from colmeia.apps.assistant.article_ranker import ArticleRanker
from colmeia.apps.assistant.court_rules import (
    COURT_COLLECTION,
    JURISPRUDENCE_COLLECTION,
    court_rules_note,
    is_procedural,
)
from colmeia.apps.assistant.decision_catalogue import (
    asks_decisions,
    decision_catalogue,
    decisions_named,
    missing_decision,
    not_held,
    rapporteur_note,
    subject_of,
)
from colmeia.apps.assistant.definitions import DefinitionIndex
from colmeia.apps.assistant.legal import law_key
from colmeia.apps.assistant.lexicon import Nominalizations
from colmeia.apps.assistant.query_spelling import spelling_for
from colmeia.apps.assistant.rag_answering import _SINK, Answering
from colmeia.apps.assistant.rag_query import _fold, analyze_query
from colmeia.apps.assistant.rag_result import ranker_first
from colmeia.apps.assistant.rag_scores import (
    answer_quality,
    answering_score,
    citation_integrity,
    grade_passage,
)
from colmeia.apps.assistant.rag_state import RagConfig, RagState
from colmeia.apps.assistant.saved_catalogue import norm_catalogue
from colmeia.apps.assistant.scope import (
    jurisdiction_note,
    missing_norm,
    named_norms,
)
from colmeia.apps.assistant.synonyms import Synonyms
from colmeia.errors import ColmeiaError, QueryError
from colmeia.graphs.flow import END, Flow
from colmeia.llm.base import ChatModel
from colmeia.rag.generate import AnswerSink
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.retrieve import Retriever
from colmeia.store.base import Store

__all__ = [
    "RagConfig",
    "RagPipeline",
    "RagState",
    "analyze_query",
    "answer_quality",
    "answering_score",
    "citation_integrity",
    "grade_passage",
    "ranker_first",
]

log = logging.getLogger(__name__)
_PKG = "colmeia.apps.assistant"
# the federal law of the administrative process: what a procedural question about a case of
# a court of accounts is compared with (court_rules' note names it)
FEDERAL_PROCEDURE = "9784"


# A question about decisions, not a decision's deadline ("recorrer de decisão" is procedure).
_ABOUT_DECISIONS = re.compile(
    r"\b(ac[oó]rd[aã]os?|jurisprud\w*|s[uú]mulas?|precedentes?|julgados?|"
    r"entendimento d[oa] (?:tcu|tribunal)|(?:o )?tcu (?:decidiu|entende|julgou))\b",
    re.IGNORECASE,
)
_WHOSE = {
    "norma do tribunal": "Normas do próprio tribunal (coleção {collection!r}):",
    "jurisprudência": "Jurisprudência (coleção {collection!r}):",
}
# The court's own norms, by the names courts give them (folded).
_COURT_NORM = re.compile(
    r"\b(?:regimento interno|lei organica do tribunal|resolucao do tribunal|"
    r"resolucoes do tribunal|normas? do tribunal|instrucao normativa do tribunal)\b"
)


class RagPipeline(Answering):
    """The RAG agent's pipeline over one collection of a store."""

    def __init__(
        self,
        store: Store,
        collection: str,
        model: ChatModel | None = None,
        *,
        retriever: Retriever | None = None,
        reranker: Any = None,
        config: RagConfig | None = None,
        embedder: Embedder | None = None,
        article_ranker: ArticleRanker | None | Literal["shipped"] = None,
        court_collection: str = COURT_COLLECTION,
        jurisprudence_collection: str = JURISPRUDENCE_COLLECTION,
        model_reranker: ModelArticleReranker | None = None,
    ) -> None:
        self.store = store
        self.model_reranker = model_reranker
        self.article_ranker = (
            ArticleRanker.shipped() if article_ranker == "shipped" else article_ranker
        )
        if self.article_ranker is not None and not self.article_ranker.weights:
            self.article_ranker = None  # no trained weights: the hand-set ones
        self.collection = collection
        self.court_collection = court_collection
        self.jurisprudence_collection = jurisprudence_collection
        self._siblings: dict[str, RagPipeline] = {}
        self.model = model
        self.reranker = reranker
        self.config = config or RagConfig()
        self.lexicon = self.config.nominalizations
        self.retriever = retriever or Retriever(store, collection, embedder=embedder)
        self.graph = self._build().check()

    async def evidence(self, question: str, k: int = 5) -> float:
        """How well the collection's best passage covers the question's words (0–1, each word
        weighted by its rarity, as :func:`grade_passage` grades), from the collection's own search.

        The turn classifier learnt what is out of scope from questions about courts and laws;
        a collection of other documents (a university's rules) answers questions it has never
        seen, so a scope reading yields when the documents cover the question this well."""
        try:
            hits = await self.retriever.asearch(question, k)
        except (QueryError, ColmeiaError):
            return 0.0
        if not hits:
            return 0.0
        stats = DefinitionIndex.for_collection(self.store, self.collection)
        return max(grade_passage(question, hit, {}, stats.idf) for hit in hits)

    # ------------------------------------------------------------------ nodes
    async def check_collection(self, state: RagState) -> RagState:
        """Is the collection there? If not, and sources are configured, ingest them."""
        if self.store.collection(self.collection) is not None:
            return {"ready": True}
        if not self.config.sources:
            note = (
                f"A coleção de documentos {self.collection!r} não existe; ingira os documentos "
                f"com `colmeia ingest PASTA --collection {self.collection}`."
            )
            return {"ready": False, "notes": [note]}
        from colmeia.rag.pipeline import ingest

        report = ingest(self.store, self.collection, self.config.sources)
        log.info("set up collection %s: %s documents", self.collection, report.documents)
        return {"ready": report.documents > 0}

    async def analyze(self, state: RagState) -> RagState:
        """Original and processed query, type, complexity and filters; whether the question
        names a norm the collection lacks, or a state body when the collection is federal."""
        question = state["question"]
        # "quanto tempo eu tenho pra recorer?": a word the collection, the questions shipped
        # with it and the language do not know, one slip from a word of the collection, is
        # read as that word (:mod:`.query_spelling`)
        question = spelling_for(self.store, self.collection).mend(question)
        analysis = analyze_query(question)
        if self.collection == self.jurisprudence_collection and not decisions_named(question):
            # "decisões do relator X sobre dispensa": every statement here is a decision;
            # the subject is what tells them apart (a decision named by number is looked for
            # as typed)
            subject = subject_of(question)
            if subject != question:
                analysis["processed"] = analyze_query(subject)["processed"]
                analysis["grade_query"] = subject
            unrecorded = rapporteur_note(
                question, decision_catalogue(self.store, self.collection), self.collection
            )
            if unrecorded:
                state = {**state, "notes": [*state.get("notes", []), unrecorded]}
        # The law's noun for the question's verb and back ("intervir" → "intervenção"), when
        # the collection uses it: searched with the law's words, and covering as they do.
        vocabulary = DefinitionIndex.for_collection(self.store, self.collection).df
        related = Nominalizations.shipped().related(question, vocabulary) if self.lexicon else []
        if related:
            analysis["nominalizations"] = related
            analysis["legal_terms"] = " ".join([str(analysis["legal_terms"]), *related]).strip()
        if self.config.synonym_weight > 0:
            synonyms = Synonyms.shipped().related(
                question, vocabulary, self.config.synonym_terms, rare=self.config.synonym_max_df
            )
            if synonyms:
                analysis["synonyms"] = synonyms
        catalogue = norm_catalogue(self.store, self.collection)
        jurisdiction = jurisdiction_note(question, catalogue) or ""
        # The court's own norms answering need no warning that the court's norms may differ.
        local = state.get("local", "") if self.collection != self.court_collection else ""
        filters = analysis["filters"]
        if (
            local
            and not filters.get("law_number")
            and is_procedural(question, str(analysis.get("relation")))
            and any(law_key(number) == FEDERAL_PROCEDURE for _, number in catalogue.norms)
        ):
            # "tem prazo pra isso?" in a case's thread asks the administrative process: the
            # federal rule the court-rules note compares with is the process law's, searched
            # first (a preference, as a norm named is: others may still come)
            filters["law_number"] = FEDERAL_PROCEDURE
        if (local or jurisdiction) and is_procedural(question, str(analysis.get("relation"))):
            # The law's words for everyday ones ("recorrer" → "recurso interpor") find the
            # court's dispositivo as they find the federal one.
            terms = analysis.get("legal_terms") or ""
            words = terms if isinstance(terms, str) else " ".join(map(str, terms))
            court = self._court_passages(f"{question} {words}".strip())
            if local:
                jurisdiction = court_rules_note(local, court, self.court_collection)
            elif court:
                quoted = " ".join(f"«{t}» ({label}, norma do tribunal)." for label, t in court)
                jurisdiction += f" Segundo as normas do próprio tribunal: {quoted}"
        return {
            "question": question,
            "missing": missing_norm(question, catalogue) or self._missing_decision(question),
            "jurisdiction": jurisdiction,
            "analysis": analysis,
            "query": analysis["processed"],
            "tried": [],
            "rewrites": 0,
            "retries": 0,
            "notes": state.get("notes", []),
            "best": None,
        }

    def _missing_decision(self, question: str) -> str:
        """What to say of a decision or súmula named by number that no collection searched
        holds: the jurisprudence's own catalogue tells when it answers; the laws, when no
        jurisprudence was ingested, hold no decision at all (unless other documents might
        quote it). Empty when the decision is there, or none is named."""
        if self.collection == self.jurisprudence_collection:
            return missing_decision(question, decision_catalogue(self.store, self.collection)) or ""
        if self.store.collection(self.jurisprudence_collection) is not None:
            return ""
        named = decisions_named(question)
        catalogue = norm_catalogue(self.store, self.collection)
        if not named or not catalogue.norms or catalogue.other_documents:
            return ""
        return not_held([label for label, *_ in named], "; ".join(catalogue.labels()))

    def _court_passages(self, question: str, k: int = 2) -> list[tuple[str, str]]:
        """The court's own dispositivos for a question, when it ingested its norms."""
        if self.court_collection == self.collection or (
            self.store.collection(self.court_collection) is None
        ):
            return []
        hits = Retriever(self.store, self.court_collection).search(question, k=k)
        return [(h.citation.label(), h.text) for h in hits]

    def route(self, question: str) -> str:
        """The collection that answers ``question``: the decisions for a question about
        jurisprudence ("um acórdão sobre contratação direta", "Acórdão 1234/2019-Plenário",
        "súmula 272"), the court's norms for one naming a norm only they hold ("a resolução
        nº 12", "o regimento interno"), else this pipeline's own (the laws)."""
        exists = self.store.collection
        # "decisões do relator X sobre dispensa" asks decisions as "acórdão" does
        if exists(self.jurisprudence_collection) is not None and (
            _ABOUT_DECISIONS.search(question) or asks_decisions(question)
        ):
            return self.jurisprudence_collection
        if self.court_collection != self.collection and exists(self.court_collection) is not None:
            if _COURT_NORM.search(_fold(question)):
                return self.court_collection
            named = named_norms(question)
            if named:
                own = norm_catalogue(self.store, self.collection)
                court = norm_catalogue(self.store, self.court_collection)
                if any(court.holds(n) and not own.holds(n) for n in named):
                    return self.court_collection
        return self.collection

    def sibling(self, collection: str) -> RagPipeline:
        """The same pipeline (model, reranker, knobs) over another collection."""
        if collection == self.collection:
            return self
        found = self._siblings.get(collection)
        if found is None:
            found = RagPipeline(
                self.store,
                collection,
                self.model,
                reranker=self.reranker,
                config=replace(self.config, sources=[]),
                court_collection=self.court_collection,
                jurisprudence_collection=self.jurisprudence_collection,
                model_reranker=self.model_reranker,
            )
            self._siblings[collection] = found
        return found

    async def ingest_attachments(self, state: RagState) -> RagState:
        """Ingest newly attached documents into the collection (unchanged ones are skipped)."""
        from colmeia.rag.pipeline import ingest

        paths = [Path(p) for p in state.get("attachments", [])]
        report = ingest(self.store, self.collection, paths)
        notes = list(state.get("notes", []))
        for e in report.errors:
            notes.append(f"Anexo não lido: {e.source}: {e.reason}")
        return {"ingested": [str(p) for p in paths], "notes": notes, "ready": True}

    # ------------------------------------------------------------------ wiring
    def _after_check(self, state: RagState) -> str:
        return "analyze" if state.get("ready") else "prepare"

    def _after_analyze(self, state: RagState) -> str:
        if state.get("attachments"):
            return "ingest_attachments"
        # A norm the collection does not hold: another law's passages would not answer.
        return "prepare" if state.get("missing") else "retrieve"

    def _after_grade(self, state: RagState) -> str:
        enough = len(state.get("relevant", [])) >= self.config.min_relevant
        if enough or state.get("rewrites", 0) >= self.config.max_rewrites:
            return "enrich"
        return "rewrite"

    def _after_validate(self, state: RagState) -> str:
        if state.get("quality", 0.0) > self.config.quality:
            return "write"
        if state.get("retries", 0) >= self.config.max_quality_retries or state.get("exhausted"):
            return "write"
        return "retry"

    def _after_retry(self, state: RagState) -> str:
        return "write" if state.get("exhausted") else "retrieve"

    def _after_rewrite(self, state: RagState) -> str:
        if not state.get("exhausted"):
            return "retrieve"
        # Nothing left to rewrite: the answer rests on what was found (fewer relevant passages
        # than wished is still an answer), or the quality loop's best answer stands.
        return "write" if state.get("best") else "enrich"

    async def retry(self, state: RagState) -> RagState:
        """After a failed quality check: rewrite, and allow the retrieval loop again."""
        out = await self.rewrite(state)
        out["retries"] = state.get("retries", 0) + 1
        if not out.get("exhausted"):
            out["rewrites"] = 0
        return out

    def _build(self) -> Flow[RagState]:
        g: Flow[RagState] = Flow("rag", start="check_collection")
        for name in (
            "check_collection",
            "analyze",
            "ingest_attachments",
            "retrieve",
            "grade",
            "rewrite",
            "enrich",
            "rerank",
            "generate",
            "validate",
            "retry",
            "write",
            "prepare",
        ):
            g.node(name, getattr(self, name))
        g.branch("check_collection", self._after_check)
        g.branch("analyze", self._after_analyze)
        g.edge("ingest_attachments", "retrieve")
        g.edge("retrieve", "grade")
        g.branch("grade", self._after_grade)
        g.branch("rewrite", self._after_rewrite)
        g.edge("enrich", "rerank")
        g.edge("rerank", "generate")
        g.edge("generate", "validate")
        g.branch("validate", self._after_validate)
        g.branch("retry", self._after_retry)
        g.edge("write", "prepare")
        g.edge("prepare", END)
        return g

    @property
    def recursion_limit(self) -> int:
        loops = (self.config.max_rewrites + 1) * 3 * (self.config.max_quality_retries + 1)
        return 10 + loops + 6 * (self.config.max_quality_retries + 1)

    async def run(
        self,
        question: str,
        *,
        context: str = "",
        attachments: Sequence[str] = (),
        sink: AnswerSink | None = None,
        local: str = "",
    ) -> dict[str, Any]:
        """Run the pipeline on one question; returns the result for the coordinator.

        With ``sink``, each generation streams its answer into it (a retry withdraws the
        previous one); the result's answer is what counts. ``local`` names the thread's case
        of a state or municipal court (:func:`court_rules.local_case`): a deadline or
        procedure question is then warned that the court's own rules may differ.
        """
        target = self.route(question) if not attachments else self.collection
        if target != self.collection:
            return await self.sibling(target).run(question, context=context, sink=sink, local=local)
        state: RagState = {
            "question": question,
            "context": context,
            "local": local,
            "attachments": list(attachments),
        }
        token = _SINK.set(sink)
        try:
            out = await self.graph.run(state, limit=self.recursion_limit)
        finally:
            _SINK.reset(token)
        result: dict[str, Any] = out["result"]
        role = (
            "norma do tribunal"
            if self.collection == self.court_collection
            else "jurisprudência"
            if self.collection == self.jurisprudence_collection
            else ""
        )
        if role:  # say whose texts these are, before any of them is quoted
            for c in result.get("citations", []):
                c["source"] = role
            heading = _WHOSE[role].format(collection=self.collection)
            result["answer"] = f"{heading}\n\n{result['answer']}"
        return result
