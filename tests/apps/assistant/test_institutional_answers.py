"""Questions about the court itself are answered from the file the court edits — matched by
character n-gram similarity, not a rule per sentence — and nothing else is: a law question,
a case question or a restaurant tip gets ``None``, so it goes where it belongs."""

from __future__ import annotations

from pathlib import Path

import pytest

from colmeia.apps.assistant.institutional import (
    ENV,
    answer_institutional,
    load_institutional,
)
from colmeia.errors import ConfigurationError


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("horario de funcionamento do tribunal", "horario"),
        ("HORÁRIO DE ATENDIMENTO?", "horario"),
        ("qual o telefone de vcs", "contatos"),
        ("onde fica a sede", "endereco"),
        ("como denuncio a prefeitura", "denuncia"),
        ("como protocolo minha defesa", "protocolo"),
        ("o que diz a lei 9.784 sobre prazos", None),
        ("quem é o relator do processo 4506/2023", None),
        ("me indica um restaurante bom", None),
        ("oi, tudo bem?", None),
    ],
)
def test_the_shipped_file_answers_only_questions_about_the_court(
    question: str, topic: str | None
) -> None:
    answer = answer_institutional(question)
    assert (answer.topic if answer else None) == topic


def test_the_answer_is_the_files_text() -> None:
    answer = answer_institutional("que horas o tribunal abre?")
    assert answer is not None
    assert answer.answer.startswith("Atendimento ao público de segunda a sexta-feira, das 8h")


def test_a_court_points_at_its_own_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    own = tmp_path / "tce.json"
    own.write_text(
        '{"court": "TCE-XX", "entries": [{"topic": "estacionamento", "questions": '
        '["tem estacionamento no tribunal?", "onde estaciono o carro"], '
        '"answer": "Estacionamento para visitantes na Rua B."}]}',
        encoding="utf-8",
    )
    answer = answer_institutional("onde posso estacionar?", path=own)
    assert answer is not None and answer.answer == "Estacionamento para visitantes na Rua B."
    assert answer_institutional("horario de funcionamento", path=own) is None
    monkeypatch.setenv(ENV, str(own))
    assert load_institutional().court == "TCE-XX"


def test_a_broken_file_is_one_line_naming_the_setting_and_the_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("entries:\n  - topic: horario\n    answer: 8h\n", encoding="utf-8")
    with pytest.raises(ConfigurationError) as err:
        load_institutional(bad)
    assert str(err.value) == f"{ENV}: {bad}: entries.0.questions: Field required"
    with pytest.raises(ConfigurationError, match="cannot read"):
        load_institutional(tmp_path / "missing.yaml")


@pytest.mark.parametrize(
    "question",
    ["que horas abre o shopping?", "qual o telefone do detran?", "o endereço da pizzaria"],
)
def test_the_phone_address_or_hours_of_another_place_are_not_the_courts(question: str) -> None:
    # sure it is a question of hours or contacts, but of another place: never the court's
    sure = answer_institutional(question, sure=True)
    assert sure is not None and sure.topic == ""
    assert "outros órgãos ou lugares" in sure.answer
    assert answer_institutional(question) is None


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("que horas abre o protocolo?", "horario"),
        ("qual o email da ouvidoria", "contatos"),
        ("qual o telefone do tribunal", "contatos"),
        ("o telefone de vcs", "contatos"),
    ],
)
def test_the_courts_own_places_are_still_the_courts(question: str, topic: str) -> None:
    answer = answer_institutional(question, sure=True)
    assert answer is not None and answer.topic == topic
