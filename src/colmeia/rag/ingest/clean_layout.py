"""Cleaning steps that read the PDF layout marks (rag/ingest/pdf_layout.py): footnotes by their
smaller type at the page's foot, footnote marks by being raised, tables by their column gaps.

Pages without marks (text files, hand-made pages, other extractors) never reach these steps;
the text-only rules of :mod:`colmeia.rag.ingest.clean` stand in for them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from colmeia.rag.ingest.pdf_layout import CELL, INDENT, NOTE, SUP, strip_marks

__all__ = ["is_table_row", "mark_superscript_notes", "split_layout_notes", "table_text"]

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
_SUP_DIGITS_RE = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹]+")
_SUP_NOTE_LINE_RE = re.compile(r"^\s*[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3}\s*\S")


def mark_superscript_notes(lines: Sequence[str], *, window: int = 12) -> list[str] | None:
    """Text whose superscripts are characters ("coletivo.¹" / "¹ Ver o apêndice A") carries
    its layout itself: from the first line near the page's end that opens with superscript
    digits, the lines are footnotes (NOTE), and every superscript number becomes a raised
    number (SUP) the note split reads. ``None`` when the page has no such note."""
    start = next(
        (
            i
            for i in range(max(0, len(lines) - window), len(lines))
            if _SUP_NOTE_LINE_RE.match(lines[i])
        ),
        None,
    )
    if start is None:
        return None

    def raise_digits(line: str) -> str:
        return _SUP_DIGITS_RE.sub(lambda m: SUP + m.group(0).translate(_SUPERSCRIPTS), line)

    body = [raise_digits(x) for x in lines[:start]]
    notes = [NOTE + raise_digits(x.strip()) for x in lines[start:] if x.strip()]
    return body + notes


# A note opens with its number raised ("¹Ver…"), or followed by ". ", a gap or a letter
# ("1. <http…>", "1Ver…"); a wrapped line that starts with a number ("2.3.", "2022.") does not.
_NOTE_START_RE = re.compile(
    r"^(?:" + SUP + r"(\d{1,3})|(\d{1,3})(?:\.\s|" + CELL + r"|(?=[^\W\d_])))\s*|^[*†‡]"
)
# A raised number right after a word or punctuation: "abnTEX2¹", "coletivo.¹", "License”¹".
_MARK_RE = re.compile(r"(?<=[^\s\x1c-\x1f])" + SUP + r"(\d{1,3})(?!\d)")


def split_layout_notes(
    lines: Sequence[str], join: Callable[[str, str], str]
) -> tuple[list[str], list[str]]:
    """The page's body lines (footnote marks taken off their words, other superscripts kept
    as plain characters, indent marks kept) and its footnotes, one string per note ("1 Ver o
    apêndice A."). ``join`` glues a note's wrapped lines (it knows the hyphen rule)."""
    body: list[str] = []
    notes: list[str] = []
    numbers: set[str] = set()
    for line in lines:
        lead = INDENT if line.startswith(INDENT) else ""
        rest = line[len(lead) :]
        if not rest.startswith(NOTE):
            body.append(line)
            continue
        # Not str.strip(): it takes the SUP mark of the note's number for whitespace.
        text = rest[len(NOTE) :].strip(" \t")
        start = _NOTE_START_RE.match(text)
        if start is not None or not notes:
            number = (start.group(1) or start.group(2)) if start is not None else None
            if start is not None and number is not None:
                numbers.add(number)
                text = f"{number} {text[start.end() :]}"
            notes.append(strip_marks(text).strip())
        else:
            notes[-1] = join(notes[-1], strip_marks(text).strip())

    def unmark(m: re.Match[str]) -> str:
        return "" if m.group(1) in numbers else m.group(1)

    body = [_MARK_RE.sub(unmark, x).replace(SUP, "") for x in body]
    return body, notes


def is_table_row(line: str) -> bool:
    """Whether the line has a column gap (a table's row, or a header beside a page number)."""
    return CELL in line.strip()


# A row label does not end in a comma or a broken word: a first cell that does goes on in the
# line below ("section, gathering, quire (especial-" / "mente se não impresso), signature").
# A lone dash is an empty cell's mark, not a broken word.
_OPEN_CELL_RE = re.compile(r"(?:,|[^\W\d_]-)$")


def _spaced(a: str, b: str) -> str:
    return f"{a} {b}"


def table_text(rows: Sequence[str], join: Callable[[str, str], str] = _spaced) -> str:
    """A table's rows as text: one row a line, cells separated by " | ". A line under a row
    whose first cell ends open (a comma, a broken word) and that has no more cells than that
    row is the rest of its cells, glued to them by ``join`` (which knows the hyphen rule):
    one cell goes on the first, as many cells go on each."""
    merged: list[list[str]] = []
    for row in rows:
        cells = [" ".join(c.split()) for c in row.strip().split(CELL)]
        cells = [c for c in cells if c]
        if not cells:
            continue
        above = merged[-1] if merged else None
        if above is not None and _OPEN_CELL_RE.search(above[0]) and len(cells) <= len(above):
            for k, cell in enumerate(cells):
                above[k] = join(above[k], cell)
            continue
        merged.append(cells)
    return "\n".join(" | ".join(cells) for cells in merged)
