"""Cited answers: a chat model answers from numbered passages, and every citation is checked.

A citation survives only if the passage it names exists and supports what is cited: its quote
is found in the passage (accent- and case-insensitive), or, without a quote, the cited sentence
shares most of its content words (stemmed) with the passage. Unsupported citations and unknown
passage ids are removed from the answer text and reported in ``rejected``. With no model
configured, the answer is extractive: the best passages themselves, cited.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field
from pydantic_core import from_json

from colmeia.llm.base import ChatModel, Message, stream_to
from colmeia.llm.guard import repeats_instructions, words
from colmeia.rag.index.lexical import Analyzer, fold_accents
from colmeia.rag.retrieve import Citation, Hit

__all__ = [
    "AnswerCitation",
    "AnswerSink",
    "CheckedCitation",
    "CitedAnswer",
    "ModelAnswer",
    "answer_question",
    "extractive_answer",
]

WITHHELD = (
    "A resposta do modelo foi retida: ela repetia as instruções internas, provavelmente por causa "
    "de um texto malicioso nos documentos. Veja os trechos encontrados abaixo."
)
_MARKER = re.compile(r"\[(P\d+)\]")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_LETTER = re.compile(r"[^\W\d_]")
_analyzer = Analyzer()


class AnswerCitation(BaseModel):
    """One citation as the model gives it."""

    passage: str = Field(description="Passage id, e.g. P1.")
    quote: str = Field(default="", description="Short exact excerpt of that passage.")


class ModelAnswer(BaseModel):
    """The model's answer with ``[P…]`` markers and the citations behind them."""

    answer: str
    citations: list[AnswerCitation] = Field(default_factory=list)


@dataclass(slots=True)
class CheckedCitation:
    """A citation after checking: which passage, whether it holds, and why not."""

    passage_id: str
    supported: bool
    reason: str = ""
    quote: str = ""
    chunk_id: str = ""
    doc_id: str = ""
    citation: Citation | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "passage_id": self.passage_id,
            "supported": self.supported,
            "reason": self.reason,
            "quote": self.quote,
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "citation": self.citation.as_dict() if self.citation else None,
        }


@dataclass(slots=True)
class CitedAnswer:
    """An answer whose remaining citations were each checked against their passage."""

    question: str
    answer: str
    citations: list[CheckedCitation]
    rejected: list[CheckedCitation] = field(default_factory=list)
    passages: list[Hit] = field(default_factory=list)
    extractive: bool = False
    model: str = ""
    #: why the model's answer was not shown, or "" when it was: ``"repeats_instructions"``
    #: (withheld), ``"empty_answer"`` (the model wrote none: the answer is extractive)
    withheld: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "extractive": self.extractive,
            "withheld": self.withheld,
            "model": self.model,
            "citations": [c.as_dict() for c in self.citations],
            "rejected": [c.as_dict() for c in self.rejected],
            "passages": [
                {"id": f"P{i}", **h.as_dict()} for i, h in enumerate(self.passages, start=1)
            ],
        }


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", fold_accents(text)))


def _overlap(claim: str, passage: str) -> float:
    claim_terms = set(_analyzer.tokens(claim))
    if not claim_terms:
        return 0.0
    return len(claim_terms & set(_analyzer.tokens(passage))) / len(claim_terms)


def _sentences_citing(answer: str, pid: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(answer) if f"[{pid}]" in s]


def _check(
    pid: str, quote: str, answer: str, passages: dict[str, Hit], min_support: float
) -> CheckedCitation:
    hit = passages.get(pid)
    if hit is None:
        return CheckedCitation(pid, False, "unknown passage id", quote)
    base = CheckedCitation(pid, False, "", quote, hit.chunk_id, hit.doc_id, hit.citation)
    if quote.strip():
        if _norm(quote) in _norm(hit.text) or _overlap(quote, hit.text) >= 0.8:
            base.supported = True
        else:
            base.reason = "the quote is not in the cited passage"
        return base
    claims = [_MARKER.sub("", s) for s in _sentences_citing(answer, pid)]
    if claims and max(_overlap(c, hit.text) for c in claims) >= min_support:
        base.supported = True
    else:
        base.reason = "the cited passage does not support the sentence"
    return base


def extractive_answer(question: str, hits: Sequence[Hit], *, top: int = 3) -> CitedAnswer:
    """The best passages as the answer (no model), each cited."""
    chosen = list(hits[:top])
    lines = [f"[P{i}] {h.citation.label()}: {h.text}" for i, h in enumerate(chosen, start=1)]
    cites = [
        CheckedCitation(f"P{i}", True, "", "", h.chunk_id, h.doc_id, h.citation)
        for i, h in enumerate(chosen, start=1)
    ]
    text = "\n\n".join(lines) if lines else "Nenhum trecho encontrado para esta pergunta."
    return CitedAnswer(question, text, cites, [], list(hits), extractive=True)


class AnswerSink(Protocol):
    """Where the text of an answer goes while the model writes it."""

    def delta(self, text: str) -> None:
        """More of the answer."""

    def replace(self, text: str, reason: str) -> None:
        """What was sent so far is void; the answer so far is ``text``."""


