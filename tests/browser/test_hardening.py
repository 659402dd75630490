"""Issue 20 in a real browser: the Content-Security-Policy breaks no page (no console error,
no CSP violation, the API docs render from local assets) and the moderation edit verdict is
given from the page."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared_data import DATA_DIR

pytestmark = [pytest.mark.xdist_group("browser"), pytest.mark.slow]

PAGES = (
    "/ui/login",
    "/ui/search",
    "/ui/chat",
    "/ui/approvals",
    "/ui/cases",
    "/ui/moderation",
    "/ui/reviews",
    "/docs",
    "/redoc",
)


def test_the_csp_breaks_no_page(browser_context: Any, server: Any, screenshots: Path) -> None:
    for path in PAGES:
        page = browser_context.new_page()
        problems: list[str] = []
        page.on(
            "console", lambda m, seen=problems: seen.append(m.text) if m.type == "error" else None
        )
        # nothing is fetched from anywhere but the service (a CSP-blocked fetch shows too)
        page.on(
            "request",
            lambda r, seen=problems: (
                None
                if r.url.startswith((server.url, "data:", "blob:"))
                else seen.append(f"request to {r.url}")
            ),
        )
        page.on("pageerror", lambda e, seen=problems: seen.append(str(e)))
        response = page.goto(f"{server.url}{path}")
        assert response is not None and response.ok, path
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        page.wait_for_load_state("networkidle")
        if path == "/docs":
            page.locator(".swagger-ui .info .title").wait_for()  # rendered, offline
        if path == "/redoc":
            page.locator("h1").first.wait_for()
        page.screenshot(path=str(screenshots / f"csp{path.replace('/', '-')}.png"))
        assert problems == [], f"{path}: {problems}"
        if path == "/redoc":
            # the footer's logo (ReDoc fetches it from cdn.redoc.ly) is served from here
            logo = page.locator('img[alt="redocly logo"]')
            logo.wait_for()
            assert logo.get_attribute("src") == "/static/redoc-logo.svg"
            assert logo.evaluate("img => img.complete && img.naturalWidth > 0")
        page.close()


def test_the_edit_verdict_is_given_in_the_browser(
    page: Any, server: Any, screenshots: Path
) -> None:
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:4]
    h = {"X-API-Key": server.key}
    files = [("files", ("lote.json", json.dumps(records).encode(), "application/json"))]
    # a generous timeout per request and a bounded number of polls, not a clock: on a busy
    # machine the job's answers came after httpx's default 5 s
    api = httpx.Client(headers=h, timeout=60)
    job = api.post(f"{server.url}/v1/moderation/jobs", files=files).json()
    for _ in range(600):
        if api.get(f"{server.url}/v1/jobs/{job['id']}").json()["status"] == "succeeded":
            break
        time.sleep(0.3)
    else:
        pytest.fail(f"job {job['id']} not done after 600 polls")
    page.goto(f"{server.url}/ui/moderation/{job['id']}")
    item = page.locator("#review-queue article.review-item").first
    key = item.get_attribute("data-key")
    item.locator("details.edit-verdict summary").click()
    edited = "Prezado cliente, a troca é feita em até 7 dias."
    item.locator("textarea[name=edited_answer]").fill(edited)
    item.get_by_role("button", name="Salvar a edição").click()
    judged = page.locator(f'article.review-item[data-key="{key}"][data-verdict="edit"]')
    judged.wait_for()
    assert edited in judged.locator(".edited-answer").inner_text()
    page.screenshot(path=str(screenshots / "moderation-edit-verdict.png"), full_page=True)
    page.reload()  # stored, not only shown
    page.locator(f'article.review-item[data-key="{key}"][data-verdict="edit"]').wait_for()
    queue = api.get(f"{server.url}/v1/moderation/jobs/{job['id']}/review").json()
    api.close()
    verdict = next(i["verdict"] for i in queue["items"] if i["key"] == key)
    assert verdict["verdict"] == "edit" and verdict["edited_answer"] == edited


def test_works_of_a_review_are_screened_in_the_browser(
    page: Any, server: Any, screenshots: Path
) -> None:
    theses = DATA_DIR / "theses" / "capes_resumos.csv"
    h = {"X-API-Key": server.key}

    def finished(job_id: str) -> None:
        # a bounded number of polls with a generous request timeout, not a clock
        for _ in range(600):
            status = httpx.get(f"{server.url}/v1/jobs/{job_id}", headers=h, timeout=60).json()
            if status["status"] not in ("queued", "running"):
                return
            time.sleep(0.2)
        pytest.fail(f"job {job_id} still running after 600 polls")

    lib = httpx.post(
        f"{server.url}/v1/collections/triagem/library",
        files=[("files", (theses.name, theses.read_bytes(), "text/csv"))],
        headers=h,
        timeout=60,
    ).json()
    finished(lib["id"])
    review = httpx.post(
        f"{server.url}/v1/reviews",
        json={"question": "formação de professores", "collection": "triagem", "top": 3},
        headers=h,
    ).json()
    finished(review["id"])
    page.goto(f"{server.url}/ui/reviews/{review['id']}")
    rows = page.locator("#review-table tbody tr")
    assert rows.count() == 3
    first, second = rows.nth(0), rows.nth(1)
    work1, work2 = first.get_attribute("data-work"), second.get_attribute("data-work")
    first.get_by_role("button", name="Incluir").click()
    page.locator(f'tr[data-work="{work1}"][data-decision="include"]').wait_for()
    # an exclusion needs a reason: without one the row says so and nothing is recorded
    second.get_by_role("button", name="Excluir").click()
    page.locator(f'tr[data-work="{work2}"] .error').wait_for()
    row2 = page.locator(f'tr[data-work="{work2}"]')
    assert row2.get_attribute("data-decision") == "pending"
    row2.get_by_label("Motivo").fill("fora do tema")
    row2.get_by_role("button", name="Excluir").click()
    page.locator(f'tr[data-work="{work2}"][data-decision="exclude"]').wait_for()
    page.screenshot(path=str(screenshots / "review-screening.png"), full_page=True)
    prisma = httpx.get(f"{server.url}/v1/reviews/{review['id']}", headers=h).json()["review"]
    decisions = {w["doc_id"]: w["screening"] for w in prisma["works"]}
    assert decisions[work1]["decision"] == "include"
    assert decisions[work2]["decision"] == "exclude"
    assert decisions[work2]["reason"] == "fora do tema"
