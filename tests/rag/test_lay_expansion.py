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

from colmeia.apps.literature.records import read_csv
from colmeia.errors import ConfigurationError
from colmeia.rag.expansion import (
    ENV,
    ArticleExpansion,
    article_urn,
    expansion_version,
    shipped_questions,
    subject_of,
)
from colmeia.rag.index.embedders import HTTPEmbedder
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Retriever
from colmeia.sim.engine import SimulatedModel
from colmeia.store import Store, open_store

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


@pytest.fixture
def law_with_vectors(tmp_path: Path, questions: Path, embedder: HTTPEmbedder) -> Iterator[Store]:
    """The sample law with its questions, ingested with the simulated server's vectors."""
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "leis", [_write_law(tmp_path / "lexml")], embedder=embedder)
    yield store
    store.close()


def _paths(retriever: Retriever, query: str) -> list[str]:
    return [hit.citation.path for hit in retriever.search(query, k=5)]


def test_the_article_is_found_by_its_generated_questions_words(
    tmp_path: Path, questions: Path
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    try:
        ingest(store, "leis", [_write_law(tmp_path / "lexml")])
        plain = _paths(Retriever(store, "leis", expansion_weight=0), LAY)
        # on by default: the shipped laws have their questions
        expanded = _paths(Retriever(store, "leis"), LAY)
    finally:
        store.close()
    # "contestar" and "tempo" are words of the generated question alone
    assert not any("Art. 59" in p for p in plain)
    assert expanded[0].endswith("Art. 59")
    # both of the article's passages get its questions; Art. 61 has none
    assert any(p.endswith("Art. 59, § 1º") for p in expanded)
    assert not any("Art. 61" in p for p in expanded)


def test_the_vector_side_lifts_the_article_whose_questions_lie_nearest(
    law_with_vectors: Store, embedder: HTTPEmbedder
) -> None:
    store = law_with_vectors
    query = "o que fazem com os papeis quando termina?"
    plain = Retriever(
        store, "leis", embedder=embedder, expansion_weight=0, expansion_dense_weight=0
    ).search(query, k=5)
    lifted = Retriever(
        store, "leis", embedder=embedder, expansion_weight=0, expansion_dense_weight=0.5
    ).search(query, k=5)
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
    cf = "urn:lex:br:federal:constituicao:1988-10-05;1988"
    assert article_urn(f"{cf}!adct_art2_par1") == f"{cf}!adct_art2"
    assert article_urn(f"{cf}!art2_cpt") == f"{cf}!art2"
    assert article_urn("relatorio.pdf") == ""
    table = {f"{URN}!art59": ("a?", "b?"), f"{URN}!art60": ("c?",)}
    docs = [f"{URN}!art60_cpt", "other", f"{URN}!art59_cpt", f"{URN}!art59_par1"]
    exp = ArticleExpansion(docs, table)
    assert exp.articles == [f"{URN}!art60", f"{URN}!art59"]
    assert exp.rows.tolist() == [0, -1, 1, 1]
    assert exp.questions == ["c?", "a?", "b?"]
    assert exp.owners.tolist() == [0, 1, 1]
    np.testing.assert_allclose(exp.per_passage(np.array([2.0, 5.0])), [2.0, 0.0, 5.0, 5.0])
    # an article is as near as its nearest question: words matched across several of its
    # questions do not add up
    np.testing.assert_allclose(exp.best_of([0.5, 0.25, 0.75]), [0.5, 0.75])


def test_the_shipped_questions_name_articles_of_the_shipped_laws_and_works_of_the_catalogue(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    shipped = shipped_questions()
    assert shipped, "the package ships generated questions"
    articles: set[str] = set()
    passages: set[str] = set()
    for path in (ROOT / "data" / "laws").rglob("lexml/*.csv"):
        with path.open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                articles.add(article_urn(row.get("urn", "")))
                passages.add(row.get("urn", ""))
    works = {r.id for r in read_csv(ROOT / "data" / "theses" / "capes_resumos.csv")[0]}
    laws = {key for key in shipped if key.startswith("urn:")}
    # an article's questions, or a long article's part's, by the passages it was written from
    assert laws <= articles | passages
    assert set(shipped) - laws == works  # every work of the catalogue has its questions
    # every article has its questions but those whose whole text was revoked or vetoed
    assert len(laws) >= 0.95 * len(articles - {""})
    # at most 8 lay and 2 formal questions written per article, 2 by the local model and 3
    # asked in the development conversation sets
    for questions in shipped.values():
        assert 1 <= len(questions) <= 15
        assert all(len(q) <= 250 and re.search(r"\w", q) for q in questions)
    # the norm a question names is left out (the assistant reads it from the user's question):
    # "o que diz o art. 49 da lei 9.784?" must not match every question that said "Lei 9.784"
    named = re.compile(r"\b(?:lei|decreto-lei)\s*(?:n[º°o]\.?\s*)?\d|\b(?:lgpd|cdc|lai)\b", re.I)
    assert not [q for qs in shipped.values() for q in qs if named.search(q)]
    cdc = "urn:lex:br:federal:lei:1990-09-11;8078"
    # the right of withdrawal, asked in everyday words, is among its article's questions
    assert any("devolv" in q.lower() for q in shipped[f"{cdc}!art49"])


def test_each_passage_gets_its_articles_nearest_question_for_the_ranking(
    law_with_vectors: Store, embedder: HTTPEmbedder
) -> None:
    retriever = Retriever(law_with_vectors, "leis", embedder=embedder)
    ids = {
        h.citation.path: h.chunk_id
        for h in retriever.search("prazo recurso autos autoridade", k=10)
    }
    near = retriever.expansion_similarity(
        "o que fazem com os papeis quando termina?", list(ids.values())
    )
    by_path = {path: near.get(cid) for path, cid in ids.items()}
    # Art. 61 has no questions; both of Art. 59's passages share its question's cosine
    assert "Lei 9.999/2020, Art. 61" in by_path and by_path["Lei 9.999/2020, Art. 61"] is None
    assert by_path["Lei 9.999/2020, Art. 59"] == by_path["Lei 9.999/2020, Art. 59, § 1º"]
    # the question is Art. 60's own: nearest of all
    assert by_path["Lei 9.999/2020, Art. 60"] == max(v for v in by_path.values() if v is not None)
    assert by_path["Lei 9.999/2020, Art. 60"] > 0.99


def test_the_questions_are_matched_by_what_a_query_asks_not_by_the_norm_it_names() -> None:
    # the shipped questions name no norm: a norm named is the assistant's filter, and a query
    # naming an article asks that article's own text
    assert subject_of("a lei 9784 fala algo sobre prazo pra decidir?") == (
        "a fala algo sobre prazo pra decidir?"
    )
    assert subject_of("o que a CF diz sobre o tribunal de contas?") == (
        "o que a diz sobre o tribunal de contas?"
    )
    assert subject_of("o que diz o art. 49 da lei 9.784?") == ""
    assert subject_of("me explica o artigo 2 da lei 9784") == ""
    assert subject_of("posso devolver uma compra feita pela internet?") == (
        "posso devolver uma compra feita pela internet?"
    )
