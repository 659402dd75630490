"""Formats (DOCX, HTML, Markdown, text, CSV, tables PDFs) and the chunkers' guarantees."""

from __future__ import annotations

import shutil
from pathlib import Path

import docx
import pytest

from colmeia.errors import ConfigurationError
from colmeia.rag.ingest import (
    LegalChunker,
    ParagraphNgramChunker,
    RecursiveChunker,
    chunker_for,
    clean_document,
    extract,
    iter_csv_records,
    lexml_path,
)
from colmeia.rag.types import Chunk, ExtractedDocument, Page
from shared_data import DATA_DIR

SHARED = DATA_DIR

LEI = """LEI Nº 9.999, DE 1º DE JANEIRO DE 2020

Dispõe sobre exemplos.

CAPÍTULO I
DISPOSIÇÕES GERAIS

Art. 1º Esta Lei trata de exemplos:
I - primeiro inciso;
II – segundo inciso, com alíneas:
a) alínea a;
b) alínea b:
1. item um;
2. item dois.
§ 1º Primeiro parágrafo.
§ 2º Segundo parágrafo.
Art. 10-A. Artigo acrescido.
Parágrafo único. Único parágrafo.
Art. 5o Artigo com o minúsculo.
"""


def doc_of(text: str, *, title: str = "t", pages: list[str] | None = None) -> ExtractedDocument:
    return ExtractedDocument(
        source_id="d1",
        title=title,
        pages=[Page(i + 1, t) for i, t in enumerate(pages or [text])],
        content_hash="h",
    )


def assert_offsets(doc: ExtractedDocument, chunks: list[Chunk]) -> None:
    """Chunk text is exactly the cleaned document text at its offsets (no normalisation)."""
    for c in chunks:
        assert doc.text[c.char_start : c.char_end] == c.text
    assert len({c.chunk_id for c in chunks}) == len(chunks)


def test_legal_chunker_paths_on_a_law() -> None:
    doc = doc_of(LEI, title="Lei nº 9.999, de 1º de janeiro de 2020")
    chunks = LegalChunker().chunk(doc)
    paths = [c.path for c in chunks]
    assert paths[1:] == [
        "Lei 9.999/2020, Art. 1º",
        "Lei 9.999/2020, Art. 1º, inciso I",
        "Lei 9.999/2020, Art. 1º, inciso II",
        "Lei 9.999/2020, Art. 1º, inciso II, alínea a",
        "Lei 9.999/2020, Art. 1º, inciso II, alínea b",
        "Lei 9.999/2020, Art. 1º, inciso II, alínea b, item 1",
        "Lei 9.999/2020, Art. 1º, inciso II, alínea b, item 2",
        "Lei 9.999/2020, Art. 1º, § 1º",
        "Lei 9.999/2020, Art. 1º, § 2º",
        "Lei 9.999/2020, Art. 10-A",
        "Lei 9.999/2020, Art. 10-A, Parágrafo único",
        "Lei 9.999/2020, Art. 5º",
    ]
    assert chunks[1].heading == "Capítulo I"
    assert chunks[1].metadata["headings"] == ["Capítulo I: DISPOSIÇÕES GERAIS"]
    assert_offsets(doc, chunks)


def test_legal_chunker_can_group_whole_articles() -> None:
    doc = doc_of(LEI, title="x")
    articles = [
        c
        for c in LegalChunker(label="Lei X", granularity="artigo").chunk(doc)
        if c.metadata["kind"] == "artigo"
    ]
    assert [c.path for c in articles] == ["Lei X, Art. 1º", "Lei X, Art. 10-A", "Lei X, Art. 5º"]
    assert "item dois" in articles[0].text
    assert "§ 2º Segundo parágrafo." in articles[0].text
    both = LegalChunker(granularity="both").chunk(doc)
    assert len(both) == len(LegalChunker().chunk(doc)) + 3
    assert_offsets(doc, both)


def test_auto_picks_legal_for_norms_and_paragraphs_otherwise() -> None:
    auto = chunker_for("auto")
    assert auto.chunk(doc_of(LEI))[1].metadata["chunker"] == "legal"
    prose = "\n\n".join(f"Parágrafo {i} " + "palavra " * 60 for i in range(6))
    assert auto.chunk(doc_of(prose))[0].metadata["chunker"] == "paragraphs"
    with pytest.raises(ConfigurationError, match="unknown chunker"):
        chunker_for("semantic")


