"""How well PDF cleaning recovers a text: paragraphs, words broken at line ends, captions.

Pure scoring: a ground truth (blocks of lines, annotated) and the cleaned paragraphs in, figures
out. The ground truth's paragraph lines end in ``=`` where a word was broken at the line end
(the hyphen must go: ``informa-`` + ``ção`` → ``informação``) and in ``~`` where a compound was
broken at its own hyphen (it must stay: ``político-`` + ``pedagógico``). Block kinds:
``heading``, ``paragraph``, ``caption``, ``figure`` (a figure's or table's contents) and
``source`` ("Fonte: …"); the last three must come out as paragraphs of their own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Break", "CleaningScore", "expected_text", "pdf_lines", "score_cleaning"]

_WORD_END = re.compile(r"(\w+)$")
_WORD_START = re.compile(r"^(\w+)")


@dataclass(frozen=True, slots=True)
class Break:
    """A word broken at a line end, and how it must read once joined."""

    kind: str  # "word" (the hyphen goes) or "compound" (it stays)
    expected: str  # informação | político-pedagógico
    wrong: str  # informa-ção | políticopedagógico


def pdf_lines(block: dict[str, Any]) -> list[str]:
    """The lines as printed in the PDF (annotations turned back into hyphens)."""
    return [re.sub(r"[=~]$", "-", line) for line in block["lines"]]


def expected_text(block: dict[str, Any]) -> tuple[str, list[Break]]:
    """The block's text as cleaning must give it, and the line-end breaks it holds."""
    out = ""
    breaks: list[Break] = []
    lines = list(block["lines"])
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.endswith(("=", "~")) and nxt:
            a = _WORD_END.search(line[:-1])
            b = _WORD_START.match(nxt)
            assert a and b, line
            if line.endswith("="):
                breaks.append(Break("word", a.group(1) + b.group(1), f"{a.group(1)}-{b.group(1)}"))
                out += line[:-1]
            else:
                breaks.append(
                    Break("compound", f"{a.group(1)}-{b.group(1)}", a.group(1) + b.group(1))
                )
                out += line[:-1] + "-"
        else:
            out += line + (" " if nxt else "")
    return " ".join(out.split()), breaks


def _norm(text: str) -> str:
    return " ".join(text.split())


@dataclass(slots=True)
class CleaningScore:
    """Figures of one cleaning run against the ground truth."""

    paragraphs: int = 0  # expected body paragraphs and headings
    paragraphs_exact: int = 0  # found exactly as one paragraph
    output_paragraphs: int = 0  # paragraphs cleaning produced (set-apart ones included)
    false_breaks: int = 0  # expected paragraphs that came out cut in two or more
    false_joins: int = 0  # output paragraphs that hold two or more expected ones
    words: int = 0
    words_joined: int = 0
    compounds: int = 0
    compounds_kept: int = 0
    set_apart: int = 0  # captions, figure contents and sources expected apart
    set_apart_ok: int = 0
    set_apart_glued: int = 0  # found inside a body paragraph
    misses: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        def share(a: int, b: int) -> float:
            return round(a / b, 3) if b else 0.0

        return {
            "paragraph_recall": share(self.paragraphs_exact, self.paragraphs),
            "paragraph_precision": share(
                self.paragraphs_exact + self.set_apart_ok, self.output_paragraphs
            ),
            "false_breaks": self.false_breaks,
            "false_joins": self.false_joins,
            "broken_words_joined": share(self.words_joined, self.words),
            "compounds_kept": share(self.compounds_kept, self.compounds),
            "captions_sources_set_apart": share(self.set_apart_ok, self.set_apart),
            "captions_sources_glued": self.set_apart_glued,
            "counts": {
                "paragraphs": self.paragraphs,
                "words": self.words,
                "compounds": self.compounds,
                "set_apart": self.set_apart,
            },
            "misses": self.misses,
        }


def score_cleaning(
    gold_pages: Sequence[Sequence[dict[str, Any]]], cleaned: Sequence[str]
) -> CleaningScore:
    """Score the cleaned paragraphs (in document order) against the ground truth's pages."""
    out = [_norm(p) for p in cleaned if p.strip()]
    whole = "\n".join(out)
    score = CleaningScore(output_paragraphs=len(out))
    expected: list[str] = []
    for blocks in gold_pages:
        for block in blocks:
            text, breaks = expected_text(block)
            if block["kind"] in ("caption", "figure", "source"):
                score.set_apart += 1
                if text in out:
                    score.set_apart_ok += 1
                else:
                    score.misses.append(f"not apart: {text[:60]}")
                    if any(text in p and p != text for p in out):
                        score.set_apart_glued += 1
                continue
            expected.append(text)
            score.paragraphs += 1
            if text in out:
                score.paragraphs_exact += 1
            else:
                score.misses.append(f"paragraph: {text[:60]}")
                head, tail = text[:40], text[-40:]
                if not any(head in p and tail in p for p in out):
                    score.false_breaks += 1
            for br in breaks:
                if br.kind == "word":
                    score.words += 1
                    score.words_joined += br.expected in whole
                else:
                    score.compounds += 1
                    score.compounds_kept += br.expected in whole
                if br.expected not in whole:
                    score.misses.append(f"{br.kind}: {br.expected}")
    for p in out:
        if sum(1 for e in expected if e[:40] in p) >= 2:
            score.false_joins += 1
    return score
