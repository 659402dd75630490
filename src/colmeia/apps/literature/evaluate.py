"""``colmeia eval review``: the published evaluation, repeated on any collection of works.

One synthetic query per work, made from its abstract (by the model when one is configured;
offline, from abstract sentences after the first), the work being the single relevant item.
Queries that repeat most of the title are left out: against an index that holds titles they
leak the answer. Lexical, dense, hybrid and reranked rankings of works are measured in one run
(mean rank over ALL queries with not-found counted as depth + 1, MRR, P@1, not-found@5), plus a
sweep of the candidate count K; with a model reranker configured, its ranking too.

Generation (needs a model): for a sample of the queries the review model reads the work found
for the query, and a judge (the same model, a structured rubric) says which passages given to
it are relevant to the question (context relevance = share relevant), which claims of the
answer its passages support (faithfulness = share supported), and how well the answer
addresses the question (0-3, scaled to 0-1). The control repeats the reading with as many
passages drawn at random from other works: context relevance must fall there, and a
faithfulness that stays high shows the reader summarises whatever it is given. With an
embedder, the cosine similarity of the answer to the work's abstract (higher is better; the
published figures are distances, 1 - similarity).

Query sets (``query_set``): ``"abstracts"`` (the published protocol above) or
``"paraphrases"``: short researcher questions that do not copy the abstract or the title —
written by the model when one is configured (prompt ``paraphrase.j2``, one in five in
English), otherwise the set shipped with colmeia (``data/paraphrases.jsonl``: 73 questions,
63 Portuguese and 10 English, written by hand over the CAPES catalogue
``data/theses/capes_resumos.csv``; their targets are found by title). Every report gives the
share of the queries' word trigrams copied from their abstracts beside the figures: a set that
copies its abstracts measures nothing.

Everything runs in one event loop (:func:`aevaluate_review`); :func:`evaluate_review` is its
blocking twin for callers without a model, or whose model is created inside that loop.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field, create_model, field_validator

from colmeia.apps.literature.context_judge import MixedJudgement, judge_with_distractors
from colmeia.apps.literature.expansion import expand_query, fused_search
from colmeia.apps.literature.questions import question_core
from colmeia.apps.literature.ranking import model_rerank_works, rerank_works
from colmeia.apps.literature.review import (
    Passage,
    ReviewedWork,
    analyse_with_model,
    numbered,
    work_chunks,
    work_passages,
)
from colmeia.apps.literature.schemas import with_inlined_schema
from colmeia.errors import ConfigurationError, InputError, ModelError
from colmeia.eval.retrieval import single_target_metrics
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.index.lexical import Analyzer
from colmeia.rag.rerank import Reranker
from colmeia.rag.retrieve import Retriever
from colmeia.store.base import Store, StoredChunk, StoredDocument

__all__ = [
    "EvalReport",
    "GenerationSample",
    "SyntheticQuery",
    "aevaluate_review",
    "copied_share",
    "evaluate_review",
    "judgement_schema",
    "load_queries",
    "offline_query",
    "paraphrase_queries",
    "query_profile",
    "save_queries",
    "shipped_paraphrases",
    "title_leak",
]

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀ-Ý])")
EvalProgress = Callable[[int, int, str], None]

#: Words of the abstract the query writer reads (the opening of an abstract states the
#: objective and the method; a shorter prompt keeps a small local model quick).
QUERY_ABSTRACT_WORDS = 180
#: The published queries are 40-80 words; a longer answer is cut at the limit.
QUERY_WORDS = (40, 80)
#: Room for an 80-word Portuguese paragraph inside JSON, and no more (a bounded call).
_QUERY_MAX_TOKENS = 320
#: A model-written paraphrase: a question, not a paragraph.
PARAPHRASE_WORDS = (8, 30)
QuerySet = Literal["abstracts", "paraphrases"]
#: A verdict per passage and per claim (bounded for the same reason as the review).
_JUDGE_MAX_TOKENS = 900


@dataclass(slots=True)
class SyntheticQuery:
    """A query made from one work's abstract; that work is the one right answer."""

    doc_id: str
    text: str
    source: str  # "offline", "model" or "file"

    def as_dict(self) -> dict[str, str]:
        return {"doc_id": self.doc_id, "text": self.text, "source": self.source}


class _Query(BaseModel):
    query: str = Field(
        description="What a researcher is looking for, 40-80 words, in your own words."
    )


