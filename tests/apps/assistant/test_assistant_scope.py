"""A question about whom a norm covers ("a quem se aplica…", "quem tem que cumprir…", "vale
para…") reaches the norm's own scope clause ("Esta Lei aplica-se…", "não se aplica…",
"Subordinam-se ao regime desta Lei"), found by its drafting: the lay words ("cumprir", "vale")
are not the law's."""

from __future__ import annotations

import asyncio

import pytest
from first_ranked import first_ranked, words_only_laws

from colmeia.apps.assistant.definitions import DefinitionIndex
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.relations import asked_relation, states_relation
from colmeia.store import Store


@pytest.fixture(scope="module")
def laws(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return words_only_laws(tmp_path_factory.mktemp("scope"))


@pytest.mark.parametrize(
    ("question", "article"),
    [
        ("Quem tem que cumprir a lei do governo digital?", "Lei 14.129/2021, Art. 2º"),
        ("A LGPD vale para quem usa dados só para fins particulares?", "Lei 13.709/2018, Art. 4º"),
        ("A lei das concessões se aplica a radiodifusão?", "Lei 8.987/1995, Art. 41"),
    ],
)
def test_a_scope_question_gets_the_norms_scope_clausefirst_ranked(
    laws: Store, question: str, article: str
) -> None:
    path, analysis = first_ranked(laws, question)
    assert analysis["relation"] == "scope"
    assert path.startswith(article)


def test_scope_clauses_are_indexed_by_their_drafting() -> None:
    assert asked_relation("a quem se aplica a lei de acesso à informação?") == "scope"
    assert asked_relation("a partir de quando vale a LGPD?") != "scope"  # vigência
    assert states_relation("scope", "Subordinam-se ao regime desta Lei: os órgãos públicos")
    assert not states_relation("scope", "O pedido será atendido no prazo de 20 dias.")


def test_every_norm_with_a_scope_clause_is_indexed_and_other_questions_are_untouched(
    laws: Store,
) -> None:
    index = DefinitionIndex.for_collection(laws, "docs")
    assert "Lei 12.527/2011" in index.scope  # "Subordinam-se ao regime desta Lei"
    assert "Lei 13.709/2018" in index.scope  # "Esta Lei aplica-se…", "não se aplica"
    path, analysis = first_ranked(laws, "qual o prazo para recorrer de uma decisão administrativa?")
    assert "scope" not in analysis
    assert path.startswith("Lei 9.784/1999, Art. 59")


def test_the_scope_clause_is_the_answer_not_a_passage_found_nothing(laws: Store) -> None:
    # its words ("vale", "jornalista") are not the clause's, yet the clause is what is asked
    result = asyncio.run(
        RagPipeline(laws, "docs", None).run("A LGPD vale para o trabalho de jornalistas?")
    )
    labels = [c["label"] for c in result["citations"]]
    # words alone cannot tell "jornalistas" is Art. 4º's "jornalístico": both clauses quoted
    assert any(label.startswith("Lei 13.709/2018, Art. 4º") for label in labels), labels
