"""Bibliographic records: one per work, read from RIS, BibTeX or CSV catalogue exports.

RIS goes through ``rispy`` (catalogue, EndNote and Zotero exports), BibTeX through
``bibtexparser``, CSV through the standard library with the CAPES catalogue's column names
(and common English ones) recognised. What every reader gives back is the same: authors as
"Last, First", keywords one per item (the CAPES ``['Escola', 'sem', 'Partido;Discurso']`` list
text included), LaTeX accents decoded (``Forma\\c{c}\\~ao`` → ``Formação``, by bibtexparser's
pylatexenc middleware), line breaks inside a field kept as line breaks (never glued words), and
a screening decision written by :func:`screening_note` read back into the record. Records of one work found twice (the same DOI or handle,
or the same title once accents, case and punctuation are set aside) are merged: the first keeps
its fields and gains what the others add. A record that cannot be read is reported with its
file and position, never dropped silently.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from colmeia.apps.literature.decision_notes import (
    CarriedDecision,
    parse_decisions,
    parse_screening,
    screening_note,
)
from colmeia.errors import ConfigurationError

__all__ = [
    "ImportReport",
    "Record",
    "RecordProblem",
    "dedupe",
    "load_records",
    "normalize_title",
    "parse_screening",
    "person_name",
    "read_bibtex",
    "read_csv",
    "read_ris",
    "screening_note",
]

_DOI_RE = re.compile(r"10\.\d{4,9}/[^\s\"<>]+", re.IGNORECASE)
_HANDLE_RE = re.compile(r"(?:hdl\.handle\.net/|/handle/)(\d+(?:\.\d+)*/\d+)", re.IGNORECASE)
_YEAR_RE = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_PUNCT_RE = re.compile(r"[^\w\s]")

# Record type → the words the review and the ABNT references use.
_TYPES = {
    "thes": "Tese",
    "tese": "Tese",
    "phdthesis": "Tese",
    "doutorado": "Tese",
    "dissertacao": "Dissertação",
    "mastersthesis": "Dissertação",
    "mestrado": "Dissertação",
    "jour": "Artigo",
    "article": "Artigo",
    "artigo": "Artigo",
    "book": "Livro",
    "livro": "Livro",
    "chap": "Capítulo",
    "incollection": "Capítulo",
    "conf": "Trabalho em evento",
    "cpaper": "Trabalho em evento",
    "inproceedings": "Trabalho em evento",
    "rprt": "Relatório",
    "techreport": "Relatório",
}


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def normalize_title(title: str) -> str:
    """Title key for duplicate detection: no accents, case, punctuation or extra spaces."""
    return " ".join(_PUNCT_RE.sub(" ", _fold(title)).split())


def _doc_type(raw: str, *hints: str) -> str:
    key = _fold(raw).strip().replace(" ", "")
    for k, v in _TYPES.items():
        if key.startswith(k):
            if v == "Tese" and any("mestrado" in _fold(h) or "master" in _fold(h) for h in hints):
                return "Dissertação"
            return v
    return raw.strip().title() if raw.strip() else ""


def _year(*values: str) -> int | None:
    for value in values:
        if m := _YEAR_RE.search(value or ""):
            return int(m.group(1))
    return None


def _clean(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        value = "; ".join(str(v) for v in value if v)
    return " ".join(str(value).split())


def _clean_lines(value: Any) -> str:
    """Spaces tidied inside each line, line breaks kept and a run of blank lines kept as one
    (the blank line between an abstract's paragraphs): ``"aqui\\nSegunda"`` stays two words
    on two lines."""
    if value is None:
        return ""
    if isinstance(value, list):
        value = "\n".join(str(v) for v in value if v)
    lines = [" ".join(line.split()) for line in str(value).splitlines()]
    text = "\n".join(lines).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text)


# Family-name suffixes that belong with the surname ("SILVA JÚNIOR, João", ABNT NBR 6023).
_NAME_SUFFIXES = {"junior", "júnior", "jr", "jr.", "filho", "filha", "neto", "neta", "sobrinho"}


def person_name(name: str) -> str:
    """A person as "Last, First": "Isabella Bruna Lemes Pereira" → "Pereira, Isabella Bruna
    Lemes", "João da Silva Filho" → "Silva Filho, João da"; a name that already has its
    comma, or a single word, is kept (spaces tidied)."""
    name = " ".join(name.split()).strip(" ,;")
    if not name or "," in name:
        return ", ".join(part.strip() for part in name.split(",", 1)) if name else ""
    parts = name.split(" ")
    if len(parts) == 1:
        return name
    cut = len(parts) - 1
    if parts[-1].lower() in _NAME_SUFFIXES and len(parts) > 2:
        cut -= 1
    return f"{' '.join(parts[cut:])}, {' '.join(parts[:cut])}"


@dataclass(slots=True)
class Record:
    """One work as the catalogue describes it."""

    title: str
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    doc_type: str = ""
    program: str = ""
    institution: str = ""
    abstract: str = ""
    keywords: list[str] = field(default_factory=list)
    doi: str = ""
    handle: str = ""
    links: list[str] = field(default_factory=list)
    source: str = ""  # "file.ris: record 3"
    extra: dict[str, str] = field(default_factory=dict)
    id: str = ""
    # A screening decision carried by the file (a colmeia export read back): include,
    # exclude or pending, with its reason and notes; "" when the file had none.
    screening: str = ""
    screening_reason: str = ""
    screening_notes: str = ""
    # Every stage's decision the file carries (with who and when): what a re-import merges.
    decisions: list[CarriedDecision] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.doi:
            for text in (*self.links, self.extra.get("doi", "")):
                if m := _DOI_RE.search(text):
                    self.doi = m.group(0).rstrip(".,;")
                    break
        if not self.handle:
            for link in self.links:
                if m := _HANDLE_RE.search(link):
                    self.handle = m.group(1)
                    break
        if not self.id:
            self.id = self.make_id()

    def make_id(self) -> str:
        """A stable id: the DOI, the handle, or a hash of the normalised title and year."""
        if self.doi:
            return f"doi:{self.doi.lower()}"
        if self.handle:
            return f"hdl:{self.handle}"
        key = f"{normalize_title(self.title)}|{self.year or ''}"
        return "rec:" + hashlib.sha256(key.encode()).hexdigest()[:16]

    def dedupe_keys(self) -> list[str]:
        """What identifies the work for duplicate detection."""
        out = []
        if self.doi:
            out.append("doi:" + self.doi.lower())
        if self.handle:
            out.append("hdl:" + self.handle)
        title = normalize_title(self.title)
        if len(title) >= 12:
            out.append("title:" + title)
        return out

    def merge(self, other: Record) -> None:
        """Fill what this record lacks from a duplicate of it."""
        for name in (
            "year",
            "doc_type",
            "program",
            "institution",
            "abstract",
            "doi",
            "handle",
            "screening",
            "screening_reason",
            "screening_notes",
        ):
            if not getattr(self, name) and getattr(other, name):
                setattr(self, name, getattr(other, name))
        if not self.decisions:
            self.decisions = list(other.decisions)
        if not self.authors:
            self.authors = list(other.authors)
        self.keywords += [k for k in other.keywords if k not in self.keywords]
        self.links += [u for u in other.links if u not in self.links]
        for k, v in other.extra.items():
            self.extra.setdefault(k, v)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "authors": self.authors,
            "year": self.year,
            "type": self.doc_type,
            "program": self.program,
            "institution": self.institution,
            "abstract": self.abstract,
            "keywords": self.keywords,
            "doi": self.doi,
            "handle": self.handle,
            "links": self.links,
            "source": self.source,
            "screening": self.screening,
            "screening_reason": self.screening_reason,
            "screening_notes": self.screening_notes,
        }


@dataclass(slots=True)
class RecordProblem:
    """A record that could not be used, and why."""

    source: str
    reason: str


@dataclass(slots=True)
class ImportReport:
    """Records read, duplicates merged, problems found."""

    records: list[Record] = field(default_factory=list)
    read: int = 0
    duplicates: int = 0
    problems: list[RecordProblem] = field(default_factory=list)


def _split_keywords(value: Any) -> list[str]:
    """Keywords one per item. A list (RIS ``KW`` lines) is kept as given; text is split at
    ``;`` (or at commas and line breaks when it has no ``;``). CAPES exports keep them as a
    Python list of words with ``;`` between keywords — ``['Escola', 'sem', 'Partido;Discurso']``
    — which is read as the text it spells: ``Escola sem Partido; Discurso``."""
    if isinstance(value, list):
        items = [str(v) for v in value]
    else:
        text = str(value or "").strip()
        if text.startswith("[") and text.endswith("]"):
            try:
                words = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                words = None
            if isinstance(words, list | tuple):
                text = " ".join(str(w) for w in words)
        items = re.split(r";" if ";" in text else r"[,\n]", text)
    out: list[str] = []
    for k in items:
        k = " ".join(k.split()).strip(" .")
        if k and k not in out:
            out.append(k)
    return out


def _screening_from(
    notes: Sequence[str],
) -> tuple[tuple[str, str, str], list[CarriedDecision]]:
    """The decisions among a record's notes: the title/abstract one as (decision, reason,
    notes), and every stage's."""
    found = [d for note in notes for d in parse_decisions(str(note))]
    first = next((d for d in found if d.stage == "title_abstract"), None)
    head = (first.decision, first.reason, first.notes) if first else ("", "", "")
    return head, found


def _ris_parser() -> Any:
    """rispy's parser with a field's continuation lines kept on their own lines (rispy joins
    them with a space, and a list field's continuation would become a new item)."""
    import rispy

    class Parser(rispy.RisParser):  # type: ignore[misc]
        def _add_tag(
            self, record: dict[str, Any], tag: str, content: str, extend_multiline: bool = False
        ) -> None:
            name = self.mapping.get(tag)
            have = record.get(name) if name else None
            if extend_multiline and isinstance(have, str):
                record[name] = f"{have}\n{content}"
            elif extend_multiline and isinstance(have, list) and have:
                have[-1] = f"{have[-1]}\n{content}"
            else:
                super()._add_tag(record, tag, content, extend_multiline)

    return Parser


def read_ris(path: Path) -> tuple[list[Record], list[RecordProblem]]:
    """Records of a RIS file (catalogue, EndNote, Zotero)."""
    import rispy

    text = _read_text(path)
    try:
        entries = rispy.loads(text, implementation=_ris_parser(), skip_unknown_tags=True)
    except (ValueError, TypeError, KeyError) as exc:
        raise ConfigurationError(f"{path}: not a RIS file that can be read ({exc})") from exc
    records: list[Record] = []
    problems: list[RecordProblem] = []
    for i, e in enumerate(entries, start=1):
        where = f"{path.name}: record {i}"
        title = _clean(e.get("title") or e.get("primary_title") or e.get("translated_title"))
        if not title:
            problems.append(RecordProblem(where, "no title (TI/T1)"))
            continue
        authors = [
            person_name(_clean(a)) for a in (e.get("authors") or e.get("first_authors") or [])
        ]
        work = _clean(e.get("type_of_work") or e.get("custom3"))
        (decision, reason, notes), carried = _screening_from(e.get("notes") or [])
        records.append(
            Record(
                title=title,
                authors=[a for a in authors if a],
                year=_year(_clean(e.get("year")), _clean(e.get("date"))),
                doc_type=_doc_type(work or _clean(e.get("type_of_reference")), work),
                program=_clean(e.get("custom1") or e.get("section")),
                institution=_clean(e.get("publisher") or e.get("author_address")),
                abstract=_clean_lines(e.get("abstract") or e.get("notes_abstract")),
                keywords=_split_keywords(
                    [k for kw in e.get("keywords") or [] for k in _split_keywords(kw)]
                ),
                doi=_clean(e.get("doi")),
                links=[_clean(u) for u in e.get("urls") or [] if u]
                + [_clean(u) for u in e.get("file_attachments1") or [] if u],
                source=where,
                screening=decision,
                screening_reason=reason,
                screening_notes=notes,
                decisions=carried,
            )
        )
    return records, problems


