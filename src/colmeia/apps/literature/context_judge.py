"""Context relevance judged against distractors: the work's passages mixed with random ones.

Asked about one list of passages at a time, the 1.5B judge called every passage relevant, the
random control's as much as the work's own (context relevance 0.95 against 1.00 for random
passages on ten shipped questions): a judge that says yes to everything measures nothing.
Here the judge sees the work's passages and as many passages of other works in one shuffled
list, under neutral ids (T1…Tn: a reading's P-ids would tell which are the work's), and must
choose exactly as many as the work gave, the most useful for the question (a forced choice: even
picking freely from the mixed list, the 1.5B took every passage). The share of the work's
passages among those chosen is the context relevance, the share of the distractors the judge's
false-positive rate: 0.5 each for a judge choosing at random, the sanity check the published
random-context control stands for.
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
    """The passages most useful to answer the question."""

    relevant: list[str] = Field(description="Ids of the passages most useful for the question.")


def _picks_schema(ids: Sequence[str], n: int) -> type[_Picks]:
    allowed: dict[str, Any] = {"type": "string", "enum": list(ids)}
    bounds: dict[str, Any] = {"items": allowed, "minItems": n, "maxItems": n, "uniqueItems": True}
    return create_model(
        "Picks",
        __base__=_Picks,
        relevant=(
            list[str],
            Field(
                description=f"Exactly {n} ids: the passages most useful for the question.",
                json_schema_extra=bounds,
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
    """Ask ``model`` to choose, from ``work`` + ``distractors`` shuffled by ``rng``, the
    ``len(work)`` passages most useful to answer ``question``. Ids it made up or repeated are
    ignored (a grammar does not enforce ``uniqueItems``). Raises the model's error if it fails."""
    mixed = [(p, True) for p in work] + [(p, False) for p in distractors]
    if not work or not distractors:
        return MixedJudgement(None, None)
    rng.shuffle(mixed)
    labelled = {f"T{i}": item for i, item in enumerate(mixed, start=1)}
    prompt = render_prompt(
        "colmeia.apps.literature",
        "judge_context.j2",
        question=question,
        passages=[(label, p.text) for label, (p, _) in labelled.items()],
        n=len(work),
    )
    picks = await model.structured(
        [Message.user(prompt)],
        _picks_schema(list(labelled), len(work)),
        temperature=0.0,
        max_tokens=_MAX_TOKENS,
    )
    chosen = set(list(dict.fromkeys(i.strip().upper() for i in picks.relevant))[: len(work)])
    chosen &= set(labelled)
    own = [label for label, (_, is_work) in labelled.items() if is_work]
    other = [label for label, (_, is_work) in labelled.items() if not is_work]

    def share(labels: list[str]) -> float:  # neither side is empty here
        return len(chosen & set(labels)) / len(labels)

    return MixedJudgement(share(own), share(other))
