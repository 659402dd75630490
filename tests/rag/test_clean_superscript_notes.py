"""Text whose footnote marks are superscript characters ("coletivo.¹" and "¹ Ver o apêndice A"
at the page's end, as some extractors and converters give it) has its note moved out of the
paragraph and its mark taken off the word; numbered items above the note stay text."""

from __future__ import annotations

from colmeia.rag.ingest.clean import clean_pages
from colmeia.rag.types import Page

PAGE = """As condições das famílias variam muito entre as escolas estudadas, e essa variação aparece
nas falas dos docentes como um dos principais desafios do trabalho coletivo.¹ Em duas das
escolas, a equipe gestora criou momentos de estudo semanais com os professores.
1. Descrever as ações de formação continuada oferecidas pelas secretarias.
2. Identificar as necessidades formativas dos professores.
¹ Ver o apêndice A, que reúne o roteiro das entrevistas e o termo de
consentimento livre e esclarecido."""


def test_a_superscript_note_leaves_the_paragraph_and_its_mark_leaves_the_word() -> None:
    [page] = clean_pages([Page(1, PAGE)])
    assert page.text.split("\n\n") == [
        "As condições das famílias variam muito entre as escolas estudadas, e essa variação "
        "aparece nas falas dos docentes como um dos principais desafios do trabalho coletivo. "
        "Em duas das escolas, a equipe gestora criou momentos de estudo semanais com os "
        "professores.",
        "1. Descrever as ações de formação continuada oferecidas pelas secretarias.",
        "2. Identificar as necessidades formativas dos professores.",
        "1 Ver o apêndice A, que reúne o roteiro das entrevistas e o termo de consentimento "
        "livre e esclarecido.",
    ]


def test_a_superscript_that_is_no_note_stays() -> None:
    [page] = clean_pages([Page(1, "A área mede 30 m² segundo a planta do projeto aprovado.")])
    assert page.text == "A área mede 30 m² segundo a planta do projeto aprovado."
