"""What each agent sees: a view built for it, not the whole history.

An agent's view is its instructions, a summary of earlier turns once the history passes a
token budget, the conversation as the person saw it (questions and answers, whoever gave
them), its own tool calls and results of the current turn, and — when it was handed the
conversation — who handed it over and why. Other agents' tool traffic stays out: it costs
tokens and confuses models. A task-specific handoff gives the agent only its task.

The summary is extractive and needs no model: each earlier exchange becomes one line with
the start of the question and of the answer. It is stable (the same history gives the same
summary), so a prompt cache keeps working across turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from colmeia.graphs.messages import ChatMessage, to_llm
from colmeia.llm.base import Message

__all__ = ["AgentView", "approx_tokens", "build_view", "summarise"]


def approx_tokens(text: str) -> int:
    """Rough token count (four characters per token): enough to keep a budget."""
    return max(1, len(text) // 4) if text else 0


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def summarise(messages: Sequence[ChatMessage], *, width: int = 160) -> str:
    """One line per earlier exchange: ``- pergunta → resposta`` (extractive, no model)."""
    lines: list[str] = []
    question = ""
    for m in messages:
        if m.role == "user":
            if question:
                lines.append(f"- {_clip(question, width)} → (sem resposta)")
            question = m.content
        elif m.role == "assistant" and m.kind == "answer":
            lines.append(f"- {_clip(question, width)} → {_clip(m.content, width)}")
            question = ""
    if question:
        lines.append(f"- {_clip(question, width)} → (sem resposta)")
    return "\n".join(lines)


@dataclass(slots=True)
class AgentView:
    """The messages to send an agent, and what was left out of them."""

    messages: list[Message]
    summarised_turns: int = 0
    tokens: int = 0


def _public(m: ChatMessage) -> bool:
    """Part of the conversation as the person saw it."""
    return m.role == "user" or (m.role == "assistant" and m.kind == "answer")


def build_view(
    messages: Sequence[ChatMessage],
    *,
    agent: str,
    instructions: str,
    turn: int,
    budget_tokens: int = 1500,
    handoff: dict[str, Any] | None = None,
    task_only: bool = False,
) -> AgentView:
    """The view of the conversation ``agent`` gets for ``turn``."""
    system = [instructions]
    if handoff and handoff.get("to") == agent and handoff.get("turn") == turn:
        note = f"Você recebeu a conversa do agente {handoff['from']}"
        if handoff.get("reason"):
            note += f". Motivo: {handoff['reason']}"
        system.append(note + ".")
    if task_only and handoff:
        task = str(handoff.get("task") or "")
        if handoff.get("context"):
            task += f"\n\nContexto: {handoff['context']}"
        msgs = [Message.system("\n\n".join(system)), Message.user(task)]
        return AgentView(msgs, 0, sum(approx_tokens(m.content or "") for m in msgs))
    earlier = [m for m in messages if m.turn < turn and _public(m)]
    current = [
        m
        for m in messages
        if m.turn == turn and (m.role == "user" or m.agent == agent or _public(m))
    ]
    current = _paired(current)
    # Keep the most recent earlier exchanges that fit the budget; summarise the rest.
    budget = budget_tokens - sum(approx_tokens(m.content) for m in current)
    kept: list[ChatMessage] = []
    for m in reversed(earlier):
        cost = approx_tokens(m.content)
        if cost > budget:
            break
        budget -= cost
        kept.append(m)
    kept.reverse()
    dropped = earlier[: len(earlier) - len(kept)]
    if dropped:
        system.append("Resumo das conversas anteriores:\n" + summarise(dropped))
    msgs = [Message.system("\n\n".join(system)), *to_llm(kept), *to_llm(current)]
    tokens = sum(approx_tokens(m.content or "") for m in msgs)
    return AgentView(msgs, sum(1 for m in dropped if m.role == "user"), tokens)


def _paired(messages: list[ChatMessage]) -> list[ChatMessage]:
    """Drop tool results whose call is not in the view and calls left without results."""
    called = {c["id"] for m in messages if m.role == "assistant" for c in m.tool_calls}
    answered = {m.tool_call_id for m in messages if m.role == "tool"}
    out: list[ChatMessage] = []
    for m in messages:
        if m.role == "tool" and m.tool_call_id not in called:
            continue
        if m.role == "assistant" and not all(c["id"] in answered for c in m.tool_calls):
            # a call still waiting for a result (an approval, say) cannot be sent yet
            continue
        out.append(m)
    return out
