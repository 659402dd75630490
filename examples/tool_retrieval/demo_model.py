"""The scripted model of the demo: it calls the *first* tool it is offered, with the arguments
it can read in the request, then answers with the result. So the demo succeeds exactly when
retrieval ranked the right tool first among the 64."""

from __future__ import annotations

import re
from typing import Any

from examples.tool_retrieval.catalog import PRICES

from colmeia.sim.engine import Reply, SimRequest, SimulatedModel


def _arguments(tool: dict[str, Any], text: str) -> dict[str, str]:
    wanted = tool["function"]["parameters"].get("properties", {})
    found = {
        "order_id": re.search(r"\b(\d{4})\b", text),
        "cep": re.search(r"\b(\d{5}-?\d{3})\b", text),
        "code": re.search(r"\b([A-Z][A-Z0-9]{5,})\b", text),
        "amount": re.search(r"R\$\s*([\d.,]+\d)", text),
    }
    product = next((p for p in PRICES if p.split()[0] in text.lower()), "")
    args = {k: m.group(1) for k, m in found.items() if m and k in wanted}
    if "product" in wanted:
        args["product"] = product
    for name in tool["function"]["parameters"].get("required", []):
        args.setdefault(name, text)  # a reason, a message: the request says it
    return {k: v for k, v in args.items() if k in wanted}


def respond(req: SimRequest) -> Reply | str:
    results = [m.get("content") or "" for m in req.messages if m.get("role") == "tool"]
    if results:
        return f"Resultado: {results[-1]}"
    if not req.tools:
        return "Não tenho ferramentas para isso."
    tool = req.tools[0]
    return Reply(
        tool_calls=[
            {"name": tool["function"]["name"], "arguments": _arguments(tool, req.last_user_text)}
        ]
    )


def demo_model() -> SimulatedModel:
    return SimulatedModel(responder=respond)
