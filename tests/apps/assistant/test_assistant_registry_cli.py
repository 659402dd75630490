"""``colmeia registry demo | import | show`` from the command line."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from colmeia.cli import app

runner = CliRunner()


def test_demo_then_show_a_sloppily_typed_number(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    made = runner.invoke(app, ["registry", "demo", "--registry", db, "--processes", "200"])
    assert made.exit_code == 0, made.output
    shown = runner.invoke(app, ["registry", "show", "tc 32/2023", "--registry", db, "--json"])
    assert shown.exit_code == 0, shown.output
    found = orjson.loads(shown.stdout)
    assert found["number"] == "TC/000032/2023"
    assert found["record"]["rapporteur"].startswith("Cons. ")
    missing = runner.invoke(app, ["registry", "show", "TC-999999-2020", "--registry", db])
    assert missing.exit_code == 1
    assert "Não encontrei o processo TC/999999/2020" in missing.output


def test_import_reports_a_missing_file_and_exits_nonzero(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["registry", "import", str(tmp_path / "nope.csv"), "--registry", str(tmp_path / "r")]
    )
    assert result.exit_code == 2
    assert "nothing to import" in result.output
