"""Without a case registry, a case question without a number is told at once that cases
cannot be looked up here — it is not first asked "De qual processo?" only to be told so after
typing the number (seen from the README: `colmeia assistant ask` on a fresh home). A question
with a law part still gets the law's answer. Offline (no model), the frame's route."""

from __future__ import annotations

from pathlib import Path

from assistant_helpers import without_registry

from colmeia.apps.assistant.registry_url import NOT_CONFIGURED
from colmeia.store import Store


async def test_a_case_question_without_a_registry_is_not_asked_its_number(
    laws_store: Store, tmp_path: Path
) -> None:
    async with without_registry(laws_store, tmp_path / "empty-home") as bot:
        first = await bot.ask("t1", "oi, preciso saber como anda meu processo")
        assert first.status == "answered" and first.waiting is None
        assert first.answer == NOT_CONFIGURED
        follow = await bot.ask("t1", "e quem e o relator?")
        assert follow.status == "answered" and follow.answer == NOT_CONFIGURED
        mixed = await bot.ask("t2", "meu processo ta parado faz 2 anos, a lei 9784 permite isso?")
        assert mixed.status == "answered" and mixed.waiting is None
        assert mixed.citations and mixed.citations[0]["law"] == "Lei 9.784/1999"
