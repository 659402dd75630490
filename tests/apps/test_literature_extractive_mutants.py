"""Reading a work without a model (:mod:`colmeia.apps.literature.extractive`), as its reader
expects: the work's own sentences without its title, headings or keywords line; the objective
from the earliest pages and the conclusion from the latest; fields cut at their word budgets;
and a relevance graded from how much of the question the passages hold, at the stated bars."""

from __future__ import annotations

import pytest

from colmeia.apps.literature.extractive import (
    RELEVANT_LEVELS,
    Evidence,
    body_sentences,
    extractive_fields,
    grade_relevance,
)
from colmeia.apps.literature.passage import Passage

# Five content words ("formaca", "continu", "professor", "inclusa", "escol").
QUESTION = "formação continuada de professores para a inclusão escolar"


def _words(n: int, word: str = "palavra") -> str:
    """A sentence of exactly ``n`` words, ending in a full stop."""
    return " ".join([word.capitalize()] + [word] * (n - 1)) + "."


# -- the work's own sentences ------------------------------------------------------------------


def test_the_title_line_is_left_out_whatever_its_case_accents_and_final_stop() -> None:
    text = "FORMACAO DOCENTE E GENERO.\nA escola ouviu docentes. Eles pedem apoio."
    assert body_sentences(text, "Formação docente e gênero") == [
        "A escola ouviu docentes.",
        "Eles pedem apoio.",
    ]


def test_a_title_line_printed_with_a_spaced_final_stop_is_left_out() -> None:
    # Text taken from a PDF often has a space before the punctuation.
    text = "Vozes docentes .\nA escola ouviu docentes."
    assert body_sentences(text, "Vozes docentes") == ["A escola ouviu docentes."]


def test_a_title_without_accents_is_left_out_too() -> None:
    text = "Vozes docentes\nA escola ouviu docentes."
    assert body_sentences(text, "Vozes docentes") == ["A escola ouviu docentes."]


def test_a_line_that_only_shares_the_titles_accents_is_kept() -> None:
    # Both lines have one "ç" and one "ã": a reader sees two different lines.
    text = "Formação docente\nEducação infantil\nA escola ouviu docentes."
    assert body_sentences(text, "Formação docente") == [
        "Educação infantil A escola ouviu docentes."
    ]


@pytest.mark.parametrize(
    "heading",
    [
        "RESUMO",
        "Abstract",
        "Resumen",
        "INTRODUÇÃO",
        "1 Introducao",
        "Objetivos",
        "2.1 Objetivo",
        "METODOLOGIA",
        "3. Métodos",
        "Resultados e discussão",
        "Discussão",
        "Conclusão",
        "5 CONCLUSÕES",
        "Considerações finais",
        "REFERÊNCIAS",
    ],
)
def test_a_heading_line_is_never_glued_to_the_sentence_after_it(heading: str) -> None:
    text = f"{heading}\nA escola ouviu vinte docentes. Eles pedem apoio."
    assert body_sentences(text) == ["A escola ouviu vinte docentes.", "Eles pedem apoio."]


def test_a_sentence_that_starts_like_a_heading_is_kept() -> None:
    text = "Resultados mostram que a escola ouviu docentes."
    assert body_sentences(text) == ["Resultados mostram que a escola ouviu docentes."]


@pytest.mark.parametrize(
    "keywords", ["Palavras-chave: escola; docentes.", "Keywords: school.", "Palabras clave: x."]
)
def test_the_keywords_line_is_left_out(keywords: str) -> None:
    text = f"A escola ouviu docentes.\n{keywords}\nEles pedem apoio."
    assert body_sentences(text) == ["A escola ouviu docentes.", "Eles pedem apoio."]


def test_the_lines_after_a_title_and_headings_are_all_read() -> None:
    text = (
        "Vozes docentes\n\nRESUMO\nA escola ouviu vinte docentes.\n"
        "Palavras-chave: escola.\nINTRODUÇÃO\nEles pedem (mais) apoio! "
        "“Falta tempo”, dizem. Será? Sim."
    )
    assert body_sentences(text, "Vozes docentes") == [
        "A escola ouviu vinte docentes.",
        "Eles pedem (mais) apoio!",
        "“Falta tempo”, dizem.",
        "Será?",
        "Sim.",
    ]


