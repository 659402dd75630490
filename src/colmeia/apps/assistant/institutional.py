"""Questions about the court itself — opening hours, contacts, address, how to file —
answered from a small file the court edits, never from law passages.

The file (YAML or JSON, see the shipped example ``data/institutional.yaml``) lists entries:
a ``topic``, example ``questions`` and the ``answer``. A question is matched to the entry
whose examples it is most like, by cosine similarity of character n-gram TF-IDF vectors
(accents folded, 3–5 characters inside words: robust to typos and to missing accents),
among the entries sharing a word's beginning with it (a common suffix is no likeness); below
:data:`THRESHOLD` it is no institutional question and :func:`answer_institutional` gives
``None``. A question the turn classifier is sure is about the court is matched down to
:data:`SURE_FLOOR`, among the entries sharing a word with it — by its stem, or typed with one
slip — so that a typo still finds its entry and a word that only shares letters with one
("contas", "contatos") does not. A court points the assistant at its own file with ``COLMEIA_ASSISTANT_INSTITUTIONAL``.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from colmeia.apps.assistant.case_index import fold
from colmeia.apps.assistant.relations import content_terms
from colmeia.apps.assistant.scope import one_slip
from colmeia.errors import ConfigurationError

__all__ = [
    "ENV",
    "RESTATES",
    "SURE_FLOOR",
    "THRESHOLD",
    "InstitutionalAnswer",
    "InstitutionalFile",
    "InstitutionalIndex",
    "answer_institutional",
    "institutional_follow_up",
    "load_institutional",
    "restated_entry",
]

#: the setting naming a court's own file
ENV = "COLMEIA_ASSISTANT_INSTITUTIONAL"
#: the least cosine similarity at which a question is taken as one of the file's (set on the
#: development set: its institutional questions scored 0.30 and above, the others 0.15 and below)
THRESHOLD = 0.22
#: the least similarity when the turn classifier already says the question is about the court:
#: a typo ("enndereco") or a new wording lowers the likeness, not the question's kind
SURE_FLOOR = 0.08
#: the similarity at which a question restates one of the file's examples so closely that it is
#: the file's whatever the turn classifier read ("quero denunciar o prefeito…, dá pra fazer
#: denúncia anônima?" read as the law's): set on the development sets, where such questions
#: scored 0.67–0.77 and law questions sharing the entries' words 0.52–0.59
RESTATES = 0.65
# words that carry no topic: asked in every institutional question, or (processo) the mark
# of a question about a case, which the registry answers
_QUIET = frozenset(
    [
        "o",
        "a",
        "os",
        "as",
        "de",
        "do",
        "da",
        "dos",
        "das",
        "em",
        "no",
        "na",
        "e",
        "um",
        "uma",
        "que",
        "qual",
        "quais",
        "como",
        "eu",
        "voces",
        "vcs",
        "vc",
        "tribunal",
        "para",
        "por",
        "com",
        "se",
        "me",
        "meu",
        "minha",
        "onde",
        "quando",
        "processo",
        "processos",
    ]
)


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    topic: str = Field(min_length=1)
    questions: list[str] = Field(min_length=1)
    answer: str = Field(min_length=1)


class InstitutionalFile(BaseModel):
    """The court's file: its name and its entries."""

    model_config = ConfigDict(extra="forbid")
    court: str = ""
    entries: list[Entry] = Field(min_length=1)


@dataclass(frozen=True, slots=True)
class InstitutionalAnswer:
    """The entry a question matched: its ``topic``, ``answer`` and the similarity."""

    topic: str
    answer: str
    score: float


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", fold(text)) if w not in _QUIET]


def _heads(text: str) -> set[str]:
    """The first four letters of each word: shared suffixes ("-mento") do not make two
    questions alike, so a match needs a word that begins alike too."""
    return {w[:4] for w in _words(text)}


# the shortest word that can make a question like an entry: "tem", "vai", "ser" say nothing
_WORD = 4


def _said(text: str) -> set[str]:
    """The words of ``text`` that can carry a topic (four letters or more)."""
    return {w for w in _words(text) if len(w) >= _WORD}


def _alike(word: str, words: set[str], stems: set[str]) -> bool:
    """Whether ``word`` is one of ``words`` as a word: the same stem ("estacionar",
    "estacionamento"), or typed with one slip ("enndereco", "horáio") — not a word that only
    begins like one ("contas" is not "contatos")."""
    stem = (content_terms(word) or [word])[0]
    return (
        stem in stems
        or any(one_slip(word, w) for w in words)
        or any(one_slip(stem, t) for t in stems if len(t) >= _WORD)
    )


