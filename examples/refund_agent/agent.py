"""The refund agent: ReAct gathers facts, a structured decision follows, Reflection reviews it
when its confidence is low, guardrails in code check it before it takes effect, and the reply
goes to the customer's address on record through ``send_email``, behind approval. Every
phase's steps end up in one trace."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Literal

from examples.refund_agent.guardrails import (
    APPROVAL_THRESHOLD,
    Violation,
    check_decision,
    needs_approval,
)
from examples.refund_agent.mail import ApprovalRequest, Approver, Outbox, approve_none, email_tool
from examples.refund_agent.tools import read_order, refund_tools
from pydantic import BaseModel, Field

from colmeia.agents import Critic, ReActAgent, ReflectionAgent, RunStatus, Step, Trace
from colmeia.agents.trace import StepCallback
from colmeia.errors import ModelError
from colmeia.llm import ChatModel, Message
from colmeia.tools import ToolRegistry

INSTRUCTIONS = """You are a customer-service agent of an online store handling refund requests.
Always look up the order with lookup_order, its delivery with track_shipment, then the policy of
its category with check_refund_policy, before concluding. Give your conclusion as a short summary
of the facts (order number, customer, product, amount paid, days since delivery, policy window and
conditions) and whether a refund fits."""

DECIDE = """Customer request:
{request}

