"""One screening record per library: a whole catalogue screened through the CLI shows its
decisions in every later review and in the whole library exported to RIS, BibTeX, CSV and
XLSX, read back by rispy and bibtexparser; a re-import keeps the newer decision of each
stage."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from colmeia.apps.literature.decision_notes import parse_decisions
from shared_data import DATA_DIR

CAPES = DATA_DIR / "theses" / "capes_resumos.csv"
OFFLINE = {"COLMEIA_EMBEDDINGS_MODEL": "none"}


def _answers(n: int) -> str:
    """A scripted reviewer: every third work shown is excluded, the others included with a
    note; then quit."""
    out = []
    for i in range(n):
        out.append("e\nfora do recorte\n" if i % 3 == 0 else f"i\nnota {i}\n")
    return "".join(out) + "q\n"


def _log(home: Path) -> dict:  # type: ignore[type-arg]
    (path,) = (home / "screening").glob("capes-*.json")
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.fixture
def screened(colmeia_cli, tmp_path: Path):  # type: ignore[no-untyped-def]
    """The shipped CAPES catalogue (171 works) screened whole, interactively, by 'ana'; two
    works screened again on full text, one with notes of several lines."""
    code, out, err = colmeia_cli("review", "import", str(CAPES), "-c", "capes", env=OFFLINE)
    assert code == 0, err
    assert "171 works" in out
    code, out, err = colmeia_cli(
        "review", "screen", "-c", "capes", "--interactive", "--who", "ana",
        "--question", "formação de professores", input=_answers(171),
    )  # fmt: skip
    assert code == 0, err
    log = _log(tmp_path / "home")
    first = log["stages"]["title_abstract"]
    assert len(first) == 171
    included = sorted(k for k, d in first.items() if d["decision"] == "include")
    code, _, err = colmeia_cli(
        "review", "screen", "-c", "capes", "--decide", included[0], "include", "--stage", "full",
        "--notes", "método claro\namostra de 12 docentes", "--who", "bruno",
    )  # fmt: skip
    assert code == 0, err
    code, _, err = colmeia_cli(
        "review", "screen", "-c", "capes", "--decide", included[1], "exclude", "--stage", "full",
        "--reason", "texto completo indisponível", "--who", "bruno",
    )  # fmt: skip
    assert code == 0, err
    return _log(tmp_path / "home"), included


# 171 decisions through the CLI, each refitting the queue: ~1 min alone, several on a loaded
# machine (the default 300 s limit was hit once at load 13).
@pytest.mark.timeout(900)
def test_a_screened_library_shows_its_decisions_in_a_new_review_and_the_whole_export(
    colmeia_cli, screened, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    import bibtexparser
    import rispy

    log, included = screened
    first, full = log["stages"]["title_abstract"], log["stages"]["full_text"]
    assert sum(d["decision"] == "exclude" for d in first.values()) == 57  # 171 / 3
    assert {d["who"] for d in first.values()} == {"ana"}

    # A new review of 20 works shows the library's decisions, not 20 pending.
    code, _, err = colmeia_cli(
        "review", "formação de professores", "-c", "capes", "--top", "20", "--out", "r.json",
        env=OFFLINE,
    )  # fmt: skip
    assert code == 0, err
    review = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert len(review["works"]) == 20
    for w in review["works"]:
        latest = full.get(w["doc_id"]) or first[w["doc_id"]]
        assert (w["screening"]["decision"], w["screening"]["reason"]) == (
            latest["decision"],
            latest["reason"],
        )
        assert w["decisions"]["title_abstract"]["who"] == "ana"
    assert review["prisma"]["pending"] == 0
    lib = review["prisma_library"]
    assert (lib["identified"], lib["screened"], lib["excluded"]) == (171, 171, 57)
    assert (lib["full_text_assessed"], lib["included"], lib["excluded_full_text"]) == (2, 1, 1)

    # The whole library, with every decision, to RIS and BibTeX, read back by rispy and
    # bibtexparser.
    for name in ("lib.ris", "lib.bib", "lib.csv", "lib.xlsx"):
        code, out, err = colmeia_cli("review", "export", "--library", "-c", "capes", name)
        assert code == 0, err
    text = (tmp_path / "lib.ris").read_text(encoding="utf-8")
    assert text.startswith("TY  - ")  # no rispy record numbers ("1.")
    entries = rispy.loads(text)
    assert len(entries) == 171
    by_title = {}
    for e in entries:
        carried = parse_decisions("\n".join(e["notes"]))
        by_title[" ".join(e["title"].split())] = carried
        assert carried[0].stage == "title_abstract"
        assert carried[0].who == "ana"
    bib = bibtexparser.parse_string((tmp_path / "lib.bib").read_text(encoding="utf-8"))
    assert len(bib.entries) == 171
    notes = [parse_decisions(e.fields_dict["note"].value) for e in bib.entries]
    assert sum(d[0].decision == "exclude" for d in notes) == 57
    several = [d for d in notes if len(d) == 2]
    assert sorted(d[1].decision for d in several) == ["exclude", "include"]
    kept = next(d[1] for d in several if d[1].decision == "include")
    assert (kept.notes, kept.who) == ("método claro\namostra de 12 docentes", "bruno")
    assert kept.at == full[included[0]]["at"]
    with (tmp_path / "lib.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 171
    assert sum(r["ta_decision"] == "exclude" for r in rows) == 57
    assert sorted(r["ft_decision"] for r in rows if r["ft_decision"]) == ["exclude", "include"]
    from openpyxl import load_workbook

    book = load_workbook(tmp_path / "lib.xlsx")
    assert book["review"].max_row == 172  # a header and 171 works
    assert dict(book["prisma (library)"].iter_rows(values_only=True))["screened"] == 171

    # The export imported as a new library (as after a trip through Zotero): every decision.
    code, out, err = colmeia_cli("review", "import", "lib.ris", "-c", "zotero", env=OFFLINE)
    assert code == 0, err
    assert "173 screening decisions carried by the files kept" in out
    code, out, err = colmeia_cli("review", "screen", "-c", "zotero", "--json")
    prisma = json.loads(out)["prisma"]
    assert (prisma["screened"], prisma["excluded"], prisma["included"]) == (171, 57, 1)

    _a_re_import_keeps_the_newer_decision_of_each_stage(colmeia_cli, log, included[2], tmp_path)


def _a_re_import_keeps_the_newer_decision_of_each_stage(colmeia_cli, log, work, tmp_path):  # type: ignore[no-untyped-def]
    """(The same screened library: screening it again for a test of its own would double the
    file's time.)"""
    assert colmeia_cli("review", "export", "--library", "-c", "capes", "old.ris")[0] == 0
    # Changed in the library after the export: the file's older decision does not undo it.
    code, _, err = colmeia_cli(
        "review", "screen", "-c", "capes", "--decide", work, "exclude", "--reason", "revisto"
    )
    assert code == 0, err
    code, out, err = colmeia_cli("review", "import", "old.ris", "-c", "capes", env=OFFLINE)
    assert code == 0, err
    assert "screening decisions carried" not in out
    assert _log(tmp_path / "home")["stages"]["title_abstract"][work]["reason"] == "revisto"
    # A file whose decision is newer (changed in Zotero tomorrow) wins.
    text = (tmp_path / "old.ris").read_text(encoding="utf-8")
    at = log["stages"]["title_abstract"][work]["at"]
    newer = text.replace(f"Por: ana | Em: {at}", "Por: ana | Em: 2999-01-01T00:00:00+00:00")
    (tmp_path / "new.ris").write_text(newer, encoding="utf-8")
    code, out, err = colmeia_cli("review", "import", "new.ris", "-c", "capes", env=OFFLINE)
    assert code == 0, err
    assert "1 screening decisions carried by the files kept" in out
    now = _log(tmp_path / "home")["stages"]["title_abstract"][work]
    assert (now["decision"], now["at"]) == ("include", "2999-01-01T00:00:00+00:00")


def test_a_decision_on_a_saved_review_is_made_on_the_library(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert colmeia_cli("review", "import", str(CAPES), "-c", "capes", env=OFFLINE)[0] == 0
    question = "gênero e sexualidade na escola"
    args = ("review", question, "-c", "capes", "--top", "5")
    assert colmeia_cli(*args, "--out", "a.json", env=OFFLINE)[0] == 0
    code, _, err = colmeia_cli(
        "review", "screen", "a.json", "1", "--exclude", "--reason", "outro tema", "--who", "ana"
    )
    assert code == 0, err
    first = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))["works"][0]
    # Another review of the same library shows it.
    assert colmeia_cli(*args, "--top", "8", "--out", "b.json", env=OFFLINE)[0] == 0
    works = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["works"]
    (again,) = [w for w in works if w["doc_id"] == first["doc_id"]]
    assert (again["screening"]["decision"], again["screening"]["reason"]) == (
        "exclude",
        "outro tema",
    )
    assert again["screening"]["who"] == "ana"
    assert [w["screening"]["decision"] for w in works].count("pending") == len(works) - 1


