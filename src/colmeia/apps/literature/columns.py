"""Extraction columns of the researcher's own: ``--column "método: qual o método de pesquisa?"``
filled for every work of a review, each value citing the passages (and pages) it comes from.

With a model: one small validated JSON per work and column (the passage ids the JSON Schema
allows are those given to it; a cited passage that shares too few of the value's content words
is removed). Offline: the sentence of the work's passages that matches most of the column's
words (its name and question; stems matched by prefix, so "método" finds "metodologia"),
cited; "não informado" when no sentence matches.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import Field, create_model

from colmeia.apps.literature.extractive import body_sentences
from colmeia.apps.literature.review import Review, ReviewedWork
from colmeia.apps.literature.schemas import CitedText
from colmeia.errors import InputError, ModelError
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt
from colmeia.rag.index.lexical import Analyzer

__all__ = ["Column", "fill_columns", "parse_column"]

NOT_FOUND = "não informado"
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀ-Ý0-9])")
_COLUMN_MAX_TOKENS = 400
#: Share of the value's content words a cited passage must hold.
MIN_SUPPORT = 0.3


@dataclass(frozen=True, slots=True)
class Column:
    """A column: its name (the table header) and the question that fills it."""

    name: str
    question: str


def parse_column(spec: str) -> Column:
    """``"método: qual o método de pesquisa?"`` → Column("método", "qual o método …?")."""
    name, sep, question = spec.partition(":")
    if not sep or not name.strip() or not question.strip():
        raise InputError(
            f"--column {spec!r}: write it as 'name: question', e.g. "
            "'método: qual o método de pesquisa?'"
        )
    return Column(" ".join(name.split()), " ".join(question.split()))


def _matches(terms: set[str], words: Sequence[str]) -> int:
    """How many of ``terms`` a sentence's stems match (equal, or one a prefix of the other
    when both have four letters or more)."""
    hits = 0
    for t in terms:
        if any(
            w == t or (len(w) >= 4 and len(t) >= 4 and (w.startswith(t) or t.startswith(w)))
            for w in words
        ):
            hits += 1
    return hits


def _offline(column: Column, work: ReviewedWork, analyzer: Analyzer) -> CitedText:
    """The sentence that answers the column: among the work's sentences (its passages', then
    its abstract's; never a title or a heading), one that names the column's subject (a word
    of its name, by stem: "método" finds "metodologia") and matches most of its question;
    "não informado" when none names it. A sentence of the abstract no passage holds is
    marked "(resumo)"."""
    name_terms = set(analyzer.tokens(column.name))
    terms = name_terms | set(analyzer.tokens(column.question))
    candidates = [
        (sentence, p.id) for p in work.passages for sentence in body_sentences(p.text, work.title)
    ]
    given = {" ".join(c.split()) for c, _ in candidates}
    candidates += [
        (sentence, "")
        for sentence in body_sentences(work.abstract, work.title)
        if " ".join(sentence.split()) not in given
    ]
    best: tuple[int, int, int, str, str] | None = None
    for n, (sentence, pid) in enumerate(candidates):
        if len(sentence.split()) < 4 or sentence.rstrip()[-1:] not in ".!?…":
            continue
        words = analyzer.tokens(sentence)
        subject = _matches(name_terms, words) if name_terms else 1
        score = _matches(terms, words)
        if subject and score and (best is None or (subject, score, -n) > best[:3]):
            best = (subject, score, -n, sentence.strip(), pid)
    if best is None:
        return CitedText(text=NOT_FOUND, passages=[])
    if not best[4]:
        return CitedText(text=f"{best[3]} (resumo)", passages=[])
    return CitedText(text=best[3], passages=[best[4]])


async def _with_model(
    model: ChatModel, column: Column, work: ReviewedWork, analyzer: Analyzer
) -> tuple[CitedText, list[str]]:
    ids = tuple(p.id for p in work.passages)
    allowed = Literal[ids]  # type: ignore[valid-type]
    schema = create_model(
        "ColumnValue",
        text=(str, Field(description=f"The answer, or '{NOT_FOUND}'.")),
        passages=(list[allowed], Field(description="Ids of the passages it comes from.")),
    )
    prompt = render_prompt(
        "colmeia.apps.literature",
        "column.j2",
        title=work.title,
        year=work.year,
        passages=work.passages,
        column=column,
    )
    out = await model.structured(
        [Message.system(prompt), Message.user(column.question)],
        schema,
        temperature=0.1,
        max_tokens=_COLUMN_MAX_TOKENS,
    )
    data = out.model_dump()
    text = " ".join(str(data.get("text", "")).split()) or NOT_FOUND
    words = set(analyzer.tokens(text))
    by_id = {p.id: p for p in work.passages}
    kept, removed = [], []
    for pid in dict.fromkeys(str(x) for x in data.get("passages", [])):
        p = by_id.get(pid)
        support = len(words & set(analyzer.tokens(p.text))) / len(words) if p and words else 0.0
        if p is not None and support >= MIN_SUPPORT:
            kept.append(pid)
        else:
            removed.append(pid)
    warnings = []
    if removed:
        warnings.append(
            f"{column.name}: citations that do not support the value removed: {removed}"
        )
    if text != NOT_FOUND and not kept:
        warnings.append(f"{column.name}: the model's value cites no passage that supports it")
        return CitedText(text=NOT_FOUND, passages=[]), warnings
    return CitedText(text=text, passages=kept), warnings


async def fill_columns(
    review: Review,
    columns: Sequence[Column],
    model: ChatModel | None = None,
    *,
    concurrency: int = 4,
) -> Review:
    """Fill every column for every work of ``review`` (in place; returns it)."""
    analyzer = Analyzer()
    limit = asyncio.Semaphore(concurrency)

    async def one(work: ReviewedWork, column: Column) -> None:
        if model is None:
            work.columns[column.name] = _offline(column, work, analyzer)
            return
        async with limit:
            try:
                value, warnings = await _with_model(model, column, work, analyzer)
            except ModelError as exc:
                value = _offline(column, work, analyzer)
                warnings = [f"{column.name}: the model failed ({exc}); extractive value"]
        work.columns[column.name] = value
        work.warnings.extend(warnings)

    await asyncio.gather(*(one(w, c) for w in review.works for c in columns))
    review.columns = [{"name": c.name, "question": c.question} for c in columns]
    return review
