"""The memory a file may take while it is read is bounded (issue 20: "a job that exceeds it fails
that file, not the process"). Each file is read, cleaned and chunked in a child process bounded
to ``COLMEIA_INGEST_MEMORY_MB``; the file that needs more fails with "too much memory", the
others are ingested. The service's test is in tests/service/test_hostile.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from colmeia.rag.bounded import BoundedReader, FileFailed
from colmeia.rag.pipeline import PreparedFile, PrepareOptions, prepare_file

pytestmark = pytest.mark.slow

LAW = "Art. 1º Esta lei regula o acesso à informação pública.\n"


def _paragraphs_html(path: Path) -> Path:
    """8 MB of HTML, a million paragraphs: lxml's tree of it needs over a gigabyte."""
    path.write_bytes(b"<html><body>" + b"<p>a</p>" * 1_000_000 + b"</body></html>")
    return path


def test_cli_ingest_fails_the_file_over_the_bound_and_ingests_the_rest(
    colmeia_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "upload"
    folder.mkdir()
    (folder / "lei.txt").write_text(LAW)
    bomb = _paragraphs_html(folder / "paragrafos.html")
    monkeypatch.setenv("COLMEIA_INGEST_MEMORY_MB", "400")
    code, out, _ = colmeia_cli("ingest", str(folder), "-c", "leis", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["documents"] == 1
    assert [e["source"] for e in report["errors"]] == [str(bomb)]
    assert report["errors"][0]["reason"].startswith("too much memory: reading the file needed")
    assert "400 MB (COLMEIA_INGEST_MEMORY_MB)" in report["errors"][0]["reason"]


def test_the_reader_goes_on_after_a_file_over_the_bound(tmp_path: Path) -> None:
    options = PrepareOptions("auto", None, None, None)
    law = tmp_path / "lei.txt"
    law.write_text(LAW)
    with BoundedReader(400) as reader:
        failed = reader.read(prepare_file, _paragraphs_html(tmp_path / "paragrafos.html"), options)
        after = reader.read(prepare_file, law, options)
    assert isinstance(failed, FileFailed) and failed.reason.startswith("too much memory")
    assert isinstance(after, PreparedFile)
    assert "acesso à informação" in after.documents[0][1].text


def test_a_bound_too_small_to_run_a_reader_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 64 MB"):
        BoundedReader(32)
