"""One typed frame per turn: what the person asks and what it refers to.

Every turn is read into a :class:`TurnFrame` before anything is dispatched:

* the **intent** and the **aspect** asked come from the learnt classifier
  (:mod:`colmeia.apps.assistant.intents`), not from a rule per sentence;
* **case references** and **norm references** are the formal parts, read by parsers, leniently
  (``4506/23``, ``processo 4506 de 2023``, ``tc 4506 2023``, ``processo 555`` without a year —
  resolved against the registry later);
* **thread references** ("o outro", "o primeiro", "o de 2023", "dele", "esse último") point at
  the cases the thread already talked about.

An explicit new reference always wins over the thread's: :meth:`TurnFrame.target` returns the
typed case first.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal, get_args

from colmeia.apps.assistant.case_refs import CaseRef, read_case_refs
from colmeia.apps.assistant.conversation import continues_thread
from colmeia.apps.assistant.decision_catalogue import asks_decisions
from colmeia.apps.assistant.institutions import named_institutions
from colmeia.apps.assistant.intents import Prediction, classifier
from colmeia.apps.assistant.scope import NormMention, named_norms, one_slip
from colmeia.apps.assistant.shorthand import expand_shorthand

__all__ = [
    "ASPECTS",
    "INTENTS",
    "RESTRICTED",
    "Aspect",
    "CaseRef",
    "Intent",
    "ThreadRef",
    "TurnFrame",
    "asks_a_right",
    "read_frame",
    "split_parts",
    "thread_reference",
]

# below this probability a scope, greeting or search reading gives way to the documents
CONFIDENT = 0.7
# ... unless the law and mixed readings together have less than this: an unsure choice
# between being out of scope and being about the court ("qual o melhor restaurante perto do
# tribunal?") is still not a question the laws answer
LAW_CHANCE = 0.2
Intent = Literal["case", "find", "law", "mixed", "scope", "institutional", "greeting"]
Aspect = Literal[
    "status",
    "rapporteur",
    "parties",
    "location",
    "since",
    "movements",
    "judgement",
    "archive",
    "documents",
    "deadlines",
]
INTENTS: tuple[Intent, ...] = get_args(Intent)
ASPECTS: tuple[Aspect, ...] = get_args(Aspect)


@dataclass(frozen=True, slots=True)
class ThreadRef:
    """A reference to a case of the thread: ``last`` ("dele", "esse último": the one just
    talked about), ``other`` ("o outro"), ``first`` ("o primeiro"), ``second`` ("o segundo",
    "desse segundo") and ``latest`` ("o último": by the order the thread brought them up) or
    ``year`` ("o de 2023")."""

    which: Literal["last", "other", "first", "second", "latest", "year"]
    year: int | None = None

    def resolve(self, cases: Sequence[str], told: Sequence[str] = ()) -> str | None:
        """The case among ``cases`` (most recently talked about first) this reference points
        at; ``told`` are the same cases in the order the thread first named them — "o
        primeiro" and "o último" count in that order, whichever was looked at since."""
        if not cases:
            return None
        order = [c for c in told if c in cases] or list(reversed(cases))
        if self.which == "last":
            return cases[0]
        if self.which == "other":
            return cases[1] if len(cases) > 1 else None
        if self.which == "first":
            return order[0]
        if self.which == "second":
            return order[1] if len(order) > 1 else None
        if self.which == "latest":
            return order[-1]
        hits = [c for c in cases if c.endswith(f"/{self.year}") or f"-{self.year}-" in c]
        return hits[0] if len(hits) == 1 else None


