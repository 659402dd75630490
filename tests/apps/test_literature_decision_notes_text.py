"""The screening note a reviewer sees in Zotero or JabRef, and reads back: exactly what is
written for each stage, every field read back as written (notes of several lines included),
hand-edited notes read or refused sensibly, and which of two times is the newer one (so a
re-import keeps the newer decision)."""

from __future__ import annotations

import pytest

from colmeia.apps.literature.decision_notes import (
    CarriedDecision,
    newer,
    parse_decisions,
    parse_screening,
    screening_note,
)

AT = "2026-11-28T16:01:02+00:00"


def test_the_note_of_each_stage_is_written_as_documented() -> None:
    assert screening_note("exclude", "fora do recorte", who="ana", at=AT) == (
        f"Triagem: exclude | Motivo: fora do recorte | Por: ana | Em: {AT}"
    )
    assert screening_note("include", notes="linha 1\nlinha 2", stage="full_text", at=AT) == (
        f"Triagem (texto completo): include | Em: {AT} | Notas: linha 1\nlinha 2"
    )
    assert screening_note("include") == "Triagem: include"
    # An unknown stage is written as the title/abstract one.
    assert screening_note("include", stage="outra") == "Triagem: include"


def test_blank_fields_are_left_out_and_spaces_tidied() -> None:
    assert screening_note("include", "   ", "  \n ", who=" \t", at="  ") == "Triagem: include"
    assert screening_note("include", notes="\n\n  linha  \n\n") == "Triagem: include | Notas: linha"
    assert screening_note(
        "exclude", "  fora   do\trecorte ", "  a   b \n\n  c  ", who=" ana  maria ", at=f" {AT} "
    ) == (
        f"Triagem: exclude | Motivo: fora do recorte | Por: ana maria | Em: {AT} | Notas: a b\n\nc"
    )


@pytest.mark.parametrize("stage", ["title_abstract", "full_text"])
def test_every_field_reads_back_as_written(stage: str) -> None:
    note = screening_note(
        "exclude", "sem PDF", "método claro\namostra de 12", stage=stage, who="bruno", at=AT
    )
    assert parse_decisions(note) == [
        CarriedDecision(stage, "exclude", "sem PDF", "método claro\namostra de 12", "bruno", AT)
    ]
    assert parse_screening(note) == ("exclude", "sem PDF", "método claro\namostra de 12")


def test_a_notes_line_that_looks_like_a_decision_stays_in_the_notes() -> None:
    notes = "primeira\nTriagem: exclude por engano\nTriagem (texto completo): include ok"
    note = screening_note("include", notes=notes, who="ana")
    assert "\n Triagem: exclude" in note
    assert "\n Triagem (texto completo): include" in note
    (got,) = parse_decisions(note)
    assert (got.decision, got.who, got.notes) == ("include", "ana", notes)


def test_notes_that_quote_the_notes_own_fields_stay_notes() -> None:
    notes = "ver | Motivo: outro | Por: bia\ncopiado de | Notas: antigas"
    (got,) = parse_decisions(screening_note("include", "", notes, who="ana", at=AT))
    assert (got.reason, got.who, got.at, got.notes) == ("", "ana", AT, notes)
    (got,) = parse_decisions("Triagem: include | Notas:")
    assert got == CarriedDecision("title_abstract", "include")


def test_several_notes_in_one_field_each_run_to_the_next() -> None:
    field = (
        "Lido em 2025.\n"
        + screening_note("include", notes="a\nb", who="ana", at=AT)
        + "\n"
        + screening_note("exclude", "sem PDF", stage="full_text", who="bia")
    )
    got = parse_decisions(field)
    assert [(d.stage, d.decision, d.notes, d.who) for d in got] == [
        ("title_abstract", "include", "a\nb", "ana"),
        ("full_text", "exclude", "", "bia"),
    ]
    assert got[1].reason == "sem PDF"
    # The first of them is "the" screening only when the field starts with one.
    assert parse_screening(field) is None
    assert parse_screening(field.split("\n", 1)[1]) == ("include", "", "a\nb")


def test_hand_written_labels_and_spacing_are_read() -> None:
    for label in ("Título e Resumo", "titulo  e resumo", "TÍTULO E RESUMO", ""):
        (got,) = parse_decisions(f"Triagem ({label}): exclude | Motivo: x")
        assert (got.stage, got.decision, got.reason) == ("title_abstract", "exclude", "x")
    (got,) = parse_decisions("Triagem (Texto  Completo):include|Por:  ana  |Em: " + AT)
    assert (got.stage, got.decision, got.who, got.at) == ("full_text", "include", "ana", AT)
    # A field that starts with spaces (a tool's indentation) is read all the same.
    note = "  " + screening_note("exclude", "x", who="ana") + "  \n "
    assert [(d.decision, d.reason, d.who) for d in parse_decisions(note)] == [
        ("exclude", "x", "ana")
    ]
    assert parse_screening(note) == ("exclude", "x", "")
    (got,) = parse_decisions("Triagem: pending")
    assert got == CarriedDecision("title_abstract", "pending")
    (got,) = parse_decisions("Triagem: include| Notas: junto  \n  da barra  ")
    assert got.notes == "junto\n  da barra"
    (got,) = parse_decisions("Triagem: exclude | Motivo: a | b | Por: ana")
    assert (got.reason, got.who) == ("a | b", "ana")


def test_text_that_is_not_a_colmeia_note_is_not_a_decision() -> None:
    for text in (
        "",
        "Sem triagem",
        "Triagem: include-ish",
        "Triagem: talvez",
        "Triagem (segunda leitura): include",
        "Triagem: include, sem dúvida",
    ):
        assert parse_decisions(text) == [], text
        assert parse_screening(text) is None, text
    # A note that is not one does not hide the next one.
    got = parse_decisions("Triagem (outra): include\nTriagem: exclude | Motivo: x")
    assert [(d.stage, d.decision) for d in got] == [("title_abstract", "exclude")]


def test_the_newer_of_two_times() -> None:
    early, late = "2026-06-01T10:00:00+00:00", "2026-06-02T10:00:00+00:00"
    assert newer(late, early) and not newer(early, late)
    assert not newer(early, early)  # the same moment is not newer
    # Other offsets are compared as moments: 12:00+02:00 is 10:00 UTC.
    assert not newer("2026-06-01T12:00:00+02:00", "2026-06-01T11:00:00+00:00")
    assert newer("2026-06-01T12:00:00-02:00", "2026-06-01T13:00:00+00:00")
    # A time without an offset is UTC.
    assert newer("2026-06-01T11:00:00", "2026-06-01T10:30:00+00:00")
    assert not newer("2026-06-01T10:00:00", "2026-06-01T10:30:00+00:00")
    # A missing or unreadable time is the oldest of all.
    for missing in ("", "ontem", "2026-13-45"):
        assert newer("0001-01-02T00:00:00+00:00", missing)
        assert not newer(missing, "0001-01-02T00:00:00+00:00")
        assert not newer(missing, "")
