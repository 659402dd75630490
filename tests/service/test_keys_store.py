"""API keys and web sign-ins as stored in the service tables (real SQLite, no server).

What an operator relies on: a key is shown once and kept only as a hash, a malformed, unknown,
wrong or revoked key is refused, a revoked key's sign-ins end with it, one tenant cannot revoke
another's key, and the limits given to ``colmeia keys create`` are checked and kept.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from colmeia.errors import ConfigurationError
from colmeia.service.db import Database, open_database
from colmeia.service.keys import (
    KeyInfo,
    create_key,
    create_session,
    delete_session,
    ensure_tenant,
    list_keys,
    revoke_key,
    session_key,
    validate_tenant,
    verify_key,
)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = open_database(f"sqlite:///{tmp_path / 'service.db'}")
    yield database
    database.close()


@pytest.mark.parametrize("tenant", ["a", "0", "acme", "tenant-b", "t_1", "a" * 32, "9-_"])
def test_tenant_ids_that_name_folders_and_schemas_are_accepted(tenant: str) -> None:
    assert validate_tenant(tenant) == tenant


@pytest.mark.parametrize(
    "tenant", ["", "a" * 33, "Acme", "-acme", "_acme", "ac me", "acme/..", "acmé", "acme\n"]
)
def test_other_tenant_ids_are_refused_saying_what_is_allowed(tenant: str) -> None:
    with pytest.raises(ConfigurationError) as err:
        validate_tenant(tenant)
    assert str(err.value) == (
        f"invalid tenant {tenant!r}: use 1-32 lowercase letters, digits, '-' or '_'"
    )


def test_ensure_tenant_creates_it_once_named_after_its_id_unless_named(db: Database) -> None:
    ensure_tenant(db, "acme")
    ensure_tenant(db, "globex", "Globex Ltda")
    ensure_tenant(db, "acme", "renamed later")  # already there: left as it was
    rows = db.query("SELECT id, name FROM tenants ORDER BY id")
    assert rows == [{"id": "acme", "name": "acme"}, {"id": "globex", "name": "Globex Ltda"}]
    with pytest.raises(ConfigurationError, match="invalid tenant 'Bad'"):
        ensure_tenant(db, "Bad")
    assert db.one("SELECT id FROM tenants WHERE id = 'Bad'") is None


def test_a_new_key_is_returned_once_and_stored_only_as_its_sha256(db: Database) -> None:
    before = time.time()
    info, plain = create_key(db, "acme", "  ci bot  ", rate_limit=1, token_quota=1)
    prefix, key_id, secret = plain.split("_", 2)
    assert (prefix, key_id) == ("cmk", info.id)
    assert len(key_id) == 12 and int(key_id, 16) >= 0
    assert len(secret) == 43  # 32 random bytes, URL-safe base64
    assert info == KeyInfo(info.id, "acme", "ci bot", "member", 1, 1, info.created_at)
    assert before <= info.created_at <= time.time()
    row = db.one("SELECT * FROM api_keys WHERE id = ?", (info.id,))
    assert row is not None
    assert row["secret_hash"] == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in str(row)
    assert (row["tenant_id"], row["name"], row["role"]) == ("acme", "ci bot", "member")
    assert (row["rate_limit"], row["token_quota"]) == (1, 1)
    assert (row["created_at"], row["last_used_at"], row["revoked_at"]) == (
        info.created_at,
        None,
        None,
    )
    assert db.one("SELECT name FROM tenants WHERE id = 'acme'") == {"name": "acme"}
    # the plain key is the one thing that finds it again
    assert verify_key(db, plain) == KeyInfo(
        info.id, "acme", "ci bot", "member", 1, 1, row["created_at"]
    )


def test_two_keys_never_share_an_id_or_a_secret(db: Database) -> None:
    (a, plain_a), (b, plain_b) = create_key(db, "acme", "a"), create_key(db, "acme", "b")
    assert a.id != b.id and plain_a.split("_", 2)[2] != plain_b.split("_", 2)[2]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"name": "   "}, "give the key a name that says who or what uses it"),
        ({"rate_limit": 0}, "--rate-limit must be at least 1 request per minute"),
        ({"rate_limit": -5}, "--rate-limit must be at least 1 request per minute"),
        ({"token_quota": 0}, "--token-quota must be at least 1 token"),
    ],
)
def test_a_key_without_a_name_or_with_a_limit_under_one_is_refused(
    db: Database, options: dict[str, object], message: str
) -> None:
    limits = {k: v for k, v in options.items() if k != "name"}
    with pytest.raises(ConfigurationError) as err:
        create_key(db, "acme", str(options.get("name", "ci")), **limits)  # type: ignore[arg-type]
    assert str(err.value) == message
    assert db.query("SELECT id FROM api_keys") == []
    assert db.query("SELECT id FROM tenants") == []


def test_an_admin_key_keeps_its_role_and_unlimited_keys_have_no_limits(db: Database) -> None:
    admin, plain = create_key(db, "acme", "ops", role="admin")
    assert (admin.role, admin.rate_limit, admin.token_quota) == ("admin", None, None)
    found = verify_key(db, plain)
    assert found is not None and found.role == "admin"
    assert found.rate_limit is None and found.token_quota is None
    # any role the table holds other than admin reads as a member
    db.execute("UPDATE api_keys SET role = 'owner' WHERE id = ?", (admin.id,))
    assert list_keys(db)[0].role == "member"


def test_keys_are_listed_oldest_first_per_tenant_or_by_tenant(db: Database) -> None:
    b1, _ = create_key(db, "globex", "first of globex")
    a1, _ = create_key(db, "acme", "first of acme")
    a2, _ = create_key(db, "acme", "second of acme")
    db.execute("UPDATE api_keys SET created_at = created_at - 100 WHERE id = ?", (a2.id,))
    assert [k.name for k in list_keys(db, "acme")] == ["second of acme", "first of acme"]
    assert [k.name for k in list_keys(db, "globex")] == ["first of globex"]
    assert [k.id for k in list_keys(db)] == [a2.id, a1.id, b1.id]
    assert list_keys(db, "nobody") == []


def test_a_listed_key_says_what_it_is_but_never_its_secret(db: Database) -> None:
    info, plain = create_key(db, "acme", "ci", rate_limit=30, token_quota=5000)
    (listed,) = list_keys(db, "acme")
    assert listed.active and listed.as_dict() == {
        "id": info.id,
        "tenant": "acme",
        "name": "ci",
        "role": "member",
        "rate_limit": 30,
        "token_quota": 5000,
        "created_at": info.created_at,
        "last_used_at": None,
        "revoked": False,
    }
    assert plain.split("_", 2)[2] not in str(listed.as_dict())
    assert revoke_key(db, info.id)
    (revoked,) = list_keys(db, "acme")
    assert not revoked.active and revoked.as_dict()["revoked"] is True


@pytest.mark.parametrize(
    "presented",
    [
        "",
        "cmk_nope",
        "cmk_0123456789ab_" + "x" * 19,  # secret too short to be one
        "cmk_0123456789ab_" + "x" * 101,
        "cmk_0123456789AB_" + "x" * 43,  # ids are lowercase hex
        "cmk_0123456789a_" + "x" * 43,
        "cmk_0123456789ab_" + "x" * 42 + "!",
        "xcmk_0123456789ab_" + "x" * 43,
    ],
)
def test_a_malformed_key_is_refused(db: Database, presented: str) -> None:
    assert verify_key(db, presented) is None


def test_a_key_is_refused_with_a_wrong_secret_an_unknown_id_or_once_revoked(db: Database) -> None:
    info, plain = create_key(db, "acme", "ci")
    secret = plain.split("_", 2)[2]
    assert verify_key(db, f"  {plain}\n") is not None  # pasted with blanks around it
    assert verify_key(db, plain[:-1] + ("A" if plain[-1] != "A" else "B")) is None
    assert verify_key(db, f"cmk_{'0' * 12}_{secret}") is None
    # a secret of the accepted lengths, but not this key's
    assert verify_key(db, f"cmk_{info.id}_{'y' * 20}") is None
    assert verify_key(db, f"cmk_{info.id}_{'y' * 100}") is None
    assert revoke_key(db, info.id)
    assert verify_key(db, plain) is None


def test_last_use_is_written_at_most_once_a_minute(db: Database) -> None:
    info, plain = create_key(db, "acme", "ci")

    def last_used() -> float | None:
        row = db.one("SELECT last_used_at FROM api_keys WHERE id = ?", (info.id,))
        assert row is not None
        return row["last_used_at"]  # type: ignore[no-any-return]

    assert list_keys(db)[0].last_used_at is None
    start = time.time()
    verify_key(db, plain)
    first = last_used()
    assert first is not None and start <= first <= time.time()
    (listed,) = list_keys(db)
    assert listed.last_used_at == first and listed.as_dict()["last_used_at"] == first
    assert verify_key(db, plain) is not None
    assert last_used() == first
    # 59.5 s ago is within the minute: not rewritten
    db.execute("UPDATE api_keys SET last_used_at = ? WHERE id = ?", (time.time() - 59.5, info.id))
    seen = last_used()
    verify_key(db, plain)
    assert last_used() == seen
    # 60.5 s ago is not
    db.execute("UPDATE api_keys SET last_used_at = ? WHERE id = ?", (time.time() - 60.5, info.id))
    before = time.time()
    verify_key(db, plain)
    rewritten = last_used()
    assert rewritten is not None and rewritten >= before


def test_revoking_is_once_and_only_within_the_given_tenant(db: Database) -> None:
    info, plain = create_key(db, "acme", "ci")
    assert revoke_key(db, info.id, tenant="globex") is False
    assert verify_key(db, plain) is not None
    before = time.time()
    assert revoke_key(db, info.id, tenant="acme") is True
    row = db.one("SELECT revoked_at FROM api_keys WHERE id = ?", (info.id,))
    assert row is not None and before <= row["revoked_at"] <= time.time()
    assert revoke_key(db, info.id) is False
    assert revoke_key(db, "000000000000") is False


def test_a_sign_in_lasts_its_hours_and_ends_with_sign_out(db: Database) -> None:
    info, _ = create_key(db, "acme", "ci", role="admin")
    before = time.time()
    token = create_session(db, info, hours=2)
    assert len(token) == 43  # 32 random bytes, URL-safe base64
    (row,) = db.query("SELECT * FROM web_sessions")
    assert row["token_hash"] == hashlib.sha256(token.encode()).hexdigest()
    assert row["key_id"] == info.id
    assert before <= row["created_at"] <= time.time()
    assert row["expires_at"] - row["created_at"] == pytest.approx(7200)
    found = session_key(db, token)
    assert found is not None and (found.id, found.role) == (info.id, "admin")
    assert session_key(db, token + "x") is None
    assert session_key(db, "") is None
    delete_session(db, token)
    assert session_key(db, token) is None
    assert db.query("SELECT * FROM web_sessions") == []


def test_an_expired_sign_in_is_refused_and_cleared_by_the_next_one(db: Database) -> None:
    info, _ = create_key(db, "acme", "ci")
    old = create_session(db, info, hours=-0.001)
    assert session_key(db, old) is None
    assert len(db.query("SELECT * FROM web_sessions")) == 1
    new = create_session(db, info, hours=1)
    (row,) = db.query("SELECT token_hash FROM web_sessions")
    assert row["token_hash"] == hashlib.sha256(new.encode()).hexdigest()
    # a sign-in still valid is kept when another starts
    create_session(db, info, hours=1)
    assert len(db.query("SELECT * FROM web_sessions")) == 2


def test_revoking_a_key_ends_its_sign_ins_but_not_other_keys(db: Database) -> None:
    gone, _ = create_key(db, "acme", "leaving")
    stays, _ = create_key(db, "acme", "staying")
    token_gone = create_session(db, gone, hours=1)
    token_stays = create_session(db, stays, hours=1)
    assert revoke_key(db, gone.id)
    assert session_key(db, token_gone) is None
    assert db.query("SELECT key_id FROM web_sessions") == [{"key_id": stays.id}]
    assert session_key(db, token_stays) is not None
    # a sign-in whose key is revoked behind its back (another process) is refused too
    db.execute("UPDATE api_keys SET revoked_at = 1 WHERE id = ?", (stays.id,))
    assert session_key(db, token_stays) is None