def read_bibtex(path: Path) -> tuple[list[Record], list[RecordProblem]]:
    """Records of a BibTeX file; blocks the parser cannot read are reported. LaTeX in the
    values (``Forma\\c{c}\\~ao``, ``{\\'e}``, ``50\\%``) is decoded by bibtexparser's
    pylatexenc middleware, protective braces (``{P}rofessores``) removed."""
    from bibtexparser.entrypoint import parse_string
    from bibtexparser.middlewares import LatexDecodingMiddleware

    library = parse_string(_read_text(path), append_middleware=[LatexDecodingMiddleware()])
    records: list[Record] = []
    problems = [
        RecordProblem(f"{path.name}: line {getattr(b, 'start_line', '?')}", "unreadable BibTeX")
        for b in library.failed_blocks
    ]
    for e in library.entries:
        raw = {k.lower(): str(f.value) for k, f in e.fields_dict.items()}
        fields = {k: _clean(v).replace("{", "").replace("}", "") for k, v in raw.items()}
        where = f"{path.name}: @{e.entry_type}{{{e.key}}}"
        title = fields.get("title", "")
        if not title:
            problems.append(RecordProblem(where, "no title field"))
            continue
        authors = [person_name(a) for a in fields.get("author", "").split(" and ") if a.strip()]
        links = [fields[k] for k in ("url", "pdf", "file") if fields.get(k)]
        links += [u for u in fields.get("links", "").split() if u not in links]
        (decision, reason, notes), carried = _screening_from([raw.get("note", "")])
        records.append(
            Record(
                title=title,
                authors=authors,
                year=_year(fields.get("year", ""), fields.get("date", "")),
                doc_type=_doc_type(e.entry_type, fields.get("type", "")),
                program=fields.get("program", "") or fields.get("department", ""),
                institution=fields.get("school", "") or fields.get("institution", ""),
                abstract=_clean_lines(raw.get("abstract", "").replace("{", "").replace("}", "")),
                keywords=_split_keywords(fields.get("keywords", "")),
                doi=fields.get("doi", ""),
                links=links,
                source=where,
                screening=decision,
                screening_reason=reason,
                screening_notes=notes,
                decisions=carried,
            )
        )
    return records, problems


