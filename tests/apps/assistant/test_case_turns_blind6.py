"""Case turns the sixth blind set (issue 31) found wrong, each now answered from the registry:

* the cases of a list the person picked from stay in the thread: after "tem processo do
  conselheiro X?" lists three and "o de 2022" picks one, "e o de 2021?" and "e o outro?" are
  about the listed cases (they were asked "de qual processo?"), and the one picked stays the
  thread's own;
* a few words after an answer that gave a case and a law article ("quem fez a denuncia") are
  about the case, not the court's file on filing a denúncia;
* a vent with no question that names a party of one case in full is about that case;
* a list of papers comes with the movement the question names.

Offline, the small fictitious registry of ``data/registry_para`` imported from CSV into a real
SQLite store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assistant_helpers import AS_OF
from registry_sets_helpers import para_registry

from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.frame import TurnFrame
from colmeia.apps.assistant.scope import is_scope_answer

PICKED = "TC/011165/2022"
OF_2021 = "TC/004506/2021"


def _shown(result: Any) -> list[str]:
    return [f["number"] for f in result.facts if f.get("status") == "found"]


async def _picked(bot: Any, thread: str) -> None:
    listed = await bot.ask(thread, "tem processo do conselheiro otavio brandao lima?")
    assert listed.status == "waiting_clarification"
    assert all(n in listed.answer for n in (PICKED, OF_2021, "TC/000777/2020"))
    picked = await bot.resume(thread, "o de 2022")
    assert _shown(picked) == [PICKED]


async def test_a_year_picks_another_case_of_the_list(para_bot: Any) -> None:
    await _picked(para_bot, "t1")
    other = await para_bot.ask("t1", "e o de 2021, ta onde?")
    assert other.status == "answered"
    assert _shown(other) == [OF_2021]
    assert "Secretaria de Controle Externo da Saúde" in other.answer


async def test_the_case_picked_stays_the_threads_own(para_bot: Any) -> None:
    await _picked(para_bot, "t2")
    parties = await para_bot.ask("t2", "e as partes?")
    assert _shown(parties) == [PICKED]
    assert "Antônio Carlos Guimarães" in parties.answer


async def test_a_few_words_after_a_mixed_answer_are_about_its_case(para_bot: Any) -> None:
    """Blind set 6: after an answer that gave a case and a law article, "quem fez a denuncia"
    got the court's file on how to file a denúncia; the thread is about that case."""
    mixed = await para_bot.ask(
        "t3",
        "pela lei 9.784 qual o prazo pra decidir? e aproveitando, o processo 2210/2024 deu em que?",
    )
    assert _shown(mixed) == ["TC/002210/2024"] and mixed.citations
    who = await para_bot.ask("t3", "quem fez a denuncia")
    assert who.agent != "institutional"
    assert _shown(who) == ["TC/002210/2024"]
    assert "Comercial Alimentos Tapajós Ltda." in who.answer


async def test_a_vent_that_names_a_party_in_full_is_about_that_case(tmp_path: Path) -> None:
    """Blind set 6: "to revoltada!! denunciei a prefeitura … e ate hoje ninguem me fala nada.
    meu nome é …" reads as out of scope (no question in it), and got the scope answer; it
    names a party of one case in full, so it gets that case. A vent naming nobody stays out of
    scope."""
    registry = para_registry(tmp_path)
    try:
        dispatcher = Dispatcher(registry, rag=None, today=AS_OF)
        vent = (
            "to revoltado!! denunciei a compra da merenda e ate hoje ninguem me fala nada. "
            "meu nome é raimundo nonato falcao"
        )
        named = await dispatcher.decide(TurnFrame(vent, "scope", "status", 0.9), [])
        assert named.answer is not None
        assert [f["number"] for f in named.answer["facts"]] == ["TC/002210/2024"]
        nobody = "to revoltado!! ate hoje ninguem me fala nada"
        other = await dispatcher.decide(TurnFrame(nobody, "scope", "status", 0.9), [])
        assert other.answer is not None and is_scope_answer(other.answer["text"])
    finally:
        registry.close_sync()


async def test_a_list_of_papers_comes_with_the_movement_the_question_names(
    tmp_path: Path,
) -> None:
    """Blind set 6: "ele ja ficou em diligencia?" and "o relatorio tecnico apontou oq?" were
    read as asking the papers and got the list of documents only; the movement that answers
    ("Diligência enviada ao responsável") follows the list now."""
    registry = para_registry(tmp_path)
    try:
        dispatcher = Dispatcher(registry, rag=None, today=AS_OF)
        asked = await dispatcher.case_answer(
            "TC/012345/2023", "documents", "ele ja ficou em diligencia?"
        )
        assert asked.answer is not None
        assert "No cadastro: 10/01/2024 — Diligência enviada ao responsável" in asked.answer["text"]
    finally:
        registry.close_sync()
