"""The assistant with a real local model: a short conversation, one handoff each way, streamed.

This is the agents' route (``routing="agents"``: what subscriptions, attachments and web search
still take, and what ``COLMEIA_ASSISTANT_ROUTING=agents`` selects); the default route reads each
turn into its frame and dispatches it in code, so a case question costs no model call there
(``tests/apps/assistant/test_model_frame.py``).

Protocol is asserted, never wording: the case question reaches the registry through a
main → search handoff and the answer holds nothing the registry did not say; the legal
question goes back search → main and on to the documents, and comes back with citations that
point at passages of the collection, each quote found in its passage. Whether the model or the
graph's guard made a handoff is recorded (``guard``) and allowed: small models often answer
directly, and the guard exists for them. Both turns run through ``Assistant.events`` (what the
chat and the service read), so the real server's streaming — tool calls included — is used, and
the streamed text must end on the answer.

Kept short for a shared 2-core machine: one law ingested, a small registry, short answers
(``max_answer_tokens``), one RAG generation (no rewrite or quality retry).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from colmeia.apps.assistant.cases import check_case_answer
from colmeia.apps.assistant.rag_state import RagConfig
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.session import open_assistant
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.apps.assistant.synthetic import generate_registry
from colmeia.llm import OpenAIChatModel
from colmeia.rag.index.lexical import Analyzer
from colmeia.rag.pipeline import ingest
from colmeia.store import open_store
from local_model import REAL_MODEL, LocalModel, told
from shared_data import DATA_DIR

pytestmark = REAL_MODEL

AS_OF = dt.date(2026, 11, 1)
LGPD = DATA_DIR / "laws" / "lexml" / "lei_13709_20180814.csv"
WORDS = Analyzer()


async def _stream(bot: Any, payload: Any) -> tuple[list[dict[str, Any]], Any]:
    events = [e async for e in bot.events("real", payload)]
    shown = ""
    for e in events:
        if e["type"] == "token":
            shown += e["text"]
        elif e["type"] == "replace":
            shown = e["text"]
    result = events[-1]["result"]
    # the stream ends on the answer; a turn that waits for a person streams no answer
    expected = "" if result.waiting is not None else result.answer
    assert shown == expected, (shown, told(result))
    return events, result


async def _turn(bot: Any, text: str) -> tuple[list[dict[str, Any]], Any]:
    events, result = await _stream(bot, bot.make_input(text))
    for _ in range(2):
        if result.status != "waiting_approval":
            break
        # The small model sometimes offers to subscribe the person to the case's updates, an
        # action that waits for approval (as it must: nothing ran). The person only asked: no.
        assert result.waiting["tool"] == "subscribe_updates", told(result)
        refusal = {"action": "reject", "reason": "Não pedi aviso; só quero a informação."}
        events, result = await _stream(bot, await bot.resume_command("real", refusal))
    return events, result


async def test_one_handoff_each_way_ends_correctly(local_llm: LocalModel, tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "leis", [LGPD])
    registry = SQLiteCaseRegistry(tmp_path / "registry.db")
    generate_registry(registry, processes=60, expedientes=20, as_of=AS_OF)
    model = OpenAIChatModel(
        base_url=local_llm.base_url,
        model=local_llm.model,
        provider=local_llm.provider,
        timeout=600,
        deadline=900,
        max_tokens=200,  # the RAG answer; a small model can ramble to the end of its context
        max_repairs=1,
    )
    try:
        async with open_assistant(
            store=store,
            model=model,
            registry=registry,
            checkpoints=f"sqlite:///{tmp_path / 'threads.db'}",
            settings=AssistantSettings(max_answer_tokens=160, routing="agents"),
            home=tmp_path,
            today=AS_OF,
            rag_config=RagConfig(max_rewrites=0, max_quality_retries=0, max_passages=4),
        ) as bot:
            _, case = await _turn(bot, "Onde está o processo TC/000032/2023 e desde quando?")
            assert case.status == "answered", told(case)
            assert case.agent == "search"
            assert ("main", "search") in [(h["from"], h["to"]) for h in case.handoffs]
            assert [f["number"] for f in case.facts if f["status"] == "found"] == ["TC/000032/2023"]
            assert check_case_answer(case.answer, case.facts) == []  # nothing invented
            assert case.usage["calls"] >= 2 and case.usage["prompt_tokens"] > 0

            events, legal = await _turn(
                bot, "Obrigado. Outra dúvida: o que a LGPD diz sobre dados pessoais de crianças?"
            )
            assert legal.status == "answered", told(legal)
            moves = [(h["from"], h["to"]) for h in legal.handoffs]
            # a question naming a norm goes to the documents by the rules, whichever agent
            # was active (apps/assistant/routing.py): no model decides this move
            assert moves == [("main", "rag"), ("rag", "main")], moves
            assert legal.handoffs[0]["by"] == "rules"
            assert legal.agent == "rag", told(legal)
            if legal.citations:
                for c in legal.citations:
                    chunk = store.get_chunks("leis", [c["chunk_id"]]).get(c["chunk_id"])
                    assert chunk is not None and chunk.doc_id == c["doc_id"]
                    assert c["law"] == "Lei 13.709/2018" and c["article"]
                    if c["quote"]:  # most of the quote's words are the passage's (as checked)
                        said = set(WORDS.tokens(c["quote"]))
                        assert len(said & set(WORDS.tokens(chunk.text))) >= 0.8 * len(said), c
                    assert f"[{c['passage']}]" in legal.answer
                # the RAG answer came from the model as it wrote it, not in one piece at the
                # end — or what it wrote was withdrawn with a reason (an empty answer, no
                # citation that held: the ranked passages quoted instead)
                rag = [e for e in events if e.get("agent") == "rag"]
                assert sum(1 for e in rag if e["type"] == "token") > 1 or any(
                    e["type"] == "replace" for e in rag
                ), rag
            else:
                # the 0.5B model sometimes fails the quality gate: an answer without support
                # must then say so rather than state anything uncited
                assert legal.answer.startswith("Não encontrei"), told(legal)
            history = await bot.history("real")
            assert [m["role"] for m in history if m["role"] == "user"] == ["user", "user"]
            assert history[-1]["role"] == "assistant" and history[-1]["text"] == legal.answer
    finally:
        await model.aclose()
        registry.close_sync()
        store.close()
