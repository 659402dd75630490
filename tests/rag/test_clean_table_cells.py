"""A table's first cell wrapped over two lines comes out as one row, not as two."""

from __future__ import annotations

from colmeia.rag.ingest.clean_layout import table_text
from colmeia.rag.ingest.pdf_layout import CELL


def unbreak(a: str, b: str) -> str:
    """The cleaner's hyphen rule, as far as these rows need it."""
    return a[:-1] + b if a.endswith("-") else f"{a} {b}"


def test_a_first_cell_broken_at_a_word_goes_on_in_the_line_below() -> None:
    rows = [
        f"Termo{CELL}Tradução",
        f"section, gathering, quire (especial-{CELL}caderno",
        "mente se não impresso), signature",
        f"cover{CELL}capa",
    ]
    assert table_text(rows, unbreak).split("\n") == [
        "Termo | Tradução",
        "section, gathering, quire (especialmente se não impresso), signature | caderno",
        "cover | capa",
    ]


def test_both_cells_wrapped_after_a_comma_go_on_cell_by_cell() -> None:
    rows = [
        f"dust jacket, dust cover, book jacket,{CELL}sobrecapa. Geralmente de papel,",
        f"dust wrapper{CELL}para cobrir capas duras.",
    ]
    assert table_text(rows, unbreak) == (
        "dust jacket, dust cover, book jacket, dust wrapper"
        " | sobrecapa. Geralmente de papel, para cobrir capas duras."
    )


def test_a_row_under_a_closed_first_cell_stays_a_row() -> None:
    # The booktabs example: "each" is a second price of the Gnat, in a row of its own.
    rows = [f"Gnat{CELL}per gram{CELL}13.65", f"each{CELL}0.01", f"Gnu{CELL}stuffed{CELL}92.50"]
    assert table_text(rows).split("\n") == [
        "Gnat | per gram | 13.65",
        "each | 0.01",
        "Gnu | stuffed | 92.50",
    ]


def test_a_dash_for_an_empty_first_cell_is_no_broken_word() -> None:
    rows = [f"-{CELL}0", f"Sul{CELL}2"]
    assert table_text(rows).split("\n") == ["- | 0", "Sul | 2"]


def test_a_line_with_more_cells_than_the_open_row_above_is_a_row_of_its_own() -> None:
    rows = [f"Norte,{CELL}4", f"Sul{CELL}2{CELL}6"]
    assert table_text(rows).split("\n") == ["Norte, | 4", "Sul | 2 | 6"]
