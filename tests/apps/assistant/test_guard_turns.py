"""A guard decides for the turn it is in: what happened earlier in the thread (a hand-back, a
guard's own lookup) never keeps it from acting on the next question.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call, calls

from colmeia.sim.engine import Reply

# the agents' route with a model (routing=agents): what the model decides, and what the
# graph holds whatever it decides; the frame's route is tests/apps/assistant/test_model_frame.py
pytestmark = pytest.mark.agents_route

FIRST = "TC/000032/2023"  # Aguardando defesa
SECOND = "TC/000068/2023"


def _found(result: Any) -> list[str]:
    return [str(f.get("number")) for f in result.facts if f.get("status") == "found"]


async def test_a_hand_back_in_an_earlier_turn_does_not_keep_the_next_case_from_the_registry(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[
            call("transfer_to_search", reason="processo"),
            Reply(content="Pronto."),
            # the next turn: the coordinator answers a case question from its own head
            Reply(content="Esse processo já foi arquivado."),
        ],
        search=[
            call("lookup_case", number=FIRST),
            call("transfer_to_main", reason="pronto"),
            call("lookup_case", number=SECOND),
            Reply(content="Veja o cadastro."),
        ],
    )
    bot = await assistant(scripted(roles))
    first = await bot.ask("t1", f"Me fale do processo {FIRST}.")
    assert ("search", "main") in [(h["from"], h["to"]) for h in first.handoffs]
    second = await bot.ask("t1", f"E o processo {SECOND}, em que pé está?")
    # the guard of this turn sends the case to the registry: the answer is its record,
    # not the coordinator's invention
    assert ("main", "search") in [(h["from"], h["to"]) for h in second.handoffs]
    assert _found(second) == [SECOND]
    assert "Esse processo já foi arquivado" not in second.answer


async def test_a_guard_lookup_in_an_earlier_turn_does_not_stop_this_turns_lookup(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        # the search agent never looks anything up itself: each lookup is the guard's
        search=[Reply(content="Não sei.")],
    )
    bot = await assistant(scripted(roles))
    first = await bot.ask("t1", f"Qual a situação do processo {FIRST}?")
    assert _found(first) == [FIRST]
    second = await bot.ask("t1", f"E a do processo {SECOND}?")
    assert _found(second) == [SECOND]


async def test_after_a_second_answer_in_the_same_turn_the_guard_acts_again(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        # a model that asks, answers in words, and never looks anything up itself
        search=[
            call("ask_user", question="Qual é o número do processo?"),
            Reply(content="Não sei dizer."),
            call("ask_user", question="Qual destes é o seu? Diga o número."),
            Reply(content="Vou consultar."),
            Reply(content="Pronto."),
        ],
    )
    bot = await assistant(scripted(roles))
    asked = await bot.ask("t1", "Preciso saber do andamento do meu processo")
    assert asked.status == "waiting_clarification"
    # the first answer describes the case: the guard searches the registry for it
    listed = await bot.resume("t1", "não sei o número, é sobre a merenda de Três Barras")
    assert listed.status == "waiting_clarification", listed.as_dict()
    assert [t["tool"] for t in listed.tools if t["guard"]] == ["search_cases"]
    # the second answer gives the number: it is looked up although a guard acted before it
    done = await bot.resume("t1", "32/2023")
    assert _found(done) == [FIRST], done.as_dict()
    assert "Aguardando defesa" in done.answer


def _turn_one() -> tuple[list[Any], list[Any]]:
    """Main and search scripts of a first turn in which the search agent looked up FIRST and
    handed the thread back to the coordinator."""
    main: list[Any] = [call("transfer_to_search", reason="processo"), Reply(content="Pronto.")]
    search: list[Any] = [
        call("lookup_case", number=FIRST),
        call("transfer_to_main", reason="pronto"),
    ]
    return main, search


async def test_a_hand_back_in_an_earlier_turn_does_not_let_the_coordinator_skip_the_registry(
    scripted: Any, assistant: Any
) -> None:
    main, search = _turn_one()
    # the next turn: the coordinator sends a case question to the documents
    main.append(call("transfer_to_rag", task=f"processo {SECOND}"))
    search += [call("lookup_case", number=SECOND), Reply(content="Veja o cadastro.")]
    bot = await assistant(scripted(Roles(main=main, search=search)))
    await bot.ask("t1", f"Me fale do processo {FIRST}.")
    second = await bot.ask("t1", f"E o processo {SECOND}, em que pé está?")
    # this turn had no hand-back: the case goes to the registry, not to the laws
    assert ("main", "search") in [(h["from"], h["to"]) for h in second.handoffs]
    assert _found(second) == [SECOND], second.as_dict()


async def test_a_lookup_in_an_earlier_turn_does_not_let_the_search_agent_hand_back_unread(
    scripted: Any, assistant: Any
) -> None:
    main, search = _turn_one()
    main += [call("transfer_to_search", reason="processo"), Reply(content="Pronto.")]
    # the next turn: the search agent hands back at once, having looked up nothing this turn
    search += [call("transfer_to_main", reason="pronto"), Reply(content="Veja o cadastro.")]
    bot = await assistant(scripted(Roles(main=main, search=search)))
    await bot.ask("t1", f"Me fale do processo {FIRST}.")
    second = await bot.ask("t1", f"E o processo {SECOND}, em que pé está?")
    # the guard looks up this turn's case before the hand-back
    assert _found(second) == [SECOND], second.as_dict()
    assert [t["tool"] for t in second.tools if t["guard"]] == ["lookup_case"]


async def test_a_lookup_in_an_earlier_turn_still_lets_this_turns_unasked_subscription_look_up(
    scripted: Any, assistant: Any
) -> None:
    main, search = _turn_one()
    main += [call("transfer_to_search", reason="processo"), Reply(content="Pronto.")]
    # the next turn: the same case asked again, and the model subscribes nobody asked it to
    search += [
        call("subscribe_updates", number=FIRST, contact="example@example.com"),
        Reply(content="Veja o cadastro."),
    ]
    bot = await assistant(scripted(Roles(main=main, search=search)))
    await bot.ask("t1", f"Me fale do processo {FIRST}.")
    second = await bot.ask("t1", f"E agora, qual a situação do processo {FIRST}?")
    # the subscription becomes this turn's lookup: the answer is the record as it is now
    assert second.status == "answered", second.as_dict()
    assert all(t["tool"] != "subscribe_updates" for t in second.tools)
    assert _found(second) == [FIRST], second.as_dict()


async def test_an_earlier_turns_search_does_not_keep_this_turns_described_case_unsearched(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[
            call("search_cases", query="merenda Fazenda Velha"),
            Reply(content="Encontrei o processo."),
            # the next turn: another described case, and the model asks for its number
            call("ask_user", question="Qual é o número do processo?"),
            Reply(content="Encontrei."),
        ],
    )
    bot = await assistant(scripted(roles))
    await bot.ask("t1", "Não sei o número, é sobre a merenda da prefeitura de Fazenda Velha")
    second = await bot.ask(
        "t1", "Tem outro, também não sei o número: é sobre o transporte escolar de Três Barras"
    )
    # the person said they do not have the number: this turn's description is searched
    assert second.status == "answered", second.as_dict()
    assert [t["tool"] for t in second.tools if t["guard"]] == ["search_cases"]
    assert "transporte escolar" in second.answer and "Três Barras" in second.answer


async def test_another_case_named_by_its_subject_is_not_answered_with_the_threads_case(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[
            call("search_cases", query="merenda Fazenda Velha"),
            Reply(content="Encontrei o processo."),
            call("ask_user", question="Qual é o número do processo?"),
        ],
    )
    bot = await assistant(scripted(roles))
    first = await bot.ask(
        "t1", "Não sei o número, é sobre a merenda da prefeitura de Fazenda Velha"
    )
    assert "Fazenda Velha" in first.answer
    second = await bot.ask("t1", "E o do transporte escolar de Três Barras?")
    # "e o do …" names another case: the first turn's record is not its answer (it was,
    # when every short "e o …" was read as a follow-up of the thread's case)
    assert "Fazenda Velha" not in second.answer, second.as_dict()
    assert all(t["tool"] != "lookup_case" for t in second.tools)


async def test_an_earlier_turns_request_for_updates_does_not_let_this_turns_subscription_stand(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[
            call("lookup_case", number=FIRST),
            Reply(content=f"O processo {FIRST} está em Aguardando defesa."),
            # the next turn: a plain question, and the model subscribes an invented address
            call("subscribe_updates", number=SECOND, contact="example@example.com"),
            Reply(content=""),
        ],
    )
    bot = await assistant(scripted(roles))
    await bot.ask("t1", f"Quero ser avisada das movimentações do processo {FIRST}")
    second = await bot.ask("t1", f"Qual a situação do processo {SECOND}?")
    # only this turn's words ask for updates: the subscription becomes a lookup
    assert second.status == "answered", second.as_dict()
    assert all(t["tool"] != "subscribe_updates" for t in second.tools)
    assert _found(second) == [SECOND]


async def test_an_earlier_turns_lookup_does_not_keep_a_follow_up_from_being_answered_in_context(
    scripted: Any, assistant: Any
) -> None:
    said = f"O processo {FIRST} está em Aguardando defesa."
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[call("lookup_case", number=FIRST), Reply(content=said), Reply(content=said)],
    )
    bot = await assistant(scripted(roles))
    await bot.ask("t1", f"Me fale do processo {FIRST}.")
    second = await bot.ask("t1", "E a situação?")
    # right by the facts the thread already holds: the answer stands, nothing looked up again
    assert second.tools == [], second.as_dict()
    assert second.answer == said and _found(second) == [FIRST]


async def test_a_number_read_in_an_earlier_turn_is_read_again_not_asked_back(
    scripted: Any, assistant: Any
) -> None:
    asked_back = f"Onde estão os processos {FIRST} e {SECOND}?"
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[
            call("lookup_case", number=FIRST),
            Reply(content=f"O processo {FIRST} está em Aguardando defesa."),
            # the next turn: the model looks up one of the two numbers and asks the person
            # their own question in the same step
            calls(("lookup_case", {"number": SECOND}), ("ask_user", {"question": asked_back})),
            Reply(content="Pronto."),
        ],
    )
    bot = await assistant(scripted(roles))
    await bot.ask("t1", f"Me fale do processo {FIRST}.")
    second = await bot.ask("t1", asked_back)
    # the question back is dropped, and the number the model left out is read this turn (the
    # first turn's lookup is not this turn's record; red when the question stood, and when
    # the first turn's lookup counted as read)
    assert second.status == "answered", second.as_dict()
    assert sorted(_found(second)) == sorted([FIRST, SECOND])
    assert [t["arguments"]["number"] for t in second.tools if t["guard"]] == [FIRST]
