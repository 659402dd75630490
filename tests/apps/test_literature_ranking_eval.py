"""Ranking works (offline fusion, or a model's judgement) and `colmeia eval review` with a model:
queries written by it, generation judged by it with the random-context control, in one run.

A small catalogue of six works on distinct topics keeps the figures exact: the simulated model
(real HTTP) answers by a script that the assertions mirror.
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from colmeia.apps.literature import Review, arun_review, import_library
from colmeia.apps.literature.evaluate import aevaluate_review
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
    # Each field of the answer the rubric lists is rated: the summary as the whole answer,
    # the objectives one point lower.
    asked = re.search(r"fields: para CADA campo da resposta \(([^)]*)\)", prompt)
    fields = {
        name: FIELD_RATINGS[name][good] for name in (asked.group(1).split(", ") if asked else [])
    }
    return json.dumps(
        {
            "passages": verdicts,
            "claims": claims,
            "answer_relevance": 3 if good else 1,
            "fields": fields,
        },
        ensure_ascii=False,
    )


#: The scripted judge's rating of each field: (without a relevant passage, with one).
FIELD_RATINGS = {"summary": (1, 3), "objectives": (1, 2), "conclusions": (0, 0)}


def _pick(req: SimRequest) -> str:
    """The scripted judge of passages mixed with distractors: it picks those naming the topic."""
    prompt = req.text()
    question = re.search(r"Pergunta: (.*)", prompt)
    topic = _topic(question.group(1) if question else "")
    passages = re.findall(r"^\[(T\d+)\] (.*?)(?=^\[T\d+\] |\Z)", prompt, re.M | re.S)
    picked = [tid for tid, text in passages if topic and topic in text.lower()]
    return json.dumps({"relevant": picked})


#: The scripted reader's answer for every work.
READING = {
    "summary": {"text": "O trabalho trata do tema da pergunta.", "passages": ["P1"]},
    "objectives": {"text": "Analisar o tema.", "passages": ["P1"]},
    "conclusions": {"text": "não informado", "passages": []},
    "relevance": "alta",
    "why": "Trata da pergunta.",
}


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
        return json.dumps(READING, ensure_ascii=False)
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
    # The first five works found for each query are read and judged (the catalogue has six).
    assert (gen["works_per_query"], gen["works_judged"], gen["works_failed"]) == (5, 20, 0)
    # At the top level, rank 1 alone, as runs that judged only that work reported it.
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
    # Over all 20 works: ranks 2-5 are other works, whose passages never name the topic
    # (context 0, one claim of four supported, a tangential answer).
    assert gen["all_works"]["context_relevance"] == (4 * 1.0 + 16 * 0.0) / 20
    assert gen["all_works"]["faithfulness"] == (4 * 0.75 + 16 * 0.25) / 20
    assert gen["all_works"]["answer_relevance"] == round((4 * 1.0 + 16 / 3) / 20, 4)
    # Per field of the reading ("conclusions" is "não informado": neither rated nor embedded),
    # the judge's rating / 3 and the cosine of the field's text to the query's abstract, as
    # mean ± sample sd over the 20 works and over the 4 first works.
    assert set(gen["fields"]) == {"summary", "objectives"}
    for name in ("summary", "objectives"):
        bad, good = (r / 3 for r in FIELD_RATINGS[name])
        rated = [good] * 4 + [bad] * 16
        assert gen["fields"][name]["answer_relevance"] == {
            "mean": round(statistics.fmean(rated), 4),
            "sd": round(statistics.stdev(rated), 4),
            "n": 20,
        }
        assert gen["fields_rank_1"][name]["answer_relevance"] == {
            "mean": round(good, 4),
            "sd": 0.0,
            "n": 4,
        }
    similar = _field_similarities(srv, tmp_path, lines=saved.read_text("utf-8").splitlines()[:4])
    for name, values in similar.items():
        figures = gen["fields"][name]["similarity_to_abstract"]
        every = [v for v in values for _ in range(5)]  # one value per query, five works each
        assert figures["n"] == 20
        assert figures["mean"] == pytest.approx(statistics.fmean(every), abs=1e-4)
        assert figures["sd"] == pytest.approx(statistics.stdev(every), abs=1e-4)
    # Seconds per query: the mean kept where it was, sd and n beside it.
    assert data["seconds_per_query_n"] == {
        "lexical": 6, "dense": 6, "hybrid": 6, "reranked": 6, "reranked (model)": 6,
        "generation": 4,
    }  # fmt: skip
    assert set(data["seconds_per_query_sd"]) == set(data["seconds_per_query"])
    assert all(v is not None and v >= 0 for v in data["seconds_per_query_sd"].values())
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "faithfulness_random_context" in html and html.count("<img") == 4
    assert (out / "generation.png").stat().st_size > 5000
    summary = gen["fields"]["summary"]["answer_relevance"]
    assert f"{summary['mean']} ± {summary['sd']} (n = 20)" in html
    lexical = f"{data['seconds_per_query']['lexical']} ± {data['seconds_per_query_sd']['lexical']}"
    assert f"<td>{lexical}</td>" in html
    # One query per work; the model reranker judges the 6 works of each query; per judged
    # query five readings and judgements (the works found), one reading and judgement of
    # random passages, and one judgement of the first work's and the random passages mixed.
    kinds = [_kind(r) for r in srv.sim.requests]
    assert kinds.count("query") == 6
    assert kinds.count("rerank") == 36
    assert (kinds.count("review"), kinds.count("judge"), kinds.count("mixed")) == (24, 24, 4)
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


def _field_similarities(srv: Any, tmp_path: Path, lines: list[str]) -> dict[str, list[float]]:
    """Per field the scripted reader writes, its cosine to the abstract of each query's work
    (the queries of ``lines``), embedded here by the same server."""
    store = open_store(f"sqlite:///{tmp_path / 'home' / 'colmeia.db'}", mode="read")
    abstracts = {d.doc_id: str(d.metadata["abstract"]) for d in store.documents("obras")}
    store.close()
    texts = {"summary": READING["summary"]["text"], "objectives": READING["objectives"]["text"]}
    out: dict[str, list[float]] = {name: [] for name in texts}
    with HTTPEmbedder(srv.base_url, "sim") as emb:
        for line in lines:
            abstract = abstracts[json.loads(line)["doc_id"]]
            vecs = emb.embed([*texts.values(), abstract])
            for i, name in enumerate(texts):
                out[name].append(float(vecs[i] @ vecs[-1]))
    return out


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


@pytest.mark.parametrize("failing", ["the others", "the first"])
def test_works_whose_reading_fails_are_counted_and_the_rest_stand(  # type: ignore[no-untyped-def]
    catalogue: Path, tmp_path: Path, sim_server, failing: str
) -> None:
    """The reader fails (prose, not JSON) on every work but the question's own, or on that one
    alone (never on the control, read from random passages under the first work's title): the
    works read are counted as judged or failed, and the first work's figures and its control's
    stand only when the first work was judged."""

    def respond(req: SimRequest) -> str:
        system = req.text(roles=("system",))
        if "pesquisador experiente" in system:
            topic = _topic(req.text(roles=("user",)))
            given = system.split("Trechos do trabalho")[-1].lower()
            own = topic is not None and topic in given  # its passages name the topic
            control = not own and topic is not None and WORKS[topic][0] in system
            if (failing == "the first") == own and not control:
                return "Não consigo responder em JSON."
        return _respond(req)

    srv = sim_server(SimulatedModel(responder=respond))
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")

    async def go():  # type: ignore[no-untyped-def]
        model = _model(srv)
        try:
            with HTTPEmbedder(srv.base_url, "sim") as emb:
                import_library(store, "obras", [catalogue], embedder=emb)
                return await aevaluate_review(
                    store, "obras", embedder=emb, model=model, generation_queries=4, ks=(10,)
                )
        finally:
            await model.aclose()

    report = asyncio.run(go())
    gen = report.generation
    assert [len(s.works) for s in report.samples] == [5, 5, 5, 5]
    failed = [w for s in report.samples for w in s.works if w.error]
    assert all(w.error.startswith("the reading failed") for w in failed)
    if failing == "the others":
        assert (gen["judged"], gen["works_judged"], gen["works_failed"]) == (4, 4, 16)
        assert {w.rank for w in failed} == {2, 3, 4, 5}
        assert gen["all_works"]["context_relevance"] == gen["context_relevance"] == 1.0
        assert gen["fields"]["summary"]["answer_relevance"]["n"] == 4
        assert gen["context_relevance_random_context"] == 0.0  # the control was judged
    else:
        assert (gen["judged"], gen["works_judged"], gen["works_failed"]) == (0, 16, 4)
        assert {w.rank for w in failed} == {1}
        assert gen["all_works"]["context_relevance"] == 0.0
        assert gen["fields_rank_1"] == {}
        # No first work judged, no control read: its figures are not given for any query.
        assert gen["context_relevance_random_context"] is None
        assert all(s.error.startswith("the reading failed") for s in report.samples)
    assert report.notes[-1].startswith(
        f"{gen['works_failed']} of the works read for generation not judged: the reading failed"
    )
    store.close()
