"""The ``writer`` template of build.py: the ground truth as an OpenDocument flat file (A4,
Liberation Serif 12 pt, 1.5 line spacing, justified, Brazilian Portuguese hyphenation, real
footnotes, drop capitals, tables with a caption above and a source below), turned into a PDF by
LibreOffice (``soffice --headless --convert-to pdf``)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from xml.sax.saxutils import escape

_NOTE_RE = re.compile(r"\[\^(.+?)\]")

_HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">
<office:font-face-decls>
 <style:font-face style:name="Liberation Serif" svg:font-family="'Liberation Serif'"
  xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"/>
</office:font-face-decls>
<office:styles>
 <style:default-style style:family="paragraph">
  <style:paragraph-properties fo:hyphenation-ladder-count="no-limit"/>
  <style:text-properties style:font-name="Liberation Serif" fo:font-size="12pt" fo:language="pt"
   fo:country="BR" fo:hyphenate="true" fo:hyphenation-remain-char-count="2"
   fo:hyphenation-push-char-count="2"/>
 </style:default-style>
 <style:style style:name="Body" style:family="paragraph">
  <style:paragraph-properties fo:text-align="justify" fo:text-indent="1.25cm"
   fo:margin-top="0cm" fo:margin-bottom="0cm" fo:line-height="150%"/>
 </style:style>
 <style:style style:name="Drop" style:family="paragraph" style:parent-style-name="Body">
  <style:paragraph-properties fo:text-indent="0cm">
   <style:drop-cap style:lines="2" style:length="1" style:distance="0.1cm"/>
  </style:paragraph-properties>
 </style:style>
 <style:style style:name="Heading" style:family="paragraph">
  <style:paragraph-properties fo:margin-top="0.6cm" fo:margin-bottom="0.4cm"/>
  <style:text-properties fo:font-weight="bold" fo:hyphenate="false"/>
 </style:style>
 <style:style style:name="Caption" style:family="paragraph">
  <style:paragraph-properties fo:text-align="center" fo:margin-top="0.4cm" fo:margin-bottom="0.2cm"/>
  <style:text-properties fo:font-size="10pt" fo:hyphenate="false"/>
 </style:style>
 <style:style style:name="Source" style:family="paragraph">
  <style:paragraph-properties fo:margin-top="0.1cm" fo:margin-bottom="0.4cm"/>
  <style:text-properties fo:font-size="10pt" fo:hyphenate="false"/>
 </style:style>
 <style:style style:name="Cell" style:family="paragraph">
  <style:text-properties fo:font-size="10pt" fo:hyphenate="false"/>
 </style:style>
 <style:style style:name="Footnote" style:family="paragraph">
  <style:paragraph-properties fo:text-align="justify"/>
  <style:text-properties fo:font-size="10pt"/>
 </style:style>
 <style:style style:name="Footer" style:family="paragraph">
  <style:paragraph-properties fo:text-align="end"/>
  <style:text-properties fo:font-size="10pt"/>
 </style:style>
</office:styles>
<office:automatic-styles>
 <style:page-layout style:name="pm1">
  <style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="3cm"
   fo:margin-bottom="2cm" fo:margin-left="3cm" fo:margin-right="2cm"/>
  <style:footer-style/>
 </style:page-layout>
</office:automatic-styles>
<office:master-styles>
 <style:master-page style:name="Standard" style:page-layout-name="pm1">
  <style:footer><text:p text:style-name="Footer"><text:page-number text:select-page="current"/></text:p></style:footer>
 </style:master-page>
</office:master-styles>
<office:body><office:text>
"""


def _inline(text: str, counter: list[int]) -> str:
    out = []
    pos = 0
    for m in _NOTE_RE.finditer(text):
        out.append(escape(text[pos : m.start()]))
        counter[0] += 1
        n = counter[0]
        out.append(
            f'<text:note text:id="ftn{n}" text:note-class="footnote">'
            f"<text:note-citation>{n}</text:note-citation><text:note-body>"
            f'<text:p text:style-name="Footnote">{escape(m.group(1))}</text:p>'
            "</text:note-body></text:note>"
        )
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


def _table(rows: list[list[str]]) -> str:
    cols = len(rows[0])
    out = [
        f'<table:table table:name="T{len(rows)}x{cols}"><table:table-column table:number-columns-repeated="{cols}"/>'
    ]
    for row in rows:
        cells = "".join(
            '<table:table-cell office:value-type="string">'
            f'<text:p text:style-name="Cell">{escape(c)}</text:p></table:table-cell>'
            for c in row
        )
        out.append(f"<table:table-row>{cells}</table:table-row>")
    out.append("</table:table>")
    return "".join(out)


def build_fodt(gold: dict, target: Path) -> None:
    counter = [0]
    style = gold.get("style", {})
    head = (
        _HEAD.replace("Liberation Serif", style.get("font", "Liberation Serif"))
        .replace(
            'fo:font-size="12pt" fo:language',
            f'fo:font-size="{style.get("size", "12pt")}" fo:language',
        )
        .replace('fo:line-height="150%"', f'fo:line-height="{style.get("line_height", "150%")}"')
    )
    parts = [head]
    for block in gold["blocks"]:
        kind = block["kind"]
        if kind == "heading":
            parts.append(f'<text:p text:style-name="Heading">{escape(block["text"])}</text:p>')
        elif kind == "paragraph":
            style = "Drop" if block.get("dropcap") else "Body"
            parts.append(
                f'<text:p text:style-name="{style}">{_inline(block["text"], counter)}</text:p>'
            )
        elif kind == "list":
            for i, item in enumerate(block["items"], start=1):
                parts.append(
                    f'<text:p text:style-name="Body">{i}. {_inline(item, counter)}</text:p>'
                )
        elif kind in ("table", "grid"):
            if kind == "table":
                parts.append(
                    f'<text:p text:style-name="Caption">{escape(block["caption"])}</text:p>'
                )
            parts.append(_table(block["rows"]))
            if kind == "table":
                parts.append(f'<text:p text:style-name="Source">{escape(block["source"])}</text:p>')
        else:
            raise ValueError(f"unknown block kind {kind!r}")
    parts.append("</office:text></office:body></office:document>\n")
    fodt = target.with_suffix(".fodt")
    fodt.write_text("\n".join(parts), encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                "soffice",
                f"-env:UserInstallation=file://{tmp}/profile",
                "--headless",
                "--convert-to",
                "pdf",
                "--outdir",
                tmp,
                str(fodt),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        shutil.copy(Path(tmp) / fodt.with_suffix(".pdf").name, target)
