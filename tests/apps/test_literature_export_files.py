"""Every export of a review, read back the way a researcher would open it.

docs/literature.md: ``colmeia review export review.json out.<csv|xlsx|ris|bib|html>``. The CSV
and the spreadsheet carry one row per work with its cited fields and the screening; RIS and
BibTeX carry the record, the screening decision (read back by colmeia's importer), the relevance
and the ABNT reference; the HTML page shows the PRISMA flow and each work's citations. The ABNT
references follow NBR 6023 for theses, dissertations and other works.
"""

from __future__ import annotations

import csv
import html
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import colmeia
from colmeia.apps.literature import Review, ReviewedWork
from colmeia.apps.literature.export import abnt_reference, export_review
from colmeia.apps.literature.records import read_bibtex, read_ris
from colmeia.apps.literature.review import Decision, Passage
from colmeia.apps.literature.schemas import CitedText


def _thesis() -> ReviewedWork:
    return ReviewedWork(
        "t1",
        "Acesso à justiça: 50% dos casos & a Defensoria",
        1,
        0.9,
        authors=["Conceição, Maria José da", "Gonçalves, João"],
        year=2019,
        doc_type="Tese",
        program="Direito",
        institution="UNIVERSIDADE FEDERAL DE GOIÁS (UFG)",
        doi="10.1234/ufg.2019.77",
        links=["https://repositorio.ufg.br/t1", "https://example.org/t1.pdf"],
        abstract="Estudo de caso sobre a Defensoria Pública.",
        keywords=["acesso à justiça", "defensoria"],
        passages=[
            Passage("P1", "t1#0", "A Defensoria atende quem não pode pagar.", pages="12"),
            Passage("P2", "t1#1", "O estudo ouviu 40 defensores.", pages=""),
        ],
        summary=CitedText(text="A Defensoria amplia o acesso.", passages=["P1", "P2"]),
        objectives=CitedText(text="Descrever o atendimento.", passages=["P2"]),
        relevance="alta",
        why="trata   exatamente do tema",
        screening=Decision("exclude", reason="fora do recorte", notes="rever em 2025"),
        warnings=["resumo curto", "sem páginas"],
        columns={"Método": CitedText(text="Entrevistas.", passages=["P2"])},
    )


def _article() -> ReviewedWork:
    return ReviewedWork(
        "a1",
        "Direitos humanos e políticas públicas",
        2,
        0.7,
        authors=["Souza, Ana"],
        year=2020,
        doc_type="Artigo",
        relevance="baixa",
        screening=Decision("include"),
        summary=CitedText(text="Resumo sem citação.", passages=[]),
        passages=[Passage("P1", "a1#0", "Conclui que sim.", pages="7")],
        conclusions=CitedText(text="Conclui que sim.", passages=["P1"]),
    )


def _pending() -> ReviewedWork:
    return ReviewedWork(
        "a2", "Outro estudo de Souza", 3, 0.5, authors=["Ana Souza"], year=2020, doc_type=""
    )


def _review(model: str = "") -> Review:
    return Review(
        "acesso à justiça",
        "teses",
        [_thesis(), _article(), _pending()],
        model=model,
        records=171,
        columns=[{"name": "Método"}, {"name": "Amostra"}],
    )


# -- ABNT references ----------------------------------------------------------------------


def test_a_thesis_reference_names_its_degree_program_and_institution() -> None:
    assert abnt_reference(_thesis()) == (
        "CONCEIÇÃO, Maria José da; GONÇALVES, João. Acesso à justiça: 50% dos casos & a "
        "Defensoria. 2019. Tese (Doutorado em Direito) – Universidade Federal de Goiás (UFG), "
        "2019. DOI: 10.1234/ufg.2019.77. Disponível em: https://repositorio.ufg.br/t1."
    )


def test_a_thesis_without_program_or_institution_still_names_its_degree() -> None:
    w = ReviewedWork("t", "Título.", 1, 1.0, authors=["Ana Lima"], year=2001, doc_type="Tese")
    w.program, w.institution = "  ", " "
    assert abnt_reference(w) == "LIMA, Ana. Título. 2001. Tese (Doutorado), 2001."


