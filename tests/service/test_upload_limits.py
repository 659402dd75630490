"""Upload limits over HTTP: the size of each whole file, and the number of files at once.

The size cap is per file, however the file arrives: a file larger than the cap *and* larger
than one read chunk (1 MiB) is refused with a 413 naming it, and nothing of it is kept. A file
of exactly the cap is accepted. More files than ``max_files_per_upload`` in one request are
refused before any is written.
"""

from __future__ import annotations

from typing import Any

MIB = 1024 * 1024
TEXT = "Art. 1º Esta lei regula o acesso à informação pública. ".encode()


def _files(**named: bytes) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (name, data, "text/plain")) for name, data in named.items()]


def _filled(size: int) -> bytes:
    return (TEXT * (size // len(TEXT) + 1))[:size]


def test_a_file_over_the_cap_and_over_one_chunk_is_refused_and_not_kept(make_service: Any) -> None:
    svc = make_service(max_upload_mb=1.5)
    h = svc.key("acme")
    big = _filled(int(1.5 * MIB) + 1)  # two chunks of 1 MiB and 0.5 MiB + 1 byte
    r = svc.client.post(
        "/v1/collections/c/documents", files=_files(**{"grande.txt": big}), headers=h
    )
    assert r.status_code == 413, r.text
    assert r.json()["detail"] == (
        "grande.txt is larger than 1.5 MB (COLMEIA_SERVICE_MAX_UPLOAD_MB)"
    )
    tenant = svc.home / "tenants" / "acme"
    assert not [p for p in tenant.rglob("*") if p.is_file() and "grande" in p.name]


def test_a_file_of_exactly_the_cap_is_accepted_one_byte_more_is_not(make_service: Any) -> None:
    svc = make_service(max_upload_mb=0.001)  # 1048 bytes
    h = svc.key("acme")
    limit = int(0.001 * MIB)
    over = svc.client.post(
        "/v1/collections/c/documents", files=_files(**{"b.txt": _filled(limit + 1)}), headers=h
    )
    assert over.status_code == 413 and "b.txt is larger than 0.001 MB" in over.json()["detail"]
    ok = svc.client.post(
        "/v1/collections/c/documents", files=_files(**{"a.txt": _filled(limit)}), headers=h
    )
    assert ok.status_code == 202, ok.text
    job = svc.wait_job(ok.json()["id"], h)
    assert job["status"] == "succeeded" and job["result"]["added"] == 1


def test_more_files_than_the_count_limit_are_refused_before_any_is_written(
    make_service: Any,
) -> None:
    svc = make_service(max_files_per_upload=2)
    h = svc.key("acme")
    three = _files(**{f"lei{i}.txt": TEXT for i in range(3)})
    r = svc.client.post("/v1/collections/c/documents", files=three, headers=h)
    assert r.status_code == 413
    assert r.json()["detail"] == "3 files in one upload; the limit is 2 (send several)"
    tenant = svc.home / "tenants" / "acme"
    assert not [p for p in tenant.rglob("lei*.txt")]
    two = _files(**{f"lei{i}.txt": TEXT + str(i).encode() for i in range(2)})
    r = svc.client.post("/v1/collections/c/documents", files=two, headers=h)
    assert r.status_code == 202, r.text
    assert svc.wait_job(r.json()["id"], h)["result"]["added"] == 2


def test_an_upload_with_no_file_is_a_clear_422(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    r = svc.client.post("/v1/collections/c/documents", files=[], data={"x": "1"}, headers=h)
    assert r.status_code == 422


def test_an_uploaded_file_keeps_only_its_own_safe_name() -> None:
    import pytest
    from fastapi import HTTPException

    from colmeia.service.uploads import safe_name

    assert safe_name("../../etc/passwd") == "passwd"
    assert safe_name("C:\\Users\\ana\\lei 8.666.txt") == "lei 8.666.txt"
    assert safe_name("relato\u0301rio (final).pdf") == "relatório (final).pdf"  # NFC
    assert safe_name("a<b>|c?.txt") == "a_b_c_.txt"
    assert safe_name("  nota.txt. ") == "nota.txt"
    assert safe_name("x" * 200 + ".txt") == "x" * 150
    assert safe_name(".env") == "env"  # never a hidden file
    assert safe_name("XML relatório X.txt") == "XML relatório X.txt"
    for bad in ("..", " . ", "", None, "pasta/"):
        with pytest.raises(HTTPException) as err:
            safe_name(bad)
        assert err.value.status_code == 422
        assert err.value.detail == f"unusable file name {bad!r}"
