"""A mixed answer's case part is headed by the cases it shows, by number — "Sobre o processo
TC/000010/2022:" — not by the person's whole message quoted back ("Sobre o processo (Boa tarde.
Sou servidor da prefeitura e recebi uma citação do tribunal no processo 10/2022):"); with no
case found, by the words it answers."""

from __future__ import annotations

from typing import Any

from colmeia.apps.assistant.conversation import case_heading


def _found(number: str) -> dict[str, Any]:
    return {"status": "found", "number": number}


def test_the_heading_names_the_cases_shown() -> None:
    assert case_heading([_found("TC/000010/2022")], "Boa tarde. Sou… 10/2022") == (
        "Sobre o processo TC/000010/2022"
    )
    assert case_heading([_found("EXP-2024-00011")], "e o expediente?") == (
        "Sobre o expediente EXP-2024-00011"
    )
    two = [_found("TC/000010/2022"), _found("TC/000012/2022"), _found("TC/000010/2022")]
    assert case_heading(two, "…") == "Sobre os processos TC/000010/2022 e TC/000012/2022"
    mixed = [_found("TC/000010/2022"), _found("EXP-2024-00011"), _found("TC/000013/2022")]
    assert case_heading(mixed, "…") == (
        "Sobre os casos TC/000010/2022, EXP-2024-00011 e TC/000013/2022"
    )


def test_without_a_case_found_the_words_answered_head_it() -> None:
    missing = [{"status": "not_found", "number": "TC/000011/2022"}]
    assert (
        case_heading(missing, " o 11/2022 tá parado ") == "Sobre o processo (o 11/2022 tá parado)"
    )


async def test_a_mixed_turn_is_headed_by_its_case_number(assistant: Any) -> None:
    bot = await assistant(None)
    result = await bot.ask(
        "t1",
        "Boa tarde. Recebi uma citação no processo 32/2023. Qual o prazo para recorrer de "
        "uma decisão administrativa?",
    )
    assert result.answer.startswith("Sobre o processo TC/000032/2023:\n"), result.answer[:200]
    assert "Sobre a norma (" in result.answer
