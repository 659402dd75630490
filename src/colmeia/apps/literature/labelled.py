"""A labelled set: researcher questions with several relevant works each, and the rankings
measured on it (``colmeia eval review --labelled FILE``; offline, no model needed).

A line of the file (JSON lines)::

    {"id": "L01", "question": "…", "relevant": [{"id": "rec:4dbe015ba916db02", "title": "…"}, …]}

``relevant`` lists the works that answer the question by their record id as the catalogue
import keys them (``rec:…`` from the normalised title and year, ``doi:…`` or ``hdl:…``: the
document id of the collection); an item may also be the id alone. Titles are for the reader.
A line that is not such a question is reported (its number and what is wrong) and skipped;
the other lines are evaluated. Relevant works that are not in the collection are left out of
their question (and said so); a question left with none is skipped.

Per ranking of :class:`~colmeia.apps.literature.rankings.WorkRankings` (lexical, dense,
hybrid, reranked; a model reranker's when one is configured), means over the questions of
P@5, recall@5, recall@10, the reciprocal rank of the first relevant work (MRR) and nDCG@10
(binary gains), and the seconds per question as mean ± sd. The shipped set is
``data/theses/labelled.jsonl`` (12 questions over the CAPES catalogue, written for colmeia).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colmeia.apps.literature.rankings import WorkRankings
from colmeia.errors import ConfigurationError, InputError
from colmeia.eval.retrieval import mrr, ndcg_at_k, precision_at_k, recall_at_k
from colmeia.eval.stats import mean_sd
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.rerank import Reranker
from colmeia.store.base import Store

__all__ = [
    "LABELLED_FILE",
    "LabelledQuestion",
    "LabelledReport",
    "aevaluate_labelled",
    "labelled_set_path",
    "read_labelled",
]

#: Where the shipped set lives in a clone of the repository (``--set labelled``).
LABELLED_FILE = Path("theses") / "labelled.jsonl"
#: The figures, in the order tables show them.
METRICS = ("p@5", "recall@5", "recall@10", "mrr", "ndcg@10")


@dataclass(frozen=True, slots=True)
class LabelledQuestion:
    """A question and the ids of the works that answer it."""

    id: str
    question: str
    relevant: tuple[str, ...]


def _relevant_ids(value: object) -> list[str] | str:
    """The ids of a line's ``relevant`` list, or what is wrong with it."""
    if not isinstance(value, list) or not value:
        return 'needs "relevant": a non-empty list of record ids'
    ids: list[str] = []
    for item in value:
        got = item.get("id") if isinstance(item, dict) else item
        if not isinstance(got, str) or not got.strip():
            return f'"relevant" holds {item!r}, not a record id (or {{"id": ..., "title": ...}})'
        ids.append(got.strip())
    return list(dict.fromkeys(ids))


