"""A numbered list at the foot of a page is running text, not footnotes: a reader expects its
items where the text puts them — after the sentence that announces them, the last item joined
to its rest on the next page — and the body's words untouched ("H1N1" stays "H1N1"). Real footnotes
on another page of the same document still come out as notes, their marks taken off the words.
What tells them apart is the principle a reader uses: a footnote's number is marked in the
page's body ("Saeb¹"), and a list continues the sentence or list above it (a colon, an item)."""

from __future__ import annotations

from colmeia.rag.ingest.clean import clean_document, join_lines
from colmeia.rag.types import ExtractedDocument, Page

_NOTES_PAGE = "\n".join(
    [
        "A literatura sobre avaliação educacional cresceu muito nas últimas décadas,",
        "sobretudo depois da criação do Saeb1 e da Prova Brasil, que passaram a orientar",
        "as políticas públicas das redes estaduais e municipais de ensino do país2.",
        "1Sistema de Avaliação da Educação Básica, criado em 1990.",
        "2Ver INEP (2015) para a série histórica.",
    ]
)
_LIST_PAGE = "\n".join(
    [
        "O programa atende também as escolas que vacinaram os alunos contra a gripe H1N1 e",
        "que reduziram as emissões de CO2, se cumprirem os requisitos da secretaria estadual:",
        "1. ter pelo menos cem alunos matriculados no ensino fundamental regular;",
        "2. oferecer merenda escolar gratuita a todos os estudantes matriculados;",
        "3. manter o censo escolar atualizado e enviar à secretaria os dados de frequência",
    ]
)
_NEXT_PAGE = "\n".join(
    [
        "dos alunos até o fim do mês de março de cada ano letivo.",
        "As escolas selecionadas recebem o recurso no semestre seguinte ao da inscrição.",
    ]
)


def _pdf(*pages: str) -> ExtractedDocument:
    return ExtractedDocument(
        source_id="edital.pdf",
        title="edital",
        pages=[Page(i, text) for i, text in enumerate(pages, start=1)],
        content_hash="x",
        metadata={"format": "pdf"},
    )


def test_a_list_at_a_page_foot_stays_in_order_and_joins_its_rest_on_the_next_page() -> None:
    doc = clean_document(_pdf(_NOTES_PAGE, _LIST_PAGE, _NEXT_PAGE))
    notes, listed, _ = (p.text.split("\n\n") for p in doc.pages)
    # the page with real footnotes: body first, its marks gone, then each note on its own
    assert notes[0].startswith("A literatura") and "Saeb e da Prova" in notes[0]
    assert notes[0].endswith("do país.")
    assert notes[1:] == [
        "1Sistema de Avaliação da Educação Básica, criado em 1990.",
        "2Ver INEP (2015) para a série histórica.",
    ]
    # the page with a list: the announcing sentence, then the items in order, the last one
    # whole (its rest came from the next page); "H1N1" and "CO2" mark no notes 1
    # and 2: the colon above the first item and each item above the next say they are a list
    assert "gripe H1N1 e que reduziram as emissões de CO2, se" in listed[0]
    assert [p[:3] for p in listed[1:]] == ["1. ", "2. ", "3. "]
    assert listed[-1].endswith(
        "dados de frequência dos alunos até o fim do mês de março de cada ano letivo."
    )


_GOALS_PAGE = "\n".join(
    [
        "O plano municipal fixa metas para a década, e cada uma delas tem um prazo próprio.",
        "As secretarias acompanham o andamento das metas em relatórios publicados a cada ano.",
        "1. Universalizar o atendimento escolar das crianças de quatro e cinco anos de idade.",
        "2. Oferecer educação em tempo integral em metade das escolas públicas do município.",
        "3. Elevar a escolaridade média da população de dezoito a vinte e nove anos até",
    ]
)
_GOALS_NEXT = "o fim da vigência deste plano, com atenção especial às populações do campo."


def test_numbered_lines_the_body_never_marks_are_a_list_that_joins_its_rest() -> None:
    # no colon above the items, but no word of the body carries their numbers either: a list
    doc = clean_document(_pdf(_GOALS_PAGE, _GOALS_NEXT))
    (page, *_) = doc.pages
    paragraphs = page.text.split("\n\n")
    assert [p[:3] for p in paragraphs[-3:]] == ["1. ", "2. ", "3. "]
    assert paragraphs[-1].endswith(
        "até o fim da vigência deste plano, com atenção especial às populações do campo."
    )


def test_a_note_numbered_like_an_item_is_a_note_when_the_body_marks_its_number() -> None:
    body = [
        "O conceito de proxy14, usado aqui como medida indireta, aparece nos estudos da área",
        "com sentidos diferentes, e esta seção adota o sentido mais estrito deles todos.",
    ]
    note = ["14. Uma variável observável no lugar de outra que não se observa."]
    paragraphs = join_lines(body + note)
    assert paragraphs[0].startswith("O conceito de proxy, usado aqui")
    assert paragraphs[1:] == note
