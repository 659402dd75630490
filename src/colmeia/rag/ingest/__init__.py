"""Ingestion: files and CSV rows → cleaned text with pages → chunks with citations.

Public API::

    doc = extract(Path("lei.pdf"))                 # ExtractedDocument (pages, content hash)
    doc = clean_document(doc)                      # join lines, drop headers/footers, …
    chunks = chunker_for("auto").chunk(doc)        # legal structure or paragraph n-grams
    for rec in iter_csv_records(Path("docs.csv"), id_column="DOC_ID", text_column="TEXT"): ...
"""

from __future__ import annotations

from colmeia.rag.ingest.archive import ArchiveLimits, check_archive
from colmeia.rag.ingest.chunk_legal import LegalChunker, legal_label, looks_like_norm, parse_legal
from colmeia.rag.ingest.chunk_paragraphs import ParagraphNgramChunker
from colmeia.rag.ingest.chunk_recursive import RecursiveChunker
from colmeia.rag.ingest.chunkers import CHUNKER_NAMES, AutoChunker, chunker_for
from colmeia.rag.ingest.clean import clean_document, clean_pages
from colmeia.rag.ingest.constitution import read_constitution, write_constitution_lexml
from colmeia.rag.ingest.csv_records import ErrorHandler, iter_csv_records, lexml_label, lexml_path
from colmeia.rag.ingest.docling_extract import docling_available
from colmeia.rag.ingest.extract import SUPPORTED_SUFFIXES, detect_format, extract
from colmeia.rag.ingest.jurisprudence import (
    DecisionRef,
    iter_jurisprudence,
    parse_decision_reference,
)
from colmeia.rag.ingest.pdf_limits import PdfLimits

__all__ = [
    "CHUNKER_NAMES",
    "SUPPORTED_SUFFIXES",
    "ArchiveLimits",
    "AutoChunker",
    "DecisionRef",
    "ErrorHandler",
    "LegalChunker",
    "ParagraphNgramChunker",
    "PdfLimits",
    "RecursiveChunker",
    "check_archive",
    "chunker_for",
    "clean_document",
    "clean_pages",
    "detect_format",
    "docling_available",
    "extract",
    "iter_csv_records",
    "iter_jurisprudence",
    "legal_label",
    "lexml_label",
    "lexml_path",
    "looks_like_norm",
    "parse_decision_reference",
    "parse_legal",
    "read_constitution",
    "write_constitution_lexml",
]