def test_a_passage_of_only_a_title_and_headings_has_no_sentences() -> None:
    assert body_sentences("Vozes docentes\nRESUMO\n\n", "Vozes docentes") == []


def test_sentences_are_split_only_before_a_capital_and_keep_their_spacing_tidy() -> None:
    text = "O índice subiu 2.5 vezes   em média.   Depois caiu, e. g. no fim\nsem   ponto final"
    assert body_sentences(text) == [
        "O índice subiu 2.5 vezes em média.",
        "Depois caiu, e. g. no fim sem ponto final",
    ]


# -- the fields: which passage, which sentences, how many words --------------------------------


def test_the_objective_comes_from_the_earliest_page_of_a_page_range() -> None:
    passages = [
        Passage("P1", "a", "O objetivo é descrever a rede.", "20-21"),
        Passage("P2", "b", "O objetivo é analisar a formação.", "9-30"),
        Passage("P3", "c", "Conclui-se que a formação falha.", "12-13"),
        Passage("P4", "d", "Os resultados mostram que a rede cresce.", "25-26"),
    ]
    _, objectives, conclusions, _, _ = extractive_fields(QUESTION, "", passages)
    assert objectives == objectives.model_copy(
        update={"text": "O objetivo é analisar a formação.", "passages": ["P2"]}
    )
    # The conclusion comes from the latest pages (25 against 12, ranges read by their start).
    assert conclusions.passages == ["P4"]
    assert conclusions.text == "Os resultados mostram que a rede cresce."


def test_a_page_not_in_digits_counts_as_the_first_page() -> None:
    # A front-matter page numbered "iii" comes before page 1 for the objectives, after it for
    # the conclusions.
    passages = [
        Passage("P1", "a", "O objetivo é descrever a rede. Conclui-se que falha.", "1"),
        Passage("P2", "b", "O objetivo é analisar a formação. Conclui-se que cresce.", "iii"),
    ]
    _, objectives, conclusions, _, _ = extractive_fields(QUESTION, "", passages)
    assert objectives.passages == ["P2"]
    assert conclusions.passages == ["P1"]


def test_the_full_text_comes_before_the_record_and_the_section_before_its_pages() -> None:
    passages = [
        Passage("P1", "a", "Vozes\nRESUMO\nO resumo do registro.", "", "resumo"),
        Passage("P2", "b", "Um trecho da página doze.", "12", "introdução"),
        Passage("P3", "c", "O resumo impresso na tese.", "30", "resumo"),
    ]
    summary, _, _, _, _ = extractive_fields(QUESTION, "Vozes", passages)
    assert summary.text == "O resumo impresso na tese."
    assert summary.passages == ["P3"]
    # Without the printed summary, the earliest full-text page before the record.
    summary, _, _, _, _ = extractive_fields(QUESTION, "Vozes", passages[:2])
    assert summary.passages == ["P2"]
    summary, _, _, _, _ = extractive_fields(QUESTION, "Vozes", passages[:1])
    assert (summary.text, summary.passages) == ("O resumo do registro.", ["P1"])


def test_a_field_the_work_does_not_state_is_said_not_informed() -> None:
    passages = [Passage("P1", "a", "A escola fica no centro da cidade.", "3")]
    summary, objectives, conclusions, _, _ = extractive_fields(QUESTION, "", passages)
    assert summary.text == "A escola fica no centro da cidade."
    assert (objectives.text, objectives.passages) == ("não informado", [])
    assert (conclusions.text, conclusions.passages) == ("não informado", [])


def test_only_sentences_that_state_an_objective_or_a_conclusion_fill_those_fields() -> None:
    text = (
        "A escola fica no centro. A pesquisa investiga a merenda. Visa ouvir as famílias. "
        "Os dados indicam falta de verba. Em suma, constata-se atraso."
    )
    _, objectives, conclusions, _, _ = extractive_fields(QUESTION, "", [Passage("P1", "a", text)])
    assert objectives.text == "A pesquisa investiga a merenda. Visa ouvir as famílias."
    assert conclusions.text == "Os dados indicam falta de verba. Em suma, constata-se atraso."


