"""``stream_to``: chat and structured calls stream into a sink while they return what they
always returned — tool calls joined from their streamed pieces, repairs announced, reasoning
hidden — over real HTTP to the simulated server."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from colmeia.llm import Message, ToolSpec, stream_to
from colmeia.sim.engine import Reply, SimulatedModel

LOOKUP = ToolSpec(
    "lookup_case",
    "Read a case.",
    {"type": "object", "properties": {"number": {"type": "string"}}, "required": ["number"]},
)


class Sink:
    """Records what a call streamed: ``("begin", "")`` per request, then the deltas."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def begin(self) -> None:
        self.seen.append(("begin", ""))

    def delta(self, text: str, part: Literal["content", "arguments"]) -> None:
        self.seen.append((part, text))

    def text(self, part: str) -> str:
        return "".join(t for p, t in self.seen if p == part)


async def test_a_streamed_chat_joins_text_and_tool_calls_like_a_plain_one(
    sim_server: Any, make_model: Any
) -> None:
    reply = Reply(
        content="<think>preciso do cadastro</think>Vou consultar o cadastro agora mesmo.",
        tool_calls=[{"name": "lookup_case", "arguments": {"number": "TC/000032/2023"}}],
    )
    srv = sim_server(SimulatedModel(script=[reply, reply]))
    model = make_model(srv.base_url)
    plain = await model.chat([Message.user("onde está?")], tools=[LOOKUP])
    sink = Sink()
    with stream_to(sink):
        streamed = await model.chat([Message.user("onde está?")], tools=[LOOKUP])
    assert streamed.content == plain.content == "Vou consultar o cadastro agora mesmo."
    assert [(c.name, c.arguments) for c in streamed.tool_calls] == [
        ("lookup_case", {"number": "TC/000032/2023"})
    ]
    assert streamed.tool_calls[0].id.startswith("call_")  # the id the server streamed
    assert streamed.reasoning == "preciso do cadastro"
    # the person saw the text in pieces, never the reasoning; the arguments came in pieces too
    assert sink.seen[0] == ("begin", "") and sink.text("content") == streamed.content
    assert len([p for p, _ in sink.seen if p == "content"]) > 3
    assert sink.text("arguments") == streamed.tool_calls[0].raw_arguments
    assert len([p for p, _ in sink.seen if p == "arguments"]) == 2
    assert streamed.usage.requests == 1 and streamed.usage.completion_tokens > 0
    assert streamed.usage.simulated == 1


class Verdict(BaseModel):
    answer: str
    score: int


async def test_a_repair_starts_a_new_streamed_request(sim_server: Any, make_model: Any) -> None:
    srv = sim_server(
        SimulatedModel(script=['{"answer": "sem nota"}', {"answer": "Nota dada.", "score": 3}])
    )
    sink = Sink()
    with stream_to(sink):
        value = await make_model(srv.base_url).structured([Message.user("avalie")], Verdict)
    assert value == Verdict(answer="Nota dada.", score=3)
    begins = [i for i, (p, _) in enumerate(sink.seen) if p == "begin"]
    assert len(begins) == 2  # the invalid first answer, then the repaired one
    after = "".join(t for p, t in sink.seen[begins[1] :] if p == "content")
    assert '"Nota dada."' in after and "sem nota" not in after


async def test_outside_stream_to_nothing_streams(sim_server: Any, make_model: Any) -> None:
    srv = sim_server(SimulatedModel(script=["Olá."]))
    model = make_model(srv.base_url)
    with stream_to(None):
        assert (await model.chat([Message.user("oi")])).content == "Olá."
    assert all(not r.stream for r in srv.sim.requests)
