"""The ReAct text protocol, for models without native tool calling.

The model writes::

    Thought: I need to add the two numbers.
    Action: calculator
    Action Input: {"expression": "2 + 2"}

and later ``Final Answer: 4``. Real models stray from this, so the parser tolerates
``<think>`` blocks, prose around the markers, markdown bold (``**Action:**``), Portuguese and
Spanish markers, bracket or parenthesis arguments (``calculator[2+2]``,
``calculator(expression="2+2")``), a bare string instead of a JSON object, fenced JSON, a
hallucinated ``Observation:`` after the action, and tool calls written as JSON
(``{"name": …, "arguments": …}``, ``{"action": …, "action_input": …}``) or ``<tool_call>`` tags.
The answer may also come as a call of its own — ``Finish[42]``, ``finish(answer="42")``,
``{"name": "final_answer", "arguments": {"answer": "42"}}`` — as other agent frameworks teach.
A call to a tool that does not exist keeps its input, so the trace shows what the model tried.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from colmeia.llm.textparse import find_json, recover_tool_calls, split_reasoning
from colmeia.tools.registry import Tool

__all__ = [
    "FINISH_NAMES",
    "ParsedReply",
    "answer_from",
    "coerce_arguments",
    "parse_reply",
    "thought_before_call",
]

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
# A call written on its own line without "Action:": ``calculator[2+2]``, ``Finish[42]``.
_BARE_CALL = re.compile(
    r"(?m)^[ \t>\-*`]*(?P<name>[A-Za-z_][\w\-.]*)\s*(?P<open>[\[(])(?P<rest>.*)$", re.S
)
_KWARG = re.compile(
    r"""\s*([A-Za-z_]\w*)\s*[=:]\s*("(?:[^"\\]|\\.)*"|'[^']*'|[^,]+?)\s*(?:,|$)""", re.S
)
#: names under which models "call" their final answer (when no tool has that name)
FINISH_NAMES = frozenset(
    {
        "finish",
        "final_answer",
        "finalanswer",
        "final",
        "answer",
        "respond",
        "resposta_final",
        "responder",
        "respuesta_final",
        "responder_final",
    }
)
_ARGS_KEYS = ("arguments", "parameters", "args", "action_input", "input", "tool_input")
_NAME_KEYS = ("name", "tool", "function", "action", "tool_name")


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
    #: the reply up to an ``Observation:`` the model invented (what goes back into the chat)
    used_text: str = ""
    #: what the model imagined after its action: ``(observation, final answer or None)``
    imagined: tuple[str, str | None] | None = None

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


def _parse_kwargs(text: str) -> dict[str, Any] | None:
    """``expression="2+2", digits=2`` → a dict; ``None`` when ``text`` is not that shape."""
    out: dict[str, Any] = {}
    pos = 0
    while pos < len(text):
        match = _KWARG.match(text, pos)
        if match is None:
            return None
        value = match.group(2).strip()
        if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) >= 2:
            value = value[1:-1]
        else:
            found = find_json(value)
            if found.kind == "ok" and found.text == value and not isinstance(found.value, dict):
                out[match.group(1)] = found.value
                pos = match.end()
                continue
        out[match.group(1)] = value
        pos = match.end()
    return out or None


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
    if "=" in text and re.match(r"^[A-Za-z_]\w*\s*=", text):
        kwargs = _parse_kwargs(text)
        if kwargs is not None:
            return kwargs, text, None
    return None, text, None


def _json_call(text: str, tool_names: Collection[str]) -> tuple[str, Any, str] | None:
    """``(name, arguments, raw)`` of a call written as JSON, offered tool or not."""
    calls = recover_tool_calls(text, tool_names) if tool_names else []
    if calls:
        return calls[0].name, calls[0].arguments, calls[0].raw_arguments
    found = find_json(text)
    if found.kind != "ok" or not isinstance(found.value, dict):
        return None
    obj = found.value
    name = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str)), None)
    if isinstance(obj.get("function"), dict):  # {"function": {"name": …, "arguments": …}}
        return _json_call(orjson.dumps(obj["function"]).decode(), tool_names)
    if name is None or not _NAME.match(name):
        return None
    key = next((k for k in _ARGS_KEYS if k in obj), None)
    if key is None and name not in tool_names and name.lower() not in FINISH_NAMES:
        return None  # an object that merely has a "name" field is not a call
    args: Any = obj.get(key) if key else {}
    if isinstance(args, str):
        inner = find_json(args)
        if inner.kind == "ok" and isinstance(inner.value, dict):
            args = inner.value
    raw = args if isinstance(args, str) else orjson.dumps(args).decode()
    return name, args, raw


