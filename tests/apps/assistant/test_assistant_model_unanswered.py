"""A turn a model leaves without an answer gets the answer given without a model.

Each test scripts one way a small model ends a turn with nothing for the person — an empty
reply (twice: the client gives up), a handoff refused again and again until the step cap,
hand-offs back and forth until the handoff cap — on a law question the rules leave to the
model (so the coordinator's model is asked). The person gets the ranking's passages, cited,
as offline, and the turn records why (``fallback``). Scripted models over real HTTP to
colmeia's simulated server, the shipped laws, the synthetic registry in SQLite.
"""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call

from colmeia.sim.engine import Reply, SimRequest

# the agents' route with a model (routing=agents): what the model decides, and what the
# graph holds whatever it decides; the frame's route is tests/apps/assistant/test_model_frame.py
pytestmark = pytest.mark.agents_route

# cdc-03 of the laws set (gold: Lei 8.078/1990, Art. 49): no norm named, no defined term, and
# no passage covers enough of it for the rules to be sure: the coordinator's model routes it.
QUESTION = "Qual o prazo para desistir de uma compra feita pela internet, fora da loja?"
CASE = "TC/000032/2023"


def _gold_first(result: Any) -> bool:
    first = result.citations[0]
    return (first["law"], first["article"]) == ("Lei 8.078/1990", "49")


async def _offline(assistant: Any) -> Any:
    return await (await assistant(None)).ask("offline", QUESTION)