@pytest.mark.parametrize(
    ("sentence", "field"),
    [
        ("O trabalho propõe um curso.", "objectives"),
        ("O estudo busca entender a rede.", "objectives"),
        ("A autora pretende ouvir docentes.", "objectives"),
        ("O capítulo analisa os dados.", "objectives"),
        ("Temos como objetivo geral ouvir docentes.", "objectives"),
        ("Os achados mostram atraso.", "conclusions"),
        ("As entrevistas evidenciam atraso.", "conclusions"),
        ("O resultado foi atraso.", "conclusions"),
        ("A análise revela atraso.", "conclusions"),
        ("Os dados apontam atraso.", "conclusions"),
        ("A pesquisa demonstra atraso.", "conclusions"),
        ("Os docentes destacam atraso.", "conclusions"),
        ("Concluímos que há atraso.", "conclusions"),
    ],
)
def test_each_verb_of_an_objective_or_conclusion_is_recognised(sentence: str, field: str) -> None:
    passages = [Passage("P1", "a", f"A escola fica no centro. {sentence}", "5")]
    _, objectives, conclusions, _, _ = extractive_fields(QUESTION, "", passages)
    got = {"objectives": objectives, "conclusions": conclusions}
    assert got[field].text == sentence
    other = "conclusions" if field == "objectives" else "objectives"
    assert got[other].text == "não informado"


def test_the_summary_holds_whole_sentences_up_to_two_hundred_words() -> None:
    # 100 + 100 words fill the budget exactly; a third sentence would pass it.
    text = " ".join([_words(100), _words(100, "outra"), _words(3, "mais")])
    summary, _, _, _, _ = extractive_fields(QUESTION, "", [Passage("P1", "a", text)])
    assert summary.text == f"{_words(100)} {_words(100, 'outra')}"
    # 100 + 101 words pass it: the second sentence is left out, and nothing after it is taken.
    text = " ".join([_words(100), _words(101, "outra"), _words(3, "mais")])
    summary, _, _, _, _ = extractive_fields(QUESTION, "", [Passage("P1", "a", text)])
    assert summary.text == _words(100)


def test_the_objectives_and_conclusions_hold_up_to_a_hundred_words() -> None:
    obj = [_words(50, "visa"), _words(50, "analisa"), _words(3, "busca")]
    con = [_words(50, "mostra"), _words(50, "indica"), _words(3, "revela")]
    text = " ".join(obj + con)
    _, objectives, conclusions, _, _ = extractive_fields(QUESTION, "", [Passage("P1", "a", text)])
    assert objectives.text == f"{obj[0]} {obj[1]}"
    assert conclusions.text == f"{con[0]} {con[1]}"
    # 50 + 51 words pass the budget: the second sentence is left out.
    obj[1], con[1] = _words(51, "analisa"), _words(51, "indica")
    text = " ".join(obj + con)
    _, objectives, conclusions, _, _ = extractive_fields(QUESTION, "", [Passage("P1", "a", text)])
    assert objectives.text == obj[0]
    assert conclusions.text == con[0]


def test_the_objectives_come_from_their_own_section_first() -> None:
    passages = [
        Passage("P1", "a", "O capítulo analisa a rede.", "9", "introdução"),
        Passage("P2", "b", "O objetivo é ouvir docentes.", "14", "objetivos"),
        Passage("P3", "c", "Os dados mostram atraso.", "30", "resultados"),
        Passage("P4", "d", "As entrevistas indicam falta de apoio.", "20", "conclusões"),
    ]
    _, objectives, conclusions, _, _ = extractive_fields(QUESTION, "", passages)
    assert objectives.passages == ["P2"]
    assert conclusions.passages == ["P4"]


