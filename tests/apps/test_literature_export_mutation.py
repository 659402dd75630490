"""A review exported to RIS or BibTeX reads back with what a reference manager needs.

docs/literature.md: ``colmeia review export review.json out.ris`` (or ``.bib``) writes the
works for Zotero/Mendeley. Whatever else the exporter writes, each work's title, its authors
(in order, accents kept) and its year come back unchanged when the file is read again, by
colmeia's own importer and by the standard parsers; a work without a year comes back without
one, not with an empty or invented year.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from colmeia.apps.literature import Review, ReviewedWork
from colmeia.apps.literature.export import export_review
from colmeia.apps.literature.records import read_bibtex, read_ris

WORKS = [
    ReviewedWork(
        "t1",
        "Acesso à justiça e a Defensoria Pública: um estudo de caso",
        1,
        0.9,
        authors=["Conceição, Maria José da", "Gonçalves, João"],
        year=2019,
        doc_type="Tese",
        institution="Universidade Federal de Goiás",
        doi="10.1234/ufg.2019.77",
    ),
    ReviewedWork(
        "d1",
        "Educação inclusiva nas escolas públicas",
        2,
        0.8,
        authors=["Pereira, Isabella Bruna Lemes"],
        year=2021,
        doc_type="Dissertação",
    ),
    ReviewedWork(
        "a1",
        "Direitos humanos e políticas públicas",
        3,
        0.7,
        authors=["Souza, Ana"],
        year=None,
        doc_type="Artigo",
    ),
]


def _review() -> Review:
    return Review("acesso à justiça", "teses", [*WORKS])


@pytest.mark.parametrize(("suffix", "reader"), [(".ris", read_ris), (".bib", read_bibtex)])
def test_title_authors_and_year_survive_a_round_trip(tmp_path: Path, suffix: str, reader) -> None:  # type: ignore[no-untyped-def]
    path = export_review(_review(), tmp_path / f"revisao{suffix}")
    records, problems = reader(path)
    assert problems == []
    back = sorted((r.title, r.authors, r.year) for r in records)
    assert back == sorted((w.title, w.authors, w.year) for w in WORKS)


def test_the_ris_file_is_what_a_reference_manager_reads(tmp_path: Path) -> None:
    import rispy

    path = export_review(_review(), tmp_path / "revisao.ris")
    entries = rispy.loads(path.read_text(encoding="utf-8"))
    by_title = {e["title"]: e for e in entries}
    thesis = by_title[WORKS[0].title]
    assert thesis["authors"] == WORKS[0].authors
    assert thesis["year"] == "2019"
    assert thesis["type_of_reference"] == "THES"
    assert thesis["doi"] == "10.1234/ufg.2019.77"
    assert by_title[WORKS[1].title]["year"] == "2021"
    assert not by_title[WORKS[2].title].get("year")


def test_the_bib_file_is_what_a_reference_manager_reads(tmp_path: Path) -> None:
    import bibtexparser

    path = export_review(_review(), tmp_path / "revisao.bib")
    lib = bibtexparser.parse_string(path.read_text(encoding="utf-8"))
    assert lib.failed_blocks == []
    by_title = {e.fields_dict["title"].value: e for e in lib.entries}
    thesis = by_title[WORKS[0].title]
    assert thesis.entry_type == "phdthesis"
    assert thesis.fields_dict["author"].value == "Conceição, Maria José da and Gonçalves, João"
    assert thesis.fields_dict["year"].value == "2019"
    assert by_title[WORKS[1].title].entry_type == "mastersthesis"
    assert "year" not in by_title[WORKS[2].title].fields_dict
    assert len({e.key for e in lib.entries}) == 3  # every entry has its own key


def test_an_unknown_format_is_refused_naming_the_formats(tmp_path: Path) -> None:
    from colmeia.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match=r"unknown export format \.doc; use one of"):
        export_review(_review(), tmp_path / "revisao.doc")
