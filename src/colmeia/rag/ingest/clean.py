"""PDF text cleaning: line joining, running headers/footers, hyphenation, front/back matter.

Pages stay pages (citations keep their page numbers); inside a page, the cleaned text has one
paragraph per line-block, paragraphs separated by a blank line.

Line joining follows the block statistic from the literature: within a block of N lines with
mean length m and standard deviation s, a line shorter than ``m - 1.65·s/√N`` ends a
paragraph, and so does a line ending in final punctuation that is also short of the block's
full width. Lines that start a legal dispositivo (Art., §, incisos, alíneas) or a list item
always start a new paragraph.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

from colmeia.rag.ingest._common import normalize_text
from colmeia.rag.ingest.clean_layout import (
    is_table_row,
    mark_superscript_notes,
    split_layout_notes,
    table_text,
)
from colmeia.rag.ingest.pdf import INDENT
from colmeia.rag.ingest.pdf_layout import LAYOUT, strip_marks
from colmeia.rag.ingest.wordlist import is_word
from colmeia.rag.types import ExtractedDocument, Page

__all__ = [
    "clean_document",
    "clean_pages",
    "join_lines",
    "looks_academic",
    "printed_page_offset",
    "remove_running_lines",
]

_DIGITS_RE = re.compile(r"\d+")
_PAGE_NUMBER_RE = re.compile(
    r"^(?:[-–—]\s*)?(?:p[áa]g(?:ina)?\.?\s*)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:de|/|of)\s*\d{1,4})?(?:\s*[-–—])?$",
    re.IGNORECASE,
)
_FINAL_PUNCT = (".", "!", "?", ":", ";", "…", ".”", '."', ".)", "?”", "!”")
# Laws print "ART." and "PARÁGRAFO ÚNICO" in capitals too; the rest stays case-sensitive ("a)"
# is an alínea, "v - " in running text is not an inciso).
_STARTS_NEW_RE = re.compile(
    r"^(?:(?i:Art(?:igo|\.))\s*\d|§\s*\d|(?i:Par[áa]grafo\s+[úu]nico)|[IVXLC]{1,7}\s*[-–—]\s|[a-z]\)\s|"
    r"[•●▪◦■\-–—*]\s|\(?\d{1,2}[.)]\s|\d{1,2}(?:\.\d{1,2})+\.?\s|[A-Z]\)\s)"
)
_GLUE_START = frozenset(",.;:)]}")
_FOOTNOTE_RE = re.compile(r"^\d{1,3}(?=[A-Za-zÀ-ÿ(])|^\d{1,3}\.\s(?=[<A-Za-zÀ-ÿ(“\"])")
_NOTE_NUMBER_RE = re.compile(r"^(\d{1,3})")
# An item of a numbered list in running text: "1. ", "2) ", "(3) ".
_LIST_ITEM_RE = re.compile(r"^\(?\d{1,2}[.)]\s")
_CHAPTER_OPENER_RE = re.compile(
    r"^(?:cap[íi]tulo|chapter|parte|part|se[çc][ãa]o)\s+(?:\d{1,3}|[ivxlc]{1,6})$", re.IGNORECASE
)
# A number at either end of a line at a page's top or bottom: "10 Capítulo 1. Um exemplo",
# "3.1. Uma seção 17", "24".
_EDGE_NUMBER_RE = re.compile(r"^(\d{1,4})(?:\s+(.*))?$|^(.*\S)\s+(\d{1,4})$")
_RUNNING_REST_RE = re.compile(
    r"^(?:cap[íi]tulo|chapter|cap\.)\s*\d+|^\d{1,2}(?:\.\d{1,2})*\.\s+\S", re.IGNORECASE
)
_ACADEMIC_RE = re.compile(
    r"\b(?:disserta[çc][ãa]o|tese|monografia|trabalho de conclus[ãa]o|p[óo]s-gradua[çc][ãa]o|"
    r"mestrado|doutorado|dissertation|thesis|tesis|maestr[íi]a|doctorado)\b",
    re.IGNORECASE,
)
_ACADEMIC_TYPES = frozenset(
    ["tese", "dissertacao", "monografia", "tcc", "thesis", "dissertation", "tesis", "academic"]
)
_HYPHEN_END_RE = re.compile(r"(\w+)-$")
# Prefixes the 1990 orthographic agreement fuses with the next word except before h, the same
# vowel, or r after r: a compound of these is decided by that rule, not by the word list
# (which misses many of the fused forms).
_FUSING_PREFIXES = frozenset(
    [
        "aero",
        "agro",
        "ante",
        "anti",
        "arqui",
        "auto",
        "bio",
        "contra",
        "eletro",
        "entre",
        "extra",
        "geo",
        "hidro",
        "hiper",
        "infra",
        "inter",
        "intra",
        "macro",
        "maxi",
        "micro",
        "mini",
        "multi",
        "neo",
        "pluri",
        "proto",
        "pseudo",
        "retro",
        "semi",
        "sobre",
        "socio",
        "super",
        "supra",
        "tele",
        "ultra",
    ]
)
_FIRST_WORD_RE = re.compile(r"^(\w+)")
_CLITICS = frozenset(
    [
        "se",
        "lhe",
        "lhes",
        "o",
        "a",
        "os",
        "as",
        "me",
        "te",
        "nos",
        "vos",
        "lo",
        "la",
        "los",
        "las",
        "no",
        "na",
        "nas",
        "ia",
        "ao",
        "ão",
        "á",
        "ás",
        "emos",
        "eis",
    ]
)
_TOC_LINE_RE = re.compile(r"(?:\.\s?){4,}\s*\S{0,8}$|\s{2,}[\divxlcdmIVXLCDM]{1,6}$")
_TOC_TITLE_RE = re.compile(
    r"^(SUM[ÁA]RIO|[ÍI]NDICE|LISTA DE (FIGURAS|TABELAS|QUADROS|ILUSTRA[ÇC][ÕO]ES|GR[ÁA]FICOS|"
    r"ABREVIATURAS|SIGLAS|S[ÍI]MBOLOS|C[ÓO]DIGOS|TERMOS|ALGORITMOS)|CONTENTS)\b",
    re.IGNORECASE,
)
_INTRO_RE = re.compile(
    r"^(?:(?:cap[íi]tulo\s+)?1\.?\s+)?(INTRODU[ÇC][ÃA]O|INTRODUCCI[ÓO]N|INTRODUCTION)\s*$",
    re.IGNORECASE,
)
_CHAPTER1_RE = re.compile(r"^cap[íi]tulo\s+1\s*$", re.IGNORECASE)
_ABSTRACT_RE = re.compile(r"^(RESUMO|ABSTRACT|RESUMEN|RÉSUMÉ)\s*$", re.IGNORECASE)
_REFS_RE = re.compile(
    r"^(?:\d{1,2}\.?\s+)?(REFER[ÊE]NCIAS(?:\s+BIBLIOGR[ÁA]FICAS)?|BIBLIOGRAFIA|"
    r"REFERENCES|BIBLIOGRAPHY|OBRAS CITADAS)\s*$",
    re.IGNORECASE,
)
# "Figura 3 – Evolução…", "Tabela 2: …", "Quadro 1. …" — not "Tabela 1 mostra que…".
_CAPTION_RE = re.compile(
    r"^(?:Figura|Fig\.|Tabela|Quadro|Gr[áa]fico|Ilustra[çc][ãa]o|Imagem|Mapa|Fotografia|"
    r"Diagrama|Esquema|Fluxograma|Organograma|Figure|Table|Cuadro)\s+\d+(?:\.\d+)*\s*[-–—:.]\s*\S"
)
_SOURCE_RE = re.compile(r"^(?:Fonte|Fontes|Fuente|Source)\s*:", re.IGNORECASE)
# A line that is an address: one more source of a "Fontes:" list ("<http://…>").
_URL_LINE_RE = re.compile(r"^<?(?:https?://|www\.)\S+>?[.;,]?$")
_APPENDIX_RE = re.compile(r"^(AP[ÊE]NDICES?|ANEXOS?|APPENDIX)\b", re.IGNORECASE)


def _mask(line: str) -> str:
    # Digits vary between pages (page numbers, dates); drop them so "Página 1"/"Página 12" match.
    return " ".join(_DIGITS_RE.sub(" ", line.lower()).split())


def _edge_number(line: str) -> tuple[int, str] | None:
    m = _EDGE_NUMBER_RE.match(line.strip())
    if not m:
        return None
    if m.group(1) is not None:
        return int(m.group(1)), (m.group(2) or "").strip()
    return int(m.group(4)), m.group(3).strip()


def _edge_lines(lines: Sequence[str], edge: int = 2) -> list[int]:
    content = [i for i, x in enumerate(lines) if x.strip()]
    return sorted(set(content[:edge] + content[-edge:]))


def printed_page_offset(pages: Sequence[list[str]], numbers: Sequence[int]) -> int | None:
    """``printed - pdf page number`` when the pages print their numbers consistently (at the
    top or bottom, alone or beside a running title), else ``None``. ABNT theses count pages
    from the title page but print numbers from the introduction on: a constant offset."""
    votes: Counter[int] = Counter()
    for lines, number in zip(pages, numbers, strict=True):
        offsets = set()
        for i in _edge_lines(lines):
            found = _edge_number(lines[i])
            if found is not None:
                offsets.add(found[0] - number)
        votes.update(offsets)
    if not votes:
        return None
    ranked = votes.most_common(2)
    offset, count = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0
    return offset if count >= 3 and count >= 2 * runner_up else None


def _numbered_headers(
    pages: Sequence[list[str]], numbers: Sequence[int], offset: int
) -> list[set[int]]:
    """Per page, the edge lines that carry the page's printed number beside a running title
    (a chapter or section name) or alone."""
    rests: Counter[str] = Counter()
    found: list[list[tuple[int, str]]] = []
    for lines, number in zip(pages, numbers, strict=True):
        mine = []
        for i in _edge_lines(lines):
            hit = _edge_number(lines[i])
            if hit is not None and hit[0] == number + offset:
                mine.append((i, hit[1]))
                rests[_mask(hit[1])] += 1
        found.append(mine)
    # A title is printed elsewhere too (a heading in some page's body): a line of its own
    # besides this one, since the edge line masked is its rest already.
    whole = Counter(_mask(x) for lines in pages for x in lines if x.strip())
    out: list[set[int]] = []
    for mine in found:
        drop = set()
        for i, rest in mine:
            key = _mask(rest)
            if (
                not rest
                or _RUNNING_REST_RE.match(rest)
                or rests[key] >= 2
                or (len(rest) <= 120 and whole[key] >= 2)
            ):
                drop.add(i)
        out.append(drop)
    return out


def remove_running_lines(
    pages: Sequence[list[str]],
    *,
    zone: int = 8,
    edge: int = 2,
    numbers: Sequence[int] | None = None,
    offset: int | None = None,
) -> list[list[str]]:
    """Drop running headers/footers and page numbers.

    With digits ignored, a line is a running line when it recurs among the first/last ``edge``
    lines of at least three pages (and a tenth of them) — thesis chapter headers — or among the
    first/last ``zone`` lines of at least three pages and half of them — gazette mastheads.
    Bare page numbers (``12``, ``- 12 -``, ``Página 3 de 8``, ``iv``) at a page's top or bottom
    go too. Given the pages' ``numbers`` and the printed-number ``offset``
    (:func:`printed_page_offset`), a top/bottom line holding the page's printed number beside
    a chapter or section name ("10 Capítulo 1. Um exemplo", "3.1. Uma seção 17") goes even
    when that name heads only one or two pages. Chapter openers ("CAPÍTULO 2") stay.
    """
    n = len(pages)
    near: Counter[str] = Counter()
    wide: Counter[str] = Counter()
    for lines in pages:
        content = [x for x in lines if x.strip()]
        near.update({_mask(x) for x in content[:edge] + content[-edge:]})
        # Far from the edge only masthead-like lines count: long, or carrying numbers; short
        # recurring lines there are usually signatures ("Prefeito Municipal"), i.e. content.
        wide.update(
            {
                _mask(x)
                for x in content[:zone] + content[-zone:]
                if len(x.strip()) >= 25 or _DIGITS_RE.search(x)
            }
        )
    running: set[str] = set()
    if n >= 3:
        running = {k for k, v in near.items() if v >= max(3, math.ceil(0.1 * n))}
        running |= {k for k, v in wide.items() if v >= max(3, math.ceil(0.5 * n))}
        running = {k for k in running if 0 < len(k) <= 200}
    numbered: list[set[int]] = [set() for _ in pages]
    if numbers is not None and offset is not None:
        numbered = _numbered_headers(pages, numbers, offset)
    out: list[list[str]] = []
    for lines, headers in zip(pages, numbered, strict=True):
        idx_content = [i for i, x in enumerate(lines) if x.strip()]
        drop: set[int] = set(headers)
        m = len(idx_content)
        for pos, i in enumerate(idx_content):
            if zone <= pos < m - zone:
                continue
            stripped = lines[i].strip()
            if _CHAPTER_OPENER_RE.match(stripped):
                continue  # "Capítulo 2" opens a chapter on many pages: it is not a header
            if _mask(stripped) in running or (
                (pos <= 1 or pos >= m - 2) and _PAGE_NUMBER_RE.match(stripped)
            ):
                drop.add(i)
        out.append([x for i, x in enumerate(lines) if i not in drop])
    return out


def _dehyphenate(left: str, right: str, vocabulary: _Lexicon | set[str]) -> str:
    """Join ``left`` (ending in a hyphen) and ``right``, removing the hyphen when it was a break."""
    m = _HYPHEN_END_RE.search(left)
    if not m:
        # A dash set apart from the words ("em 2019 -" + "reformou"): punctuation, no break.
        return f"{left} {right}"
    w = _FIRST_WORD_RE.match(right)
    if not w:
        return left + right
    a, b = m.group(1), w.group(1)
    fused = (a + b).lower()
    # A clitic after the hyphen ("fazê-los", "pode-se") keeps it, unless the two halves make
    # a word of the dictionary or of the document: then the line end broke a plural or a
    # word in -la/-lo ("mode-los" → "modelos", "célu-las" → "células").
    clitic = b.lower() in _CLITICS and not (is_word(fused) or _word_elsewhere(fused, vocabulary))
    # A name set in capitals broken at a line end ("FER-" + "REIRA") is one word unless the
    # document writes it with the hyphen; a capital after a lower-case part ("T-" +
    # "Commerce") marks a compound.
    caps = a.isupper() and b.isupper() and len(a) > 1 and len(b) > 1
    keep = (
        (b[:1].isupper() and not caps)
        or clitic
        or a.isdigit()
        or b.isdigit()
        or f"{a}-{b}".lower() in vocabulary
    )
    if keep and (a + b).lower() in vocabulary and f"{a}-{b}".lower() not in vocabulary:
        keep = False
    if not keep and _compound(a, b, vocabulary):
        keep = True
    return left + right if keep else left[:-1] + right


def _compound(a: str, b: str, vocabulary: _Lexicon | set[str]) -> bool:
    """Whether ``a-`` + ``b`` is a compound broken at its own hyphen: both parts are words and
    the fused form is not ("político-pedagógico", "bem-estar", "pré-escola"), or, after a
    prefix the orthography fuses, the rule for it ("contra-hegemônico", "semiestruturada").
    A fused form the document itself uses elsewhere wins ("web-" + "conferência" →
    "webconferência" when the text writes it so)."""
    fused = (a + b).lower()
    prefix = a.lower()
    if prefix in _FUSING_PREFIXES:
        # The orthographic rule for these prefixes: fused ("microempreendedor",
        # "semiestruturada"), hyphenated before h, before the vowel the prefix ends with
        # ("anti-inflamatório", "micro-ondas") and r after r ("inter-racial").
        candidate = b[:1].lower() in ("h", prefix[-1])
    else:
        # Two words whose fusion is none, in capitals too ("POLÍTICO-PEDAGÓGICO", "a-histórico");
        # a part with digits is no word of the list.
        candidate = is_word(a) and is_word(b) and not is_word(fused)
    return candidate and not _word_elsewhere(fused, vocabulary)


def _word_elsewhere(word: str, vocabulary: _Lexicon | set[str]) -> bool:
    if isinstance(vocabulary, _Lexicon):
        return vocabulary.count(word) > 0
    return word in vocabulary


def _block_breaks(lengths: list[int]) -> float:
    n = len(lengths)
    mean = sum(lengths) / n
    if n < 2:
        return mean
    var = sum((x - mean) ** 2 for x in lengths) / (n - 1)
    return mean - 1.65 * math.sqrt(var) / math.sqrt(n)


def join_lines(lines: Sequence[str], vocabulary: _Lexicon | set[str] | None = None) -> list[str]:
    """Join the lines of one page into paragraphs (see the module docstring for the rule);
    footnotes come last, each its own paragraph."""
    body, notes = _join_page(lines, vocabulary)
    return body + notes


def _join_page(
    lines: Sequence[str], vocabulary: _Lexicon | set[str] | None = None, *, layout: bool = False
) -> tuple[list[str], list[str]]:
    """The page's body paragraphs and its footnotes (with ``layout``, the lines carry the
    PDF layout marks: footnotes, marks and tables are found by them)."""
    vocab = vocabulary if vocabulary is not None else set()
    paragraphs: list[str] = []
    # Blocks are runs of non-blank lines; blank lines always separate paragraphs.
    block: list[str] = []
    # Lines the extractor found set in from the margin (INDENT): a paragraph's first line.
    indented: set[int] = set()  # positions in ``block``

    def flush() -> None:
        if not block:
            return
        lengths = [len(x) for x in block]
        threshold = _block_breaks(lengths)
        # The block's full line width; a line well short of it cannot be a mid-paragraph line
        # even when the statistic is loose (few lines, ragged right margin).
        width = sorted(lengths)[int(0.8 * (len(lengths) - 1))]
        if len(lengths) <= 3:
            # Too few lines for a percentile: a heading over a one-line paragraph would be
            # the "full width" and glue to it ("CONSIDERAÇÕES FINAIS Para políticas…").
            width = max(lengths)
        current = block[0]
        for i, (prev, line) in enumerate(itertools.pairwise(block), start=1):
            plen = len(prev)
            starts_new = bool(_STARTS_NEW_RE.match(line))
            if line[:1] in _GLUE_START:
                # Punctuation after a footnote mark or a superscript: part of the same sentence.
                current = f"{current}{line}"
                continue
            if line[:1].islower() and not starts_new and not _TOC_LINE_RE.search(prev):
                # A line starting in lower case continues a sentence whatever the layout says.
                if prev.endswith("-"):
                    current = _dehyphenate(current, line, vocab)
                else:
                    current = f"{current} {line}"
                continue
            # A sentence ending at the right margin ends the paragraph when the next line is
            # indented and this one was not (a block quote is indented throughout).
            indent_break = i in indented and i - 1 not in indented
            ends = (
                plen < threshold
                or plen < 0.6 * width
                or (prev.endswith(_FINAL_PUNCT) and (plen < 0.95 * width or indent_break))
                or starts_new
                or bool(_TOC_LINE_RE.search(prev))
                or bool(_TOC_LINE_RE.search(line))
            )
            if ends and not starts_new and prev.endswith("-") and prev[-2:-1].isalnum():
                ends = False  # a word broken at the line end never ends a paragraph
            if (
                ends
                and indented
                and i not in indented
                and not starts_new
                and plen >= 0.6 * width
                and len(line) >= 0.8 * width
                and not _TOC_LINE_RE.search(prev)
                and not _CAPTION_RE.match(line)
            ):
                # The page marks its paragraphs by a first-line indent: a full line that is
                # not set in continues the paragraph, even after a sentence that ended short
                # of the margin (ragged or loosely justified text) and even when capitalised.
                ends = False
            if ends:
                paragraphs.append(current)
                current = line
            elif prev.endswith("-"):
                current = _dehyphenate(current, line, vocab)
            else:
                current = f"{current} {line}"
        paragraphs.append(current)
        block.clear()
        indented.clear()

    def glue(a: str, b: str) -> str:
        return _dehyphenate(a, b, vocab) if a.endswith("-") else f"{a} {b}"

    layout_notes: list[str] = []
    if layout:
        # The footnotes are the lines set small at the foot; their marks are raised numbers.
        lines, layout_notes = split_layout_notes(lines, glue)
    flags = [x.startswith(INDENT) for x in lines]
    body, notes = ([x.strip() for x in lines], []) if layout else _split_footnotes(lines)
    marks = sorted({m.group(1) for n in notes if (m := _NOTE_NUMBER_RE.match(n))}, key=len)
    if marks:
        # "proxy14," → "proxy,": a note's number printed as a superscript after a word.
        # A word that carries the digits elsewhere too ("abnTEX2", "CO2") keeps them.
        mark_re = re.compile(
            r"\b(\w*?[^\W\d_])(" + "|".join(reversed(marks)) + r")(?=[\s,.;:)\]”\"]|$)"
        )

        def unmark(m: re.Match[str]) -> str:
            word = m.group(0)
            if isinstance(vocab, _Lexicon) and vocab.count(word.lower()) > 1:
                return word
            return m.group(1)

        body = [mark_re.sub(unmark, x) for x in body]
    body, flags, asides = _set_apart(body, flags, glue)
    for line, flag in zip(body, flags, strict=False):
        if line:
            if flag:
                indented.add(len(block))
            block.append(line)
        else:
            flush()
    flush()
    # Footnotes are kept, but as their own paragraphs after the body of the page.
    joined: list[str] = list(layout_notes)
    for note in notes:
        if _FOOTNOTE_RE.match(note) or not joined:
            joined.append(note)
        else:
            joined[-1] = f"{joined[-1]} {note}"
    return paragraphs, asides + joined


def _wrapped(lines: Sequence[str], start: int, limit: int) -> int:
    """The index after ``lines[start]`` and the lines that continue it: a long line that does
    not end a sentence, followed by a lower-case start (a wrapped caption or source)."""
    end = start + 1
    while end < min(len(lines), start + 1 + limit) and (
        (
            lines[end][:1].islower()
            and len(lines[end - 1]) >= 60
            and not lines[end - 1].endswith(_FINAL_PUNCT)
        )
        or (_SOURCE_RE.match(lines[start]) is not None and _URL_LINE_RE.match(lines[end]))
    ):
        end += 1
    return end


def _set_apart(
    lines: list[str], flags: list[bool], join: Callable[[str, str], str]
) -> tuple[list[str], list[bool], list[str]]:
    """Take figure/table captions, what lies between a caption and its "Fonte:" line (the
    table's cells, the figure's labels) and the source lines out of the running text.
    ``join`` glues a table cell's wrapped lines.

    Returns the remaining lines (the text before and after a figure then joins as one
    paragraph when it reads on) with their indent flags, and the set-apart paragraphs:
    caption, contents, source, in order."""
    kept: list[int] = []
    asides: list[str] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if _CAPTION_RE.match(line):
            cap_end = _wrapped(lines, i, 2)
            source = next(
                (j for j in range(cap_end, min(n, i + 60)) if _SOURCE_RE.match(lines[j])), None
            )
            asides.append(" ".join(lines[i:cap_end]))
            if source is None:
                i = cap_end
                continue
            between = [x for x in lines[cap_end:source] if x]
            # Two or more rows with column gaps, a third of its lines or more: a table, kept
            # row by row (a cell's wrapped lines are rows without gaps).
            gapped = sum(is_table_row(x) for x in between)
            if gapped >= 2 and 3 * gapped >= len(between):
                asides.append(table_text(between, join))
            elif between:
                asides.append(" ".join(between))
            end = _wrapped(lines, source, 6)
            asides.append(" ".join(lines[source:end]))
            i = end
            continue
        if _SOURCE_RE.match(line):
            end = _wrapped(lines, i, 6)
            asides.append(" ".join(lines[i:end]))
            i = end
            continue
        run = i
        while run < n and is_table_row(lines[run]):
            run += 1
        if run - i >= 3:
            # Three rows or more in a row with column gaps: a table without a caption (two
            # lines of loosely justified text can line up a wide gap by chance).
            asides.append(table_text(lines[i:run], join))
            i = run
            continue
        kept.append(i)
        i += 1
    if not asides:
        return [strip_marks(x) for x in lines], flags, []
    rest = [strip_marks(lines[k]) for k in kept]
    return rest, [flags[k] for k in kept if k < len(flags)], [strip_marks(a) for a in asides]


def _split_footnotes(lines: Sequence[str], *, window: int = 12) -> tuple[list[str], list[str]]:
    """Split off a trailing footnote block (lines like ``1www…``/``2Vinculado…``).

    A number pressed onto its word ("1Ver") is a raised number: such lines open the notes
    when they make a third of the block or more. Otherwise a numbered line opens the notes
    only when the body above carries its number as a mark ("proxy14,", "Saeb1"): a note is
    called from its page. A line numbered like a list item ("1. ") that goes on from a colon
    or from another item is the running text's list, whatever the body marks ("gripe H1N1"
    calls no note 1)."""
    content = [x.strip() for x in lines]
    n = len(content)
    for i in range(max(1, n - window), n):
        line = content[i]
        if not _FOOTNOTE_RE.match(line) or content[i - 1].endswith("-"):
            continue
        listed = _LIST_ITEM_RE.match(line) is not None
        above = next((x for x in reversed(content[:i]) if x), "")
        if listed and (above.endswith(":") or _LIST_ITEM_RE.match(above)):
            continue
        rest = [x for x in content[i:] if x]
        if not listed and 3 * sum(1 for x in rest if _FOOTNOTE_RE.match(x)) >= len(rest):
            return content[:i], rest
        number = _NOTE_NUMBER_RE.match(line)
        assert number is not None
        mark = re.compile(r"[^\W\d_]" + number.group(1) + r"(?=[\s,.;:)\]”\"]|$)")
        if any(mark.search(x) for x in content[:i]):
            return content[:i], rest
    return content, []


class _Lexicon:
    """Answers "does this word occur inside a line elsewhere in the document?" lazily.

    Only words broken at a line end are ever asked about, so a substring search over the
    document's text is much cheaper than building a full vocabulary.
    """

    __slots__ = ("_text",)

    def __init__(self, pages: Sequence[list[str]]) -> None:
        self._text = "\n".join("\n".join(lines) for lines in pages).lower()

    def count(self, word: str) -> int:
        """How many times ``word`` (lower case) occurs in the document as a whole word."""
        return len(re.findall(r"(?<!\w)" + re.escape(word) + r"(?!\w)", self._text))

    def __contains__(self, word: str) -> bool:
        """Whether ``word`` (lower case) occurs anywhere in the document's text."""
        return word in self._text


