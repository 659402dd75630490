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
import os
import re
import sqlite3
from collections.abc import Iterable
from contextlib import closing
from importlib.metadata import PackageNotFoundError, version
from importlib.resources import files
from pathlib import Path

from colmeia.rag.index.lexical import fold_accents
from colmeia.rag.index.vector_cache import vector_cache_file

__all__ = ["is_word", "word_frequencies", "word_list_available"]

log = logging.getLogger(__name__)


def _raw() -> dict[str, int]:
    try:
        raw = (files("spellchecker") / "resources" / "pt.json.gz").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError) as exc:
        # Without the list the cleaner falls back to the document's own vocabulary.
        log.warning("no Portuguese word list (pyspellchecker): %s", exc)
        return {}
    words: dict[str, int] = json.loads(gzip.decompress(raw))
    return words


@functools.cache
def _portuguese() -> frozenset[str]:
    return frozenset(_raw())


def _folded_file() -> Path | None:
    """Where the folded list is kept between processes: the cache folder vectors are kept in
    (``COLMEIA_CACHE_DIR``; ``None`` when it is off or the package's release is unknown)."""
    vectors = vector_cache_file()
    if vectors is None:
        return None
    try:
        release = version("pyspellchecker")
    except PackageNotFoundError:
        return None
    return vectors.parent / f"pt_words_{release}.sqlite"


@functools.cache
def _folded() -> dict[str, int]:
    folded: dict[str, int] = {}
    for word, count in _raw().items():
        key = fold_accents(word)
        folded[key] = folded.get(key, 0) + count
    return folded


def _write(path: Path, folded: dict[str, int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    with closing(sqlite3.connect(tmp)) as db:
        db.execute("CREATE TABLE words (w TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID")
        db.executemany("INSERT INTO words VALUES (?, ?)", folded.items())
        db.commit()
    tmp.replace(path)


@functools.cache
def _connection() -> sqlite3.Connection | None:
    path = _folded_file()
    if path is None:
        return None
    try:
        if not path.exists():
            folded = _folded()
            if not folded:
                return None
            _write(path, folded)
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        log.info("the folded word list is not kept (%s: %s)", path, exc)
        return None


def word_frequencies(words: Iterable[str]) -> dict[str, int]:
    """Of ``words`` (folded as the search folds them: lower case, no accents), those of the
    list with their frequency (the forms that fold alike summed). The folded list is built
    once (~3 s) and kept in the cache folder as an SQLite table, so a process asks it for the
    few hundred words it needs in a millisecond instead of reading 400,000."""
    wanted = list(dict.fromkeys(words))
    if not wanted:
        return {}
    db = _connection()
    if db is None:
        folded = _folded()
        return {w: folded[w] for w in wanted if w in folded}
    out: dict[str, int] = {}
    try:
        for i in range(0, len(wanted), _BATCH):
            part = wanted[i : i + _BATCH]
            marks = ",".join("?" * len(part))
            rows = db.execute(f"SELECT w, n FROM words WHERE w IN ({marks})", part)
            out.update((str(w), int(n)) for w, n in rows)
    except sqlite3.Error as exc:
        log.info("word list not read (%s); reading the package's", exc)
        folded = _folded()
        return {w: folded[w] for w in wanted if w in folded}
    return out


def word_list_available() -> bool:
    """Whether the list can be read (pyspellchecker installed, its resource present)."""
    return _connection() is not None or bool(_folded())


# SQLite's default limit on a statement's parameters is 999 (older builds)
_BATCH = 900


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
