"""A question about when a norm took effect is answered by that norm's own vigência clause when
the question names the norm — in every way people say it ("vale desde quando?", "já vale?") and
by every name (its number, its acronym, "LC 95") — and by no other norm's clause."""

from __future__ import annotations

from typing import Any

import pytest

from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.legal import law_key
from colmeia.apps.assistant.rag_query import analyze_query


@pytest.mark.parametrize(
    ("question", "law", "article"),
    [
        ("desde quando vale a lei 14.129?", "Lei 14.129/2021", "55"),
        ("a LC 95 entrou em vigor quando?", "Lei Complementar 95/1998", "19"),
        # red before: "desde quando" read as a case's aspect, and the person was asked "De
        # qual processo?" though no case was typed, pointed at or said; then the clause led
        # the ranking but was not quoted (Art. 24 was)
        ("a LAI vale desde quando?", "Lei 12.527/2011", "47"),
        ("a lgpd vale desde quando?", "Lei 13.709/2018", "65"),
    ],
)
async def test_the_named_norms_own_clause_answers_when_it_took_effect(
    assistant: Any, question: str, law: str, article: str
) -> None:
    bot = await assistant(None)
    result = await bot.ask("t", question)
    assert not result.waiting, result.answer
    cited = [(c["law"], c["article"]) for c in result.citations]
    # red before: "vale desde quando" was no vigência question, "LC 95" named no norm, and
    # another norm's clause came along
    assert cited[0] == (law, article), cited
    assert all(c_law == law for c_law, _ in cited), cited


def test_a_complementary_law_named_by_its_short_form_is_the_law_asked_about() -> None:
    assert analyze_query("a lc 95 entrou em vigor quando?")["filters"]["law_number"] == "95"
    frame = read_frame("a LC 95 entrou em vigor quando?")
    assert frame.names_a_law and [n.label() for n in frame.norms] == ["Lei Complementar 95"]


def test_a_norms_number_is_matched_whole_not_inside_a_year() -> None:
    # the vigência and scope clauses are picked by the norm's key (legal.law_key)
    norms = ["Lei Complementar 95/1998", "Lei 8.987/1995", "Lei 13.709/2018"]
    assert [n for n in norms if law_key(n) == "95"] == ["Lei Complementar 95/1998"]
    assert [n for n in norms if law_key(n) == "13709"] == ["Lei 13.709/2018"]


@pytest.mark.parametrize(
    "question",
    [
        "uma lei nova vale a partir de quando se ela nao fala nada sobre isso",
        "uma lei q acabou de sair ja vale no msm dia?",
    ],
)
async def test_a_question_about_laws_in_general_gets_the_general_rule_not_one_laws_clause(
    assistant: Any, question: str
) -> None:
    bot = await assistant(None)
    result = await bot.ask("t", question)
    cited = [(c["law"], c["article"]) for c in result.citations]
    # red before: one norm's own clause (the LGPD's Art. 65) or LINDB's transition rule (Art.
    # 23) answered; the rule for every law is LINDB's Art. 1 (45 days after publication)
    assert cited[0] == ("Decreto-Lei 4.657/1942", "1"), cited
    # the caput's rule first, not its § 3 on a text published again
    assert "quarenta e cinco dias" in result.answer.split("\n")[0], result.answer


def test_a_clause_quoted_as_a_formula_is_not_the_norms_own() -> None:
    from colmeia.apps.assistant.definitions import _own_clause

    # red before: LC 95 Art. 8 § 2 was taken for LC 95's own clause and led "a LC 95 entrou
    # em vigor quando?" before Art. 19
    assert not _own_clause(
        "As leis que estabeleçam período de vacância deverão utilizar a cláusula “esta lei "
        "entra em vigor após decorridos (o número de) dias de sua publicação oficial”."
    )
    assert _own_clause("Esta Lei Complementar entra em vigor no prazo de noventa dias.")


def test_only_clauses_on_laws_in_general_are_the_general_rule() -> None:
    from colmeia.apps.assistant.definitions import _GENERAL_IN_FORCE

    general = [
        "Salvo disposição contrária, a lei começa a vigorar em todo o país quarenta e cinco dias",
        "A vigência da lei será indicada de forma expressa e de modo a contemplar prazo razoável",
        "Se, antes de entrar a lei em vigor, ocorrer nova publicação de seu texto",
    ]
    one_norm_or_kind = [
        "Esta Lei entra em vigor na data de sua publicação.",
        "Fica prorrogada a vigência da Lei nº 9.311, de 24 de outubro de 1996",
        "o início da vigência da lei complementar a que se refere o art. 79",
        "A lei que alterar o processo eleitoral entrará em vigor na data de sua publicação",
        "Não se destinando à vigência temporária, a lei terá vigor até que outra a modifique",
    ]
    assert all(_GENERAL_IN_FORCE.search(t) for t in general)
    assert not any(_GENERAL_IN_FORCE.search(t) for t in one_norm_or_kind)
