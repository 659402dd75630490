"""Document expansion from generated lay questions (:mod:`colmeia.rag.expansion`): an article
whose generated questions share the lay question's words (or lie near it in the vector
space) is found and lifted, its siblings' own words still order them, other documents get
nothing, and the shipped questions name real articles of the shipped laws (real SQLite
store; the vectors from the simulated server's /v1/embeddings)."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from colmeia.errors import ConfigurationError
from colmeia.rag.expansion import (
    ENV,
    ArticleExpansion,
    article_urn,
    expansion_version,
    shipped_questions,
)
from colmeia.rag.index.embedders import HTTPEmbedder
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Retriever
from colmeia.sim.engine import SimulatedModel
from colmeia.store import open_store

URN = "urn:lex:br:federal:lei:2020-01-01;9999"
ROWS = [
    ("CPT", "Art. 59, caput", "É de dez dias o prazo para interposição de recurso.", "art59_cpt"),
    ("PAR", "Art. 59, § 1º", "O prazo poderá ser prorrogado por igual período.", "art59_par1"),
    ("CPT", "Art. 60, caput", "Os autos serão arquivados ao fim do processo.", "art60_cpt"),
    ("CPT", "Art. 61, caput", "A autoridade competente decidirá o pedido.", "art61_cpt"),
]
QUESTIONS = {
    f"{URN}!art59": ["Quanto tempo eu tenho para contestar a decisão?"],
    f"{URN}!art60": ["O que fazem com os papéis quando termina?"],
}
LAY = "quanto tempo tenho pra contestar"
ROOT = Path(__file__).resolve().parents[2]


def _write_law(folder: Path) -> Path:
    folder.mkdir()
    lines = ["Tipo,Rotulo,Num_Inicio,Num_Final,Texto,urn"]
    for n, (kind, label, text, urn) in enumerate(ROWS):
        lines.append(
            f'"{kind}","lei_9999_20200101, {label}",{2 * n},{2 * n + 1},'
            f'"[ Regula o processo | ] {text}",{URN}!{urn}'
        )
    (folder / "lei_9999_20200101.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def questions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "questions.jsonl"
    rows = [
        json.dumps({"article": a, "questions": q}, ensure_ascii=False) for a, q in QUESTIONS.items()
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    monkeypatch.setenv(ENV, str(path))
    return path


@pytest.fixture
def embedder(sim_server) -> Iterator[HTTPEmbedder]:  # type: ignore[no-untyped-def]
    srv = sim_server(SimulatedModel(embedding_dim=64))
    with HTTPEmbedder(srv.base_url, "sim-embed", batch_size=4) as emb:
        yield emb


def _paths(retriever: Retriever, query: str) -> list[str]:
    return [hit.citation.path for hit in retriever.search(query, k=5)]


def test_the_article_is_found_by_its_generated_questions_words(
    tmp_path: Path, questions: Path
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    try:
        ingest(store, "leis", [_write_law(tmp_path / "lexml")])
        plain = _paths(Retriever(store, "leis"), LAY)
        expanded = _paths(Retriever(store, "leis", expansion_weight=0.3), LAY)
    finally:
        store.close()
    # "contestar" and "tempo" are words of the generated question alone
    assert not any("Art. 59" in p for p in plain)
    assert expanded[0].endswith("Art. 59")
    # both of the article's passages get its questions; Art. 61 has none
    assert any(p.endswith("Art. 59, § 1º") for p in expanded)
    assert not any("Art. 61" in p for p in expanded)


def test_the_vector_side_lifts_the_article_whose_questions_lie_nearest(
    tmp_path: Path, questions: Path, embedder: HTTPEmbedder
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    try:
        ingest(store, "leis", [_write_law(tmp_path / "lexml")], embedder=embedder)
        query = "o que fazem com os papeis quando termina?"
        plain = Retriever(store, "leis", embedder=embedder, expansion_dense_weight=0).search(
            query, k=5
        )
        lifted = Retriever(store, "leis", embedder=embedder, expansion_dense_weight=0.5).search(
            query, k=5
        )
    finally:
        store.close()
    assert not plain[0].citation.path.endswith("Art. 60")
    assert lifted[0].citation.path.endswith("Art. 60")
    # the third list is one more rank beside the words' and the vectors'
    assert lifted[0].score > plain[0].score


def test_off_turns_the_expansion_off(
    tmp_path: Path, questions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "off")
    assert shipped_questions() == {}
    assert expansion_version() == "off"
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    try:
        ingest(store, "leis", [_write_law(tmp_path / "lexml")])
        paths = _paths(Retriever(store, "leis", expansion_weight=0.3), LAY)
    finally:
        store.close()
    assert not any("Art. 59" in p for p in paths)


def test_an_unreadable_questions_file_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, str(tmp_path / "missing.jsonl"))
    with pytest.raises(ConfigurationError, match="doc2query"):
        shipped_questions()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"questions": ["a"]}\n', encoding="utf-8")
    monkeypatch.setenv(ENV, str(bad))
    with pytest.raises(ConfigurationError, match="line 1"):
        shipped_questions()


def test_passages_are_aligned_with_their_articles_questions() -> None:
    assert article_urn(f"{URN}!art59_par1u") == f"{URN}!art59"
    assert article_urn(f"{URN}!art5-a_cpt_inc2") == f"{URN}!art5-a"
    assert article_urn(f"{URN}!art59") == f"{URN}!art59"
    assert article_urn("relatorio.pdf") == ""
    table = {f"{URN}!art59": ("a?", "b?"), f"{URN}!art60": ("c?",)}
    docs = [f"{URN}!art60_cpt", "other", f"{URN}!art59_cpt", f"{URN}!art59_par1"]
    exp = ArticleExpansion(docs, table)
    assert exp.articles == [f"{URN}!art60", f"{URN}!art59"]
    assert exp.rows.tolist() == [0, -1, 1, 1]
    assert exp.questions == ["c?", "a?", "b?"]
    assert exp.owners.tolist() == [0, 1, 1]
    np.testing.assert_allclose(exp.per_passage(np.array([2.0, 5.0])), [2.0, 0.0, 5.0, 5.0])


def test_the_shipped_questions_name_articles_of_the_shipped_laws(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    shipped = shipped_questions()
    assert shipped, "the package ships generated questions"
    articles: set[str] = set()
    for path in (ROOT / "data" / "laws").rglob("lexml/*.csv"):
        with path.open(encoding="utf-8", newline="") as fh:
            articles.update(article_urn(row.get("urn", "")) for row in csv.DictReader(fh))
    assert set(shipped) <= articles
    for questions in shipped.values():
        assert 1 <= len(questions) <= 3
        assert all(len(q) <= 200 and re.search(r"\w", q) for q in questions)
