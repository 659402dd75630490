"""With a model configured, a turn is read into the same frame as offline and dispatched in
code: the model fills the frame where the classifier is unsure (structured output, every slot
checked by the parsers) and never picks the route.

Over real HTTP to colmeia's simulated model server, on the synthetic registry in SQLite and
the shipped laws: the careful stand-in (:mod:`colmeia.apps.assistant.simulated`) or a
scripted frame.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assistant_helpers import Roles, cited_answer

from colmeia.apps.assistant.model_frame import ModelFrame, validate
from colmeia.apps.assistant.simulated import assistant_responder, careful_frame
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import Reply, SimulatedModel
from colmeia.sim.server import SimServer

CASE = "TC/000032/2023"  # Aguardando defesa; four parties


def _found(result: Any) -> list[str]:
    return [str(f.get("number")) for f in result.facts if f.get("status") == "found"]


def _laws(result: Any) -> list[str]:
    return sorted({str(c.get("law")) for c in result.citations})


async def test_the_court_and_a_consumer_follow_up_are_answered_as_offline(
    sim_server: Callable[[SimulatedModel], SimServer], assistant: Any
) -> None:
    srv = sim_server(SimulatedModel(responder=assistant_responder))
    async with OpenAIChatModel(base_url=srv.base_url, model="sim", max_retries=0) as model:
        offline, served = await assistant(None), await assistant(model)
        turns = [
            "qual o horario de funcionamento do tribunal?",
            "o cdc deixa devolver um produto comprado pela internet?",
            "e se a loja nao devolver o dinheiro?",
        ]
        for i, text in enumerate(turns):
            want = await offline.ask("off", text)
            got = await served.ask("sim", text)
            assert (got.agent, _laws(got)) == (want.agent, _laws(want)), text
            if i == 0:  # the court's own file, word for word, as offline
                assert got.agent == "institutional" and got.answer == want.answer
                assert got.answer.startswith("Atendimento ao público de segunda a sexta")
            elif i == 1:  # the consumer code's articles, cited
                assert got.agent == "rag" and _laws(got) == ["Lei 8.078/1990"], got.answer
            else:  # a follow-up naming no norm: still the consumer code the thread is about
                assert got.agent == "rag" and _laws(got) == ["Lei 8.078/1990"], got.answer


async def test_a_case_number_the_person_did_not_type_is_never_used(
    scripted: Callable[[Roles], OpenAIChatModel], assistant: Any
) -> None:
    invented = {"intent": "case", "aspect": "rapporteur", "cases": [CASE], "thread": "none"}
    roles = Roles(frame=[invented])
    bot = await assistant(scripted(roles), frame_by_model_below=1.0)
    result = await bot.ask("t1", "e quem é o relator?")
    assert len(roles.seen["frame"]) == 1  # the model was asked to fill the frame
    # Its number is refused: the person is asked which case, nothing is looked up.
    assert result.status == "waiting_clarification" and "De qual processo?" in result.answer
    assert result.facts == [] and result.tools == []


async def test_a_typed_number_the_parsers_miss_is_taken_from_the_models_frame(
    scripted: Callable[[Roles], OpenAIChatModel], assistant: Any
) -> None:
    read = {"intent": "case", "aspect": "parties", "cases": ["32/2023"], "thread": "none"}
    roles = Roles(frame=[read])
    bot = await assistant(scripted(roles), frame_by_model_below=1.0)
    result = await bot.ask("t1", "quem sao as partes do 32 ano 2023?")
    assert result.status == "answered" and _found(result) == [CASE]
    assert "Carla Bezerra Duarte" in result.answer  # a party of the case, from its rows


async def test_a_model_error_leaves_the_classifiers_frame(
    scripted: Callable[[Roles], OpenAIChatModel], assistant: Any
) -> None:
    bad = Reply(content="isto não é um quadro")
    roles = Roles(frame=[bad, bad, bad, bad], answer=[cited_answer])  # repairs refused too
    bot = await assistant(scripted(roles), frame_by_model_below=1.0)
    result = await bot.ask("t1", f"qual a situação do processo {CASE}?")
    assert roles.seen["frame"]  # asked, and its answer refused by the schema
    assert result.status == "answered" and _found(result) == [CASE]
    assert "Situação atual: Aguardando defesa" in result.answer
    assert roles.seen["main"] == [] and roles.seen["search"] == []  # no agent chose a route


def test_the_parsers_accept_typed_numbers_and_named_norms_only() -> None:
    frame = ModelFrame(
        intent="mixed",
        cases=["4506/23", "TC/000999/2021", "7/2024"],
        norms=["Lei 9.784", "LGPD", "lei numero nenhum"],
    )
    checked = validate(
        frame, "o 4506 de 23 esta parado, a lei 9.784/99 permite?", ["TC/000007/2024"]
    )
    assert [(r.number, r.year) for r in checked.cases] == [(4506, 2023), (7, 2024)]
    assert checked.refused == [
        "case 'TC/000999/2021' not typed",
        "norm 'LGPD' not named",
        "norm 'lei numero nenhum' does not parse",
    ]


def test_the_careful_stand_in_fills_the_frame_from_what_was_typed() -> None:
    assert careful_frame("quem é o relator do processo 4506/2023?") == {
        "intent": "case",
        "aspect": "rapporteur",
        "cases": ["processo 4506/2023"],
        "norms": [],
        "thread": "none",
    }


async def test_the_threads_case_copied_by_the_model_does_not_make_a_follow_up_mixed(
    scripted: Callable[[Roles], OpenAIChatModel], assistant: Any
) -> None:
    # A small model filled the thread's case into the frame of a follow-up and called it
    # mixed: the case answer came with law passages nobody asked for (red before: "mixed").
    copied = {"intent": "mixed", "aspect": "parties", "cases": [CASE], "thread": "last"}
    roles = Roles(frame=[careful_frame(f"qual a situação do processo {CASE}?"), copied])
    bot = await assistant(scripted(roles), frame_by_model_below=1.0)
    first = await bot.ask("t1", f"qual a situação do processo {CASE}?")
    assert _found(first) == [CASE]
    result = await bot.ask("t1", "e quem fez a denuncia")
    assert len(roles.seen["frame"]) == 2  # the model read both turns
    assert result.status == "answered" and _found(result) == [CASE]
    assert result.citations == [], result.answer  # the case's rows, no law passages


async def test_a_mixed_reading_without_a_case_in_the_message_is_not_taken(
    scripted: Callable[[Roles], OpenAIChatModel], assistant: Any
) -> None:
    # "qual restaurante bom perto do tribunal" read as mixed: no case typed, none pointed at
    misread = {"intent": "mixed", "aspect": "status", "cases": [], "thread": "none"}
    roles = Roles(frame=[misread])
    bot = await assistant(scripted(roles), frame_by_model_below=1.0)
    offline = await (await assistant(None)).ask("off", "qual restaurante bom perto do tribunal")
    result = await bot.ask("t1", "qual restaurante bom perto do tribunal")
    assert roles.seen["frame"]
    assert (result.agent, result.answer) == (offline.agent, offline.answer)
    assert result.facts == [] and result.citations == []
