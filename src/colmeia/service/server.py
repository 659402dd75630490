"""Running the service under uvicorn (``colmeia serve``), optionally with the simulated model."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from typing import Any

from colmeia.config import Settings, get_settings
from colmeia.service.observability import setup_logging
from colmeia.service.settings import ServiceSettings

__all__ = ["guarded_protocol", "run_server", "simulated_settings", "uvicorn_config"]

log = logging.getLogger("colmeia.service")


@contextlib.contextmanager
def simulated_settings(settings: Settings, latency_s: float = 0.0) -> Iterator[Settings]:
    """``settings`` pointed at a simulated model served on loopback for the block's duration."""
    from colmeia.service.simulated import demo_model
    from colmeia.sim import SimServer

    with SimServer(demo_model(latency_s)) as sim:
        llm = settings.llm.model_copy(update={"base_url": sim.base_url, "model": "sim"})
        yield settings.model_copy(update={"llm": llm})


def guarded_protocol(base: type[Any], header_timeout_s: float) -> type[Any]:
    """Uvicorn's HTTP protocol ``base`` with a header timeout: a connection whose request
    headers are not complete ``header_timeout_s`` after it opened, or after it started sending
    its next request, is closed. Uvicorn has none (its keep-alive timer is cancelled by the first
    byte), so 150 slowloris connections sending a byte now and then stayed open for ever."""

    class GuardedProtocol(base):  # type: ignore[misc]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def _arm(self) -> None:
            self._sent_bytes = False
            seen = self.cycle
            self._header_timer = self.loop.call_later(header_timeout_s, self._headers_late, seen)

        def _headers_late(self, seen: Any) -> None:
            # still the cycle of when the timer was set: no new request's headers came; an
            # idle keep-alive connection (no byte) is left to uvicorn's keep-alive timeout
            late = self.cycle is seen and (seen is None or self._sent_bytes)
            if late and not self.transport.is_closing():
                log.info("closed a connection whose headers took over %gs", header_timeout_s)
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            self._sent_bytes = True
            super().data_received(data)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._header_timer.cancel()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._header_timer.cancel()
            super().connection_lost(exc)

    return GuardedProtocol


def uvicorn_config(app: Any, *, host: str, port: int, service: ServiceSettings) -> Any:
    """Uvicorn's configuration for the service: forwarded headers believed only from the
    configured proxies (uvicorn believes loopback's by default, so anyone on the machine could
    name any client address), header and keep-alive timeouts for slow clients."""
    import uvicorn
    from uvicorn.protocols.http.h11_impl import H11Protocol

    trusted = list(service.trusted_proxies)
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=10,
        timeout_keep_alive=15,  # uvicorn's 5 s drops connections clients are about to reuse
        lifespan="on",
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or [],
        http=guarded_protocol(H11Protocol, service.header_timeout_s),
        h11_max_incomplete_event_size=64 * 1024,  # headers of at most 64 KB
    )


def run_server(
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    simulated: bool = False,
    run_jobs: bool = True,
) -> None:
    """Serve until SIGINT/SIGTERM; running jobs go back to the queue on the way out."""
    import uvicorn

    from colmeia.service.app import create_app

    settings = get_settings()
    service = ServiceSettings()
    setup_logging(
        service.log_format, settings.log_level if settings.log_level != "WARNING" else "INFO"
    )
    with contextlib.ExitStack() as stack:
        if simulated:
            settings = stack.enter_context(simulated_settings(settings))
            log.warning("answers come from colmeia's simulated model (placeholders)")
        app = create_app(settings, service, run_jobs=run_jobs, simulated=simulated)
        config = uvicorn_config(app, host=host, port=port, service=service)
        server = uvicorn.Server(config)
        sys.stderr.write(f"colmeia serving on http://{host}:{port} (API docs at /docs)\n")
        sys.stderr.flush()
        server.run()
