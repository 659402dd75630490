"""A bibliography survives colmeia: CSV/RIS/BibTeX in, a screened review out as RIS and BibTeX,
and read back with every field as it was — accents, multi-line abstracts, keywords, authors as
"Last, First", and the screening decisions with their reasons."""

from __future__ import annotations

from pathlib import Path

import pytest

from colmeia.apps.literature import export_review, import_library, load_records, run_review
from colmeia.apps.literature.records import Record, parse_screening, person_name, screening_note
from colmeia.store import open_store

# Three works as the CAPES catalogue exports them: keywords as a Python list of words with
# ";" between keywords, authors "First Last", an abstract whose quoted field spans lines, and
# characters LaTeX gives a meaning to (50 %, &, _).
CSV = (
    ",IES,Programa,Titulo,Autor,Tipo,Defesa,Resumo,Keywords,link_trabalho\n"
    '0,Universidade Federal De Goiás,Educação,"Formação docente e educação inclusiva: '
    'um estudo em Goiânia",Isabella Bruna Lemes Pereira,Dissertação,17/08/2017,'
    '"A formação docente para a educação inclusiva foi estudada aqui\n'
    "Segunda parte: 50% dos professores & gestores relatam falta de apoio (programa_AEE).\n"
    'Conclui-se que a formação continuada é decisiva.",'
    "\"['Educação', 'inclusiva;Formação', 'docente;Escola']\","
    "https://repositorio.example.org/handle/123/456\n"
    '1,Universidade De São Paulo,Psicologia,"Bem-estar de professores na rede pública",'
    "João da Silva Filho,Tese,2019-03-02,"
    '"Esta tese investiga o bem-estar e a formação docente em escolas públicas.\n'
    'Os resultados indicam esgotamento; a formação docente ajuda.",'
    "\"['Bem-estar', 'docente;Saúde', 'do', 'trabalhador']\",https://doi.org/10.1234/bem.2019\n"
    '2,Universidade Estadual De Campinas,Educação,"Currículo e formação docente no ensino '
    'médio",Ana Lima,Dissertação,2021,"Analisa o currículo do ensino médio e a formação '
    'docente.",Currículo; Ensino médio,\n'
)

QUESTION = "formação docente"


@pytest.fixture
def screened_review(tmp_path: Path):  # type: ignore[no-untyped-def]
    """The CSV imported, reviewed without a model, two works screened."""
    csv_path = tmp_path / "capes.csv"
    csv_path.write_text(CSV, encoding="utf-8")
    originals = {r.id: r for r in load_records([csv_path]).records}
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    import_library(store, "teses", [csv_path])
    review = run_review(store, "teses", QUESTION, top=10)
    store.close()
    assert {w.doc_id for w in review.works} == set(originals)
    by_title = {w.title.split(":")[0]: w for w in review.works}
    review.screen(
        by_title["Formação docente e educação inclusiva"].doc_id, "include", "", "central"
    )
    review.screen(
        by_title["Bem-estar de professores na rede pública"].doc_id,
        "exclude",
        "fora do recorte | saúde",
    )
    return review, originals


FIELDS = (
    "title",
    "authors",
    "year",
    "doc_type",
    "program",
    "institution",
    "abstract",
    "keywords",
    "doi",
    "handle",
    "links",
)


@pytest.mark.parametrize("fmt", ["ris", "bib"])
def test_a_screened_review_exported_and_read_back_keeps_every_field(
    screened_review: tuple, tmp_path: Path, fmt: str
) -> None:
    review, originals = screened_review
    path = export_review(review, tmp_path / f"revisao.{fmt}")
    back = load_records([path])
    assert back.problems == []
    assert {r.id for r in back.records} == set(originals)
    for rec in back.records:
        first = originals[rec.id]
        for name in FIELDS:
            assert getattr(rec, name) == getattr(first, name), (fmt, rec.title, name)
    got = {r.title.split(":")[0]: r for r in back.records}
    inclusive = got["Formação docente e educação inclusiva"]
    assert inclusive.abstract.splitlines() == [
        "A formação docente para a educação inclusiva foi estudada aqui",
        "Segunda parte: 50% dos professores & gestores relatam falta de apoio (programa_AEE).",
        "Conclui-se que a formação continuada é decisiva.",
    ]
    assert inclusive.keywords == ["Educação inclusiva", "Formação docente", "Escola"]
    assert inclusive.authors == ["Pereira, Isabella Bruna Lemes"]
    assert (inclusive.screening, inclusive.screening_reason, inclusive.screening_notes) == (
        "include",
        "",
        "central",
    )
    wellbeing = got["Bem-estar de professores na rede pública"]
    assert wellbeing.authors == ["Silva Filho, João da"]
    assert wellbeing.doi == "10.1234/bem.2019"
    assert (wellbeing.screening, wellbeing.screening_reason) == (
        "exclude",
        "fora do recorte | saúde",
    )
    assert got["Currículo e formação docente no ensino médio"].screening == ""


