"""Query expansion by the model: a question in other words than the abstract's finds its work
once the model's rewritings are searched too; without a model nothing changes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from literature_helpers import library_store

from colmeia.apps.literature.evaluate import SyntheticQuery, aevaluate_review
from colmeia.apps.literature.expansion import expand_query, fused_search
from colmeia.rag.retrieve import Retriever

CSV = (
    "Titulo,Resumo\n"
    '"Saberes da docência na escola pública","Entrevistas com professores sobre o estágio '
    'supervisionado e a formação inicial."\n'
    '"Tarifas de água","Consórcios municipais de saneamento e esgoto."\n'
    '"Currículo escolar","Análise de documentos curriculares nacionais."\n'
)
QUESTION = "como os mestres vivem o começo da carreira?"


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    yield from library_store(tmp_path, CSV)


@pytest.fixture
def model(sim_server):  # type: ignore[no-untyped-def]
    from colmeia.llm import OpenAIChatModel
    from colmeia.sim import SimRequest, SimulatedModel

    def respond(req: SimRequest) -> str:
        prompt = json.dumps(req.body, ensure_ascii=False)
        if "Reescreva a pergunta" in prompt:
            return json.dumps(
                {"queries": ["professores e estágio supervisionado", QUESTION.upper()]}
            )
        return json.dumps({"query": "x"})

    srv = sim_server(SimulatedModel(responder=respond))
    return OpenAIChatModel(base_url=srv.base_url, model="sim")


def test_the_rewritings_find_the_work_the_question_alone_misses(store, model) -> None:  # type: ignore[no-untyped-def]
    retriever = Retriever(store, "col")
    target = next(d.doc_id for d in store.documents("col") if d.title.startswith("Saberes"))
    assert target not in [g.doc_id for g in retriever.search_documents(QUESTION, 3)]

    async def go() -> list[str]:
        try:
            return await expand_query(model, QUESTION)
        finally:
            await model.aclose()

    queries = asyncio.run(go())
    # The question first; a rewriting that only changes case is a repeat, dropped.
    assert queries == [QUESTION, "professores e estágio supervisionado"]
    fused = fused_search(retriever, queries, 3)
    assert fused[0].doc_id == target
    assert asyncio.run(expand_query(None, QUESTION)) == [QUESTION]


def test_eval_review_reports_the_expanded_ranking_beside_the_others(store, model) -> None:  # type: ignore[no-untyped-def]
    target = next(d.doc_id for d in store.documents("col") if d.title.startswith("Saberes"))

    async def go():  # type: ignore[no-untyped-def]
        try:
            return await aevaluate_review(
                store,
                "col",
                model=model,
                queries=[SyntheticQuery(target, QUESTION, "file")],
                expand=True,
                generation_queries=0,
                ks=(10,),
            )
        finally:
            await model.aclose()

    report = asyncio.run(go())
    assert report.variants["lexical"]["p@1"] == 0.0
    assert report.variants["lexical + model expansion"]["p@1"] == 1.0
