"""Conversations (and a training corpus) generated from templates × lexicons × noise.

Deterministic by seed. Each conversation is drawn from one scenario (a case asked about by
one aspect, two cases in one thread, a clarification and its reply, a case found by a party or
a subject, law, mixed, out of scope, institutional, greeting, injection, a missing norm…);
its turns carry what a right answer shows, in the format of
:mod:`colmeia.apps.assistant.conversations`, computed from the synthetic registry the file names
(:class:`~colmeia.apps.assistant.synthetic.SyntheticRegistry`, same seed → same cases).

``split`` picks the lexicon part: ``dev`` and ``train`` draw from the common part, ``test`` also
from the held-apart part (:mod:`colmeia.apps.assistant.turngen.lexicon`).
"""

from __future__ import annotations

import datetime as dt
import random
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from colmeia.apps.assistant.registry_records import Movement, Party, Process, locate
from colmeia.apps.assistant.synthetic import SyntheticRegistry
from colmeia.apps.assistant.turngen.held2 import ASPECTS2, LEX2
from colmeia.apps.assistant.turngen.lexicon import ASPECTS, LEX
from colmeia.apps.assistant.turngen.trainlex import (
    ABBREVIATIONS,
    ADVICE,
    CASE_EVENTS,
    DOCUMENTS_ASKED,
    FIND_BY_RAPPORTEUR,
    FIND_LOOSE,
    FOLLOW_UP,
    GENERAL_KNOWLEDGE,
    INSTITUTIONAL,
    LAW_COURT,
    LAW_LAY,
    LAW_SITUATIONS,
    META,
    MIXED_JOINS,
    MIXED_LAW,
    SCOPE,
    SCOPE_ACTIONS,
    SOCIAL,
    VAGUE_CASE,
    VISIT,
)
from colmeia.rag.expansion import article_urn, packaged_questions

__all__ = ["AS_OF", "REGISTRY", "SEEDS", "Labelled", "generate_set", "training_corpus"]

AS_OF = dt.date(2026, 11, 1)
REGISTRY = {"processes": 400, "expedientes": 100}
# dev and test sets, and the training corpus of the turn classifier: three seeds; test2 is the
# second frozen test set (its own seed and its own words, turngen.held2)
SEEDS = {"dev": 101, "test": 202, "train": 303, "test2": 404}
# how often the second test set draws from its own words rather than the common part
_HELD2_SHARE = 0.6

# a short subject a person would type, for each synthetic subject (by its opening words)
_SUBJECT_WORDS = {
    "irregularidades na execução do convênio de merenda escolar": "merenda escolar",
    "sobrepreço na pavimentação de vias urbanas": "pavimentação de ruas",
    "ausência de prestação de contas de recursos do transporte escolar": "transporte escolar",
    "contratação direta sem licitação de serviços de limpeza urbana": "limpeza urbana",
    "acúmulo irregular de cargos públicos na área da saúde": "acúmulo de cargos",
    "superfaturamento na aquisição de medicamentos": "compra de medicamentos",
    "atraso na conclusão de unidade básica de saúde": "obra de posto de saúde",
    "pagamentos sem cobertura contratual a empresa de transporte": "pagamento sem contrato",
    "restrição à competitividade em pregão eletrônico de tecnologia": "pregão de tecnologia",
    "contas anuais do exercício com déficit orçamentário": "déficit orçamentário",
}


@dataclass(slots=True)
class _Case:
    process: Process
    movements: list[Movement]  # newest first
    parties: list[Party]
    documents: list[Any]
    number: int = 0
    year: int = 0
    town: str = ""
    subject: str = ""

    def fact(self, aspect: str) -> tuple[dict[str, str], list[str]]:
        """What a right answer about ``aspect`` shows: facts and phrases."""
        p = self.process
        loc = locate(p, self.movements, AS_OF)
        if aspect == "rapporteur":
            return {"rapporteur": p.rapporteur}, []
        if aspect == "parties":
            people = [x.name for x in self.parties if x.role == "Responsável"]
            return {"party": people[0]}, []
        if aspect == "location":
            return {"location": loc.location}, []
        if aspect == "since":
            return {"since": loc.since}, []
        if aspect == "movements":
            return {}, [self.movements[0].description]
        if aspect == "judgement":
            day = next(m.at for m in self.movements if m.description.startswith("Julgado"))
            return {}, [_br(day)]
        if aspect == "archive":
            day = next(m.at for m in self.movements if m.description.startswith("Arquiva"))
            return {}, [_br(day)]
        if aspect == "documents":
            return {}, [self.documents[0].kind]
        if aspect == "deadlines":
            return {}, []
        return {"status": p.status}, []

    def can(self, aspect: str) -> bool:
        descriptions = [m.description for m in self.movements]
        if aspect == "judgement":
            return any(d.startswith("Julgado") for d in descriptions)
        if aspect == "archive":
            return any(d.startswith("Arquiva") for d in descriptions)
        if aspect == "documents":
            return bool(self.documents)
        if aspect == "parties":
            return any(x.role == "Responsável" for x in self.parties)
        return True