@dataclass(slots=True)
class TurnFrame:
    """What one turn asks, typed: ``cases`` are the references typed (read by
    :func:`~colmeia.apps.assistant.case_refs.read_case_refs`, resolved by the dispatcher)."""

    text: str
    intent: str
    aspect: str
    confidence: float
    cases: list[CaseRef] = field(default_factory=list)
    norms: list[NormMention] = field(default_factory=list)
    thread: ThreadRef | None = None
    # the public institutions it names by acronym ("o TCU" → Tribunal de Contas da União):
    # what the law calls them, not what the court's own file is about
    institutions: list[str] = field(default_factory=list)
    # a mixed question cut in two: the case part and the law part
    case_part: str = ""
    law_part: str = ""
    # whether its words are about a case (a case, its number, rapporteur, parties…): without
    # them and without a thread to lean on, the collection's documents are the domain
    about_a_case: bool = False
    # the same, by its own words (a case word, or what the classifier surely read as a case's),
    # not merely by a word that could point back at the thread's case ("esse", "dele")
    case_worded: bool = False
    names_a_law: bool = False
    # "e se…", "e no caso de…", "mas e…": it continues the previous turn, whose norm (or
    # case) is what it leaves unsaid
    continues: bool = False
    # the classifier's own reading, before the rules above moved it (an unsure search sent
    # to the documents is still worth asking the registry about)
    read_as: str = ""
    # how much of the classifier's reading is about a case (a case or a search for one)
    case_chance: float = 0.0
    # "o da merenda": a case named by what it is about, the noun left out — one of the
    # thread's cases when one holds those words, else the registry's
    elliptic: bool = False

    @property
    def has_case(self) -> bool:
        return bool(self.cases)

    def target(self, thread_cases: Sequence[str], told: Sequence[str] = ()) -> str | None:
        """The thread case this turn is about, when it types none (a typed one always wins:
        the dispatcher resolves it against the registry); ``told`` as in
        :meth:`ThreadRef.resolve`."""
        if self.cases:
            return None  # a number without its year: the registry has to say which
        if self.thread is not None:
            return self.thread.resolve(thread_cases, told)
        return None


def _fold(text: str) -> str:
    return "".join(
        c for c in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(c) != "Mn"
    )


_NOT_A_CASE_NOUN = (
    r"(?!\s+(?:andamento|movimento|passo|despacho|documento|parecer|prazo|julgamento|relator|"
    r"status|dia|mes|ano|grau|momento|semestre|trimestre|turno|artigo|inciso|paragrafo)s?\b)"
)
_THREAD = (
    ("other", re.compile(r"\b(?:o|do|no|e|sobre|aquele)\s+(?:o\s+)?outro\b")),
    # "o primeiro" and "o último" are ordinals over the thread's cases, unless a noun of the
    # procedure or of time follows ("o último andamento" is the thread's case's; "exclui o
    # primeiro dia?" counts a deadline)
    ("first", re.compile(rf"\b(?:o|do|no|e)\s+primeiro\b{_NOT_A_CASE_NOUN}")),
    # "esse último" is the one just talked about
    ("latest", re.compile(rf"\b(?:o|do|no|e)\s+ultimo\b{_NOT_A_CASE_NOUN}")),
    # "desse segundo" is the second the thread named, not the one just talked about
    (
        "second",
        re.compile(rf"\b(?:o|do|no|e|desse|deste|esse|este)\s+segundo\b{_NOT_A_CASE_NOUN}"),
    ),
    (
        "last",
        re.compile(r"\b(?:dele|dela|nele|desse|deste|esse|este|ultimo|mais recente|o mesmo)\b"),
    ),
)
_OF_YEAR = re.compile(r"\b(?:o|aquele|e)\s+(?:do\s+ano\s+|de\s+|do\s+)((?:19|20)\d{2})\b")
# a turn that opens with "o" standing for the case a noun would name ("o [processo] da merenda",
# "e o dos temporários da saúde, tá onde?", "é o das diárias"): a case described, whose words the
# registry reads — not a year of the thread's cases ("o de 2023", read above)
_ELLIPTIC_CASE = re.compile(
    r"^\W*(?:(?:e|mas|entao|ah|ok|certo|sim|nao)\W+)?(?:o|aquele)\s+d[aeo]s?\s+"
    r"(?!(?:19|20)\d{2}\b)[a-z]"
)


# the words that point at a thread's case, and the real words one slip away from them that
# do not ("ouro" of Ouro Branco, "outra dúvida", "a primeira vez")
_POINTERS = ("outro", "primeiro", "ultimo")
_NOT_POINTERS = frozenset(
    {"ouro", "outra", "outros", "outras", "primeira", "primeiros", "ultima", "ultimos"}
)


