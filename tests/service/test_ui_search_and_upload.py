"""What a signed-in person sees on the web UI's search page, through the same requests the
browser's htmx makes: files sent from the page become a job whose progress fragment tells when
it is done (and then the collection list refreshes), the collection list names what was
indexed, a search shows its hits, the cited passage opens, and a mistake (an unknown
collection, passage or job) is said in place, never as a 500 or JSON."""

from __future__ import annotations

import re
import time
from typing import Any
from urllib.parse import quote

LAW = (
    "Lei de Teste\n\n"
    "Art. 1º Esta lei dispõe sobre o tratamento de dados pessoais por órgãos públicos.\n\n"
    "Art. 2º O titular dos dados tem direito de acesso gratuito às informações sobre o "
    "tratamento de seus dados.\n\n"
    "Art. 3º A licitação de serviços de limpeza urbana segue regras próprias.\n"
)
NOTE = "Nota técnica\n\nA concessão de serviço público depende de licitação prévia.\n"


def _signed_in(make_service: Any) -> Any:
    svc = make_service()
    assert svc.sign_in(svc.key("acme")["X-API-Key"]).status_code == 303
    return svc


def _job_id(fragment: str) -> str:
    found = re.search(r'id="job-([^"]+)"', fragment)
    assert found, fragment
    return found.group(1)


def _upload_from_the_page(svc: Any, collection: str, files: dict[str, str]) -> Any:
    """Send files as the upload form does, then poll the job fragment until it stops polling."""
    sent = [("files", (name, text.encode(), "text/plain")) for name, text in files.items()]
    r = svc.client.post("/ui/upload", data={"collection": collection}, files=sent)
    assert r.status_code == 200, r.text
    job_id = _job_id(r.text)
    deadline = time.monotonic() + 60
    while True:
        part = svc.client.get(f"/ui/jobs/{job_id}")
        assert part.status_code == 200
        if "hx-get" not in part.text:  # a finished job's fragment polls no more
            return part
        assert time.monotonic() < deadline, part.text
        time.sleep(0.1)


def test_files_sent_from_the_page_are_indexed_and_the_collection_list_refreshes(
    make_service: Any,
) -> None:
    svc = _signed_in(make_service)
    before = svc.client.get("/ui/collections")
    assert before.status_code == 200 and "<strong>leis</strong>" not in before.text
    done = _upload_from_the_page(svc, "leis", {"lei.txt": LAW, "nota.md": NOTE})
    assert 'data-status="succeeded"' in done.text
    assert "2 adicionados" in done.text
    # a finished job tells the page to reload its collection list (hx-trigger "job-done")
    assert done.headers.get("HX-Trigger") == "job-done"
    listed = svc.client.get("/ui/collections").text
    assert re.search(r"<strong>leis</strong>: 2 documentos, \d+ trechos", listed), listed
    # the search page offers the new collection to search in
    page = svc.client.get("/ui/search").text
    assert '<option value="leis">leis</option>' in page


def test_a_running_job_keeps_polling_and_does_not_refresh_the_list_yet(
    make_service: Any,
) -> None:
    svc = _signed_in(make_service)
    done = _upload_from_the_page(svc, "leis", {"lei.txt": LAW})
    job_id = _job_id(done.text)
    # the same job seen while it still runs: the fragment polls and no refresh is asked for
    svc.state.db.execute("UPDATE jobs SET status = 'running' WHERE id = ?", (job_id,))
    running = svc.client.get(f"/ui/jobs/{job_id}")
    assert 'data-status="running"' in running.text and "hx-get" in running.text
    assert "HX-Trigger" not in running.headers


def test_a_search_shows_its_hits_and_the_cited_passage_opens(make_service: Any) -> None:
    svc = _signed_in(make_service)
    _upload_from_the_page(svc, "leis", {"lei.txt": LAW, "nota.md": NOTE})
    r = svc.client.post(
        "/ui/search", data={"query": "acesso gratuito aos dados", "collection": "leis"}
    )
    assert r.status_code == 200
    assert "resultados para “acesso gratuito aos dados”" in r.text
    first = re.search(r'hx-get="(/ui/passage/[^"]+)"', r.text)
    assert first, r.text
    assert "lei.txt" in r.text.split(first.group(0))[0]  # the best hit is the law's article
    passage = svc.client.get(first.group(1))
    assert passage.status_code == 200
    assert "Trecho citado" in passage.text and "acesso gratuito" in passage.text
    assert "leis · lei.txt" in passage.text
    # every collection at once finds it too; a search for nothing there says so
    everywhere = svc.client.post("/ui/search", data={"query": "acesso gratuito aos dados"})
    assert "lei.txt" in everywhere.text
    none = svc.client.post("/ui/search", data={"query": "xyzzy", "collection": "leis"})
    assert "Nada encontrado para “xyzzy”" in none.text


def test_mistakes_are_said_in_place_as_a_message(make_service: Any) -> None:
    svc = _signed_in(make_service)
    _upload_from_the_page(svc, "leis", {"lei.txt": LAW})
    cases = {
        "unknown collection": svc.client.post(
            "/ui/search", data={"query": "dados", "collection": "nada"}
        ),
        "unknown job": svc.client.get("/ui/jobs/no-such-job"),
        "passage of an unknown collection": svc.client.get("/ui/passage/nada/lei.txt%23c0"),
        "unknown passage": svc.client.get(f"/ui/passage/leis/{quote('lei.txt#nope', safe='')}"),
    }
    for what, r in cases.items():
        # htmx swaps only 2xx answers: the message comes with a 200, as a fragment
        assert r.status_code == 200, (what, r.status_code)
        assert '<p class="error" role="alert">Erro: ' in r.text, (what, r.text)
        assert "<html" not in r.text, what
    assert "no job &#39;no-such-job&#39;" in cases["unknown job"].text
    assert "no collection &#39;nada&#39;" in cases["passage of an unknown collection"].text
    assert "no passage &#39;lei.txt#nope&#39;" in cases["unknown passage"].text


def test_a_file_the_service_does_not_take_is_refused_in_place_and_nothing_is_indexed(
    make_service: Any,
) -> None:
    svc = _signed_in(make_service)
    sent = [("files", ("virus.exe", b"MZ....", "application/octet-stream"))]
    r = svc.client.post("/ui/upload", data={"collection": "leis"}, files=sent)
    assert r.status_code == 200
    assert '<p class="error" role="alert">Erro: ' in r.text and ".exe" in r.text
    assert 'class="job"' not in r.text
    assert svc.client.get("/v1/collections", headers=svc.key("acme")).json() == []
