"""``colmeia keys create | list | revoke`` against the service tables a server uses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from colmeia.cli import app
from colmeia.service.db import open_database
from colmeia.service.keys import verify_key


def test_create_list_revoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLMEIA_HOME", str(tmp_path))
    monkeypatch.delenv("COLMEIA_SERVICE_DB", raising=False)
    runner = CliRunner()
    made = runner.invoke(app, ["keys", "create", "--tenant", "acme", "--name", "ci bot", "--json"])
    assert made.exit_code == 0, made.output
    created = json.loads(made.stdout)
    assert created["key"].startswith(f"cmk_{created['id']}_")
    db = open_database(f"sqlite:///{tmp_path / 'service.db'}")
    assert verify_key(db, created["key"]) is not None

    listed = runner.invoke(app, ["keys", "list", "--json"])
    rows = json.loads(listed.stdout)
    assert [(r["tenant"], r["name"], r["revoked"]) for r in rows] == [("acme", "ci bot", False)]
    assert created["key"] not in listed.stdout

    assert runner.invoke(app, ["keys", "revoke", created["id"]]).exit_code == 0
    assert verify_key(db, created["key"]) is None
    again = runner.invoke(app, ["keys", "revoke", created["id"]])
    assert again.exit_code == 2 and "no active key" in again.output
    db.close()


def test_bad_tenant_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLMEIA_HOME", str(tmp_path))
    out = CliRunner().invoke(app, ["keys", "create", "--tenant", "Bad Tenant!", "--name", "x"])
    assert out.exit_code == 2
    assert "invalid tenant" in out.output and "Traceback" not in out.output
