"""No export colmeia writes carries a live formula (OWASP's CSV-injection rule).

A record titled ``=HYPERLINK("http://…?x="&A1,"clique")`` imported into a collection came out of
a review's CSV as a cell starting with ``=`` and out of its XLSX as ``<f>HYPERLINK(…)</f>``: the
spreadsheet ran it. Every text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return is now text: a leading apostrophe in CSV, a string cell in XLSX (the text unchanged).
"""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook

from colmeia.apps.assistant.registry_io import csv_rows
from colmeia.apps.literature import Review, ReviewedWork
from colmeia.apps.literature.export import export_review
from colmeia.spreadsheet import csv_cell, csv_row, csv_text, xlsx_text_cells, xlsx_value

HOSTILE = [
    '=HYPERLINK("http://127.0.0.1/?x="&A1,"clique")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_cell_starting_like_a_formula_is_written_as_text_and_read_back_unchanged(
    text: str,
) -> None:
    assert csv_cell(text) == "'" + text
    assert csv_text(csv_cell(text)) == text


def test_plain_text_and_numbers_are_left_alone() -> None:
    assert csv_cell("Acesso à justiça") == "Acesso à justiça"
    assert csv_cell(-3) == -3 and csv_cell("'quoted") == "'quoted"
    assert csv_text("'quoted") == "'quoted"


def _review(tmp: Path) -> Review:
    works = [ReviewedWork(f"w{i}", title, i + 1, 0.5) for i, title in enumerate(HOSTILE)]
    return Review(question="acesso à justiça", collection="teses", works=works)


def test_a_review_export_in_csv_holds_no_formula(tmp_path: Path) -> None:
    path = export_review(_review(tmp_path), tmp_path / "review.csv")
    with path.open(encoding="utf-8", newline="") as fh:
        titles = [row["title"] for row in csv.DictReader(fh)]
    assert titles == ["'" + t for t in HOSTILE]


def test_a_review_export_in_xlsx_holds_no_formula_and_keeps_the_text(tmp_path: Path) -> None:
    path = export_review(_review(tmp_path), tmp_path / "review.xlsx")
    with zipfile.ZipFile(path) as z:
        sheets = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/worksheets/")]
    assert not any("<f>" in s for s in sheets)
    sheet = load_workbook(path).active
    header = [c.value for c in sheet[1]]
    col = header.index("title")
    assert [r[col] for r in sheet.iter_rows(min_row=2, values_only=True)] == HOSTILE


def test_the_registry_export_reads_back_what_was_written() -> None:
    data = "number,subject\r\nTC/1/2024," + csv_cell("=1+2") + "\r\n"
    rows = [row for _, row in csv_rows("processes.csv", data.encode())]
    assert rows == [{"number": "TC/1/2024", "subject": "=1+2"}]


def test_a_row_is_every_cell_made_safe_in_order() -> None:
    assert csv_row(["=1+1", "texto", 3, None]) == ["'=1+1", "texto", 3, None]


def test_a_lone_apostrophe_or_one_before_plain_text_is_read_back_as_written() -> None:
    # only the apostrophe csv_cell adds goes: "'" alone and "'=" keep what follows
    assert csv_text("'") == "'"
    assert csv_text("'=") == "="
    assert csv_text("'ab") == "'ab"


def test_xlsx_cells_keep_text_and_lose_only_what_xlsx_cannot_hold() -> None:
    assert xlsx_value("a\x00b\x1fc\td") == "a\ufffdb\ufffdc\td"
    assert xlsx_value(7) == 7


def test_every_text_cell_of_a_sheet_is_a_string_from_the_first_row_numbers_untouched() -> None:
    book = Workbook()
    sheet = book.active
    sheet.append(["=cabeçalho", "título"])  # the header row is a row like the others
    sheet.append(["=HYPERLINK(1)", 5, "@SUM(A1)", "texto"])
    sheet["E2"] = "=1+1"  # openpyxl types it as a formula
    xlsx_text_cells(sheet)
    assert sheet["A1"].data_type == "s" and sheet["A1"].value == "=cabeçalho"
    assert sheet["A2"].data_type == "s" and sheet["C2"].data_type == "s"
    assert sheet["E2"].data_type == "s" and sheet["E2"].value == "=1+1"
    assert sheet["B2"].data_type == "n" and sheet["B2"].value == 5
    assert sheet["D2"].data_type == "s"


def test_a_formula_cell_not_starting_like_one_is_a_string_too() -> None:
    book = Workbook()
    sheet = book.active
    sheet["A1"] = "SUM(B1:B2)"
    sheet["A1"].data_type = "f"  # a cell another writer typed as a formula
    xlsx_text_cells(sheet)
    assert sheet["A1"].data_type == "s"


def test_rows_above_min_row_are_left_as_they_are() -> None:
    book = Workbook()
    sheet = book.active
    sheet["A1"] = "=1+1"
    sheet["A2"] = "=2+2"
    xlsx_text_cells(sheet, min_row=2)
    assert sheet["A1"].data_type == "f" and sheet["A2"].data_type == "s"
