"""Re-importing a case replaces its parties, movements and documents (unless asked to merge)
and says what changed per case; a location that contradicts the latest movement is flagged in
the import's report and in the card; the audited body is its own field, migrated into a
registry written before it existed."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

from registry_sets_helpers import PARA, PARA_AS_OF, para_registry
from typer.testing import CliRunner

from colmeia.apps.assistant.case_cards import case_card
from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.ids import parse_case_id
from colmeia.apps.assistant.registry_io import import_registry
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.cli import app

runner = CliRunner()
CASE = "TC/004506/2023"


def write_update(folder: Path) -> Path:
    """The Ananindeua case exported again by the court: one party left, the last movement
    re-dated, a new movement (archived), the location following it; documents not sent."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = list(csv.DictReader(io.StringIO((PARA / "processes.csv").read_text(encoding="utf-8"))))
    case = next(r for r in rows if r["number"] == CASE)
    case.update(status="Arquivado", location="Arquivo Geral")
    with (folder / "processes.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(case))
        w.writeheader()
        w.writerow(case)
    (folder / "parties.csv").write_text(
        f"number,name,role\n{CASE},Maria das Graças Pinheiro,Responsável\n", encoding="utf-8"
    )
    moves = [
        r
        for r in csv.DictReader(io.StringIO((PARA / "movements.csv").read_text(encoding="utf-8")))
        if r["number"] == CASE
    ]
    moves[-1]["at"] = "2024-06-12"
    moves.append(
        dict(
            moves[-1],
            seq="7",
            at="2024-09-01",
            to_unit="Arquivo Geral",
            description="Arquivamento após trânsito em julgado",
            status="Arquivado",
        )
    )
    with (folder / "movements.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(moves[0]))
        w.writeheader()
        w.writerows(moves)
    return folder


async def test_a_reimport_replaces_the_cases_rows_and_says_what_changed(tmp_path: Path) -> None:
    reg = para_registry(tmp_path)
    report = import_registry(reg, [write_update(tmp_path / "update")])
    [change] = [c for c in report.changes if not c.unchanged]
    assert change.number == CASE and not change.new
    assert change.fields == ["status", "location"]
    assert (change.added, change.removed, change.changed) == (
        {"movements": 1},
        {"parties": 1},
        {"movements": 1},
    )
    assert change.summary() == "fields: status, location; +1 movements; -1 parties; ~1 movements"
    found = await lookup_case(reg, CASE, today=PARA_AS_OF)
    assert [p["name"] for p in found["parties"]] == ["Maria das Graças Pinheiro"]
    assert found["location"]["since"] == "2024-09-01"
    # documents.csv was not part of the import: the case keeps its four documents
    assert len(await reg.documents(parse_case_id(CASE), 100)) == 4
    reg.close_sync()


async def test_merge_keeps_the_old_rows(tmp_path: Path) -> None:
    reg = para_registry(tmp_path)
    report = import_registry(reg, [write_update(tmp_path / "update")], merge=True)
    [change] = [c for c in report.changes if not c.unchanged]
    assert (change.added, change.removed) == ({"movements": 1}, {})
    parties = await reg.parties(parse_case_id(CASE))
    assert len(parties) == 2 and report.as_dict()["merged"] is True
    reg.close_sync()


async def test_a_location_contradicting_the_latest_movement_is_flagged(tmp_path: Path) -> None:
    reg = para_registry(tmp_path)
    report = import_registry(reg, [PARA])  # the same files again: nothing changes
    assert [c for c in report.changes if not c.unchanged] == []
    assert [c.as_dict() for c in report.conflicts] == [
        {
            "number": "TC/000812/2024",
            "location": "Ministério Público de Contas",
            "movement_unit": "Gabinete do Relator",
            "movement_at": "2025-07-15",
        }
    ]
    card = case_card(await lookup_case(reg, "TC 812/2024", today=PARA_AS_OF))
    assert (
        "Onde está: Ministério Público de Contas, segundo o cadastro — atenção: a última "
        "movimentação (15/07/2025) registra envio para Gabinete do Relator" in card
    )
    assert "desde 20/02/2024" not in card  # the filing date is not offered as "since"
    reg.close_sync()


async def test_the_card_shows_the_audited_body_apart_from_the_technical_unit(
    tmp_path: Path,
) -> None:
    reg = para_registry(tmp_path)
    card = case_card(await lookup_case(reg, CASE, today=PARA_AS_OF))
    assert card.splitlines()[1:3] == [
        "Órgão fiscalizado: Prefeitura Municipal de Ananindeua",
        "Autuado em 14/03/2023 · Unidade técnica: Secretaria de Controle Externo da Educação"
        " · Relator: Conselheira Márcia Nogueira de Araújo",
    ]
    reg.close_sync()


def test_a_registry_written_before_the_audited_body_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE processes (number TEXT PRIMARY KEY, filed_on TEXT NOT NULL, unit TEXT"
            " NOT NULL, case_class TEXT NOT NULL, subclass TEXT NOT NULL DEFAULT '', rapporteur"
            " TEXT NOT NULL, status TEXT NOT NULL, location TEXT NOT NULL, subject TEXT NOT NULL"
            " DEFAULT '')"
        )
        conn.execute(
            "INSERT INTO processes VALUES ('TC/000001/2020', '2020-01-01', 'Secex', 'Denúncia',"
            " '', 'Cons. A', 'Autuado', 'Protocolo', 'Obra')"
        )
    reg = SQLiteCaseRegistry(path)
    report = import_registry(reg, [PARA])
    assert not report.problems
    rows = reg.rows_of(["TC/000001/2020", CASE])
    assert rows["TC/000001/2020"]["record"]["audited_body"] == ""
    assert rows[CASE]["record"]["audited_body"] == "Prefeitura Municipal de Ananindeua"
    reg.close_sync()


def test_the_cli_reports_changes_and_conflicts_and_takes_merge(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    first = runner.invoke(app, ["registry", "import", str(PARA), "--registry", db, "--json"])
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert len(data["changes"]) == 12 and all(c["new"] for c in data["changes"])
    assert [c["number"] for c in data["location_conflicts"]] == ["TC/000812/2024"]
    update = write_update(tmp_path / "update")
    again = runner.invoke(app, ["registry", "import", str(update), "--registry", db])
    assert again.exit_code == 0, again.output
    assert "1 cases changed (replaced)" in again.output
    assert "TC/004506/2023" in again.output and "-1 parties" in again.output
    # the updated case's location follows its latest movement; 812/2024 was not imported
    assert "location conflict" not in again.output
    merged = runner.invoke(app, ["registry", "import", str(update), "--registry", db, "--merge"])
    assert merged.exit_code == 0 and "cases changed" not in merged.output
