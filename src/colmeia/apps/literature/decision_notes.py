"""Screening decisions written into, and read back from, the notes of bibliography files.

A colmeia RIS (``N1``) or BibTeX (``note``) export carries each stage's decision as one note::

    Triagem: exclude | Motivo: fora do recorte | Por: ana | Em: 2026-11-28T16:01:02+00:00
    Triagem (texto completo): include | Por: ana | Em: 2026-11-29T09:00:00+00:00 | Notas: linha 1
    linha 2

The title/abstract stage keeps the bare ``Triagem:`` older exports wrote. The notes come last so
their line breaks survive (a reviewer's notes are often several lines): a note runs until the
next line that starts a ``Triagem`` decision or the end of the field. Zotero and JabRef show the
text as it is; :func:`parse_decisions` reads it back, with who decided and when, so a
re-import can keep the newer decision of each stage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = [
    "STAGE_LABELS",
    "CarriedDecision",
    "newer",
    "parse_decisions",
    "parse_screening",
    "screening_note",
]

# Stage → the label in the note ("" for title/abstract: the form older exports wrote).
STAGE_LABELS = {"title_abstract": "", "full_text": "texto completo"}
_LABEL_STAGES = {
    "": "title_abstract",
    "título e resumo": "title_abstract",
    "titulo e resumo": "title_abstract",
    "texto completo": "full_text",
}
_HEAD_RE = re.compile(
    r"^Triagem(?:\s*\((?P<label>[^)]*)\))?:\s*(?P<decision>include|exclude|pending)\b(?P<rest>.*)$",
    re.DOTALL,
)
_PART_RE = re.compile(r"\|\s*(Motivo|Por|Em|Notas):\s*")
_START_RE = re.compile(r"^Triagem(?:\s*\([^)]*\))?:\s*(?:include|exclude|pending)\b", re.M)


@dataclass(slots=True)
class CarriedDecision:
    """A screening decision a file carries: stage, decision, reason, notes, who and when."""

    stage: str
    decision: str
    reason: str = ""
    notes: str = ""
    who: str = ""
    at: str = ""


def screening_note(
    decision: str,
    reason: str = "",
    notes: str = "",
    *,
    stage: str = "title_abstract",
    who: str = "",
    at: str = "",
) -> str:
    """The note a stage's decision is exported as (see the module docstring); read back by
    :func:`parse_decisions`. The notes keep their line breaks; a notes line that would read
    as the start of another decision is indented by one space so it does not."""
    label = STAGE_LABELS.get(stage, "")
    out = f"Triagem ({label}): {decision}" if label else f"Triagem: {decision}"
    if reason.strip():
        out += f" | Motivo: {' '.join(reason.split())}"
    if who.strip():
        out += f" | Por: {' '.join(who.split())}"
    if at.strip():
        out += f" | Em: {at.strip()}"
    text = "\n".join(" ".join(line.split()) for line in notes.strip().splitlines())
    if text:
        text = _START_RE.sub(lambda m: " " + m.group(0), text)
        out += f" | Notas: {text}"
    return out


def _parse_one(text: str) -> CarriedDecision | None:
    m = _HEAD_RE.match(text.strip())
    if m is None:
        return None
    stage = _LABEL_STAGES.get(" ".join((m.group("label") or "").lower().split()))
    if stage is None:
        return None
    found = CarriedDecision(stage, m.group("decision"))
    rest = m.group("rest")
    head, bar, notes = rest.partition("| Notas:")
    if rest.strip() and not rest.lstrip().startswith("|"):
        return None  # "Triagem: include-ish …": not a note colmeia wrote
    parts = _PART_RE.split(" ".join(head.split()))
    for name, value in zip(parts[1::2], parts[2::2], strict=False):
        value = value.strip()
        if name == "Motivo":
            found.reason = value
        elif name == "Por":
            found.who = value
        elif name == "Em":
            found.at = value
    if bar:
        found.notes = "\n".join(line.rstrip() for line in notes.strip().splitlines())
        found.notes = re.sub(r"(?m)^ (?=Triagem)", "", found.notes)
    return found


def parse_decisions(text: str) -> list[CarriedDecision]:
    """Every decision in a note field (one or several ``Triagem`` notes, each running to the
    next one); text before the first is not a decision and is ignored."""
    text = text.strip()
    starts = [m.start() for m in _START_RE.finditer(text)]
    out = []
    for a, b in zip(starts, [*starts[1:], len(text)], strict=False):
        got = _parse_one(text[a:b])
        if got is not None:
            out.append(got)
    return out


def parse_screening(text: str) -> tuple[str, str, str] | None:
    """(decision, reason, notes) of one note written by :func:`screening_note`, else ``None``."""
    found = parse_decisions(text) if _HEAD_RE.match(text.strip()) else []
    if not found:
        return None
    return found[0].decision, found[0].reason, found[0].notes


def _when(at: str) -> datetime:
    try:
        moment = datetime.fromisoformat(at)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def newer(a: str, b: str) -> bool:
    """Whether the time ``a`` is later than ``b`` (ISO 8601; a missing or unreadable time is
    the oldest, so a decision with a time wins over one without)."""
    return _when(a) > _when(b)
