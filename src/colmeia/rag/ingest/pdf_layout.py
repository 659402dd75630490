"""What a PDF page's layout says beyond its text, written into the text as marks the cleaner reads.

PDFium gives a page's characters in reading order, with their font size and position. Four
layout facts decide how a thesis page must be cleaned and are lost in plain text:

- footnotes are set smaller than the body, below it (``NOTE`` leads each such line);
- a footnote's mark is a raised, smaller number after a word ("abnTEX2¹": ``SUP`` before it);
- a table's columns are separated by gaps far wider than a word space (``CELL`` stands for one);
- a drop capital is a letter several times the body's size beside the paragraph's first lines
  (PDFium may give it before, or long after, the paragraph: it is moved to the start of the
  first line it stands beside).

The marks are ASCII separators (``\\x1c``-``\\x1f``): Python's ``str.split``/``str.strip`` treat
them as whitespace, so line tests that do not know them still see the words. A page whose text
carries marks starts with a line holding ``LAYOUT``; :func:`strip_marks` removes them all.
"""

from __future__ import annotations

import ctypes
import math
import statistics
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["CELL", "INDENT", "LAYOUT", "MARKS", "NOTE", "SUP", "annotate_layout", "strip_marks"]

LAYOUT = "\x1c"  # opens a page whose text carries layout marks
CELL = "\x1d"  # a gap between two characters wider than an em: a table's column gap
NOTE = "\x1e"  # leads a line set smaller than the body, below it: a footnote line
SUP = "\x1f"  # precedes a run of raised, smaller characters (a footnote mark, an exponent)
MARKS = LAYOUT + CELL + NOTE + SUP
_STRIP = str.maketrans({LAYOUT: None, NOTE: None, SUP: None, CELL: " "})

_CELL_GAP = 1.0  # ems: justified word spaces stay under about 0.7 em, table columns do not
_ALIGN = 2.5  # points: cells of one column line up within this
_TINY = 3.0  # points: a font size under this is scaled by the text matrix
_NOTE_SIZE = 0.92  # a footnote is set at most this share of the body size (10/12, 8/10 pt)
_SUP_SIZE = 0.8  # a superscript is at most this share of its line's size…
_SUP_RISE = 0.15  # …and sits this share of it above the line's baseline
_DROP_SIZE = 1.8  # a drop capital is at least this many times the body size
_ROW_LOOKBACK = 4  # lines: a cell wrapped over up to three lines before the cell beside it
_INDENT_MIN, _INDENT_MAX = 6.0, 60.0  # points: 2 mm to 2 cm (block quotes go 4 cm in)
INDENT = "\t"  # leads a line set in from the text's left margin: a paragraph's first line


def strip_marks(text: str) -> str:
    """``text`` without layout marks (a column gap becomes a space)."""
    return text.translate(_STRIP)


@dataclass(slots=True)
class _Char:
    ch: str
    size: float
    left: float
    right: float
    top: float
    y: float  # the bottom of the glyph: their median over a line follows its baseline
    soft: bool = False  # a hyphen PDFium found at a line end (U+FFFE): the word goes on


@dataclass(slots=True)
class _Line:
    chars: list[_Char] = field(default_factory=list)
    size: float = 0.0
    baseline: float = 0.0
    note: bool = False
    hang: bool = False  # beside a drop capital: set in by the letter, not a paragraph start

    def measure(self) -> None:
        sizes = [c.size for c in self.chars if c.ch.strip()]
        if not sizes:
            return
        self.size = max(sizes)
        # The baseline of the line's main text, not of its superscripts.
        self.baseline = statistics.median(
            c.y for c in self.chars if c.ch.strip() and c.size >= _SUP_SIZE * self.size
        )

    @property
    def left(self) -> float:
        return min((c.left for c in self.chars if c.ch.strip()), default=0.0)

    @property
    def right(self) -> float:
        return max((c.right for c in self.chars if c.ch.strip()), default=0.0)

    @property
    def visible(self) -> str:
        return "".join(c.ch for c in self.chars).strip()


def _read_chars(textpage: object, text: str) -> list[_Line]:
    import pypdfium2.raw as pdfium_c

    box = [ctypes.c_double() for _ in range(4)]
    left, right, bottom, top = (ctypes.byref(v) for v in box)
    by_matrix = ctypes.byref(matrix := pdfium_c.FS_MATRIX())
    raw = textpage.raw  # type: ignore[attr-defined]
    lines: list[_Line] = [_Line()]
    for k, ch in enumerate(text):
        if ch == "\n":
            lines.append(_Line())
            continue
        if ch == "\r":
            continue
        # The raw calls with buffers made once: this loop runs for every character.
        pdfium_c.FPDFText_GetCharBox(raw, k, left, right, bottom, top)
        size = float(pdfium_c.FPDFText_GetFontSize(raw, k))
        if size < _TINY and pdfium_c.FPDFText_GetMatrix(raw, k, by_matrix):
            # Size 1 scaled by the text matrix (gazettes): the size as set is the product.
            size *= math.hypot(matrix.c, matrix.d)
        # PDFium stands U+FFFE for a hyphen it found at a line end, in place of the break.
        char = "-" if ch == "\ufffe" else ch
        lines[-1].chars.append(
            _Char(
                char,
                size,
                box[0].value,
                box[1].value,
                box[3].value,
                box[2].value,
                soft=ch == "\ufffe",
            )
        )
        if ch == "\ufffe":
            lines.append(_Line())
    for line in lines:
        line.measure()
    return lines


