"""Literature review: bibliography exports → a library of works → a cited review table.

Public API::

    report = import_library(store, "teses", [Path("catalogo.ris")], pdf_dir=Path("pdfs"))
    review = run_review(store, "teses", "educação inclusiva na formação docente", top=10)
    review.screen(review.works[0].doc_id, "include")
    export_review(review, Path("revisao.html"))          # or .json .csv .xlsx .ris .bib
"""

from __future__ import annotations

from colmeia.apps.literature.columns import Column, fill_columns, parse_column
from colmeia.apps.literature.export import FORMATS, abnt_reference, export_review, html_report
from colmeia.apps.literature.fulltext import OUTCOMES, FetchOutcome, fetch_full_texts
from colmeia.apps.literature.library import (
    FetchLimits,
    LibraryReport,
    MissingWork,
    fetch_pdfs,
    import_library,
    match_pdfs,
)
from colmeia.apps.literature.records import Record, dedupe, load_records, normalize_title
from colmeia.apps.literature.review import (
    PROMPT_VERSION,
    Review,
    ReviewedWork,
    arun_review,
    prisma_counts,
    run_review,
)
from colmeia.apps.literature.schemas import RELEVANCE_LEVELS, CitedText, WorkAnalysis
from colmeia.apps.literature.screening import (
    QueueItem,
    ScreeningDecision,
    ScreeningLog,
    prisma_flow,
    screening_file,
    screening_queue,
)
from colmeia.apps.literature.synthesis import Synthesis, ask_collection

__all__ = [
    "FORMATS",
    "OUTCOMES",
    "PROMPT_VERSION",
    "RELEVANCE_LEVELS",
    "CitedText",
    "Column",
    "FetchLimits",
    "FetchOutcome",
    "LibraryReport",
    "MissingWork",
    "QueueItem",
    "Record",
    "Review",
    "ReviewedWork",
    "ScreeningDecision",
    "ScreeningLog",
    "Synthesis",
    "WorkAnalysis",
    "abnt_reference",
    "arun_review",
    "ask_collection",
    "dedupe",
    "export_review",
    "fetch_full_texts",
    "fetch_pdfs",
    "fill_columns",
    "html_report",
    "import_library",
    "load_records",
    "match_pdfs",
    "normalize_title",
    "parse_column",
    "prisma_counts",
    "prisma_flow",
    "run_review",
    "screening_file",
    "screening_queue",
]
