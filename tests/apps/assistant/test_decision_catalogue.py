"""What a jurisprudence collection holds, read from its records: the decisions its statements
come from (number, year, collegiate body), its súmulas, and the decisions its statements cite
— and the sentence a person gets for a decision named by number that is none of these.

The statements below are written for the test in JurisTCU's layouts (invented decisions and
rapporteurs; no real minister is credited with them); lexical only, so it is fast."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from colmeia.apps.assistant.decision_catalogue import (
    DecisionCatalogue,
    asks_decisions,
    decisions_named,
    missing_decision,
    named_sumulas,
    not_held,
    rapporteur_note,
    subject_of,
)
from colmeia.rag.pipeline import CsvColumns, ingest
from colmeia.store import Store, open_store

DECISIONS = [
    ["ID", "TEXT", "NORMATIVE_IDENTIFICATION", "NORMATIVE_AUTHOR_NAME", "AREA_NAME"],
    [
        "901",
        "A dispensa por emergência exige justificativa do preço.",
        "Acórdão 1234/2019 - Plenário",
        "OTÁVIO RAMOS",
        "Licitação",
    ],
    [
        "902",
        "Diárias sem deslocamento comprovado são irregulares.",
        "Acórdão 1234/2019 - Primeira Câmara",
        "MARTA QUINTELA",
        "Pessoal",
    ],
    [
        "903",
        "O edital deve publicar o orçamento estimado.",
        "Acórdão 77/2021 - Plenário",
        "OTÁVIO RAMOS",
        "Licitação",
    ],
    [
        "904",
        "A ata de registro de preços não pode ser aditada.",
        "Acórdão 88/2022",
        "MARTA QUINTELA",
        "Licitação",
    ],
]
STATEMENTS = [
    ["DOC_ID", "TEXT"],
    ["13", "SÚMULA TCU 9: Está sujeito ao Tribunal de Contas o julgamento das contas."],
    ["14", "SÚMULA TCU 272: No edital é vedada a inclusão de exigências desnecessárias."],
    [
        "15",
        'Vale a regra do <acordao_decisao_tcu colegiado="Plenário" numero="749" '
        'ano="2010" >Acórdão 749/2010-TCU-Plenário</acordao_decisao_tcu> para obras.',
    ],
    ["16", "A compensação entre acréscimos e supressões é vedada."],
]


def _write(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)
    return path


@pytest.fixture(scope="module")
def juris(tmp_path_factory: pytest.TempPathFactory) -> Store:
    folder = tmp_path_factory.mktemp("juris")
    store = open_store(f"sqlite:///{folder / 'juris.db'}")
    statements = CsvColumns("", "", layout="jurisprudence")
    assert not ingest(
        store, "j", [_write(folder / "enunciados.csv", STATEMENTS)], csv_columns=statements
    ).errors
    assert not ingest(store, "j", [_write(folder / "acordaos.csv", DECISIONS)]).errors
    return store


def test_the_catalogue_holds_each_decision_by_number_year_and_body(juris: Store) -> None:
    cat = DecisionCatalogue.build(juris, "j")
    assert cat.statements == 8
    assert cat.decisions == {
        ("1234", "2019"): {"Plenário", "1ª Câmara"},
        ("77", "2021"): {"Plenário"},
        ("88", "2022"): {""},  # its statement names no body
    }
    assert cat.sumulas == {"9", "272"}
    assert cat.cited == {("749", "2010")}
    assert cat.contents() == (
        "8 enunciados de jurisprudência; 2 súmulas; 3 acórdãos identificados pelo número"
    )


def test_a_decision_is_held_by_its_number_and_year_and_by_its_body_when_one_is_named(
    juris: Store,
) -> None:
    cat = DecisionCatalogue.build(juris, "j")
    assert cat.holds_decision("1234", "2019")
    assert cat.holds_decision("01234", "2019", "1ª Câmara")  # a leading zero is no other number
    assert not cat.holds_decision("1234", "2019", "2ª Câmara")
    assert not cat.holds_decision("1234", "2018")
    assert cat.holds_decision("749", "2010", "Plenário")  # cited by a statement
    assert cat.holds_decision("88", "2022", "2ª Câmara")  # its statement names no body
    assert not cat.holds_decision("749", "2011")


def test_a_decision_whose_statement_names_no_body_is_held_for_any_body() -> None:
    cat = DecisionCatalogue(statements=1, decisions={("5", "2020"): {""}})
    assert cat.holds_decision("5", "2020", "Plenário")
    assert not DecisionCatalogue(decisions={("5", "2020"): {"1ª Câmara"}}).holds_decision(
        "5", "2020", "Plenário"
    )


def test_an_empty_collection_says_nothing_and_a_large_one_counts_with_dots() -> None:
    assert missing_decision("o Acórdão 1/2020?", DecisionCatalogue()) is None
    big = DecisionCatalogue(statements=1651, sumulas={"9"})
    assert big.contents() == "1.651 enunciados de jurisprudência; 1 súmula"
    one = DecisionCatalogue(statements=1, decisions={("5", "2020"): {""}})
    assert one.contents() == "1 enunciado de jurisprudência; 1 acórdão identificado pelo número"


def test_decisions_the_collection_lacks_are_named_in_one_sentence(juris: Store) -> None:
    cat = DecisionCatalogue.build(juris, "j")
    assert missing_decision("e o Acórdão 1234/2019-Plenário?", cat) is None
    assert missing_decision("o que diz a súmula 272?", cat) is None
    one = missing_decision("O que decidiu o Acórdão 4321/2018-Plenário?", cat)
    assert one == (
        "Acórdão 4321/2018-Plenário não está entre os documentos desta coleção, por isso não "
        "posso dizer o seu teor. A coleção contém: 8 enunciados de jurisprudência; 2 súmulas; "
        "3 acórdãos identificados pelo número."
    )
    two = missing_decision("o AC 5/2020-TCU-Plenário e a SÚMULA Nº 247", cat)
    assert two is not None
    assert two.startswith(
        "Acórdão 5/2020-Plenário e Súmula TCU 247 não estão entre os documentos desta coleção"
    )


def test_not_held_says_one_or_several() -> None:
    assert not_held(["A", "B"], "x") == (
        "A e B não estão entre os documentos desta coleção, por isso não posso dizer o seu "
        "teor. A coleção contém: x."
    )
    assert not_held(["A"], "x").startswith("A não está entre")


@pytest.mark.parametrize(
    ("question", "numbers"),
    [
        ("o que diz a súmula 247?", ["247"]),
        ("SÚMULA TCU Nº 222 e a sumula n. 9 do TCU", ["222", "9"]),
        ("a Súmula nº 0272, de novo a súmula 272", ["272"]),
        ("súmulas do tribunal", []),
    ],
)
def test_sumulas_are_read_by_number_in_every_typing(question: str, numbers: list[str]) -> None:
    assert named_sumulas(question) == numbers


def test_decisions_named_are_read_with_their_body_and_the_sumulas_after() -> None:
    assert decisions_named("AC 1.234/2019-TCU-1ª Câmara e a SÚMULA 247") == [
        ("Acórdão 1234/2019-1ª Câmara", "1234", "2019", "1ª Câmara"),
        ("Súmula TCU 247", "247", "", ""),
    ]
    assert decisions_named("ACÓRDÃO 77/2021") == [("Acórdão 77/2021", "77", "2021", "")]
    assert decisions_named("o processo 77/2021") == []


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("JURISPRUDÊNCIA SOBRE SOBREPREÇO", True),
        ("ACÓRDÃOS DO TCU SOBRE PREGÃO", True),
        ("o ACÓRDÃO 77/2021", True),
        ("O ACÓRDÃO DO MEU PROCESSO SAIU?", False),
        ("quando sai o acórdão?", False),
    ],
)
def test_decisions_are_asked_about_in_capitals_too(text: str, asks: bool) -> None:
    assert asks_decisions(text) is asks


def test_the_words_that_ask_for_decisions_are_not_what_decisions_are_searched_by() -> None:
    assert subject_of("decisoes do relator benjamin zymler sobre dispensa de licitacao") == (
        "do benjamin zymler sobre dispensa de licitacao"
    )
    assert subject_of("Jurisprudência do TCU sobre pregão eletrônico") == "sobre pregão eletrônico"
    assert subject_of("acórdãos?") == "acórdãos?"  # nothing else asked: searched as typed


def test_a_rapporteur_asked_of_statements_that_name_none_is_said(juris: Store) -> None:
    cat = DecisionCatalogue.build(juris, "j")
    assert cat.rapporteurs == 4  # the four decision rows name theirs; the statements do not
    assert rapporteur_note("decisões da relatora Marta sobre diárias", cat, "j") == ""
    bare = DecisionCatalogue(statements=3)
    assert rapporteur_note("decisões do relator X sobre diárias", bare, "j") == (
        "A coleção 'j' não registra o relator das decisões: os enunciados abaixo tratam do "
        "assunto, de qualquer relator."
    )
    assert rapporteur_note("decisões sobre diárias", bare, "j") == ""
    assert rapporteur_note("decisões do relator X", DecisionCatalogue(), "j") == ""
