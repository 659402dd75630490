"""The example's data: a small SQLite file of customers, orders, shipments and refund policies,
created on demand. Dates are relative to "today", so the cases stay the same whatever the day."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta
from pathlib import Path

# (customer_id, name, e-mail)
CUSTOMERS = [
    ("C-01", "Ana Souza", "ana.souza@example.com"),
    ("C-02", "Bruno Lima", "bruno.lima@example.com"),
    ("C-03", "Carla Dias", "carla.dias@example.com"),
    ("C-04", "Diego Rocha", "diego.rocha@example.com"),
    ("C-06", "Fernanda Alves", "fernanda.alves@example.com"),
]

# (order_id, customer_id, product, category, amount paid, days since delivery, note, share of
# the product used in percent — what the policies' conditions are checked against in code)
ORDERS = [
    ("1001", "C-01", "Fone de ouvido Bluetooth", "electronics", 299.90, 5, "unopened", 0),
    ("1002", "C-02", "Curso online de Python", "digital", 199.00, 2, "accessed 60% of lessons", 60),
    ("1003", "C-03", "Camiseta estampada", "clothing", 59.90, 45, "used", 100),
    (
        "1004",
        "C-04",
        "Cafeteira elétrica",
        "appliances",
        459.00,
        12,
        "customer reports it stopped heating",
        100,
    ),
    # its customer record was deleted: no refund can be paid to nobody
    ("1005", "C-05", "Mochila de viagem", "clothing", 189.90, 3, "unused, with tags", 0),
    # above the approval threshold: a person must approve the refund
    ("1006", "C-06", "Notebook 14 polegadas", "electronics", 3499.00, 6, "unopened", 0),
]

# (order_id, days before today, tracking event)
SHIPMENTS = [
    ("1001", 9, "posted"),
    ("1001", 5, "delivered to the customer"),
    ("1003", 50, "posted"),
    ("1003", 45, "delivered to the customer"),
    ("1004", 15, "posted"),
    ("1004", 12, "delivered to the customer"),
    ("1005", 6, "posted"),
    ("1005", 3, "delivered to the customer"),
    ("1006", 8, "posted"),
    ("1006", 6, "delivered to the customer"),
]

# (category, window in days, conditions as the customer reads them, the most of the product
# that may have been used in percent — the condition in a form code can check; None: no limit)
POLICIES = [
    (
        "electronics",
        30,
        "Full refund within 30 days of delivery if the product is returned in its packaging.",
        None,
    ),
    (
        "digital",
        7,
        "Refund within 7 days of purchase only if less than 20% of the content was accessed.",
        19,  # uses are recorded in whole percents: "less than 20%" is at most 19
    ),
    ("clothing", 30, "Refund within 30 days of delivery for unused items with tags.", 0),
    (
        "appliances",
        30,
        "Refund within 30 days of delivery; defects are covered by the 90-day legal warranty "
        "(repair, replacement or refund).",
        None,
    ),
]

SCHEMA = """
CREATE TABLE IF NOT EXISTS customers (
    customer_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS orders (
    order_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, product TEXT NOT NULL,
    category TEXT NOT NULL, amount REAL NOT NULL, delivered_on TEXT NOT NULL, note TEXT NOT NULL,
    used_percent REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS shipments (
    order_id TEXT NOT NULL, happened_on TEXT NOT NULL, event TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS policies (
    category TEXT PRIMARY KEY, window_days INTEGER NOT NULL, conditions TEXT NOT NULL,
    max_used_percent REAL
);
"""


def create_database(path: Path, today: date | None = None) -> Path:
    """Create (or refresh) the example database at ``path``; dates are relative to ``today``."""
    day = today or date.today()
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        # an older copy of the example had another layout: start from the current one
        db.executescript(
            "DROP TABLE IF EXISTS orders; DROP TABLE IF EXISTS customers; "
            "DROP TABLE IF EXISTS shipments; DROP TABLE IF EXISTS policies;"
        )
        db.executescript(SCHEMA)
        db.executemany("INSERT INTO customers VALUES (?, ?, ?)", CUSTOMERS)
        db.executemany(
            "INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    oid,
                    cid,
                    product,
                    cat,
                    amount,
                    (day - timedelta(days=ago)).isoformat(),
                    note,
                    used,
                )
                for oid, cid, product, cat, amount, ago, note, used in ORDERS
            ],
        )
        db.executemany(
            "INSERT INTO shipments VALUES (?, ?, ?)",
            [(oid, (day - timedelta(days=ago)).isoformat(), ev) for oid, ago, ev in SHIPMENTS],
        )
        db.executemany("INSERT INTO policies VALUES (?, ?, ?, ?)", POLICIES)
    return path
