"""`colmeia review ask` (:mod:`colmeia.apps.literature.synthesis`) as a reader expects it:
ABNT citations (author, year, page or "resumo", letters for one author's works of a year), the
claims in the order of the works' years, one sentence a work and never a repeat, the stated
"nothing relevant" bar, and a model's answer held to the passages it was given."""

from __future__ import annotations

import asyncio
import csv
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from literature_helpers import library_store

from colmeia.apps.literature import import_library
from colmeia.apps.literature.synthesis import (
    NOTHING_RELEVANT,
    Claim,
    Source,
    Synthesis,
    ask_collection,
)
from colmeia.errors import ConfigurationError
from colmeia.llm import OpenAIChatModel
from colmeia.sim import Reply, SimRequest, SimulatedModel
from colmeia.store import Store, open_store
from shared_data import DATA_DIR

# -- citations as ABNT writes them -------------------------------------------------------------


def _source(
    sid: str = "S1",
    authors: tuple[str, ...] = ("Pereira, Ana",),
    title: str = "Vozes docentes",
    year: int | None = 2017,
    pages: str = "",
    doc: str = "d1",
    text: str = "",
) -> Source:
    return Source(sid, doc, title, list(authors), year, pages, text)


def test_a_citation_names_the_first_authors_surname_in_capitals() -> None:
    assert _source(authors=(" pereira , Ana",)).label() == "(PEREIRA, 2017, resumo)"
    assert _source(authors=("Lima, Rui", "Souza, Ana")).label() == "(LIMA et al., 2017, resumo)"


def test_a_work_without_an_author_is_cited_by_the_start_of_its_title() -> None:
    assert _source(authors=(), title="Vozes docentes: um estudo").author() == "VOZES DOCENTES"
    assert _source(authors=("",), title="Escola: x").author() == "ESCOLA"
    long = "Um título muito longo sobre a formação continuada de professores da rede pública"
    assert _source(authors=(), title=long).author() == long[:60].upper()


def test_a_citation_gives_the_page_the_year_and_the_works_letter() -> None:
    src = _source(pages="12-14")
    src.suffix = "a"
    assert src.label() == "(PEREIRA, 2017a, p. 12-14)"
    assert _source(year=None).label() == "(PEREIRA, s.d., resumo)"


def test_the_answer_puts_each_claims_citations_after_it() -> None:
    sources = [
        _source("S1"),
        _source("S2", ("Lima, Rui",), "Outra", 2021, "3", doc="d2"),
        _source("S3", ("Lima, Rui",), "Outra", 2021, "4", doc="d2"),
    ]
    result = Synthesis(
        "pergunta",
        [Claim("Os docentes pedem apoio.  ", ["S1", "S2"]), Claim("O curso ajudou.", ["S3", "S1"])],
        sources,
        "extractive",
        seconds=0.12345,
    )
    assert result.text() == (
        "Os docentes pedem apoio. (PEREIRA, 2017, resumo; LIMA, 2021, p. 3) "
        "O curso ajudou. (LIMA, 2021, p. 4; PEREIRA, 2017, resumo)"
    )
    assert result.works() == ["d1", "d2"]
    data = result.as_dict()
    assert data["answer"] == result.text()
    assert data["nothing_relevant"] is False
    assert data["question"] == "pergunta"
    assert data["mode"] == "extractive"
    assert data["claims"][0] == {"text": "Os docentes pedem apoio.  ", "sources": ["S1", "S2"]}
    assert data["sources"][1]["label"] == "(LIMA, 2021, p. 3)"
    assert data["sources"][1]["pages"] == "3"
    assert data["removed"] == []
    assert data["seconds"] == 0.123


def test_an_answer_without_claims_says_nothing_relevant() -> None:
    empty = Synthesis("pergunta", [], [_source()], "extractive")
    assert empty.text() == NOTHING_RELEVANT
    assert empty.as_dict()["nothing_relevant"] is True
    assert empty.as_dict()["answer"] == NOTHING_RELEVANT
    said = Synthesis("p", [Claim("x.", ["S1"])], [_source()], "model:m", nothing_relevant=True)
    assert said.text() == NOTHING_RELEVANT


