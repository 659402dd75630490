"""A thread paused in one process is resumed by another: SQLite and PostgreSQL checkpointers.

Two real ``colmeia assistant`` processes share only the checkpoint database, the registry
file and the (scripted, simulated) model server: the first asks and stops at the approval,
the second approves, and the side effect runs exactly once.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from assistant_helpers import Roles, call

from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.sim.engine import Reply, SimulatedModel
from colmeia.store import Store
from pg import PG_URL, drop_schema, new_schema, postgres_unreachable

pytestmark = pytest.mark.slow


def _colmeia(env: dict[str, str], *args: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "colmeia", *args, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    out: dict[str, Any] = orjson.loads(proc.stdout.strip().splitlines()[-1])
    return out


def _roles() -> Roles:
    return Roles(
        main=[call("transfer_to_search", reason="avisos")],
        search=[
            call("subscribe_updates", number="TC-000032-2023", contact="ana@example.org"),
            lambda r: Reply(content=r.messages[-1]["content"]),
        ],
    )


def _restart(
    sim_server: Any, store: Store, registry: SQLiteCaseRegistry, checkpoints: str, list_too: bool
) -> None:
    srv = sim_server(SimulatedModel(responder=_roles()))
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env.update(
        COLMEIA_HOME=str(registry.path.parent),
        COLMEIA_STORE=store.url,
        COLMEIA_LLM_BASE_URL=srv.base_url,
        COLMEIA_LLM_MODEL="sim",
        COLMEIA_LLM_MAX_RETRIES="0",
        COLMEIA_ASSISTANT_REGISTRY=f"sqlite:///{registry.path}",
        COLMEIA_ASSISTANT_CHECKPOINTS=checkpoints,
    )
    first = _colmeia(
        env, "assistant", "ask", "Me avise das movimentações do TC-000032-2023", "-t", "r1"
    )
    assert first["status"] == "waiting_approval"
    assert first["waiting"]["arguments"]["contact"] == "ana@example.org"
    assert registry.subscriptions() == []
    if list_too:
        listed = _colmeia(env, "assistant", "threads")
        assert [t["thread_id"] for t in listed] == ["r1"]
    second = _colmeia(env, "assistant", "resume", "-t", "r1", "--approve")
    assert second["status"] == "answered", second
    assert "Inscrição registrada" in second["answer"]
    assert [(s.number, s.contact) for s in registry.subscriptions()] == [
        ("TC/000032/2023", "ana@example.org")
    ]


def test_resume_after_restart_from_sqlite(
    sim_server: Any, laws_store: Store, registry: SQLiteCaseRegistry, tmp_path: Path
) -> None:
    _restart(sim_server, laws_store, registry, f"sqlite:///{tmp_path / 'threads.db'}", True)


@pytest.mark.postgres
@pytest.mark.skipif(postgres_unreachable() is not None, reason=str(postgres_unreachable()))
def test_resume_after_restart_from_postgres(
    sim_server: Any, laws_store: Store, registry: SQLiteCaseRegistry
) -> None:
    schema = new_schema()
    try:
        _restart(sim_server, laws_store, registry, f"{PG_URL}?schema={schema}", False)
    finally:
        drop_schema(schema)