def title_leak(query: str, title: str, analyzer: Analyzer | None = None) -> float:
    """Share of the title's content words that the query repeats (1.0 = the whole title)."""
    a = analyzer or Analyzer()
    words = set(a.tokens(title))
    return len(words & set(a.tokens(query))) / len(words) if words else 0.0


def copied_share(query: str, abstract: str, n: int = 3) -> float:
    """Share of the query's word ``n``-grams (stopwords kept, accents folded) that occur in
    the abstract: 1.0 is a copied sentence, a paraphrase scores low."""
    a = Analyzer()
    q, src = a.words(query), a.words(abstract)
    grams = {tuple(q[i : i + n]) for i in range(len(q) - n + 1)}
    if not grams:
        return 0.0
    have = {tuple(src[i : i + n]) for i in range(len(src) - n + 1)}
    return len(grams & have) / len(grams)


def _body_words(abstract: str, title: str, max_words: int, analyzer: Analyzer) -> list[str]:
    """The abstract's sentences after the first (which usually restates the title), the ones
    that repeat least of the title first, up to ``max_words`` words."""
    sentences = [s.strip() for s in _SENTENCE_RE.split(" ".join(abstract.split())) if s.strip()]
    if not sentences:
        return []
    body = sentences[1:] or sentences
    body.sort(key=lambda s: (title_leak(s, title, analyzer), -min(len(s.split()), max_words)))
    words: list[str] = []
    for s in body:
        words += s.split()
        if len(words) >= 25:
            break
    return words[:max_words]


def offline_query(abstract: str, title: str, *, max_words: int = 60) -> str:
    """A query from the abstract without a model: the sentences after the first (which
    usually restates the title), the one that repeats least of the title first, up to
    ``max_words`` words. Its words are the abstract's own, which the index holds: lexical
    search finds its work almost always (see docs/literature.md), so rankings are compared
    on model-written queries."""
    return " ".join(_body_words(abstract, title, max_words, Analyzer()))


def _fit_words(text: str) -> str:
    """One line, cut at the longest query length."""
    words = " ".join(text.split()).split(" ")
    return " ".join(words[: QUERY_WORDS[1]])


def save_queries(queries: Sequence[SyntheticQuery], path: Path) -> Path:
    """The queries as JSON lines ({doc_id, text, source}), to evaluate again without the model."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(q.as_dict(), ensure_ascii=False) for q in queries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def load_queries(path: Path) -> list[SyntheticQuery]:
    """Queries saved by :func:`save_queries`; InputError naming the line that is not one."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read the queries file {path}: {exc.strerror or exc}") from exc
    out: list[SyntheticQuery] = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            out.append(SyntheticQuery(str(item["doc_id"]), str(item["text"]), "file"))
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(
                f"{path}, line {n}: not a saved query (want JSON with doc_id and text): {exc}"
            ) from exc
    return out


def shipped_paraphrases() -> list[dict[str, Any]]:
    """The hand-written paraphrase set: ``{title, year, question, lang}`` per line."""
    from importlib.resources import files

    text = files("colmeia.apps.literature").joinpath("data/paraphrases.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def read_paraphrases(path: Path) -> list[dict[str, Any]]:
    """A paraphrase set in the shipped set's form (``{title, year, question, lang}`` per
    line), e.g. ``data/theses/paraphrases/dev.jsonl``; a bad line is an error naming it."""
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"cannot read the paraphrase set {path}: {exc}") from None
    out: list[dict[str, Any]] = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigurationError(f"{path}, line {n}: not JSON ({exc.msg})") from None
        if not isinstance(item, dict) or not item.get("title") or not item.get("question"):
            raise ConfigurationError(
                f"{path}, line {n}: a paraphrase needs a title and a question "
                '({"title": ..., "year": ..., "question": ...})'
            )
        out.append(item)
    if not out:
        raise ConfigurationError(f"the paraphrase set {path} is empty")
    return out


