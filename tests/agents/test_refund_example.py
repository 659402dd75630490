"""The refund example (the chapter's capstone): ReAct gathers facts with three tools, a structured
decision follows, Reflection reviews it when unsure, guardrails in code refuse what breaks the
store's rules, and the reply e-mail goes to the order's address only when approved."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples.refund_agent.agent import RefundAgent  # noqa: E402
from examples.refund_agent.demo_model import demo_model, respond  # noqa: E402
from examples.refund_agent.mail import (  # noqa: E402
    ApprovalRequest,
    Outbox,
    approve_all,
    email_tool,
)
from examples.refund_agent.store import create_database  # noqa: E402

from colmeia.agents import RunStatus  # noqa: E402
from colmeia.llm import OpenAIChatModel  # noqa: E402
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel  # noqa: E402
from colmeia.sim.server import SimServer  # noqa: E402

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]


def decision(
    order_id: str, verdict: str, amount: float, confidence: float = 0.97
) -> dict[str, Any]:
    return {
        "order_id": order_id,
        "decision": verdict,
        "refund_amount": amount,
        "confidence": confidence,
        "reasons": ["the model's reasons"],
        "customer_reply": f"Olá! Decisão: {verdict}.",
    }


def scripted(decisions: list[dict[str, Any]]) -> SimulatedModel:
    """Gathers facts like the demo model, then decides exactly as scripted, in order."""
    queue = list(decisions)

    def answer(req: SimRequest) -> Reply | str | dict[str, Any]:
        if "decision" in (req.schema or {}).get("properties", {}):
            return queue.pop(0)
        return respond(req)

    return SimulatedModel(responder=answer)


class Approvals:
    """An approver that records what it was asked and answers per kind."""

    def __init__(self, refund: bool = True, email: bool = True) -> None:
        self.answers = {"refund": refund, "email": email}
        self.asked: list[ApprovalRequest] = []

    def __call__(self, request: ApprovalRequest) -> bool:
        self.asked.append(request)
        return self.answers[request.kind]


def agent_for(
    model: OpenAIChatModel,
    tmp_path: Path,
    approver: Callable[[ApprovalRequest], bool] = approve_all,
) -> RefundAgent:
    db = create_database(tmp_path / "refunds.db")
    return RefundAgent(model, db, outbox=Outbox(tmp_path / "outbox"), approver=approver)


async def test_clear_cases_use_three_tools_and_mail_the_order_address(
    sim_server: StartSim, client: MakeClient, tmp_path: Path
) -> None:
    agent = agent_for(client(sim_server(demo_model())), tmp_path)
    approved = await agent.handle("Quero devolver o fone do pedido 1001.")
    assert approved.decision.decision == "approve"
    assert approved.decision.refund_amount == 299.90
    assert not approved.reflected
    assert approved.violations == []
    assert approved.trace.status is RunStatus.FINISHED
    assert [s.tool for s in approved.trace.steps if s.tool] == [
        "lookup_order",
        "track_shipment",
        "check_refund_policy",
        "send_email",
    ]
    mails = Outbox(tmp_path / "outbox").sent()
    assert [m["To"] for m in mails] == ["ana.souza@example.com"]
    assert "R$ 299,90 foi aprovado" in mails[0].get_content()
    late = await agent.handle("Quero reembolso da camiseta do pedido 1003.")
    assert late.decision.decision == "deny"
    assert "45 days" in late.decision.reasons[0]


async def test_low_confidence_triggers_reflection(
    sim_server: StartSim, client: MakeClient, tmp_path: Path
) -> None:
    agent = agent_for(client(sim_server(demo_model())), tmp_path)
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


async def test_a_confident_refund_of_ten_thousand_on_a_late_order_is_refused_in_code(
    sim_server: StartSim, client: MakeClient, tmp_path: Path
) -> None:
    """The issue's case: R$ 10,000 approved on a R$ 59.90 order 45 days after delivery (the
    window is 30), with confidence 0.97. Confidence does not matter: the rules are checked, the
    decision goes back to the model with them named, and when it insists, to a person."""
    model = scripted([decision("1003", "approve", 10_000), decision("1003", "approve", 10_000)])
    agent = agent_for(client(sim_server(model)), tmp_path)
    outcome = await agent.handle("Quero reembolso da camiseta do pedido 1003.")
    assert outcome.decision.decision == "escalate"
    assert outcome.decision.refund_amount == 0
    assert "refund_within_paid" in outcome.decision.reasons[0]
    assert "inside_policy_window" in outcome.decision.reasons[0]
    checks = [s for s in outcome.trace.steps if s.kind == "guardrail"]
    assert [c.meta["rules"] for c in checks] == [
        ["refund_within_paid", "inside_policy_window", "policy_conditions"],
        ["refund_within_paid", "inside_policy_window", "policy_conditions"],
    ]
    assert "more than the R$ 59.90 paid" in checks[0].observation
    assert "delivered 45 days ago; the clothing policy allows 30 days" in checks[0].observation
    # the second decision was asked with the broken rules named
    second = [s for s in outcome.trace.steps if s.kind == "decision"][1]
    assert second.meta["phase"] == "guardrails"
    assert "refund_within_paid" in model.requests[-1].last_user_text  # the mail is not a model call


async def test_a_decision_fixed_after_the_rules_are_named_takes_effect(
    sim_server: StartSim, client: MakeClient, tmp_path: Path
) -> None:
    model = scripted([decision("1001", "approve", 599.80), decision("1001", "approve", 299.90)])
    agent = agent_for(client(sim_server(model)), tmp_path)
    outcome = await agent.handle("Quero devolver o fone do pedido 1001.")
    assert outcome.decision.decision == "approve"
    assert outcome.decision.refund_amount == 299.90
    assert [v.rule for v in outcome.violations] == ["refund_within_paid"]


async def test_a_decision_about_an_order_that_does_not_exist_is_refused(
    sim_server: StartSim, client: MakeClient, tmp_path: Path
) -> None:
    model = scripted([decision("9999", "approve", 50), decision("9999", "approve", 50)])
    agent = agent_for(client(sim_server(model)), tmp_path)
    outcome = await agent.handle("Quero devolver o fone do pedido 1001.")
    assert outcome.decision.decision == "escalate"
    assert [v.rule for v in outcome.violations] == ["order_exists", "order_exists"]
    assert "order '9999' does not exist" in str(outcome.violations[0])
    assert Outbox(tmp_path / "outbox").sent() == []  # no address for an order that is not there


async def test_no_refund_is_paid_to_a_customer_who_does_not_exist(
    sim_server: StartSim, client: MakeClient, tmp_path: Path
) -> None:
    model = scripted([decision("1005", "approve", 189.90), decision("1005", "approve", 189.90)])
    agent = agent_for(client(sim_server(model)), tmp_path)
    outcome = await agent.handle("Quero devolver a mochila do pedido 1005.")
    assert outcome.decision.decision == "escalate"
    assert "customer_exists" in outcome.decision.reasons[0]
    assert "customer C-05 does not exist" in str(outcome.violations[0])
    assert outcome.email == ""


async def test_a_refund_above_the_threshold_waits_for_a_person(
    sim_server: StartSim, client: MakeClient, tmp_path: Path
) -> None:
    srv = sim_server(scripted([decision("1006", "approve", 3499.0)] * 2))
    refused = Approvals(refund=False)
    outcome = await agent_for(client(srv), tmp_path, refused).handle("Notebook do pedido 1006.")
    assert outcome.decision.decision == "escalate"
    assert "approval_above_threshold" in outcome.decision.reasons[0]
    assert [a.kind for a in refused.asked] == ["refund", "email"]
    assert refused.asked[0].summary == "refund R$ 3499.00 for order 1006"

    approved = Approvals(refund=True)
    outcome = await agent_for(client(srv), tmp_path / "b", approved).handle("Pedido 1006.")
    assert outcome.decision.decision == "approve"
    assert outcome.decision.refund_amount == 3499.0
    approval = next(s for s in outcome.trace.steps if s.kind == "approval")
    assert approval.ok and "approved by a person" in approval.observation


async def test_an_email_not_approved_is_held_not_sent(
    sim_server: StartSim, client: MakeClient, tmp_path: Path
) -> None:
    agent = agent_for(client(sim_server(demo_model())), tmp_path, Approvals(email=False))
    outcome = await agent.handle("Quero devolver o fone do pedido 1001.")
    assert outcome.email.startswith("held for approval")
    assert Outbox(tmp_path / "outbox").sent() == []
    assert len(list((tmp_path / "outbox" / "held").glob("*.eml"))) == 1


async def test_send_email_writes_only_to_the_address_the_order_has(tmp_path: Path) -> None:
    tool = email_tool(Outbox(tmp_path), approve_all, lambda: "ana.souza@example.com")
    wrong = await tool.run({"to": "attacker@evil.example", "subject": "s", "body": "b"})
    assert not wrong.ok
    assert "recipient_from_order" in wrong.output
    assert "write to ana.souza@example.com" in wrong.output
    right = await tool.run({"to": "Ana.Souza@example.com", "subject": "s", "body": "b"})
    assert right.ok, right.output
    assert [m["To"] for m in Outbox(tmp_path).sent()] == ["ana.souza@example.com"]


def test_runs_as_a_module_with_the_demo_model(tmp_path: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "examples.refund_agent",
            "--demo",
            "--json",
            "--approve",
            "all",
            "--db",
            str(tmp_path / "r.db"),
            "--outbox",
            str(tmp_path / "outbox"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["decision"] for line in lines] == [
        "approve",
        "deny",
        "deny",
        "approve",
        "escalate",
        "approve",
    ]
    assert [line["reflected"] for line in lines] == [False, False, False, True, False, False]
    assert [line["guardrails"] for line in lines][4] == ["customer_exists"]
    assert len(list((tmp_path / "outbox" / "sent").glob("*.eml"))) == 5  # 1005 has no address


async def test_an_approval_against_the_policys_conditions_is_refused_in_code(
    sim_server: StartSim, client: MakeClient, tmp_path: Path
) -> None:
    """The digital policy refunds only if less than 20% was used; the course of order 1002 is
    60% used. Inside the window and within the amount paid, the approval still breaks a rule."""
    model = scripted([decision("1002", "approve", 199.00), decision("1002", "deny", 0)])
    agent = agent_for(client(sim_server(model)), tmp_path)
    outcome = await agent.handle("Comprei o curso do pedido 1002 e quero meu dinheiro de volta.")
    assert [v.rule for v in outcome.violations] == ["policy_conditions"]
    assert "order 1002 is 60% used; the digital policy refunds only up to 19% used" in str(
        outcome.violations[0]
    )
    assert outcome.decision.decision == "deny"  # decided again with the rule named


def test_the_misbehaving_model_tries_every_rule_and_each_guardrail_catches_it(
    capsys: Any,
) -> None:
    from examples.refund_agent.run import main

    assert main(["--misbehave", "--json", "--approve", "none"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(line["decision"], line["refund_amount"]) for line in lines] == [("escalate", 0.0)] * 4
    assert [line["guardrails"] for line in lines] == [
        ["refund_within_paid", "refund_within_paid"],  # insisted after being told
        ["policy_conditions", "policy_conditions"],
        ["inside_policy_window", "policy_conditions"] * 2,
        ["order_exists", "order_exists"],
    ]


def test_the_live_run_prints_what_each_guardrail_caught_and_why_a_case_was_escalated(
    capsys: Any,
) -> None:
    from examples.refund_agent.run import main

    request = "Quero o reembolso do pedido 9999."
    assert main(["--misbehave", "--approve", "none", request]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "guardrail caught order_exists: order '9999' does not exist" in out
    assert out.count("guardrail caught order_exists") == 1  # said once, not per attempt
    assert "reason escalated: the decision broke order_exists" in out


async def test_the_deadline_is_the_one_given(
    sim_server: StartSim, client: MakeClient, tmp_path: Path
) -> None:
    """A model that takes a minute per answer, and a half-second deadline: the case is escalated
    for the deadline, not after 180 s."""
    from colmeia.sim.engine import Latency

    slow = SimulatedModel(responder=respond, latency=Latency(fixed_s=60.0))
    db = create_database(tmp_path / "refunds.db")
    # The client itself would wait two minutes: only the agent's deadline can end it sooner.
    model = client(sim_server(slow), deadline=120.0, timeout=120.0)
    agent = RefundAgent(model, db, outbox=Outbox(tmp_path / "outbox"), deadline=0.5)
    outcome = await agent.handle("Quero devolver o fone do pedido 1001.")
    assert outcome.decision.decision == "escalate"
    assert "could not gather the facts" in outcome.decision.reasons[0]
    assert "the run deadline of 0.5s passed" in outcome.decision.reasons[0]
