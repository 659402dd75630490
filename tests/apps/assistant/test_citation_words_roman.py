"""A roman numeral mends only "inciso": articles, paragraphs and alíneas are numbered in
figures or letters, so a word one slip from "artigo" before "iv" is read as typed (it may be a
name, an abbreviation, anything), while "incisso iv" is the inciso."""

from __future__ import annotations

import pytest

from colmeia.apps.assistant.citation_words import mend_citation_words


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("o artiog iv da constituição", "o artiog iv da constituição"),
        ("o paragarfo ii do texto", "o paragarfo ii do texto"),
        ("o artiog 4 da constituição", "o artigo 4 da constituição"),
        ("o inciso ii e o incisso iv", "o inciso ii e o inciso iv"),
    ],
)
def test_before_a_roman_numeral_only_inciso_is_mended(typed: str, read: str) -> None:
    assert mend_citation_words(typed) == read
