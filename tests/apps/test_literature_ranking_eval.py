"""Ranking works (offline fusion, or a model's judgement) and `colmeia eval review` with a model:
queries written by it, generation judged by it with the random-context control, in one run.

A small catalogue of six works on distinct topics keeps the figures exact: the simulated model
(real HTTP) answers by a script that the assertions mirror.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from colmeia.apps.literature import Review, arun_review, import_library
from colmeia.apps.literature.ranking import rerank_works
from colmeia.llm import OpenAIChatModel
from colmeia.rag.index.embedders import HTTPEmbedder
from colmeia.rag.rerank import HTTPReranker, LLMReranker
from colmeia.rag.retrieve import Retriever
from colmeia.sim import Reply, SimRequest, SimulatedModel
from colmeia.store import open_store

# topic word → (title, abstract). Second sentences name the topic; titles do not repeat them.
WORKS = {
    "saneamento": (
        "Gestão regional de serviços públicos em municípios pequenos",
        "Esta dissertação estuda consórcios municipais. O saneamento básico rural depende de "
        "tarifas sociais e de metas de universalização do esgoto.",
    ),
    "alfabetização": (
        "Práticas docentes nos anos iniciais",
        "Esta tese acompanha professoras de escolas públicas. A alfabetização de crianças na "
        "pandemia exigiu atividades remotas de leitura e escrita.",
    ),
    "vacinação": (
        "Campanhas de saúde coletiva no interior",
        "Esta dissertação analisa unidades básicas de saúde. A vacinação infantil caiu com a "
        "desinformação em grupos de mensagens.",
    ),
    "mobilidade": (
        "Deslocamentos cotidianos nas metrópoles",
        "Esta tese mede tempos de viagem. A mobilidade urbana por ônibus piorou com a redução "
        "de linhas noturnas nas periferias.",
    ),
    "agroecologia": (
        "Cooperativas e mercados institucionais",
        "Esta dissertação descreve feiras e cooperativas. A agroecologia familiar cresceu com "
        "compras públicas para a merenda escolar.",
    ),
    "licitação": (
        "Controle externo das contratações",
        "Esta tese examina acórdãos do tribunal de contas. A licitação de obras com sobrepreço "
        "foi o achado mais frequente das auditorias.",
    ),
}


def _ris() -> str:
    out = []
    for i, (title, abstract) in enumerate(WORKS.values(), start=1):
        out += [
            "TY  - THES",
            f"TI  - {title}",
            f"AU  - Autora, Número {i}",
            f"PY  - {2019 + i}",
            f"AB  - {abstract}",
            "ER  - ",
        ]
    return "\n".join(out) + "\n"


def _topic(text: str) -> str | None:
    low = text.lower()
    return next((t for t in WORKS if t in low), None)


def _judge(req: SimRequest) -> str:
    """The scripted judge: a passage is relevant when it names the question's topic; with a
    relevant passage 3 of 4 claims are supported and the answer fully addresses the question,
    without one only 1 of 4, tangentially."""
    prompt = req.text()
    question = re.search(r"Pergunta: (.*)", prompt)
    topic = _topic(question.group(1) if question else "")
    given = prompt.split("Resposta do sistema")[0]
    passages = re.findall(r"^\[(P\d+)\] (.*?)(?=^\[P\d+\] |\Z)", given, re.M | re.S)
    verdicts = [
        {"id": pid, "relevant": bool(topic and topic in text.lower())} for pid, text in passages
    ]
    good = any(v["relevant"] for v in verdicts)
    claims = [{"claim": f"afirmação {i}", "supported": i < (3 if good else 1)} for i in range(4)]
    return json.dumps(
        {"passages": verdicts, "claims": claims, "answer_relevance": 3 if good else 1},
        ensure_ascii=False,
    )


def _pick(req: SimRequest) -> str:
    """The scripted judge of passages mixed with distractors: it picks those naming the topic."""
    prompt = req.text()
    question = re.search(r"Pergunta: (.*)", prompt)
    topic = _topic(question.group(1) if question else "")
    passages = re.findall(r"^\[(T\d+)\] (.*?)(?=^\[T\d+\] |\Z)", prompt, re.M | re.S)
    picked = [tid for tid, text in passages if topic and topic in text.lower()]
    return json.dumps({"relevant": picked})


def _respond(req: SimRequest) -> str:
    prompt = req.text()
    if "quais trechos ajudam a responder" in prompt:
        return _pick(req)
    if "Você cria consultas de busca" in prompt:
        # The abstract's second sentence, as a query: it names the topic, not the title.
        abstract = re.search(r"Resumo: (.*)", prompt)
        second = (abstract.group(1) if abstract else "").split(". ")[-1].rstrip(".")
        return json.dumps({"query": f"O que as pesquisas dizem sobre: {second.lower()}?"})
    if "Você avalia, com rigor" in prompt:
        return _judge(req)
    if "pesquisador experiente" in prompt:
        body = {
            "summary": {"text": "O trabalho trata do tema da pergunta.", "passages": ["P1"]},
            "objectives": {"text": "Analisar o tema.", "passages": ["P1"]},
            "conclusions": {"text": "não informado", "passages": []},
            "relevance": "alta",
            "why": "Trata da pergunta.",
        }
        return json.dumps(body, ensure_ascii=False)
    if "Você avalia se um trabalho acadêmico" in prompt:  # the work reranker
        score = 10 if "Cooperativas" in prompt else 2
        return json.dumps({"score": score, "reason": "roteiro do teste"})
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


@pytest.fixture
def catalogue(tmp_path: Path) -> Path:
    path = tmp_path / "obras.ris"
    path.write_text(_ris(), encoding="utf-8")
    return path


def test_a_record_is_one_passage_counted_as_the_abstract(catalogue: Path, tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    report = import_library(store, "obras", [catalogue])
    assert report.ingest is not None
    # One passage per record (title, abstract, keywords), not six overlapping windows.
    assert report.ingest.chunks == len(WORKS)
    review = asyncio.run(arun_review(store, "obras", "vacinação infantil", top=1))
    assert review.works[0].title == WORKS["vacinação"][0]
    assert [p.section for p in review.works[0].passages] == ["resumo"]
    store.close()


def test_offline_rerank_reads_stored_record_vectors_instead_of_embedding_again(  # type: ignore[no-untyped-def]
    catalogue: Path, tmp_path: Path, sim_server
) -> None:
    srv = sim_server(SimulatedModel())
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    with HTTPEmbedder(srv.base_url, "sim") as emb:
        import_library(store, "obras", [catalogue], embedder=emb)
        retriever = Retriever(store, "obras", embedder=emb)
        docs = store.documents("obras")
        ids, matrix = store.vectors("obras")
        stored = retriever.chunk_vectors([f"{d.doc_id}#0" for d in docs])
        assert np.allclose(stored[ids[0]], matrix[0])
        srv.sim.reset_stats()
        order = rerank_works("transporte por ônibus e mobilidade urbana", docs, retriever)
        assert srv.sim.stats()["embedding_inputs"] == 1  # the question only
        assert docs[order[0]].title == WORKS["mobilidade"][0]
    store.close()


def _model(srv: Any) -> OpenAIChatModel:
    return OpenAIChatModel(base_url=srv.base_url, model="sim", max_repairs=1)


def test_a_model_reranker_orders_works_by_its_judgement(
    catalogue: Path, tmp_path: Path, sim_server
) -> None:  # type: ignore[no-untyped-def]
    srv = sim_server(SimulatedModel(responder=_respond))
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    import_library(store, "obras", [catalogue])
    question = "licitação de obras com sobrepreço e compras públicas"

    async def go(reranker: Any) -> Review:
        return await arun_review(store, "obras", question, top=3, reranker=reranker)

    offline = asyncio.run(go(None))
    assert offline.works[0].title == WORKS["licitação"][0]  # more words of the question

    async def with_llm() -> Review:
        model = _model(srv)
        try:
            reranker = LLMReranker(model, prompt=("colmeia.apps.literature", "rerank_work.j2"))
            return await go(reranker)
        finally:
            await model.aclose()

    judged = asyncio.run(with_llm())
    assert judged.works[0].title == WORKS["agroecologia"][0]  # the judge gave it 10, others 2
    assert judged.works[0].rerank_score == 10.0
    assert judged.ranking.endswith("LLMReranker")
    # Ties (all 2) keep the offline order behind the winner.
    rest = [w.title for w in offline.works if w.title != WORKS["agroecologia"][0]]
    assert [w.title for w in judged.works[1:]] == rest[:2]

    # The HTTP rerank API (the simulated server's /rerank, Cohere format).
    third = offline.works[2].title
    srv.sim.rerank_scorer = lambda q, doc: 0.9 if doc.startswith(third) else 0.1
    by_api = asyncio.run(go(HTTPReranker(srv.base_url, "rr")))
    assert by_api.works[0].title == third
    assert by_api.works[0].rerank_score == pytest.approx(0.9)
    assert srv.sim.stats()["rerank_requests"] == 1
    store.close()


def test_a_failing_reranker_keeps_the_offline_order_and_says_so(  # type: ignore[no-untyped-def]
    catalogue: Path, tmp_path: Path, sim_server
) -> None:
    srv = sim_server(SimulatedModel(script=[Reply.http_error(400, "modelo indisponível")] * 20))
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    import_library(store, "obras", [catalogue])

    async def go() -> Review:
        model = _model(srv)
        try:
            reranker = LLMReranker(model, top_n=3)
            return await arun_review(store, "obras", "vacinação infantil", top=2, reranker=reranker)
        finally:
            await model.aclose()

    review = asyncio.run(go())
    assert review.works[0].title == WORKS["vacinação"][0]
    assert review.ranking == "search+title/abstract"
    assert "reranker failed" in review.warnings[0]
    store.close()


def test_eval_review_with_a_model_reports_generation_metrics_and_the_control(  # type: ignore[no-untyped-def]
    catalogue: Path, tmp_path: Path, sim_server, colmeia_cli
) -> None:
    srv = sim_server(SimulatedModel(responder=_respond))
    env = {
        "COLMEIA_LLM_BASE_URL": srv.base_url,
        "COLMEIA_LLM_MODEL": "sim",
        "COLMEIA_EMBEDDINGS_BASE_URL": srv.base_url,
        "COLMEIA_EMBEDDINGS_MODEL": "sim",
        "COLMEIA_RERANK_KIND": "llm",
    }
    code, _, err = colmeia_cli("review", "import", str(catalogue), "-c", "obras", env=env)
    assert code == 0, err
    out = tmp_path / "avaliacao"
    saved = tmp_path / "consultas.jsonl"
    code, stdout, err = colmeia_cli(
        "eval", "review", "-c", "obras", "--generation", "4", "--json", "--out", str(out),
        "--save-queries", str(saved), env=env,
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(stdout)
    assert data["query_source"] == "model" and data["queries"] == len(WORKS)
    assert data["query_profile"]["title_words_repeated_mean"] == 0.0
    assert set(data["variants"]) == {"lexical", "dense", "hybrid", "reranked", "reranked (model)"}
    assert data["variants"]["lexical"]["p@1"] == 1.0  # each question names its work's topic
    gen = data["generation"]
    assert (gen["queries"], gen["judged"]) == (4, 4)
    # The review reads the right work: its one passage names the topic; the control reads one
    # passage of another work, which never does.
    assert gen["context_relevance"] == 1.0
    assert gen["context_relevance_random_context"] == 0.0
    assert gen["faithfulness"] == 0.75
    assert gen["faithfulness_random_context"] == 0.25
    assert gen["answer_relevance"] == 1.0
    assert gen["answer_relevance_random_context"] == pytest.approx(1 / 3, abs=1e-3)
    # The work's passage and the control's in one shuffled list: the judge picks the work's.
    assert gen["context_relevance_with_distractors"] == 1.0
    assert gen["distractors_judged_relevant"] == 0.0
    similarity = gen["answer_similarity_to_abstract"]
    assert 0.0 < similarity < 1.0
    assert gen["answer_distance_to_abstract"] == pytest.approx(1 - similarity, abs=1e-4)
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "faithfulness_random_context" in html and html.count("<img") == 4
    assert (out / "generation.png").stat().st_size > 5000
    # One query per work; the model reranker judges the 6 works of each query; per judged
    # query two readings (retrieved and random passages), two judgements and one judgement of
    # both sets of passages mixed.
    kinds = [_kind(r) for r in srv.sim.requests]
    assert kinds.count("query") == 6
    assert kinds.count("rerank") == 36
    assert (kinds.count("review"), kinds.count("judge"), kinds.count("mixed")) == (8, 8, 4)
    # Every generating call is bounded: a small local model under a JSON grammar can otherwise
    # repeat itself until its context is full (minutes per call on 2 cores).
    limits = {_kind(r): r.body.get("max_tokens") for r in srv.sim.requests}
    assert 0 < limits["query"] <= 320 and 0 < limits["judge"] <= 900
    assert 0 < limits["review"] <= 1100
    # The saved queries evaluate again without asking the model for new ones: same figures.
    lines = [json.loads(line) for line in saved.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 6 and all(q["source"] == "model" for q in lines)
    srv.sim.requests.clear()
    code, stdout, err = colmeia_cli(
        "eval", "review", "-c", "obras", "--generation", "0", "--json", "--queries", str(saved),
        env=env,
    )  # fmt: skip
    assert code == 0, err
    again = json.loads(stdout)
    assert again["query_source"] == "file" and again["queries"] == 6
    assert again["variants"]["hybrid"] == data["variants"]["hybrid"]
    assert "query" not in [_kind(r) for r in srv.sim.requests]


def _kind(req: SimRequest) -> str:
    text = req.text()
    for marker, kind in (
        ("quais trechos ajudam a responder", "mixed"),
        ("Você cria consultas de busca", "query"),
        ("Você avalia, com rigor", "judge"),
        ("pesquisador experiente", "review"),
        ("Você avalia se um trabalho acadêmico", "rerank"),
    ):
        if marker in text:
            return kind
    return "other"
