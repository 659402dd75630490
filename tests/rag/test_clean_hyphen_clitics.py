"""A line-end hyphen before "-los/-las" (or another clitic) is judged by the dictionary and the
document's own words: a broken plural or word re-joins ("mode-los" → "modelos"), a verb with
its clitic keeps the hyphen ("fazê-los"); a compound keeps its hyphen even when the word list
spells one of its parts the European way ("sócio-econômicas": the list has "económicas")."""

from __future__ import annotations

import pytest

from colmeia.rag.ingest.clean import clean_pages, join_lines
from colmeia.rag.ingest.wordlist import is_word
from colmeia.rag.types import Page


@pytest.mark.parametrize(
    ("lines", "word"),
    [
        (["os mode-", "los de formação docente"], "modelos"),
        (["nos capítu-", "los seguintes"], "capítulos"),
        (["nas esco-", "las públicas do estado"], "escolas"),
        (["as célu-", "las do tecido"], "células"),
        (["ape-", "nas três escolas"], "apenas"),
        (["é preciso fazê-", "los participar"], "fazê-los"),
        (["pode-", "se dizer que"], "pode-se"),
        (["para torná-", "la possível"], "torná-la"),
        (["condições sócio-", "econômicas das famílias"], "sócio-econômicas"),
    ],
)
def test_a_hyphen_before_a_clitic_is_judged_by_the_words_it_makes(
    lines: list[str], word: str
) -> None:
    (joined,) = join_lines(lines)
    assert word in joined.split()


def test_the_documents_own_word_re_joins_a_clitic_the_word_list_lacks() -> None:
    # "geraizeiros" (a people of the cerrado) is in no word list, and "-os" is a clitic: the
    # document writing the word whole elsewhere settles that the line end broke it.
    assert not is_word("geraizeiros")
    text = "os geraizeiros do norte de Minas vivem no cerrado.\n\nentre os geraizeir-\nos jovens"
    [page] = clean_pages([Page(1, text)])
    assert "entre os geraizeiros jovens" in page.text
    [page] = clean_pages([Page(1, "entre os geraizeir-\nos jovens")])
    assert "geraizeir-os" in page.text  # nothing says otherwise: the hyphen stays


def test_the_brazilian_spelling_of_a_stressed_e_or_o_before_m_or_n_is_a_word() -> None:
    assert is_word("econômicas") and is_word("acadêmico") and is_word("gênero")
    assert not is_word("econômicaz")
