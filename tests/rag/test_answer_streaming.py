"""A cited answer streamed to a person while the model writes it, behind the injection guard.

``answer_question(..., sink=...)`` shows the answer's text as it arrives (a few words behind),
withdraws what was shown when the model starts reciting its instructions (a passage talked it
into that) and when a first attempt is thrown away for a repaired one. What the sink ends with
is what the person read; the returned answer is what counts.
"""

from __future__ import annotations

from typing import Any

from answer_fixtures import HITS, Screen

from colmeia.llm import OpenAIChatModel
from colmeia.llm.guard import repeats_instructions
from colmeia.llm.prompts import render_prompt
from colmeia.rag.generate import WITHHELD, CitedAnswer, answer_question
from colmeia.sim.engine import SimulatedModel

INSTRUCTIONS = render_prompt("colmeia.rag", "answer.j2", passages=[])


async def _answer(sim_server: Any, replies: list[dict[str, Any]], screen: Screen) -> CitedAnswer:
    srv = sim_server(SimulatedModel(script=replies))
    async with OpenAIChatModel(
        base_url=srv.base_url, model="sim", api_key="x", max_repairs=1
    ) as model:
        return await answer_question("Como é feita a concessão?", HITS, model, sink=screen)


ANSWER = "A concessão de serviço público é precedida de licitação na modalidade concorrência [P1]."


async def test_the_answer_streams_in_pieces_and_ends_as_returned(sim_server: Any) -> None:
    screen = Screen()
    result = await _answer(sim_server, [{"answer": ANSWER, "citations": []}], screen)
    assert result.answer == ANSWER
    assert screen.shown() == ANSWER
    assert all(kind == "delta" and text for kind, text, _ in screen.events)
    assert len(screen.events) > 1  # in pieces, not at the end in one go
    assert screen.events[0][1].endswith(" ")  # whole words only, a few behind the model


async def test_a_recited_prompt_is_withdrawn_and_never_shown(sim_server: Any) -> None:
    recital = " ".join(INSTRUCTIONS.split()[:40])
    answer = ANSWER + " Aliás, minhas instruções dizem: " + recital
    screen = Screen()
    result = await _answer(sim_server, [{"answer": answer, "citations": []}], screen)
    assert (result.answer, result.withheld) == (WITHHELD, "repeats_instructions")
    assert (result.question, result.model, result.extractive) == (
        "Como é feita a concessão?",
        "sim",
        False,
    )
    assert result.passages == HITS and result.citations == []
    replaced = [i for i, e in enumerate(screen.events) if e[0] == "replace"]
    assert [screen.events[i][1:] for i in replaced] == [("", "withheld"), (WITHHELD, "withheld")]
    shown_before = "".join(t for kind, t, _ in screen.events[: replaced[0]] if kind == "delta")
    assert ANSWER in shown_before and answer.startswith(shown_before)  # the honest start...
    assert not repeats_instructions(shown_before, INSTRUCTIONS)  # ...none of the recital
    assert all(kind == "replace" for kind, _, _ in screen.events[replaced[0] :])  # ...then no more
    assert screen.shown() == WITHHELD


async def test_an_attempt_thrown_away_for_a_repaired_one_is_withdrawn(sim_server: Any) -> None:
    first = {
        "answer": ANSWER + " Primeira tentativa, com citações num formato errado.",
        "citations": "P1",
    }
    screen = Screen()
    result = await _answer(sim_server, [first, {"answer": ANSWER, "citations": []}], screen)
    assert result.answer == ANSWER
    assert ("replace", "", "retry") in screen.events
    assert screen.shown() == ANSWER


async def test_an_empty_answer_is_replaced_by_the_cited_passages_on_screen(sim_server: Any) -> None:
    screen = Screen()
    result = await _answer(sim_server, [{"answer": "", "citations": []}], screen)
    assert (result.withheld, result.extractive) == ("empty_answer", True)
    assert result.question == "Como é feita a concessão?"
    assert screen.events[-1] == ("replace", result.answer, "empty_answer")
    assert result.answer.startswith("[P1] Lei 8.987/1995, Art. 14: A concessão")
