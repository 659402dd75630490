"""A moderation batch as a person runs it in the web UI: the batch sent from the page opens its
job page; the progress fragment keeps polling while the job runs and asks for a refresh once it
ends; the job page lists every result (with the count) and, once finished, the review queue;
the batch list links to it; a batch that cannot be taken, another tenant's job and a verdict on
a result that is not there are said in place."""

from __future__ import annotations

import json
import time
from typing import Any

from colmeia.service.simulated import demo_model
from shared_data import DATA_DIR


def _records(n: int) -> bytes:
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:n]
    return json.dumps(records).encode()


def _signed_in(make_service: Any, **options: Any) -> Any:
    svc = make_service(**options)
    assert svc.sign_in(svc.key("acme")["X-API-Key"]).status_code == 303
    return svc


def _start_from_the_page(svc: Any, n: int = 5) -> str:
    files = [("files", ("lote.json", _records(n), "application/json"))]
    r = svc.client.post("/ui/moderation", files=files)
    # htmx follows HX-Redirect to the job's page
    assert r.status_code == 204, r.text
    target = r.headers["HX-Redirect"]
    assert target.startswith("/ui/moderation/")
    return str(target.removeprefix("/ui/moderation/"))


def _until_finished(svc: Any, job_id: str) -> Any:
    deadline = time.monotonic() + 90
    while True:
        part = svc.client.get(f"/ui/moderation/{job_id}/progress")
        assert part.status_code == 200
        if "hx-get" not in part.text:
            return part
        assert "HX-Refresh" not in part.headers  # no reload while it still runs
        assert time.monotonic() < deadline, part.text
        time.sleep(0.1)


def test_a_batch_sent_from_the_page_runs_to_its_results_and_review_queue(
    make_service: Any,
) -> None:
    svc = _signed_in(make_service, model=demo_model())
    page = svc.client.get("/ui/moderation")
    assert page.status_code == 200 and "Nenhum lote ainda." in page.text
    assert "Moderar lote" in page.text
    job_id = _start_from_the_page(svc, 5)
    done = _until_finished(svc, job_id)
    assert 'data-status="succeeded"' in done.text
    assert '<span class="finished">5</span>/<span class="total">5</span>' in done.text
    # the finished job asks the page to reload: results and report appear
    assert done.headers.get("HX-Refresh") == "true"

    job_page = svc.client.get(f"/ui/moderation/{job_id}")
    assert job_page.status_code == 200
    assert "Resultados (5)" in job_page.text
    assert job_page.text.count('<td class="outcome-') == 5
    assert 'id="review-queue"' in job_page.text and 'id="report-link"' in job_page.text
    h = svc.key("acme")
    queue = svc.client.get(f"/v1/moderation/jobs/{job_id}/review", headers=h).json()
    assert queue["items"]
    assert f"Fila de revisão ({len(queue['items'])})" in job_page.text
    for item in queue["items"]:
        assert f'data-key="{item["key"]}"' in job_page.text

    listed = svc.client.get("/ui/moderation").text
    assert f'href="/ui/moderation/{job_id}"' in listed and "5/5" in listed


def test_a_job_still_running_shows_no_review_queue_yet(make_service: Any) -> None:
    svc = _signed_in(make_service, model=demo_model())
    job_id = _start_from_the_page(svc, 3)
    _until_finished(svc, job_id)
    svc.state.db.execute("UPDATE jobs SET status = 'running' WHERE id = ?", (job_id,))
    page = svc.client.get(f"/ui/moderation/{job_id}")
    assert page.status_code == 200
    assert 'id="review-queue"' not in page.text
    progress = svc.client.get(f"/ui/moderation/{job_id}/progress")
    assert "hx-get" in progress.text and "HX-Refresh" not in progress.headers
    for ended in ("failed", "cancelled", "partial"):
        svc.state.db.execute("UPDATE jobs SET status = ? WHERE id = ?", (ended, job_id))
        progress = svc.client.get(f"/ui/moderation/{job_id}/progress")
        assert progress.headers.get("HX-Refresh") == "true", ended


def test_the_job_page_lists_at_most_two_hundred_results_and_counts_them_all(
    make_service: Any,
) -> None:
    svc = _signed_in(make_service, model=demo_model())
    job_id = _start_from_the_page(svc, 2)
    _until_finished(svc, job_id)
    results = svc.state.tenants.job_folder("acme", "moderation", job_id) / "results.jsonl"
    line = json.loads(results.read_text("utf-8").splitlines()[0])
    many = [{**line, "id": f"r{i}", "key": f"r{i}@lote"} for i in range(250)]
    results.write_text("".join(json.dumps(x) + "\n" for x in many), "utf-8")
    page = svc.client.get(f"/ui/moderation/{job_id}").text
    assert "Resultados (250)" in page
    assert page.count('<td class="outcome-') == 200
    assert "<td>r199</td>" in page and "<td>r200</td>" not in page


def test_what_cannot_be_done_is_said_in_place(make_service: Any) -> None:
    svc = _signed_in(make_service, model=demo_model())
    job_id = _start_from_the_page(svc, 2)
    _until_finished(svc, job_id)
    not_json = [("files", ("lote.txt", b"oi", "text/plain"))]
    refused = svc.client.post("/ui/moderation", files=not_json)
    assert refused.status_code == 200 and "HX-Redirect" not in refused.headers
    assert '<p class="error" role="alert">Erro: ' in refused.text
    missing = svc.client.post(f"/ui/moderation/{job_id}/review/nada@x", data={"verdict": "accept"})
    assert missing.status_code == 200
    assert "no result &#39;nada@x&#39; in this job" in missing.text

    # another tenant's person: the job does not exist for them
    other = svc.key("globex")["X-API-Key"]
    assert svc.sign_in(other).status_code == 303
    for r in (
        svc.client.get(f"/ui/moderation/{job_id}"),
        svc.client.get(f"/ui/moderation/{job_id}/progress"),
        svc.client.post(f"/ui/moderation/{job_id}/review/x@y", data={"verdict": "accept"}),
    ):
        assert r.status_code == 200 and '<p class="error" role="alert">' in r.text, r.text
        assert "Resultados" not in r.text


def test_without_a_model_the_page_says_so_and_a_batch_is_refused(make_service: Any) -> None:
    svc = _signed_in(make_service)
    page = svc.client.get("/ui/moderation")
    assert '<p class="error">' in page.text
    files = [("files", ("lote.json", _records(2), "application/json"))]
    r = svc.client.post("/ui/moderation", files=files)
    assert r.status_code == 200 and "HX-Redirect" not in r.headers
    assert '<p class="error" role="alert">' in r.text
    with_model = _signed_in(make_service, model=demo_model())
    assert '<p class="error">' not in with_model.client.get("/ui/moderation").text