def _gaps(line: _Line) -> dict[int, tuple[float, float]]:
    """Per character that follows a gap wider than an em: the left and right end of the
    word it starts."""
    visible = [(i, c) for i, c in enumerate(line.chars) if c.ch.strip()]
    out: dict[int, tuple[float, float]] = {}
    for n, (i, c) in enumerate(visible[1:], start=1):
        if c.left - visible[n - 1][1].right > _CELL_GAP * line.size:
            end = n
            while end + 1 < len(visible) and visible[end + 1][0] == visible[end][0] + 1:
                end += 1
            out[i] = (c.left, visible[end][1].right)
    return out


def _aligned(
    mine: dict[int, tuple[float, float]], other: dict[int, tuple[float, float]]
) -> set[int]:
    """My gaps whose next cell lines up (left, right or centre) with a cell of the other line."""
    out = set()
    for i, (left, right) in mine.items():
        for o_left, o_right in other.values():
            if (
                abs(left - o_left) <= _ALIGN
                or abs(right - o_right) <= _ALIGN
                or abs((left + right) - (o_left + o_right)) <= 2 * _ALIGN
            ):
                out.add(i)
                break
    return out


def _starts(
    line: _Line, gaps: dict[int, tuple[float, float]], after: float
) -> dict[int, tuple[float, float]]:
    """The cells a line begins, for its neighbours to line up with: those after its gaps, and
    the line itself when it starts well right of ``after`` (a wrapped cell's next line, set in
    at its column: "back cover | quarta capa ou" / "verso da capa")."""
    if line.left - after <= line.size:
        return gaps
    visible = [c for c in line.chars if c.ch.strip()]
    end = next((k for k, c in enumerate(line.chars) if not c.ch.strip()), len(line.chars))
    word = [c for c in line.chars[:end] if c.ch.strip()] or visible[:1]
    return {**gaps, -1: (line.left, word[-1].right)}


def _columns(lines: list[_Line]) -> list[set[int]]:
    """Per line, the gaps that are a table's column gaps: wider than an em, with the cell
    after them lined up with a cell of the line above or below (or with the start of that
    line, when it is a cell's wrapped text set in at its column). A wide gap alone (a loose
    justified line, a sentence gap) is a space."""
    gaps = [_gaps(line) for line in lines]
    out: list[set[int]] = []
    for n, mine in enumerate(gaps):
        cells: set[int] = set()
        for m in (n - 1, n + 1):
            if 0 <= m < len(gaps) and mine:
                other = _starts(lines[m], gaps[m], lines[n].left)
                if other:
                    cells |= _aligned(mine, other)
        out.append(cells)
    return out


def _render(line: _Line, cells: set[int] | None = None) -> str:
    """The line's text with its superscripts and column gaps marked."""
    out: list[str] = []
    pending_space = False
    in_sup = False
    started = False
    wide = _gaps(line)  # a gap PDFium put no space in still separates words
    for i, c in enumerate(line.chars):
        if not c.ch.strip():
            pending_space = True
            continue
        if cells and i in cells:
            out.append(CELL)
        elif pending_space or (started and i in wide):
            out.append(" ")
        sup = c.size <= _SUP_SIZE * line.size and c.y > line.baseline + _SUP_RISE * line.size
        if sup and not in_sup:
            out.append(SUP)
        in_sup = sup
        out.append(c.ch)
        pending_space = False
        started = True
    return "".join(out)


def _merge_same_baseline(lines: list[_Line]) -> list[_Line]:
    """Lines PDFium split on one baseline are one line again: after a superscript
    ("abnTEX2¹" / ", e destina-se"), and a table cell given after the wrapped cell beside it
    ("section, gathering, quire (especial-" / "mente se não impresso)" / "caderno": the
    right cell joins the line it stands on, up to :data:`_ROW_LOOKBACK` lines back)."""
    out: list[_Line] = []
    for line in lines:
        same = next(
            (
                prev
                for prev in reversed(out[-_ROW_LOOKBACK:])
                if prev.chars
                and line.chars
                and line.size
                and abs(line.size - prev.size) < 0.5
                and abs(line.baseline - prev.baseline) < 0.3 * line.size
                and line.left >= prev.right - 1
            ),
            None,
        )
        if same is not None and (same is out[-1] or line.left - same.right > _CELL_GAP * line.size):
            same.chars.extend(line.chars)
            continue
        out.append(line)
    return out


