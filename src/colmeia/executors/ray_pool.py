"""A pool of Ray actors that each hold one worker object and run its async method per item.

Batch work in colmeia is "one function per record, two executors": the local runner awaits the
function in its own event loop; this pool runs the same function in Ray workers (one async
actor per worker, each with its own concurrency), so a batch can spread over a cluster without a
second copy of the code. The driver keeps everything that must happen once — reading records,
writing each result under its key, progress and the manifest — so the guarantees of a local run
(nothing lost, exactly one result per record, resumable) hold unchanged.

Why actors and not tasks: a worker object (a moderator with its model clients) is built once per
worker and reused for every item, and an async actor runs many items at once in one process.
A worker process that dies is restarted by Ray and the items it held are sent again
(``max_restarts``/``max_task_retries`` unbounded): the driver writes a result only when one comes
back, so a retried item still yields one line.

Ray is optional (``pip install 'colmeia[ray]'``); without it the pool says how to get it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import ipaddress
import itertools
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from colmeia.errors import ConfigurationError

__all__ = ["RayPool", "RayPoolStats", "init_local_ray", "ray_available"]

log = logging.getLogger(__name__)


def ray_available() -> bool:
    """Whether the ``ray`` package can be imported here."""
    # find_spec, not import: importing ray fixes its address rules (see LOOPBACK_ENV) too early.
    return importlib.util.find_spec("ray") is not None


# Ray replaces 127.0.0.1 by the machine's first network address so that other nodes can reach
# it; a one-machine Ray (tests, benches, a laptop) must stay on loopback, which Ray does only when
# it believes clusters are off. Read when ray is imported, so set before that import.
LOOPBACK_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def init_local_ray(num_cpus: int | None = None) -> None:
    """Start a one-machine Ray on 127.0.0.1 only (no other address is used or contacted)."""
    os.environ.update(LOOPBACK_ENV)
    ray = _import_ray()
    ray.init(
        num_cpus=num_cpus or os.cpu_count() or 2,
        include_dashboard=False,
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
        # Every node of a one-machine Ray is on this machine: a node that misses health checks
        # is starved of CPU (a busy laptop or CI box), not lost. Ray's default (5 misses of 3 s)
        # declared such a node dead under load and failed the tasks it held; a dead *worker* is
        # still seen at once (its process exits), so restarts and retries are unchanged.
        # Ray starts workers at nice 15; here the workers do the job itself, and beside any busy
        # process (a local llama.cpp server, say) they got a few percent of a core (a 13 s run
        # took 172 s). They run at the driver's priority instead.
        _system_config={
            "health_check_failure_threshold": 20,
            "health_check_timeout_ms": 30000,
            "worker_niceness": 0,
        },
    )


def on_loopback(address: str | None) -> bool:
    """Whether a cluster address (``HOST:PORT``) names this machine's loopback."""
    if not address or address in ("local", "auto") or "://" in address:
        return False
    host = address.rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def connect_ray(address: str | None, num_cpus: int | None = None) -> tuple[Any, bool]:
    """The ``ray`` module, connected: an initialised Ray is reused; ``None``/``local`` start a
    one-machine Ray on 127.0.0.1, anything else joins that cluster. Also whether this call did
    the initialising (so the caller knows whether to shut it down). A cluster on 127.0.0.1
    (several Ray nodes on one machine, all on loopback) is joined as a loopback node too:
    otherwise Ray swaps 127.0.0.1 for the machine's network address and finds no node there."""
    local = address in (None, "local")
    loopback = local or on_loopback(address)
    if loopback:
        os.environ.update(LOOPBACK_ENV)
    ray = _import_ray()
    if ray.is_initialized():
        return ray, False
    if local:
        init_local_ray(num_cpus)
    elif loopback:
        ray.init(address=address, log_to_driver=False, _node_ip_address="127.0.0.1")
    else:
        ray.init(address=address, log_to_driver=False)
    return ray, True


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigurationError(
            "--engine ray needs Ray: pip install 'colmeia[ray]' (or run without --engine ray)"
        ) from None
    return ray


