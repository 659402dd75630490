"""The refund example: ReAct facts, a structured decision, reflection when confidence is low."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples.refund_agent.agent import RefundAgent  # noqa: E402
from examples.refund_agent.demo_model import demo_model  # noqa: E402
from examples.refund_agent.store import create_database  # noqa: E402
from examples.refund_agent.tools import refund_tools  # noqa: E402

from colmeia.agents import RunStatus  # noqa: E402
from colmeia.llm import OpenAIChatModel  # noqa: E402
from colmeia.sim.engine import SimulatedModel  # noqa: E402
from colmeia.sim.server import SimServer  # noqa: E402

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]


async def test_clear_cases_are_decided_without_reflection(
    sim_server: StartSim, client: MakeClient, tmp_path: Path
) -> None:
    db = create_database(tmp_path / "refunds.db")
    agent = RefundAgent(client(sim_server(demo_model())), refund_tools(db))
    approved = await agent.handle("Quero devolver o fone do pedido 1001.")
    assert approved.decision.decision == "approve"
    assert approved.decision.refund_amount == 299.90
    assert not approved.reflected
    assert approved.trace.status is RunStatus.FINISHED
    assert [s.tool for s in approved.trace.steps if s.tool] == [
        "lookup_order",
        "check_refund_policy",
    ]
    late = await agent.handle("Quero reembolso da camiseta do pedido 1003.")
    assert late.decision.decision == "deny"
    assert "45 days" in late.decision.reasons[0]


async def test_low_confidence_triggers_reflection(
    sim_server: StartSim, client: MakeClient, tmp_path: Path
) -> None:
    db = create_database(tmp_path / "refunds.db")
    agent = RefundAgent(client(sim_server(demo_model())), refund_tools(db))
    outcome = await agent.handle("Minha cafeteira do pedido 1004 parou de esquentar.")
    assert outcome.reflected
    decisions = [s for s in outcome.trace.steps if s.kind == "decision"]
    assert [d.meta["decision"] for d in decisions] == ["approve", "approve"]
    assert decisions[0].thought == "confidence 0.60"
    assert outcome.decision.confidence == 0.9
    assert "garantia legal" in outcome.decision.customer_reply
    phases = {s.meta.get("phase") for s in outcome.trace.steps}
    assert {"facts", "reflection"} <= phases
    critiques = [s for s in outcome.trace.steps if s.kind == "critique"]
    assert "90-day legal warranty" in critiques[0].observation
    assert critiques[-1].observation == "no problems found"


def test_runs_as_a_module_with_the_demo_model(tmp_path: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "examples.refund_agent",
            "--demo",
            "--json",
            "--db",
            str(tmp_path / "r.db"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["decision"] for line in lines] == ["approve", "deny", "deny", "approve"]
    assert [line["reflected"] for line in lines] == [False, False, False, True]
    assert (tmp_path / "r.db").exists()