def read_labelled(path: Path) -> tuple[list[LabelledQuestion], list[str]]:
    """The questions of ``path`` and one line per line skipped (``"FILE, line N: why"``).
    InputError when the file cannot be read or holds no question at all."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise InputError(f"cannot read the labelled set {path}: {reason}") from None
    out: list[LabelledQuestion] = []
    problems: list[str] = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{path}, line {n}: not JSON ({exc.msg}); skipped")
            continue
        question = item.get("question") if isinstance(item, dict) else None
        if not isinstance(question, str) or not question.strip():
            problems.append(f'{path}, line {n}: needs "question", a text; skipped')
            continue
        ids = _relevant_ids(item.get("relevant"))
        if isinstance(ids, str):
            problems.append(f"{path}, line {n}: {ids}; skipped")
            continue
        qid = str(item.get("id") or f"line {n}")
        out.append(LabelledQuestion(qid, " ".join(question.split()), tuple(ids)))
    if not out:
        raise InputError(
            f"the labelled set {path} holds no question "
            '(one JSON per line: {"id": ..., "question": ..., "relevant": [record ids]})'
        )
    return out, problems


def labelled_set_path() -> Path:
    """The shipped labelled set: ``theses/labelled.jsonl`` under ``COLMEIA_DATA_DIR``, the
    working folder's ``data/`` or the repository's. It ships with the repository, not with
    the package: ConfigurationError when none of those holds it."""
    explicit = os.environ.get("COLMEIA_DATA_DIR")
    roots = [Path(explicit)] if explicit else []
    roots += [Path.cwd() / "data", Path(__file__).resolve().parents[4] / "data"]
    for root in roots:
        if (root / LABELLED_FILE).is_file():
            return root / LABELLED_FILE
    raise ConfigurationError(
        "the labelled set data/theses/labelled.jsonl ships with colmeia's repository and was "
        "not found here; run from a clone or pass the file: --labelled FILE"
    )


@dataclass(slots=True)
class LabelledReport:
    """Figures of one labelled-set run, ready for a table, a JSON line and an HTML report."""

    collection: str
    source: str
    questions: int
    depth: int
    variants: dict[str, dict[str, float]] = field(default_factory=dict)
    seconds: dict[str, dict[str, float | int | None]] = field(default_factory=dict)
    per_question: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            "labelled_set": self.source,
            "questions": self.questions,
            "depth": self.depth,
            "variants": self.variants,
            "seconds_per_query": {k: v["mean"] for k, v in self.seconds.items()},
            "seconds_per_query_sd": {k: v["sd"] for k, v in self.seconds.items()},
            "seconds_per_query_n": {k: v["n"] for k, v in self.seconds.items()},
            "per_question": self.per_question,
            "skipped_lines": self.skipped,
            "notes": self.notes,
        }


def _figures(ranked: Sequence[str], relevant: Sequence[str]) -> dict[str, float]:
    qrels = dict.fromkeys(relevant, 1)
    return {
        "p@5": precision_at_k(ranked, qrels, 5),
        "recall@5": recall_at_k(ranked, qrels, 5),
        "recall@10": recall_at_k(ranked, qrels, 10),
        "mrr": mrr(ranked, qrels),
        "ndcg@10": ndcg_at_k(ranked, qrels, 10),
    }


def _present(
    questions: Sequence[LabelledQuestion], have: set[str], collection: str
) -> tuple[list[LabelledQuestion], list[str]]:
    """The questions with their relevant works that are in the collection, and notes."""
    kept: list[LabelledQuestion] = []
    notes: list[str] = []
    for q in questions:
        there = tuple(i for i in q.relevant if i in have)
        if len(there) < len(q.relevant):
            missing = [i for i in q.relevant if i not in have]
            left = "skipped" if not there else "measured on the rest"
            notes.append(
                f"{q.id}: {len(missing)} of {len(q.relevant)} relevant works are not in "
                f"{collection} ({', '.join(missing[:3])}); {left}"
            )
        if there:
            kept.append(LabelledQuestion(q.id, q.question, there))
    return kept, notes


async def aevaluate_labelled(
    store: Store,
    collection: str,
    questions: Sequence[LabelledQuestion],
    *,
    embedder: Embedder | None = None,
    reranker: Reranker | None = None,
    depth: int = 100,
    source: str = "",
    progress: Callable[[int, int, str], None] | None = None,
) -> LabelledReport:
    """P@5, recall@5/@10, MRR and nDCG@10 of each ranking over ``questions`` (see the module
    docstring); ConfigurationError when the collection is missing or holds none of their
    relevant works."""
    if store.collection(collection) is None:
        raise ConfigurationError(
            f"no collection named {collection!r} in {store.url}; import the works first "
            "(`colmeia review import FILE --collection NAME`) or see `colmeia collections`"
        )
    have = {d.doc_id for d in store.documents(collection)}
    kept, notes = _present(questions, have, collection)
    if not kept:
        raise ConfigurationError(
            f"none of the labelled set's relevant works is in {collection}: the shipped set "
            "is written over data/theses/capes_resumos.csv (`colmeia review import` it), a set "
            "of your own names the record ids of your catalogue (`rec:…`, `doi:…`, `hdl:…`)"
        )
    rankings = WorkRankings(store, collection, embedder=embedder, reranker=reranker, depth=depth)
    report = LabelledReport(collection, source, len(kept), depth, notes=notes)
    sums = {name: dict.fromkeys(METRICS, 0.0) for name in rankings.names}
    for i, q in enumerate(kept, start=1):
        ranked = await rankings.rank(q.question)
        row: dict[str, Any] = {"id": q.id, "question": q.question, "relevant": list(q.relevant)}
        for name, works in ranked.items():
            figures = _figures(works, q.relevant)
            for metric, value in figures.items():
                sums[name][metric] += value
            first = next((r for r, d in enumerate(works, start=1) if d in q.relevant), None)
            row[name] = {"first_relevant": first, "p@5": figures["p@5"]}  # a fifth: exact
        report.per_question.append(row)
        if progress is not None:
            progress(i, len(kept), "labelled")
    for name in rankings.names:
        report.variants[name] = {m: round(v / len(kept), 4) for m, v in sums[name].items()}
        report.seconds[name] = mean_sd(rankings.timings[name])
    report.notes.extend(rankings.notes)
    return report
