"""Store policies: rules an answer must keep, checked by code before and after the model.

Reviewers are models and can be talked round; a policy is not. Each answer — the original before
any model sees it, and every rewrite as soon as the rewriter returns it — is checked here, and a
rewrite that breaks a rule is never accepted: it goes back to the rewriter with the violation
named, or, at the rewrite cap, the item is withheld. An original that breaks a rule is never kept.

A policy file (YAML, TOML or JSON) holds a ``default`` section and optional sections per
``categories`` and ``stores`` (the record field naming the store is ``store_field``, a dotted
path, ``store`` by default)::

    store_field: store
    default:
      checks: [phone, email, link, competitor, warranty, language, terms]
      language: question          # the record's locale; or pt / es / en
      competitors: [Mercado Livre, Magazine Luiza]
      allow: [loja.example.com.br, sac@loja.example.com.br]
    categories:
      Ferramentas: {threshold: 7, max_rewrites: 2}
    stores:
      Loja Centro: {competitors: [Casa do Construtor]}

A record takes ``default``, then its category's section, then its store's: ``threshold``,
``max_rewrites``, ``language`` and ``checks`` are replaced; ``competitors``, ``forbidden_terms``
and ``allow`` add up. The run's threshold and cap (``--threshold``/``--max-rewrites`` or the
moderation config) are the default; a category or store section may set its own.

The checks aim at precision (a false alarm costs a rewrite, a miss reaches a customer):

* ``phone``: numbers a phone library (libphonenumber's port) accepts as valid for the regions
  of the answer's language; a bare digit run that also appears in the product context is a
  product code, not a phone number;
* ``email`` and ``link``: addresses, URLs and bare domains, except those in ``allow``;

A phone number, e-mail address or link that the record's own product context or store metadata
gives is allowed whatever the checks say: the store told the answer to give it (the paper's
decider rule), so the check can't call it a violation.

Without a policy file the built-in default runs every check in the record's language. ``none``
(``--policy none``) runs no check at all: the paper's pure-model review, where only the agents
judge an answer.
* ``competitor``: a listed name, case and accents ignored, unless the product context names it
  (a compatible product, an accessory);
* ``warranty``: a warranty duration, lifetime or extended warranty the context does not state;
* ``language``: the answer is not in the required language, or has a sentence in another one
  (see :mod:`colmeia.apps.moderation.language`);
* ``terms``: any of ``forbidden_terms``.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from colmeia.apps.moderation.language import (
    LANGUAGES,
    detect,
    language_name,
    normalise_language,
    wrong_language,
)
from colmeia.apps.moderation.policy_effect import effect_problems, effective_sections
from colmeia.apps.moderation.records import ModerationItem
from colmeia.errors import ConfigurationError

__all__ = [
    "CHECKS",
    "NO_POLICY",
    "RULE_HELP",
    "Policy",
    "PolicyFile",
    "PolicyRules",
    "PolicySet",
    "Violation",
    "load_policy",
    "policy_problems",
]

Check = Literal["phone", "email", "link", "competitor", "warranty", "language", "terms"]
NO_POLICY = "none"  # --policy none: no rule runs
CHECKS: tuple[Check, ...] = (
    "phone",
    "email",
    "link",
    "competitor",
    "warranty",
    "language",
    "terms",
)


# What each check does, in the words `colmeia moderate policy show` and the docs use.
RULE_HELP: dict[str, str] = {
    "phone": "no phone number (numbers libphonenumber accepts for the answer's language's "
    "regions); a number the product context or store metadata gives, or a product code from "
    "the context, is allowed",
    "email": "no e-mail address, except those in `allow` or given by the context/metadata",
    "link": "no URL or bare domain, except those in `allow` or given by the context/metadata "
    "(the same link, or its site)",
    "competitor": "no name from `competitors` (case and accents ignored) unless the product "
    "context names it (a compatible product, an accessory)",
    "warranty": "no warranty duration, lifetime or extended warranty the context does not state",
    "language": "the answer is in the required language (`language`: question = the record's "
    "locale, or pt/es/en) with no sentence in another",
    "terms": "none of `forbidden_terms` (whole words, case and accents ignored)",
}


class PolicyRules(BaseModel):
    """One section of a policy file."""

    model_config = ConfigDict(extra="forbid")

    threshold: float | None = Field(
        default=None, ge=0, le=10, description="Keep the original when the review sum > this."
    )
    max_rewrites: int | None = Field(default=None, ge=1, le=10, description="Rewrite cap.")
    language: str | None = Field(
        default=None,
        description='Required language of answers: "question" (the record\'s locale), pt, es, en.',
    )
    checks: list[Check] | None = Field(
        default=None, description="Which checks run (all by default)."
    )
    competitors: list[str] = Field(default_factory=list, description="Names never to mention.")
    forbidden_terms: list[str] = Field(default_factory=list, description="Words never to use.")
    allow: list[str] = Field(
        default_factory=list,
        description="Domains, e-mail addresses and phone numbers that answers may contain.",
    )

    @field_validator("language")
    @classmethod
    def _known_language(cls, v: str | None) -> str | None:
        if v is None or v == "question":
            return v
        code = normalise_language(v)
        if code is None:
            raise ValueError(f"must be 'question' or one of {', '.join(LANGUAGES)}, not {v!r}")
        return code


class PolicyFile(BaseModel):
    """A whole policy file."""

    model_config = ConfigDict(extra="forbid")

    store_field: str = Field(default="store", description="Dotted path of the store's name.")
    default: PolicyRules = Field(default_factory=PolicyRules)
    categories: dict[str, PolicyRules] = Field(default_factory=dict)
    stores: dict[str, PolicyRules] = Field(default_factory=dict)

    @field_validator("default")
    @classmethod
    def _run_settings_stay_in_the_run(cls, v: PolicyRules) -> PolicyRules:
        if v.threshold is not None or v.max_rewrites is not None:
            raise ValueError(
                "threshold and max_rewrites of the whole run are set with --threshold/"
                "--max-rewrites or the moderation config; in a policy they belong to "
                "categories and stores"
            )
        return v


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: which, what was found, and a sentence a rewriter can act on."""

    rule: str
    found: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "found": self.found, "message": self.message}