def _is_toc_page(lines: list[str]) -> bool:
    content = [x for x in lines if x.strip()]
    if not content:
        return False
    if _TOC_TITLE_RE.match(content[0].strip()):
        return True
    toc = sum(1 for x in content if _TOC_LINE_RE.search(x.strip()))
    return toc >= 3 and toc >= 0.4 * len(content)


def _cut_front_matter(pages: list[tuple[int, list[str]]]) -> list[tuple[int, list[str]]]:
    intro_at = None
    for i, (_, lines) in enumerate(pages):
        if _is_toc_page(lines):
            continue
        heads = [x.strip() for x in lines[:4] if x.strip()]
        if any(_INTRO_RE.match(h) or _CHAPTER1_RE.match(h) for h in heads):
            intro_at = i
            break
    if intro_at is None:
        return [(n, lines) for n, lines in pages if not _is_toc_page(lines)]
    kept = []
    for i, (n, lines) in enumerate(pages):
        if i >= intro_at:
            kept.append((n, lines))
            continue
        heads = [x.strip() for x in lines[:3] if x.strip()]
        if any(_ABSTRACT_RE.match(h) for h in heads) and not _is_toc_page(lines):
            kept.append((n, lines))
    return kept


def _cut_references(pages: list[tuple[int, list[str]]]) -> list[tuple[int, list[str]]]:
    # The last page with a references heading that is not a table of contents; its first one.
    start = next(
        (
            (i, j)
            for i in reversed(range(len(pages)))
            if not _is_toc_page(pages[i][1])
            for j, line in enumerate(pages[i][1])
            if _REFS_RE.match(line.strip())
        ),
        None,
    )
    if start is None:
        return pages
    out: list[tuple[int, list[str]]] = []
    cutting = False
    for i, (n, lines) in enumerate(pages):
        kept: list[str] = []
        for j, line in enumerate(lines):
            if (i, j) == start:
                cutting = True
            elif cutting and (j < 3 or i == start[0]) and _APPENDIX_RE.match(line.strip()):
                cutting = False
            if not cutting:
                kept.append(line)
        out.append((n, kept))
    return out


