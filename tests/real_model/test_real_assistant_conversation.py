"""The assistant in a real conversation with the real local model (0.5B by default): a
clarification answered with a bare number, a follow-up without the number, and a question with
a case part and a legal part.

Protocol and registry facts are asserted, never wording: the bare ``32/2023`` ends on the
registry's record of TC/000032/2023 (whether the model asked with ``ask_user`` or in words);
"E quem são as partes?" is answered from that case (a lookup, or the model's own answer from the
context its view carries, which must then hold only the registry's facts); the mixed question
gets the case's record and the legal part goes to the documents. Kept short: a small registry,
one law, short answers, no RAG rewrite or quality retry (passed on the packaged 0.5B model in
75 s, 2 shared cores under load).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.cases import check_case_answer
from colmeia.apps.assistant.rag_state import RagConfig
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.session import open_assistant
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.apps.assistant.synthetic import generate_registry
from colmeia.llm import OpenAIChatModel
from colmeia.rag.pipeline import ingest
from colmeia.store import open_store
from local_model import REAL_MODEL, LocalModel, told
from shared_data import DATA_DIR

pytestmark = REAL_MODEL

AS_OF = dt.date(2026, 11, 1)
LGPD = DATA_DIR / "laws" / "lexml" / "lei_13709_20180814.csv"
CASE = "TC/000032/2023"


async def _say(bot: Any, text: str) -> Any:
    """Ask, or answer what the thread waits for; an offered subscription is declined."""
    pending = await bot.pending("real")
    if pending is not None and pending.get("type") == "clarification":
        result = await bot.resume("real", text)
    else:
        result = await bot.ask("real", text)
    for _ in range(2):
        if result.status != "waiting_approval":
            break
        assert result.waiting["tool"] == "subscribe_updates", told(result)
        result = await bot.resume("real", {"action": "reject", "reason": "Só quero a informação."})
    return result


def _found(result: Any) -> list[str]:
    return [str(f["number"]) for f in result.facts if f.get("status") == "found"]


async def test_clarification_follow_up_and_mixed_question(
    local_llm: LocalModel, tmp_path: Path
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "leis", [LGPD])
    registry = SQLiteCaseRegistry(tmp_path / "registry.db")
    generate_registry(registry, processes=60, expedientes=20, as_of=AS_OF)
    record = await lookup_case(registry, CASE, today=AS_OF)
    parties = [p["name"] for p in record["parties"]]
    model = OpenAIChatModel(
        base_url=local_llm.base_url,
        model=local_llm.model,
        provider=local_llm.provider,
        timeout=600,
        deadline=900,
        max_tokens=200,
        max_repairs=1,
    )
    try:
        async with open_assistant(
            store=store,
            model=model,
            registry=registry,
            checkpoints=f"sqlite:///{tmp_path / 'threads.db'}",
            settings=AssistantSettings(max_answer_tokens=160),
            home=tmp_path,
            today=AS_OF,
            rag_config=RagConfig(max_rewrites=0, max_quality_retries=0, max_passages=4),
        ) as bot:
            first = await _say(bot, "Preciso saber do andamento do meu processo")
            assert first.status in ("waiting_clarification", "answered"), told(first)
            assert _found(first) == [] and first.citations == []  # no law passages, no guess
            number = await _say(bot, "32/2023")
            assert number.status == "answered", told(number)
            assert _found(number) == [CASE], told(number)
            assert check_case_answer(number.answer, number.facts) == []

            parties_turn = await _say(bot, "E quem são as partes?")
            assert parties_turn.status == "answered", told(parties_turn)
            assert parties_turn.citations == [], told(parties_turn)
            assert _found(parties_turn) == [CASE], told(parties_turn)
            assert check_case_answer(parties_turn.answer, [record]) == []
            assert any(name in parties_turn.answer for name in parties), parties_turn.answer

            mixed = await _say(
                bot,
                f"Qual a situação do processo {CASE} e o que a LGPD diz sobre dados de crianças?",
            )
            assert mixed.status == "answered", told(mixed)
            moves = [(h["from"], h["to"]) for h in mixed.handoffs]
            assert ("search", "rag") in moves and moves[-1] == ("rag", "main"), moves
            assert _found(mixed) == [CASE]
            assert record["record"]["status"].lower() in mixed.answer.lower()
            assert mixed.answer.index("Sobre o processo") < mixed.answer.index("Sobre a norma")
            for c in mixed.citations:
                assert c["law"] == "Lei 13.709/2018" and c["article"]
    finally:
        await model.aclose()
        registry.close_sync()
        store.close()