def _br(day: str) -> str:
    y, m, d = day[:10].split("-")
    return f"{d}/{m}/{y}"


def _cases(seed: int) -> list[_Case]:
    batch = SyntheticRegistry(seed, AS_OF).batch(REGISTRY["processes"], REGISTRY["expedientes"])
    by: dict[str, _Case] = {}
    for p in batch.processes:
        _, num, year = p.number.split("/")
        subject, _, town = p.subject.partition(" — ")
        by[p.number] = _Case(
            p, [], [], [], int(num), int(year), town.removeprefix("Prefeitura Municipal de ")
        )
        by[p.number].subject = _SUBJECT_WORDS.get(subject.lower(), subject.lower())
    for number, m in batch.movements:
        if number in by:
            by[number].movements.insert(0, m)
    for number, party in batch.parties:
        if number in by:
            by[number].parties.append(party)
    for number, doc in batch.documents:
        if number in by:
            by[number].documents.insert(0, doc)
    return list(by.values())


def _fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


class _Writer:
    """Draws words from the split's lexicon part and adds the noise people type with."""

    def __init__(self, rng: random.Random, split: str) -> None:
        self.rng = rng
        self.split = split

    def _own(self, words: tuple[str, ...]) -> str | None:
        # only test2 draws from its own words (and only it spends a draw on choosing)
        if self.split == "test2" and words and self.rng.random() < _HELD2_SHARE:
            return self.rng.choice(words)
        return None

    def pick(self, pool: str) -> str:
        own = self._own(LEX2.get(pool, ()) if self.split == "test2" else ())
        return own if own is not None else self.rng.choice(LEX[pool].part(self.split))

    def aspect(self, aspect: str) -> str:
        own = self._own(ASPECTS2.get(aspect, ()) if self.split == "test2" else ())
        return own if own is not None else self.rng.choice(ASPECTS[aspect].part(self.split))

    def typed(self, case: _Case, pool: str = "case_typing") -> str:
        form = self.pick(pool)
        return form.format(
            n=case.number, n6=f"{case.number:06d}", y=case.year, yy=f"{case.year % 100:02d}"
        )

    def typo(self, text: str) -> str:
        words = text.split(" ")
        spots = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
        if not spots:
            return text
        i = self.rng.choice(spots)
        w = words[i]
        j = self.rng.randrange(1, len(w) - 1)
        op = self.rng.randrange(3)
        if op == 0:
            w = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
        elif op == 1:
            w = w[:j] + w[j + 1 :]
        else:
            w = w[:j] + w[j] + w[j:]
        words[i] = w
        return " ".join(words)

    def noisy(self, template: str, **slots: str) -> str:
        """``template`` with typos, filler and moved words, then its slots, then accents and
        capitals dropped as people type them."""
        rng = self.rng
        # the second test set is typed more carelessly: more typos, accents and capitals dropped
        heavy = self.split == "test2"
        text = template
        if "{c}" in text and rng.random() < 0.2:
            # word order: "processo 12/2024, quem é o relator?"
            moved = re.sub(r"\s+(?:do|no|o|pelo|ao|com o)\s+\{c\}", "", text, count=1)
            if moved != text:
                text = "{c}, " + moved
        if rng.random() < (0.4 if heavy else 0.25):
            text = self.typo(text)
        if rng.random() < 0.35:
            text = self.pick("filler_start") + text
        if rng.random() < 0.3:
            text = text.rstrip("?") + self.pick("filler_end")
        text = text.format(**slots) if slots else text
        if rng.random() < (0.7 if heavy else 0.5):
            text = _fold(text)
        if rng.random() < (0.75 if heavy else 0.6):
            text = text.lower()
        return text.strip() or template