# -- the offline answer from a catalogue -------------------------------------------------------

HEADER = "Titulo,Autor,Defesa,Resumo\n"


@contextmanager
def _store(tmp_path: Path, rows: list[tuple[str, str, str, str]]) -> Iterator[Store]:
    """A store holding ``rows`` (title, author, year, abstract) as the collection "col"."""
    lines = [",".join(f'"{x}"' for x in row) for row in rows]
    yield from library_store(tmp_path, HEADER + "\n".join(lines) + "\n")


def _ask(store: Store, question: str, **kw: Any) -> Synthesis:
    return asyncio.run(ask_collection(store, "col", question, **kw))


def test_claims_follow_the_works_by_year_then_author_and_an_undated_work_comes_first(
    tmp_path: Path,
) -> None:
    rows = [
        ("Merenda A", "Zanetti, Rui", "2020", "A merenda escolar melhora a frequência dos alunos."),
        ("Merenda B", "Alves, Ana", "2020", "A merenda escolar reduz a evasão dos alunos pobres."),
        ("Merenda C", "Costa, Bia", "2015", "A merenda escolar atrai alunos para a escola rural."),
        ("Merenda D", "Dias, Caio", "", "A merenda escolar chega tarde aos alunos do campo."),
    ]
    with _store(tmp_path, rows) as store:
        result = _ask(store, "merenda escolar e alunos", works=4)
        assert [c.text.split()[3] for c in result.claims] == ["chega", "atrai", "reduz", "melhora"]
        assert result.text().startswith(
            "A merenda escolar chega tarde aos alunos do campo. (DIAS, s.d., resumo)"
        )


def test_a_claim_is_a_whole_sentence_of_five_words_or_more(tmp_path: Path) -> None:
    rows = [
        # The four-word sentence covers more of the question but is too short to stand alone.
        (
            "Obra A",
            "Alves, Ana",
            "2020",
            "Merenda escolar melhora frequência. A merenda escolar chega cedo.",
        ),
        # A sentence cut without its final stop is not a claim either.
        (
            "Obra B",
            "Brito, Ana",
            "2021",
            "A merenda escolar melhora tudo. Merenda escolar e frequência",
        ),
    ]
    with _store(tmp_path, rows) as store:
        result = _ask(store, "merenda escolar e frequência", works=2)
        assert [c.text for c in result.claims] == [
            "A merenda escolar chega cedo.",
            "A merenda escolar melhora tudo.",
        ]


def test_of_two_sentences_that_cover_the_question_alike_the_first_is_cited(tmp_path: Path) -> None:
    rows = [
        (
            "Obra A",
            "Alves, Ana",
            "2020",
            "A merenda escolar chega tarde ao campo. A merenda escolar chega cedo à cidade.",
        ),
    ]
    with _store(tmp_path, rows) as store:
        result = _ask(store, "merenda escolar", works=1)
        assert [c.text for c in result.claims] == ["A merenda escolar chega tarde ao campo."]


def test_a_sentence_another_work_said_in_nearly_the_same_words_is_not_repeated(
    tmp_path: Path,
) -> None:
    said = "A merenda escolar melhora a frequência."
    rows = [
        # Its title holds the question: the search finds it first, and it says the sentence.
        ("Merenda escolar", "Alves, Ana", "2019", said),
        # Five words, four of them the first work's (4/5 alike): a repeat, so this work is cited
        # for its other sentence.
        (
            "Obra B",
            "Brito, Ana",
            "2021",
            "A merenda escolar melhora a frequência dos alunos. "
            "A merenda escolar reduz a fome na escola.",
        ),
        # Three of five alike: not a repeat.
        ("Obra C", "Costa, Ana", "2022", "A merenda escolar atrai alunos novos."),
    ]
    with _store(tmp_path, rows) as store:
        result = _ask(store, "merenda escolar", works=3)
        assert [c.text for c in result.claims] == [
            said,
            "A merenda escolar reduz a fome na escola.",
            "A merenda escolar atrai alunos novos.",
        ]


