"""Chat shorthand ("qnto", "qnd", "qm") is read as the words it stands for, by the turn's frame
and by the law's search alike."""

from __future__ import annotations

from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.rag_query import analyze_query
from colmeia.apps.assistant.shorthand import expand_shorthand


def test_shorthand_is_written_out_and_the_rest_left_as_typed() -> None:
    assert expand_shorthand("qnto tempo? e QND sai, qm decide?") == (
        "quanto tempo? e quando sai, quem decide?"
    )
    # a word that merely holds a form inside it stays: "quantidade", "tdah", "Cáceres-MT"
    assert expand_shorthand("a quantidade em Cáceres-MT") == "a quantidade em Cáceres-MT"


def test_how_long_typed_in_shorthand_asks_the_law_not_the_courts_file() -> None:
    # "qnto" is no "quanto" to the classifier's n-grams: read as typed, "um documento do
    # governo" made it a question about the court's own documents
    frame = read_frame("qnto tempo um documento do governo pode ficar em segredo")
    assert frame.intent == "law"


def test_a_deadline_asked_in_shorthand_is_a_deadline_to_the_search() -> None:
    assert analyze_query("qnto tempo eu tenho pra recorrer da multa?")["relation"] == "deadline"
    assert (
        analyze_query("qnd a lei entra em vigor?")["relation"]
        == analyze_query("quando a lei entra em vigor?")["relation"]
    )


def test_a_case_question_in_shorthand_keeps_its_case() -> None:
    frame = read_frame("qm é o relator do processo 1234/2024?")
    assert frame.intent == "case"
    assert frame.aspect == "rapporteur"
    assert [(r.number, r.year) for r in frame.cases] == [(1234, 2024)]