def _pointers_typed(folded: str) -> str:
    """``folded`` with the thread's pointing words typed with a slip written out ("e o outor
    processo?" → "e o outro processo?")."""

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        if word in _NOT_POINTERS or len(word) < 4:
            return word
        return next((t for t in _POINTERS if one_slip(word, t)), word)

    return re.sub(r"[a-z]+", fix, folded)


def thread_reference(text: str) -> ThreadRef | None:
    """The thread case ``text`` points at without a number, if it does."""
    folded = _pointers_typed(_fold(text))
    year = _OF_YEAR.search(folded)
    if year:
        return ThreadRef("year", int(year.group(1)))
    for which, pattern in _THREAD:
        if pattern.search(folded):
            return ThreadRef(which)  # type: ignore[arg-type]
    return None


# the words a question about a case (or a search for one) is made of
# the nouns a case is called by
_NOUNS = r"processos?|proc|tc|expedientes?|autos"
# a case said in so many words (not "desde quando", which a norm is asked too)
_CASE_NOUN = re.compile(rf"\b(?:{_NOUNS}|caso)\b")
_CASE_WORDS = re.compile(
    rf"\b(?:{_NOUNS}|relat(?:or|ora|ando|a)|conselheir\w*|"
    r"(?:meu|minha|nosso|o|esse|este|um)\s+caso|andamento|tramit\w*|movimenta\w*|julgad[oa]|"
    r"arquivad[oa]|prefeitura|municipio|contra|numero)\b|"
    # a short question about one thing of a case: "e as partes?", "onde ele está?"
    r"^\W*(?:\w+\W+){0,3}(?:partes|documentos|situacao|onde\s+(?:ele|ela)|desde\s+quando)\b"
)


def _typed_case_word(text: str) -> bool:
    """ "procseso", "porcesso": the case words typed with a slip (one edit or a swap)."""
    for word in re.findall(r"[a-z]{6,}", _fold(text)):
        for target in ("processo", "processos", "expediente"):
            if (
                abs(len(word) - len(target)) <= 1
                and SequenceMatcher(None, word, target).ratio() >= 0.85
            ):
                return True
    return False


# where the law part of a mixed question starts
_LAW_CUE = re.compile(
    # each name a whole word: "leitão", "leilão", "normal" and "laico" name no law
    r"\b(?:a|o|na|pela|segundo)?\s*(?:(?:leis?|lc|decretos?|c[oó]digos?|lgpd|lai|cdc|normas?|"
    r"dispositivos?)\b|"
    r"constitui\w+|art(?:igo)?s?\b\.?|legisla\w+)|\b(?:a|da|na|pela)\s+\d{1,2}\.?\d{3}\b",
    re.IGNORECASE,
)
# where a clause ends: a punctuation mark, a dash between spaces, or "e" before what opens a
# question or names the other part ("e quantos dias…", "e se um servidor…", "e do art. 59…",
# "e processo 12/2021…", "e aí cabe recurso…")
_CLAUSE = re.compile(
    r"[,.;:?!]\s*|\s+[-–—]+\s+|\s+e\s+a[ií]\s+|"
    r"\s+e\s+(?=(?:o|a|qual|quais|como|quant[oa]s?|pode\w*|posso|se|"
    r"quem|onde|quando|tenho|sou|d[oa]|n[oa]|processo|proc|tc|meu|minha|oq)\b)",
    re.I,
)
# the fewest words a law part cut at a clause (without a law cue) has
_LAW_PART_WORDS = 4
# the most words between a case and a law cue that only join them ("e do", "e sobre a")
_JOINING_WORDS = 3


# how sure a case question's words without its number must read as law (law and mixed
# together) for the law to be asked too
WITHOUT_CASE_LAW = 0.6
# how far a law reading may go (law and mixed together) for an unsure search to stay one
SEARCH_LAW_ODDS = 0.2