_CSV_NAMES: dict[str, tuple[str, ...]] = {
    "title": ("titulo", "title", "título"),
    "authors": ("autor", "autores", "author", "authors"),
    "date": ("defesa", "data", "data_defesa", "date", "ano", "year"),
    "type": ("tipo", "type", "nivel", "grau"),
    "program": ("programa", "program", "programa_pos"),
    "institution": ("ies", "instituicao", "institution", "universidade"),
    "abstract": ("resumo", "abstract"),
    "keywords": ("keywords", "palavras_chave", "palavras-chave", "palavraschave"),
    "doi": ("doi",),
    "link": ("link_trabalho", "link", "url", "links"),
}


def read_csv(path: Path) -> tuple[list[Record], list[RecordProblem]]:
    """Records of a CSV catalogue (CAPES columns: Titulo, Autor, Tipo, Defesa, Resumo, …)."""
    text = _read_text(path)
    # A StringIO, not splitlines(): a quoted field's line breaks belong to the field (an
    # abstract in paragraphs), and splitting the text first glued its lines ("aquiSegunda").
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h or "" for h in reader.fieldnames or []]
    folded = {_fold(h).strip(): h for h in header}
    cols = {
        k: next((folded[n] for n in names if n in folded), None) for k, names in _CSV_NAMES.items()
    }
    if cols["title"] is None:
        raise ConfigurationError(
            f"{path}: no title column (looked for Titulo/Title); the header has: {', '.join(header)}"
        )
    used = {c for c in cols.values() if c}
    records: list[Record] = []
    problems: list[RecordProblem] = []
    # The line a row starts on (a quoted field may span lines): where a user looks for it.
    starts = reader.line_num
    for row in reader:
        i, starts = starts + 1, reader.line_num
        if None in row:
            problems.append(RecordProblem(f"{path.name}: line {i}", "more fields than the header"))
            continue

        def get(key: str, row: dict[str, Any] = row) -> str:
            col = cols[key]
            return _clean(row.get(col)) if col else ""

        def get_lines(key: str, row: dict[str, Any] = row) -> str:
            col = cols[key]
            return _clean_lines(row.get(col)) if col else ""

        title = get("title")
        if not title:
            problems.append(RecordProblem(f"{path.name}: line {i}", "empty title"))
            continue
        links = [u for u in re.split(r"\s*[;|]\s*|\s+", get("link")) if u]
        records.append(
            Record(
                title=title,
                authors=[person_name(a) for a in get("authors").split(";") if a.strip()],
                year=_year(get("date")) or _date_year(get("date")),
                doc_type=_doc_type(get("type")),
                program=get("program"),
                institution=get("institution"),
                abstract=get_lines("abstract"),
                keywords=_split_keywords(get_lines("keywords")),
                doi=get("doi"),
                links=links,
                source=f"{path.name}: line {i}",
                extra={h: _clean(v) for h, v in row.items() if h and h not in used and v},
            )
        )
    return records, problems


