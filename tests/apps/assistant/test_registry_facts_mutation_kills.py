"""What the registry-facts check lets a phrased answer say, field by field, and what the
lookups, searches and cards it relies on return.

Each answer a model writes about a case is held against the registry's records: a status word
("arquivado", "aguardando parecer") must be in the case's status, location or movements; a
unit, class or name must be somewhere in what the registry returned. The tables below put one
word in one field at a time, so each field is shown to be needed.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from assistant_helpers import AS_OF

from colmeia.apps.assistant.case_cards import case_answer, case_card, evidence_cards, search_card
from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.case_search import search_cases, search_terms
from colmeia.apps.assistant.cases import _br, check_case_answer
from colmeia.apps.assistant.ids import CaseId
from colmeia.apps.assistant.registry_records import (
    CaseDocument,
    Expediente,
    Location,
    Movement,
    Party,
    Process,
    RegistryBatch,
)
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry

NUMBER = "TC/000032/2023"

# A case whose registry answer holds no status word at all: "Em tramitação" in the
# "Gabinete do Relator", no movements, parties or documents.
BASE: dict[str, Any] = {
    "status": "found",
    "kind": "process",
    "number": NUMBER,
    "typed": NUMBER,
    "record": {
        "number": NUMBER,
        "filed_on": "2023-05-10",
        "unit": "Secretaria de Controle Externo",
        "case_class": "Representação",
        "subclass": "",
        "rapporteur": "Cons. Maria das Dores Silva",
        "status": "Em tramitação",
        "location": "Gabinete do Relator",
        "subject": "Obras na Prefeitura de Anápolis",
    },
    "location": {
        "number": NUMBER,
        "location": "Gabinete do Relator",
        "since": "2024-02-01",
        "days": 30,
        "status": "Em tramitação",
        "last_movement": None,
    },
    "parties": [],
    "movements": [],
    "documents": [],
}


def _movement(**fields: str) -> dict[str, Any]:
    return {
        "seq": 1,
        "at": "2024-02-01",
        "from_unit": "Secretaria de Controle Externo",
        "to_unit": "Gabinete do Relator",
        "description": "Remessa ao gabinete",
        "status": "",
        **fields,
    }


def _summary(**fields: str) -> dict[str, Any]:
    return {
        "kind": "process",
        "number": NUMBER,
        "date": "2023-05-10",
        "type": "Representação",
        "unit": "Secretaria de Controle Externo",
        "rapporteur": "Cons. Maria das Dores Silva",
        "status": "Em tramitação",
        "location": "Gabinete do Relator",
        "subject": "Obras na Prefeitura de Anápolis",
        **fields,
    }


def _search(**fields: str) -> dict[str, Any]:
    return {"status": "search", "query": "obras", "total": 1, "cases": [_summary(**fields)]}


def _found(part: str, **fields: Any) -> dict[str, Any]:
    """BASE with ``fields`` set in its ``part`` ("record", "location", "last_movement",
    "movement")."""
    item = copy.deepcopy(BASE)
    if part == "last_movement":
        item["location"]["last_movement"] = _movement(**fields)
    elif part == "movement":
        item["movements"] = [_movement(**fields)]
    else:
        item[part].update(fields)
    return item


NOT_FOUND = {"status": "not_found", "kind": "process", "number": "TC/000099/2023"}
ARCHIVED = "O processo foi arquivado."
ARCHIVED_PROBLEM = "'arquivado' is not in the registry's status or movements"


def test_a_status_word_the_registry_never_used_is_flagged() -> None:
    """The baseline of the table below: nothing in BASE (or its search line) says archived."""
    assert check_case_answer(ARCHIVED, [BASE]) == [ARCHIVED_PROBLEM]
    assert ARCHIVED_PROBLEM in check_case_answer(ARCHIVED, [_search()])


STATE_FIELDS: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "record status": lambda: [_found("record", status="Arquivado")],
    "record location": lambda: [_found("record", location="Arquivo Geral")],
    "current location": lambda: [_found("location", location="Arquivo Geral")],
    "last movement's description": lambda: [
        _found("last_movement", description="Arquivamento determinado")
    ],
    "last movement's status": lambda: [_found("last_movement", status="Arquivado")],
    "a movement's description": lambda: [_found("movement", description="Arquivamento")],
    "a movement's status": lambda: [_found("movement", status="Arquivado")],
    "a movement's destination": lambda: [_found("movement", to_unit="Arquivo Geral")],
    "a movement's origin": lambda: [_found("movement", from_unit="Arquivo Geral")],
    "a listed case's status": lambda: [_search(status="Arquivado")],
    "a listed case's location": lambda: [_search(location="Arquivo Geral")],
    "the first of two found cases": lambda: [_found("record", status="Arquivado"), BASE],
    "a found case after a search": lambda: [_search(), _found("record", status="Arquivado")],
    "a found case after a miss": lambda: [NOT_FOUND, _found("record", status="Arquivado")],
}


@pytest.mark.parametrize("where", list(STATE_FIELDS))
def test_a_status_word_is_backed_by_each_field_of_the_cases_state(where: str) -> None:
    """'foi arquivado' may be said when any field of the case's state says so (its stem,
    "arquiv", is in the status, the location or a movement), whichever case of the turn it
    belongs to."""
    assert ARCHIVED_PROBLEM not in check_case_answer(ARCHIVED, STATE_FIELDS[where]())


def test_a_found_case_with_no_record_does_not_license_autuado() -> None:
    """The card's own label "Autuado em" lets an answer say "foi autuado" only when the
    registry returned a record at all."""
    assert check_case_answer("O processo foi autuado em 10/05/2023.", [BASE]) == []
    bare = {"status": "found", "kind": "process", "number": NUMBER, "record": {}}
    assert check_case_answer("O processo foi autuado.", [bare]) == [
        "'autuado' is not in the registry's status or movements"
    ]


def test_fields_the_registry_left_out_license_nothing() -> None:
    """A registry behind HTTP may leave fields out; their absence adds no word an answer may
    lean on ("aguardando no setor" is a claim about what the case awaits)."""
    sparse = {
        "status": "found",
        "kind": "process",
        "number": NUMBER,
        "record": {"subject": "Obras"},
        "location": {"days": 3, "last_movement": {"at": "2024-02-01", "description": "Remessa"}},
        "movements": [{"at": "2024-02-01"}],
    }
    listed = {"status": "search", "query": "obras", "cases": [{"kind": "process", "subject": "x"}]}
    assert check_case_answer("O processo está aguardando no setor.", [sparse, listed]) == [
        "'aguardando no' is not in the registry's status or movements"
    ]


def test_a_document_kind_is_no_status() -> None:
    """A document in the file ("Parecer") is not the case's state: "já tem parecer" is a
    claim about what happened, and only the status or movements may back it."""
    with_opinion = {**BASE, "documents": [{"seq": 1, "kind": "Parecer", "title": "Parecer"}]}
    assert check_case_answer("O processo já tem parecer.", [with_opinion]) == [
        "'parecer' is not in the registry's status or movements"
    ]


def test_what_a_case_awaits_is_read_from_the_awaited_word() -> None:
    """ "aguardando parecer" is backed by a movement toward an opinion, not by the word
    "aguardando"; and the awaited word is compared by its first six letters, like every
    status word ("recurso" ~ "prazo recursal")."""
    toward_opinion = _found("movement", description="Encaminhado para parecer")
    assert check_case_answer("Está aguardando parecer.", [toward_opinion]) == []
    assert check_case_answer("Está aguardando parecer.", [BASE]) == [
        "'aguardando parecer' is not in the registry's status or movements"
    ]
    appeal_time = _found("record", status="Em prazo recursal")
    assert check_case_answer("Está aguardando recurso.", [appeal_time]) == []


UNIT_FIELDS: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "a movement's origin": lambda: [_found("movement", from_unit="Protocolo Geral")],
    "a movement's destination": lambda: [_found("movement", to_unit="Protocolo Geral")],
    "the record's location": lambda: [_found("record", location="Protocolo Geral")],
    "a listed case's unit": lambda: [_search(unit="Protocolo Geral")],
}


@pytest.mark.parametrize("where", list(UNIT_FIELDS))
def test_a_unit_the_card_does_not_show_is_backed_by_the_registry(where: str) -> None:
    """A unit the case passed through (or a listed case's unit) is the registry's, though the
    card does not show it."""
    answer = "O processo passou pelo Protocolo Geral."
    assert check_case_answer(answer, [BASE]) == [
        "the unit 'Protocolo Geral' is not in the registry's answer"
    ]
    problems = check_case_answer(answer, UNIT_FIELDS[where]())
    assert not any("Protocolo Geral" in p for p in problems)


def test_a_document_kind_and_a_party_with_its_role_are_the_registrys() -> None:
    """The kinds of the case's documents, and a party named with its role right after (as a
    list writes them), are what the registry said."""
    answer = "Há um Relatório de Auditoria no processo."
    assert check_case_answer(answer, [BASE]) == [
        "the class 'Auditoria' is not in the registry's answer",
        "the name 'Relatório de Auditoria' is not in the registry's answer",
    ]
    report = {**BASE, "documents": [{"seq": 1, "kind": "Relatório de Auditoria", "title": "t"}]}
    assert check_case_answer(answer, [report]) == []
    listed = "Partes: Ana Maria Souza Responsável; Construtora Boa Obra Representante."
    parties = [
        {"name": "Ana Maria Souza", "role": "Responsável"},
        {"name": "Construtora Boa Obra", "role": "Representante"},
    ]
    assert check_case_answer(listed, [{**BASE, "parties": parties}]) == []


def test_an_invented_unit_or_class_is_named_once() -> None:
    """A unit or class the registry did not give is named as such, and not a second time as a
    person's name."""
    assert check_case_answer("Está na Secretaria de Obras.", [BASE]) == [
        "the unit 'Secretaria de Obras' is not in the registry's answer"
    ]
    assert check_case_answer("É uma Tomada de Contas Especial.", [BASE]) == [
        "the class 'Tomada de Contas Especial' is not in the registry's answer"
    ]


