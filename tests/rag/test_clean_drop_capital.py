"""A chapter's drop capital, which the extractor sets apart from its word ("E ste documento",
"N as comunidades", or the letter on a line of its own), is joined back; a one-letter word that
opens a paragraph ("E o texto", "A escola") is left alone."""

from __future__ import annotations

import pytest

from colmeia.rag.ingest.clean import clean_pages
from colmeia.rag.types import Page

REST = " apresenta a formação docente no Brasil e as suas políticas públicas."


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("E ste documento" + REST, "Este documento" + REST),
        ("E\nste documento" + REST, "Este documento" + REST),  # the letter on its own line
        ("O s professores" + REST, "Os professores" + REST),
        # A letter that is no word alone joins the next word even when that one is a word
        # too (Palatino's "N" beside "as comunidades…").
        ("N as comunidades" + REST, "Nas comunidades" + REST),
        ("D os professores" + REST, "Dos professores" + REST),
        ("E o documento" + REST, "E o documento" + REST),
        ("A escola" + REST, "A escola" + REST),
    ],
)
def test_a_drop_capital_is_joined_to_its_word(raw: str, clean: str) -> None:
    [page] = clean_pages([Page(1, raw)])
    assert page.text == clean


def test_a_letter_and_a_word_that_both_stand_alone_are_left_so_even_when_they_fuse() -> None:
    # "Afim" is a word too, but "A fim de" reads on: only a letter or a rest that is no word
    # alone is a drop capital's
    raw = "A fim de avaliar as escolas rurais, a equipe visitou todas as unidades."
    assert [p.text for p in clean_pages([Page(1, raw)])] == [raw]


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        # forty characters make a paragraph that can open a chapter
        ("E ste documento trata das escolas rurais", "Este documento trata das escolas rurais"),
        # a shorter line is a heading or a label, whatever its first letter
        ("E ste documento trata das escolas rurai", "E ste documento trata das escolas rurai"),
    ],
)
def test_a_drop_capital_opens_a_paragraph_of_forty_characters_or_more(raw: str, clean: str) -> None:
    assert [p.text for p in clean_pages([Page(1, raw)])] == [clean]


def test_a_drop_capital_joins_a_name_the_document_writes_elsewhere() -> None:
    opening = "J undiaí abriu três escolas rurais em 2019, todas de ensino fundamental."
    later = "As escolas de Jundiaí foram visitadas em março e em setembro de 2019."
    first, _ = clean_pages([Page(1, opening), Page(2, later)])
    assert first.text == "Jundiaí abriu três escolas rurais em 2019, todas de ensino fundamental."
    # a name of no dictionary, written nowhere else, is left as the extractor gave it
    [alone] = clean_pages([Page(1, opening)])
    assert alone.text == opening