# a case described by what restricts it: "o processo do Sebastião", "o caso da merenda" —
# not by whose it is ("o processo da minha mãe", "do meu cliente"): a relation to the person
# typing is nothing the registry can search, so the assistant asks which case ("do seu José"
# is a name with its honorific, and is searched)
RESTRICTED = re.compile(
    r"\b(?:processo|caso|expediente)\s+(?:d[aeo]s?|sobre|contra|envolvendo)\s+"
    r"(?!(?:meu|minha|meus|minhas|nosso|nossa|nossos|nossas)\b)[a-z]{3,}"
)


def _case_mass(predicted: Prediction) -> float:
    return predicted.intents.get("case", 0.0) + predicted.intents.get("find", 0.0)


def _law_mass(predicted: Prediction) -> float:
    return predicted.intents.get("law", 0.0) + predicted.intents.get("mixed", 0.0)


def _looks_up(text: str, predicted: Prediction) -> bool:
    """Whether an unsure search reading stays a search: its words are about cases ("os
    processos que a conselheira relata", "o processo da aposentadoria da Maria"), a law
    reading is far behind, and it names no norm — the registry then finds the case or says
    it holds none, where the laws would answer a question nobody asked."""
    return (
        _law_mass(predicted) < SEARCH_LAW_ODDS
        and bool(_CASE_WORDS.search(_fold(text)))
        and not named_norms(text)
    )


# a turn that asks something: a question mark, or the words a question opens with
_ASKS = re.compile(
    r"\?|^\s*(?:e\s+)?(?:posso|pode\w*|tenho|tem|como|quando|quanto\w*|qual|quais|quem|onde|"
    r"o\s+que|oq|por\s*que|pq|se|sou|e\s+verdade|existe|da\s+pra|preciso|devo)\b"
)
# how sure the scope-or-law head must be that an out-of-scope reading asks the law
ASKS_THE_LAW = 0.5


def _asks_the_law(text: str) -> bool:
    """Whether a turn the intent head reads as out of scope asks the law after all: a second
    head, learnt from the templates' law and scope turns and from the thousands of questions
    shipped with the laws' articles (a purchase gone wrong, a fine, a pension, a public office
    that does not answer), tells a right asked about from a request nothing here answers."""
    if not _ASKS.search(_fold(text)):
        return False  # "faz minha redação sobre corrupção": a task asked, not a question
    return asks_a_right(text)


def asks_a_right(text: str) -> bool:
    """Whether the scope-or-law head reads ``text`` as a right asked about, not a request
    nothing here answers (at :data:`ASKS_THE_LAW`)."""
    return classifier().scores(text, "scope_law")["law"] >= ASKS_THE_LAW


def split_parts(text: str, refs: Sequence[CaseRef]) -> tuple[str, str]:
    """A mixed question cut at the clause where its law part starts: (case part, law part).
    Without a law cue after the case, the whole text is both."""
    after = max((r.start + len(r.typed) for r in refs), default=0)
    cue = _LAW_CUE.search(text, after)
    if cue is None:
        return _at_clause(text, refs, after)
    start = end = 0
    for m in _CLAUSE.finditer(text, after, cue.start() + 1):
        start, end = m.start(), m.end()
    if end <= after:
        # no clause mark between them: the law part starts at its cue when little comes
        # before it ("…2023 e do art. 59…"), else right after the case ("o 298/2025 foi
        # arquivado isso é permitido pela 12.527?" asks whether *that* is permitted)
        joined = len(text[after : cue.start()].split()) <= _JOINING_WORDS
        start = end = cue.start() if joined else after
    case_part, law_part = text[:start].strip(" ,;.-"), text[end:].strip()
    return (case_part or text), (law_part or text)


