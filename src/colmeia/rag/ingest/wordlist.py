"""Is this a Portuguese word? A word list from a package, for re-joining words a line end broke.

The list is pyspellchecker's Portuguese frequency dictionary (416,000 word forms, from subtitle
and web corpora; MIT licensed, shipped inside the package: nothing is downloaded). It is loaded
on the first question only (about two seconds), since most documents never ask.
"""

from __future__ import annotations

import functools
import gzip
import json
import logging
import re
from importlib.resources import files

__all__ = ["is_word"]

log = logging.getLogger(__name__)


@functools.cache
def _portuguese() -> frozenset[str]:
    try:
        raw = (files("spellchecker") / "resources" / "pt.json.gz").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError) as exc:
        # Without the list the cleaner falls back to the document's own vocabulary.
        log.warning("no Portuguese word list (pyspellchecker): %s", exc)
        return frozenset()
    words: dict[str, int] = json.loads(gzip.decompress(raw))
    return frozenset(words)


# The list spells as Portugal does ("económicas", "académico", "género"); Brazil writes the
# stressed e/o before m or n closed ("econômicas", "acadêmico", "gênero").
_CLOSED_RE = re.compile(r"[êô](?=[mn])")


def is_word(word: str) -> bool:
    """Whether ``word`` (any case) is a Portuguese word form of the list, in either the
    Brazilian or the European spelling of a stressed e/o before m or n."""
    low = word.lower()
    words = _portuguese()
    if low in words:
        return True
    open_form = _CLOSED_RE.sub(lambda m: "é" if m.group(0) == "ê" else "ó", low)
    return open_form != low and open_form in words