def test_the_blank_line_between_abstract_paragraphs_survives_import_and_export(
    tmp_path: Path,
) -> None:
    from colmeia.apps.literature import Review, ReviewedWork, export_review
    from colmeia.apps.literature.records import read_bibtex, read_csv, read_ris

    (tmp_path / "c.csv").write_text(
        'Titulo,Resumo,Defesa\n"Um trabalho","Primeiro parágrafo.\n\n\nSegundo.",2020\n',
        encoding="utf-8",
    )
    ((record,), _) = read_csv(tmp_path / "c.csv")
    assert record.abstract == "Primeiro parágrafo.\n\nSegundo."  # a run of blank lines is one
    work = ReviewedWork("x", record.title, 1, 1.0, year=2020, abstract=record.abstract)
    for suffix, read in ((".ris", read_ris), (".bib", read_bibtex)):
        path = export_review(Review("q", "c", [work]), tmp_path / f"r{suffix}")
        assert read(path)[0][0].abstract == "Primeiro parágrafo.\n\nSegundo."


def test_per_stage_the_newer_decision_wins_on_import(tmp_path: Path) -> None:
    from colmeia.apps.literature.records import Record
    from colmeia.apps.literature.screening import ScreeningLog, import_decisions

    work = Record("Formação docente e inclusão", year=2020).id
    log = ScreeningLog("col")
    log.decide(work, "include", notes="da biblioteca", at="2026-06-01T10:00:00+00:00")
    log.decide(work, "include", stage="full_text", at="2026-06-02T10:00:00+00:00")
    ris = (
        "TY  - THES\nTI  - Formação docente e inclusão\nPY  - 2020\n"
        "N1  - Triagem: exclude | Motivo: fora | Por: bia | Em: {ta}\n"
        "N1  - Triagem (texto completo): exclude | Motivo: sem PDF | Em: {ft}\nER  - \n"
    )
    # Older on both stages: the library keeps its own.
    (tmp_path / "old.ris").write_text(
        ris.format(ta="2026-05-01T00:00:00+00:00", ft="2026-05-01T00:00:00+00:00"), "utf-8"
    )
    assert import_decisions(log, [tmp_path / "old.ris"]) == 0
    assert log.stages["title_abstract"][work].notes == "da biblioteca"
    # Newer at the title stage only: that stage changes; the full-text one is the library's.
    (tmp_path / "new.ris").write_text(
        ris.format(ta="2026-07-01T00:00:00+00:00", ft="2026-05-01T00:00:00+00:00"), "utf-8"
    )
    assert import_decisions(log, [tmp_path / "new.ris"]) == 1
    first = log.stages["title_abstract"][work]
    assert (first.decision, first.reason, first.who, first.at) == (
        "exclude",
        "fora",
        "bia",
        "2026-07-01T00:00:00+00:00",
    )
    # Excluded on title and abstract, the work has no full-text decision left.
    assert work not in log.stages["full_text"]