def _date_year(value: str) -> int | None:
    for fmt in ("%d/%m/%Y", "%Y-%m-%d", "%d/%m/%y"):
        try:
            return datetime.strptime(value, fmt).year
        except ValueError:
            continue
    return None


def _read_text(path: Path) -> str:
    from colmeia.rag.ingest._common import decode_bytes

    try:
        return decode_bytes(path.read_bytes())
    except OSError as exc:
        raise ConfigurationError(f"cannot read {path}: {exc.strerror or exc}") from exc


_READERS = {".ris": read_ris, ".bib": read_bibtex, ".bibtex": read_bibtex, ".csv": read_csv}


def dedupe(records: Iterable[Record]) -> tuple[list[Record], int]:
    """Merge records of the same work (DOI, handle or normalised title); returns the kept
    records, in first-seen order, and how many duplicates were merged into them."""
    kept: list[Record] = []
    by_key: dict[str, Record] = {}
    merged = 0
    for rec in records:
        first = next((by_key[k] for k in rec.dedupe_keys() if k in by_key), None)
        if first is not None and (not first.year or not rec.year or first.year == rec.year):
            first.merge(rec)
            merged += 1
            for k in rec.dedupe_keys():
                by_key.setdefault(k, first)
            continue
        kept.append(rec)
        for k in rec.dedupe_keys():
            by_key.setdefault(k, rec)
    return kept, merged


def load_records(paths: Sequence[Path]) -> ImportReport:
    """Read every file (by suffix: .ris, .bib, .csv) and merge duplicate works."""
    report = ImportReport()
    everything: list[Record] = []
    for path in paths:
        reader = _READERS.get(path.suffix.lower())
        if reader is None:
            report.problems.append(
                RecordProblem(str(path), "unknown format; give .ris, .bib or .csv exports")
            )
            continue
        try:
            records, problems = reader(path)
        except ConfigurationError as exc:
            report.problems.append(RecordProblem(str(path), str(exc)))
            continue
        report.read += len(records)
        everything.extend(records)
        report.problems.extend(problems)
    report.records, report.duplicates = dedupe(everything)
    return report
