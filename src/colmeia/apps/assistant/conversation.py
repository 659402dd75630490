"""What a thread remembers between turns: the cases it talked about and their last facts.

A person does not repeat the number: after a case answer they ask "e as partes?", "dele",
"e desde quando?" or "e o outro processo?". The graph keeps the thread's cases (most recent
first) and the registry's last record of each; :func:`follow_up_target` says which case a
question without a number refers to, and :func:`context_block` is what every agent's view
carries about them, so a model and the offline rules resolve the same follow-ups.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from colmeia.apps.assistant.ids import CaseId, find_case_ids
from colmeia.llm.prompts import render_prompt

__all__ = [
    "aspect_of",
    "cases_in_context",
    "context_block",
    "continues_thread",
    "follow_up_target",
    "leans_on_context",
    "remember",
    "resolve_follow_up",
    "thread_norms",
    "thread_topic",
    "within_norm",
]

_PKG = "colmeia.apps.assistant"
MAX_CASES = 5

_PRONOUN = re.compile(
    r"\b(dele|dela|nele|nela|desse|deste|disso|nesse|neste|esse\s+(?:processo|expediente|caso)|"
    r"este\s+(?:processo|expediente|caso)|o\s+mesmo|mesmo\s+processo)\b",
    re.IGNORECASE,
)
_OTHER = re.compile(
    r"\b(?:o|do|no|sobre\s+o|e\s+o)\s+outro(?:\s+(?:processo|expediente|caso))?\b", re.IGNORECASE
)
# "e o do transporte escolar?", "e o processo da merenda de Três Barras?": another case, named
# by what it is about, not the thread's case followed up ("e o de 2023?" picks a thread case by
# its year: a word, not a number, follows)
_ANOTHER = re.compile(
    r"^\W*e\s+(?:o|a|aquele|aquela)\s+(?:(?:processo|expediente|caso)\s+)?(?:d[aoe]s?|sobre)"
    r"\s+[^\W\d_]",
    re.IGNORECASE,
)
_ASPECTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("parties", re.compile(r"\b(partes?|respons[aá]veis|interessad[oa]s?|envolvid[oa]s)\b", re.I)),
    ("since", re.compile(r"\b(desde quando|h[aá] quanto tempo|quanto tempo|desde)\b", re.I)),
    ("location", re.compile(r"\b(onde|local(?:iza[cç][aã]o)?|setor|unidade)\b", re.I)),
    ("rapporteur", re.compile(r"\b(relator[a]?|conselheir[oa])\b", re.I)),
    (
        "movements",
        re.compile(r"\b(movimenta\w+|andamento|tramita\w*|hist[oó]rico|[uú]ltim[ao])\b", re.I),
    ),
    (
        "status",
        re.compile(r"\b(situa[cç][aã]o|status|fase|como est[aá]|julgad\w+|arquivad\w+)\b", re.I),
    ),
    ("documents", re.compile(r"\b(documentos?|pe[cç]as?|autos)\b", re.I)),
    ("subject", re.compile(r"\b(assunto|sobre o que|do que se trata|objeto)\b", re.I)),
    ("class", re.compile(r"\b(classe|tipo de processo|natureza)\b", re.I)),
)
_ELLIPSIS = re.compile(r"^\W*e\s+\S", re.IGNORECASE)
# A question that names a norm is a legal question, not a follow-up on the case.
_LEGAL = re.compile(
    r"\b(lei|leis|artigo|art\.|norma|lgpd|constitui\w+|decreto|resolu[cç][aã]o|c[oó]digo|"
    r"regimento|prazo legal)\b",
    re.IGNORECASE,
)
_GENERIC = re.compile(r"\b(um|uma|de|num|qualquer)\s+(processo|expediente|caso)\b", re.IGNORECASE)


def aspect_of(text: str) -> str | None:
    """Which part of a case ``text`` asks about (``parties``, ``since``, ``location``…)."""
    for name, pattern in _ASPECTS:
        if pattern.search(text):
            return name
    return None


def follow_up_target(text: str, cases: Sequence[str]) -> str | None:
    """The thread case a question without a number refers to, or ``None``.

    ``cases`` are the thread's cases, most recent first. A question that writes a number,
    names a norm, or talks about processes in general is not a follow-up.
    """
    if not cases or any(isinstance(i, CaseId) for i in find_case_ids(text)):
        return None
    if _LEGAL.search(text) or _GENERIC.search(text):
        return None
    if _OTHER.search(text):
        return cases[1] if len(cases) > 1 else None
    if _ANOTHER.search(text) and not _PRONOUN.search(text):
        return None
    short = len(text.split()) <= 10
    if _PRONOUN.search(text) or (short and (aspect_of(text) or _ELLIPSIS.search(text))):
        return cases[0]
    return None


def resolve_follow_up(text: str, cases: Sequence[str]) -> str:
    """``text`` with the case it refers to written out, when it is a follow-up."""
    target = follow_up_target(text, cases)
    return f"{text} (sobre {target})" if target else text


def leans_on_context(text: str) -> bool:
    """Whether ``text`` continues an earlier turn ("E se o pedido for negado…", "e disso?")
    rather than standing alone."""
    return bool(_ELLIPSIS.search(text) or _PRONOUN.search(text))


# "mas e se…", "então e no caso de…": a continuation that opens with a connective before the "e"
_CONTINUES = re.compile(
    r"^\W*(?:mas|ent[aã]o|tamb[eé]m)\s+(?:e\s+)?(?:se|no|na|quanto|quando)\b", re.I
)


def continues_thread(text: str) -> bool:
    """Whether a question continues the previous one ("e se a loja não devolver?", "e no caso
    de…", "mas e se…", "e disso?") instead of standing alone: what it leaves unsaid — the
    norm, the case — is the thread's."""
    return leans_on_context(text) or bool(_CONTINUES.search(text))


def previous_question(messages: Iterable[Any], turn: int) -> str:
    """The person's message of the turn before ``turn`` (``""`` on a thread's first turn):
    what a law follow-up that leaves its subject unsaid ("e tem algum prazo pra eles me
    avisarem?") is about."""
    said = [
        str(m.content or "")
        for m in messages
        if getattr(m, "role", "") == "user" and 0 < int(getattr(m, "turn", 0)) < turn
    ]
    return said[-1] if said else ""


def case_heading(facts: Iterable[dict[str, Any]], case_part: str) -> str:
    """The heading of a mixed answer's case part: the cases it shows, by number ("Sobre o
    processo TC/000010/2022"), else the person's words it answers ("Sobre o processo (o
    meu processo tá parado)") — not a whole greeting quoted back."""
    numbers = [
        str(f.get("number")) for f in facts if f.get("status") == "found" and f.get("number")
    ]
    numbers = list(dict.fromkeys(numbers))
    if not numbers:
        return f"Sobre o processo ({case_part.strip()})"
    kinds = {"expediente" if n.upper().startswith("EXP") else "processo" for n in numbers}
    noun = kinds.pop() if len(kinds) == 1 else "caso"
    if len(numbers) == 1:
        return f"Sobre o {noun} {numbers[0]}"
    return f"Sobre os {noun}s {', '.join(numbers[:-1])} e {numbers[-1]}"


def thread_norms(answer: dict[str, Any] | None) -> list[str]:
    """The norms the previous answer cited, its lead citation's first ("Lei 8.078/1990"):
    what a law follow-up that names none is about."""
    cited = (answer or {}).get("citations") or []
    laws = [str(c.get("law") or "") for c in cited if isinstance(c, dict)]
    return list(dict.fromkeys(law for law in laws if law))


def thread_topic(answer: dict[str, Any] | None) -> str:
    """The court file's entry the previous answer gave ("denuncia"), or "" when it was no
    answer from the court's file."""
    answer = answer or {}
    return str(answer.get("topic") or "") if answer.get("agent") == "institutional" else ""


def within_norm(question: str, norm: str) -> str:
    """A follow-up written out with the norm it leaves unsaid: the search then prefers that
    norm's passages (a law the question names weighs its passages up and the others down,
    :func:`~colmeia.apps.assistant.rag_scores.grade_passage`) without excluding the rest."""
    return f"{question.rstrip()} ({norm})"


def remember(cases: Sequence[str], evidence: Iterable[dict[str, Any]]) -> list[str]:
    """The thread's cases after a turn's lookups: the found ones first, newest lookup first."""
    out = list(cases)
    for item in evidence:
        number = str(item.get("number") or "")
        if item.get("status") == "found" and number:
            out = [number, *(n for n in out if n != number)]
    return out[:MAX_CASES]


def _summary(found: dict[str, Any] | None) -> str:
    if not found or found.get("status") != "found":
        return ""
    record = found.get("record") or {}
    loc = found.get("location") or {}
    parts = [f"situação: {record.get('status', '')}"]
    if loc:
        parts.append(f"onde está: {loc.get('location', '')}, desde {loc.get('since', '')}")
    if record.get("rapporteur"):
        parts.append(f"relator: {record['rapporteur']}")
    parties = found.get("parties") or []
    if parties:
        parts.append("partes: " + "; ".join(f"{p['name']} ({p['role']})" for p in parties))
    return "; ".join(parts)


def context_block(cases: Sequence[str], facts: dict[str, dict[str, Any]]) -> str:
    """What an agent's view says about the thread's cases (empty when there are none)."""
    if not cases:
        return ""
    items = [{"number": n, "summary": _summary(facts.get(n))} for n in cases]
    return render_prompt(_PKG, "context.j2", cases=items).strip()


_CONTEXT_CASE = re.compile(r"^- (?:Caso atual|Outro caso citado): (\S+)", re.MULTILINE)


def cases_in_context(messages: Sequence[Any]) -> list[str]:
    """The thread's cases as the view's instructions state them (for the offline rules)."""
    for m in messages:
        if getattr(m, "role", "") == "system":
            return _CONTEXT_CASE.findall(getattr(m, "content", "") or "")
    return []
