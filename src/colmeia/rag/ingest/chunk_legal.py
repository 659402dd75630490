"""Brazilian legal-structure chunker: one chunk per dispositivo, with its citation path.

Recognises Parte/Livro/Título/Capítulo/Seção/Subseção headings, articles (``Art. 1º``,
``Art. 10``, ``Art. 10-A``, ``Art. 5o``), paragraphs (``§ 1º``, ``Parágrafo único``), incisos
(roman numerals followed by a dash), alíneas (``a)``) and items (``1.`` inside an alínea), and
the ADCT of the Constitution (whose article numbers restart). Each chunk carries ``path``
(``"Lei 8.078/1990, Art. 43, § 1º, inciso II, alínea a"``) and ``heading``
(``"Título II > Capítulo I"``); ``metadata`` holds the parsed numbers for filtering.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from colmeia.rag.ingest._common import SpanChunks
from colmeia.rag.ingest.lexml_names import lexml_label
from colmeia.rag.types import Chunk, ExtractedDocument

__all__ = [
    "LegalChunker",
    "LegalUnit",
    "int_to_roman",
    "lapsed_status",
    "legal_label",
    "looks_like_norm",
    "parse_legal",
    "roman_to_int",
]

Granularity = Literal["dispositivo", "artigo", "both"]

_LEAD = r"^[ \t>*_#\-–•]*?"
_HEADING_RE = re.compile(
    r"^[ \t*_#]*(PARTE|LIVRO|T[ÍI]TULO|CAP[ÍI]TULO|SUBSE[ÇC][ÃA]O|SE[ÇC][ÃA]O)\s+"
    r"([IVXLCDM]+(?:-[A-Z])?|[ÚU]NIC[OA]|\d+(?:-[A-Z])?)\b[ \t*_]*[:.\-–—]?[ \t]*(.*)$",
    re.IGNORECASE,
)
_ADCT_RE = re.compile(
    r"^[ \t*_#]*ATO\s+DAS\s+DISPOSI[ÇC][ÕO]ES\s+CONSTITUCIONAIS\s+TRANSIT[ÓO]RIAS[ \t*_.]*$",
    re.IGNORECASE,
)
_ART_RE = re.compile(
    r"^[ \t*_]*Art(?:igo|\.)\s*(\d{1,3}(?:\.\d{3})*|\d+)\s*(?:[º°ª]|o(?![a-zà-ú]))?"
    r"(?:\s*-\s*([A-Z]{1,2})(?![a-zà-ú]))?[ \t*_]*[.:\-–—]?",
    re.IGNORECASE,
)
_PAR_RE = re.compile(
    r"^[ \t*_]*§\s*(\d+)\s*(?:[º°]|o(?![a-zà-ú]))?(?:\s*-\s*([A-Z])(?![a-zà-ú]))?[ \t*_]*[.:\-–—]?"
)
_PAR_UNICO_RE = re.compile(r"^[ \t*_]*Par[áa]grafo\s+[úu]nico\b[ \t*_]*[.:\-–—]?", re.IGNORECASE)
_INCISO_RE = re.compile(r"^[ \t*_]*([IVXLCDM]+)(?:-([A-Z]))?[ \t*_]*[-–—][ \t*_]")
_ALINEA_RE = re.compile(r"^[ \t*_]*([a-z])(?:-([A-Z]))?\)[ \t*_]")
_ITEM_RE = re.compile(r"^[ \t*_]*(\d{1,3})[.)][ \t]")
_LINE_RE = re.compile(r"[^\n]*")

_LEVELS = {"parte": 0, "livro": 1, "título": 2, "capítulo": 3, "seção": 4, "subseção": 5}
_LEVEL_NAMES = {0: "Parte", 1: "Livro", 2: "Título", 3: "Capítulo", 4: "Seção", 5: "Subseção"}
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}

_NORM_RE = re.compile(
    r"(Lei Complementar|Decreto-Lei|Decreto Legislativo|Lei|Decreto|Medida Provisória|"
    r"Emenda Constitucional|Resolução|Portaria|Instrução Normativa)\s*"
    r"(?:n[º°o.]*\s*)?(\d[\d.]*\d|\d)(?:[^\n]{0,40}?\b(\d{4})\b)?",
    re.IGNORECASE,
)


# A dispositivo's own label at the start of its text (Markdown emphasis allowed).
_UNIT_LABEL_RE = re.compile(
    r"^[ \t*_]*(?:Art(?:igo|\.)\s*[\d.]+\s*[º°ª]?(?:-[A-Z]{1,2})?|§\s*\d+\s*[º°]?(?:-[A-Z])?"
    r"|Par[áa]grafo\s+[úu]nico|[IVXLCDM]+(?:-[A-Z])?\s*[-–—]|[a-z](?:-[A-Z])?\)|\d{1,3}[.)])"
    r"[ \t*_]*[.:\-–—]?[ \t*_]*",
    re.IGNORECASE,
)
_LAPSED_RE = re.compile(r"\b(vetad[oa]s?|revogad[oa]s?)\b", re.IGNORECASE)


def lapsed_status(text: str) -> str:
    """``"vetado"`` or ``"revogado"`` when a dispositivo's text is only such a note, else ``""``.

    ``"VIII – (VETADO). (Incluído por Lei nº 14.345 de 24.05.2022)"`` and ``"§ 4º (Revogado)."``
    have no text in force; ``"a lei revogada não se restaura …"`` has, and gives ``""``.
    """
    body = _UNIT_LABEL_RE.sub("", text)  # anchored at the start: one label at most
    notes, outside, depth = [], [], 0
    for ch in body:
        if ch == "(":
            depth += 1
        if depth:
            notes.append(ch)
        else:
            outside.append(ch)
        if ch == ")" and depth:
            depth -= 1
    if not notes or "".join(outside).strip(" \t\n.;,:e*_"):
        return ""
    m = _LAPSED_RE.search("".join(notes))
    if m is None:
        return ""
    return "vetado" if m.group(1).lower().startswith("vet") else "revogado"


def roman_to_int(numeral: str) -> int | None:
    """Value of a well-formed Roman numeral (``"XIV"`` → 14), else ``None``."""
    total, prev = 0, 0
    for ch in reversed(numeral.upper()):
        value = _ROMAN.get(ch)
        if value is None:
            return None
        total = total - value if value < prev else total + value
        prev = max(prev, value)
    if total <= 0 or _int_to_roman(total) != numeral.upper():
        return None
    return total


def int_to_roman(n: int) -> str:
    """The Roman numeral of ``n`` (14 → ``"XIV"``): how the legal paths write an inciso."""
    return _int_to_roman(n)


def _int_to_roman(n: int) -> str:
    out = []
    for value, sym in (
        (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
        (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    ):  # fmt: skip
        while n >= value:
            out.append(sym)
            n -= value
    return "".join(out)


def _thousands(number: str) -> str:
    # digits and dots only (_NORM_RE): "8078" and "8.078" are both "8.078"
    return f"{int(number.replace('.', '')):,}".replace(",", ".")


def legal_label(title: str) -> str:
    """Short citation label for a norm's title: ``"Lei nº 8.078, de 11 de setembro de 1990"`` →
    ``"Lei 8.078/1990"``; the Constitution → ``"Constituição Federal"``."""
    stem_label = lexml_label(title)
    if stem_label != title:
        return stem_label
    if re.search(r"constitui[çc][ãa]o", title, re.IGNORECASE) and not _NORM_RE.search(title):
        return "Constituição Federal"
    m = _NORM_RE.search(title)
    if m:
        kind = m.group(1)
        kind = kind[0].upper() + kind[1:]
        number = _thousands(m.group(2))
        year = m.group(3)
        return f"{kind} {number}/{year}" if year else f"{kind} {number}"
    return title.strip()


def _ordinal(n: str) -> str:
    # Portuguese legal style: ordinal up to nine (Art. 9º), cardinal from ten (Art. 10).
    return f"{n}º" if n.isdigit() and int(n) < 10 else n


@dataclass(slots=True)
class LegalUnit:
    """One dispositivo (or free text between them) found in the document."""

    kind: str  # "artigo" (caput) | "paragrafo" | "inciso" | "alinea" | "item" | "texto"
    start: int
    end: int
    part: str = ""
    headings: list[tuple[int, str, str]] = field(default_factory=list)  # (level, short, full)
    artigo: str | None = None
    paragrafo: str | None = None  # "1", "4-A"; "Parágrafo único" is "1"
    paragrafo_label: str = ""
    inciso: str | None = None  # decimal value of the roman numeral: "1", "1-A"
    inciso_label: str = ""
    alinea: str | None = None  # letter position: "a" → "1"
    alinea_label: str = ""
    item: int | None = None
    status: str = ""  # "vetado" | "revogado" when no text is in force (see lapsed_status)

    def path(self, label: str) -> str:
        parts = [label] if label else []
        if self.part:
            parts.append(self.part)
        if self.artigo is not None:
            num, _, suffix = self.artigo.partition("-")
            parts.append(f"Art. {_ordinal(num)}" + (f"-{suffix}" if suffix else ""))
        if self.paragrafo_label:
            parts.append(self.paragrafo_label)
        if self.inciso_label:
            parts.append(f"inciso {self.inciso_label}")
        if self.alinea_label:
            parts.append(f"alínea {self.alinea_label}")
        if self.item is not None:
            parts.append(f"item {self.item}")
        return ", ".join(parts)

    def heading(self) -> str:
        return " > ".join(short for _, short, _ in self.headings)

    def numbers(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "part": self.part,
            "artigo": self.artigo,
            "paragrafo": self.paragrafo,
            "inciso": self.inciso,
            "alinea": self.alinea,
            "item": self.item,
            "status": self.status,
            "headings": [full for _, _, full in self.headings],
        }


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line, without the newline."""
    spans = []
    pos = 0
    n = len(text)
    while pos <= n:
        nl = text.find("\n", pos)
        if nl < 0:
            nl = n
        spans.append((pos, nl))
        pos = nl + 1
    return spans


