"""Fixtures for the agent tests: clients of the simulated model, closed after each test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from colmeia.llm import OpenAIChatModel
from colmeia.sim.server import SimServer


@pytest.fixture
async def client() -> AsyncIterator[Callable[..., OpenAIChatModel]]:
    """``client(srv, **options)``: a fast-failing client of a simulated server."""
    made: list[OpenAIChatModel] = []

    def make(srv: SimServer, **options: Any) -> OpenAIChatModel:
        opts: dict[str, Any] = {
            "max_retries": 1,
            "max_repairs": 1,
            "backoff_base": 0.0,
            "deadline": 20.0,
            "timeout": 10.0,
        }
        opts.update(options)
        model = OpenAIChatModel(base_url=srv.base_url, model="sim", **opts)
        made.append(model)
        return model

    yield make
    for model in made:
        await model.aclose()
