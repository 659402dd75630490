"""Retrieval filters and caps at their edges.

A year range is inclusive at both ends ("from 2019 to 2021" includes works of 2019 and of
2021); a document whose year is unknown is left out of any year filter; type and program match
whatever the case and accents; at most ``per_document`` passages of a document, and a document
that would fill the candidate list does not leave the answer short.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from colmeia.rag.retrieve import Filters, Retriever
from colmeia.store import Store, StoredChunk, StoredDocument, open_store

# doc id, type, year (None: unknown), program
DOCS = [
    ("d2018", "Dissertação", 2018, "Programa de Pós-Graduação em Direitos Humanos"),
    ("d2019", "Dissertação", 2019, "Programa de Pós-Graduação em Direito"),
    ("t2020", "Tese", 2020, "Programa de Pós-Graduação em Educação"),
    ("t2021", "tese", 2021, "Programa de Pós-Graduação em Direitos Humanos"),
    ("a2022", "Artigo", 2022, ""),
    ("nodate", "Artigo", None, ""),
]


@pytest.fixture
def retriever(tmp_path: Path) -> Retriever:
    store: Store = open_store(str(tmp_path / "colmeia.db"))
    for doc_id, doc_type, year, program in DOCS:
        store.replace_document(
            "works",
            StoredDocument(
                doc_id,
                "h",
                doc_type=doc_type,
                year=year,
                metadata={"Programa": program} if program else {},
            ),
            [
                StoredChunk(
                    f"{doc_id}#{i}",
                    doc_id,
                    i,
                    f"acesso à justiça e defensoria pública, parte {i}",
                    char_start=100 * i,
                    char_end=100 * i + 90,
                )
                for i in range(3)
            ],
        )
    return Retriever(store, "works")


def docs(r: Retriever, **filters: object) -> set[str]:
    return {h.doc_id for h in r.search("defensoria pública", 100, filters=Filters(**filters))}  # type: ignore[arg-type]


def test_year_to_includes_its_own_year(retriever: Retriever) -> None:
    assert docs(retriever, year_to=2019) == {"d2018", "d2019"}
    assert docs(retriever, year_to=2018) == {"d2018"}


def test_year_from_includes_its_own_year(retriever: Retriever) -> None:
    assert docs(retriever, year_from=2021) == {"t2021", "a2022"}
    assert docs(retriever, year_from=2022) == {"a2022"}


def test_a_range_includes_both_ends_and_a_single_year_range_is_that_year(
    retriever: Retriever,
) -> None:
    assert docs(retriever, year_from=2019, year_to=2021) == {"d2019", "t2020", "t2021"}
    assert docs(retriever, year_from=2020, year_to=2020) == {"t2020"}
    assert docs(retriever, year=2020) == {"t2020"}
    assert docs(retriever, year_from=2023) == set()


def test_a_work_of_unknown_year_is_left_out_of_year_filters_only(retriever: Retriever) -> None:
    assert "nodate" not in docs(retriever, year_to=2100)
    assert "nodate" not in docs(retriever, year_from=1900)
    assert "nodate" in docs(retriever)
    assert "nodate" in docs(retriever, doc_type="artigo")


def test_type_and_program_ignore_case_and_accents(retriever: Retriever) -> None:
    assert docs(retriever, doc_type="dissertacao") == {"d2018", "d2019"}
    assert docs(retriever, doc_type="TESE") == {"t2020", "t2021"}
    assert docs(retriever, program="direitos humanos") == {"d2018", "t2021"}
    assert docs(retriever, program="educacao") == {"t2020"}
    assert docs(retriever, program="direitos humanos", year_to=2019) == {"d2018"}


def test_passages_per_document_are_capped_and_ranks_count_from_one(retriever: Retriever) -> None:
    hits = retriever.search("defensoria pública", 100, per_document=2)
    per_doc = {d: sum(h.doc_id == d for h in hits) for d, *_ in DOCS}
    assert set(per_doc.values()) == {2}
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert len(retriever.search("defensoria pública", 4)) == 4
    assert len(retriever.search("defensoria pública", 0)) == 0


FILLER = "um texto sobre outros temas, com muitas palavras que nada dizem da busca feita aqui"


def test_a_long_document_does_not_leave_the_answer_short(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "colmeia.db"))
    # one long work whose 40 passages all mention the query twice, and three short works
    store.replace_document(
        "c",
        StoredDocument("long", "h"),
        [
            StoredChunk(
                f"long#{i}",
                "long",
                i,
                f"defensoria defensoria pública {i}",
                char_start=100 * i,
                char_end=100 * i + 90,
            )
            for i in range(40)
        ],
    )
    for name in ("s1", "s2", "s3"):
        store.replace_document(
            "c",
            StoredDocument(name, "h"),
            [StoredChunk(f"{name}#0", name, 0, f"{name}: {FILLER} defensoria {FILLER}")],
        )
    r = Retriever(store, "c", candidates=5, per_document=1)
    hits = r.search("defensoria", 4)
    assert hits[0].doc_id == "long"
    assert sorted(h.doc_id for h in hits) == ["long", "s1", "s2", "s3"]
    found = r.search_documents("defensoria", 10)
    assert [d.doc_id for d in found][0:1] == ["long"]
    assert len(found) == 4
