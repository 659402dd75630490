"""Which case numbers a thread holds, and which lookups the model made up (the rules behind
tests/apps/assistant/test_assistant_invented_numbers.py, read without a model).

A number is the thread's when the person wrote it (read as leniently as a reply), when a
message or a tool's result holds it, or when it is one of the thread's current cases; numbers
are read as of the thread's day (an evaluation's fixed date), so a year after it is no number.
A ``lookup_case`` of any other number is invented — unless the person typed that very text
(their own slip: the lookup tells them what is wrong with it). Only lookups are judged."""

from __future__ import annotations

import datetime as dt

from colmeia.apps.assistant.invented import invented_lookups, numbers_given
from colmeia.llm.base import ToolCall

DAY = dt.date(2024, 6, 1)


def _lookup(number: object, n: int = 1) -> ToolCall:
    return ToolCall(f"c{n}", "lookup_case", {"number": number})


def test_the_thread_holds_the_persons_numbers_its_texts_and_its_cases() -> None:
    known = numbers_given(
        "e o tc 32/2023?",
        ["Resultado: TC/000041/2022 (Relator: Cons. A)", ""],
        ["TC/000007/2021"],
        DAY,
    )
    assert known == {"TC/000032/2023", "TC/000041/2022", "TC/000007/2021"}


def test_a_year_after_the_threads_day_is_no_number() -> None:
    assert numbers_given("o processo 32/2025", [], [], DAY) == set()
    assert numbers_given("", ["Resultado: TC/000041/2025"], [], DAY) == set()
    assert numbers_given("o processo 32/2025", [], [], dt.date(2025, 1, 2)) == {"TC/000032/2025"}


def test_a_lookup_of_a_number_the_thread_holds_is_not_invented_however_written() -> None:
    known = {"TC/000032/2023", "TC/000041/2022"}
    calls = [_lookup("tc 32/2023", 1), _lookup("TC/000041/2022", 2), _lookup("TC/000099/2023", 3)]
    assert invented_lookups(calls, known, "qual o andamento?", DAY) == [calls[2]]


def test_only_lookups_are_judged_and_each_of_them_is() -> None:
    calls = [
        ToolCall("c1", "search_cases", {"query": "obras da escola"}),
        _lookup("TC/001001/2023", 2),
        ToolCall("c3", "transfer_to_search", {"reason": "processo"}),
        _lookup("TC/1234567890", 4),
    ]
    assert invented_lookups(calls, set(), "o processo da escola", DAY) == [calls[1], calls[3]]


def test_the_persons_own_mistyped_number_is_theirs_to_look_up() -> None:
    # "tc 12/24" is no valid number, but the person wrote it: the lookup will say what is wrong
    request = "Qual o andamento do TC 12/24, por favor?"
    mine, other = _lookup("tc  12/24", 1), _lookup("tc 13/24", 2)
    assert invented_lookups([mine, other], set(), request, DAY) == [other]


def test_a_lookup_without_a_number_is_invented() -> None:
    calls = [_lookup(None, 1), _lookup("", 2), ToolCall("c3", "lookup_case", {})]
    assert invented_lookups(calls, set(), "meu processo", DAY) == calls
