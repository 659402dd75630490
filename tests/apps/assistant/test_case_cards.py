"""The registry's answer rendered in Portuguese without a model: the card, the part of it a
follow-up asks for ("e as partes?"), a search's short list, and what a phrasing may say.

The evidence is what ``lookup_case`` returns; here it is written out so each rendered line can
be compared with the registry's own fields.
"""

from __future__ import annotations

from typing import Any

import pytest

from colmeia.apps.assistant.case_cards import (
    REGISTRY_DOWN,
    case_answer,
    case_card,
    evidence_cards,
    search_card,
)
from colmeia.apps.assistant.case_search import search_terms
from colmeia.apps.assistant.cases import check_case_answer

PROCESS: dict[str, Any] = {
    "status": "found",
    "kind": "process",
    "number": "TC/000032/2023",
    "typed": "tc 32/2023",
    "record": {
        "number": "TC/000032/2023",
        "filed_on": "2023-05-10",
        "unit": "Secretaria de Controle Externo",
        "case_class": "Representação",
        "subclass": "Licitação",
        "rapporteur": "Cons. Maria das Dores Silva",
        "status": "Em instrução",
        "location": "Gabinete do Relator",
        "subject": "Licitação de obras na Prefeitura de Anápolis",
    },
    "location": {
        "number": "TC/000032/2023",
        "location": "Gabinete do Relator",
        "since": "2024-02-01",
        "days": 1200,
        "status": "Em instrução",
        "last_movement": {
            "seq": 2,
            "at": "2024-02-01",
            "from_unit": "Secretaria de Controle Externo",
            "to_unit": "Gabinete do Relator",
            "description": "Remessa ao gabinete",
            "status": "",
        },
    },
    "parties": [
        {"name": "Prefeitura de Anápolis", "role": "Responsável"},
        {"name": "Construtora Boa Obra Ltda.", "role": "Representante"},
    ],
    "movements": [
        {
            "seq": 1,
            "at": "2023-05-10",
            "from_unit": "Protocolo",
            "to_unit": "Secretaria de Controle Externo",
            "description": "Autuação",
            "status": "",
        },
        {
            "seq": 2,
            "at": "2024-02-01",
            "from_unit": "Secretaria de Controle Externo",
            "to_unit": "Gabinete do Relator",
            "description": "Remessa ao gabinete",
            "status": "",
        },
    ],
    "documents": [{"seq": 1, "kind": "Parecer", "title": "Parecer técnico", "date": "2023-09-01"}],
}

EXPEDIENTE: dict[str, Any] = {
    "status": "found",
    "kind": "expediente",
    "number": "EXP-2024-00123",
    "typed": "exp 2024 123",
    "record": {
        "number": "EXP-2024-00123",
        "opened_on": "2024-03-04",
        "type": "Ofício",
        "origin_unit": "Ouvidoria",
        "subject": "Pedido de informação",
        "status": "Respondido",
        "location": "Arquivo",
        "process": "TC/000032/2023",
    },
    "location": None,
    "parties": [],
    "movements": [],
    "documents": [],
}

CARD = "\n".join(
    [
        "Processo TC/000032/2023 — Representação / Licitação",
        "Autuado em 10/05/2023 · Unidade técnica: Secretaria de Controle Externo · "
        "Relator: Cons. Maria das Dores Silva",
        "Situação atual: Em instrução",
        "Onde está: Gabinete do Relator, desde 01/02/2024 (há 1.200 dias)",
        "Última movimentação: 01/02/2024 — Remessa ao gabinete",
        "Assunto: Licitação de obras na Prefeitura de Anápolis",
        "Partes: Prefeitura de Anápolis (Responsável); Construtora Boa Obra Ltda. (Representante)",
    ]
)


def test_the_card_of_a_process_shows_every_field_of_the_registry() -> None:
    assert case_card(PROCESS) == CARD
    assert check_case_answer(CARD, [PROCESS]) == []


def test_the_card_of_an_expediente_names_its_type_origin_and_process() -> None:
    assert case_card(EXPEDIENTE) == "\n".join(
        [
            "Expediente EXP-2024-00123 — Ofício",
            "Aberto em 04/03/2024 · Origem: Ouvidoria",
            "Vinculado ao processo TC/000032/2023",
            "Situação atual: Respondido",
            "Assunto: Pedido de informação",
        ]
    )


def test_a_card_shows_what_a_registry_behind_http_did_say() -> None:
    sparse = {"status": "found", "kind": "process", "number": "TC/000001/2020", "record": {}}
    assert case_card(sparse) == "\n".join(
        [
            "Processo TC/000001/2020 — ",
            "Autuado em  · Unidade técnica:  · Relator: ",
            "Situação atual: ",
        ]
    )
    no_movement = {**PROCESS, "location": {**PROCESS["location"], "last_movement": None}}
    assert "Última movimentação" not in case_card(no_movement)
    assert "(há 0 dias)" in case_card({**PROCESS, "location": {"location": "X", "since": "?"}})


def test_not_found_invalid_and_unavailable_have_their_own_sentences() -> None:
    assert case_card({"status": "not_found", "kind": "expediente", "number": "EXP-2024-00999"}) == (
        "Não encontrei o expediente EXP-2024-00999 no cadastro. Confira o número (formato "
        "EXP-AAAA-XXXXX); se ele estiver correto, o caso pode não estar registrado neste sistema."
    )
    assert "(formato TC/XXXXXX/AAAA)" in case_card(
        {"status": "not_found", "kind": "process", "number": "TC/000999/2024"}
    )
    invalid = {"status": "invalid", "message": "“TC 12/24” não é um número válido."}
    assert (
        case_card(invalid)
        == "“TC 12/24” não é um número válido. Confira o número e envie novamente."
    )
    assert case_card({"status": "unavailable", "message": ""}) == REGISTRY_DOWN
    assert case_card({"status": "unavailable", "message": "timeout"}) == "timeout"


