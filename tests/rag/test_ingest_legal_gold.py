"""The legal chunker against the Constitution's labelled CSV (every artigo/§/inciso/alínea).

The gold lists each dispositivo with its numbers; the ADCT restarts article numbers, so the
comparison counts (type, artigo, parágrafo, inciso, alínea) keys as a multiset. The hierarchy
(``parse_legal``) holds every dispositivo; chunks leave out the revoked and vetoed ones.
"""

from __future__ import annotations

import collections
import csv
import shutil
from pathlib import Path

import pytest

from colmeia.rag.ingest import LegalChunker, extract, parse_legal
from shared_data import DATA_DIR

DATA = DATA_DIR / "laws/constituicao"
KINDS = ("artigo", "paragrafo", "inciso", "alinea")


def gold_counts() -> collections.Counter[tuple[str | None, ...]]:
    def value(x: str) -> str | None:
        return None if x == "NA" else x

    with (DATA / "20200826_EMC108.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return collections.Counter(
        (r["classe"], r["artigo"], value(r["paragrafo"]), value(r["inciso"]), value(r["alinea"]))
        for r in rows
        if r["classe"] in KINDS
    )


@pytest.mark.parametrize("source", ["CONSTITUICAO.md", "20200826_EMC108.html"])
def test_legal_parser_recovers_the_constitution(
    source: str, tmp_path: Path, record_property
) -> None:
    shutil.copy(DATA / source, tmp_path / source)
    doc = extract(tmp_path / source)
    found: collections.Counter[tuple[str | None, ...]] = collections.Counter(
        (m["kind"], m["artigo"], m["paragrafo"], m["inciso"], m["alinea"])
        for m in (u.numbers() for u in parse_legal(doc.text))
        if m["kind"] in KINDS
    )
    gold = gold_counts()
    for kind in KINDS:
        expected = sum(v for k, v in gold.items() if k[0] == kind)
        hit = sum(min(v, found[k]) for k, v in gold.items() if k[0] == kind)
        spurious = sum(max(0, v - gold[k]) for k, v in found.items() if k[0] == kind)
        recall = hit / expected
        print(f"{source}: {kind} recall {recall:.4f} ({hit}/{expected}), spurious {spurious}")
        record_property(f"{source}:{kind}:recall", recall)
        assert recall >= 0.99, kind
        assert spurious <= 0.01 * expected, kind


def test_revoked_and_vetoed_dispositivos_are_not_passages(tmp_path: Path) -> None:
    shutil.copy(DATA / "CONSTITUICAO.md", tmp_path / "CONSTITUICAO.md")
    doc = extract(tmp_path / "CONSTITUICAO.md")
    units = parse_legal(doc.text)
    chunks = LegalChunker().chunk(doc)
    paths = {c.path for c in chunks}
    # "Art. 117. (Revogado)." and "Art. 40, § 21. (Revogado)." stay in the hierarchy …
    lapsed = {u.path("Constituição Federal"): u.status for u in units if u.status}
    assert lapsed["Constituição Federal, Art. 117"] == "revogado"
    assert lapsed["Constituição Federal, Art. 40, § 21"] == "revogado"
    assert len(lapsed) >= 40
    # … but are never passages, while their neighbours keep their paths.
    assert not paths & set(lapsed)
    assert "Constituição Federal, Art. 116" in paths
    assert "Constituição Federal, Art. 118" in paths
    assert "Constituição Federal, Art. 40, § 20" in paths
    assert not [c.text for c in chunks if c.text.rstrip(".").endswith("(Revogado)")]
    # Text that only mentions a revocation is law in force.
    assert "Constituição Federal, Art. 62, § 12" in paths


def test_paths_and_headings_cite_the_dispositivo(tmp_path: Path) -> None:
    shutil.copy(DATA / "CONSTITUICAO.md", tmp_path / "CONSTITUICAO.md")
    doc = extract(tmp_path / "CONSTITUICAO.md")
    chunks = LegalChunker().chunk(doc)
    by_path = {c.path: c for c in chunks}

    art5_lxxviii = by_path["Constituição Federal, Art. 5º, inciso LXXVIII"]
    assert art5_lxxviii.text.startswith("LXXVIII - a todos, no âmbito judicial e administrativo")
    assert art5_lxxviii.heading == "Título II > Capítulo I"

    alinea = by_path["Constituição Federal, Art. 5º, inciso XXXVIII, alínea c"]
    assert alinea.text.startswith("c) a soberania dos veredictos")

    assert "Constituição Federal, Art. 103-B, § 4º" in by_path
    assert "Constituição Federal, Art. 40, § 4º-A" in by_path
    assert "Constituição Federal, ADCT, Art. 1º" in by_path
    assert by_path["Constituição Federal, Art. 1º, Parágrafo único"].text.startswith(
        "Parágrafo único."
    )
    for chunk in chunks:
        assert doc.text[chunk.char_start : chunk.char_end] == chunk.text
