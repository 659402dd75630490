"""The review: a question → the works that answer it, each read into summary, objectives,
conclusions and relevance, every statement tied to passages with their printed pages.

Search returns passages grouped per work (at most five per work, overlapping windows merged);
the work's record page and its section passages (Resumo, Objetivos, Conclusões) join them;
works are reranked by their title and abstract against the question (fused with the passage
scores), then by a model's judgement of each work when a reranker is given
(see :mod:`colmeia.apps.literature.ranking`). With a chat model each work gets one validated JSON
(:class:`WorkAnalysis`) read from a bounded prompt (at most four passages of at most 110 words:
:mod:`colmeia.apps.literature.model_passages`) under a schema that bounds the answer; citations to passages that were not given are removed and reported,
and a statement whose words are not in the passages it cites is flagged. Without a model the
fields are extractive: sentences from the abstract and section passages, relevance from
retrieval. Results are cached per (question, work content, model, prompt version).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from colmeia.apps.literature.extractive import extractive_fields
from colmeia.apps.literature.model_passages import passages_for_model
from colmeia.apps.literature.passage import Passage
from colmeia.apps.literature.questions import question_core
from colmeia.apps.literature.ranking import model_rerank_works, rerank_works
from colmeia.apps.literature.schemas import (
    READING_MAX_TOKENS,
    RELEVANCE_LEVELS,
    CitedText,
    WorkAnalysis,
    reading_schema,
)
from colmeia.errors import ConfigurationError, ModelError
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.index.lexical import Analyzer
from colmeia.rag.rerank import Reranker
from colmeia.rag.retrieve import Filters, Hit, Retriever
from colmeia.store.base import Store, StoredChunk, StoredDocument

__all__ = [
    "PROMPT_VERSION",
    "Decision",
    "Passage",
    "Review",
    "ReviewedWork",
    "arun_review",
    "prisma_counts",
    "run_review",
]

PROMPT_VERSION = "review-v2"
_SECTIONS = {
    "resumo": re.compile(r"\b(resumo|abstract|resumen)\b", re.I),
    "objetivos": re.compile(r"\bobjetivos?\b", re.I),
    "conclusões": re.compile(r"\b(conclus[õo]es|conclus[ãa]o|considera[çc][õo]es finais)\b", re.I),
}


@dataclass(slots=True)
class Decision:
    """A screening decision: include/exclude (or pending), with a reason, notes, who made it
    and when, at one stage (title_abstract or full_text)."""

    decision: str = "pending"
    reason: str = ""
    notes: str = ""
    at: str = ""
    stage: str = ""
    who: str = ""


@dataclass(slots=True)
class ReviewedWork:
    """One work of a review: what it is, where it ranked, what it says and how it was read."""

    doc_id: str
    title: str
    rank: int
    score: float
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    doc_type: str = ""
    program: str = ""
    institution: str = ""
    doi: str = ""
    links: list[str] = field(default_factory=list)
    abstract: str = ""
    keywords: list[str] = field(default_factory=list)
    passages: list[Passage] = field(default_factory=list)
    summary: CitedText | None = None
    objectives: CitedText | None = None
    conclusions: CitedText | None = None
    relevance: str = ""
    why: str = ""
    rerank_score: float | None = None  # the model reranker's judgement, when one ran
    mode: str = "extractive"  # or "model:<name>"
    warnings: list[str] = field(default_factory=list)
    screening: Decision = field(default_factory=Decision)  # the latest stage's decision
    # Every stage's decision, from the library's screening (stage → decision).
    decisions: dict[str, Decision] = field(default_factory=dict)
    seconds: float = 0.0
    # The researcher's extraction columns (name → cited value): see columns.fill_columns.
    columns: dict[str, CitedText] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for name in ("summary", "objectives", "conclusions"):
            value = getattr(self, name)
            out[name] = value.model_dump() if value is not None else None
        out["columns"] = {k: v.model_dump() for k, v in self.columns.items()}
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReviewedWork:
        data = dict(data)
        data["passages"] = [Passage(**p) for p in data.get("passages", [])]
        data["screening"] = Decision(**data.get("screening", {}))
        data["decisions"] = {k: Decision(**v) for k, v in (data.get("decisions") or {}).items()}
        for name in ("summary", "objectives", "conclusions"):
            if data.get(name) is not None:
                data[name] = CitedText(**data[name])
        data["columns"] = {k: CitedText(**v) for k, v in (data.get("columns") or {}).items()}
        return cls(**data)

    def cited_pages(self, text: CitedText | None) -> list[str]:
        """ "P2 (p. 17)" labels of the passages a field cites."""
        if text is None:
            return []
        by_id = {p.id: p for p in self.passages}
        return [
            f"{pid} (p. {by_id[pid].pages})" if by_id[pid].pages else pid
            for pid in text.passages
            if pid in by_id
        ]


@dataclass(slots=True)
class Review:
    """A question, the works found for it, and the screening of them; saved as one JSON."""

    question: str
    collection: str
    works: list[ReviewedWork]
    model: str = ""
    created: str = ""
    records: int = 0  # works in the collection (identified)
    filters: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    ranking: str = "search"  # "search", "search+title/abstract", or "+ <reranker>"
    warnings: list[str] = field(default_factory=list)
    relevance_bar: str = "média"  # a work at this level or above counts as relevant
    columns: list[dict[str, str]] = field(default_factory=list)  # extraction columns asked
    # The PRISMA counts of the whole library's screening when the review was made or last
    # refreshed from it (see :mod:`colmeia.apps.literature.library_screening`).
    library_prisma: dict[str, Any] = field(default_factory=dict)

    @property
    def nothing_relevant(self) -> bool:
        """No work was read as relevant at :attr:`relevance_bar` or above."""
        levels: tuple[str, ...] = RELEVANCE_LEVELS
        bar = levels.index(self.relevance_bar) if self.relevance_bar in levels else 1
        return not any(w.relevance in levels[: bar + 1] for w in self.works)

    def as_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "collection": self.collection,
            "model": self.model,
            "ranking": self.ranking,
            "warnings": self.warnings,
            "relevance_bar": self.relevance_bar,
            "nothing_relevant": self.nothing_relevant,
            "created": self.created,
            "records": self.records,
            "filters": self.filters,
            "seconds": round(self.seconds, 3),
            "prompt_version": PROMPT_VERSION,
            "prisma": prisma_counts(self),
            "prisma_library": self.library_prisma,
            "columns": self.columns,
            "works": [w.as_dict() for w in self.works],
        }

    def save(self, path: Path) -> Path:
        """Write the review (with its screening) as JSON, atomically."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(json.dumps(self.as_dict(), ensure_ascii=False, indent=2), encoding="utf-8")
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: Path) -> Review:
        """A review saved by :meth:`save`."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                question=data["question"],
                collection=data["collection"],
                works=[ReviewedWork.from_dict(w) for w in data["works"]],
                model=data.get("model", ""),
                created=data.get("created", ""),
                records=int(data.get("records", 0)),
                filters=data.get("filters", {}),
                seconds=float(data.get("seconds", 0.0)),
                ranking=str(data.get("ranking", "search")),
                warnings=list(data.get("warnings", [])),
                relevance_bar=str(data.get("relevance_bar", "média")),
                columns=list(data.get("columns", [])),
                library_prisma=dict(data.get("prisma_library") or {}),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigurationError(f"{path} is not a saved review ({exc})") from exc

    def work(self, doc_id: str) -> ReviewedWork:
        """The work named by its id or its rank in the review."""
        for w in self.works:
            if w.doc_id == doc_id or str(w.rank) == doc_id:
                return w
        raise ConfigurationError(f"no work {doc_id!r} in this review (give its id or its rank)")

    def screen(self, doc_id: str, decision: str, reason: str = "", notes: str = "") -> None:
        """Record an include/exclude decision for one work in this review only (the CLI
        records it in the library's screening, which every review then shows: see
        :mod:`colmeia.apps.literature.library_screening`)."""
        if decision not in ("include", "exclude", "pending"):
            raise ConfigurationError("a screening decision is include, exclude or pending")
        if decision == "exclude" and not reason:
            raise ConfigurationError("say why a work is excluded (--reason)")
        w = self.work(doc_id)
        w.screening = Decision(
            decision, reason, notes, datetime.now(UTC).isoformat(), "title_abstract"
        )
        w.decisions["title_abstract"] = w.screening


def prisma_counts(review: Review) -> dict[str, Any]:
    """PRISMA-style flow: identified → found for the question → screened → included."""
    screened = [w for w in review.works if w.screening.decision != "pending"]
    excluded = [w for w in screened if w.screening.decision == "exclude"]
    reasons: dict[str, int] = {}
    for w in excluded:
        reasons[w.screening.reason] = reasons.get(w.screening.reason, 0) + 1
    return {
        "identified": review.records,
        "found": len(review.works),
        "screened": len(screened),
        "excluded": len(excluded),
        "exclusion_reasons": reasons,
        "included": sum(1 for w in screened if w.screening.decision == "include"),
        "pending": len(review.works) - len(screened),
    }


# ------------------------------------------------------------------------------- passages
def work_chunks(store: Store, collection: str, doc: StoredDocument) -> list[StoredChunk]:
    ids = [f"{doc.doc_id}#{i}" for i in range(doc.n_chunks)]
    got = store.get_chunks(collection, ids)
    return [got[i] for i in ids if i in got]


def _pages(chunk: StoredChunk) -> str:
    label = str(chunk.metadata.get("page_label", ""))
    end = str(chunk.metadata.get("page_label_end", "")) or label
    if label:
        return label if end == label else f"{label}-{end}"
    if chunk.page_start >= 1:
        return f"{chunk.page_start}" + (
            f"-{chunk.page_end}" if chunk.page_end > chunk.page_start else ""
        )
    return ""


def _section_of(chunk: StoredChunk) -> str:
    if chunk.page_start == 0:
        return "resumo"  # the record page (title, abstract, keywords): see work_document
    head = f"{chunk.heading}\n{chunk.text[:60]}"
    for name, pattern in _SECTIONS.items():
        if pattern.search(head):
            return name
    return ""


def work_passages(
    hits: Sequence[Hit], chunks: Sequence[StoredChunk], limit: int = 5
) -> list[Passage]:
    """The work's best passages (≤ ``limit``) and its section passages, numbered P1…"""
    by_id = {c.chunk_id: c for c in chunks}
    chosen: list[tuple[StoredChunk, float]] = []
    for h in hits[:limit]:
        c = by_id.get(h.chunk_id)
        if c is not None:
            chosen.append((c, h.score))
    have = {c.chunk_id for c, _ in chosen}
    spans = [(c.char_start, c.char_end) for c, _ in chosen]
    # One passage per section not yet covered (the record page counts as the Resumo). When
    # the work has full text, a section is taken from it: its pages can be cited.
    full_text = any(c.page_start >= 1 for c in chunks)
    for name in _SECTIONS:
        if any(_section_of(c) == name and (c.page_start >= 1 or not full_text) for c, _ in chosen):
            continue
        for c in sorted(chunks, key=lambda c: c.page_start == 0):
            overlap = any(c.char_start < e and s < c.char_end for s, e in spans)
            if c.chunk_id not in have and not overlap and _section_of(c) == name:
                chosen.append((c, 0.0))
                have.add(c.chunk_id)
                spans.append((c.char_start, c.char_end))
                break
    if full_text and any(c.page_start >= 1 for c, _ in chosen):
        # The record page repeats the PDF's own resumo without a page: with full text at hand,
        # every passage given is one a statement can cite by its printed page.
        chosen = [(c, s) for c, s in chosen if c.page_start >= 1]
    return numbered(chosen)


