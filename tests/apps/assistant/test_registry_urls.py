"""Which case registry a URL opens: a SQLite file given as ``sqlite:///path`` or as a plain path
(created only when asked), an HTTP registry for ``http://`` or ``https://``, a refusal naming the
URL for anything else; and the stand-in for no registry, whose every read says so."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from colmeia.apps.assistant.ids import CaseId
from colmeia.apps.assistant.registry_http import HTTPCaseRegistry
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.registry_url import (
    NOT_CONFIGURED,
    UnconfiguredRegistry,
    open_registry,
)
from colmeia.errors import ConfigurationError


def test_a_sqlite_url_and_a_plain_path_open_the_same_file(tmp_path: Path) -> None:
    db = tmp_path / "cases" / "registry.db"
    db.parent.mkdir()
    created = open_registry(f"sqlite:///{db}", create=True)
    assert isinstance(created, SQLiteCaseRegistry)
    assert Path(created.path) == db and db.exists()
    again = open_registry(str(db))
    assert isinstance(again, SQLiteCaseRegistry) and Path(again.path) == db


def test_a_missing_file_is_created_only_when_asked(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no case registry at"):
        open_registry(str(tmp_path / "missing.db"))
    assert not (tmp_path / "missing.db").exists()


@pytest.mark.parametrize("url", ["http://127.0.0.1:8765/", "https://registry.example/api"])
def test_an_http_url_opens_the_http_registry(url: str) -> None:
    registry = open_registry(url)
    try:
        assert isinstance(registry, HTTPCaseRegistry)
        assert registry.url == url.rstrip("/")
    finally:
        asyncio.run(registry.close())


@pytest.mark.parametrize(
    "url", ["ftp://example.org/registry", "postgresql://db/cases", "sqlite://relative.db"]
)
def test_any_other_scheme_is_refused_naming_the_url_and_the_forms_taken(url: str) -> None:
    expected = f"unsupported registry URL {url!r}: use sqlite:///path.db or http(s)://host:port"
    with pytest.raises(ConfigurationError, match=f"^{re.escape(expected)}$"):
        open_registry(url)


def test_without_a_registry_every_read_says_it_is_not_configured() -> None:
    registry = UnconfiguredRegistry()
    case = CaseId("process", 1950, 2023)
    reads = [
        registry.process(case),
        registry.expediente(case),
        registry.parties(case),
        registry.movements(case),
        registry.documents(case),
        registry.location(case),
        registry.subscribe(case, "ana@example.org", "k1"),
        registry.counts(),
        registry.find("João"),
        registry.case_numbers(1234, 2023),
    ]
    for read in reads:
        with pytest.raises(ConfigurationError) as refused:
            asyncio.run(read)
        assert str(refused.value) == NOT_CONFIGURED
    assert asyncio.run(registry.close()) is None
    assert registry.url == ""