def _pointed_parts(text: str) -> tuple[str, str] | None:
    """(case part, law part) of a question whose case is the thread's, pointed at ("dele",
    "esse processo") in one clause while another asks something else: the clause that points
    and speaks of a case (its words, no norm) against the clauses after it, or before it when
    it comes last. ``None`` when no clause does, or nothing else is said."""
    clauses: list[tuple[int, int, int]] = []  # (start, end, where the next one starts)
    begin = 0
    for m in _CLAUSE.finditer(text):
        clauses.append((begin, m.start(), m.end()))
        begin = m.end()
    clauses.append((begin, len(text), len(text)))
    clauses = [c for c in clauses if text[c[0] : c[1]].strip(" ,;.-?!")]
    for i, (a, b, after) in enumerate(clauses):
        clause = text[a:b]
        folded = _fold(clause)
        if thread_reference(clause) is None or not _CASE_WORDS.search(folded):
            continue
        if _LAW_CUE.search(clause):
            return None  # "esse artigo", "dessa lei": the thread's norm, not its case
        rest = text[after:] if i + 1 < len(clauses) else text[:a]
        rest = rest.strip(" ,;.-")
        if len(rest.split()) < _LAW_PART_WORDS:
            return None
        return clause.strip(" ,;.-"), rest
    return None


def _at_clause(text: str, refs: Sequence[CaseRef], after: int) -> tuple[str, str]:
    """A mixed question without a law cue cut at a clause: the first one after the case
    ("meu processo 2301/2023 tá esperando defesa, sou obrigado a ter advogado?"), or the last
    one before it when the case comes last; the whole text when there is none."""
    for m in _CLAUSE.finditer(text, after):
        rest = text[m.end() :].strip()
        if len(rest.split()) >= _LAW_PART_WORDS:
            return text[: m.start()].strip(" ,;.-"), rest
    first = min((r.start for r in refs), default=0)
    before = [m for m in _CLAUSE.finditer(text, 0, first) if m.start() > 0]
    if before and len(text[: before[-1].start()].split()) >= _LAW_PART_WORDS:
        cut = before[-1]
        return text[cut.end() :].strip(), text[: cut.start()].strip(" ,;.-")
    return text, text


# what points back at something told before it in the same message
_BACK = re.compile(r"\b(?:isso|isto|disso|nisso|aquilo|daquilo|assim)\b")


# where one question of a message ends and the next starts
_QUESTION_END = re.compile(r"(?<=[?!])\s+|(?<=\.)\s+(?=\S)")
# what makes a law part a question: a question mark, a word that asks or weighs a right, or
# the law named ("a 9784 fala algo de defesa previa", "sou obrigado a contratar advogado")
_ASKS = re.compile(
    r"\?|\b(?:pode|podem|posso|qual|quais|quanto|quantos|quantas|como|quando|onde|o que|oq|"
    r"por ?que|existe|cabe|tenho|tem direito|obrigad\w*|permit\w*|deve|devem|devo|preciso|"
    r"precisa|garant\w*|vale|lei|leis|artigo|art|norma|legal|direito|direitos)\b"
)
# how sure the reading of one question of several must be to count as about a case or the law:
# an even chance ("ta faltando oq pra andar?" reads case 0.58, nothing else above 0.2); at 0.6
# it was left out and the message answered as one law question (the development sets lost
# nothing at 0.5: independent4's mixed turn split, the rest as before)
QUESTION_SURE = 0.5


def _questions_apart(text: str) -> tuple[str, str] | None:
    """(case part, law part) of a message holding several questions when, each read on its
    own, one is about a case (or a search for one) and another about the law; ``None``
    otherwise (one question, or all of one kind)."""
    questions = [q.strip() for q in _QUESTION_END.split(text) if len(q.split()) >= 2]
    if len(questions) < 2:
        return None
    case: list[str] = []
    law: list[str] = []
    for question in questions:
        read = classifier().predict(question)
        if read.intent in ("case", "find") and _case_mass(read) >= QUESTION_SURE:
            # torn between a case asked of and one looked for ("e o processo de contas de 2023
            # da prefeitura tá onde hoje?": 0.48 and 0.45), it is a question about a case
            case.append(question)
        elif (
            len(question.split()) >= _LAW_PART_WORDS
            and _asks(question)
            and (
                _law_mass(read) >= QUESTION_SURE or (read.intent == "law" and named_norms(question))
            )
        ):
            law.append(question)  # "quais são?" after a search is no law question
    if not case or not law:
        return None
    return " ".join(case), " ".join(law)


def _asks(text: str) -> bool:
    """Whether a part of a message asks something (see :data:`_ASKS`)."""
    return _ASKS.search(_fold(text)) is not None


