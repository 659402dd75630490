"""Court decisions as a collection: statements cited by their decision ("Acórdão 1234/2019-
Plenário, rel. Min. …") and found by that reference, by rapporteur and by theme.

The decision rows below are written for the test in the layout of JurisTCU's full export
(``ID, TEXT, NORMATIVE_IDENTIFICATION, NORMATIVE_DATE, NORMATIVE_AUTHOR_NAME, AREA_NAME, TEMA``);
their statements and rapporteurs are invented, so no real minister is credited with them. The
shipped 1,651 real statements (``data/juristcu``) carry no decision fields and are cited by
súmula number or by their key in the court's search.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from colmeia.rag.ingest.jurisprudence import DecisionRef, parse_decision_reference
from colmeia.rag.pipeline import CsvColumns, ingest
from colmeia.rag.retrieve import Retriever
from colmeia.store import open_store
from shared_data import DATA_DIR

HEADER = [
    "ID",
    "TEXT",
    "NORMATIVE_IDENTIFICATION",
    "NORMATIVE_DATE",
    "NORMATIVE_AUTHOR_NAME",
    "AREA_NAME",
    "TEMA",
]
ROWS = [
    [
        "901",
        "A contratação direta por dispensa de licitação em razão de emergência exige a "
        "caracterização da situação emergencial e a justificativa do preço.",
        "Acórdão 1234/2019 - Plenário",
        "2019-05-22",
        "OTÁVIO RAMOS",
        "Licitação",
        "Dispensa de licitação",
    ],
    [
        "902",
        "É irregular o pagamento de diárias sem a comprovação do deslocamento do servidor.",
        "Acórdão 1234/2019 - Primeira Câmara",
        "2019-03-12",
        "MARTA QUINTELA",
        "Pessoal",
        "Diárias",
    ],
    [
        "903",
        "A pesquisa de preços deve reunir fontes diversas, não se limitando a cotações com "
        "fornecedores.",
        "Acórdão 4321/2019 - Plenário",
        "2019-10-02",
        "MARTA QUINTELA",
        "Licitação",
        "Pesquisa de preços",
    ],
    [
        "904",
        "O gestor responde pelo dano ao erário quando deixa de prestar contas dos recursos do "
        "convênio no prazo.",
        "Acórdão 2019/2021 - Segunda Câmara",
        "2021-06-15",
        "PAULO ARANTES",
        "Responsabilidade",
        "Omissão no dever de prestar contas",
    ],
    [
        "905",
        "Inexigibilidade de licitação para contratação de profissional do setor artístico "
        "requer a consagração pela crítica especializada ou pela opinião pública.",
        "Acórdão 1235/2019 - Plenário",
        "2019-05-29",
        "BEATRIZ LACERDA",
        "Licitação",
        "Inexigibilidade de licitação",
    ],
]


@pytest.fixture(scope="module")
def decisions(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    folder = tmp_path_factory.mktemp("juris")
    path = folder / "acordaos.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(HEADER)
        writer.writerows(ROWS)
        writer.writerow(["906", "", "Acórdão 1/2020 - Plenário", "", "", "", ""])  # no text
    store = open_store(f"sqlite:///{folder / 'juris.db'}")
    report = ingest(store, "jurisprudencia", [path])
    assert report.added == len(ROWS)
    assert [(e.source.rsplit("/", 1)[-1], e.reason) for e in report.errors] == [
        ("acordaos.csv, row 7", "empty statement text")
    ]
    return Retriever(store, "jurisprudencia")


@pytest.mark.parametrize(
    ("said", "ref"),
    [
        ("Acórdão 1234/2019-Plenário", DecisionRef("1234", "2019", "Plenário")),
        ("o acórdão nº 1.234/2019 – TCU – 1ª Câmara", DecisionRef("1234", "2019", "1ª Câmara")),
        ("AC 2019/2021 - Segunda Câmara", DecisionRef("2019", "2021", "2ª Câmara")),
        ("acordao 4321 de 2019", DecisionRef("4321", "2019", "")),
    ],
)
def test_a_decision_reference_is_read_as_people_write_it(said: str, ref: DecisionRef) -> None:
    assert parse_decision_reference(said) == ref


def test_no_reference_in_a_plain_question() -> None:
    assert parse_decision_reference("qual o prazo de 2019 para recorrer?") is None


def test_each_statement_is_cited_by_its_decision_and_rapporteur(decisions: Retriever) -> None:
    top = decisions.search("dispensa de licitação emergência", k=1)[0]
    assert top.citation.path == "Acórdão 1234/2019-Plenário, rel. Min. Otávio Ramos"
    assert top.doc_type == "Jurisprudência"
    assert top.year == 2019
    assert top.heading == "Licitação > Dispensa de licitação"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Acórdão 1234/2019-Plenário", "Acórdão 1234/2019-Plenário"),
        ("Acórdão 1234/2019 - Primeira Câmara", "Acórdão 1234/2019-1ª Câmara"),
        ("acórdão 2019/2021", "Acórdão 2019/2021-2ª Câmara"),
        ("Acórdão 1235/2019-Plenário", "Acórdão 1235/2019-Plenário"),
    ],
)
def test_found_by_number(decisions: Retriever, query: str, expected: str) -> None:
    top = decisions.search(query, k=1)[0]
    assert top.citation.path.startswith(expected + ","), top.citation.path


def test_found_by_rapporteur(decisions: Retriever) -> None:
    top = decisions.search("decisões relatadas por Marta Quintela", k=2)
    assert {h.citation.path for h in top} == {
        "Acórdão 1234/2019-1ª Câmara, rel. Min. Marta Quintela",
        "Acórdão 4321/2019-Plenário, rel. Min. Marta Quintela",
    }


def test_found_by_theme(decisions: Retriever) -> None:
    top = decisions.search("omissão no dever de prestar contas", k=1)[0]
    assert top.citation.path.startswith("Acórdão 2019/2021-2ª Câmara")
    licitacao = decisions.search("inexigibilidade", k=1)[0]
    assert licitacao.citation.path.startswith("Acórdão 1235/2019-Plenário")


def test_the_shipped_statements_are_cited_by_sumula_or_their_key(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'j.db'}")
    columns = CsvColumns("", "", layout="jurisprudence")
    report = ingest(
        store, "jurisprudencia", [DATA_DIR / "juristcu" / "docs.csv"], csv_columns=columns
    )
    assert report.added == 1651 and report.errors == []
    retriever = Retriever(store, "jurisprudencia")
    top = retriever.search("Súmula TCU 272", k=1)[0]
    assert top.citation.path == "Súmula TCU 272"
    cited = retriever.search("obras de infraestrutura celebrados antes de 25/11/2011", k=1)[0]
    # The inline markup of the decisions a statement cites is gone; the decision's words stay.
    assert "<acordao" not in cited.text and "Acórdão 749/2010-TCU-Plenário" in cited.text
    other = retriever.search("contratação direta", k=1)[0]
    assert other.citation.path == f"Jurisprudência Selecionada do TCU, enunciado {other.doc_id}"
