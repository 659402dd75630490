"""How real servers depart from OpenAI's behaviour, reproduced by the simulated model.

Each :class:`Quirks` says what a server does with each feature of a request — honour it, ignore
it (HTTP 200, the field has no effect), or refuse it (an error in that server's own words) — and
what it does with a prompt longer than its context window. The presets reproduce what was seen
on real servers, so the fast suite covers them:

* ``llamacpp()`` — llama.cpp's server as xllamacpp 0.2.14 runs it: an object-form
  ``tool_choice`` is read as ``"auto"`` (silently); ``"required"`` is honoured; a prompt that does
  not fit is HTTP 400 ``exceed_context_size_error``.
* ``llamacpp_ignoring_required()`` — xllamacpp 2026.10: ``"required"`` is ignored too; the
  model then writes its call as fenced JSON in the text.
* ``llamacpp_without_jinja()`` — llama.cpp started without ``--jinja``: any ``tools`` is
  HTTP 500 "Unsupported param: tools".
* ``ollama()`` — ``tool_choice`` of any form is ignored; a long prompt is cut silently to
  the context window (no error).
* ``ollama_model_without_tools()`` — a model whose template has no tools: HTTP 400 "… does not
  support tools".
* ``Quirks(json_schema="garble")`` — llama.cpp when its grammar for a schema did not hold (seen
  with the moderation rewriter's schema on 0.2.14): HTTP 500 "Failed to parse input at pos 0:"
  followed by the model's prose.
* ``vllm()`` — started without ``--enable-auto-tool-choice``: ``"auto"`` (also what a request
  with tools and no ``tool_choice`` gets) is HTTP 400; named and ``"required"`` are honoured
  (guided decoding); context errors in vLLM's words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Handling", "Quirks"]

#: "garble": the server lets the model write freely, then fails to parse the answer in the
#: requested format (llama.cpp: HTTP 500 "Failed to parse input at pos 0: …").
Handling = Literal["honour", "ignore", "refuse", "garble"]


@dataclass(frozen=True, slots=True)
class Quirks:
    """What the simulated server does with each feature; the default is OpenAI's behaviour."""

    name: str = "openai"
    tools: Handling = "honour"
    tool_choice_auto: Handling = "honour"
    tool_choice_required: Handling = "honour"
    tool_choice_named: Handling = "honour"
    json_schema: Handling = "honour"
    json_object: Handling = "honour"
    #: prompt tokens the server accepts (None: unlimited)
    context_window: int | None = None
    context_overflow: Literal["error", "truncate"] = "error"
    #: how an ignored forced choice is answered: as if "auto", prose, or prose with fenced JSON
    ignored_choice_answer: Literal["auto", "prose", "fenced_json"] = "auto"
    #: the tool_choice a request with tools but no tool_choice gets (vLLM: "auto")
    default_tool_choice: str | None = None

    # -- presets -----------------------------------------------------------------------------

    @classmethod
    def llamacpp(cls, context_window: int | None = 4096) -> Quirks:
        return cls(
            "llamacpp",
            tool_choice_named="ignore",
            context_window=context_window,
            ignored_choice_answer="prose",
        )

    @classmethod
    def llamacpp_ignoring_required(cls, context_window: int | None = 4096) -> Quirks:
        return cls(
            "llamacpp-2026",
            tool_choice_named="ignore",
            tool_choice_required="ignore",
            context_window=context_window,
            ignored_choice_answer="fenced_json",
        )

    @classmethod
    def llamacpp_without_jinja(cls) -> Quirks:
        return cls("llamacpp-nojinja", tools="refuse")

    @classmethod
    def ollama(cls, context_window: int | None = 2048) -> Quirks:
        return cls(
            "ollama",
            tool_choice_named="ignore",
            tool_choice_required="ignore",
            context_window=context_window,
            context_overflow="truncate",
        )

    @classmethod
    def ollama_model_without_tools(cls) -> Quirks:
        return cls("ollama-notools", tools="refuse")

    @classmethod
    def vllm(cls, context_window: int | None = 4096) -> Quirks:
        return cls(
            "vllm",
            tool_choice_auto="refuse",
            context_window=context_window,
            default_tool_choice="auto",
        )

    # -- what the server says ----------------------------------------------------------------

    def refusal(self, feature: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Status and JSON body of this server refusing ``feature``."""
        model = str(body.get("model") or "model")
        if self.name.startswith("vllm"):
            text = {
                "tool_choice_auto": '"auto" tool choice requires --enable-auto-tool-choice and '
                "--tool-call-parser to be set",
            }.get(feature, f"{feature} is not supported")
            return 400, _vllm_error(text)
        if self.name.startswith("ollama"):
            return 400, _openai_error(f"{model} does not support tools", "api_error")
        if self.name.startswith("llamacpp") and feature == "tools":
            return 500, {
                "error": {
                    "code": 500,
                    "message": "Unsupported param: tools",
                    "type": "server_error",
                }
            }
        messages = {
            "tool_choice_named": "tool_choice object form is not supported; use 'auto', "
            "'required' or 'none'",
            "tool_choice_required": "tool_choice 'required' is not supported",
            "tool_choice_auto": "tool_choice 'auto' is not supported",
            "json_schema": "response_format type json_schema is not supported",
            "json_object": "response_format type json_object is not supported",
            "tools": "tools are not supported",
        }
        return 400, _openai_error(messages.get(feature, f"{feature} is not supported"))

    def garbled(self, text: str) -> tuple[int, dict[str, Any]]:
        """Status and body of llama.cpp failing to parse the model's answer ``text``."""
        return 500, {
            "error": {
                "code": 500,
                "message": f"Failed to parse input at pos 0: {text}",
                "type": "server_error",
            }
        }

    def context_error(self, prompt_tokens: int, window: int) -> tuple[int, dict[str, Any]]:
        """Status and JSON body of this server refusing a prompt longer than its window."""
        if self.name.startswith("vllm"):
            return 400, _vllm_error(
                f"This model's maximum context length is {window} tokens. However, you requested "
                f"{prompt_tokens} tokens ({prompt_tokens} in the messages, 0 in the completion). "
                "Please reduce the length of the messages or completion."
            )
        if self.name.startswith("llamacpp"):
            return 400, {
                "error": {
                    "code": 400,
                    "message": f"request ({prompt_tokens} tokens) exceeds the available context "
                    f"size ({window} tokens), try increasing it",
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": prompt_tokens,
                    "n_ctx": window,
                }
            }
        return 400, {
            "error": {
                "message": f"This model's maximum context length is {window} tokens. However, "
                f"your messages resulted in {prompt_tokens} tokens. Please reduce the length of "
                "the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        }


def _openai_error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _vllm_error(message: str) -> dict[str, Any]:
    return {
        "object": "error",
        "message": message,
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }
