"""The rewriter's answer as validated: a rewrite must carry the new answer (blank space is not
one), while "cannot rewrite" needs none; the refusal tells the model what to fix."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from colmeia.apps.moderation.schemas import ROLE_SCHEMAS, Rewrite


def test_a_rewrite_carries_its_answer() -> None:
    rewrite = Rewrite(can_rewrite=True, answer="O prazo é de 10 dias úteis.", reason="")
    assert (rewrite.can_rewrite, rewrite.answer) == (True, "O prazo é de 10 dias úteis.")


@pytest.mark.parametrize("answer", ["", "   \n\t "])
def test_a_rewrite_without_an_answer_is_refused_saying_what_to_do(answer: str) -> None:
    with pytest.raises(ValidationError) as refused:
        Rewrite(can_rewrite=True, answer=answer, reason="")
    (error,) = refused.value.errors()
    assert error["msg"] == "Value error, can_rewrite is true but answer is empty: write the answer"


def test_cannot_rewrite_needs_no_answer_only_the_reason() -> None:
    refusal = Rewrite(can_rewrite=False, answer="", reason="O contexto não diz o prazo.")
    assert (refusal.can_rewrite, refusal.answer, refusal.reason) == (
        False,
        "",
        "O contexto não diz o prazo.",
    )


def test_each_role_asks_for_its_own_schema_title() -> None:
    assert {role: schema.__name__ for role, schema in ROLE_SCHEMAS.items()} == {
        "semantic": "SemanticReview",
        "contextual": "ContextualReview",
        "suggester": "Suggestions",
        "rewriter": "Rewrite",
        "decider": "Decision",
    }