def test_more_than_three_authors_become_et_al_and_a_missing_year_is_sd() -> None:
    w = ReviewedWork(
        "x",
        "Quatro autores",
        1,
        1.0,
        authors=["Ana Lima", "Bruno  Dias", "Carla", "Davi Reis"],
        doc_type="Artigo",
    )
    assert (
        abnt_reference(w) == "LIMA, Ana; DIAS, Bruno; CARLA et al. Quatro autores. [s.d.]. Artigo."
    )
    w.authors = w.authors[:3]
    assert abnt_reference(w).startswith("LIMA, Ana; DIAS, Bruno; CARLA. Quatro")


def test_a_work_without_authors_or_type_starts_with_its_title() -> None:
    w = ReviewedWork("x", "Sem autoria", 1, 1.0, authors=["   "], year=1999)
    assert abnt_reference(w) == "Sem autoria. 1999."


def test_an_institution_written_in_capitals_is_written_as_a_name() -> None:
    w = ReviewedWork("d", "T", 1, 1.0, year=2010, doc_type="Dissertação")
    w.institution = "PONTIFÍCIA UNIVERSIDADE CATÓLICA DO RIO GRANDE DO SUL - PUCRS"
    assert abnt_reference(w).endswith(
        "Dissertação (Mestrado) – Pontifícia Universidade Católica do Rio Grande do Sul - PUCRS, 2010."
    )
    w.institution = "UNIVERSIDADE DE BRASÍLIA – UNB"
    assert "– Universidade de Brasília – UNB, 2010." in abnt_reference(w)
    w.institution = "UNIVERSIDADE FEDERAL DO PARÁ — UFPA"
    assert "– Universidade Federal do Pará — UFPA, 2010." in abnt_reference(w)
    w.institution = "Universidade De São Paulo E Escola Paulista"
    assert "– Universidade de São Paulo e Escola Paulista, 2010." in abnt_reference(w)


@pytest.mark.parametrize(
    ("written", "referenced"),
    [
        ("Universidade Federal do Paraná (UFPR)", "Universidade Federal do Paraná (UFPR)"),
        (
            "Universidade Federal do Estado do Rio – UNIRIO",
            "Universidade Federal do Estado do Rio – UNIRIO",
        ),
        ("Universidade de São Paulo USP", "Universidade de São Paulo USP"),
        ("Universidade Federal do PARANÁ", "Universidade Federal do Paraná"),
        # The name lost before the dash: what is left is still the acronym.
        ("– UNB", "– UNB"),
    ],
)
def test_an_acronym_in_a_mixed_case_institution_stays_in_capitals(
    written: str, referenced: str
) -> None:
    w = ReviewedWork("d", "T", 1, 1.0, year=2010, doc_type="Dissertação")
    w.institution = written
    assert abnt_reference(w).endswith(f"Dissertação (Mestrado) – {referenced}, 2010.")


# -- CSV and spreadsheet ------------------------------------------------------------------


def test_the_csv_has_one_row_per_work_with_cited_fields_and_the_screening(tmp_path: Path) -> None:
    path = export_review(_review(), tmp_path / "out" / "revisao.csv")
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["id"] for r in rows] == ["t1", "a1", "a2"]
    thesis = rows[0]
    assert thesis["rank"] == "1"
    assert thesis["authors"] == "Conceição, Maria José da; Gonçalves, João"
    assert thesis["year"] == "2019" and thesis["type"] == "Tese" and thesis["program"] == "Direito"
    assert thesis["summary"] == "A Defensoria amplia o acesso. [P1 (p. 12); P2]"
    assert thesis["objectives"] == "Descrever o atendimento. [P2]"
    assert thesis["conclusions"] == ""
    assert thesis["Método"] == "Entrevistas. [P2]"
    assert (thesis["screening"], thesis["reason"], thesis["notes"]) == (
        "exclude",
        "fora do recorte",
        "rever em 2025",
    )
    assert thesis["relevance"] == "alta" and thesis["why"] == "trata   exatamente do tema"
    assert thesis["warnings"] == "resumo curto | sem páginas"
    assert thesis["reference"] == abnt_reference(_thesis())
    assert thesis["mode"] == "extractive"
    assert rows[2]["year"] == "2020" and rows[2]["screening"] == "pending"
    assert rows[1]["summary"] == "Resumo sem citação."  # nothing cited, no brackets
    assert rows[1]["conclusions"] == "Conclui que sim. [P1 (p. 7)]"


