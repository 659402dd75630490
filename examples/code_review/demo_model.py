"""The demo's scripted model. As the executor it first misreads the nested loops as linear
(the mistake the chapter's exercise is about); as a critic it checks what its focus asks —
time complexity counts the loops, any other focus is judged on its own words; as the refiner it
fixes what the critic named."""

from __future__ import annotations

import re
from typing import Any

from colmeia.sim.engine import SimRequest, SimulatedModel

FIRST = "A função percorre a lista uma vez, então a complexidade de tempo é O(n)."
FIXED = (
    "A complexidade de tempo é O(n²): para cada elemento, o laço interno percorre a lista de "
    "novo (n·(n-1)/2 comparações no pior caso). Uma versão O(n) guarda os itens vistos em um "
    "set:\n\ndef tem_duplicados(itens):\n    vistos = set()\n    for x in itens:\n"
    "        if x in vistos:\n            return True\n        vistos.add(x)\n    return False"
)


def _critique(prompt: str) -> dict[str, Any]:
    focus = re.search(r"focusing on (.*?)\.\n", prompt)
    asked = focus.group(1).lower() if focus else ""
    answer = prompt.split("Answer to review:", 1)[-1]
    if "complexity" in asked or "big-o" in asked or "complexidade" in asked:
        if "O(n²)" not in answer:
            return {
                "problems": [
                    "the two nested loops over the list make it quadratic, not linear: O(n²)"
                ],
                "suggestions": ["state O(n²) and propose an O(n) version with a set"],
                "score": 0.2,
            }
        return {"problems": [], "suggestions": [], "score": 0.95}
    return {"problems": [], "suggestions": [], "score": 0.9}


def respond(req: SimRequest) -> str | dict[str, Any]:
    if req.schema is not None:
        return _critique(req.last_user_text)
    if "Reviewers found these problems" in req.last_user_text:
        return FIXED
    return FIRST


def demo_model() -> SimulatedModel:
    return SimulatedModel(responder=respond)
