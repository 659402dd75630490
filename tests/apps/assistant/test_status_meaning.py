"""`status_meaning`: what a court's situation means, told when asked — by the situation's name
or by pointing at the case's own ("isso") — and only for the situations it knows."""

from __future__ import annotations

import pytest

from colmeia.apps.assistant.status_meaning import MEANINGS, status_meaning


@pytest.mark.parametrize(
    ("asked", "status", "says"),
    [
        ("o que é diligencia?", "Julgado", "Em diligência"),
        ("e o que significa em instrução?", "Arquivado", "Em instrução"),
        ("aguardando defesa quer dizer o que?", "Julgado", None),  # no "o que é/significa"
        ("aguardando defesa significa o que?", "Julgado", "Aguardando defesa"),
        ("o q eh aguardando parecer do mpc", "Em instrução", "Aguardando parecer do MPC"),
        ("e o que quer dizer isso?", "Arquivado", "Arquivado"),
        ("o que seria essa fase?", "Em diligência", "Em diligência"),
        ("o que é isso?", "Sobrestado", None),  # a situation it does not know: no guess
        ("o que é um acórdão?", "Julgado", None),  # neither named nor pointed at
        ("quando foi julgado?", "Julgado", None),  # not asked what it means
        ("o que é o julgado", "Em instrução", "Julgado"),
        ("o que e arquivado", "Julgado", "Arquivado"),
    ],
)
def test_a_situation_is_explained_when_its_meaning_is_asked(
    asked: str, status: str, says: str | None
) -> None:
    told = status_meaning(asked, status)
    if says is None:
        assert told is None
    else:
        assert told is not None and told.startswith(f"O que quer dizer “{says}”: ")
        assert told.endswith(".")


def test_the_case_situation_pointed_at_is_read_as_the_registry_writes_it() -> None:
    told = status_meaning("o que quer dizer isso", "  AGUARDANDO   Parecer do MPC ")
    assert told == (
        "O que quer dizer “  AGUARDANDO   Parecer do MPC ”: "
        + MEANINGS["aguardando parecer do mpc"][0]
        + "."
    )


def test_a_word_inside_another_names_no_situation() -> None:
    # "julgados" (the judged ones) and "rearquivado" are not the situations' words
    assert status_meaning("o que é julgados", "Em instrução") is None
    assert status_meaning("o que é rearquivado?", "Em instrução") is None
