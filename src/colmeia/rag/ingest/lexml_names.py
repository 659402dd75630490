"""Citation names of LexML norms from their file stems (``lei_8078_19900911`` → ``Lei 8.078/1990``,
``constituicao_1988_19881005`` → ``CF/88``).

Its own module so that both the legal chunker and the CSV reader can name a norm without importing
each other.
"""

from __future__ import annotations

import re

__all__ = ["lexml_kind", "lexml_label"]

_LEXML_KINDS = {
    "lei_complementar": "Lei Complementar",
    "decreto_lei": "Decreto-Lei",
    "medida_provisoria": "Medida Provisória",
    "emenda_constitucional": "Emenda Constitucional",
    "lei": "Lei",
    "decreto": "Decreto",
    "resolucao": "Resolução",
    "portaria": "Portaria",
    "constituicao": "Constituição",
    "adct": "ADCT",
}
_LEXML_STEM_RE = re.compile(r"^([a-z_]+?)_(\d+)_(\d{4})\d{4}$")


def _thousands(number: str) -> str:
    return f"{int(number):,}".replace(",", ".") if number.isdigit() else number


def lexml_kind(stem: str) -> str:
    """``"lei_complementar_95_19980226"`` → ``"Lei Complementar"``; ``""`` for unknown stems."""
    m = _LEXML_STEM_RE.match(stem.strip())
    if not m:
        return ""
    return _LEXML_KINDS.get(m.group(1), m.group(1).replace("_", " ").title())


def lexml_label(stem: str) -> str:
    """``"lei_8078_19900911"`` → ``"Lei 8.078/1990"``; unknown stems are returned unchanged."""
    m = _LEXML_STEM_RE.match(stem.strip())
    if not m:
        return stem
    # The Constitution is cited by its year, as courts write it: "CF/88, Art. 71, inciso II".
    if m.group(1) == "constituicao":
        return f"CF/{m.group(3)[2:]}"
    if m.group(1) == "adct":
        return f"ADCT (CF/{m.group(3)[2:]})"
    return f"{lexml_kind(stem)} {_thousands(m.group(2))}/{m.group(3)}"
