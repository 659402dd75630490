"""Generation judged as the dissertation does it: the first works found for a question are
each read by the review model and judged, field by field.

For each query the first ``works`` works search finds (five by default) are read (summary,
objectives, conclusions: :data:`READING_FIELDS`, the cited fields of
:class:`~colmeia.apps.literature.schemas.WorkAnalysis`) and a judge (the same model, a
structured rubric) fills, item by item: which passages given to the reader are relevant
(context relevance = share relevant), which claims of the answer they support (faithfulness =
share supported), how well the whole answer addresses the question and how well each field
does (0-3, scaled to 0-1). With an embedder, the cosine similarity of the answer and of each
field to the abstract the query was made from. The random control is kept as it was: the work
ranked first is read again from as many passages drawn from other works, and its passages and
the control's are judged mixed in one list (:mod:`~colmeia.apps.literature.context_judge`).

The summary gives the old figures for rank 1 alone (comparable with runs that judged only the
first work), the same figures over every judged work, and per field the mean ± sd of the
judge's rating and of the similarity; how many works were judged and how many failed.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, BeforeValidator, Field, create_model, field_validator

from colmeia.apps.literature.context_judge import MixedJudgement, judge_with_distractors
from colmeia.apps.literature.review import (
    Passage,
    ReviewedWork,
    analyse_with_model,
    numbered,
    work_chunks,
    work_passages,
)
from colmeia.apps.literature.schemas import CitedText, WorkAnalysis, with_inlined_schema
from colmeia.errors import ModelError
from colmeia.eval.stats import mean_sd
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.retrieve import Retriever
from colmeia.store.base import Store, StoredChunk

__all__ = [
    "GENERATION_WORKS",
    "JUDGE_CLAIM_CHARS",
    "JUDGE_MAX_CLAIMS",
    "READING_FIELDS",
    "GenerationSample",
    "JudgedWork",
    "Judgement",
    "generation_samples",
    "generation_summary",
    "judgement_schema",
]

#: Works read and judged per query: the first five search finds, as the dissertation does.
GENERATION_WORKS = 5
#: The reading's cited fields, in the order the reading has them.
READING_FIELDS: tuple[str, ...] = tuple(
    name for name, f in WorkAnalysis.model_fields.items() if f.annotation is CitedText
)
#: A verdict per passage, per claim and per field (bounded for the same reason as the review).
_JUDGE_MAX_TOKENS = 900
#: The judge's claims, bounded in its JSON Schema: a reading has three short fields, so a few
#: claims of a sentence each; a small judge cannot list claims until its token limit.
JUDGE_MAX_CLAIMS = 6
JUDGE_CLAIM_CHARS = 200
_NOT_INFORMED = "não informado"


def _score(value: object) -> object:
    """Small judges write "2", 2.0 or 4: read the number and keep it on the 0-3 scale."""
    if isinstance(value, str) and value.strip().lstrip("-").replace(".", "", 1).isdigit():
        value = float(value.strip())
    if isinstance(value, float | int) and not isinstance(value, bool):
        return min(3, max(0, round(value)))
    return value


#: A 0-3 rating: 0 = does not address the question, 1 = tangential, 2 = partly, 3 = fully.
Score = Annotated[Literal[0, 1, 2, 3], BeforeValidator(_score)]


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
    answer_relevance: Score = Field(
        description="0 = does not address the question, 1 = tangential, 2 = partly, 3 = fully."
    )
    fields: dict[str, Score] = Field(
        default_factory=dict, description="The same 0-3 rating for each field of the answer."
    )

    @field_validator("fields", mode="after")
    @classmethod
    def _as_dict(cls, value: object) -> object:
        # judgement_schema asks for one named rating per field given: read them as a dict.
        return value.model_dump() if isinstance(value, BaseModel) else value


def judgement_schema(ids: Sequence[str], fields: Sequence[str] = ()) -> type[Judgement]:
    """:class:`Judgement` whose passage ids the JSON Schema limits to ``ids`` (one verdict
    each at most), whose claims it bounds (:data:`JUDGE_MAX_CLAIMS` of at most
    :data:`JUDGE_CLAIM_CHARS` characters) and which rates each of ``fields`` 0-3 (every one
    required, each value validated): a guided decoder (llama.cpp's grammar) cannot write a
    passage that was not given nor run past :data:`_JUDGE_MAX_TOKENS`, and a small judge's
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
    extra: dict[str, Any] = {}
    if fields:
        ratings: dict[str, Any] = {
            name: (
                Score,
                Field(description=f"0-3: how well the field {name} addresses the question."),
            )
            for name in fields
        }
        extra["fields"] = (
            create_model("FieldRatings", **ratings),
            Field(description="A 0-3 rating for each field of the answer."),
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
            **extra,
        )
    )


