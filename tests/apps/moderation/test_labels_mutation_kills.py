"""Label groups: which spellings join (accents, case, spaces), which translations the shipped
mapping and a user's file join, how a group is shown, and how a bad mapping file is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from colmeia.apps.moderation.labels import LabelMap, fold_label
from colmeia.errors import ConfigurationError


def test_fold_label_drops_accents_case_and_extra_spaces() -> None:
    """'  Garantía   Extendida ' and 'garantia extendida' are one label; 'Straße' is 'strasse'."""
    assert fold_label("  Garantía \t  EXTENDIDA ") == "garantia extendida"
    assert fold_label("Straße") == "strasse"
    assert fold_label("ﬁscal") == "fiscal"


def test_spellings_join_and_the_group_shows_the_most_common_first() -> None:
    """Spellings equal apart from accents and case join; the name lists each spelling once,
    the most common first, with its spaces tidied."""
    labels = LabelMap()
    keys = {labels.group("intent", s) for s in ["Garantía", "garantia", " Garantia  ", "Garantia"]}
    assert keys == {"garantia"}
    assert labels.name("intent", "garantia") == "Garantia / Garantía / garantia"


def test_a_group_never_seen_is_shown_by_its_key() -> None:
    """A key no label joined is shown as itself; intents and categories are kept apart."""
    labels = LabelMap()
    labels.group("category", "Frete")
    assert labels.name("intent", "frete") == "frete"
    assert labels.name("category", "frete") == "Frete"


def test_a_mapping_joins_translations_and_follows_chains() -> None:
    """A label mapped to a group joins it, through a chain of mappings (Envío → Frete → Outros)."""
    labels = LabelMap({"intent": {"Envío": "Frete", "frete": "Outros"}})
    assert labels.group("intent", "ENVIO") == "outros"
    assert labels.group("category", "Envío") == "envio"
    assert labels.name("intent", "outros") == "ENVIO"


def test_a_cycle_of_mappings_stops() -> None:
    """A mapping that comes back to a label stops there instead of looping."""
    labels = LabelMap({"category": {"a": "b", "b": "c", "c": "a"}})
    assert labels.group("category", "a") == "a"
    assert labels.group("category", "b") == "b"


def test_the_shipped_mapping_joins_spanish_labels() -> None:
    """'Herramientas' joins 'Ferramentas' and 'Compatibilidad' joins 'Compatibilidade'."""
    labels = LabelMap.load()
    assert labels.group("category", "Herramientas") == "ferramentas"
    assert labels.group("intent", "Compatibilidad") == "compatibilidade"
    shipped = labels.as_dict()
    assert shipped["category"]["herramientas"] == "Ferramentas"
    assert shipped["intent"]["compatibilidad"] == "Compatibilidade"


def test_a_users_file_extends_the_shipped_mapping(tmp_path: Path) -> None:
    """A user's TOML adds to the shipped entries (BOM and an upper-case suffix accepted)."""
    path = tmp_path / "mine.TOML"
    path.write_text('\ufeff[intents]\n"Envío" = "Frete"\n', encoding="utf-8")
    labels = LabelMap.load(path)
    assert labels.group("intent", "Envío") == "frete"
    assert labels.group("category", "Herramientas") == "ferramentas"


def test_replace_defaults_drops_the_shipped_mapping(tmp_path: Path) -> None:
    """With replace_defaults = true only the user's entries are used."""
    path = tmp_path / "mine.toml"
    path.write_text('replace_defaults = true\n[categories]\n"Tools" = "Ferramentas"\n', "utf-8")
    labels = LabelMap.load(path)
    assert labels.as_dict() == {"intent": {}, "category": {"tools": "Ferramentas"}}


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("mine.json", '{"categories": {"Tools": "Ferramentas"}}'),
        ("mine.JSON", '{"categories": {"Tools": "Ferramentas"}}'),
        ("mine.yaml", "categories:\n  Tools: Ferramentas\n"),
    ],
)
def test_json_and_yaml_files_are_read(tmp_path: Path, name: str, text: str) -> None:
    """A mapping may be JSON or YAML as well as TOML."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert LabelMap.load(path).group("category", "tools") == "ferramentas"


def test_a_missing_file_is_refused_with_the_reason(tmp_path: Path) -> None:
    """A file that cannot be read names itself and says why."""
    path = tmp_path / "none.toml"
    with pytest.raises(ConfigurationError) as info:
        LabelMap.load(path)
    assert str(info.value) == f"{path}: cannot read the label mapping (No such file or directory)"


@pytest.mark.parametrize(
    ("name", "text"),
    [("bad.toml", "[intents\nx = 1\n"), ("bad.json", "{\n"), ("bad.yml", "a: [\n")],
)
def test_a_file_that_does_not_parse_is_refused(tmp_path: Path, name: str, text: str) -> None:
    """Broken TOML, JSON or YAML is refused with the parser's first line."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigurationError) as info:
        LabelMap.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: not a valid label mapping (")
    assert message.endswith(")") and "\n" not in message


@pytest.mark.parametrize(
    "text",
    ['[labels]\n"a" = "b"\n', '"intents" = 3\n', "[intents]\na = 1\n", "- a\n"],
)
def test_a_file_of_another_shape_is_refused(tmp_path: Path, text: str) -> None:
    """Unknown tables, a table that is not a mapping, a non-text group or a list are refused."""
    path = tmp_path / ("m.toml" if not text.startswith("-") else "m.yaml")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigurationError) as info:
        LabelMap.load(path)
    assert str(info.value).startswith(f"{path}: ")
    assert "label" in str(info.value)


def test_the_shape_messages(tmp_path: Path) -> None:
    """The two shape errors say what a mapping must look like."""
    unknown = tmp_path / "u.toml"
    unknown.write_text('[labels]\n"a" = "b"\n', encoding="utf-8")
    with pytest.raises(ConfigurationError) as info:
        LabelMap.load(unknown)
    assert str(info.value) == (
        f"{unknown}: a label mapping has the tables 'intents' and 'categories' (label = group), "
        "and optionally replace_defaults = true"
    )
    wrong = tmp_path / "w.toml"
    wrong.write_text("[categories]\na = 1\n", encoding="utf-8")
    with pytest.raises(ConfigurationError) as info:
        LabelMap.load(wrong)
    assert str(info.value) == f"{wrong}: 'categories' must map label text to group text"
