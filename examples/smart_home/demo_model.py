"""The demo's scripted model, one for the three paradigms: it knows, for each of the five
tasks, the tool calls a capable model makes and the answer it gives. As a ReAct executor it
makes the next call the conversation has not made yet; as a planner it writes one step per
call; as a critic it is satisfied. Each paradigm's cost (model calls, steps) is then its own.
"""

from __future__ import annotations

import json
import re
from typing import Any

from colmeia.sim.engine import Reply, SimRequest, SimulatedModel

SCRIPTS: dict[str, tuple[list[tuple[str, dict[str, Any]]], str]] = {
    "Apague a luz da sala.": (
        [("set_light", {"room": "sala", "brightness": 0})],
        "Luz da sala apagada.",
    ),
    "Coloque o termostato 2 graus acima da temperatura atual do quarto.": (
        [
            ("get_temperature", {"room": "quarto"}),
            ("calculator", {"expression": "19.0 + 2"}),
            ("set_thermostat", {"celsius": 21.0}),
        ],
        "O quarto está a 19 °C: termostato em 21 °C.",
    ),
    "Quanto de energia a casa gastou na segunda e na terça, somados, em kWh?": (
        [
            ("energy_used", {"day": "segunda"}),
            ("energy_used", {"day": "terça"}),
            ("calculator", {"expression": "11.2 + 9.8"}),
        ],
        "Segunda e terça somadas: 21 kWh.",
    ),
    "Boa noite: tranque a porta da frente e apague a luz da cozinha.": (
        [("lock_door", {"door": "frente"}), ("set_light", {"room": "cozinha", "brightness": 0})],
        "Porta da frente trancada e luz da cozinha apagada. Boa noite!",
    ),
    "Quanto custou a energia de quarta, a R$ 0,85 por kWh?": (
        [("energy_used", {"day": "quarta"}), ("calculator", {"expression": "12.5 * 0.85"})],
        "Na quarta foram 12,5 kWh: R$ 10,63.",
    ),
}


def _script(text: str) -> tuple[list[tuple[str, dict[str, Any]]], str] | None:
    return next((v for k, v in SCRIPTS.items() if k in text), None)


def respond(req: SimRequest) -> Reply | str | dict[str, Any]:
    everything = req.text(("system", "user"))
    found = _script(everything)
    if found is None:
        return "Não entendi o pedido."
    calls, answer = found
    if req.schema is not None:
        if "steps" in json.dumps(req.schema):
            return {
                "steps": [
                    {"description": f"Call {n} with {json.dumps(a, ensure_ascii=False)}", "tool": n}
                    for n, a in calls
                ]
            }
        return {"problems": [], "suggestions": [], "score": 0.95}
    step = re.search(r"Your step \([^)]+\): Call (\w+) with (\{.*\})", req.last_user_text)
    made = [m for m in req.messages if m.get("role") == "tool"]
    if step is not None:  # one plan step: its call, then its result
        if made:
            return made[-1].get("content") or ""
        return Reply(tool_calls=[{"name": step.group(1), "arguments": json.loads(step.group(2))}])
    if "Your step" in req.last_user_text:
        return answer
    if "A plan was carried out" in req.last_user_text or not req.tools:
        return answer
    if len(made) < len(calls):
        name, arguments = calls[len(made)]
        return Reply(tool_calls=[{"name": name, "arguments": arguments}])
    return answer


def demo_model() -> SimulatedModel:
    return SimulatedModel(responder=respond)
