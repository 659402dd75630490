"""Data generated from a JSON Schema is valid for it, deterministic, and Portuguese-looking."""

from __future__ import annotations

import datetime as dt
import random
import uuid
from enum import StrEnum
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, TypeAdapter, create_model

from colmeia.sim.schema_data import PORTUGUESE_WORDS, generate


class Color(StrEnum):
    """A plain enum (Pydantic puts it in $defs)."""

    AZUL = "azul"
    VERDE = "verde"


class Address(BaseModel):
    """A nested model."""

    street: str = Field(min_length=3, max_length=40)
    number: int = Field(gt=0, le=9999)
    complement: str | None = None


class Review(BaseModel):
    """Constraints of every kind a reviewer schema uses."""

    score: int = Field(ge=0, le=5)
    decision: Literal["keep", "rewrite", "withhold"]
    reasons: list[str] = Field(min_length=1, max_length=4)
    confidence: float = Field(gt=0.0, lt=1.0)
    color: Color
    address: Address
    others: list[Address] = Field(default_factory=list, max_length=3)
    tags: dict[str, int] = Field(default_factory=dict)
    note: Annotated[str, Field(max_length=12)] = ""
    when: dt.date
    ident: uuid.UUID
    flag: bool = False
    even: int = Field(multiple_of=2, ge=10, le=20)
    nothing: None = None


class Node(BaseModel):
    """A recursive model: generation must terminate."""

    name: str
    children: list[Node] = Field(default_factory=list)


@pytest.mark.parametrize("model", [Review, Address, Node])
def test_generated_data_validates_against_pydantic_models(model: type[BaseModel]) -> None:
    schema = model.model_json_schema()
    for seed in range(150):
        model.model_validate(generate(schema, random.Random(seed)))


def test_the_same_seed_gives_the_same_data_and_others_differ() -> None:
    schema = Review.model_json_schema()
    first = generate(schema, random.Random(42))
    assert generate(schema, random.Random(42)) == first
    assert any(generate(schema, random.Random(s)) != first for s in range(1, 5))


def test_strings_are_portuguese_words_within_their_lengths() -> None:
    schema = {"type": "string", "minLength": 5, "maxLength": 30}
    vocabulary = set(PORTUGUESE_WORDS)
    for seed in range(100):
        text = generate(schema, random.Random(seed))
        assert 5 <= len(text) <= 30
        assert any(word in vocabulary for word in text.split())


def test_optional_fields_are_sometimes_null_and_sometimes_filled() -> None:
    schema = TypeAdapter(int | None).json_schema()
    values = [generate(schema, random.Random(s)) for s in range(200)]
    assert None in values
    assert any(isinstance(v, int) for v in values)


