"""The simulated model ``colmeia serve --simulated`` starts, so the service can be tried with no
model server. Its answers are placeholders and are marked as simulated everywhere they show.

For cited answers it quotes the first sentence of the first passage it was given (so citations
resolve and open); everything else gets colmeia's schema-driven simulated answers.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from colmeia.sim import Latency, SimRequest, SimulatedModel

__all__ = ["demo_model", "demo_responder"]

_PASSAGE = re.compile(r"^\[(P\d+)\][^\n]*\n(.+?)(?=\n\n\[P\d+\]|\Z)", re.MULTILINE | re.DOTALL)


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = re.search(r"(?<=[.;:!?])\s", text)
    sentence = text[: end.start()] if end else text
    return sentence[:300]


def demo_responder(req: SimRequest) -> Any:
    """Cited-answer requests get an answer quoting passage P1; others the automatic answer."""
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
