"""Optional Docling extraction (the ``docling`` extra), used only when asked for.

Docling needs its layout models on disk; colmeia never downloads them. It is used only when
the package is installed and its model folder exists locally.
"""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path

from colmeia.errors import ConfigurationError, DocumentError

__all__ = ["docling_available", "extract_docling"]

_HINT = (
    "Docling is an optional extra: install it with `pip install 'colmeia[docling]'` and place its "
    "models locally (`docling-tools models download` on a connected machine, then set "
    "DOCLING_ARTIFACTS_PATH to that folder); colmeia never downloads models"
)


def _models_dir() -> Path | None:
    candidates = [os.environ.get("DOCLING_ARTIFACTS_PATH", "")]
    candidates.append(str(Path.home() / ".cache" / "docling" / "models"))
    for c in candidates:
        if c and Path(c).is_dir() and any(Path(c).iterdir()):
            return Path(c)
    return None


def docling_available() -> bool:
    """True when the ``docling`` package is importable and its models are present locally."""
    return find_spec("docling") is not None and _models_dir() is not None


def extract_docling(path: Path) -> list[str]:
    """Markdown text of ``path`` per page, through Docling (offline, local models only)."""
    models = _models_dir()
    if find_spec("docling") is None or models is None:
        raise ConfigurationError(_HINT)
    from docling.datamodel.base_models import InputFormat
    from docling.datamodel.pipeline_options import PdfPipelineOptions
    from docling.document_converter import DocumentConverter, PdfFormatOption

    options = PdfPipelineOptions(artifacts_path=str(models))
    converter = DocumentConverter(
        format_options={InputFormat.PDF: PdfFormatOption(pipeline_options=options)}
    )
    try:
        result = converter.convert(str(path))
    except Exception as exc:  # Docling wraps many parser errors; report them per file
        raise DocumentError(str(path), f"Docling could not convert the file ({exc})") from exc
    document = result.document
    pages: list[str] = []
    n_pages = len(getattr(document, "pages", {}) or {}) or 1
    for number in range(1, n_pages + 1):
        pages.append(document.export_to_markdown(page_no=number))
    return pages
