"""Cleaning quality against the shipped ground truths: one JSON line.

Real layouts (``data/cleaning/real``, the ``real_layouts`` figures): PDFs typeset by LaTeX
(abnTeX2, and the article class in a narrow book block) and by LibreOffice Writer from texts
written for colmeia, and five pages of the shipped abnTeX2 model, each with its expected text
written by hand. Each PDF is extracted and cleaned twice — by the code at ``--before`` (default:
the commit this ground truth was made against, run from ``git show`` side by side) and by the
code of the working tree — and scored with :func:`colmeia.eval.cleaning_layout.score_layout_cleaning`:
character and word similarity to the expected text, and a count of each defect (table rows
left in the text, footnotes glued to a paragraph, footnote marks left on words, wrong hyphen
joins, split drop capitals, broken citation lists, "Fontes:" glued to running text). The
``extraction`` figures time reading these PDFs' pages (and the dissertation's, when
``COLMEIA_DATA_DIR`` has it) with both extractors, alternating, three times: mean and sd.

``real_layouts_heldout`` (``data/cleaning/real/heldout``): two more documents (the report class
in Palatino; Writer in Liberation Sans, single spacing) written after the rules were fixed and
scored once, untuned: the figures that say how the rules carry to layouts they were not
written on.

Synthetic layout (``data/cleaning/gold.json``, the other figures):

The ground truth's pages are written to a PDF with fpdf2 (ragged right margin, first-line
indents, headings, a figure and tables with captions and "Fonte:" lines, words and compounds
broken at line ends), read back with the extractor, cleaned (line joining on, no front-matter or
references cut) and scored with :func:`colmeia.eval.cleaning.score_cleaning`. The figures are
in-sample: the cleaning rules were written with this file at hand.

    .venv/bin/python bench/clean_quality.py [--before REV]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "data" / "cleaning" / "gold.json"
REAL = ROOT / "data" / "cleaning" / "real"
# The branch point of the layout-aware cleaning: the "before" of the figures in docs/.
BEFORE = "26e1e0a"


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


def _old_module(rev: str, path: str, name: str, folder: Path) -> ModuleType:
    """``path`` as it was at ``rev``, loaded under ``name`` (its imports resolve to today's
    colmeia modules, which the old cleaner and extractor share unchanged)."""
    source = subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    target = folder / f"{name}.py"
    target.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _raw_text(pdf: Path, pages: set[int] | None) -> str:
    """The PDF's text as printed, line by line (PDFium's line-end hyphen given back)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        out = []
        for i in range(len(doc)):
            if pages is None or i + 1 in pages:
                text = doc[i].get_textpage().get_text_range()
                out.append(text.replace("\ufffe", "-\n").replace("\r\n", "\n"))
        return "\n".join(out)
    finally:
        doc.close()


def _documents(folder: Path = REAL) -> list[tuple[str, dict[str, Any], Path]]:
    out = []
    for path in sorted(folder.glob("*.json")):
        gold = json.loads(path.read_text(encoding="utf-8"))
        pdf = (folder / gold["pdf"]) if "pdf" in gold else path.with_suffix(".pdf")
        out.append((path.stem, gold, pdf.resolve()))
    return out


def _paragraphs(pages: list[Any], wanted: set[int] | None) -> list[str]:
    return [
        para
        for page in pages
        if wanted is None or page.number in wanted
        for para in page.text.split("\n\n")
    ]


