"""What a person reads about a policy file: its problems with their lines, and the policy itself.

``colmeia moderate policy check FILE`` prints every problem as ``FILE:LINE: where: what``, and
``colmeia moderate policy show`` / the start of a run print :meth:`PolicySet.explain` and
:meth:`PolicySet.summary`. The line must be the one to open in the editor, in YAML, JSON and
TOML alike, and the same key in two sections must not be confused.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from colmeia.apps.moderation.policy import (
    RULE_HELP,
    PolicyFile,
    PolicyRules,
    PolicySet,
    load_policy,
    policy_problems,
)
from colmeia.apps.moderation.records import ModerationItem
from colmeia.errors import ConfigurationError

CHECK_VALUES = "'phone', 'email', 'link', 'competitor', 'warranty', 'language' or 'terms'"
SECTION_TAKES = "threshold, max_rewrites, language, checks, competitors, forbidden_terms, allow"


def problems(tmp_path: Path, name: str, text: str) -> list[str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    policy, found = policy_problems(path)
    assert policy is None
    return [p.removeprefix(f"{tmp_path}/") for p in found]


# -- syntax errors: the parser's line ---------------------------------------------------------


def test_a_yaml_syntax_error_names_the_line_and_the_parsers_words(tmp_path: Path) -> None:
    assert problems(tmp_path, "p.yml", "default:\n  competitors: [a]\n\tallow: [b]\n") == [
        "p.yml:3: not a valid policy file (YAML: found character '\\t' that cannot start any token)"
    ]


def test_a_toml_syntax_error_names_the_line_tomllib_gives(tmp_path: Path) -> None:
    text = '[default]\ncompetitors = ["a"]\n\n[stores.x]\nallow = oops\n'
    assert problems(tmp_path, "p.toml", text) == [
        "p.toml:5: not a valid policy file (Invalid value (at line 5, column 9))"
    ]


def test_a_file_that_is_not_utf8_names_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin.yaml"
    path.write_bytes("default:\n  competitors: [João]\n".encode("latin-1"))
    assert policy_problems(path) == (None, [f"{path}: not UTF-8 text (byte 27)"])


def test_a_byte_order_mark_is_not_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b'\xef\xbb\xbf{"default": {"competitors": ["Magalu"]}}')
    policy, found = policy_problems(path)
    assert found == [] and policy is not None
    assert policy.spec.default.competitors == ["Magalu"]


# -- rule errors: the line of the key ---------------------------------------------------------


def test_an_unknown_setting_lists_what_the_top_level_or_a_section_takes(tmp_path: Path) -> None:
    assert problems(tmp_path, "top.yaml", "default: {}\nregras: {}\n") == [
        "top.yaml:2: regras: unknown setting; the top level takes "
        "store_field, default, categories, stores"
    ]
    text = "default:\n  checks: [phone]\ncategories:\n  Ferramentas:\n    threshold: 7\n    colour: red\n"
    assert problems(tmp_path, "sec.yaml", text) == [
        f"sec.yaml:6: categories.Ferramentas.colour: unknown setting; a section takes {SECTION_TAKES}"
    ]


def test_a_value_error_is_given_without_pydantics_prefix(tmp_path: Path) -> None:
    assert problems(tmp_path, "v.toml", '[default]\nlanguage = "fr"\n') == [
        "v.toml:2: default.language: must be 'question' or one of pt, es, en, not 'fr'"
    ]


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("p.yaml", "default:\n  checks:\n    - phone\n    - fax\n", 4),
        ("p.yml", "# política\ndefault:\n  checks: [phone, fax]\n", 3),
        ("p.json", '{\n  "default": {\n    "checks": ["phone",\n      "fax"]\n  }\n}\n', 4),
        ("p.toml", '[default]\nchecks = ["phone", "fax"]\n', 2),
        ("p.toml", 'store_field = "loja"\ndefault = {checks = ["phone", "fax"]}\n', 2),
        ("p.toml", 'default.checks = ["phone", "fax"]\n', 1),
    ],
)
def test_a_wrong_check_is_reported_at_its_line_in_every_format(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    assert problems(tmp_path, name, text) == [
        f"{name}:{line}: default.checks.1: Input should be {CHECK_VALUES}"
    ]


def test_the_same_key_in_two_toml_tables_is_reported_in_the_right_one(tmp_path: Path) -> None:
    text = (
        '[default]\ncompetitors = ["Magalu"]\n\n'
        '[stores."Loja Centro"]\nforbidden_terms = ["barato"]\ncompetitors = "Casa do Construtor"\n'
    )
    assert problems(tmp_path, "p.toml", text) == [
        "p.toml:6: stores.Loja Centro.competitors: Input should be a valid list"
    ]
    text = '[categories."Ferramentas"]\nthreshold = 70\n[stores.Centro]\nthreshold = 7\n'
    assert problems(tmp_path, "q.toml", text) == [
        "q.toml:2: categories.Ferramentas.threshold: Input should be less than or equal to 10"
    ]


def test_a_toml_problem_in_a_table_with_no_such_key_written_is_at_the_tables_header(
    tmp_path: Path,
) -> None:
    text = 'store_field = "loja"\n\n[stores."Loja Centro"]\ncompetitors = ["X"]\ncolour = 1\n'
    assert problems(tmp_path, "p.toml", text)[0].startswith("p.toml:5: stores.Loja Centro.colour")
    assert problems(tmp_path, "top.toml", 'store_field = "loja"\nregras = 1\n')[0].startswith(
        "top.toml:2: regras: unknown setting"
    )


def test_a_yaml_problem_is_at_the_key_that_holds_the_wrong_value(tmp_path: Path) -> None:
    text = "default:\n  competitors:\n    Magalu: 1\n"
    assert problems(tmp_path, "p.yaml", text) == [
        "p.yaml:2: default.competitors: Input should be a valid list"
    ]


def test_a_store_named_by_a_number_is_reported_at_its_line(tmp_path: Path) -> None:
    text = "default: {}\nstores:\n  101: Loja Centro\n"
    assert problems(tmp_path, "p.yaml", text) == [
        "p.yaml:3: stores.101.[key]: Input should be a valid string",
        "p.yaml:3: stores.101: Input should be a valid dictionary or instance of PolicyRules",
    ]


def test_a_problem_merged_in_from_an_anchor_is_reported_where_the_policy_starts(
    tmp_path: Path,
) -> None:
    text = "# regras comuns\n<<: {default: {checks: [fax]}}\n"
    assert problems(tmp_path, "p.yaml", text) == [
        f"p.yaml:2: default.checks.0: Input should be {CHECK_VALUES}"
    ]


def test_load_policy_raises_every_problem_in_one_error(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('[default]\nchecks = ["fax"]\nlanguage = "fr"\n', encoding="utf-8")
    with pytest.raises(ConfigurationError) as err:
        load_policy(path)
    assert str(err.value) == (  # in the order of the settings, not of the file
        f"{path}:3: default.language: must be 'question' or one of pt, es, en, not 'fr'; "
        f"{path}:2: default.checks.0: Input should be {CHECK_VALUES}"
    )


# -- the policy, as shown ---------------------------------------------------------------------

FULL = """store_field: loja.nome
default:
  checks: [phone, link, language]
  language: es
  competitors: [Mercado Livre]
  allow: [loja.com.br, sac@loja.com.br]