def paraphrase_queries(
    docs: Sequence[StoredDocument],
    items: Sequence[dict[str, Any]] | None = None,
) -> tuple[list[SyntheticQuery], int]:
    """The paraphrase questions (``items``, by default the shipped set) whose work is among
    ``docs`` (found by normalised title and year), and how many name a work that is not
    there. ConfigurationError when none is: the sets are written over the CAPES catalogue."""
    from colmeia.apps.literature.records import normalize_title

    by_title: dict[str, list[StoredDocument]] = {}
    for d in docs:
        by_title.setdefault(normalize_title(d.title), []).append(d)
    out: list[SyntheticQuery] = []
    missing = 0
    for item in shipped_paraphrases() if items is None else items:
        found = by_title.get(normalize_title(str(item["title"])), [])
        match = [d for d in found if not item.get("year") or d.year in (None, item["year"])]
        if not match:
            missing += 1
            continue
        out.append(SyntheticQuery(match[0].doc_id, str(item["question"]), "shipped"))
    if not out:
        raise ConfigurationError(
            "the shipped paraphrase set is written over the CAPES catalogue "
            "(data/theses/capes_resumos.csv) and none of its works is in this collection; "
            "import that file, or configure a model (COLMEIA_LLM_BASE_URL) to write "
            "paraphrases of your own works"
        )
    return out, missing


@dataclass(slots=True)
class GenerationSample:
    """The judge's figures for one query (``None``: nothing to judge)."""

    doc_id: str
    context_relevance: float | None
    faithfulness: float | None
    answer_relevance: float | None
    context_relevance_random: float | None
    faithfulness_random: float | None
    similarity_to_abstract: float | None = None
    error: str = ""
    #: the judge on the work's passages mixed with the control's (context_judge): the share of
    #: the work's picked, of the distractors picked; and the control reading's answer relevance
    context_relevance_mixed: float | None = None
    distractors_picked: float | None = None
    answer_relevance_random: float | None = None


@dataclass(slots=True)
class EvalReport:
    """Figures of one run, ready for a table, a JSON line and an HTML report."""

    collection: str
    queries: int
    excluded_title: int
    depth: int
    variants: dict[str, dict[str, object]] = field(default_factory=dict)
    k_sweep: dict[int, dict[str, object]] = field(default_factory=dict)
    generation: dict[str, object] = field(default_factory=dict)
    samples: list[GenerationSample] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    query_source: str = "offline"
    query_list: list[SyntheticQuery] = field(default_factory=list)
    query_profile: dict[str, object] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            "queries": self.queries,
            "query_source": self.query_source,
            "query_profile": self.query_profile,
            "excluded_title_queries": self.excluded_title,
            "depth": self.depth,
            "variants": self.variants,
            "k_sweep": {str(k): v for k, v in self.k_sweep.items()},
            "generation": self.generation,
            "seconds_per_query": self.seconds,
            "notes": self.notes,
        }


def _rank(ranked: Sequence[str], target: str) -> int | None:
    try:
        return list(ranked).index(target) + 1
    except ValueError:
        return None


def _dense_ranking(
    store: Store, collection: str, retriever: Retriever
) -> Callable[[str, int], list[str]]:
    """Works by their best passage's cosine similarity alone (exact scan)."""
    ids, matrix = store.vectors(collection)
    chunk_doc = {c.chunk_id: c.doc_id for c in store.chunks(collection)}
    docs = [chunk_doc.get(i, "") for i in ids]

    def rank(query: str, depth: int) -> list[str]:
        scores = matrix @ retriever.embed_query(query)
        out: list[str] = []
        for i in np.argsort(-scores):
            d = docs[int(i)]
            if d and d not in out:
                out.append(d)
                if len(out) >= depth:
                    break
        return out

    return rank


def _abstract_of(store: Store, collection: str, d: StoredDocument) -> str:
    abstract = str(d.metadata.get("abstract") or d.metadata.get("Resumo") or "")
    if not abstract:
        got = store.get_chunks(collection, [f"{d.doc_id}#0"])
        abstract = got[f"{d.doc_id}#0"].text if got else ""
    return abstract


def _prompt_abstract(abstract: str) -> str:
    words = abstract.split()
    cut = " ".join(words[:QUERY_ABSTRACT_WORDS])
    return cut + (" …" if len(words) > QUERY_ABSTRACT_WORDS else "")


