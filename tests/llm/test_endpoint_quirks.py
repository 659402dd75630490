"""Compatibility by probing: each server's quirks, reproduced by the simulated model.

Every test starts a simulated server that behaves like a real one in one respect (see
``colmeia.sim.quirks``) and checks that the client still gets a usable answer, learns what the
endpoint does, and does not waste requests on what it learned.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from colmeia.errors import ModelContextLengthError, ModelHTTPError
from colmeia.llm import Message, ToolSpec
from colmeia.sim.engine import Reply, SimulatedModel
from colmeia.sim.quirks import Quirks

CALC = ToolSpec(
    "calculator",
    "Evaluate an arithmetic expression.",
    {
        "type": "object",
        "properties": {"expression": {"type": "string"}},
        "required": ["expression"],
    },
)
CLOCK = ToolSpec(
    "clock",
    "Current time in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}},
)
ASK = [Message.user("Quanto é 17% de 2340?")]


class Review(BaseModel):
    score: int = Field(ge=0, le=5)
    justification: str


def _sim(quirks: Quirks, **kw: object) -> SimulatedModel:
    return SimulatedModel(schema_mode=True, quirks=quirks, **kw)  # type: ignore[arg-type]


async def test_llamacpp_ignores_a_named_tool_choice_so_the_call_is_forced_with_required(
    sim_server, make_model
) -> None:
    srv = sim_server(_sim(Quirks.llamacpp()))
    model = make_model(srv.base_url)
    res = await model.chat(ASK, tools=[CLOCK, CALC], tool_choice="calculator")
    assert [c.name for c in res.tool_calls] == ["calculator"]
    assert res.tool_form == "required_one"
    assert model.profile.support("tool_choice_named") == "no"
    # learned once: the next call goes straight to the form that works
    before = len(srv.sim.requests)
    res = await model.chat(ASK, tools=[CLOCK, CALC], tool_choice="calculator")
    assert len(srv.sim.requests) == before + 1
    assert srv.sim.requests[-1].body["tool_choice"] == "required"
    assert [t["function"]["name"] for t in srv.sim.requests[-1].body["tools"]] == ["calculator"]


async def test_a_server_ignoring_required_gets_the_call_read_from_its_fenced_json(
    sim_server, make_model
) -> None:
    srv = sim_server(_sim(Quirks.llamacpp_ignoring_required()))
    model = make_model(srv.base_url)
    res = await model.chat(ASK, tools=[CALC], require_tool=True)
    assert res.tool_calls[0].name == "calculator" and res.tool_calls_recovered
    assert model.profile.support("tool_choice_required") == "no"
    await model.chat(ASK, tools=[CALC], require_tool=True)
    assert srv.sim.requests[-1].body["tool_choice"] == "auto"  # no request wasted on "required"


async def test_unsupported_tools_are_recognised_by_the_message_not_retried_and_asked_in_the_prompt(
    sim_server, make_model
) -> None:
    # llama.cpp without --jinja answers HTTP 500 "Unsupported param: tools": a 5xx that must
    # not be retried (it is a refusal, as its text says), and tools go into the prompt instead.
    srv = sim_server(_sim(Quirks.llamacpp_without_jinja()))
    model = make_model(srv.base_url)
    res = await model.chat(ASK, tools=[CALC], require_tool=True)
    assert res.tool_calls[0].name == "calculator" and res.tool_form == "prompt"
    assert srv.sim.stats()["refused"] == 1
    assert res.usage.retries == 0
    assert model.profile.support("tools") == "no"
    last = srv.sim.requests[-1]
    assert "tools" not in last.body and "calculator" in last.messages[0]["content"]


async def test_an_ollama_model_without_tools_is_told_about_them_in_the_prompt(
    sim_server, make_model
) -> None:
    srv = sim_server(_sim(Quirks.ollama_model_without_tools()))
    res = await make_model(srv.base_url).chat(ASK, tools=[CALC])
    assert res.tool_calls[0].name == "calculator" and res.tool_form == "prompt"


async def test_vllm_without_a_tool_parser_refuses_auto_but_forced_calls_stay_native(
    sim_server, make_model
) -> None:
    srv = sim_server(_sim(Quirks.vllm()))
    model = make_model(srv.base_url)
    forced = await model.chat(ASK, tools=[CALC], require_tool=True)
    assert forced.tool_form == "required" and not forced.tool_calls_recovered
    free = await model.chat(ASK, tools=[CALC], tool_choice="auto")
    assert free.tool_form == "prompt" and free.tool_calls[0].name == "calculator"
    assert model.profile.support("tool_choice_auto") == "no"


async def test_a_refusal_is_recognised_by_its_content_never_by_the_status_alone(
    sim_server, make_model
) -> None:
    unrelated = Reply.http_error(400, "temperature must be between 0 and 2")
    srv = sim_server(SimulatedModel(schema_mode=True, script=[unrelated]))
    model = make_model(srv.base_url)
    with pytest.raises(ModelHTTPError, match="temperature"):
        await model.chat(ASK, tools=[CALC], require_tool=True)
    assert model.profile.describe()["features"] == {}  # nothing learned from a plain 400


async def test_a_prompt_too_long_is_its_own_error_and_switches_nothing(
    sim_server, make_model
) -> None:
    srv = sim_server(_sim(Quirks.llamacpp(context_window=300)))
    model = make_model(srv.base_url)
    long = [Message.user("Avalie esta resposta: " + "muito bom " * 400)]
    with pytest.raises(ModelContextLengthError) as caught:
        await model.structured(long, Review)
    err = caught.value
    assert (err.context_tokens, err.status) == (300, 400)
    assert err.prompt_tokens and err.prompt_tokens > 300
    assert "--ctx" in str(err) and err.usage is not None and err.usage.requests == 1
    assert model.structured_mode == "json_schema"
    ok = await model.structured_result([Message.user("Avalie: bom")], Review)
    assert ok.mode == "json_schema"


async def test_vllm_context_errors_carry_the_sizes_from_its_message(sim_server, make_model) -> None:
    srv = sim_server(_sim(Quirks.vllm(context_window=200)))
    with pytest.raises(ModelContextLengthError) as caught:
        await make_model(srv.base_url).chat([Message.user("palavra " * 600)])
    assert caught.value.context_tokens == 200
    assert caught.value.prompt_tokens and caught.value.prompt_tokens > 200


async def test_a_server_ignoring_json_schema_gets_the_schema_in_the_prompt(
    sim_server, make_model
) -> None:
    srv = sim_server(_sim(Quirks(json_schema="ignore")))
    model = make_model(srv.base_url)
    res = await model.structured_result([Message.user("Avalie: bom")], Review)
    assert res.mode == "json_object"
    assert model.profile.support("json_schema") == "no"


async def test_what_one_client_learns_serves_every_client_of_the_endpoint(
    sim_server, make_model
) -> None:
    srv = sim_server(_sim(Quirks.llamacpp()))
    await make_model(srv.base_url).chat(ASK, tools=[CLOCK, CALC], tool_choice="calculator")
    other = make_model(srv.base_url)
    assert other.profile.support("tool_choice_named") == "no"


async def test_no_verdict_is_for_good_an_ignored_feature_is_tried_again_later(
    sim_server, make_model
) -> None:
    srv = sim_server(_sim(Quirks.llamacpp()))
    model = make_model(srv.base_url)
    await model.chat(ASK, tools=[CLOCK, CALC], tool_choice="calculator")
    assert model.profile.support("tool_choice_named") == "no"
    model.profile.features["tool_choice_named"].since -= model.profile.revisit_s  # time passes
    assert model.profile.support("tool_choice_named") == "unknown"
    await model.chat(ASK, tools=[CLOCK, CALC], tool_choice="calculator")
    asked = [r.body.get("tool_choice") for r in srv.sim.requests]
    assert asked.count({"type": "function", "function": {"name": "calculator"}}) == 2


async def test_an_answer_the_server_could_not_parse_moves_to_the_next_format_without_retrying(
    sim_server, make_model
) -> None:
    # llama.cpp 0.2.14 on the moderation rewriter's schema: HTTP 500 "Failed to parse input
    # at pos 0: <prose>". A 500 is normally retried; this one would fail the same way again.
    srv = sim_server(_sim(Quirks(json_schema="garble")))
    model = make_model(srv.base_url)
    res = await model.structured_result([Message.user("Avalie: bom")], Review)
    assert res.mode == "json_object" and res.usage.retries == 0
    assert model.profile.support("json_schema") == "no"
