"""A slip of the fingers in a law question is read as the word the collection uses, before the
search: "recorer" finds what "recorrer" finds. A word of the language the collection lacks is
not a slip, and a slip two words explain alike stays as typed."""

from __future__ import annotations

from collections.abc import Iterable

from colmeia.apps.assistant.query_spelling import Spelling
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.store import Store

# a small stand-in for the language's word list: word → how common it is
LANGUAGE = {
    "recorrer": 9000,
    "recurso": 8000,
    "consumidor": 5000,
    "almocar": 6000,
    "alocar": 400,
    "relator": 50,
    "reator": 80,
    "prazo": 3000,
}


def language(words: Iterable[str]) -> dict[str, int]:
    return {w: LANGUAGE[w] for w in words if w in LANGUAGE}


def spelling(*texts: str) -> Spelling:
    return Spelling(Spelling.of(texts).counts, language=language)


def test_a_slip_is_read_as_the_collections_word() -> None:
    words = spelling("o prazo para recorrer", "o consumidor tem direito")
    assert words.mend("quanto tempo eu tenho pra recorer?") == "quanto tempo eu tenho pra recorrer?"
    # a letter missing, one extra, two swapped
    assert words.mended_word("consmuidor") == "consumidor"
    assert words.mended_word("consumidoor") == "consumidor"


def test_a_word_of_the_language_is_no_slip_even_one_letter_from_the_collections() -> None:
    words = spelling("alocar recursos", "o reator")
    assert words.mended_word("almocar") is None  # "almoçar", not "alocar"


def test_a_slip_two_words_explain_alike_stays_as_typed() -> None:
    # "reltor": the collection has "reator", the language "relator" just as often
    words = spelling("o reator nuclear")
    assert words.mended_word("reltor") is None


def test_short_words_and_other_forms_stay() -> None:
    words = spelling("o prazo do recurso")
    assert words.mended_word("praso") is None  # five letters: too many words one slip apart
    assert words.mended_word("recursa") is None  # another ending: a form, not a slip


def test_without_a_word_list_nothing_is_mended() -> None:
    words = Spelling(Spelling.of(["o prazo para recorrer"]).counts, language=lambda _: {})
    assert words.mended_word("recorer") is None


async def test_a_question_with_a_slip_reaches_the_article_the_right_word_reaches(
    laws_store: Store,
) -> None:
    pipeline = RagPipeline(laws_store, "leis")
    typed = await pipeline.run("qual o prazo para interpor recuros administrativo?")
    right = await pipeline.run("qual o prazo para interpor recurso administrativo?")
    assert typed["citations"][0]["label"] == right["citations"][0]["label"]
    assert right["citations"][0]["article"] == "59"
