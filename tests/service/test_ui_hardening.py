"""The web UI under attack and error: sign-in needs this site's form (login CSRF), failed
sign-ins are throttled, errors and rate limits are pages, and a verdict (accept, reject or
edit) may be given on any result of a moderation job without a 500 (issue 20)."""

from __future__ import annotations

import json
import re
from typing import Any

from colmeia.service.simulated import demo_model
from shared_data import DATA_DIR


def test_sign_in_from_another_site_or_without_the_form_token_is_refused(
    make_service: Any,
) -> None:
    svc = make_service()
    key = svc.key("acme")["X-API-Key"]
    # a forged form on another site: no token of ours
    forged = svc.client.post("/ui/login", data={"key": key}, follow_redirects=False)
    assert forged.status_code == 403 and "colmeia_session" not in forged.cookies
    assert "<h1>" in forged.text and "this site" in forged.text  # a page, not JSON
    # our token, but posted from another origin
    form = svc.client.get("/ui/login").text
    token = re.search(r'name="csrf" value="([^"]+)"', form)
    assert token is not None
    cross = svc.client.post(
        "/ui/login",
        data={"key": key, "csrf": token.group(1)},
        headers={"Origin": "https://evil.example"},
        follow_redirects=False,
    )
    assert cross.status_code == 403
    assert svc.sign_in(key).status_code == 303


def test_failed_sign_ins_are_throttled_with_a_page(make_service: Any) -> None:
    svc = make_service(auth_failures_per_minute=3)
    statuses = [svc.sign_in(f"cmk_wrong{i}").status_code for i in range(5)]
    assert statuses == [401, 401, 401, 429, 429]
    page = svc.sign_in("cmk_wrong").text
    assert "too many failed sign-ins" in page and "<!doctype html>" in page


def test_a_rate_limited_person_sees_a_page_with_the_wait(make_service: Any) -> None:
    svc = make_service()
    key = svc.key("acme", rate_limit=2)["X-API-Key"]
    assert svc.sign_in(key).status_code == 303
    answers = [svc.client.get("/ui/search") for _ in range(4)]
    limited = answers[-1]
    assert limited.status_code == 429
    assert limited.headers["content-type"].startswith("text/html")
    assert "rate limit of 2 requests per minute" in limited.text
    assert re.search(r"Tente de novo em \d+ s", limited.text)


def _moderated(svc: Any, h: dict[str, str]) -> str:
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:6]
    files = [("files", ("lote.json", json.dumps(records).encode(), "application/json"))]
    job = svc.client.post("/v1/moderation/jobs", files=files, headers=h).json()
    assert svc.wait_job(job["id"], h)["status"] == "succeeded"
    return str(job["id"])


def test_a_verdict_on_a_result_outside_the_review_queue_is_shown_not_a_500(
    make_service: Any,
) -> None:
    svc = make_service(model=demo_model())
    h = svc.key("acme")
    job_id = _moderated(svc, h)
    # the demo model rewrites or withholds every sample; a result it kept as written (what a
    # real model does with a good answer) is outside the review queue
    results = svc.state.tenants.job_folder("acme", "moderation", job_id) / "results.jsonl"
    lines = [json.loads(line) for line in results.read_text("utf-8").splitlines()]
    lines[0]["outcome"] = "KEEP_ORIGINAL"
    results.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    outside = str(lines[0]["key"])
    queue = svc.client.get(f"/v1/moderation/jobs/{job_id}/review", headers=h).json()
    assert outside not in {i["key"] for i in queue["items"]}
    assert svc.sign_in(h["X-API-Key"]).status_code == 303
    r = svc.client.post(f"/ui/moderation/{job_id}/review/{outside}", data={"verdict": "reject"})
    assert r.status_code == 200
    assert f'data-key="{outside}" data-verdict="reject"' in r.text


def test_the_edit_verdict_in_the_browser_keeps_the_edited_answer(make_service: Any) -> None:
    svc = make_service(model=demo_model())
    h = svc.key("acme")
    job_id = _moderated(svc, h)
    key = svc.client.get(f"/v1/moderation/jobs/{job_id}/review", headers=h).json()["items"][0][
        "key"
    ]
    assert svc.sign_in(h["X-API-Key"]).status_code == 303
    page = svc.client.get(f"/ui/moderation/{job_id}").text
    assert 'name="edited_answer"' in page  # the edit form is on the page
    empty = svc.client.post(
        f"/ui/moderation/{job_id}/review/{key}", data={"verdict": "edit", "edited_answer": ""}
    )
    assert 'class="error"' in empty.text  # an edit needs the edited text; nothing recorded
    r = svc.client.post(
        f"/ui/moderation/{job_id}/review/{key}",
        data={"verdict": "edit", "edited_answer": "Prezado cliente, o prazo é de 7 dias."},
    )
    assert 'data-verdict="edit"' in r.text and "o prazo é de 7 dias" in r.text
    item = next(
        i
        for i in svc.client.get(f"/v1/moderation/jobs/{job_id}/review", headers=h).json()["items"]
        if i["key"] == key
    )
    assert item["verdict"]["verdict"] == "edit"
    assert item["verdict"]["edited_answer"] == "Prezado cliente, o prazo é de 7 dias."
