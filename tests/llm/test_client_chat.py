"""The OpenAI-compatible client against the simulated server, over real HTTP."""

from __future__ import annotations

import asyncio
import inspect
import json
import socket
import time

import pytest
from pydantic import BaseModel, Field

from colmeia.errors import (
    ConfigurationError,
    ModelHTTPError,
    ModelOutputError,
    ModelTimeoutError,
    ModelUnreachableError,
)
from colmeia.llm import Message, OpenAIChatModel, SyncChatModel, ToolSpec, track_usage
from colmeia.sim.engine import Reply, SimulatedModel


class Review(BaseModel):
    """A reviewer's verdict."""

    score: int = Field(ge=0, le=5)
    justification: str


CALC = ToolSpec(
    "calculator",
    "Evaluate arithmetic.",
    {
        "type": "object",
        "properties": {"expression": {"type": "string"}},
        "required": ["expression"],
    },
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_chat_returns_the_answer_without_reasoning(sim_server, make_model) -> None:
    srv = sim_server(
        SimulatedModel(script=["<think>devo cumprimentar</think>Olá! Como posso ajudar?"])
    )
    result = await make_model(srv.base_url).chat([Message.user("Oi")])
    assert result.content == "Olá! Como posso ajudar?"
    assert result.reasoning == "devo cumprimentar"
    assert result.usage.requests == 1
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0


async def test_structured_output_is_validated(sim_server, make_model) -> None:
    srv = sim_server(SimulatedModel(script=[{"score": 4, "justification": "Responde tudo."}]))
    res = await make_model(srv.base_url).structured_result([Message.user("Avalie")], Review)
    assert res.value == Review(score=4, justification="Responde tudo.")
    sent = srv.sim.requests[-1]
    assert sent.response_format["type"] == "json_schema"
    assert sent.schema["properties"]["score"]["maximum"] == 5


async def test_schema_violations_are_fed_back_and_repaired(sim_server, make_model) -> None:
    srv = sim_server(
        SimulatedModel(
            script=[{"score": 9, "justification": "x"}, {"score": 5, "justification": "ok"}]
        )
    )
    res = await make_model(srv.base_url).structured_result([Message.user("Avalie")], Review)
    assert res.value.score == 5
    assert res.usage.repairs == 1
    repair_prompt = srv.sim.requests[-1].messages[-1]["content"]
    assert "score" in repair_prompt and "less than or equal to 5" in repair_prompt


async def test_prose_instead_of_json_is_retried_with_reasoning_off(sim_server, make_model) -> None:
    srv = sim_server(
        SimulatedModel(
            script=["Deixe-me pensar sobre a nota...", {"score": 3, "justification": "ok"}]
        )
    )
    model = make_model(srv.base_url, provider="vllm")
    res = await model.structured_result([Message.user("Avalie")], Review)
    assert res.value.score == 3
    first, second = srv.sim.requests[-2:]
    assert "chat_template_kwargs" not in first.body
    assert second.body["chat_template_kwargs"] == {"enable_thinking": False}


async def test_generic_provider_turns_reasoning_off_with_the_soft_switch(
    sim_server, make_model
) -> None:
    srv = sim_server(SimulatedModel(script=["hmm", {"score": 1, "justification": "ruim"}]))
    await make_model(srv.base_url).structured([Message.user("Avalie")], Review)
    assert srv.sim.requests[-1].messages[-1]["content"].endswith("/no_think")


async def test_truncated_json_is_asked_again(sim_server, make_model) -> None:
    srv = sim_server(
        SimulatedModel(script=['{"score": 2, "justifica', {"score": 2, "justification": "ok"}])
    )
    res = await make_model(srv.base_url).structured_result([Message.user("Avalie")], Review)
    assert res.value.score == 2 and res.usage.repairs == 1


async def test_output_that_never_validates_raises_a_typed_error(sim_server, make_model) -> None:
    srv = sim_server(SimulatedModel(script=["não sei"] * 3))
    with pytest.raises(ModelOutputError, match="repair") as info:
        await make_model(srv.base_url, max_repairs=2).structured([Message.user("Avalie")], Review)
    assert info.value.last_output == "não sei"
    assert len(srv.sim.requests) == 3


async def test_server_errors_are_retried_then_succeed(sim_server, make_model) -> None:
    srv = sim_server(
        SimulatedModel(script=[Reply.http_error(500), Reply.http_error(503), "pronto"])
    )
    res = await make_model(srv.base_url).chat([Message.user("Oi")])
    assert res.content == "pronto"
    assert res.usage.retries == 2 and res.usage.requests == 3


async def test_rate_limits_wait_as_retry_after_says(sim_server, make_model) -> None:
    srv = sim_server(
        SimulatedModel(script=[Reply.http_error(429, retry_after_s=0.3), "depois da espera"])
    )
    t0 = time.perf_counter()
    res = await make_model(srv.base_url).chat([Message.user("Oi")])
    assert res.content == "depois da espera"
    assert time.perf_counter() - t0 >= 0.3


async def test_persistent_server_errors_end_in_a_typed_error(sim_server, make_model) -> None:
    srv = sim_server(SimulatedModel(script=[Reply.http_error(500)] * 4))
    with pytest.raises(ModelHTTPError) as info:
        await make_model(srv.base_url, max_retries=3).chat([Message.user("Oi")])
    assert info.value.status == 500
    assert len(srv.sim.requests) == 4


async def test_client_errors_are_not_retried(sim_server, make_model) -> None:
    srv = sim_server(SimulatedModel(script=[Reply.http_error(401)]))
    with pytest.raises(ModelHTTPError, match="COLMEIA_LLM_API_KEY"):
        await make_model(srv.base_url).chat([Message.user("Oi")])
    assert len(srv.sim.requests) == 1


async def test_an_unreachable_server_names_the_url(make_model) -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    with pytest.raises(ModelUnreachableError, match=r"127\.0\.0\.1.*COLMEIA_LLM_BASE_URL"):
        await make_model(url, max_retries=1).chat([Message.user("Oi")])


async def test_a_stalled_server_hits_the_deadline(sim_server, make_model) -> None:
    srv = sim_server(SimulatedModel(script=[Reply.stall(30)] * 5))
    with pytest.raises(ModelTimeoutError, match="deadline"):
        await make_model(srv.base_url, timeout=0.3, deadline=1.0).chat([Message.user("Oi")])


async def test_tool_calls_written_as_text_are_recovered(sim_server, make_model) -> None:
    text = '<tool_call>{"name": "calculator", "arguments": {"expression": "2+2"}}</tool_call>'
    srv = sim_server(SimulatedModel(script=[text]))
    res = await make_model(srv.base_url).chat([Message.user("2+2?")], tools=[CALC])
    [call] = res.tool_calls
    assert call.arguments == {"expression": "2+2"} and res.tool_calls_recovered


async def test_native_tool_calls_come_back_typed(sim_server, make_model) -> None:
    reply = Reply(tool_calls=[{"name": "calculator", "arguments": {"expression": "3*3"}}])
    srv = sim_server(SimulatedModel(script=[reply]))
    res = await make_model(srv.base_url).chat(
        [Message.user("3*3?")], tools=[CALC], tool_choice="auto"
    )
    assert res.tool_calls[0].name == "calculator" and not res.tool_calls_recovered
    assert srv.sim.requests[-1].tool_choice == "auto"


async def test_a_required_tool_call_answered_in_prose_is_retried(sim_server, make_model) -> None:
    reply = Reply(tool_calls=[{"name": "calculator", "arguments": {"expression": "1+1"}}])
    srv = sim_server(SimulatedModel(script=["Vou pensar em como calcular isso...", reply]))
    res = await make_model(srv.base_url).chat(
        [Message.user("1+1?")], tools=[CALC], require_tool=True
    )
    assert res.tool_calls[0].arguments == {"expression": "1+1"}
    assert res.usage.repairs == 1
    assert "calculator" in srv.sim.requests[-1].messages[-1]["content"].split("/no_think")[0]


async def test_a_server_refusing_json_schema_output_is_asked_for_a_json_object(
    sim_server, make_model
) -> None:
    refusal = Reply.http_error(400, "response_format type json_schema is not supported")
    srv = sim_server(SimulatedModel(script=[refusal, {"score": 1, "justification": "curta"}]))
    model = make_model(srv.base_url)
    res = await model.structured_result([Message.user("Avalie")], Review)
    assert (res.value.score, res.mode) == (1, "json_object")
    last = srv.sim.requests[-1]
    assert last.response_format == {"type": "json_object"}
    assert "JSON Schema" in last.messages[0]["content"]  # the schema moved into the prompt
    assert model.structured_mode == "json_object"  # learned for the next calls


async def test_a_plain_400_on_a_json_schema_call_does_not_switch_the_mode(
    sim_server, make_model
) -> None:
    srv = sim_server(
        SimulatedModel(script=[Reply.http_error(400), {"score": 1, "justification": "curta"}])
    )
    model = make_model(srv.base_url)
    with pytest.raises(ModelHTTPError):
        await model.structured([Message.user("Avalie")], Review)
    assert (await model.structured_result([Message.user("Avalie")], Review)).mode == "json_schema"
    assert srv.sim.requests[-1].response_format["type"] == "json_schema"


async def test_the_endpoint_concurrency_limit_holds(sim_server, make_model) -> None:
    from colmeia.sim.engine import Latency

    srv = sim_server(SimulatedModel(schema_mode=True, latency=Latency(fixed_s=0.05)))
    model = make_model(srv.base_url, max_concurrency=3)
    await asyncio.gather(*(model.chat([Message.user(f"q{i}")]) for i in range(12)))
    assert srv.sim.stats()["max_in_flight"] <= 3


async def test_streaming_hides_reasoning_and_ends_with_the_result(sim_server, make_model) -> None:
    srv = sim_server(SimulatedModel(script=["<think>plano</think>Resposta em partes."]))
    deltas: list[str] = []
    final = None
    async for event in make_model(srv.base_url).stream([Message.user("Oi")]):
        if event.done:
            final = event.result
        else:
            deltas.append(event.delta)
    assert "".join(deltas).strip() == "Resposta em partes."
    assert final is not None and final.content == "Resposta em partes."
    assert final.reasoning == "plano"


async def test_usage_is_summed_per_run(sim_server, make_model) -> None:
    srv = sim_server(SimulatedModel(script=["a", "b", Reply.http_error(500), "c"]))
    model = make_model(srv.base_url)
    with track_usage() as run:
        await model.chat([Message.user("1")])
        with track_usage() as step:
            await model.chat([Message.user("2")])
            await model.chat([Message.user("3")])
    assert run.usage.calls == 3 and step.usage.calls == 2
    assert run.usage.requests == 4 and run.usage.retries == 1
    assert run.by_model["sim"].calls == 3


async def test_cost_comes_from_the_price_table(sim_server, make_model) -> None:
    srv = sim_server(SimulatedModel(script=["resposta"]))
    res = await make_model(srv.base_url, price_input_per_mtok=1.0, price_output_per_mtok=2.0).chat(
        [Message.user("Oi")]
    )
    expected = (res.usage.prompt_tokens * 1.0 + res.usage.completion_tokens * 2.0) / 1e6
    assert res.usage.cost == pytest.approx(expected)


def test_sync_methods_mirror_the_async_ones(sim_server, make_model) -> None:
    for name in ("chat", "structured", "structured_result", "stream"):
        sync_sig = inspect.signature(getattr(SyncChatModel, name))
        async_sig = inspect.signature(getattr(OpenAIChatModel, name))
        assert list(sync_sig.parameters) == list(async_sig.parameters), name
    srv = sim_server(SimulatedModel(script=[{"score": 2, "justification": "ok"}, "oi"]))
    with SyncChatModel(make_model(srv.base_url)) as model:
        assert model.structured([Message.user("Avalie")], Review).score == 2
        assert model.chat([Message.user("Oi")]).content == "oi"


def test_missing_configuration_says_which_variable_to_set() -> None:
    with pytest.raises(ConfigurationError, match="COLMEIA_LLM_BASE_URL"):
        OpenAIChatModel(base_url="", model="x")
    with pytest.raises(ConfigurationError, match="COLMEIA_LLM_MODEL"):
        OpenAIChatModel(base_url="http://127.0.0.1:1/v1", model="")
    with pytest.raises(ConfigurationError, match="COLMEIA_LLM_PROVIDER"):
        OpenAIChatModel(base_url="http://127.0.0.1:1/v1", model="m", provider="bedrock")


async def test_answers_of_the_simulated_model_are_marked_as_simulated(
    sim_server, make_model
) -> None:
    """Commands and reports say so when their text came from the simulated model."""
    srv = sim_server(SimulatedModel(script=["Olá!", "Olá de novo!"]))
    model = make_model(srv.base_url)
    with track_usage() as tracker:
        result = await model.chat([Message.user("Oi")])
        streamed = [e async for e in model.stream([Message.user("Oi")])]
    assert result.usage.simulated == 1
    final = streamed[-1].result
    assert final is not None and final.usage.simulated == 1
    assert tracker.usage.simulated == 2
    assert tracker.usage.as_dict()["simulated"] == 2


class Cited(BaseModel):
    text: str
    passages: list[str] = Field(json_schema_extra={"items": {"enum": ["P1", "P2"]}})


class Reading(BaseModel):
    """A reading whose fields are nested models."""

    summary: Cited
    conclusions: list[Cited]


async def test_a_nested_schema_is_sent_inlined_for_grammar_guided_servers(
    sim_server, make_model
) -> None:
    # llama.cpp's server left what sits behind a $ref unconstrained: the model wrote passage ids
    # outside the enum. What the client sends must carry the constraints in place.
    cited = {"text": "Resumo.", "passages": ["P1"]}
    srv = sim_server(SimulatedModel(script=[{"summary": cited, "conclusions": [cited]}]))
    reading = await make_model(srv.base_url).structured([Message.user("Leia")], Reading)
    assert reading.summary.passages == ["P1"]
    sent = srv.sim.requests[-1].response_format["json_schema"]["schema"]
    assert '"$ref"' not in json.dumps(sent) and "$defs" not in sent
    assert sent["properties"]["summary"]["properties"]["passages"]["items"]["enum"] == ["P1", "P2"]
    assert sent["properties"]["conclusions"]["items"]["required"] == ["text", "passages"]
