"""The assistant's pages as people of one office use them: a new conversation opens on the
collection chosen; the list shows a person their own conversations, newest first (an admin
sees everyone's), never a colleague's; a clarification the assistant asked for waits on the
approvals page and is answered there; what cannot be done is said in place."""

from __future__ import annotations

import re
import time
from typing import Any

from shared_data import DATA_DIR

LINDB = DATA_DIR / "laws" / "lexml" / "decreto_lei_4657_19420904.csv"


def _laws(svc: Any, h: dict[str, str], name: str = "leis") -> None:
    files = [("files", (LINDB.name, LINDB.read_bytes(), "text/csv"))]
    r = svc.client.post(f"/v1/collections/{name}/documents", files=files, headers=h)
    assert svc.wait_job(r.json()["id"], h)["status"] == "succeeded"


def _new_conversation(svc: Any, collection: str) -> str:
    r = svc.client.post("/ui/chat/new", data={"collection": collection}, follow_redirects=False)
    assert r.status_code == 303, r.text
    found = re.fullmatch(r"/ui/chat/([0-9a-f]+)", r.headers["location"])
    assert found, r.headers["location"]
    return found.group(1)


def _listed(page: str) -> list[str]:
    return re.findall(r'<li><a href="/ui/chat/([0-9a-f]+)"', page)


def test_a_conversation_opens_on_the_chosen_collection_and_the_list_is_the_persons_own(
    make_service: Any,
) -> None:
    svc = make_service()
    me, colleague = svc.key("acme", name="balcão"), svc.key("acme", name="ouvidoria")
    boss = svc.key("acme", name="chefia", role="admin")
    _laws(svc, me, "normas")
    assert svc.sign_in(colleague["X-API-Key"]).status_code == 303
    theirs = _new_conversation(svc, "normas")

    assert svc.sign_in(me["X-API-Key"]).status_code == 303
    page = svc.client.get("/ui/chat")
    assert page.status_code == 200 and _listed(page.text) == []
    assert '<option value="normas">normas</option>' in page.text
    first = _new_conversation(svc, "normas")
    time.sleep(0.01)
    second = _new_conversation(svc, "")  # no choice: the assistant's default collection
    opened = svc.client.get(f"/ui/chat/{first}")
    assert opened.status_code == 200
    assert f'data-thread="{first}" data-collection="normas"' in opened.text
    assert f'<a href="/ui/chat/{first}" aria-current="page">' in opened.text
    assert 'data-collection="leis"' in svc.client.get(f"/ui/chat/{second}").text
    # newest first, and the colleague's conversation is not there
    assert _listed(svc.client.get("/ui/chat").text) == [second, first]
    assert _listed(opened.text) == [second, first]
    # nor can it be opened by its address
    stolen = svc.client.get(f"/ui/chat/{theirs}")
    assert stolen.status_code == 200 and '<p class="error" role="alert">' in stolen.text
    assert f'data-thread="{theirs}"' not in stolen.text

    assert svc.sign_in(boss["X-API-Key"]).status_code == 303
    assert _listed(svc.client.get("/ui/chat").text) == [second, first, theirs]


def test_the_conversation_list_shows_the_hundred_newest(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    _laws(svc, h)
    assert svc.sign_in(h["X-API-Key"]).status_code == 303
    made = [_new_conversation(svc, "leis") for _ in range(3)]
    # 101 conversations: 98 an hour old, the first two made a day before (the second one
    # later than the first), the third just now
    row = svc.state.db.one("SELECT * FROM threads WHERE id = ?", (made[0],))
    hour_ago = time.time() - 3600
    for i in range(98):
        svc.state.db.execute(
            "INSERT INTO threads(id, tenant_id, title, created_by, status, pending, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, 'idle', ?, ?, ?)",
            (f"{i:032x}", "acme", "", row["created_by"], row["pending"], hour_ago, hour_ago + i),
        )
    day_ago = time.time() - 86400
    for n, thread in enumerate(made[:2]):
        svc.state.db.execute(
            "UPDATE threads SET updated_at = ? WHERE id = ?", (day_ago + n, thread)
        )
    listed = _listed(svc.client.get("/ui/chat").text)
    assert listed == [made[2], *(f"{i:032x}" for i in reversed(range(98))), made[1]]


def test_a_clarification_waits_on_the_approvals_page_and_is_answered_there(
    make_service: Any,
) -> None:
    svc = make_service()
    h = svc.key("acme")
    _laws(svc, h)
    assert svc.sign_in(h["X-API-Key"]).status_code == 303
    assert "Nada aguardando." in svc.client.get("/ui/approvals").text
    tid = _new_conversation(svc, "leis")
    asked = svc.client.post(
        f"/v1/assistant/threads/{tid}/messages",
        json={"text": "Como anda o meu processo?"},
        headers=h,
    ).json()
    assert asked["status"] == "waiting_clarification"
    waiting = svc.client.get("/ui/approvals").text
    assert f'id="pending-{tid}"' in waiting and "Nada aguardando." not in waiting
    assert 'id="waiting-note"' in svc.client.get(f"/ui/chat/{tid}").text

    # approving is no answer to a question: said in place, the question still waits
    wrong = svc.client.post(f"/ui/approvals/{tid}", data={"action": "approve"})
    assert wrong.status_code == 200 and '<p class="error" role="alert">' in wrong.text
    assert f'id="pending-{tid}"' in svc.client.get("/ui/approvals").text

    done = svc.client.post(f"/ui/approvals/{tid}", data={"text": "é o TC 001.234/2019"})
    assert done.status_code == 200
    assert 'class="card resumed"' in done.text and 'data-status="answered"' in done.text
    assert f'href="/ui/chat/{tid}"' in done.text
    assert "Nada aguardando." in svc.client.get("/ui/approvals").text
    messages = svc.client.get(f"/v1/assistant/threads/{tid}", headers=h).json()["messages"]
    assert "é o TC 001.234/2019" in [m["text"] for m in messages]


def test_a_new_conversation_on_a_name_that_is_no_collection_name_is_refused(
    make_service: Any,
) -> None:
    svc = make_service()
    h = svc.key("acme")
    assert svc.sign_in(h["X-API-Key"]).status_code == 303
    r = svc.client.post("/ui/chat/new", data={"collection": "leis;DROP"}, follow_redirects=False)
    assert r.status_code == 422 and "<h1>" in r.text
    assert svc.client.get("/v1/assistant/threads", headers=h).json() == []
