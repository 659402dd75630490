"""A policy file that cannot do what it says is refused, not run.

A trust & safety team writes ``forbidden_terms`` and reads them back in ``policy show``; if no
record runs the ``terms`` check, the words pass every run while the team believes them
forbidden. ``policy check`` must say so, on the line of the setting, and a run must refuse the
file. A file that does take effect prints the policy each kind of record really gets.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from colmeia.apps.moderation.policy import load_policy, policy_problems
from colmeia.cli import app
from colmeia.errors import ConfigurationError


def problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "pol.yaml"
    path.write_text(text, encoding="utf-8")
    policy, found = policy_problems(path)
    assert policy is None, "a policy with a rule that cannot take effect was accepted"
    return [p.removeprefix(f"{tmp_path}/") for p in found]


def test_forbidden_terms_without_the_terms_check_are_an_error_on_their_line(
    tmp_path: Path,
) -> None:
    text = "default:\n  checks: [phone, link]\n  forbidden_terms: [melhor do mercado]\n"
    assert problems(tmp_path, text) == [
        "pol.yaml:3: default.forbidden_terms: forbidden_terms can never take effect: no record "
        "under default runs the `terms` check; add it to `checks` or remove forbidden_terms"
    ]


def test_a_run_refuses_the_file_instead_of_letting_the_words_pass(tmp_path: Path) -> None:
    path = tmp_path / "pol.yaml"
    path.write_text("default:\n  checks: [phone]\n  forbidden_terms: [barato]\n", "utf-8")
    with pytest.raises(ConfigurationError, match="forbidden_terms can never take effect"):
        load_policy(path)


def test_competitors_allow_and_language_each_need_their_check(tmp_path: Path) -> None:
    text = (
        "default:\n  checks: [warranty]\n"
        "categories:\n  TV:\n    competitors: [Loja X]\n    allow: [loja.com.br]\n"
        "    language: es\n"
    )
    found = problems(tmp_path, text)
    assert [p.split(": ")[1] for p in found] == [
        "categories.TV.competitors",
        "categories.TV.allow",
        "categories.TV.language",
    ]
    assert found[0].startswith("pol.yaml:5:")
    assert "the `phone` or `email` or `link` check" in found[1]


def test_a_store_section_that_switches_the_check_on_makes_the_category_terms_count(
    tmp_path: Path,
) -> None:
    # The category's terms take effect for the records of that store: the file is valid.
    path = tmp_path / "pol.yaml"
    path.write_text(
        "default:\n  checks: [phone]\n"
        "categories:\n  TV:\n    forbidden_terms: [imbatível]\n"
        "stores:\n  Centro:\n    checks: [phone, terms]\n",
        "utf-8",
    )
    policy, found = policy_problems(path)
    assert found == []
    assert policy is not None
    assert (
        "default + category 'TV' + store 'Centro': checks phone, terms; "
        "forbidden_terms imbatível" in policy.effective()
    )
    assert "default + category 'TV': checks phone" in policy.effective()


def test_a_check_listed_without_its_data_anywhere_is_an_error(tmp_path: Path) -> None:
    text = "default:\n  checks: [phone, competitor, terms]\n  forbidden_terms: [x]\n"
    assert problems(tmp_path, text) == [
        "pol.yaml:2: default.checks.1: the `competitor` check can never find anything: no "
        "section that applies with default lists competitors; add competitors or drop the check"
    ]


def test_the_built_in_default_checks_need_no_data(tmp_path: Path) -> None:
    # Without `checks`, every check runs: a file naming only competitors is the common case.
    path = tmp_path / "pol.yaml"
    path.write_text("default:\n  competitors: [Loja X]\n", "utf-8")
    assert policy_problems(path)[1] == []


def test_policy_check_prints_the_effective_policy_of_each_kind_of_record(tmp_path: Path) -> None:
    path = tmp_path / "pol.yaml"
    path.write_text(
        "default:\n  checks: [terms, competitor]\n  forbidden_terms: [barato]\n"
        "  competitors: [Loja X]\nstores:\n  Centro:\n    forbidden_terms: [grátis]\n",
        "utf-8",
    )
    result = CliRunner().invoke(app, ["moderate", "policy", "check", str(path)])
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.output.splitlines()]
    assert "default: checks terms, competitor; competitors Loja X; forbidden_terms barato" in lines
    assert (
        "default + store 'Centro': checks terms, competitor; competitors Loja X; "
        "forbidden_terms barato, grátis" in lines
    )


def test_policy_check_on_a_silent_rule_fails_with_the_line(tmp_path: Path) -> None:
    path = tmp_path / "pol.yaml"
    path.write_text("default:\n  checks: [phone]\n  forbidden_terms: [barato]\n", "utf-8")
    result = CliRunner().invoke(app, ["moderate", "policy", "check", str(path)])
    assert result.exit_code != 0
    assert "pol.yaml:3: default.forbidden_terms: forbidden_terms can never take effect" in (
        result.output
    )
