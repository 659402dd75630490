"""The case registry: SQLite, the HTTP adapter, the synthetic generator and CSV import."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from colmeia.apps.assistant.ids import parse_case_id
from colmeia.apps.assistant.registry_http import HTTPCaseRegistry, RegistryServer
from colmeia.apps.assistant.registry_io import export_registry, import_registry
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.registry_url import open_registry
from colmeia.apps.assistant.synthetic import SyntheticRegistry, generate_registry
from colmeia.errors import ConfigurationError

AS_OF = dt.date(2026, 11, 1)


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> SQLiteCaseRegistry:
    reg = SQLiteCaseRegistry(tmp_path_factory.mktemp("reg") / "registry.db")
    generate_registry(reg, processes=3000, expedientes=1500, as_of=AS_OF)
    return reg


async def test_synthetic_registry_holds_thousands_of_consistent_cases(
    registry: SQLiteCaseRegistry,
) -> None:
    counts = await registry.counts()
    assert counts["processes"] == 3000
    assert counts["expedientes"] == 1500
    assert counts["movements"] > 3 * counts["processes"]
    # Every process is where its last movement took it, with that movement's status.
    for generated in SyntheticRegistry(as_of=AS_OF).batch(200, 0).processes:
        case = parse_case_id(generated.number)
        process = await registry.process(case)
        assert process == generated
        last = (await registry.movements(case, limit=1))[0]
        assert (process.location, process.status) == (last.to_unit, last.status)


async def test_location_says_since_when_the_case_is_at_its_unit(
    registry: SQLiteCaseRegistry,
) -> None:
    checked = 0
    for p in SyntheticRegistry(as_of=AS_OF).batch(300, 0).processes:
        case = parse_case_id(p.number)
        moves = await registry.movements(case, limit=100)
        loc = await registry.location(case, today=AS_OF)
        assert loc is not None and loc.location == p.location
        # since = the first movement of the latest uninterrupted stay at that unit
        stay = []
        for m in moves:
            if m.to_unit != p.location:
                break
            stay.append(m)
        assert loc.since == stay[-1].at
        assert loc.days == (AS_OF - dt.date.fromisoformat(loc.since)).days
        checked += len(stay) > 1
    assert checked > 10  # cases that moved inside their unit were covered


async def test_unknown_numbers_are_none_not_invented(registry: SQLiteCaseRegistry) -> None:
    unknown = parse_case_id("TC/999999/2020")
    assert await registry.process(unknown) is None
    assert await registry.location(unknown) is None
    assert await registry.parties(unknown) == []
    # a process number is never answered from the expediente table and vice versa
    exp = parse_case_id("EXP-2024-00005")
    assert await registry.process(exp) is None


async def test_subscriptions_are_idempotent_by_key(tmp_path: Path) -> None:
    reg = SQLiteCaseRegistry(tmp_path / "r.db")
    case = parse_case_id("TC/000001/2024")
    first = await reg.subscribe(case, "ana@example.org", "thread-1:call-7")
    again = await reg.subscribe(case, "ana@example.org", "thread-1:call-7")
    assert first.created and not again.created
    assert len(reg.subscriptions()) == 1


async def test_the_http_adapter_reads_what_the_sqlite_registry_holds(
    registry: SQLiteCaseRegistry,
) -> None:
    with RegistryServer(registry) as server:
        remote = open_registry(server.url)
        assert isinstance(remote, HTTPCaseRegistry)
        try:
            case = parse_case_id("tc 32/2023")
            assert await remote.process(case) == await registry.process(case)
            assert await remote.movements(case, 3) == await registry.movements(case, 3)
            assert await remote.parties(case) == await registry.parties(case)
            assert await remote.location(case, AS_OF) == await registry.location(case, AS_OF)
            assert await remote.process(parse_case_id("TC/999999/2020")) is None
            exp = parse_case_id("EXP-2024-00005")
            assert await remote.expediente(exp) == await registry.expediente(exp)
            assert (await remote.counts())["processes"] == 3000
        finally:
            await remote.close()


def test_registry_urls_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="sqlite:///"):
        open_registry("ftp://example.org/registry")
    with pytest.raises(ConfigurationError, match="registry demo"):
        open_registry(f"sqlite:///{tmp_path}/does/not/exist.db")


async def test_import_keeps_good_rows_and_names_each_bad_one(tmp_path: Path) -> None:
    batch = SyntheticRegistry(seed=3, as_of=AS_OF).batch(20, 10)
    folder = tmp_path / "csv"
    export_registry(batch, folder)
    processes = folder / "processes.csv"
    lines = processes.read_text(encoding="utf-8").splitlines()
    first = lines[1].split(",", 1)[1]
    lines.append("tc 4321/2024," + first)  # sloppy number: normalised
    lines.append("TC 55/24," + first)  # two-digit year: refused
    lines.append("TC 56/2024,not-a-date" + first[first.index(",") :])
    processes.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with (folder / "movements.csv").open("a", encoding="utf-8") as fh:
        fh.write("TC/000404/2024,1,2024-01-01,—,Protocolo,Autuação,Autuado\n")
    reg = SQLiteCaseRegistry(tmp_path / "imported.db")
    report = import_registry(reg, [folder])
    assert report.counts["processes"] == 21
    assert report.counts["expedientes"] == 10
    reasons = {p.where.rsplit(":", 1)[1]: p.reason for p in report.problems}
    assert len(report.problems) == 3
    assert any("four digits" in r for r in reasons.values())
    assert any("not-a-date" in r for r in reasons.values())
    assert any("TC/000404/2024 is not in the registry" in r for r in reasons.values())
    assert await reg.process(parse_case_id("TC/004321/2024")) is not None
    assert (await reg.counts())["movements"] == len(batch.movements)