# what is asked of a place ("o telefone do …", "que horas abre o …") and whose it is: the owner
_OWNED = re.compile(
    r"\b(?:telefones?|numeros?|contatos?|whats(?:app)?|zap|enderecos?|e-?mails?|sites?|"
    r"horarios?)\s+(?:d[aoe]s?|de\s+uma?|pr[ao])\s+([a-z]{3,})"
    r"|\b(?:abre|abrem|fecha|fecham|funciona|funcionam)\s+(?:o|a|os|as)\s+([a-z]{3,})"
)
# the court's own names, besides the words its file uses
_COURT = frozenset(
    [
        "tribunal",
        "tce",
        "tcm",
        "tcu",
        "voces",
        "vcs",
        "vc",
        "corte",
        "casa",
        "gabinete",
        "gabinetes",
        "secretaria",
        "plenario",
        "presidencia",
        "conselheiro",
        "conselheira",
        "conselheiros",
        "atendimento",
    ]
)


def _grams(text: str) -> Counter[str]:
    words = _words(text)
    out: Counter[str] = Counter()
    for w in words:
        padded = f" {w} "
        for n in (3, 4, 5):
            out.update(padded[i : i + n] for i in range(max(1, len(padded) - n + 1)))
    return out


class InstitutionalIndex:
    """TF-IDF character n-grams of every example question, one vector per entry."""

    def __init__(self, data: InstitutionalFile) -> None:
        self.entries = data.entries
        docs = [_grams(" ".join([e.topic, *e.questions])) for e in data.entries]
        df: Counter[str] = Counter()
        for d in docs:
            df.update(d.keys())
        n = len(docs)
        self._idf = {g: math.log((1 + n) / (1 + c)) + 1 for g, c in df.items()}
        self._vectors = [self._weigh(d) for d in docs]
        self._heads = [_heads(" ".join([e.topic, *e.questions])) for e in data.entries]
        said = [_said(" ".join([e.topic, *e.questions])) for e in data.entries]
        self._said = [(w, {(content_terms(x) or [x])[0] for x in w}) for w in said]

    def _weigh(self, grams: Counter[str]) -> dict[str, float]:
        vec = {g: (1 + math.log(c)) * self._idf[g] for g, c in grams.items() if g in self._idf}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {g: v / norm for g, v in vec.items()}

    def match(
        self, question: str, floor: float = THRESHOLD, *, heads: bool = True, words: bool = False
    ) -> InstitutionalAnswer | None:
        """The entry most like ``question`` when its similarity reaches ``floor`` (and, with
        ``heads``, when a word of it begins like one of the entry's; with ``words``, when a
        word of it is one of the entry's, by its stem or with one slip)."""
        q = self._weigh(_grams(question))
        if not q:
            return None
        begins = _heads(question)
        asked = _said(question)

        def shares(entry_heads: set[str], entry_words: tuple[set[str], set[str]]) -> bool:
            if heads and not begins & entry_heads:
                return False
            return not words or any(_alike(w, *entry_words) for w in asked)

        scored = [
            (
                sum(w * vec.get(g, 0.0) for g, w in q.items())
                if shares(entry_heads, said)
                else 0.0,
                e,
            )
            for vec, entry_heads, said, e in zip(
                self._vectors, self._heads, self._said, self.entries, strict=True
            )
        ]
        score, entry = max(scored, key=lambda t: t[0])
        if score < floor or score <= 0.0:
            return None
        return InstitutionalAnswer(entry.topic, entry.answer, round(score, 3))

    def follow_up(self, question: str, topic: str) -> InstitutionalAnswer | None:
        """A few words after the entry ``topic`` was answered: that entry again when they say
        one of its words — of its questions or of its answer ("pode ser anônimo?" after how to
        file a denúncia, whose answer says the identity may be kept secret) —, else None."""
        for e in self.entries:
            if e.topic != topic:
                continue
            own = _said(" ".join([*e.questions, e.answer]))
            stems = {(content_terms(x) or [x])[0] for x in own}
            if any(_alike(w, own, stems) for w in _said(question)):
                return InstitutionalAnswer(e.topic, e.answer, 0.0)
        return None

    def owner_elsewhere(self, question: str) -> str | None:
        """The place whose phone, address or hours ``question`` asks when it is not the court
        ("o telefone do detran", "que horas abre o shopping"), or ``None``."""
        m = _OWNED.search(fold(question))
        if m is None:
            return None
        owner = m.group(1) or m.group(2)
        known = owner in _COURT or any(owner in w for w, _ in self._said)
        return None if known else owner

    def elsewhere(self, owner: str) -> InstitutionalAnswer:
        """What to say when the phone, address or hours of another place are asked."""
        topics = ", ".join(e.topic for e in self.entries)
        return InstitutionalAnswer(
            "",
            f"Não tenho telefones, endereços nem horários de outros órgãos ou lugares ({owner}). "
            f"Sobre o tribunal, posso informar: {topics}.",
            0.0,
        )

    def unknown(self) -> InstitutionalAnswer:
        """What to say about the court when the file holds nothing like the question: what
        it does hold (never law passages)."""
        topics = ", ".join(e.topic for e in self.entries)
        return InstitutionalAnswer(
            "",
            "Não tenho essa informação no arquivo do tribunal. Sobre o tribunal, posso "
            f"informar: {topics}.",
            0.0,
        )