async def _make_queries(
    store: Store,
    collection: str,
    docs: Sequence[StoredDocument],
    model: ChatModel | None,
    concurrency: int,
    progress: EvalProgress | None,
    paraphrase: bool = False,
) -> tuple[list[SyntheticQuery], int, list[str]]:
    """One query per work (the model's, or offline), title-like ones left out. With
    ``paraphrase`` the model writes a short question instead (one in five in English), and
    a work whose question the model could not write gets none: the offline query copies the
    abstract, which a paraphrase set must not."""
    analyzer = Analyzer()
    limit = asyncio.Semaphore(concurrency)
    failures: list[str] = []
    abstracts = {d.doc_id: _abstract_of(store, collection, d) for d in docs}
    done = 0

    order = {d.doc_id: i for i, d in enumerate(docs)}

    async def one(d: StoredDocument) -> SyntheticQuery | None:
        nonlocal done
        abstract = abstracts[d.doc_id]
        text, source = "", "offline"
        if model is not None:
            prompt = render_prompt(
                "colmeia.apps.literature",
                "paraphrase.j2" if paraphrase else "query.j2",
                title=d.title,
                abstract=_prompt_abstract(abstract),
                words=PARAPHRASE_WORDS if paraphrase else QUERY_WORDS,
                lang="en" if paraphrase and order[d.doc_id] % 5 == 4 else "pt",
            )
            try:
                async with limit:
                    q = await model.structured(
                        [Message.user(prompt)],
                        _Query,
                        temperature=0.7,
                        max_tokens=_QUERY_MAX_TOKENS,
                    )
                text, source = _fit_words(q.query), "model"
            except ModelError as exc:
                failures.append(f"{d.doc_id}: {exc}")
        if not text and not paraphrase:
            text, source = offline_query(abstract, d.title), "offline"
        done += 1
        if progress is not None and model is not None:
            progress(done, len(docs), "queries")
        if not text.strip():
            return None  # the model failed on a paraphrase: counted among the failures
        if title_leak(text, d.title, analyzer) > 0.5:
            return SyntheticQuery(d.doc_id, "", "title-like")
        return SyntheticQuery(d.doc_id, text, source)

    made = await asyncio.gather(*(one(d) for d in docs))
    queries = [q for q in made if q is not None and q.text]
    title_like = sum(1 for q in made if q is not None and not q.text)
    return queries, title_like, failures


def query_profile(
    queries: Sequence[SyntheticQuery], abstracts: Mapping[str, str], titles: Mapping[str, str]
) -> dict[str, object]:
    """What the queries look like: length in words, share within the 40-80 words asked for,
    how much of the abstract they copy (word trigrams) and of the title they repeat."""
    if not queries:
        return {"queries": 0}
    analyzer = Analyzer()
    lengths = [len(q.text.split()) for q in queries]
    lo, hi = QUERY_WORDS
    return {
        "queries": len(queries),
        "words_mean": round(sum(lengths) / len(lengths), 1),
        "words_min": min(lengths),
        "words_max": max(lengths),
        "share_40_80_words": round(sum(lo <= n <= hi for n in lengths) / len(lengths), 4),
        "copied_trigrams_mean": round(
            sum(copied_share(q.text, abstracts.get(q.doc_id, "")) for q in queries) / len(queries),
            4,
        ),
        "title_words_repeated_mean": round(
            sum(title_leak(q.text, titles.get(q.doc_id, ""), analyzer) for q in queries)
            / len(queries),
            4,
        ),
    }


