"""Tenants and their API keys. Only a hash of each key's secret is kept.

A key reads ``cmk_<id>_<secret>``: the id finds the row, the secret (32 random bytes) is checked
against its SHA-256 in constant time. Keys are random, not passwords, so a slow hash would add
latency to every request without making a guess any likelier. Web sign-ins are random tokens
stored the same way.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any, Literal

from colmeia.errors import ConfigurationError
from colmeia.service.db import Database

__all__ = [
    "KeyInfo",
    "Role",
    "create_key",
    "create_session",
    "delete_session",
    "ensure_tenant",
    "list_keys",
    "revoke_key",
    "session_key",
    "validate_tenant",
    "verify_key",
]

Role = Literal["member", "admin"]
_TENANT = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_KEY = re.compile(r"cmk_([0-9a-f]{12})_([A-Za-z0-9_-]{20,100})")


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """An API key as stored (never its secret)."""

    id: str
    tenant_id: str
    name: str
    role: Role
    rate_limit: int | None
    token_quota: int | None
    created_at: float
    last_used_at: float | None = None
    revoked_at: float | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tenant": self.tenant_id,
            "name": self.name,
            "role": self.role,
            "rate_limit": self.rate_limit,
            "token_quota": self.token_quota,
            "created_at": self.created_at,
            "last_used_at": self.last_used_at,
            "revoked": self.revoked_at is not None,
        }


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _info(row: dict[str, Any]) -> KeyInfo:
    return KeyInfo(
        id=row["id"],
        tenant_id=row["tenant_id"],
        name=row["name"],
        role="admin" if row["role"] == "admin" else "member",
        rate_limit=row["rate_limit"],
        token_quota=row["token_quota"],
        created_at=row["created_at"],
        last_used_at=row["last_used_at"],
        revoked_at=row["revoked_at"],
    )


def validate_tenant(tenant: str) -> str:
    """Tenant ids name folders and schemas: 1-32 of a-z, 0-9, '-' and '_'."""
    if not _TENANT.fullmatch(tenant or ""):
        raise ConfigurationError(
            f"invalid tenant {tenant!r}: use 1-32 lowercase letters, digits, '-' or '_'"
        )
    return tenant


def ensure_tenant(db: Database, tenant: str, name: str = "") -> None:
    """Create the tenant if it does not exist."""
    validate_tenant(tenant)
    if db.one("SELECT id FROM tenants WHERE id = ?", (tenant,)) is None:
        db.execute(
            "INSERT INTO tenants(id, name, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (tenant, name or tenant, time.time()),
        )


def create_key(
    db: Database,
    tenant: str,
    name: str,
    *,
    role: Role = "member",
    rate_limit: int | None = None,
    token_quota: int | None = None,
) -> tuple[KeyInfo, str]:
    """A new key for ``tenant`` (created if needed); the plain key is returned only here."""
    if not name.strip():
        raise ConfigurationError("give the key a name that says who or what uses it")
    if rate_limit is not None and rate_limit < 1:
        raise ConfigurationError("--rate-limit must be at least 1 request per minute")
    if token_quota is not None and token_quota < 1:
        raise ConfigurationError("--token-quota must be at least 1 token")
    key_id = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    now = time.time()
    with db.transaction():
        ensure_tenant(db, tenant)
        db.execute(
            "INSERT INTO api_keys(id, tenant_id, name, secret_hash, role, rate_limit, token_quota,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (key_id, tenant, name.strip(), _hash(secret), role, rate_limit, token_quota, now),
        )
    info = KeyInfo(key_id, tenant, name.strip(), role, rate_limit, token_quota, now)
    return info, f"cmk_{key_id}_{secret}"


def list_keys(db: Database, tenant: str | None = None) -> list[KeyInfo]:
    """Every key (of one tenant, if given), oldest first."""
    if tenant:
        rows = db.query("SELECT * FROM api_keys WHERE tenant_id = ? ORDER BY created_at", (tenant,))
    else:
        rows = db.query("SELECT * FROM api_keys ORDER BY tenant_id, created_at")
    return [_info(r) for r in rows]


def revoke_key(db: Database, key_id: str, *, tenant: str | None = None) -> bool:
    """Revoke a key now (its sign-ins end too); ``False`` if no such active key."""
    with db.transaction():
        sql = "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"
        params: tuple[Any, ...] = (time.time(), key_id)
        if tenant is not None:
            sql += " AND tenant_id = ?"
            params = (*params, tenant)
        changed = db.execute(sql, params) > 0
        if changed:
            db.execute("DELETE FROM web_sessions WHERE key_id = ?", (key_id,))
    return changed


def verify_key(db: Database, presented: str) -> KeyInfo | None:
    """The active key ``presented`` is, or ``None``."""
    m = _KEY.fullmatch(presented.strip())
    if not m:
        return None
    row = db.one("SELECT * FROM api_keys WHERE id = ?", (m.group(1),))
    if row is None or row["revoked_at"] is not None:
        return None
    if not hmac.compare_digest(row["secret_hash"], _hash(m.group(2))):
        return None
    now = time.time()
    if row["last_used_at"] is None or now - float(row["last_used_at"]) > 60:
        db.execute("UPDATE api_keys SET last_used_at = ? WHERE id = ?", (now, row["id"]))
    return _info(row)


def create_session(db: Database, key: KeyInfo, hours: float) -> str:
    """A web sign-in for ``key``: a random token to put in a cookie."""
    token = secrets.token_urlsafe(32)
    now = time.time()
    db.execute("DELETE FROM web_sessions WHERE expires_at < ?", (now,))
    db.execute(
        "INSERT INTO web_sessions(token_hash, key_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
        (_hash(token), key.id, now, now + hours * 3600),
    )
    return token


def session_key(db: Database, token: str) -> KeyInfo | None:
    """The active key behind a web sign-in token, or ``None`` when unknown or expired."""
    row = db.one(
        "SELECT k.* FROM web_sessions s JOIN api_keys k ON k.id = s.key_id"
        " WHERE s.token_hash = ? AND s.expires_at > ? AND k.revoked_at IS NULL",
        (_hash(token), time.time()),
    )
    return _info(row) if row else None


def delete_session(db: Database, token: str) -> None:
    """Sign out."""
    db.execute("DELETE FROM web_sessions WHERE token_hash = ?", (_hash(token),))
