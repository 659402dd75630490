"""Plain text and Markdown: encoding detection and light Markdown markup removal."""

from __future__ import annotations

import re

from colmeia.rag.ingest._common import decode_bytes

__all__ = ["extract_markdown", "extract_plain", "strip_markdown"]

_MD_HEADING_RE = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.M)
_MD_SETEXT_RE = re.compile(r"^[ \t]*(=+|-{3,})[ \t]*$", re.M)
_MD_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK_RE = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_MD_EMPH_RE = re.compile(
    r"(\*\*|__)(.+?)\1"
    r"|(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])"
    r"|(?<![\w_])_(?!\s)([^_\n]+?)(?<!\s)_(?![\w_])"
)
_MD_CODE_RE = re.compile(r"`([^`\n]*)`")
_MD_QUOTE_RE = re.compile(r"^[ \t]*>[ \t]?", re.M)
_MD_FENCE_RE = re.compile(r"^[ \t]*(```|~~~).*$", re.M)
_MD_HTML_TAG_RE = re.compile(r"</?[A-Za-z][^>\n]*>")


def _emph(m: re.Match[str]) -> str:
    for group in (2, 3, 4):
        if m.group(group) is not None:
            return m.group(group)
    return m.group(0)


def strip_markdown(text: str) -> tuple[str, str]:
    """Return ``(first_heading, text)`` with Markdown markup removed but lines kept."""
    first = _MD_HEADING_RE.search(text)
    title = first.group(1).strip() if first else ""
    text = _MD_FENCE_RE.sub("", text)
    text = _MD_HEADING_RE.sub(r"\1", text)
    text = _MD_SETEXT_RE.sub("", text)
    text = _MD_IMAGE_RE.sub(r"\1", text)
    text = _MD_LINK_RE.sub(r"\1", text)
    text = _MD_EMPH_RE.sub(_emph, text)
    text = _MD_CODE_RE.sub(r"\1", text)
    text = _MD_QUOTE_RE.sub("", text)
    text = _MD_HTML_TAG_RE.sub("", text)
    title = _MD_EMPH_RE.sub(_emph, _MD_LINK_RE.sub(r"\1", title))
    return title, text


def extract_markdown(data: bytes) -> tuple[str, list[str]]:
    """``(title, [page texts])`` for Markdown bytes."""
    title, text = strip_markdown(decode_bytes(data))
    return title, [text]


def extract_plain(data: bytes) -> tuple[str, list[str]]:
    """``(title, [page texts])`` for plain text; form feeds (as pdftotext writes) split pages."""
    text = decode_bytes(data)
    pages = text.split("\f")
    if len(pages) > 1 and not pages[-1].strip():
        pages.pop()
    return "", pages
