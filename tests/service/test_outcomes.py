"""Honest outcomes: a job says what happened to its items, an upload the ingester cannot read
is refused at once, and an interrupted upload never turns into documents (issue 20)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zipbombs import bomb_docx

LAW = "Art. 1º Esta lei dispõe sobre o acesso à informação pública.\n"


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return bomb_docx(tmp_path_factory.mktemp("bomb") / "b.docx", megabytes=200).read_bytes()


def _post(svc: Any, h: dict[str, str], files: list[tuple[str, bytes]]) -> Any:
    sent = [("files", (name, data, "application/octet-stream")) for name, data in files]
    return svc.client.post("/v1/collections/leis/documents", files=sent, headers=h)


def test_some_files_failed_the_job_is_partial_with_counts(make_service: Any, bomb: bytes) -> None:
    svc = make_service()
    h = svc.key("acme")
    r = _post(svc, h, [("lei.txt", LAW.encode()), ("relatorio.docx", bomb)])
    assert r.status_code == 202, r.text
    job = svc.wait_job(r.json()["id"], h)
    assert job["status"] == "partial"
    assert job["result"]["items"]["total"] == 2 and job["result"]["items"]["failed"] == 1
    assert job["result"]["documents"] == 1
    [error] = job["result"]["errors"]
    assert error["source"] == "relatorio.docx" and "zip bomb" in error["reason"]
    docs = svc.client.get("/v1/collections/leis/documents", headers=h).json()
    assert [d["doc_id"] for d in docs] == ["lei.txt"]


def test_every_file_failed_the_job_failed_naming_the_first_reason(
    make_service: Any, bomb: bytes
) -> None:
    svc = make_service()
    h = svc.key("acme")
    r = _post(svc, h, [("a.docx", bomb), ("b.txt", b"\x00" * 100)])
    job = svc.wait_job(r.json()["id"], h)
    assert job["status"] == "failed"
    assert job["error"].startswith("all 2 items failed; the first: a.docx: ")
    assert job["result"]["documents"] == 0


def test_all_files_ingested_the_job_succeeded(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    job = svc.wait_job(_post(svc, h, [("lei.txt", LAW.encode())]).json()["id"], h)
    assert job["status"] == "succeeded" and job["result"]["items"]["failed"] == 0


@pytest.mark.parametrize("name", ["casos.json", "dados.jsonl", "lei.xml", "planilha.xlsx"])
def test_a_type_the_ingester_cannot_read_is_refused_at_upload_naming_the_file(
    make_service: Any, name: str
) -> None:
    # even when an operator lists it among the upload types
    svc = make_service(upload_types=(".txt", ".json", ".jsonl", ".xml", ".xlsx"))
    h = svc.key("acme")
    r = _post(svc, h, [("lei.txt", LAW.encode()), (name, b'{"a": 1}')])
    assert r.status_code == 415
    assert r.json()["detail"].startswith(f"{name}: files of type ")
    assert svc.client.get("/v1/jobs", headers=h).json() == []
    folder = svc.state.tenants.collection_files("acme", "leis")
    assert list(folder.iterdir()) == []  # not even the good file is kept


def test_an_interrupted_upload_is_swept_at_start_up_and_never_becomes_a_document(
    make_service: Any, tmp_path: Path
) -> None:
    first = make_service()
    h = first.key("acme")
    folder = first.state.tenants.collection_files("acme", "leis")
    # what a process killed mid-upload leaves: a staging folder with a half-written .part
    staging = folder / ".incoming-0123"
    staging.mkdir(parents=True)
    (staging / ".lei.txt.part").write_bytes(b"Art. 1\xc2")
    (folder / ".nota.txt.part").write_bytes(b"half")
    first.client.__exit__(None, None, None)

    from fastapi.testclient import TestClient

    from colmeia.service.app import create_app

    again = create_app(first.state.settings, first.state.service)
    with TestClient(again) as client:
        assert list(folder.iterdir()) == []
        assert client.get("/v1/jobs", headers=h).json() == []
        assert client.get("/v1/collections", headers=h).json() == []
