"""A law named by its popular name ("a lei das estatais", "a LGPD") is the filter of the search;
its subject words ("empresa pública, sociedade de economia mista") join the query only when the
question asks about the law itself, not when it has a subject of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.rag_query import analyze_query
from colmeia.config import EmbeddingsSettings
from colmeia.rag.index.embedders import default_embedder
from colmeia.rag.pipeline import ingest
from colmeia.store import open_store

LAWS = Path(__file__).resolve().parents[3] / "data" / "laws" / "lexml"


def test_the_laws_own_words_join_only_a_question_about_the_law_itself() -> None:
    alone = analyze_query("o que diz a lei das estatais?")
    assert "sociedade de economia mista" in alone["processed"]
    own = analyze_query("e a lei das estatais, quem pode ser diretor de empresa publica")
    assert own["filters"]["law_number"] == "13303"
    assert "sociedade de economia mista" not in own["processed"]
    assert "diretor de empresa publica" in own["processed"]


@pytest.mark.default_embedder
async def test_a_question_with_its_own_subject_reaches_the_article_on_it(tmp_path: Path) -> None:
    # Lei 13.303 searched as shipped (words + the default offline vectors)
    embedder = default_embedder(EmbeddingsSettings())
    store = open_store(f"sqlite:///{tmp_path / 'leis.db'}")
    ingest(store, "leis", [LAWS / "lei_13303_20160630.csv"], embedder=embedder)
    try:
        rag = RagPipeline(store, "leis", embedder=embedder)
        result = await rag.run("e a lei das estatais, quem pode ser diretor de empresa publica")
        about = await rag.run("o que diz a lei das estatais?")
    finally:
        store.close()
    first = result["citations"][0]
    # Red when the law's words join the query: Art. 3 (what an empresa pública is) leads,
    # not Art. 17 (who may be appointed to its board and its directorship)
    assert (first["law"], first["article"]) == ("Lei 13.303/2016", "17"), result["citations"]
    assert about["citations"] and about["citations"][0]["law"] == "Lei 13.303/2016"