def numbered(chosen: Sequence[tuple[StoredChunk, float]]) -> list[Passage]:
    """Passages P1, P2… of these chunks (with their scores), with printed pages and section."""
    return [
        Passage(f"P{i}", c.chunk_id, c.text, _pages(c), _section_of(c), round(float(s), 6))
        for i, (c, s) in enumerate(chosen, start=1)
    ]


# ------------------------------------------------------------------------------- extractive
def extractive_analysis(question: str, work: ReviewedWork) -> None:
    """Fill the four fields without a model: the work's own sentences (full text before the
    record, never its title or headings) and a relevance graded from how much of the question
    the passages hold (see :func:`colmeia.apps.literature.extractive.grade_relevance`)."""
    fields = extractive_fields(question, work.title, work.passages)
    work.summary, work.objectives, work.conclusions, work.relevance, work.why = fields
    work.mode = "extractive"


# ------------------------------------------------------------------------------- model
def _check(work: ReviewedWork, analysis: WorkAnalysis) -> None:
    """Drop citations to passages that were not given; flag statements their passages do not
    support (fewer than a third of their content words appear in the cited text)."""
    ids = {p.id: p for p in work.passages}
    analyzer = Analyzer()
    for name in ("summary", "objectives", "conclusions"):
        field_value: CitedText = getattr(analysis, name)
        unknown = [pid for pid in field_value.passages if pid not in ids]
        if unknown:
            work.warnings.append(f"{name}: citations to passages not given removed: {unknown}")
        kept = [pid for pid in field_value.passages if pid in ids]
        uninformed = field_value.text.strip().lower().rstrip(".") == "não informado"
        if uninformed:
            kept = []  # nothing stated, nothing cited (the schema asks every field for an id)
        field_value = CitedText(text=field_value.text, passages=kept)
        words = set(analyzer.tokens(field_value.text))
        if kept and words:
            cited_words: set[str] = set()
            for pid in kept:
                cited_words |= set(analyzer.tokens(ids[pid].text))
            if len(words & cited_words) < len(words) / 3:
                work.warnings.append(f"{name}: most of its words are not in {', '.join(kept)}")
        elif not uninformed and not kept:
            work.warnings.append(f"{name}: cites no passage")
        setattr(work, name, field_value)
    work.relevance = analysis.relevance
    work.why = analysis.why


