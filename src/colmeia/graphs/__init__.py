"""LangGraph helpers shared by graph apps: messages, handoffs, agent views, human in the loop,
checkpointers, streamed tokens. Prompts are rendered with
:func:`colmeia.llm.prompts.render_prompt`.
"""

from __future__ import annotations

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
