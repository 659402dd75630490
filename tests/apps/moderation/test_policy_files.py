"""Policy files in each format, their errors, and every check reporting what it found.

A store team writes the policy by hand: each format loads the same rules, a mistake is one
``ConfigurationError`` naming the file and every problem in it, and each violation says which
rule, what was found and what to remove.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.moderation.policy import Policy, PolicyFile, PolicyRules, PolicySet, load_policy
from colmeia.errors import ConfigurationError

RULES = {"default": {"competitors": ["OutraLoja"], "allow": ["loja.com.br"]}}


def resolve(policies: PolicySet) -> Policy:
    return policies.resolve(
        category="Informática", store="", locale="pt", question="?", threshold=8, max_rewrites=3
    )


@pytest.mark.parametrize("suffix", [".json", ".JSON", ".yml", ".YAML"])
def test_every_format_loads_the_same_rules(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"politica{suffix}"
    path.write_text(json.dumps(RULES), encoding="utf-8")  # JSON is valid YAML too
    p = resolve(load_policy(path))
    assert (p.competitors, p.allow) == (("OutraLoja",), ("loja.com.br",))


def test_an_empty_yaml_file_is_the_default_policy(tmp_path: Path) -> None:
    path = tmp_path / "vazia.yaml"
    path.write_text("# nada ainda\n", encoding="utf-8")
    p = resolve(load_policy(path))
    assert p.competitors == () and p.allow == ()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("lista.json", "[1, 2]", "lista.json:1: the policy must be a mapping at the top level"),
        (
            "quebrada.json",
            '{"default": ',
            "quebrada.json:1: not a valid policy file (JSON: Expecting value)",
        ),
        (
            "dois.json",
            json.dumps({"default": {"competitors": "X", "allow": 3}}),
            "dois.json:1: default.competitors: Input should be a valid list; "
            "{tmp}/dois.json:1: default.allow: Input should be a valid list",
        ),
    ],
)
def test_a_bad_file_is_one_error_naming_the_file_and_every_problem(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigurationError) as err:
        load_policy(path)
    # every problem names the file and its line (`moderate policy check` prints them one a line)
    assert str(err.value) == f"{tmp_path}/{message}".replace("{tmp}", str(tmp_path))
    assert "https://" not in str(err.value)


def test_a_missing_file_says_it_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError) as err:
        load_policy(tmp_path / "nao-existe.yaml")
    assert str(err.value) == (
        f"{tmp_path}/nao-existe.yaml: cannot read the policy file (No such file or directory)"
    )


def policy(**rules: Any) -> Policy:
    return resolve(PolicySet(PolicyFile(default=PolicyRules(**rules))))


def violations(text: str, **rules: Any) -> list[tuple[str, str, str]]:
    return [(v.rule, v.found, v.message) for v in policy(**rules).check(text)]


def test_every_violation_names_its_rule_what_was_found_and_the_fix() -> None:
    text = "Ligue (11) 98765-4321 ou escreva para vendas@x.com; na OutraLoja é barato."
    assert violations(
        text,
        competitors=["OutraLoja"],
        forbidden_terms=["barato"],
        checks=["phone", "email", "competitor", "terms"],
    ) == [
        ("phone", "(11) 98765-4321", "remove the phone number (11) 98765-4321"),
        ("email", "vendas@x.com", "remove the e-mail address vendas@x.com"),
        ("competitor", "OutraLoja", "do not mention the competitor OutraLoja"),
        ("terms", "barato", "do not use the term 'barato'"),
    ]


def test_the_email_and_link_checks_work_alone() -> None:
    text = "Escreva para vendas@x.com ou veja x.com/oferta."
    assert [v[:2] for v in violations(text, checks=["email"])] == [("email", "vendas@x.com")]
    # the address is not reported as a link to x.com
    assert [v[:2] for v in violations(text, checks=["link"])] == [("link", "x.com/oferta")]


def test_competitors_and_terms_are_not_checked_when_their_check_is_off() -> None:
    text = "Na OutraLoja é barato."
    assert (
        violations(text, competitors=["OutraLoja"], forbidden_terms=["barato"], checks=["phone"])
        == []
    )


def test_an_allowed_link_with_a_trailing_slash_or_path_passes() -> None:
    for text in (
        "Veja loja.com.br/",
        "Veja https://loja.com.br/ofertas/mouse.",
        "Veja www.loja.com.br.",
    ):
        assert violations(text, allow=["loja.com.br"]) == [], text


def test_a_violation_as_the_results_file_records_it() -> None:
    [v] = policy(checks=["email"]).check("Escreva para vendas@x.com.")
    assert v.as_dict() == {
        "rule": "email",
        "found": "vendas@x.com",
        "message": "remove the e-mail address vendas@x.com",
    }


def test_the_manifest_records_the_policy_file_its_digest_and_only_the_rules_written(
    tmp_path: Path,
) -> None:
    import hashlib

    path = tmp_path / "politica.json"
    path.write_text(json.dumps(RULES), encoding="utf-8")
    assert load_policy(path).describe() == {
        "source": str(path),
        "label": str(path),
        "checks": ["phone", "email", "link", "competitor", "warranty", "language", "terms"],
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "rules": RULES,
    }


@pytest.mark.parametrize(
    ("answer", "broken"),
    [
        ("It has a 2 years warranty.", True),
        ("It has a one year warranty.", False),
        ("Warranty: 12 months.", False),
        ("Warranty: 18 months.", True),
        ("Garantia de dois anos.", True),
    ],
)
def test_warranty_durations_in_english_and_in_words(answer: str, broken: bool) -> None:
    context = "Warranty: 1 year against manufacturing defects"
    found = [v.rule for v in policy(checks=["warranty"]).check(answer, context)]
    assert found == (["warranty"] if broken else [])