async def test_an_empty_reply_gets_the_rankings_cited_passages(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(main=[lambda r: Reply(content="")])
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", QUESTION)
    # Red without the fallback: status "error", "O modelo de linguagem não respondeu…".
    assert result.status == "answered" and result.fallback == "error", result.answer
    assert result.agent == "rag" and result.citations and _gold_first(result)
    offline = await _offline(assistant)
    assert [c["chunk_id"] for c in result.citations] == [c["chunk_id"] for c in offline.citations]
    assert "não concluiu" in result.notes[0]
    assert len(roles.seen["main"]) == 2  # the reply and its one repair


async def test_a_refused_handoff_repeated_to_the_step_cap_gets_the_cited_passages(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(main=[lambda r: call("transfer_to_search", reason="compra")])
    bot = await assistant(scripted(roles), max_steps_per_turn=3)
    # the registry is switched off for this request: the handoff is refused each time
    result = await bot.ask("t1", QUESTION, flags={"enable_system_search": False})
    # Red without the fallback: status "step_limit", "Não consegui concluir…", no citations.
    assert result.status == "answered" and result.fallback == "step_limit", result.answer
    assert result.citations and _gold_first(result)
    assert [t.get("refused") for t in result.tools] == []  # refused as a handoff, not a tool
    assert len(roles.seen["main"]) == 3


async def test_handoffs_back_and_forth_to_the_cap_get_the_cited_passages(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[lambda r: call("transfer_to_search", reason="compra")],
        search=[lambda r: call("transfer_to_main", reason="não é processo")],
    )
    bot = await assistant(scripted(roles), max_handoffs_per_turn=2)
    result = await bot.ask("t1", QUESTION)
    # Red without the fallback: status "handoff_limit", "Não consegui concluir…".
    assert result.status == "answered" and result.fallback == "handoff_limit", result.answer
    assert result.citations and _gold_first(result)
    assert [(h["from"], h["to"]) for h in result.handoffs] == [
        ("main", "search"),
        ("search", "main"),
    ]


async def test_a_model_error_after_a_lookup_gets_the_registrys_card(
    scripted: Any, assistant: Any
) -> None:
    def empty_after_lookup(req: SimRequest) -> Reply:
        return call("lookup_case", number=CASE) if not req.tool_results else Reply(content="")

    roles = Roles(main=[call("transfer_to_search", reason="processo")], search=[empty_after_lookup])
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", f"Onde está o processo {CASE}?")
    # Red without the fallback: status "error" although the registry answered.
    assert result.status == "answered" and result.fallback == "error"
    assert result.answer.startswith(f"Processo {CASE}") and result.facts[0]["number"] == CASE


async def test_a_case_question_without_a_number_left_unanswered_asks_for_the_number(
    scripted: Any, assistant: Any
) -> None:
    # the real 0.5B at temperature 0 looped like this on the step cap
    roles = Roles(main=[lambda r: Reply(content="")])
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "Como está meu processo?")
    # Red without the ask: status "error", "O modelo de linguagem não respondeu…".
    assert result.status == "answered" and result.fallback == "error", result.answer
    assert "Qual é o número?" in result.answer
    assert result.facts == [] and result.citations == []  # nothing invented, no law passages


async def test_the_number_typed_after_a_fallback_ask_is_read_as_the_case(
    scripted: Any, assistant: Any
) -> None:
    def search(req: SimRequest) -> Reply:
        if req.tool_results:
            return Reply(content="")  # the card is then the registry's, from the fallback
        if "lido como processo " + CASE in req.last_user_text:
            return call("lookup_case", number=CASE)
        return call("transfer_to_main", reason="sem número")

    roles = Roles(main=[lambda r: call("transfer_to_search", reason="processo")], search=[search])
    bot = await assistant(scripted(roles), max_handoffs_per_turn=2)
    asked = await bot.ask("t1", "Preciso saber do andamento do meu processo")
    assert asked.status == "answered" and asked.fallback == "handoff_limit", asked.answer
    assert "Qual é o número?" in asked.answer and asked.facts == []
    answered = await bot.ask("t1", "é o 32 de 2023")
    assert answered.status == "answered", answered.answer
    assert [f["number"] for f in answered.facts if f["status"] == "found"] == [CASE]
    assert answered.answer.startswith(f"Processo {CASE}")


def _movements_then_nothing(answered: tuple[str, str] | None = None) -> Roles:
    """The coordinator hands over; the search agent lists CASE's movements, then writes
    nothing. ``answered``: (a word of a later question, the search agent's reply to it)."""

    def search(req: SimRequest) -> Reply:
        if answered is not None and answered[0] in req.last_user_text:
            return Reply(content=answered[1])
        if not req.tool_results:
            return call("case_movements", number=CASE, limit=10)
        return Reply(content="")

    return Roles(main=[call("transfer_to_search", reason="processo")], search=[search])


async def test_an_empty_reply_after_the_movements_gets_the_registrys_card(
    scripted: Any, assistant: Any
) -> None:
    # the 1.5B listed the movements, then wrote nothing: the person got an empty answer
    bot = await assistant(scripted(_movements_then_nothing()))
    result = await bot.ask("t1", f"Quais as últimas movimentações do processo {CASE}?")
    # Red without it: status "answered" with an empty answer and no facts.
    assert result.status == "answered" and result.fallback is not None, result.answer
    assert result.answer.startswith(f"Processo {CASE}")
    assert [f["number"] for f in result.facts] == [CASE]


async def test_the_case_of_a_fallback_answer_is_the_threads_for_the_next_question(
    scripted: Any, assistant: Any
) -> None:
    # the follow-up is answered from the card above
    follow_up = f"O processo {CASE} está na situação: Aguardando defesa."
    bot = await assistant(scripted(_movements_then_nothing(("situação", follow_up))))
    first = await bot.ask("t1", f"Quais as últimas movimentações do processo {CASE}?")
    assert first.fallback is not None and first.facts[0]["number"] == CASE
    result = await bot.ask("t1", "e em que situação ele está?")
    # Red when the fallback's case is not remembered: the follow-up has no case, the search
    # agent's right answer is set aside and the question goes to the laws (the 1.5B run).
    assert result.status == "answered" and result.citations == [], result.answer
    assert "Aguardando defesa" in result.answer
    assert [f["number"] for f in result.facts if f["status"] == "found"] == [CASE]
