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


def test_an_author_whose_name_starts_like_a_bracket_letter_is_cited_whole() -> None:
    result = Synthesis(
        "p", [Claim("A rede cresceu.", ["S1"])], [_source(authors=("Xavier, Ana",))], "x"
    )
    assert result.text() == "A rede cresceu. (XAVIER, 2017, resumo)"


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
            "A merenda escolar melhora tudo. Merenda escolar e frequência no século XX",
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
        assert (result.question, result.removed) == ("tarifas de saneamento", [])
        assert result.text() == NOTHING_RELEVANT


def test_an_unknown_collection_is_named_with_how_to_import_it(tmp_path: Path) -> None:
    rows = [("Obra A", "Alves, Ana", "2019", "A merenda escolar melhora a frequência no campo.")]
    with _store(tmp_path, rows) as store:
        with pytest.raises(ConfigurationError) as err:
            asyncio.run(ask_collection(store, "nada", "merenda"))
        assert "no collection named 'nada' in " in str(err.value)
        assert str(err.value).endswith(
            "import the works first (`colmeia review import FILE --collection NAME`)"
        )


def test_asking_to_expand_without_a_model_answers_offline(tmp_path: Path) -> None:
    rows = [("Obra A", "Alves, Ana", "2019", "A merenda escolar melhora a frequência no campo.")]
    with _store(tmp_path, rows) as store:
        result = _ask(store, "merenda escolar", works=1, expand=True)
        assert (result.mode, result.question, result.removed) == (
            "extractive",
            "merenda escolar",
            [],
        )
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
    # Each work is cited once, from the best sentence of its two passages.
    cited = [result.sources[int(c.sources[0][1:]) - 1].doc_id for c in result.claims]
    assert len(cited) == 2 and len(set(cited)) == 2
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


def test_a_failing_model_on_a_question_no_work_answers_says_nothing_relevant(
    tmp_path: Path, sim_server: Any
) -> None:
    srv = sim_server(SimulatedModel(script=[Reply.http_error(400, "modelo indisponível")] * 5))
    with _store(tmp_path, ROWS) as store:
        model = OpenAIChatModel(base_url=srv.base_url, model="sim", max_repairs=1)

        async def go() -> Synthesis:
            try:
                # One word of five in the works: under the bar.
                question = "inclusão de surdos libras intérprete"
                return await ask_collection(store, "col", question, model=model)
            finally:
                await model.aclose()

        result = asyncio.run(go())
        assert result.mode == "extractive"
        assert result.removed and result.removed[0].startswith("the model failed")
        assert result.nothing_relevant
        assert result.claims == []


def test_the_model_is_sent_the_answers_schema_with_what_each_field_means(
    tmp_path: Path, sim_server: Any
) -> None:
    _, bodies = _with_model(tmp_path, sim_server, {"claims": []})
    sent = json.dumps(bodies[0]["response_format"], ensure_ascii=False)
    for said in (
        '"title": "Synthesis"',
        '"title": "SynthesisClaim"',
        '"description": "The answer, one claim at a time."',
        '"description": "One statement, in the language of the question."',
        '"description": "Ids of the passages it rests on."',
        '"description": "True when no passage answers the question."',
    ):
        assert said in sent, said
    schema = bodies[0]["response_format"]["json_schema"]["schema"]
    # "nothing_relevant" may be left out: it is false unless the model says so.
    assert schema["required"] == ["claims"]
    assert schema["properties"]["nothing_relevant"]["default"] is False


def test_a_model_that_gives_no_claim_without_saying_nothing_is_relevant_is_not_put_in_its_mouth(
    tmp_path: Path, sim_server: Any
) -> None:
    result, _ = _with_model(tmp_path, sim_server, {"claims": [], "nothing_relevant": False})
    assert result.claims == []
    assert result.nothing_relevant is False  # the model did not say so
    assert result.text() == NOTHING_RELEVANT  # but there is nothing to answer with


def test_a_citation_holding_three_tenths_of_the_claims_words_stands_and_less_does_not(
    tmp_path: Path, sim_server: Any
) -> None:
    # Ten content words, three of them (professores, relatam, falta) in the passage.
    holds = (
        "Professores relatam falta de apoio, tempo, salário, verba, material, escuta e "
        "reconhecimento."
    )
    # Eleven content words, the same three in the passage; longer than 80 characters.
    short_of = (
        "Professores relatam falta de apoio, tempo, salário, verba, material, escuta, "
        "reconhecimento e carreira."
    )

    def answer(req: SimRequest) -> dict[str, Any]:
        s = _id_of(req, "Docentes e inclusão")
        return {"claims": [{"text": holds, "sources": [s]}, {"text": short_of, "sources": [s]}]}

    result, _ = _with_model(tmp_path, sim_server, answer)
    assert [c.text for c in result.claims] == [holds]
    assert result.removed == [
        f"S1: does not support «{short_of[:80]}»",
        f"claim without a passage that supports it: «{short_of[:80]}»",
    ]