def test_a_work_without_a_year_has_an_empty_year_cell(tmp_path: Path) -> None:
    w = ReviewedWork("x", "Sem data", 1, 1.0, authors=["Ana Lima"])
    path = export_review(Review("q", "c", [w]), tmp_path / "r.csv")
    with path.open(encoding="utf-8", newline="") as f:
        assert next(csv.DictReader(f))["year"] == ""


def test_an_empty_review_exports_a_csv_with_only_its_header(tmp_path: Path) -> None:
    path = export_review(Review("q", "c", []), tmp_path / "vazia.csv")
    assert path.read_text(encoding="utf-8").splitlines() == ["rank"]


def test_the_spreadsheet_has_the_works_and_the_prisma_flow(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    path = export_review(_review(), tmp_path / "revisao.XLSX")
    wb = load_workbook(path)
    assert wb.sheetnames == ["review", "prisma"]
    rows = list(wb["review"].iter_rows(values_only=True))
    header = list(rows[0])
    assert header[:4] == ["rank", "id", "title", "authors"] and header[-2:] == ["Método", "Amostra"]
    first = dict(zip(header, rows[1], strict=True))
    assert first["rank"] == 1  # a number, not text
    assert first["year"] == 2019
    assert first["summary"] == "A Defensoria amplia o acesso. [P1 (p. 12); P2]"
    prisma = {k: v for k, v in wb["prisma"].iter_rows(values_only=True)}
    assert prisma["identified"] == 171 and prisma["found"] == 3
    assert (prisma["screened"], prisma["excluded"], prisma["included"]) == (2, 1, 1)
    assert json.loads(prisma["exclusion_reasons"]) == {"fora do recorte": 1}


def test_an_empty_review_exports_a_spreadsheet_with_a_header(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    path = export_review(Review("q", "c", []), tmp_path / "vazia.xlsx")
    rows = list(load_workbook(path)["review"].iter_rows(values_only=True))
    assert rows == [("rank",)]


# -- RIS and BibTeX -----------------------------------------------------------------------


def test_the_ris_file_carries_the_record_the_screening_and_the_reference(tmp_path: Path) -> None:
    import rispy

    path = export_review(_review(), tmp_path / "revisao.ris")
    entries = {e["title"]: e for e in rispy.loads(path.read_text(encoding="utf-8"))}
    thesis = entries[_thesis().title]
    assert thesis["type_of_reference"] == "THES"
    assert thesis["type_of_work"] == "Tese"
    assert thesis["publisher"] == "UNIVERSIDADE FEDERAL DE GOIÁS (UFG)"
    assert thesis["custom1"] == "Direito"
    assert thesis["urls"] == _thesis().links
    assert thesis["keywords"] == ["acesso à justiça", "defensoria"]
    assert thesis["abstract"] == "Estudo de caso sobre a Defensoria Pública."
    assert thesis["notes"] == [
        "Triagem: exclude | Motivo: fora do recorte | Notas: rever em 2025",
        "Relevância: alta — trata exatamente do tema",
        f"Referência ABNT: {abnt_reference(_thesis())}",
    ]
    article = entries["Direitos humanos e políticas públicas"]
    assert article["type_of_reference"] == "GEN"
    assert article["notes"][:2] == ["Triagem: include", "Relevância: baixa"]
    assert "doi" not in article and "publisher" not in article and "custom1" not in article
    pending = entries["Outro estudo de Souza"]
    assert "type_of_work" not in pending
    assert [n.split(":")[0] for n in pending["notes"]] == ["Referência ABNT"]  # nothing decided


def test_the_screening_comes_back_when_colmeia_reads_its_own_ris_and_bib(tmp_path: Path) -> None:
    for suffix in (".ris", ".bib"):
        reader = read_ris if suffix == ".ris" else read_bibtex
        records, problems = reader(export_review(_review(), tmp_path / f"r{suffix}"))
        assert problems == []
        by_title = {r.title: r for r in records}
        thesis = by_title[_thesis().title]
        assert (thesis.screening, thesis.screening_reason, thesis.screening_notes) == (
            "exclude",
            "fora do recorte",
            "rever em 2025",
        ), suffix
        assert thesis.program == "Direito" and thesis.doi == "10.1234/ufg.2019.77"
        assert thesis.institution == "UNIVERSIDADE FEDERAL DE GOIÁS (UFG)"
        assert thesis.links == _thesis().links, suffix
        assert thesis.keywords == ["acesso à justiça", "defensoria"], suffix
        assert by_title["Direitos humanos e políticas públicas"].screening == "include"
        assert by_title["Outro estudo de Souza"].screening in ("", "pending")


def test_bibtex_escapes_latex_characters_and_reads_back_the_same_text(tmp_path: Path) -> None:
    w = _article()
    w.title = "Custos: 50% a mais & R$ 10_000 em #escolas {públicas} ~ a^b \\ fim"
    path = export_review(Review("q", "c", [w]), tmp_path / "r.bib")
    text = path.read_text(encoding="utf-8")
    assert r"50\% a mais \& R\$ 10\_000 em \#escolas \{públicas\}" in text
    assert r"\textasciitilde{} a\textasciicircum{}b \textbackslash{} fim" in text
    records, problems = read_bibtex(path)
    assert problems == []
    assert records[0].title.startswith("Custos: 50% a mais & R$ 10_000 em #escolas")


def test_bibtex_entries_get_one_key_each_and_the_right_type(tmp_path: Path) -> None:
    import bibtexparser

    anon = ReviewedWork("n", "Sem autor", 4, 0.1, doc_type="Relatório")
    third = ReviewedWork("s3", "Terceiro de Souza", 5, 0.1, authors=["Souza, Ana"], year=2020)
    works = [_thesis(), _article(), _pending(), anon, third]
    path = export_review(Review("q", "c", works), tmp_path / "r.bibtex")
    lib = bibtexparser.parse_string(path.read_text(encoding="utf-8"))
    keys = [(e.key, e.entry_type) for e in lib.entries]
    assert keys == [
        ("conceicao2019", "phdthesis"),
        ("souza2020", "misc"),
        ("souza2020b", "misc"),
        ("anon", "misc"),
        ("souza2020c", "misc"),
    ]
    fields = {e.key: {k: f.value for k, f in e.fields_dict.items()} for e in lib.entries}
    assert fields["souza2020"]["type"] == "Artigo"
    assert "type" not in fields["conceicao2019"]  # the entry type says it
    assert fields["conceicao2019"]["url"] == "https://repositorio.ufg.br/t1"
    assert fields["conceicao2019"]["links"] == "https://example.org/t1.pdf"
    assert fields["conceicao2019"]["school"] == "UNIVERSIDADE FEDERAL DE GOIÁS (UFG)"
    assert fields["conceicao2019"]["note"] == (
        "Triagem: exclude | Motivo: fora do recorte | Notas: rever em 2025"
    )
    assert fields["conceicao2019"]["annote"].splitlines()[0] == (
        "Relevância: alta — trata exatamente do tema"
    )
    assert "note" not in fields["souza2020b"]  # pending, nothing to say
    assert fields["souza2020b"]["annote"].startswith("Referência ABNT: SOUZA, Ana. Outro")


# -- HTML ---------------------------------------------------------------------------------


def test_the_html_report_shows_the_flow_each_work_and_its_cited_pages(tmp_path: Path) -> None:
    path = export_review(_review(model="sim-qwen"), tmp_path / "html" / "revisao.html")
    assert path == tmp_path / "html" / "revisao.html"
    page = path.read_text(encoding="utf-8")
    assert "Revisão: acesso à justiça" in page
    assert "Coleção teses; 3 trabalhos; modelo sim-qwen (modelo simulado" in page
    assert "<dt>identified</dt><dd>171</dd>" in page
    assert "<h3>1. Acesso à justiça: 50% dos casos &amp; a Defensoria</h3>" in page
    assert "<summary>P1, p. 12</summary><blockquote>A Defensoria atende" in page
    assert "<summary>P2</summary>" in page
    assert "<h4>Método</h4><p>Entrevistas.</p>" in page
    assert "triagem: exclude — fora do recorte</p>" in page
    assert "triagem: include</p>" in page
    assert '<p class="note">⚠ resumo curto</p>' in page
    assert '<p class="note">Coleção teses; 3 trabalhos' in page
    assert "</blockquote></details><details" in page  # P1 then P2, nothing between
    assert "<h4>Conclusões</h4><h4>Método</h4>" in page  # the thesis has no conclusions
    assert "<h4>Objetivos</h4><p>Descrever o atendimento.</p><details" in page
    assert '</details><h4>Amostra</h4><p class="note">triagem: exclude' in page
    assert '⚠ resumo curto</p><p class="note">⚠ sem páginas</p></section>' in page
    assert f'<p class="note">{html.escape(abnt_reference(_thesis()))}</p>' in page
    assert "<h2>Fluxo (PRISMA)</h2>" in page and "<h2>Trabalhos</h2>" in page
    # One work is "alta", one "baixa", and the pending one has no level yet: it is not counted.
    counts = "Trabalhos por nível: alta 1, média 0, baixa 1, nenhuma 0"
    assert f'<img src="relevance.png" alt="{counts}">' in page
    assert f"<figcaption>{counts}</figcaption>" in page
    assert "<b>Relevância:</b> alta — trata   exatamente do tema" in page
    assert (tmp_path / "html" / "relevance.png").stat().st_size > 0


def test_an_html_report_without_a_model_says_its_fields_are_extractive(tmp_path: Path) -> None:
    page = export_review(_review(), tmp_path / "r.html").read_text(encoding="utf-8")
    assert '<p class="note">Coleção teses; 3 trabalhos; sem modelo: campos extrativos</p>' in page
    assert "modelo simulado" not in page
    real = export_review(_review(model="qwen2.5-7b"), tmp_path / "q.html")
    assert "; modelo qwen2.5-7b</p>" in real.read_text(encoding="utf-8")
    assert "modelo simulado" not in real.read_text(encoding="utf-8")


def test_a_citation_of_a_passage_the_work_does_not_have_is_left_out_of_the_page(
    tmp_path: Path,
) -> None:
    w = _article()
    w.passages = [Passage("P1", "a1#0", "Texto <b>real</b>.", pages="3-4")]
    w.conclusions = CitedText(text="Conclui <algo>.", passages=["P9", "P1"])
    page = export_review(Review("q", "c", [w]), tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<h4>Conclusões</h4><p>Conclui &lt;algo&gt;.</p><details" in page
    assert "<summary>P1, p. 3-4</summary><blockquote>Texto &lt;b&gt;real&lt;/b&gt;." in page
    assert "P9" not in page


@pytest.mark.parametrize("suffix", [".JSON", ".json"])
def test_json_is_the_review_itself(tmp_path: Path, suffix: str) -> None:
    path = export_review(_review(), tmp_path / f"r{suffix}")
    back = Review.load(path)
    assert [w.doc_id for w in back.works] == ["t1", "a1", "a2"]
    assert back.works[0].screening.reason == "fora do recorte"


def test_bibtex_keys_use_a_compound_surname_whole_and_letters_for_works_without_a_year(
    tmp_path: Path,
) -> None:
    import bibtexparser

    works = [
        ReviewedWork("a", "Um", 1, 1.0, authors=["João da Silva Filho"], year=2020),
        ReviewedWork("b", "Dois", 2, 1.0),
        ReviewedWork("c", "Três", 3, 1.0),
    ]
    path = export_review(Review("q", "c", works), tmp_path / "r.bib")
    lib = bibtexparser.parse_string(path.read_text(encoding="utf-8"))
    assert [e.key for e in lib.entries] == ["silvafilho2020", "anon", "anonb"]
    assert "url" not in lib.entries[1].fields_dict  # no link, no empty url


def test_bibtex_keeps_every_link_abstract_and_keyword(tmp_path: Path) -> None:
    w = _thesis()
    w.links = ["https://a.org/1", "https://b.org/2", "https://c.org/3"]
    records, problems = read_bibtex(export_review(Review("q", "c", [w]), tmp_path / "r.bib"))
    assert problems == []
    assert records[0].links == w.links
    assert records[0].abstract == "Estudo de caso sobre a Defensoria Pública."
    assert records[0].keywords == ["acesso à justiça", "defensoria"]


def test_notes_alone_are_exported_even_before_a_decision(tmp_path: Path) -> None:
    import rispy

    w = _pending()
    w.screening = Decision(notes="ler   depois")
    path = export_review(Review("q", "c", [w]), tmp_path / "r.ris")
    (entry,) = rispy.loads(path.read_text(encoding="utf-8"))
    assert entry["notes"][0] == "Triagem: pending | Notas: ler depois"


def test_reference_details_a_catalogue_writes_in_odd_ways() -> None:
    w = ReviewedWork("x", "Educação no Século XX", 1, 1.0, year=2000, doc_type="Dissertação")
    w.authors = ["Silva, João, Jr."]  # a second comma stays with the first names
    w.institution = "Universidade McGill e UFRGS"  # mixed case: its acronyms and names kept
    assert abnt_reference(w) == (
        "SILVA, João, Jr.. Educação no Século XX. 2000. Dissertação (Mestrado) – "
        "Universidade McGill e UFRGS, 2000."
    )
    w.institution = "Universidade Federal de Goiás UFG"
    assert "– Universidade Federal de Goiás UFG, 2000." in abnt_reference(w)


def test_an_unknown_format_names_every_format_and_folders_are_made(tmp_path: Path) -> None:
    from colmeia.errors import ConfigurationError

    with pytest.raises(ConfigurationError) as err:
        export_review(_review(), tmp_path / "r.doc")
    assert (
        str(err.value) == "unknown export format .doc; use one of json, csv, xlsx, ris, bib, html"
    )
    deep = export_review(_review(), tmp_path / "a" / "b" / "r.csv")
    assert deep.is_file()


def test_a_spreadsheet_of_one_work_with_an_accented_exclusion_reason(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    w = _article()
    w.screening = Decision("exclude", reason="fora do período")
    wb = load_workbook(export_review(Review("q", "c", [w]), tmp_path / "r.xlsx"))
    rows = list(wb["review"].iter_rows(values_only=True))
    assert rows[0][:3] == ("rank", "id", "title") and rows[1][:2] == (2, "a1")
    prisma = {k: v for k, v in wb["prisma"].iter_rows(values_only=True)}
    assert prisma["exclusion_reasons"] == '{"fora do período": 1}'  # readable, not escaped


# A process whose locale is not UTF-8 (the C locale of a cron job or a minimal container, with
# Python's UTF-8 mode and locale coercion off) writes ASCII unless told otherwise.
_EXPORT_IN_C_LOCALE = """
import sys
from pathlib import Path
from colmeia.apps.literature import Review
from colmeia.apps.literature.export import export_review
review = Review.load(Path(sys.argv[1]))
for name in sys.argv[2:]:
    export_review(review, Path(name))
"""


def test_an_export_is_the_same_utf8_file_whatever_the_locale_of_the_process(
    tmp_path: Path,
) -> None:
    review = _review()
    saved = review.save(tmp_path / "review.json")
    here = [export_review(review, tmp_path / f"revisao.{ext}") for ext in ("csv", "ris", "bib")]
    there = [tmp_path / "c" / p.name for p in here]
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0"}
    env.pop("PYTHONUTF8", None)
    # The child imports the colmeia this test imported, wherever it was imported from.
    env["PYTHONPATH"] = str(Path(colmeia.__file__).parents[1])
    run = subprocess.run(
        [sys.executable, "-X", "utf8=0", "-c", _EXPORT_IN_C_LOCALE, str(saved), *map(str, there)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    for mine, theirs in zip(here, there, strict=True):
        assert "Conceição" in mine.read_bytes().decode("utf-8")
        assert theirs.read_bytes() == mine.read_bytes(), theirs.name