def test_every_name_is_checked_after_titles_and_known_names() -> None:
    """A title ("Conselheiro") is not part of a name, and names are checked one by one: an
    invented one after a known name or after a unit is still named."""
    known = "Conselheira Maria das Dores Silva é a relatora."
    assert check_case_answer(known, [BASE]) == []
    invented = "A relatora é Maria das Dores Silva. O Conselheiro Júlio Prates não atua."
    assert check_case_answer(invented, [BASE]) == [
        "'Conselheiro Júlio Prates' is not in the registry's answer",
        "the name 'Júlio Prates' is not in the registry's answer",
    ]
    after_unit = "Está na Secretaria de Obras e com Júlio Prates."
    assert check_case_answer(after_unit, [BASE]) == [
        "the unit 'Secretaria de Obras' is not in the registry's answer",
        "the name 'Júlio Prates' is not in the registry's answer",
    ]


# -- cards of what a registry behind HTTP left out


def test_a_sparse_card_leaves_blanks_where_the_registry_said_nothing() -> None:
    """Missing fields are blank on the card (never "None"); a lookup without a kind is a
    process."""
    assert case_card({"status": "found", "record": {}}) == "\n".join(
        ["Processo  — ", "Autuado em  · Unidade técnica:  · Relator: ", "Situação atual: "]
    )
    sparse_exp = {
        "status": "found",
        "kind": "expediente",
        "number": "EXP-2024-00123",
        "record": {},
        "location": {"days": 3},
    }
    assert case_card(sparse_exp) == "\n".join(
        [
            "Expediente EXP-2024-00123 — ",
            "Aberto em  · Origem: ",
            "Situação atual: ",
            "Onde está: , desde  (há 3 dias)",
        ]
    )
    assert case_card({"status": "not_found"}).startswith("Não encontrei o processo  no cadastro.")


