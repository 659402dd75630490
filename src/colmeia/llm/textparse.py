"""Reading what models write: reasoning blocks, JSON in prose, tool calls written as text.

Pure functions over strings, shared by the client and by agents that parse text protocols.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from colmeia.llm.base import ToolCall

__all__ = [
    "JSONFinding",
    "find_json",
    "recover_tool_calls",
    "split_reasoning",
]

_THINK_TAGS = ("think", "thinking", "reasoning", "thought")
_THINK_BLOCK = re.compile(
    r"<(?P<tag>" + "|".join(_THINK_TAGS) + r")>(?P<body>.*?)</(?P=tag)>", re.DOTALL | re.IGNORECASE
)
_THINK_OPEN = re.compile(r"<(" + "|".join(_THINK_TAGS) + r")>", re.IGNORECASE)
# Some templates emit only the closing tag (the opening one is in the prompt).
_THINK_CLOSE_ONLY = re.compile(r"^(?P<body>.*?)</(" + "|".join(_THINK_TAGS) + r")>", re.DOTALL)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(?P<body>.*?)```", re.DOTALL)
_TOOL_CALL_TAG = re.compile(r"<tool_call>\s*(?P<body>.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FUNCTION_TAG = re.compile(
    r"<function=(?P<name>[\w.\-]+)>\s*(?P<body>.*?)\s*(?:</function>|$)", re.DOTALL
)


def split_reasoning(text: str) -> tuple[str, str | None]:
    """Split ``<think>…</think>`` (and similar) out of ``text``.

    Returns ``(answer, reasoning)``. An opening tag never closed means the model was cut off
    while still reasoning: everything after it is reasoning and the answer is what came before.
    """
    if "<" not in text:
        return text.strip(), None
    reasoning: list[str] = []

    def _take(match: re.Match[str]) -> str:
        reasoning.append(match.group("body").strip())
        return ""

    answer = _THINK_BLOCK.sub(_take, text)
    unclosed = _THINK_OPEN.search(answer)
    if unclosed:
        reasoning.append(answer[unclosed.end() :].strip())
        answer = answer[: unclosed.start()]
    elif not reasoning:
        close_only = _THINK_CLOSE_ONLY.match(answer)
        if close_only:
            reasoning.append(close_only.group("body").strip())
            answer = answer[close_only.end() :]
    return answer.strip(), ("\n".join(r for r in reasoning if r) or None)


@dataclass(slots=True)
class JSONFinding:
    """What :func:`find_json` saw: a value, or why there is none."""

    kind: Literal["ok", "truncated", "none", "invalid"]
    value: Any = None
    text: str = ""
    error: str = ""


def _balanced_end(text: str, start: int) -> int:
    """Index just past the JSON value opening at ``start``, or -1 if it never closes."""
    depth = 0
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def find_json(text: str) -> JSONFinding:
    """Find the JSON object a model meant to return inside ``text``.

    Tries the whole text, then fenced blocks, then the first balanced ``{…}``/``[…]``.
    Distinguishes output that was cut off (``truncated``) from prose with no JSON (``none``).
    """
    stripped = text.strip()
    if not stripped:
        return JSONFinding("none", error="the answer was empty")
    try:
        return JSONFinding("ok", orjson.loads(stripped), stripped)
    except orjson.JSONDecodeError as exc:
        first_error = str(exc)
    for fence in _FENCE.finditer(stripped):
        body = fence.group("body").strip()
        try:
            return JSONFinding("ok", orjson.loads(body), body)
        except orjson.JSONDecodeError:
            continue
    starts = [i for i in (stripped.find("{"), stripped.find("[")) if i >= 0]
    if not starts:
        return JSONFinding("none", text=stripped, error="the answer contains no JSON")
    start = min(starts)
    end = _balanced_end(stripped, start)
    if end < 0:
        return JSONFinding("truncated", text=stripped[start:], error="the JSON was cut off")
    candidate = stripped[start:end]
    try:
        return JSONFinding("ok", orjson.loads(candidate), candidate)
    except orjson.JSONDecodeError as exc:
        return JSONFinding("invalid", text=candidate, error=str(exc) or first_error)


def _call_from_obj(obj: Any, allowed: Collection[str], name: str | None = None) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    call_name = name or obj.get("name") or obj.get("tool") or obj.get("function")
    if isinstance(call_name, dict):  # {"function": {"name": …, "arguments": …}}
        return _call_from_obj(call_name, allowed)
    if not isinstance(call_name, str) or (allowed and call_name not in allowed):
        return None
    args: Any = obj if name else obj.get("arguments", obj.get("parameters", obj.get("args", {})))
    if isinstance(args, str):
        try:
            args = orjson.loads(args)
        except orjson.JSONDecodeError:
            return None
    if not isinstance(args, dict):
        return None
    raw = orjson.dumps(args).decode()
    return ToolCall(
        id=f"call_{uuid.uuid4().hex[:12]}", name=call_name, arguments=args, raw_arguments=raw
    )


def recover_tool_calls(text: str, allowed: Collection[str]) -> list[ToolCall]:
    """Tool calls a model wrote as text instead of calling natively.

    Understands Hermes/Qwen ``<tool_call>{…}</tool_call>``, Llama ``<function=name>{…}</function>``
    and a bare or fenced JSON object ``{"name": …, "arguments": …}`` naming an offered tool.
    Only names in ``allowed`` are accepted (empty ``allowed`` accepts any name).
    """
    calls: list[ToolCall] = []
    for match in _TOOL_CALL_TAG.finditer(text):
        found = find_json(match.group("body"))
        if found.kind == "ok":
            items = found.value if isinstance(found.value, list) else [found.value]
            calls.extend(c for c in (_call_from_obj(i, allowed) for i in items) if c)
    for match in _FUNCTION_TAG.finditer(text):
        found = find_json(match.group("body") or "{}")
        if found.kind == "ok":
            call = _call_from_obj(found.value, allowed, name=match.group("name"))
            if call:
                calls.append(call)
    if calls:
        return calls
    found = find_json(text)
    if found.kind == "invalid":
        found = _unwrapped(found.text)
    if found.kind == "ok":
        items = found.value if isinstance(found.value, list) else [found.value]
        calls.extend(c for c in (_call_from_obj(i, allowed) for i in items) if c)
    return calls


def _unwrapped(candidate: str) -> JSONFinding:
    """A call written in doubled braces, ``{{"name": …, "arguments": {…}}}`` (template
    escaping: the 1.5B Qwen wrote its calls so), read without the outer pair."""
    inner = candidate.strip()
    while inner.startswith("{{") and inner.endswith("}}"):
        inner = inner[1:-1].strip()
        try:
            return JSONFinding("ok", orjson.loads(inner), inner)
        except orjson.JSONDecodeError:
            continue
    return JSONFinding("invalid", text=candidate, error="not JSON, even without doubled braces")
