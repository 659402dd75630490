"""Tools from type hints and docstrings; the registry validates, runs and never crashes."""

from __future__ import annotations

import asyncio
import time
from typing import Literal

import pytest
from pydantic import BaseModel

from colmeia.errors import ConfigurationError, ToolError
from colmeia.tools import FailureCounter, Tool, ToolRegistry, parse_docstring, tool


def convert_currency(
    amount: float, source: str, target: Literal["BRL", "USD", "EUR"] = "BRL"
) -> str:
    """Convert an amount of money between currencies.

    Args:
        amount: How much money, in the source currency.
        source: ISO code of the currency the amount is in,
            e.g. USD.
        target: ISO code to convert to.
    """
    return f"{amount * 5:.2f} {target}"


def test_schema_comes_from_type_hints_and_docstring() -> None:
    t = Tool.from_function(convert_currency)
    assert t.name == "convert_currency"
    assert t.description == "Convert an amount of money between currencies."
    params = t.parameters
    assert params["type"] == "object"
    assert params["required"] == ["amount", "source"]
    assert params["properties"]["amount"]["type"] == "number"
    assert (
        params["properties"]["amount"]["description"] == "How much money, in the source currency."
    )
    # a continued line belongs to the same parameter
    assert params["properties"]["source"]["description"].endswith("e.g. USD.")
    assert params["properties"]["target"]["enum"] == ["BRL", "USD", "EUR"]
    assert params["properties"]["target"]["default"] == "BRL"
    assert "title" not in params
    spec = t.spec().to_openai()
    assert spec["function"]["name"] == "convert_currency"


class Address(BaseModel):
    city: str
    state: Literal["PA", "AM"]


def ship(order: str, to: Address) -> str:
    """Ship an order.

    Args:
        order: The order's code.
        to: Where to.
    """
    return f"{order} -> {to.city}/{to.state}"


def test_a_nested_argument_is_described_in_place_not_behind_a_ref() -> None:
    # A grammar-guided server (llama.cpp) leaves what sits behind a $ref unconstrained.
    params = Tool.from_function(ship).parameters
    assert "$defs" not in params
    to = params["properties"]["to"]
    assert to["properties"]["state"]["enum"] == ["PA", "AM"]
    assert to["description"] == "Where to."


def test_sphinx_docstrings_are_understood() -> None:
    desc, params = parse_docstring(
        """Look up a thing.

        :param key: the key to look up
        :param limit: how many
        :returns: the thing
        """
    )
    assert desc == "Look up a thing."
    assert params == {"key": "the key to look up", "limit": "how many"}


def test_functions_that_cannot_be_described_are_refused() -> None:
    def no_hints(x):  # type: ignore[no-untyped-def]
        """Does things."""
        return x

    def no_doc(x: int) -> int:
        return x

    def varargs(*xs: int) -> int:
        """Sums."""
        return sum(xs)

    with pytest.raises(ConfigurationError, match="no type hint"):
        Tool.from_function(no_hints)
    with pytest.raises(ConfigurationError, match="no description"):
        Tool.from_function(no_doc)
    with pytest.raises(ConfigurationError, match=r"\*args"):
        Tool.from_function(varargs)
    with pytest.raises(ConfigurationError, match="not usable"):
        Tool.from_function(convert_currency, name="convert currency!")


async def test_invalid_arguments_become_an_observation_naming_the_problem() -> None:
    registry = ToolRegistry([convert_currency])
    result = await registry.execute("convert_currency", {"amount": "lots", "source": "USD"})
    assert not result.ok
    assert result.kind == "invalid_arguments"
    assert "amount" in result.output
    assert "valid number" in result.output
    result = await registry.execute("convert_currency", {"amount": 2, "source": "USD", "x": 1})
    assert result.kind == "invalid_arguments"
    assert "x" in result.output
    ok = await registry.execute("convert_currency", {"amount": 2, "source": "USD"})
    assert ok.ok
    assert ok.output == "10.00 BRL"


async def test_unknown_tools_and_exceptions_come_back_as_observations() -> None:
    registry = ToolRegistry()

    @registry.tool
    def explode(reason: str) -> str:
        """Always fails."""
        raise RuntimeError(reason)

    @registry.tool(name="raise_tool_error")
    def raise_tool_error() -> str:
        """Fails with a ToolError."""
        raise ToolError("order 42 does not exist; check the number")

    unknown = await registry.execute("nope", {})
    assert unknown.kind == "unknown_tool"
    assert "Available tools: explode, raise_tool_error" in unknown.output
    boom = await registry.execute("explode", {"reason": "disk on fire"})
    assert boom.kind == "error"
    assert "RuntimeError: disk on fire" in boom.output
    told = await registry.execute("raise_tool_error", {})
    assert told.output == "Error: order 42 does not exist; check the number"


async def test_sync_and_async_tools_run_under_a_timeout() -> None:
    @tool(timeout=0.2)
    def slow_sync(seconds: float) -> str:
        """Sleeps."""
        time.sleep(seconds)
        return "done"

    @tool(timeout=0.2)
    async def slow_async(seconds: float) -> dict[str, float]:
        """Sleeps asynchronously."""
        await asyncio.sleep(seconds)
        return {"slept": seconds}

    registry = ToolRegistry([slow_sync, slow_async])
    assert (await registry.execute("slow_sync", {"seconds": 0})).output == "done"
    assert (await registry.execute("slow_async", {"seconds": 0})).output == '{"slept":0.0}'
    late = await registry.execute("slow_async", {"seconds": 5})
    assert late.kind == "timeout"
    assert "0.2s" in late.output
    late_sync = await registry.execute("slow_sync", {"seconds": 0.5})
    assert late_sync.kind == "timeout"


def test_sync_execution_has_the_same_signature() -> None:
    registry = ToolRegistry([convert_currency])
    assert (
        registry.execute_sync("convert_currency", {"amount": 1, "source": "USD"}).output
        == "5.00 BRL"
    )
    assert registry["convert_currency"].run_sync({"amount": 1, "source": "X"}).ok


def test_registry_refuses_duplicate_names() -> None:
    registry = ToolRegistry([convert_currency])
    with pytest.raises(ConfigurationError, match="already registered"):
        registry.register(convert_currency)
    assert len(registry) == 1
    assert "convert_currency" in registry
    with pytest.raises(ToolError, match="Unknown tool"):
        registry["missing"]


async def test_long_outputs_are_cut() -> None:
    @tool
    def big() -> str:
        """Returns a lot."""
        return "x" * 100_000

    big.max_output_chars = 100
    result = await big.run({})
    assert result.output.startswith("x" * 100)
    assert "cut at 100" in result.output


async def test_failure_counter_stops_only_on_consecutive_failures() -> None:
    registry = ToolRegistry([convert_currency])
    counter = FailureCounter(limit=3)
    bad = await registry.execute("convert_currency", {})
    good = await registry.execute("convert_currency", {"amount": 1, "source": "USD"})
    assert not counter.record(bad)
    assert not counter.record(bad)
    assert not counter.record(good)  # corrected: the count starts again
    assert counter.count("convert_currency") == 0
    assert not counter.record(bad)
    assert not counter.record(bad)
    assert counter.record(bad)
