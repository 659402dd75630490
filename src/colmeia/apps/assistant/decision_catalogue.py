"""The decisions a jurisprudence collection holds, and what to say of one it does not.

A question that names a decision by its number — "o Acórdão 1234/2019-Plenário", "a súmula
247 do TCU" — asks for that decision. When the collection holds it (a statement of that
decision, that súmula, or a statement that cites it), the search finds it; when it does not,
the nearest statements on other subjects are no answer: the person is told that the decision
is not among the documents, and what the collection holds, as for a norm it lacks
(:func:`~colmeia.apps.assistant.scope.missing_norm`).

The catalogue is read from the records' metadata (:mod:`colmeia.rag.ingest.jurisprudence`:
``number``, ``year``, ``colegiado``, ``sumula``, ``cites``), once per collection generation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from colmeia.apps.assistant.collection_cache import PerCollection
from colmeia.rag.index.lexical import fold_accents
from colmeia.store.base import Store

__all__ = [
    "DecisionCatalogue",
    "asks_decisions",
    "decision_catalogue",
    "decisions_named",
    "missing_decision",
    "named_sumulas",
    "not_held",
    "subject_of",
]

# "súmula 247", "Súmula TCU nº 222", "sumula n. 9 do tcu" (folded)
_SUMULA = re.compile(r"\bsumula\s+(?:(?:do\s+)?tcu\s+)?(?:n[.o]?\s*)?(\d{1,4})\b")
# "Acórdão 749/2010-TCU-Plenário" as a statement cites it, without its body
_CITED = re.compile(r"(?i)ac[oó]rd[aã]o\s+(\d+)/(\d{4})")


# the court's decisions asked about as such, not a case's events: its jurisprudence,
# súmulas and precedents, "o entendimento do TCU", acórdãos or decisions on a subject
_ASKS_DECISIONS = re.compile(
    r"\b(?:jurisprud\w*|sumulas?|precedentes?|entendimento d[oa] (?:tcu|tribunal)|"
    r"(?:acordaos?|decisoes)\b[^?.;]*?\b(?:sobre|a respeito d[eoa]s?|acerca d[eoa]s?)\b)"
)
# "a decisão sobre a minha defesa", "o acórdão do nosso caso": the person's own matter
_OWN = re.compile(r"\b(?:meu|minha|meus|minhas|nosso|nossa|nossos|nossas)\b")


def asks_decisions(text: str) -> bool:
    """Whether ``text`` asks about the court's decisions: one cited as decisions are ("o
    Acórdão 1234/2019-Plenário", read by the jurisprudence parser), its jurisprudence, súmulas
    or precedents, or decisions on a subject. Alone it does not say there is no case: the
    reader looks at the message's case numbers and case nouns too."""
    folded = fold_accents(text)  # lower-cased, "º" read as "o"
    if _OWN.search(folded):
        return False
    if _ASKS_DECISIONS.search(folded):
        return True
    return bool(decisions_named(text))


_RAPPORTEUR = re.compile(r"\brelator(?:a|es)?\b", re.IGNORECASE)
# what asks for decisions as such: in a collection of decisions every record is one, so these
# words only pull in the statements that happen to say "decisão" or "relator"
_DECISION_WORDS = re.compile(
    r"\b(?:decis[ãa]o|decis[õo]es|ac[óo]rd[ãa]os?|jurisprud[êe]ncias?|s[úu]mulas?|"
    r"precedentes?|entendimentos?|julgados|relator(?:a|es)?|ministr[oa]|do\s+tcu|tcu)\b",
    re.IGNORECASE,
)


def rapporteur_note(question: str, catalogue: DecisionCatalogue, collection: str) -> str:
    """What to say when ``question`` asks for a rapporteur's decisions and no statement of
    the collection names its rapporteur (JurisTCU's judged statements do not): the
    statements found are on the subject, from any rapporteur. Empty otherwise."""
    if not catalogue.statements or catalogue.rapporteurs or not _RAPPORTEUR.search(question):
        return ""
    return (
        f"A coleção {collection!r} não registra o relator das decisões: os enunciados abaixo "
        "tratam do assunto, de qualquer relator."
    )


def subject_of(question: str) -> str:
    """``question`` without the words that ask for decisions as such ("decisões do relator X
    sobre dispensa de licitação" → "do X sobre dispensa de licitação"): what a collection of
    decisions is searched by. The question itself when nothing else is left."""
    rest = " ".join(_DECISION_WORDS.sub(" ", question).split())
    return rest if fold_accents(rest).strip(" ?.!,;:") else question


