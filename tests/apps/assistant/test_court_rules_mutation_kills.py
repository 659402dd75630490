"""The court-rules helpers one rule at a time: which question counts as procedural, which case of
the thread a state or municipal court judges (and how the warning names it), the warning's exact
words, and whose norm each kind of citation label quotes."""

from __future__ import annotations

from typing import Any

import pytest

from colmeia.apps.assistant.court_rules import (
    court_rules_note,
    is_procedural,
    local_case,
    source_kind,
)

HEAD = (
    "Atenção: o processo TC/000032/2023 é de um tribunal de contas estadual ou municipal. "
    "Prazos e procedimentos seguem a lei orgânica e o regimento interno desse tribunal, que "
    "podem ser diferentes da regra federal citada abaixo (lei federal, Lei 9.784/1999)."
)


def found(**fields: Any) -> dict[str, Any]:
    """A case the registry found: a process with a federal party, unless ``fields`` say other."""
    fact: dict[str, Any] = {
        "status": "found",
        "kind": "process",
        "number": "TC/000032/2023",
        "record": {"subject": "merenda escolar"},
        "parties": [{"name": "Ministério da Saúde", "role": "responsável"}],
    }
    return fact | fields


@pytest.mark.parametrize(
    "question",
    ["Qual o PRAZO pra eu recorrer?", "cabe revisão dessa decisão?", "fui citada, e agora?"],
)
def test_a_deadline_or_procedure_question_is_procedural_whatever_its_case_and_accents(
    question: str,
) -> None:
    """The question's own words make it procedural, even when the analysis names no relation."""
    assert is_procedural(question, "")


def test_a_question_on_substance_is_not_procedural_unless_the_analysis_says_deadline() -> None:
    """Without procedural words only the analysis' "deadline" relation makes it procedural."""
    question = "o que a prefeitura deve observar na merenda escolar?"
    assert not is_procedural(question, "")
    assert not is_procedural(question, "obligation")
    assert is_procedural(question, "deadline")


def test_a_case_not_found_does_not_hide_the_state_case_after_it() -> None:
    """The thread's first case was not found; the second, a municipality's, is the one named."""
    facts = [
        {"status": "not_found", "number": "TC/000001/2020"},
        found(parties=[{"name": "Prefeitura Municipal de Fazenda Velha", "role": "responsável"}]),
    ]
    assert local_case(facts) == "o processo TC/000032/2023 (Prefeitura Municipal de Fazenda Velha)"


def test_a_state_body_named_only_in_the_record_makes_the_case_local() -> None:
    """The record (with its accents as written) shows the municipality; no party is one, so the
    case is named without a body in parentheses."""
    fact = found(record={"órgão": "Município de São José", "subject": "obras"})
    assert local_case([fact]) == "o processo TC/000032/2023"


def test_an_expediente_is_named_as_an_expediente() -> None:
    """A found expediente of a municipal body is called "o expediente", not "o processo"."""
    fact = found(
        kind="expediente",
        number="EXP/000123/2024",
        parties=[
            {"role": "interessado"},
            {"name": "Câmara Municipal de Fazenda Velha", "role": "interessado"},
        ],
    )
    assert local_case([fact]) == "o expediente EXP/000123/2024 (Câmara Municipal de Fazenda Velha)"


def test_a_federal_case_with_a_nameless_party_is_not_local() -> None:
    """A party without a name and a federal record: no state court, no warning."""
    fact = found(parties=[{"role": "interessado"}], record={})
    assert local_case([fact]) == ""


def test_without_the_courts_norms_the_note_says_where_they_would_be() -> None:
    """The warning, word for word, when the court's collection holds nothing for the question."""
    note = court_rules_note("o processo TC/000032/2023", [], "normas-tribunal")
    assert note == (
        f"{HEAD} As normas do próprio tribunal não estão entre os documentos consultados "
        "(coleção 'normas-tribunal'): confira-as antes de contar um prazo."
    )


def test_the_courts_norms_are_quoted_one_after_the_other_as_the_courts() -> None:
    """Each of the court's dispositivos is quoted with its citation, separated by one space."""
    court = [
        ("Regimento Interno do TCE-EX, Art. 41", "O recurso será interposto em vinte dias."),
        ("Regimento Interno do TCE-EX, Art. 42", "O recurso terá efeito suspensivo."),
    ]
    note = court_rules_note("o processo TC/000032/2023", court, "normas-tribunal")
    assert note == (
        f"{HEAD} Segundo as normas do próprio tribunal: "
        "«O recurso será interposto em vinte dias.» (Regimento Interno do TCE-EX, Art. 41, "
        "norma do tribunal). "
        "«O recurso terá efeito suspensivo.» (Regimento Interno do TCE-EX, Art. 42, "
        "norma do tribunal)."
    )


@pytest.mark.parametrize(
    ("label", "doc_type", "kind"),
    [
        # the Constitution by its label alone, by the ADCT, or by its name
        ("CF/88, Art. 5º", "", "Constituição Federal"),
        ("ADCT, Art. 19", "", "Constituição Federal"),
        ("Constituição Federal, Art. 37", "", "Constituição Federal"),
        # case law by its type alone, or by a label that starts as case law does
        ("TCU, Plenário, 1234/2019", "Jurisprudência", "jurisprudência"),
        ("Acórdão 1234/2019-Plenário", "", "jurisprudência"),
        ("Súmula TCU 272", "", "jurisprudência"),
        # the court's own norms by any one of their marks
        ("Regimento Interno do TCE-SP, Art. 10", "markdown", "norma do tribunal"),
        ("Resolução do Tribunal 12/2020, Art. 3", "markdown", "norma do tribunal"),
        ("Instrução Normativa do TCE-EX (exemplo fictício), Art. 2", "", "norma do tribunal"),
        # anything else is not named
        ("Manual de auditoria, capítulo 2", "markdown", ""),
    ],
)
def test_each_kind_of_label_says_whose_norm_it_quotes(label: str, doc_type: str, kind: str) -> None:
    """Whose norm a citation quotes, from each of the marks that tell it on their own."""
    assert source_kind(label, doc_type) == kind
