"""One group per intent or category, whatever language the record's label is in.

Portuguese and Spanish records label the same intent differently (``Ferramentas`` /
``Herramientas``); a report that counts them apart splits every bar in two. :class:`LabelMap`
sends each label to its group: labels equal apart from accents and case join on their own, and
a mapping (shipped in ``data/labels.toml``, extended by a file of the user's) joins translations.
A group is shown with every label it gathered (``Ferramentas / Herramientas``).
"""

from __future__ import annotations

import json
import tomllib
import unicodedata
from collections import Counter
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml

from colmeia.errors import ConfigurationError

__all__ = ["LabelKind", "LabelMap", "fold_label"]

LabelKind = Literal["intent", "category"]
_TABLES: dict[str, LabelKind] = {"intents": "intent", "categories": "category"}


def fold_label(label: str) -> str:
    """``"Garantía "`` → ``"garantia"``: what two spellings of one label have in common."""
    decomposed = unicodedata.normalize("NFKD", " ".join(label.split()).casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ConfigurationError(
            f"{path}: cannot read the label mapping ({exc.strerror})"
        ) from None
    try:
        if path.suffix.lower() == ".toml":
            data: Any = tomllib.loads(text)
        elif path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            data = yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ConfigurationError(
            f"{path}: not a valid label mapping ({str(exc).splitlines()[0]})"
        ) from None
    if not isinstance(data, dict) or not set(data) <= {*_TABLES, "replace_defaults"}:
        raise ConfigurationError(
            f"{path}: a label mapping has the tables 'intents' and 'categories' (label = group), "
            "and optionally replace_defaults = true"
        )
    for table in _TABLES:
        entries = data.get(table, {})
        if not isinstance(entries, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in entries.items()
        ):
            raise ConfigurationError(f"{path}: '{table}' must map label text to group text")
    return data


class LabelMap:
    """Sends intent and category labels to their groups."""

    def __init__(self, mapping: Mapping[LabelKind, Mapping[str, str]] | None = None) -> None:
        self._map: dict[LabelKind, dict[str, str]] = {"intent": {}, "category": {}}
        for kind, entries in (mapping or {}).items():
            for label, group in entries.items():
                self._map[kind][fold_label(label)] = group
        self._seen: dict[tuple[LabelKind, str], Counter[str]] = {}

    @classmethod
    def load(cls, path: Path | str | None = None) -> LabelMap:
        """The shipped mapping, extended (or replaced) by the file at ``path``."""
        shipped = resources.files("colmeia.apps.moderation") / "data" / "labels.toml"
        data = tomllib.loads(shipped.read_text(encoding="utf-8"))
        mapping: dict[LabelKind, dict[str, str]] = {
            kind: dict(data.get(table, {})) for table, kind in _TABLES.items()
        }
        if path is not None:
            extra = _read(Path(path))
            if extra.get("replace_defaults"):
                mapping = {"intent": {}, "category": {}}
            for table, kind in _TABLES.items():
                mapping[kind].update(extra.get(table, {}))
        return cls(mapping)

    def group(self, kind: LabelKind, label: str) -> str:
        """The group key of ``label`` (its mapped group, folded); remembers the spelling."""
        key = fold_label(label)
        seen = {key}
        while key in self._map[kind]:  # follow chains: Envío → Frete → Outros
            key = fold_label(self._map[kind][key])
            if key in seen:
                break
            seen.add(key)
        self._seen.setdefault((kind, key), Counter())[" ".join(label.split())] += 1
        return key

    def name(self, kind: LabelKind, key: str) -> str:
        """How a group is shown: every label that joined it, most common spelling first."""
        spellings = [s for s, _ in self._seen.get((kind, key), Counter()).most_common()]
        return " / ".join(spellings) if spellings else key

    def as_dict(self) -> dict[str, dict[str, str]]:
        """The mapping in use (for the report's summary)."""
        return {kind: dict(entries) for kind, entries in self._map.items()}
