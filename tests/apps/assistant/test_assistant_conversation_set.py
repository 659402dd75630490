"""The shipped conversation set (``apps/assistant/data/conversations_conv.json``) played offline
turn by turn on the registry it names: every turn rests on the expected case, states the
expected registry facts and cites the expected article.

The full scoring harness is ``colmeia eval assistant --set conversations``; this test keeps the
set honest against the synthetic registry and the rules, so a change that breaks a
conversation shows here first.
"""

from __future__ import annotations

import datetime as dt
import json
from importlib import resources
from typing import Any

import pytest

SET = json.loads(
    resources.files("colmeia.apps.assistant")
    .joinpath("data/conversations_conv.json")
    .read_text(encoding="utf-8")
)


def _br(iso: str) -> str:
    return dt.date.fromisoformat(iso).strftime("%d/%m/%Y")


def turn_problems(result: Any, expect: dict[str, Any]) -> list[str]:
    """What a turn's result misses of what it was expected to do (empty: it passed)."""
    kind = expect["kind"]
    problems: list[str] = []
    numbers = [str(f.get("number")) for f in result.facts if f.get("status") == "found"]
    if kind == "clarify":
        return [] if result.status == "waiting_clarification" else [f"status {result.status}"]
    if kind == "search_list":
        if expect["facts"].get("total") == 0:
            return [] if "Não encontrei" in result.answer else ["did not say nothing was found"]
        return [] if result.status == "waiting_clarification" else [f"status {result.status}"]
    if expect["case"] and expect["case"] not in numbers:
        problems.append(f"rests on {numbers}, not {expect['case']}")
    for field, value in expect["facts"].items():
        shown = _br(value) if field == "since" else str(value)
        if shown not in result.answer:
            problems.append(f"{field} {shown!r} not in the answer")
    if expect.get("article"):
        law, article = expect["article"].split(", Art. ")
        cited = {(c.get("law"), c.get("article")) for c in result.citations}
        if (law, article) not in cited:
            problems.append(f"{expect['article']} not cited ({sorted(cited)})")
    return problems


def test_the_set_names_its_registry_and_has_twenty_conversations() -> None:
    assert SET["registry"]["processes"] == 400 and SET["registry"]["as_of"] == "2026-11-01"
    assert len(SET["conversations"]) == 20
    kinds = {t["expect"]["kind"] for c in SET["conversations"] for t in c["turns"]}
    assert kinds == {"clarify", "case", "mixed", "search_list"}


@pytest.mark.parametrize("conv", SET["conversations"], ids=lambda c: c["id"])
async def test_each_conversation_passes_offline(assistant: Any, conv: dict[str, Any]) -> None:
    bot = await assistant(None)
    waiting = False
    for i, turn in enumerate(conv["turns"], start=1):
        text = turn["user"]
        result = await (bot.resume("t", text) if waiting else bot.ask("t", text))
        waiting = result.status.startswith("waiting")
        assert turn_problems(result, turn["expect"]) == [], f"turn {i}: {result.answer[:300]}"