def test_a_follow_up_on_a_sparse_lookup_says_process_and_leaves_the_number_blank() -> None:
    """The part of the card a follow-up asks for, when the lookup gave no kind or number."""
    assert case_answer({"status": "found", "record": {"subject": "Obras"}}, "subject") == (
        "Processo  — Assunto: Obras"
    )


def test_a_sparse_search_line_and_query_are_blank() -> None:
    """A listed case without subject, type or status, and a search without its query."""
    listed = {"status": "search", "cases": [{"kind": "process", "number": NUMBER}]}
    assert search_card(listed) == (
        f"Encontrei 1 casos no cadastro sobre “”:\n1. Processo {NUMBER} —  ()"
    )
    assert search_card({"status": "search", "cases": []}).startswith(
        "Não encontrei no cadastro nenhum processo ou expediente sobre “”."
    )


def test_a_movement_stamped_with_a_time_shows_its_day() -> None:
    """A registry that stamps movements with a time still shows the day (dd/mm/aaaa)."""
    assert _br("2024-02-01T10:30:00") == "01/02/2024"
    stamped = _found("last_movement", at="2024-02-01T10:30:00")
    assert "Última movimentação: 01/02/2024 — Remessa ao gabinete" in case_card(stamped)


def test_each_case_of_a_turn_gets_one_card_however_it_was_typed() -> None:
    """Lookups of the same number typed two ways are one card; two invalid numbers (no
    canonical number) are told apart by what was typed."""
    again = {**BASE, "typed": "tc 32/2023"}
    assert evidence_cards([BASE, again]) == case_card(BASE)
    first = {"status": "invalid", "typed": "TC 12/24", "message": "a."}
    second = {"status": "invalid", "typed": "TC 13/24", "message": "b."}
    assert evidence_cards([first, second]) == (
        "a. Confira o número e envie novamente.\n\nb. Confira o número e envie novamente."
    )


