"""The example's tools over its SQLite file: the order (with its customer), the shipment's
tracking events and the refund policy of a category. The guardrails read the same records
through :func:`read_order` and :func:`read_policy`, never through what the model said."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from colmeia.errors import ToolError
from colmeia.tools import ToolRegistry


@dataclass(frozen=True, slots=True)
class OrderRecord:
    """One order as the database has it; ``customer_name``/``email`` are ``None`` when the
    order's customer does not exist."""

    order_id: str
    customer_id: str
    customer_name: str | None
    email: str | None
    product: str
    category: str
    amount: float
    delivered_on: date
    note: str
    days_since_delivery: int
    used_percent: float = 0.0


@dataclass(frozen=True, slots=True)
class Policy:
    category: str
    window_days: int
    conditions: str
    max_used_percent: float | None = None  # the conditions' limit on use, for the guardrail


def _connect(db_path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    return db


def _key(order_id: str) -> str:
    return str(order_id).strip().lstrip("#")


def read_order(db_path: Path, order_id: str, today: date | None = None) -> OrderRecord | None:
    """The order ``order_id`` and its customer, or ``None`` when there is no such order."""
    with _connect(db_path) as db:
        row = db.execute(
            "SELECT o.*, c.name AS customer_name, c.email FROM orders o "
            "LEFT JOIN customers c ON c.customer_id = o.customer_id WHERE o.order_id = ?",
            (_key(order_id),),
        ).fetchone()
    if row is None:
        return None
    delivered = date.fromisoformat(row["delivered_on"])
    return OrderRecord(
        order_id=row["order_id"],
        customer_id=row["customer_id"],
        customer_name=row["customer_name"],
        email=row["email"],
        product=row["product"],
        category=row["category"],
        amount=float(row["amount"]),
        delivered_on=delivered,
        note=row["note"],
        days_since_delivery=((today or date.today()) - delivered).days,
        used_percent=float(row["used_percent"]),
    )


def read_policy(db_path: Path, category: str) -> Policy | None:
    with _connect(db_path) as db:
        row = db.execute(
            "SELECT * FROM policies WHERE category = ?", (category.strip().lower(),)
        ).fetchone()
    if row is None:
        return None
    return Policy(row["category"], row["window_days"], row["conditions"], row["max_used_percent"])


def refund_tools(db_path: Path, today: date | None = None) -> ToolRegistry:
    """``lookup_order``, ``track_shipment`` and ``check_refund_policy`` over ``db_path``."""
    registry = ToolRegistry()

    @registry.tool
    def lookup_order(order_id: str) -> str:
        """Look up a customer order: customer and e-mail, product, category, amount paid,
        delivery date and notes.

        Args:
            order_id: The order number, e.g. 1001.
        """
        order = read_order(db_path, order_id, today)
        if order is None:
            raise ToolError(f"order {order_id!r} not found; order numbers have 4 digits, e.g. 1001")
        customer = (
            f"customer {order.customer_name} <{order.email}> ({order.customer_id})"
            if order.email
            else f"customer {order.customer_id}: NOT FOUND in the customer records"
        )
        return (
            f"order {order.order_id}: {customer}; product {order.product}; "
            f"category: {order.category}; amount paid: {order.amount:.2f}; "
            f"delivered {order.days_since_delivery} days ago ({order.delivered_on}); "
            f"note: {order.note}"
        )

    @registry.tool
    def track_shipment(order_id: str) -> str:
        """The shipment's tracking events of an order (posted, in transit, delivered), oldest
        first.

        Args:
            order_id: The order number, e.g. 1001.
        """
        with _connect(db_path) as db:
            rows = db.execute(
                "SELECT happened_on, event FROM shipments WHERE order_id = ? ORDER BY happened_on",
                (_key(order_id),),
            ).fetchall()
        if not rows:
            raise ToolError(
                f"no shipment for order {order_id!r} (a digital product, or no such order)"
            )
        return f"order {_key(order_id)}: " + "; ".join(f"{r[0]} {r[1]}" for r in rows)

    @registry.tool
    def check_refund_policy(category: str) -> str:
        """The store's refund policy for a product category: the window in days and conditions.

        Args:
            category: The product category, as given by lookup_order (e.g. electronics).
        """
        policy = read_policy(db_path, category)
        if policy is None:
            with _connect(db_path) as db:
                known = [r[0] for r in db.execute("SELECT category FROM policies ORDER BY 1")]
            raise ToolError(f"no policy for {category!r}; categories: {', '.join(known)}")
        return (
            f"policy for {policy.category}: window {policy.window_days} days. {policy.conditions}"
        )

    return registry
