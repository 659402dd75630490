"""The exact lookup behind "o que diz o art. 5º da Lei 13.709?": the passages whose legal path
is that article of that law, in the collection's order — written "5", "5º" or "5°", never
"Art. 5-A" or another law's "Art. 5", and nothing (not an error) for an article the collection
lacks. Passages outside any article (a law's ementa) are no article's."""

from __future__ import annotations

from pathlib import Path

import pytest

from colmeia.apps.assistant.named_article import ArticleIndex
from colmeia.store import Store, open_store
from colmeia.store.base import StoredChunk, StoredDocument

PATHS = {
    "lgpd": [
        "Lei 13.709/2018",  # the ementa: no article
        "Lei 13.709/2018, Art. 5º",
        "Lei 13.709/2018, Art. 5º, inciso I",
        "Lei 13.709/2018, Art. 5-A",
        "Lei 13.709/2018, Art. 7º, § 1º",
    ],
    "cdc": ["Lei 8.078/1990, Art. 5º", "Lei 8.078/1990, Art. 49", "Art. 12"],
}


@pytest.fixture
def index(tmp_path: Path) -> ArticleIndex:
    store: Store = open_store(str(tmp_path / "colmeia.db"))
    for doc_id, paths in PATHS.items():
        chunks = [
            StoredChunk(f"{doc_id}#{i}", doc_id, i, f"texto {i}", path=path)
            for i, path in enumerate(paths)
        ]
        store.replace_document("leis", StoredDocument(doc_id, "h"), chunks)
    built = ArticleIndex.build(store, "leis")
    store.close()
    return built


def test_an_article_is_found_however_its_ordinal_is_written(index: ArticleIndex) -> None:
    for written in ("5", "5º", "5°"):
        assert index.lookup("13709", written) == ["lgpd#1", "lgpd#2"]
    assert index.lookup("8078", "49") == ["cdc#1"]


def test_another_article_or_law_is_not_the_one_named(index: ArticleIndex) -> None:
    assert index.lookup("13709", "5-A") == ["lgpd#3"]
    assert index.lookup("13709", "7") == ["lgpd#4"]
    assert index.lookup("8078", "5º") == ["cdc#0"]


def test_an_article_the_collection_lacks_finds_nothing(index: ArticleIndex) -> None:
    assert index.lookup("13709", "99") == []
    assert index.lookup("9784", "5") == []


def test_passages_outside_an_article_or_a_law_are_no_articles(index: ArticleIndex) -> None:
    assert index.lookup("13709", "") == []
    assert all(found for found in index.chunks.values())
    assert sorted(index.chunks) == ["13709:5", "13709:5-A", "13709:7", "8078:49", "8078:5"]


def test_only_the_ordinal_sign_is_dropped_not_a_trailing_letter() -> None:
    # an article inserted later carries any letter ("Art. 10-X"); only "º"/"°" go
    index = ArticleIndex({"8078:10-X": ["cdc#7"], "8078:10": ["cdc#6"]})
    assert index.lookup("8078", "10-X") == ["cdc#7"]
    assert index.lookup("8078", "10º") == ["cdc#6"]
