"""`colmeia eval assistant --set independent4` … `--set independent22`: conversations written
blind to the code (their authors read the law texts and the court's institutional file only),
each on a registry of its author's invention. These tests check that each set is what it says —
it loads, its registry imports cleanly, and every case, fact and article it expects is really
in its registry or in the law texts — never that the assistant passes it."""

from __future__ import annotations

import asyncio
import csv
import functools
import re
import unicodedata
from pathlib import Path

import pytest

from colmeia.apps.assistant.conversations import load_conversations
from colmeia.apps.assistant.evaluation import FOLDER_SETS
from colmeia.apps.assistant.ids import parse_case_id
from colmeia.apps.assistant.legal import law_key
from colmeia.apps.assistant.registry_io import import_registry
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from shared_data import DATA_DIR

DATA = Path(__file__).resolve().parents[3] / "src/colmeia/apps/assistant/data"


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    folded = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()
    return " ".join(re.sub(r"[^\w/]+", " ", folded).split())


@functools.cache
def _article_texts(key: str) -> dict[str, str]:
    """Each article of a norm of the collection the README builds (by the norm's key), with
    the text of all its dispositivos."""
    if key in ("CF", "ADCT"):
        name = "constituicao" if key == "CF" else "adct"
        files = [DATA_DIR / f"laws/constituicao/lexml/{name}_1988_19881005.csv"]
    else:
        files = [p for p in (DATA_DIR / "laws/lexml").glob("*.csv") if p.stem.split("_")[-2] == key]
    assert len(files) == 1, f"norm {key}: {files}"
    texts: dict[str, str] = {}
    with files[0].open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if m := re.search(r"Art\. (\d+(?:-[A-Z])?)", row["Rotulo"]):
                texts[m.group(1)] = f"{texts.get(m.group(1), '')} {_fold(row['Texto'])}"
    return texts


def _articles(key: str) -> set[str]:
    """Article numbers of a norm of the collection the README builds, by its key."""
    return set(_article_texts(key))


def _written_whole(typed: str) -> str:
    """An expected case as its author typed it ("tc 4826/22", "11357/2025") written as the
    registry numbers it (TC/004826/2022)."""
    if typed.upper().startswith("EXP"):
        return typed
    number, year = (int(n) for n in re.findall(r"\d+", typed))
    return f"TC/{number:06d}/{year + 2000 if year < 100 else year}"


@pytest.mark.parametrize(
    "folder",
    [f"independent{n}" for n in range(4, 23)],
)
def test_a_blind_set_holds_what_its_registry_and_the_laws_hold(folder: str, tmp_path: Path) -> None:
    here = DATA / folder
    conversations, problems = load_conversations(here)
    assert problems == [] and len(conversations) == 24
    assert FOLDER_SETS[folder] == folder
    registry = SQLiteCaseRegistry(tmp_path / "registry.db")
    try:
        assert import_registry(registry, [here / "registry"]).problems == []
        turns = [t for c in conversations for t in c.turns]
        cases = {parse_case_id(_written_whole(t.case)) for t in turns if t.case}
        assert None not in [asyncio.run(registry.process(c)) for c in sorted(cases, key=str)]
    finally:
        registry.close_sync()
    # what an answer may say: the registry's rows, or the court's file for a question about it
    sources = [*(here / "registry").glob("*.csv"), DATA / "institutional.yaml"]
    written = " ".join(_fold(path.read_text(encoding="utf-8")) for path in sources)
    for turn in turns:
        cited = ""
        if turn.article:  # or the words of the article the answer cites ("dois terços")
            law, article = turn.article.split(":", 1)
            cited = _article_texts(law_key(law)).get(article, "")
        for value in [*turn.facts.values(), *turn.says]:
            # a date the answer shows as DD/MM/YYYY is written ISO in the CSV files
            iso = re.sub(r"^(\d\d)/(\d\d)/(\d{4})$", r"\3-\2-\1", value)
            assert (
                _fold(value) in written
                or _fold(iso) in written
                or (value in turn.says and _fold(value) in cited)
            ), (turn.user, value)
        if turn.article:
            law, article = turn.article.split(":", 1)
            assert article in _articles(law_key(law)), turn.article
