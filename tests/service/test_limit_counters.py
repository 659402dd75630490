"""The counters behind rate limits and token quotas, each backend on the same contract, and the
limiter's arithmetic on them: exact counts, windows that end, prefixes that keep deployments
apart, and a backend that fails saying which setting to check.

Real backends only: a dict in this process, the service tables in SQLite and PostgreSQL, and
the Redis server at 127.0.0.1:6379 (each skipped with the reason when it is not there).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from colmeia.errors import StoreError
from colmeia.service.db import Database, open_database
from colmeia.service.limits import (
    Counters,
    DatabaseCounters,
    Limiter,
    MemoryCounters,
    RedisCounters,
)
from pg import pg_schema_url

REDIS_URL = "redis://127.0.0.1:6379/0"


def _redis_unreachable() -> str | None:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return None
    except OSError as exc:
        return f"Redis not reachable at 127.0.0.1:6379: {exc}"


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    db = open_database(f"sqlite:///{tmp_path / 'service.db'}")
    yield db
    db.close()


@pytest.fixture(params=["memory", "sqlite", "postgresql", "redis"])
async def counters(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Counters]:
    kind = request.param
    if kind == "memory":
        yield MemoryCounters()
    elif kind == "sqlite":
        db = open_database(f"sqlite:///{tmp_path / 'service.db'}")
        yield DatabaseCounters(db)
        db.close()
    elif kind == "postgresql":
        with pg_schema_url() as url:
            db = open_database(url)
            yield DatabaseCounters(db)
            db.close()
    else:
        reason = _redis_unreachable()
        if reason:
            pytest.skip(reason)
        redis = RedisCounters(REDIS_URL, f"colmeia-test:{uuid.uuid4().hex}:")
        yield redis
        await redis.aclose()


# ---------------------------------------------------------------- the contract, every backend


async def test_adds_return_the_running_total_and_get_reads_it(counters: Counters) -> None:
    assert await counters.get("rl:k1:1") == 0  # absent
    assert await counters.incr("rl:k1:1", 1, 60) == 1
    assert await counters.incr("rl:k1:1", 5, 60) == 6
    assert await counters.incr("rl:k1:1", -2, 60) == 4  # a hold given back
    assert await counters.get("rl:k1:1") == 4
    assert await counters.get("rl:k2:1") == 0  # another key is its own counter
    await counters.ping()


async def test_a_counter_ends_with_its_window_and_starts_again_from_zero(
    counters: Counters,
) -> None:
    assert await counters.incr("short", 3, 1) == 3
    await asyncio.sleep(1.3)
    assert await counters.get("short") == 0
    assert await counters.incr("short", 2, 60) == 2  # not 5: the old window is gone


async def test_a_later_add_does_not_move_the_windows_end(counters: Counters) -> None:
    # The window is set by the first add: a request late in the minute must not keep the
    # count alive into the next one (each add passes the full window again).
    started = time.monotonic()
    assert await counters.incr("w", 1, 2) == 1
    await asyncio.sleep(0.2)
    assert await counters.incr("w", 1, 60) == 2
    await asyncio.sleep(max(0.0, started + 2.3 - time.monotonic()))
    assert await counters.get("w") == 0


# ---------------------------------------------------------------- backend specifics


async def test_redis_counters_under_different_prefixes_do_not_share_counts() -> None:
    reason = _redis_unreachable()
    if reason:
        pytest.skip(reason)
    run = uuid.uuid4().hex
    one = RedisCounters(REDIS_URL, f"colmeia-test:{run}:a:")
    two = RedisCounters(REDIS_URL, f"colmeia-test:{run}:b:")
    try:
        assert await one.incr("q:key:1", 7, 60) == 7
        assert await two.incr("q:key:1", 1, 60) == 1
        assert (await one.get("q:key:1"), await two.get("q:key:1")) == (7, 1)
        # stored under the prefix, with the window's expiry, as another process would see it
        raw = one._redis
        assert int(await raw.get(f"colmeia-test:{run}:a:q:key:1")) == 7
        assert 0 < await raw.ttl(f"colmeia-test:{run}:a:q:key:1") <= 60
    finally:
        await one.aclose()
        await two.aclose()


async def test_an_unreachable_redis_is_a_store_error_naming_the_setting() -> None:
    # A port on 127.0.0.1 with nothing listening: refused at once, never another address.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"redis://127.0.0.1:{port}/0"
    counters = RedisCounters(url, "x:")
    try:
        for attempt in (counters.ping(), counters.incr("k", 1, 60), counters.get("k")):
            with pytest.raises(StoreError) as err:
                await attempt
            assert f"Redis at {url} failed" in str(err.value)
            assert "check COLMEIA_SERVICE_REDIS_URL" in str(err.value)
    finally:
        await counters.aclose()


async def test_a_redis_that_accepts_and_never_answers_fails_within_seconds() -> None:
    # A listener that takes the connection and says nothing: the counters' own timeouts end
    # the wait (a request must not hang on a stuck Redis).
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    port = server.getsockname()[1]
    held: list[socket.socket] = []

    def accept() -> None:
        server.settimeout(10)
        try:
            while True:
                held.append(server.accept()[0])
        except OSError:
            return

    threading.Thread(target=accept, daemon=True).start()
    counters = RedisCounters(f"redis://127.0.0.1:{port}/0", "x:")
    try:
        # the StoreError comes from the counters' own timeout; without one, wait_for's
        # TimeoutError would come instead
        with pytest.raises(StoreError):
            await asyncio.wait_for(counters.ping(), timeout=8)
    finally:
        await counters.aclose()
        server.close()
        for c in held:
            c.close()


def _stalling_redis() -> tuple[socket.socket, list[socket.socket]]:
    """A listener on 127.0.0.1 that completes Redis's connection handshake (``+OK`` to CLIENT,
    HELLO, SELECT) and never answers a command after it: a Redis stuck mid-request."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []

    def serve(conn: socket.socket) -> None:
        buffer = b""
        try:
            while chunk := conn.recv(65536):
                buffer += chunk
                parts = buffer.split(b"\r\n")
                i = 0
                while i < len(parts) and parts[i].startswith(b"*"):
                    count = int(parts[i][1:])
                    if i + 2 * count >= len(parts):
                        break
                    name = parts[i + 2].upper()
                    i += 1 + 2 * count
                    if name in (b"CLIENT", b"HELLO", b"SELECT", b"AUTH"):
                        conn.sendall(b"+OK\r\n")
                buffer = b"\r\n".join(parts[i:])
        except OSError:
            return

    def accept() -> None:
        server.settimeout(15)
        try:
            while True:
                conn = server.accept()[0]
                held.append(conn)
                threading.Thread(target=serve, args=(conn,), daemon=True).start()
        except OSError:
            return

    threading.Thread(target=accept, daemon=True).start()
    return server, held


