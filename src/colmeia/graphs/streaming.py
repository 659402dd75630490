"""Tokens of an answer streamed out of a graph node, and their withdrawal.

A node that writes what a person reads (an agent's answer, the RAG answer) streams it through
LangGraph's custom stream (``stream_mode="custom"``) as events a client can show at once::

    {"type": "token", "agent": "search", "text": "O processo "}
    {"type": "replace", "agent": "search", "text": "…", "reason": "registry_check"}

Streamed text is provisional. When the node's result is not what was streamed — the model
called a tool after all, a guard routed the question elsewhere, a check replaced the phrasing,
a retry started — a ``replace`` event says so and carries the text that now stands (often
``""``). The rule for a client: *the answer shown is the text of the last ``replace`` (or
``""``) followed by every ``token`` after it*; at the end of a turn it equals the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer

__all__ = ["STREAM_TOKENS", "TokenStream", "token_stream"]

#: ``configurable`` key that asks the nodes to stream tokens (set by whoever reads them).
STREAM_TOKENS = "stream_tokens"


class TokenStream:
    """Writes one agent's tokens and replacements; remembers what the person sees now.

    It is a :class:`~colmeia.llm.base.StreamSink` (model deltas go straight to it) and a
    :class:`~colmeia.rag.generate.AnswerSink` (text deltas and replacements).
    """

    def __init__(self, write: Callable[[Any], None], agent: str) -> None:
        self._write = write
        self.agent = agent
        self.shown = ""

    def begin(self) -> None:
        """A new request of the same call: the text of the previous one is withdrawn."""
        if self.shown:
            self.replace("", "retry")

    def delta(self, text: str, part: Literal["content", "arguments"] = "content") -> None:
        if part != "content" or not text:
            return  # tool-call arguments are not for the person
        self.shown += text
        self._write({"type": "token", "agent": self.agent, "text": text})

    def replace(self, text: str, reason: str) -> None:
        self.shown = text
        self._write({"type": "replace", "agent": self.agent, "text": text, "reason": reason})

    def settle(self, final: str, reason: str) -> None:
        """The node's result is ``final``: withdraw or correct what was streamed, if it differs.

        Nothing streamed, nothing to correct (whoever reads the events shows ``final`` whole).
        """
        if self.shown and self.shown != final:
            self.replace(final, reason)


def token_stream(config: RunnableConfig | None, agent: str) -> TokenStream | None:
    """A :class:`TokenStream` for a node, when the run asked for tokens; else ``None``."""
    if not (config or {}).get("configurable", {}).get(STREAM_TOKENS):
        return None
    return TokenStream(get_stream_writer(), agent)
