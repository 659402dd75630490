"""The cited answer's edges: what the model is asked, what counts as no answer, what a person
watching the stream sees when the model writes its JSON in an unusual order, or broken, or
does not stream at all.

Scripted answers over real HTTP to colmeia's simulated server; one stand-in model that cannot
stream (as a model behind a non-streaming adapter).
"""

from __future__ import annotations

from typing import Any

from answer_fixtures import HITS, Screen

from colmeia.llm import OpenAIChatModel
from colmeia.rag.generate import CitedAnswer, answer_question
from colmeia.sim.engine import SimulatedModel

QUESTION = "Como é feita a concessão?"
ANSWER = "A concessão de serviço público é precedida de licitação na modalidade concorrência [P1]."


async def _answer(
    sim_server: Any, replies: list[Any], screen: Screen | None = None
) -> tuple[CitedAnswer, SimulatedModel]:
    sim = SimulatedModel(script=replies)
    srv = sim_server(sim)
    async with OpenAIChatModel(
        base_url=srv.base_url, model="sim", api_key="x", max_repairs=1
    ) as model:
        return await answer_question(QUESTION, HITS, model, sink=screen), sim


async def test_the_model_is_asked_the_persons_question(sim_server: Any) -> None:
    result, sim = await _answer(sim_server, [{"answer": ANSWER, "citations": []}])
    assert sim.requests[-1].last_user_text == QUESTION
    assert (result.answer, result.model, result.extractive) == (ANSWER, "sim", False)


async def test_an_answer_of_markers_only_is_no_answer(sim_server: Any) -> None:
    # "[P1]." cites a passage that holds (its quote is in it) but says nothing: the person
    # gets the cited passages instead
    quote = {"passage": "P1", "quote": "precedida de licitação na modalidade concorrência"}
    result, _ = await _answer(sim_server, [{"answer": "[P1].", "citations": [quote]}])
    assert (result.withheld, result.extractive, result.model) == ("empty_answer", True, "sim")
    assert result.answer.startswith("[P1] Lei 8.987/1995, Art. 14: A concessão")


async def test_citations_written_before_the_answer_still_stream_the_answer(
    sim_server: Any,
) -> None:
    # the JSON's inner objects (citations) come first: the answer field is still the one read
    reply = '{"citations": [{"passage": "P1", "quote": "precedida de licitação"}], "answer": '
    reply += f'"{ANSWER}"' + "}"
    screen = Screen()
    result, _ = await _answer(sim_server, [reply], screen)
    assert result.answer == ANSWER
    assert screen.shown() == ANSWER
    assert all(kind == "delta" for kind, _, _ in screen.events)


async def test_a_broken_object_shows_nothing_but_the_answers_words(sim_server: Any) -> None:
    # a first attempt the stream cannot read as an object (no colon) is thrown away for a
    # repaired one: no stray text reached the screen meanwhile
    broken = '{"answer" "' + ANSWER + '", "citations": []}'
    screen = Screen()
    result, _ = await _answer(sim_server, [broken, {"answer": ANSWER, "citations": []}], screen)
    assert result.answer == ANSWER
    deltas = "".join(text for kind, text, _ in screen.events if kind == "delta")
    assert deltas == ANSWER  # only the repaired answer's words were ever sent
    assert screen.shown() == ANSWER


class PlainModel:
    """A model that cannot stream: it returns its structured answer in one piece."""

    model = "plain"

    async def structured(self, messages: Any, output_type: Any, **_: Any) -> Any:
        return output_type.model_validate({"answer": ANSWER, "citations": []})


async def test_a_model_that_cannot_stream_answers_and_the_screen_gets_the_result() -> None:
    screen = Screen()
    result = await answer_question(QUESTION, HITS, PlainModel(), sink=screen)  # type: ignore[arg-type]
    assert (result.answer, result.model) == (ANSWER, "plain")
    assert screen.events == []  # nothing streamed: the caller shows the returned answer
