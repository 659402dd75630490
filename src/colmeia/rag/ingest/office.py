"""DOCX text extraction with python-docx: paragraphs, headings and tables in document order."""

from __future__ import annotations

from pathlib import Path

from colmeia.errors import DocumentError

__all__ = ["extract_docx"]


def extract_docx(path: Path) -> tuple[str, str]:
    """Return ``(title, text)``; paragraphs separated by blank lines, table rows one per line."""
    import zipfile

    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(str(path))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DocumentError(
            str(path),
            f"the DOCX file is corrupt or not a Word document ({exc}); re-save it from Word",
        ) from exc
    except Exception as exc:  # python-docx raises assorted errors for malformed packages
        raise DocumentError(str(path), f"the DOCX file could not be parsed ({exc})") from exc

    blocks: list[str] = []
    title = (document.core_properties.title or "").strip()
    first_heading = ""
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            text = item.text.strip()
            if not text:
                continue
            style = (item.style.name if item.style is not None else "") or ""
            if not first_heading and style.lower().startswith(("heading", "title", "título")):
                first_heading = text
            blocks.append(text)
        elif isinstance(item, Table):
            rows: list[str] = []
            for row in item.rows:
                cells: list[str] = []
                for cell in row.cells:
                    value = " ".join(cell.text.split())
                    # Merged cells repeat the same object; keep the text once.
                    if not cells or cells[-1] != value:
                        cells.append(value)
                rows.append(" | ".join(cells))
            if rows:
                blocks.append("\n".join(rows))
    return title or first_heading, "\n\n".join(blocks)