def parse_legal(text: str) -> list[LegalUnit]:
    """Split a norm's text into dispositivos (plus free-text units), in order."""
    units: list[LegalUnit] = []
    headings: list[tuple[int, str, str]] = []
    part = ""
    cur: LegalUnit | None = None
    artigo: str | None = None
    paragrafo: tuple[str, str] | None = None
    inciso: tuple[str, str] | None = None
    alinea: tuple[str, str] | None = None
    pending_heading_name = False

    def close() -> None:
        nonlocal cur
        if cur is not None:
            cur.status = lapsed_status(text[cur.start : cur.end])
            units.append(cur)
            cur = None

    def new(kind: str, start: int, end: int) -> LegalUnit:
        return LegalUnit(
            kind=kind,
            start=start,
            end=end,
            part=part,
            headings=list(headings),
            artigo=artigo,
            paragrafo=paragrafo[0] if paragrafo else None,
            paragrafo_label=paragrafo[1] if paragrafo else "",
            inciso=inciso[0] if inciso else None,
            inciso_label=inciso[1] if inciso else "",
            alinea=alinea[0] if alinea else None,
            alinea_label=alinea[1] if alinea else "",
        )

    for ls, le in _lines(text):
        # Skip leading blanks so offsets point at the first visible character.
        s = ls
        while s < le and text[s] in " \t":
            s += 1
        e = le
        while e > s and text[e - 1] in " \t":
            e -= 1
        if s >= e:
            continue
        line = text[s:e]

        if pending_heading_name:
            pending_heading_name = False
            if (
                len(line) < 200
                and not _ART_RE.match(line)
                and not _HEADING_RE.match(line)
                and not line.endswith((";", ","))
            ):
                level, short, full = headings[-1]
                headings[-1] = (level, short, f"{full}: {line}")
                continue

        if _ADCT_RE.match(line):
            close()
            part, headings = "ADCT", []
            artigo, paragrafo, inciso, alinea = None, None, None, None
            continue
        m = _HEADING_RE.match(line)
        # a long line that starts like a heading is prose (a heading with no name is short)
        if m and len(line) < 250:
            close()
            kind = m.group(1).lower()
            kind = kind.replace("i", "í", 1) if kind in ("titulo", "capitulo") else kind
            kind = kind.replace("secao", "seção")  # "subsecao" as well
            kind = kind.replace("seçao", "seção").replace("secão", "seção")
            # every spelling _HEADING_RE matches is one of _LEVELS by now
            level = _LEVELS[kind]
            short = f"{_LEVEL_NAMES[level]} {m.group(2).upper()}"
            headings = [h for h in headings if h[0] < level]
            name = m.group(3).strip(" *_:-–—")
            headings.append((level, short, f"{short}: {name}" if name else short))
            pending_heading_name = not name
            artigo, paragrafo, inciso, alinea = None, None, None, None
            continue

        m = _ART_RE.match(line)
        if m:
            close()
            num = m.group(1).replace(".", "")
            artigo = num + (f"-{m.group(2).upper()}" if m.group(2) else "")
            paragrafo, inciso, alinea = None, None, None
            cur = new("artigo", s, e)
            continue
        if artigo is not None:
            m = _PAR_RE.match(line)
            if m or _PAR_UNICO_RE.match(line):
                close()
                if m:
                    num = str(int(m.group(1)))
                    suffix = f"-{m.group(2)}" if m.group(2) else ""
                    paragrafo = (num + suffix, f"§ {_ordinal(num)}{suffix}")
                else:
                    paragrafo = ("1", "Parágrafo único")
                inciso, alinea = None, None
                cur = new("paragrafo", s, e)
                continue
            m = _INCISO_RE.match(line)
            value = roman_to_int(m.group(1)) if m else None
            if m and value is not None:
                close()
                suffix = f"-{m.group(2)}" if m.group(2) else ""
                inciso, alinea = (f"{value}{suffix}", m.group(1) + suffix), None
                cur = new("inciso", s, e)
                continue
            m = _ALINEA_RE.match(line)
            if m:
                close()
                letter = m.group(1)
                label = letter + (f"-{m.group(2)}" if m.group(2) else "")
                alinea = (str(ord(letter) - ord("a") + 1) + label[1:], label)
                cur = new("alinea", s, e)
                continue
            if alinea is not None:
                m = _ITEM_RE.match(line)
                if m:
                    close()
                    cur = new("item", s, e)
                    cur.item = int(m.group(1))
                    continue
        if cur is None:
            # only before the first article or after a heading: an article always has a unit
            cur = new("texto", s, e)
        else:
            cur.end = e
    close()
    return units


