"""What a model is given to read one work: a bounded prompt, whatever the work's size.

A review passage is a retrieval chunk (up to ~500 words) and a work has up to eight of them; a
small local model reading all of that (with the catalogue abstract repeated beside it) spent
minutes per work on prompt alone on two cores. A model gets at most :data:`MODEL_PASSAGES`
passages — one per section found (resumo, objetivos, conclusões), then the best-scored rest,
leaving out one whose sentences were all given already (overlapping chunks) — and each is cut to the run of whole sentences, at most :data:`MODEL_PASSAGE_WORDS` words, that
holds most of the question's words. The cut passages *are* the work's passages from then on
(saved in the review, cited as P1…Pn, hashed into the cache key), so every citation points at
text the model was shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from colmeia.apps.literature.extractive import body_sentences
from colmeia.apps.literature.passage import Passage
from colmeia.apps.literature.schemas import word_count
from colmeia.rag.index.lexical import Analyzer

__all__ = ["MODEL_PASSAGES", "MODEL_PASSAGE_WORDS", "best_window", "passages_for_model"]

#: Passages a model reads per work, and words per passage: ~4 × 110 words ≈ 1,000 prompt tokens.
MODEL_PASSAGES = 4
MODEL_PASSAGE_WORDS = 110
_SECTION_ORDER = ("resumo", "objetivos", "conclusões")


def best_window(
    text: str, question_terms: set[str], words: int, analyzer: Analyzer, title: str = ""
) -> str:
    """The run of consecutive whole sentences of ``text`` (≤ ``words`` words) holding the most
    distinct question terms (ties: the earliest); a first sentence longer than ``words`` is cut
    at ``words`` words. ``text`` itself when it is short enough."""
    if word_count(text) <= words:
        return text
    sentences = body_sentences(text, title) or [text]
    terms = [set(analyzer.tokens(s)) & question_terms for s in sentences]
    sizes = [word_count(s) for s in sentences]
    best: tuple[int, int, int] | None = None  # (covered terms, -start, end): most, earliest
    for start in range(len(sentences)):
        covered: set[str] = set()
        total = 0
        end = start
        while end < len(sentences) and total + sizes[end] <= words:
            covered |= terms[end]
            total += sizes[end]
            end += 1
        if end == start:
            continue  # this sentence alone is too long
        if best is None or (len(covered), -start) > best[:2]:
            best = (len(covered), -start, end)
    if best is None:
        return " ".join(sentences[0].split()[:words]) + "…"
    _, minus_start, end = best
    return " ".join(sentences[-minus_start:end])


def passages_for_model(
    question: str,
    passages: Sequence[Passage],
    *,
    limit: int = MODEL_PASSAGES,
    words: int = MODEL_PASSAGE_WORDS,
    title: str = "",
) -> list[Passage]:
    """At most ``limit`` of ``passages`` (one per section first, then by score; none whose
    sentences were all given already), each cut by :func:`best_window`, in their original
    order, renumbered P1…Pk. Idempotent: passages already within the bounds come back
    unchanged."""
    if len(passages) <= limit and all(word_count(p.text) <= words for p in passages):
        return list(passages)
    order: list[int] = []
    for section in _SECTION_ORDER:
        first = next((i for i, p in enumerate(passages) if p.section == section), None)
        if first is not None:
            order.append(first)
    order.extend(
        sorted(
            (i for i in range(len(passages)) if i not in order),
            key=lambda i: (-passages[i].score, i),
        )
    )
    analyzer = Analyzer()
    question_terms = set(analyzer.tokens(question))
    chosen: dict[int, str] = {}
    given: set[str] = set()  # sentences already given: overlapping chunks repeat them
    for i in order:
        if len(chosen) == limit:
            break
        text = best_window(passages[i].text, question_terms, words, analyzer, title)
        sentences = {" ".join(s.split()) for s in body_sentences(text, title)}
        if sentences and sentences <= given:
            continue  # nothing new for the model to read
        chosen[i] = text
        given |= sentences
    return [
        replace(passages[i], id=f"P{n}", text=chosen[i])
        for n, i in enumerate(sorted(chosen), start=1)
    ]
