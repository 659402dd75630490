"""The model layer: one ChatModel for any OpenAI-compatible server, and its vocabulary.

The names below are loaded when first used (PEP 562): importing a light part of the layer
(``colmeia.llm.notice``, ``colmeia.llm.gguf``, ``colmeia.llm.prompts``) runs this file, and it
should not bring the HTTP client (aiohttp) with it. ``from colmeia.llm import OpenAIChatModel``
works as before.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from colmeia.llm.base import (
        NOT_GIVEN,
        ChatModel,
        ChatResult,
        Message,
        NotGiven,
        StreamEvent,
        StreamSink,
        StructuredResult,
        ToolCall,
        ToolSpec,
        Usage,
        UsageTracker,
        current_sink,
        stream_to,
        track_usage,
    )
    from colmeia.llm.openai_compat import OpenAIChatModel
    from colmeia.llm.sync import SyncChatModel, run_sync

__all__ = [
    "NOT_GIVEN",
    "ChatModel",
    "ChatResult",
    "Message",
    "NotGiven",
    "OpenAIChatModel",
    "StreamEvent",
    "StreamSink",
    "StructuredResult",
    "SyncChatModel",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "UsageTracker",
    "current_sink",
    "run_sync",
    "stream_to",
    "track_usage",
]

_HOME = {
    "OpenAIChatModel": "colmeia.llm.openai_compat",
    "SyncChatModel": "colmeia.llm.sync",
    "run_sync": "colmeia.llm.sync",
}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME.get(name, "colmeia.llm.base")), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