def _body_size(lines: list[_Line]) -> float:
    weights: Counter[float] = Counter()
    for line in lines:
        for c in line.chars:
            if c.ch.strip():
                weights[c.size] += 1
    return weights.most_common(1)[0][0] if weights else 0.0


def _move_drop_capitals(lines: list[_Line], body: float) -> list[_Line]:
    """A letter several times the body size goes to the front of the highest line beside it."""
    out = list(lines)
    for line in lines:
        text = line.visible
        if not (len(text) == 1 and text.isalpha() and text.isupper()):
            continue
        if not body or line.size < _DROP_SIZE * body:
            continue
        letter = next(c for c in line.chars if c.ch.strip())
        beside = [
            other
            for other in out
            if other is not line
            and other.chars
            and letter.y - 0.3 * body <= other.baseline <= letter.top + 0.3 * body
            and other.left >= letter.right - 1
        ]
        if not beside:
            continue
        for other in beside:
            other.hang = True
        target = max(beside, key=lambda other: other.baseline)
        space = _Char(" ", body, letter.right, letter.right, letter.top, target.baseline)
        target.chars[:0] = [
            _Char(letter.ch, body, letter.left, letter.right, letter.top, target.baseline),
            space,
        ]
        out.remove(line)
    return out


def _is_row(line: _Line) -> bool:
    """Whether the line has two cells or more after its first word (a table's row; a note
    has at most the gap after its number)."""
    return len(_gaps(line)) >= 2


def _mark_notes(lines: list[_Line], body: float) -> None:
    """Lines at the page's foot set smaller than the body, from a line that opens with a number
    (or a note sign) down: the page's footnotes. A table or a page number there is not one."""
    content = [line for line in lines if line.chars and line.visible]
    run: list[_Line] = []
    for line in reversed(content):
        text = line.visible
        if text.isdigit() and len(text) <= 4 and not run:
            continue  # the page number under the notes
        if line.size < _NOTE_SIZE * body and not _is_row(line):
            run.append(line)
            continue
        break
    run.reverse()
    opens = next(
        (i for i, x in enumerate(run) if x.visible[:1].isdigit() or x.visible[:1] in "*†‡"), None
    )
    if opens is None:
        return
    for line in run[opens:]:
        line.note = True


def annotate_layout(textpage: object, text: str) -> str:
    """``text`` (PDFium's text of the page, one character per character) with layout marks;
    unchanged when the characters and the text do not line up."""
    count = getattr(textpage, "count_chars", None)
    if count is None or len(text) != count() or not text.strip():
        return text
    lines = [line for line in _read_chars(textpage, text) if line.chars]
    lines = _merge_same_baseline(lines)
    body = _body_size(lines)
    lines = _move_drop_capitals(lines, body)
    _mark_notes(lines, body)
    indented = _indented(lines)
    columns = _columns(lines)
    kept = _join_wrapped_cells(lines, columns)
    rendered = [
        (INDENT if i in indented else "") + (NOTE if line.note else "") + _render(line, cells)
        for i, (line, cells) in enumerate(zip(lines, columns, strict=True))
        if i in kept
    ]
    return LAYOUT + "\n" + "\n".join(rendered)


def _join_wrapped_cells(lines: list[_Line], columns: list[set[int]]) -> set[int]:
    """A row's last cell wrapped over lines gets them back ("back cover | quarta capa ou" +
    "verso da capa"): a line with no gap, set in at the start of the last cell of the row
    above it (up to :data:`_ROW_LOOKBACK` lines back), is appended to that row, its soft
    line-end hyphen dropped. Returns the indexes of the lines still on their own."""
    kept = set(range(len(lines)))
    row: int | None = None
    for n, line in enumerate(lines):
        if columns[n]:
            row = n
            continue
        if row is None or n - row > _ROW_LOOKBACK or _gaps(line) or not line.chars:
            row = None if row is not None and n - row > _ROW_LOOKBACK else row
            continue
        target = lines[row]
        start = target.chars[max(columns[row])].left
        if abs(line.left - start) > _ALIGN or line.left - target.left <= line.size:
            row = None
            continue
        tail = target.chars
        while tail and not tail[-1].ch.strip():
            tail.pop()
        if tail and tail[-1].soft and line.visible[:1].islower():
            tail.pop()
        else:
            tail.append(_Char(" ", line.size, tail[-1].right, tail[-1].right, 0.0, 0.0))
        tail.extend(line.chars)
        kept.discard(n)
    return kept


def _indented(lines: list[_Line]) -> set[int]:
    """The lines whose first character sits 6-60 points right of the text's left margin (the
    leftmost start shared by two lines and 15 % of them): a paragraph's first line."""
    starts = [line.left for line in lines]
    bins = Counter(round(x / 2) for x in starts)
    shared = [b for b, c in bins.items() if c >= max(2, 0.15 * len(starts))]
    if not shared:
        return set()
    margin = 2 * min(shared)
    return {
        i
        for i, x in enumerate(starts)
        if _INDENT_MIN <= x - margin <= _INDENT_MAX and not lines[i].hang
    }
