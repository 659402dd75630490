"""Ingestion throughput of born-digital PDFs: extract + clean + chunk (+ lexical index).

Runs in one process (one core) over the shared PDFs, repeated until enough pages were seen,
and prints ONE JSON line: pages, seconds, pages_per_s (extract+clean+chunk, per core),
pages_per_s_with_index (+ colmeia's lexical BM25 index, Portuguese stemming), chunks, time per stage, and
bare pypdfium2 extraction speed on the same files with the load average (the host is shared).

    .venv/bin/python bench/rag_ingest.py [--min-pages 1500] [--chunker paragraphs] [--no-index]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from colmeia.rag.index.lexical import LexicalIndex
from colmeia.rag.ingest import chunker_for, clean_document, extract

DATA = Path(__file__).resolve().parents[1] / "data"
PDFS = [
    DATA / "pdfs/abntex2/abntex2-modelo-livro.pdf",
    DATA / "pdfs/gazette/pratania-2020-10-26.pdf",
    DATA / "pdfs/gazette/multiple_columns.pdf",
    DATA / "pdfs/tables/balneabilidade-26-2010.pdf",
    DATA / "pdfs/tables/ibama-autuacao-amazonas-2010-pag2.pdf",
]
# The 107-page dissertation (CC BY-NC-ND, not shipped) joins the set when COLMEIA_DATA_DIR has it.
if _external := os.environ.get("COLMEIA_DATA_DIR"):
    _dissertation = Path(_external) / "pdfs/academic/dissertacao.pdf"
    if _dissertation.exists():
        PDFS.insert(0, _dissertation)


def _pdfium_floor(min_pages: int) -> float:
    """Pages/s of bare pypdfium2 text extraction on the same files: the ceiling on this host."""
    import pypdfium2 as pdfium

    pages = 0
    start = time.perf_counter()
    while pages < min_pages:
        for path in PDFS:
            pdf = pdfium.PdfDocument(path)
            for i in range(len(pdf)):
                page = pdf[i]
                textpage = page.get_textpage()
                textpage.get_text_range()
                textpage.close()
                page.close()
                pages += 1
            pdf.close()
    return pages / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--min-pages", type=int, default=1500)
    parser.add_argument("--chunker", default="paragraphs")
    parser.add_argument("--no-index", action="store_true", help="skip the lexical index build")
    args = parser.parse_args()

    chunker = chunker_for(args.chunker)
    index = not args.no_index
    # Warm-up: imports and first-call costs are not ingestion.
    chunker.chunk(clean_document(extract(PDFS[-4])))

    pages = chunks = 0
    t_extract = t_clean = t_chunk = t_index = 0.0
    texts: list[str] = []
    start = time.perf_counter()
    while pages < args.min_pages:
        for path in PDFS:
            t0 = time.perf_counter()
            doc = extract(path)
            t1 = time.perf_counter()
            doc = clean_document(doc)
            t2 = time.perf_counter()
            found = chunker.chunk(doc)
            t3 = time.perf_counter()
            t_extract += t1 - t0
            t_clean += t2 - t1
            t_chunk += t3 - t2
            pages += int(doc.metadata["n_pages"])
            chunks += len(found)
            texts.extend(c.text for c in found)
    if index:
        t0 = time.perf_counter()
        LexicalIndex.build(texts)  # the index `colmeia ingest` builds
        t_index = time.perf_counter() - t0
    seconds = time.perf_counter() - start
    ingest_seconds = seconds - t_index
    floor = _pdfium_floor(pages)
    print(
        json.dumps(
            {
                "bench": "rag_ingest",
                "pages": pages,
                "seconds": round(seconds, 3),
                "pages_per_s": round(pages / ingest_seconds, 1),
                "pages_per_s_with_index": round(pages / seconds, 1),
                "pdfium_only_pages_per_s": round(floor, 1),
                "load_avg_1m": round(os.getloadavg()[0], 2),
                "chunks": chunks,
                "chunker": args.chunker,
                "index": index,
                "stage_s": {
                    "extract": round(t_extract, 3),
                    "clean": round(t_clean, 3),
                    "chunk": round(t_chunk, 3),
                    "index": round(t_index, 3),
                },
            }
        )
    )


if __name__ == "__main__":
    main()
