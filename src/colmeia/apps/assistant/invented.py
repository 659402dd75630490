"""Case numbers a model made up: lookups of a number nobody in the thread gave.

Asked "Preciso saber do andamento do meu processo", the 1.5B model looked up
``TC/1234567890``; asked for a case by a party's name, small models look up
``TC/001001/2023``. A number is the person's when it appears, read as leniently as their
typing, in what they wrote, in the thread's current cases, or in a tool's result (a search's
list, a lookup's card); any other number in a ``lookup_case`` call is invented, and the
graph replaces the call with what the person's words allow (see ``AssistantGraph._override``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence

from colmeia.apps.assistant.ids import CaseId, find_case_ids, read_case_ids
from colmeia.llm.base import ToolCall

__all__ = ["invented_lookups", "numbers_given"]


def numbers_given(
    request: str, texts: Iterable[str], cases: Sequence[str], today: dt.date | None
) -> set[str]:
    """Canonical case numbers the thread holds: in the person's ``request`` (read leniently),
    in ``texts`` (the thread's messages and tool results) and in its current ``cases``."""
    known = {i.canonical for i in read_case_ids(request, today=today)}
    known.update(str(c) for c in cases)
    for text in texts:
        known.update(
            i.canonical for i in find_case_ids(text or "", today=today) if isinstance(i, CaseId)
        )
    return known


def invented_lookups(
    calls: Sequence[ToolCall], known: set[str], request: str, today: dt.date | None
) -> list[ToolCall]:
    """The ``lookup_case`` calls in ``calls`` whose number is not one of ``known`` and not
    written as such in the person's ``request`` (their own mistyped "tc 12/24" is theirs:
    the lookup tells them what is wrong with it)."""
    typed = " ".join(request.lower().split())
    out = []
    for call in calls:
        if call.name != "lookup_case":
            continue
        raw = " ".join(str(call.arguments.get("number") or "").lower().split())
        read = read_case_ids(raw, today=today)
        if read and read[0].canonical in known:
            continue
        if raw and raw in typed:
            continue
        out.append(call)
    return out
