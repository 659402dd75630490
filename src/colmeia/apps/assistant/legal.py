"""Legal citations and validity in time, read from what ingestion stored.

A passage's hierarchy path (``"Lei 13.709/2018, Art. 14, § 1º, inciso II"``) becomes the
parts a citation needs: law, article, paragraph, inciso, alínea. Official texts carry their
history in parentheses — "(Revogado pela Lei nº 12.036, de 1.10.2009)", "(VETADO)",
"(Redação dada pela Lei nº 13.853, de 2019)", "(Incluído pela …)" — and the LexML URN gives
the norm's date; :func:`validity` turns those into a status the answer can warn about.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Literal

__all__ = [
    "LegalRef",
    "Validity",
    "article_key",
    "law_key",
    "parse_legal_path",
    "urn_date",
    "validity",
]

_LAW = re.compile(
    r"^(?P<law>(?:Lei Complementar|Lei|Decreto-Lei|Decreto|Medida Provisória|Emenda "
    r"Constitucional|Resolução|Portaria|Constituição Federal|CF/\d+|ADCT)[^,]*)",
    re.IGNORECASE,
)
_ART = re.compile(r"\bArt\.?\s*(\d+[A-Z\-]*)", re.IGNORECASE)
# Dispositivos inserted later carry a letter: "§ 4º-A", "inciso I-A" (the Constitution has many).
_PAR = re.compile(r"(?:§\s*(\d+)\s*[º°o]?(-[A-Z]\b)?|Parágrafo único)", re.IGNORECASE)
_INC = re.compile(r"\binciso\s+([IVXLCDM]+(?:-[A-Z])?)\b", re.IGNORECASE)
_ALI = re.compile(r"\bal[ií]nea\s+([a-z])\b", re.IGNORECASE)
_URN_DATE = re.compile(r"^urn:lex:[^;!]*?:(\d{4}-\d{2}-\d{2})(?:[;:!]|$)")
_REVOKED = re.compile(r"\((?:Revogad[oa]s?|Suprimid[oa])\b([^)]*)\)", re.IGNORECASE)
_VETOED = re.compile(r"\(\s*VETAD[OA]S?\s*\)", re.IGNORECASE)
_AMENDED = re.compile(
    r"\((?:Reda[çc][ãa]o dada|Inclu[íi]d[oa]|Acrescid[oa])\b([^)]*)\)", re.IGNORECASE
)
_BY_DATE = re.compile(r"de\s+(\d{1,2})[./](\d{1,2})[./](\d{2,4})|de\s+(\d{4})")


@dataclass(frozen=True, slots=True)
class LegalRef:
    """Where a statement comes from, down to the alínea, and the page for documents."""

    law: str = ""
    article: str = ""
    paragraph: str = ""
    inciso: str = ""
    alinea: str = ""
    page: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_legal_path(path: str, page: int = 0) -> LegalRef:
    """``"Lei 13.709/2018, Art. 14, § 1º, inciso II"`` → its parts (missing parts are "")."""
    law = _LAW.match(path.strip())
    art = _ART.search(path)
    par = _PAR.search(path)
    paragraph = ""
    if par:
        paragraph = "único" if par.group(1) is None else par.group(1) + (par.group(2) or "")
    inc = _INC.search(path)
    ali = _ALI.search(path)
    return LegalRef(
        law=law.group("law").strip() if law else "",
        article=art.group(1) if art else "",
        paragraph=paragraph,
        inciso=inc.group(1).upper() if inc else "",
        alinea=ali.group(1).lower() if ali else "",
        page=page,
    )


def law_key(law: str) -> str:
    """A norm's comparable key: its number (``Lei 9.784/1999`` → ``9784``), ``CF`` for the
    Constitution (cited ``CF/88``; written ``CF``, ``Constituição`` or its year ``1988``) and
    ``ADCT`` for its transitional acts (``ADCT (CF/88)``): neither has a number of its own,
    and the "88" of ``CF/88`` is no law's."""
    said = law.strip().upper()
    if said.startswith("ADCT"):
        return "ADCT"
    if said.startswith(("CF", "CONSTITUI", "CRFB")) or said == "1988":
        return "CF"
    number = re.search(r"(\d[\d.]*)\s*/", law) or re.search(r"(\d[\d.]*)", law)
    return number.group(1).replace(".", "") if number else law.strip().lower()


def article_key(law: str, article: str) -> str:
    """A comparable key for "this law, this article" (``"13709:14"``, ``"CF:71"``)."""
    return f"{law_key(law)}:{article.strip().upper()}"


def urn_date(doc_id: str) -> str:
    """The norm's date from a LexML URN (``urn:lex:br:federal:lei:2018-08-14;13709…``)."""
    m = _URN_DATE.match(doc_id.strip())
    return m.group(1) if m else ""


@dataclass(frozen=True, slots=True)
class Validity:
    """Whether a dispositivo is in force, and what the text says changed it."""

    status: Literal["in_force", "amended", "revoked", "vetoed"]
    note: str = ""
    norm_date: str = ""
    changed_in: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _year(fragment: str) -> str:
    m = _BY_DATE.search(fragment)
    if not m:
        return ""
    if m.group(4):
        return m.group(4)
    year = m.group(3)
    return year if len(year) == 4 else ""


def validity(text: str, doc_id: str = "") -> Validity:
    """The dispositivo's status from its text's annotations and its URN's date."""
    norm_date = urn_date(doc_id)
    if _VETOED.search(text) and len(_VETOED.sub("", text).strip(" .;-")) < 20:
        return Validity("vetoed", "dispositivo vetado", norm_date)
    revoked = _REVOKED.search(text)
    if revoked and len(_REVOKED.sub("", text).strip(" .;-")) < 20:
        by = revoked.group(0).strip("()")
        return Validity("revoked", by, norm_date, _year(revoked.group(1)))
    amended = list(_AMENDED.finditer(text))
    if amended:
        last = amended[-1]
        return Validity("amended", last.group(0).strip("()"), norm_date, _year(last.group(1)))
    return Validity("in_force", "", norm_date)
