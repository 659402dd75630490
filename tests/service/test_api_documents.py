"""Upload documents into a collection (an ingestion job), search them, ask with citations."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from colmeia.service.simulated import demo_model

LAW = (
    "Lei de Teste\n\n"
    "Art. 1º Esta lei dispõe sobre o tratamento de dados pessoais por órgãos públicos.\n\n"
    "Art. 2º O titular dos dados tem direito de acesso gratuito às informações sobre o "
    "tratamento de seus dados.\n\n"
    "Art. 3º A licitação de serviços de limpeza urbana segue regras próprias.\n"
)
NOTE = "Nota técnica\n\nA concessão de serviço público depende de licitação prévia.\n"


def _upload(
    svc: Any, headers: dict[str, str], collection: str, files: dict[str, str]
) -> dict[str, Any]:
    sent = [("files", (name, text.encode(), "text/plain")) for name, text in files.items()]
    r = svc.client.post(f"/v1/collections/{collection}/documents", files=sent, headers=headers)
    assert r.status_code == 202, r.text
    job = svc.wait_job(r.json()["id"], headers)
    assert job["status"] == "succeeded", job
    return job


def test_upload_then_search_finds_the_article_with_its_citation(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    job = _upload(svc, h, "leis", {"lei.txt": LAW, "nota.md": NOTE})
    assert job["result"]["added"] == 2 and job["result"]["errors"] == []
    assert job["progress"]["files_done"] == 2

    docs = svc.client.get("/v1/collections/leis/documents", headers=h).json()
    assert sorted(d["doc_id"] for d in docs) == ["lei.txt", "nota.md"]  # ids relative to uploads

    r = svc.client.post(
        "/v1/search", json={"query": "acesso gratuito aos dados", "k": 3}, headers=h
    )
    assert r.status_code == 200, r.text
    top = r.json()["hits"][0]
    assert top["doc_id"] == "lei.txt"
    assert "acesso gratuito" in top["text"]

    passage = svc.client.get(
        f"/v1/collections/leis/passages/{quote(top['chunk_id'], safe='')}", headers=h
    )
    assert passage.status_code == 200
    assert passage.json()["text"] == top["text"]


def test_uploading_the_same_file_again_adds_nothing(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    _upload(svc, h, "leis", {"lei.txt": LAW})
    again = _upload(svc, h, "leis", {"lei.txt": LAW})
    assert again["result"]["unchanged"] == 1 and again["result"]["added"] == 0
    changed = _upload(svc, h, "leis", {"lei.txt": LAW + "\nArt. 4º Nova regra.\n"})
    assert changed["result"]["updated"] == 1
    assert len(svc.client.get("/v1/collections/leis/documents", headers=h).json()) == 1


def test_ask_without_a_model_answers_with_the_best_passages(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    _upload(svc, h, "leis", {"lei.txt": LAW})
    r = svc.client.post("/v1/ask", json={"question": "quem tem acesso gratuito?"}, headers=h)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["extractive"] is True and body["simulated"] is False
    assert any("acesso gratuito" in p["text"] for p in body["passages"])


def test_ask_with_the_simulated_model_is_marked_and_its_citation_opens(make_service: Any) -> None:
    svc = make_service(model=demo_model())
    h = svc.key("acme")
    _upload(svc, h, "leis", {"lei.txt": LAW})
    r = svc.client.post("/v1/ask", json={"question": "acesso gratuito aos dados"}, headers=h)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["simulated"] is True and body["usage"]["simulated"] == 1
    assert body["citations"] and body["citations"][0]["supported"]
    chunk = body["citations"][0]["chunk_id"]
    opened = svc.client.get(
        f"/v1/collections/leis/passages/{quote(chunk, safe='')}", headers=h
    ).json()
    assert body["citations"][0]["quote"].split()[0] in opened["text"]


def test_upload_limits_name_the_file_and_the_rule(make_service: Any) -> None:
    svc = make_service(max_upload_mb=0.001, upload_types=".txt,.pdf")
    h = svc.key("acme")
    big = [("files", ("grande.txt", b"a" * 5000, "text/plain"))]
    r = svc.client.post("/v1/collections/c/documents", files=big, headers=h)
    assert r.status_code == 413 and "grande.txt" in r.json()["detail"]
    exe = [("files", ("virus.exe", b"MZ....", "application/octet-stream"))]
    r = svc.client.post("/v1/collections/c/documents", files=exe, headers=h)
    assert r.status_code == 415 and ".exe" in r.json()["detail"]
    fake = [("files", ("falso.pdf", b"not a pdf at all", "application/pdf"))]
    r = svc.client.post("/v1/collections/c/documents", files=fake, headers=h)
    assert r.status_code == 415 and "falso.pdf" in r.json()["detail"]
    assert not list((svc.home / "tenants" / "acme").rglob("*.part"))


def test_a_bad_file_is_reported_and_the_rest_is_ingested(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    sent = [
        ("files", ("lei.txt", LAW.encode(), "text/plain")),
        ("files", ("vazio.html", b"<html><body>   </body></html>", "text/html")),
    ]
    r = svc.client.post("/v1/collections/leis/documents", files=sent, headers=h)
    job = svc.wait_job(r.json()["id"], h)
    assert job["status"] == "partial"  # one of two files failed
    assert job["result"]["added"] == 1
    assert [e["source"] for e in job["result"]["errors"]] == ["vazio.html"]
