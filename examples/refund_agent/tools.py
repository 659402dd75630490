"""The example's tools: look up an order and check a refund policy, reading the SQLite file."""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

from colmeia.errors import ToolError
from colmeia.tools import ToolRegistry


def refund_tools(db_path: Path, today: date | None = None) -> ToolRegistry:
    """A registry with ``lookup_order`` and ``check_refund_policy`` over ``db_path``."""
    registry = ToolRegistry()

    def connect() -> sqlite3.Connection:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        db.row_factory = sqlite3.Row
        return db

    @registry.tool
    def lookup_order(order_id: str) -> str:
        """Look up a customer order: product, category, amount paid, delivery date and notes.

        Args:
            order_id: The order number, e.g. 1001.
        """
        key = order_id.strip().lstrip("#")
        with connect() as db:
            row = db.execute("SELECT * FROM orders WHERE order_id = ?", (key,)).fetchone()
        if row is None:
            raise ToolError(f"order {order_id!r} not found; order numbers have 4 digits, e.g. 1001")
        days = ((today or date.today()) - date.fromisoformat(row["delivered_on"])).days
        return (
            f"order {row['order_id']}: customer {row['customer']}; product {row['product']}; "
            f"category: {row['category']}; amount paid: {row['amount']:.2f}; "
            f"delivered {days} days ago ({row['delivered_on']}); note: {row['note']}"
        )

    @registry.tool
    def check_refund_policy(category: str) -> str:
        """The store's refund policy for a product category: the window in days and conditions.

        Args:
            category: The product category, as given by lookup_order (e.g. electronics).
        """
        with connect() as db:
            row = db.execute(
                "SELECT * FROM policies WHERE category = ?", (category.strip().lower(),)
            ).fetchone()
            if row is None:
                known = [r[0] for r in db.execute("SELECT category FROM policies ORDER BY 1")]
                raise ToolError(f"no policy for {category!r}; categories: {', '.join(known)}")
        return (
            f"policy for {row['category']}: window {row['window_days']} days. {row['conditions']}"
        )

    return registry
