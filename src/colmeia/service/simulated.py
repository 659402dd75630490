"""The simulated model ``colmeia serve --simulated`` starts, so the service can be tried with no
model server. Its answers are placeholders and are marked as simulated everywhere they show.

For cited answers it quotes the first sentence of the first passage it was given (so citations
resolve and open); everything else gets colmeia's schema-driven simulated answers.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from colmeia.apps.assistant.simulated import assistant_responder
from colmeia.sim import Latency, Reply, SimRequest, SimulatedModel

__all__ = ["demo_model", "demo_responder"]

_PASSAGE = re.compile(r"^\[(P\d+)\][^\n]*\n(.+?)(?=\n\n\[P\d+\]|\Z)", re.MULTILINE | re.DOTALL)


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = re.search(r"(?<=[.;:!?])\s", text)
    sentence = text[: end.start()] if end else text
    return sentence[:300]


_WEB = re.compile(r"\b(internet|web|pesquis\w*|busque online)\b", re.IGNORECASE)


def _assistant_turn(req: SimRequest) -> Any:
    """The assistant's agents, played simply: the coordinator hands legal questions to the RAG
    agent and requests to search the internet to the search agent, which asks for a web search
    (a tool that needs a person's approval) and then reports what it found."""
    names = set(req.tool_names)
    last = req.messages[-1] if req.messages else {}
    after_tool = last.get("role") == "tool"
    web = bool(_WEB.search(req.last_user_text))
    if names & {"lookup_case", "web_search", "transfer_to_main"}:  # the search agent
        if "web_search" in names and not after_tool and web:
            # ``web`` found a word in the text, so the query is never empty
            query = " ".join(req.last_user_text.split()[:8])
            return Reply(tool_calls=[{"name": "web_search", "arguments": {"query": query}}])
        if after_tool and last.get("name") == "web_search":
            found = str(last.get("content") or "")[:300]
            return f"(resposta simulada) Resultado da pesquisa: {found}".strip()
        # the registry: read as a careful model would (the number, or ask for it), never an
        # empty "search result" for a question about a case
        return assistant_responder(req)
    if "ask_user" in names:  # the coordinator
        if web and not after_tool and "transfer_to_search" in names:
            return Reply(
                tool_calls=[{"name": "transfer_to_search", "arguments": {"reason": "web"}}]
            )
        return assistant_responder(req)
    return None


def demo_responder(req: SimRequest) -> Any:
    """Cited-answer requests get an answer quoting passage P1; the assistant's agents follow
    :func:`_assistant_turn`; everything else gets the automatic (schema-valid) answer."""
    if req.tools:
        return _assistant_turn(req)
    props = (req.schema or {}).get("properties") or {}
    if "answer" in props and "citations" in props:
        found = _PASSAGE.search(req.text(("system",)))
        if found is None:
            return orjson.dumps(
                {"answer": "(simulado) Os trechos não respondem à pergunta.", "citations": []}
            ).decode()
        pid, passage = found.group(1), found.group(2)
        quote = _first_sentence(passage)
        answer = f"(resposta simulada) Segundo o trecho {pid}: {quote} [{pid}]"
        return orjson.dumps(
            {"answer": answer, "citations": [{"passage": pid, "quote": quote}]}
        ).decode()
    return None


def demo_model(latency_s: float = 0.0) -> SimulatedModel:
    """The simulated model of ``colmeia serve --simulated``."""
    return SimulatedModel(
        responder=demo_responder,
        schema_mode=True,
        latency=Latency(fixed_s=latency_s),
        seed=7,
    )
