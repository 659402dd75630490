"""Context relevance against distractors: a forced choice a lenient judge cannot pass by saying yes.

The 1.5B judge called every passage relevant, random ones included. Here it must choose as many
passages as the work gave from the work's and the control's mixed together; over-long or repeated
choices count only up to that number.
"""

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


async def test_choosing_the_work_s_passages_scores_one_and_the_distractors_zero(
    sim_server, model
) -> None:
    def judge(req: SimRequest) -> str:
        labels = _labels(req.text())
        return json.dumps({"relevant": [t for t, text in labels.items() if "escolar" in text]})

    srv = sim_server(SimulatedModel(responder=judge))
    got = await judge_with_distractors(
        model(srv.base_url), QUESTION, WORK, OTHER, random.Random("q1")
    )
    assert (got.work, got.distractors) == (1.0, 0.0)
    prompt = srv.sim.requests[0].text()
    assert "Escolha exatamente 2 trecho(s)" in prompt
    assert "P1" not in prompt  # neutral ids: a reading's P-ids would tell which are the work's
    schema = srv.sim.requests[0].response_format["json_schema"]["schema"]
    assert schema["properties"]["relevant"]["minItems"] == 2
    assert schema["properties"]["relevant"]["maxItems"] == 2


async def test_a_judge_that_says_yes_to_everything_gets_no_credit_for_it(sim_server, model) -> None:
    # Every id, and repeats: only the first two distinct choices count.
    def yes_man(req: SimRequest) -> str:
        labels = list(_labels(req.text()))
        distractors = [t for t, text in _labels(req.text()).items() if "escolar" not in text]
        return json.dumps({"relevant": [*distractors, *distractors, *labels]})

    srv = sim_server(SimulatedModel(responder=yes_man))
    got = await judge_with_distractors(
        model(srv.base_url), QUESTION, WORK, OTHER, random.Random("q1")
    )
    assert (got.work, got.distractors) == (0.0, 1.0)


async def test_without_distractors_there_is_nothing_to_judge(sim_server, model) -> None:
    srv = sim_server(SimulatedModel(script=[]))
    got = await judge_with_distractors(model(srv.base_url), QUESTION, WORK, [], random.Random(1))
    assert (got.work, got.distractors) == (None, None)
    assert srv.sim.requests == []
