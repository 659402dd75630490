"""A review out: JSON, CSV, XLSX, RIS, BibTeX (ABNT references) and an HTML report."""

from __future__ import annotations

import csv
import html
import io
import json
from pathlib import Path

from colmeia.apps.literature.records import normalize_title, person_name, screening_note
from colmeia.apps.literature.review import Review, ReviewedWork, prisma_counts
from colmeia.apps.literature.schemas import RELEVANCE_LEVELS, CitedText
from colmeia.errors import ConfigurationError
from colmeia.spreadsheet import csv_cell, xlsx_text_cells, xlsx_value

__all__ = ["FORMATS", "abnt_reference", "export_review", "html_report"]

FORMATS = ("json", "csv", "xlsx", "ris", "bib", "html")
_DEGREE = {"Tese": "Doutorado", "Dissertação": "Mestrado"}


def _abnt_author(name: str) -> str:
    name = " ".join(name.split())
    if not name:
        return ""
    if "," in name:
        last, first = (x.strip() for x in name.split(",", 1))
        return f"{last.upper()}, {first}"
    parts = name.split()
    if len(parts) == 1:
        return parts[0].upper()
    return f"{parts[-1].upper()}, {' '.join(parts[:-1])}"


# Words an institution's name keeps in lower case ("Universidade Federal de Goiás"): catalogues
# often write every word capitalised ("Federal De Goiás") or in capitals.
_PARTICLES = {"de", "da", "do", "das", "dos", "e", "em", "na", "no", "para", "del", "la", "y"}


def _institution(name: str) -> str:
    words = " ".join(name.split()).split(" ")
    # A name written all in capitals has short words that are no acronyms ("GOIÁS", "RIO"):
    # there, only a word in parentheses or after a dash is one ("(UFG)", "- PUCRS"). In a name
    # written in mixed case, such a word is one too ("(UFPR)", "– UNIRIO"), and so is any
    # short word in capitals ("USP"); a longer one is a shouted word ("PARANÁ").
    shouting = name.isupper()
    out = []
    for i, word in enumerate(words):
        low = word.lower()
        marked = word.startswith("(") or (i > 0 and words[i - 1] in ("-", "–", "—"))
        if i and low in _PARTICLES:
            out.append(low)
        elif word.isupper() and i and (marked or (not shouting and len(word) <= 5)):
            out.append(word)  # an acronym: UFG, PUC, USP
        else:
            out.append(word[:1].upper() + word[1:].lower() if word.isupper() else word)
    return " ".join(out)


def abnt_reference(w: ReviewedWork) -> str:
    """The work as an ABNT NBR 6023 reference (theses and dissertations as such)."""
    authors = "; ".join(a for a in (_abnt_author(x) for x in w.authors[:3]) if a)
    if len(w.authors) > 3:
        authors += " et al"
    year = str(w.year) if w.year else "[s.d.]"
    parts = [f"{authors}." if authors else "", f"{w.title.rstrip('.')}.", f"{year}."]
    degree = _DEGREE.get(w.doc_type)
    if degree:
        program = f" em {w.program.strip()}" if w.program.strip() else ""
        where = f" – {_institution(w.institution)}" if w.institution.strip() else ""
        parts.append(f"{w.doc_type} ({degree}{program}){where}, {year}.")
    elif w.doc_type:
        parts.append(f"{w.doc_type}.")
    if w.doi:
        parts.append(f"DOI: {w.doi}.")
    if w.links:
        parts.append(f"Disponível em: {w.links[0]}.")
    return " ".join(p for p in parts if p)


def _field(w: ReviewedWork, value: CitedText | None) -> str:
    if value is None:
        return ""
    cites = w.cited_pages(value)
    return value.text + (f" [{'; '.join(cites)}]" if cites else "")


def _rows(review: Review) -> list[dict[str, object]]:
    return [
        {
            "rank": w.rank,
            "id": w.doc_id,
            "title": w.title,
            "authors": "; ".join(w.authors),
            "year": w.year or "",
            "type": w.doc_type,
            "program": w.program,
            "relevance": w.relevance,
            "why": w.why,
            "summary": _field(w, w.summary),
            "objectives": _field(w, w.objectives),
            "conclusions": _field(w, w.conclusions),
            "screening": w.screening.decision,
            "reason": w.screening.reason,
            "notes": w.screening.notes,
            **_stage_columns(w),
            "reference": abnt_reference(w),
            "mode": w.mode,
            "warnings": " | ".join(w.warnings),
            **{c["name"]: _field(w, w.columns.get(c["name"])) for c in review.columns},
        }
        for w in review.works
    ]


_STAGE_COLUMNS = {"title_abstract": "ta", "full_text": "ft"}


