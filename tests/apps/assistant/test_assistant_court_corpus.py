"""The court's corpus answers the questions the laws cannot: an acórdão on a subject, a decision
by its number, a resolution of the court by its number — each answer saying whose texts it
quotes (jurisprudência, norma do tribunal) instead of "não está entre os documentos"."""

from __future__ import annotations

import csv

import pytest
from assistant_helpers import LAWS

from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.scope import is_missing_norm_answer
from colmeia.rag.pipeline import CsvColumns, ingest
from colmeia.store import Store, open_store
from shared_data import DATA_DIR

# Invented decisions in JurisTCU's export layout (no real minister is credited with them).
DECISIONS = [
    ["ID", "TEXT", "NORMATIVE_IDENTIFICATION", "NORMATIVE_AUTHOR_NAME", "AREA_NAME", "TEMA"],
    [
        "901",
        "A contratação direta por dispensa de licitação em razão de emergência exige a "
        "caracterização da situação emergencial e a justificativa do preço.",
        "Acórdão 1234/2019 - Plenário",
        "OTÁVIO RAMOS",
        "Licitação",
        "Dispensa de licitação",
    ],
    [
        "902",
        "É irregular o pagamento de diárias sem a comprovação do deslocamento do servidor.",
        "Acórdão 1234/2019 - Primeira Câmara",
        "MARTA QUINTELA",
        "Pessoal",
        "Diárias",
    ],
]


@pytest.fixture(scope="module")
def court_corpus(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """Lei 9.784 (leis), the sample norms (normas-tribunal), the shipped statements and the
    invented decisions (jurisprudencia)."""
    folder = tmp_path_factory.mktemp("corpus")
    decisions = folder / "acordaos.csv"
    with decisions.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(DECISIONS)
    store = open_store(f"sqlite:///{folder / 'corpus.db'}")
    assert not ingest(store, "leis", [LAWS / "lei_9784_19990129.csv"]).errors
    assert not ingest(store, "normas-tribunal", [DATA_DIR / "tribunal"]).errors
    statements = CsvColumns("", "", layout="jurisprudence")
    shipped = DATA_DIR / "juristcu" / "docs.csv"
    assert not ingest(store, "jurisprudencia", [shipped], csv_columns=statements).errors
    assert not ingest(store, "jurisprudencia", [decisions]).errors
    return store


async def test_an_acordao_on_a_subject_is_answered_from_the_decisions(
    court_corpus: Store,
) -> None:
    result = await RagPipeline(court_corpus, "leis").run("um acórdão sobre contratação direta")
    assert result["answer"].startswith("Jurisprudência (coleção 'jurisprudencia'):")
    assert "não está entre os documentos" not in result["answer"]
    assert result["citations"]
    assert {c["source"] for c in result["citations"]} == {"jurisprudência"}


async def test_a_decision_by_its_number_is_that_decision(court_corpus: Store) -> None:
    result = await RagPipeline(court_corpus, "leis").run(
        "O que decidiu o Acórdão 1234/2019-Plenário?"
    )
    first = result["citations"][0]
    assert first["label"] == "Acórdão 1234/2019-Plenário, rel. Min. Otávio Ramos"
    assert "emergência" in result["answer"]


async def test_a_resolution_by_number_is_answered_from_the_courts_norms(
    court_corpus: Store,
) -> None:
    result = await RagPipeline(court_corpus, "leis").run(
        "qual o prazo de remessa das contas segundo a resolução nº 12?"
    )
    answer = result["answer"]
    assert answer.startswith("Normas do próprio tribunal (coleção 'normas-tribunal'):")
    assert not is_missing_norm_answer(answer)
    labels = [c["label"] for c in result["citations"]]
    assert labels and "Resolução 12/2023, Art. 2º" in labels[0], labels
    assert {c["source"] for c in result["citations"]} == {"norma do tribunal"}


async def test_the_regimento_named_goes_to_the_courts_norms(court_corpus: Store) -> None:
    result = await RagPipeline(court_corpus, "leis").run(
        "quais recursos cabem segundo o regimento interno?"
    )
    assert result["citations"]
    assert all(c["label"].startswith("Regimento Interno do TCE-EX") for c in result["citations"])


async def test_a_law_question_stays_with_the_laws(court_corpus: Store) -> None:
    result = await RagPipeline(court_corpus, "leis").run(
        "qual o prazo para interpor recurso administrativo?"
    )
    assert result["citations"][0]["law"] == "Lei 9.784/1999"
    assert not result["answer"].startswith(("Jurisprudência", "Normas do próprio"))


async def test_without_the_courts_norms_a_resolution_is_said_missing(
    laws_store: Store,
) -> None:
    result = await RagPipeline(laws_store, "leis").run("o que diz a resolução nº 12?")
    assert is_missing_norm_answer(result["answer"])


async def test_the_courts_own_norms_answering_carry_no_warning_about_themselves(
    court_corpus: Store,
) -> None:
    result = await RagPipeline(court_corpus, "leis").run(
        "qual o prazo de remessa das contas segundo a resolução nº 12?",
        local="o processo TC/000032/2023 (Prefeitura Municipal de Exemplo)",
    )
    assert result["answer"].startswith("Normas do próprio tribunal")
    assert "Atenção" not in result["answer"]


# ------------------------------------------------------- a decision named by its number
@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("O que decidiu o Acórdão 4321/2018-Plenário?", "Acórdão 4321/2018-Plenário"),
        # the number is held, by the Plenário and the 1ª Câmara only
        ("e o Acórdão 1234/2019 - 2ª Câmara?", "Acórdão 1234/2019-2ª Câmara"),
        ("o que diz a sumula 247 do tcu?", "Súmula TCU 247"),
    ],
)
async def test_a_decision_the_collection_lacks_is_said_missing_not_answered_by_another(
    court_corpus: Store, question: str, named: str
) -> None:
    result = await RagPipeline(court_corpus, "leis").run(question)
    answer = result["answer"]
    assert is_missing_norm_answer(answer), answer
    assert f"{named} não está entre os documentos desta coleção" in answer
    assert result["citations"] == []


