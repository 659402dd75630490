"""Thesis cleaning on real layouts: each defect a literature review met, on PDFs typeset by LaTeX
(abnTeX2; the article class in a narrow block) and LibreOffice Writer (``data/cleaning/real``),
and on the shipped abnTeX2 model. The extractor reads the layout (type size, position, gaps)
and the cleaner sets footnotes and tables apart by it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from colmeia.eval.cleaning_layout import score_layout_cleaning
from colmeia.rag.ingest import clean_document, extract
from colmeia.rag.types import ExtractedDocument
from shared_data import DATA_DIR

REAL = DATA_DIR / "cleaning" / "real"
MODEL = DATA_DIR / "pdfs" / "abntex2" / "abntex2-modelo-livro.pdf"
OPTIONS = {"cut_front_matter": False, "cut_references": False, "join_lines": True}


@pytest.fixture(scope="module")
def cleaned(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ExtractedDocument]:
    folder = tmp_path_factory.mktemp("layouts")
    out = {}
    sources = {p.stem: p for p in REAL.glob("*.pdf")} | {"modelo": MODEL}
    for name, source in sources.items():
        target = folder / source.name
        shutil.copy(source, target)
        out[name] = clean_document(extract(target), **OPTIONS)  # type: ignore[arg-type]
    return out


def paragraphs(doc: ExtractedDocument, page: int | None = None) -> list[str]:
    return [
        p for pg in doc.pages if page is None or pg.number == page for p in pg.text.split("\n\n")
    ]


def test_table_rows_are_kept_as_rows_not_flattened_into_the_text(cleaned) -> None:
    writer = paragraphs(cleaned["relatorio_writer"])
    table = next(p for p in writer if p.startswith("Unidade | "))
    assert table.split("\n") == [
        "Unidade | Enfermeiras | Médicos | Agentes",
        "Centro | 4 | 2 | 9",
        "Vila Nova | 3 | 1 | 7",
        "Jardim | 2 | 1 | 8",
        "Rural | 2 | 1 | 5",
    ]
    # A table without a caption is found by its column gaps too.
    article = paragraphs(cleaned["celulas_artigo"])
    assert "Escola | Maquetes | Simulações | Desenhos\nNorte | 4 | 2 | 6" in "\n\n".join(article)
    for doc in cleaned.values():
        assert "Vila Nova 3 1 7" not in doc.text
        assert "Norte 4 2 6" not in doc.text
    escolas = cleaned["escolas_abntex2"].text
    assert "A | 10 | 2 | 1\nB | 14 | 3 | 2" in escolas


def test_a_row_with_wrapped_cells_stays_a_row(cleaned) -> None:  # type: ignore[no-untyped-def]
    # The abnTeX2 model's vocabulary table: a left cell long enough to leave no wide gap beside
    # lines wrapped at the column, right cells PDFium gives after the wrapped cell beside them
    # (on the same baseline), and last cells wrapped over lines set in at their column.
    table = next(p for p in paragraphs(cleaned["modelo"]) if p.startswith("Termo em inglês |"))
    rows = table.split("\n")
    assert "bastard title ou half title | falsa folha de rosto. Tem só o título do livro." in rows
    # A left cell wrapped after a comma or a broken word goes on in the line below: one row.
    assert "section, gathering, quire (especialmente se não impresso), signature | caderno" in rows
    assert (
        "dust jacket, dust cover, book jacket, dust wrapper"
        " | sobrecapa. Geralmente de papel, para cobrir capas duras."
    ) in rows
    assert not any(r.startswith(("mente se não", "dust wrapper")) for r in rows)
    assert "back cover | quarta capa ou contra-capa ou verso da capa" in rows
    assert "colophon | colofão. Breve descrição sobre aspectos da publicação do livro." in rows
    assert "volume | volume. Conjunto de páginas encadernadas." in rows
    assert "half title falsa folha" not in cleaned["modelo"].text


def test_footnotes_leave_the_paragraph_and_their_marks_leave_the_words(cleaned) -> None:
    writer = paragraphs(cleaned["relatorio_writer"])
    body = next(p for p in writer if p.startswith("Participaram da pesquisa"))
    assert "técnicos de enfermagem. A maioria atua na mesma unidade" in body
    assert "O convite" not in body
    assert (
        "1 O convite foi feito em reuniões de equipe, e a participação foi voluntária e sem "
        "qualquer tipo de compensação."
    ) in writer
    model = cleaned["modelo"].text
    assert "faz parte do projeto abnTEX2, e destina-se" in model
    assert "abnTEX21" not in model
    assert "o design usual de livros." in model and "livros2" not in model
    assert "“The LATEX Project Public License”." in model
    article = paragraphs(cleaned["celulas_artigo"])
    assert "suas limitações. Em entrevista" in "\n\n".join(article)
    # A note's wrapped line that starts with a number stays in the note ("seção 2.3.").
    assert (
        "3 Sobre os ciclos de modelagem, ver o capítulo 2 desta tese, em especial a seção 2.3."
        in article
    )


def test_a_paragraph_split_by_a_float_page_joins_over_it_and_the_sources_stay_apart(
    cleaned,
) -> None:
    model = cleaned["modelo"]
    text = model.text
    assert "Maecenas ultricies eros sit amet ante." in text
    assert "ul-<http" not in text and "Maecenas ul-" not in text
    assert (
        "Fontes: <http://pt.wikipedia.org/wiki/Design_de_livros> "
        "<http://en.wikipedia.org/wiki/Book_design> "
        "<http://static.lexicool.com/dictionary/RX7KW614433.pdf>"
    ) in paragraphs(model, 20)
    page19 = next(p for p in model.pages if p.number == 19)
    assert page19.carry_page == 21  # the rest is on the page after the float page
    escolas = cleaned["escolas_abntex2"].text
    assert "aparecem apenas de modo marginal" in escolas
    assert "elaborados fora das escolas. Os títulos das ações formativas" in escolas


def test_line_end_hyphens_are_judged_by_the_lexicon_and_the_document(cleaned) -> None:
    article = cleaned["celulas_artigo"].text
    assert "a simples presença de modelos nas aulas" in article  # "mode-" + "los"
    assert "das condições sócio-econômicas da comunidade" in article
    # A name in capitals broken at the line end is one word ("FER-" + "REIRA").
    assert "FERREIRA; JUSTI, 2008" in article and "FER-REIRA" not in article
    writer = cleaned["relatorio_writer"].text
    assert "AYRES, 2004" in writer and "AY-RES" not in writer
    assert "o conhecimento das condições sócio-econômicas" in writer


def test_drop_capitals_are_joined_wherever_the_extractor_puts_them(cleaned) -> None:
    # LibreOffice's drop capital comes after its paragraph in PDFium's order; LaTeX's before.
    writer = paragraphs(cleaned["relatorio_writer"])
    assert writer[1].startswith("Este capítulo apresenta os resultados da pesquisa")
    assert "E" not in writer
    article = paragraphs(cleaned["celulas_artigo"])
    assert any(p.startswith("Os modelos didáticos ocupam lugar central") for p in article)
    escolas = paragraphs(cleaned["escolas_abntex2"])
    assert any(p.startswith("Este trabalho investiga como as escolas") for p in escolas)


def test_a_citation_list_over_lines_stays_in_one_paragraph(cleaned) -> None:
    writer = cleaned["relatorio_writer"].text
    assert (
        "realizá-las (MERHY, 2002; CECCIM, 2005; CAMPOS, 2007; AYRES, 2004; VASCONCELOS, 2011; "
        "STOTZ, 2007; ALVES, 2005; BRASIL, 2017), entre eles"
    ) in writer
    escolas = cleaned["escolas_abntex2"].text
    assert "pontos centrais (NÓVOA, 1992; TARDIF, 2002;" in escolas
    assert "PIMENTA, 1999; LIBÂNEO, 2004; SAVIANI, 2009), entre eles" in escolas


def test_numbered_items_at_a_page_foot_are_body_text_not_footnotes(cleaned) -> None:
    page1 = paragraphs(cleaned["escolas_abntex2"], 1)
    items = [
        "1. Descrever as ações de formação continuada oferecidas pelas secretarias municipais "
        "entre 2019 e 2021.",
        "2. Identificar as necessidades formativas que os professores reconhecem em seu "
        "trabalho com as turmas.",
        "3. Analisar a relação entre os modelos de formação adotados e as condições de trabalho "
        "nas escolas.",
        "4. Propor diretrizes para uma formação centrada na escola, construídas com as equipes "
        "pedagógicas.",
    ]
    assert page1[-5:] == [
        *items,
        "1 Ver o apêndice A, que reúne o roteiro das entrevistas semiestruturadas e o termo de "
        "consentimento.",
    ]


def test_the_real_layout_ground_truth_scores(cleaned, tmp_path: Path) -> None:
    import pypdfium2 as pdfium

    for name in ("escolas_abntex2", "celulas_artigo", "relatorio_writer"):
        gold = json.loads((REAL / f"{name}.json").read_text(encoding="utf-8"))
        pdf = pdfium.PdfDocument(REAL / f"{name}.pdf")
        raw = "\n".join(
            pdf[i].get_textpage().get_text_range().replace("\ufffe", "-\n") for i in range(len(pdf))
        )
        pdf.close()
        score = score_layout_cleaning(gold, paragraphs(cleaned[name]), raw)
        assert score["char_similarity"] >= 0.99, (name, score)
        assert score["line_end_breaks"] >= 10
        defects = {k: v for k, v in score.items() if k.endswith(("_text", "glued", "words"))}
        assert set(defects.values()) == {0}, (name, defects)


def test_wide_gaps_make_a_table_only_when_their_cells_line_up(tmp_path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    # Loosely set lines: gaps over an em, at places that do not line up.
    loose = [
        "A pesquisa acompanhou as escolas.      Depois vieram as entrevistas com docentes",
        "e gestores, feitas ao longo de dois anos.      Os registros foram transcritos e",
        "analisados por categorias que emergiram      do material empírico e da teoria.",
    ]
    for line in loose:
        pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(6)
    for row in (["Escola", "Docentes", "Gestores"], ["Norte", "10", "2"], ["Sul", "14", "3"]):
        for x, cell in zip((20, 70, 110), row, strict=True):
            pdf.set_x(x)
            pdf.cell(30, 6, cell)
        pdf.ln(6)
    pdf.output(str(tmp_path / "gaps.pdf"))
    text = clean_document(extract(tmp_path / "gaps.pdf"), **OPTIONS).text  # type: ignore[arg-type]
    assert "Escola | Docentes | Gestores\nNorte | 10 | 2\nSul | 14 | 3" in text
    assert text.count(" | ") == 6
    assert "as escolas. Depois vieram as entrevistas" in text


def test_type_set_at_size_one_and_scaled_by_the_text_matrix_is_read_at_its_real_size(
    tmp_path: Path,
) -> None:
    # This gazette sets every character at font size 1 scaled 8x by the text matrix: taken
    # at size 1, each letter gap would be "wider than an em" and the page a table.
    source = DATA_DIR / "pdfs" / "gazette" / "multiple_columns.pdf"
    shutil.copy(source, tmp_path / "gazette.pdf")
    text = clean_document(extract(tmp_path / "gazette.pdf"), **OPTIONS).text  # type: ignore[arg-type]
    assert " | " not in text
    assert "IEL-ES premiará as maiores e melhores empresas do Espírito Santo" in text
    assert "será realizada a entrega das homenagens às maiores e melhores empresas" in text
