"""Whether each rule of a policy file can take effect, and the policy each record really gets.

A policy file validates field by field (:mod:`colmeia.apps.moderation.policy`), but a file can be
valid and still do nothing: ``forbidden_terms`` in a section whose records never run the
``terms`` check, or ``checks: [competitor]`` with no competitor named anywhere. A team reading
``policy show`` would believe the words are forbidden. Every such rule is an error here, with
the path of the setting so the caller can name its line.

A record takes ``default``, then its category's section, then its store's (see the policy
module): so a setting takes effect when, in at least one combination of sections it belongs to,
the checks in force there include its check. Combinations are enumerated, not guessed: a
category section's terms can be switched on by a store section's ``checks``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


# The shapes of the policy module's PolicyRules and PolicyFile, read-only: that module imports
# this one to validate its files, so this one names what it reads instead of importing them.
class PolicyRules(Protocol):
    @property
    def checks(self) -> Sequence[str] | None: ...
    @property
    def competitors(self) -> Sequence[str]: ...
    @property
    def forbidden_terms(self) -> Sequence[str]: ...
    @property
    def allow(self) -> Sequence[str]: ...
    @property
    def language(self) -> str | None: ...


class PolicyFile(Protocol):
    @property
    def default(self) -> PolicyRules: ...
    @property
    def categories(self) -> Mapping[str, PolicyRules]: ...
    @property
    def stores(self) -> Mapping[str, PolicyRules]: ...


__all__ = ["EffectiveRules", "effect_problems", "effective_sections"]

# Which checks a setting feeds: the setting does nothing unless one of them runs.
_FEEDS: dict[str, tuple[str, ...]] = {
    "forbidden_terms": ("terms",),
    "competitors": ("competitor",),
    "allow": ("phone", "email", "link"),
    "language": ("language",),
}
# Which setting a check needs: listed explicitly without it anywhere, the check can never fire.
_NEEDS: dict[str, str] = {"terms": "forbidden_terms", "competitor": "competitors"}

Loc = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class _Section:
    loc: Loc  # ("default",) or ("categories", name) or ("stores", name): the identity
    rules: PolicyRules = field(compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class EffectiveRules:
    """What the records under one combination of sections are checked against."""

    sections: tuple[str, ...]
    checks: tuple[str, ...]
    competitors: tuple[str, ...]
    forbidden_terms: tuple[str, ...]
    allow: tuple[str, ...]
    language: str

    def line(self) -> str:
        """One line a person reads: which sections, which checks, with what data."""
        if not self.checks:
            return f"{' + '.join(self.sections)}: no check runs (only the agents judge)"
        parts = [f"checks {', '.join(self.checks)}"]
        if "language" in self.checks:
            parts.append(f"language {self.language}")
        for name, values in (
            ("competitors", self.competitors),
            ("forbidden_terms", self.forbidden_terms),
            ("allow", self.allow),
        ):
            # Data whose check does not run here is not part of what these records get.
            if values and any(check in self.checks for check in _FEEDS[name]):
                parts.append(f"{name} {', '.join(values)}")
        return f"{' + '.join(self.sections)}: {'; '.join(parts)}"


def _name(section: _Section) -> str:
    if len(section.loc) == 1:
        return str(section.loc[0])
    kind = "category" if section.loc[0] == "categories" else "store"
    return f"{kind} {section.loc[1]!r}"


def _combinations(spec: PolicyFile) -> Iterator[tuple[_Section, ...]]:
    """Every list of sections some record can take: default, then category, then store."""
    default = _Section(("default",), spec.default)
    categories = [None] + [_Section(("categories", k), v) for k, v in spec.categories.items()]
    stores = [None] + [_Section(("stores", k), v) for k, v in spec.stores.items()]
    for category in categories:
        for store in stores:
            yield tuple(s for s in (default, category, store) if s is not None)


def _merge(combo: tuple[_Section, ...], all_checks: tuple[str, ...]) -> EffectiveRules:
    checks: tuple[str, ...] = all_checks
    language = "question"
    competitors: list[str] = []
    terms: list[str] = []
    allow: list[str] = []
    for section in combo:
        rules = section.rules
        if rules.checks is not None:
            checks = tuple(rules.checks)
        language = rules.language or language
        competitors += rules.competitors
        terms += rules.forbidden_terms
        allow += rules.allow
    return EffectiveRules(
        sections=tuple(_name(s) for s in combo),
        checks=checks,
        competitors=tuple(dict.fromkeys(competitors)),
        forbidden_terms=tuple(dict.fromkeys(terms)),
        allow=tuple(dict.fromkeys(allow)),
        language=language,
    )


def _checks_owner(combo: tuple[_Section, ...]) -> _Section | None:
    """The section whose ``checks`` list is in force for this combination (the last to set one)."""
    owner = None
    for section in combo:
        if section.rules.checks is not None:
            owner = section
    return owner


def effect_problems(spec: PolicyFile, all_checks: tuple[str, ...]) -> list[tuple[Loc, str]]:
    """Every rule of ``spec`` that can never take effect, as (path of the setting, message)."""
    combos = [(combo, _merge(combo, all_checks)) for combo in _combinations(spec)]
    problems: list[tuple[Loc, str]] = []
    sections = {s.loc: s for combo, _ in combos for s in combo}
    for loc, section in sections.items():
        rules = section.rules
        for setting, feeds in _FEEDS.items():
            if not getattr(rules, setting):
                continue
            runs = any(
                any(check in effective.checks for check in feeds)
                for combo, effective in combos
                if section in combo
            )
            if not runs:
                wanted = " or ".join(f"`{c}`" for c in feeds)
                problems.append(
                    (
                        (*loc, setting),
                        f"{setting} can never take effect: no record under {_name(section)} "
                        f"runs the {wanted} check; add it to `checks` or remove {setting}",
                    )
                )
        for index, check in enumerate(rules.checks or ()):
            needed = _NEEDS.get(check)
            if needed is None:
                continue
            owned = [eff for combo, eff in combos if _checks_owner(combo) == section]
            if owned and not any(getattr(eff, needed) for eff in owned):
                problems.append(
                    (
                        (*loc, "checks", index),
                        f"the `{check}` check can never find anything: no section that applies "
                        f"with {_name(section)} lists {needed}; add {needed} or drop the check",
                    )
                )
    return problems


def effective_sections(spec: PolicyFile, all_checks: tuple[str, ...]) -> list[EffectiveRules]:
    """The policy each combination of sections really applies, default first."""
    return [_merge(combo, all_checks) for combo in _combinations(spec)]