def _finish_value(arguments: Any, raw: str | None) -> str:
    """The answer inside ``Finish[…]`` / ``finish(answer=…)`` / ``{"answer": …}``."""
    if isinstance(arguments, dict):
        for key in ("answer", "final_answer", "resposta", "respuesta", "text", "result", "output"):
            if key in arguments:
                return str(arguments[key]).strip()
        if len(arguments) == 1:
            return str(next(iter(arguments.values()))).strip()
        # no arguments at all ({"name": "finish"}) is no answer, not the text "{}"
        return orjson.dumps(arguments).decode() if arguments else ""
    # a scalar or a list: its text as the model wrote it (JSON, not Python's repr)
    return (raw or "").strip()


def _set_call(
    reply: ParsedReply, name: str, arguments: Any, raw: str | None, tool_names: Collection[str]
) -> ParsedReply:
    """Fill ``reply`` with a call — or with the final answer when the "tool" is Finish."""
    if name.lower() in FINISH_NAMES and name not in tool_names:
        answer = _finish_value(arguments, raw)
        if answer:
            reply.final_answer = answer
            reply.notes.append(f"answer given as a {name} call")
        else:
            reply.error = f"the {name} call carried no answer"
        return reply
    reply.action = name
    if isinstance(arguments, dict) or arguments is None:
        reply.arguments = arguments
        reply.raw_input = raw
    else:  # a JSON scalar or list: maybe the single parameter
        reply.arguments = None
        reply.raw_input = raw if raw is not None else str(arguments)
    return reply


def _call_form(text: str) -> tuple[str, dict[str, Any] | None, str | None, str | None] | None:
    """``name[…]`` / ``name(…)`` → ``(name, arguments, raw, error)``."""
    call = _CALL_FORM.match(text.strip().strip("`'\"*"))
    if not call:
        return None
    inner = call.group("b") if call.group("b") is not None else call.group("p")
    args, raw, error = _parse_input(inner or "")
    return call.group(1), args, raw, error


def parse_reply(text: str, tool_names: Collection[str] = ()) -> ParsedReply:
    """Read a text-protocol reply. ``tool_names`` helps recover calls written as JSON."""
    answer, reasoning = split_reasoning(text or "")
    if not answer and reasoning:
        # Everything was inside <think> (or the model never closed it): look there.
        answer = reasoning
        reasoning = None
    observation = _OBSERVATION.search(answer)
    imagined: tuple[str, str | None] | None = None
    if observation:
        # The model went on to imagine the tool's result; nothing after that is its own.
        imagined = _imagined(answer[observation.end() :])
        answer = answer[: observation.start()]
    reply = _parse(answer, reasoning, tool_names)
    reply.used_text = answer.strip()
    reply.imagined = imagined if reply.is_action else None
    return reply


def answer_from(text: str, tool_names: Collection[str] = ()) -> str | None:
    """The answer a reply gives, never its protocol: the ``Final Answer``, or the whole text when
    it has no protocol markers; ``None`` when it only thinks or asks for an action.

    ``"Thought: x\nAction: math2[1+1]"`` is not an answer a user should read.
    """
    parsed = parse_reply(text, tool_names)
    if parsed.final_answer is not None:
        return parsed.final_answer
    if parsed.is_action:
        return parsed.imagined[1] if parsed.imagined else None
    body, _ = split_reasoning(text or "")
    if _THOUGHT.search(body) or _ACTION.search(body) or _INPUT.search(body):
        return None
    return body.strip() or None


def _imagined(text: str) -> tuple[str, str | None]:
    """``(observation, final answer)`` from what followed an invented ``Observation:``."""
    final = _FINAL.search(text)
    cut = min(
        (m.start() for m in (_THOUGHT.search(text), final, _ACTION.search(text)) if m),
        default=len(text),
    )
    answer = text[final.end() :].strip() if final else None
    return text[:cut].strip(), answer or None


