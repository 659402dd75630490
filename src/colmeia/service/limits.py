"""Per-key request rate limits and model-token quotas, in Redis, the service tables or this
process.

Both are fixed windows: at most N requests per minute, at most T tokens per quota window. A
refused request learns how many seconds remain in the window (the ``Retry-After`` it gets).
With Redis every process of a deployment shares every counter. Without it the token quotas
live in the service's tables (SQLite or PostgreSQL: every process using them shares them, each
change one atomic upsert) and the per-minute request counts in each process.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass
from typing import Any, Protocol

from colmeia.errors import StoreError
from colmeia.service.db import Database

__all__ = [
    "Counters",
    "DatabaseCounters",
    "LimitDecision",
    "Limiter",
    "MemoryCounters",
    "RedisCounters",
    "Reservation",
]


class Counters(Protocol):
    """Counters that expire with their window."""

    async def incr(self, key: str, amount: int, ttl_s: int) -> int:
        """Add ``amount`` (creating the counter with ``ttl_s``); the new value."""
        ...

    async def get(self, key: str) -> int:
        """The counter's value (0 when absent)."""
        ...

    async def ping(self) -> None:
        """Raise :class:`StoreError` when the backend cannot be used."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


class MemoryCounters:
    """Counters in this process (a dict swept of expired windows now and then)."""

    def __init__(self) -> None:
        self._values: dict[str, tuple[int, float]] = {}
        self._lock = asyncio.Lock()
        self._swept = time.monotonic()

    async def incr(self, key: str, amount: int, ttl_s: int) -> int:
        async with self._lock:
            now = time.monotonic()
            if now - self._swept > 60:
                self._values = {k: v for k, v in self._values.items() if v[1] > now}
                self._swept = now
            value, expires = self._values.get(key, (0, now + ttl_s))
            if expires <= now:
                value, expires = 0, now + ttl_s
            value += amount
            self._values[key] = (value, expires)
            return value

    async def get(self, key: str) -> int:
        value, expires = self._values.get(key, (0, 0.0))
        return value if expires > time.monotonic() else 0

    async def ping(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


class DatabaseCounters:
    """Counters in the service tables (``counters``), shared by every process using them.

    An add is one ``INSERT … ON CONFLICT DO UPDATE … RETURNING`` statement, atomic in SQLite
    (one writer at a time) and in PostgreSQL (the conflicting row is locked), so concurrent
    adds, from this process or another, each see the total including their own and no other
    add's half. Expired rows are swept now and then.
    """

    _ADD = (
        "INSERT INTO counters (name, value, expires_at) VALUES (?, ?, ?) "
        "ON CONFLICT (name) DO UPDATE SET "
        "value = CASE WHEN counters.expires_at <= ? THEN excluded.value "
        "ELSE counters.value + excluded.value END, "
        "expires_at = CASE WHEN counters.expires_at <= ? THEN excluded.expires_at "
        "ELSE counters.expires_at END "
        "RETURNING value"
    )

    def __init__(self, db: Database) -> None:
        self.db = db
        self._swept = 0.0

    def _incr(self, key: str, amount: int, ttl_s: int) -> int:
        now = time.time()
        if now - self._swept > 60:
            self._swept = now
            self.db.execute("DELETE FROM counters WHERE expires_at <= ?", (now,))
        rows = self.db.query(self._ADD, (key, amount, now + ttl_s, now, now))
        return int(rows[0]["value"])

    async def incr(self, key: str, amount: int, ttl_s: int) -> int:
        return await asyncio.to_thread(self._incr, key, amount, ttl_s)

    async def get(self, key: str) -> int:
        row = await asyncio.to_thread(
            self.db.one,
            "SELECT value FROM counters WHERE name = ? AND expires_at > ?",
            (key, time.time()),
        )
        return int(row["value"]) if row else 0

    async def ping(self) -> None:
        await asyncio.to_thread(self.db.one, "SELECT 1 AS ok FROM counters LIMIT 1")

    async def aclose(self) -> None:
        return None  # the tables belong to the service


class RedisCounters:
    """Counters in Redis, under ``prefix`` so several deployments can share one server."""

    def __init__(self, url: str, prefix: str) -> None:
        import redis.asyncio as aioredis

        self.url = url
        self.prefix = prefix
        # a reply read late is not a failure: a replica's event loop busy with thirty requests
        # on two loaded cores read a quota counter after 2 s and refused a paid request (seen
        # at load 8); a server that is down still fails at connect, within 2 s
        self._redis: Any = aioredis.from_url(url, socket_timeout=5.0, socket_connect_timeout=2.0)

    async def _do(self, coro: Any) -> Any:
        import redis

        try:
            return await coro
        except (redis.RedisError, OSError) as exc:
            raise StoreError(
                f"Redis at {self.url} failed: {exc}; check COLMEIA_SERVICE_REDIS_URL"
            ) from exc

    async def incr(self, key: str, amount: int, ttl_s: int) -> int:
        full = self.prefix + key

        async def run() -> int:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.incrby(full, amount)
                pipe.expire(full, ttl_s, nx=True)
                value, _ = await pipe.execute()
            return int(value)

        return int(await self._do(run()))

    async def get(self, key: str) -> int:
        value = await self._do(self._redis.get(self.prefix + key))
        return int(value) if value is not None else 0

    async def ping(self) -> None:
        await self._do(self._redis.ping())

    async def aclose(self) -> None:
        await self._redis.aclose()


@dataclass(frozen=True, slots=True)
class LimitDecision:
    """Whether a request may go on; if not, why and how long to wait."""

    allowed: bool
    reason: str = ""
    retry_after_s: int = 0
    limit: int = 0
    remaining: int = 0


@dataclass(frozen=True, slots=True)
class Reservation:
    """Tokens held from a key's quota window while its request runs."""

    counter: str
    tokens: int
    ttl_s: int


