"""Metrics of the institutional assistant: numbers in, numbers out.

Each evaluated question becomes an :class:`AssistantOutcome` (what was expected and what
the assistant did); :func:`summarise_outcomes` gives

* **citation hit rate** — a gold article (law + article) among the answer's citations; also
  at paragraph level when the gold names a paragraph or inciso;
* **hit@1 / hit@5** — the gold article is the first / among the first five passages the answer
  gives, in the order it shows them (:func:`answer_passages`: the ranking's own passages, then
  the rest of the ranking, cited by the model or not);
* **answer contains gold span** — the normalised answer text contains one of the gold
  answer spans (FaQuAD), where spans are given;
* **handoff accuracy** — the agent that answered is the one expected (``rag`` for
  documents, ``search`` for cases, ``main`` for general questions);
* **turns and tokens per answer** — model calls, handoffs and tokens each answer cost.

Multi-turn conversations are scored per turn (:class:`TurnOutcome`: the failures found, none
means passed) and per conversation (every turn passed): :func:`summarise_conversations`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AssistantOutcome",
    "GoldCitation",
    "TurnOutcome",
    "answer_passages",
    "citation_hit",
    "contains_span",
    "gold_rank",
    "normalise_text",
    "summarise_conversations",
    "summarise_outcomes",
]


@dataclass(frozen=True, slots=True)
class GoldCitation:
    """Where the answer should come from: a law's number and article, maybe a paragraph."""

    law: str
    article: str
    paragraph: str = ""
    inciso: str = ""
    doc_id: str = ""


@dataclass(slots=True)
class AssistantOutcome:
    """One question: what was expected and what the assistant did."""

    id: str
    expected_agent: str
    agent: str
    status: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    gold: list[GoldCitation] = field(default_factory=list)
    answer: str = ""
    spans: list[str] = field(default_factory=list)
    model_calls: int = 0
    handoffs: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    sources: list[dict[str, Any]] = field(default_factory=list)


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _law_key(text: str) -> str:
    """A norm's key for matching gold: the number of a law (``Lei 8.078/1990`` → ``8078``);
    ``CF`` for the Constitution (cited ``CF/88``) and ``ADCT`` for its transitional acts, which
    carry no number of their own and must not match each other."""
    folded = text.strip().upper()
    if folded.startswith("ADCT"):
        return "ADCT"
    if folded.startswith(("CF", "CONSTITUI")):
        return "CF"
    return _digits(text.split("/")[0])


def _article(text: str) -> str:
    return re.sub(r"[º°o.\s]", "", text.strip()).upper()


def citation_hit(
    citations: Sequence[dict[str, Any]], gold: Sequence[GoldCitation], *, level: str = "article"
) -> bool:
    """Whether a gold citation is among ``citations`` (``level`` article, paragraph or doc)."""
    for g in gold:
        for c in citations:
            if level == "doc" or g.doc_id:
                if g.doc_id and g.doc_id == c.get("doc_id"):
                    return True
                continue
            law = _law_key(str(c.get("law", "")))
            if law != _law_key(g.law) or _article(str(c.get("article", ""))) != _article(g.article):
                continue
            if level == "article":
                return True
            if g.paragraph and str(c.get("paragraph", "")) != g.paragraph:
                continue
            if g.inciso and str(c.get("inciso", "")).upper() != g.inciso.upper():
                continue
            return True
    return False


def gold_rank(passages: Sequence[dict[str, Any]], gold: Sequence[GoldCitation]) -> int | None:
    """1-based position of the first passage citing a gold article (None: none does)."""
    for position, passage in enumerate(passages, start=1):
        if citation_hit([passage], gold):
            return position
    return None


