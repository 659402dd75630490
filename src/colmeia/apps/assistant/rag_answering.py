"""The RAG agent's answering steps: the chosen passages made ready to quote (validity,
caput, a list's items), ordered, answered from and scored; a model's answer written over the
best attempt; the result prepared (:mod:`colmeia.apps.assistant.rag_agent` wires them)."""

from __future__ import annotations

import contextvars
import logging
import re
from dataclasses import replace
from typing import Any

from colmeia.apps.assistant.definitions import DefinitionIndex
from colmeia.apps.assistant.legal import validity
from colmeia.apps.assistant.rag_grading import Grading
from colmeia.apps.assistant.rag_passages import _hit
from colmeia.apps.assistant.rag_result import _closest, _result, ranker_first
from colmeia.apps.assistant.rag_scores import answer_quality
from colmeia.apps.assistant.rag_state import RagState
from colmeia.errors import ColmeiaError, ModelError
from colmeia.llm.base import ChatModel
from colmeia.rag.generate import AnswerSink, CitedAnswer, answer_question, extractive_answer
from colmeia.rag.retrieve import Hit

log = logging.getLogger(__name__)
_RETRY_MARGIN = 0.05
# the most items of a list a quoted dispositivo brings along (CF Art. 71 has eleven incisos)
LIST_ITEMS = 12
# Where the answer being generated streams to (set by `run` for one pipeline run; a context
# variable, not state: the state may be checkpointed and a sink is not data).
_SINK: contextvars.ContextVar[AnswerSink | None] = contextvars.ContextVar(
    "colmeia_rag_answer_sink", default=None
)