class GenerationQuery(Protocol):
    """A query and the work it was made from (whose abstract the answers are compared to)."""

    @property
    def doc_id(self) -> str: ...

    @property
    def text(self) -> str: ...


@dataclass(slots=True)
class JudgedWork:
    """One work read for a query and judged (``error``: the reading or the judge failed)."""

    doc_id: str
    rank: int
    context_relevance: float | None = None
    faithfulness: float | None = None
    answer_relevance: float | None = None
    similarity_to_abstract: float | None = None
    #: field → the judge's 0-3 rating / 3, and field → cosine similarity to the abstract;
    #: a field the reader left "não informado" is neither rated nor embedded
    field_relevance: dict[str, float] = field(default_factory=dict)
    field_similarity: dict[str, float] = field(default_factory=dict)
    error: str = ""


@dataclass(slots=True)
class GenerationSample:
    """The judge's figures for one query: the rank-1 work's and the control's as before
    (``None``: nothing to judge), and every judged work in ``works``."""

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
    works: list[JudgedWork] = field(default_factory=list)
    #: seconds spent reading and judging this query's works and its control
    seconds: float | None = None


def _field_texts(w: ReviewedWork) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in READING_FIELDS:
        value = getattr(w, name)
        if value is not None and value.text.strip() and value.text.strip().lower() != _NOT_INFORMED:
            out[name] = value.text
    return out


def _answer_text(w: ReviewedWork) -> str:
    parts = []
    for name, text in _field_texts(w).items():
        cited_ids = getattr(w, name).passages
        cited = f" [{', '.join(cited_ids)}]" if cited_ids else ""
        parts.append(f"{name}{cited}: {text}")
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
    fields = list(_field_texts(work))
    prompt = render_prompt(
        "colmeia.apps.literature",
        "judge.j2",
        question=question,
        passages=work.passages,
        answer=answer,
        fields=fields,
    )
    schema = judgement_schema([p.id for p in work.passages], fields) if work.passages else Judgement
    try:
        judgement = await model.structured(
            [Message.user(prompt)], schema, temperature=0.0, max_tokens=_JUDGE_MAX_TOKENS
        )
    except ModelError as exc:
        raise ModelError(f"the judge failed: {exc}") from exc
    return judgement, answer


async def _judge_work(
    model: ChatModel,
    question: str,
    work: ReviewedWork,
    embedder: Embedder | None,
    abstract: str,
) -> JudgedWork:
    """``work`` read and judged (on a failure, its error)."""
    try:
        j, answer = await _read_and_judge(model, question, work)
    except ModelError as exc:  # the error is the work's figure (the reading is not kept)
        return JudgedWork(work.doc_id, work.rank, error=str(exc))
    context, faith = _judged(j, work.passages)
    texts = _field_texts(work)
    out = JudgedWork(work.doc_id, work.rank, context, faith, j.answer_relevance / 3)
    out.field_relevance = {n: j.fields[n] / 3 for n in texts if n in j.fields}
    if embedder is not None and answer and abstract:
        names = list(texts)
        vecs = embedder.embed([answer, *(texts[n] for n in names), abstract])
        out.similarity_to_abstract = round(float(vecs[0] @ vecs[-1]), 4)
        out.field_similarity = {n: float(vecs[i] @ vecs[-1]) for i, n in enumerate(names, 1)}
    return out