categories:
  Ferramentas: {threshold: 7, max_rewrites: 2, checks: []}
stores:
  Loja Centro:
    checks: [phone, link, competitor, terms]
    competitors: [Casa do Construtor]
    forbidden_terms: [barato]
"""


def test_the_summary_of_a_policy_file_names_its_checks_language_allowances_and_sections(
    tmp_path: Path,
) -> None:
    path = tmp_path / "loja.yaml"
    path.write_text(FULL, encoding="utf-8")
    assert load_policy(path).summary() == (
        f"policy: {path}; checks phone, link, language; language: es; "
        "allowed: loja.com.br, sac@loja.com.br; "
        "links/phones/e-mails given by the context or store metadata allowed; "
        "2 category/store section(s)"
    )


def test_the_summary_of_the_built_in_default() -> None:
    assert PolicySet().summary() == (
        "policy: built-in default (no policy file); "
        "checks phone, email, link, competitor, warranty, language, terms; language: question; "
        "links/phones/e-mails given by the context or store metadata allowed"
    )
    no_language = PolicySet(PolicyFile(default=PolicyRules(checks=["phone"])))
    assert no_language.summary() == (
        "policy: built-in default (no policy file); checks phone; "
        "links/phones/e-mails given by the context or store metadata allowed"
    )
    one_store = PolicySet(PolicyFile(stores={"Centro": PolicyRules()}))
    assert one_store.summary().endswith("; 1 category/store section(s)")


def test_explain_shows_every_section_and_the_rules_it_sets(tmp_path: Path) -> None:
    path = tmp_path / "loja.yaml"
    path.write_text(FULL, encoding="utf-8")
    digest = hashlib.sha256(FULL.encode()).hexdigest()
    assert load_policy(path).explain() == [
        f"policy: {path}",
        f"sha256 {digest}",
        "store name read from the record field 'loja.nome'",
        "[default]",
        f"  phone: {RULE_HELP['phone']}",
        f"  link: {RULE_HELP['link']}",
        f"  language: {RULE_HELP['language']}",
        "  language = es",
        "  competitors += Mercado Livre",
        "  allow += loja.com.br, sac@loja.com.br",
        "[category 'Ferramentas']",
        "  no check runs: only the agents judge the answers",
        "  threshold = 7.0",
        "  max_rewrites = 2",
        "[store 'Loja Centro']",
        f"  phone: {RULE_HELP['phone']}",
        f"  link: {RULE_HELP['link']}",
        f"  competitor: {RULE_HELP['competitor']}",
        f"  terms: {RULE_HELP['terms']}",
        "  competitors += Casa do Construtor",
        "  forbidden_terms += barato",
    ]


def test_explain_of_the_default_lists_every_check_and_no_file() -> None:
    lines = PolicySet().explain()
    assert lines[:2] == ["policy: built-in default (no policy file)", "[default]"]
    assert lines[2:] == [f"  {c}: {h}" for c, h in RULE_HELP.items()]


def test_the_store_is_read_from_the_field_the_policy_names(tmp_path: Path) -> None:
    path = tmp_path / "loja.yaml"
    path.write_text(FULL, encoding="utf-8")
    policies = load_policy(path)
    item = ModerationItem.model_validate(
        {"id": "1", "question": "?", "answer": "!", "loja": {"nome": "Loja Centro"}}
    )
    assert policies.store_of(item) == "Loja Centro"
    assert PolicySet().store_of(item) == ""  # no "store" field in this record


# -- allowed links ----------------------------------------------------------------------------


def test_an_allowed_page_is_allowed_with_or_without_its_trailing_slash() -> None:
    policy = PolicySet(PolicyFile(default=PolicyRules(allow=["loja.com.br/promo"]))).resolve(
        category="", store="", locale="pt", question="?", threshold=8, max_rewrites=3
    )
    assert policy.check("Veja loja.com.br/promo/ hoje.") == []
    assert [v.found for v in policy.check("Veja loja.com.br/outra hoje.")] == ["loja.com.br/outra"]


def test_a_problem_whose_line_cannot_be_told_names_the_file_alone(tmp_path: Path) -> None:
    cut = problems(tmp_path, "cut.toml", '[default]\nchecks = ["phone"')
    assert cut == ["cut.toml: not a valid policy file (Unclosed array (at end of document))"]
    escaped = problems(tmp_path, "esc.toml", '"r\\u00e9gua" = 1\n')
    assert escaped == [
        "esc.toml: régua: unknown setting; the top level takes "
        "store_field, default, categories, stores"
    ]


def test_a_toml_section_whose_name_ends_in_x_is_found(tmp_path: Path) -> None:
    text = '[stores."Filial X"]\ncolour = 1\n'
    assert problems(tmp_path, "p.toml", text)[0].startswith("p.toml:2: stores.Filial X.colour:")


def test_a_store_field_through_a_list_without_it_gives_no_store() -> None:
    policies = PolicySet(PolicyFile(store_field="lojas.nome"))
    item = ModerationItem.model_validate(
        {"id": "1", "question": "?", "answer": "!", "lojas": [{"cidade": "Goiânia"}]}
    )
    assert policies.store_of(item) == ""
    item = ModerationItem.model_validate(
        {"id": "1", "question": "?", "answer": "!", "lojas": [{"cidade": "X"}, {"nome": "Centro"}]}
    )
    assert policies.store_of(item) == "Centro"
