"""The assistant's model calls are sent at the configured temperature (0 for runs that must
repeat; by default none, the server's own), and each turn
records the temperature it used (llama.cpp samples at 0.8 when none is sent, so two runs of
one question routed and read differently). Scripted model over real HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, cited_answer

# a law question: the model fills its frame (asked on every turn here) and writes the answer
QUESTION = "Qual o prazo para desistir de uma compra feita pela internet, fora da loja?"


def _roles() -> Roles:
    return Roles(answer=[cited_answer])  # the frame: the careful stand-in's


async def test_every_model_call_is_sent_at_temperature_zero_and_the_turn_says_so(
    scripted: Any, assistant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLMEIA_ASSISTANT_TEMPERATURE", "0")
    roles = _roles()
    bot = await assistant(scripted(roles), frame_by_model_below=1.0)
    result = await bot.ask("t1", QUESTION)
    sent = [r.body.get("temperature", "absent") for rs in roles.seen.values() for r in rs]
    # Red without it: no temperature in the requests (the server's 0.8), none recorded.
    assert len(sent) == 2 and sent == [0.0, 0.0]
    assert result.settings == {"temperature": 0.0}
    assert result.as_dict()["settings"] == {"temperature": 0.0}
    offline = await (await assistant(None)).ask("t2", QUESTION)
    assert offline.settings == {}  # no model, no sampling


async def test_the_temperature_is_a_setting(
    scripted: Any, assistant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLMEIA_ASSISTANT_TEMPERATURE", "0.4")
    roles = _roles()
    bot = await assistant(scripted(roles), frame_by_model_below=1.0)
    result = await bot.ask("t1", QUESTION)
    assert [r.body.get("temperature") for rs in roles.seen.values() for r in rs] == [0.4, 0.4]
    assert result.settings == {"temperature": 0.4}
