"""What :func:`clean_pages` gives a reader page by page: text written with Windows line ends
cleans as with plain ones; a page carries the number printed on it as its label (none before
the printed numbering starts); a page's footnotes come after its body, but before a last
paragraph that goes on on the next page (that paragraph must end its page)."""

from __future__ import annotations

from colmeia.rag.ingest.clean import clean_pages
from colmeia.rag.types import Page

_TEXT = [
    "As escolas da rede estadual foram visitadas ao longo de todo o ano letivo de 2019.",
    "Os diretores responderam a um questionário sobre a gestão dos recursos da escola.",
    "Os professores participaram de grupos focais sobre a rotina e o planejamento.",
    "As famílias foram ouvidas em reuniões abertas no fim do expediente das escolas.",
    "A merenda escolar foi registrada em fichas padronizadas em todas as visitas.",
    "O transporte dos alunos da zona rural atrasou metade das visitas previstas.",
]


def test_windows_line_ends_clean_like_plain_ones() -> None:
    lines = [
        "Relatório anual",
        "A pesquisa acompanhou as esco-",
        "las da rede estadual durante todo o ano.",
        "12",
    ]
    pages = [Page(1, "\r\n".join(lines)), Page(2, "\n".join(lines))]
    crlf, lf = clean_pages(pages)
    assert (
        crlf.text
        == lf.text
        == (
            "Relatório anual\n\nA pesquisa acompanhou as escolas da rede estadual durante todo o ano."
        )
    )


def test_pages_are_labelled_with_the_number_printed_on_them_from_where_it_starts() -> None:
    cover = Page(1, "UNIVERSIDADE FEDERAL DO SUL\nAna Souza")
    title = Page(2, "AVALIAÇÃO E GESTÃO ESCOLAR\nPorto Alegre, 2020")
    body = [Page(k + 3, f"{_TEXT[k]}\n{k + 1}") for k in range(4)]
    out = clean_pages([cover, title, *body])
    labels = [(1, ""), (2, ""), (3, "1"), (4, "2"), (5, "3"), (6, "4")]
    assert [(p.number, p.label) for p in out] == labels
    assert [p.text for p in out[2:]] == _TEXT[:4]


def test_a_footnote_goes_before_the_paragraph_that_the_page_break_carries_on() -> None:
    first = Page(
        1,
        "\n".join(
            [
                _TEXT[0],
                "",
                "A avaliação externa, conduzida pelo Saeb1 desde a década de noventa, orienta as",
                "1Sistema de Avaliação da Educação Básica.",
            ]
        ),
    )
    second = Page(2, "políticas das redes estaduais e municipais de ensino.\n" + _TEXT[1])
    one, two = clean_pages([first, second])
    assert one.text.split("\n\n") == [
        _TEXT[0],
        "1Sistema de Avaliação da Educação Básica.",
        "A avaliação externa, conduzida pelo Saeb desde a década de noventa, orienta as "
        "políticas das redes estaduais e municipais de ensino.",
    ]
    assert two.text == _TEXT[1]
    # a page whose paragraphs all ended keeps its notes last
    alone = clean_pages([first, Page(2, "CAPÍTULO 2\n" + _TEXT[1])])[0]
    assert alone.text.split("\n\n")[-1] == "1Sistema de Avaliação da Educação Básica."