class _Worker:
    """Runs inside a Ray actor: builds the worker object once, then serves calls."""

    def __init__(self, factory: Callable[[], Any], method: str) -> None:
        self._obj = factory()
        self._method = method
        self._done = 0

    async def call(self, item: Any) -> Any:
        result = await getattr(self._obj, self._method)(item)
        self._done += 1
        return result

    def pid(self) -> int:
        return os.getpid()

    def done(self) -> int:
        return self._done

    def rss_mb(self) -> float:
        """Resident memory of this worker process, in MiB (Linux; 0 elsewhere)."""
        try:
            with open(f"/proc/{os.getpid()}/status", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

    def cpu_s(self) -> float:
        """CPU seconds this worker process has used (user + system)."""
        t = os.times()
        return t.user + t.system

    async def close(self) -> None:
        closer = getattr(self._obj, "aclose", None)
        if closer is not None:
            await closer()


@dataclass(slots=True)
class RayPoolStats:
    """What the pool did: items sent, results back, worker restarts seen by the driver."""

    workers: int
    sent: int = 0
    returned: int = 0


def check_address(address: str | None) -> None:
    """Refuse a malformed Ray address before anything connects.

    ``None``/``local`` start a one-machine Ray on 127.0.0.1; ``auto`` joins the cluster this
    machine belongs to; ``HOST:PORT`` joins the cluster whose head listens there (its GCS
    port, 6379 by default); ``ray://HOST:PORT`` connects as a Ray client.
    """
    if address in (None, "auto", "local"):
        return
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not sep or not host.strip("[]") or not port.isdigit():
        raise ConfigurationError(
            f"Ray address {address!r}: use auto, local, HOST:PORT or ray://HOST:PORT"
        )


class RayPool:
    """``workers`` Ray actors, each holding ``factory()`` and running ``method`` per item.

    Use as an async context manager; :meth:`call` sends one item to the least busy worker and
    returns its result. ``address``: ``None``/``"local"`` start a local Ray on 127.0.0.1 with
    ``num_cpus`` CPUs (stopped on exit); ``"auto"`` or ``"ray://…"`` join a running cluster
    (left running on exit).
    """

    def __init__(
        self,
        factory: Callable[[], Any],
        *,
        method: str,
        workers: int = 2,
        per_worker: int = 16,
        address: str | None = None,
        num_cpus: int | None = None,
        worker_cpus: float = 0.5,
        background_start: bool = False,
    ) -> None:
        if workers < 1:
            raise ConfigurationError("--workers must be at least 1")
        if per_worker < 1:
            raise ConfigurationError("the concurrency per worker must be at least 1")
        check_address(address)
        self._factory = factory
        self._method = method
        self.workers = workers
        self.per_worker = per_worker
        self.address = None if address == "local" else address
        self.num_cpus = num_cpus
        self.worker_cpus = worker_cpus
        self.background_start = background_start and address is not None
        self.actors: list[Any] = []
        self.stats = RayPoolStats(workers=workers)
        self._inflight: list[int] = []
        self._started_ray = False
        self._ray: Any = None
        self._rr = itertools.count()

    @property
    def concurrency(self) -> int:
        """Items in flight across the pool."""
        return self.workers * self.per_worker

    def start(self) -> None:
        ray, started = connect_ray(self.address, self.num_cpus)
        self._ray = ray
        # A cluster it only joined is left running (and connected) for its other users.
        self._started_ray = started and self.address is None
        remote_cls = ray.remote(max_restarts=-1, max_task_retries=-1)(_Worker)
        self.actors = [
            remote_cls.options(max_concurrency=self.per_worker, num_cpus=self.worker_cpus).remote(
                self._factory, self._method
            )
            for _ in range(self.workers)
        ]
        self._inflight = [0] * self.workers
        # Waits until every worker has built its object: a bad factory fails here, once.
        ray.get([a.pid.remote() for a in self.actors])
        log.info("ray pool: %d workers × %d in flight", self.workers, self.per_worker)

    async def call(self, item: Any) -> Any:
        """Run the method on one item in the least busy worker; its result."""
        low = min(self._inflight)
        start = next(self._rr)
        i = next(
            j % self.workers
            for j in range(start, start + self.workers)
            if self._inflight[j % self.workers] == low
        )
        self._inflight[i] += 1
        self.stats.sent += 1
        try:
            result = await self.actors[i].call.remote(item)
        finally:
            self._inflight[i] -= 1
        self.stats.returned += 1
        return result

    def pids(self) -> list[int]:
        """The operating-system process of each worker (for tests and diagnostics)."""
        return [int(p) for p in self._ray.get([a.pid.remote() for a in self.actors])]

    def worker_cpu_s(self) -> float:
        """CPU seconds used so far by all worker processes (a restarted one counts afresh)."""
        return float(sum(self._ray.get([a.cpu_s.remote() for a in self.actors])))

    def worker_rss_mb(self) -> list[float]:
        """Resident memory of each worker process, in MiB."""
        return [float(x) for x in self._ray.get([a.rss_mb.remote() for a in self.actors])]

    async def close(self) -> None:
        ray = self._ray
        if ray is None:
            return
        try:
            await asyncio.gather(*(a.close.remote() for a in self.actors), return_exceptions=True)
            for actor in self.actors:
                ray.kill(actor, no_restart=True)
        finally:
            self.actors = []
            if self._started_ray:
                ray.shutdown()

    async def __aenter__(self) -> RayPool:
        if self.background_start:
            # A service replica keeps answering while it joins the cluster (seconds).
            await asyncio.to_thread(self.start)
        else:
            self.start()  # starting Ray sets signal handlers: from the main thread
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
