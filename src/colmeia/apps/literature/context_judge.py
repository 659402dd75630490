"""Context relevance judged against distractors: the work's passages mixed with random ones.

Asked about one list of passages at a time, the 1.5B judge called every passage relevant, the
random control's as much as the work's own (context relevance 0.95 against 1.00 for random
passages on ten shipped questions): a judge that says yes to everything measures nothing.
Here the judge sees the work's passages and as many passages of other works in one shuffled
list, under neutral ids (T1…Tn: a reading's P-ids would tell which are the work's), and picks
the ones that help answer the question. The share of the work's passages picked is the context
relevance; the share of the random ones picked is the judge's false-positive rate, the sanity
check the published random-context control stands for.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, create_model

from colmeia.apps.literature.passage import Passage
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt

__all__ = ["MixedJudgement", "judge_with_distractors"]

#: The picks are a list of ids: a few tokens each.
_MAX_TOKENS = 160


@dataclass(frozen=True, slots=True)
class MixedJudgement:
    """Shares of the work's passages and of the distractors the judge picked as relevant."""

    work: float | None
    distractors: float | None


class _Picks(BaseModel):
    """The passages that help answer the question."""

    relevant: list[str] = Field(description="Ids of the passages that help answer the question.")


def _picks_schema(ids: Sequence[str]) -> type[_Picks]:
    allowed: dict[str, Any] = {"type": "string", "enum": list(ids)}
    return create_model(
        "Picks",
        __base__=_Picks,
        relevant=(
            list[str],
            Field(
                description="Ids of the passages that help answer the question.",
                json_schema_extra={"items": allowed, "maxItems": len(ids), "uniqueItems": True},
            ),
        ),
    )


async def judge_with_distractors(
    model: ChatModel,
    question: str,
    work: Sequence[Passage],
    distractors: Sequence[Passage],
    rng: random.Random,
) -> MixedJudgement:
    """Ask ``model`` which passages of ``work`` + ``distractors`` (shuffled by ``rng``) help
    answer ``question``; ids it made up are ignored. Raises the model's error if it fails."""
    mixed = [(p, True) for p in work] + [(p, False) for p in distractors]
    if not mixed:
        return MixedJudgement(None, None)
    rng.shuffle(mixed)
    labelled = {f"T{i}": item for i, item in enumerate(mixed, start=1)}
    prompt = render_prompt(
        "colmeia.apps.literature",
        "judge_context.j2",
        question=question,
        passages=[(label, p.text) for label, (p, _) in labelled.items()],
    )
    picks = await model.structured(
        [Message.user(prompt)],
        _picks_schema(list(labelled)),
        temperature=0.0,
        max_tokens=_MAX_TOKENS,
    )
    chosen = {i.strip().upper() for i in picks.relevant} & set(labelled)
    own = [label for label, (_, is_work) in labelled.items() if is_work]
    other = [label for label, (_, is_work) in labelled.items() if not is_work]

    def share(labels: list[str]) -> float | None:
        return len(chosen & set(labels)) / len(labels) if labels else None

    return MixedJudgement(share(own), share(other))
