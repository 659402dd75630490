"""Running the service under uvicorn (``colmeia serve``), optionally with the simulated model."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator

from colmeia.config import Settings, get_settings
from colmeia.service.observability import setup_logging
from colmeia.service.settings import ServiceSettings

__all__ = ["run_server", "simulated_settings"]

log = logging.getLogger("colmeia.service")


@contextlib.contextmanager
def simulated_settings(settings: Settings, latency_s: float = 0.0) -> Iterator[Settings]:
    """``settings`` pointed at a simulated model served on loopback for the block's duration."""
    from colmeia.service.simulated import demo_model
    from colmeia.sim import SimServer

    with SimServer(demo_model(latency_s)) as sim:
        llm = settings.llm.model_copy(update={"base_url": sim.base_url, "model": "sim"})
        yield settings.model_copy(update={"llm": llm})


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
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=10,
            timeout_keep_alive=15,  # uvicorn's 5 s drops connections clients are about to reuse
            lifespan="on",
        )
        server = uvicorn.Server(config)
        sys.stderr.write(f"colmeia serving on http://{host}:{port} (API docs at /docs)\n")
        sys.stderr.flush()
        server.run()