def test_a_work_whose_only_sentence_repeats_another_is_left_out(tmp_path: Path) -> None:
    said = "A merenda escolar melhora a frequência."
    rows = [
        ("Merenda escolar", "Alves, Ana", "2019", said),
        ("Obra B", "Brito, Ana", "2021", "A merenda escolar melhora a frequência dos alunos."),
    ]
    with _store(tmp_path, rows) as store:
        result = _ask(store, "merenda escolar", works=2)
        assert [c.text for c in result.claims] == [said]
        assert not result.nothing_relevant


def test_a_work_below_the_bar_is_not_cited_beside_works_that_answer(tmp_path: Path) -> None:
    rows = [
        ("Obra A", "Alves, Ana", "2019", "A merenda escolar melhora a frequência no campo."),
        # One of the three words of the question: under a third, not cited.
        ("Obra B", "Brito, Ana", "2018", "A frequência caiu muito nas escolas do campo."),
    ]
    with _store(tmp_path, rows) as store:
        result = _ask(store, "merenda frequência cantina", works=2)
        assert [c.text for c in result.claims] == [
            "A merenda escolar melhora a frequência no campo."
        ]


def test_a_question_of_only_common_words_finds_nothing_relevant(tmp_path: Path) -> None:
    rows = [("Obra A", "Alves, Ana", "2019", "O que é isso para a escola, afinal de contas?")]
    with _store(tmp_path, rows) as store:
        result = _ask(store, "o que é isso?", works=1)
        assert result.nothing_relevant
        assert result.claims == []
        assert result.text() == NOTHING_RELEVANT


def test_a_question_no_work_holds_finds_no_passage_and_says_so(tmp_path: Path) -> None:
    rows = [("Obra A", "Alves, Ana", "2019", "A merenda escolar melhora a frequência no campo.")]
    with _store(tmp_path, rows) as store:
        result = _ask(store, "tarifas de saneamento", works=1)
        assert result.nothing_relevant
        assert (result.claims, result.sources, result.mode) == ([], [], "extractive")
        assert result.text() == NOTHING_RELEVANT


def test_an_unknown_collection_is_named_with_how_to_import_it(tmp_path: Path) -> None:
    rows = [("Obra A", "Alves, Ana", "2019", "A merenda escolar melhora a frequência no campo.")]
    with _store(tmp_path, rows) as store:
        with pytest.raises(ConfigurationError) as err:
            asyncio.run(ask_collection(store, "nada", "merenda"))
        assert "no collection named 'nada' in " in str(err.value)
        assert "`colmeia review import FILE --collection NAME`" in str(err.value)


def test_asking_to_expand_without_a_model_answers_offline(tmp_path: Path) -> None:
    rows = [("Obra A", "Alves, Ana", "2019", "A merenda escolar melhora a frequência no campo.")]
    with _store(tmp_path, rows) as store:
        result = _ask(store, "merenda escolar", works=1, expand=True)
        assert result.mode == "extractive"
        assert [c.text for c in result.claims] == [
            "A merenda escolar melhora a frequência no campo."
        ]
        assert 0 < result.seconds < 60


def test_two_works_of_one_author_and_year_get_letters_in_the_order_of_their_titles(
    tmp_path: Path,
) -> None:
    rows = [
        # "b…" after "A…" in the reference list whatever the capitals.
        ("b merenda no campo", "Alves, Ana", "2019", "A merenda escolar chega tarde ao campo."),
        ("A merenda na cidade", "Alves, Ana", "2019", "A merenda escolar chega cedo à cidade."),
        ("Merenda e escola", "Alves, Ana", "2020", "A merenda escolar atrai alunos novos."),
        ("Merenda sem data", "Alves, Ana", "", "A merenda escolar falta no sertão."),
        ("Merenda sem data 2", "Alves, Ana", "", "A merenda escolar sobra no litoral."),
    ]
    with _store(tmp_path, rows) as store:
        result = _ask(store, "merenda escolar", works=5)
        labels = {s.title: s.label() for s in result.sources}
        assert labels == {
            "A merenda na cidade": "(ALVES, 2019a, resumo)",
            "b merenda no campo": "(ALVES, 2019b, resumo)",
            "Merenda e escola": "(ALVES, 2020, resumo)",
            "Merenda sem data": "(ALVES, s.d.a, resumo)",
            "Merenda sem data 2": "(ALVES, s.d.b, resumo)",
        }