async def aevaluate_review(
    store: Store,
    collection: str,
    *,
    embedder: Embedder | None = None,
    model: ChatModel | None = None,
    reranker: Reranker | None = None,
    limit: int | None = None,
    depth: int = 100,
    ks: Sequence[int] = (10, 25, 50, 100, 200),
    generation_queries: int = 20,
    concurrency: int = 4,
    seed: int = 0,
    progress: EvalProgress | None = None,
    queries: Sequence[SyntheticQuery] | None = None,
    query_set: QuerySet = "abstracts",
    expand: bool = False,
    paraphrases: Path | None = None,
) -> EvalReport:
    """Measure work retrieval (and, with ``model``, generation) on synthetic queries; see
    the module docstring. ``reranker`` adds a ranking by a model's judgement of each work.
    ``queries`` (e.g. :func:`load_queries` of an earlier run's) are used instead of making
    new ones; those whose work is not in the collection are left out and counted.
    ``query_set="paraphrases"``: short questions in other words than the work's (the model's,
    or without a model the shipped set; see the module docstring). ``expand`` (with a model)
    adds a ranking of the question and the model's rewritings of it, fused
    (:mod:`colmeia.apps.literature.expansion`). ``paraphrases``: a paraphrase set file
    (:func:`read_paraphrases`) evaluated instead of the shipped one, model or not."""
    if store.collection(collection) is None:
        raise ConfigurationError(
            f"no collection named {collection!r} in {store.url}; import the works first "
            "(`colmeia review import FILE --collection NAME`) or see `colmeia collections`"
        )
    all_docs = store.documents(collection)
    docs = [d for d in all_docs if d.metadata.get("abstract") or d.n_chunks]
    rng = random.Random(seed)
    if limit is not None and limit < len(docs):
        docs = rng.sample(docs, limit)
    if queries is None and paraphrases is not None:
        given_set, missing = paraphrase_queries(all_docs, read_paraphrases(paraphrases))
        queries = given_set[:limit]
        excluded, failures, source = 0, [], f"paraphrases from {paraphrases.name}"
        if missing:
            failures.append(
                f"{missing} paraphrases of {paraphrases} name works not in {collection}"
            )
    elif queries is None and query_set == "paraphrases" and model is None:
        shipped, missing = paraphrase_queries(all_docs)
        queries = shipped[:limit]
        excluded, failures, source = 0, [], "shipped paraphrases (in-sample)"
        if missing:
            failures.append(f"{missing} shipped paraphrases name works not in {collection}")
    elif queries is None:
        queries, excluded, failures = await _make_queries(
            store, collection, docs, model, concurrency, progress, query_set == "paraphrases"
        )
        sources = {q.source for q in queries}
        source = "model" if "model" in sources else "offline"
        if query_set == "paraphrases":
            source = "model paraphrases"
    else:
        present = {d.doc_id for d in all_docs}
        given = list(queries)
        queries = [q for q in given if q.doc_id in present][:limit]
        excluded, failures, source = 0, [], "file"
        if len(queries) < len(given) and limit is None:
            failures.append(f"{len(given) - len(queries)} queries name works not in {collection}")
    report = EvalReport(collection, len(queries), excluded, depth)
    report.query_source = source
    report.query_list = list(queries)
    titles = {d.doc_id: d.title for d in all_docs}
    report.query_profile = query_profile(
        queries,
        {d.doc_id: _abstract_of(store, collection, d) for d in all_docs if d.doc_id in titles},
        titles,
    )
    report.notes.append(
        "mean_rank counts a query not found within depth as depth + 1 (over all queries); "
        "mean_rank_found is over found queries only (the published definition)"
    )
    if failures and (source == "file" or source.startswith(("shipped", "paraphrases from"))):
        report.notes.extend(failures)
    elif failures and query_set == "paraphrases":
        report.notes.append(
            f"{len(failures)} works got no paraphrase (the model failed): {failures[0]}"
        )
    elif failures:
        report.notes.append(
            f"{len(failures)} queries made offline after the model failed: {failures[0]}"
        )
    by_id = {d.doc_id: d for d in store.documents(collection)}
    lexical = Retriever(store, collection)
    hybrid = Retriever(store, collection, embedder=embedder) if embedder is not None else None
    dense = _dense_ranking(store, collection, hybrid) if hybrid is not None else None
    ranks: dict[str, list[int | None]] = {"lexical": []}
    if hybrid is not None:
        ranks.update({"dense": [], "hybrid": []})
    ranks["reranked"] = []
    expanded_name = f"{'hybrid' if hybrid is not None else 'lexical'} + model expansion"
    if expand and model is not None:
        ranks[expanded_name] = []
    if reranker is not None:
        ranks["reranked (model)"] = []
    spent: dict[str, float] = dict.fromkeys(ranks, 0.0)
    head_n = 20
    for i, q in enumerate(queries, start=1):
        t = time.perf_counter()
        found = lexical.search_documents(q.text, depth, per_document=1)
        spent["lexical"] += time.perf_counter() - t
        lex = [g.doc_id for g in found]
        ranks["lexical"].append(_rank(lex, q.doc_id))
        base, first_stage, base_scores = lex, lexical, [g.score for g in found]
        if hybrid is not None and dense is not None:
            t = time.perf_counter()
            ranks["dense"].append(_rank(dense(q.text, depth), q.doc_id))
            spent["dense"] += time.perf_counter() - t
            t = time.perf_counter()
            groups = hybrid.search_documents(q.text, depth, per_document=1)
            base, first_stage = [g.doc_id for g in groups], hybrid
            base_scores = [g.score for g in groups]
            spent["hybrid"] += time.perf_counter() - t
            ranks["hybrid"].append(_rank(base, q.doc_id))
        t = time.perf_counter()
        core = question_core(q.text)
        if core != q.text:  # the review searches the question without its opening
            groups = first_stage.search_documents(core, depth, per_document=1)
            base, base_scores = [g.doc_id for g in groups], [g.score for g in groups]
        kept = [i for i, x in enumerate(base[:head_n]) if x in by_id]
        head = [by_id[base[i]] for i in kept]
        order = rerank_works(q.text, head, first_stage, [base_scores[i] for i in kept])
        head = [head[j] for j in order]
        reranked = [d.doc_id for d in head] + base[head_n:]
        spent["reranked"] += time.perf_counter() - t  # on top of the first-stage time
        ranks["reranked"].append(_rank(reranked, q.doc_id))
        if reranker is not None:
            t = time.perf_counter()
            try:
                judged_order, _ = await model_rerank_works(q.text, head, reranker)
                by_model = [head[j].doc_id for j in judged_order] + base[head_n:]
            except ModelError as exc:
                report.notes.append(f"model rerank failed on one query, offline order kept: {exc}")
                by_model = reranked
            spent["reranked (model)"] += time.perf_counter() - t
            ranks["reranked (model)"].append(_rank(by_model, q.doc_id))
        if expand and model is not None:
            t = time.perf_counter()
            variants = await expand_query(model, q.text)
            fused = fused_search(hybrid or lexical, variants, depth, per_document=1)
            spent[expanded_name] += time.perf_counter() - t
            ranks[expanded_name].append(_rank([g.doc_id for g in fused], q.doc_id))
        if progress is not None:
            progress(i, len(queries), "retrieval")
    copied = report.query_profile.get("copied_trigrams_mean")
    for name, positions in ranks.items():
        # Beside every figure: how much of their abstracts the queries copied.
        report.variants[name] = {
            **single_target_metrics(positions, depth).as_dict(),
            "copied_trigrams": copied,
        }
        report.seconds[name] = round(spent[name] / max(len(queries), 1), 4)
    for k in ks:
        swept = Retriever(store, collection, embedder=embedder, candidates=k)
        values = []
        for q in queries:
            top = [g.doc_id for g in swept.search_documents(q.text, 10, per_document=1, depth=k)]
            values.append(_rank(top, q.doc_id))
        report.k_sweep[k] = single_target_metrics(values, 10).as_dict()
    if model is None:
        report.generation = {"skipped": "generation metrics need a model (COLMEIA_LLM_BASE_URL)"}
        return report
    if generation_queries <= 0:
        report.generation = {"skipped": "no query asked for (--generation 0)"}
        return report
    sample = queries[: min(generation_queries, len(queries))]
    report.samples = await _generation_samples(
        store, collection, sample, model, hybrid or lexical, rng, concurrency, progress
    )
    report.generation = generation_summary(report.samples)
    failed = [s for s in report.samples if s.error]
    if failed:
        report.notes.append(f"{len(failed)} generation queries not judged: {failed[0].error}")
    return report


