"""The model reranker's candidates and its call: the first six articles (or ``top_n``) under A1…,
each with its citation, heading and caput, texts cut at 600 characters; no call for fewer than
two; the question as the user's message; a failed call or ids it was not given logged, the
ranking's order kept for what the reply does not place (colmeia's simulated server)."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable

import pytest

from colmeia.apps.assistant.article_choice import Candidate, ModelArticleReranker, apply_choice
from colmeia.llm import OpenAIChatModel
from colmeia.rag.retrieve import Citation, Hit
from colmeia.sim.engine import SimRequest, SimulatedModel
from colmeia.sim.server import SimServer

QUESTION = "Posso devolver um produto comprado pela internet?"
LOGGER = "colmeia.apps.assistant.article_choice"


def _hit(n: int, text: str = "", heading: str = "") -> Hit:
    citation = Citation(document="Lei 8.078/1990", page=0, path=f"Lei 8.078/1990, Art. {n}")
    return Hit(f"c{n}", "cdc", 1.0, text or f"Texto do artigo {n}.", citation, heading=heading)


def test_the_first_six_articles_are_the_candidates_under_ids_the_system_gives() -> None:
    hits = [_hit(n) for n in range(40, 48)]
    candidates = ModelArticleReranker(model=None).candidates(hits, {})  # type: ignore[arg-type]
    assert [c.id for c in candidates] == ["A1", "A2", "A3", "A4", "A5", "A6"]
    assert [c.label for c in candidates] == [h.citation.label() for h in hits[:6]]
    short = ModelArticleReranker(model=None, top_n=2).candidates(hits, {})  # type: ignore[arg-type]
    assert [c.id for c in short] == ["A1", "A2"]


def test_a_candidate_shows_its_text_heading_and_caput_each_cut_at_600_characters() -> None:
    hit = _hit(49, text="x" * 700, heading="DA PROTEÇÃO CONTRATUAL")
    (candidate,) = ModelArticleReranker(model=None).candidates(  # type: ignore[arg-type]
        [hit], {"c49": "y" * 650}
    )
    assert candidate == Candidate(
        "A1", hit.citation.label(), "x" * 600, "DA PROTEÇÃO CONTRATUAL", "y" * 600
    )
    (bare,) = ModelArticleReranker(model=None).candidates([_hit(50)], {})  # type: ignore[arg-type]
    assert (bare.heading, bare.caput) == ("", "")


Make = Callable[[Callable[[SimRequest], str]], tuple[ModelArticleReranker, SimulatedModel]]


@pytest.fixture
async def reranker(sim_server: Callable[[SimulatedModel], SimServer]) -> AsyncIterator[Make]:
    """A reranker whose model answers with ``respond`` (clients closed after the test)."""
    made: list[OpenAIChatModel] = []

    def make(respond: Callable[[SimRequest], str]) -> tuple[ModelArticleReranker, SimulatedModel]:
        sim = SimulatedModel(responder=respond)
        model = OpenAIChatModel(
            base_url=sim_server(sim).base_url, model="sim", max_retries=0, max_repairs=0
        )
        made.append(model)
        return ModelArticleReranker(model), sim

    yield make
    for model in made:
        await model.aclose()


def _three() -> list[Candidate]:
    return [Candidate(f"A{i}", f"Art. {i}", f"texto {i}") for i in (1, 2, 3)]


async def test_the_question_goes_as_the_users_message_and_the_reply_orders_the_candidates(
    reranker: Make,
) -> None:
    rerank, sim = reranker(lambda req: json.dumps({"order": ["A3", " a1 ", "[A2]"]}))
    assert await rerank.order(QUESTION, _three()) == [2, 0, 1]
    messages = sim.requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == QUESTION
    assert "[A2] Art. 2" in messages[0]["content"]


async def test_fewer_than_two_candidates_need_no_call(reranker: Make) -> None:
    rerank, sim = reranker(lambda req: json.dumps({"order": []}))
    assert await rerank.order(QUESTION, _three()[:1]) == [0]
    assert await rerank.order(QUESTION, []) == []
    assert sim.requests == []


async def test_a_failed_call_keeps_the_rankings_order_and_says_why(
    reranker: Make, caplog: pytest.LogCaptureFixture
) -> None:
    rerank, _ = reranker(lambda req: "Não sei.")
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert await rerank.order(QUESTION, _three()) == [0, 1, 2]
    (record,) = [r for r in caplog.records if r.name == LOGGER]
    assert record.getMessage().startswith(
        "model reranker failed, keeping the ranking's order: The model 'sim' gave no valid answer"
    )


async def test_ids_it_was_not_given_are_dropped_and_the_first_five_logged(
    reranker: Make, caplog: pytest.LogCaptureFixture
) -> None:
    invented = ["A9", "B1", "Art. 49", "A0", "X", "A10"]
    rerank, _ = reranker(lambda req: json.dumps({"order": ["A2", *invented]}))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert await rerank.order(QUESTION, _three()) == [1, 0, 2]
    assert [r.getMessage() for r in caplog.records if r.name == LOGGER] == [
        "model reranker named ids it was not given (dropped): ['A9', 'B1', 'Art. 49', 'A0', 'X']"
    ]


async def test_a_reply_with_only_given_ids_logs_nothing(
    reranker: Make, caplog: pytest.LogCaptureFixture
) -> None:
    rerank, _ = reranker(lambda req: json.dumps({"order": ["a2", "[A1]"]}))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert await rerank.order(QUESTION, _three()) == [1, 0, 2]
    assert [r for r in caplog.records if r.name == LOGGER] == []


async def test_two_candidates_are_enough_for_a_call(reranker: Make) -> None:
    rerank, sim = reranker(lambda req: json.dumps({"order": ["[A2]"]}))
    assert await rerank.order(QUESTION, _three()[:2]) == [1, 0]
    assert len(sim.requests) == 1


def test_a_choice_keeps_each_id_once_in_the_models_order_then_the_rest_in_theirs() -> None:
    assert apply_choice(["A1", "A2", "A3", "A4"], ["A4", "A4", " a2 ", "A7"]) == [3, 1, 0, 2]
    assert apply_choice(["A1", "A2", "A3"], ["[A3]", " [a2] "]) == [2, 1, 0]
