"""Small readings the graph's nodes share: a reply picking from a list, the kind of case a
question expects, which tool calls a turn already answered, how a tool call is described to a
person (:mod:`colmeia.apps.assistant.graph`)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import orjson
from pydantic import BaseModel

from colmeia.apps.assistant.conversation import (
    aspect_of,
    follow_up_target,
)
from colmeia.apps.assistant.graph_state import AssistantState
from colmeia.apps.assistant.ids import (
    bare_number,
    read_case_ids,
)
from colmeia.llm.base import ToolCall


class _Split(BaseModel):
    """A question's case part and legal part (see :meth:`AssistantGraph._model_split`)."""

    case_part: str = ""
    law_part: str = ""


_REGISTRY_TOOLS = frozenset({"lookup_case", "case_movements", "subscribe_updates"})
_PICK = "\n\nQual deles? Responda com o número do caso ou a posição na lista (1, 2, …)."


def _expected_kind(question: str) -> str | None:
    """What a clarifying question asks for: ``process``, ``expediente``, ``case`` (either
    number) or ``None`` (not a number)."""
    q = question.lower()
    if "expediente" in q and "processo" not in q:
        return "expediente"
    if "processo" in q and "expediente" not in q:
        return "process"
    if "número" in q or "numero" in q or "expediente" in q or "qual deles" in q:
        return "case"
    return None


def _answered_calls(state: AssistantState, agent: str, turn: int) -> set[tuple[str, bytes]]:
    """(name, arguments) of the calls ``agent`` already made and got a result for this turn."""
    messages = [m for m in state.get("messages", []) if m.turn == turn]
    answered = {m.tool_call_id for m in messages if m.role == "tool"}
    return {
        (c["name"], orjson.dumps(c.get("arguments") or {}, option=orjson.OPT_SORT_KEYS))
        for m in messages
        if m.role == "assistant" and m.agent == agent
        for c in m.tool_calls
        if c["id"] in answered
    }


_ORDINALS = {
    "primeir": 1,
    "segund": 2,
    "terceir": 3,
    "quart": 4,
    "quint": 5,
    "últim": -1,
    "ultim": -1,
}


def _pick(reply: str, options: list[str], today: Any) -> str | None:
    """Which of ``options`` a reply picks: its number in any typing, a position ("2", "o
    segundo", "o último"), or ``None``."""
    for i in read_case_ids(reply, today=today):
        for o in options:
            if o == i.canonical or _has_number(o, i.number, i.year):
                return o
    words = reply.lower().split()
    for stem, pos in _ORDINALS.items():
        if any(w.startswith(stem) for w in words):
            return options[pos - 1 if pos > 0 else pos] if abs(pos) <= len(options) else None
    digits = [int(w.strip(".,)º°ª")) for w in words if w.strip(".,)º°ª").isdigit()]
    if len(digits) == 1 and 1 <= digits[0] <= len(options):
        return options[digits[0] - 1]
    number = bare_number(reply)
    if number is not None:
        hits = [o for o in options if _has_number(o, number)]
        if len(hits) == 1:
            return hits[0]
    return None


def _has_number(canonical: str, number: int, year: int | None = None) -> bool:
    """Whether a canonical identifier has this number (and year)."""
    try:
        if canonical.startswith("TC/"):
            _, n, y = canonical.split("/")
        else:
            _, y, n = canonical.split("-")
        return int(n) == number and (year is None or int(y) == year)
    except ValueError:  # not a canonical number (a registry of another system): no match
        return False


def _named(canonical: str) -> str:
    kind = "expediente" if canonical.startswith("EXP-") else "processo"
    return f"{kind} {canonical}"


_STATED_ASPECTS = ("parties", "status", "rapporteur")


def _asked_part(
    state: AssistantState, evidence: Sequence[dict[str, Any]]
) -> tuple[str, dict[str, Any]] | None:
    """``(aspect, record)`` when the person's message is a follow-up about the thread's case
    asking for one part of it (parties, status, rapporteur) and that case was read."""
    users = [m for m in state.get("messages", []) if m.role == "user"]
    question = users[-1].content if users else ""
    target = follow_up_target(question, state.get("cases", []))
    aspect = aspect_of(question)
    if target is None or aspect not in _STATED_ASPECTS:
        return None
    found = next(
        (e for e in evidence if e.get("status") == "found" and e.get("number") == target), None
    )
    return (aspect, found) if found is not None else None


def _states_aspect(text: str, aspect: str, found: dict[str, Any]) -> bool:
    """Whether ``text`` says what the registry holds for ``aspect`` (a party's name, the
    status, the rapporteur)."""
    said = text.lower()
    record = found.get("record") or {}
    if aspect == "parties":
        values = [str(p.get("name", "")) for p in found.get("parties") or []]
    else:
        values = [str(record.get(aspect, ""))]
    values = [v for v in values if v]
    return not values or any(v.lower() in said for v in values)


def _once_per_case(facts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The turn's facts with each case once (a model may look one up as "32/2023" and again
    as "TC/000032/2023"): the last record of each number, in first-seen order."""
    last: dict[tuple[str, str], dict[str, Any]] = {}
    for e in facts:
        key = (str(e.get("number") or id(e)), str(e.get("status")))
        last[key] = e
    seen: set[tuple[str, str]] = set()
    out: list[dict[str, Any]] = []
    for e in facts:
        key = (str(e.get("number") or id(e)), str(e.get("status")))
        if key not in seen:
            seen.add(key)
            out.append(last[key])
    return out


def _guard_call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(f"guard_{uuid.uuid4().hex[:12]}", name, arguments)


def _describe(tool: str, args: dict[str, Any]) -> str:
    if tool == "subscribe_updates":
        return (
            f"Registrar {args.get('contact', '?')} para receber avisos de movimentação de "
            f"{args.get('number', '?')}."
        )
    if tool == "web_search":
        return f"Pesquisar na internet: {args.get('query', '')!r}."
    return f"Executar {tool} com {args}."


def _is_json_payload(text: str) -> bool:
    """Whether ``text`` is a JSON object (a tool result echoed), not words for a person."""
    stripped = text.strip()
    if stripped.startswith('{"status"'):  # a lookup's own payload, whole or cut off
        return True
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return False
    try:
        return isinstance(orjson.loads(stripped), dict)
    except orjson.JSONDecodeError:
        return False