def _random_passages(
    chunks: Sequence[StoredChunk], doc_id: str, n: int, rng: random.Random
) -> list[Passage]:
    others = [c for c in chunks if c.doc_id != doc_id]
    return numbered([(c, 0.0) for c in rng.sample(others, min(n, len(others)))])


@dataclass(slots=True)
class _Plan:
    query: GenerationQuery
    works: list[ReviewedWork]  # the first works search finds, rank 1 first
    control: ReviewedWork  # rank 1's title, passages drawn from other works


async def generation_samples(
    store: Store,
    collection: str,
    queries: Sequence[GenerationQuery],
    model: ChatModel,
    retriever: Retriever,
    abstracts: Mapping[str, str],
    *,
    works: int = GENERATION_WORKS,
    rng: random.Random | None = None,
    concurrency: int = 4,
    progress: Callable[[int, int, str], None] | None = None,
) -> list[GenerationSample]:
    """Read and judge the first ``works`` works ``retriever`` finds for each query, and the
    control of the first (see the module docstring). ``abstracts``: the abstract of each
    query's own work. The control's passages are drawn up front in query order with ``rng``
    (``random.Random(0)`` by default): the same run draws the same passages."""
    rng = random.Random(0) if rng is None else rng
    all_chunks = store.chunks(collection)
    docs = {d.doc_id: d for d in store.documents(collection)}
    embedder = retriever.embedder
    plans: list[_Plan] = []
    for q in queries:
        groups = retriever.search_documents(q.text, works, per_document=5)
        found = [(docs[g.doc_id], g.hits) for g in groups if g.doc_id in docs]
        readings = []
        for rank, (d, hits) in enumerate(found or [(docs[q.doc_id], [])], start=1):
            w = ReviewedWork(
                d.doc_id, d.title, rank, 0.0, abstract=str(d.metadata.get("abstract", ""))
            )
            w.passages = work_passages(hits, work_chunks(store, collection, d))
            readings.append(w)
        first = readings[0]
        control = ReviewedWork(first.doc_id, first.title, 1, 0.0)
        control.passages = _random_passages(all_chunks, first.doc_id, len(first.passages), rng)
        plans.append(_Plan(q, readings, control))
    limit = asyncio.Semaphore(concurrency)
    done = 0

    async def one(plan: _Plan) -> GenerationSample:
        nonlocal done
        q, target = plan.query, abstracts.get(plan.query.doc_id, "")
        sample = GenerationSample(q.doc_id, None, None, None, None, None)
        async with limit:
            started = time.perf_counter()
            sample.works = [
                await _judge_work(model, q.text, w, embedder, target) for w in plan.works
            ]
            first = sample.works[0]
            if first.error:
                sample.error = first.error
            else:
                await _control(model, q.text, plan, first, sample)
            sample.seconds = time.perf_counter() - started
        done += 1
        if progress is not None:
            progress(done, len(plans), "generation")
        return sample

    return list(await asyncio.gather(*(one(p) for p in plans)))


async def _control(
    model: ChatModel, question: str, plan: _Plan, first: JudgedWork, sample: GenerationSample
) -> None:
    """Fill ``sample`` with the rank-1 figures and its control's (the reading of random
    passages, and the passages of both judged mixed); a failed control reading leaves them
    unset with its error, a failed mixed judgement only its two figures."""
    try:
        j_rand, _ = await _read_and_judge(model, question, plan.control)
    except ModelError as exc:
        sample.error = str(exc)
        return
    sample.context_relevance, sample.faithfulness = first.context_relevance, first.faithfulness
    sample.answer_relevance = first.answer_relevance
    sample.similarity_to_abstract = first.similarity_to_abstract
    sample.context_relevance_random, sample.faithfulness_random = _judged(
        j_rand, plan.control.passages
    )
    sample.answer_relevance_random = j_rand.answer_relevance / 3
    try:
        mixed = await judge_with_distractors(
            model,
            question,
            plan.works[0].passages,
            plan.control.passages,
            random.Random(plan.query.doc_id),
        )
    except ModelError:  # the other figures of this query stand
        mixed = MixedJudgement(None, None)
    sample.context_relevance_mixed, sample.distractors_picked = mixed.work, mixed.distractors