def test_an_uppercase_name_keeps_its_last_letter_when_searched() -> None:
    """Only a trailing full stop is dropped from a search word ("FENIX" stays "FENIX")."""
    assert search_terms("Construtora FENIX Ltda.") == ["Construtora", "FENIX", "Ltda"]


# -- a small registry of our own: lookups and searches


FENIX = Process(
    "TC/000001/2020",
    "2020-01-15",
    "Secretaria de Controle Externo",
    "Auditoria",
    "",
    "Cons. Ana Souza",
    "Em instrução",
    "Secretaria de Controle Externo",
    "Reforma do ginásio municipal",
)
MERENDA = Expediente(
    "EXP-2026-00073",
    "2026-09-01",
    "Denúncia",
    "Ouvidoria",
    "Merenda escolar estragada",
    "Em análise",
    "Ouvidoria",
    "",
)
# 501 newer processes: each says "Fenix" and "engenharia" apart, and "Fenix Obras" together
OTHERS = [
    Process(
        f"TC/{i:06d}/2024",
        "2024-05-01",
        "Secretaria de Obras",
        "Representação",
        "",
        "Cons. Ana Souza",
        "Em instrução",
        "Secretaria de Obras",
        f"Fenix Obras: engenharia do bloco {i}",
    )
    for i in range(2, 503)
]


@pytest.fixture(scope="module")
def small_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SQLiteCaseRegistry]:
    reg = SQLiteCaseRegistry(Path(tmp_path_factory.mktemp("small")) / "registry.db")
    reg.write(
        RegistryBatch(
            processes=[FENIX, *OTHERS],
            expedientes=[MERENDA],
            parties=[(FENIX.number, Party("Fenix Engenharia Ltda", "Responsável"))],
            movements=[
                (MERENDA.number, Movement(1, "2026-10-01", "Protocolo", "Ouvidoria", "Recebido"))
            ],
            documents=[
                (FENIX.number, CaseDocument(seq, "Ofício", f"Ofício {seq}", "2020-02-01"))
                for seq in range(1, 8)
            ],
        )
    )
    yield reg
    reg.close_sync()


async def test_a_lookup_brings_the_five_newest_documents(
    small_registry: SQLiteCaseRegistry,
) -> None:
    """A case with seven documents brings the five newest to the conversation."""
    found = await lookup_case(small_registry, FENIX.number, today=AS_OF)
    assert [d["seq"] for d in found["documents"]] == [7, 6, 5, 4, 3]