async def analyse_with_model(
    model: ChatModel, question: str, work: ReviewedWork, temperature: float
) -> None:
    """One validated reading of ``work`` by ``model``: its passages first bounded for a model
    (:func:`~colmeia.apps.literature.model_passages.passages_for_model`; they replace the
    work's passages, so what is saved is what was read), the output bounded by the schema and
    :data:`~colmeia.apps.literature.schemas.READING_MAX_TOKENS`."""
    work.passages = passages_for_model(question, work.passages, title=work.title)
    prompt = render_prompt(
        "colmeia.apps.literature",
        "review.j2",
        question=question,
        title=work.title,
        year=work.year,
        doc_type=work.doc_type,
        abstract=work.abstract,
        passages=work.passages,
    )
    analysis = await model.structured(
        [Message.system(prompt), Message.user(question)],
        reading_schema([p.id for p in work.passages]),
        temperature=temperature,
        max_tokens=READING_MAX_TOKENS,
    )
    _check(work, analysis)


def cache_key(question: str, passages: Sequence[Passage], model_name: str) -> str:
    """The reading's cache key: the question, the passages given (their ids and a hash of each
    text), the model and the prompt version. The same work read from other passages (another
    search mode, a re-imported PDF) is read again, never answered with citations to P1…Pn that
    now point at other text."""
    given = [f"{p.id}:{hashlib.sha256(p.text.encode()).hexdigest()[:16]}" for p in passages]
    raw = "|".join([" ".join(question.lower().split()), *given, model_name, PROMPT_VERSION])
    return hashlib.sha256(raw.encode()).hexdigest()[:24]