def evaluate_review(*args: Any, **kwargs: Any) -> EvalReport:
    """:func:`aevaluate_review` for sync callers: one event loop for the whole evaluation, so
    a model client given here must not be used on another loop."""
    return asyncio.run(aevaluate_review(*args, **kwargs))


# ------------------------------------------------------------------------------ generation
class _PassageVerdict(BaseModel):
    id: str = Field(description="The passage id, e.g. P1.")
    relevant: bool = Field(description="Whether the passage helps answer the question.")


class _ClaimVerdict(BaseModel):
    claim: str = Field(description="One statement of the answer, short.")
    supported: bool = Field(description="Whether the passages given say it.")


class Judgement(BaseModel):
    """The judge's rubric, filled in per item rather than as free-floating scores."""

    passages: list[_PassageVerdict] = Field(description="One verdict per passage given.")
    claims: list[_ClaimVerdict] = Field(description="Every claim of the answer, judged.")
    answer_relevance: Literal[0, 1, 2, 3] = Field(
        description="0 = does not address the question, 1 = tangential, 2 = partly, 3 = fully."
    )

    @field_validator("answer_relevance", mode="before")
    @classmethod
    def _score(cls, value: object) -> object:
        # Small judges write "2", 2.0 or 4: read the number and keep it on the 0-3 scale.
        if isinstance(value, str) and value.strip().lstrip("-").replace(".", "", 1).isdigit():
            value = float(value.strip())
        if isinstance(value, float | int) and not isinstance(value, bool):
            return min(3, max(0, round(value)))
        return value


