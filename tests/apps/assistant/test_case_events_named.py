"""A question that names an event of a case — its filing, its archiving, the MP's opinion —
is answered from that event's own row with its date, whatever aspect the turn was read as: the
registry records when the case was filed even when the classifier takes "quando ele foi
autuado?" for a question on the judgment.

The registry is the small fictitious one of ``data/registry_para``; no model (offline)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from registry_sets_helpers import PARA, PARA_AS_OF

from colmeia.apps.assistant.case_aspects import events_named
from colmeia.apps.assistant.registry_io import import_registry
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.session import Assistant, open_assistant
from colmeia.store import Store

CASE: dict[str, Any] = {
    "movements": [
        {"at": "2023-09-02", "description": "Encaminhado para parecer do Ministério Público"},
        {"at": "2023-03-20", "description": "Encaminhado para instrução técnica"},
        {"at": "2023-03-14", "description": "Autuação do processo"},
    ],
    "documents": [
        {
            "kind": "Parecer do MPC",
            "title": "Parecer do Ministério Público de Contas",
            "date": "2024-02-10",
        },
        {"kind": "Acórdão", "title": "Acórdão 812/2024", "date": "2024-06-11"},
    ],
}


def test_an_event_named_in_another_form_of_its_word_is_found_with_its_date() -> None:
    # "autuado" and "Autuação" stem apart ("autu", "autuaca"): one begins the other
    assert events_named("quando ele foi autuado", CASE) == ["14/03/2023 — Autuação do processo"]
    assert events_named("e o acordao saiu com qual numero?", CASE) == [
        "11/06/2024 — Acórdão 812/2024"
    ]


def test_the_movement_and_the_document_of_one_event_both_answer_newest_first() -> None:
    assert events_named("o parecer do mp ja saiu?", CASE) == [
        "10/02/2024 — Parecer do Ministério Público de Contas",
        "02/09/2023 — Encaminhado para parecer do Ministério Público",
    ]


def test_the_words_describing_the_case_itself_name_no_event() -> None:
    # "merenda" is the case's subject: the question names the case, not its representation
    case = {
        **CASE,
        "record": {"subject": "Irregularidades no fornecimento de merenda escolar"},
        "documents": [
            {
                "kind": "Representação",
                "title": "Representação sobre a merenda escolar",
                "date": "2023-03-14",
            }
        ],
    }
    assert events_named("o processo da merenda escolar, como ta?", case) == []
    assert events_named("a representação da merenda ja chegou?", case) == [
        "14/03/2023 — Representação sobre a merenda escolar"
    ]


def test_words_every_record_uses_or_short_words_name_no_event() -> None:
    # "processo" is in "Autuação do processo" as in every case; "foi", "mp" are too short
    assert events_named("como esta o processo?", CASE) == []
    assert events_named("o mp foi ouvido?", CASE) == []


async def test_when_the_case_was_filed_is_told_from_its_filing_row(para_bot: Assistant) -> None:
    await para_bot.ask("t", "como esta o processo 4506/2023?")
    result = await para_bot.ask("t", "quando ele foi autuado")
    assert "14/03/2023" in result.answer, result.answer
    assert [f["number"] for f in result.facts] == ["TC/004506/2023"]


async def test_a_field_asked_gets_the_field_not_the_events_sharing_its_word(
    para_bot: Assistant,
) -> None:
    result = await para_bot.ask("t", "quem é o relator do processo 4506/2023?")
    assert "Márcia Nogueira de Araújo" in result.answer
    assert "Concluso ao relator" not in result.answer, result.answer


def test_how_much_is_answered_by_the_lines_that_state_a_sum() -> None:
    judged = {
        "movements": [
            *CASE["movements"],
            {
                "at": "2024-06-11",
                "description": "Julgamento — contas irregulares, débito de R$ 98.450,00",
            },
        ],
        "documents": CASE["documents"],
    }
    sum_line = ["11/06/2024 — Julgamento — contas irregulares, débito de R$ 98.450,00"]
    # no word of the line is said: the sum is what is asked
    assert events_named("quanto eles tem que devolver?", judged) == sum_line
    assert events_named("e o valor?", judged) == sum_line
    # how long and how many are not how much
    assert events_named("ha quanto tempo ta parado?", judged) == []
    assert events_named("quantos documentos tem?", judged) == []


async def test_how_much_a_case_owes_is_told_from_the_registry(
    laws_store: Store, tmp_path: Path
) -> None:
    folder = tmp_path / "registry"
    shutil.copytree(PARA, folder)
    with (folder / "movements.csv").open("a", encoding="utf-8") as fh:
        fh.write(
            "TC/004506/2023,90,2024-06-11,Gabinete do Relator,Secretaria das Sessões,"
            '"Julgamento em sessão — contas irregulares, débito de R$ 98.450,00",Julgado\n'
        )
    registry = SQLiteCaseRegistry(tmp_path / "para.db")
    assert not import_registry(registry, [folder]).problems
    try:
        async with open_assistant(
            store=laws_store, model=None, registry=registry, home=tmp_path, today=PARA_AS_OF
        ) as bot:
            await bot.ask("t", "como esta o processo 4506/2023?")
            result = await bot.ask("t", "e de quanto foi a condenação deles?")
    finally:
        registry.close_sync()
    assert "98.450,00" in result.answer, result.answer


def test_the_cases_own_number_names_none_of_its_papers() -> None:
    # "2024" is in the acórdão's title, but "o 812/2024" points at a case, not at that paper:
    # only the judgment the question names ("julgado") answers
    asked = "qnd o 812/2024 vai ser julgado?"
    assert "11/06/2024 — Acórdão 812/2024" not in events_named(asked, CASE)
    assert events_named("o 55/2024 teve acordao?", CASE) == ["11/06/2024 — Acórdão 812/2024"]


@pytest.mark.parametrize("field_", ["subject", "audited_body", "case_class", "subclass", "type"])
def test_each_field_that_describes_the_case_names_no_event(field_: str) -> None:
    case = {
        "record": {field_: "Merenda escolar"},
        "movements": [{"at": "2024-01-05", "description": "Representação sobre a merenda"}],
        "documents": [],
    }
    assert events_named("e a merenda, como ta?", case) == []


def test_events_come_newest_first_whatever_order_the_registry_gave() -> None:
    case = {
        "movements": [
            {"at": "2023-01-10", "description": "Parecer técnico pedido"},
            {"at": "2024-05-02", "description": "Parecer técnico juntado"},
        ],
        "documents": [{"kind": "Parecer", "title": "Parecer técnico final", "date": "2023-08-20"}],
    }
    assert events_named("e o parecer tecnico?", case) == [
        "02/05/2024 — Parecer técnico juntado",
        "20/08/2023 — Parecer técnico final",
        "10/01/2023 — Parecer técnico pedido",
    ]


def test_a_four_letter_stem_names_its_event_and_a_shared_start_alone_does_not() -> None:
    case = {
        "movements": [
            {"at": "2024-03-01", "description": "Incluído em pauta de julgamento"},
            {"at": "2024-02-01", "description": "Análise das despesas"},
        ],
        "documents": [],
    }
    # "pauta" → "paut": four letters are enough
    assert events_named("ja entrou em pauta?", case) == [
        "01/03/2024 — Incluído em pauta de julgamento"
    ]
    # "despacho" and "despesas" share "desp", but neither word begins the other
    assert events_named("teve despacho?", case) == []


def test_a_document_without_a_title_is_named_by_its_kind() -> None:
    case = {"movements": [], "documents": [{"kind": "Parecer do MPC", "date": "2024-02-10"}]}
    assert events_named("o parecer ja saiu?", case) == ["10/02/2024 — Parecer do MPC"]


def test_the_thing_a_which_question_asks_for_is_sought_though_it_describes_the_case() -> None:
    """Blind set 6: "qual era o pregão denunciado?" of a denúncia about a pregão — "pregão"
    describes the case, yet "qual" asks which one: its paper names it."""
    found = {
        "record": {"subject": "Denúncia de direcionamento no pregão da merenda"},
        "movements": [{"at": "2024-03-08", "description": "Parecer do Ministério Público"}],
        "documents": [
            {
                "date": "2022-05-16",
                "kind": "Petição",
                "title": "Denúncia – Pregão Presencial nº 14/2022",
            }
        ],
    }
    assert events_named("qual era o pregao denunciado?", found) == [
        "16/05/2022 — Denúncia – Pregão Presencial nº 14/2022"
    ]
    # said to point at the case, the same word names nothing
    assert events_named("e o processo do pregao, como ta?", found) == []
