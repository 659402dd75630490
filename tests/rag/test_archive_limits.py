"""Zip-based files are read under limits checked before parsing (issue 20: an 852 KB DOCX
unpacking to 800 MB raised the server's RSS by 900 MB). Each limit refuses the file with a
reason naming it; the other files of the batch are ingested."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_ingest_bad_input import text_pdf

from colmeia.errors import DocumentError
from colmeia.rag.ingest import ArchiveLimits, PdfLimits, check_archive, extract
from zipbombs import bomb_docx, many_members_zip, nested_zip, plain_docx

# The CLI ingesting one text file peaks near 110 MB; unpacking the bomb would add 800 MB.
RSS_BOUND_MB = 300


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bomb_docx(tmp_path_factory.mktemp("bomb") / "relatorio.docx", megabytes=800)


def test_the_800_mb_docx_bomb_is_refused_before_python_docx_opens_it(bomb: Path) -> None:
    assert bomb.stat().st_size < 1_000_000
    with pytest.raises(DocumentError) as info:
        extract(bomb)
    assert info.value.path == str(bomb)
    assert "unpacks to 800.8 MB, over the limit of 100 MB" in info.value.reason


def test_a_real_docx_passes_the_limits(tmp_path: Path) -> None:
    doc = extract(plain_docx(tmp_path / "lei.docx"))
    assert "Esta lei dispõe" in doc.pages[0].text


def test_total_unpacked_size_is_limited(tmp_path: Path) -> None:
    path = plain_docx(tmp_path / "lei.docx", "texto " * 50_000)
    with pytest.raises(DocumentError, match="over the limit of 0 MB"):
        extract(path, archive_limits=ArchiveLimits(max_unpacked_bytes=100_000))


def test_member_count_is_limited(tmp_path: Path) -> None:
    path = many_members_zip(tmp_path / "many.zip", 30)
    with pytest.raises(DocumentError, match="30 members, over the limit of 20"):
        check_archive(path, ArchiveLimits(max_members=20))
    check_archive(path, ArchiveLimits(max_members=30))


def test_compression_ratio_is_limited_even_under_the_size_limit(bomb: Path) -> None:
    generous = ArchiveLimits(max_unpacked_bytes=10 * 2**30)
    with pytest.raises(DocumentError, match=r"'word/media/zeros.png' unpacks \d+ times"):
        check_archive(bomb, generous)


def test_nesting_is_limited(tmp_path: Path) -> None:
    check_archive(nested_zip(tmp_path / "two.zip", 2), ArchiveLimits(max_nesting=1))
    with pytest.raises(DocumentError, match="nested 2 levels deep"):
        check_archive(nested_zip(tmp_path / "three.zip", 3), ArchiveLimits(max_nesting=1))


def test_pdf_page_count_is_limited(tmp_path: Path) -> None:
    pdf = text_pdf(tmp_path / "a.pdf", ["Art. 1 Texto."])
    extract(pdf, pdf_limits=PdfLimits(max_pages=1))
    with pytest.raises(DocumentError, match="1 pages, over the limit of 0"):
        extract(pdf, pdf_limits=PdfLimits(max_pages=0))


def test_pdf_page_time_is_limited(tmp_path: Path) -> None:
    pdf = text_pdf(tmp_path / "a.pdf", ["Art. 1 Texto."])
    with pytest.raises(DocumentError, match="page 1 took 0 s to read, over the limit of -1 s"):
        extract(pdf, pdf_limits=PdfLimits(max_page_seconds=-1))


@pytest.mark.slow
def test_cli_ingest_refuses_the_bomb_ingests_the_rest_and_stays_under_the_rss_bound(
    bomb: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "upload"
    folder.mkdir()
    os.link(bomb, folder / bomb.name)
    (folder / "lei.txt").write_text("Art. 1º Esta lei regula o acesso à informação.\n")
    # a fresh interpreter measures its children's peak RSS, so this test's own does not count
    probe = (
        "import resource, subprocess, sys\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "print(r.stdout.strip().splitlines()[-1])\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
    )
    env = {**os.environ, "COLMEIA_HOME": str(tmp_path / "home")}
    cmd = [sys.executable, "-m", "colmeia", "ingest", str(folder), "-c", "bomb", "--json"]
    out = subprocess.run(
        [sys.executable, "-c", probe, *cmd], capture_output=True, text=True, env=env, check=True
    ).stdout.splitlines()
    report, peak_mb = json.loads(out[0]), int(out[1])
    assert report["documents"] == 1
    assert [e["source"] for e in report["errors"]] == [str(folder / bomb.name)]
    assert "zip bomb" in report["errors"][0]["reason"]
    assert peak_mb < RSS_BOUND_MB, f"peak RSS {peak_mb} MB"


def _pdf_bomb(path: Path, megabytes: int) -> Path:
    """A text PDF with one more Flate stream that inflates to ``megabytes`` of zeros."""
    import zlib

    pdf = text_pdf(path, ["Art. 1 Texto."])
    packed = zlib.compress(b"\0" * (megabytes << 20), 9)
    extra = (
        f"\n99 0 obj\n<< /Length {len(packed)} /Filter /FlateDecode >>\nstream\n".encode()
        + packed
        + b"\nendstream\nendobj\n"
    )
    pdf.write_bytes(pdf.read_bytes() + extra)
    return pdf


def test_pdf_streams_inflate_under_a_bound(tmp_path: Path) -> None:
    # issue 34: a 612 KB PDF whose stream inflates to 600 MB held the reader at 1.4 GB
    bomb = _pdf_bomb(tmp_path / "bomb.pdf", 48)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(DocumentError, match="inflate to over 32 MB"):
        extract(bomb, pdf_limits=PdfLimits(max_inflated_mb=32))
    # the same file under a bound it fits, and an ordinary PDF under the small one, are read
    assert extract(bomb, pdf_limits=PdfLimits(max_inflated_mb=64))
    plain = text_pdf(tmp_path / "plain.pdf", ["Art. 1 Texto."])
    assert extract(plain, pdf_limits=PdfLimits(max_inflated_mb=1))
