"""The Constitution's labelled CSV → LexML-shaped rows, so it is ingested like the other norms.

The Associação Brasileira de Jurimetria publishes the Constitution as a CSV labelling every line
(``classe`` título/artigo/parágrafo/inciso/alínea, and the numbers of its título, capítulo,
seção, subseção, artigo, parágrafo, inciso and alínea). The shipped laws are LexML exports
(``Tipo, Rotulo, Texto, urn``), which the CSV reader already turns into dispositivos cited down
to the alínea. Converting the Constitution into that shape — rather than teaching the reader a
second format — keeps one path for every norm: the same citation paths (``"CF/88, Art. 71,
inciso II"``), the same heading context, the same validity notes.

Título X of the CSV is the Ato das Disposições Constitucionais Transitórias, whose articles are
numbered from 1 again: it becomes a norm of its own (``"ADCT (CF/88), Art. 71"``), so that
``CF/88, Art. 71`` is never the ADCT's article of the same number.
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from colmeia.errors import DocumentError

__all__ = [
    "ADCT_STEM",
    "CONSTITUTION_STEM",
    "LEXML_COLUMNS",
    "ConstitutionLine",
    "constitution_lexml_rows",
    "is_constitution_header",
    "read_constitution",
    "roman",
    "write_constitution_lexml",
]

logger = logging.getLogger(__name__)

CONSTITUTION_STEM = "constituicao_1988_19881005"
ADCT_STEM = "adct_1988_19881005"
LEXML_COLUMNS = ("Tipo", "Rotulo", "Num_Inicio", "Num_Final", "Texto", "urn")

_COLUMNS = frozenset(
    {"classe", "texto", "titulo", "capitulo", "secao", "subsecao"}
    | {"artigo", "paragrafo", "inciso", "alinea"}
)
_KINDS = {"artigo": "CPT", "paragrafo": "PAR", "inciso": "INC", "alinea": "ALI"}
_EMENTA = "Constituição da República Federativa do Brasil de 1988."
_ADCT_EMENTA = "Ato das Disposições Constitucionais Transitórias da Constituição de 1988."
_ADCT_TITLE = "10"
_URN = "urn:lex:br:federal:constituicao:1988-10-05;1988"
_ROMAN = (
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
)


def roman(number: int) -> str:
    """``71`` → ``"LXXI"`` (incisos are numbered in Roman numerals)."""
    out = []
    for value, letters in _ROMAN:
        while number >= value:
            out.append(letters)
            number -= value
    return "".join(out)


def _number_with_suffix(value: str) -> tuple[int, str]:
    """``"103-A"`` → ``(103, "-A")``."""
    head, _, tail = value.partition("-")
    return int(head), f"-{tail}" if tail else ""


@dataclass(frozen=True, slots=True)
class ConstitutionLine:
    """One labelled line of the CSV: its kind, text and numbers (``""`` where not applicable)."""

    row: int
    kind: str
    text: str
    titulo: str
    capitulo: str
    secao: str
    subsecao: str
    artigo: str
    paragrafo: str
    inciso: str
    alinea: str

    @property
    def adct(self) -> bool:
        return self.titulo == _ADCT_TITLE

    @property
    def key(self) -> tuple[bool, str, str, str, str]:
        """Where the line sits: (ADCT?, artigo, parágrafo, inciso, alínea)."""
        return (self.adct, self.artigo, self.paragrafo, self.inciso, self.alinea)

    def article_label(self) -> str:
        number, suffix = _number_with_suffix(self.artigo)
        return f"Art. {number}º{suffix}" if number < 10 else f"Art. {number}{suffix}."

    def paragraph_label(self) -> str:
        if self.text.lower().startswith("parágrafo único"):
            return "Parágrafo único."
        number, suffix = _number_with_suffix(self.paragrafo)
        return f"§ {number}º{suffix}" if number < 10 else f"§ {number}{suffix}"

    def inciso_label(self) -> str:
        number, suffix = _number_with_suffix(self.inciso)
        return roman(number) + suffix

    def alinea_label(self) -> str:
        number, suffix = _number_with_suffix(self.alinea)
        return chr(ord("a") + number - 1) + suffix


def is_constitution_header(columns: Iterable[str]) -> bool:
    """True for the labelled Constitution CSV's header (``classe, texto, titulo, …``)."""
    return {c.strip().lower() for c in columns} >= _COLUMNS


def read_constitution(path: Path) -> list[ConstitutionLine]:
    """Every labelled line of the CSV, in order (``NA`` read as ``""``).

    Raises:
        DocumentError: the file cannot be read or is not the labelled Constitution CSV.
    """
    path = Path(path)
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            if not is_constitution_header(reader.fieldnames or ()):
                raise DocumentError(
                    str(path),
                    "not the labelled Constitution CSV (expected the columns "
                    f"{', '.join(sorted(_COLUMNS))})",
                )
            rows = list(reader)
    except OSError as exc:
        raise DocumentError(str(path), f"the CSV cannot be read ({exc.strerror or exc})") from exc

    def cell(row: dict[str, str], name: str) -> str:
        value = (row.get(name) or "").strip()
        return "" if value == "NA" else value

    return [
        ConstitutionLine(
            row=i,
            kind=cell(row, "classe"),
            text=" ".join((row.get("texto") or "").split()),
            titulo=cell(row, "titulo"),
            capitulo=cell(row, "capitulo"),
            secao=cell(row, "secao"),
            subsecao=cell(row, "subsecao"),
            artigo=cell(row, "artigo"),
            paragrafo=cell(row, "paragrafo"),
            inciso=cell(row, "inciso"),
            alinea=cell(row, "alinea"),
        )
        for i, row in enumerate(rows, start=2)
    ]


def _body(line: ConstitutionLine) -> str:
    """The text without the label LexML keeps apart (``Art. 71.``, ``§ 1º``, ``Parágrafo
    único.``); incisos and alíneas keep theirs (``II - …``, ``a) …``), as LexML exports do."""
    text = line.text
    if line.kind in ("artigo", "paragrafo"):
        head, _, rest = text.partition(" ")
        if line.kind == "paragrafo" and text.lower().startswith("parágrafo único"):
            return text[len("parágrafo único") :].lstrip(" .:-–")
        if head in ("Art.", "§"):
            _, _, rest = rest.partition(" ")
        return rest.strip()
    return text


def _urn_part(line: ConstitutionLine) -> str:
    parts = ["adct_" if line.adct else "", f"art{line.artigo.lower().replace('-', '')}"]
    parts.append(f"_par{line.paragrafo.lower().replace('-', '')}" if line.paragrafo else "_cpt")
    if line.inciso:
        parts.append(f"_inc{line.inciso.lower().replace('-', '')}")
    if line.alinea:
        parts.append(f"_ali{line.alinea.lower().replace('-', '')}")
    return "".join(parts)


def constitution_lexml_rows(
    lines: Iterable[ConstitutionLine],
) -> Iterator[tuple[str, dict[str, str]]]:
    """``(stem, LexML row)`` for every dispositivo: the Constitution's, then the ADCT's stem.

    Headings (título, capítulo, seção, subseção) are the context of a caput or parágrafo; an
    inciso's or alínea's context is also the text it completes (its caput, parágrafo or inciso),
    as LexML exports give it. A dispositivo labelled twice (the CSV repeats Art. 144 § 6º in an
    older wording) keeps its first line and the repeat is logged.
    """
    headings: dict[str, str] = {}
    texts: dict[tuple[bool, str, str, str, str], str] = {}
    seen: set[tuple[bool, str, str, str, str]] = set()
    for line in lines:
        if line.kind == "titartb":
            level = (
                "subsecao"
                if line.subsecao
                else "secao"
                if line.secao
                else "capitulo"
                if line.capitulo
                else "titulo"
            )
            order = ("titulo", "capitulo", "secao", "subsecao")
            for deeper in order[order.index(level) :]:
                headings.pop(deeper, None)
            headings[level] = line.text
            continue
        tipo = _KINDS.get(line.kind)
        if tipo is None or not line.artigo:
            continue
        if line.key in seen:
            logger.info("Constitution CSV row %d repeats %s; the first is kept", line.row, line.key)
            continue
        seen.add(line.key)
        stem = ADCT_STEM if line.adct else CONSTITUTION_STEM
        rotulo = [stem, line.article_label()]
        rotulo.append(line.paragraph_label() if line.paragrafo else "caput")
        if line.inciso:
            rotulo.append(f"Inciso {line.inciso_label()}")
        if line.alinea:
            rotulo.append(f"Alínea {line.alinea_label()}")
        body = _body(line)
        texts[line.key] = f"{' '.join(rotulo[1:3]).replace(' caput', '')} {body}".strip()
        context = [_ADCT_EMENTA if line.adct else _EMENTA]
        context += [
            headings[k]
            for k in ("titulo", "capitulo", "secao", "subsecao")
            if k in headings and not (line.adct and k == "titulo")
        ]
        if line.inciso or line.alinea:
            parent = (
                (line.adct, line.artigo, line.paragrafo, line.inciso, "")
                if line.alinea
                else (line.adct, line.artigo, line.paragrafo, "", "")
            )
            if parent in texts:
                context.append(texts[parent])
        yield (
            stem,
            {
                "Tipo": tipo,
                "Rotulo": ", ".join(rotulo),
                "Num_Inicio": str(line.row),
                "Num_Final": str(line.row),
                "Texto": f"[ {' | '.join(context)} | ] {body}",
                "urn": f"{_URN}!{_urn_part(line)}",
            },
        )


def write_constitution_lexml(source: Path, folder: Path) -> dict[str, int]:
    """Write ``constituicao_1988_19881005.csv`` and ``adct_1988_19881005.csv`` (LexML columns)
    into ``folder`` from the labelled CSV at ``source``; returns the rows written per file."""
    rows: dict[str, list[dict[str, str]]] = {CONSTITUTION_STEM: [], ADCT_STEM: []}
    for stem, row in constitution_lexml_rows(read_constitution(source)):
        rows[stem].append(row)
    folder.mkdir(parents=True, exist_ok=True)
    for stem, items in rows.items():
        with (folder / f"{stem}.csv").open("w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=LEXML_COLUMNS, quoting=csv.QUOTE_MINIMAL)
            writer.writeheader()
            writer.writerows(items)
    return {stem: len(items) for stem, items in rows.items()}