def _stage_columns(w: ReviewedWork) -> dict[str, object]:
    """Each stage's decision, reason, notes, who and when as columns (``ta_*`` for title and
    abstract, ``ft_*`` for full text): a spreadsheet sorts and filters on them."""
    out: dict[str, object] = {}
    for stage, prefix in _STAGE_COLUMNS.items():
        d = w.decisions.get(stage)
        for name in ("decision", "reason", "notes", "who", "at"):
            out[f"{prefix}_{name}"] = getattr(d, name) if d is not None else ""
    return out


def _decision_notes(w: ReviewedWork) -> list[str]:
    """One note per stage screened (the library's decisions), else the review's own."""
    if w.decisions:
        return [
            screening_note(d.decision, d.reason, d.notes, stage=stage, who=d.who, at=d.at)
            for stage, d in w.decisions.items()
        ]
    s = w.screening
    if s.decision != "pending" or s.reason or s.notes:
        return [screening_note(s.decision, s.reason, s.notes, who=s.who, at=s.at)]
    return []


def _notes(w: ReviewedWork) -> list[str]:
    """What RIS (N1) and BibTeX (``note``/``annote``) carry besides the record: each stage's
    screening decision in the note :func:`~colmeia.apps.literature.records.parse_screening`
    reads back, the relevance the review gave, the ABNT reference."""
    out = _decision_notes(w)
    if w.relevance:
        out.append(
            f"Relevância: {w.relevance}" + (f" — {' '.join(w.why.split())}" if w.why else "")
        )
    out.append(f"Referência ABNT: {abnt_reference(w)}")
    return out


def _ris(review: Review) -> str:
    import rispy

    entries = []
    for w in review.works:
        entry: dict[str, object] = {
            "type_of_reference": "THES" if w.doc_type in _DEGREE else "GEN",
            "title": w.title,
            "authors": [person_name(a) for a in w.authors],
            "year": str(w.year or ""),
            "abstract": w.abstract,
            "keywords": w.keywords,
            "urls": w.links,
            "notes": _notes(w),
        }
        if w.doi:
            entry["doi"] = w.doi
        if w.doc_type:
            entry["type_of_work"] = w.doc_type
        if w.institution:
            entry["publisher"] = w.institution
        if w.program:
            entry["custom1"] = w.program
        entries.append(entry)

    class Writer(rispy.RisWriter):  # type: ignore[misc]
        def set_header(self, count: int) -> str:
            return ""  # rispy numbers records ("1."), a line RIS does not have

    return str(rispy.dumps(entries, implementation=Writer))


# Characters LaTeX (and so pylatexenc, which reads the file back) gives a meaning to: escaped,
# so "50% dos docentes" is not read as "50" and a comment.
_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex(text: str) -> str:
    """A value for a BibTeX field: UTF-8 kept (BibLaTeX, Zotero and JabRef read it), LaTeX's
    special characters escaped."""
    return "".join(_LATEX_SPECIALS.get(c, c) for c in text)


def _bib_key(w: ReviewedWork, used: set[str]) -> str:
    first = person_name(w.authors[0]).split(",")[0] if w.authors else ""  # the surname
    base = normalize_title(first).replace(" ", "") or "anon"
    key = f"{base}{w.year or ''}"
    n = 1
    while key in used:
        n += 1
        key = f"{base}{w.year or ''}{chr(96 + n)}"
    used.add(key)
    return key


def _bibtex(review: Review) -> str:
    from bibtexparser.entrypoint import write_string
    from bibtexparser.library import Library
    from bibtexparser.model import Entry, Field

    lib = Library()
    used: set[str] = set()
    for w in review.works:
        kind = {"Tese": "phdthesis", "Dissertação": "mastersthesis"}.get(w.doc_type, "misc")
        values: list[tuple[str, str]] = [
            ("title", w.title),
            ("author", " and ".join(person_name(a) for a in w.authors)),
            ("year", str(w.year or "")),
            ("type", w.doc_type if kind == "misc" else ""),
            ("school", w.institution),
            ("program", w.program),
            ("doi", w.doi),
            ("url", w.links[0] if w.links else ""),
            ("links", " ".join(w.links[1:])),
            ("abstract", w.abstract),
            ("keywords", "; ".join(w.keywords)),
        ]
        screening = _decision_notes(w)
        values.append(("note", "\n".join(screening)))
        values.append(("annote", "\n".join(_notes(w)[len(screening) :])))
        fields = [Field(k, _latex(v)) for k, v in values if v]
        lib.add(Entry(kind, _bib_key(w, used), fields))
    return str(write_string(lib))


