"""The library's screening in every review: one record of decisions per collection.

Screening decisions (stage, decision, reason, notes, who, when) live on the library — the
collection's :class:`~colmeia.apps.literature.screening.ScreeningLog` — not on a review. A
review shows them for its works (:func:`attach_screening`), its PRISMA counts come from the
library (``Review.library_prisma``), and the whole library can be exported with them
(:func:`library_review`, written by :func:`~colmeia.apps.literature.export.export_review`
to RIS, BibTeX, CSV or XLSX). A decision made on a saved review is made on the library
(:func:`screen_in_library`), so the next review of the same collection shows it.
"""

from __future__ import annotations

from colmeia.apps.literature.review import Decision, Review, ReviewedWork
from colmeia.apps.literature.screening import STAGES, ScreeningLog, Stage, prisma_flow
from colmeia.store.base import Store, StoredDocument

__all__ = ["attach_screening", "library_review", "screen_in_library", "work_decisions"]


def work_decisions(log: ScreeningLog, doc_id: str) -> dict[str, Decision]:
    """The work's decision at each stage it was screened (stage → decision)."""
    out: dict[str, Decision] = {}
    for stage in STAGES:
        d = log.stages[stage].get(doc_id)
        if d is not None:
            out[stage] = Decision(d.decision, d.reason, d.notes, d.at, stage, d.who)
    return out


def attach_screening(review: Review, store: Store, log: ScreeningLog) -> Review:
    """Show the library's decisions on the review's works (the latest stage as the work's
    ``screening``, every stage in ``decisions``; a work the library has not screened is
    pending) and its PRISMA counts in ``review.library_prisma``."""
    for w in review.works:
        w.decisions = work_decisions(log, w.doc_id)
        w.screening = w.decisions[max(w.decisions, key=STAGES.index)] if w.decisions else Decision()
    review.library_prisma = prisma_flow(store, review.collection, log)
    return review


def screen_in_library(
    review: Review,
    store: Store,
    log: ScreeningLog,
    work: str,
    decision: str,
    *,
    reason: str = "",
    notes: str = "",
    stage: Stage = "title_abstract",
    who: str = "",
) -> ReviewedWork:
    """Record a decision on a work of a saved review (named by id or rank) in the library's
    screening, and refresh the review from it. Returns the work."""
    w = review.work(work)
    log.decide(w.doc_id, decision, reason, notes, stage, who=who)
    attach_screening(review, store, log)
    return w


def _work(doc: StoredDocument, rank: int) -> ReviewedWork:
    meta = doc.metadata

    def strings(name: str) -> list[str]:
        value = meta.get(name) or []
        return [str(x) for x in value] if isinstance(value, list) else [str(value)]

    return ReviewedWork(
        doc_id=doc.doc_id,
        title=doc.title,
        rank=rank,
        score=0.0,
        authors=strings("authors"),
        year=doc.year,
        doc_type=str(meta.get("type") or doc.doc_type or ""),
        program=str(meta.get("program") or ""),
        institution=str(meta.get("institution") or ""),
        doi=str(meta.get("doi") or ""),
        links=strings("links"),
        abstract=str(meta.get("abstract") or ""),
        keywords=strings("keywords"),
        mode="library",
    )


def library_review(store: Store, collection: str, log: ScreeningLog) -> Review:
    """Every work of the collection, in the store's order, with the library's decisions: what
    ``review export --library`` writes (no question, no reading)."""
    from colmeia.errors import ConfigurationError

    docs = store.documents(collection)
    if not docs and store.collection(collection) is None:
        raise ConfigurationError(
            f"no collection named {collection!r} in {store.url}; import the works first "
            "(`colmeia review import FILE --collection NAME`)"
        )
    review = Review(
        question="",
        collection=collection,
        works=[_work(d, i) for i, d in enumerate(docs, start=1)],
        records=len(docs),
        ranking="library",
    )
    return attach_screening(review, store, log)
