"""The count of what a PDF's compressed streams inflate to, taken before PDFium opens the file
(colmeia.rag.ingest.pdf_limits.inflated_size): every Flate stream counted, each one cut at its
``endstream``, a stream cut short counted as far as it goes, other data counted zero, and the
count stopped a megabyte step past the limit — a bomb is never inflated whole."""

from __future__ import annotations

import zlib
from pathlib import Path

from colmeia.rag.ingest.pdf_limits import inflated_size

MB = 1 << 20


def _obj(n: int, body: bytes, end: bytes = b"\nendstream\nendobj\n") -> bytes:
    return f"{n} 0 obj\n<< /Filter /FlateDecode >>\nstream\n".encode() + body + end


def _file(tmp_path: Path, *objects: bytes) -> Path:
    path = tmp_path / "doc.pdf"
    path.write_bytes(b"%PDF-1.7\n" + b"".join(objects) + b"%%EOF\n")
    return path


def test_every_flate_stream_is_counted_and_other_streams_count_zero(tmp_path: Path) -> None:
    page = b"BT /F1 12 Tf (texto) Tj ET\n" * 100  # 2700 bytes
    path = _file(
        tmp_path,
        _obj(1, zlib.compress(b"a" * 1000)),
        _obj(2, b"\xff\xd8\xff\xe0 a JPEG, not zlib data"),
        _obj(3, zlib.compress(page)),
    )
    assert inflated_size(path, 10 * MB) == 1000 + 2700


def test_a_stream_cut_short_counts_what_it_inflates_to_up_to_its_endstream(
    tmp_path: Path,
) -> None:
    # stored (level 0) data inflates byte for byte: what follows the cut is not more of it
    whole = zlib.compress(bytes(range(256)) * 20, 0)
    cut = whole[: 2 + 5 + 3000]  # zlib header, the stored block's header, 3000 bytes
    path = _file(
        tmp_path, _obj(1, cut, b"endstream\nendobj\n"), _obj(2, zlib.compress(b"b" * 2000))
    )
    assert inflated_size(path, 10 * MB) == 3000 + 2000


def test_a_file_that_ends_inside_a_stream_counts_it_to_the_last_byte(tmp_path: Path) -> None:
    whole = zlib.compress(bytes(range(256)) * 20, 0)
    path = tmp_path / "cut.pdf"
    path.write_bytes(b"%PDF-1.7\n1 0 obj\nstream\n" + whole[: 2 + 5 + 3000])  # no endstream
    assert inflated_size(path, 10 * MB) == 3000


def test_a_bomb_is_counted_only_a_step_past_the_limit(tmp_path: Path) -> None:
    path = _file(tmp_path, _obj(1, zlib.compress(bytes(64 * MB), 9)), _obj(2, zlib.compress(b"x")))
    size = inflated_size(path, 2 * MB)
    assert 2 * MB < size <= 3 * MB
    assert inflated_size(path, 100 * MB) == 64 * MB + 1


def test_reaching_the_limit_exactly_is_not_over_it_but_one_byte_more_is(tmp_path: Path) -> None:
    exact = _file(tmp_path, _obj(1, zlib.compress(bytes(5000))))
    assert inflated_size(exact, 5000) == 5000
    over = _file(tmp_path, _obj(1, zlib.compress(bytes(5000))), _obj(2, zlib.compress(b"!")))
    assert inflated_size(over, 5000) == 5001
