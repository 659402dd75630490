"""A dispositivo's context words (its article's caput, the section heading, the norm's ementa)
as a lower-weight lexical field: a paragraph that never names its subject is found by it when
the field is weighted, and the caput that does name it still ranks first (real SQLite store)."""

from __future__ import annotations

from pathlib import Path

from colmeia.rag.context_terms import article_path, context_terms
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Retriever
from colmeia.store import StoredChunk, open_store

ROWS = [
    (
        "CPT",
        "lei_9999_20200101, Art. 59, caput",
        "Salvo disposição legal específica, é de dez "
        "dias o prazo para interposição de recurso administrativo.",
        "art59_cpt",
    ),
    (
        "PAR",
        "lei_9999_20200101, Art. 59, § 1º",
        "O prazo mencionado poderá ser prorrogado por igual período, ante justificativa explícita.",
        "art59_par1",
    ),
    (
        "CPT",
        "lei_9999_20200101, Art. 60, caput",
        "Os autos serão arquivados ao fim do processo.",
        "art60_cpt",
    ),
]
EMENTA = "Regula o processo perante a Administração Pública"
HEADING = "DO RECURSO ADMINISTRATIVO"


def _write_law(folder: Path) -> None:
    folder.mkdir()
    lines = ["Tipo,Rotulo,Num_Inicio,Num_Final,Texto,urn"]
    for n, (kind, label, text, urn) in enumerate(ROWS):
        lines.append(
            f'"{kind}","{label}",{2 * n},{2 * n + 1},"[ {EMENTA} | {HEADING} | ] {text}",'
            f"urn:lex:br:federal:lei:2020-01-01;9999!{urn}"
        )
    (folder / "lei_9999_20200101.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _paths(retriever: Retriever, query: str) -> list[str]:
    return [hit.citation.path for hit in retriever.search(query, k=5)]


def test_a_paragraph_is_found_by_its_caput_words_only_when_the_field_counts(
    tmp_path: Path,
) -> None:
    _write_law(tmp_path / "lexml")
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    try:
        ingest(store, "leis", [tmp_path / "lexml"])
        # "interposição" and "dez dias" are words of the caput alone, not of its § 1º
        query = "interposição em dez dias"
        plain = _paths(Retriever(store, "leis"), query)
        weighted = _paths(Retriever(store, "leis", context_weight=0.3), query)
    finally:
        store.close()
    assert not any("§ 1º" in p for p in plain)
    assert any(p.endswith("Art. 59, § 1º") for p in weighted)
    # the caput, which holds the words itself, stays ahead of the paragraph
    assert weighted[0].endswith("Art. 59")


def test_context_terms_are_the_enclosing_words_the_dispositivo_lacks() -> None:
    meta = {"context": f"{EMENTA} | {HEADING}", "heading": HEADING}
    chunks = [
        StoredChunk("c#0", "c", 0, "É de dez dias o prazo de recurso.", path="Lei 1/2020, Art. 5"),
        StoredChunk(
            "p#0", "p", 0, "O prazo poderá ser prorrogado.", path="Lei 1/2020, Art. 5, § 1º"
        ),
        StoredChunk("x#0", "x", 0, "Um texto qualquer.", path="Relatório 2020"),
    ]
    docs = {
        "c": {**meta, "path": "Lei 1/2020, Art. 5"},
        "p": {**meta, "path": "Lei 1/2020, Art. 5, § 1º"},
        "x": {},
    }
    caput, paragraph, other = context_terms(chunks, docs)
    words = paragraph.split()
    assert "recurso" in words and "Regula" in words and "ADMINISTRATIVO" in words
    assert "prazo" not in words  # the paragraph's own word is not repeated
    assert "recurso" not in caput.split() and "Regula" in caput.split()
    assert other == ""
    assert article_path("Lei 9.784/1999, Art. 59, § 1º") == "Lei 9.784/1999, Art. 59"
    assert article_path("Relatório 2020") == ""
