"""What a Markdown or plain-text file becomes before cleaning (colmeia.rag.ingest.text): the
markup goes and the words stay, line for line (so citations can point at lines); the title is
the first heading's words; form feeds (as pdftotext writes them) split a plain text into pages,
a trailing one adds no blank page, and a text is always at least one page."""

from __future__ import annotations

from colmeia.rag.ingest.text import extract_plain, strip_markdown

MARKDOWN = """Intro without a heading line
# Lei [LGPD](http://x) e **dados**

Texto com ![figura 1](img.png) e `código` e *grifo* e <sup>1</sup> nota.<br/>

> citação de doutrina

```python
print(1)
```

Subtítulo
=========

Outro
---
fim
"""


def test_markup_goes_words_and_lines_stay() -> None:
    title, text = strip_markdown(MARKDOWN)
    assert title == "Lei LGPD e dados"
    assert text.splitlines() == [
        "Intro without a heading line",
        "Lei LGPD e dados",
        "",
        "Texto com figura 1 e código e grifo e 1 nota.",
        "",
        "citação de doutrina",
        "",
        "",  # the fence lines are emptied, the code kept
        "print(1)",
        "",
        "",
        "Subtítulo",
        "",  # a setext underline is emptied
        "",
        "Outro",
        "",
        "fim",
    ]


def test_a_markdown_text_without_a_heading_has_no_title() -> None:
    assert strip_markdown("sem título, só *texto*") == ("", "sem título, só texto")


def test_form_feeds_split_pages_and_a_trailing_one_adds_none() -> None:
    assert extract_plain("Ação\fSegunda".encode()) == ("", ["Ação", "Segunda"])
    assert extract_plain(b"a\f") == ("", ["a"])
    assert extract_plain(b"a\fb\f  \n") == ("", ["a", "b"])
    assert extract_plain(b"a\f\fb") == ("", ["a", "", "b"])  # a blank page inside stays


def test_a_text_is_always_at_least_one_page() -> None:
    assert extract_plain(b"  \n") == ("", ["  \n"])
    assert extract_plain(b"uma linha") == ("", ["uma linha"])
