"""What a student does with ``colmeia agent run`` without editing the package: their own tools
(``module:function``), their own critic and critic model, a role and few-shot examples."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from test_agent_cli import clean_env, cli

from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer

StartSim = Callable[[SimulatedModel], SimServer]

MY_TOOLS = '''
def tip(amount: float, percent: float) -> str:
    """The tip to leave on a restaurant bill.

    Args:
        amount: The bill, in reais.
        percent: The tip, in percent.
    """
    return f"{amount * percent / 100:.2f}"


def undocumented(x: int) -> int:
    return x
'''


def calls_then_answers(name: str, arguments: dict[str, object], answer: str):  # type: ignore[no-untyped-def]
    def respond(req: SimRequest) -> Reply | str:
        if req.tools and not req.tool_results:
            return Reply(tool_calls=[{"name": name, "arguments": arguments}])
        return answer

    return respond


def test_a_students_own_function_becomes_a_tool(sim_server: StartSim, tmp_path: Path) -> None:
    (tmp_path / "mytools.py").write_text(MY_TOOLS)
    sim = SimulatedModel(
        responder=calls_then_answers("tip", {"amount": 120, "percent": 10}, "Deixe R$ 12,00.")
    )
    env = clean_env(COLMEIA_LLM_BASE_URL=sim_server(sim).base_url, COLMEIA_LLM_MODEL="sim")
    out = cli("agent", "run", "Gorjeta de 10% em 120?", "--tools", "mytools:tip,calculator",
              "--json", env=env, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    trace = json.loads(out.stdout)
    assert trace["steps"][0]["tool"] == "tip"
    assert trace["steps"][0]["observation"] == "12.00"
    assert sorted(sim.requests[0].tool_names) == ["calculator", "tip"]
    # the docstring is what the model reads about the tool
    offered = next(t for t in sim.requests[0].tools if t["function"]["name"] == "tip")
    assert offered["function"]["description"].startswith("The tip to leave")

    by_path = cli("agent", "run", "Gorjeta?", "--tools", f"{tmp_path / 'mytools.py'}:tip",
                  "--json", env=env, cwd=tmp_path.parent)  # fmt: skip
    assert by_path.returncode == 0, by_path.stderr
    assert json.loads(by_path.stdout)["steps"][0]["tool"] == "tip"


def test_a_tool_that_cannot_be_loaded_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "mytools.py").write_text(MY_TOOLS)
    env = clean_env(COLMEIA_LLM_BASE_URL="http://127.0.0.1:9/v1", COLMEIA_LLM_MODEL="sim")
    missing = cli("agent", "run", "x", "--tools", "mytools:tipp", env=env, cwd=tmp_path)
    assert missing.returncode == 2
    assert "tool 'mytools:tipp': mytools has no 'tipp'; it defines tip, undocumented" in " ".join(
        missing.stderr.split()
    )
    assert "Traceback" not in missing.stderr
    bare = cli("agent", "run", "x", "--tools", "mytools:undocumented", env=env, cwd=tmp_path)
    assert bare.returncode == 2
    assert "has no description: write a docstring" in " ".join(bare.stderr.split())
    nomod = cli("agent", "run", "x", "--tools", "nomodule:f", env=env, cwd=tmp_path)
    assert "no module 'nomodule'" in nomod.stderr


def test_a_custom_critic_on_its_own_model(sim_server: StartSim, tmp_path: Path) -> None:
    """The chapter's Reflection case from the CLI: review code for time complexity, judged by
    a critic focus of the student's choosing, on another model."""
    seen: list[tuple[str, str]] = []

    def respond(req: SimRequest) -> str | dict[str, object]:
        if req.schema is not None:
            seen.append((req.model, req.last_user_text))
            return {"problems": [], "suggestions": [], "score": 0.95}
        return "O(n²): dois laços aninhados sobre a lista."

    env = clean_env(
        COLMEIA_LLM_BASE_URL=sim_server(SimulatedModel(responder=respond)).base_url,
        COLMEIA_LLM_MODEL="student",
    )
    out = cli("agent", "run", "Qual a complexidade de tempo de def f(xs): ...?", "-p", "reflect",
              "--critic", "complexity: is the big-O right, counting nested loops",
              "--critic-model", "judge", "--json", env=env, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert [model for model, _ in seen] == ["judge"]
    assert "complexity: is the big-O right, counting nested loops" in seen[0][1]
    critique = next(s for s in json.loads(out.stdout)["steps"] if s["kind"] == "critique")
    assert critique["meta"]["score"] == 0.95

    bad = cli("agent", "run", "x", "-p", "reflect", "--critic", "nonsense", env=env, cwd=tmp_path)
    assert bad.returncode == 2
    assert "unknown critic 'nonsense'" in bad.stderr


def test_role_and_few_shot_examples_reach_the_system_prompt(
    sim_server: StartSim, tmp_path: Path
) -> None:
    examples = tmp_path / "exemplos.jsonl"
    examples.write_text(
        json.dumps(
            {
                "task": "Quanto é 10% de 50?",
                "steps": ["Action: calculator[10% de 50]", "Observation: 5"],
                "answer": "5",
            },
            ensure_ascii=False,
        )
        + "\n"
    )
    sim = SimulatedModel(script=["Final Answer: 397,8"])
    env = clean_env(COLMEIA_LLM_BASE_URL=sim_server(sim).base_url, COLMEIA_LLM_MODEL="sim")
    out = cli("agent", "run", "17% de 2.340?", "--tools", "calculator", "--tool-mode", "text",
              "--role", "Você é um tutor de matemática paciente.", "--few-shot", str(examples),
              "--json", env=env, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    system = sim.requests[0].text(("system",))
    assert system.startswith("Você é um tutor de matemática paciente.")
    assert "careful assistant" not in system  # the role replaced the default line
    assert "Example 1\nTask: Quanto é 10% de 50?\n  Action: calculator[10% de 50]" in system
    assert "Action Input:" in system  # the protocol itself stays
    assert json.loads(out.stdout)["settings"] == {"temperature": 0.0}

    examples.write_text('{"task": "sem resposta"}\n')
    bad = cli("agent", "run", "x", "--few-shot", str(examples), env=env, cwd=tmp_path)
    assert bad.returncode == 2
    assert f"{examples}:1: the example has no 'answer'" in " ".join(bad.stderr.split())