def test_paragraph_ngrams_cover_every_paragraph() -> None:
    paragraphs = [
        " ".join(f"p{i}w{j}" for j in range(n)) for i, n in enumerate([40, 80, 30, 700, 10, 120])
    ]
    pages = ["\n\n".join(paragraphs[:3]), "\n\n".join(paragraphs[3:])]
    doc = doc_of("", pages=pages)
    chunker = ParagraphNgramChunker(min_words=100, max_words=500, max_paragraphs=5)
    chunks = chunker.chunk(doc)
    assert_offsets(doc, chunks)
    for i in range(6):
        assert any(f"p{i}w0 " in c.text or c.text.startswith(f"p{i}w") for c in chunks), i
    # The 700-word paragraph is split; no chunk is over the limit.
    assert max(c.metadata["words"] for c in chunks) <= 500
    assert all(c.metadata["words"] >= 100 for c in chunks if c.metadata["paragraphs"] > 1)
    # Windows of several paragraphs exist (the n-gram scheme), and pages are tracked.
    assert any(c.metadata["paragraphs"] >= 2 for c in chunks)
    assert {c.page_start for c in chunks} == {1, 2}
    assert all(c.page_start <= c.page_end for c in chunks)


def test_a_short_document_still_gives_one_chunk() -> None:
    doc = doc_of("Uma frase só.")
    chunks = ParagraphNgramChunker().chunk(doc)
    assert [c.text for c in chunks] == ["Uma frase só."]
    assert chunks[0].chunk_id == "d1#0"


def test_recursive_chunker_uses_chonkie_with_overlap() -> None:
    text = "\n\n".join(f"Frase número {i} do documento de teste. " * 8 for i in range(12))
    doc = doc_of(text)
    chunks = RecursiveChunker(chunk_size=400, overlap=50).chunk(doc)
    assert len(chunks) > 3
    assert all(len(c.text) <= 450 for c in chunks)
    assert_offsets(doc, chunks)
    assert chunks[1].char_start < chunks[0].char_end  # overlap
    assert chunker_for("recursive", chunk_size=300).chunk(doc)[0].metadata["chunker"] == "recursive"


def test_chunk_ids_are_deterministic() -> None:
    doc = doc_of(LEI)
    assert [c.chunk_id for c in chunker_for("legal").chunk(doc)] == [
        c.chunk_id for c in chunker_for("legal").chunk(doc)
    ]