def export_review(review: Review, path: Path) -> Path:
    """Write ``review`` in the format its suffix names (see :data:`FORMATS`)."""
    fmt = path.suffix.lower().lstrip(".")
    fmt = "bib" if fmt == "bibtex" else fmt
    if fmt not in FORMATS:
        raise ConfigurationError(f"unknown export format .{fmt}; use one of {', '.join(FORMATS)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "json":
        return review.save(path)
    if fmt == "html":
        return html_report(review, path)
    if fmt == "csv":
        buf = io.StringIO()
        rows = _rows(review)
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else ["rank"])
        writer.writeheader()
        writer.writerows({k: csv_cell(v) for k, v in r.items()} for r in rows)
        path.write_text(buf.getvalue(), encoding="utf-8")
    elif fmt == "xlsx":
        from openpyxl import Workbook

        wb = Workbook()
        ws = wb.active
        ws.title = "review"
        rows = _rows(review)
        ws.append(list(rows[0]) if rows else ["rank"])
        for r in rows:
            ws.append([xlsx_value(str(v) if not isinstance(v, int) else v) for v in r.values()])
        info = wb.create_sheet("prisma")
        for k, v in prisma_counts(review).items():
            info.append([k, json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else v])
        if review.library_prisma:  # the whole library's screening, beside the review's
            lib = wb.create_sheet("prisma (library)")
            for k, v in review.library_prisma.items():
                lib.append([k, json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else v])
            xlsx_text_cells(lib)
        xlsx_text_cells(ws)
        xlsx_text_cells(info)
        wb.save(path)
    elif fmt == "ris":
        path.write_text(_ris(review), encoding="utf-8")
    else:
        path.write_text(_bibtex(review), encoding="utf-8")
    return path


def _cited_html(w: ReviewedWork, value: CitedText | None) -> str:
    if value is None:
        return ""
    by_id = {p.id: p for p in w.passages}
    cites = []
    for pid in value.passages:
        p = by_id.get(pid)
        if p is None:
            continue
        page = f", p. {p.pages}" if p.pages else ""
        cites.append(
            f'<details class="cite"><summary>{pid}{html.escape(page)}</summary>'
            f"<blockquote>{html.escape(p.text)}</blockquote></details>"
        )
    return f"<p>{html.escape(value.text)}</p>{''.join(cites)}"


def html_report(review: Review, path: Path) -> Path:
    """An HTML page: PRISMA counts, a relevance plot, and the ranked works with the four
    fields and citations that open on the passage and its printed page."""
    from colmeia.eval.report import HtmlReport, bar_figure

    report = HtmlReport(f"Revisão: {review.question}")
    simulated = "sim" in review.model.lower()
    report.paragraph(
        f"Coleção {review.collection}; {len(review.works)} trabalhos; "
        + (f"modelo {review.model}" if review.model else "sem modelo: campos extrativos")
        + (" (modelo simulado: texto de teste, não uma leitura real)" if simulated else ""),
        note=True,
    )
    counts = prisma_counts(review)
    report.heading("Fluxo (PRISMA)")
    report.metrics({k: v for k, v in counts.items() if not isinstance(v, dict)})
    if review.library_prisma:
        report.heading("Triagem da biblioteca (PRISMA)")
        report.metrics({k: v for k, v in review.library_prisma.items() if not isinstance(v, dict)})
    levels = list(RELEVANCE_LEVELS)
    values = [sum(1 for w in review.works if w.relevance == lv) for lv in levels]
    # The counts are in the caption too: the image's alt text, and what a reader can copy.
    caption = "Trabalhos por nível: " + ", ".join(
        f"{lv} {n}" for lv, n in zip(levels, values, strict=True)
    )
    report.figure("relevance", bar_figure(levels, values, title="Relevância"), caption)
    report.heading("Trabalhos")
    for w in review.works:
        head = f"{w.rank}. {html.escape(w.title)}"
        meta = html.escape(abnt_reference(w))
        warn = "".join(f'<p class="note">⚠ {html.escape(x)}</p>' for x in w.warnings)
        report.html(
            f'<section class="work"><h3>{head}</h3><p class="note">{meta}</p>'
            f"<p><b>Relevância:</b> {html.escape(w.relevance)} — {html.escape(w.why)}</p>"
            f"<h4>Resumo</h4>{_cited_html(w, w.summary)}"
            f"<h4>Objetivos</h4>{_cited_html(w, w.objectives)}"
            f"<h4>Conclusões</h4>{_cited_html(w, w.conclusions)}"
            + "".join(
                f"<h4>{html.escape(c['name'])}</h4>{_cited_html(w, w.columns.get(c['name']))}"
                for c in review.columns
            )
            + f'<p class="note">triagem: {html.escape(w.screening.decision)}'
            f"{' — ' + html.escape(w.screening.reason) if w.screening.reason else ''}</p>{warn}"
            "</section>"
        )
    return report.write(path.parent, path.name)
