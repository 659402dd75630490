"""A page that marks its paragraphs by a first-line indent, as a reader of the cleaned thesis
sees it: a block quote set in throughout stays one paragraph, a heading or a short line not set
in is not glued to the paragraph above, and an item opens its own paragraph whatever the line
above ended with; on any page, a contents list's entries stay apart from the text and no line
is lost after one that opens with punctuation.

The extractor marks a line set in from the left margin with a tab (``pdf.INDENT``)."""

from __future__ import annotations

from colmeia.rag.ingest.clean import join_lines


def test_a_block_quote_set_in_throughout_is_one_paragraph() -> None:
    # every line is set in: the sentence ending at the right margin does not end the quote
    # (only a set-in line after one that is not opens a paragraph)
    lines = [
        "\tA educação, direito de todos e dever do Estado e da família, será promovida.",
        "\tE incentivada com a colaboração da sociedade, visando o seu desenvolvimento.",
        "\tDa pessoa, seu preparo para o exercício da cidadania e sua qualificação nele.",
    ]
    assert join_lines(lines) == [" ".join(x.strip() for x in lines)]


def test_a_set_in_line_after_a_sentence_at_the_margin_opens_a_paragraph() -> None:
    lines = [
        "\tA escola pública brasileira enfrenta desafios estruturais que afetam o ensino.",
        "Entre eles estão a falta de infraestrutura e a rotatividade dos professores nela.",
        "\tA formação continuada, por sua vez, raramente se articula ao projeto da escola.",
    ]
    paragraphs = join_lines(lines)
    assert [p.split(" ", 1)[0] for p in paragraphs] == ["A", "A"]


def test_a_short_line_not_set_in_after_a_sentence_is_not_glued_to_it() -> None:
    # a heading under a paragraph ending short of the margin: its own paragraph, although a
    # full line not set in would have continued the paragraph
    lines = [
        "\tA escola pública brasileira enfrenta desafios estruturais que afetam o ensino.",
        "Entre eles estão a falta de infraestrutura e de professores.",
        "METODOLOGIA DA PESQUISA",
        "\tO estudo adotou uma abordagem qualitativa, com entrevistas semiestruturadas.",
    ]
    paragraphs = join_lines(lines)
    assert "METODOLOGIA DA PESQUISA" in paragraphs, paragraphs


def test_a_caption_not_set_in_is_not_glued_to_the_paragraph_above() -> None:
    # held twice: captions are set apart before the lines are joined, and the join does not
    # glue one either (red only with both rules broken)
    lines = [
        "\tA escola pública brasileira enfrenta desafios estruturais que afetam o ensino.",
        "Entre eles estão a falta de infraestrutura e de professores.",
        "Figura 3 – Evolução das matrículas na rede municipal de ensino entre 2010 e 2020",
        "\tO estudo adotou uma abordagem qualitativa, com entrevistas semiestruturadas.",
    ]
    paragraphs = join_lines(lines)
    assert not any("professores. Figura" in p for p in paragraphs), paragraphs
    assert any(p.startswith("Figura 3 – Evolução") for p in paragraphs), paragraphs


def test_an_item_after_a_line_ending_in_a_hyphen_opens_its_own_paragraph() -> None:
    lines = [
        "As metas do plano municipal, aprovadas pelo conselho em sua última sessão, pré-",
        "a) ampliar a oferta de vagas na educação infantil em toda a rede municipal;",
        "b) reduzir a evasão escolar nos anos finais do ensino fundamental da rede.",
    ]
    paragraphs = join_lines(lines)
    assert [p.split(" ", 1)[0] for p in paragraphs] == ["As", "a)", "b)"], paragraphs


def test_a_heading_over_a_two_line_paragraph_is_its_own_paragraph() -> None:
    # three lines are too few for a percentile of their widths: the short last line would be
    # taken for the full width and the heading glued to the paragraph
    lines = [
        "CONSIDERAÇÕES FINAIS",
        "Para políticas públicas de formação docente, os resultados indicam a necessidade",
        "de ações articuladas.",
    ]
    assert join_lines(lines)[0] == "CONSIDERAÇÕES FINAIS"


def test_no_line_is_lost_after_one_that_opens_with_punctuation() -> None:
    # a footnote mark's superscript left the comma at the start of the next line
    lines = [
        "A formação continuada dos professores, como apontam os estudos mais recentes da área",
        ", entre outros, depende da articulação entre as redes de ensino e as universidades.",
        "Essa articulação, no entanto, raramente se concretiza nas redes municipais do estado.",
    ]
    paragraphs = join_lines(lines)
    assert (
        paragraphs[0].startswith("A formação continuada")
        and "da área, entre outros" in (paragraphs[0])
    )
    assert paragraphs[-1].endswith("raramente se concretiza nas redes municipais do estado.")


def test_the_entries_of_a_contents_list_are_not_glued_to_the_text_around_them() -> None:
    lines = [
        "Os capítulos deste trabalho tratam da formação docente e das políticas de educação",
        "Apresentação do problema de pesquisa e dos objetivos ....................... 9",
        "Formação docente e políticas públicas de educação no Brasil ............... 21",
        "Este trabalho se organiza em três partes, descritas a seguir na ordem em que vêm",
    ]
    paragraphs = join_lines(lines)
    assert paragraphs == lines, paragraphs
