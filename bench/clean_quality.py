"""Cleaning quality against the shipped ground truth (data/cleaning/gold.json): one JSON line.

The ground truth's pages are written to a PDF with fpdf2 (ragged right margin, first-line
indents, headings, a figure and tables with captions and "Fonte:" lines, words and compounds
broken at line ends), read back with the extractor, cleaned (line joining on, no front-matter or
references cut) and scored with :func:`colmeia.eval.cleaning.score_cleaning`. The figures are
in-sample: the cleaning rules were written with this file at hand.

    .venv/bin/python bench/clean_quality.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "data" / "cleaning" / "gold.json"


def write_gold_pdf(gold: dict[str, Any], target: Path) -> Path:
    """The ground truth laid out as a thesis page would be (one PDF page per gold page)."""
    from fpdf import FPDF

    from colmeia.eval.cleaning import pdf_lines

    pdf = FPDF(format="A4")
    pdf.core_fonts_encoding = "windows-1252"  # the en dash of "Figura 1 – …"
    pdf.set_margins(25, 25, 20)
    pdf.set_auto_page_break(False)
    for n, blocks in enumerate(gold["pages"], start=1):
        pdf.add_page()
        pdf.set_font("Helvetica", size=10)
        pdf.cell(0, 6, str(n + 10), align="R", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
        for block in blocks:
            kind = block["kind"]
            lines = pdf_lines(block)
            if kind == "heading":
                pdf.ln(3)
                pdf.set_font("Helvetica", "B", 11)
                pdf.cell(0, 7, lines[0], new_x="LMARGIN", new_y="NEXT")
                pdf.ln(2)
                continue
            size = 11 if kind == "paragraph" else 9
            pdf.set_font("Helvetica", size=size)
            if kind == "caption":
                pdf.ln(3)
            for i, line in enumerate(lines):
                if kind == "paragraph" and i == 0:
                    pdf.set_x(pdf.l_margin + 12)  # first-line indent
                align = "C" if kind in ("caption", "figure") else "L"
                pdf.cell(0, size * 0.55, line, align=align, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1 if kind == "paragraph" else 2)
    pdf.output(str(target))
    return target


def measure(gold_path: Path = GOLD) -> dict[str, Any]:
    """Write the PDF, clean it, score it."""
    from colmeia.eval.cleaning import score_cleaning
    from colmeia.rag.ingest import clean_document, extract

    gold = json.loads(gold_path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        pdf = write_gold_pdf(gold, Path(tmp) / "gold.pdf")
        cleaned = clean_document(
            extract(pdf), cut_front_matter=False, cut_references=False, join_lines=True
        )
    paragraphs = [p for page in cleaned.pages for p in page.text.split("\n\n")]
    return score_cleaning(gold["pages"], paragraphs).as_dict()


def main() -> None:
    result = {"bench": "clean_quality", "in_sample": True, **measure()}
    sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
