"""A slip of the fingers in a law question is read as the word the collection uses, before the
search: "recorer" finds what "recorrer" finds. A word of the language the collection lacks is
not a slip, and a slip two words explain alike stays as typed."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from colmeia.apps.assistant.query_spelling import (
    Spelling,
    _dump,
    _load,
    _one_slip_forms,
    spelling_for,
)
from colmeia.rag.expansion import packaged_questions
from colmeia.rag.pipeline import ingest
from colmeia.store import open_store

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
    "caminhao": 5000,
    "caminho": 2500,
    "contrato": 300,
    "contato": 200,
}


def language(words: Iterable[str]) -> dict[str, int]:
    return {w: LANGUAGE[w] for w in words if w in LANGUAGE}


def spelling(*texts: str) -> Spelling:
    return Spelling(Spelling.of(texts).counts, language=language)


def test_a_slip_is_read_as_the_collections_word() -> None:
    words = spelling("o prazo para recorrer", "o consumidor tem direito")
    assert words.mend("quanto tempo eu tenho pra recorer?") == "quanto tempo eu tenho pra recorrer?"
    assert words.mended_word("consmuidor") == "consumidor"  # two neighbours swapped
    assert words.mended_word("consumidro") == "consumidor"  # the last two swapped
    assert words.mended_word("consumidoor") == "consumidor"  # a letter too many
    assert words.mended_word("conzumidor") == "consumidor"  # a letter changed
    assert words.mended_word("onsumidor") == "consumidor"  # the first letter left out


def test_the_commonest_word_is_read_when_several_are_one_slip_away() -> None:
    # "caminao": "caminhão" (a letter left out) or "caminho" (one changed); the language
    # writes the first twice as often — clear enough; "camiao" is the collection's but no
    # word at all
    words = spelling("caminhao caminho camiao")
    assert words.mended_word("caminao") == "caminhao"


def test_a_slip_two_words_explain_alike_stays_as_typed() -> None:
    # "reltor": the collection has "reator", the language "relator" about as often
    assert spelling("o reator nuclear").mended_word("reltor") is None
    # "contrato" (300) is not twice "contato" (200): "contrto"? "contato" is one slip too
    assert spelling("contrato contato").mended_word("contrto") is None


def test_a_word_of_the_language_is_no_slip_even_one_letter_from_the_collections() -> None:
    words = spelling("alocar recursos", "o reator")
    assert words.mended_word("almocar") is None  # "almoçar", not "alocar"


def test_short_words_and_other_forms_stay() -> None:
    words = spelling("o prazo do recurso", "o consumidor")
    assert words.mended_word("praso") is None  # five letters: too many words one slip apart
    assert words.mended_word("praazo") == "prazo"  # six letters are mended, into five
    # another ending of a known word is a form of it, not a slip
    assert words.mended_word("recursa") is None
    assert words.mended_word("consumidorr") is None
    assert words.mended_word("consumido") is None


def test_without_a_word_list_nothing_is_mended() -> None:
    words = Spelling(Spelling.of(["o prazo para recorrer"]).counts, language=lambda _: None)
    assert words.mended_word("recorer") is None
    # the list there but silent on every form: the collection's word still mends the slip
    jargon = Spelling(Spelling.of(["usucapiao"]).counts, language=lambda _: {})
    assert jargon.mended_word("usucapaio") == "usucapiao"


def test_every_form_one_slip_away_and_not_the_word_itself() -> None:
    forms = _one_slip_forms("abc")
    assert "abc" not in forms
    assert {"bc", "ac", "ab"} <= forms  # a letter left out, the last one too
    assert {"bac", "acb"} <= forms  # neighbours swapped, the last two too
    assert {"xbc", "abx"} <= forms  # a letter changed, the last one too
    assert {"xabc", "abcx"} <= forms  # a letter added, at the end too
    assert all(abs(len(f) - 3) <= 1 for f in forms)


def test_the_known_words_are_the_collections_its_questions_and_the_turns(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("A zorbulina contábil da autarquia.", encoding="utf-8")
    (docs / "b.txt").write_text("Outra coleção fala da quimbrafa.", encoding="utf-8")
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    ingest(store, "leis", [docs / "a.txt"])
    ingest(store, "outra", [docs / "b.txt"])
    try:
        counts = spelling_for(store, "leis").counts
    finally:
        store.close()
    assert "zorbulina" in counts and "contabil" in counts  # the collection's, folded
    assert "quimbrafa" not in counts  # another collection's are not
    asked = next(iter(packaged_questions().values()))[0]
    assert all(w in counts for w in Spelling.of([asked]).counts)  # the shipped questions'
    assert "brasileirao" in counts  # a word only the turns the classifier learnt have
    assert not any(" " in w for w in counts)  # words, not word pairs


def test_the_known_words_are_kept_and_read_back_as_they_were() -> None:
    words = Spelling.of(["o prazo do recurso", "o prazo"])
    assert _load(_dump(words)).counts == {"o": 2, "prazo": 2, "do": 1, "recurso": 1}


def test_among_words_the_language_does_not_rank_the_collections_commonest_is_read() -> None:
    # "praxos": "pratos" or "prazos", neither in the word list; the collection says "pratos"
    # three times, "prazos" once
    words = Spelling(Spelling.of(["pratos pratos pratos prazos"]).counts, language=lambda _: {})
    assert words.mended_word("praxos") == "pratos"


def test_the_shipped_word_list_tells_words_from_slips() -> None:
    words = Spelling.of(["o prazo para recorrer", "o reator", "alocar"])  # the real list
    assert words.mended_word("recorer") == "recorrer"
    assert words.mended_word("almocar") is None
    assert words.mended_word("relator") is None