def test_a_first_sentence_longer_than_the_budget_is_cut_at_the_budget() -> None:
    text = _words(250)
    summary, objectives, _, _, _ = extractive_fields(QUESTION, "", [Passage("P1", "a", text)])
    assert summary.text == " ".join(text.split()[:200])
    text = _words(150, "visa")
    _, objectives, _, _, _ = extractive_fields(QUESTION, "", [Passage("P1", "a", text)])
    assert objectives.text.split() == text.split()[:100]


# -- the relevance: how much of the question the passages hold ---------------------------------


def _grade(*texts: str) -> tuple[str, Evidence]:
    return grade_relevance(
        QUESTION, [Passage(f"P{i}", "x", t) for i, t in enumerate(texts, start=1)]
    )


def test_alta_needs_four_fifths_of_the_question_and_three_fifths_in_one_passage() -> None:
    level, ev = _grade("A formação continuada de professores.", "A escola pública.")
    assert level == "alta"
    assert ev == Evidence(0.8, 0.6, ["P1", "P2"], ["inclusão"])
    assert level in RELEVANT_LEVELS


def test_four_fifths_spread_thinly_over_passages_is_only_media() -> None:
    level, ev = _grade("A formação continuada.", "Os professores e a escola.")
    assert level == "média"
    assert ev == Evidence(0.8, 0.4, ["P1", "P2"], ["inclusão"])
    assert level in RELEVANT_LEVELS


def test_three_fifths_in_one_passage_is_not_enough_for_alta() -> None:
    level, ev = _grade("A formação continuada de professores.")
    assert (level, ev.share, ev.best) == ("baixa", 0.6, 0.6)
    assert ev.missing == ["inclusão", "escolar"]


def test_the_bars_of_media_and_baixa_are_two_thirds_and_one_third() -> None:
    passage = [Passage("P1", "x", "A escola pública.")]
    level, ev = grade_relevance("escola pública e gênero", passage)
    assert (level, ev.share, ev.best) == ("média", 0.667, 0.667)
    assert "média" in RELEVANT_LEVELS
    level, ev = grade_relevance("escola gênero sexualidade", passage)
    assert (level, ev.share) == ("baixa", 0.333)
    assert level not in RELEVANT_LEVELS
    level, ev = grade_relevance("escola gênero sexualidade corpo", passage)
    assert (level, ev.share) == ("nenhuma", 0.25)
    assert ev.missing == ["gênero", "sexualidade", "corpo"]


def test_only_passages_that_bring_new_words_of_the_question_are_cited() -> None:
    level, ev = _grade(
        "A formação continuada.", "A formação continuada, de novo.", "Professores.", "Nada."
    )
    assert ev.cited == ["P1", "P3"]
    assert (level, ev.share, ev.best) == ("baixa", 0.6, 0.4)


def test_a_question_with_no_content_word_is_answered_by_nothing() -> None:
    assert _grade_question("o que é isso para a de") == ("nenhuma", Evidence(0.0, 0.0, [], []))


def _grade_question(question: str) -> tuple[str, Evidence]:
    return grade_relevance(question, [Passage("P1", "x", "O que é isso para a de.")])


def test_why_says_how_much_of_the_question_was_found_where_and_what_is_missing() -> None:
    passages = [
        Passage("P1", "a", "A formação continuada de professores.", "3"),
        Passage("P2", "b", "A escola pública.", "4"),
    ]
    *_, level, why = extractive_fields(QUESTION, "", passages)
    assert level == "alta"
    assert why == (
        "80% das palavras da pergunta aparecem nos trechos P1, P2; ausentes: inclusão "
        "(relevância estimada sem modelo)."
    )
    *_, level, why = extractive_fields("escola pública", "", passages)
    assert why == (
        "100% das palavras da pergunta aparecem nos trechos P2 (relevância estimada sem modelo)."
    )
    *_, level, why = extractive_fields("merenda na cantina", "", passages)
    assert level == "nenhuma"
    assert why == (
        "0% das palavras da pergunta aparecem nos trechos —; ausentes: merenda, cantina "
        "(relevância estimada sem modelo)."
    )