def named_sumulas(question: str) -> list[str]:
    """The súmulas ``question`` names by number, in order ("súmula 247" → ``["247"]``)."""
    out: list[str] = []
    for m in _SUMULA.finditer(fold_accents(question)):
        number = str(int(m.group(1)))
        if number not in out:
            out.append(number)
    return out


@dataclass(slots=True)
class DecisionCatalogue:
    """The decisions a collection's statements come from or cite, and its súmulas."""

    #: (number, year) → the collegiate bodies of the statements of that decision
    decisions: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    #: (number, year) of the decisions the statements cite
    cited: set[tuple[str, str]] = field(default_factory=set)
    sumulas: set[str] = field(default_factory=set)
    statements: int = 0
    #: how many statements name their decision's rapporteur
    rapporteurs: int = 0

    @classmethod
    def build(cls, store: Store, collection: str) -> DecisionCatalogue:
        cat = cls()
        for doc in store.documents(collection):
            meta = doc.metadata
            cat.statements += 1
            number, year = meta.get("number"), meta.get("year")
            if number and year:
                # a decision's statement without its body answers for any body
                body = str(meta.get("colegiado") or "")
                cat.decisions.setdefault((str(number), str(year)), set()).add(body)
            if meta.get("relator"):
                cat.rapporteurs += 1
            if meta.get("sumula"):
                cat.sumulas.add(str(int(str(meta["sumula"]))))
            cites = meta.get("cites")
            if cites:
                for m in _CITED.finditer(str(cites)):
                    cat.cited.add((str(int(m.group(1))), m.group(2)))
        return cat

    def holds_decision(self, number: str, year: str, colegiado: str = "") -> bool:
        """Whether a statement of the decision, or one citing it, is in the collection."""
        key = (str(int(number)), year)
        bodies = self.decisions.get(key)
        if bodies is not None and (not colegiado or colegiado in bodies or "" in bodies):
            return True
        return key in self.cited

    def contents(self) -> str:
        """What the collection holds, in a sentence's words."""

        def count(n: int, one: str, many: str) -> str:
            return f"{n:,} {one if n == 1 else many}".replace(",", ".")

        parts = [count(self.statements, "enunciado", "enunciados") + " de jurisprudência"]
        if self.sumulas:
            parts.append(count(len(self.sumulas), "súmula", "súmulas"))
        if self.decisions:
            parts.append(
                count(
                    len(self.decisions),
                    "acórdão identificado pelo número",
                    "acórdãos identificados pelo número",
                )
            )
        return "; ".join(parts)


_CATALOGUES: PerCollection[DecisionCatalogue] = PerCollection(
    DecisionCatalogue.build, DecisionCatalogue
)


def decision_catalogue(store: Store, collection: str) -> DecisionCatalogue:
    """The catalogue of ``collection`` (built once per generation of the collection)."""
    return _CATALOGUES.get(store, collection)


def decisions_named(question: str) -> list[tuple[str, str, str, str]]:
    """The decisions ``question`` names by number, as (label, number, year, colegiado) — a
    súmula's year and body empty: ``[("Acórdão 1234/2019-Plenário", "1234", "2019",
    "Plenário"), ("Súmula TCU 247", "247", "", "")]``."""
    folded = fold_accents(question)
    out: list[tuple[str, str, str, str]] = []
    if "acord" in folded or re.search(r"\bac\b", folded):
        # imported on first use: the ingest package costs a plain law turn ~0.06 s
        from colmeia.rag.ingest.jurisprudence import parse_decision_reference

        ref = parse_decision_reference(question)
        if ref is not None:
            out.append((ref.label(), ref.number, ref.year, ref.colegiado))
    out += [(f"Súmula TCU {n}", n, "", "") for n in named_sumulas(question)]
    return out


def not_held(names: list[str], contents: str) -> str:
    """The answer for decisions named that the collection does not hold."""
    joined = " e ".join(names)
    verb = "não está" if len(names) == 1 else "não estão"
    return (
        f"{joined} {verb} entre os documentos desta coleção, por isso não posso dizer o seu "
        f"teor. A coleção contém: {contents}."
    )


def missing_decision(question: str, catalogue: DecisionCatalogue) -> str | None:
    """What to say when ``question`` names, by number, a decision or súmula the collection
    does not hold (else None). A collection without statements says nothing here."""
    if not catalogue.statements:
        return None
    missing = [
        label
        for label, number, year, colegiado in decisions_named(question)
        if not (
            catalogue.holds_decision(number, year, colegiado)
            if year
            else number in catalogue.sumulas
        )
    ]
    return not_held(missing, catalogue.contents()) if missing else None
