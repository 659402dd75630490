"""The PostgreSQL server the tests use: ``COLMEIA_TEST_POSTGRES`` or the local one.

Tests that need it call ``pg_schema_url()`` (a fresh schema, dropped by ``drop_schema``) or skip
with the reason ``postgres_unreachable()`` gives. Nothing here runs at import time.
"""

from __future__ import annotations

import contextlib
import functools
import os
import uuid
from collections.abc import Iterator

PG_URL = os.environ.get("COLMEIA_TEST_POSTGRES", "").strip() or (
    "postgresql://postgres@127.0.0.1:5432/test"
)


@functools.cache
def postgres_unreachable() -> str | None:
    """``None`` if PostgreSQL answers, else the one-line reason to skip."""
    try:
        import psycopg

        with psycopg.connect(PG_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"PostgreSQL not reachable at {PG_URL} (set COLMEIA_TEST_POSTGRES): {first}"
    return None


def new_schema() -> str:
    """A unique schema name for one test."""
    return f"t_{uuid.uuid4().hex[:12]}"


def drop_schema(schema: str) -> None:
    """Drop a test's schema and everything in it."""
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@contextlib.contextmanager
def pg_schema_url() -> Iterator[str]:
    """A store/database URL on a fresh schema of its own, dropped afterwards; skips the test
    (with the reason) when PostgreSQL is not reachable."""
    import pytest

    reason = postgres_unreachable()
    if reason:
        pytest.skip(reason)
    schema = new_schema()
    try:
        yield f"{PG_URL}?schema={schema}"
    finally:
        drop_schema(schema)