def test_the_ris_export_has_one_keyword_per_line_and_authors_last_first(
    screened_review: tuple, tmp_path: Path
) -> None:
    review, _ = screened_review
    text = export_review(review, tmp_path / "r.ris").read_text(encoding="utf-8")
    assert "KW  - Educação inclusiva\n" in text
    assert "KW  - ['" not in text
    assert "AU  - Pereira, Isabella Bruna Lemes\n" in text
    assert "N1  - Triagem: exclude | Motivo: fora do recorte | saúde | Em: 20" in text
    assert not text.startswith("1.")  # rispy's record numbers are no RIS lines
    assert "PB  - Universidade Federal De Goiás\n" in text


def test_bibtex_latex_accents_and_braces_are_decoded(tmp_path: Path) -> None:
    bib = tmp_path / "zotero.bib"
    bib.write_text(
        r"""@mastersthesis{silva2020,
  title = {Forma\c{c}\~ao de {P}rofessores e Educa{\c c}{\~a}o em 50\% das escolas},
  author = {Silva, Jos{\'e} and Concei\c{c}\~ao, Maria},
  year = {2020},
  school = {Universidade Federal de Goi{\'a}s},
  abstract = {Primeira linha do resumo
    segunda linha com acentua\c{c}\~ao.},
  keywords = {forma\c{c}\~ao docente, inclus\~ao}
}
""",
        encoding="utf-8",
    )
    (rec,) = load_records([bib]).records
    assert rec.title == "Formação de Professores e Educação em 50% das escolas"
    assert rec.authors == ["Silva, José", "Conceição, Maria"]
    assert rec.institution == "Universidade Federal de Goiás"
    assert rec.abstract == "Primeira linha do resumo\nsegunda linha com acentuação."
    assert rec.keywords == ["formação docente", "inclusão"]
    assert rec.doc_type == "Dissertação"


def test_a_multi_line_csv_abstract_keeps_its_words_apart_and_rows_are_named_by_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.csv"
    path.write_text(
        'Titulo,Resumo\n"Primeiro","linha aqui\nSegunda linha"\n,"sem título"\n"Terceiro",ok\n',
        encoding="utf-8",
    )
    report = load_records([path])
    first = next(r for r in report.records if r.title == "Primeiro")
    assert "aquiSegunda" not in first.abstract
    assert first.abstract == "linha aqui\nSegunda linha"
    # The untitled row starts on line 4 of the file (the first record spans lines 2-3).
    assert [(p.source, p.reason) for p in report.problems] == [("c.csv: line 4", "empty title")]
    assert [r.title for r in report.records] == ["Primeiro", "Terceiro"]


def test_names_become_last_first_as_abnt_orders_them() -> None:
    assert person_name("Isabella Bruna Lemes Pereira") == "Pereira, Isabella Bruna Lemes"
    assert person_name("João da Silva Filho") == "Silva Filho, João da"
    assert person_name("Souza,  Carlos") == "Souza, Carlos"
    assert person_name("Platão") == "Platão"


def test_a_screening_note_reads_back_and_other_notes_are_not_taken_for_one() -> None:
    note = screening_note("exclude", "outro  idioma", "ver\ndepois")
    # The notes' line breaks are the reviewer's: kept, not flattened.
    assert note == "Triagem: exclude | Motivo: outro idioma | Notas: ver\ndepois"
    assert parse_screening(note) == ("exclude", "outro idioma", "ver\ndepois")
    assert parse_screening("Triagem: include") == ("include", "", "")
    assert parse_screening("Relevância: alta — Triagem: exclude") is None
    assert Record("t", screening="include").as_dict()["screening"] == "include"
