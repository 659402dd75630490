"""Issue 31, round 3: what a case holds on file and a case beside a law, as people type them.

A question on a case's documents — whether a parecer, a defence or an audit report was filed,
what papers it has — is read as the ``documents`` aspect, whatever verb it uses; a mixed
question is read as one with its law part first, without a conjunction, or cut by a dash, and
each part is searched alone. None of these sentences is in the training corpus or in a
development set: what was learnt is the kind (a document of a case), not a sentence."""

from __future__ import annotations

import pytest

from colmeia.apps.assistant.case_refs import read_case_refs
from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.rag_query import analyze_query


@pytest.mark.parametrize(
    "text",
    [
        "processo 301/2023, o relatório dos auditores já tá nos autos?",
        "o processo 812/2024 ainda não tem parecer?",
        "vi que o tc 90/2021 andou, chegou algum documento?",
        "me diz que papeis tem no processo 1400/2022",
        "quero a relação das peças do 612/2023",
        "foi anexada a defesa do prefeito no processo 4506/2023?",
    ],
)
def test_a_question_on_what_a_case_holds_on_file_asks_its_documents(text: str) -> None:
    # Red on the artefact trained before the documents bank: all but one read as "status",
    # whose card does not list the documents.
    frame = read_frame(text)
    assert (frame.intent, frame.aspect) == ("case", "documents")


@pytest.mark.parametrize(
    ("text", "case_part", "law_part"),
    [
        # the law part first, then the case without a conjunction
        (
            "a 9784 me garante ampla defesa? o processo 301/2023 ta em que fase",
            "o processo 301/2023 ta em que fase",
            "a 9784 me garante ampla defesa",
        ),
        # a dash between the parts
        (
            "o artigo 2 da lei 9784 fala o que - como anda o processo 77/2020",
            "como anda o processo 77/2020",
            "o artigo 2 da lei 9784 fala o que",
        ),
        # "e do" before the law part: the case part ends at the conjunction
        (
            "me fala do 123/2023 e do art 59 da lei 9784",
            "me fala do 123/2023",
            "do art 59 da lei 9784",
        ),
        # "e aí" joins the parts as a conjunction does
        (
            "o 944/2026 ainda não andou e ai cabe recurso pela 9.784?",
            "o 944/2026 ainda não andou",
            "cabe recurso pela 9.784?",
        ),
        # no mark at all: the law part is what follows the case ("that is permitted?"); it
        # points back ("isso"), so the laws are searched with the whole message, the case's
        # number left out
        (
            "o processo nº 298/2025 foi arquivado isso é permitido pela 12.527?",
            "o processo nº 298/2025",
            "o processo foi arquivado isso é permitido pela 12.527?",
        ),
    ],
)
def test_a_mixed_question_is_cut_where_its_other_part_starts(
    text: str, case_part: str, law_part: str
) -> None:
    # Red before the dash and "e do" were clause ends: the whole text searched as the law
    # part, "me fala do 123/2023 e do" as the case part; red on the old artefact for the
    # first (read as a case question).
    frame = read_frame(text)
    assert frame.intent == "mixed"
    assert (frame.case_part, frame.law_part) == (case_part, law_part)


@pytest.mark.parametrize(
    "text",
    [
        "o processo nº 298/2025 foi arquivado isso é permitido pela 12.527?",
        "e o processo 304/2025, alguma novidade e ai isso ta certo segundo a lei 9784?",
    ],
)
def test_a_typed_case_beside_a_norm_named_asks_both(text: str) -> None:
    # Red before: read as case questions (the classifier weighs case and mixed about even),
    # so the law part went unanswered.
    assert read_frame(text).intent == "mixed"


def test_a_paper_of_a_case_asked_with_no_is_about_that_case() -> None:
    # Red before: "parecer no 114/2023" was read as "Parecer nº 114/2023", a decision's
    # number, and the assistant asked which case.
    (ref,) = read_case_refs("o ministério público já deu parecer no 114/2023?")
    assert (ref.number, ref.year) == (114, 2023)
    # "nº" typed with its sign still numbers the decision or the law
    assert read_case_refs("o acórdão nº 1234/2023 fala disso") == []
    assert read_case_refs("a lei no 9784/99 fala disso") == []


def test_a_law_named_by_its_number_alone_is_the_law_searched() -> None:
    # Red before: "da 12527" named no law for retrieval, and art. 10 of another law was cited.
    assert analyze_query("o art. 10 da 12527 diz o que")["filters"] == {
        "law_number": "12527",
        "article": "10",
    }
    assert analyze_query("pela 9.784 pode demorar?")["filters"] == {"law_number": "9784"}