def test_with_an_embedder_the_question_is_searched_by_its_meaning_too(
    tmp_path: Path, sim_server: Any
) -> None:
    from colmeia.rag.index.embedders import HTTPEmbedder

    srv = sim_server(SimulatedModel())
    (tmp_path / "c.csv").write_text(
        HEADER + "\n".join(",".join(f'"{x}"' for x in row) for row in ROWS) + "\n",
        encoding="utf-8",
    )
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    try:
        with HTTPEmbedder(srv.base_url, "sim") as emb:
            import_library(store, "col", [tmp_path / "c.csv"], embedder=emb)
            srv.sim.reset_stats()
            result = asyncio.run(ask_collection(store, "col", QUESTION, embedder=emb))
            assert srv.sim.stats()["embedding_inputs"] >= 1  # the question, embedded
        assert [c.text for c in result.claims] == [
            "Os professores relatam falta de formação continuada para a inclusão escolar."
        ]
    finally:
        store.close()


def test_the_five_best_works_are_read_by_default_and_fewer_when_asked(tmp_path: Path) -> None:
    rows = [
        (
            f"Merenda {i}",
            f"Autor{chr(97 + i)}, Ana",
            str(2000 + i),
            f"A merenda escolar número {i} chega cedo.",
        )
        for i in range(7)
    ]
    with _store(tmp_path, rows) as store:
        assert len({s.doc_id for s in _ask(store, "merenda escolar").sources}) == 5
        assert len({s.doc_id for s in _ask(store, "merenda escolar", works=2).sources}) == 2


def test_a_work_without_a_sentence_to_cite_does_not_stop_the_next_one(tmp_path: Path) -> None:
    rows = [
        # Found first (its title holds the question), but only short or cut sentences.
        ("Merenda escolar", "Alves, Ana", "2019", "Merenda escolar boa. Merenda escolar e campo"),
        ("Obra B", "Brito, Ana", "2021", "A merenda escolar reduz a fome na escola."),
    ]
    with _store(tmp_path, rows) as store:
        result = _ask(store, "merenda escolar", works=2)
        assert [c.text for c in result.claims] == ["A merenda escolar reduz a fome na escola."]


def test_with_expand_the_models_rewritings_find_the_works_the_question_misses(
    theses: Store, sim_server: Any
) -> None:
    asked: list[str] = []

    def respond(req: SimRequest) -> str:
        prompt = json.dumps(req.body, ensure_ascii=False)
        if "Reescreva a pergunta" in prompt:
            asked.append(req.body["messages"][-1]["content"])
            return json.dumps({"queries": ["gênero e sexualidade no cotidiano escolar"]})
        return json.dumps(
            {"claims": [{"text": "Gênero e sexualidade na escola.", "sources": ["S1"]}]}
        )

    srv = sim_server(SimulatedModel(responder=respond))
    question = "xilogravura barroca mineira"  # no word of any work
    assert asyncio.run(ask_collection(theses, "t", question)).sources == []

    async def go() -> Synthesis:
        model = OpenAIChatModel(base_url=srv.base_url, model="sim", max_repairs=1)
        try:
            return await ask_collection(theses, "t", question, model=model, works=2, expand=True)
        finally:
            await model.aclose()

    result = asyncio.run(go())
    assert asked == [question]
    assert len({s.doc_id for s in result.sources}) == 2
    assert len(result.sources) == 4  # two passages a work, as without expansion
    assert [c.text for c in result.claims] == ["Gênero e sexualidade na escola."]


def test_a_passage_of_a_pdfs_first_page_is_cited_by_its_printed_page() -> None:
    from colmeia.apps.literature.synthesis import _sources
    from colmeia.rag.retrieve import Citation, Hit
    from colmeia.store.base import StoredDocument

    doc = StoredDocument("d1", "h", "Artigo", year=2020, metadata={"authors": ["Lima, Rui"]})

    def hit(page: int, label: str = "", end: int = 0) -> Hit:
        where = Citation("Artigo", page, "", page_end=end, page_label=label)
        return Hit(chunk_id=f"d1#{page}", doc_id="d1", score=1.0, text="x", citation=where)

    # An article whose first PDF page is printed 233, a passage over its first two pages, and
    # the catalogue record (no page).
    sources = _sources([(doc, [hit(1, "233"), hit(1, end=2), hit(0)])])
    assert [s.label() for s in sources] == [
        "(LIMA, 2020, p. 233)",
        "(LIMA, 2020, p. 1-2)",
        "(LIMA, 2020, resumo)",
    ]
