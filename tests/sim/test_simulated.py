"""The simulated OpenAI-compatible model, seen through the real openai SDK over HTTP."""

from __future__ import annotations

import asyncio
import collections
import json
import math
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

import httpx
import openai
import pytest
from pydantic import BaseModel, Field
from typer.testing import CliRunner

from colmeia.cli.sim_cmd import app as sim_cli
from colmeia.errors import ConfigurationError
from colmeia.sim.engine import Faults, Latency, Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer, check_loopback
from ctrl_c import sigint_as_in_a_terminal

ServerFactory = Callable[[SimulatedModel], SimServer]
USER = [{"role": "user", "content": "Olá, tudo bem?"}]


class Reason(BaseModel):
    """One reason with its weight."""

    text: str = Field(min_length=3, max_length=80)
    weight: int = Field(ge=1, le=3)


class Verdict(BaseModel):
    """A structured answer with constraints of several kinds."""

    score: int = Field(ge=0, le=5)
    decision: Literal["keep", "rewrite", "withhold"]
    reasons: list[Reason] = Field(min_length=1, max_length=4)
    comment: str | None = None


class LookupArgs(BaseModel):
    """Arguments of the lookup_order tool."""

    order_id: int = Field(ge=1, le=99999)
    channel: Literal["site", "app", "loja"]
    include_items: bool = False


