"""Whose norm an answer quotes, and the court's own rules when the thread is about a state case.

A court of accounts of a state or municipality judges under its own organic law and internal
rules (regimento interno): deadlines to appeal, to present a defence or to pay differ from the
federal Lei 9.784/1999 the shared collection holds. So when the thread is about such a court —
a case of the registry whose record shows a state or municipal body (a Prefeitura Municipal, a
Secretaria de Estado), or a question naming one —, a question on deadlines or procedure is
answered with a warning first and, when the court has ingested its norms into their collection
(``normas-tribunal`` by default, ``COLMEIA_ASSISTANT_COURT_COLLECTION``), the court's own
dispositivos that match, cited as the court's.

:func:`source_kind` names the kind of source of a citation (Constituição, lei federal,
jurisprudência, norma do tribunal), so an answer can say whose norm it quotes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from colmeia.rag.index.lexical import fold_accents

__all__ = [
    "COURT_COLLECTION",
    "JURISPRUDENCE_COLLECTION",
    "court_rules_note",
    "is_procedural",
    "local_case",
    "source_kind",
]

COURT_COLLECTION = "normas-tribunal"
JURISPRUDENCE_COLLECTION = "jurisprudencia"

# Bodies of a state or municipality, as registry records name them (folded).
_LOCAL_BODY = re.compile(
    r"\b(?:prefeitura municipal|municipio d[eo]s?|camara municipal|secretaria municipal|"
    r"secretaria (?:de estado|estadual)|governo do estado|estado d[eo]s? [a-z]|"
    r"assembleia legislativa|tribunal de contas d[oae]s? (?:estado|municipio)|"
    r"(?:tce|tcm)[\s\-/][a-z]{2}\b|contas (?:anuais )?de prefeito)"
)
# Deadlines and procedure: what the court's own rules fix (folded).
_PROCEDURAL = re.compile(
    r"\b(?:prazos?|recorr\w*|recursos?|reconsidera\w*|embargos?|agravo|revisao|defesa|"
    r"contraditorio|citad[oa]|citacao|audiencia|procedimentos?|rito|sustentacao oral|"
    r"vista dos autos|pedido de vista|intimad[oa]|notificad[oa])\b"
)


def _fold(text: str) -> str:
    return " ".join(fold_accents(text).split())  # fold_accents lower-cases too


def is_procedural(question: str, relation: str) -> bool:
    """Whether a question asks about a deadline or a procedural step."""
    return relation == "deadline" or bool(_PROCEDURAL.search(_fold(question)))


def local_case(facts: Sequence[Mapping[str, Any]]) -> str:
    """The thread's case that a state or municipal court judges: ``"o processo TC/000032/2023
    (Prefeitura Municipal de Fazenda Velha)"``, or ``""`` when no found record shows one."""
    for fact in facts:
        if fact.get("status") != "found":
            continue
        names = [str(n) for p in fact.get("parties") or [] if (n := p.get("name"))]
        bodies = [n for n in names if _LOCAL_BODY.search(_fold(n))]
        record = json.dumps(fact.get("record") or {}, ensure_ascii=False)
        if bodies or _LOCAL_BODY.search(_fold(record)):
            kind = "processo" if fact.get("kind") == "process" else "expediente"
            # a found fact always has its number (cases._read)
            return f"o {kind} {fact['number']}" + (f" ({bodies[0]})" if bodies else "")
    return ""


def court_rules_note(subject: str, court: Sequence[tuple[str, str]], collection: str) -> str:
    """The warning said before a federal rule on a state court's deadline or procedure.

    ``court`` holds the court's own dispositivos found for the question as (citation, text);
    without them the note says where the court's norms would be ingested.
    """
    head = (
        f"Atenção: {subject} é de um tribunal de contas estadual ou municipal. Prazos e "
        "procedimentos seguem a lei orgânica e o regimento interno desse tribunal, que podem "
        "ser diferentes da regra federal citada abaixo (lei federal, Lei 9.784/1999)."
    )
    if not court:
        return (
            f"{head} As normas do próprio tribunal não estão entre os documentos consultados "
            f"(coleção {collection!r}): confira-as antes de contar um prazo."
        )
    quoted = " ".join(f"«{text}» ({label}, norma do tribunal)." for label, text in court)
    return f"{head} Segundo as normas do próprio tribunal: {quoted}"


def source_kind(label: str, doc_type: str) -> str:
    """Whose norm a citation quotes: ``"Constituição Federal"``, ``"jurisprudência"``,
    ``"norma do tribunal"`` or ``"lei federal"`` (``""`` for other documents)."""
    folded = _fold(f"{doc_type} {label}")
    if label.startswith(("CF/", "ADCT")) or "constituicao" in folded:
        return "Constituição Federal"
    if doc_type == "Jurisprudência" or re.match(r"(acordao|sumula|jurisprudencia)\b", _fold(label)):
        return "jurisprudência"
    if "regimento interno" in folded or "resolucao do tribunal" in folded or "(exemplo" in folded:
        return "norma do tribunal"
    if re.match(r"(lei|decreto|medida provisoria)\b", _fold(label)):
        return "lei federal"
    return ""
