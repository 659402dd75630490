"""The refund agent: ReAct gathers facts, a structured decision follows, Reflection reviews it
when the decision's confidence is low. Every phase's steps end up in one trace."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from colmeia.agents import Critic, ReActAgent, ReflectionAgent, RunStatus, Step, Trace
from colmeia.agents.trace import StepCallback
from colmeia.errors import ModelError
from colmeia.llm import ChatModel, Message
from colmeia.tools import ToolRegistry

INSTRUCTIONS = """You are a customer-service agent of an online store handling refund requests.
Always look up the order with lookup_order, then the policy of its category with
check_refund_policy, before concluding. Give your conclusion as a short summary of the facts
(product, amount, days since delivery, policy window and conditions) and whether a refund fits."""

DECIDE = """Customer request:
{request}

Facts gathered by the agent:
{facts}

Decide the refund. approve only if the policy allows it; deny if it clearly does not; escalate
to a human when the facts are ambiguous or missing. Give your confidence from 0 to 1 and a short,
polite reply to the customer in Portuguese."""


class RefundDecision(BaseModel):
    """The decision on one refund request."""

    decision: Literal["approve", "deny", "escalate"]
    refund_amount: float = Field(ge=0, description="Amount to refund; 0 unless approved.")
    confidence: float = Field(ge=0, le=1, description="How sure the decision is, 0 to 1.")
    reasons: list[str] = Field(default_factory=list, max_length=6)
    customer_reply: str = Field(min_length=1, description="Reply to the customer, in Portuguese.")


@dataclass
class RefundOutcome:
    """A decision and the trace of how it was reached."""

    decision: RefundDecision
    trace: Trace
    reflected: bool


def _escalate(reason: str) -> RefundDecision:
    return RefundDecision(
        decision="escalate",
        refund_amount=0.0,
        confidence=0.0,
        reasons=[reason],
        customer_reply="Recebemos seu pedido de reembolso e um atendente vai analisá-lo em breve.",
    )


class RefundAgent:
    """Combines ReAct (facts), structured output (decision) and Reflection (review)."""

    def __init__(
        self,
        model: ChatModel,
        tools: ToolRegistry,
        *,
        confidence_threshold: float = 0.75,
        critic_model: ChatModel | None = None,
    ) -> None:
        self.model = model
        self.tools = tools
        self.confidence_threshold = confidence_threshold
        self.critic_model = critic_model

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
            deadline=120,
            require_tool_first=True,  # never decide a refund without looking the order up
        )
        facts = await facts_agent.run(request, on_step=adopt("facts"))
        if facts.status is RunStatus.MODEL_ERROR or not facts.answer:
            decision = _escalate(
                f"could not gather the facts ({facts.status.value}: {facts.error})"
            )
            trace.finish(facts.status, decision.customer_reply, error=facts.error)
            return RefundOutcome(decision, trace, reflected=False)
        try:
            decision = await self._decide(request, facts.answer, trace)
            reflected = False
            if decision.confidence < self.confidence_threshold:
                decision = await self._reflect(request, facts.answer, decision, trace, adopt)
                reflected = True
        except ModelError as exc:
            decision = _escalate(f"the model failed while deciding: {exc}")
            trace.finish(RunStatus.MODEL_ERROR, decision.customer_reply, error=str(exc))
            return RefundOutcome(decision, trace, reflected=False)
        trace.finish(RunStatus.FINISHED, decision.customer_reply, stop_reason=decision.decision)
        return RefundOutcome(decision, trace, reflected)

    async def _decide(self, request: str, facts: str, trace: Trace) -> RefundDecision:
        prompt = DECIDE.format(request=request, facts=facts)
        result = await self.model.structured_result([Message.user(prompt)], RefundDecision)
        trace.add(
            "decision",
            thought=f"confidence {result.value.confidence:.2f}",
            observation=result.value.model_dump_json(),
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            latency_s=result.usage.latency_s,
            meta={"decision": result.value.decision},
        )
        return result.value

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
