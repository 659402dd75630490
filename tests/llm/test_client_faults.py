"""Under injected faults no call is lost: every call ends valid or in a typed error."""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import BaseModel, Field

from colmeia.errors import ModelError
from colmeia.llm import Message, OpenAIChatModel, ToolSpec, track_usage
from colmeia.sim.engine import Faults, Reply, SimulatedModel


class Verdict(BaseModel):
    """What a decider returns."""

    decision: Literal["keep", "rewrite", "withhold"]
    score: int = Field(ge=0, le=5)
    reasons: list[str] = Field(min_length=1, max_length=4)


async def _run_calls(model: OpenAIChatModel, n: int) -> tuple[list[Verdict], list[ModelError]]:
    async def one(i: int) -> Verdict | ModelError:
        try:
            return await model.structured([Message.user(f"Avalie a resposta {i}")], Verdict)
        except ModelError as exc:
            return exc

    outcomes = await asyncio.gather(*(one(i) for i in range(n)))
    values = [o for o in outcomes if isinstance(o, Verdict)]
    errors = [o for o in outcomes if isinstance(o, ModelError)]
    assert len(values) + len(errors) == n, "a call ended in something other than a result or error"
    return values, errors


async def test_a_thousand_structured_calls_survive_ten_percent_of_each_fault(
    sim_server, make_model
) -> None:
    faults = Faults(http_500=0.1, http_429=0.1, prose=0.1, truncated_json=0.1, retry_after_s=0.01)
    srv = sim_server(SimulatedModel(schema_mode=True, faults=faults, seed=7))
    model = make_model(srv.base_url, max_retries=3, backoff_base=0.005, deadline=300.0)
    with track_usage() as run:
        values, errors = await _run_calls(model, 1000)

    assert all(isinstance(v, Verdict) for v in values)  # validated instances, never None
    assert len(errors) < 5, [str(e) for e in errors]  # fewer than 0.5 %
    stats = srv.sim.stats()
    # the faults really happened, and were really absorbed by retries and repairs
    assert stats["http_500"] > 50 and stats["http_429"] > 50
    assert stats["prose"] > 50 and stats["truncated_json"] > 50
    assert run.usage.retries >= stats["http_500"] + stats["http_429"] - 5 * len(errors)
    assert run.usage.repairs > 100
    assert run.usage.calls == 1000


async def test_tool_calls_survive_prose_and_text_tool_calls(sim_server, make_model) -> None:
    tool = ToolSpec(
        "lookup_order",
        "Find an order by id.",
        {
            "type": "object",
            "properties": {"order_id": {"type": "integer"}},
            "required": ["order_id"],
        },
    )
    faults = Faults(prose=0.15, tool_call_as_text=0.15, think=0.15)
    srv = sim_server(SimulatedModel(schema_mode=True, faults=faults, seed=3))
    model = make_model(srv.base_url, backoff_base=0.005)

    async def one(i: int) -> int:
        res = await model.chat(
            [Message.user(f"Onde está o pedido {i}?")], tools=[tool], require_tool=True
        )
        return int(res.tool_calls[0].arguments["order_id"])

    results = await asyncio.gather(*(one(i) for i in range(200)), return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    assert all(isinstance(f, ModelError) for f in failures)
    assert len(failures) <= 1
    assert srv.sim.stats()["tool_call_as_text"] > 10


async def test_a_failed_call_says_what_it_cost(sim_server, make_model) -> None:
    """The error of a call that gave up carries its usage, so an audit trail can count it."""
    srv = sim_server(SimulatedModel(responder=lambda req: "Não sei, vou pensar mais."))
    model = make_model(srv.base_url, max_repairs=2)
    try:
        await model.structured([Message.user("Avalie a resposta")], Verdict)
    except ModelError as exc:
        prose = exc
    else:  # pragma: no cover - the responder never answers with JSON
        raise AssertionError("prose cannot be a Verdict")
    assert prose.usage is not None
    assert (prose.usage.requests, prose.usage.repairs, prose.usage.errors) == (3, 2, 1)
    assert prose.usage.completion_tokens > 0  # the three answers that came back were counted
    assert prose.usage.simulated == 1

    down = sim_server(SimulatedModel(script=[Reply.http_error(500)] * 3))
    model = make_model(down.base_url, max_retries=2)
    try:
        await model.structured([Message.user("Avalie a resposta")], Verdict)
    except ModelError as exc:
        http = exc
    else:  # pragma: no cover
        raise AssertionError("three 500s cannot give an answer")
    assert http.usage is not None
    assert (http.usage.requests, http.usage.retries, http.usage.calls) == (3, 2, 1)
