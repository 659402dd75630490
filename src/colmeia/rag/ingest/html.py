"""HTML text extraction with lxml: headings and paragraphs as blank-line separated blocks."""

from __future__ import annotations

import re
from pathlib import Path

from colmeia.errors import DocumentError
from colmeia.rag.ingest._common import decode_bytes

__all__ = ["extract_html"]

_DROP = frozenset(
    {"script", "style", "nav", "noscript", "template", "svg", "iframe", "button", "select"}
)
_BLOCK = frozenset(
    {
        "p", "div", "section", "article", "main", "header", "footer", "aside", "h1", "h2", "h3",
        "h4", "h5", "h6", "li", "ul", "ol", "dl", "dt", "dd", "blockquote", "pre", "table",
        "thead", "tbody", "tfoot", "tr", "figure", "figcaption", "address", "hr", "body",
        "center",
    }
)  # fmt: skip
_WS_RE = re.compile(r"\s+")
_CELL = frozenset({"td", "th"})


_CHARSET_RE = re.compile(rb"charset|encoding=", re.IGNORECASE)
_XML_DECL_RE = re.compile(r"^\s*<\?xml[^>]*\?>")
_END_HTML_RE = re.compile(rb"</html\s*>", re.IGNORECASE)


def extract_html(path: Path, data: bytes) -> tuple[str, str]:
    """Return ``(title, text)`` from HTML bytes (lxml honours the page's declared charset).

    Files holding several concatenated HTML documents (saved compilations do this) are read
    document by document; libxml2 would otherwise stop at the second ``<!DOCTYPE``.
    """
    segments = [seg for seg in _END_HTML_RE.split(data) if seg.strip()]
    titles: list[str] = []
    texts: list[str] = []
    for segment in segments or [data]:
        if b"<" not in segment:
            continue
        title, text = _extract_one(path, segment)
        titles.append(title)
        texts.append(text)
    return (titles[0] if titles else ""), "\n\n".join(texts)


def _extract_one(path: Path, data: bytes) -> tuple[str, str]:
    import lxml.etree  # type: ignore[import-untyped]
    import lxml.html  # type: ignore[import-untyped]

    source: bytes | str = data
    if not _CHARSET_RE.search(data[:4096]):
        # Without a declared charset libxml2 assumes latin-1; UTF-8 is far more likely today.
        source = decode_bytes(data)
        source = _XML_DECL_RE.sub("", source, count=1)
    try:
        root = lxml.html.document_fromstring(source)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise DocumentError(str(path), f"the HTML could not be parsed ({exc})") from exc

    title_el = root.find(".//title")
    title = " ".join((title_el.text_content() if title_el is not None else "").split())
    if not title:
        h1 = root.find(".//h1")
        title = " ".join(h1.text_content().split()) if h1 is not None else ""

    body = root.find(".//main")
    if body is None:
        body = root.find(".//body")
    if body is None:
        body = root

    out: list[str] = []

    def text_of(s: str) -> str:
        # Newlines in HTML source are just spaces; structure comes from the tags.
        return _WS_RE.sub(" ", s)

    def walk(el: lxml.html.HtmlElement) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        tag = tag.lower()
        if tag in _DROP or not isinstance(el.tag, str):
            # Comments/processing instructions have non-str tags; their tail still counts.
            if el.tail:
                out.append(text_of(el.tail))
            return
        if tag in _BLOCK:
            out.append("\n\n" if tag != "tr" else "\n")
        elif tag == "br":
            out.append("\n")
        elif tag in _CELL:
            out.append(" | ")
        if el.text:
            out.append(el.text if tag == "pre" else text_of(el.text))
        for child in el:
            walk(child)
        if tag in _BLOCK:
            out.append("\n\n" if tag != "tr" else "\n")
        if el.tail:
            out.append(text_of(el.tail))

    # The tail of the container itself is outside it.
    tail, body.tail = body.tail, None
    walk(body)
    body.tail = tail
    text = "".join(out)
    lines = []
    for line in text.split("\n"):
        line = " ".join(line.split())
        if line.startswith("| "):
            line = line[2:]
        lines.append(line)
    return title, "\n".join(lines)
