"""CSV ingestion guesses the columns a person would pick, and dates/types feed the filters.

The CAPES catalogue (``data/theses``) is a dataframe export: an unnamed first column of row
numbers, ``link_trabalho`` as the only identifier, ``Tipo`` (Dissertação/Tese) and ``Defesa``
(``17/08/2017``). LexML laws carry their date in the URN.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from colmeia.rag.ingest import iter_csv_records
from colmeia.rag.ingest.dates import iso_date, year_of
from colmeia.rag.pipeline import detect_csv_columns
from shared_data import DATA_DIR

CAPES = DATA_DIR / "theses" / "capes_resumos.csv"
LGPD = DATA_DIR / "laws" / "lexml" / "lei_13709_20180814.csv"


@pytest.mark.parametrize(
    ("value", "year", "iso"),
    [
        ("17/08/2017", 2017, "2017-08-17"),
        ("2017-08-17", 2017, "2017-08-17"),
        ("2017-08-17T10:30:00Z", 2017, "2017-08-17"),
        ("2017/08/17", 2017, "2017-08-17"),
        ("20170817", 2017, "2017-08-17"),
        ("17.08.2017", 2017, "2017-08-17"),
        ("1º/7/2021", 2021, "2021-07-01"),
        ("12/31/2019", 2019, "2019-12-31"),  # month first only where day first cannot be
        ("08/2017", 2017, None),
        ("2017-08", 2017, None),
        ("2017", 2017, None),
        ("2017.0", 2017, None),
        (2017, 2017, None),
        ("17 de agosto de 2017", 2017, None),
        ("August 17, 2017", 2017, None),
        ("17/08/17", None, None),  # two-digit year: ambiguous, no guess
        ("", None, None),
        ("sem data", None, None),
        ("31/02/2017", None, None),
        ("1990 a 2001", None, None),
        ("12345", None, None),
    ],
)
def test_dates_in_common_formats(value: object, year: int | None, iso: str | None) -> None:
    assert year_of(value) == year
    assert iso_date(value) == iso


def _rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def test_capes_columns_are_detected() -> None:
    header, rows = _rows(CAPES)
    cols = detect_csv_columns(header, None, rows)
    # The unnamed first column is a row number, not an identifier: the link is.
    assert header[0] == ""
    assert cols.id_column == "link_trabalho"
    assert (cols.text_column, cols.title_column) == ("Resumo", "Titulo")
    assert (cols.type_column, cols.date_column) == ("Tipo", "Defesa")


def test_an_unnamed_index_column_is_the_id_only_as_a_last_resort(tmp_path: Path) -> None:
    header = ["", "texto", "autor"]
    rows = [{"": str(i), "texto": f"t{i}", "autor": "A"} for i in range(5)]
    assert detect_csv_columns(header, None, rows).id_column == ""
    header2 = ["", "ID", "texto"]
    rows2 = [{"": str(i), "ID": f"doc-{i}", "texto": "t"} for i in range(5)]
    assert detect_csv_columns(header2, None, rows2).id_column == "ID"
    # A link column that repeats is no identifier; an unnamed column that is no index neither.
    rows3 = [{"": "7", "texto": "t", "url": "http://x"} for _ in range(3)]
    with pytest.raises(Exception, match="--id-column"):
        detect_csv_columns(["", "texto", "url"], None, rows3)


def test_a_column_with_one_value_per_row_is_no_type() -> None:
    header = ["id", "text", "tipo"]
    rows = [{"id": str(i), "text": "t", "tipo": f"x{i}"} for i in range(40)]
    assert detect_csv_columns(header, None, rows).type_column is None


def test_capes_records_get_type_and_year() -> None:
    header, rows = _rows(CAPES)
    cols = detect_csv_columns(header, None, rows)
    records = list(
        iter_csv_records(
            CAPES,
            id_column=cols.id_column,
            text_column=cols.text_column,
            title_column=cols.title_column,
            type_column=cols.type_column,
            date_column=cols.date_column,
        )
    )
    assert len(records) == 171
    first = records[0]
    assert first.doc_type == "Dissertação"
    assert first.metadata["year"] == 2017
    assert first.metadata["date"] == "2017-08-17"
    assert "" not in first.metadata  # the row number is not kept as metadata
    assert {r.doc_type for r in records} == {"Dissertação", "Tese"}


def test_capes_year_and_type_filters_from_the_cli(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(CAPES, tmp_path / "capes.csv")
    code, out, err = colmeia_cli("ingest", str(tmp_path / "capes.csv"), "-c", "teses", "--json")
    assert code == 0, err
    assert json.loads(out)["added"] == 171

    defended = {r["link_trabalho"]: r["Defesa"][-4:] for r in _rows(CAPES)[1]}
    code, out, _ = colmeia_cli("search", "escola sem partido", "--year", "2018", "--json")
    hits = json.loads(out)["hits"]
    assert code == 0 and len(hits) == 10
    assert {defended[h["doc_id"]] for h in hits} == {"2018"}

    kinds = {r["link_trabalho"]: r["Tipo"] for r in _rows(CAPES)[1]}
    code, out, _ = colmeia_cli("search", "escola sem partido", "--doc-type", "Tese", "--json")
    hits = json.loads(out)["hits"]
    assert code == 0 and hits
    assert {kinds[h["doc_id"]] for h in hits} == {"Tese"}


def test_lexml_laws_get_their_date_from_the_urn_and_skip_vetoed_dispositivos() -> None:
    records = list(iter_csv_records(LGPD, id_column="urn", text_column="Texto"))
    assert {r.metadata["year"] for r in records} == {2018}
    assert {r.metadata["date"] for r in records} == {"2018-08-14"}
    assert {r.doc_type for r in records} == {"Lei"}
    ids = {r.source_id for r in records}
    with LGPD.open(encoding="utf-8") as fh:
        rows = {r["urn"]: r for r in csv.DictReader(fh)}
    # Art. 28 is "(VETADO)."; its neighbours are law in force.
    vetoed = "urn:lex:br:federal:lei:2018-08-14;13709!art28_cpt"
    assert rows[vetoed]["Texto"].endswith("] (VETADO).")
    assert vetoed not in ids
    assert "urn:lex:br:federal:lei:2018-08-14;13709!art27_cpt" in ids
    assert "urn:lex:br:federal:lei:2018-08-14;13709!art29_cpt" in ids
    assert not [r for r in records if r.text.lstrip("IVXL –-").startswith(("(VETADO", "(Revogad"))]


def test_year_filter_works_on_laws(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    laws = tmp_path / "laws"
    laws.mkdir()
    for name in ("lei_13709_20180814.csv", "lei_8078_19900911.csv"):
        shutil.copy(DATA_DIR / "laws" / "lexml" / name, laws / name)
    assert colmeia_cli("ingest", str(laws), "-c", "leis")[0] == 0
    code, out, _ = colmeia_cli("search", "dados pessoais do consumidor", "--year", "1990", "--json")
    hits = json.loads(out)["hits"]
    assert code == 0 and hits
    assert {h["citation"]["document"].split(",")[0] for h in hits} == {"Lei 8.078/1990"}
    code, out, _ = colmeia_cli("search", "tratamento", "--doc-type", "Lei", "--json")
    assert json.loads(out)["hits"]
