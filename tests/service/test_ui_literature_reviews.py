"""A literature review as a person runs it in the web UI: a bibliography imported from the page
becomes a job, a review started from the form opens its page, the works are screened there one
row at a time (an exclusion without a reason is said on the row, nothing recorded), the list of
reviews links to it, and another tenant finds none of it."""

from __future__ import annotations

import csv
import io
import re
import time
from typing import Any

from shared_data import DATA_DIR

THESES = DATA_DIR / "theses" / "capes_resumos.csv"


def _small_bibliography(rows: int = 30) -> bytes:
    """The first rows of the CAPES abstracts file: enough works, a quick import."""
    text = THESES.read_text("utf-8")
    reader = csv.reader(io.StringIO(text))
    out = io.StringIO()
    writer = csv.writer(out)
    for i, row in enumerate(reader):
        if i > rows:
            break
        writer.writerow(row)
    return out.getvalue().encode()


def _imported_from_the_page(svc: Any, collection: str) -> None:
    files = [("files", ("capes.csv", _small_bibliography(), "text/csv"))]
    r = svc.client.post("/ui/library", data={"collection": collection}, files=files)
    assert r.status_code == 200, r.text
    found = re.search(r'id="job-([^"]+)"', r.text)
    assert found, r.text
    job = svc.wait_job(found.group(1), svc.key("acme"), timeout=120)
    assert job["status"] == "succeeded", job
    assert job["result"]["records"] == 30


def _review_from_the_form(svc: Any, question: str, collection: str, top: int) -> str:
    r = svc.client.post(
        "/ui/reviews",
        data={"question": question, "collection": collection, "top": str(top)},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    review_id = str(r.headers["location"].removeprefix("/ui/reviews/"))
    deadline = time.monotonic() + 120
    while 'id="review-table"' not in (page := svc.client.get(f"/ui/reviews/{review_id}").text):
        assert 'data-status="failed"' not in page, page
        assert time.monotonic() < deadline, page
        time.sleep(0.2)
    return review_id


def test_a_review_started_from_the_page_is_screened_row_by_row(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    assert svc.sign_in(h["X-API-Key"]).status_code == 303
    assert "Nenhuma revisão ainda." in svc.client.get("/ui/reviews").text
    _imported_from_the_page(svc, "teses")
    question = "educação inclusiva na formação de professores"
    review_id = _review_from_the_form(svc, question, "teses", 4)
    page = svc.client.get(f"/ui/reviews/{review_id}").text
    works = re.findall(r'<tr id="work-(\d+)" data-work="([^"]+)" data-decision="pending">', page)
    assert [rank for rank, _ in works] == ["1", "2", "3", "4"]  # the number of works asked for
    first, second = works[0][1], works[1][1]

    included = svc.client.post(
        f"/ui/reviews/{review_id}/screening", data={"work": first, "decision": "include"}
    )
    assert included.status_code == 200
    assert f'data-work="{first}" data-decision="include"' in included.text
    # an exclusion needs a reason: said on the row, the row still pending
    no_reason = svc.client.post(
        f"/ui/reviews/{review_id}/screening", data={"work": second, "decision": "exclude"}
    )
    assert no_reason.status_code == 200
    assert f'data-work="{second}" data-decision="pending"' in no_reason.text
    assert '<p class="error" role="alert">' in no_reason.text
    excluded = svc.client.post(
        f"/ui/reviews/{review_id}/screening",
        data={"work": second, "decision": "exclude", "reason": "fora do tema"},
    )
    assert f'data-work="{second}" data-decision="exclude"' in excluded.text
    assert '<span class="reason">fora do tema</span>' in excluded.text
    assert '<p class="error"' not in excluded.text
    # a work is also named by its rank
    by_rank = svc.client.post(
        f"/ui/reviews/{review_id}/screening", data={"work": "3", "decision": "include"}
    )
    assert 'id="work-3"' in by_rank.text and 'data-decision="include"' in by_rank.text
    unknown = svc.client.post(
        f"/ui/reviews/{review_id}/screening", data={"work": "nada", "decision": "include"}
    )
    assert unknown.status_code == 200
    assert "no work &#39;nada&#39; in this review" in unknown.text

    got = svc.client.get(f"/v1/reviews/{review_id}", headers=h).json()["review"]["works"]
    decisions = [(w["screening"] or {}).get("decision", "pending") for w in got]
    assert decisions == ["include", "exclude", "include", "pending"]

    listed = svc.client.get("/ui/reviews").text
    assert f'<a href="/ui/reviews/{review_id}">{question}</a>' in listed
    assert '<option value="teses">teses</option>' in listed

    assert svc.sign_in(svc.key("globex")["X-API-Key"]).status_code == 303
    theirs = svc.client.get(f"/ui/reviews/{review_id}")
    assert theirs.status_code == 200 and 'id="review-table"' not in theirs.text
    assert '<p class="error" role="alert">' in theirs.text
    screened = svc.client.post(
        f"/ui/reviews/{review_id}/screening", data={"work": first, "decision": "exclude"}
    )
    assert '<p class="error" role="alert">' in screened.text and "data-work" not in screened.text
    assert "Nenhuma revisão ainda." in svc.client.get("/ui/reviews").text


def test_a_review_of_a_collection_that_does_not_exist_is_refused_in_place(
    make_service: Any,
) -> None:
    svc = make_service()
    h = svc.key("acme")
    assert svc.sign_in(h["X-API-Key"]).status_code == 303
    r = svc.client.post(
        "/ui/reviews",
        data={"question": "educação inclusiva", "collection": "nada", "top": "3"},
        follow_redirects=False,
    )
    assert r.status_code == 200 and '<p class="error" role="alert">' in r.text
    assert svc.client.get("/v1/reviews", headers=h).json() == []
    files = [("files", ("virus.exe", b"MZ....", "application/octet-stream"))]
    bad = svc.client.post("/ui/library", data={"collection": "obras"}, files=files)
    assert bad.status_code == 200 and '<p class="error" role="alert">' in bad.text
    assert 'class="job"' not in bad.text
