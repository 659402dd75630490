"""The rules the dispatcher reads a turn's words by, in plain functions (no registry): how
to do something at the court, a case said with the definite article, a part of an article
named, the clause each typed case is asked in, and what a short reply picks from a list (by
age, year, position or number)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

from colmeia.apps.assistant.case_index import fold
from colmeia.apps.assistant.case_refs import CaseResolution
from colmeia.apps.assistant.conversation import within_norm
from colmeia.apps.assistant.frame import CONFIDENT, thread_reference
from colmeia.apps.assistant.intents import classifier

# the most words a reply picking a listed case by its description has ("o do transporte")
_SHORT_REPLY = 6
# how to do something (at the court): "como eu faço", "onde eu mando", "como envio"
_HOW_TO = re.compile(
    r"\bcomo\s+(?:(?:que\s+)?eu\s+|a\s+gente\s+|se\s+)?(?:faco|mando|envio|entrego|"
    r"protocolo|abro|registro|junto|anexo|fazer|mandar|enviar|entregar|protocolar|abrir|"
    r"registrar|juntar|anexar|faz)\b|"
    r"\bonde\s+(?:eu\s+)?(?:mando|envio|entrego|protocolo|faco|registro)\b|"
    # the way a paper reaches the court: "pode ser protocolada eletronicamente ou só no
    # balcão?", "dá pra mandar por email?" — a procedure, whatever paper of a case it names
    r"\b(?:protocolad|enviad|mandad|entregue|juntad)\w*\s+(?:\w+\s+){0,2}?"
    r"(?:eletronicamente|online|on-line|pela\s+internet|pelo\s+(?:site|portal|sistema)|"
    r"por\s+e-?mail|presencialmente|pessoalmente|no\s+balcao|pelo\s+correio)\b|"
    r"\b(?:mandar|enviar|protocolar|entregar|juntar)\s+(?:\w+\s+){0,3}?"
    r"(?:por\s+e-?mail|pela\s+internet|online|pelo\s+(?:site|portal|correio))\b"
)
_ORDINALS = {
    "primeiro": 0, "1": 0, "segundo": 1, "2": 1, "terceiro": 2, "3": 2, "quarto": 3, "4": 3,
    "quinto": 4, "5": 4, "ultimo": -1,
}  # fmt: skip
# "o mais antigo", "o mais recente": a pick by age, read off the identifiers (year, then the
# number, which a registry gives in the order cases are filed)
_BY_AGE = re.compile(
    r"\b(?:mais\s+(?P<old>antig[oa]|velh[oa])|mais\s+(?P<new>recente|nov[oa]|atual))\b"
)
# at most this many cases typed in one message are answered (the rest: one by one)
_MAX_TYPED = 5
# a message that only names a part of an article, or an article by its number and a part:
# "e o inciso 55?", "e o 37 inciso 2", "e o paragrafo unico?", "e a alinea b"
_NAMES_A_PART = re.compile(
    r"^\W*(?:e\s+)?(?:(?:o|a|no|na|do|da)\s+)?(?:(?:art(?:igo)?\.?\s*)?\d{1,3}\s*,?\s*"
    r"(?:(?:o|a)\s+)?)?(?:inciso|inc\.|§|paragrafo|alinea|caput)\b[^?]{0,25}\??\s*$"
)
_ARTICLE_TYPED = re.compile(r"\bart(?:igo)?\.?\s*\d|\b(?:o|no|do)\s+\d{1,3}(?!\d)")


# how long a case has stood where it is, told beside a question of law ("tá no ministério
# público desde julho?? a lei deixa o parecer ficar parado assim?", "faz mais de um ano… vcs não
# tinham prazo pra decidir?"): whether the law allows it is asked of that case's situation
_TIME_STOOD = re.compile(
    # told, not supposed: "tá demorando", "demorou", not "e se demorarem pra decidir?"
    r"\b(?:parad[oa]s?|demora|demorando|demorou|engavetad[oa]s?|atrasad[oa]s?|esperando|desde|"
    r"(?:faz|ha)\s+(?:mais\s+de\s+|quase\s+|uns\s+|umas\s+)?(?:um|uma|dois|duas|tres|\d+)\s+"
    r"(?:anos?|mes|meses|semanas?|dias))\b"
)


def tells_time_stood(text: str) -> bool:
    """Whether ``text`` tells how long a case has stood still (see :data:`_TIME_STOOD`)."""
    return _TIME_STOOD.search(fold(text)) is not None


# what may, must or need be done asked ("a câmara pode derrubar?", "é obrigada a divulgar…
# mesmo sem ninguém pedir?", "precisa de quantos votos?"): a question of law, whatever event
# of a case its words also name — the registry records what happened, not what is allowed
_ALLOWED = re.compile(
    r"\b(?:pode|podem|posso|obrigad[oa]s?|tem\s+que|tem\s+q|precisa\s+de|deve|devem|"
    r"permit\w*|proibid[oa]s?|ilegal|tem\s+direito)\b"
)


def asks_what_is_allowed(text: str) -> bool:
    """Whether ``text`` asks what may, must or need be done (see :data:`_ALLOWED`)."""
    return _ALLOWED.search(fold(text)) is not None


# a case named with the definite article ("o processo", "esse caso") and no restriction after
# it (not "o processo da merenda", "o processo que fala de…", "o processo contra a prefeitura")
_DEFINITE = re.compile(
    r"\b(?:o|no|do|pro|ao|esse|este|nesse|neste|desse|deste)\s+(?:processo|caso|expediente)\b"
    r"(?!\s+(?:d[aeo]s?|sobre|que|com|contra|em\s+que|n[ao]s?|referente|envolvendo|\w*\d))"
)
_INDEFINITE = re.compile(r"\b(?:um|uns|uma|algum|alguns|aquele|qual|quais)\s+(?:processo|caso)")


def _definite(text: str) -> bool:
    """Whether ``text`` points at a case with the definite article alone (see
    :data:`_DEFINITE`), not at one to be found ("um processo", "aquele processo de…")."""
    folded = fold(text)
    return bool(_DEFINITE.search(folded)) and not _INDEFINITE.search(folded)


def _clause_aspect(text: str, resolved: Sequence[CaseResolution], n: int, aspect: str) -> str:
    """The aspect asked of the ``n``-th case typed in ``text``, read in its own clause when
    the classifier is sure of it there — "quem é o relator do 615/24 e se o 3098/2023 já teve
    defesa" asks the rapporteur of one and the state of the other —, else ``aspect`` (the
    whole message's). Two cases' clauses part at the last punctuation or "e"/"ou" between
    them (at the end of the first case when nothing is between)."""
    cuts = [0]
    for before, after in itertools.pairwise(resolved):
        left = before.ref.start + len(before.ref.typed)
        between = list(_CLAUSE_BREAK.finditer(text, left, max(left, after.ref.start)))
        cuts.append(between[-1].start() if between else left)
    cuts.append(len(text))
    clause = text[cuts[n] : cuts[n + 1]]
    read = classifier().predict(clause)
    return read.aspect if read.intent == "case" and read.confidence >= CONFIDENT else aspect


# where one case's clause ends and the next one's begins
_CLAUSE_BREAK = re.compile(r"[?.;!]|\b(?:e|ou)\b", re.IGNORECASE)


def _year_described(text: str, found: dict[str, Any]) -> str | None:
    """The one listed case whose own description holds the year the person described it by
    ("as contas de 2021 de Cachoeira do Sul": the case about the 2021 accounts, not the
    council's of another year); ``None`` when no year is typed or it fits none or several."""
    years = set(_YEARS.findall(text))
    if not years:
        return None
    hits = [
        str(c["number"])
        for c in found.get("cases") or []
        if years & set(_YEARS.findall(str(c.get("subject") or "")))
    ]
    return hits[0] if len(hits) == 1 else None


# where a reply's first clause ends ("o das cisternas. tá em que situação?")
_FIRST_CLAUSE = re.compile(r"\s*[.;!?,]\s+|\s+-\s+")


# a year written in a text, alone (not part of a longer number)
_YEARS = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
# a year a subject is about ("exercício de 2023"), not a number's ("Pregão nº 14/2023")
_SUBJECT_YEARS = re.compile(r"(?<![\d/])(?:19|20)\d{2}(?!\d)")


def _only_year(text: str) -> int | None:
    """The year a message names when it is the only number typed ("o das contas de 2021")."""
    numbers = re.findall(r"\d+", text)
    if len(numbers) == 1 and re.fullmatch(r"(?:19|20)\d{2}", numbers[0]):
        return int(numbers[0])
    return None


def _year_said(text: str) -> int | None:
    """The year a short reply names ("o de 2023", "é de 2021", "2024") and no other number
    ("4506 de 2023" is a case), if it names one."""
    year = _only_year(text)
    if year is None:
        return None
    ref = thread_reference(text)
    if (ref is not None and ref.which == "year") or len(fold(text).split()) <= 4:
        return year
    return None


def _filed(identifier: str) -> tuple[int, int] | None:
    """(year, number) of ``TC/NNNNNN/AAAA`` or ``EXP-AAAA-NNNNN``; ``None`` for any other form."""
    process = re.fullmatch(r"TC/(\d+)/(\d{4})", identifier)
    if process:
        return int(process.group(2)), int(process.group(1))
    file = re.fullmatch(r"EXP-(\d{4})-(\d+)", identifier)
    return (int(file.group(1)), int(file.group(2))) if file else None


def _pick(text: str, options: Sequence[str]) -> str | None:
    """The option a reply picks: by age ("o mais antigo", "o mais recente"), by year ("o de
    2023"), by position ("o segundo"), or by its number ("o 4506")."""
    if not options:
        return None
    folded = fold(text)
    age = _BY_AGE.search(folded)
    dated = [(o, _filed(o)) for o in options]
    if age and all(key is not None for _, key in dated):
        ordered = sorted(dated, key=lambda pair: pair[1] or (0, 0))
        return ordered[0 if age.group("old") else -1][0]
    ref = thread_reference(text)
    if ref is not None and ref.which == "year":
        hits = [o for o in options if o.endswith(f"/{ref.year}")]
        return hits[0] if len(hits) == 1 else None
    years = re.findall(r"\b((?:19|20)\d{2})\b", folded)
    if len(years) == 1 and len(folded.split()) <= 4:
        hits = [o for o in options if o.endswith(f"/{years[0]}")]
        if len(hits) == 1:
            return hits[0]
    for word, index in _ORDINALS.items():
        if (
            not years
            and re.search(rf"\b{word}\b", folded)
            and -len(options) <= index < len(options)
        ):
            return options[index]
    numbers = [int(n) for n in re.findall(r"\d+", folded)]
    hits = [o for o in options if any(int(re.findall(r"\d+", o)[0]) == n for n in numbers)]
    return hits[0] if len(hits) == 1 else None


def _part_asked(text: str, norm: str, previous: str) -> str:
    """The law question a part follow-up asks: its words with the article asked before when it
    names none ("e o inciso 55?" after "o art. 5º inciso 33 da CF" is art. 5º, inciso LV),
    within the thread's norm."""
    if not _ARTICLE_TYPED.search(fold(text)):
        before = _PREVIOUS_ARTICLE.search(fold(previous))
        if before is not None:
            text = f"{text.rstrip(' ?')} do art. {before.group(1)}?"
    return within_norm(text, norm)


_PREVIOUS_ARTICLE = re.compile(r"\bart(?:igo)?\.?\s*(\d+)")
