"""The assistant over HTTP, as a tenant with several keys uses it: per-message flags by their
documented names, and threads that belong to the key that made them."""

from __future__ import annotations

from typing import Any

from shared_data import DATA_DIR

LINDB = DATA_DIR / "laws" / "lexml" / "decreto_lei_4657_19420904.csv"
QUESTION = "Em quanto tempo a lei começa a vigorar depois de publicada?"


def _laws(svc: Any, h: dict[str, str]) -> None:
    files = [("files", (LINDB.name, LINDB.read_bytes(), "text/csv"))]
    r = svc.client.post("/v1/collections/leis/documents", files=files, headers=h)
    assert svc.wait_job(r.json()["id"], h)["status"] == "succeeded"


def _thread(svc: Any, h: dict[str, str]) -> str:
    r = svc.client.post("/v1/assistant/threads", json={"title": "teste"}, headers=h)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def _ask(svc: Any, tid: str, h: dict[str, str], **body: Any) -> Any:
    return svc.client.post(
        f"/v1/assistant/threads/{tid}/messages", json={"text": QUESTION, **body}, headers=h
    )


def test_flags_take_the_short_and_the_long_names_and_refuse_unknown_ones(
    make_service: Any,
) -> None:
    svc = make_service()
    h = svc.key("acme")
    _laws(svc, h)
    tid = _thread(svc, h)
    for flags in ({"rag": False}, {"enable_rag_processing": False}):
        r = _ask(svc, tid, h, flags=flags)
        assert r.status_code == 200, r.text
        assert "desativada" in r.json()["answer"] and r.json()["citations"] == []
    on = _ask(svc, tid, h, flags={"web": False, "system": True, "rag": True})
    assert on.status_code == 200 and on.json()["citations"]
    bad = _ask(svc, tid, h, flags={"webz": True})
    assert bad.status_code == 422
    assert "unknown flag 'webz'" in bad.text and "enable_web_search" in bad.text


def test_a_thread_belongs_to_its_key_unless_an_admin_shares_it(make_service: Any) -> None:
    svc = make_service()
    owner = svc.key("acme", name="balcão")
    other = svc.key("acme", name="ouvidoria")
    admin = svc.key("acme", name="chefia", role="admin")
    _laws(svc, owner)
    tid = _thread(svc, owner)
    assert _ask(svc, tid, owner).status_code == 200
    # another key of the same tenant: the thread does not exist for it
    assert svc.client.get(f"/v1/assistant/threads/{tid}", headers=other).status_code == 404
    assert _ask(svc, tid, other).status_code == 404
    resumed = svc.client.post(
        f"/v1/assistant/threads/{tid}/resume", json={"text": "x"}, headers=other
    )
    assert resumed.status_code == 404
    listed = svc.client.get("/v1/assistant/threads", headers=other).json()
    assert tid not in [t["id"] for t in listed]
    # only an admin may share; then the whole tenant reads it
    assert svc.client.post(f"/v1/assistant/threads/{tid}/share", headers=other).status_code in (
        403,
        404,
    )
    assert svc.client.get(f"/v1/assistant/threads/{tid}", headers=admin).status_code == 200
    shared = svc.client.post(f"/v1/assistant/threads/{tid}/share", headers=admin)
    assert shared.status_code == 200 and shared.json()["shared"] is True
    thread = svc.client.get(f"/v1/assistant/threads/{tid}", headers=other)
    assert thread.status_code == 200
    assert [m["role"] for m in thread.json()["messages"]] == ["user", "assistant"]
    # a new turn keeps it shared
    assert _ask(svc, tid, owner).status_code == 200
    assert svc.client.get(f"/v1/assistant/threads/{tid}", headers=other).status_code == 200