def answer_passages(
    citations: Sequence[dict[str, Any]], sources: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The passages an answer gives, in the order the person is shown them.

    First the passages the ranking put first (citations with ``by: ranking``: the whole answer
    without a model, and always the lead of a model's answer), then every other passage of the
    ranking in its order — the ones the model also cited and the further sources alike
    (``rank``). Citations without a ``rank`` (another pipeline's) come before the sources.
    """
    if not any("rank" in c for c in [*citations, *sources]):
        return [*citations, *sources]
    lead = [c for c in citations if c.get("by") == "ranking"]
    rest = [c for c in citations if c.get("by") != "ranking"] + list(sources)
    unranked = len(citations) + len(sources) + 1
    rest.sort(key=lambda p: p.get("rank") or unranked)  # stable: ties keep citations first
    return [*lead, *rest]


def _hit_at(o: AssistantOutcome, k: int) -> float:
    rank = gold_rank(answer_passages(o.citations, o.sources), o.gold)
    return float(rank is not None and rank <= k)


def normalise_text(text: str) -> str:
    """Lower case, no accents, no punctuation, single spaces (SQuAD-style)."""
    folded = unicodedata.normalize("NFKD", text.lower())
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w\s]", " ", folded).split())


def contains_span(answer: str, spans: Sequence[str]) -> bool:
    """Whether the answer contains one of the gold spans (after normalisation)."""
    text = normalise_text(answer)
    return any(normalise_text(s) and normalise_text(s) in text for s in spans)


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summarise_outcomes(outcomes: Sequence[AssistantOutcome]) -> dict[str, Any]:
    """The figures of an evaluation run."""
    cited = [o for o in outcomes if o.gold]
    paragraph = [o for o in cited if any(g.paragraph or g.inciso for g in o.gold)]
    spanned = [o for o in outcomes if o.spans]
    answered = [o for o in outcomes if o.status == "answered"]
    return {
        "questions": len(outcomes),
        "answered": len(answered),
        "citation_hit_rate": _mean([float(citation_hit(o.citations, o.gold)) for o in cited]),
        "citation_hit_rate_paragraph": _mean(
            [float(citation_hit(o.citations, o.gold, level="paragraph")) for o in paragraph]
        ),
        "hit_at_1": _mean([_hit_at(o, 1) for o in cited]),
        "hit_at_5": _mean([_hit_at(o, 5) for o in cited]),
        "with_gold_citations": len(cited),
        "answer_contains_gold_span": _mean(
            [float(contains_span(o.answer, o.spans)) for o in spanned]
        ),
        "with_gold_spans": len(spanned),
        "handoff_accuracy": _mean([float(o.agent == o.expected_agent) for o in outcomes]),
        "model_calls_per_answer": _mean([float(o.model_calls) for o in outcomes]),
        "handoffs_per_answer": _mean([float(o.handoffs) for o in outcomes]),
        "tokens_per_answer": _mean(
            [float(o.prompt_tokens + o.completion_tokens) for o in outcomes]
        ),
        "prompt_tokens_per_answer": _mean([float(o.prompt_tokens) for o in outcomes]),
        "seconds_per_answer": _mean([o.seconds for o in outcomes]),
    }


# ---------------------------------------------------------------- multi-turn conversations
@dataclass(slots=True)
class TurnOutcome:
    """One turn of a scripted conversation: what was expected, what happened, what failed."""

    conversation: str
    turn: int
    user: str
    expected_kind: str
    kind: str
    failures: list[str] = field(default_factory=list)
    model_calls: int = 0
    seconds: float = 0.0
    intent: str = ""

    @property
    def passed(self) -> bool:
        return not self.failures


def summarise_conversations(turns: Sequence[TurnOutcome]) -> dict[str, Any]:
    """Per-turn and per-conversation pass rates, and the pass rate of each expected kind.

    A conversation passes when every one of its turns does.
    """
    by_conv: dict[str, list[TurnOutcome]] = {}
    for t in turns:
        by_conv.setdefault(t.conversation, []).append(t)
    kinds: dict[str, list[float]] = {}
    for t in turns:
        kinds.setdefault(t.expected_kind or "any", []).append(float(t.passed))
    passed_convs = sum(1 for ts in by_conv.values() if all(t.passed for t in ts))
    intents: dict[str, list[float]] = {}
    for t in turns:
        if t.intent:
            intents.setdefault(t.intent, []).append(float(t.passed))
    # a failure reads "slot: …" (kind, case, facts, article, says, error): how often each slot
    # was wrong, over all turns
    slots: dict[str, int] = {}
    for t in turns:
        for name in {f.split(":", 1)[0] for f in t.failures}:
            slots[name] = slots.get(name, 0) + 1
    return {
        "conversations": len(by_conv),
        "conversations_passed": passed_convs,
        "conversation_pass_rate": _mean(
            [float(all(t.passed for t in ts)) for ts in by_conv.values()]
        ),
        "turns": len(turns),
        "turns_passed": sum(1 for t in turns if t.passed),
        "turn_pass_rate": _mean([float(t.passed) for t in turns]),
        "turn_pass_rate_by_kind": {k: _mean(v) for k, v in sorted(kinds.items())},
        **(
            {"turn_pass_rate_by_intent": {k: _mean(v) for k, v in sorted(intents.items())}}
            if intents
            else {}
        ),
        "slot_error_rate": {k: round(v / len(turns), 4) for k, v in sorted(slots.items())}
        if turns
        else {},
        "model_calls_per_turn": _mean([float(t.model_calls) for t in turns]),
        "seconds_per_turn": _mean([t.seconds for t in turns]),
    }
