"""Thesis cleaning faults a literature review ran into, each shown on a real PDF.

The abnTeX2 book model is shipped (``data/pdfs/abntex2``); small PDFs are written with fpdf2 so
that the text layer is exactly what PDFium sees in a thesis (line-end hyphens, superscript
footnote marks, a cover page). The dissertation is external (CC BY-NC-ND) and skipped without it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fpdf import FPDF

from colmeia.rag.ingest import chunker_for, clean_document, extract
from colmeia.rag.ingest.clean import clean_pages, join_lines
from colmeia.rag.ingest.pdf_layout import strip_marks
from colmeia.rag.types import Page
from shared_data import DATA_DIR, external, needs_external

MODEL = DATA_DIR / "pdfs" / "abntex2" / "abntex2-modelo-livro.pdf"


@pytest.fixture(scope="module")
def abntex2(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    target = tmp_path_factory.mktemp("abntex2") / "modelo.pdf"
    shutil.copy(MODEL, target)
    raw = extract(target)
    return raw, clean_document(raw)


def write_pdf(path: Path, pages: list[list[tuple[str, int]]]) -> Path:
    """A PDF whose pages hold these (line, font size) pairs, one line per row."""
    pdf = FPDF()
    for lines in pages:
        pdf.add_page()
        for text, size in lines:
            pdf.set_font("Helvetica", size=size)
            pdf.cell(0, size * 0.6, text, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path


def test_abntex2_running_headers_are_removed_not_glued_and_chapter_openers_stay(abntex2) -> None:
    raw, cleaned = abntex2
    # (The raw text carries the extractor's layout marks: a wide gap after the number.)
    assert "10 Capítulo 1. Um exemplo de capítulo" in strip_marks(raw.text)
    text = cleaned.text
    assert "Capítulo 1. Um exemplo de capítulo" not in text
    assert "Capítulo 2. Exemplos de imagens" not in text
    assert "3.1. Uma seção 17" not in text
    # The paragraph the page break (and its header) cut in two is whole again, on page 13.
    assert "viverra ac, nunc. Praesent eget sem vel leo ultrices bibendum." in text
    page13 = next(p for p in cleaned.pages if p.number == 13)
    assert page13.text.endswith("sit amet orci dignissim rutrum.")
    assert (page13.carry_page, page13.carry_label) == (14, "10")
    # Chapter openers are content: they stay, on their own line.
    assert "CAPÍTULO 2\n\nExemplos de imagens" in text
    assert "\n\nCAPÍTULO 3\n\nExemplos de tabela" in text


def test_abntex2_pages_carry_their_printed_numbers(abntex2) -> None:
    _, cleaned = abntex2
    labels = {p.number: p.label for p in cleaned.pages}
    # PDF page 14 prints "10", page 21 prints "17" (the model counts from its title page).
    assert (labels[14], labels[21]) == ("10", "17")
    chunks = chunker_for("paragraphs").chunk(cleaned)
    on14 = [c for c in chunks if c.page_start == 14]
    assert on14
    assert all(c.metadata["page_label"] == "10" for c in on14)


def test_line_end_hyphens_are_decided_by_the_cleaner_not_fused_by_pdfium(tmp_path: Path) -> None:
    lines = [
        "Desenvolvedores usam o documento WSDL e pode-",
        "se perfeitamente utilizar a estrutura de T-",
        "Commerce na aplicacao de comercio eletronico. O comer-",
        "cio eletronico e o comercio na TV crescem juntos no pais.",
    ]
    pdf = write_pdf(tmp_path / "hifen.pdf", [[(x, 11) for x in lines]])
    text = clean_document(extract(pdf)).text
    assert "pode-se perfeitamente" in text
    assert "T-Commerce" in text
    assert "comercio eletronico e o" in text  # a word the break split is healed
    for fused in ("podese", "TCommerce", "comer-cio"):
        assert fused not in text


def test_footnote_marks_are_taken_off_words_but_real_digits_stay() -> None:
    lines = [
        "Desenvolvedores podem usar o documento WSDL como entrada para uma aplicacao que",
        "gere funcoes proxy14, utilizadas no cliente, para acesso aos metodos do servico.",
        "O gas CO2 e citado aqui sem nota nenhuma, como no resto do texto sobre o CO2.",
        "14Tais funcoes proxy sao escritas na linguagem usada pela aplicacao cliente que",
        "consome o servico, com a mesma assinatura dos metodos remotos do servidor.",
    ]
    paragraphs = join_lines(lines)
    body = paragraphs[0]
    assert "funcoes proxy, utilizadas" in body
    assert "proxy14" not in body
    assert "CO2" in body
    assert paragraphs[-1].startswith("14Tais funcoes proxy")


def test_a_paragraph_split_by_a_page_break_is_joined_and_cites_both_pages() -> None:
    first = (
        "A pesquisa revela que, do total de domicilios pesquisados em 2009, 32% tinham\n"
        "computador e acesso a rede, numero que cresce a cada ano nas regioes do pais e"
    )
    second = "(contra 25% em 2008) e 25% tinham acesso a Internet.\n\nOutro paragrafo comeca aqui."
    pages = clean_pages([Page(17, first), Page(18, second)])
    assert pages[0].text.endswith(
        "nas regioes do pais e (contra 25% em 2008) e 25% tinham acesso a Internet."
    )
    assert pages[1].text == "Outro paragrafo comeca aqui."
    assert (pages[0].carry_page, pages[0].carry > 0) == (18, True)
    doc_pages = [Page(p.number, p.text, p.label, p.carry, p.carry_page) for p in pages]
    from colmeia.rag.types import ExtractedDocument

    doc = ExtractedDocument("d", "d", doc_pages, "h", metadata={"format": "text"})
    chunk = chunker_for("paragraphs", min_words=5).chunk(doc)[0]
    assert (chunk.page_start, chunk.page_end) == (17, 18)


def test_the_title_comes_from_the_cover_page_not_the_file_name(tmp_path: Path) -> None:
    cover = [
        ("UNIVERSIDADE FEDERAL DE EXEMPLO", 18),
        ("Politicas publicas de inclusao digital", 18),
        ("nas escolas do campo", 18),
        ("Maria da Silva", 12),
        ("Dissertacao de Mestrado", 12),
        ("2021", 12),
    ]
    pdf = write_pdf(tmp_path / "arquivo_0042.pdf", [cover, [("Introducao", 12)]])
    assert extract(pdf).title == "Politicas publicas de inclusao digital nas escolas do campo"


@needs_external("pdfs", "academic", "dissertacao.pdf")
def test_dissertation_faults_are_gone(tmp_path: Path) -> None:
    source = external("pdfs", "academic", "dissertacao.pdf")
    assert source is not None
    target = tmp_path / "dissertacao.pdf"
    shutil.copy(source, target)
    raw = extract(target)
    cleaned = clean_document(raw)
    text = cleaned.text
    assert raw.title.startswith("ARQUITETURA ORIENTADA A SERVIÇOS PARA COMÉRCIO ELETRÔNICO")
    for fused in ("podese", "TCommerce", "proxy14"):
        assert fused not in text
    assert "pode-se" in text
    assert "T-Commerce" in text
    assert "32% tinham computador (contra 25% em 2008)" in text
    labels = {p.number: p.label for p in cleaned.pages}
    assert (labels[17], labels[40]) == ("1", "24")
    assert "REFERÊNCIAS BIBLIOGRÁFICAS" not in text


def test_an_indented_first_line_starts_a_paragraph_even_after_a_full_line(tmp_path: Path) -> None:
    # Justified text: the first paragraph ends with a full-width line and a full stop, so
    # line lengths cannot tell; only the next line's first-line indent does.
    rows = [
        (10, "A arquitetura proposta utiliza servicos web para disponibilizar funcoes aos"),
        (0, "usuarios da televisao digital, de modo que aplicacoes interativas possam usar"),
        (0, "protocolos padronizados como HTTP e SOAP em qualquer receptor do mercado local."),
        (10, "Um framework e um conjunto de classes que incorporam um projeto abstrato de"),
        (0, "solucoes para uma familia de problemas relacionados, segundo a literatura da"),
        (0, "area, podendo ser chamado tambem de arcabouco, estrutura ou esqueleto comum."),
    ]
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for indent, text in rows:
        pdf.set_x(pdf.l_margin + indent)
        pdf.cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(tmp_path / "recuo.pdf"))
    raw = extract(tmp_path / "recuo.pdf")
    # The extractor marks the indent (after the line that says the page carries layout marks).
    assert raw.pages[0].text.split("\n")[1].startswith("\tA arquitetura")
    paragraphs = clean_document(raw, join_lines=True).pages[0].text.split("\n\n")
    assert [p[:14] for p in paragraphs] == ["A arquitetura ", "Um framework e"]
    assert "\t" not in clean_document(raw).text