def clean_pages(
    pages: Sequence[Page],
    *,
    join: bool = True,
    cut_front_matter: bool = False,
    cut_references: bool = False,
) -> list[Page]:
    """Clean page texts (see :func:`clean_document`); empty pages are dropped."""
    # Extraction already normalised the text; only line ends matter before the final pass (a
    # Windows line end leaves a "\r" that every step strips with the other whitespace).
    split = [(p.number, p.text.split("\n")) for p in pages]
    # Pages from the PDF extractor open with a LAYOUT line: their lines carry layout marks.
    marked = {n for n, lines in split if lines and lines[0] == LAYOUT}
    split = [(n, lines[1:] if n in marked else lines) for n, lines in split]
    for k, (n, lines) in enumerate(split):
        if n not in marked and (noted := mark_superscript_notes(lines)) is not None:
            split[k] = (n, noted)
            marked.add(n)
    numbers = [n for n, _ in split]
    raw = [lines for _, lines in split]
    offset = printed_page_offset(raw, numbers)
    cleaned = remove_running_lines(raw, numbers=numbers, offset=offset)
    staged = list(zip(numbers, cleaned, strict=True))
    if cut_front_matter:
        staged = _cut_front_matter(staged)
        staged = [
            (n, [x for x in lines if not _TOC_LINE_RE.search(x.strip())]) for n, lines in staged
        ]
    if cut_references:
        staged = _cut_references(staged)
    vocab = _Lexicon([lines for _, lines in staged]) if join else _Lexicon([])
    labelled: list[tuple[int, str, list[str]]] = []
    footnotes: dict[int, list[str]] = {}
    for n, lines in staged:
        label = str(n + offset) if offset is not None and n + offset >= 1 else ""
        if join:
            paras, notes = _join_page(lines, vocab, layout=n in marked)
        else:
            paras, notes = [strip_marks("\n".join(lines))], []
        paras = [_drop_capital(p, vocab) for p in (normalize_text(x) for x in paras) if p]
        paras = _close_parentheses(paras)
        footnotes[n] = [p for p in (normalize_text(x) for x in notes) if p]
        labelled.append((n, label, paras))
    out: list[Page] = []
    carries = _join_across_pages(labelled, vocab) if join else {}
    for n, label, paras in labelled:
        notes = footnotes[n]
        # A joined paragraph must end its page (its tail is on the next page).
        carried = n in carries and bool(paras)
        paras = [*paras[:-1], *notes, paras[-1]] if carried else paras + notes
        text = "\n\n".join(paras)
        if not text:
            continue
        page = Page(n, text, label)
        if n in carries:
            page.carry, page.carry_page, page.carry_label = carries[n]
        out.append(page)
    return out


