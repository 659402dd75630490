"""The model layer: one ChatModel for any OpenAI-compatible server, and its vocabulary."""

from __future__ import annotations

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
