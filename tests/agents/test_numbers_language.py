"""Which tasks get number notes: the language test at its edges, and the notes' limits.

A task with no function words at all ("7.893 / 9 = ?") or as many English as Portuguese ones
is not read as Portuguese: "7.893" there may be a decimal, and a note "7.893 = 7893" would
tell the model to compute with a number a thousand times too large.
"""

from __future__ import annotations

import pytest

from colmeia.agents.numbers import MAX_NOTES, TaskNumbers, looks_portuguese_or_spanish, read_numbers


@pytest.mark.parametrize(
    "task",
    [
        "7.893 / 9 = ?",  # no function words at all
        "1.247 + 3.896",
        "o total of 1.247",  # one Portuguese word, one English: a tie
        "",
    ],
)
def test_a_task_without_more_portuguese_than_english_words_gets_no_notes(task: str) -> None:
    assert not looks_portuguese_or_spanish(task)
    assert TaskNumbers.of(task).notes == []
    assert TaskNumbers.of(task).copied_in({"expression": "1.247 + 3.896"}) == []


def test_one_function_word_more_than_english_is_enough() -> None:
    assert not looks_portuguese_or_spanish("Qual o total of it?")  # qual, o / of, it: a tie
    assert looks_portuguese_or_spanish("Qual é o total of it?")  # qual, é, o / of, it
    assert looks_portuguese_or_spanish("Divida 7.893 por 9")
    assert TaskNumbers.of("Divida 7.893 por 9").notes == ["7.893 = 7893"]


def test_capitalised_function_words_count() -> None:
    assert looks_portuguese_or_spanish("QUANTO DÁ 1.247 MAIS 3?")
    assert TaskNumbers.of("QUANTO DÁ 1.247 MAIS 3?").notes == ["1.247 = 1247"]


def test_notes_follow_the_task_s_order_once_each_and_stop_at_the_cap() -> None:
    task = "Some 3,5 e 1.200 e de novo 3,5 e 2.400 por favor"
    assert TaskNumbers.of(task).written == ("3,5", "1.200", "2.400")
    many = "Some " + " e ".join(f"{i}.000" for i in range(1, MAX_NOTES + 5)) + " por favor"
    notes = TaskNumbers.of(many).notes
    assert len(notes) == MAX_NOTES
    assert notes[0] == "1.000 = 1000"
    assert notes[-1] == f"{MAX_NOTES}.000 = {MAX_NOTES}000"


def test_a_decimal_comma_number_copied_as_written_is_not_reported() -> None:
    # "18,75" in a calculator is no number at all: the tool itself says so
    task = "Um café custa 18,75 e o bolo 1.250,50; quanto dá 1.250 no total?"
    numbers = TaskNumbers.of(task)
    assert numbers.copied_in({"expression": "18,75 + 1.250,50"}) == []
    assert numbers.copied_in({"expression": "1.250 * 2"}) == ["1.250 = 1250"]
    assert numbers.copied_in({"expression": "21.250 * 2"}) == []


def test_reading_numbers_from_answers() -> None:
    assert read_numbers("") == set()
    assert read_numbers("O resultado é 877.") == {877.0}
    assert read_numbers("São -3,5 graus") == {-3.5}
    assert read_numbers("1.234.567,89") == {1234567.89}
    assert read_numbers("1,234,567.89") == {1234567.89}
    assert read_numbers("1.2.3") == set()  # no reading: not a number in either notation


def test_a_number_copied_right_after_a_non_ascii_sign_is_caught() -> None:
    # models write "3×1.247" or "≈1.247": the sign must not hide the copied number
    numbers = TaskNumbers.of("Quanto é 3 vezes 1.247?")
    assert numbers.copied_in({"expression": "3×1.247"}) == ["1.247 = 1247"]
    assert numbers.copied_in({"expression": "≈1.247"}) == ["1.247 = 1247"]
