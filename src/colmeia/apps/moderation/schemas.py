"""Structured outputs of the five moderation agents (validated with Pydantic).

The class names are the JSON Schema titles the model is asked for, one per role, so a log or
a scripted test model can tell the roles apart by the schema requested.
Short text limits keep completions (and cost) small.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "MAX_SUGGESTIONS",
    "ROLE_SCHEMAS",
    "ContextualReview",
    "Decision",
    "Rewrite",
    "SemanticReview",
    "Suggestions",
]

_FROZEN = ConfigDict(extra="ignore", frozen=True)

# The suggester's prompt states this number too (it is passed to the template), so the prompt
# and the schema cannot disagree.
MAX_SUGGESTIONS = 5


class SemanticReview(BaseModel):
    """Semantic review of an answer: complete, specific, well written, in one language."""

    model_config = _FROZEN

    justification: str = Field(
        max_length=1200,
        description="One or two sentences: what is missing, vague or misspelt, or why it is good.",
    )
    score: int = Field(
        ge=0,
        le=5,
        description="0 = useless … 5 = complete, specific, correct spelling, one language.",
    )


class ContextualReview(BaseModel):
    """Contextual review: consistent with the context and rules, nothing critical left out."""

    model_config = _FROZEN

    justification: str = Field(
        max_length=1200,
        description="One or two sentences: which claim is unsupported, or which critical fact "
        "of the context is left out.",
    )
    score: int = Field(
        ge=0, le=5, description="0 = contradicts the context … 5 = supported and complete."
    )


class Suggestions(BaseModel):
    """Concrete changes the rewriter should make (the suggester does not rewrite)."""

    model_config = _FROZEN

    suggestions: list[str] = Field(
        min_length=1,
        max_length=MAX_SUGGESTIONS,
        description="Short, actionable instructions, most important first.",
    )


class Rewrite(BaseModel):
    """A new answer, or a statement that the information is not enough to write one."""

    model_config = _FROZEN

    can_rewrite: bool = Field(
        description="false when the context does not hold the information the question needs."
    )
    answer: str = Field(
        max_length=4000,
        description="The full new answer, in the required language (empty if can_rewrite is false).",
    )
    reason: str = Field(
        max_length=1200,
        description="When can_rewrite is false: what information is missing.",
    )

    @model_validator(mode="after")
    def _answer_when_rewriting(self) -> Rewrite:
        if self.can_rewrite and not self.answer.strip():
            raise ValueError("can_rewrite is true but answer is empty: write the answer")
        return self


class Decision(BaseModel):
    """The decider's verdict on a rewrite."""

    model_config = _FROZEN

    reasoning: str = Field(max_length=1200, description="One or two sentences.")
    decision: Literal["answer", "rewrite_again", "do_not_answer"] = Field(
        description="answer = send the rewrite; rewrite_again = try once more; "
        "do_not_answer = withhold any answer."
    )


ROLE_SCHEMAS: dict[str, type[BaseModel]] = {
    "semantic": SemanticReview,
    "contextual": ContextualReview,
    "suggester": Suggestions,
    "rewriter": Rewrite,
    "decider": Decision,
}