@pytest.mark.parametrize(
    ("schema", "check"),
    [
        ({"const": "fixo"}, lambda v: v == "fixo"),
        ({"enum": [1, "dois", None]}, lambda v: v in (1, "dois", None)),
        ({"type": "integer", "exclusiveMinimum": 3, "exclusiveMaximum": 6}, lambda v: v in (4, 5)),
        ({"type": "number", "minimum": -1.5, "maximum": -1.0}, lambda v: -1.5 <= v <= -1.0),
        (
            {"type": "number", "multipleOf": 0.5, "minimum": 1, "maximum": 2},
            lambda v: v in (1, 1.5, 2),
        ),
        ({"type": ["string", "null"], "maxLength": 4}, lambda v: v is None or len(v) <= 4),
        ({"type": "string", "nullable": True, "format": "email"}, lambda v: v is None or "@" in v),
        (
            {"type": "string", "format": "date-time"},
            lambda v: dt.datetime.fromisoformat(v) is not None,
        ),
        (
            {
                "type": "array",
                "items": {"enum": ["a", "b", "c"]},
                "minItems": 3,
                "uniqueItems": True,
            },
            lambda v: sorted(v) == ["a", "b", "c"],
        ),
        (
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "boolean"}],
                "items": False,
            },
            lambda v: len(v) == 2 and isinstance(v[0], int) and isinstance(v[1], bool),
        ),
        (
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {"a": {"type": "integer"}},
            },
            lambda v: set(v) <= {"a"},
        ),
        (
            {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 3},
            lambda v: len(v) >= 3 and all(isinstance(x, int) for x in v.values()),
        ),
        (
            {
                "allOf": [
                    {"properties": {"a": {"type": "integer"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "boolean"}}, "required": ["b"]},
                ]
            },
            lambda v: isinstance(v["a"], int) and isinstance(v["b"], bool),
        ),
        (
            {"oneOf": [{"type": "integer", "minimum": 100}, {"type": "string", "maxLength": 3}]},
            lambda v: (isinstance(v, int) and v >= 100) or (isinstance(v, str) and len(v) <= 3),
        ),
        (
            {
                "$defs": {"Id": {"type": "integer", "minimum": 7, "maximum": 7}},
                "type": "object",
                "properties": {"id": {"$ref": "#/$defs/Id"}},
                "required": ["id"],
            },
            lambda v: v == {"id": 7},
        ),
        (
            {
                "definitions": {"S": {"type": "string", "minLength": 50}},
                "type": "array",
                "items": {"$ref": "#/definitions/S"},
                "minItems": 1,
            },
            lambda v: all(len(s) >= 50 for s in v),
        ),
        ({}, lambda v: isinstance(v, str)),
    ],
)
def test_each_keyword_is_honoured(schema: dict[str, Any], check: Any) -> None:
    for seed in range(40):
        value = generate(schema, random.Random(seed))
        assert check(value), (schema, value)


def test_required_properties_are_always_present() -> None:
    schema = {
        "type": "object",
        "properties": {name: {"type": "integer"} for name in "abcdef"},
        "required": ["a", "f"],
    }
    seen_optional = set()
    for seed in range(50):
        value = generate(schema, random.Random(seed))
        assert {"a", "f"} <= set(value)
        seen_optional |= set(value) - {"a", "f"}
    assert seen_optional == {"b", "c", "d", "e"}


# -- property: any model built from these parts gets valid data -----------------------------------


def _field_types() -> st.SearchStrategy[tuple[Any, Any]]:
    bounds = st.tuples(st.integers(-50, 50), st.integers(0, 30))
    ints = bounds.map(lambda b: (int, Field(ge=b[0], le=b[0] + b[1])))
    floats = bounds.map(lambda b: (float, Field(gt=b[0], lt=b[0] + b[1] + 1)))
    strs = bounds.map(
        lambda b: (str, Field(min_length=abs(b[0]) % 10, max_length=abs(b[0]) % 10 + b[1]))
    )
    literals = st.lists(st.sampled_from(PORTUGUESE_WORDS), min_size=1, max_size=4, unique=True).map(
        lambda words: (Literal[tuple(words)], ...)
    )
    lists = bounds.map(lambda b: (list[int], Field(min_length=b[1] % 3, max_length=b[1] % 3 + 2)))
    scalars = st.one_of(
        ints, floats, strs, literals, lists, st.just((bool, ...)), st.just((dict[str, bool], ...))
    )
    optionals = scalars.map(lambda t: (t[0] | None, t[1]))
    return st.one_of(scalars, optionals)


@st.composite
def _models(draw: st.DrawFn) -> type[BaseModel]:
    fields = {f"campo_{i}": draw(_field_types()) for i in range(draw(st.integers(1, 5)))}
    inner = create_model("Interno", **fields)
    outer = {f"fora_{i}": draw(_field_types()) for i in range(draw(st.integers(0, 3)))}
    return create_model(
        "Externo", interno=(inner, ...), varios=(list[inner], Field(max_length=2)), **outer
    )


@settings(max_examples=60, deadline=None)
@given(model=_models(), seed=st.integers(0, 2**32))
def test_any_model_from_these_parts_gets_valid_data(model: type[BaseModel], seed: int) -> None:
    model.model_validate(generate(model.model_json_schema(), random.Random(seed)))
