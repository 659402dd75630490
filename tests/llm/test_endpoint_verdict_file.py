"""The endpoint verdicts' file as a user finds it: where it lives (COLMEIA_CACHE_DIR, off in any
of its spellings, XDG_CACHE_HOME, ~/.cache), what it holds (readable JSON, one entry per server
and model, expired ones dropped when it is written), how a verdict ages (fresh just under ten
minutes, stale at ten), and what is logged when it cannot be read or written."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import pytest

from colmeia.llm.verdicts import cache_file, forget_verdicts, recall, remember

URL = "http://127.0.0.1:9/v1"
LOGGER = "colmeia.llm.verdicts"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("off", ["off", " OFF ", "none", "None", "0"])
def test_the_cache_can_be_switched_off(off: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLMEIA_CACHE_DIR", off)
    assert cache_file() is None
    remember(URL, "m", "calls_as_text", True)  # nothing kept, nothing raised
    assert recall(URL, "m", "calls_as_text") is None
    forget_verdicts()


def test_where_the_file_lives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COLMEIA_CACHE_DIR", " ~/cache ")
    assert cache_file() == tmp_path / "home" / "cache" / "endpoints.json"
    monkeypatch.setenv("COLMEIA_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", "~/xdg")
    assert cache_file() == tmp_path / "home" / "xdg" / "colmeia" / "endpoints.json"
    monkeypatch.setenv("XDG_CACHE_HOME", " ")
    assert cache_file() == tmp_path / "home" / ".cache" / "colmeia" / "endpoints.json"


def test_the_file_holds_one_readable_entry_per_server_and_model(folder: Path) -> None:
    remember(URL + "/", "m", "calls_as_text", True)
    remember(URL, "m", "nota", "ação")
    remember(URL, "other", "calls_as_text", False)
    text = (folder / "endpoints.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert sorted(data) == [f"{URL} m", f"{URL} other"]
    assert sorted(data[f"{URL} m"]) == ["calls_as_text", "nota"]
    assert data[f"{URL} m"]["nota"]["value"] == "ação"
    assert '"ação"' in text  # kept as written, not escaped
    assert text.startswith('{\n "')  # indented one space
    assert sorted(p.name for p in folder.iterdir()) == ["endpoints.json"]  # no temporary left


def test_a_verdict_is_fresh_just_under_ten_minutes_and_stale_at_ten(folder: Path) -> None:
    now = time.time()
    entries = {"young": now - 590, "old": now - 600, "bad": "yesterday"}
    (folder / "endpoints.json").write_text(
        json.dumps({f"{URL} m": {n: {"value": n, "at": at} for n, at in entries.items()}})
    )
    assert recall(URL, "m", "young") == "young"
    assert recall(URL, "m", "old") is None
    assert recall(URL, "m", "bad") is None
    assert recall(URL, "m", "young", ttl_s=5) is None


def test_writing_drops_what_has_expired(folder: Path) -> None:
    old = time.time() - 700
    (folder / "endpoints.json").write_text(
        json.dumps(
            {
                "http://gone/v1 m": {"calls_as_text": {"value": True, "at": old}},
                f"{URL} m": {
                    "stale": {"value": 1, "at": old},
                    "kept": {"value": 2, "at": time.time()},
                },
                "not an entry": 5,
            }
        )
    )
    remember(URL, "m", "new", 3)
    data = json.loads((folder / "endpoints.json").read_text())
    assert list(data) == [f"{URL} m"]
    assert sorted(data[f"{URL} m"]) == ["kept", "new"]


def test_an_unreadable_file_is_logged_and_started_afresh(
    folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = folder / "endpoints.json"
    path.write_text("{not json")
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert recall(URL, "m", "calls_as_text") is None
    (message,) = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert message.startswith(f"endpoint verdicts in {path} not read (")
    assert message.endswith("); starting afresh")
    path.write_text("[1, 2]")  # JSON, but not the file's shape
    remember(URL, "m", "calls_as_text", True)
    assert recall(URL, "m", "calls_as_text") is True


def test_a_file_that_cannot_be_written_is_logged_and_nothing_breaks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(blocker / "cache"))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        remember(URL, "m", "calls_as_text", True)
    # reading it failed too (logged first): the write is what matters here
    message = [r.getMessage() for r in caplog.records if r.name == LOGGER][-1]
    assert message.startswith(
        f"endpoint verdict not kept in {blocker / 'cache' / 'endpoints.json'} ("
    )


def test_forgetting_deletes_the_file_and_a_missing_one_is_fine(folder: Path) -> None:
    remember(URL, "m", "calls_as_text", True)
    forget_verdicts()
    assert not (folder / "endpoints.json").exists()
    forget_verdicts()
    assert recall(URL, "m", "calls_as_text") is None
