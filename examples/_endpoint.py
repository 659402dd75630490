"""How every example finds its model: ``--demo`` serves the example's scripted model with
colmeia's simulated server on 127.0.0.1 (the agent code cannot tell it from a real one);
otherwise ``COLMEIA_LLM_BASE_URL``/``COLMEIA_LLM_MODEL`` name a server — ``colmeia llm serve``
for a real local model, ``colmeia sim serve`` for the simulated one."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from colmeia.config import get_settings
from colmeia.sim.engine import SimulatedModel

NO_MODEL = (
    "No model configured: set COLMEIA_LLM_BASE_URL and COLMEIA_LLM_MODEL (e.g. after "
    "`colmeia llm serve`), or run with --demo (scripted model)."
)


@contextmanager
def endpoint(demo: bool, demo_model: Callable[[], SimulatedModel]) -> Iterator[tuple[str, str]]:
    """``(base_url, model name)`` for the example's run; exits 2 with advice when none."""
    if demo:
        from colmeia.sim.server import SimServer

        with SimServer(demo_model()) as srv:
            yield srv.base_url, "demo"
        return
    settings = get_settings().llm
    if not settings.base_url:
        print(NO_MODEL, file=sys.stderr)
        raise SystemExit(2)
    yield settings.base_url, settings.model or "default"
