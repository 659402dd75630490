"""Issue 32: a question that names an article's inciso or paragraph gets that one — "o que diz
o art. 71 inciso II da constituição?" is the court's power to judge the accounts of those who
manage public money, not inciso XI (the article was found, and its passages were ranked by
their words: XI won). Typed as people type: "inc. lxxiii", "§ 3º", "§1", "parágrafo único"."""

from __future__ import annotations

import asyncio

import pytest

from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.rag_query import analyze_query
from colmeia.rag.pipeline import ingest
from colmeia.store import Store, open_store
from shared_data import DATA_DIR


@pytest.fixture(scope="module")
def norms(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """The Constitution, Lei 9.784 and Lei 13.303, as shipped, lexical only."""
    store = open_store(str(tmp_path_factory.mktemp("norms") / "norms.db"))
    laws = DATA_DIR / "laws" / "lexml"
    ingest(
        store,
        "docs",
        [
            DATA_DIR / "laws" / "constituicao" / "lexml",
            laws / "lei_9784_19990129.csv",
            laws / "lei_13303_20160630.csv",
        ],
    )
    return store


def _first(store: Store, question: str) -> str:
    result = asyncio.run(RagPipeline(store, "docs", None).run(question))
    return str(result["citations"][0]["label"])


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("o que diz o art. 71 inciso II da constituicao?", "CF/88, Art. 71, inciso II"),
        ("e o inciso IV do art 71 da CF?", "CF/88, Art. 71, inciso IV"),
        ("art. 5, inc. lxxiii da CF", "CF/88, Art. 5º, inciso LXXIII"),
        ("art 66 § 3º da lei 9784", "Lei 9.784/1999, Art. 66, § 3º"),
        ("o caput do art. 37 da constituicao", "CF/88, Art. 37"),
        # the inciso in the digits people type it in (issue 31, blind set 6)
        ("o q diz o art 5 inciso 33 da cf", "CF/88, Art. 5º, inciso XXXIII"),
        # a follow-up naming the part after the article, written out with the thread's norm
        ("e o art 37 caput (CF/88)", "CF/88, Art. 37"),
    ],
)
def test_the_named_inciso_or_paragraph_is_cited_first(
    norms: Store, question: str, label: str
) -> None:
    assert _first(norms, question) == label


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("o que diz o art. 71 inciso II da constituicao?", {"inciso": "II"}),
        ("art. 48 §1 da LGPD", {"paragraph": "1"}),
        ("o paragrafo 2 do art 48 da lgpd", {"paragraph": "2"}),
        ("art. 53, parágrafo único da lei 13303", {"paragraph": "unico"}),
        ("o art. 71 da CF", {}),
        ("o caput do art. 37 da CF", {"caput": True}),
        ("art 5 inciso 33 da cf", {"inciso": "XXXIII"}),
        ("art. 37, inc. 2", {"inciso": "II"}),
        ("qual o inciso que fala de contas?", {}),  # no article named: nothing to narrow
    ],
)
def test_the_part_named_is_read_beside_its_article(question: str, parts: dict[str, object]) -> None:
    filters = analyze_query(question)["filters"]
    named = {k: v for k, v in filters.items() if k in ("inciso", "paragraph", "caput")}
    assert named == parts