async def test_a_redis_stuck_after_the_handshake_fails_the_request_within_seconds() -> None:
    # the read timeout: without it, a request waits as long as Redis is stuck
    server, held = _stalling_redis()
    counters = RedisCounters(f"redis://127.0.0.1:{server.getsockname()[1]}/0", "x:")
    try:
        for attempt in (counters.ping(), counters.incr("k", 1, 60)):
            with pytest.raises(StoreError):
                await asyncio.wait_for(attempt, timeout=10)
    finally:
        await counters.aclose()
        server.close()
        for c in held:
            c.close()


async def test_a_redis_whose_connections_never_complete_fails_within_seconds() -> None:
    # the connect timeout: a listener whose queue is full drops the next connection's SYN,
    # so the connect itself never completes (as with a Redis host that went away)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    queued = []
    for _ in range(3):  # fill the accept queue (never accepted)
        filler = socket.socket()
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
        queued.append(filler)
    await asyncio.sleep(0.2)
    counters = RedisCounters(f"redis://127.0.0.1:{port}/0", "x:")
    try:
        with pytest.raises(StoreError):
            await asyncio.wait_for(counters.ping(), timeout=10)
    finally:
        await counters.aclose()
        server.close()
        for f in queued:
            f.close()


async def test_database_counters_ping_needs_the_counters_table(tmp_path: Path) -> None:
    migrated = open_database(f"sqlite:///{tmp_path / 'service.db'}")
    bare = Database(f"sqlite:///{tmp_path / 'empty.db'}")  # no migrations: no counters table
    try:
        await DatabaseCounters(migrated).ping()
        with pytest.raises(StoreError, match="counters"):
            await DatabaseCounters(bare).ping()
    finally:
        migrated.close()
        bare.close()


async def test_database_counters_are_shared_by_two_connections(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'service.db'}"
    first, second = open_database(url), open_database(url)
    try:
        a, b = DatabaseCounters(first), DatabaseCounters(second)
        await asyncio.gather(*(c.incr("q:k:1", 10, 60) for c in (a, b) for _ in range(5)))
        assert await a.get("q:k:1") == await b.get("q:k:1") == 100
    finally:
        first.close()
        second.close()