async def test_a_sumula_the_collection_holds_is_quoted_first(court_corpus: Store) -> None:
    result = await RagPipeline(court_corpus, "leis").run("o que diz a súmula 272?")
    assert not is_missing_norm_answer(result["answer"])
    assert result["citations"][0]["label"] == "Súmula TCU 272"


async def test_a_decision_only_cited_by_statements_is_answered_by_those_statements(
    court_corpus: Store,
) -> None:
    # no statement comes from Acórdão 749/2010-Plenário; three of the shipped ones cite it
    result = await RagPipeline(court_corpus, "leis").run(
        "o que diz o Acórdão 749/2010-TCU-Plenário?"
    )
    assert not is_missing_norm_answer(result["answer"]), result["answer"]
    assert result["citations"][0]["source"] == "jurisprudência"
    assert "749/2010" in result["answer"]


async def test_without_jurisprudence_a_decision_is_said_missing_from_the_laws(
    laws_store: Store,
) -> None:
    result = await RagPipeline(laws_store, "leis").run("qual o Acórdão 1234/2019-Plenário?")
    answer = result["answer"]
    assert answer.startswith("Acórdão 1234/2019-Plenário não está entre os documentos"), answer
    assert "Lei 9.784/1999" in answer  # what the collection holds instead
    assert result["citations"] == []


async def test_decisions_of_a_rapporteur_on_a_subject_are_searched_in_the_decisions(
    court_corpus: Store,
) -> None:
    # "decisões … sobre" asks the decisions, as "acórdão" does: not the laws on dispensa
    result = await RagPipeline(court_corpus, "leis").run(
        "decisoes do relator Otavio Ramos sobre dispensa de licitacao"
    )
    assert result["answer"].startswith("Jurisprudência (coleção 'jurisprudencia'):")
    assert result["citations"][0]["label"] == "Acórdão 1234/2019-Plenário, rel. Min. Otávio Ramos"


async def test_a_rapporteur_the_statements_do_not_record_is_said_and_the_subject_searched(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # the shipped statements alone: none names its decision's rapporteur
    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('juris') / 'j.db'}")
    statements = CsvColumns("", "", layout="jurisprudence")
    shipped = DATA_DIR / "juristcu" / "docs.csv"
    assert not ingest(store, "jurisprudencia", [shipped], csv_columns=statements).errors
    assert not ingest(store, "leis", [LAWS / "lei_9784_19990129.csv"]).errors
    result = await RagPipeline(store, "leis").run(
        "decisoes do relator benjamin zymler sobre dispensa de licitacao"
    )
    assert any("não registra o relator" in n for n in result["notes"]), result["notes"]
    first = result["citations"][0]
    chunk = store.get_chunks("jurisprudencia", [first["chunk_id"]])[first["chunk_id"]]
    # on the subject asked, not a statement that merely says "relator"
    assert "dispens" in chunk.text.lower(), chunk.text
