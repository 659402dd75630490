"""Literature review: records in (RIS, BibTeX, CAPES CSV), a cited review table out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from colmeia.apps.literature import (
    Review,
    abnt_reference,
    export_review,
    import_library,
    load_records,
    run_review,
)
from colmeia.apps.literature.evaluate import (
    SyntheticQuery,
    copied_share,
    load_queries,
    offline_query,
    save_queries,
    title_leak,
)
from colmeia.apps.literature.library import fetch_pdfs
from colmeia.apps.literature.records import Record
from colmeia.errors import InputError
from colmeia.eval.retrieval import single_target_metrics
from colmeia.store import open_store
from shared_data import DATA_DIR

RIS = """TY  - THES
TI  - Educação inclusiva e formação docente na rede pública
AU  - Pereira, Isabella Bruna
PY  - 2021
M3  - Dissertação (Mestrado)
AB  - Esta dissertação tem como objetivo analisar a formação docente para a educação inclusiva. Os resultados mostram lacunas na formação continuada.
KW  - educação inclusiva
DO  - 10.1234/abc.2021.1
UR  - https://repositorio.example.org/handle/123/456
ER  -
TY  - THES
TI  - EDUCAÇÃO INCLUSIVA E FORMAÇÃO DOCENTE NA REDE PÚBLICA.
AU  - Pereira, Isabella Bruna
PY  - 2021
ER  -
TY  - THES
AU  - Sem Título
ER  -
"""

RIS = RIS.replace("ER  -\n", "ER  - \n")  # RIS's end tag has a trailing space

BIB = """@phdthesis{souza2020,
  title = {Avaliação de políticas de saneamento em municípios pequenos},
  author = {Souza, Carlos and Lima, Ana},
  year = {2021},
  school = {Universidade Federal de Goiás},
  abstract = {O objetivo desta tese é avaliar políticas de saneamento. Conclui-se que a gestão regional reduz custos.},
  doi = {10.1234/abc.2021.1}
}
"""


def test_records_from_ris_bibtex_and_csv_are_merged_by_doi_and_title(tmp_path: Path) -> None:
    (tmp_path / "a.ris").write_text(RIS, encoding="utf-8")
    (tmp_path / "b.bib").write_text(BIB, encoding="utf-8")
    report = load_records(
        [tmp_path / "a.ris", tmp_path / "b.bib", DATA_DIR / "theses" / "capes_resumos.csv"]
    )
    # RIS record 2 repeats record 1's title (case, accents, final dot aside); the BibTeX entry
    # shares record 1's DOI: both merge into it.
    assert report.duplicates == 2
    assert [p.reason for p in report.problems] == ["no title (TI/T1)"]
    first = report.records[0]
    assert first.doc_type == "Dissertação"
    assert (first.year, first.doi, first.handle) == (2021, "10.1234/abc.2021.1", "123/456")
    capes = [r for r in report.records if r.source.startswith("capes_resumos.csv")]
    assert len(capes) == 171
    assert all(r.year and 2000 <= r.year <= 2030 for r in capes)
    assert {r.doc_type for r in capes} <= {"Dissertação", "Tese"}


def test_abnt_reference_of_a_dissertation() -> None:
    from colmeia.apps.literature import ReviewedWork

    w = ReviewedWork(
        "x",
        "Educação inclusiva",
        1,
        1.0,
        authors=["Isabella Bruna Lemes Pereira"],
        year=2017,
        doc_type="Dissertação",
        program="Direitos Humanos",
        institution="Universidade Federal De Goiás",
        links=["https://example.org/t"],
    )
    assert abnt_reference(w) == (
        "PEREIRA, Isabella Bruna Lemes. Educação inclusiva. 2017. Dissertação (Mestrado em "
        "Direitos Humanos) – Universidade Federal de Goiás, 2017. Disponível em: https://example.org/t."
    )


@pytest.fixture(scope="module")
def capes(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("capes")
    store = open_store(f"sqlite:///{folder / 's.db'}", cache_dir=folder / "cache")
    report = import_library(store, "capes", [DATA_DIR / "theses" / "capes_resumos.csv"])
    assert report.ingest is not None
    assert report.ingest.added == 171
    yield store
    store.close()


def test_review_without_a_model_is_extractive_and_cited(capes, tmp_path: Path) -> None:
    review = run_review(
        capes, "capes", "escola sem partido e ideologia de gênero na educação", top=5
    )
    assert len(review.works) == 5
    assert len({w.doc_id for w in review.works}) == 5
    top = review.works[0]
    assert "Escola Sem Partido" in top.title or "gênero" in top.title.lower()
    for w in review.works:
        assert w.mode == "extractive"
        assert w.relevance in ("alta", "média", "baixa", "nenhuma")
        assert w.summary is not None and len(w.summary.text.split()) <= 200
        assert w.objectives is not None and len(w.objectives.text.split()) <= 100
        ids = {p.id for p in w.passages}
        assert set(w.summary.passages) <= ids
    # Screening is saved with the review and counted PRISMA-style.
    review.screen(top.doc_id, "include", notes="central")
    review.screen("2", "exclude", reason="fora do tema")
    saved = Review.load(review.save(tmp_path / "r.json"))
    flow = saved.as_dict()["prisma"]
    assert (flow["identified"], flow["found"], flow["screened"], flow["included"]) == (171, 5, 2, 1)
    assert flow["exclusion_reasons"] == {"fora do tema": 1}
    for suffix in ("csv", "xlsx", "ris", "bib", "html"):
        out = export_review(saved, tmp_path / f"r.{suffix}")
        assert out.stat().st_size > 200
    assert "P1" in (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "@mastersthesis" in (tmp_path / "r.bib").read_text(encoding="utf-8") or "@phdthesis" in (
        tmp_path / "r.bib"
    ).read_text(encoding="utf-8")


def test_review_with_a_model_validates_and_checks_citations(
    capes, sim_server, tmp_path: Path
) -> None:
    from colmeia.llm import OpenAIChatModel
    from colmeia.sim import SimRequest, SimulatedModel

    too_long = " ".join(["palavra"] * 150)

    def respond(req: SimRequest) -> str:
        text = json.dumps(req.body, ensure_ascii=False)
        body = {
            "summary": {
                "text": "O trabalho analisa discursos parlamentares sobre gênero.",
                "passages": ["P1"],
            },
            "objectives": {
                "text": too_long if "shorten" not in text else "Analisar discursos.",
                "passages": ["P1", "P9"],
            },
            "conclusions": {"text": "não informado", "passages": []},
            "relevance": "alta",
            "why": "Trata diretamente da pergunta.",
        }
        return json.dumps(body, ensure_ascii=False)

    srv = sim_server(SimulatedModel(responder=respond))
    model = OpenAIChatModel(base_url=srv.base_url, model="sim")
    import asyncio

    from colmeia.apps.literature import arun_review

    async def go() -> Review:
        try:
            return await arun_review(
                capes,
                "capes",
                "escola sem partido",
                top=2,
                model=model,
                model_name="sim",
                cache_dir=tmp_path,
            )
        finally:
            await model.aclose()

    review = asyncio.run(go())
    w = review.works[0]
    assert w.mode == "model:sim"
    assert w.objectives is not None
    assert w.objectives.text == "Analisar discursos."  # the 150-word answer was sent back
    assert w.objectives.passages == ["P1"]  # P9 was never given
    assert any("P9" in x for x in w.warnings)
    assert len(list(tmp_path.glob("*.json"))) == 2  # cached per (question, work, model, prompt)


def test_fetch_refuses_private_addresses_before_connecting(tmp_path: Path) -> None:
    rec = Record(title="Um trabalho qualquer de teste", links=["http://127.0.0.1:9/x.pdf"])
    fetched, failed = fetch_pdfs([rec], tmp_path)
    assert fetched == {}
    assert "loopback" in failed[0].reason


def test_fetch_downloads_and_resumes_from_a_loopback_server(tmp_path: Path) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    pdf = (DATA_DIR / "pdfs" / "abntex2" / "abntex2-modelo-livro.pdf").read_bytes()
    ranges: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            rng = self.headers.get("Range")
            ranges.append(rng or "")
            start = int(rng.split("=")[1].rstrip("-")) if rng else 0
            body = pdf[start:]
            self.send_response(206 if rng else 200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/tese.pdf"
        rec = Record(title="Exemplo de livro produzido com abnTeX2", links=[url])
        part = tmp_path / (rec.id.replace(":", "_") + ".pdf.part")
        part.write_bytes(pdf[:1000])  # an interrupted download
        fetched, failed = fetch_pdfs([rec], tmp_path, allow_private=True)
    finally:
        server.shutdown()
        server.server_close()
    assert failed == []
    assert fetched[rec.id].read_bytes() == pdf
    assert ranges == ["bytes=1000-"]


def test_offline_queries_do_not_copy_the_title_and_mean_rank_counts_misses() -> None:
    title = "Educação inclusiva e formação docente na rede pública"
    abstract = (
        "Esta dissertação trata da educação inclusiva e formação docente na rede pública. "
        "Foram entrevistados quarenta professores de escolas municipais sobre práticas de sala. "
        "Os resultados indicam carência de apoio pedagógico especializado."
    )
    q = offline_query(abstract, title)
    assert title_leak(q, title) <= 0.5
    assert "professores" in q
    m = single_target_metrics([1, 2, None, 1], depth=100)
    assert m.mean_rank == pytest.approx((1 + 2 + 101 + 1) / 4)
    assert m.mean_rank_found == pytest.approx(4 / 3)
    assert (m.p_at_1, m.not_found_at_5, m.mrr) == (0.5, 0.25, pytest.approx((1 + 0.5 + 1) / 4))


def test_copied_share_tells_a_copied_sentence_from_a_paraphrase() -> None:
    abstract = "Foram entrevistados quarenta professores de escolas municipais sobre práticas."
    assert copied_share("entrevistados quarenta professores de escolas municipais", abstract) == 1
    paraphrase = "Busco estudos que ouviram docentes da rede municipal sobre o que fazem em aula."
    assert copied_share(paraphrase, abstract) == 0.0


def test_saved_queries_load_back_and_a_bad_line_is_named(tmp_path: Path) -> None:
    queries = [SyntheticQuery("rec:1", "formação docente inclusiva", "model")]
    path = save_queries(queries, tmp_path / "q.jsonl")
    back = load_queries(path)
    assert [(q.doc_id, q.text, q.source) for q in back] == [
        ("rec:1", "formação docente inclusiva", "file")
    ]
    path.write_text(path.read_text(encoding="utf-8") + '{"text": "sem doc"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"q.jsonl, line 2: not a saved query"):
        load_queries(path)
    with pytest.raises(InputError, match="cannot read the queries file"):
        load_queries(tmp_path / "nao.jsonl")
