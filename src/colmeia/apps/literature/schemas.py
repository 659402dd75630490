"""What a model must return for one work (validated, word limits enforced), and what a review
keeps per work. The model's JSON is checked by Pydantic; a violation goes back to the model
through the model layer's repair loop, so a call yields a valid analysis or a typed error."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, create_model, field_validator

from colmeia.llm.json_schema import inline_refs

__all__ = [
    "READING_MAX_CHARS",
    "READING_MAX_TOKENS",
    "RELEVANCE_LEVELS",
    "CitedText",
    "Relevance",
    "WorkAnalysis",
    "inline_refs",
    "reading_schema",
    "with_inlined_schema",
    "word_count",
]

Relevance = Literal["alta", "média", "baixa", "nenhuma"]
RELEVANCE_LEVELS: tuple[Relevance, ...] = ("alta", "média", "baixa", "nenhuma")
_PASSAGE_ID = re.compile(r"^P\d{1,3}$")


def word_count(text: str) -> int:
    """Words as a reader counts them (whitespace-separated)."""
    return len(text.split())


class CitedText(BaseModel):
    """A statement and the passages that support it."""

    text: str = Field(description="The statement, in Portuguese.")
    passages: list[str] = Field(
        default_factory=list, description='Ids of the supporting passages, e.g. ["P1", "P3"].'
    )

    @field_validator("passages", mode="before")
    @classmethod
    def _normalise(cls, value: object) -> object:
        if isinstance(value, str):  # "P1, P3" where a list was asked for
            value = [v for v in re.split(r"[,;\s]+", value) if v]
        if isinstance(value, list):
            return [v.strip().strip("[]").upper() if isinstance(v, str) else v for v in value]
        return value

    @field_validator("passages")
    @classmethod
    def _ids(cls, value: list[str]) -> list[str]:
        cleaned = [v.strip().strip("[]").upper() for v in value]
        bad = [v for v in cleaned if not _PASSAGE_ID.match(v)]
        if bad:
            raise ValueError(f"passage ids look like P1, P2…; got {bad}")
        return list(dict.fromkeys(cleaned))


def _limit(text: CitedText, words: int, name: str) -> CitedText:
    n = word_count(text.text)
    if n > words:
        raise ValueError(f"{name} has {n} words; the limit is {words}: shorten it")
    return text


class WorkAnalysis(BaseModel):
    """One work read against the review question."""

    summary: CitedText = Field(description="Summary of the work, at most 200 words.")
    objectives: CitedText = Field(description="The work's objectives, at most 100 words.")
    conclusions: CitedText = Field(description="Its conclusions or results, at most 100 words.")
    relevance: Relevance = Field(description="Relevance to the question: alta|média|baixa|nenhuma.")
    why: str = Field(description="Why that relevance, one or two sentences.")

    @field_validator("summary")
    @classmethod
    def _summary(cls, v: CitedText) -> CitedText:
        return _limit(v, 200, "summary")

    @field_validator("objectives")
    @classmethod
    def _objectives(cls, v: CitedText) -> CitedText:
        return _limit(v, 100, "objectives")

    @field_validator("conclusions")
    @classmethod
    def _conclusions(cls, v: CitedText) -> CitedText:
        return _limit(v, 100, "conclusions")

    @field_validator("relevance", mode="before")
    @classmethod
    def _level(cls, v: object) -> object:
        if isinstance(v, str):
            key = v.strip().lower()
            return {"media": "média", "medium": "média", "high": "alta", "low": "baixa"}.get(
                key, key
            )
        return v


#: Characters a guided model may write per field (``maxLength`` in the reading's JSON Schema):
#: ~80, ~50 and ~50 words, the why two short sentences. With the passage ids an ``enum`` and
#: ``maxItems`` the number given, the longest answer a grammar allows fits in
#: :data:`READING_MAX_TOKENS`, so a small model cannot ramble into the token limit and be asked
#: again with twice the room (what made one reading take many minutes on two cores).
READING_MAX_CHARS = {"summary": 560, "objectives": 360, "conclusions": 360, "why": 240}
#: Tokens that hold the longest answer the grammar allows (≈ 1,520 characters of text, at no
#: fewer than ~2.5 characters per token, plus the JSON around it).
READING_MAX_TOKENS = 800


M = TypeVar("M", bound=BaseModel)


def with_inlined_schema(model: type[M]) -> type[M]:
    """``model`` whose ``model_json_schema()`` is :func:`inline_refs` of Pydantic's, so what
    the model layer sends as the response format has no ``$ref`` for a server to skip."""
    pydantic_schema = model.model_json_schema

    def inlined(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return inline_refs(pydantic_schema(*args, **kwargs))

    model.model_json_schema = inlined  # type: ignore[method-assign]
    return model


def reading_schema(ids: Sequence[str]) -> type[WorkAnalysis]:
    """:class:`WorkAnalysis` whose JSON Schema allows only the passage ids given (``enum``,
    one to as many as given: a small model left free to cite nothing often does) and bounds every text field (``maxLength``:
    :data:`READING_MAX_CHARS`), so a model under a JSON grammar cannot cite a passage it was not
    shown nor write past :data:`READING_MAX_TOKENS`. Validation stays as lenient as
    :class:`CitedText` (an id not given is dropped and reported by the review, not a failed
    reading; the word limits are the dissertation's); the schema is what guides the model."""
    allowed = list(dict.fromkeys(ids))
    items: dict[str, Any] = {"type": "string", "enum": allowed} if allowed else {"type": "string"}
    bound: dict[str, Any] = {"items": items}
    if allowed:  # at least one citation (a "não informado" keeps none: see the review's check)
        bound["minItems"], bound["maxItems"] = 1, len(allowed)

    ids_said = "Ids of the supporting passages, only among: " + ", ".join(allowed)

    def cited(name: str) -> Any:
        return create_model(
            f"Cited{name.capitalize()}",
            __base__=CitedText,
            text=(
                str,
                Field(
                    description="The statement, in Portuguese.",
                    json_schema_extra={"maxLength": READING_MAX_CHARS[name]},
                ),
            ),
            passages=(
                list[str],
                Field(  # required: a guided model writes its citations, even an empty list
                    description=ids_said,
                    json_schema_extra=bound,
                ),
            ),
        )

    return with_inlined_schema(
        create_model(
            "WorkReading",
            __base__=WorkAnalysis,
            summary=(cited("summary"), Field(description="Summary of the work, at most 80 words.")),
            objectives=(
                cited("objectives"),
                Field(description="The work's objectives, at most 50 words."),
            ),
            conclusions=(
                cited("conclusions"),
                Field(description="Its conclusions or results, at most 50 words."),
            ),
            why=(
                str,
                Field(
                    description="Why that relevance, one or two short sentences.",
                    json_schema_extra={"maxLength": READING_MAX_CHARS["why"]},
                ),
            ),
        )
    )
