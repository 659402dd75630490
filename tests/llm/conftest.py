"""Fixtures for the model-layer tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from colmeia.llm import OpenAIChatModel


@pytest.fixture
async def make_model() -> AsyncIterator[Callable[..., OpenAIChatModel]]:
    """``make_model(base_url, **options)``: a client with fast backoff, closed after the test."""
    made: list[OpenAIChatModel] = []

    def make(base_url: str, **options: Any) -> OpenAIChatModel:
        opts: dict[str, Any] = {"backoff_base": 0.001, "deadline": 20.0, "timeout": 10.0}
        opts.update(options)
        model = OpenAIChatModel(base_url=base_url, model="sim", **opts)
        made.append(model)
        return model

    yield make
    for model in made:
        await model.aclose()
