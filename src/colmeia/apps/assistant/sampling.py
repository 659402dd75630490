"""The assistant's model calls at a fixed temperature (0 unless configured).

Without a temperature in the request, llama.cpp samples at 0.8 and two runs of the same
question route and write differently. Every call the assistant makes — the agents' steps, the
split of a mixed question, the RAG agent's written answer, a model reranker — goes through
:class:`FixedTemperature`, which sends ``COLMEIA_ASSISTANT_TEMPERATURE`` (default 0, as the
agents of :mod:`colmeia.agents` do) when the caller names none; each turn records it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from colmeia.llm.base import (
    NOT_GIVEN,
    ChatModel,
    ChatResult,
    Message,
    NotGiven,
    StreamEvent,
    StructuredResult,
    ToolChoice,
    ToolSpec,
)

__all__ = ["FixedTemperature"]

T = TypeVar("T", bound=BaseModel)


class FixedTemperature:
    """A :class:`~colmeia.llm.base.ChatModel` sending ``temperature`` unless a call names one
    (``None`` sends none: the server's default)."""

    def __init__(self, inner: ChatModel, temperature: float | None) -> None:
        self.inner = inner
        self.temperature = temperature

    @property
    def model(self) -> str:
        return self.inner.model

    def __getattr__(self, name: str) -> Any:
        # base_url, aclose… of the wrapped model
        return getattr(self.inner, name)

    def _t(self, temperature: float | None | NotGiven) -> float | None:
        return self.temperature if isinstance(temperature, NotGiven) else temperature

    async def chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        tool_choice: ToolChoice | None = None,
        require_tool: bool = False,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> ChatResult:
        return await self.inner.chat(
            messages,
            tools=tools,
            tool_choice=tool_choice,
            require_tool=require_tool,
            temperature=self._t(temperature),
            max_tokens=max_tokens,
            deadline=deadline,
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> AsyncIterator[StreamEvent]:
        return self.inner.stream(
            messages, temperature=self._t(temperature), max_tokens=max_tokens, deadline=deadline
        )

    async def structured(
        self,
        messages: Sequence[Message],
        output_type: type[T],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> T:
        return await self.inner.structured(
            messages,
            output_type,
            temperature=self._t(temperature),
            max_tokens=max_tokens,
            deadline=deadline,
        )

    async def structured_result(
        self,
        messages: Sequence[Message],
        output_type: type[T],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> StructuredResult[T]:
        return await self.inner.structured_result(
            messages,
            output_type,
            temperature=self._t(temperature),
            max_tokens=max_tokens,
            deadline=deadline,
        )