_NORM_LINE_RE = re.compile(
    r"^[ \t*_]*(?:Art(?:igo|\.)\s*\d|§\s*\d|Par[áa]grafo\s+[úu]nico|[IVXLC]+\s*[-–—]\s)",
    re.IGNORECASE | re.MULTILINE,
)
_ART_LINE_RE = re.compile(r"^[ \t*_]*Art(?:igo|\.)\s*\d", re.IGNORECASE | re.MULTILINE)


def looks_like_norm(text: str) -> bool:
    """True when ``text`` is structured like a norm (articles, §, incisos at line starts)."""
    sample = text[:60_000]
    articles = len(_ART_LINE_RE.findall(sample))
    if articles < 2:
        return False
    structural = len(_NORM_LINE_RE.findall(sample))
    lines = sum(1 for line in sample.split("\n") if line.strip())
    return structural >= 0.15 * lines or articles >= 10


class LegalChunker:
    """One chunk per dispositivo (caput, §, inciso, alínea, item), or per article, or both.

    ``label`` is the document part of the citation path; by default it is derived from the
    title (``"Lei 8.078/1990"``, ``"Constituição Federal"``). Chunk text is exactly
    ``doc.text[char_start:char_end]``; an article's caput chunk ends where its first § or inciso
    starts, and ``granularity="artigo"`` gives one chunk for the whole article instead
    (``"both"`` gives both kinds). Vetoed and revoked dispositivos (``"(VETADO)."``,
    ``"(Revogado)."``) get no chunk of their own: they stay in :func:`parse_legal`'s hierarchy,
    so the paths of their siblings are unchanged, but a search never answers with them.
    """

    name = "legal"

    def __init__(self, label: str | None = None, granularity: Granularity = "dispositivo") -> None:
        if granularity not in ("dispositivo", "artigo", "both"):
            raise ValueError("granularity must be 'dispositivo', 'artigo' or 'both'")
        self.label = label
        self.granularity = granularity

    def chunk(self, doc: ExtractedDocument) -> list[Chunk]:
        """Chunks of ``doc`` in reading order."""
        text = doc.text
        label = self.label if self.label is not None else legal_label(doc.title)
        units = parse_legal(text)
        spans = SpanChunks(doc, text)
        chunks: list[Chunk] = []

        def emit(unit: LegalUnit, start: int, end: int, granularity: str) -> None:
            meta = unit.numbers()
            meta["chunker"] = self.name
            meta["granularity"] = granularity
            chunks.append(
                spans.make(
                    len(chunks),
                    start,
                    end,
                    path=unit.path(label),
                    heading=unit.heading(),
                    metadata=meta,
                )
            )

        i = 0
        while i < len(units):
            unit = units[i]
            if unit.kind != "artigo" or self.granularity == "dispositivo":
                if not unit.status:
                    emit(unit, unit.start, unit.end, "dispositivo")
                i += 1
                continue
            j = i + 1
            while j < len(units) and units[j].kind not in ("artigo", "texto"):
                j += 1
            if self.granularity == "both":
                for k in range(i, j):
                    if not units[k].status:
                        emit(units[k], units[k].start, units[k].end, "dispositivo")
            if any(not units[k].status for k in range(i, j)):
                emit(unit, unit.start, units[j - 1].end, "artigo")
            i = j
        return chunks
