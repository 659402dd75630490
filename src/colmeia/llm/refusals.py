"""Reading a server's error: did it refuse a feature, or was the prompt too long?

Servers say "I do not do that" with many statuses (llama.cpp's old "Unsupported param: tools" is
an HTTP 500; vLLM's missing tool parser a 400; Ollama's model without tools a 400), and a 400 is
just as often a prompt that does not fit the context window. So the status alone decides
nothing: the error's text does. A feature counts as refused only when the message names the
feature *and* says it is unsupported, invalid or needs something the server lacks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["ContextOverflow", "Feature", "context_overflow", "refused_feature", "unparsed_feature"]

Feature = Literal[
    "tools",
    "tool_choice_auto",
    "tool_choice_required",
    "tool_choice_named",
    "json_schema",
    "json_object",
]

_REFUSAL = re.compile(
    r"not (?:be )?supported|unsupported|not support|does not support|doesn't support|"
    r"not allowed|not permitted|extra[_ ]forbidden|unrecogni[sz]ed|unknown (?:field|param|"
    r"parameter|argument)|invalid (?:value|type|tool_choice|response_format|format)|"
    r"must be (?:one of|a string|either)|requires? (?:--|the )|is not available|not implemented|"
    r"only (?:supports?|accepts?)",
    re.IGNORECASE,
)
_TOOLS = re.compile(r"\btools?\b|function[ _]call|tool[ _]use", re.IGNORECASE)
_TOOL_CHOICE = re.compile(r"tool[_ ]choice|tool choice|named (?:tool|function)", re.IGNORECASE)
_RESPONSE_FORMAT = re.compile(
    r"response[_ ]format|json[_ ]schema|json[_ ]object|structured output|guided[_ ]json|\bformat\b",
    re.IGNORECASE,
)

_CONTEXT = re.compile(
    r"context[_ ]length|context (?:size|window)|maximum context|max_model_len|"
    r"exceeds? the (?:available )?context|exceed_context_size|too many tokens|"
    r"prompt is too long|input is too long|num_ctx|n_ctx",
    re.IGNORECASE,
)
_NUMBERS = (
    # llama.cpp: "request (6031 tokens) exceeds the available context size (4096 tokens)"
    re.compile(r"request \((?P<prompt>\d+) tokens\).*?context size \((?P<limit>\d+) tokens\)"),
    # vLLM / OpenAI: "maximum context length is 4096 tokens. However, you requested 6031 tokens"
    re.compile(
        r"maximum context length is (?P<limit>\d+) tokens.*?(?:requested|resulted in) "
        r"(?P<prompt>\d+) tokens",
        re.DOTALL,
    ),
)


@dataclass(frozen=True, slots=True)
class ContextOverflow:
    """The server said the request does not fit its context window."""

    prompt_tokens: int | None
    context_tokens: int | None


def context_overflow(message: str, body: Any = None) -> ContextOverflow | None:
    """A :class:`ContextOverflow` if ``message`` (and the error ``body``) say the prompt was too
    long for the model's context window, else ``None``."""
    error = body.get("error", body) if isinstance(body, dict) else None
    kind = ""
    if isinstance(error, dict):
        kind = f"{error.get('type') or ''} {error.get('code') or ''}"
    if not (_CONTEXT.search(message) or _CONTEXT.search(kind)):
        return None
    prompt = limit = None
    if isinstance(error, dict):
        prompt = _int(error.get("n_prompt_tokens"))
        limit = _int(error.get("n_ctx"))
    for pattern in _NUMBERS:
        found = pattern.search(message)
        if found:
            prompt = prompt or int(found.group("prompt"))
            limit = limit or int(found.group("limit"))
            break
    return ContextOverflow(prompt, limit)


def refused_feature(message: str, sent: dict[str, Any]) -> Feature | None:
    """Which feature of the request ``sent`` the error ``message`` refuses, if any."""
    if not _REFUSAL.search(message) or context_overflow(message) is not None:
        return None
    choice = sent.get("tool_choice")
    if "tool_choice" in sent and (_TOOL_CHOICE.search(message) or '"auto"' in message):
        if isinstance(choice, dict):
            return "tool_choice_named"
        if choice == "required":
            return "tool_choice_required"
        if choice == "auto":
            return "tool_choice_auto"
    if sent.get("tools") and _TOOLS.search(message):
        return "tools"
    fmt = sent.get("response_format")
    if isinstance(fmt, dict) and _RESPONSE_FORMAT.search(message):
        return "json_object" if fmt.get("type") == "json_object" else "json_schema"
    return None


# llama.cpp, when the model's output does not fit the format it parses for (HTTP 500):
# "Failed to parse input at pos 0: <the model's text>".
_UNPARSED = re.compile(r"failed to parse input at pos(?:ition)? \d+", re.IGNORECASE)


def unparsed_feature(message: str, sent: dict[str, Any]) -> Feature | None:
    """The feature whose format the server could not parse the model's answer in, if that is
    what ``message`` says (llama.cpp when its grammar did not hold): the format did not work."""
    if not _UNPARSED.search(message):
        return None
    fmt = sent.get("response_format")
    if isinstance(fmt, dict):
        return "json_object" if fmt.get("type") == "json_object" else "json_schema"
    choice = sent.get("tool_choice")
    if isinstance(choice, dict):
        return "tool_choice_named"
    if choice == "required":
        return "tool_choice_required"
    if sent.get("tools"):
        return "tools"
    return None


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None
