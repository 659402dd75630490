"""The audit log: who did what, when, with what result. Append-only; read per tenant."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any

import orjson

from colmeia.service.db import Database

__all__ = ["count_refusals", "entries", "record"]


def record(
    db: Database,
    *,
    tenant: str,
    actor: str,
    action: str,
    target: str = "",
    status: int = 0,
    request_id: str = "",
    detail: Mapping[str, Any] | None = None,
) -> None:
    """Append one entry."""
    db.execute(
        "INSERT INTO audit_log(id, ts, tenant_id, actor, action, target, status, request_id,"
        " detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            uuid.uuid4().hex,
            time.time(),
            tenant,
            actor,
            action,
            target[:500],
            status,
            request_id,
            orjson.dumps(dict(detail or {}), default=str).decode(),
        ),
    )


def count_refusals(
    db: Database,
    row_id: str,
    *,
    client: str,
    count: int,
    status: int,
    target: str,
    request_id: str,
) -> None:
    """Create or bring up to date the one row counting a client address's refused requests
    (bad or missing credentials, throttled) in a window; ``row_id`` names the window."""
    detail = orjson.dumps({"refused": count, "client": client}).decode()
    changed = db.execute(
        "UPDATE audit_log SET detail = ?, status = ?, ts = ? WHERE id = ?",
        (detail, status, time.time(), row_id),
    )
    if not changed:
        db.execute(
            "INSERT INTO audit_log(id, ts, tenant_id, actor, action, target, status, request_id,"
            " detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                row_id,
                time.time(),
                "",
                "anonymous",
                "refused requests",
                target[:500],
                status,
                request_id,
                detail,
            ),
        )


def entries(
    db: Database, tenant: str, *, limit: int = 100, actor: str | None = None
) -> list[dict[str, Any]]:
    """The tenant's newest entries first."""
    sql = "SELECT * FROM audit_log WHERE tenant_id = ?"
    params: list[Any] = [tenant]
    if actor:
        sql += " AND actor = ?"
        params.append(actor)
    rows = db.query(sql + " ORDER BY ts DESC LIMIT ?", (*params, limit))
    for row in rows:
        row["detail"] = orjson.loads(row["detail"] or "{}")
        row["tenant"] = row.pop("tenant_id")
    return rows