def _close_parentheses(paras: list[str]) -> list[str]:
    """Paragraphs rejoined where a break fell inside parentheses: a parenthesis opened in one
    and closed in the next (a long citation list, "(SILVA, 2019; …;" / "LIMA, 2021), que…")
    is one paragraph; prose does not open a parenthesis in one paragraph and close it in
    another."""
    out: list[str] = []
    for p in paras:
        if out and out[-1].count("(") > out[-1].count(")") and p.count(")") > p.count("("):
            out[-1] = f"{out[-1]} {p}"
        else:
            out.append(p)
    return out


_DROP_CAP_RE = re.compile(r"^([A-ZÀ-Ý])\s+([a-zà-ÿ]+)\b")


def _drop_capital(paragraph: str, vocabulary: _Lexicon | set[str]) -> str:
    """A paragraph opening with a drop capital set apart by the extractor ("E ste documento")
    gets its letter back: when the two make a word of the dictionary or of the document
    ("Este") and either the rest is no word or the letter is none on its own ("N as" →
    "Nas": "n" cannot stand alone, though "as" can). "E o texto", "A escola" stay: "E" and
    "A" are words, and so are "o" and "escola"."""
    m = _DROP_CAP_RE.match(paragraph)
    if m is None or len(paragraph) < 40:
        return paragraph
    letter, rest = m.group(1), m.group(2)
    if is_word(letter) and is_word(rest):  # the word list has "a", "o", "e", in any case
        return paragraph
    fused = (letter + rest).lower()
    if not (is_word(fused) or _word_elsewhere(fused, vocabulary)):
        return paragraph
    return letter + paragraph[m.start(2) :]