def _turn(user: str, kind: str | None, intent: str, **expect: Any) -> dict[str, Any]:
    return {
        "user": user,
        "expect": {"kind": kind, **{k: v for k, v in expect.items() if v}},
        "intent": intent,
    }


@dataclass(slots=True)
class _Scenarios:
    w: _Writer
    cases: list[_Case]
    by_party: dict[str, list[_Case]] = field(default_factory=dict)
    by_topic: dict[tuple[str, str], list[_Case]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for c in self.cases:
            for p in c.parties:
                self.by_party.setdefault(p.name, []).append(c)
            self.by_topic.setdefault((c.subject, c.town), []).append(c)

    def case(self, aspect: str = "status") -> _Case:
        return self.w.rng.choice([c for c in self.cases if c.can(aspect)])

    def aspect_name(self) -> str:
        return self.w.rng.choice(sorted(ASPECTS))

    def ask(self, case: _Case, aspect: str, intent: str = "case") -> dict[str, Any]:
        facts, says = case.fact(aspect)
        user = self.w.noisy(self.w.aspect(aspect), c=self.w.typed(case))
        return _turn(
            user, "case", f"{intent}:{aspect}", case=case.process.number, facts=facts, says=says
        )

    # -- scenarios -------------------------------------------------------------------------
    def one_case(self) -> list[dict[str, Any]]:
        aspect = self.aspect_name()
        case = self.case(aspect)
        turns = [self.ask(case, aspect)]
        while len(turns) < 3 and self.w.rng.random() < 0.6:
            turns.append(self.follow_up(case, "followup_aspect"))
        return turns

    def follow_up(self, case: _Case, pool: str) -> dict[str, Any]:
        aspect, _, text = self.w.pick(pool).partition("|")
        facts, says = case.fact(aspect)
        return _turn(
            self.w.noisy(text),
            "case",
            f"case:{aspect}",
            case=case.process.number,
            facts=facts,
            says=says,
        )

    def two_cases(self) -> list[dict[str, Any]]:
        a = self.case()
        b = self.w.rng.choice([c for c in self.cases if c.year != a.year])
        first = self.ask(a, "status")
        facts, _ = b.fact("status")
        second = _turn(
            self.w.noisy(self.w.pick("new_number_followup"), c=self.w.typed(b)),
            "case",
            "case:status",
            case=b.process.number,
            facts=facts,
        )
        rng = self.w.rng
        choice = rng.randrange(3)
        if choice == 0:
            target, text = a, self.w.pick("other_ref")
        elif choice == 1:
            target, text = b, self.w.pick("last_ref")
        else:
            target, text = (a, b)[rng.randrange(2)], self.w.pick("pick_year")
            text = text.format(y=(a, b)[[a, b].index(target)].year)
        facts, _ = target.fact("status")
        third = _turn(self.w.noisy(text), "case", "thread", case=target.process.number, facts=facts)
        return [first, second, third]

    def clarify(self) -> list[dict[str, Any]]:
        rng = self.w.rng
        if rng.random() < 0.5:
            aspect, first = "status", self.w.pick("vague_case")
        else:
            aspect, _, first = self.w.pick("aspect_no_case").partition("|")
        case = self.case(aspect)
        facts, says = case.fact(aspect)
        reply = self.w.typed(case, "reply_typing")
        return [
            _turn(self.w.noisy(first), "clarify", f"case:{aspect}"),
            _turn(reply, "case", "reply", case=case.process.number, facts=facts, says=says),
        ]

    def find_party(self) -> list[dict[str, Any]]:
        unique = sorted(n for n, cs in self.by_party.items() if len(cs) == 1 and " " in n)
        unique = [n for n in unique if not n.startswith("Prefeitura")]
        name = self.w.rng.choice(unique)
        case = self.by_party[name][0]
        facts, _ = case.fact("status")
        user = self.w.noisy(self.w.pick("find_party"), name=name)
        return [_turn(user, "case", "find", case=case.process.number, facts=facts)]

    def find_topic(self) -> list[dict[str, Any]]:
        rng = self.w.rng
        groups = [
            cs
            for key, cs in sorted(self.by_topic.items())
            if 2 <= len(cs) <= 4 and len({c.year for c in cs}) == len(cs)
        ]
        group = rng.choice(groups)
        user = self.w.noisy(self.w.pick("find_topic"), subject=group[0].subject, town=group[0].town)
        turns = [_turn(user, "search_list", "find")]
        target = rng.choice(group)
        facts, _ = target.fact("status")
        pick = self.w.pick("pick_year").format(y=target.year)
        turns.append(_turn(pick, "case", "reply", case=target.process.number, facts=facts))
        return turns

    def law(self) -> list[dict[str, Any]]:
        rng = self.w.rng
        if rng.random() < 0.4:
            law, art = rng.choice(
                (("9.784", "59"), ("9784", "2"), ("13.709", "5"), ("12.527", "11"), ("8.078", "49"))
            )
            user = self.w.noisy(self.w.pick("law_formal"), a=art, law=law)
            return [_turn(user, "law", "law", article=f"{law.replace('.', '')}:{art}")]
        return [_turn(self.w.noisy(self.w.pick("law_lay")), "law", "law")]

    def mixed(self) -> list[dict[str, Any]]:
        case = self.case()
        facts, _ = case.fact("status")
        case_part = self.w.aspect("status").format(c=self.w.typed(case)).rstrip("?")
        law_part = self.w.pick("law_for_mixed")
        user = self.w.noisy(
            self.w.pick("mixed_join").replace("{case}", case_part).replace("{law}", law_part)
        )
        named = re.search(r"art(?:igo|\.)?\s*(\d+)\s+da\s+lei\s+(?:n[º°.]?\s*)?([\d.]+)", law_part)
        article = f"{named.group(2).replace('.', '')}:{named.group(1)}" if named else None
        return [
            _turn(user, "mixed", "mixed", case=case.process.number, facts=facts, article=article)
        ]

    def single(self, pool: str, kind: str) -> list[dict[str, Any]]:
        return [_turn(self.w.noisy(self.w.pick(pool)), kind, pool)]

    def greeting(self) -> list[dict[str, Any]]:
        turns = self.single("greeting", "other")
        if self.w.rng.random() < 0.5:
            turns += self.clarify()
        return turns

    def injection(self) -> list[dict[str, Any]]:
        case = self.case()
        facts, _ = case.fact("status")
        user = self.w.noisy(self.w.pick("injection"), c=self.w.typed(case))
        return [_turn(user, "case", "injection", case=case.process.number, facts=facts)]

    def short_number(self) -> list[dict[str, Any]]:
        """A number without its year, typed as people do: read against the registry."""
        numbers: dict[int, list[_Case]] = {}
        for c in self.cases:
            numbers.setdefault(c.number, []).append(c)
        alone = sorted(n for n, cs in numbers.items() if len(cs) == 1)
        case = numbers[self.w.rng.choice(alone)][0]
        aspect = self.w.rng.choice(("status", "rapporteur", "location"))
        facts, _ = case.fact(aspect)
        text = self.w.aspect(aspect)
        user = self.w.noisy(text, c=f"processo {case.number}")
        return [_turn(user, "case", f"case:{aspect}", case=case.process.number, facts=facts)]


def generate_set(split: str, seed: int | None = None, conversations: int = 340) -> dict[str, Any]:
    """A conversations file (``{"registry": …, "conversations": […]}``) for ``split``."""
    if split not in SEEDS:
        raise ValueError(f"split must be one of {', '.join(SEEDS)}")
    seed = SEEDS[split] if seed is None else seed
    rng = random.Random(seed)
    sc = _Scenarios(_Writer(rng, split), _cases(seed))
    # the second test set weighs the kinds the first one found weak a little more
    heavy = split == "test2"
    weighted: list[tuple[str, Callable[[], list[dict[str, Any]]], int]] = [
        ("case", sc.one_case, 6),
        ("two", sc.two_cases, 3),
        ("clarify", sc.clarify, 3),
        ("party", sc.find_party, 2),
        ("topic", sc.find_topic, 2),
        ("law", sc.law, 3),
        ("mixed", sc.mixed, 4 if heavy else 3),
        ("scope", lambda: sc.single("scope", "scope"), 3 if heavy else 2),
        ("inst", lambda: sc.single("institutional", "institutional"), 3 if heavy else 2),
        ("missing", lambda: sc.single("missing_norm", "missing_norm"), 2 if heavy else 1),
        ("hello", sc.greeting, 1),
        ("inject", sc.injection, 1),
        ("short", sc.short_number, 2),
    ]
    names = [n for n, _, k in weighted for _ in range(k)]
    out = []
    for i in range(conversations):
        name = names[i % len(names)] if i < len(names) else rng.choice(names)
        make = next(f for n, f, _ in weighted if n == name)
        out.append({"id": f"{split}-{i + 1:03d}-{name}", "turns": make()})
    return {
        "about": (
            f"Generated by colmeia.apps.assistant.turngen ({split}, seed {seed}); "
            "expect as in colmeia.apps.assistant.conversations; intent = what the turn asks"
        ),
        "registry": {
            "generator": "colmeia.apps.assistant.synthetic.generate_registry",
            **REGISTRY,
            "seed": seed,
            "as_of": AS_OF.isoformat(),
        },
        "conversations": out,
    }


@dataclass(frozen=True, slots=True)
class Labelled:
    """One utterance of the training corpus: its intent and the aspect asked."""

    text: str
    intent: str
    aspect: str
    # learnt by the scope-or-law head only: a question shipped with an article of the laws, or
    # one of general knowledge asked in the same forms
    asked: bool = False


def training_corpus(seed: int | None = None, conversations: int = 1500) -> list[Labelled]:
    """Utterances labelled with intent and aspect, from the training seed and the common
    lexicon part only (never the test set's held-apart part)."""
    data = generate_set("train", seed, conversations)
    out: list[Labelled] = []
    w = _Writer(random.Random(SEEDS["train"] if seed is None else seed), "train")
    for _ in range(conversations // 10):
        law = w.rng.choice(("9.784", "9784", "13.709", "12.527", "8.078", "8987", "14.133"))
        text = w.noisy(w.pick("law_named"), law=law, topic=w.pick("law_topic"))
        out.append(Labelled(text, "law", "status"))
        subject = w.rng.choice(
            [*sorted(_SUBJECT_WORDS.values()), "a ponte", "a creche", "o hospital"]
        )
        town = w.rng.choice(("Nova Aurora", "Três Barras", "Riacho Fundo", "Jardim do Vale"))
        text = w.noisy(w.pick("find_described"), subject=subject, town=town)
        out.append(Labelled(text, "find", "status"))
    for conv in data["conversations"]:
        for turn in conv["turns"]:
            intent, _, aspect = str(turn["intent"]).partition(":")
            if intent in ("reply", "thread"):
                continue  # read from the thread's state, not from the words alone
            label = {"injection": "case", "missing_norm": "law"}.get(intent, intent)
            out.append(Labelled(turn["user"], label, aspect or "status"))
    out += _combined(w, _cases(SEEDS["train"] if seed is None else seed), conversations // 3)
    out += _asked_of_the_laws(random.Random(SEEDS["train"] if seed is None else seed))
    # drawn apart (its own generator, last): the utterances above stay as they were
    out += _case_events(random.Random((SEEDS["train"] if seed is None else seed) + 1))
    return out


_PEOPLE_PER_PHRASING = 3


def _case_events(rng: random.Random) -> list[Labelled]:
    """What happened in a case asked of the people in it, and its decision asked by its paper
    (:data:`turngen.trainlex.CASE_EVENTS`), each person × event; beside them the same people
    with a right asked, a law question; and when the case was filed, which its card tells.
    Typed as people type at times (no accents, short
    words)."""
    people, events, decision, rights, filing = CASE_EVENTS

    def typed(text: str) -> str:
        if rng.random() < 0.5:
            text = _fold(text).lower()
        return _abbreviate(rng, text) if rng.random() < 0.3 else text

    def told(frame: str, person: str) -> str:
        # "d{q}": "da empresa", "do prefeito", "deles"
        if "d{q}" in frame:
            head, _, rest = person.partition(" ")
            joined = {"a": "da " + rest, "o": "do " + rest}.get(head, "d" + person)
            return frame.replace("d{q}", joined)
        return frame.format(q=person)

    # a few people per phrasing: the phrasings are what is learnt, and a hundred of one
    # aspect would outweigh the few dozen the templates give the others
    out = [
        Labelled(typed(told(e, p)), "case", "documents")
        for e in events
        for p in rng.sample(people, _PEOPLE_PER_PHRASING)
    ]
    out += [Labelled(typed(d), "case", "judgement") for d in decision]
    out += [Labelled(typed(f), "case", "status") for f in filing]
    out += [
        Labelled(typed(told(r, p)), "law", "status")
        for r in rights
        for p in rng.sample(people, _PEOPLE_PER_PHRASING)
    ]
    return out


# how many of each article's shipped questions the classifier learns from
_ASKED_PER_ARTICLE = 2


def _asked_of_the_laws(rng: random.Random) -> list[Labelled]:
    """Law questions as people ask them, from the questions shipped with each article of the
    laws and the Constitution (:func:`colmeia.rag.expansion.packaged_questions`: written from
    each article's text by many hands, in everyday words and in the law's terms). The
    templates above know a few dozen situations; these are thousands — a purchase gone wrong,
    a fine, a pension, a public office that does not answer —, so what makes a question the
    law's is the right asked about, not a situation the templates happen to hold."""
    table = packaged_questions()
    out: list[Labelled] = []
    # an article's own questions (a long article's parts have theirs by passage, and are
    # not drawn: the corpus, and so the classifier, stays what it was)
    for key in sorted(k for k in table if k.startswith("urn:lex:") and article_urn(k) == k):
        questions = sorted(table[key])
        for text in rng.sample(questions, min(_ASKED_PER_ARTICLE, len(questions))):
            out.append(Labelled(text, "law", "status", asked=True))
    # and what is asked in the same forms about anything else (every frame × subject, typed
    # as people type at times): the form of a question is not what makes it the law's
    groups = GENERAL_KNOWLEDGE
    for frames, subjects in zip(groups[::2], groups[1::2], strict=True):
        for frame in frames:
            for subject in subjects:
                text = frame.format(x=subject)
                if rng.random() < 0.3:
                    text = _abbreviate(rng, _fold(text))
                out.append(Labelled(text, "scope", "status", asked=True))
    return out


def _abbreviate(rng: random.Random, text: str) -> str:
    """Words shortened as people type fast ("vc", "q", "pra", "tb")."""
    for word, short in ABBREVIATIONS.items():

        def shorten(m: re.Match[str], short: tuple[str, ...] = short) -> str:
            return rng.choice(short) if rng.random() < 0.6 else m.group(0)

        text = re.sub(rf"\b{word}\b", shorten, text)
    return text


def _combined(w: _Writer, cases: list[_Case], rounds: int) -> list[Labelled]:
    """Utterances of the weak kinds built as products (frame × topic, case part × law part ×
    join): the kind is what they share, not a sentence (:mod:`turngen.trainlex`)."""
    rng = w.rng
    out: list[Labelled] = []
    frames, topics = SCOPE
    things_frames, things, acts_frames, acts = INSTITUTIONAL
    laws = ("9.784", "9784", "13.709", "12.527", "8.078", "8987", "14.133")

    def law_part() -> str:
        pick = rng.randrange(6)
        if pick == 5:
            art, law = str(rng.randrange(1, 70)), rng.choice(laws)
            return rng.choice(MIXED_LAW).format(a=art, law=law)
        if pick == 0:
            return w.pick("law_lay")
        if pick == 1:
            return rng.choice(LAW_LAY)
        if pick == 2:
            art = str(rng.randrange(1, 70))
            return w.pick("law_formal").format(a=art, law=rng.choice(laws))
        if pick == 3:
            return w.pick("law_named").format(law=rng.choice(laws), topic=w.pick("law_topic"))
        return w.pick("law_for_mixed")

    def said(text: str) -> str:
        text = _abbreviate(rng, text) if rng.random() < 0.35 else text
        return w.noisy(text)

    for _ in range(rounds):
        if rng.random() < 0.75:
            text = rng.choice(frames).format(x=rng.choice(topics))
        else:
            text = rng.choice(acts_frames).format(a=rng.choice(SCOPE_ACTIONS))
        out.append(Labelled(said(text), "scope", "status"))
        if rng.random() < 0.5:
            text = rng.choice(things_frames).format(t=rng.choice(things))
        else:
            text = rng.choice(acts_frames).format(a=rng.choice(acts))
        out.append(Labelled(said(text), "institutional", "status"))
        case = rng.choice(cases)
        aspect = rng.choice([a for a in sorted(ASPECTS) if case.can(a)])
        case_part = w.aspect(aspect).format(c=w.typed(case)).rstrip("?")
        documents = _documents_asked(w, case)
        if rng.random() < 0.2:
            aspect, case_part = "documents", documents.rstrip("?")
        join = rng.choice(MIXED_JOINS)
        mixed = join.replace("{case}", case_part).replace("{law}", law_part())
        out.append(Labelled(said(mixed), "mixed", aspect))
        out.append(Labelled(said(law_part()), "law", "status"))
        told, situation = rng.choice(LAW_SITUATIONS[0]), rng.choice(LAW_SITUATIONS[1])
        out.append(Labelled(said(told.format(s=situation)), "law", "status"))
        out.append(Labelled(said(rng.choice(SOCIAL)), "greeting", "status"))
        # a case question shortened as people type it
        out.append(Labelled(said(w.aspect(aspect).format(c=w.typed(case))), "case", aspect))
        out.append(Labelled(said(documents), "case", "documents"))
        out += _loose(w, said)
    # the court's powers and charter, drawn after every other utterance so that adding them
    # left the rest of the corpus as it was
    court_frames, powers, charter = LAW_COURT
    for _ in range(rounds):
        if rng.random() < 0.6:
            court = rng.choice(court_frames).format(p=rng.choice(powers))
        else:
            court = rng.choice(charter)
        out.append(Labelled(said(court), "law", "status"))
    return out


def _documents_asked(w: _Writer, case: _Case) -> str:
    """A question on what a typed case holds on file (:data:`turngen.trainlex.DOCUMENTS_ASKED`):
    a document named (a parecer, a defence, an audit report) or papers in the plural."""
    frames, documents, papers = DOCUMENTS_ASKED
    frame = w.rng.choice(frames)
    return frame.format(c=w.typed(case), d=w.rng.choice(documents), p=w.rng.choice(papers))


def _loose(w: _Writer, said: Callable[[str], str]) -> list[Labelled]:
    """One of each kind people say loosely (:mod:`turngen.trainlex`): a case without its
    number, personal advice, a visit to the court, a case described by its subject or party, a
    follow-up on the thread's case by aspect, a reach for the assistant's machinery."""
    rng = w.rng
    frames, objects = VAGUE_CASE
    vague = rng.choice(frames).format(o=rng.choice(objects))
    situations, advice = ADVICE
    personal = rng.choice(advice).format(s=rng.choice(situations))
    questions, reasons, visits = VISIT
    visit = rng.choice(visits).format(q=rng.choice(questions), r=rng.choice(reasons))
    looks, things = FIND_LOOSE
    look = rng.choice(looks).format(d=rng.choice(things))
    aspect = rng.choice(sorted(FOLLOW_UP))
    follow = rng.choice(FOLLOW_UP[aspect])
    dresses, requests = META
    meta = rng.choice(dresses).format(r=rng.choice(requests))
    by_whom = rng.choice(FIND_BY_RAPPORTEUR[0]).format(r=rng.choice(FIND_BY_RAPPORTEUR[1]))
    # personal trouble is told in the first person as the law situations are: two more of
    # those beside it, so that what is told, not "meu" or "eu", decides
    told = [rng.choice(LAW_SITUATIONS[0]).format(s=rng.choice(LAW_SITUATIONS[1])) for _ in "ab"]
    return [
        Labelled(said(vague), "case", "status"),
        Labelled(said(personal), "scope", "status"),
        *(Labelled(said(t), "law", "status") for t in told),
        Labelled(said(visit), "institutional", "status"),
        Labelled(said(look), "find", "status"),
        Labelled(said(follow), "case", aspect),
        Labelled(said(meta), "scope", "status"),
        Labelled(said(by_whom), "find", "status"),
    ]