#: The judge's claims, bounded in its JSON Schema: a reading has three short fields, so a few
#: claims of a sentence each; a small judge cannot list claims until its token limit.
JUDGE_MAX_CLAIMS = 6
JUDGE_CLAIM_CHARS = 200


def judgement_schema(ids: Sequence[str]) -> type[Judgement]:
    """:class:`Judgement` whose passage ids the JSON Schema limits to ``ids`` (one verdict
    each at most) and whose claims it bounds (:data:`JUDGE_MAX_CLAIMS` of at most
    :data:`JUDGE_CLAIM_CHARS` characters): a guided decoder (llama.cpp's grammar) cannot write
    a passage that was not given nor run past :data:`_JUDGE_MAX_TOKENS`, and a small judge's
    verdict does not fail validation (and leave its query unjudged) on an id."""
    allowed: Any = Literal[tuple(ids)]
    verdict = create_model(
        "PassageVerdict",
        __base__=_PassageVerdict,
        id=(allowed, Field(description="The passage id, one of those given.")),
    )
    claim = create_model(
        "ClaimVerdict",
        __base__=_ClaimVerdict,
        claim=(
            str,
            Field(
                description="One statement of the answer, short.",
                json_schema_extra={"maxLength": JUDGE_CLAIM_CHARS},
            ),
        ),
    )
    return with_inlined_schema(
        create_model(
            "Judgement",
            __base__=Judgement,
            passages=(
                list[verdict],
                Field(
                    description="One verdict per passage given.",
                    json_schema_extra={"maxItems": len(ids)},
                ),
            ),
            claims=(
                list[claim],
                Field(
                    description="Every claim of the answer, judged.",
                    json_schema_extra={"maxItems": JUDGE_MAX_CLAIMS},
                ),
            ),
        )
    )


def _answer_text(w: ReviewedWork) -> str:
    parts = []
    for name in ("summary", "objectives", "conclusions"):
        value = getattr(w, name)
        if value is not None and value.text.strip().lower() != "não informado":
            cited = f" [{', '.join(value.passages)}]" if value.passages else ""
            parts.append(f"{name}{cited}: {value.text}")
    return "\n".join(parts)


def _judged(j: Judgement, passages: Sequence[Passage]) -> tuple[float | None, float | None]:
    """(context relevance, faithfulness) from the verdicts; passages the judge skipped count
    as not relevant, ids it made up are ignored."""
    given = {p.id for p in passages}
    relevant = {v.id.strip().upper() for v in j.passages if v.relevant} & given
    context = len(relevant) / len(given) if given else None
    faith = sum(c.supported for c in j.claims) / len(j.claims) if j.claims else None
    return context, faith


async def _read_and_judge(
    model: ChatModel, question: str, work: ReviewedWork
) -> tuple[Judgement, str]:
    try:
        await analyse_with_model(model, question, work, 0.2)
    except ModelError as exc:
        raise ModelError(f"the reading failed, nothing to judge: {exc}") from exc
    answer = _answer_text(work)
    prompt = render_prompt(
        "colmeia.apps.literature",
        "judge.j2",
        question=question,
        passages=work.passages,
        answer=answer,
    )
    schema = judgement_schema([p.id for p in work.passages]) if work.passages else Judgement
    try:
        judgement = await model.structured(
            [Message.user(prompt)], schema, temperature=0.0, max_tokens=_JUDGE_MAX_TOKENS
        )
    except ModelError as exc:
        raise ModelError(f"the judge failed: {exc}") from exc
    return judgement, answer


def _random_passages(
    chunks: Sequence[StoredChunk], doc_id: str, n: int, rng: random.Random
) -> list[Passage]:
    others = [c for c in chunks if c.doc_id != doc_id]
    return numbered([(c, 0.0) for c in rng.sample(others, min(n, len(others)))])


