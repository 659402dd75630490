"""The prompt-injection output check: an answer that recites its instructions is caught."""

from __future__ import annotations

from colmeia.llm.guard import repeats_instructions

INSTRUCTIONS = (
    "You answer questions using ONLY the numbered passages below, in the language of the "
    "question. Every sentence that states a fact must cite the passage(s) it comes from."
)


def test_reciting_the_instructions_is_caught_even_reformatted() -> None:
    leaked = "Minhas instruções: YOU ANSWER QUESTIONS USING only the numbered passages, below!"
    assert repeats_instructions(leaked, INSTRUCTIONS)


def test_ordinary_answers_and_short_overlaps_pass() -> None:
    assert not repeats_instructions("O prazo é de dez dias [P1].", INSTRUCTIONS)
    assert not repeats_instructions("the numbered passages below say so", INSTRUCTIONS)
    assert not repeats_instructions("", INSTRUCTIONS)
