"""`colmeia eval assistant` reads each set from the data folder that holds it: the optional
larger data (``COLMEIA_DATA_DIR``) has the laws but not the repository's lay question sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from colmeia.cli.assistant_cmd import _data_dir

REPO_DATA = Path(__file__).resolve().parents[2] / "data"


def test_a_lay_set_is_read_from_the_repository_when_the_optional_data_lacks_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "laws" / "lexml").mkdir(parents=True)
    monkeypatch.setenv("COLMEIA_DATA_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    # Red when the first folder with laws wins: "assistant/lay_dev.jsonl" not found there
    assert _data_dir("lay-dev") == REPO_DATA
    assert _data_dir("lay-test") == REPO_DATA
    # the sets that need only the laws take the optional folder, as before
    assert _data_dir("conversations") == tmp_path
    (tmp_path / "assistant").mkdir()
    (tmp_path / "assistant" / "lay_dev.jsonl").write_text("", encoding="utf-8")
    assert _data_dir("lay-dev") == tmp_path