async def _generation_samples(
    store: Store,
    collection: str,
    queries: Sequence[SyntheticQuery],
    model: ChatModel,
    retriever: Retriever,
    rng: random.Random,
    concurrency: int,
    progress: EvalProgress | None,
) -> list[GenerationSample]:
    all_chunks = store.chunks(collection)
    docs = {d.doc_id: d for d in store.documents(collection)}
    embedder = retriever.embedder
    # The review reads the work search puts first, with its passages; the control reads as
    # many passages drawn from other works. Drawn up front, in query order: reproducible.
    plans: list[tuple[SyntheticQuery, ReviewedWork, ReviewedWork]] = []
    for q in queries:
        groups = retriever.search_documents(q.text, 1, per_document=5)
        d = docs.get(groups[0].doc_id, docs[q.doc_id]) if groups else docs[q.doc_id]
        hits = groups[0].hits if groups and groups[0].doc_id == d.doc_id else []
        real = ReviewedWork(d.doc_id, d.title, 1, 0.0, abstract=str(d.metadata.get("abstract", "")))
        real.passages = work_passages(hits, work_chunks(store, collection, d))
        control = ReviewedWork(d.doc_id, d.title, 1, 0.0)
        control.passages = _random_passages(all_chunks, d.doc_id, len(real.passages), rng)
        plans.append((q, real, control))
    abstracts = {q.doc_id: _abstract_of(store, collection, docs[q.doc_id]) for q in queries}
    limit = asyncio.Semaphore(concurrency)
    done = 0

    async def one(q: SyntheticQuery, real: ReviewedWork, control: ReviewedWork) -> GenerationSample:
        nonlocal done
        async with limit:
            try:
                j_real, answer = await _read_and_judge(model, q.text, real)
                j_rand, _ = await _read_and_judge(model, q.text, control)
            except ModelError as exc:
                real.warnings.append(f"not judged: {exc}")
                done += 1
                return GenerationSample(q.doc_id, None, None, None, None, None, error=str(exc))
        context, faith = _judged(j_real, real.passages)
        context_r, faith_r = _judged(j_rand, control.passages)
        try:
            mixed = await judge_with_distractors(
                model, q.text, real.passages, control.passages, random.Random(q.doc_id)
            )
        except ModelError as exc:  # the other figures of this query stand
            real.warnings.append(f"context not judged against distractors: {exc}")
            mixed = MixedJudgement(None, None)
        similarity = None
        target = abstracts[q.doc_id]  # the abstract the query was made from
        if embedder is not None and answer and target:
            vecs = embedder.embed([answer, target])
            similarity = round(float(vecs[0] @ vecs[1]), 4)
        done += 1
        if progress is not None:
            progress(done, len(plans), "generation")
        return GenerationSample(
            q.doc_id,
            context,
            faith,
            j_real.answer_relevance / 3,
            context_r,
            faith_r,
            similarity,
            context_relevance_mixed=mixed.work,
            distractors_picked=mixed.distractors,
            answer_relevance_random=j_rand.answer_relevance / 3,
        )

    return list(await asyncio.gather(*(one(*p) for p in plans)))


def _mean(values: Sequence[float | None]) -> float | None:
    xs = [v for v in values if v is not None]
    return round(sum(xs) / len(xs), 4) if xs else None


def generation_summary(samples: Sequence[GenerationSample]) -> dict[str, object]:
    """Means over the judged queries (a query the judge could not answer is left out)."""
    judged = [s for s in samples if s.context_relevance is not None]
    similarity = _mean([s.similarity_to_abstract for s in samples])
    return {
        "queries": len(samples),
        "judged": len(judged),
        "context_relevance": _mean([s.context_relevance for s in samples]),
        "context_relevance_random_context": _mean([s.context_relevance_random for s in samples]),
        "faithfulness": _mean([s.faithfulness for s in samples]),
        "faithfulness_random_context": _mean([s.faithfulness_random for s in samples]),
        "answer_relevance": _mean([s.answer_relevance for s in samples]),
        "answer_relevance_random_context": _mean([s.answer_relevance_random for s in samples]),
        "context_relevance_with_distractors": _mean([s.context_relevance_mixed for s in samples]),
        "distractors_judged_relevant": _mean([s.distractors_picked for s in samples]),
        "answer_similarity_to_abstract": similarity,
        "answer_distance_to_abstract": None if similarity is None else round(1 - similarity, 4),
        "note": "similarity is cosine similarity (higher is better); the published answer "
        "figures are distances (1 - similarity, lower is better)",
    }