def _ends_open(paragraph: str) -> bool:
    """Whether a page's last paragraph stops mid-sentence (the page break split it)."""
    tail = paragraph.rstrip('”"’)] ')
    return len(paragraph) >= 40 and not tail.endswith((".", "!", "?", ":", ";", "…"))


def _continues(paragraph: str, previous: str) -> bool:
    """Whether a page's first paragraph reads as the rest of ``previous``."""
    head = paragraph.lstrip()
    if not head or _CHAPTER_OPENER_RE.match(head) or _INTRO_RE.match(head):
        return False
    if _REFS_RE.match(head) or _STARTS_NEW_RE.match(head):
        return False
    first = head[0]
    if first.islower() or first in "(,;" or previous.endswith(("-", ",")):
        return True
    # A capitalised start continues only a sentence cut after a lower-case word, and only
    # when it is not a short heading line.
    return previous[-1:].islower() and len(head) >= 80


def _join_across_pages(
    pages: list[tuple[int, str, list[str]]], vocab: _Lexicon
) -> dict[int, tuple[int, int, str]]:
    """Join paragraphs a page break split: the rest moves to the end of the page where the
    paragraph starts. Returns, per page number, ``(carried characters, page, label)``."""
    carries: dict[int, tuple[int, int, str]] = {}
    for i in range(len(pages) - 1):
        n, _, paras = pages[i]
        # A page with no running text (a float page: a table or figure alone, or a blank
        # page) lies between a paragraph and its rest: the rest is on the page after it.
        j = i + 1
        while j < len(pages) - 1 and j - i <= 2 and not pages[j][2]:
            j += 1
        m, label, nxt = pages[j]
        if not paras or not nxt or n in carries:
            continue
        prev, head = paras[-1], nxt[0]
        if not (_ends_open(prev) and _continues(head, prev)):
            continue
        joined = _dehyphenate(prev, head, vocab) if prev.endswith("-") else f"{prev} {head}"
        paras[-1] = joined
        nxt.pop(0)
        carries[n] = (len(joined) - len(prev), m, label)
    return carries


