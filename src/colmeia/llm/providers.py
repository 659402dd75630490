"""Provider presets: the knobs that differ between OpenAI-compatible servers.

The main difference that matters for reliability is how to turn a model's reasoning off for a
call that must act (call a tool, return JSON): each server spells it differently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["PRESETS", "ProviderPreset", "preset_for"]

StructuredMode = Literal["json_schema", "json_object", "tool", "prompt"]
_OPENAI_REASONING_MODEL = re.compile(r"^(o\d|gpt-5|gpt-oss)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ProviderPreset:
    """How to talk to one kind of server."""

    name: str
    structured_mode: StructuredMode = "json_schema"
    #: extra request fields that switch reasoning off (merged into the request body)
    reasoning_off_body: dict[str, Any] = field(default_factory=dict)
    #: top-level ``reasoning_effort`` value that switches reasoning off, if the server has one
    reasoning_off_effort: str | None = None
    #: append Qwen3's ``/no_think`` soft switch to the last user message
    no_think_suffix: bool = False
    #: only models whose name matches take the reasoning knobs (others reject them)
    reasoning_models: re.Pattern[str] | None = None

    def reasoning_off(self, model: str) -> tuple[dict[str, Any], str | None, bool]:
        """``(extra_body, reasoning_effort, add_no_think)`` that turn reasoning off for ``model``."""
        if self.reasoning_models is not None and not self.reasoning_models.search(model):
            return {}, None, False
        qwen = "qwen3" in model.lower()
        return (
            dict(self.reasoning_off_body),
            self.reasoning_off_effort,
            self.no_think_suffix or qwen,
        )


PRESETS: dict[str, ProviderPreset] = {
    "openai": ProviderPreset(
        "openai", reasoning_off_effort="minimal", reasoning_models=_OPENAI_REASONING_MODEL
    ),
    "azure": ProviderPreset(
        "azure", reasoning_off_effort="minimal", reasoning_models=_OPENAI_REASONING_MODEL
    ),
    # Ollama's OpenAI endpoint maps reasoning_effort to its `think` option; `think` is sent too
    # for versions that read it directly.
    "ollama": ProviderPreset("ollama", reasoning_off_body={"think": False}),
    # vLLM passes chat_template_kwargs to the template (Qwen3, DeepSeek-R1 distills, GLM…).
    "vllm": ProviderPreset(
        "vllm", reasoning_off_body={"chat_template_kwargs": {"enable_thinking": False}}
    ),
    # llama.cpp's server (`colmeia llm serve`, llama-server) passes chat_template_kwargs to the
    # model's Jinja template and ignores fields it does not know.
    "llamacpp": ProviderPreset(
        "llamacpp", reasoning_off_body={"chat_template_kwargs": {"enable_thinking": False}}
    ),
    # Unknown servers may reject unknown fields: only the in-prompt soft switch is safe.
    "generic": ProviderPreset("generic", no_think_suffix=True),
}


def preset_for(provider: str) -> ProviderPreset:
    """The preset named ``provider`` (openai, azure, ollama, vllm, llamacpp, generic)."""
    try:
        return PRESETS[provider]
    except KeyError:
        from colmeia.errors import ConfigurationError

        raise ConfigurationError(
            f"Unknown provider {provider!r}. Set COLMEIA_LLM_PROVIDER to one of: "
            + ", ".join(PRESETS)
        ) from None
