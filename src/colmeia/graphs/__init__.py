"""LangGraph helpers shared by graph apps: messages, handoffs, agent views, human in the loop,
checkpointers, streamed tokens. Prompts are rendered with
:func:`colmeia.llm.prompts.render_prompt`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Names are read from their module when first used: the checkpointers, hitl and streaming
# import LangGraph (and langchain_core, ~1 s of CPU), which the messages and views do not need.
_WHERE = {
    "ThreadInfo": "checkpoint",
    "delete_thread": "checkpoint",
    "list_threads": "checkpoint",
    "open_checkpointer": "checkpoint",
    "serializer": "checkpoint",
    "Handoff": "handoff",
    "TurnPlan": "handoff",
    "handoff_command": "handoff",
    "plan_tool_calls": "handoff",
    "Approval": "hitl",
    "ApprovalRequest": "hitl",
    "Clarification": "hitl",
    "ask_approval": "hitl",
    "ask_clarification": "hitl",
    "idempotency_key": "hitl",
    "parse_resume": "hitl",
    "ChatMessage": "messages",
    "merge_messages": "messages",
    "new_id": "messages",
    "to_llm": "messages",
    "STREAM_TOKENS": "streaming",
    "TokenStream": "streaming",
    "token_stream": "streaming",
    "AgentView": "views",
    "build_view": "views",
    "summarise": "views",
}

if TYPE_CHECKING:
    from colmeia.graphs.checkpoint import (
        ThreadInfo,
        delete_thread,
        list_threads,
        open_checkpointer,
        serializer,
    )
    from colmeia.graphs.handoff import Handoff, TurnPlan, handoff_command, plan_tool_calls
    from colmeia.graphs.hitl import (
        Approval,
        ApprovalRequest,
        Clarification,
        ask_approval,
        ask_clarification,
        idempotency_key,
        parse_resume,
    )
    from colmeia.graphs.messages import ChatMessage, merge_messages, new_id, to_llm
    from colmeia.graphs.streaming import STREAM_TOKENS, TokenStream, token_stream
    from colmeia.graphs.views import AgentView, build_view, summarise


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "STREAM_TOKENS",
    "AgentView",
    "Approval",
    "ApprovalRequest",
    "ChatMessage",
    "Clarification",
    "Handoff",
    "ThreadInfo",
    "TokenStream",
    "TurnPlan",
    "ask_approval",
    "ask_clarification",
    "build_view",
    "delete_thread",
    "handoff_command",
    "idempotency_key",
    "list_threads",
    "merge_messages",
    "new_id",
    "open_checkpointer",
    "parse_resume",
    "plan_tool_calls",
    "serializer",
    "summarise",
    "to_llm",
    "token_stream",
]