def _mean(values: Sequence[float | None]) -> float | None:
    xs = [v for v in values if v is not None]
    return round(sum(xs) / len(xs), 4) if xs else None


def _per_field(works: Sequence[JudgedWork]) -> dict[str, dict[str, object]]:
    """Per field of the reading, mean ± sd (and n) of the judge's rating and of the
    similarity to the abstract over ``works``; fields no work had are left out."""
    out: dict[str, dict[str, object]] = {}
    for name in READING_FIELDS:
        rated = [w.field_relevance[name] for w in works if name in w.field_relevance]
        similar = [w.field_similarity[name] for w in works if name in w.field_similarity]
        if rated or similar:
            out[name] = {
                "answer_relevance": mean_sd(rated),
                "similarity_to_abstract": mean_sd(similar),
            }
    return out


def _distance(similarity: float | None) -> float | None:
    return None if similarity is None else round(1 - similarity, 4)


def generation_summary(
    samples: Sequence[GenerationSample], works_per_query: int = GENERATION_WORKS
) -> dict[str, object]:
    """Means over the judged queries for the rank-1 work and its control (the keys of runs
    that judged only that work; a query the judge could not answer is left out), the same
    figures over every judged work (``all_works``), per field mean ± sd over every judged work
    (``fields``) and over the rank-1 works (``fields_rank_1``), and the counts."""
    judged = [s for s in samples if s.context_relevance is not None]
    similarity = _mean([s.similarity_to_abstract for s in samples])
    every = [w for s in samples for w in s.works]
    ok = [w for w in every if not w.error]
    all_similarity = _mean([w.similarity_to_abstract for w in ok])
    return {
        "queries": len(samples),
        "judged": len(judged),
        "works_per_query": works_per_query,
        "works_judged": len(ok),
        "works_failed": len(every) - len(ok),
        "context_relevance": _mean([s.context_relevance for s in samples]),
        "context_relevance_random_context": _mean([s.context_relevance_random for s in samples]),
        "faithfulness": _mean([s.faithfulness for s in samples]),
        "faithfulness_random_context": _mean([s.faithfulness_random for s in samples]),
        "answer_relevance": _mean([s.answer_relevance for s in samples]),
        "answer_relevance_random_context": _mean([s.answer_relevance_random for s in samples]),
        "context_relevance_with_distractors": _mean([s.context_relevance_mixed for s in samples]),
        "distractors_judged_relevant": _mean([s.distractors_picked for s in samples]),
        "answer_similarity_to_abstract": similarity,
        "answer_distance_to_abstract": _distance(similarity),
        "all_works": {
            "context_relevance": _mean([w.context_relevance for w in ok]),
            "faithfulness": _mean([w.faithfulness for w in ok]),
            "answer_relevance": _mean([w.answer_relevance for w in ok]),
            "answer_similarity_to_abstract": all_similarity,
            "answer_distance_to_abstract": _distance(all_similarity),
        },
        "fields": _per_field(ok),
        "fields_rank_1": _per_field([w for w in ok if w.rank == 1]),
        "note": "the figures at the top level are the rank-1 work's (with its random-context "
        "control), as in runs that judged only that work; all_works: every work judged. "
        "similarity is cosine similarity (higher is better); the published answer "
        "figures are distances (1 - similarity, lower is better)",
    }
