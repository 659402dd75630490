"""What a person does in the web UI, in a real browser against a real server process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shared_data import DATA_DIR

# one worker runs them all, one after the other, with one browser and one server
pytestmark = [pytest.mark.xdist_group("browser"), pytest.mark.slow]

LAW = (
    "Lei de Acesso de Teste\n\n"
    "Art. 1º Qualquer pessoa pode pedir informações aos órgãos públicos sem dizer o motivo.\n\n"
    "Art. 2º O prazo para responder ao pedido de informação é de vinte dias, prorrogável por "
    "mais dez dias.\n\n"
    "Art. 3º A licitação de obras segue a lei própria.\n"
)


def test_sign_in_page_is_portuguese_by_default_and_switches_to_english(
    server: Any, browser_context: Any, screenshots: Path
) -> None:
    page = browser_context.new_page()
    page.goto(f"{server.url}/ui/search")
    assert page.locator("html").get_attribute("lang") == "pt-BR"
    assert page.get_by_role("heading", name="Busca nos documentos").is_visible()
    page.get_by_role("link", name="English").click()
    assert page.get_by_role("heading", name="Search the documents").is_visible()
    page.get_by_role("link", name="Português").click()  # back, and remembered
    assert page.locator("html").get_attribute("lang") == "pt-BR"
    page.close()


def test_upload_then_search_and_open_the_passage(
    page: Any, server: Any, tmp_path: Path, screenshots: Path
) -> None:
    doc = tmp_path / "lei_acesso.txt"
    doc.write_text(LAW, encoding="utf-8")
    page.goto(f"{server.url}/ui/search")
    page.get_by_label("Coleção de destino").fill("leis")
    page.get_by_label("Arquivos (PDF, DOCX, HTML, Markdown, texto, CSV)").set_input_files(str(doc))
    page.get_by_role("button", name="Enviar e indexar").click()
    page.locator('.job[data-status="succeeded"]').wait_for()
    assert "1 adicionados" in page.locator("#upload-status").inner_text()
    page.locator("#collections").get_by_text("leis").wait_for()

    # other browser tests share this server (a literature collection among them): search "leis"
    page.reload()
    page.locator("#search-collection").select_option("leis")
    page.get_by_label("O que procura?").fill("prazo para responder pedido de informação")
    page.get_by_label("O que procura?").press("Enter")
    first = page.locator("ol.hits li").first
    first.wait_for()
    assert "vinte dias" in first.inner_text()
    page.screenshot(path=str(screenshots / "search.png"), full_page=True)

    first.get_by_role("button", name="abrir trecho").click()
    dialog = page.locator("#passage-dialog")
    dialog.locator("blockquote.passage").wait_for()
    assert "vinte dias" in dialog.locator("blockquote.passage").inner_text()
    page.screenshot(path=str(screenshots / "passage.png"))
    page.keyboard.press("Escape")  # the dialog closes from the keyboard
    assert not dialog.is_visible()


def test_moderation_batch_runs_to_its_report(
    page: Any, server: Any, tmp_path: Path, screenshots: Path
) -> None:
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:12]
    batch = tmp_path / "lote.json"
    batch.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    page.goto(f"{server.url}/ui/moderation")
    page.get_by_label("Lote de registros (JSON ou JSONL)").set_input_files(str(batch))
    page.get_by_role("button", name="Moderar lote").click()
    page.wait_for_url("**/ui/moderation/*")
    page.screenshot(path=str(screenshots / "moderation-progress.png"), full_page=True)
    page.locator('#mod-progress[data-status="succeeded"]').wait_for(timeout=60_000)
    assert page.locator("#mod-progress .finished").inner_text() == "12"
    assert page.locator("table.results tbody tr").count() == 12
    note = page.locator(".simulated-note").inner_text().lower()
    assert "simulado" in note and "modelo simulado" in note
    page.screenshot(path=str(screenshots / "moderation-done.png"), full_page=True)
    with page.expect_popup() as popup:
        page.locator("#report-link").click()
    report = popup.value
    report.wait_for_load_state()
    assert "Moderation report" in report.title() or "moderação" in report.title().lower()
    assert report.locator("img").count() >= 1
    report.screenshot(path=str(screenshots / "moderation-report.png"), full_page=True)
    report.close()

    # one verdict from the review queue (what the system rewrote or withheld)
    first = page.locator("#review-queue article.review-item").first
    key = first.get_attribute("data-key")
    first.get_by_role("button", name="Aceitar").click()
    judged = page.locator(
        f'#review-queue article.review-item[data-key="{key}"][data-verdict="accept"]'
    )
    judged.wait_for()
    assert "accept" in judged.locator(".verdict").inner_text()
    page.screenshot(path=str(screenshots / "moderation-review.png"), full_page=True)
    page.reload()  # the verdict is stored, not only shown
    page.locator(f'article.review-item[data-key="{key}"][data-verdict="accept"]').wait_for()


def _upload_laws(server: Any) -> None:
    import time

    import httpx

    law = DATA_DIR / "laws" / "lexml" / "decreto_lei_4657_19420904.csv"
    h = {"X-API-Key": server.key}
    job = httpx.post(
        f"{server.url}/v1/collections/leis/documents",
        files=[("files", (law.name, law.read_bytes(), "text/csv"))],
        headers=h,
        timeout=60,
    ).json()
    for _ in range(600):
        if (
            httpx.get(f"{server.url}/v1/jobs/{job['id']}", headers=h).json()["status"]
            == "succeeded"
        ):
            return
        time.sleep(0.1)
    raise AssertionError("the laws were not ingested")


def _new_chat(page: Any, server: Any) -> None:
    page.goto(f"{server.url}/ui/chat")
    page.get_by_label("Coleção de documentos oficiais").select_option("leis")
    page.get_by_role("button", name="Nova conversa").click()
    page.wait_for_url("**/ui/chat/*")


def test_a_chat_turn_streams_its_answer_and_a_citation_opens_the_passage(
    page: Any, server: Any, screenshots: Path
) -> None:
    _upload_laws(server)
    _new_chat(page, server)
    page.get_by_label("Sua pergunta").fill(
        "Em quanto tempo a lei começa a vigorar depois de publicada?"
    )
    page.get_by_role("button", name="Enviar").click()
    reply = page.locator('.msg.assistant[data-status="answered"]')
    reply.wait_for(timeout=60_000)
    assert "simulado" in reply.locator(".tag").inner_text().lower()
    assert reply.locator(".citations li").count() >= 1
    page.screenshot(path=str(screenshots / "chat.png"), full_page=True)
    reply.locator(".citations li").first.get_by_role("button", name="abrir trecho").click()
    passage = page.locator("#passage-dialog blockquote.passage")
    passage.wait_for()
    assert "vigor" in passage.inner_text()
    page.screenshot(path=str(screenshots / "chat-passage.png"))
    page.keyboard.press("Escape")


def test_an_approval_is_resumed_from_the_queue(
    page: Any, server: Any, search_api: Any, screenshots: Path
) -> None:
    _upload_laws(server)
    _new_chat(page, server)
    page.get_by_label("Sua pergunta").fill(
        "Pesquise na internet a pauta da próxima sessão do tribunal"
    )
    page.get_by_label("Permitir pesquisa na internet (pede aprovação antes)").check()
    page.get_by_role("button", name="Enviar").click()
    page.locator('.msg.assistant[data-status="waiting_approval"]').wait_for(timeout=60_000)
    before = len(search_api.queries)
    page.get_by_role("link", name="Aguardando uma pessoa: veja Aprovações").click()
    page.wait_for_url("**/ui/approvals")
    card = page.locator("section.pending").first
    assert "web_search" in card.inner_text()
    page.screenshot(path=str(screenshots / "approvals.png"), full_page=True)
    assert len(search_api.queries) == before  # nothing ran before the approval
    card.get_by_role("button", name="Aprovar").click()
    done = page.locator('section.resumed[data-status="answered"]')
    done.wait_for(timeout=60_000)
    assert "Pauta publicada" in done.inner_text()
    assert len(search_api.queries) == before + 1
    page.screenshot(path=str(screenshots / "approvals-resumed.png"), full_page=True)


def test_a_literature_review_is_exported_to_csv(page: Any, server: Any, screenshots: Path) -> None:
    import csv
    import time

    import httpx

    theses = DATA_DIR / "theses" / "capes_resumos.csv"
    h = {"X-API-Key": server.key}
    job = httpx.post(
        f"{server.url}/v1/collections/teses/library",
        files=[("files", (theses.name, theses.read_bytes(), "text/csv"))],
        headers=h,
        timeout=60,
    ).json()
    for _ in range(600):
        if (
            httpx.get(f"{server.url}/v1/jobs/{job['id']}", headers=h).json()["status"]
            == "succeeded"
        ):
            break
        time.sleep(0.1)
    page.goto(f"{server.url}/ui/reviews")
    page.get_by_label("Pergunta da revisão").fill("educação inclusiva na formação de professores")
    page.get_by_label("Coleção de obras").select_option("teses")
    page.get_by_label("Quantas obras").fill("5")
    page.get_by_role("button", name="Iniciar revisão").click()
    page.wait_for_url("**/ui/reviews/*")
    table = page.locator("#review-table")
    table.wait_for(timeout=90_000)
    assert table.locator("tbody tr").count() == 5
    page.screenshot(path=str(screenshots / "review.png"), full_page=True)
    with page.expect_download() as download:
        page.locator("a.export-csv").click()
    path = download.value.path()
    with open(path, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 5
    assert rows[0]["title"].strip() in table.locator("tbody tr").first.inner_text()
