"""A stand-in for a careful model, served by colmeia's simulated server (demo, eval, bench).

The schema-driven simulated model answers at random, which makes an assistant conversation
meaningless. :func:`assistant_responder` answers each request the way a careful model would:
routing decisions by the same rules as the offline mode, RAG answers that quote the first
passage with a ``[P1]`` citation, rewrites that restate the question. Every answer still goes
over HTTP through the real client, costs tokens, and carries the simulated fingerprint, so
reports say the text is simulated.
"""

from __future__ import annotations

import re
from typing import Any

from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.offline import RulesModel
from colmeia.llm.base import Message, ToolCall, ToolSpec
from colmeia.sim.engine import Reply, SimRequest

__all__ = ["assistant_responder", "careful_frame"]

_rules = RulesModel()
_PASSAGE = re.compile(r"^\[(P\d+)\] [^\n]*\n(.+?)(?=\n\n\[P\d+\]|\n*\Z)", re.S | re.M)


def _messages(req: SimRequest) -> list[Message]:
    out: list[Message] = []
    for m in req.messages:
        role = m.get("role", "user")
        content = m.get("content")
        text = content if isinstance(content, str) else ""
        calls = [
            ToolCall(c.get("id", ""), c["function"]["name"], {})
            for c in m.get("tool_calls") or []
            if isinstance(c, dict) and isinstance(c.get("function"), dict)
        ]
        out.append(Message(role, text, calls, m.get("tool_call_id"), m.get("name")))
    return out


def _tools(req: SimRequest) -> list[ToolSpec]:
    return [ToolSpec(name, "", {}) for name in req.tool_names]


def _answer(req: SimRequest) -> dict[str, Any]:
    system = str(req.messages[0].get("content", "")) if req.messages else ""
    found = _PASSAGE.search(system)
    if not found:
        return {"answer": "Os trechos disponíveis não respondem a esta pergunta.", "citations": []}
    pid, text = found.group(1), " ".join(found.group(2).split())
    sentence = re.split(r"(?<=[.;:])\s", text, maxsplit=1)[0]
    quote = " ".join(sentence.split()[:12])
    return {"answer": f"{sentence} [{pid}]", "citations": [{"passage": pid, "quote": quote}]}


def careful_frame(text: str) -> dict[str, Any]:
    """The frame a careful model fills (``frame.j2``): the classifier's reading, the numbers
    and norms as typed."""
    frame = read_frame(text)
    return {
        "intent": frame.intent,
        "aspect": frame.aspect,
        "cases": [r.typed for r in frame.cases],
        "norms": [n.label() for n in frame.norms],
        "thread": frame.thread.which if frame.thread and frame.thread.which != "year" else "none",
    }


async def assistant_responder(req: SimRequest) -> Reply | dict[str, Any]:
    """One answer of the careful stand-in (see the module docstring)."""
    props = (req.schema or {}).get("properties", {})
    if req.tools:
        result = await _rules.chat(_messages(req), tools=_tools(req))
        if result.tool_calls:
            return Reply(
                tool_calls=[{"name": c.name, "arguments": c.arguments} for c in result.tool_calls]
            )
        return Reply(content=result.content)
    if "citations" in props:
        return _answer(req)
    if "intent" in props:
        return careful_frame(req.last_user_text)
    if "query" in props:
        return {"query": req.last_user_text}
    return Reply(content="Resposta simulada.")


def main(argv: list[str] | None = None) -> None:
    """``python -m colmeia.apps.assistant.simulated --port N [--latency-ms 200]``: serve the
    stand-in on loopback (benchmarks run it in a process of its own)."""
    import argparse

    from colmeia.sim.engine import Latency, SimulatedModel
    from colmeia.sim.server import serve_forever

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    args = parser.parse_args(argv)
    sim = SimulatedModel(
        responder=assistant_responder, latency=Latency(fixed_s=args.latency_ms / 1000)
    )
    serve_forever(sim, port=args.port)


if __name__ == "__main__":
    main()
