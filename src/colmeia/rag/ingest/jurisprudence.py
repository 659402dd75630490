"""Court decisions as citable records: JurisTCU statements with their decision's number, year,
collegiate body, rapporteur, area and theme.

A statement of the TCU's *Jurisprudência Selecionada* comes from one decision
("Acórdão 1613/2013 - Plenário", rapporteur José Jorge, area Licitação, theme Pregão). Each
becomes one record whose citation path is the decision, as a court writes it —
``"Acórdão 1613/2013-Plenário, rel. Min. José Jorge"`` —, whose heading holds the area and theme
(so the words of both are searched), and whose metadata holds each field for filtering and
display (``number``, ``year``, ``colegiado``, ``relator``, ``area``, ``tema``, ``subtema``).

Two layouts are read:

* the full JurisTCU export (``ID, TEXT, NORMATIVE_IDENTIFICATION, NORMATIVE_DATE,
  NORMATIVE_AUTHOR_NAME, AREA_NAME, …``) or a court's own export with Portuguese column names
  (``NUMACORDAO, ANOACORDAO, COLEGIADO, RELATOR, AREA, TEMA, SUBTEMA``);
* the statements alone (``DOC_ID, TEXT``: the 1,651 judged statements shipped in
  ``data/juristcu``): a súmula is cited by its number (``"Súmula TCU 283"``), any other
  statement by its key in the court's search (``"Jurisprudência Selecionada do TCU,
  enunciado 13611"``), since the decision is not in the file.

:func:`parse_decision_reference` reads a decision named in a question ("Acórdão 1234/2019 -
Plenário", "AC 1.234/2019-TCU-1ª Câmara", "acórdão nº 1234 de 2019") so retrieval can return
that decision first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colmeia.errors import DocumentError
from colmeia.rag.index.lexical import fold_accents
from colmeia.rag.ingest._common import hash_text, normalize_text
from colmeia.rag.ingest.csv_records import read_csv_sample
from colmeia.rag.types import ExtractedDocument, Page

__all__ = [
    "DECISION_DOC_TYPE",
    "DecisionRef",
    "decision_matches",
    "has_decision_columns",
    "is_jurisprudence_header",
    "iter_jurisprudence",
    "parse_decision_reference",
    "references",
]

DECISION_DOC_TYPE = "Jurisprudência"

# Column names of each field, in the JurisTCU export and in a court's own (folded, lower case).
_COLUMNS: dict[str, tuple[str, ...]] = {
    "id": ("id", "doc_id", "key", "chave", "numero_enunciado"),
    "text": ("text", "texto", "enunciado"),
    "reference": ("normative_identification", "acordao", "decisao", "referencia_decisao"),
    "number": ("numacordao", "numero_acordao", "num_acordao", "numero"),
    "year": ("anoacordao", "ano_acordao", "ano"),
    "colegiado": ("colegiado", "orgao_julgador"),
    "date": ("normative_date", "data_sessao", "data"),
    "relator": ("normative_author_name", "relator", "ministro_relator"),
    "area": ("area_name", "area"),
    "tema": ("tema", "theme", "theme_name"),
    "subtema": ("subtema", "subtheme", "subtheme_name"),
    "kind": ("paradigmatic", "tipo", "tipo_enunciado"),
}
_DECISION_FIELDS = ("reference", "number", "relator", "area", "tema")

_COLEGIADOS = {
    "plenario": "Plenário",
    "primeira camara": "1ª Câmara",
    "1a camara": "1ª Câmara",
    "1 camara": "1ª Câmara",
    "segunda camara": "2ª Câmara",
    "2a camara": "2ª Câmara",
    "2 camara": "2ª Câmara",
}
_COLEGIADO_RE = r"(plenario|primeira camara|segunda camara|[12]\s*[ao]?\s*camara)"
_REF_RE = re.compile(
    r"\b(?:acordaos?|ac)\s*(?:n[.ºo°]?\s*|numero\s*)?(?P<number>\d{1,2}\.\d{3}|\d{1,5})"
    r"\s*(?:/|\bde\s+)\s*(?P<year>(?:19|20)\d{2})"
    rf"(?:\s*[-–—,]?\s*(?:tcu\s*[-–—,]?\s*)?{_COLEGIADO_RE})?",
)
_MARKUP = re.compile(r"</?[a-z][a-z_]*(?:\s[^<>]*)?>")
_SUMULA_RE = re.compile(r"^S[ÚU]MULA\s+(?:TCU\s+)?(?:N[ºo°.]\s*)?(\d+)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class DecisionRef:
    """A decision as it is cited: ``Acórdão 1234/2019-Plenário``."""

    number: str
    year: str
    colegiado: str = ""

    def label(self) -> str:
        head = f"Acórdão {self.number}/{self.year}"
        return f"{head}-{self.colegiado}" if self.colegiado else head


def _fold(text: str) -> str:
    return " ".join(fold_accents(text.lower()).replace("ª", "a").replace("º", "o").split())


def _colegiado(text: str) -> str:
    folded = re.sub(r"\s+", " ", _fold(text).replace("ª", "a"))
    folded = re.sub(r"^([12])\s*[ao]?\s*camara$", r"\1a camara", folded)
    return _COLEGIADOS.get(folded, text.strip())


def parse_decision_reference(text: str) -> DecisionRef | None:
    """The first decision a text names (``"Acórdão 1.234/2019 – TCU – 1ª Câmara"`` →
    ``DecisionRef("1234", "2019", "1ª Câmara")``), else None."""
    m = _REF_RE.search(_fold(text))
    if m is None:
        return None
    col = m.group(m.lastindex) if m.lastindex and m.lastindex > 2 else None
    return DecisionRef(
        m.group("number").replace(".", ""), m.group("year"), _colegiado(col) if col else ""
    )


def _relator(name: str) -> str:
    """``"JOSÉ JORGE"`` → ``"José Jorge"`` (exports write names in capitals)."""
    small = {"de", "da", "do", "dos", "das", "e"}
    words = name.split()
    if not words or not name.isupper():
        return " ".join(words)
    return " ".join(
        w.lower() if i and w.lower() in small else w.capitalize() for i, w in enumerate(words)
    )


def _columns(header: Sequence[str]) -> dict[str, str]:
    folded = {_fold(h).replace(" ", "_"): h for h in header}
    found: dict[str, str] = {}
    for name, aliases in _COLUMNS.items():
        for alias in aliases:
            if alias in folded:
                found[name] = folded[alias]
                break
    return found


def is_jurisprudence_header(header: Sequence[str]) -> bool:
    """True when the header has an id and a statement text (``DOC_ID, TEXT`` at least)."""
    cols = _columns(header)
    return "id" in cols and "text" in cols


def has_decision_columns(header: Sequence[str]) -> bool:
    """True for a statements file that names each decision (JurisTCU's full export, a court's
    own): an id, a text, and a decision reference, number, rapporteur, area or theme column.

    The statements alone (``DOC_ID, TEXT``) are read this way only when asked
    (``colmeia ingest --jurisprudence``): the retrieval benchmark ingests them as plain rows.
    """
    cols = _columns(header)
    return is_jurisprudence_header(header) and any(f in cols for f in _DECISION_FIELDS)


def _record(row: dict[str, str], cols: dict[str, str]) -> tuple[str, str, dict[str, Any]]:
    """(citation path, heading, metadata) of one statement."""

    def get(field: str) -> str:
        col = cols.get(field)
        return normalize_text(row.get(col) or "") if col else ""

    meta: dict[str, Any] = {}
    ref = parse_decision_reference(get("reference")) if get("reference") else None
    if ref is None and get("number") and get("year"):
        ref = DecisionRef(get("number").replace(".", ""), get("year"), _colegiado(get("colegiado")))
    relator = _relator(get("relator"))
    if ref is not None:
        meta |= {"number": ref.number, "year": int(ref.year), "colegiado": ref.colegiado}
        path = ref.label() + (f", rel. Min. {relator}" if relator else "")
    else:
        text = get("text")
        sumula = _SUMULA_RE.match(text)
        key = (row.get(cols["id"]) or "").strip()
        path = (
            f"Súmula TCU {sumula.group(1)}"
            if sumula
            else f"Jurisprudência Selecionada do TCU, enunciado {key}"
        )
        if sumula:
            meta["sumula"] = sumula.group(1)
    for field in ("relator", "area", "tema", "subtema", "kind", "date"):
        value = relator if field == "relator" else get(field)
        if value:
            meta[field] = value
    heading = " > ".join(v for v in (get("area"), get("tema"), get("subtema")) if v)
    return path, heading, meta


def iter_jurisprudence(
    path: Path, on_error: Callable[[DocumentError], None] | None = None
) -> Iterator[ExtractedDocument]:
    """One record per statement of a JurisTCU-like CSV; a bad row is reported and skipped.

    Raises:
        DocumentError: the file cannot be read or is not a statements file.
    """
    import csv

    from colmeia.rag.ingest.csv_records import _open_text, _raise_field_limit

    path = Path(path)
    header, _ = read_csv_sample(path, 1)
    if not is_jurisprudence_header(header):
        raise DocumentError(
            str(path), f"not a statements file (an id, a text and decision columns): {header}"
        )
    cols = _columns(header)
    _raise_field_limit()
    reader = csv.DictReader(_open_text(path))
    seen: set[str] = set()
    for row_no, raw in enumerate(reader, start=2):
        row = {(k or "").strip(): v for k, v in raw.items() if isinstance(v, str)}
        key = (row.get(cols["id"]) or "").strip()
        text = normalize_text(row.get(cols["text"]) or "")
        problem = (
            "empty id"
            if not key
            else f"duplicate id {key!r}"
            if key in seen
            else "empty statement text"
            if not text
            else ""
        )
        if problem:
            err = DocumentError(f"{path}, row {row_no}", problem)
            if on_error is None:
                raise err
            on_error(err)
            continue
        seen.add(key)
        cited = references([text]) if "<" in text else []
        # JurisTCU marks the decisions a statement cites inline
        # (<acordao_decisao_tcu numero="749" ano="2010" …>Acórdão 749/2010-TCU-Plenário</…>):
        # the words stay, the markup goes, the decisions are kept as metadata.
        text = _MARKUP.sub("", text)
        cite, heading, meta = _record(row, cols)
        if cited:
            meta["cites"] = "; ".join(ref.label() for ref in cited)
        meta |= {"path": cite, "document": cite, "heading": heading, "key": key}
        yield ExtractedDocument(
            source_id=key,
            title=cite,
            pages=[Page(1, text)],
            content_hash=hash_text(text, *(f"{k}={v}" for k, v in sorted(meta.items()))),
            path=str(path),
            doc_type=DECISION_DOC_TYPE,
            metadata=meta,
        )


def decision_matches(metadata: dict[str, Any], ref: DecisionRef) -> bool:
    """Whether a record's metadata is the decision ``ref`` names (any body when it names none)."""
    if str(metadata.get("number", "")) != ref.number or str(metadata.get("year", "")) != ref.year:
        return False
    return not ref.colegiado or metadata.get("colegiado") == ref.colegiado


def references(texts: Iterable[str]) -> list[DecisionRef]:
    """Every decision named in ``texts``, in order, once."""
    out: list[DecisionRef] = []
    for text in texts:
        for m in _REF_RE.finditer(_fold(text)):
            ref = parse_decision_reference(m.group(0))
            if ref is not None and ref not in out:
                out.append(ref)
    return out
