"""How a PDF page's lines become paragraphs, as a reader of the cleaned law or thesis sees them.

A law's structured items (artigos, parágrafos, incisos, alíneas) each stay their own paragraph,
even when the line above runs to the right margin without final punctuation; a word the line
end broke is joined again; a paragraph ends where the text shows it (a short line, a blank line,
a sentence that stops short of the margin).
"""

from __future__ import annotations

from colmeia.rag.ingest.clean import join_lines

# Full-width lines of a law page, as the extractor gives them (one string per printed line).
_LAW_PAGE = [
    "Art. 5º Compete ao órgão gestor do programa, observadas as normas gerais desta lei e",
    "do seu regulamento, as seguintes atribuições no âmbito do sistema nacional:",
    "I - fiscalizar a aplicação dos recursos transferidos aos entes federados e",
    "aos consórcios públicos;",
    "II - aplicar as sanções previstas nesta lei, assegurados o contraditório e a",
    "a) advertência por escrito ao responsável pela execução do contrato firmado",
    "b) multa de até dez por cento do valor total do contrato celebrado entre as",
    "§ 1º As sanções serão aplicadas pela autoridade competente do órgão gestor do",
    "Parágrafo único. O regulamento disporá sobre os prazos de defesa previstos em",
    "PARÁGRAFO ÚNICO. O regulamento disporá sobre os prazos de defesa previstos em",
    "ART. 6º Esta lei entra em vigor na data de sua publicação oficial, revogadas",
]


def test_each_item_of_a_law_is_its_own_paragraph() -> None:
    paragraphs = join_lines(_LAW_PAGE)
    starts = [p.split(" ", 1)[0] for p in paragraphs]
    assert starts == ["Art.", "I", "II", "a)", "b)", "§", "Parágrafo", "PARÁGRAFO", "ART."]


def test_an_alinea_in_lower_case_is_not_glued_to_the_inciso_above() -> None:
    # The line above ends mid-sentence at the margin; "a)" still opens a new item.
    paragraphs = join_lines(_LAW_PAGE)
    assert "II - aplicar as sanções previstas nesta lei, assegurados o contraditório e a" in (
        paragraphs
    )
    assert paragraphs[3].startswith("a) advertência por escrito")


def test_the_wrapped_rest_of_an_item_joins_its_item() -> None:
    paragraphs = join_lines(_LAW_PAGE)
    assert paragraphs[0].endswith("as seguintes atribuições no âmbito do sistema nacional:")
    assert paragraphs[1] == (
        "I - fiscalizar a aplicação dos recursos transferidos aos entes federados e "
        "aos consórcios públicos;"
    )


def test_a_numbered_or_bulleted_list_keeps_one_item_per_paragraph() -> None:
    # ("1. descrever" at a page's foot would be read as a footnote: numbered with a parenthesis)
    lines = [
        "Os objetivos específicos desta pesquisa, definidos a partir do problema, são",
        "1) descrever o perfil dos docentes que atuam na rede municipal de ensino",
        "2) comparar as práticas de avaliação adotadas nas escolas participantes",
        "• propor diretrizes para a formação continuada dos professores da rede",
    ]
    assert join_lines(lines) == lines


def test_a_word_broken_at_the_line_end_is_joined_without_its_hyphen() -> None:
    assert join_lines(["A regulamen-", "tação do sistema"]) == ["A regulamentação do sistema"]
    assert join_lines(["o Ministério da Ciên-", "cia e Tecnologia"]) == [
        "o Ministério da Ciência e Tecnologia"
    ]


def test_a_hyphen_that_belongs_to_the_text_is_kept() -> None:
    # A clitic pronoun, a number and a capital after the hyphen all belong to the writing.
    assert join_lines(["Cabe ao órgão fazê-", "los cumprir"]) == ["Cabe ao órgão fazê-los cumprir"]
    assert join_lines(["durante a pandemia de COVID-", "19 no país"]) == [
        "durante a pandemia de COVID-19 no país"
    ]
    assert join_lines(["as plataformas de e-", "Commerce locais"]) == [
        "as plataformas de e-Commerce locais"
    ]


def test_a_name_broken_at_a_short_line_end_does_not_end_the_paragraph() -> None:
    lines = [
        "A avaliação institucional das universidades públicas brasileiras passou por",
        "mudanças importantes, como apontam SILVA e FER-",
        "REIRA (2010) ao revisar os instrumentos adotados pelas comissões de avaliação.",
    ]
    (paragraph,) = join_lines(lines)
    assert "como apontam SILVA e FERREIRA (2010) ao revisar" in paragraph


def test_a_blank_line_and_a_short_last_line_end_a_paragraph() -> None:
    lines = [
        "A pesquisa adotou uma abordagem qualitativa, com entrevistas semiestruturadas",
        "realizadas com gestores e professores de três escolas da rede estadual.",
        "Os dados foram analisados por meio da análise de conteúdo proposta por Bardin,",
        "com categorias definidas a priori.",
        "",
        "Os resultados indicam que a participação dos professores nas decisões da escola",
        "ainda é limitada pela falta de tempo reservado para o trabalho coletivo.",
    ]
    paragraphs = join_lines(lines)
    assert paragraphs == [
        "A pesquisa adotou uma abordagem qualitativa, com entrevistas semiestruturadas "
        "realizadas com gestores e professores de três escolas da rede estadual.",
        "Os dados foram analisados por meio da análise de conteúdo proposta por Bardin, "
        "com categorias definidas a priori.",
        "Os resultados indicam que a participação dos professores nas decisões da escola "
        "ainda é limitada pela falta de tempo reservado para o trabalho coletivo.",
    ]


def test_a_sentence_ending_at_the_right_margin_continues_its_paragraph() -> None:
    lines = [
        "A escola pública brasileira enfrenta desafios estruturais que afetam a aprendizagem.",
        "Entre eles estão a falta de infraestrutura, a rotatividade dos professores e a",
        "ausência de políticas de formação continuada articuladas ao projeto da escola.",
    ]
    assert join_lines(lines) == [" ".join(lines)]


def test_an_item_stays_its_own_paragraph_on_a_page_that_marks_paragraphs_by_indent() -> None:
    # the extractor marks a line set in from the margin with a tab: a paragraph's first line.
    # A full-width line not set in normally continues the paragraph; an item never does.
    lines = [
        "\tArt. 5º Compete ao órgão gestor do programa, observadas as normas gerais desta lei,",
        "as seguintes atribuições no âmbito do sistema nacional de avaliação da educação:",
        "I - fiscalizar a aplicação dos recursos transferidos aos entes federados e aos seus",
        "consórcios públicos, na forma do regulamento e das normas do órgão de controle.",
        "a) advertência por escrito ao responsável pela execução do contrato e dos convênios",
        "firmados com os entes federados, publicada no sítio do órgão na rede mundial.",
        "\tEntre eles estão a falta de infraestrutura, a rotatividade dos professores e a",
        "Ausência de políticas de formação continuada articuladas ao projeto da escola.",
    ]
    paragraphs = join_lines(lines)
    assert [p.split(" ", 1)[0] for p in paragraphs] == ["Art.", "I", "a)", "Entre"]
    # the capitalised full line that is not set in continues its paragraph
    assert paragraphs[3].endswith(
        "e a Ausência de políticas de formação continuada articuladas ao projeto da escola."
    )
