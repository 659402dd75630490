"""``make demo``: colmeia's main jobs on embedded defaults, with no model server and no internet.

Runs the same commands a user would type, printing each one first, on the sample data shipped in
the repository's ``data/`` folder only: cited search over the Brazilian laws and the CAPES theses
catalogue (no model needed), the model check against colmeia's simulated model, a moderation
batch on the sample customer answers with its HTML report, a ReAct agent with the calculator, and
the institutional assistant (a synthetic case registry, cited answers on the laws, an approval).
Everything it writes goes under one folder (``.colmeia/demo``, or ``--home``), listed at the end.

The simulated model answers with random but schema-valid data, drawn from ``--seed`` and each
request's content: the same seed gives the same moderation outcomes on every run.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.rule import Rule

from colmeia.sim.engine import Latency, Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer

console = Console()

# The repository's sample data; the demo reads nothing else (no COLMEIA_DATA_DIR, no shared
# folder beside the clone), so it runs the same on any fresh clone.
_REPO_DATA = Path(__file__).resolve().parents[2] / "data"


def _shown(path: Path) -> Path:
    """``data/…`` rather than a long absolute path when the demo runs from the clone."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def _data_dir(given: Path | None) -> Path:
    for path in [given] if given else [_REPO_DATA, Path.cwd() / "data"]:
        if path is not None and (path / "moderation" / "sample_items.json").exists():
            return path.resolve()
    console.print(
        "[red]The sample data was not found.[/] `make demo` runs from a clone of the repository, "
        "whose data/ folder holds it; elsewhere pass --data DIR laid out like it."
    )
    raise SystemExit(2)


class Demo:
    """Runs ``colmeia`` commands as a user would and remembers which used the simulated model."""

    def __init__(self, base_env: dict[str, str]) -> None:
        self.base_env = base_env
        self.simulated_steps: list[str] = []

    def run(self, title: str, args: list[str], env: dict[str, str] | None = None) -> None:
        """Print the command, run it as a separate process, stop the demo if it fails."""
        env = env or self.base_env
        console.print(Rule(title))
        console.print(
            f"[bold cyan]$ colmeia {shlex.join(args)}[/]", highlight=False, soft_wrap=True
        )
        proc = subprocess.run([sys.executable, "-m", "colmeia", *args], env=env, check=False)
        if proc.returncode != 0:
            console.print(f"[red]command failed with exit code {proc.returncode}[/]")
            raise SystemExit(proc.returncode)
        if "COLMEIA_LLM_BASE_URL" in env:
            self.simulated_steps.append(title.strip(" 0123456789."))


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


def _search_steps(demo: Demo, data: Path) -> None:
    laws = sorted((data / "laws" / "lexml").glob("*.csv"))
    laws += sorted((data / "laws" / "constituicao" / "lexml").glob("*.csv"))
    demo.run(
        "1. Ingest the Constitution and nine federal laws (LexML CSV), cited down to the inciso",
        ["ingest", *map(str, laws), "--collection", "leis"],
    )
    demo.run(
        "   the court's corpus: TCU statements (JurisTCU) and the court's own norms (a sample)",
        [
            "ingest",
            str(data / "juristcu" / "docs.csv"),
            "--collection",
            "jurisprudencia",
            "--jurisprudence",
        ],
    )
    demo.run(
        "   a fictional state court's regimento interno and resolução, to show where a court's go",
        ["ingest", str(data / "tribunal"), "--collection", "normas-tribunal"],
    )
    for query in (
        "tratamento de dados pessoais de criancas",
        "prazo para resposta ao pedido de acesso a informacao",
    ):
        demo.run(f"   search: {query}", ["search", query, "--collection", "leis", "-k", "3"])
    demo.run(
        "   a year filter: only the 1990 consumer code",
        ["search", "publicidade enganosa", "-c", "leis", "--year", "1990", "-k", "2"],
    )
    demo.run(
        "   ask with no model configured: the best passages, cited",
        ["ask", "Quem é o controlador dos dados pessoais?", "--collection", "leis"],
    )
    demo.run(
        "   CAPES theses: columns, type and defence year detected",
        ["ingest", str(data / "theses" / "capes_resumos.csv"), "--collection", "teses"],
    )
    demo.run(
        "   theses defended in 2018, doctoral only",
        [
            "search",
            "escola sem partido",
            "-c",
            "teses",
            "--year",
            "2018",
            "--doc-type",
            "Tese",
            "-k",
            "2",
        ],
    )


def _review_steps(demo: Demo, data: Path) -> None:
    """A literature review on full text: the CAPES records with the five sample thesis PDFs
    (generated from their abstracts, see data/theses/pdfs/README.md), read without a model."""
    demo.run(
        "   literature review: CAPES records + sample thesis PDFs (full text, printed pages)",
        [
            "review",
            "import",
            str(data / "theses" / "capes_resumos.csv"),
            "-c",
            "revisao",
            "--pdfs",
            str(data / "theses" / "pdfs"),
        ],
    )
    demo.run(
        "   review a question: each statement cites a passage and its page",
        [
            "review",
            "gênero e sexualidade na formação e na prática docente",
            "-c",
            "revisao",
            "--top",
            "3",
        ],
    )