def _parse(answer: str, reasoning: str | None, tool_names: Collection[str]) -> ParsedReply:
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
    if final is not None and first is final:
        end = action.start() if action is not None and action.start() > final.end() else None
        text_after = answer[final.end() : end].strip()
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
        form = _call_form(name_part if input_part is None else first_line)
        if form:
            name, args, raw, error = form
            if error:
                reply.action, reply.raw_input, reply.error = name, raw, error
                return reply
            return _set_call(reply, name, args, raw, tool_names)
        if _strip_fence(name_part).startswith("{"):
            call = _json_call(_strip_fence(name_part), tool_names)
            if call:
                return _set_call(reply, *call, tool_names=tool_names)
        name = _clean_name(first_line)
        if not _NAME.match(name):
            reply.error = f"the Action {first_line[:60]!r} is not a tool name"
            return reply
        if input_part is None:
            remainder = name_part[len(first_line) :].strip()
            args, raw, error = _parse_input(remainder) if remainder else ({}, "", None)
        else:
            args, raw, error = _parse_input(input_part)
        if error:
            reply.action, reply.raw_input, reply.error = name, raw, error
            return reply
        return _set_call(reply, name, args, raw, tool_names)
    call = _json_call(answer, tool_names)
    if call:
        reply.thought = thought_before_call(answer) or reasoning or ""
        return _set_call(reply, *call, tool_names=tool_names)
    for bare in _BARE_CALL.finditer(answer):
        name = bare.group("name")
        if name in tool_names or name.lower() in FINISH_NAMES:
            form = _call_form(answer[bare.start("name") :].strip())
            if form is None:
                # prose after the call: take the call up to its closing bracket
                closing = "]" if bare.group("open") == "[" else ")"
                end = answer.rfind(closing, bare.end("open"))
                form = _call_form(answer[bare.start("name") : end + 1]) if end > 0 else None
            if form is not None:
                reply.thought = answer[: bare.start()].strip() or reasoning or ""
                name, args, raw, error = form
                if error:
                    reply.action, reply.raw_input, reply.error = name, raw, error
                    return reply
                return _set_call(reply, name, args, raw, tool_names)
    reply.thought = answer.strip()
    reply.error = "the reply has neither an 'Action:' nor a 'Final Answer:'"
    return reply


def mentioned_tools(text: str, tools: Sequence[Tool]) -> list[Tool]:
    """The offered tools that ``text`` names (as words), in the order offered."""
    return [t for t in tools if re.search(rf"(?<![\w-]){re.escape(t.name)}(?![\w-])", text, re.I)]


def announced_call(text: str, tools: Sequence[Tool]) -> tuple[str, dict[str, Any]] | None:
    """A call a model described in prose instead of making it, when the prose is complete.

    Small models often write "I will use the calculator with the arguments:
    expression: "17/100 * 2340"" and stop. When exactly one offered tool is named and every
    required parameter is given on a line of its own (``name: value`` or ``name = value``),
    that is the call; otherwise ``None``.
    """
    named = mentioned_tools(text, tools)
    if len(named) != 1:
        return None
    tool = named[0]
    props = tool.parameters.get("properties", {})
    found: dict[str, Any] = {}
    for name in props:
        line = re.search(rf"(?im)^[ \t>*`\-]*{re.escape(name)}[*`]*\s*[:=]\s*(?P<v>.+?)\s*$", text)
        if line is None:
            continue
        value = line.group("v").strip().rstrip(",").strip("`")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        if value:
            found[name] = value
    required = tool.required_parameters() or list(props)[:1]
    if not required or not all(r in found for r in required):
        return None
    return tool.name, found


def thought_before_call(text: str) -> str:
    """The prose a model wrote before its JSON call (its thought), without fences."""
    cut = min(
        (i for i in (text.find("```"), text.find("{"), text.find("<tool_call>")) if i >= 0),
        default=len(text),
    )
    return text[:cut].strip()


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
    # the whole input as JSON (a number, a list, true/false) is that value, typed
    found = find_json(parsed.raw_input)
    value: Any = parsed.raw_input
    if found.kind == "ok" and found.text == parsed.raw_input.strip():
        value = found.value
    schema = tool.parameters["properties"][target]
    if isinstance(schema, dict) and schema.get("type") == "string" and not isinstance(value, str):
        value = parsed.raw_input
    return {target: value}
