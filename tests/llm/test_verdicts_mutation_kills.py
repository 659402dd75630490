"""Where an endpoint's verdicts are kept, how long they are trusted, and what happens when the
file is missing, malformed or cannot be written: the cache only ever saves time, so every
failure leaves the caller with "nothing known" and a log line naming the file."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import pytest

from colmeia.llm.verdicts import (
    VERDICT_TTL_S,
    cache_file,
    forget_verdicts,
    recall,
    remember,
)

URL = "http://127.0.0.1:9/v1"


@pytest.fixture
def no_cache_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Neither COLMEIA_CACHE_DIR nor XDG_CACHE_HOME set, and a home folder of the test's own."""
    monkeypatch.delenv("COLMEIA_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def test_without_settings_the_file_is_in_the_homes_cache_folder(no_cache_settings: Path) -> None:
    """The default place: ``~/.cache/colmeia/endpoints.json``."""
    assert cache_file() == no_cache_settings / ".cache" / "colmeia" / "endpoints.json"


def test_xdg_cache_home_moves_the_file_to_its_colmeia_folder(
    no_cache_settings: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``$XDG_CACHE_HOME/colmeia/endpoints.json``, with ``~`` read as the home folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", "~/xdg")
    assert cache_file() == no_cache_settings / "xdg" / "colmeia" / "endpoints.json"


def test_colmeia_cache_dir_wins_over_xdg_cache_home(
    no_cache_settings: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The project's own setting names the folder itself (no ``colmeia`` folder inside)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_file() == tmp_path / "mine" / "endpoints.json"


@pytest.mark.parametrize("setting", ["off", " OFF ", "none", "None", "0"])
def test_each_way_of_turning_the_cache_off_keeps_nothing(
    setting: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Any of "off", "none" or "0", in any case: no file, nothing remembered, nothing to forget."""
    monkeypatch.chdir(tmp_path)  # a setting taken for a folder would appear here
    monkeypatch.setenv("COLMEIA_CACHE_DIR", setting)
    assert cache_file() is None
    remember(URL, "m", "calls_as_text", True)
    assert recall(URL, "m", "calls_as_text") is None
    forget_verdicts()
    assert list(tmp_path.iterdir()) == []


def test_verdicts_of_several_endpoints_are_kept_side_by_side(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Remembering a second endpoint's verdict keeps the first one's."""
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path))
    remember(URL, "qwen", "calls_as_text", True)
    remember(URL, "llama", "native_calls", False)
    remember(URL, "qwen", "ignores_tool_choice", "required")
    assert recall(URL, "qwen", "calls_as_text") is True
    assert recall(URL, "llama", "native_calls") is False
    assert recall(URL, "qwen", "ignores_tool_choice") == "required"


def test_a_verdict_exactly_as_old_as_its_lifetime_has_expired(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Trusted for less than ``VERDICT_TTL_S`` seconds: at ten minutes sharp it is gone, both
    for ``recall`` and from the file the next ``remember`` writes."""
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path))
    clock = [1_000.0]
    monkeypatch.setattr(time, "time", lambda: clock[0])  # the standard clock, not ours
    remember(URL, "m", "calls_as_text", True)
    clock[0] = 1_000.0 + VERDICT_TTL_S - 0.5
    assert recall(URL, "m", "calls_as_text") is True
    clock[0] = 1_000.0 + VERDICT_TTL_S
    assert recall(URL, "m", "calls_as_text") is None
    remember(URL, "other", "native_calls", True)
    kept = json.loads((tmp_path / "endpoints.json").read_text(encoding="utf-8"))
    assert list(kept) == [f"{URL} other"]


def test_a_hand_edited_file_with_odd_entries_is_cleaned_on_the_next_write(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Entries that are not verdicts (a number, a verdict without its time) are dropped; the
    endpoint's good verdict stays."""
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path))
    good = {"value": True, "at": time.time()}
    odd = {f"{URL} m": {"calls_as_text": good, "broken": 5, "undated": {"value": 1}}, "x": 3}
    (tmp_path / "endpoints.json").write_text(json.dumps(odd), encoding="utf-8")
    remember(URL, "m", "native_calls", False)
    kept = json.loads((tmp_path / "endpoints.json").read_text(encoding="utf-8"))
    assert set(kept) == {f"{URL} m"}
    assert set(kept[f"{URL} m"]) == {"calls_as_text", "native_calls"}
    assert recall(URL, "m", "calls_as_text") is True


def test_a_file_holding_a_list_is_read_as_nothing_known(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Valid JSON but not an object of endpoints: nothing is recalled, the next verdict is kept."""
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path))
    (tmp_path / "endpoints.json").write_text("[1, 2]", encoding="utf-8")
    assert recall(URL, "m", "calls_as_text") is None
    remember(URL, "m", "calls_as_text", True)
    assert recall(URL, "m", "calls_as_text") is True


def test_a_model_named_with_accents_is_recalled(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A model's name and a verdict's value with accents come back as written."""
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path))
    remember(URL, "modelo-português", "formato", "ação")
    assert recall(URL, "modelo-português", "formato") == "ação"


def test_an_unreadable_file_is_logged_with_its_path_and_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A broken file is not an error for the caller, but the log says which file and why."""
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path))
    path = tmp_path / "endpoints.json"
    path.write_text("{not json", encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="colmeia.llm.verdicts"):
        assert recall(URL, "m", "calls_as_text") is None
    [record] = [r for r in caplog.records if r.name == "colmeia.llm.verdicts"]
    message = record.getMessage()
    assert message.startswith(f"endpoint verdicts in {path} not read (")
    assert "Expecting property name" in message
    assert message.endswith("); starting afresh")


def test_a_verdict_that_cannot_be_written_is_logged_and_not_raised(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The cache folder is in fact a file: ``remember`` logs the file it could not write and
    returns, and nothing is recalled."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(blocker))
    with caplog.at_level(logging.INFO, logger="colmeia.llm.verdicts"):
        remember(URL, "m", "calls_as_text", True)
    # the last line (reading the file first logs that it could not be read either)
    message = [r for r in caplog.records if r.name == "colmeia.llm.verdicts"][-1].getMessage()
    assert message.startswith(f"endpoint verdict not kept in {blocker / 'endpoints.json'} (")
    assert "File exists" in message
    assert recall(URL, "m", "calls_as_text") is None


def test_the_cache_folder_is_made_with_its_parents(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A cache folder several levels deep that does not exist yet is created whole."""
    monkeypatch.delenv("COLMEIA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a" / "b"))
    remember(URL, "m", "calls_as_text", True)
    assert (tmp_path / "a" / "b" / "colmeia" / "endpoints.json").is_file()
    assert recall(URL, "m", "calls_as_text") is True


def test_forgetting_deletes_the_verdicts_and_may_be_repeated(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """After ``forget_verdicts`` nothing is recalled; forgetting with no file is not an error."""
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path))
    remember(URL, "m", "calls_as_text", True)
    forget_verdicts()
    assert not (tmp_path / "endpoints.json").exists()
    assert recall(URL, "m", "calls_as_text") is None
    forget_verdicts()
