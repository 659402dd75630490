"""The registry-facts check: every case number, date, day count and rapporteur a phrased answer
states must come from the registry's answer, and each one that does not is named.

The evidence is what ``lookup_case`` returns (nested record, location and movements).
"""

from __future__ import annotations

from typing import Any

from colmeia.apps.assistant.cases import check_case_answer

FOUND: dict[str, Any] = {
    "status": "found",
    "kind": "process",
    "number": "TC/000032/2023",
    "record": {"subject": "Licitação de obras", "rapporteur": "Maria das Dores Silva"},
    "location": {"location": "Gabinete do Relator", "since": "2024-02-01", "days": 1200},
    "movements": [
        {"date": "2023-05-10", "event": "Autuação"},
        {"date": "2024-02-01", "event": "Remessa ao gabinete"},
    ],
    "urgent": True,
}


def test_facts_from_anywhere_in_the_registry_answer_pass() -> None:
    answer = (
        "O processo TC/000032/2023, da Cons. Maria das Dores Silva, foi autuado em 10/05/2023 "
        "e está no Gabinete do Relator desde 2024-02-01, há 1.200 dias."
    )
    assert check_case_answer(answer, [FOUND]) == []


def test_each_invented_fact_is_named() -> None:
    answer = (
        "Autuado em 2023-05-11, está lá desde 02/02/2024, há 1201 dias, com o Min. Júlio Prates."
    )
    assert check_case_answer(answer, [FOUND]) == [
        "date 02/02/2024 is not in the registry's answer",
        "date 2023-05-11 is not in the registry's answer",
        "1201 days is not in the registry's answer",
        "'Min. Júlio Prates' is not in the registry's answer",
        "the name 'Júlio Prates' is not in the registry's answer",
    ]


def test_an_impossible_date_is_named_and_the_next_dates_are_still_checked() -> None:
    answer = "Entrou em 31/02/2024 e saiu em 05/05/2024."
    assert check_case_answer(answer, [FOUND]) == [
        "31/02/2024 is not a date",
        "date 05/05/2024 is not in the registry's answer",
    ]


def test_a_yes_no_field_is_not_a_day_count() -> None:
    # "urgent": True must not make "1 dia(s)" look backed by the registry
    assert check_case_answer("Está parado há 1 dias.", [FOUND]) == [
        "1 days is not in the registry's answer"
    ]


NOT_FOUND = {"status": "not_found", "kind": "process", "number": "TC/999999/2020"}


def test_when_nothing_was_found_any_detail_is_invented_and_saying_so_is_fine() -> None:
    assert check_case_answer("Está no gabinete desde 01/02/2024.", [NOT_FOUND]) == [
        "date 01/02/2024 is not in the registry's answer",
        "nothing was found, so the answer may not describe a case",
    ]
    assert check_case_answer("Não encontrei o processo TC/999999/2020.", [NOT_FOUND]) == []
    # a registry answer with dates but not found (a search listing) still flags a description
    listing = {"status": "not_found", "searched": "2024-02-01"}
    assert check_case_answer("O processo foi autuado.", [listing]) == [
        "'autuado' is not in the registry's status or movements",
        "nothing was found, so the answer may not describe a case",
    ]
