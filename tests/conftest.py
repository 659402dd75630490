"""Shared pytest fixtures for the colmeia test suite."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from colmeia.llm.capabilities import forget_endpoints
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


CliRun = Callable[..., tuple[int, str, str]]


@pytest.fixture
def colmeia_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRun:
    """Run ``colmeia ARGS…`` in-process: ``code, stdout, stderr = colmeia_cli("search", "x")``.

    The run is isolated like a fresh shell in an empty folder: no ``COLMEIA_*`` variable of the
    developer's environment leaks in, the working directory is ``tmp_path`` (so no stray ``.env``
    is read) and the data folder and store live in ``tmp_path/home``. Set variables with
    ``monkeypatch.setenv`` or pass ``env={...}``.
    """
    from colmeia.cli import app

    for var in list(os.environ):
        if var.startswith("COLMEIA_") and var not in (
            "COLMEIA_DATA_DIR",
            "COLMEIA_EMBEDDINGS_MODEL",  # "none" unless the test is marked default_embedder
            "COLMEIA_TEST_POSTGRES",
            "COLMEIA_CACHE_DIR",
        ):
            monkeypatch.delenv(var)
    monkeypatch.setenv("COLMEIA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COLMEIA_STORE", str(tmp_path / "home" / "colmeia.db"))
    monkeypatch.setenv("COLUMNS", "300")  # long paths stay on one line
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def invoke(*args: str, env: dict[str, str] | None = None, input: str | None = None):  # type: ignore[no-untyped-def]
        result = runner.invoke(app, list(args), env=env, input=input)
        return result.exit_code, result.stdout, result.stderr

    return invoke


@pytest.fixture(autouse=True)
def _lexical_unless_asked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Search is hybrid by default (the offline e5 embedder ships with colmeia), but embedding
    every test's documents on a shared CPU would make the suite crawl: tests search by words
    unless marked ``default_embedder`` or setting ``COLMEIA_EMBEDDINGS_*`` themselves."""
    if request.node.get_closest_marker("default_embedder") is None:
        monkeypatch.setenv("COLMEIA_EMBEDDINGS_MODEL", "none")


@pytest.fixture(autouse=True)
def _fresh_endpoint_profiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """What one test's servers taught the model layer must not leak into the next test (a
    later server may get the same port), in memory or in the verdicts kept across processes."""
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path / "cache"))
    yield
    forget_endpoints()


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup``, with every test under ``tests/real_model/`` in one group, so one
    worker loads the local model. (pytest 9.2 computes node ids in a way xdist 3.8's
    ``xdist_group`` renaming no longer reaches, so the group is also decided by path here.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class _Grouped(LoadGroupScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith("tests/real_model/"):
                return "real_model"
            return str(super()._split_scope(nodeid))

    return _Grouped(config, log)