@pytest.mark.parametrize(
    ("aspect", "expected"),
    [
        (
            "parties",
            "Partes do processo TC/000032/2023: Prefeitura de Anápolis (Responsável); "
            "Construtora Boa Obra Ltda. (Representante)",
        ),
        (
            "since",
            "Processo TC/000032/2023 — onde está: Gabinete do Relator, desde 01/02/2024 "
            "(há 1.200 dias). Situação atual: Em instrução",
        ),
        (
            "location",
            "Processo TC/000032/2023 — onde está: Gabinete do Relator, desde 01/02/2024 "
            "(há 1.200 dias). Situação atual: Em instrução",
        ),
        ("rapporteur", "Processo TC/000032/2023 — Relator: Cons. Maria das Dores Silva"),
        (
            "status",
            "Processo TC/000032/2023 — Situação atual: Em instrução; onde está: Gabinete do "
            "Relator, desde 01/02/2024",
        ),
        (
            "movements",
            "Últimas movimentações do processo TC/000032/2023:\n"
            "- 10/05/2023 — Autuação (Secretaria de Controle Externo)\n"
            "- 01/02/2024 — Remessa ao gabinete (Gabinete do Relator)",
        ),
        (
            "subject",
            "Processo TC/000032/2023 — Assunto: Licitação de obras na Prefeitura de Anápolis",
        ),
        ("class", "Processo TC/000032/2023 — Classe: Representação / Licitação"),
        ("weather", CARD),
        (None, CARD),
    ],
)
def test_a_follow_up_gets_the_part_of_the_card_it_asks_for(
    aspect: str | None, expected: str
) -> None:
    answer = case_answer(PROCESS, aspect)
    assert answer == expected
    assert check_case_answer(answer, [PROCESS]) == []


def test_a_follow_up_about_something_the_registry_did_not_give_gets_the_whole_card() -> None:
    assert case_answer(EXPEDIENTE, "parties") == case_card(EXPEDIENTE)
    assert case_answer(EXPEDIENTE, "movements") == case_card(EXPEDIENTE)
    assert case_answer(EXPEDIENTE, "since") == case_card(EXPEDIENTE)
    assert case_answer(EXPEDIENTE, "rapporteur") == case_card(EXPEDIENTE)
    assert case_answer(EXPEDIENTE, "class") == case_card(EXPEDIENTE)
    assert case_answer(EXPEDIENTE, "status") == (
        "Expediente EXP-2024-00123 — Situação atual: Respondido"
    )
    assert (
        case_answer(EXPEDIENTE, "subject")
        == "Expediente EXP-2024-00123 — Assunto: Pedido de informação"
    )
    no_subject = {**PROCESS, "record": {**PROCESS["record"], "subject": "", "subclass": ""}}
    assert case_answer(no_subject, "subject") == case_card(no_subject)
    assert case_answer(no_subject, "class") == "Processo TC/000032/2023 — Classe: Representação"
    not_found = {"status": "not_found", "kind": "process", "number": "TC/000999/2024"}
    assert case_answer(not_found, "parties") == case_card(not_found)


def test_every_lookup_of_a_turn_is_one_card_each_in_order() -> None:
    cards = evidence_cards(
        [PROCESS, EXPEDIENTE, PROCESS, {"status": "invalid", "typed": "x", "message": "m."}]
    )
    assert cards == "\n\n".join(
        [CARD, case_card(EXPEDIENTE), "m. Confira o número e envie novamente."]
    )


def test_a_search_lists_the_cases_found_or_says_none_was() -> None:
    found = {
        "status": "search",
        "query": "obras em Anápolis",
        "total": 7,
        "cases": [
            {
                "kind": "process",
                "number": "TC/000032/2023",
                "subject": "Obras",
                "status": "Em instrução",
            },
            {
                "kind": "expediente",
                "number": "EXP-2024-00123",
                "subject": "",
                "type": "Ofício",
                "status": "Respondido",
            },
        ],
    }
    assert (
        case_card(found)
        == search_card(found)
        == (
            "Encontrei 7 casos no cadastro sobre “obras em Anápolis”:\n"
            "1. Processo TC/000032/2023 — Obras (Em instrução)\n"
            "2. Expediente EXP-2024-00123 — Ofício (Respondido)"
        )
    )
    # without a total, the cases listed are counted
    assert search_card({"status": "search", "query": "q", "cases": found["cases"]}).startswith(
        "Encontrei 2 casos no cadastro sobre “q”:"
    )
    assert search_card({"status": "search", "query": "barragem", "cases": []}) == (
        "Não encontrei no cadastro nenhum processo ou expediente sobre “barragem”. "
        "Se tiver o número (TC/XXXXXX/AAAA ou EXP-AAAA-XXXXX), envie-o; ou descreva de "
        "outra forma (assunto, unidade, parte ou relator)."
    )


def test_the_words_worth_searching_leave_out_stop_words_short_words_and_numbers() -> None:
    assert search_terms("Quero saber do processo sobre a Construtora Boa Obra Ltda. de 2023") == [
        "Construtora",
        "Boa",
        "Obra",
        "Ltda",
    ]
    assert search_terms("obra obra OBRA") == ["obra", "OBRA"]
    assert search_terms("o de em 12 345") == []