class Answering(Grading):
    """The answering steps of :class:`~colmeia.apps.assistant.rag_agent.RagPipeline`."""

    # set by RagPipeline.__init__
    model: ChatModel | None
    reranker: Any

    async def enrich(self, state: RagState) -> RagState:
        """Drop revoked/vetoed dispositivos, flag amended ones, add each § / inciso's caput."""
        notes = list(state.get("notes", []))
        passages: list[Hit] = []
        seen: set[str] = set()
        source = state.get("relevant") or state.get("hits", [])[: self.config.min_relevant]
        for hit in source:
            v = validity(hit.text, hit.doc_id)
            if v.status in ("revoked", "vetoed"):
                label = hit.citation.label()
                notes.append(f"{label} não foi usado: {v.note or v.status}.")
                continue
            if hit.chunk_id not in seen:
                passages.append(hit)
                seen.add(hit.chunk_id)
        # A paragraph or inciso reads wrongly without its caput: fetch it as context.
        wanted = []
        for hit in passages:
            m = re.match(r"^(.*!art\d+[a-z\-]*)_(?!cpt)", hit.doc_id)
            if m and f"{m.group(1)}_cpt#0" not in seen:
                wanted.append(f"{m.group(1)}_cpt#0")
        if wanted:
            found = self.store.get_chunks(self.collection, wanted)
            for cid in wanted:
                chunk = found.get(cid)
                if chunk is None or cid in seen:
                    continue
                seen.add(cid)
                passages.append(_hit(chunk, self.collection))
        passages = [self._with_items(hit) for hit in passages]
        return {"passages": passages, "notes": list(dict.fromkeys(notes))}

    def _with_items(self, hit: Hit) -> Hit:
        """A dispositivo that only introduces a list ("Os Ministros … serão escolhidos:", "…
        ao qual compete:") says nothing without its incisos or alíneas: its items join its text
        (the first :data:`LIST_ITEMS`, then "(…)"), so the quote answers what it introduces."""
        if not hit.text.rstrip().endswith(":"):
            return hit
        base = hit.chunk_id.split("#", 1)[0]
        wanted = [f"{base}_{kind}{n}#0" for kind in ("inc", "ali") for n in range(1, 41)]
        found = self.store.get_chunks(self.collection, wanted)
        items = [found[c].text.strip() for c in wanted if c in found]
        if not items:
            return hit
        more = ["(…)"] if len(items) > LIST_ITEMS else []
        text = "\n".join([hit.text.rstrip(), *items[:LIST_ITEMS], *more])
        return replace(hit, text=text)

    async def rerank(self, state: RagState) -> RagState:
        """Best first: the configured reranker, else relevance grade then retrieval order."""
        passages = list(state.get("passages", []))
        if self.reranker is not None and passages:
            try:
                passages = await self.reranker.rerank(state["query"], passages)
            except ColmeiaError as exc:
                log.info("reranker failed, keeping grade order: %s", exc)
        # Without a reranker the retrieval order stands: on the shipped laws, re-sorting by the
        # relevance grade put the right passage lower more often than higher.
        return {"passages": passages[: self.config.max_passages]}

    async def generate(self, state: RagState) -> RagState:
        """The ranking's answer for this attempt: its best passages, quoted and cited.

        The quality gate scores it and chooses among attempts on it, with or without a model,
        so the passages an answer rests on are the same either way; the model writes once, over
        the chosen attempt (:meth:`write`).
        """
        passages = list(state.get("passages", []))
        if passages:
            passages = _closest(passages, state.get("scores", {}))
        return {"answer": extractive_answer(state["question"], passages)}

    async def write(self, state: RagState) -> RagState:
        """With a model: the answer written over the chosen attempt's passages.

        What the ranking put first is never dropped or demoted (:func:`ranker_first`): its
        passages lead the citations, the model's further citations follow in rank order, and
        one outside what the ranking found is dropped. When none of the model's citations holds
        (an invented quote) or its text was withheld, the ranking's answer stands.
        """
        best = state.get("best")
        if self.model is None or not best or not best.get("relevant"):
            return {}
        ranker: CitedAnswer | None = best.get("answer")
        if ranker is None or not ranker.citations:
            return {}
        question = state["question"]
        if state.get("context"):
            question = f"{question}\n\nContexto: {state['context']}"
        passages = list(best.get("passages", []))
        sink = _SINK.get()
        try:
            answer = await answer_question(
                question, passages, self.model, max_passages=self.config.max_passages, sink=sink
            )
        except ModelError as exc:
            log.info("generation failed, answering with the ranked passages: %s", exc)
            if sink is not None:
                sink.replace(ranker.answer, "model_error")
            return {}
        if answer.extractive:  # the model wrote nothing: the ranking's answer, as offline
            ranker.model, ranker.withheld, ranker.rejected = (
                answer.model,
                answer.withheld,
                answer.rejected,
            )
            if sink is not None:
                sink.replace(ranker.answer, answer.withheld or "empty_answer")
            return {}
        if not answer.citations:
            # Not one citation held (a small model quoting words the passage does not have),
            # or the text was withheld (it recited its instructions): the text rests on nothing
            # checked, and the person gets the ranked passages quoted, as without a model.
            ranker.model, ranker.rejected = answer.model, answer.rejected
            if answer.withheld:  # the person is told why, then reads the passages themselves
                ranker.withheld = answer.withheld
                ranker.answer = f"{answer.answer}\n\n{ranker.answer}"
            else:
                ranker.withheld = "no_citation_held"
                if sink is not None:
                    sink.replace(ranker.answer, "no_citation_held")
            return {}
        written = ranker_first(answer, ranker, best.get("ranked", []))
        stats = DefinitionIndex.for_collection(self.store, self.collection)
        quality = answer_quality(
            written,
            analysis=state.get("analysis", {}),
            idf=stats.idf,
            other_jurisdiction=bool(state.get("jurisdiction")),
            context=passages,
            vocabulary=stats.df,
        )
        return {"best": {**best, "answer": written, "quality": quality}}

    async def validate(self, state: RagState) -> RagState:
        """Score the answer; keep the best so far."""
        answer = state.get("answer")
        stats = DefinitionIndex.for_collection(self.store, self.collection)
        score = (
            answer_quality(
                answer,
                analysis=state.get("analysis", {}),
                idf=stats.idf,
                other_jurisdiction=bool(state.get("jurisdiction")),
                context=state.get("passages", []),
                vocabulary=stats.df,
            )
            if answer
            else 0.0
        )
        best = state.get("best")
        update: RagState = {"quality": score}
        # A reformulated query must do clearly better to replace an earlier answer, and pass
        # the gate: it drops the question's words, so a partial answer from it is no better
        # evidence than a partial answer from the question itself (on the lay development
        # set, retries that replaced the first answer below the gate lost its first place
        # and never gained one; the formal set's first places were never changed by them).
        better = best is not None and score > best["quality"] + _RETRY_MARGIN
        if best is None or (better and score > self.config.quality):
            update["best"] = {
                "answer": answer,
                "quality": score,
                "query": state["query"],
                "relevant": len(state.get("relevant", [])),
                "passages": list(state.get("passages", [])),
                "ranked": list(state.get("ranked", [])),
                "lead": [c.chunk_id for c in answer.citations] if answer else [],
            }
        return update

    async def prepare(self, state: RagState) -> RagState:
        """The result handed back to the coordinator: answer, citations, quality, notes."""
        notes = list(state.get("notes", []))
        if state.get("missing"):
            return {"result": _result(state["missing"], None, 0.0, False, state, notes)}
        best = state.get("best") or {}
        answer: CitedAnswer | None = best.get("answer")
        quality = float(best.get("quality", 0.0))
        attempts = state.get("retries", 0)
        passed = quality > self.config.quality
        warning = state.get("jurisdiction", "")
        if answer is None or not answer.citations or not best.get("relevant"):
            text = (
                "Não encontrei nos documentos oficiais disponíveis trechos que respondam a "
                "esta pergunta."
            )
            if warning:
                text = f"{warning}\n\n{text}"
            return {"result": _result(text, None, quality, False, state, notes)}
        text = answer.answer
        if warning:  # said before any federal rule is stated
            text = f"{warning}\n\n{text}"
        for c in answer.citations:
            hit = next((h for h in answer.passages if h.chunk_id == c.chunk_id), None)
            v = validity(hit.text, hit.doc_id) if hit else None
            if v is not None and v.status == "amended" and c.citation is not None:
                notes.append(f"{c.citation.label()}: {v.note}.")
        if not passed:
            notes.append(
                f"Resposta com suporte parcial: a verificação de qualidade ficou em "
                f"{quality:.2f} (mínimo {self.config.quality}) após {attempts} nova(s) "
                "tentativa(s) com a busca reformulada; confira as fontes citadas."
            )
        return {"result": _result(text, answer, quality, passed, state, notes)}