def _without_refs(text: str, refs: Sequence[CaseRef], by: str = " ") -> str:
    """``text`` with each case reference typed in it replaced ``by`` a word (or a space)."""
    for ref in refs:
        text = text.replace(ref.typed, by)
    return " ".join(text.split())


def _reads_as_law(text: str) -> bool:
    """Whether a case question's words without its number ask the law: a situation told and
    a right asked about ("o … tá parado há dois anos, pode isso?"), not what is left of a
    short question ("e o … ?")."""
    if len(re.findall(r"\w+", text)) < _LAW_PART_WORDS + 2:
        return False
    return _law_mass(classifier().predict(text)) >= WITHOUT_CASE_LAW


def _law_query(text: str, case_part: str, law_part: str, refs: Sequence[CaseRef]) -> str:
    """What the laws are searched with for a mixed question's law part: the part itself, or
    — when it is not apart from the case part, is short, or points back at what the message
    told ("o 4506/23 está parado há dois anos, pode isso?") — the whole message, since the
    situation told is what the law is asked about; without the case numbers, which no law
    holds (the word "processo" stands where one was)."""
    short = len(law_part.split()) < _LAW_PART_WORDS
    back = _BACK.search(_fold(law_part)) or _BACK.search(_fold(case_part))
    query = text if law_part == text or short or back else law_part
    return _without_refs(query, refs, by="processo").strip(" ,;.-") or law_part


