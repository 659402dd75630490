"""How well PDF cleaning recovers real thesis layouts: similarity to a hand-written ground truth
and a count of each defect a reader meets.

Pure scoring. A ground truth document (``data/cleaning/real/*.json``) is a list of blocks in
reading order: ``heading``, ``paragraph`` (``[^…]`` inline is a footnote: its text is a note
of its own and its mark must leave the word; ``dropcap`` says the first letter is a drop
capital), ``list`` (numbered items), ``table`` (caption, rows, source) and ``grid`` (rows, no
caption). The cleaned text comes in as paragraphs; where it puts notes and tables on the page
is its business, so every expected unit is matched to the output paragraph closest to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

__all__ = ["Unit", "expected_units", "score_layout_cleaning"]

_NOTE_RE = re.compile(r"\[\^(.+?)\]")
_PAREN_RE = re.compile(r"\([^()]*;[^()]*\)")
_BREAK_RE = re.compile(r"(\w+)-\n(\w+)")
_URL_RE = re.compile(r"<?https?://\S+?>?(?=\s|$)")


@dataclass(frozen=True, slots=True)
class Unit:
    """One piece of text cleaning must give back, and what it is."""

    kind: str  # body | note | table | caption | source
    text: str


def _norm(text: str) -> str:
    return " ".join(text.split())


def _body(text: str) -> str:
    return _norm(_NOTE_RE.sub("", text))


def _rows(rows: Sequence[Sequence[str]]) -> str:
    return "\n".join(" | ".join(row) for row in rows)


def expected_units(gold: dict[str, Any]) -> Iterator[Unit]:
    """The ground truth's units in reading order (a note right after its paragraph)."""
    number = 0
    for block in gold["blocks"]:
        kind = block["kind"]
        if kind in ("heading", "paragraph"):
            yield Unit("body", _body(block["text"]))
            for note in _NOTE_RE.findall(block.get("text", "")):
                number += 1
                yield Unit("note", _norm(note))
        elif kind == "list":
            for i, item in enumerate(block["items"], start=1):
                yield Unit("body", _body(f"{i}. {item}"))
        elif kind == "table":
            yield Unit("caption", _norm(block["caption"]))
            yield Unit("table", _rows(block["rows"]))
            yield Unit("source", _norm(block["source"]))
        elif kind == "grid":
            yield Unit("table", _rows(block["rows"]))
        else:
            raise ValueError(f"ground truth block of unknown kind {kind!r}")


_NOTE_NUMBER_RE = re.compile(r"^\d{1,3}\.?\s*")


def _comparable(unit: Unit, paragraph: str) -> str:
    # A note is judged without its number: "1 Ver…", "1. Ver…" and "¹Ver…" are all fine.
    return _NOTE_NUMBER_RE.sub("", paragraph) if unit.kind == "note" else paragraph


def _best(unit: Unit, paragraphs: Sequence[str]) -> tuple[float, float]:
    """The character and word similarity of the unit to its closest output paragraph."""
    target = unit.text
    words = set(target.split())
    ranked = sorted(
        paragraphs, key=lambda p: -len(words & set(_comparable(unit, p).split())) / (1 + len(p))
    )
    best_chars = best_words = 0.0
    for p in ranked[:4]:
        text = _comparable(unit, p)
        chars = SequenceMatcher(None, target, text, autojunk=False).ratio()
        if chars > best_chars:
            best_chars = chars
            best_words = SequenceMatcher(None, target.split(), text.split(), autojunk=False).ratio()
    return best_chars, best_words


def _word_before_marks(gold: dict[str, Any]) -> list[str]:
    """The word each footnote mark follows ("coletivo.", "limitações.")."""
    out = []
    for block in gold["blocks"]:
        text = block.get("text", "")
        for m in _NOTE_RE.finditer(text):
            before = text[: m.start()].split()
            if before:
                out.append(before[-1])
    return out


def _breaks(raw_text: str, expected: str) -> Iterator[tuple[str, str]]:
    """Each word a line end broke in the PDF, as (right form, wrong form), when the ground
    truth tells which: a compound keeps its hyphen, any other word loses it."""
    for m in _BREAK_RE.finditer(raw_text):
        a, b = m.group(1), m.group(2)
        hyphened, fused = f"{a}-{b}", a + b
        if re.search(rf"(?<!\w){re.escape(hyphened)}(?!\w)", expected):
            yield hyphened, fused
        elif re.search(rf"(?<!\w){re.escape(fused)}(?!\w)", expected):
            yield fused, hyphened


def _grams(text: str, n: int = 4) -> set[tuple[str, ...]]:
    words = text.split()
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def score_layout_cleaning(
    gold: dict[str, Any], paragraphs: Sequence[str], raw_text: str
) -> dict[str, Any]:
    """Figures for one document: ``paragraphs`` is the cleaned text's paragraphs in order,
    ``raw_text`` the extractor's text (lines as printed) that the line-end breaks come from."""
    out = [p.strip() for p in paragraphs if p.strip()]
    normed = [_norm(p) for p in out]
    units = list(expected_units(gold))
    body_units = [u for u in units if u.kind == "body"]
    total = sum(len(u.text) for u in units)
    chars = words = 0.0
    for unit in units:
        c, w = _best(unit, [p if unit.kind == "table" else _norm(p) for p in out])
        chars += c * len(unit.text)
        words += w * len(unit.text)

    body_grams = {g for u in body_units for g in _grams(u.text)}

    def in_body(fragment: str) -> list[str]:
        # Output paragraphs holding the fragment together with running text of the body
        # (four words in a row of an expected body paragraph, outside the fragment).
        return [
            p for p in normed if fragment in p and _grams(p.replace(fragment, " ")) & body_grams
        ]

    whole = "\n".join(normed)
    expected_whole = "\n".join(u.text for u in units)
    defects = {
        "tables_in_text": 0,
        "footnotes_glued": 0,
        "note_marks_on_words": 0,
        "wrong_hyphen_joins": 0,
        "split_drop_caps": 0,
        "broken_citations": 0,
        "sources_glued": 0,
    }
    for block in gold["blocks"]:
        if block["kind"] in ("table", "grid"):
            for row in block["rows"][1:]:
                flat = " ".join(row)
                if len(row) >= 2 and any(flat in p for p in normed):
                    defects["tables_in_text"] += 1
        if block["kind"] == "table":
            for url in _URL_RE.findall(block["source"]) or [block["source"]]:
                defects["sources_glued"] += bool(in_body(url))
        if block["kind"] == "paragraph":
            if block.get("dropcap"):
                first = block["text"].split()[0]
                if not any(p.startswith(first + " ") for p in normed):
                    defects["split_drop_caps"] += 1
            for group in _PAREN_RE.findall(_body(block["text"])):
                if not any(group in p for p in normed):
                    defects["broken_citations"] += 1
    for unit in units:
        if unit.kind == "note" and in_body(unit.text[:40]):
            defects["footnotes_glued"] += 1
    for word in _word_before_marks(gold):
        pattern = rf"(?<!\S){re.escape(word)}\d{{1,3}}(?!\d)"
        defects["note_marks_on_words"] += len(re.findall(pattern, whole))
    breaks = list(_breaks(raw_text, expected_whole))
    for _right, wrong in breaks:
        if re.search(rf"(?<!\w){re.escape(wrong)}(?!\w)", whole):
            defects["wrong_hyphen_joins"] += 1
    return {
        "char_similarity": round(chars / total, 4) if total else 0.0,
        "word_similarity": round(words / total, 4) if total else 0.0,
        "chars": total,
        "line_end_breaks": len(breaks),
        **defects,
    }
