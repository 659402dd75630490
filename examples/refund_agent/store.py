"""The example's data: a small SQLite file of orders and refund policies, created on demand."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta
from pathlib import Path

# (order_id, customer, product, category, amount, days since delivery, note)
ORDERS = [
    ("1001", "Ana Souza", "Fone de ouvido Bluetooth", "electronics", 299.90, 5, "unopened"),
    (
        "1002",
        "Bruno Lima",
        "Curso online de Python",
        "digital",
        199.00,
        2,
        "accessed 60% of lessons",
    ),
    ("1003", "Carla Dias", "Camiseta estampada", "clothing", 59.90, 45, "used"),
    (
        "1004",
        "Diego Rocha",
        "Cafeteira elétrica",
        "appliances",
        459.00,
        12,
        "customer reports it stopped heating",
    ),
]

# (category, window in days, conditions)
POLICIES = [
    (
        "electronics",
        30,
        "Full refund within 30 days of delivery if the product is returned in its packaging.",
    ),
    (
        "digital",
        7,
        "Refund within 7 days of purchase only if less than 20% of the content was accessed.",
    ),
    ("clothing", 30, "Refund within 30 days of delivery for unused items with tags."),
    (
        "appliances",
        30,
        "Refund within 30 days of delivery; defects are covered by the 90-day legal warranty (repair, replacement or refund).",
    ),
]

SCHEMA = """
CREATE TABLE IF NOT EXISTS orders (
    order_id TEXT PRIMARY KEY, customer TEXT NOT NULL, product TEXT NOT NULL,
    category TEXT NOT NULL, amount REAL NOT NULL, delivered_on TEXT NOT NULL, note TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS policies (
    category TEXT PRIMARY KEY, window_days INTEGER NOT NULL, conditions TEXT NOT NULL
);
"""


def create_database(path: Path, today: date | None = None) -> Path:
    """Create (or refresh) the example database at ``path``; delivery dates are relative to today."""
    day = today or date.today()
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA)
        db.executemany(
            "INSERT OR REPLACE INTO orders VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    oid,
                    customer,
                    product,
                    category,
                    amount,
                    (day - timedelta(days=ago)).isoformat(),
                    note,
                )
                for oid, customer, product, category, amount, ago, note in ORDERS
            ],
        )
        db.executemany("INSERT OR REPLACE INTO policies VALUES (?, ?, ?)", POLICIES)
    return path