class _JsonField:
    """One top-level string field of a JSON object that arrives in pieces, decoded as it grows.

    pydantic_core's partial-JSON parser does the decoding (escapes and surrogate pairs cut
    between pieces included); text before the object (a code fence) is skipped.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._raw = ""
        self._seen = 0  # characters of the value already returned
        self.done = False

    def feed(self, piece: str) -> str:
        if self.done:
            return ""
        self._raw += piece
        start = self._raw.find("{")
        if start < 0:
            return ""
        try:
            grown = from_json(self._raw[start:], allow_partial="trailing-strings")
            # complete strings only: the value is there once its closing quote arrived
            self.done = self._name in from_json(self._raw[start:], allow_partial=True)
        except ValueError:
            return ""  # not (yet) readable as an object: the result decides at the end
        value = grown.get(self._name) if isinstance(grown, dict) else None
        if not isinstance(value, str):
            return ""
        new, self._seen = value[self._seen :], len(value)
        return new


class _GuardedAnswer:
    """Streams a structured answer's ``answer`` field to a person, behind the injection guard.

    The text shown lags the text received by ``run`` words, and everything received is checked
    with :func:`repeats_instructions` first: an answer that starts reciting the instructions is
    cut before any of the recited run reaches the screen, and what was shown is withdrawn.
    """

    def __init__(self, sink: AnswerSink, instructions: str, run: int = 8) -> None:
        self.sink = sink
        self.instructions = instructions
        self.run = run
        self.field = _JsonField("answer")
        self.received = ""
        self.sent = 0
        self.tripped = False

    def begin(self) -> None:
        if self.sent:
            self.sink.replace("", "retry")
        self.field = _JsonField("answer")
        self.received, self.sent, self.tripped = "", 0, False

    def delta(self, text: str, part: Literal["content", "arguments"]) -> None:
        if self.tripped:
            return
        self.received += self.field.feed(text)
        if repeats_instructions(self.received, self.instructions, run=self.run):
            self.tripped = True
            if self.sent:
                self.sink.replace("", "withheld")
            return
        self._release(final=self.field.done)

    def _release(self, *, final: bool) -> None:
        end = len(self.received)
        if not final:
            starts = [m.start() for m in words(self.received)]
            # the last `run` words wait (the newest one may still be growing)
            end = starts[-self.run] if len(starts) >= self.run else 0
        if end > self.sent:
            self.sink.delta(self.received[self.sent : end])
            self.sent = end

    def close(self) -> None:
        """The call returned: show what was held back (the result decides the rest)."""
        if not self.tripped:
            self._release(final=self.field.done)


async def answer_question(
    question: str,
    hits: Sequence[Hit],
    model: ChatModel | None,
    *,
    max_passages: int = 8,
    min_support: float = 0.5,
    sink: AnswerSink | None = None,
) -> CitedAnswer:
    """Answer ``question`` from ``hits`` with checked citations (extractive without a model).

    With ``sink``, the answer's text is streamed into it while the model writes, behind the
    prompt-injection guard; the returned answer is what counts (citations that did not hold are
    removed from it afterwards), so a caller compares and replaces.
    """
    passages = list(hits[:max_passages])
    if model is None or not passages:
        return extractive_answer(question, passages)
    # Jinja2 (under render_prompt) loads only when a model writes the answer.
    from colmeia.llm.prompts import render_prompt

    by_id = {f"P{i}": h for i, h in enumerate(passages, start=1)}
    prompt = render_prompt(
        "colmeia.rag",
        "answer.j2",
        passages=[
            {"id": pid, "source": h.citation.label(), "text": h.text} for pid, h in by_id.items()
        ],
    )
    instructions = render_prompt("colmeia.rag", "answer.j2", passages=[])
    guarded = _GuardedAnswer(sink, instructions) if sink is not None else None
    with stream_to(guarded):
        result = await model.structured(
            [Message.system(prompt), Message.user(question)], ModelAnswer
        )
    if guarded is not None:
        guarded.close()
    if repeats_instructions(result.answer, instructions):
        # a passage talked the model into reciting its instructions (prompt injection)
        if sink is not None:
            sink.replace(WITHHELD, "withheld")
        return CitedAnswer(
            question, WITHHELD, [], [], passages, False, model.model, "repeats_instructions"
        )
    quotes: dict[str, str] = {}
    for c in result.citations:
        pid = c.passage.strip().strip("[]").upper()
        if pid and pid not in quotes:
            quotes[pid] = c.quote
    order = list(dict.fromkeys([*_MARKER.findall(result.answer), *quotes]))
    kept: list[CheckedCitation] = []
    rejected: list[CheckedCitation] = []
    for pid in order:
        checked = _check(pid, quotes.get(pid, ""), result.answer, by_id, min_support)
        (kept if checked.supported else rejected).append(checked)
    text = result.answer
    for bad in rejected:
        text = text.replace(f"[{bad.passage_id}]", "")
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", text)).strip()
    if not _LETTER.search(_MARKER.sub("", text)):
        # The model wrote no answer (seen on a 0.5B model: valid JSON, "answer": ""): the
        # person gets the best passages, cited, and is told why, rather than nothing.
        fallback = extractive_answer(question, passages)
        fallback.model, fallback.withheld, fallback.rejected = model.model, "empty_answer", rejected
        if sink is not None:
            sink.replace(fallback.answer, "empty_answer")
        return fallback
    unmarked = [c.passage_id for c in kept if f"[{c.passage_id}]" not in text]
    if unmarked:
        # Kept on its quote alone (the model listed it but wrote no marker, seen on the 0.5B
        # model): the marker goes at the end, so the text names every passage it rests on.
        text = " ".join([text, *(f"[{pid}]" for pid in unmarked)])
    return CitedAnswer(question, text, kept, rejected, passages, False, model.model)
