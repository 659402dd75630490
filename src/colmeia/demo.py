"""``make demo``: colmeia's main jobs on embedded defaults, with no model server and no internet.

Runs the same commands a user would type, printing each one first:
the model check against the built-in simulated model, ingestion and cited search over the shared
Brazilian laws (no model needed), a moderation batch on the sample customer answers with its HTML
report, and a ReAct agent with the calculator.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.rule import Rule

from colmeia.sim.engine import Latency, Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer

console = Console()


def _data_dir() -> Path:
    """The sample data shipped in the repository's ``data/`` folder (``COLMEIA_DATA_DIR`` overrides)."""
    explicit = os.environ.get("COLMEIA_DATA_DIR")
    candidates = [Path(explicit)] if explicit else []
    candidates += [Path.cwd() / "data", Path(__file__).resolve().parents[2] / "data"]
    for path in candidates:
        if (path / "moderation" / "sample_items.json").exists():
            return path.resolve()
    console.print(
        "[red]The sample data was not found.[/] `make demo` runs from a clone of the repository, "
        "whose data/ folder holds it; elsewhere set COLMEIA_DATA_DIR to a folder laid out like it."
    )
    raise SystemExit(2)


def _run(title: str, args: list[str], env: dict[str, str]) -> None:
    console.print(Rule(title))
    console.print(f"[bold cyan]$ colmeia {shlex.join(args)}[/]")
    proc = subprocess.run([sys.executable, "-m", "colmeia", *args], env=env, check=False)
    if proc.returncode != 0:
        console.print(f"[red]command failed with exit code {proc.returncode}[/]")
        raise SystemExit(proc.returncode)


def _calculator_agent(req: SimRequest) -> Reply:
    """A scripted stand-in for a model that uses the calculator sensibly (the demo says so)."""
    if "calculator" in req.tool_names and req.tool_results == 0:
        return Reply(
            tool_calls=[{"name": "calculator", "arguments": {"expression": "17/100*2340"}}]
        )
    result = next(
        (str(m.get("content")) for m in reversed(req.messages) if m.get("role") == "tool"), "?"
    )
    return Reply(content=f"17% de 2.340 é {result}.")


def main() -> None:
    """Run the demo."""
    data = _data_dir()
    home = Path(os.environ.get("COLMEIA_DEMO_HOME", ".colmeia/demo")).resolve()
    home.mkdir(parents=True, exist_ok=True)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    base_env["COLMEIA_HOME"] = str(home)
    base_env["COLMEIA_STORE"] = f"sqlite:///{home / 'colmeia.db'}"

    # Search needs no model at all: these commands run with no COLMEIA_LLM_* set.
    _run(
        "1. Ingest the federal laws (LexML CSV): legal structure, citations",
        ["ingest", str(data / "laws" / "lexml"), "--collection", "leis"],
        base_env,
    )
    for query in (
        "tratamento de dados pessoais de criancas",
        "prazo para resposta ao pedido de acesso a informacao",
        "concessao de servico publico tarifa",
    ):
        _run(f"   search: {query}", ["search", query, "--collection", "leis", "-k", "3"], base_env)
    _run(
        "   ask, with no model configured: an extractive answer with citations",
        ["ask", "Quem é o controlador dos dados pessoais?", "--collection", "leis"],
        base_env,
    )

    sim = SimulatedModel(schema_mode=True, latency=Latency(fixed_s=0.02), seed=1)
    with SimServer(sim) as server:
        llm_env = dict(base_env, COLMEIA_LLM_BASE_URL=server.base_url, COLMEIA_LLM_MODEL="sim")
        _run("2. The model check (simulated OpenAI-compatible model)", ["llm", "check"], llm_env)
        out = home / "moderation"
        out.mkdir(exist_ok=True)
        results = out / "results.jsonl"
        results.unlink(missing_ok=True)
        items = data / "moderation" / "sample_items.json"
        _run(
            "3. Moderate 200 customer answers (five agents, audited, resumable)",
            ["moderate", "run", str(items), "--out", str(results), "--concurrency", "32"],
            llm_env,
        )
        _run(
            "   the evaluation report (HTML + PNG plots)",
            [
                "moderate",
                "report",
                str(results),
                "--gold",
                str(items),
                "--out",
                str(out / "report"),
            ],
            llm_env,
        )
    # The schema-driven model answers at random; for the agent, a scripted model that uses its
    # tool the way a real one would makes the trace worth reading.
    with SimServer(SimulatedModel(responder=_calculator_agent)) as server:
        agent_env = dict(base_env, COLMEIA_LLM_BASE_URL=server.base_url, COLMEIA_LLM_MODEL="sim")
        question = "Quanto é 17% de 2340?"
        _run(
            "4. A ReAct agent with the calculator (scripted simulated model)",
            ["agent", "run", "--paradigm", "react", question, "--tools", "calculator"],
            agent_env,
        )
    console.print(Rule("done"))
    console.print(f"Store: {home / 'colmeia.db'}")
    console.print(f"Moderation results: {results}")
    console.print(f"Moderation report: {out / 'report' / 'report.html'}")
    console.print(
        "Model answers came from the simulated model (schema-valid but random; scripted for "
        "the agent). Point "
        "COLMEIA_LLM_BASE_URL/COLMEIA_LLM_MODEL at a real server to get real ones."
    )


if __name__ == "__main__":
    main()
