"""With no model the assistant still routes by rules and answers from the registry or the laws;
web search goes through colmeia's web_search tool, only after approval."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from assistant_helpers import Roles, call
from typer.testing import CliRunner

from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.config import SearchSettings
from colmeia.sim.engine import Reply
from colmeia.store import Store
from colmeia.tools.builtins.web_search import web_search_tool
from search_server import SearchServer, serve_search


async def test_offline_a_case_number_goes_to_the_registry(assistant: Any) -> None:
    bot = await assistant(None)
    result = await bot.ask("t1", "Qual a situação do processo tc-32-2023?")
    assert result.mode == "offline-rules"
    assert result.agent == "search" and result.status == "answered"
    assert "Processo TC/000032/2023" in result.answer and "Onde está:" in result.answer
    assert result.usage["prompt_tokens"] == 0


async def test_offline_a_legal_question_gets_cited_passages(assistant: Any) -> None:
    bot = await assistant(None)
    result = await bot.ask("t1", "Em quanto tempo a lei começa a vigorar depois de publicada?")
    assert result.agent == "rag"
    assert result.citations[0]["law"] == "Decreto-Lei 4.657/1942"
    assert result.citations[0]["article"] == "1"
    assert "[P1]" in result.answer


async def test_offline_a_case_question_without_number_asks_for_it(assistant: Any) -> None:
    bot = await assistant(None)
    first = await bot.ask("t1", "Como anda o meu processo?")
    assert first.status == "waiting_clarification"
    assert "TC/XXXXXX/AAAA" in first.answer
    done = await bot.resume("t1", "é o TC 001.234/2019")
    assert done.status == "answered"
    assert done.facts[0]["number"] == "TC/001234/2019"


async def test_offline_flags_off_say_so(assistant: Any) -> None:
    bot = await assistant(None)
    result = await bot.ask(
        "t1", "O que é fornecedor segundo o CDC?", flags={"enable_rag_processing": False}
    )
    assert result.agent == "main" and "desativada" in result.answer
    other = await bot.ask("t2", "onde está o tc 32/2023?", flags={"enable_system_search": False})
    assert "desativada" in other.answer and other.facts == []


@pytest.fixture
def search_server() -> Iterator[SearchServer]:
    """A SearxNG-like search API on loopback, for this test only."""
    with serve_search(
        [
            {
                "title": "Tribunal publica pauta",
                "url": "https://example.org/pauta",
                "content": "Pauta da sessão plenária.",
            }
        ]
    ) as server:
        yield server


async def test_web_search_runs_only_after_approval(
    scripted: Any, assistant: Any, search_server: SearchServer
) -> None:
    tool = web_search_tool(SearchSettings(url=search_server.url))
    roles = Roles(
        main=[call("transfer_to_search", reason="pesquisa")],
        search=[
            call("web_search", query="pauta sessão plenária tribunal de contas"),
            lambda r: Reply(content="Encontrei: " + r.messages[-1]["content"][:60]),
        ],
    )
    bot = await assistant(scripted(roles), web_search=tool)
    result = await bot.ask("t1", "pesquise na internet a pauta", flags={"enable_web_search": True})
    assert "web_search" in roles.seen["search"][0].tool_names
    assert result.status == "waiting_approval" and search_server.queries == []
    done = await bot.resume("t1", {"action": "approve"})
    assert search_server.queries == ["pauta sessão plenária tribunal de contas"]
    assert "Tribunal publica pauta" in done.answer


def test_cli_ask_and_threads_offline(
    laws_store: Store, registry: SQLiteCaseRegistry, tmp_path: Path, monkeypatch: Any
) -> None:
    from colmeia.cli import app

    for key in ("COLMEIA_LLM_BASE_URL", "COLMEIA_SEARCH_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("COLMEIA_HOME", str(tmp_path))
    monkeypatch.setenv("COLMEIA_STORE", laws_store.url)
    monkeypatch.setenv("COLMEIA_ASSISTANT_REGISTRY", f"sqlite:///{registry.path}")
    runner = CliRunner()
    asked = runner.invoke(
        app, ["assistant", "ask", "onde está o TC-000032-2023?", "-t", "c1", "--json"]
    )
    assert asked.exit_code == 0, asked.output
    turn = orjson.loads(asked.stdout)
    assert turn["facts"][0]["number"] == "TC/000032/2023" and turn["mode"] == "offline-rules"
    shown = runner.invoke(
        app, ["assistant", "ask", "O que é fornecedor segundo o CDC?", "-t", "c1"]
    )
    assert shown.exit_code == 0, shown.output
    assert "Lei 8.078/1990, Art. 3º" in shown.output and "sem modelo" in shown.output
    listed = runner.invoke(app, ["assistant", "threads", "--json"])
    assert [t["thread_id"] for t in orjson.loads(listed.stdout)] == ["c1"]
    bad = runner.invoke(app, ["assistant", "resume", "-t", "c1", "--approve"])
    assert bad.exit_code == 2 and "not waiting" in bad.output
    gone = runner.invoke(app, ["assistant", "delete", "-t", "c1"])
    assert gone.exit_code == 0
    assert orjson.loads(runner.invoke(app, ["assistant", "threads", "--json"]).stdout) == []


def test_cli_chat_shows_handoffs_tools_and_takes_an_approval(
    laws_store: Store, registry: SQLiteCaseRegistry, tmp_path: Path, monkeypatch: Any
) -> None:
    from colmeia.cli import app

    for key in ("COLMEIA_LLM_BASE_URL", "COLMEIA_SEARCH_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("COLMEIA_HOME", str(tmp_path))
    monkeypatch.setenv("COLMEIA_STORE", laws_store.url)
    monkeypatch.setenv("COLMEIA_ASSISTANT_REGISTRY", f"sqlite:///{registry.path}")
    lines = [
        "onde está o tc 32/2023?",
        "quero acompanhar o tc 32/2023, avise ana@example.org",
        "talvez",  # not an approval: refused, still waiting
        "s",
        "/sair",
    ]
    result = CliRunner().invoke(
        app, ["assistant", "chat", "-t", "c2"], input="\n".join(lines) + "\n"
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "↪ main → search" in out and "lookup_case" in out
    assert "Onde está:" in out
    assert "aguardando aprovação" in out and "waits for an approval" in out
    assert "Inscrição registrada" in out
    assert [s.contact for s in registry.subscriptions()] == ["ana@example.org"]