def measure_real(before: str | None = BEFORE, folder: Path = REAL) -> dict[str, Any]:
    """Before/after figures on the real layouts (``before=None``: after only)."""
    from colmeia.eval.cleaning_layout import score_layout_cleaning
    from colmeia.rag.ingest import clean_document, extract
    from colmeia.rag.ingest._common import normalize_text
    from colmeia.rag.types import ExtractedDocument, Page

    runs: dict[str, dict[str, Any]] = {"after": {}}
    with tempfile.TemporaryDirectory() as tmp:
        old_pdf = old_clean = None
        if before is not None:
            old_pdf = _old_module(before, "src/colmeia/rag/ingest/pdf.py", "_before_pdf", Path(tmp))
            old_clean = _old_module(
                before, "src/colmeia/rag/ingest/clean.py", "_before_clean", Path(tmp)
            )
            runs["before"] = {}
        for name, gold, pdf in _documents(folder):
            wanted = set(gold["pages"]) if "pages" in gold else None
            raw = _raw_text(pdf, wanted)
            options = {"cut_front_matter": False, "cut_references": False, "join_lines": True}
            cleaned = clean_document(extract(pdf), **options)  # type: ignore[arg-type]
            runs["after"][name] = score_layout_cleaning(
                gold, _paragraphs(cleaned.pages, wanted), raw
            )
            if old_pdf is not None and old_clean is not None:
                pages = [
                    Page(p.number, normalize_text(p.text, keep_indent=True))
                    for p in old_pdf.iter_pdf_pages(pdf)
                ]
                doc = ExtractedDocument(str(pdf), name, pages, "", metadata={"format": "pdf"})
                old = old_clean.clean_document(doc, **options)
                runs["before"][name] = score_layout_cleaning(
                    gold, _paragraphs(old.pages, wanted), raw
                )
    return {run: _summary(scores) for run, scores in runs.items()}


def _external_pdf() -> Path | None:
    import os

    root = os.environ.get("COLMEIA_DATA_DIR", "").strip()
    path = Path(root) / "pdfs" / "academic" / "dissertacao.pdf" if root else None
    return path if path is not None and path.exists() else None


def measure_extraction(before: str, repeats: int = 3) -> dict[str, Any]:
    """Seconds to read the PDFs' pages (the layout marks cost character-level calls), the
    extractor at ``before`` and today's, alternating, ``repeats`` times: mean and sd."""
    import statistics
    import time

    from colmeia.rag.ingest.pdf import iter_pdf_pages

    pdfs = sorted({pdf for _, _, pdf in _documents()})
    if (dissertation := _external_pdf()) is not None:
        pdfs.append(dissertation)
    with tempfile.TemporaryDirectory() as tmp:
        old_pdf = _old_module(before, "src/colmeia/rag/ingest/pdf.py", "_before_pdf_t", Path(tmp))
        runs: dict[str, list[float]] = {"before": [], "after": []}
        pages = 0
        for _ in range(repeats):
            for run, read in (("before", old_pdf.iter_pdf_pages), ("after", iter_pdf_pages)):
                started = time.perf_counter()
                pages = sum(1 for pdf in pdfs for _page in read(pdf))
                runs[run].append(time.perf_counter() - started)
    return {
        "pdfs": len(pdfs),
        "pages": pages,
        **{
            run: {
                "mean_s": round(statistics.mean(xs), 3),
                "sd_s": round(statistics.stdev(xs), 3) if len(xs) > 1 else 0.0,
            }
            for run, xs in runs.items()
        },
    }


def _summary(scores: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Similarities weighted by each document's expected characters; defects summed."""
    total = sum(s["chars"] for s in scores.values())
    out: dict[str, Any] = {
        key: round(sum(s[key] * s["chars"] for s in scores.values()) / total, 4)
        for key in ("char_similarity", "word_similarity")
    }
    for key in next(iter(scores.values())):
        if key not in out and key != "chars":
            out[key] = sum(s[key] for s in scores.values())
    out["per_document"] = {
        name: {"char_similarity": s["char_similarity"], "word_similarity": s["word_similarity"]}
        for name, s in scores.items()
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--before", default=BEFORE, help="git revision of the 'before' cleaner")
    parser.add_argument("--no-before", action="store_true", help="score today's code only")
    args = parser.parse_args()
    real = measure_real(None if args.no_before else args.before)
    documents = _documents()
    pages = sum(len(g["pages"]) if "pages" in g else _page_count(pdf) for _, g, pdf in documents)
    heldout = _documents(REAL / "heldout")
    result = {
        "bench": "clean_quality",
        "real_layouts": {"documents": len(documents), "pages": pages, **real},
        "real_layouts_heldout": {
            "documents": len(heldout),
            "pages": sum(_page_count(pdf) for _, _, pdf in heldout),
            **measure_real(None if args.no_before else args.before, REAL / "heldout"),
        },
        "extraction": None if args.no_before else measure_extraction(args.before),
        "synthetic": {"in_sample": True, **measure()},
    }
    sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")


def _page_count(pdf: Path) -> int:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        return len(doc)
    finally:
        doc.close()


if __name__ == "__main__":
    main()