async def test_database_counters_sweep_expired_rows(database: Database) -> None:
    counters = DatabaseCounters(database)
    await counters.incr("old", 1, 1)
    await asyncio.sleep(1.2)
    counters._swept = 0.0  # the sweep runs at most once a minute; this is the next one
    await counters.incr("new", 1, 60)
    names = [r["name"] for r in database.query("SELECT name FROM counters ORDER BY name")]
    assert names == ["new"]


# ---------------------------------------------------------------- the limiter's arithmetic


def _at_start_of_window(length: int) -> None:
    """Wait, if needed, so that the next seconds fall in one window of ``length`` seconds."""
    left = length - time.time() % length
    if left < 3:
        time.sleep(left + 0.05)


async def test_requests_over_the_per_minute_limit_are_refused_with_the_seconds_left() -> None:
    _at_start_of_window(60)
    limiter = Limiter(MemoryCounters(), quota_window_s=3600)
    first = await limiter.request("k", 2)
    assert (first.allowed, first.limit, first.remaining) == (True, 2, 1)
    second = await limiter.request("k", 2)
    assert (second.allowed, second.remaining) == (True, 0)
    third = await limiter.request("k", 2)
    assert (third.allowed, third.reason, third.limit, third.remaining) == (
        False,
        "rate limit",
        2,
        0,
    )
    assert 1 <= third.retry_after_s <= 60
    assert (await limiter.request("other", 2)).allowed  # per key


async def test_a_reservation_holds_tokens_and_settling_gives_back_the_rest() -> None:
    _at_start_of_window(3600)
    counters = MemoryCounters()
    limiter = Limiter(counters, quota_window_s=3600)
    decision, held = await limiter.reserve("k", 1000, 400)
    assert held is not None and (decision.allowed, decision.remaining) == (True, 600)
    assert (held.tokens, held.ttl_s) == (400, 3601)
    # a second request asks for more than is left: refused, and its hold taken back
    refused, none = await limiter.reserve("k", 1000, 700)
    assert none is None and (refused.allowed, refused.reason, refused.remaining) == (
        False,
        "token quota",
        600,
    )
    assert await counters.get(held.counter) == 400
    await limiter.settle(held, 150)  # the request used 150 of its 400
    assert await counters.get(held.counter) == 150
    await limiter.settle(held, 400)  # as held: nothing changes
    assert await counters.get(held.counter) == 150
    assert (await limiter.quota("k", 1000)).remaining == 850


async def test_a_hold_is_at_least_one_token_and_at_most_the_quota() -> None:
    _at_start_of_window(3600)
    limiter = Limiter(MemoryCounters(), quota_window_s=3600)
    _, small = await limiter.reserve("a", 100, 0)
    _, big = await limiter.reserve("b", 100, 10_000)
    assert small is not None and small.tokens == 1
    assert big is not None and big.tokens == 100


async def test_spent_tokens_count_against_the_quota_until_it_is_used_up() -> None:
    _at_start_of_window(3600)
    limiter = Limiter(MemoryCounters(), quota_window_s=3600)
    await limiter.spend("k", 0)
    await limiter.spend("k", -5)  # nothing to add
    assert (await limiter.quota("k", 100)).remaining == 100
    await limiter.spend("k", 99)
    left = await limiter.quota("k", 100)
    assert (left.allowed, left.remaining, left.limit) == (True, 1, 100)
    await limiter.spend("k", 1)
    used_up = await limiter.quota("k", 100)
    assert (used_up.allowed, used_up.reason, used_up.remaining) == (False, "token quota", 0)
    assert 1 <= used_up.retry_after_s <= 3600


async def test_quotas_can_live_apart_from_the_request_counts() -> None:
    _at_start_of_window(3600)
    requests, quotas = MemoryCounters(), MemoryCounters()
    limiter = Limiter(requests, quota_window_s=3600, quota_counters=quotas)
    await limiter.spend("k", 30)
    await limiter.request("k", 10)
    index = int(time.time() // 3600)
    assert await quotas.get(f"q:k:{index}") == 30 and await requests.get(f"q:k:{index}") == 0
    assert Limiter(requests, quota_window_s=60).quota_counters is requests


def test_a_window_says_which_it_is_and_the_whole_seconds_left() -> None:
    assert Limiter._window(60, 120.0) == (2, 60)
    assert Limiter._window(60, 179.2) == (2, 1)  # 0.8 s left: rounded up, never 0
    assert Limiter._window(60, 179.99) == (2, 1)
    assert Limiter._window(3600, 3600 * 5 + 1800.5) == (5, 1800)
