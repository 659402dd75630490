"""Which recurring lines a reader expects gone from a PDF's pages: a chapter's running title
at the top or foot of three pages or more (and of a tenth of the pages); a gazette's masthead
set a few lines in, when it is long or carries numbers and recurs on half the pages; not a
short signature recurring inside the pages, nor a line beyond the first or last eight, nor a
number of a table that happens to sit near the top."""

from __future__ import annotations

from colmeia.rag.ingest.clean import remove_running_lines

_NAMES = [
    "Ana",
    "Bruno",
    "Carla",
    "Diego",
    "Elisa",
    "Fábio",
    "Gabriela",
    "Heitor",
    "Isabel",
    "João",
    "Karina",
    "Lucas",
    "Marta",
    "Nuno",
    "Olívia",
    "Paulo",
    "Quitéria",
    "Rafael",
    "Sofia",
    "Tiago",
    "Úrsula",
    "Vítor",
    "Wanda",
    "Xavier",
    "Yara",
    "Zeca",
    "Alice",
    "Bento",
    "Celina",
    "Davi",
    "Estela",
    "Felipe",
    "Glória",
    "Hugo",
    "Irene",
    "Jonas",
    "Laura",
    "Mateus",
    "Nádia",
    "Otávio",
    "Priscila",
]
_PLACES = ["centro", "norte", "sul", "leste", "oeste", "litoral", "serra", "vale", "campo", "porto"]


def _page(p: int, lines: int = 6) -> list[str]:
    """Running text of page ``p``: lines that recur on no other page."""
    return [
        f"{_NAMES[p]} visitou a escola do bairro {_PLACES[i]} no período da manhã."
        for i in range(lines)
    ]


def test_a_chapters_running_title_on_three_pages_goes() -> None:
    pages = [["Revisão da literatura", *_page(p)] for p in range(3)]
    assert remove_running_lines(pages) == [_page(p) for p in range(3)]


def test_a_running_title_must_head_a_tenth_of_the_pages() -> None:
    title = "Revisão da literatura"
    pages = [[title, *_page(p)] if p < 4 else _page(p) for p in range(40)]
    assert remove_running_lines(pages) == [_page(p) for p in range(40)]
    pages = [[title, *_page(p)] if p < 3 else _page(p) for p in range(40)]
    assert [lines[0] for lines in remove_running_lines(pages)[:3]] == [title] * 3


def test_two_pages_have_no_running_lines() -> None:
    pages = [["Revisão da literatura", *_page(p)] for p in range(2)]
    assert remove_running_lines(pages) == pages


def test_a_long_masthead_a_few_lines_in_goes_on_half_the_pages_or_more() -> None:
    masthead = "Diário Oficial do Município de Campo Belo"  # long, no numbers
    pages = [[*_page(p)[:3], masthead, *_page(p)[3:]] for p in range(3)]
    assert remove_running_lines(pages) == [_page(p) for p in range(3)]
    exactly = "Diário Oficial de Campo Belo e região"[:25]
    assert len(exactly) == 25
    pages = [[*_page(p)[:3], exactly, *_page(p)[3:]] for p in range(3)]
    assert remove_running_lines(pages) == [_page(p) for p in range(3)]


def test_a_masthead_on_fewer_than_half_the_pages_stays() -> None:
    masthead = "Diário Oficial do Município de Campo Belo"
    pages = [[*_page(p)[:3], masthead, *_page(p)[3:]] if p < 4 else _page(p) for p in range(10)]
    assert remove_running_lines(pages) == pages


def test_a_short_signature_recurring_inside_the_pages_stays() -> None:
    signature = "Prefeito Municipal"
    pages = [[*_page(p)[:3], signature, *_page(p)[3:]] for p in range(4)]
    assert remove_running_lines(pages) == pages
    # the third line from the foot is not the foot
    pages = [[*_page(p)[:4], signature, *_page(p)[4:]] for p in range(4)]
    assert remove_running_lines(pages) == pages


def test_a_line_beyond_the_first_and_last_eight_is_no_masthead() -> None:
    quoted = "Diário Oficial do Município de Campo Belo"
    pages = [[*_page(p, 8), quoted, *_page(p + 10, 8)] for p in range(4)]
    assert remove_running_lines(pages) == pages


def test_a_number_of_a_table_near_the_top_is_no_page_number() -> None:
    pages = [[*_page(p)[:3], "350", *_page(p)[3:]] for p in range(3)]
    assert remove_running_lines(pages) == pages
