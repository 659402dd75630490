"""The moderation input record: what a question/answer item looks like and how it is checked.

Records arrive in the production format (``id, question, answer, correct, feedback, locale,
intent{name, confidence}, context{title, …}, metadata[…], category``). Unknown fields are kept.
The labels (``correct``, ``feedback``) are for evaluation only: :func:`agent_view` builds what
the agents may see, and it never includes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from colmeia.errors import RecordError

__all__ = [
    "MAX_STRING_CHARS",
    "AgentView",
    "Intent",
    "ModerationItem",
    "agent_view",
    "parse_item",
]

# Longest string accepted in any field. Real answers are a few hundred characters and product
# descriptions a few thousand; anything this big is a broken export, and sending it to a model
# would only burn tokens.
MAX_STRING_CHARS = 20_000

# Generation bookkeeping in ``metadata`` that says nothing about the store's rules; sending it
# to the agents would only cost tokens (``inference`` repeats the answer under review).
_METADATA_NOISE = frozenset({"total_tokens", "cost", "model", "prompt", "inference"})


class Intent(BaseModel):
    """What the customer wants (classifier output)."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    confidence: float | None = None


class ModerationItem(BaseModel):
    """One customer question with the AI-written answer to review. Unknown fields are kept."""

    model_config = ConfigDict(extra="allow")

    id: int | str
    question: str
    answer: str
    correct: bool | None = None
    feedback: str | None = None
    locale: str | None = None
    intent: Intent | None = None
    context: dict[str, Any] = Field(default_factory=dict)
    metadata: list[dict[str, Any]] = Field(default_factory=list)
    category: str | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _id_is_scalar(cls, v: object) -> object:
        # bool is an int to Python; an id of ``true`` is a broken export, not record 1.
        if isinstance(v, bool) or not isinstance(v, int | str):
            raise ValueError("must be an integer or a string")
        if isinstance(v, str) and not v.strip():
            raise ValueError("must not be empty")
        return v

    @field_validator("question", "answer")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("is empty (only whitespace)")
        return v

    @property
    def key(self) -> str:
        """The id as text: how results refer to this record."""
        return str(self.id)


@dataclass(frozen=True, slots=True)
class AgentView:
    """What the agents may see of a record: no labels, no generation bookkeeping."""

    question: str
    answer: str
    locale: str
    intent: str
    category: str
    context: dict[str, Any]
    rules: list[dict[str, Any]]


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _dedupe_sentences(text: str) -> str:
    """Drop sentences repeated verbatim (exports often paste the spec sheet several times)."""
    if len(text) < 120:
        return text
    seen: set[str] = set()
    kept = []
    for sentence in _SENTENCE_END.split(text):
        norm = sentence.strip().casefold()
        if norm and norm not in seen:
            seen.add(norm)
            kept.append(sentence.strip())
    return " ".join(kept)


def agent_view(item: ModerationItem) -> AgentView:
    """The inputs for the agents. ``correct`` and ``feedback`` are left out on purpose."""
    rules = [
        kept
        for entry in item.metadata
        if (kept := {k: v for k, v in entry.items() if k not in _METADATA_NOISE})
    ]
    return AgentView(
        question=item.question,
        answer=item.answer,
        locale=item.locale or "",
        intent=item.intent.name if item.intent else "",
        category=item.category or "",
        context={
            k: _dedupe_sentences(v) if isinstance(v, str) else v for k, v in item.context.items()
        },
        rules=rules,
    )


def _strings(value: object, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            sub = f"{path}.{k}" if path else str(k)
            yield sub + " (key)", str(k)
            yield from _strings(v, sub)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}[{i}]")


def _text_problems(raw: dict[str, Any]) -> list[str]:
    """NUL bytes, lone surrogates and huge strings, anywhere in the record (keys too)."""
    problems: list[str] = []
    for path, text in _strings(raw, ""):
        if len(text) > MAX_STRING_CHARS:
            problems.append(
                f"{path}: string of {len(text):,} characters is longer than the "
                f"{MAX_STRING_CHARS:,} allowed"
            )
            continue
        if "\x00" in text:
            problems.append(f"{path}: contains a NUL byte (\\u0000)")
        if any("\ud800" <= ch <= "\udfff" for ch in text):
            problems.append(f"{path}: contains a lone UTF-16 surrogate (invalid Unicode)")
    return problems


_JSON_TYPES = {
    "NoneType": "null",
    "dict": "an object",
    "list": "an array",
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "a boolean",
}
_EXPECTED = {
    "string_type": "a string",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "list_type": "an array",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "float_type": "a number",
    "float_parsing": "a number",
    "int_type": "an integer",
}


def _describe(exc: ValidationError) -> list[str]:
    out = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err["loc"]) or "record"
        msg = str(err["msg"])
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        if err["type"] == "missing":
            msg = "required field is missing"
        elif err["type"] in _EXPECTED:
            got = type(err.get("input")).__name__
            msg = f"must be {_EXPECTED[err['type']]}, got {_JSON_TYPES.get(got, got)}"
        out.append(f"{where}: {msg}")
    return out


def parse_item(raw: object, where: str) -> ModerationItem:
    """Validate one decoded record; raise :class:`RecordError` naming ``where`` and every problem."""
    if not isinstance(raw, dict):
        raise RecordError(where, f"expected a JSON object, got {type(raw).__name__}")
    problems = _text_problems(raw)
    if problems:
        raise RecordError(where, "; ".join(problems) + " — fix the export and rerun")
    try:
        return ModerationItem.model_validate(raw)
    except ValidationError as exc:
        raise RecordError(where, "; ".join(_describe(exc))) from None
