"""Spelling out acronyms in a text whose lower case is longer than the text itself: the names are
added to the folded text (positions there are the ones that match), never lost."""

from __future__ import annotations

from colmeia.apps.assistant.institutions import spell_out


def test_a_text_whose_folding_changes_length_is_spelled_out_on_its_folded_form() -> None:
    """'İ' lower-cases to two characters: the acronym is still spelled out, in the folded text."""
    assert spell_out("Rua İpiranga: o TCU julga") == (
        "rua i\u0307piranga: o tcu (Tribunal de Contas da União) julga"
    )
    assert spell_out("Rua İpiranga: o TCU julga", keep=False) == (
        "rua i\u0307piranga: o Tribunal de Contas da União julga"
    )
