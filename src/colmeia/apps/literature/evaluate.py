"""``colmeia eval review``: the published evaluation, repeated on any collection of works.

One synthetic query per work, made from its abstract (by the model when one is configured;
offline, from abstract sentences after the first), the work being the single relevant item.
Queries that repeat most of the title are left out: against an index that holds titles they
leak the answer. Lexical, dense, hybrid and reranked rankings of works are measured in one run
(mean rank over ALL queries with not-found counted as depth + 1, MRR, P@1, not-found@5), plus a
sweep of the candidate count K; with a model reranker configured, its ranking too.

Generation (needs a model), on a sample of the queries: the first five works search finds
for each are read by the review model and judged field by field, with the random-context
control on the first (:mod:`colmeia.apps.literature.generation`). Seconds per query are kept
for every ranking and for generation, reported as mean, sd and n.

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from colmeia.apps.literature.generation import (
    GENERATION_WORKS,
    JUDGE_CLAIM_CHARS,
    JUDGE_MAX_CLAIMS,
    GenerationSample,
    Judgement,
    generation_samples,
    generation_summary,
    judgement_schema,
)
from colmeia.apps.literature.rankings import WorkRankings, rank_of
from colmeia.errors import ConfigurationError, InputError, ModelError
from colmeia.eval.retrieval import single_target_metrics
from colmeia.eval.stats import mean_sd
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.index.lexical import Analyzer
from colmeia.rag.rerank import Reranker
from colmeia.rag.retrieve import Retriever
from colmeia.store.base import Store, StoredDocument

__all__ = [
    "GENERATION_WORKS",
    "JUDGE_CLAIM_CHARS",
    "JUDGE_MAX_CLAIMS",
    "EvalReport",
    "GenerationSample",
    "Judgement",
    "SyntheticQuery",
    "aevaluate_review",
    "copied_share",
    "evaluate_review",
    "generation_summary",
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
    #: seconds per query of each ranking and of generation: mean, sample sd and count
    seconds: dict[str, float] = field(default_factory=dict)
    seconds_sd: dict[str, float | None] = field(default_factory=dict)
    seconds_n: dict[str, int] = field(default_factory=dict)
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
            "seconds_per_query_sd": self.seconds_sd,
            "seconds_per_query_n": self.seconds_n,
            "notes": self.notes,
        }


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
    generation_works: int = GENERATION_WORKS,
) -> EvalReport:
    """Measure work retrieval (and, with ``model``, generation) on synthetic queries; see
    the module docstring. ``reranker`` adds a ranking by a model's judgement of each work.
    ``queries`` (e.g. :func:`load_queries` of an earlier run's) are used instead of making
    new ones; those whose work is not in the collection are left out and counted.
    ``query_set="paraphrases"``: short questions in other words than the work's (the model's,
    or without a model the shipped set; see the module docstring). ``expand`` (with a model)
    adds a ranking of the question and the model's rewritings of it, fused
    (:mod:`colmeia.apps.literature.expansion`). ``paraphrases``: a paraphrase set file
    (:func:`read_paraphrases`) evaluated instead of the shipped one, model or not.
    ``generation_works``: the works read and judged per generation query (the first found,
    :mod:`colmeia.apps.literature.generation`)."""
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
    rankings = WorkRankings(
        store,
        collection,
        embedder=embedder,
        reranker=reranker,
        expand_model=model if expand else None,
        depth=depth,
    )
    ranks: dict[str, list[int | None]] = {name: [] for name in rankings.names}
    for i, q in enumerate(queries, start=1):
        for name, ranked in (await rankings.rank(q.text)).items():
            ranks[name].append(rank_of(ranked, q.doc_id))
        if progress is not None:
            progress(i, len(queries), "retrieval")
    report.notes.extend(rankings.notes)
    copied = report.query_profile.get("copied_trigrams_mean")
    for name, positions in ranks.items():
        # Beside every figure: how much of their abstracts the queries copied.
        report.variants[name] = {
            **single_target_metrics(positions, depth).as_dict(),
            "copied_trigrams": copied,
        }
        _timing(report, name, rankings.timings[name])
    for k in ks:
        swept = Retriever(store, collection, embedder=embedder, candidates=k)
        values = []
        for q in queries:
            top = [g.doc_id for g in swept.search_documents(q.text, 10, per_document=1, depth=k)]
            values.append(rank_of(top, q.doc_id))
        report.k_sweep[k] = single_target_metrics(values, 10).as_dict()
    if model is None:
        report.generation = {"skipped": "generation metrics need a model (COLMEIA_LLM_BASE_URL)"}
        return report
    if generation_queries <= 0:
        report.generation = {"skipped": "no query asked for (--generation 0)"}
        return report
    sample = queries[: min(generation_queries, len(queries))]
    abstracts = {
        q.doc_id: _abstract_of(store, collection, rankings.by_id[q.doc_id]) for q in sample
    }
    report.samples = await generation_samples(
        store,
        collection,
        sample,
        model,
        rankings.first_stage,
        abstracts,
        works=generation_works,
        rng=rng,
        concurrency=concurrency,
        progress=progress,
    )
    report.generation = generation_summary(report.samples, generation_works)
    _timing(report, "generation", [s.seconds for s in report.samples if s.seconds is not None])
    failed = [s for s in report.samples if s.error]
    if failed:
        report.notes.append(f"{len(failed)} generation queries not judged: {failed[0].error}")
    works_failed = [w for s in report.samples for w in s.works if w.error]
    if works_failed:
        report.notes.append(
            f"{len(works_failed)} of the works read for generation not judged: "
            f"{works_failed[0].error}"
        )
    return report


def _timing(report: EvalReport, name: str, seconds: Sequence[float]) -> None:
    """Seconds per query of ``name``: the mean (the key runs have always had), sd and n."""
    figures = mean_sd(seconds)
    report.seconds[name] = float(figures["mean"] or 0.0)
    report.seconds_sd[name] = None if figures["sd"] is None else float(figures["sd"])
    report.seconds_n[name] = int(figures["n"] or 0)


def evaluate_review(*args: Any, **kwargs: Any) -> EvalReport:
    """:func:`aevaluate_review` for sync callers: one event loop for the whole evaluation, so
    a model client given here must not be used on another loop."""
    return asyncio.run(aevaluate_review(*args, **kwargs))
