"""A message that tells a situation and asks the law, read as half about a case though it
types no number, points at none and the thread has none, is answered from the laws — not
held on "De qual processo?", a number the person never had in mind (issue 32's lay questions:
seven of the hundred of lay-dev2 waited on it).

The registry is the small fictitious one of ``data/registry_para``; the laws are the shipped
ones; no model (offline)."""

from __future__ import annotations

import pytest

from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.session import Assistant


@pytest.fixture
def bot(para_bot: Assistant) -> Assistant:
    return para_bot


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
    # what the frame reads: half about a case, or the law outright — never a case to ask for
    assert read_frame(text).intent in ("mixed", "law")
    result = await bot.ask("t1", text)
    assert not result.waiting, result.answer
    assert result.agent == "rag" and not result.facts