async def test_the_kind_asked_for_and_the_date_given_decide_the_reading(
    small_registry: SQLiteCaseRegistry,
) -> None:
    """A bare number asked for as an expediente is only looked up as one; a year after the
    date given ("today") is refused."""
    asked = await lookup_case(small_registry, "1/2020", today=AS_OF, kind="expediente")
    assert (asked["status"], asked["number"]) == ("not_found", "EXP-2020-00001")
    early = await lookup_case(small_registry, FENIX.number, today=dt.date(2019, 6, 1))
    assert early["status"] == "invalid"


async def test_a_bare_number_falls_back_to_the_other_kind_as_typed_and_dated(
    small_registry: SQLiteCaseRegistry,
) -> None:
    """ "2020-1" reads as an expediente; none exists, so the process of that number comes back;
    "73/2026" reads as a process and comes back as the expediente, with what was typed and the
    days counted to the date given."""
    process = await lookup_case(small_registry, "2020-1", today=AS_OF)
    assert (process["status"], process["number"], process["typed"]) == (
        "found",
        FENIX.number,
        "2020-1",
    )
    expediente = await lookup_case(small_registry, "73/2026", today=AS_OF)
    assert (expediente["status"], expediente["number"], expediente["typed"]) == (
        "found",
        MERENDA.number,
        "73/2026",
    )
    assert expediente["location"]["days"] == 31  # 2026-10-01 to 2026-11-01


async def test_a_single_match_of_a_search_is_dated_like_a_lookup(
    small_registry: SQLiteCaseRegistry,
) -> None:
    """A description that finds one case brings its full lookup, days counted to the date
    given."""
    found = await search_cases(small_registry, "merenda", today=AS_OF)
    assert (found["status"], found["number"], found["location"]["days"]) == (
        "found",
        MERENDA.number,
        31,
    )


async def test_a_party_named_in_full_is_found_by_the_phrase_not_by_its_words_apart(
    small_registry: SQLiteCaseRegistry,
) -> None:
    """Two words found together ("Fenix Engenharia", a party) bring that one case, though
    501 others hold both words apart."""
    found = await search_cases(small_registry, "Fenix Engenharia", today=AS_OF)
    assert (found["status"], found["number"]) == ("found", FENIX.number)


async def test_a_search_weighs_every_matching_case_not_the_first_five_hundred(
    small_registry: SQLiteCaseRegistry,
) -> None:
    """A phrase or a word matching 501 cases counts all 501 (no row cut) and lists five,
    newest first (then the highest number)."""
    for query in ("Fenix Obras", "Obras"):
        found = await search_cases(small_registry, query, today=AS_OF)
        assert (found["status"], found["total"], len(found["cases"])) == ("search", 501, 5)
        assert found["cases"][0]["number"] == "TC/000502/2024"


async def test_a_registry_that_fails_is_reported_as_unavailable(tmp_path: Path) -> None:
    """A registry that cannot answer gives ``unavailable`` with its message, to lookups and
    searches; a description with no word to search never asks it."""
    reg = SQLiteCaseRegistry(tmp_path / "registry.db")
    reg.close_sync()
    down = await lookup_case(reg, "tc 32/2023", today=AS_OF)
    message = down.pop("message")
    assert down == {
        "status": "unavailable",
        "number": NUMBER,
        "kind": "process",
        "typed": "tc 32/2023",
    }
    assert message.startswith("case registry ") and "closed" in message
    searched = await search_cases(reg, "Fenix Obras", today=AS_OF)
    assert searched == {"status": "unavailable", "typed": "Fenix Obras", "message": message}
    assert await search_cases(reg, "o de em", today=AS_OF) == {
        "status": "search",
        "query": "o de em",
        "total": 0,
        "cases": [],
    }


class _NoLocations(SQLiteCaseRegistry):
    """A registry that cannot tell where a case is (an HTTP one may answer so)."""

    async def location(self, case: CaseId, today: dt.date | None = None) -> Location | None:
        return None


async def test_a_case_without_a_known_location_is_still_found(tmp_path: Path) -> None:
    """When the registry does not know where the case is, the lookup says so (``None``)."""
    reg = _NoLocations(tmp_path / "registry.db")
    reg.write(RegistryBatch(processes=[FENIX]))
    try:
        found = await lookup_case(reg, FENIX.number, today=AS_OF)
    finally:
        reg.close_sync()
    assert (found["status"], found["location"]) == ("found", None)