def looks_academic(doc: ExtractedDocument) -> bool:
    """A thesis, dissertation or similar: by its type, or by its first pages (degree words)
    together with a table of contents or a references section."""
    kind = fold_type(doc.doc_type)
    if kind in _ACADEMIC_TYPES or doc.metadata.get("academic") is True:
        return True
    if doc.metadata.get("format") != "pdf" or len(doc.pages) < 8:
        return False
    if not any(_ACADEMIC_RE.search(p.text) for p in doc.pages[:6]):
        return False
    has_toc = any(_is_toc_page(p.text.split("\n")) for p in doc.pages[:20])
    has_refs = any(
        _REFS_RE.match(line.strip()) for p in doc.pages[-40:] for line in p.text.split("\n")
    )
    return has_toc or has_refs


def fold_type(doc_type: str) -> str:
    """ "Dissertação" → "dissertacao": document types compared without case or accents."""
    decomposed = unicodedata.normalize("NFKD", doc_type.strip().lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def clean_document(
    doc: ExtractedDocument,
    *,
    cut_front_matter: bool | None = None,
    cut_references: bool | None = None,
    join_lines: bool | None = None,
) -> ExtractedDocument:
    """A cleaned copy of ``doc``: running headers/footers and page numbers removed, lines a PDF
    broke inside a paragraph joined (words broken at a line end de-hyphenated), Unicode NFC,
    control characters dropped, whitespace collapsed. ``cut_front_matter`` drops cover, title
    page, dedication, acknowledgements and tables of contents before the introduction (the
    resumo/abstract pages are kept); ``cut_references`` drops the references section up to an
    appendix/annex. ``join_lines`` defaults to on for PDF and plain text, off for formats that
    already mark paragraphs (DOCX, HTML, Markdown, records). Both cuts default to on for
    academic works (:func:`looks_academic`) and off for everything else.
    """
    fmt = str(doc.metadata.get("format", ""))
    if cut_front_matter is None or cut_references is None:
        academic = looks_academic(doc)
        cut_front_matter = academic if cut_front_matter is None else cut_front_matter
        cut_references = academic if cut_references is None else cut_references
    join = join_lines if join_lines is not None else fmt in ("pdf", "text", "")
    if not join and not cut_front_matter and not cut_references and fmt != "pdf":
        pages = [Page(p.number, normalize_text(p.text)) for p in doc.pages]
    else:
        pages = clean_pages(
            doc.pages,
            join=join,
            cut_front_matter=cut_front_matter,
            cut_references=cut_references,
        )
    if not pages:
        pages = [Page(doc.pages[0].number if doc.pages else 1, "")]
    metadata = dict(doc.metadata)
    metadata["cleaned"] = True
    return replace(doc, pages=pages, metadata=metadata)
