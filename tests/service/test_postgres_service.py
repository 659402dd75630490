"""The service for a team: its tables and every tenant's store in PostgreSQL (a schema each)."""

from __future__ import annotations

from typing import Any

import pytest

from pg import PG_URL, drop_schema, new_schema, postgres_unreachable

pytestmark = pytest.mark.postgres

DOC = "Regulamento\n\nArt. 1º O prazo de recurso administrativo é de dez dias úteis.\n"


@pytest.fixture
def schemas() -> Any:
    reason = postgres_unreachable()
    if reason:
        pytest.skip(reason)
    base, tables = new_schema(), new_schema()
    yield base, tables
    for schema in (tables, base, f"{base}_t_acme", f"{base}_t_globex"):
        drop_schema(schema)


def test_tables_and_tenant_stores_live_in_postgres(make_service: Any, schemas: Any) -> None:
    base, tables = schemas
    svc = make_service(store=f"{PG_URL}?schema={base}", db=f"{PG_URL}?schema={tables}")
    ha, hb = svc.key("acme"), svc.key("globex")
    files = [("files", ("regulamento.txt", DOC.encode(), "text/plain"))]
    job = svc.client.post("/v1/collections/regras/documents", files=files, headers=ha).json()
    assert svc.wait_job(job["id"], ha)["status"] == "succeeded"
    hit = svc.client.post("/v1/search", json={"query": "prazo de recurso"}, headers=ha).json()
    assert "dez dias" in hit["hits"][0]["text"]
    assert svc.client.get("/v1/collections", headers=hb).json() == []
    assert svc.state.tenants.url_for("acme").endswith(f"schema={base}_t_acme")
    assert svc.state.db.dialect == "postgresql"
    assert "jobs" in svc.state.db.table_names()