def _assistant_steps(demo: Demo, base_env: dict[str, str]) -> None:
    """The institutional assistant on the laws ingested above and a synthetic registry."""
    from colmeia.apps.assistant.simulated import assistant_responder

    thread = f"demo-{int(time.time())}"
    demo.run(
        "5. The institutional assistant: a synthetic case registry (invented cases)",
        ["registry", "demo", "--processes", "2000", "--expedientes", "500"],
    )
    for question in (
        "Onde está o processo tc 32/2023 e desde quando?",
        # TC/000032/2023 is a Prefeitura's case: the court's own rule comes first, as the court's
        "Qual o prazo pra eu recorrer?",
        "O que é fornecedor segundo o CDC?",
        "Quem julga as contas dos administradores de dinheiros públicos?",
        "Um acórdão sobre contratação direta",
        "Qual o prazo de remessa das contas segundo a resolução nº 12?",
    ):
        demo.run(
            "   ask, with no model: rules route, the registry and the laws answer",
            ["assistant", "ask", question, "--thread", thread],
        )
    with SimServer(SimulatedModel(responder=assistant_responder)) as server:
        env = dict(base_env, COLMEIA_LLM_BASE_URL=server.base_url, COLMEIA_LLM_MODEL="sim")
        demo.run(
            "   a side effect waits for approval (scripted model)",
            [
                "assistant",
                "ask",
                "Quero acompanhar o TC-000032-2023, avise demo@example.org",
                "--thread",
                thread,
            ],
            env,
        )
        demo.run(
            "   approved: it runs once",
            ["assistant", "resume", "--thread", thread, "--approve"],
            env,
        )


def main(argv: list[str] | None = None) -> None:
    """Run the demo."""
    parser = argparse.ArgumentParser(prog="python -m colmeia.demo", description=__doc__)
    parser.add_argument("--seed", type=int, default=1, help="seed of the simulated model")
    parser.add_argument("--home", type=Path, default=Path(".colmeia/demo"), help="output folder")
    parser.add_argument("--data", type=Path, default=None, help="sample data (default: data/)")
    args = parser.parse_args(argv)

    data = _shown(_data_dir(args.data))
    home = args.home.resolve()
    home.mkdir(parents=True, exist_ok=True)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    base_env["COLMEIA_HOME"] = str(home)
    base_env["COLMEIA_STORE"] = f"sqlite:///{home / 'colmeia.db'}"
    demo = Demo(base_env)
    console.print(
        f"colmeia demo · sample data {data} · output in {home} · seed {args.seed}", soft_wrap=True
    )

    # Search needs no model at all: these commands run with no COLMEIA_LLM_* set.
    _search_steps(demo, data)
    _review_steps(demo, data)

    out = home / "moderation"
    out.mkdir(exist_ok=True)
    results = out / "results.jsonl"
    results.unlink(missing_ok=True)
    items = data / "moderation" / "sample_items.json"
    sim = SimulatedModel(
        schema_mode=True, latency=Latency(fixed_s=0.02), seed=args.seed, per_request_seed=True
    )
    with SimServer(sim) as server:
        llm_env = dict(base_env, COLMEIA_LLM_BASE_URL=server.base_url, COLMEIA_LLM_MODEL="sim")
        demo.run(
            "2. The model check (simulated OpenAI-compatible model)", ["llm", "check"], llm_env
        )
        demo.run(
            "3. Moderate 200 customer answers (five agents, audited)",
            ["moderate", "run", str(items), "--out", str(results), "--concurrency", "32"],
            llm_env,
        )
        demo.run(
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
        demo.run(
            "4. A ReAct agent with the calculator (scripted model)",
            [
                "agent",
                "run",
                "--paradigm",
                "react",
                "Quanto é 17% de 2340?",
                "--tools",
                "calculator",
            ],
            agent_env,
        )

    _assistant_steps(demo, base_env)

    console.print(Rule("done: where everything is"))
    rows = [
        ("sample data read", data.resolve()),
        ("store (collections leis, teses, revisao)", home / "colmeia.db"),
        ("last review (JSON)", home / "reviews" / "last.json"),
        ("moderation results", results),
        ("moderation report", out / "report" / "report.html"),
        ("report plots and summary", out / "report"),
        ("case registry (invented cases)", home / "registry.db"),
        ("assistant threads", home / "assistant.db"),
    ]
    for label, path in rows:
        console.print(f"  {label:<34} {path}", highlight=False, soft_wrap=True)
    console.print(
        "[yellow]simulated model:[/] these steps used colmeia's simulated model, so their model "
        f"text is placeholder (random but schema-valid, seed {args.seed}; scripted for the "
        f"agent): {'; '.join(demo.simulated_steps)}.",
        highlight=False,
    )
    console.print(
        "Search and ask above used no model. For real answers set COLMEIA_LLM_BASE_URL and "
        "COLMEIA_LLM_MODEL to an OpenAI-compatible server (see README.md)."
    )


if __name__ == "__main__":
    main()
