"""The scripted model of the chapter's three tasks, so they run offline (``--demo``).

Each answer is a function of the request, as a model's would be, and shows the reasoning the
chapter shows: for the search question a thought, a search and an answer read from the result;
for the apples a plan of three computations, each done with the calculator on the earlier
results; for primes a first version by trial division, a critic that asks for the sieve of
Eratosthenes, and the refined code.
"""

from __future__ import annotations

import re
from typing import Any

from colmeia.sim.engine import Reply, SimRequest, SimulatedModel

SEARCH_TASK = (
    "Quantas horas diárias de estágio são garantidas a estudantes de educação especial, e qual "
    "lei garante isso?"
)
APPLES_TASK = (
    "Uma frutaria vendeu 15 maçãs na segunda-feira. Na terça-feira, vendeu o dobro de maçãs de "
    "segunda. Na quarta-feira, vendeu 5 maçãs a menos que na terça. Quantas maçãs a frutaria "
    "vendeu nos três dias?"
)
PRIMES_TASK = "Escreva uma função Python que encontre todos os números primos de 1 a n."

APPLES_PLAN = {
    "steps": [
        {"description": "Vendas de terça: o dobro das 15 de segunda", "tool": "calculator"},
        {"description": "Vendas de quarta: 5 a menos que as de terça", "tool": "calculator"},
        {"description": "Total: somar as vendas dos três dias", "tool": "calculator"},
    ]
}

TRIAL_DIVISION = '''def primos_ate(n):
    """Todos os primos de 1 a n, testando cada número por divisão."""
    primos = []
    for k in range(2, n + 1):
        if all(k % d for d in range(2, int(k ** 0.5) + 1)):
            primos.append(k)
    return primos'''
SIEVE = '''def primos_ate(n):
    """Todos os primos de 1 a n pelo crivo de Eratóstenes: O(n log log n)."""
    if n < 2:
        return []
    eh_primo = [True] * (n + 1)
    eh_primo[0] = eh_primo[1] = False
    for k in range(2, int(n ** 0.5) + 1):
        if eh_primo[k]:
            eh_primo[k * k :: k] = [False] * len(range(k * k, n + 1, k))
    return [k for k, primo in enumerate(eh_primo) if primo]'''
# With --hierarchical the planner may split a complex step: the two days after Monday become
# one step of two sub-steps (1.1, 1.2), each still a single calculator call.
APPLES_SUBPLAN = {
    "steps": [
        {
            "description": "Vendas dos dias depois de segunda",
            "tool": None,
            "substeps": [APPLES_PLAN["steps"][0], APPLES_PLAN["steps"][1]],
        },
        APPLES_PLAN["steps"][2],
    ]
}


def _call(name: str, thought: str, **arguments: Any) -> Reply:
    return Reply(content=thought, tool_calls=[{"name": name, "arguments": arguments}])


def _search(req: SimRequest) -> Reply | str:
    results = [m.get("content") or "" for m in req.messages if m.get("role") == "tool"]
    if not results:
        return _call(
            "web_search",
            "Preciso de um fato que não sei de memória: vou pesquisar a lei do estágio.",
            query="horas diárias de estágio estudantes de educação especial lei",
        )
    found = results[-1]
    hours = re.search(r"(\d+) \(\w+\) horas diárias[^.;]*?educação especial", found)
    law = re.search(r"Lei (?:nº )?(\d{1,2}\.\d{3}(?:/\d{4})?)", found)
    if hours is None or law is None:
        return "Não encontrei a resposta nos resultados da pesquisa."
    return (
        f"Estudantes de educação especial têm garantida uma jornada de {hours.group(1)} horas "
        f"diárias de estágio, pela Lei {law.group(1)} (a Lei do Estágio)."
    )


def _results(prompt: str) -> list[float]:
    return [float(x) for x in re.findall(r"^- Step \S+: (\d+(?:\.\d+)?)", prompt, re.M)]


def _apples(req: SimRequest) -> Reply | str | dict[str, Any]:
    prompt = req.last_user_text
    if req.schema is not None:
        # the planner's prompt allows sub-steps only with --hierarchical
        return (
            APPLES_SUBPLAN if "may list sub-steps" in req.text(("system", "user")) else APPLES_PLAN
        )
    if "Your step" not in req.text(("user",)):
        total = re.findall(r"(\d+) maçãs no total", prompt)
        return f"A frutaria vendeu {total[-1] if total else '?'} maçãs nos três dias."
    step = re.search(r"Your step \(([^)]+)\): (.*)", prompt)
    what = step.group(2) if step else ""
    done = [m.get("content") or "" for m in req.messages if m.get("role") == "tool"]
    if done:
        value = done[-1].strip()
        return f"{value} maçãs no total" if what.startswith("Total") else f"{value} maçãs"
    earlier = _results(prompt)
    if what.startswith("Vendas de terça"):
        return _call("calculator", "Terça é o dobro de segunda.", expression="15 * 2")
    if what.startswith("Vendas de quarta"):
        tuesday = earlier[-1] if earlier else 0
        return _call("calculator", "Quarta é terça menos 5.", expression=f"{tuesday:g} - 5")
    tuesday, wednesday = [*earlier, 0, 0][:2]
    return _call("calculator", "Somo os três dias.", expression=f"15 + {tuesday:g} + {wednesday:g}")


def _critique(prompt: str) -> dict[str, Any]:
    answer = prompt.split("Answer to review:", 1)[-1]
    if "crivo" not in answer.lower():
        return {
            "problems": ["testing every number by division costs O(n·√n); for large n it is slow"],
            "suggestions": ["use the sieve of Eratosthenes, O(n log log n)"],
            "score": 0.5,
        }
    return {"problems": [], "suggestions": [], "score": 0.95}


def _primes(req: SimRequest) -> str | dict[str, Any]:
    if req.schema is not None:
        return _critique(req.last_user_text)
    if "Reviewers found these problems" in req.last_user_text:
        return f"Versão melhorada, pelo crivo de Eratóstenes:\n\n{SIEVE}"
    return f"Uma primeira versão:\n\n{TRIAL_DIVISION}"


def respond(req: SimRequest) -> Reply | str | dict[str, Any]:
    """Which task the request is about, read from it; then that task's script."""
    text = req.text(("system", "user"))
    if "web_search" in req.tool_names or "educação especial" in text:
        return _search(req)
    if "maçãs" in text:
        return _apples(req)
    return _primes(req)


def demo_model() -> SimulatedModel:
    return SimulatedModel(responder=respond)
