"""Query expansion in detail: what the model is asked (how many rewritings, the question, a low
temperature, a short answer), which rewritings are kept (at most n, repeats of the question or of
each other dropped whatever their case and spacing), the fallback when the model fails, and the
reciprocal rank fusion of the searches (scores, order, the passages kept, what each search is
given)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from literature_helpers import library_store

from colmeia.apps.literature.expansion import expand_query, fused_search
from colmeia.llm import OpenAIChatModel
from colmeia.rag.retrieve import DocumentResult, Filters, Retriever
from colmeia.sim import SimRequest, SimulatedModel

QUESTION = "como os mestres vivem o começo da carreira?"


def _expand(
    sim_server, respond: Callable[[SimRequest], str], **kwargs: int
) -> tuple[list[str], SimulatedModel]:  # type: ignore[no-untyped-def]
    sim = SimulatedModel(responder=respond)
    model = OpenAIChatModel(base_url=sim_server(sim).base_url, model="sim", max_repairs=0)

    async def go() -> list[str]:
        try:
            return await expand_query(model, QUESTION, **kwargs)
        finally:
            await model.aclose()

    return asyncio.run(go()), sim


def _rewritings(*queries: str) -> Callable[[SimRequest], str]:
    return lambda req: json.dumps({"queries": list(queries)})


def test_the_model_is_asked_for_n_rewritings_of_the_question_briefly_and_soberly(
    sim_server,
) -> None:  # type: ignore[no-untyped-def]
    _, sim = _expand(sim_server, _rewritings("docentes no início da carreira"), n=2)
    body = sim.requests[0].body
    system, user = body["messages"]
    assert "Reescreva a pergunta do usuário de 2 maneiras diferentes" in system["content"]
    assert user == {"role": "user", "content": QUESTION}
    assert (body["temperature"], body["max_tokens"]) == (0.3, 300)


def test_three_rewritings_are_kept_by_default_after_the_question(sim_server) -> None:  # type: ignore[no-untyped-def]
    five = [f"reescrita número {i}" for i in range(1, 6)]
    queries, sim = _expand(sim_server, _rewritings(*five))
    assert queries == [QUESTION, *five[:3]]
    assert "de 3 maneiras diferentes" in sim.requests[0].body["messages"][0]["content"]
    assert _expand(sim_server, _rewritings(*five), n=1)[0] == [QUESTION, five[0]]


def test_repeats_of_the_question_or_of_each_other_are_dropped_whatever_the_case(sim_server) -> None:  # type: ignore[no-untyped-def]
    queries, _ = _expand(
        sim_server,
        _rewritings(
            "  COMO os mestres   vivem o começo da carreira? ",  # the question again
            "docentes no início da carreira",
            "Docentes no  início da carreira",  # the rewriting before, again
            "professores iniciantes",
            "",
        ),
    )
    assert queries == [QUESTION, "docentes no início da carreira", "professores iniciantes"]


def test_a_model_that_fails_leaves_the_question_alone_and_says_why(sim_server, caplog) -> None:  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.WARNING, logger="colmeia.apps.literature.expansion"):
        queries, _ = _expand(sim_server, lambda req: "Não sei reescrever isso.")
    assert queries == [QUESTION]
    (record,) = [r for r in caplog.records if r.name == "colmeia.apps.literature.expansion"]
    assert record.getMessage().startswith(
        "query expansion failed, searching the question alone: The model 'sim' gave no valid "
        "answer after 0 repair attempts (last problem: the answer contains no JSON)."
    )


@dataclass
class _Rankings:
    """A retriever's answers, scripted per query, with what each search was given."""

    ranked: dict[str, list[str]]
    calls: list[tuple[str, int, Filters | None, int | None]] = field(default_factory=list)

    def search_documents(
        self,
        query: str,
        k: int = 10,
        *,
        filters: Filters | None = None,
        per_document: int | None = None,
    ) -> list[DocumentResult]:
        self.calls.append((query, k, filters, per_document))
        return [
            DocumentResult(doc, 1.0, f"título de {doc}", [f"passagem de {doc} por {query}"])  # type: ignore[list-item]
            for doc in self.ranked[query]
        ]


def _fuse(rankings: _Rankings, k: int, **kwargs: object) -> list[DocumentResult]:
    return fused_search(rankings, list(rankings.ranked), k, **kwargs)  # type: ignore[arg-type]


def test_works_are_scored_by_reciprocal_rank_fusion_and_ordered_best_first() -> None:
    rankings = _Rankings({"q1": ["a", "b", "c"], "q2": ["b", "d"]})
    fused = _fuse(rankings, 10)
    assert [(r.doc_id, r.score) for r in fused] == [
        ("b", 1 / 62 + 1 / 61),
        ("a", 1 / 61),
        ("d", 1 / 62),
        ("c", 1 / 63),
    ]
    assert [r.doc_id for r in _fuse(rankings, 2)] == ["b", "a"]


def test_each_work_keeps_the_title_and_passages_of_the_search_that_ranked_it_best() -> None:
    fused = _fuse(_Rankings({"q1": ["a", "b"], "q2": ["b", "a"], "q3": ["a"]}), 10)
    by_id = {r.doc_id: r for r in fused}
    assert by_id["b"].hits == ["passagem de b por q2"]  # type: ignore[comparison-overlap]
    # "a" is first in q1 and in q3: the earlier search wins the tie
    assert by_id["a"].hits == ["passagem de a por q1"]  # type: ignore[comparison-overlap]
    assert by_id["a"].title == "título de a"


def test_every_search_gets_k_the_filters_and_one_passage_a_work_unless_told() -> None:
    rankings = _Rankings({"q1": ["a"], "q2": ["a"]})
    filters = Filters(year_from=2010)
    _fuse(rankings, 7, filters=filters)
    assert rankings.calls == [("q1", 7, filters, 1), ("q2", 7, filters, 1)]
    rankings.calls.clear()
    _fuse(rankings, 5, per_document=3)
    assert rankings.calls == [("q1", 5, None, 3), ("q2", 5, None, 3)]


def test_a_real_retriever_fuses_too(tmp_path) -> None:  # type: ignore[no-untyped-def]
    csv = 'Titulo,Resumo\n"Saberes docentes","Professores no estágio."\n'
    for store in library_store(tmp_path, csv):
        fused = fused_search(Retriever(store, "col"), ["professores", "estágio"], 3)
        assert [r.title for r in fused] == ["Saberes docentes"]
        assert fused[0].score == pytest.approx(2 / 61)