ReviewProgress = Callable[[int, int, str], None]


def run_review(*args: Any, **kwargs: Any) -> Review:
    """:func:`arun_review` for sync callers (no event loop running)."""
    return asyncio.run(arun_review(*args, **kwargs))


async def arun_review(
    store: Store,
    collection: str,
    question: str,
    *,
    top: int = 10,
    model: ChatModel | None = None,
    model_name: str = "",
    embedder: Embedder | None = None,
    filters: Filters | None = None,
    cache_dir: Path | None = None,
    temperature: float = 0.2,
    concurrency: int = 4,
    rerank: bool = True,
    reranker: Reranker | None = None,
    progress: ReviewProgress | None = None,
    relevance_bar: str = "média",
) -> Review:
    """Review ``question`` over ``collection``: the ``top`` works, read and cited.

    ``rerank`` fuses the search order with a title+abstract ranking (offline); ``reranker``
    (an LLM or HTTP rerank API, see :func:`colmeia.rag.rerank.reranker_from_settings`) then
    orders the works by its judgement of each. When no work is read as ``relevance_bar`` or
    above, the review says "nothing relevant" (:attr:`Review.nothing_relevant`)."""
    if relevance_bar not in RELEVANCE_LEVELS:
        raise ConfigurationError(
            f"relevance bar {relevance_bar!r}: use one of {', '.join(RELEVANCE_LEVELS)}"
        )
    started = time.perf_counter()
    retriever = Retriever(store, collection, embedder=embedder, per_document=5)
    depth = max(top * 3, top)
    # Searched without "Quais trabalhos tratam de…": those words are in no work's subject.
    groups = retriever.search_documents(
        question_core(question), depth, filters=filters, per_document=5
    )
    docs = {d.doc_id: d for d in store.documents(collection)}
    found = [g for g in groups if g.doc_id in docs]
    if rerank:
        order = rerank_works(
            question, [docs[g.doc_id] for g in found], retriever, [g.score for g in found]
        )
        found = [found[i] for i in order]
    judged: dict[str, float] = {}
    notes: list[str] = []
    ranking = "search+title/abstract" if rerank else "search"
    if reranker is not None and found:
        try:
            order, judged = await model_rerank_works(
                question,
                [docs[g.doc_id] for g in found],
                reranker,
                {g.doc_id: [h.text for h in g.hits[:2]] for g in found},
            )
            found = [found[i] for i in order]
            ranking += f" + {type(reranker).__name__}"
        except ModelError as exc:
            notes.append(f"the reranker failed ({exc}); works keep the offline order")
    found = found[:top]
    works: list[ReviewedWork] = []
    for rank, g in enumerate(found, start=1):
        d = docs[g.doc_id]
        meta = d.metadata
        w = ReviewedWork(
            doc_id=d.doc_id,
            title=d.title,
            rank=rank,
            score=round(float(g.score), 6),
            authors=list(meta.get("authors") or ([meta["Autor"]] if meta.get("Autor") else [])),
            year=d.year,
            doc_type=str(meta.get("type") or d.doc_type),
            program=str(meta.get("program") or meta.get("Programa") or ""),
            institution=str(meta.get("institution") or meta.get("IES") or ""),
            doi=str(meta.get("doi") or ""),
            links=list(
                meta.get("links") or ([meta["link_trabalho"]] if meta.get("link_trabalho") else [])
            ),
            abstract=str(meta.get("abstract") or ""),
            keywords=list(meta.get("keywords") or []),
            rerank_score=judged.get(d.doc_id),
        )
        w.passages = work_passages(g.hits, work_chunks(store, collection, d))
        if not w.abstract:
            w.abstract = next((p.text for p in w.passages if p.section == "resumo"), "")
        if model is not None:  # what the model will read, bounded (and cached under)
            w.passages = passages_for_model(question, w.passages, title=w.title)
        works.append(w)
    review = Review(
        question=question,
        collection=collection,
        works=works,
        model=model_name if model is not None else "",
        created=datetime.now(UTC).isoformat(),
        records=len(docs),
        filters={k: v for k, v in asdict(filters).items() if v is not None} if filters else {},
        ranking=ranking,
        warnings=notes,
        relevance_bar=relevance_bar,
    )
    name = model_name or "model"

    async def read_all() -> None:
        limit = asyncio.Semaphore(concurrency)
        done = 0

        async def one(w: ReviewedWork) -> None:
            nonlocal done
            t0 = time.perf_counter()
            key = cache_key(question, w.passages, name)
            cached = (
                cache_dir / f"{key}.json" if cache_dir is not None and model is not None else None
            )
            if cached is not None and cached.exists():
                saved = ReviewedWork.from_dict(json.loads(cached.read_text(encoding="utf-8")))
                for attr in (
                    "summary",
                    "objectives",
                    "conclusions",
                    "relevance",
                    "why",
                    "warnings",
                ):
                    setattr(w, attr, getattr(saved, attr))
                w.mode = f"model:{name} (cached)"
            elif model is not None:
                async with limit:
                    try:
                        await analyse_with_model(model, question, w, temperature)
                        w.mode = f"model:{name}"
                    except ModelError as exc:
                        w.warnings.append(f"the model failed ({exc}); extractive fields instead")
                        extractive_analysis(question, w)
                if cached is not None and w.mode.startswith("model:"):
                    cached.parent.mkdir(parents=True, exist_ok=True)
                    cached.write_text(json.dumps(w.as_dict(), ensure_ascii=False), encoding="utf-8")
            else:
                extractive_analysis(question, w)
            w.seconds = round(time.perf_counter() - t0, 4)
            done += 1
            if progress is not None:
                progress(done, len(works), w.title[:40])

        await asyncio.gather(*(one(w) for w in works))

    await read_all()
    if review.nothing_relevant:
        review.warnings.append(
            f"nothing relevant: no work was read as {relevance_bar!r} or above for this question"
        )
    review.seconds = time.perf_counter() - started
    return review
