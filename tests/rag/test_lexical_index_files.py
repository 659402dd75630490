"""A lexical index saved to a folder reads back as the same index: the same passages for the same
query, with or without bigrams, saved again over itself; a folder without an index, or with one
of another format, reads back as none (the caller rebuilds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from colmeia.rag.index.lexical import LexicalConfig, LexicalIndex

PASSAGES = [
    "O consumidor pode desistir do contrato no prazo de sete dias.",
    "O prazo de garantia legal é de noventa dias para produtos duráveis.",
    "A licitação segue a Lei 14.133 de 2021.",
    "Contrato de prestação de serviços públicos e o prazo de vigência.",
]
QUERIES = ["prazo de desistência do contrato", "garantia legal", "licitação 14133", "prazo"]


def _results(index: LexicalIndex) -> list[tuple[list[int], list[float]]]:
    out = []
    for q in QUERIES:
        positions, scores = index.search(q, 4)
        out.append(([int(p) for p in positions], [round(float(s), 6) for s in scores]))
    return out


@pytest.mark.parametrize("bigram_weight", [0.0, 0.5])
def test_a_saved_index_reads_back_as_the_same_index(tmp_path: Path, bigram_weight: float) -> None:
    config = LexicalConfig(bigram_weight=bigram_weight, k1=1.5)
    index = LexicalIndex.build(PASSAGES, config)
    folder = tmp_path / "deep" / "er" / "lexical"  # made with its parents
    index.save(folder)
    index.save(folder)  # saving again over a saved index is fine
    loaded = LexicalIndex.load(folder)
    assert loaded is not None
    assert loaded.config == config and loaded.num_docs == len(PASSAGES)
    assert (loaded.bigrams is not None) == (bigram_weight > 0)
    assert _results(loaded) == _results(index)
    assert loaded.postings == index.postings


def test_a_folder_without_an_index_or_with_another_format_reads_back_as_none(
    tmp_path: Path,
) -> None:
    assert LexicalIndex.load(tmp_path / "none") is None
    folder = tmp_path / "lexical"
    LexicalIndex.build(PASSAGES).save(folder)
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    (folder / "meta.json").write_text(json.dumps({**meta, "format": 0}), encoding="utf-8")
    assert LexicalIndex.load(folder) is None
    (folder / "meta.json").write_text("{not json", encoding="utf-8")
    assert LexicalIndex.load(folder) is None
