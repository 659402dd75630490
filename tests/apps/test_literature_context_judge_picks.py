"""The forced choice in detail: every passage shown once under T1…Tn in an order the seed fixes,
the schema allowing only those ids, exactly n of them and no repeats, a deterministic call with
a small answer, ids read whatever their case and spacing, invented ones ignored, and the shares
as fractions of each side."""

from __future__ import annotations

import json
import random
import re
from collections.abc import AsyncIterator, Callable

import pytest

from colmeia.apps.literature.context_judge import judge_with_distractors
from colmeia.apps.literature.passage import Passage
from colmeia.llm import OpenAIChatModel
from colmeia.sim import SimRequest, SimulatedModel

WORK = [
    Passage("P1", "c1", "A merenda escolar em escolas municipais do Pará."),
    Passage("P2", "c2", "Cardápios da alimentação escolar e nutricionistas."),
]
OTHER = [
    Passage("P1", "x1", "Fahrenheit 451 e a dimensão política da educação."),
    Passage("P2", "x2", "O livro didático e a sustentabilidade."),
    Passage("P3", "x3", "Evasão no ensino médio noturno."),
]
QUESTION = "Como funciona a merenda escolar nos municípios?"


@pytest.fixture
async def model() -> AsyncIterator[Callable[[str], OpenAIChatModel]]:
    made: list[OpenAIChatModel] = []

    def make(base_url: str) -> OpenAIChatModel:
        made.append(OpenAIChatModel(base_url=base_url, model="sim", backoff_base=0.001))
        return made[-1]

    yield make
    for m in made:
        await m.aclose()


def _labels(prompt: str) -> dict[str, str]:
    return dict(re.findall(r"^\[(T\d+)\] (.*)$", prompt, re.M))


def _picking(choose: Callable[[dict[str, str]], list[str]]) -> Callable[[SimRequest], str]:
    return lambda req: json.dumps({"relevant": choose(_labels(req.text()))})


async def test_every_passage_is_shown_once_under_a_neutral_id_and_the_call_is_deterministic(
    sim_server, model
) -> None:
    srv = sim_server(SimulatedModel(responder=_picking(lambda labels: list(labels)[:2])))
    await judge_with_distractors(model(srv.base_url), QUESTION, WORK, OTHER, random.Random(5))
    request = srv.sim.requests[0]
    labels = _labels(request.text())
    assert list(labels) == ["T1", "T2", "T3", "T4", "T5"]
    assert sorted(labels.values()) == sorted(p.text for p in [*WORK, *OTHER])
    assert [m["role"] for m in request.body["messages"]] == ["user"]
    assert QUESTION in request.text()
    assert (request.body["temperature"], request.body["max_tokens"]) == (0.0, 160)
    schema = request.response_format["json_schema"]["schema"]
    assert schema["title"] == "Picks"
    relevant = schema["properties"]["relevant"]
    assert relevant["items"] == {"type": "string", "enum": ["T1", "T2", "T3", "T4", "T5"]}
    assert relevant["uniqueItems"] is True
    assert relevant["description"] == "Exactly 2 ids: the passages most useful for the question."


async def test_the_same_seed_shows_the_same_order(sim_server, model) -> None:
    srv = sim_server(SimulatedModel(responder=_picking(lambda labels: list(labels)[:2])))
    for _ in range(2):
        await judge_with_distractors(model(srv.base_url), QUESTION, WORK, OTHER, random.Random(9))
    first, second = (_labels(r.text()) for r in srv.sim.requests)
    assert first == second


async def test_ids_are_read_whatever_their_case_and_spacing_and_made_up_ones_count_for_nothing(
    sim_server, model
) -> None:
    def one_of_each(labels: dict[str, str]) -> list[str]:
        own = next(t for t, text in labels.items() if "escolar" in text)
        other = next(t for t, text in labels.items() if "escolar" not in text)
        return [f" {own.lower()} ", "T99", other]

    srv = sim_server(SimulatedModel(responder=_picking(one_of_each)))
    got = await judge_with_distractors(model(srv.base_url), QUESTION, WORK, OTHER, random.Random(1))
    # one of the work's two and one of the three others: "T99" took a place and counts for none
    assert (got.work, got.distractors) == (0.5, 0.0)


async def test_the_shares_are_fractions_of_each_side(sim_server, model) -> None:
    def one_of_each(labels: dict[str, str]) -> list[str]:
        own = next(t for t, text in labels.items() if "escolar" in text)
        other = next(t for t, text in labels.items() if "escolar" not in text)
        return [own, other]

    srv = sim_server(SimulatedModel(responder=_picking(one_of_each)))
    got = await judge_with_distractors(model(srv.base_url), QUESTION, WORK, OTHER, random.Random(2))
    assert (got.work, got.distractors) == (0.5, pytest.approx(1 / 3))


async def test_without_the_works_passages_there_is_nothing_to_judge(sim_server, model) -> None:
    srv = sim_server(SimulatedModel(script=[]))
    got = await judge_with_distractors(model(srv.base_url), QUESTION, [], OTHER, random.Random(1))
    assert (got.work, got.distractors) == (None, None)
    assert srv.sim.requests == []
