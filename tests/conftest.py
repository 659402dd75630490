"""Shared pytest fixtures for the colmeia test suite."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from colmeia.sim.engine import SimulatedModel
from colmeia.sim.server import SimServer


@pytest.fixture
def sim_server() -> Iterator[Callable[[SimulatedModel], SimServer]]:
    """Start a simulated model server: ``srv = sim_server(SimulatedModel(...))``.

    The server listens on a free 127.0.0.1 port (``srv.base_url`` ends in ``/v1``; the model is
    ``srv.sim``) and is stopped after the test.
    """
    started: list[SimServer] = []

    def start(sim: SimulatedModel) -> SimServer:
        srv = SimServer(sim).start()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()