LOOKUP = {
    "type": "function",
    "function": {
        "name": "lookup_order",
        "description": "Find an order.",
        "parameters": LookupArgs.model_json_schema(),
    },
}
WEATHER = {
    "type": "function",
    "function": {
        "name": "weather",
        "description": "Weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def _json_schema_format(model: type[BaseModel]) -> dict[str, Any]:
    return {
        "type": "json_schema",
        "json_schema": {"name": model.__name__, "schema": model.model_json_schema()},
    }


@pytest.fixture
async def client_for() -> AsyncIterator[Callable[..., openai.AsyncOpenAI]]:
    """``client_for(srv)`` -> an AsyncOpenAI client without retries, closed after the test."""
    clients: list[openai.AsyncOpenAI] = []

    def make(srv: SimServer, **kw: Any) -> openai.AsyncOpenAI:
        client = openai.AsyncOpenAI(base_url=srv.base_url, api_key="x", max_retries=0, **kw)
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.close()


async def _ask(client: openai.AsyncOpenAI, **kw: Any) -> Any:
    kw.setdefault("messages", USER)
    return await client.chat.completions.create(model="sim", **kw)


# -- scripted answers ---------------------------------------------------------------------------


async def test_a_script_is_answered_in_order_then_refuses_clearly(
    sim_server: ServerFactory, client_for: Any
) -> None:
    call = Reply(tool_calls=[{"name": "weather", "arguments": {"city": "Recife"}}])
    srv = sim_server(SimulatedModel(script=["Primeira.", {"score": 4}, call]))
    client = client_for(srv)

    first = await _ask(client)
    assert first.choices[0].message.content == "Primeira."
    assert first.choices[0].finish_reason == "stop"
    second = await _ask(client)
    assert json.loads(second.choices[0].message.content) == {"score": 4}
    third = await _ask(client, tools=[WEATHER])
    [tool_call] = third.choices[0].message.tool_calls
    assert tool_call.function.name == "weather"
    assert json.loads(tool_call.function.arguments) == {"city": "Recife"}
    assert third.choices[0].finish_reason == "tool_calls"

    with pytest.raises(openai.BadRequestError, match="script exhausted after 3 replies"):
        await _ask(client)
    stats = srv.sim.stats()
    assert stats["requests"] == 4
    assert stats["ok"] == 3
    assert stats["script_exhausted"] == 1


async def test_scripted_faults_happen_exactly_where_placed(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(
        SimulatedModel(
            script=[
                Reply.http_error(500),
                Reply.http_error(429, retry_after_s=0.25),
                Reply.http_error(503, "manutenção"),
                Reply.fault("think", "Pensei."),
                "depois",
            ]
        )
    )
    client = client_for(srv)
    with pytest.raises(openai.InternalServerError) as e500:
        await _ask(client)
    assert e500.value.status_code == 500
    with pytest.raises(openai.RateLimitError) as e429:
        await _ask(client)
    assert e429.value.response.headers["retry-after-ms"] == "250"
    assert e429.value.response.headers["retry-after"] == "1"
    with pytest.raises(openai.InternalServerError, match="manutenção"):
        await _ask(client)
    thought = await _ask(client)
    assert thought.choices[0].message.content.startswith("<think>")
    assert thought.choices[0].message.content.endswith("</think>\nPensei.")
    assert (await _ask(client)).choices[0].message.content == "depois"
    stats = srv.sim.stats()
    assert (stats["http_500"], stats["http_429"], stats["http_other"], stats["think"]) == (
        1,
        1,
        1,
        1,
    )


async def test_a_responder_answers_from_the_request(
    sim_server: ServerFactory, client_for: Any
) -> None:
    seen: list[SimRequest] = []

    def responder(req: SimRequest) -> Reply | str:
        seen.append(req)
        if req.tool_results:
            return f"Resultado: {req.messages[-1]['content']}"
        if req.tools:
            return Reply(tool_calls=[{"name": req.tool_names[0], "arguments": {"city": "Natal"}}])
        return req.last_user_text.upper()

    srv = sim_server(SimulatedModel(responder=responder))
    client = client_for(srv)
    assert (await _ask(client)).choices[0].message.content == "OLÁ, TUDO BEM?"
    called = await _ask(client, tools=[WEATHER], tool_choice="auto")
    tool_call = called.choices[0].message.tool_calls[0]
    follow_up = [
        *USER,
        {"role": "assistant", "content": None, "tool_calls": [tool_call.model_dump()]},
        {"role": "tool", "tool_call_id": tool_call.id, "content": "ensolarado, 31 °C"},
    ]
    done = await _ask(client, messages=follow_up, tools=[WEATHER])
    assert done.choices[0].message.content == "Resultado: ensolarado, 31 °C"
    assert seen[1].tool_choice == "auto"
    assert seen[1].body["tools"] == [WEATHER]
    assert srv.sim.requests[-1].messages[-1]["role"] == "tool"


async def test_an_async_responder_may_fall_back_to_the_schema_answer(
    sim_server: ServerFactory, client_for: Any
) -> None:
    async def responder(req: SimRequest) -> str | None:
        await asyncio.sleep(0)
        return None if req.schema else "texto livre"

    srv = sim_server(SimulatedModel(responder=responder, schema_mode=True))
    client = client_for(srv)
    assert (await _ask(client)).choices[0].message.content == "texto livre"
    res = await _ask(client, response_format=_json_schema_format(Verdict))
    Verdict.model_validate_json(res.choices[0].message.content)


async def test_a_responder_that_raises_is_a_500_naming_the_error(
    sim_server: ServerFactory, client_for: Any
) -> None:
    def responder(req: SimRequest) -> str:
        raise KeyError("campo")

    srv = sim_server(SimulatedModel(responder=responder))
    with pytest.raises(openai.InternalServerError, match="responder raised KeyError"):
        await _ask(client_for(srv))
    assert srv.sim.stats()["responder_error"] == 1


# -- schema mode --------------------------------------------------------------------------------


async def test_schema_mode_answers_valid_json_for_the_requested_schema(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(SimulatedModel(schema_mode=True, seed=11))
    client = client_for(srv)
    verdicts = []
    for _ in range(30):
        res = await _ask(client, response_format=_json_schema_format(Verdict))
        verdicts.append(Verdict.model_validate_json(res.choices[0].message.content))
    assert len({v.decision for v in verdicts}) > 1  # generated, not a constant
    assert srv.sim.requests[-1].schema == Verdict.model_json_schema()


async def test_schema_mode_reads_a_schema_written_in_the_prompt(
    sim_server: ServerFactory, client_for: Any
) -> None:
    schema = json.dumps(Verdict.model_json_schema(), indent=2)
    system = (
        "Reply with only a JSON object. It must be valid for this JSON Schema:\n"
        f"```json\n{schema}\n```"
    )
    srv = sim_server(SimulatedModel(schema_mode=True))
    res = await _ask(client_for(srv), messages=[{"role": "system", "content": system}, *USER])
    Verdict.model_validate_json(res.choices[0].message.content)
    assert srv.sim.requests[-1].response_format is None


async def test_schema_mode_calls_a_forced_tool_with_valid_arguments(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(SimulatedModel(schema_mode=True, seed=5))
    client = client_for(srv)
    forced = {"type": "function", "function": {"name": "lookup_order"}}
    for choice in (forced, "required"):
        for _ in range(15):
            res = await _ask(client, tools=[LOOKUP], tool_choice=choice)
            [call] = res.choices[0].message.tool_calls
            assert call.function.name == "lookup_order"
            LookupArgs.model_validate_json(call.function.arguments)


async def test_schema_mode_agent_loop_ends_after_two_tool_results(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(SimulatedModel(schema_mode=True))
    client = client_for(srv)
    messages: list[dict[str, Any]] = list(USER)
    rounds = 0
    while True:
        rounds += 1
        res = await _ask(client, messages=messages, tools=[WEATHER, LOOKUP], tool_choice="auto")
        msg = res.choices[0].message
        if not msg.tool_calls:
            break
        messages.append(
            {"role": "assistant", "content": None, "tool_calls": [msg.tool_calls[0].model_dump()]}
        )
        messages.append({"role": "tool", "tool_call_id": msg.tool_calls[0].id, "content": "feito"})
    assert rounds == 3
    assert "feito" in (msg.content or "")


async def test_without_schema_mode_the_default_answer_is_short_portuguese_text(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(SimulatedModel())
    res = await _ask(client_for(srv), response_format=_json_schema_format(Verdict))
    content = res.choices[0].message.content
    assert content.endswith(".")
    assert not content.startswith("{")


# -- injected faults ----------------------------------------------------------------------------


async def _one_with_fault(
    sim_server: ServerFactory, client_for: Any, faults: Faults, **kw: Any
) -> tuple[Any, SimServer]:
    srv = sim_server(SimulatedModel(schema_mode=True, faults=faults))
    return await _ask(client_for(srv), **kw), srv


async def test_fault_http_500(sim_server: ServerFactory, client_for: Any) -> None:
    with pytest.raises(openai.InternalServerError):
        await _one_with_fault(sim_server, client_for, Faults(http_500=1.0))


async def test_fault_http_429_tells_how_long_to_wait(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(SimulatedModel(faults=Faults(http_429=1.0, retry_after_s=2.5)))
    with pytest.raises(openai.RateLimitError) as info:
        await _ask(client_for(srv))
    headers = info.value.response.headers
    assert headers["retry-after-ms"] == "2500"
    assert headers["retry-after"] == "3"


async def test_fault_prose_replaces_the_required_json(
    sim_server: ServerFactory, client_for: Any
) -> None:
    res, _ = await _one_with_fault(
        sim_server, client_for, Faults(prose=1.0), response_format=_json_schema_format(Verdict)
    )
    content = res.choices[0].message.content
    with pytest.raises(json.JSONDecodeError):
        json.loads(content)
    assert content.endswith(".")


async def test_fault_prose_replaces_the_required_tool_call(
    sim_server: ServerFactory, client_for: Any
) -> None:
    res, srv = await _one_with_fault(
        sim_server, client_for, Faults(prose=1.0), tools=[LOOKUP], tool_choice="required"
    )
    assert not res.choices[0].message.tool_calls
    assert srv.sim.stats()["prose"] == 1


async def test_fault_truncated_json_is_a_cut_valid_answer(
    sim_server: ServerFactory, client_for: Any
) -> None:
    res, _ = await _one_with_fault(
        sim_server,
        client_for,
        Faults(truncated_json=1.0),
        response_format=_json_schema_format(Verdict),
    )
    assert res.choices[0].finish_reason == "length"
    content = res.choices[0].message.content
    assert content.startswith("{")
    with pytest.raises(json.JSONDecodeError):
        json.loads(content)


async def test_fault_think_prepends_reasoning_to_a_valid_answer(
    sim_server: ServerFactory, client_for: Any
) -> None:
    res, _ = await _one_with_fault(
        sim_server, client_for, Faults(think=1.0), response_format=_json_schema_format(Verdict)
    )
    content = res.choices[0].message.content
    assert content.startswith("<think>")
    Verdict.model_validate_json(content.split("</think>", 1)[1])


async def test_fault_tool_call_as_text(sim_server: ServerFactory, client_for: Any) -> None:
    res, _ = await _one_with_fault(
        sim_server,
        client_for,
        Faults(tool_call_as_text=1.0),
        tools=[LOOKUP],
        tool_choice="required",
    )
    msg = res.choices[0].message
    assert not msg.tool_calls
    assert msg.content.startswith("<tool_call>")
    assert msg.content.endswith("</tool_call>")
    call = json.loads(msg.content.removeprefix("<tool_call>").removesuffix("</tool_call>"))
    assert call["name"] == "lookup_order"
    LookupArgs.model_validate(call["arguments"])


async def test_faults_alter_scripted_answers_too(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(
        SimulatedModel(script=[{"score": 1, "decision": "keep"}], faults=Faults(truncated_json=1.0))
    )
    res = await _ask(client_for(srv))
    assert res.choices[0].finish_reason == "length"
    assert '{"score":1,"decision":"keep"}'.startswith(res.choices[0].message.content)


async def test_transport_faults_do_not_use_up_the_script(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(SimulatedModel(script=["a", "b"], faults=Faults(http_500=0.5), seed=1))
    client = client_for(srv)
    answers = []
    while len(answers) < 2:
        try:
            answers.append((await _ask(client)).choices[0].message.content)
        except openai.InternalServerError:
            pass
    assert answers == ["a", "b"]
    assert srv.sim.stats()["http_500"] > 0


async def test_a_stall_trips_the_client_timeout_without_blocking_others(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(SimulatedModel(script=[Reply.stall(30, then="tarde"), "rápido"]))
    client = client_for(srv)
    stalled = asyncio.create_task(_ask(client, timeout=httpx.Timeout(5.0)))
    while not srv.sim.requests:  # noqa: ASYNC110 - it arrives in the server's thread
        await asyncio.sleep(0.01)
    quick = await _ask(client)
    assert quick.choices[0].message.content == "rápido"
    assert not stalled.done()
    stalled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stalled
    srv2 = sim_server(SimulatedModel(faults=Faults(stall=1.0, stall_s=30)))
    with pytest.raises(openai.APITimeoutError):
        await _ask(client_for(srv2), timeout=0.3)
    assert srv2.sim.stats()["stall"] == 1


async def test_fault_rates_match_their_probabilities_and_repeat_with_the_seed() -> None:
    faults = Faults(
        http_500=0.1, http_429=0.1, prose=0.1, truncated_json=0.1, think=0.05, stall=0.02, stall_s=0
    )
    body = {"model": "sim", "messages": USER, "response_format": _json_schema_format(Verdict)}

    async def outcomes(seed: int) -> list[str]:
        sim = SimulatedModel(schema_mode=True, faults=faults, seed=seed)
        kinds = []
        for _ in range(2000):
            before = sim.stats()
            await sim.respond(dict(body))
            after = sim.stats()
            kinds.append(
                next(
                    k
                    for k in after
                    if after[k] != before[k]
                    and k not in ("requests", "prompt_tokens", "completion_tokens", "max_in_flight")
                )
            )
        return kinds

    first = await outcomes(seed=3)
    counts = collections.Counter(first)
    for kind, p in [
        ("http_500", 0.1),
        ("http_429", 0.1),
        ("prose", 0.1),
        ("truncated_json", 0.1),
        ("think", 0.05),
        ("stall", 0.02),
        ("ok", 0.53),
    ]:
        expected = 2000 * p
        assert abs(counts[kind] - expected) < 5 * math.sqrt(expected), (kind, counts)
    assert await outcomes(seed=3) == first
    assert await outcomes(seed=4) != first


async def test_fault_counts_over_http_add_up(sim_server: ServerFactory, client_for: Any) -> None:
    faults = Faults(http_500=0.2, http_429=0.2, prose=0.2, retry_after_s=0)
    srv = sim_server(SimulatedModel(schema_mode=True, faults=faults, seed=9))
    client = client_for(srv)

    async def one(i: int) -> str:
        try:
            res = await _ask(client, response_format=_json_schema_format(Verdict))
        except openai.APIStatusError as exc:
            return str(exc.status_code)
        try:
            Verdict.model_validate_json(res.choices[0].message.content)
        except ValueError:
            return "prose"
        return "ok"

    seen = collections.Counter(await asyncio.gather(*(one(i) for i in range(120))))
    stats = srv.sim.stats()
    assert stats["requests"] == 120
    assert (stats["http_500"], stats["http_429"], stats["prose"], stats["ok"]) == (
        seen["500"],
        seen["429"],
        seen["prose"],
        seen["ok"],
    )
    assert min(seen.values()) > 10


async def test_faults_can_be_switched_off_mid_run(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(SimulatedModel(faults=Faults(http_500=1.0)))
    client = client_for(srv)
    with pytest.raises(openai.InternalServerError):
        await _ask(client)
    srv.sim.faults = Faults()
    assert (await _ask(client)).choices[0].message.content


def test_fault_rates_over_one_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="at most one fault"):
        Faults(http_500=0.6, prose=0.6)
    with pytest.raises(ConfigurationError, match="between 0 and 1"):
        Faults(think=-0.1)


# -- streaming, tokens, capacity ------------------------------------------------------------------


async def test_streaming_sends_the_answer_in_chunks_then_usage(
    sim_server: ServerFactory, client_for: Any
) -> None:
    text = "Uma resposta bem longa, " * 20
    call = Reply(tool_calls=[{"name": "weather", "arguments": {"city": "Belém"}}])
    srv = sim_server(SimulatedModel(script=[text, call]))
    client = client_for(srv)

    stream = await _ask(client, stream=True, stream_options={"include_usage": True})
    parts, usage, finish = [], None, None
    async for chunk in stream:
        if chunk.usage:
            usage = chunk.usage
        for choice in chunk.choices:
            parts.append(choice.delta.content or "")
            finish = choice.finish_reason or finish
    assert "".join(parts) == text
    assert len(parts) > 3
    assert finish == "stop"
    assert usage is not None
    assert usage.completion_tokens == round(len(text) / 4)

    stream = await _ask(client, stream=True, tools=[WEATHER])
    args = ""
    async for chunk in stream:
        assert chunk.usage is None
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or ():
                args += delta.function.arguments or ""
                finish = choice.finish_reason or finish
            finish = choice.finish_reason or finish
    assert json.loads(args) == {"city": "Belém"}
    assert finish == "tool_calls"


async def test_usage_counts_tokens_of_prompt_and_answer(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(SimulatedModel(script=["x" * 400]))
    messages = [{"role": "system", "content": "s" * 800}, {"role": "user", "content": "u" * 400}]
    res = await _ask(client_for(srv), messages=messages)
    assert (res.usage.prompt_tokens, res.usage.completion_tokens) == (300, 100)
    assert res.usage.total_tokens == 400
    stats = srv.sim.stats()
    assert (stats["prompt_tokens"], stats["completion_tokens"]) == (300, 100)


async def test_capacity_limits_the_requests_worked_on_at_once(
    sim_server: ServerFactory, client_for: Any
) -> None:
    busy = 0
    most = 0

    async def responder(req: SimRequest) -> str:
        nonlocal busy, most
        busy += 1
        most = max(most, busy)
        await asyncio.sleep(0.02)
        busy -= 1
        return "ok"

    srv = sim_server(SimulatedModel(responder=responder, capacity=2, latency=Latency(fixed_s=0.01)))
    client = client_for(srv)
    await asyncio.gather(*(_ask(client) for _ in range(8)))
    assert most == 2
    assert srv.sim.stats()["max_in_flight"] > 2  # the rest were queued, not refused


async def test_stats_endpoint_and_reset(sim_server: ServerFactory, client_for: Any) -> None:
    srv = sim_server(SimulatedModel(script=["a", "b"]))
    client = client_for(srv)
    await _ask(client)
    async with httpx.AsyncClient(base_url=srv.url) as http:
        stats = (await http.get("/stats")).json()
        assert stats == srv.sim.stats()
        assert stats["requests"] == 1
        assert stats["ok"] == 1
        assert stats["script_remaining"] == 1
        reset = (await http.post("/stats/reset")).json()
        assert reset["requests"] == 0
        assert reset["prompt_tokens"] == 0
        models = (await http.get("/v1/models")).json()
        assert models["data"][0]["id"] == "sim"
        bad = await http.post("/v1/chat/completions", content=b"{no")
        assert bad.status_code == 400
        assert "not JSON" in bad.json()["error"]["message"]
    assert (await _ask(client)).choices[0].message.content == "b"  # the script kept its place


async def test_recent_requests_are_kept_for_assertions(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(SimulatedModel(schema_mode=True, keep_requests=5))
    client = client_for(srv)
    for i in range(30):
        await _ask(client, messages=[{"role": "user", "content": f"pergunta {i}"}])
    kept = srv.sim.requests
    assert 5 <= len(kept) < 30
    assert kept[-1].last_user_text == "pergunta 29"
    assert kept[-1].index == 29
    first, second = kept[-2:]
    assert second.index == first.index + 1


# -- embeddings ---------------------------------------------------------------------------------


async def test_embeddings_are_deterministic_normalised_and_accent_insensitive(
    sim_server: ServerFactory, client_for: Any
) -> None:
    srv = sim_server(SimulatedModel(embedding_dim=64))
    client = client_for(srv)
    texts = [
        "Prazo de entrega do pedido",
        "PRAZO de entrega dos pedidos",
        "Ação de cobrança",
        "acao de COBRANCA",
    ]
    first = await client.embeddings.create(model="sim", input=texts)  # SDK asks for base64
    again = await client.embeddings.create(model="sim", input=texts, encoding_format="float")
    vectors = [d.embedding for d in first.data]
    for got, expected in zip(vectors, (d.embedding for d in again.data), strict=True):
        assert got == pytest.approx(expected, abs=1e-6)  # base64 float32 vs JSON floats
    assert all(len(v) == 64 for v in vectors)
    assert all(math.isclose(sum(x * x for x in v), 1.0, rel_tol=1e-5) for v in vectors)

    def cos(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert cos(vectors[2], vectors[3]) == pytest.approx(1.0, abs=1e-6)
    assert cos(vectors[0], vectors[1]) > 0.5 > cos(vectors[0], vectors[2])
    wide = await client.embeddings.create(model="sim", input="texto", dimensions=300)
    assert len(wide.data[0].embedding) == 300
    assert srv.sim.stats()["embedding_inputs"] == 9


# -- safety and CLI -----------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.0.10", "::", "example.com", "10.0.0.1"])
def test_only_loopback_hosts_are_served(host: str) -> None:
    with pytest.raises(ConfigurationError, match="loopback"):
        SimServer(SimulatedModel(), host=host)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "localhost", "::1", "[::1]"])
def test_loopback_hosts_are_accepted(host: str) -> None:
    assert check_loopback(host) in {"127.0.0.1", "127.8.9.10", "::1"}


def test_the_cli_refuses_a_public_address() -> None:
    result = CliRunner().invoke(sim_cli, ["serve", "--host", "0.0.0.0", "--port", "0"])
    assert result.exit_code == 2
    assert "loopback" in result.output


def test_the_cli_refuses_impossible_fault_rates() -> None:
    result = CliRunner().invoke(sim_cli, ["serve", "--fault-500", "0.7", "--fault-429", "0.7"])
    assert result.exit_code == 2
    assert "add up to" in result.output


def test_the_server_works_as_a_context_manager() -> None:
    with SimServer(SimulatedModel(script=["oi"])) as srv:
        with httpx.Client() as http:
            res = http.post(f"{srv.base_url}/chat/completions", json={"messages": USER})
        assert res.json()["choices"][0]["message"]["content"] == "oi"
    with pytest.raises(httpx.ConnectError), httpx.Client() as http:
        http.get(f"{srv.url}/stats")


def test_colmeia_sim_serve_runs_until_interrupted() -> None:
    """The command others run for benchmarks: prints its URL, serves, stops on Ctrl-C."""
    cmd = [sys.executable, "-m", "colmeia", "sim", "serve", "--port", "0", "--fault-500", "1"]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_as_in_a_terminal,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        base_url = re.search(r"http://127\.0\.0\.1:\d+/v1", line)
        assert base_url, line + (proc.stderr.read() if proc.stderr else "")
        with httpx.Client(base_url=base_url.group(0)) as http:
            assert http.get("/models").json()["data"][0]["id"] == "sim"
            assert http.post("/chat/completions", json={"messages": USER}).status_code == 500
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
