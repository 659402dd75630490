"""Broken inputs give a DocumentError that names the file and says why; nothing crashes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from colmeia.errors import DocumentError
from colmeia.rag.ingest import clean_document, extract, iter_csv_records


def write_pdf(path: Path, objects: list[bytes], trailer_extra: bytes = b"") -> Path:
    """A small, well-formed PDF from object bodies (object i+1 = objects[i])."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        trailer_extra,
        xref,
    )
    path.write_bytes(bytes(out))
    return path


def text_pdf(path: Path, lines: list[str]) -> Path:
    ops = (
        b"BT /F1 11 Tf 72 760 Td 14 TL "
        + b" ".join(b"(" + line.encode("latin-1") + b") Tj T*" for line in lines)
        + b" ET"
    )
    return write_pdf(
        path,
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>",
            b"<< /Length %d >>\nstream\n" % len(ops) + ops + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ],
    )


def assert_error(path: Path, *words: str, **kwargs: object) -> DocumentError:
    with pytest.raises(DocumentError) as info:
        extract(path, **kwargs)  # type: ignore[arg-type]
    err = info.value
    assert err.path == str(path)
    assert str(path) in str(err)
    for word in words:
        assert word.lower() in err.reason.lower(), err.reason
    return err


def test_a_valid_pdf_is_read(tmp_path: Path) -> None:
    doc = extract(
        text_pdf(tmp_path / "ok.pdf", ["Art. 1o Esta Lei entra em vigor.", "Segunda linha."])
    )
    assert doc.pages[0].number == 1
    assert "Esta Lei entra em vigor" in doc.text
    assert len(doc.content_hash) == 64


def test_truncated_pdf_is_corrupt(tmp_path: Path) -> None:
    good = text_pdf(tmp_path / "good.pdf", ["some text"]).read_bytes()
    bad = tmp_path / "truncated.pdf"
    bad.write_bytes(good[:60])
    assert_error(bad, "corrupt")


def test_encrypted_pdf_asks_for_the_password_to_be_removed(tmp_path: Path) -> None:
    path = write_pdf(
        tmp_path / "locked.pdf",
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
            # Standard security handler whose user password is not empty: nobody can open it
            # without the password.
            b"<< /Filter /Standard /V 1 /R 2 /P -44 /O <"
            + b"ab" * 32
            + b"> /U <"
            + b"cd" * 32
            + b"> >>",
        ],
        trailer_extra=b"/Encrypt 4 0 R /ID [<" + b"01" * 16 + b"> <" + b"01" * 16 + b">] ",
    )
    assert_error(path, "encrypted", "password")


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    assert_error(path, "empty")


def test_image_only_pdf_needs_ocr(tmp_path: Path) -> None:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument.new()
    pdf.new_page(595, 842)
    pdf.new_page(595, 842)
    path = tmp_path / "scan.pdf"
    pdf.save(str(path))
    pdf.close()
    assert_error(path, "no text layer", "OCR")


def test_unknown_format(tmp_path: Path) -> None:
    path = tmp_path / "data.xyz"
    path.write_bytes(b"\x00\x01\x02 binary")
    err = assert_error(path, "unsupported format")
    assert ".pdf" in err.reason


def test_pdf_name_on_something_else(tmp_path: Path) -> None:
    path = tmp_path / "notes.pdf"
    path.write_text("just text", encoding="utf-8")
    assert_error(path, "not a PDF")


def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "secret.txt"
    path.write_text("hidden", encoding="utf-8")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as root: permissions do not stop reading (see the directory case)")
        assert_error(path, "permission denied")
    finally:
        path.chmod(0o644)


def test_a_directory_is_not_a_document(tmp_path: Path) -> None:
    path = tmp_path / "folder.pdf"
    path.mkdir()
    assert_error(path, "directory")


def test_missing_file(tmp_path: Path) -> None:
    assert_error(tmp_path / "nope.pdf", "no such file")


def test_gigantic_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as fh:
        fh.truncate(50_000_000)  # sparse: large on paper, nothing is read
    err = assert_error(path, "over the", "limit", max_bytes=10_000_000)
    assert "50.0 MB" in err.reason


def test_binary_with_text_suffix(tmp_path: Path) -> None:
    path = tmp_path / "image.txt"
    path.write_bytes(b"\x89PNG\r\n" + b"\x00" * 200)
    assert_error(path, "binary")


def test_a_batch_reports_bad_files_and_goes_on(tmp_path: Path) -> None:
    good = text_pdf(tmp_path / "a.pdf", ["Primeiro documento valido."])
    (tmp_path / "b.pdf").write_bytes(b"%PDF-1.4 garbage")
    (tmp_path / "c.txt").write_text("Texto simples.", encoding="utf-8")
    (tmp_path / "d.bin").write_bytes(b"\x00")
    done, failed = [], []
    for path in sorted(tmp_path.iterdir()):
        try:
            done.append(clean_document(extract(path)).source_id)
        except DocumentError as err:
            failed.append((Path(err.path).name, err.reason))
    assert [Path(x).name for x in done] == ["a.pdf", "c.txt"]
    assert [name for name, _ in failed] == ["b.pdf", "d.bin"]
    assert str(good) in done


def test_bad_csv_rows_are_reported_one_by_one(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(
        'ID,TEXT,ano\n1,primeiro,2020\n,sem id,2021\n2,,2022\n1,duplicado,2023\n3,"terceiro\n com quebra",2024\n',
        encoding="utf-8",
    )
    errors: list[DocumentError] = []
    records = list(
        iter_csv_records(path, id_column="ID", text_column="TEXT", on_error=errors.append)
    )
    assert [r.source_id for r in records] == ["1", "3"]
    assert records[0].metadata == {"ano": "2020"}
    assert len(errors) == 3
    assert all(str(path) in e.path for e in errors)
    reasons = " | ".join(e.reason for e in errors)
    assert "empty id" in reasons
    assert "empty text" in reasons
    assert "duplicate id" in reasons
    assert "row 4" in errors[1].path


def test_csv_without_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(DocumentError, match="not found"):
        list(iter_csv_records(path, id_column="ID", text_column="TEXT"))


def test_license_files_beside_a_data_set_are_not_documents(tmp_path: Path) -> None:
    """Walking a folder skips its LICENSE/NOTICE files (they would be reported as not ingested);
    naming one explicitly still ingests it."""
    from colmeia.rag.pipeline import list_files

    data = tmp_path / "laws"
    data.mkdir()
    for name in ("lei.csv", "NOTICE", "LICENSE.txt", "license.md", "COPYING", "notas.txt"):
        (data / name).write_text("x", encoding="utf-8")
    files, errors = list_files([data])
    assert [f.name for f in files] == ["lei.csv", "notas.txt"]
    assert errors == []
    files, _ = list_files([data / "NOTICE"])
    assert [f.name for f in files] == ["NOTICE"]
