"""Cells a spreadsheet program cannot run, for every CSV and XLSX colmeia writes (bottom layer).

Text from records, bibliographies or a model may start like a formula: Excel, LibreOffice and
Google Sheets run ``=HYPERLINK("http://…?x="&A1, "clique")`` when a CSV cell or an XLSX formula
cell holds it, sending the sheet's data wherever it points (CSV/formula injection). OWASP's rule:
a text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is written as
text. In CSV that is a leading apostrophe (spreadsheets show the text, never evaluate it); in
XLSX the cell is typed as a string, so the text stays exactly as it was. Numbers stay numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["FORMULA_STARTS", "csv_cell", "csv_row", "csv_text", "xlsx_text_cells", "xlsx_value"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# control characters an XLSX file cannot hold (openpyxl refuses them)
_ILLEGAL_XLSX = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell no spreadsheet runs: text starting like a formula gets a ``'``."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_row(values: Iterable[Any]) -> list[Any]:
    """Every cell of a row through :func:`csv_cell`."""
    return [csv_cell(v) for v in values]


def csv_text(value: str) -> str:
    """A cell read back from a CSV colmeia wrote: the apostrophe :func:`csv_cell` added goes."""
    if value.startswith("'") and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value


def xlsx_value(value: Any) -> Any:
    """``value`` as openpyxl accepts it: control characters XLSX cannot hold become U+FFFD
    (call :func:`xlsx_text_cells` on the sheet afterwards)."""
    if isinstance(value, str):
        return _ILLEGAL_XLSX.sub("\ufffd", value)
    return value


def xlsx_text_cells(worksheet: Any, *, min_row: int = 1) -> None:
    """Make every text cell of an openpyxl worksheet plain text: openpyxl stores a string that
    starts with ``=`` as a formula (``<f>…</f>``); typed as a string it is shown, never run."""
    for cells in worksheet.iter_rows(min_row=min_row):
        for cell in cells:
            value = cell.value
            if isinstance(value, str) and (
                cell.data_type == "f" or value.startswith(FORMULA_STARTS)
            ):
                cell.data_type = "s"
