"""Importing screening decisions again (a RIS file back from Zotero) never overwrites what the
reviewer decided since: the log is the newer word. And a work's latest decision is the one
its furthest stage holds."""

from __future__ import annotations

from pathlib import Path

from colmeia.apps.literature.records import Record, screening_note
from colmeia.apps.literature.screening import ScreeningLog, import_decisions

WORKS = {
    "10.1000/a": "Avaliação formativa no ensino médio",
    "10.1000/b": "Letramento digital de professores",
    "10.1000/c": "Evasão escolar na EJA",
}


def ris(path: Path, decisions: dict[str, tuple[str, str]]) -> Path:
    rows = []
    for doi, (decision, reason) in decisions.items():
        rows += [
            "TY  - THES",
            f"TI  - {WORKS[doi]}",
            "PY  - 2020",
            f"DO  - {doi}",
            f"N1  - {screening_note(decision, reason)}",
            "ER  - ",
        ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def work_id(doi: str) -> str:
    return Record(title=WORKS[doi], year=2020, doi=doi).id


def test_a_reimport_keeps_the_decisions_made_since_and_takes_only_new_ones(tmp_path: Path) -> None:
    log = ScreeningLog("teses")
    a, b, c = (work_id(d) for d in WORKS)
    log.decide(a, "include")
    log.decide(a, "include", stage="full_text")  # went on to full text since the export
    log.decide(b, "exclude", "fora do recorte")
    exported = ris(
        tmp_path / "zotero.ris",
        {
            "10.1000/a": ("exclude", "tema"),
            "10.1000/b": ("include", ""),
            "10.1000/c": ("exclude", "outro nível de ensino"),
        },
    )
    assert import_decisions(log, [exported]) == 1
    assert log.decision(a) is not None and log.decision(a)[0] == "full_text"  # type: ignore[index]
    assert log.stages["title_abstract"][a].decision == "include"
    assert log.stages["title_abstract"][b].decision == "exclude"
    assert log.stages["title_abstract"][b].reason == "fora do recorte"
    assert log.stages["title_abstract"][c].reason == "outro nível de ensino"


def test_importing_the_same_file_twice_takes_nothing_the_second_time(tmp_path: Path) -> None:
    log = ScreeningLog("teses")
    exported = ris(tmp_path / "z.ris", {"10.1000/c": ("exclude", "")})
    assert import_decisions(log, [exported]) == 1
    assert log.stages["title_abstract"][work_id("10.1000/c")].reason == "(sem motivo no arquivo)"
    assert import_decisions(log, [exported]) == 0


def test_a_work_excluded_on_its_abstract_leaves_full_text_screening() -> None:
    log = ScreeningLog("teses")
    log.decide("w1", "include")
    log.decide("w1", "include", stage="full_text")
    log.decide("w1", "exclude", "duplicata")
    assert "w1" not in log.stages["full_text"]
    stage_and_decision = log.decision("w1")
    assert stage_and_decision is not None
    assert (stage_and_decision[0], stage_and_decision[1].decision) == ("title_abstract", "exclude")


def test_the_latest_decision_is_the_furthest_stages() -> None:
    log = ScreeningLog("teses")
    log.decide("w2", "include")
    log.decide("w2", "exclude", "sem dados empíricos", stage="full_text")
    stage_and_decision = log.decision("w2")
    assert stage_and_decision is not None
    assert (stage_and_decision[0], stage_and_decision[1].decision) == ("full_text", "exclude")


def _ris_notes(path: Path, doi: str, *notes: str) -> Path:
    rows = ["TY  - THES", f"TI  - {WORKS[doi]}", "PY  - 2020", f"DO  - {doi}"]
    rows += [f"N1  - {n}" for n in notes]
    path.write_text("\n".join([*rows, "ER  - "]) + "\n", encoding="utf-8")
    return path


def test_a_carried_decision_keeps_its_stage_reason_notes_author_and_time(tmp_path: Path) -> None:
    log = ScreeningLog("teses")
    a = work_id("10.1000/a")
    exported = _ris_notes(
        tmp_path / "z.ris",
        "10.1000/a",
        screening_note("include", "", "bom recorte", who="ana", at="2026-11-01T10:00:00+00:00"),
        screening_note(
            "exclude",
            "sem dados",
            "lido em 2 dias\nfalta o anexo",
            stage="full_text",
            who="bia",
            at="2026-11-02T10:00:00+00:00",
        ),
    )
    assert import_decisions(log, [exported]) == 2
    first = log.stages["title_abstract"][a]
    # an inclusion needs no reason: none is made up for it
    assert (first.decision, first.reason, first.notes, first.who, first.at) == (
        "include",
        "",
        "bom recorte",
        "ana",
        "2026-11-01T10:00:00+00:00",
    )
    full = log.stages["full_text"][a]
    assert (full.decision, full.reason, full.notes, full.who, full.at) == (
        "exclude",
        "sem dados",
        "lido em 2 dias\nfalta o anexo",
        "bia",
        "2026-11-02T10:00:00+00:00",
    )


def test_a_full_text_decision_for_a_work_not_included_on_its_abstract_is_left_out(
    tmp_path: Path,
) -> None:
    a = work_id("10.1000/a")
    full_text = screening_note("include", stage="full_text", at="2026-11-05T10:00:00+00:00")
    for title_abstract in (None, "exclude"):
        log = ScreeningLog("teses")
        if title_abstract:
            log.decide(a, "exclude", "fora do recorte", at="2026-11-04T10:00:00+00:00")
        exported = _ris_notes(tmp_path / "z.ris", "10.1000/a", full_text)
        # no error, nothing taken: a full text is screened only after an inclusion
        assert import_decisions(log, [exported]) == 0
        assert a not in log.stages["full_text"]
    log = ScreeningLog("teses")
    log.decide(a, "include", at="2026-11-04T10:00:00+00:00")
    assert import_decisions(log, [_ris_notes(tmp_path / "z.ris", "10.1000/a", full_text)]) == 1
    assert log.stages["full_text"][a].decision == "include"


def test_one_skipped_note_does_not_hide_the_next_one_of_the_same_work(tmp_path: Path) -> None:
    a = work_id("10.1000/a")
    log = ScreeningLog("teses")
    log.decide(a, "include", at="2026-11-03T10:00:00+00:00")
    exported = _ris_notes(
        tmp_path / "z.ris",
        "10.1000/a",
        screening_note("pending"),  # not a decision
        # older than the library's: kept out
        screening_note("exclude", "tema", at="2026-11-01T10:00:00+00:00"),
        # newer: taken
        screening_note("exclude", "duplicata", at="2026-11-09T10:00:00+00:00"),
    )
    assert import_decisions(log, [exported]) == 1
    assert log.stages["title_abstract"][a].reason == "duplicata"


def test_times_written_in_another_utc_offset_are_compared_as_moments(tmp_path: Path) -> None:
    # a reviewer in Brasília (-03:00) decided at 12:00 UTC; the file's notes were written in
    # Moscow time (+03:00): 13:00+03:00 is 10:00 UTC, older, and 14:00-03:00 is 17:00 UTC, newer
    a, b = work_id("10.1000/a"), work_id("10.1000/b")
    log = ScreeningLog("teses")
    log.decide(a, "include", at="2026-11-02T09:00:00-03:00")
    log.decide(b, "include", at="2026-11-02T09:00:00-03:00")
    older = screening_note("exclude", "tema", at="2026-11-02T13:00:00+03:00")
    newer = screening_note("exclude", "duplicata", at="2026-11-02T14:00:00-03:00")
    exported = tmp_path / "z.ris"
    exported.write_text(
        _ris_notes(tmp_path / "a.ris", "10.1000/a", older).read_text(encoding="utf-8")
        + _ris_notes(tmp_path / "b.ris", "10.1000/b", newer).read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    assert import_decisions(log, [exported]) == 1
    assert log.stages["title_abstract"][a].decision == "include"  # the newer word, kept
    assert log.stages["title_abstract"][b].reason == "duplicata"
