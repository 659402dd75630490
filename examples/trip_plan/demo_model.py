"""The demo's scripted model: a planner that first sends the couple to Alfama (full that
week), a worker that follows each step with its tool, and a replanner that moves the stay to
Belém. Every answer is a function of the request, as a model's would be."""

from __future__ import annotations

import re
from typing import Any

from colmeia.sim.engine import Reply, SimRequest, SimulatedModel

FIRST_PLAN = {
    "steps": [
        {"description": "Find the round-trip fare São Paulo → Lisboa", "tool": "search_flights"},
        {"description": "Find a hotel in Alfama, Lisboa", "tool": "search_hotels"},
        {"description": "Budget: 2 fares plus 7 nights", "tool": "calculator"},
    ]
}
NEW_PLAN = {
    "steps": [
        {"description": "Find a hotel in Belém, Lisboa", "tool": "search_hotels"},
        {"description": "Budget: 2 fares plus 7 nights", "tool": "calculator"},
    ]
}


def _call(name: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=[{"name": name, "arguments": arguments}])


def _number(pattern: str, text: str) -> float:
    m = re.search(pattern, text)
    return float(m.group(1)) if m else 0.0


def respond(req: SimRequest) -> Reply | str | dict[str, Any]:
    prompt = req.last_user_text
    if req.schema is not None:
        return NEW_PLAN if "failed" in prompt or "REPLAN" in prompt else FIRST_PLAN
    results = [m.get("content") or "" for m in req.messages if m.get("role") == "tool"]
    if "Your step" not in req.text(("user",)):
        # the final answer, from the step results
        budget = re.findall(r"R\$ ([\d.]+) in total", prompt)
        total = budget[-1] if budget else "?"
        return (
            f"Plano: voo São Paulo → Lisboa e hotel em Belém (Alfama estava lotado). "
            f"Orçamento para duas pessoas, 7 noites: R$ {total}."
        )
    step = re.search(r"Your step \(([^)]+)\): (.*)", prompt)
    what = step.group(2) if step else ""
    if results:
        last = results[-1]
        if last.startswith("Error"):
            return f"REPLAN: {last.removeprefix('Error: ')}"
        if "calculator" in what.lower() or "Budget" in what:
            return f"R$ {last} in total"
        return last
    if "hotel" in what:
        hood = re.search(r"hotel in (\w+)", what)
        return _call("search_hotels", city="Lisboa", neighbourhood=hood.group(1) if hood else "")
    if "Budget" not in what:
        return _call("search_flights", origin="São Paulo", destination="Lisboa")
    history = req.text(("user",))
    fare = _number(r"R\$ ([\d.]+) per person", history)
    night = _number(r"R\$ ([\d.]+) per night", history)
    return _call("calculator", expression=f"2 * {fare:.2f} + 7 * {night:.2f}")


def demo_model() -> SimulatedModel:
    return SimulatedModel(responder=respond)
