"""Uploaded files written to a folder (``save_uploads``) or read into memory (``read_uploads``),
checked without a server: the refusals a client sees (status and exact message), that a file is
kept whole or not at all, and what a killed upload leaves for the next start to sweep.
"""

from __future__ import annotations

import asyncio
import io
import logging
from pathlib import Path

import pytest
from fastapi import HTTPException, UploadFile

from colmeia.service.uploads import read_uploads, save_uploads, sweep_interrupted

MIB = 1024 * 1024
TEXT = "Art. 1º Esta lei regula o acesso à informação pública. ".encode()
ALLOWED = (".txt", ".pdf", ".md")


def _upload(name: str | None, data: bytes) -> UploadFile:
    return UploadFile(file=io.BytesIO(data), filename=name)


def _filled(size: int, head: bytes = b"") -> bytes:
    return head + (TEXT * (size // len(TEXT) + 1))[: size - len(head)]


def _save(folder: Path, *files: UploadFile, max_mb: float = 1.0, max_files: int = 5) -> list[str]:
    return asyncio.run(
        save_uploads(files, folder, allowed=ALLOWED, max_mb=max_mb, max_files=max_files)
    )


def _refusal(folder: Path, *files: UploadFile, **limits: float) -> tuple[int, str]:
    with pytest.raises(HTTPException) as err:
        _save(folder, *files, **limits)  # type: ignore[arg-type]
    return err.value.status_code, str(err.value.detail)


def _everything(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_saved_files_are_whole_under_their_safe_names(tmp_path: Path) -> None:
    big = _filled(2 * MIB + 10)  # three read chunks, under a 3 MB cap
    names = _save(
        tmp_path,
        _upload("../lei.txt", TEXT),
        _upload("grande.MD", big),
        max_mb=3,
    )
    assert names == ["lei.txt", "grande.MD"]
    assert (tmp_path / "lei.txt").read_bytes() == TEXT
    assert (tmp_path / "grande.MD").read_bytes() == big
    assert _everything(tmp_path) == ["grande.MD", "lei.txt"]  # no staging folder, no .part


def test_a_collection_folder_that_does_not_exist_yet_is_created(tmp_path: Path) -> None:
    folder = tmp_path / "tenants" / "acme" / "collections" / "nova"
    assert _save(folder, _upload("lei.txt", TEXT)) == ["lei.txt"]
    assert (folder / "lei.txt").read_bytes() == TEXT


def test_a_repeated_name_is_saved_once_with_the_later_file(tmp_path: Path) -> None:
    names = _save(
        tmp_path, _upload("a.txt", b"first"), _upload("b.txt", b"b"), _upload("a.txt", b"second")
    )
    assert names == ["a.txt", "b.txt"]
    assert (tmp_path / "a.txt").read_bytes() == b"second"
    assert _everything(tmp_path) == ["a.txt", "b.txt"]


def test_a_file_of_exactly_the_cap_is_kept_one_byte_more_is_refused(tmp_path: Path) -> None:
    limit = int(0.5 * MIB)
    assert _save(tmp_path, _upload("exata.txt", _filled(limit)), max_mb=0.5) == ["exata.txt"]
    status, detail = _refusal(tmp_path, _upload("maior.txt", _filled(limit + 1)), max_mb=0.5)
    assert (status, detail) == (
        413,
        "maior.txt is larger than 0.5 MB (COLMEIA_SERVICE_MAX_UPLOAD_MB)",
    )
    assert _everything(tmp_path) == ["exata.txt"]


def test_the_cap_counts_the_whole_file_not_each_chunk(tmp_path: Path) -> None:
    # every chunk (1 MiB) is under the 1.5 MB cap; the file is not
    status, detail = _refusal(tmp_path, _upload("longo.txt", _filled(3 * MIB)), max_mb=1.5)
    assert (status, detail) == (
        413,
        "longo.txt is larger than 1.5 MB (COLMEIA_SERVICE_MAX_UPLOAD_MB)",
    )
    assert _everything(tmp_path) == []


def test_one_refused_file_keeps_every_file_of_the_upload_out(tmp_path: Path) -> None:
    status, _ = _refusal(
        tmp_path,
        _upload("boa.txt", TEXT),
        _upload("vazia.txt", b""),
    )
    assert status == 422
    status, _ = _refusal(
        tmp_path,
        _upload("boa.txt", TEXT),
        _upload("grande.txt", _filled(MIB + 1)),
        max_mb=1,
    )
    assert status == 413
    assert _everything(tmp_path) == []  # not the good file, not a staging folder


def test_more_files_than_the_limit_are_refused_exactly_the_limit_is_not(tmp_path: Path) -> None:
    three = [_upload(f"lei{i}.txt", TEXT) for i in range(3)]
    assert _refusal(tmp_path, *three, max_files=2) == (
        413,
        "3 files in one upload; the limit is 2 (send several)",
    )
    assert _everything(tmp_path) == []
    three = [_upload(f"lei{i}.txt", TEXT) for i in range(3)]
    assert _save(tmp_path, *three, max_files=3) == ["lei0.txt", "lei1.txt", "lei2.txt"]


def test_no_file_at_all_is_a_422_saying_which_field_to_use(tmp_path: Path) -> None:
    assert _refusal(tmp_path) == (422, "no file was sent: use the multipart field `files`")
    with pytest.raises(HTTPException) as err:
        asyncio.run(read_uploads([], max_mb=1, max_files=5))
    assert err.value.status_code == 422
    assert err.value.detail == "no file was sent: use the multipart field `files`"


def test_a_type_not_accepted_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    status, detail = _refusal(tmp_path, _upload("ok.txt", TEXT), _upload("script.exe", b"MZ"))
    assert (status, detail) == (
        415,
        "script.exe: files of type .exe are not accepted; accepted: .txt, .pdf, .md",
    )
    status, detail = _refusal(tmp_path, _upload("LEIAME", TEXT))
    assert (status, detail) == (
        415,
        "LEIAME: files of type (none) are not accepted; accepted: .txt, .pdf, .md",
    )
    assert _everything(tmp_path) == []


def test_an_empty_file_is_refused_by_name(tmp_path: Path) -> None:
    assert _refusal(tmp_path, _upload("vazia.txt", b"")) == (422, "vazia.txt is empty")


def test_a_pdf_must_start_like_a_pdf(tmp_path: Path) -> None:
    pdf = _filled(MIB + 100, head=b"%PDF-1.7\n")  # its first bytes are in the first chunk only
    assert _save(tmp_path, _upload("relatorio.pdf", pdf), max_mb=2) == ["relatorio.pdf"]
    assert (tmp_path / "relatorio.pdf").read_bytes() == pdf
    status, detail = _refusal(tmp_path, _upload("falso.PDF", b"<html>not a pdf</html>"))
    assert (status, detail) == (415, "falso.PDF does not look like a .PDF file (its content)")
    # a text file is not checked for magic bytes
    assert _save(tmp_path, _upload("nota.txt", b"%PDF? no, a note")) == ["nota.txt"]
    assert _everything(tmp_path) == ["nota.txt", "relatorio.pdf"]


def test_read_uploads_gives_each_files_safe_name_and_whole_content() -> None:
    big = _filled(MIB + 7)
    read = asyncio.run(
        read_uploads(
            [_upload("a/../casos.json", b"[]"), _upload("lote.jsonl", big)], max_mb=2, max_files=2
        )
    )
    assert read == [("casos.json", b"[]"), ("lote.jsonl", big)]


def test_read_uploads_has_the_same_size_and_count_limits() -> None:
    limit = int(0.25 * MIB)
    ok = asyncio.run(read_uploads([_upload("a.json", _filled(limit))], max_mb=0.25, max_files=1))
    assert len(ok[0][1]) == limit
    with pytest.raises(HTTPException) as err:
        asyncio.run(read_uploads([_upload("b.json", _filled(limit + 1))], max_mb=0.25, max_files=1))
    assert (err.value.status_code, err.value.detail) == (
        413,
        "b.json is larger than 0.25 MB (COLMEIA_SERVICE_MAX_UPLOAD_MB)",
    )
    with pytest.raises(HTTPException) as err:
        asyncio.run(
            read_uploads([_upload("a.json", b"1"), _upload("b.json", b"2")], max_mb=1, max_files=1)
        )
    assert (err.value.status_code, err.value.detail) == (
        413,
        "2 files in one upload; the limit is 1 (send several)",
    )
    with pytest.raises(HTTPException) as err:
        asyncio.run(read_uploads([_upload("..", b"1")], max_mb=1, max_files=1))
    assert err.value.status_code == 422


def test_sweeping_removes_what_a_killed_upload_left_and_nothing_else(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    docs = tmp_path / "tenants" / "acme" / "collections" / "normas"
    staging = docs / ".incoming-0123abcd"
    staging.mkdir(parents=True)
    (staging / "lei.txt").write_bytes(TEXT)
    (staging / ".lei2.txt.part").write_bytes(TEXT)
    (docs / ".meio.pdf.part").write_bytes(b"%PDF")
    (docs / "lei.txt").write_bytes(TEXT)
    (docs / ".gitkeep").write_bytes(b"")
    # a staging folder left inside another one goes with it (and is not counted twice)
    (tmp_path / ".incoming-aa" / ".incoming-bb").mkdir(parents=True)
    (tmp_path / ".stray.txt.part").write_bytes(TEXT)
    with caplog.at_level(logging.WARNING, logger="colmeia.service.uploads"):
        assert sweep_interrupted(tmp_path) == 4
    assert _everything(docs) == [".gitkeep", "lei.txt"]
    assert _everything(tmp_path) == [
        "tenants",
        "tenants/acme",
        "tenants/acme/collections",
        "tenants/acme/collections/normas",
        "tenants/acme/collections/normas/.gitkeep",
        "tenants/acme/collections/normas/lei.txt",
    ]
    assert caplog.messages == ["removed 4 interrupted upload(s) left by a stopped process"]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="colmeia.service.uploads"):
        assert sweep_interrupted(tmp_path) == 0
        assert sweep_interrupted(tmp_path / "missing") == 0
    assert caplog.messages == []
