"""Rules checked in code before a refund decision takes effect.

The model proposes; these rules, reading the database and not the model's words, decide whether
the proposal may stand. Each broken rule is a :class:`Violation` naming the rule, so the agent can
send it back to the model (reflection) or to a person (escalation) with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from examples.refund_agent.tools import read_order, read_policy

if TYPE_CHECKING:
    from examples.refund_agent.agent import RefundDecision

#: Refunds above this many reais need a person's approval before they are paid.
APPROVAL_THRESHOLD = 1000.0

RULES = {
    "order_exists": "the order must exist",
    "customer_exists": "the order's customer must exist",
    "refund_within_paid": "the refund cannot exceed the amount paid",
    "inside_policy_window": "a refund is approved only inside the window the policy states",
    "policy_conditions": "a refund is approved only if the order meets the policy's conditions "
    "(e.g. less than 20% of a digital product used)",
    "approval_above_threshold": "a refund above the threshold needs a person's approval",
}


@dataclass(frozen=True, slots=True)
class Violation:
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}"


def check_decision(
    decision: RefundDecision, db_path: Path, today: date | None = None
) -> list[Violation]:
    """Every rule ``decision`` breaks (an empty list: it may take effect, subject to approval).

    A denial or an escalation moves no money: only the order must exist for it to be sent.
    """
    order = read_order(db_path, decision.order_id, today)
    if order is None:
        return [Violation("order_exists", f"order {decision.order_id!r} does not exist")]
    if decision.decision != "approve":
        return []
    found: list[Violation] = []
    if order.email is None:
        found.append(
            Violation(
                "customer_exists",
                f"order {order.order_id}'s customer {order.customer_id} does not exist",
            )
        )
    if decision.refund_amount > order.amount + 0.005:
        found.append(
            Violation(
                "refund_within_paid",
                f"refund R$ {decision.refund_amount:.2f} is more than the R$ {order.amount:.2f} "
                f"paid for order {order.order_id}",
            )
        )
    policy = read_policy(db_path, order.category)
    if policy is not None and order.days_since_delivery > policy.window_days:
        found.append(
            Violation(
                "inside_policy_window",
                f"order {order.order_id} was delivered {order.days_since_delivery} days ago; "
                f"the {policy.category} policy allows {policy.window_days} days",
            )
        )
    limit = policy.max_used_percent if policy is not None else None
    if policy is not None and limit is not None and order.used_percent > limit:
        found.append(
            Violation(
                "policy_conditions",
                f"order {order.order_id} is {order.used_percent:g}% used; the {policy.category} "
                f"policy refunds only up to {limit:g}% used ({policy.conditions})",
            )
        )
    return found


def needs_approval(decision: RefundDecision, threshold: float = APPROVAL_THRESHOLD) -> bool:
    """Whether a person must approve ``decision`` before it is paid."""
    return decision.decision == "approve" and decision.refund_amount > threshold
