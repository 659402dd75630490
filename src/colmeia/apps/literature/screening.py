"""Title/abstract screening of a whole collection, ordered by active learning.

Every work of a collection is screened once on its title and abstract (include/exclude, a
reason required to exclude), and the works included there once more on their full text. The
queue of works still to screen is ordered by what the decisions so far teach:

* before any decision, by relevance to the review question when one is given (BM25 over title,
  abstract and keywords), else in catalogue order;
* with decisions of one kind only, by similarity to the included works (or dissimilarity to the
  excluded ones);
* with both kinds, by the probability of inclusion from a logistic regression over TF-IDF
  features of the title, abstract and keywords (Portuguese stemming, accents folded), refitted
  after every decision — the certainty-based sampling of screening tools such as ASReview, which
  puts the likely inclusions first so a reviewer finds them early.

Decisions live in one JSON file per collection (:func:`screening_file`), written atomically;
:func:`import_decisions` takes the decisions a colmeia RIS/BibTeX export carries (read back
on import); :func:`prisma_flow` gives the PRISMA 2020 counts: identified, screened, excluded (by reason),
sought and assessed in full text, excluded there (by reason), included.

The functions here are the whole API: a CLI or an HTTP router only calls them.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from colmeia.errors import ConfigurationError, InputError
from colmeia.rag.index.lexical import Analyzer, LexicalIndex
from colmeia.store.base import Store, StoredDocument

__all__ = [
    "QueueItem",
    "ScreeningDecision",
    "ScreeningLog",
    "Stage",
    "import_decisions",
    "prisma_flow",
    "screening_file",
    "screening_queue",
]

Stage = Literal["title_abstract", "full_text"]
STAGES: tuple[Stage, ...] = ("title_abstract", "full_text")
_SLUG_RE = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(slots=True)
class ScreeningDecision:
    """One decision on one work at one stage."""

    decision: str  # include | exclude
    reason: str = ""
    notes: str = ""
    at: str = ""
    who: str = ""


@dataclass(slots=True)
class QueueItem:
    """A work waiting to be screened, with what ordered it there."""

    doc_id: str
    title: str
    year: int | None
    abstract: str
    score: float  # probability of inclusion, or a similarity before the model can be fitted
    basis: str  # "model", "similar to included", "question", "catalogue order", …

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class ScreeningLog:
    """The decisions of one collection, per stage, by work id."""

    collection: str
    question: str = ""
    stages: dict[str, dict[str, ScreeningDecision]] = field(
        default_factory=lambda: {s: {} for s in STAGES}
    )

    def decide(
        self,
        doc_id: str,
        decision: str,
        reason: str = "",
        notes: str = "",
        stage: Stage = "title_abstract",
        *,
        who: str = "",
        at: str = "",
    ) -> ScreeningDecision:
        """Record (or change) a decision. Excluding needs a reason; a full-text decision
        needs the work to have been included on its title and abstract. ``at`` (ISO 8601)
        is now unless given (a decision carried by a file keeps its own time). Notes keep
        their line breaks."""
        if decision not in ("include", "exclude"):
            raise InputError(f"a screening decision is include or exclude, not {decision!r}")
        if stage not in STAGES:
            raise InputError(f"a screening stage is {' or '.join(STAGES)}, not {stage!r}")
        if decision == "exclude" and not reason.strip():
            raise InputError(f"say why {doc_id} is excluded (a reason)")
        if stage == "full_text":
            first = self.stages["title_abstract"].get(doc_id)
            if first is None or first.decision != "include":
                raise InputError(
                    f"{doc_id} was not included on its title and abstract; screen it there first"
                )
        made = ScreeningDecision(
            decision,
            " ".join(reason.split()),
            "\n".join(" ".join(line.split()) for line in notes.strip().splitlines()),
            at or datetime.now(UTC).isoformat(),
            " ".join(who.split()),
        )
        self.stages[stage][doc_id] = made
        if stage == "title_abstract" and decision == "exclude":
            self.stages["full_text"].pop(doc_id, None)  # excluded before full text
        return made

    def decision(self, doc_id: str) -> tuple[str, ScreeningDecision] | None:
        """The work's latest stage and decision there, if any."""
        for stage in reversed(STAGES):
            if doc_id in self.stages[stage]:
                return stage, self.stages[stage][doc_id]
        return None

    def as_dict(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            "question": self.question,
            "stages": {s: {k: asdict(v) for k, v in d.items()} for s, d in self.stages.items()},
        }

    def save(self, path: Path) -> Path:
        """Write the log atomically (a crash leaves the previous one whole)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(json.dumps(self.as_dict(), ensure_ascii=False, indent=1), encoding="utf-8")
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: Path, collection: str) -> ScreeningLog:
        """The log saved at ``path``, or an empty one for ``collection`` when there is none."""
        if not path.exists():
            return cls(collection)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            log = cls(str(data["collection"]), str(data.get("question", "")))
            for stage in STAGES:
                for doc_id, d in (data.get("stages", {}).get(stage) or {}).items():
                    log.stages[stage][str(doc_id)] = ScreeningDecision(**d)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigurationError(f"{path} is not a screening log ({exc})") from exc
        return log


def screening_file(home: Path, store_url: str, collection: str) -> Path:
    """Where a collection's screening is kept: under ``home``, one file per store and
    collection (the same collection name in two stores is two screenings)."""
    digest = hashlib.sha256(store_url.encode()).hexdigest()[:10]
    return home / "screening" / f"{_SLUG_RE.sub('_', collection)}-{digest}.json"


def _text(d: StoredDocument) -> str:
    meta = d.metadata
    keywords = meta.get("keywords") or []
    kw = "; ".join(str(k) for k in keywords) if isinstance(keywords, list) else str(keywords)
    return f"{d.title}\n{meta.get('abstract') or ''}\n{kw}"


@functools.lru_cache(maxsize=8192)
def _terms(text: str) -> Counter[str]:
    """The stemmed, accent-folded words of a work's record, counted. Cached: the queue is
    recomputed after every decision over the same records, and stemming them is most of its
    cost (a 171-work catalogue: 0.8 s of the 1.2 s a decision took)."""
    return Counter(Analyzer().tokens(text))


def _tfidf(texts: Sequence[str]) -> npt.NDArray[np.float64]:
    """Rows of L2-normalised TF-IDF over stemmed, accent-folded words (sublinear tf); the
    same records give the same matrix, computed once (read only: callers index it)."""
    return _tfidf_of(tuple(texts))


@functools.lru_cache(maxsize=4)
def _tfidf_of(texts: tuple[str, ...]) -> npt.NDArray[np.float64]:
    docs = [_terms(t) for t in texts]
    df: Counter[str] = Counter()
    for c in docs:
        df.update(c.keys())
    vocab = {w: i for i, w in enumerate(w for w, n in df.items() if n >= 1)}
    n = len(texts)
    idf = np.zeros(len(vocab))
    for w, i in vocab.items():
        idf[i] = math.log((1 + n) / (1 + df[w])) + 1.0
    x = np.zeros((n, len(vocab)))
    for r, c in enumerate(docs):
        for w, k in c.items():
            x[r, vocab[w]] = (1.0 + math.log(k)) * idf[vocab[w]]
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    out: npt.NDArray[np.float64] = x / np.where(norms == 0, 1.0, norms)
    out.setflags(write=False)
    return out


def _logistic(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], l2: float = 1.0, steps: int = 300
) -> npt.NDArray[np.float64]:
    """Weights (bias last) of an L2-regularised logistic regression, classes weighted to
    balance (screening has few inclusions), fitted by Newton's method on the decided works.

    Small problems (a few hundred decisions, a few thousand words): the dual form keeps the
    Hessian n×n, whatever the vocabulary."""
    n = x.shape[0]
    xb = np.hstack([x, np.ones((n, 1))])
    pos = max(float(y.sum()), 1.0)
    neg = max(float(n - y.sum()), 1.0)
    weight = np.where(y == 1, n / (2 * pos), n / (2 * neg))
    w = np.zeros(xb.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(xb @ w)))
        grad = xb.T @ (weight * (p - y)) + l2 * w
        s = weight * p * (1 - p)
        # Newton step through the n×n system: (X^T S X + l2 I)^-1 g = (g - X^T (S^-1 l2 + X X^T)^-1 X g) / l2
        k = xb @ xb.T + np.diag(l2 / np.maximum(s, 1e-9))
        step = (grad - xb.T @ np.linalg.solve(k, xb @ grad)) / l2
        w -= step
        if float(np.abs(step).max()) < 1e-6:
            break
    return w


def screening_queue(
    store: Store,
    collection: str,
    log: ScreeningLog,
    n: int = 10,
    *,
    question: str = "",
) -> list[QueueItem]:
    """The next ``n`` works to screen on title and abstract, most likely inclusions first
    (see the module docstring for how they are ordered)."""
    docs = store.documents(collection)
    if not docs and store.collection(collection) is None:
        raise ConfigurationError(
            f"no collection named {collection!r} in {store.url}; import the works first "
            "(`colmeia review import FILE --collection NAME`)"
        )
    decided = log.stages["title_abstract"]
    todo = [i for i, d in enumerate(docs) if d.doc_id not in decided]
    if not todo or n <= 0:
        return []
    texts = [_text(d) for d in docs]
    labels = {
        i: 1.0 if decided[d.doc_id].decision == "include" else 0.0
        for i, d in enumerate(docs)
        if d.doc_id in decided
    }
    question = question or log.question
    scores: npt.NDArray[np.float64]
    if labels and len(set(labels.values())) == 2:
        x = _tfidf(texts)
        rows = list(labels)
        w = _logistic(x[rows], np.array([labels[r] for r in rows]))
        xb = np.hstack([x[todo], np.ones((len(todo), 1))])
        scores = 1 / (1 + np.exp(-(xb @ w)))
        basis = "model"
    elif labels:
        x = _tfidf(texts)
        rows = list(labels)
        centroid = x[rows].mean(axis=0)
        sims = x[todo] @ centroid
        included = next(iter(labels.values())) == 1.0
        scores = sims if included else -sims
        basis = "similar to included" if included else "unlike excluded"
    elif question.strip():
        index = LexicalIndex.build([texts[i] for i in todo])
        pos, found = index.search(question, len(todo))
        scores = np.zeros(len(todo))
        scores[pos] = found
        basis = "question"
    else:
        scores = -np.arange(len(todo), dtype=np.float64)
        basis = "catalogue order"
    order = sorted(range(len(todo)), key=lambda k: (-float(scores[k]), todo[k]))[:n]
    out = []
    for k in order:
        d = docs[todo[k]]
        out.append(
            QueueItem(
                d.doc_id,
                d.title,
                d.year,
                str(d.metadata.get("abstract") or ""),
                round(float(scores[k]), 6),
                basis,
            )
        )
    return out


def prisma_flow(store: Store, collection: str, log: ScreeningLog) -> dict[str, Any]:
    """PRISMA 2020 counts of the collection's screening. ``full_text_sought`` are the works
    included on title and abstract; ``full_text_available`` those of them with a readable PDF
    in the library; ``included`` the works included on their full text."""
    docs = {d.doc_id: d for d in store.documents(collection)}
    first = {k: v for k, v in log.stages["title_abstract"].items() if k in docs}
    second = {k: v for k, v in log.stages["full_text"].items() if k in docs}
    excluded = [v for v in first.values() if v.decision == "exclude"]
    sought = [k for k, v in first.items() if v.decision == "include"]
    excluded_full = [v for v in second.values() if v.decision == "exclude"]
    return {
        "identified": len(docs),
        "screened": len(first),
        "excluded": len(excluded),
        "exclusion_reasons": dict(Counter(v.reason for v in excluded).most_common()),
        "full_text_sought": len(sought),
        "full_text_available": sum(1 for k in sought if docs[k].metadata.get("pdf")),
        "full_text_assessed": len(second),
        "excluded_full_text": len(excluded_full),
        "full_text_exclusion_reasons": dict(Counter(v.reason for v in excluded_full).most_common()),
        "included": sum(1 for v in second.values() if v.decision == "include"),
        "awaiting_title_abstract": len(docs) - len(first),
        "awaiting_full_text": len(sought) - len(second),
    }


def import_decisions(log: ScreeningLog, sources: Sequence[Path]) -> int:
    """Carry the screening decisions that bibliography files hold (a colmeia RIS/BibTeX
    export, also after a trip through Zotero) into ``log``; returns how many were taken.

    Per work and stage the **newer** decision wins: one carried by the file replaces the
    library's when its time is later, else the library's is kept (a decision without a time
    is the oldest). Title/abstract decisions are taken before full-text ones, and a full-text
    decision is taken only for a work included on its title and abstract. An exclusion
    without a reason is taken with the reason "(sem motivo no arquivo)"."""
    from colmeia.apps.literature.decision_notes import newer
    from colmeia.apps.literature.records import load_records

    taken = 0
    records = load_records(sources).records
    for stage in STAGES:
        for rec in records:
            # (rec.screening is the first of rec.decisions: every reader sets both from the notes)
            carried = [d for d in rec.decisions if d.stage == stage]
            for d in carried:
                if d.decision not in ("include", "exclude"):
                    continue
                have = log.stages[stage].get(rec.id)
                if have is not None and not newer(d.at, have.at):
                    continue
                first = log.stages["title_abstract"].get(rec.id)
                if stage == "full_text" and (first is None or first.decision != "include"):
                    continue
                reason = d.reason or ("(sem motivo no arquivo)" if d.decision == "exclude" else "")
                log.decide(rec.id, d.decision, reason, d.notes, stage, who=d.who, at=d.at)
                taken += 1
    return taken