def read_frame(
    text: str, *, today: dt.date | None = None, predicted: Prediction | None = None
) -> TurnFrame:
    """The frame of one turn (the thread's state is applied by the dispatcher). ``predicted``
    is a reading other than the classifier's (the model's, :mod:`.model_frame`): the same
    rules apply to it."""
    # "qnto tempo…", "qnd sai…": the question the shorthand stands for is read, by the
    # classifier, the rules and the law's search alike
    text = expand_shorthand(text)
    predicted = predicted or classifier().predict(text)
    refs = read_case_refs(text, today=today)
    thread = thread_reference(text)
    if thread is not None and thread.which == "year":
        # "o de 2023" names a year of the thread's (or the list's) cases, not a case 2023
        refs = [r for r in refs if not (r.year is None and r.number == thread.year)]
    intent = predicted.intent
    if intent == "mixed" and not refs:
        intent = "law"  # a law question phrased like a mixed one, but no case in it
    if intent == "scope" and not refs and _asks_the_law(text):
        intent = "law"
    if intent in ("law", "scope", "institutional", "greeting") and refs:
        # a typed case number is a case question whatever else it says; with a law part too
        intent = (
            "mixed"
            if predicted.intents.get("law", 0.0) + predicted.intents.get("mixed", 0.0) > 0.3
            else "case"
        )
    if intent == "find" and refs:
        intent = "case"
    if intent == "case" and refs and named_norms(text):
        intent = "mixed"  # a typed case and a norm named: both are asked ("…pela 12.527?")
    if (
        intent == "case"
        and not refs
        and thread is None
        and named_norms(text)
        and not _CASE_NOUN.search(_fold(text))
    ):
        # "a LAI vale desde quando?": a norm named, and no case typed, pointed at or even
        # said — the norm is what is asked about, not a case to ask the number of
        intent = "law"
    if (
        intent in ("case", "find", "scope", "institutional")
        and not refs
        and thread is None
        and not _CASE_NOUN.search(_fold(text))
        and asks_decisions(text)
    ):
        # "qual o Acórdão 1234/2019-Plenário?", "jurisprudência sobre sobrepreço": decisions
        # are searched as the laws are, not a case to ask the number of (the classifier learnt
        # "o acórdão saiu?" of a case); "o acórdão do meu processo" names a case and stays one
        intent = "law"
    if intent == "case" and refs:
        _, law_part = split_parts(text, refs)
        if law_part != text and classifier().predict(law_part).intent in ("law", "mixed"):
            intent = "mixed"  # a law part after the case, whatever joins them
        elif _reads_as_law(_without_refs(text, refs)):
            # "o 4506/23 tá parado há dois anos, pode isso?": without its number the message
            # is a situation asked as a right — the law is asked too, not only the card
            intent = "mixed"
    if (
        intent == "case"
        and not refs
        and thread is None
        and predicted.confidence < CONFIDENT
        and RESTRICTED.search(_fold(text))
        and _looks_up(text, predicted)
    ):
        # an unsure case reading of a case described, not numbered ("o processo da
        # aposentadoria do seu José"): the registry looks for it
        intent = "find"
    unsure = ("scope", "greeting", "find")
    if (
        intent in unsure
        and not refs
        and predicted.confidence < CONFIDENT
        and not (intent == "find" and _looks_up(text, predicted))
        and not (intent != "find" and _law_mass(predicted) < LAW_CHANCE)
    ):
        # unsure: the collection's documents answer, or say they hold nothing. An unsure
        # reading as about the court stays so: the dispatcher answers it from the court's file
        # only when the question says one of an entry's own words, else from the documents
        intent = "law"
    pointed = _pointed_parts(text) if thread is not None and not refs else None
    if pointed is not None and intent in ("case", "law", "mixed"):
        # "qual o relator dele e quanto tempo ele tem pra decidir segundo a 9.784?": the
        # thread's case pointed at in one clause, a law question in another — both are asked
        law_reading = classifier().predict(pointed[1]).intent in ("law", "mixed")
        intent = "mixed" if law_reading or named_norms(pointed[1]) else intent
    elif intent == "mixed" and thread is not None and not refs:
        intent = "case"  # one clause that points at the thread's case: its law part is not apart
    if pointed is None and not refs and intent in ("case", "find", "law"):
        # "quais docs tem nele? e o edital tinha que estar no site pela LAI?": two questions,
        # each read on its own — one about a case, one about the law — are both asked
        pointed = _questions_apart(text)
        intent = "mixed" if pointed is not None else intent
    norms = named_norms(text)
    elliptic = (
        not refs
        and thread is None
        and not norms
        and not _LAW_CUE.search(text)
        and _ELLIPTIC_CASE.match(_fold(text)) is not None
    )
    if elliptic and intent != "mixed":
        # "o da merenda" as a message of its own, whatever the classifier made of its few
        # words (out of scope, a law): the person names a case by what it is about
        intent = "find"
    if intent == "institutional" and norms:
        # the court's file tells its hours and contacts, not what a norm says: "o que a
        # constituição diz sobre o tribunal de contas…" asks the Constitution
        intent = "law"
    frame = TurnFrame(
        text,
        intent,
        predicted.aspect,
        predicted.confidence,
        refs,
        norms,
        None if refs else thread,
    )
    frame.institutions = [i.name for i in named_institutions(text)]
    frame.read_as = predicted.intent
    frame.case_chance = _case_mass(predicted)
    if intent == "mixed":
        frame.case_part, frame.law_part = pointed or split_parts(text, refs)
        raw = frame.law_part if frame.law_part != text else _without_refs(text, refs)
        frame.law_part = _law_query(text, frame.case_part, frame.law_part, refs)
        if refs and not norms and not _asks(raw):
            # "já faz mais de um ano… e ninguém resolve nada!!! processo 11357/2025, oq tá
            # acontecendo??", "fiz uma denúncia…, o número que me deram foi 3817/24. como tá
            # isso?": beside a typed case, a part that asks nothing (a complaint, the story
            # before the question) is not a question of law
            frame.intent = "case"
            frame.case_part = frame.law_part = ""
    frame.case_worded = bool(
        elliptic
        or _CASE_WORDS.search(_fold(text))
        or _typed_case_word(text)
        # what the classifier learnt is a case question is one, with or without these words
        # ("e ta com quem agora?" as a first message asks which case, not the laws)
        # — unless it names a norm: "a 8.429 pune quem?" asks the law, not which case
        or (intent == "case" and predicted.confidence >= CONFIDENT and not frame.norms)
    )
    frame.elliptic = elliptic
    frame.about_a_case = bool(refs or thread or frame.case_worded)
    frame.names_a_law = bool(frame.norms or _LAW_CUE.search(text))
    frame.continues = continues_thread(text)
    return frame