# -- full texts: pages to cite, passages per work ----------------------------------------------


@pytest.fixture(scope="module")
def theses(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """Two works of the shipped catalogue with their sample PDFs (printed pages from 10)."""
    folder = tmp_path_factory.mktemp("teses")
    with open(DATA_DIR / "theses" / "capes_resumos.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    with open(folder / "c.csv", "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([rows[0]] + [r for r in rows[1:] if r[0] in ("50", "87")])
    store = open_store(f"sqlite:///{folder / 's.db'}", cache_dir=folder / "cache")
    report = import_library(store, "t", [folder / "c.csv"], pdf_dir=DATA_DIR / "theses" / "pdfs")
    assert report.with_pdf == 2
    yield store
    store.close()


def test_passages_of_the_full_text_cite_their_printed_page(theses: Store) -> None:
    result = asyncio.run(ask_collection(theses, "t", "gênero sexualidade escola", works=2))
    assert len(result.sources) == 4  # two passages a work by default
    assert [s.id for s in result.sources] == ["S1", "S2", "S3", "S4"]
    for s in result.sources:
        assert s.pages == "" or int(s.pages.split("-")[0]) >= 10
        assert s.label().endswith(f", p. {s.pages})" if s.pages else ", resumo)")
        assert s.authors and all(isinstance(a, str) for a in s.authors)
    assert any(s.pages for s in result.sources)
    one = asyncio.run(ask_collection(theses, "t", "gênero sexualidade escola", per_work=1))
    assert len(one.sources) == 2
    assert len({s.doc_id for s in one.sources}) == 2


# -- with a model: its claims held to the passages given ---------------------------------------

ROWS = [
    (
        "Docentes e inclusão",
        "Souza, Ana",
        "2019",
        "Os professores relatam falta de formação continuada para a inclusão escolar.",
    ),
    (
        "Tarifas de saneamento",
        "Rocha, Maria",
        "2018",
        "As tarifas de água caem com a escala e a formação de consórcios.",
    ),
]
QUESTION = "formação continuada para a inclusão escolar"


def _with_model(
    tmp_path: Path, sim_server: Any, answer: Any, question: str = QUESTION, **kw: Any
) -> tuple[Synthesis, list[dict[str, Any]]]:
    bodies: list[dict[str, Any]] = []

    def respond(req: SimRequest) -> str:
        bodies.append(req.body)
        return json.dumps(answer(req) if callable(answer) else answer, ensure_ascii=False)

    srv = sim_server(SimulatedModel(responder=respond))
    with _store(tmp_path, ROWS) as store:
        model = OpenAIChatModel(base_url=srv.base_url, model="sim", max_repairs=1)

        async def go() -> Synthesis:
            try:
                return await ask_collection(store, "col", question, model=model, works=2, **kw)
            finally:
                await model.aclose()

        return asyncio.run(go()), bodies


def _id_of(req: SimRequest, title: str) -> str:
    prompt = json.dumps(req.body, ensure_ascii=False)
    return prompt.split(f"] {title}")[0].rsplit("[", 1)[1]


def test_the_model_is_asked_once_at_a_low_temperature_with_room_for_its_answer(
    tmp_path: Path, sim_server: Any
) -> None:
    result, bodies = _with_model(
        tmp_path, sim_server, {"claims": [], "nothing_relevant": True}, model_name="qwen"
    )
    assert len(bodies) == 1
    assert bodies[0]["temperature"] == 0.2
    assert bodies[0]["max_tokens"] == 1200
    messages = bodies[0]["messages"]
    assert messages[-1] == {"role": "user", "content": QUESTION}
    assert "[S1] Docentes e inclusão (2019), resumo" in messages[0]["content"]
    assert result.mode == "model:qwen"
    assert result.nothing_relevant
    assert result.text() == NOTHING_RELEVANT


def test_a_model_without_a_name_is_called_model_and_its_claims_are_tidied(
    tmp_path: Path, sim_server: Any
) -> None:
    def answer(req: SimRequest) -> dict[str, Any]:
        s = _id_of(req, "Docentes e inclusão")
        return {
            "claims": [
                {"text": "  Faltou   formação continuada\n para a inclusão. ", "sources": [s, s]},
                {"text": "   ", "sources": [s]},
                # No content word to check: its citation stands.
                {"text": "É isso, e só.", "sources": [s]},
            ],
            # A model that gives supported claims has found something, whatever it says.
            "nothing_relevant": True,
        }

    result, _ = _with_model(tmp_path, sim_server, answer)
    assert result.mode == "model:model"
    assert [(c.text, c.sources) for c in result.claims] == [
        ("Faltou formação continuada para a inclusão.", ["S1"]),
        ("É isso, e só.", ["S1"]),
    ]
    assert not result.nothing_relevant
    assert result.removed == []
    assert result.text().startswith(
        "Faltou formação continuada para a inclusão. (SOUZA, 2019, resumo)"
    )


def test_a_citation_of_a_passage_that_does_not_say_the_claim_is_removed_and_reported(
    tmp_path: Path, sim_server: Any
) -> None:
    long_claim = "Os professores relatam falta de formação continuada " + "para a inclusão " * 6

    def answer(req: SimRequest) -> dict[str, Any]:
        good = _id_of(req, "Docentes e inclusão")
        bad = _id_of(req, "Tarifas de saneamento")
        return {"claims": [{"text": long_claim, "sources": [bad, good]}]}

    result, _ = _with_model(tmp_path, sim_server, answer)
    flat = " ".join(long_claim.split())
    assert [(c.text, c.sources) for c in result.claims] == [(flat, ["S1"])]
    assert result.removed == [f"S2: does not support «{flat[:80]}»"]


def test_a_model_answer_stands_where_the_questions_words_are_not_in_the_passages(
    tmp_path: Path, sim_server: Any
) -> None:
    # A question in other words than the abstract's: offline it is under the bar, but the
    # model read the passage and cites it for a claim the passage holds.
    question = "capacitação de educadores numa escola"

    def answer(req: SimRequest) -> dict[str, Any]:
        s = _id_of(req, "Docentes e inclusão")
        return {"claims": [{"text": "Falta formação continuada aos professores.", "sources": [s]}]}

    result, _ = _with_model(tmp_path, sim_server, answer, question=question)
    assert not result.nothing_relevant
    assert [c.text for c in result.claims] == ["Falta formação continuada aos professores."]
    (tmp_path / "offline").mkdir()
    with _store(tmp_path / "offline", ROWS) as store:
        assert _ask(store, question, works=2).nothing_relevant


def test_a_failing_model_gives_the_offline_answer_and_says_why(
    tmp_path: Path, sim_server: Any
) -> None:
    srv = sim_server(SimulatedModel(script=[Reply.http_error(400, "modelo indisponível")] * 5))
    with _store(tmp_path, ROWS) as store:
        model = OpenAIChatModel(base_url=srv.base_url, model="sim", max_repairs=1)

        async def go() -> Synthesis:
            try:
                return await ask_collection(store, "col", QUESTION, model=model, model_name="m")
            finally:
                await model.aclose()

        result = asyncio.run(go())
        assert result.mode == "extractive"
        assert [c.text for c in result.claims] == [
            "Os professores relatam falta de formação continuada para a inclusão escolar."
        ]
        assert not result.nothing_relevant
        (why,) = result.removed
        assert why.startswith("the model failed (") and why.endswith("); extractive answer")
        assert "400" in why
