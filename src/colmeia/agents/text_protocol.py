"""The ReAct text protocol, for models without native tool calling.

The model writes::

    Thought: I need to add the two numbers.
    Action: calculator
    Action Input: {"expression": "2 + 2"}

and later ``Final Answer: 4``. Real models stray from this, so the parser tolerates
``<think>`` blocks, prose around the markers, markdown bold (``**Action:**``), Portuguese and
Spanish markers, bracket or parenthesis arguments (``calculator[2+2]``), a bare string instead
of a JSON object, fenced JSON, a hallucinated ``Observation:`` after the action, and tool calls
written as JSON or ``<tool_call>`` tags.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from colmeia.llm.textparse import find_json, recover_tool_calls, split_reasoning
from colmeia.tools.registry import Tool

__all__ = ["ParsedReply", "coerce_arguments", "parse_reply"]

_BOLD = r"[\*_`]*"
_FINAL = re.compile(
    rf"{_BOLD}(?:final\s+answer|resposta\s+final|respuesta\s+final){_BOLD}\s*:{_BOLD}", re.I
)
_ACTION = re.compile(
    rf"(?m)^[ \t>\-]*{_BOLD}(?:action|a[cç][aã]o|acci[oó]n){_BOLD}\s*:{_BOLD}", re.I
)
_INPUT = re.compile(
    rf"(?m)^[ \t>\-]*{_BOLD}(?:action\s+input|entrada(?:\s+da\s+a[cç][aã]o)?|"
    rf"entrada\s+de\s+la\s+acci[oó]n){_BOLD}\s*:{_BOLD}",
    re.I,
)
_OBSERVATION = re.compile(
    rf"(?m)^[ \t]*{_BOLD}(?:observation|observa[cç][aã]o|observaci[oó]n){_BOLD}\s*:", re.I
)
_THOUGHT = re.compile(rf"{_BOLD}(?:thought|pensamento|pensamiento){_BOLD}\s*:{_BOLD}\s*", re.I)
_CALL_FORM = re.compile(r"^([A-Za-z_][\w\-.]*)\s*(\[(?P<b>.*)\]|\((?P<p>.*)\))\s*$", re.S)
_NAME = re.compile(r"^[A-Za-z_][\w\-.]*$")
_FENCE = re.compile(r"^```[\w-]*\s*\n?(.*?)\n?```$", re.S)


@dataclass(slots=True)
class ParsedReply:
    """What a text-protocol reply asked for: an action, a final answer, or neither (``error``)."""

    thought: str = ""
    action: str | None = None
    arguments: dict[str, Any] | None = None
    raw_input: str | None = None
    final_answer: str | None = None
    error: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def is_final(self) -> bool:
        return self.final_answer is not None

    @property
    def is_action(self) -> bool:
        return self.action is not None


def _clean_name(text: str) -> str:
    return text.strip().strip("`'\"*[]").strip()


def _strip_fence(text: str) -> str:
    text = text.strip()
    fenced = _FENCE.match(text)
    return fenced.group(1).strip() if fenced else text


def _parse_input(raw: str) -> tuple[dict[str, Any] | None, str | None, str | None]:
    """``(arguments, raw_text, error)`` from what followed ``Action Input:``."""
    text = _strip_fence(raw)
    if not text:
        return {}, "", None
    if text[0] in "{[":
        found = find_json(text)
        if found.kind == "ok":
            if isinstance(found.value, dict):
                return found.value, text, None
            return None, text, None  # a JSON list/scalar: maybe the single parameter
        return None, text, f"the Action Input is not valid JSON ({found.error})"
    if text[0] == '"' and text[-1:] == '"':
        found = find_json(text)
        if found.kind == "ok" and isinstance(found.value, str):
            return None, found.value, None
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'`":
        text = text[1:-1]
    return None, text, None


def parse_reply(text: str, tool_names: Collection[str] = ()) -> ParsedReply:
    """Read a text-protocol reply. ``tool_names`` helps recover calls written as JSON."""
    answer, reasoning = split_reasoning(text or "")
    if not answer and reasoning:
        # Everything was inside <think> (or the model never closed it): look there.
        answer = reasoning
        reasoning = None
    observation = _OBSERVATION.search(answer)
    if observation:
        # The model went on to imagine the tool's result; nothing after that is its own.
        answer = answer[: observation.start()]
    final = _FINAL.search(answer)
    action = _ACTION.search(answer)
    first = min(
        (m for m in (final, action) if m is not None), key=lambda m: m.start(), default=None
    )
    before = answer[: first.start()] if first else ""
    markers = list(_THOUGHT.finditer(before))
    marker = markers[-1] if markers else None
    thought = (before[marker.end() :] if marker else before).strip() or (reasoning or "")
    reply = ParsedReply(thought=thought)
    if first is not None and first is final:
        end = (
            action.start()
            if action is not None and final and action.start() > final.end()
            else None
        )
        text_after = answer[final.end() : end].strip() if final else ""
        if text_after.startswith("**") and text_after.endswith("**"):
            text_after = text_after[2:-2].strip()
        reply.final_answer = text_after
        if not reply.final_answer:
            reply.final_answer = None
            reply.error = "the Final Answer was empty"
        return reply
    if action is not None:
        stop = final.start() if final is not None and final.start() > action.end() else None
        rest = answer[action.end() : stop]
        input_marker = _INPUT.search(rest)
        name_part = rest[: input_marker.start()] if input_marker else rest
        input_part = rest[input_marker.end() :] if input_marker else None
        name_part = name_part.strip()
        first_line = name_part.split("\n", 1)[0].strip()
        call = _CALL_FORM.match(
            (name_part if input_part is None else first_line).strip().strip("`'\"*")
        )
        if call:
            reply.action = call.group(1)
            inner = call.group("b") if call.group("b") is not None else call.group("p")
            args, raw, error = _parse_input(inner or "")
            reply.arguments, reply.raw_input, reply.error = args, raw, error
            return reply
        if name_part.startswith("{"):
            calls = recover_tool_calls(name_part, tool_names)
            if calls:
                reply.action, reply.arguments = calls[0].name, calls[0].arguments
                reply.raw_input = calls[0].raw_arguments
                return reply
        name = _clean_name(first_line)
        if not _NAME.match(name):
            reply.error = f"the Action {first_line[:60]!r} is not a tool name"
            return reply
        reply.action = name
        if input_part is None:
            remainder = name_part[len(first_line) :].strip()
            args, raw, error = _parse_input(remainder) if remainder else ({}, "", None)
        else:
            args, raw, error = _parse_input(input_part)
        reply.arguments, reply.raw_input, reply.error = args, raw, error
        return reply
    calls = recover_tool_calls(answer, tool_names) if tool_names else []
    if calls:
        reply.action, reply.arguments = calls[0].name, calls[0].arguments
        reply.raw_input = calls[0].raw_arguments
        reply.thought = reasoning or ""
        return reply
    reply.thought = answer.strip()
    reply.error = "the reply has neither an 'Action:' nor a 'Final Answer:'"
    return reply


def coerce_arguments(tool: Tool, parsed: ParsedReply) -> dict[str, Any] | None:
    """Arguments for ``tool``: the JSON object, or a bare value given to its one parameter."""
    if parsed.arguments is not None and (parsed.arguments or not tool.required_parameters()):
        return parsed.arguments
    properties = list(tool.parameters.get("properties", {}))
    required = tool.required_parameters()
    target = (
        properties[0] if len(properties) == 1 else (required[0] if len(required) == 1 else None)
    )
    if target is None:
        return parsed.arguments
    if parsed.raw_input is None or parsed.raw_input == "":
        return parsed.arguments
    found = find_json(parsed.raw_input) if parsed.raw_input[:1] in "[0123456789-" else None
    value: Any = parsed.raw_input
    if found is not None and found.kind == "ok" and found.text == parsed.raw_input.strip():
        value = found.value
    schema = tool.parameters["properties"][target]
    if isinstance(schema, dict) and schema.get("type") == "string" and not isinstance(value, str):
        value = parsed.raw_input
    return {target: value}