def test_docx_headings_paragraphs_and_tables(tmp_path: Path) -> None:
    document = docx.Document()
    document.core_properties.title = "Relatório"
    document.add_heading("Introdução", level=1)
    document.add_paragraph("Primeiro parágrafo do relatório.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Ano", "Valor"
    table.cell(1, 0).text, table.cell(1, 1).text = "2020", "10"
    path = tmp_path / "r.docx"
    document.save(str(path))
    doc = extract(path)
    assert doc.title == "Relatório"
    assert doc.text == "Introdução\n\nPrimeiro parágrafo do relatório.\n\nAno | Valor\n2020 | 10"
    assert doc.doc_type == "docx"


def test_html_drops_scripts_and_navigation(tmp_path: Path) -> None:
    path = tmp_path / "p.html"
    path.write_text(
        "<html><head><title>Página</title><style>p{}</style></head><body><nav>Menu</nav>"
        "<h1>Título</h1><p>Um <b>parágrafo</b>\n quebrado.</p><script>x()</script><p>Outro.</p></body></html>",
        encoding="utf-8",
    )
    doc = extract(path, doc_type="pagina")
    assert doc.title == "Página"
    assert doc.text == "Título\n\nUm parágrafo quebrado.\n\nOutro."
    assert doc.doc_type == "pagina"


def test_markdown_and_latin1_text(tmp_path: Path) -> None:
    md = tmp_path / "n.md"
    md.write_text(
        "# Norma\n\n**Art. 1º** Texto com [link](http://x) e _ênfase_.\n", encoding="utf-8"
    )
    doc = extract(md)
    assert doc.title == "Norma"
    assert doc.text == "Norma\n\nArt. 1º Texto com link e ênfase."
    txt = tmp_path / "old.txt"
    txt.write_bytes("Ação e exceção\fSegunda página".encode("cp1252"))
    doc = extract(txt)
    assert [p.text for p in doc.pages] == ["Ação e exceção", "Segunda página"]
    assert doc.title == "old"


def test_cleaning_dehyphenates_and_keeps_compounds() -> None:
    lines = [
        "O guarda-chuva ficou na sala enquanto a informa-",
        "ção circulava entre os servidores e o guarda-",
        "chuva secava no canto; constitui-se assim um caso que",
        "ocorre muito.",
    ]
    doc = doc_of("\n".join(lines))
    doc.metadata["format"] = "pdf"
    text = clean_document(doc).text
    assert "informação" in text
    assert "guarda-chuva secava" in text
    assert "constitui-se" in text
    assert "\n" not in text


def test_cleaning_strips_control_characters_and_normalises() -> None:
    doc = doc_of("Cafe\u0301 \x00com\u00a0  espaços\ud800")
    assert clean_document(doc).text == "Café com espaços"


def test_tables_pdfs_keep_rows_on_lines(tmp_path: Path) -> None:
    for name in ("balneabilidade-26-2010.pdf", "ibama-autuacao-amazonas-2010-pag2.pdf"):
        shutil.copy(SHARED / "pdfs" / "tables" / name, tmp_path / name)
        doc = clean_document(extract(tmp_path / name))
        assert doc.text.strip()
        chunks = chunker_for("auto").chunk(doc)
        assert chunks
        assert_offsets(doc, chunks)
    lines = doc.text.split("\n")
    # Each row of the IBAMA table holds a municipality and an amount; rows are not glued.
    assert sum(1 for line in lines if "R$" in line or "," in line) >= 5
    assert max(len(line) for line in lines) < 1500


def test_csv_records_juristcu_lexml_and_theses() -> None:
    juris = list(
        iter_csv_records(SHARED / "juristcu" / "docs.csv", id_column="DOC_ID", text_column="TEXT")
    )
    assert len(juris) == 1651
    assert juris[0].source_id == "13"
    assert juris[0].text.startswith("SÚMULA TCU 9")

    cdc = list(
        iter_csv_records(
            SHARED / "laws" / "lexml" / "lei_8078_19900911.csv",
            id_column="urn",
            text_column="Texto",
        )
    )
    by_path = {r.metadata["path"]: r for r in cdc}
    rec = by_path["Lei 8.078/1990, Art. 43, § 1º"]
    assert rec.source_id == "urn:lex:br:federal:lei:1990-09-11;8078!art43_par1"
    assert not rec.text.startswith("[")
    assert "Dos Bancos de Dados e Cadastros de Consumidores" in rec.metadata["heading"]
    assert "Lei 8.078/1990, Art. 4º, inciso II, alínea a" in by_path
    chunk = chunker_for("paragraphs").chunk(rec)[0]
    assert chunk.path == "Lei 8.078/1990, Art. 43, § 1º"

    theses = list(
        iter_csv_records(
            SHARED / "theses" / "capes_resumos.csv",
            id_column="",
            text_column="Resumo",
            title_column="Titulo",
        )
    )
    assert len(theses) == 171
    assert theses[0].metadata["Tipo"] == "Dissertação"
    assert theses[0].title.startswith("As Identidades De Gênero")


def test_lexml_path_labels() -> None:
    assert (
        lexml_path("lei_8078_19900911, Art. 26., caput, Inciso II, Alínea a")
        == "Lei 8.078/1990, Art. 26, inciso II, alínea a"
    )
    assert (
        lexml_path("lei_complementar_95_19980226, Art. 1º, Parágrafo único.")
        == "Lei Complementar 95/1998, Art. 1º, Parágrafo único"
    )
    assert (
        lexml_path("decreto_lei_4657_19420904, Art. 1º, § 1º")
        == "Decreto-Lei 4.657/1942, Art. 1º, § 1º"
    )
