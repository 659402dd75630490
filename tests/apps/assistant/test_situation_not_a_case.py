"""A message that tells a situation and asks the law, read as half about a case though it
types no number, points at none and the thread has none, is answered from the laws — not
held on "De qual processo?", a number the person never had in mind (issue 32's lay questions:
seven of the hundred of lay-dev2 waited on it).

The registry is the small fictitious one of ``data/registry_para``; the laws are the shipped
ones; no model (offline)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from assistant_helpers import AS_OF
from registry_sets_helpers import para_registry

from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.session import Assistant, open_assistant
from colmeia.store import Store


@pytest.fixture
async def bot(laws_store: Store, tmp_path: Path) -> AsyncIterator[Assistant]:
    registry = para_registry(tmp_path)
    async with open_assistant(
        store=laws_store, model=None, registry=registry, home=tmp_path, today=AS_OF
    ) as assistant:
        yield assistant
    registry.close_sync()


@pytest.mark.parametrize(
    "text",
    [
        "meu pai tem 80 anos e tem um processo parado num orgao federal faz tempo. ele tem "
        "direito de passar na frente?",
        "A empresa de ônibus que tem a concessão aqui da cidade vive atrasando e quebrando. A "
        "prefeitura pode tirar o contrato dela?",
    ],
)
async def test_a_situation_asked_as_a_right_is_answered_from_the_laws(
    bot: Assistant, text: str
) -> None:
    assert read_frame(text).intent == "mixed"  # what the frame reads: half about a case
    result = await bot.ask("t1", text)
    assert not result.waiting, result.answer
    assert result.agent == "rag" and not result.facts
