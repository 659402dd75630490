"""The generation judge on a small model: its passage ids are limited by the JSON Schema to
those given, its relevance score is read however a small model writes it, and a query it
cannot judge says which step failed."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from colmeia.apps.literature.generation import (
    _JUDGE_MAX_TOKENS,
    JUDGE_CLAIM_CHARS,
    JUDGE_MAX_CLAIMS,
    READING_FIELDS,
    Judgement,
    judgement_schema,
)


def test_the_judge_schema_allows_only_the_passages_given() -> None:
    schema = judgement_schema(["P1", "P2"])
    text = json.dumps(schema.model_json_schema())
    assert '"enum": ["P1", "P2"]' in text
    ok = schema.model_validate(
        {"passages": [{"id": "P2", "relevant": True}], "claims": [], "answer_relevance": 3}
    )
    assert isinstance(ok, Judgement)
    with pytest.raises(ValidationError):
        schema.model_validate(
            {"passages": [{"id": "P7", "relevant": True}], "claims": [], "answer_relevance": 3}
        )


def test_the_judge_schema_bounds_what_a_guided_judge_can_write() -> None:
    """One verdict per passage given, a few short claims: the longest judgement a grammar allows
    fits in the judge's token limit, so a small judge cannot list claims until it is cut off."""
    schema = judgement_schema(["P1", "P2", "P3"]).model_json_schema()
    assert schema["properties"]["passages"]["maxItems"] == 3
    assert schema["properties"]["claims"]["maxItems"] == JUDGE_MAX_CLAIMS
    claim = schema["properties"]["claims"]["items"]["properties"]["claim"]
    assert claim["maxLength"] == JUDGE_CLAIM_CHARS
    longest = 3 * len('{"id": "P1", "relevant": false}, ') + JUDGE_MAX_CLAIMS * (
        JUDGE_CLAIM_CHARS + len('{"claim": "", "supported": false}, ')
    )
    assert longest / 2.5 < _JUDGE_MAX_TOKENS  # at no fewer than ~2.5 characters per token


@pytest.mark.parametrize(("written", "read"), [("2", 2), (2.0, 2), (4, 3), ("-1", 0), (1, 1)])
def test_the_relevance_score_is_read_as_small_models_write_it(written: object, read: int) -> None:
    j = Judgement.model_validate({"passages": [], "claims": [], "answer_relevance": written})
    assert j.answer_relevance == read


def test_a_relevance_that_is_no_number_is_refused() -> None:
    with pytest.raises(ValidationError):
        Judgement.model_validate({"passages": [], "claims": [], "answer_relevance": "alta"})


def test_the_judge_rates_every_field_of_the_answer_it_is_given_and_each_rating_is_checked() -> None:
    schema = judgement_schema(["P1"], ["summary", "objectives"])
    fields = schema.model_json_schema()["properties"]["fields"]
    assert fields["required"] == ["summary", "objectives"]
    assert fields["properties"]["summary"]["enum"] == [0, 1, 2, 3]
    base = {"passages": [], "claims": [], "answer_relevance": 2}
    j = schema.model_validate({**base, "fields": {"summary": "3", "objectives": 4.0}})
    assert j.fields == {"summary": 3, "objectives": 3}  # read as small models write them
    with pytest.raises(ValidationError, match=r"fields\.objectives"):
        schema.model_validate({**base, "fields": {"summary": 1}})  # a field left unrated
    with pytest.raises(ValidationError, match=r"fields\.summary"):
        schema.model_validate({**base, "fields": {"summary": "alta", "objectives": 1}})
    # Without fields (an answer the reader left all "não informado") nothing is asked.
    assert "fields" not in judgement_schema(["P1"]).model_json_schema()["required"]


def test_the_reading_fields_are_the_cited_fields_of_a_reading() -> None:
    assert READING_FIELDS == ("summary", "objectives", "conclusions")
