"""The assistant with a real local model: a short conversation, one handoff each way.

Protocol is asserted, never wording: the case question reaches the registry through a
main → search handoff and the answer holds nothing the registry did not say; the legal
question goes back search → main and on to the documents, and comes back with citations
that were checked against their passages. Whether the model or the graph's guard made a
handoff is recorded (``guard``) and allowed: small models often answer directly, and the
guard exists for them.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from colmeia.apps.assistant.cases import check_case_answer
from colmeia.apps.assistant.registry import SQLiteCaseRegistry
from colmeia.apps.assistant.session import open_assistant
from colmeia.apps.assistant.synthetic import generate_registry
from colmeia.llm import OpenAIChatModel
from colmeia.rag.pipeline import ingest
from colmeia.store import open_store
from local_model import LocalModel
from shared_data import DATA_DIR

AS_OF = dt.date(2026, 11, 1)


async def test_one_handoff_each_way_ends_correctly(local_llm: LocalModel, tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "leis", [DATA_DIR / "laws" / "lexml"])
    registry = SQLiteCaseRegistry(tmp_path / "registry.db")
    generate_registry(registry, processes=400, expedientes=100, as_of=AS_OF)
    model = OpenAIChatModel(
        base_url=local_llm.base_url,
        model=local_llm.model,
        provider=local_llm.provider,
        timeout=600,
        deadline=900,
        max_tokens=400,  # a 0.5B model can ramble to the end of its context
    )
    try:
        async with open_assistant(
            store=store,
            model=model,
            registry=registry,
            checkpoints=f"sqlite:///{tmp_path / 'threads.db'}",
            home=tmp_path,
            today=AS_OF,
        ) as bot:
            case = await bot.ask("real", "Onde está o processo TC/000032/2023 e desde quando?")
            assert case.status == "answered", case.as_dict()
            assert case.agent == "search"
            assert ("main", "search") in [(h["from"], h["to"]) for h in case.handoffs]
            assert [f["number"] for f in case.facts if f["status"] == "found"] == ["TC/000032/2023"]
            assert check_case_answer(case.answer, case.facts) == []
            assert case.usage["calls"] >= 2 and case.usage["prompt_tokens"] > 0

            legal = await bot.ask(
                "real", "Obrigado. Outra dúvida: o que a LGPD diz sobre dados pessoais de crianças?"
            )
            assert legal.status == "answered", legal.as_dict()
            moves = [(h["from"], h["to"]) for h in legal.handoffs]
            assert moves[0] == ("search", "main") and ("main", "rag") in moves
            assert legal.agent == "rag" and legal.citations
            for c in legal.citations:
                assert c["law"] and c["article"] and c["chunk_id"]
            history = await bot.history("real")
            assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    finally:
        await model.aclose()
        registry.close_sync()
        store.close()