class Limiter:
    """Checks and counts requests and tokens per API key.

    ``counters`` count requests (and failed sign-ins); ``quota_counters`` (default: the same)
    hold the token quotas, which must be shared by every process of a deployment.
    """

    def __init__(
        self,
        counters: Counters,
        *,
        quota_window_s: int,
        quota_counters: Counters | None = None,
    ) -> None:
        self.counters = counters
        self.quota_counters = quota_counters or counters
        self.quota_window_s = quota_window_s

    @staticmethod
    def _window(length: int, now: float) -> tuple[int, int]:
        index = int(now // length)
        left = max(1, math.ceil((index + 1) * length - now))
        return index, left

    async def request(self, key_id: str, per_minute: int) -> LimitDecision:
        """Count one request; refused when it is over ``per_minute`` in this minute."""
        index, left = self._window(60, time.time())
        used = await self.counters.incr(f"rl:{key_id}:{index}", 1, 61)
        if used > per_minute:
            return LimitDecision(False, "rate limit", left, per_minute, 0)
        return LimitDecision(True, limit=per_minute, remaining=per_minute - used)

    async def quota(self, key_id: str, quota: int) -> LimitDecision:
        """Refused when the key used its whole token quota in this window."""
        index, left = self._window(self.quota_window_s, time.time())
        used = await self.quota_counters.get(f"q:{key_id}:{index}")
        if used >= quota:
            return LimitDecision(False, "token quota", left, quota, 0)
        return LimitDecision(True, limit=quota, remaining=quota - used)

    async def reserve(
        self, key_id: str, quota: int, tokens: int
    ) -> tuple[LimitDecision, Reservation | None]:
        """Hold ``tokens`` (a request's most) of the key's quota before its model calls, or
        refuse when they do not fit in what is left. One atomic add on the shared counter:
        concurrent requests cannot all see the same room, so together they never hold more
        than the quota (a refused hold is taken back at once)."""
        tokens = max(1, min(tokens, quota))
        index, left = self._window(self.quota_window_s, time.time())
        counter = f"q:{key_id}:{index}"
        ttl = self.quota_window_s + 1
        used = await self.quota_counters.incr(counter, tokens, ttl)
        if used > quota:
            await self.quota_counters.incr(counter, -tokens, ttl)
            return LimitDecision(
                False, "token quota", left, quota, max(0, quota - used + tokens)
            ), None
        return LimitDecision(True, limit=quota, remaining=quota - used), Reservation(
            counter, tokens, ttl
        )

    async def settle(self, reservation: Reservation, tokens: int) -> None:
        """Replace the hold by what the request used (given back or, rarely, charged more)."""
        if tokens != reservation.tokens:
            await self.quota_counters.incr(
                reservation.counter, tokens - reservation.tokens, reservation.ttl_s
            )

    async def spend(self, key_id: str, tokens: int) -> None:
        """Add the tokens a request used to its key's window."""
        if tokens <= 0:
            return
        index, _ = self._window(self.quota_window_s, time.time())
        await self.quota_counters.incr(f"q:{key_id}:{index}", tokens, self.quota_window_s + 1)
