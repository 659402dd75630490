"""A question about when a norm came into force reaches the norm's own vigência clause
("Esta Lei entra em vigor…"), found by its drafting in any collection, whatever words it shares
with the question: "quando a LGPD entrou em vigor?" is LGPD Art. 65, not Art. 55-G or 34."""

from __future__ import annotations

import pytest
from first_ranked import first_ranked, words_only_laws

from colmeia.apps.assistant.definitions import DefinitionIndex
from colmeia.store import Store


@pytest.fixture(scope="module")
def laws(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return words_only_laws(tmp_path_factory.mktemp("vig"))


@pytest.mark.parametrize(
    ("question", "article"),
    [
        ("quando a LGPD entrou em vigor?", "Lei 13.709/2018, Art. 65"),
        ("Quando a lei de acesso à informação entrou em vigor?", "Lei 12.527/2011, Art. 47"),
        ("A partir de quando vale a lei do governo digital?", "Lei 14.129/2021, Art. 55"),
        ("Quando o código de defesa do consumidor entrou em vigor?", "Lei 8.078/1990, Art. 118"),
    ],
)
def test_a_vigencia_question_gets_the_norms_vigencia_clausefirst_ranked(
    laws: Store, question: str, article: str
) -> None:
    path, _ = first_ranked(laws, question)
    assert path.startswith(article)


def test_every_shipped_norm_has_its_clause_indexed_and_other_questions_are_untouched(
    laws: Store,
) -> None:
    index = DefinitionIndex.for_collection(laws, "docs")
    # eight of the nine shipped norms say when they start (the 1942 LINDB text does not)
    assert len(index.in_force) == 8
    assert "Lei 8.078/1990" in index.in_force  # "Este Código entrará em vigor…"
    path, analysis = first_ranked(laws, "qual o prazo para recorrer de uma decisão administrativa?")
    assert "in_force" not in analysis
    assert path.startswith("Lei 9.784/1999, Art. 59")