def load_institutional(path: str | Path | None = None) -> InstitutionalFile:
    """The court's file at ``path`` (or ``$COLMEIA_ASSISTANT_INSTITUTIONAL``, or the shipped
    example); a file that cannot be read raises :class:`ConfigurationError` naming it."""
    import yaml  # only a question about the court reads its file

    chosen = path or os.environ.get(ENV) or None
    try:
        if chosen is None:
            text = (
                resources.files("colmeia.apps.assistant")
                .joinpath("data/institutional.yaml")
                .read_text(encoding="utf-8")
            )
            where = "the shipped institutional.yaml"
        else:
            where = str(chosen)
            text = Path(chosen).read_text(encoding="utf-8")
        raw = json.loads(text) if where.endswith(".json") else yaml.safe_load(text)
        return InstitutionalFile.model_validate(raw)
    except OSError as exc:
        raise ConfigurationError(f"{ENV}: cannot read {where}: {exc.strerror}") from None
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"{ENV}: {where} is not valid YAML/JSON: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(file)"
        raise ConfigurationError(f"{ENV}: {where}: {loc}: {first['msg']}") from None


@lru_cache(maxsize=8)
def _index(path: str | None) -> InstitutionalIndex:
    return InstitutionalIndex(load_institutional(path))


def institutional_follow_up(
    question: str, topic: str, *, short: bool, path: str | Path | None = None
) -> InstitutionalAnswer | None:
    """The court file's answer to a follow-up of its entry ``topic`` (the thread's last answer),
    or ``None``. A ``short`` one ("pode ser anônimo?") is that entry again when it says one of
    the entry's words; a longer one is matched to the entry sharing a word with it, down to
    :data:`SURE_FLOOR` (the thread is about the court: "como mando a defesa do meu cliente,
    pode ser por email?" after its phone number is how to file, not its contacts again)."""
    chosen = str(path) if path else os.environ.get(ENV) or None
    index = _index(chosen)
    if index.owner_elsewhere(question) is not None:
        return None
    if short:
        again = index.follow_up(question, topic)
        if again is not None:
            return again
    return index.match(question, SURE_FLOOR, heads=False, words=True)


def restated_entry(question: str, *, path: str | Path | None = None) -> InstitutionalAnswer | None:
    """The file's entry ``question`` restates (similarity :data:`RESTATES` or more, sharing a
    word with it), else ``None``."""
    chosen = str(path) if path else os.environ.get(ENV) or None
    index = _index(chosen)
    if index.owner_elsewhere(question) is not None:
        return None
    return index.match(question, RESTATES, words=True)


def answer_institutional(
    question: str, *, path: str | Path | None = None, sure: bool = False
) -> InstitutionalAnswer | None:
    """The court file's answer to ``question``, or ``None`` when it is not a question about
    the court (its opening hours, contacts, address, how to file…).

    ``path`` (else ``$COLMEIA_ASSISTANT_INSTITUTIONAL``, else the shipped example) is read
    once and kept. ``sure``: the turn is known to be about the court (the turn classifier
    is confident) — the nearest entry down to :data:`SURE_FLOOR`, else what the file holds.
    """
    chosen = str(path) if path else os.environ.get(ENV) or None
    index = _index(chosen)
    owner = index.owner_elsewhere(question)
    if owner is not None:
        # "vc sabe o telefone do detran?": the court's own phone is no answer to it
        return index.elsewhere(owner) if sure else None
    if not sure:
        # unsure it is about the court: only a question that says one of an entry's own words
        # ("tem algum email pra falar com vocês?") is answered from the file; shared letters
        # are no likeness ("contas" is not "contatos": no phone number for a question on accounts)
        return index.match(question, words=True)
    # a typo does not share a word's beginning ("enndereco"), but it is the word with one
    # slip; letters shared are no likeness ("contas" is not "contatos": the court's phone
    # number is no answer to a question about its accounts)
    return index.match(question, SURE_FLOOR, heads=False, words=True) or index.unknown()