Facts gathered by the agent:
{facts}
{violations}
Decide the refund. approve only if the policy allows it; deny if it clearly does not; escalate
to a human when the facts are ambiguous or missing. The refund can never be more than the amount
paid. Give the order number, your confidence from 0 to 1 and a short, polite reply to the
customer in Portuguese."""

BROKEN_RULES = """
Your previous decision was refused because it breaks these rules, checked by the store's system:
{rules}
Decide again, within the rules.
"""


class RefundDecision(BaseModel):
    """The decision on one refund request."""

    order_id: str = Field(description="The order number the decision is about, e.g. 1001.")
    decision: Literal["approve", "deny", "escalate"]
    refund_amount: float = Field(ge=0, description="Amount to refund; 0 unless approved.")
    confidence: float = Field(ge=0, le=1, description="How sure the decision is, 0 to 1.")
    reasons: list[str] = Field(default_factory=list, max_length=6)
    customer_reply: str = Field(min_length=1, description="Reply to the customer, in Portuguese.")


@dataclass
class RefundOutcome:
    """A decision, the trace of how it was reached, the rules it broke on the way and what
    happened to the reply e-mail."""

    decision: RefundDecision
    trace: Trace
    reflected: bool
    violations: list[Violation] = field(default_factory=list)
    email: str = ""


def _escalate(order_id: str, reason: str) -> RefundDecision:
    return RefundDecision(
        order_id=order_id,
        decision="escalate",
        refund_amount=0.0,
        confidence=0.0,
        reasons=[reason],
        customer_reply="Recebemos seu pedido de reembolso e um atendente vai analisá-lo em breve.",
    )


class RefundAgent:
    """Combines ReAct (facts), structured output (decision), Reflection (review), rules in
    code (guardrails) and a human approver (large refunds, every e-mail).

    Args:
        model: the model for every phase.
        db_path: the store's SQLite file (see ``store.create_database``).
        outbox: where e-mails go (``sent/``, or ``held/`` when not approved).
        approver: asked before a refund above ``approval_threshold`` is paid and before each
            e-mail is sent; the default approves nothing (large refunds are escalated, e-mails
            held).
        today: the date the policy windows are counted from.
        deadline: seconds the fact-gathering may take before the case is escalated.
    """

    def __init__(
        self,
        model: ChatModel,
        db_path: Path,
        *,
        outbox: Outbox,
        approver: Approver = approve_none,
        confidence_threshold: float = 0.75,
        approval_threshold: float = APPROVAL_THRESHOLD,
        critic_model: ChatModel | None = None,
        today: date | None = None,
        deadline: float = 180.0,
    ) -> None:
        self.model = model
        self.db_path = db_path
        self.tools = refund_tools(db_path, today)
        self.outbox = outbox
        self.approver = approver
        self.confidence_threshold = confidence_threshold
        self.approval_threshold = approval_threshold
        self.critic_model = critic_model
        self.today = today
        self.deadline = deadline
        self._recipient: str | None = None
        self.mail = ToolRegistry([email_tool(outbox, approver, lambda: self._recipient)])

    async def handle(self, request: str, on_step: StepCallback | None = None) -> RefundOutcome:
        trace = Trace(paradigm="refund", task=request, on_step=on_step)

        def adopt(phase: str) -> StepCallback:
            def forward(step: Step) -> None:
                trace.adopt(step, phase=phase)

            return forward

        facts_agent = ReActAgent(
            self.model,
            self.tools,
            instructions=INSTRUCTIONS,
            max_steps=6,
            deadline=self.deadline,
            require_tool_first=True,  # never decide a refund without looking the order up
        )
        facts = await facts_agent.run(request, on_step=adopt("facts"))
        if facts.status is RunStatus.MODEL_ERROR or not facts.answer:
            decision = _escalate(
                "", f"could not gather the facts ({facts.status.value}: {facts.error})"
            )
            trace.finish(facts.status, decision.customer_reply, error=facts.error)
            return RefundOutcome(decision, trace, reflected=False)
        violations: list[Violation] = []
        try:
            decision = await self._decide(request, facts.answer, trace)
            reflected = False
            if decision.confidence < self.confidence_threshold:
                decision = await self._reflect(request, facts.answer, decision, trace, adopt)
                reflected = True
            decision = await self._guard(request, facts.answer, decision, trace, violations)
        except ModelError as exc:
            decision = _escalate("", f"the model failed while deciding: {exc}")
            trace.finish(RunStatus.MODEL_ERROR, decision.customer_reply, error=str(exc))
            return RefundOutcome(decision, trace, reflected=False, violations=violations)
        decision = self._approve(decision, trace)
        email = await self._send_reply(decision, trace)
        trace.finish(RunStatus.FINISHED, decision.customer_reply, stop_reason=decision.decision)
        return RefundOutcome(decision, trace, reflected, violations, email)

    # ------------------------------------------------------------------ phases

    async def _decide(
        self,
        request: str,
        facts: str,
        trace: Trace,
        broken: list[Violation] | None = None,
        phase: str = "decision",
    ) -> RefundDecision:
        rules = BROKEN_RULES.format(rules="\n".join(f"- {v}" for v in broken)) if broken else ""
        prompt = DECIDE.format(request=request, facts=facts, violations=rules)
        result = await self.model.structured_result(
            [Message.user(prompt)], RefundDecision, temperature=0.0
        )
        trace.add(
            "decision",
            thought=f"confidence {result.value.confidence:.2f}",
            observation=result.value.model_dump_json(),
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            latency_s=result.usage.latency_s,
            meta={"decision": result.value.decision, "phase": phase},
        )
        return result.value

    async def _guard(
        self,
        request: str,
        facts: str,
        decision: RefundDecision,
        trace: Trace,
        seen: list[Violation],
    ) -> RefundDecision:
        """Rules in code: a decision that breaks one goes back to the model once with the rules
        named (reflection on them); breaking any again escalates it to a person."""
        for attempt in (1, 2):
            broken = check_decision(decision, self.db_path, self.today)
            trace.add(
                "guardrail",
                observation="; ".join(map(str, broken)) or "all rules hold",
                ok=not broken,
                meta={"rules": [v.rule for v in broken], "attempt": attempt},
            )
            if not broken:
                return decision
            seen.extend(broken)
            if attempt == 2:
                break
            decision = await self._decide(request, facts, trace, broken, phase="guardrails")
        rules = ", ".join(dict.fromkeys(v.rule for v in broken))
        return _escalate(decision.order_id, f"escalated: the decision broke {rules}")

    def _approve(self, decision: RefundDecision, trace: Trace) -> RefundDecision:
        if not needs_approval(decision, self.approval_threshold):
            return decision
        summary = f"refund R$ {decision.refund_amount:.2f} for order {decision.order_id}"
        approved = self.approver(ApprovalRequest("refund", summary))
        trace.add(
            "approval",
            observation=f"{summary}: {'approved' if approved else 'not approved'} by a person",
            ok=approved,
            meta={"rule": "approval_above_threshold"},
        )
        if approved:
            return decision
        return _escalate(
            decision.order_id,
            f"escalated: approval_above_threshold (R$ {decision.refund_amount:.2f} > "
            f"R$ {self.approval_threshold:.2f}) was not approved",
        )

    async def _send_reply(self, decision: RefundDecision, trace: Trace) -> str:
        """The reply goes out through ``send_email``, to the address the order has."""
        order = (
            read_order(self.db_path, decision.order_id, self.today) if decision.order_id else None
        )
        self._recipient = order.email if order is not None else None
        if self._recipient is None:
            trace.add("reply", observation="no e-mail: no customer address on record", ok=False)
            return ""
        assert order is not None
        result = await self.mail.execute(
            "send_email",
            {
                "to": self._recipient,
                "subject": f"Pedido {order.order_id}: sua solicitação de reembolso",
                "body": decision.customer_reply,
            },
        )
        trace.add(
            "tool",
            tool="send_email",
            input=result.arguments,
            observation=result.output,
            ok=result.ok,
            meta={"phase": "reply"},
        )
        return result.output

    async def _reflect(
        self,
        request: str,
        facts: str,
        decision: RefundDecision,
        trace: Trace,
        adopt: Callable[[str], StepCallback],
    ) -> RefundDecision:
        """Low confidence: critics review the decision against the facts, then decide again."""
        task = (
            f"Decide this refund request and justify it from the facts.\nRequest: {request}\n"
            f"Facts: {facts}"
        )
        draft = (
            f"Decision: {decision.decision} (refund {decision.refund_amount:.2f}). "
            f"Reasons: {'; '.join(decision.reasons)}. Reply to the customer: {decision.customer_reply}"
        )
        critics = [
            Critic(
                "policy",
                "correctness: does the decision follow the store policy and the facts exactly",
                model=self.critic_model,
            ),
            Critic("language", "language: is the customer reply clear, polite and in Portuguese"),
        ]
        reviewer = ReflectionAgent(self.model, critics=critics, threshold=0.8, max_iterations=2)
        review = await reviewer.run(task, initial_answer=draft, on_step=adopt("reflection"))
        if review.status is RunStatus.MODEL_ERROR:
            raise ModelError(review.error or "reflection failed")
        return await self._decide(request, f"{facts}\nReviewed draft: {review.answer}", trace)
