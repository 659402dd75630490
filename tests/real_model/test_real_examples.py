"""The chapter's examples on a real small model (the 0.5B by default): the refund agent and tool
retrieval. Protocol and guardrails only, never the wording: whatever the model decides, a
decision that takes effect obeys the store's rules (checked again here against the database),
the reply goes to the order's address, and retrieval offers the model 6 of the 64 tools with
the right one among them.

    flock /tmp/realmodel.lock .venv/bin/python -m pytest -q -n0 tests/real_model/test_real_examples.py
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples.refund_agent.agent import RefundAgent  # noqa: E402
from examples.refund_agent.guardrails import check_decision, needs_approval  # noqa: E402
from examples.refund_agent.mail import Outbox, approve_all  # noqa: E402
from examples.refund_agent.store import create_database  # noqa: E402
from examples.refund_agent.tools import read_order  # noqa: E402
from examples.tool_retrieval.run import make_agent  # noqa: E402

from colmeia.agents import RunStatus  # noqa: E402
from colmeia.llm import OpenAIChatModel  # noqa: E402
from local_model import LONG, REAL_MODEL, LocalModel  # noqa: E402

pytestmark = REAL_MODEL


@pytest.fixture
async def real_model(local_llm: LocalModel) -> AsyncIterator[OpenAIChatModel]:
    model = OpenAIChatModel(
        base_url=local_llm.base_url,
        model=local_llm.model,
        provider="llamacpp",
        timeout=600,
        deadline=900,
        temperature=0.0,
        max_tokens=300,
    )
    yield model
    await model.aclose()


@pytest.mark.parametrize(
    "request_text",
    [
        "Quero reembolso da camiseta do pedido 1003.",  # 45 days after delivery: window is 30
        # its customer does not exist: the same invariants on another path, minutes more
        pytest.param("Quero devolver a mochila do pedido 1005, nem usei.", marks=LONG),
    ],
)
async def test_the_refund_agent_never_lets_a_rule_breaking_decision_through(
    real_model: OpenAIChatModel, tmp_path: Path, request_text: str
) -> None:
    db = create_database(tmp_path / "refunds.db")
    agent = RefundAgent(real_model, db, outbox=Outbox(tmp_path / "outbox"), approver=approve_all)
    outcome = await agent.handle(request_text)
    steps = outcome.trace.steps
    assert "lookup_order" in [s.tool for s in steps if s.tool]  # facts before any decision
    decision = outcome.decision
    assert decision.decision in ("approve", "deny", "escalate")
    if outcome.trace.status is RunStatus.FINISHED and decision.decision == "approve":
        assert check_decision(decision, db) == []  # whatever took effect obeys the rules
        assert not needs_approval(decision) or any(s.kind == "approval" for s in steps)
    for check in (s for s in steps if s.kind == "guardrail" and not s.ok):
        assert check.meta["rules"]  # every refusal names its rule
    for mail in Outbox(tmp_path / "outbox").sent():
        order = read_order(db, decision.order_id)
        assert order is not None and mail["To"] == order.email


async def test_tool_retrieval_offers_six_of_sixty_four_and_the_model_picks_from_them(
    real_model: OpenAIChatModel,
) -> None:
    agent = make_agent(real_model)
    task = "Onde está meu pedido 5001? Quero rastrear a entrega."
    offered = [t.name for t in agent.select_tools(task)]
    assert len(offered) == 6
    assert "track_order" in offered
    trace = await agent.run(task)
    assert trace.status in (RunStatus.FINISHED, RunStatus.MAX_STEPS, RunStatus.TOOL_FAILURES)
    called = [s.tool for s in trace.tool_calls]
    assert called, trace.answer
    assert set(called) <= set(offered) | {t.name for t in agent.registry}
    if trace.status is RunStatus.FINISHED and "track_order" in called:
        assert "Action:" not in trace.answer  # protocol never becomes the answer