def _fold(text: str) -> str:
    """Lower case without accents, for matching names whatever their spelling."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=512)
def _word_pattern(folded: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(folded)}(?!\w)")


# -- the individual checks --------------------------------------------------------------------

# Something that could be a phone number: 7+ characters of digits and separators. Most answers
# have none, so the phone library (≈2 ms per text) runs only when this matches.
_PHONE_CANDIDATE = re.compile(r"\+?\(?\d[\d\s().-]{5,}\d")
_REGIONS = {
    "pt": ("BR", "PT"),
    "es": ("ES", "MX", "AR", "CO", "CL", "PE"),
    "en": ("US", "GB"),
}
_DIGITS = re.compile(r"\D")
# Shapes phone libraries accept that answers use for other things: model-year ranges ("Onix
# 2013-2019" is a valid 8-digit number in some regions).
_NOT_A_PHONE = re.compile(r"(?:19|20)\d\d\s*[-–/]\s*(?:19|20)\d\d")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"(?:\bhttps?://|\bwww\.)[^\s<>\"')\]]+", re.IGNORECASE)
_TLDS = "com|net|org|info|biz|shop|store|online|site|app|io|br|es|mx|ar|co|cl|pe|uy|pt"
_DOMAIN = re.compile(
    rf"(?<![\w@.-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:{_TLDS})(?![\w-])(?:/\S*)?",
    re.IGNORECASE,
)
_WARRANTY = re.compile(r"\b(?:garant[ií]as?|warrant(?:y|ies)|guarantee)\b", re.IGNORECASE)
_NUMBER_WORDS = {
    "um": 1, "uma": 1, "un": 1, "una": 1, "one": 1,
    "dois": 2, "duas": 2, "dos": 2, "two": 2,
    "tres": 3, "três": 3, "three": 3,
    "seis": 6, "six": 6,
    "doze": 12, "doce": 12, "twelve": 12,
}  # fmt: skip
_DURATION = re.compile(
    r"\b(\d{1,3}|" + "|".join(_NUMBER_WORDS) + r")\s*(?:\(\d{1,3}\)\s*)?"
    r"(anos?|años?|years?|mes(?:es)?|months?|d[ií]as?|days?)\b",
    re.IGNORECASE,
)
_UNBOUNDED = re.compile(
    r"vital[ií]ci\w*|de por vida|para sempre|para siempre|lifetime|ilimitad\w*|unlimited|"
    r"estendida|extendida|extended",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"(?<=[.!?;])\s+|\n+")


def _days(match: re.Match[str]) -> int:
    """``"2 anos"`` → 720, ``"doce meses"`` → 360: durations compared in days (a year is
    twelve 30-day months here, so "1 ano" and "12 meses" are the same promise)."""
    number, unit = match.group(1), _fold(match.group(2))
    n = int(number) if number.isdigit() else _NUMBER_WORDS.get(number.casefold(), 0)
    if unit.startswith(("ano", "year")):
        return n * 360
    if unit.startswith(("mes", "month")):
        return n * 30
    return n


def _durations(text: str) -> set[int]:
    return {_days(m) for m in _DURATION.finditer(text)}


def _warranty_terms(context: str) -> tuple[set[int], bool]:
    """Durations the context states for a warranty, and whether it states an unbounded one."""
    durations: set[int] = set()
    unbounded = False
    for clause in _CLAUSE.split(context):
        if _WARRANTY.search(clause) or "garant" in clause.casefold():
            durations |= _durations(clause)
            unbounded = unbounded or bool(_UNBOUNDED.search(clause))
    return durations, unbounded


@dataclass(frozen=True, slots=True)
class Policy:
    """The rules for one item, after its category and store sections were applied."""

    name: str
    threshold: float
    max_rewrites: int
    language: str | None
    checks: frozenset[str]
    competitors: tuple[str, ...] = ()
    forbidden_terms: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    _allowed_digits: frozenset[str] = field(default=frozenset(), repr=False)

    def instructions(self) -> list[str]:
        """The rules as sentences for the suggester and rewriter prompts."""
        out = []
        if self.language and "language" in self.checks:
            out.append(f"Write the answer in {language_name(self.language)} only.")
        banned = [
            w
            for w, c in (
                ("phone numbers", "phone"),
                ("e-mail addresses", "email"),
                ("links", "link"),
            )
            if c in self.checks
        ]
        if banned:
            allowed = f" (allowed: {', '.join(self.allow)})" if self.allow else ""
            out.append(f"Never include {', '.join(banned)}{allowed}.")
        if self.competitors and "competitor" in self.checks:
            out.append(
                "Never name these competitors unless the product context does: "
                + ", ".join(self.competitors)
                + "."
            )
        if "warranty" in self.checks:
            out.append(
                "Never promise a warranty (duration, lifetime, extension) the context does not state."
            )
        if self.forbidden_terms and "terms" in self.checks:
            out.append("Never use these words: " + ", ".join(self.forbidden_terms) + ".")
        return out

    def check(self, text: str, context: str = "") -> list[Violation]:
        """Every rule ``text`` breaks; ``context`` is the product context and store rules."""
        found: list[Violation] = []
        checks = self.checks
        if not checks:
            return found
        if "phone" in checks:
            found += self._phones(text, context)
        emails: list[str] = []
        if "email" in checks or "link" in checks:
            emails = _EMAIL.findall(text)
        if "email" in checks:
            given = {e.casefold() for e in _EMAIL.findall(context)}
            found += [
                Violation("email", e, f"remove the e-mail address {e}")
                for e in emails
                if not self._allowed(e) and e.casefold() not in given
            ]
        if "link" in checks:
            found += self._links(_EMAIL.sub(" ", text), _given_links(context))
        if "competitor" in checks and self.competitors:
            folded, folded_context = _fold(text), _fold(context)
            for name in self.competitors:
                pattern = _word_pattern(_fold(name))
                if pattern.search(folded) and not pattern.search(folded_context):
                    found.append(
                        Violation("competitor", name, f"do not mention the competitor {name}")
                    )
        if "terms" in checks and self.forbidden_terms:
            folded = _fold(text)
            found += [
                Violation("terms", term, f"do not use the term {term!r}")
                for term in self.forbidden_terms
                if _word_pattern(_fold(term)).search(folded)
            ]
        if "warranty" in checks:
            found += self._warranty(text, context)
        if "language" in checks and self.language:
            problem = wrong_language(text, self.language)
            if problem:
                found.append(
                    Violation(
                        "language",
                        self.language,
                        f"the answer must be in {language_name(self.language)} only; it is {problem}",
                    )
                )
        return found

    # -- helpers

    def _allowed(self, value: str) -> bool:
        v = value.casefold().rstrip("/.")
        for allowed in self.allow:
            a = allowed.casefold()
            host = re.sub(r"^(?:https?://)?(?:www\.)?", "", v).split("/", 1)[0].split("@")[-1]
            if v == a or host == a or host.endswith("." + a):
                return True
        return False

    def _phones(self, text: str, context: str) -> list[Violation]:
        if not _PHONE_CANDIDATE.search(text):
            return []
        from phonenumbers import Leniency, PhoneNumberMatcher  # imported on first candidate

        context_digits = {_DIGITS.sub("", m) for m in _PHONE_CANDIDATE.findall(context)}
        regions: Iterable[str] = _REGIONS.get(self.language or "", ()) or [
            r for rs in _REGIONS.values() for r in rs
        ]
        out: dict[str, Violation] = {}
        for region in regions:
            for match in PhoneNumberMatcher(text, region, leniency=Leniency.VALID):
                raw = match.raw_string.strip()
                digits = _DIGITS.sub("", raw)
                if digits in self._allowed_digits or raw in out or _NOT_A_PHONE.fullmatch(raw):
                    continue
                before = text[match.start - 1 : match.start] if match.start else ""
                if before and (before.isdigit() or before in "./-"):
                    continue  # the tail of a longer number (a CNPJ, a part number)
                if digits in context_digits:
                    # A product code from the context, or a phone number the product context or
                    # store metadata gives: either way the answer may repeat it.
                    continue
                out[raw] = Violation("phone", raw, f"remove the phone number {raw}")
        return list(out.values())

    def _links(self, text: str, given: frozenset[str] = frozenset()) -> list[Violation]:
        out: list[Violation] = []
        spans: list[tuple[int, int]] = []
        for m in [*_URL.finditer(text), *_DOMAIN.finditer(text)]:
            if any(m.start() < end and start < m.end() for start, end in spans):
                continue  # the same link, found by both patterns
            spans.append(m.span())
            link = m.group(0).rstrip(".,;:!?")
            if not self._allowed(link) and _link_key(link) not in given:
                out.append(Violation("link", link, f"remove the link {link}"))
        return out

    def _warranty(self, text: str, context: str) -> list[Violation]:
        stated, unbounded_ok = _warranty_terms(context)
        said = "states another term" if stated else "says nothing about a warranty"
        out = []
        for clause in _CLAUSE.split(text):
            if not _WARRANTY.search(clause):
                continue
            promised = next((m for m in _DURATION.finditer(clause) if _days(m) not in stated), None)
            unbounded = _UNBOUNDED.search(clause)
            if promised:
                out.append(
                    Violation(
                        "warranty",
                        promised.group(0),
                        f"do not promise a warranty of {promised.group(0)}: the product "
                        f"context {said}",
                    )
                )
            elif unbounded and not unbounded_ok:
                out.append(
                    Violation(
                        "warranty",
                        unbounded.group(0),
                        f"do not promise a {unbounded.group(0)} warranty: the context does not "
                        "state it",
                    )
                )
        return out


def _link_key(link: str) -> str:
    """A link as compared with the ones the context gives: no scheme, ``www.``, case, or
    trailing slash (``https://www.Loja.com/x/`` and ``loja.com/x`` are the same link)."""
    key = re.sub(r"^(?:https?://)?(?:www\.)?", "", link.strip().casefold())
    return key.rstrip("/.,;:!?")


def _given_links(context: str) -> frozenset[str]:
    """Every link of the product context and store metadata, and each one's host alone (an
    answer may name the store's site without the page)."""
    keys: set[str] = set()
    for m in [*_URL.finditer(context), *_DOMAIN.finditer(context)]:
        key = _link_key(m.group(0))
        keys.add(key)
        keys.add(key.split("/", 1)[0])
    return frozenset(keys)


def context_text(context: Mapping[str, Any], rules: Iterable[Mapping[str, Any]]) -> str:
    """The product context and store rules as one text, for the checks that look at them."""
    parts = [f"{k}: {v}" for k, v in context.items()]
    parts += [f"{k}: {v}" for entry in rules for k, v in entry.items()]
    return "\n".join(parts)


def _lookup(item: ModerationItem, path: str) -> str | None:
    """The value at a dotted ``path`` of a record (through objects and lists), as text."""
    node: Any = item.model_extra or {}
    parts = path.split(".")
    if parts[0] in ModerationItem.model_fields:
        node = {parts[0]: getattr(item, parts[0])}
    for part in parts:
        if isinstance(node, list):
            node = next((x.get(part) for x in node if isinstance(x, dict) and part in x), None)
        elif isinstance(node, dict):
            node = node.get(part)
        else:
            return None
    if node is None or isinstance(node, dict | list):
        return None
    return str(node)


class PolicySet:
    """A policy file, resolved per item (results are cached per category/store/locale)."""

    def __init__(
        self, spec: PolicyFile | None = None, *, source: str | None = None, digest: str = ""
    ) -> None:
        self.spec = spec or PolicyFile()
        self.source = source
        self.digest = digest
        self._categories = {_fold(k): v for k, v in self.spec.categories.items()}
        self._stores = {_fold(k): v for k, v in self.spec.stores.items()}
        self._cache: dict[tuple[str, str, str, float, int], Policy] = {}

    @classmethod
    def none(cls) -> PolicySet:
        """No check at all: the paper's pure-model review (``--policy none``)."""
        return cls(PolicyFile(default=PolicyRules(checks=[])), source=NO_POLICY)

    @property
    def label(self) -> str:
        """How the policy is named on screen, in the manifest and in the report."""
        if self.source == NO_POLICY:
            return "none (pure-model review: no rule is checked)"
        return self.source or "built-in default (no policy file)"

    def default_checks(self) -> list[str]:
        """The checks of the ``default`` section (every check unless it says otherwise)."""
        checks = self.spec.default.checks
        return list(CHECKS) if checks is None else list(checks)

    def summary(self) -> str:
        """One line: which policy, which checks, what is allowed (printed at the start of a run)."""
        checks = self.default_checks()
        if not checks:
            return f"policy: {self.label}"
        d = self.spec.default
        parts = [f"policy: {self.label}", f"checks {', '.join(checks)}"]
        if "language" in checks:
            parts.append(f"language: {d.language or 'question'}")
        if d.allow:
            parts.append(f"allowed: {', '.join(d.allow)}")
        parts.append("links/phones/e-mails given by the context or store metadata allowed")
        extra = len(self.spec.categories) + len(self.spec.stores)
        if extra:
            parts.append(f"{extra} category/store section(s)")
        return "; ".join(parts)

    def explain(self) -> list[str]:
        """Every section and the rules it sets, as lines a person reads."""
        lines = [f"policy: {self.label}"]
        if self.digest:
            lines.append(f"sha256 {self.digest}")
        if self.spec.store_field != "store":
            lines.append(f"store name read from the record field {self.spec.store_field!r}")
        sections = [("default", self.spec.default)]
        sections += [(f"category {k!r}", v) for k, v in self.spec.categories.items()]
        sections += [(f"store {k!r}", v) for k, v in self.spec.stores.items()]
        for name, rules in sections:
            lines.append(f"[{name}]")
            checks = rules.checks
            if name == "default" and checks is None:
                checks = list(CHECKS)
            if checks is not None:
                if not checks:
                    lines.append("  no check runs: only the agents judge the answers")
                for check in checks:
                    lines.append(f"  {check}: {RULE_HELP[check]}")
            for key in ("threshold", "max_rewrites", "language"):
                value = getattr(rules, key)
                if value is not None:
                    lines.append(f"  {key} = {value}")
            for key in ("competitors", "forbidden_terms", "allow"):
                values = getattr(rules, key)
                if values:
                    lines.append(f"  {key} += {', '.join(values)}")
        return lines

    def effective(self) -> list[str]:
        """The checks and data each combination of sections really applies, one line each."""
        return [rules.line() for rules in effective_sections(self.spec, CHECKS)]

    def describe(self) -> dict[str, Any]:
        """What the run manifest records about the policy."""
        return {
            "source": self.source,
            "label": self.label,
            "checks": self.default_checks(),
            "sha256": self.digest,
            "rules": self.spec.model_dump(mode="json", exclude_defaults=True),
        }

    def store_of(self, item: ModerationItem) -> str:
        return _lookup(item, self.spec.store_field) or ""

    def resolve(
        self,
        *,
        category: str,
        store: str,
        locale: str,
        question: str,
        threshold: float,
        max_rewrites: int,
    ) -> Policy:
        """The rules for an item of this category, store and locale."""
        key = (
            _fold(category),
            _fold(store),
            normalise_language(locale) or "",
            threshold,
            max_rewrites,
        )
        policy = self._cache.get(key)
        if policy is None:
            policy = self._cache[key] = self._build(key)
        if policy.language == "question":
            # No locale on the record: trust the question's language only when it is clear.
            guess = detect(question) if question.strip() else None
            sure = guess is not None and guess.confidence >= 0.9
            return replace(policy, language=guess.language if guess and sure else None)
        return policy

    def _build(self, key: tuple[str, str, str, float, int]) -> Policy:
        category, store, locale, threshold, max_rewrites = key
        sections = [("default", self.spec.default)]
        if category in self._categories:
            sections.append((f"category {category}", self._categories[category]))
        if store in self._stores:
            sections.append((f"store {store}", self._stores[store]))
        language: str | None = "question"
        checks: list[str] = list(CHECKS)
        competitors: list[str] = []
        terms: list[str] = []
        allow: list[str] = []
        for _, rules in sections:
            threshold = rules.threshold if rules.threshold is not None else threshold
            max_rewrites = rules.max_rewrites or max_rewrites
            language = rules.language or language
            checks = list(rules.checks) if rules.checks is not None else checks
            competitors += rules.competitors
            terms += rules.forbidden_terms
            allow += rules.allow
        if language == "question" and locale:
            language = locale
        return Policy(
            name=" + ".join(name for name, _ in sections),
            threshold=threshold,
            max_rewrites=max_rewrites,
            language=language,
            checks=frozenset(checks),
            competitors=tuple(dict.fromkeys(competitors)),
            forbidden_terms=tuple(dict.fromkeys(terms)),
            allow=tuple(dict.fromkeys(allow)),
            _allowed_digits=frozenset(
                d for a in allow if "@" not in a and len(d := _DIGITS.sub("", a)) >= 7
            ),
        )


def _line_of(text: str, suffix: str, loc: tuple[Any, ...]) -> int | None:
    """The line (1-based) where ``loc`` (a path of keys/indexes) is written in the file."""
    if suffix in (".yaml", ".yml", ".json"):
        try:
            node: Any = yaml.compose(text)  # JSON is YAML too, and composing keeps positions
        except yaml.YAMLError:
            return None
        line: int | None = node.start_mark.line + 1 if node is not None else None
        for part in loc:
            if isinstance(node, yaml.MappingNode):
                found = next(
                    ((k, v) for k, v in node.value if str(getattr(k, "value", "")) == str(part)),
                    None,
                )
                if found is None:
                    break
                line, node = found[0].start_mark.line + 1, found[1]
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
                if part >= len(node.value):
                    break
                node = node.value[part]
                line = node.start_mark.line + 1
            else:
                break
        return line
    # TOML: tomllib keeps no positions. Each line is read as the path it writes (a table
    # header, or a key inside the table above it): the problem is where the longest part of
    # ``loc`` is written, so the same key in two tables is told apart.
    keys = [str(p) for p in loc if not isinstance(p, int)]
    written: list[tuple[int, list[str]]] = []
    table: list[str] = []
    for n, text_line in enumerate(text.splitlines(), start=1):
        if header := _TOML_HEADER.match(text_line):
            table = _toml_path(header.group(1))
            written.append((n, table))
        elif key := _TOML_KEY.match(text_line):
            written.append((n, table + _toml_path(key.group(1))))
    for depth in range(len(keys), 0, -1):
        for n, path in written:
            if path == keys[:depth]:
                return n
    return None


_TOML_NAME = r"""(?:[\w-]+|"[^"]*"|'[^']*')"""
_TOML_HEADER = re.compile(rf"^\s*\[\[?\s*({_TOML_NAME}(?:\s*\.\s*{_TOML_NAME})*)\s*\]")
_TOML_KEY = re.compile(rf"^\s*({_TOML_NAME}(?:\s*\.\s*{_TOML_NAME})*)\s*=")


def _toml_path(dotted: str) -> list[str]:
    """``categories."Ferramentas".threshold`` → ``["categories", "Ferramentas", "threshold"]``."""
    return [m.strip("\"'") for m in re.findall(_TOML_NAME, dotted)]


def policy_problems(path: Path | str) -> tuple[PolicySet | None, list[str]]:
    """Read a policy file; return it (``None`` when unusable) and every problem found, each
    one line ``FILE:LINE: where: what`` (the line when it can be told)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, [f"{path}: cannot read the policy file ({exc.strerror})"]
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json", ".yaml", ".yml"):
        return None, [f"{path}: a policy file must end in .yaml, .yml, .toml or .json"]
    try:
        text = data.decode("utf-8-sig")
        if suffix == ".toml":
            raw: Any = tomllib.loads(text)
        elif suffix == ".json":
            raw = json.loads(text)
        else:
            raw = yaml.safe_load(text)
    except UnicodeDecodeError as exc:
        return None, [f"{path}: not UTF-8 text (byte {exc.start})"]
    except json.JSONDecodeError as exc:
        return None, [f"{path}:{exc.lineno}: not a valid policy file (JSON: {exc.msg})"]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f":{mark.line + 1}" if mark is not None else ""
        return None, [f"{path}{where}: not a valid policy file (YAML: {exc.problem or exc})"]
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        # tomllib says "(at line 3, column 7)" in its message
        detail = str(exc).splitlines()[0]
        m = re.search(r"line (\d+)", detail)
        where = f":{m.group(1)}" if m else ""
        return None, [f"{path}{where}: not a valid policy file ({detail})"]
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        return None, [f"{path}:1: the policy must be a mapping at the top level"]
    try:
        spec = PolicyFile.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for e in exc.errors(include_url=False):
            loc = tuple(e["loc"])
            line = _line_of(text, suffix, loc)
            where = f"{path}:{line}" if line else str(path)
            msg = str(e["msg"]).removeprefix("Value error, ")
            if e["type"] == "extra_forbidden":
                msg = f"unknown setting; a section takes {', '.join(PolicyRules.model_fields)}"
                if len(loc) == 1:
                    msg = (
                        f"unknown setting; the top level takes {', '.join(PolicyFile.model_fields)}"
                    )
            problems.append(f"{where}: {'.'.join(str(p) for p in loc)}: {msg}")
        return None, problems
    problems = []
    for loc, msg in effect_problems(spec, CHECKS):
        line = _line_of(text, suffix, loc)
        where = f"{path}:{line}" if line else str(path)
        problems.append(f"{where}: {'.'.join(str(p) for p in loc)}: {msg}")
    if problems:
        return None, problems
    return PolicySet(spec, source=str(path), digest=hashlib.sha256(data).hexdigest()), []


def load_policy(path: Path | str) -> PolicySet:
    """Read a policy file (``.yaml``/``.yml``, ``.toml`` or ``.json``); a problem raises
    :class:`ConfigurationError` naming the file and line."""
    policy, problems = policy_problems(path)
    if policy is None or problems:
        raise ConfigurationError("; ".join(problems))
    return policy
