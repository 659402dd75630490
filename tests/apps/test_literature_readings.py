"""Reading works for a review question, on full text read from the shipped sample PDFs.

The collection is the shipped CAPES catalogue (171 records) with five generated thesis PDFs
(data/theses/pdfs: chapters made of each abstract's own sentences, printed page numbers from
11). A review reads the works from their passages; every statement must cite a passage, and on
a work with full text that passage has a printed page."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from colmeia.apps.literature import Review, arun_review, import_library, run_review
from colmeia.apps.literature.extractive import grade_relevance
from colmeia.apps.literature.model_passages import MODEL_PASSAGE_WORDS, MODEL_PASSAGES
from colmeia.apps.literature.review import Passage, cache_key
from colmeia.apps.literature.schemas import READING_MAX_TOKENS, word_count
from colmeia.store import open_store
from shared_data import DATA_DIR

QUESTION = "gênero e sexualidade na formação e na prática docente"
SAMPLES = DATA_DIR / "theses" / "pdfs"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("amostra")
    store = open_store(f"sqlite:///{folder / 's.db'}", cache_dir=folder / "cache")
    report = import_library(
        store, "teses", [DATA_DIR / "theses" / "capes_resumos.csv"], pdf_dir=SAMPLES
    )
    assert (report.records, report.with_pdf, report.problems) == (171, 5, [])
    yield store
    store.close()


def _full_text(review: Review) -> list:  # type: ignore[type-arg]
    return [w for w in review.works if any(p.pages for p in w.passages)]


def test_an_offline_review_reads_the_pdfs_and_every_statement_cites_a_page(library) -> None:
    # the two works with a PDF on the subject are among the first eight (of the dozen works on
    # gender and teaching the catalogue holds)
    review = run_review(library, "teses", QUESTION, top=8)
    read = _full_text(review)
    titles = [w.title for w in read]
    assert any(t.startswith("Gênero E Sexualidade Na Formação Docente") for t in titles)
    assert any(t.startswith("Mulheres Professoras E A Interseccionalidade") for t in titles)
    for w in read:
        pages = {p.id: p.pages for p in w.passages}
        # Read from the PDF only: every passage given has a page (the record repeats its resumo).
        assert all(pages.values()), pages
        for name in ("summary", "objectives", "conclusions"):
            field = getattr(w, name)
            assert field.passages, (w.title, name)
            # Printed pages of the generated PDFs start at 10 (the RESUMO page, unnumbered).
            assert all(pages[pid] and int(pages[pid].split("-")[0]) >= 10 for pid in field.passages)
        # The fields are the work's own sentences, not its title or a heading glued on.
        assert not w.summary.text.startswith(w.title[:30])
        assert "RESUMO" not in w.summary.text and "INTRODUÇÃO" not in w.summary.text
    assert not review.nothing_relevant


def test_extractive_summaries_never_start_with_the_title_or_a_heading(library) -> None:
    review = run_review(library, "teses", "escola sem partido e ideologia de gênero", top=10)
    for w in review.works:
        assert w.summary is not None
        head = w.summary.text[:80].lower()
        assert not head.startswith(w.title[:25].lower()), w.title
        assert not head.startswith(("resumo", "palavras-chave"))


def test_an_off_topic_work_is_graded_low_from_its_evidence_not_its_rank(library) -> None:
    docs = {d.title: d for d in library.documents("teses")}
    food = docs["A Influência Intergeracional Na Escolha De Alimentos Por Jovens Adultos"]
    passage = Passage("P1", "x", f"{food.title}\n{food.metadata['abstract']}")
    # The work on food choice shares "educação", "família" and "jovens" with these questions
    # but not their subject (gênero, sexualidade, escola): half the words is not "média".
    for question in (
        "educação e formação de hábitos de gênero",
        "a família e a escola na educação sexual dos jovens",
    ):
        level, ev = grade_relevance(question, [passage])
        assert level == "baixa", (question, ev)
    assert (
        "gênero"
        in grade_relevance("educação e formação de hábitos de gênero", [passage])[1].missing
    )
    level, _ = grade_relevance("influência da família na escolha de alimentos", [passage])
    assert level == "alta"
    # In a review, a work found for a question it does not answer is graded from its text.
    review = run_review(library, "teses", "hábitos alimentares de estudantes universitários")
    by_title = {w.title: w.relevance for w in review.works}
    assert by_title.pop(food.title) in ("alta", "média")
    assert by_title and set(by_title.values()) <= {"baixa", "nenhuma"}


def test_nothing_relevant_is_said_when_no_work_clears_the_bar(library, tmp_path: Path) -> None:
    review = run_review(library, "teses", "receitas de bolo de chocolate com cobertura", top=5)
    assert review.nothing_relevant
    assert any(w.startswith("nothing relevant") for w in review.warnings)
    saved = Review.load(review.save(tmp_path / "r.json"))
    assert saved.as_dict()["nothing_relevant"] is True
    assert run_review(library, "teses", QUESTION, top=3).nothing_relevant is False


def test_the_cache_key_follows_the_passages_given() -> None:
    a = [Passage("P1", "c#1", "Texto do resumo.", "10"), Passage("P2", "c#2", "Conclusões.", "14")]
    b = [Passage("P1", "c#7", "Outro trecho da tese.", "12"), a[1]]
    key = cache_key(QUESTION, a, "m")
    assert key == cache_key("  Gênero e sexualidade na formação e na prática  docente", a, "m")
    assert key != cache_key(QUESTION, b, "m")  # P1 now points at other text
    assert key != cache_key(QUESTION, a[:1], "m")
    assert key != cache_key(QUESTION, a, "outro-modelo")


CITED = ("Summary", "Objectives", "Conclusions")


def _cites_pages(req_text: str) -> list[str]:
    """The ids of the passages the prompt shows with a page ("[P2] (resumo) p. 10: …")."""
    return re.findall(r"\[(P\d+)\][^:\n]*? p\. \d", req_text)


def test_a_model_reading_is_held_to_the_passages_given_and_cites_pages(
    library, sim_server, tmp_path: Path
) -> None:
    from colmeia.llm import OpenAIChatModel
    from colmeia.sim import SimRequest, SimulatedModel

    schemas: list[dict] = []  # type: ignore[type-arg]
    asked: list[SimRequest] = []

    def respond(req: SimRequest) -> str:
        prompt = req.messages[0]["content"]
        schemas.append(req.schema or {})
        asked.append(req)
        paged = _cites_pages(prompt) or ["P1"]
        body = {
            "summary": {
                "text": "O trabalho discute gênero na formação docente.",
                "passages": paged[:2],
            },
            "objectives": {"text": "Analisar a formação docente.", "passages": paged[:1]},
            "conclusions": {"text": "A formação trata pouco do tema.", "passages": paged[-1:]},
            "relevance": "alta",
            "why": "Trata da formação docente em gênero.",
        }
        return json.dumps(body, ensure_ascii=False)

    srv = sim_server(SimulatedModel(responder=respond))
    model = OpenAIChatModel(base_url=srv.base_url, model="sim")

    async def go() -> Review:
        try:
            return await arun_review(
                library,
                "teses",
                QUESTION,
                top=5,
                model=model,
                model_name="sim",
                cache_dir=tmp_path,
            )
        finally:
            await model.aclose()

    review = asyncio.run(go())
    assert len(schemas) == 5
    assert all(w.mode == "model:sim" for w in review.works)
    # The schema sent with each work allows exactly the ids of the passages it was given, in
    # every field, and bounds what a guided model can write.
    enums = []
    for s in schemas:
        fields = [s["properties"][n.lower()]["properties"] for n in CITED]
        assert len({json.dumps(f["passages"]) for f in fields}) == 1, fields
        enums.append(fields[0]["passages"]["items"]["enum"])
        assert fields[0]["passages"]["maxItems"] == len(enums[-1])
        assert fields[0]["passages"]["minItems"] == 1
        assert [f["text"]["maxLength"] for f in fields] == [560, 360, 360]
        assert s["properties"]["why"]["maxLength"] == 240
    assert sorted(map(len, enums)) == sorted(len(w.passages) for w in review.works)
    for enum in enums:
        assert enum == [f"P{i}" for i in range(1, len(enum) + 1)]
    assert all(r.body["max_tokens"] == READING_MAX_TOKENS for r in asked)
    # What a work's saved passages say is what its prompt showed, and no more than the bounds.
    for w in review.works:
        prompt = next(
            r.messages[0]["content"] for r in asked if w.title in r.messages[0]["content"]
        )
        assert 1 <= len(w.passages) <= MODEL_PASSAGES
        for p in w.passages:
            assert word_count(p.text) <= MODEL_PASSAGE_WORDS and p.text in prompt
    for w in _full_text(review):
        pages = {p.id: p.pages for p in w.passages}
        for name in ("summary", "objectives", "conclusions"):
            cited = getattr(w, name).passages
            assert cited and all(pages[pid] for pid in cited), (w.title, name)


def test_the_cli_says_nothing_relevant_and_names_a_bad_bar(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "c.csv").write_text(
        "Titulo,Autor,Tipo,Defesa,Resumo\n"
        '"Educação inclusiva na rede pública",Ana Souza,Dissertação,2021,'
        '"Esta dissertação analisa a formação docente para a educação inclusiva."\n',
        encoding="utf-8",
    )
    assert colmeia_cli("review", "import", "c.csv", "-c", "t")[0] == 0
    code, out, _ = colmeia_cli("review", "receitas de bolo de chocolate", "-c", "t")
    assert code == 0
    assert "nothing relevant" in out
    code, out, err = colmeia_cli("review", "educação", "-c", "t", "--relevance-bar", "ótima")
    assert code != 0
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "relevance bar 'ótima'" in lines[0], err


def test_objectives_come_from_the_first_pages_and_conclusions_from_the_last() -> None:
    from colmeia.apps.literature.extractive import extractive_fields

    passages = [
        Passage("P1", "a", "A escola mostra resultados desiguais entre turnos.", "15"),
        Passage("P2", "b", "O objetivo é analisar a formação docente em gênero.", "11"),
        Passage("P3", "c", "Conclui-se que a formação continuada é insuficiente.", "24"),
        Passage("P4", "d", "Trabalho\nRESUMO\nO trabalho investiga a formação docente.", ""),
    ]
    summary, objectives, conclusions, _, _ = extractive_fields(QUESTION, "Trabalho", passages)
    assert objectives.passages == ["P2"]
    assert conclusions.passages == ["P3"]
    assert summary.passages == ["P2"]  # full text first; the record only when nothing else


def test_a_model_reads_a_bounded_part_of_each_work_held_by_the_question(library) -> None:
    """The prompt of a small local model is what makes a reading slow: each work is given at
    most four passages of at most 110 words, the sentences holding most of the question."""
    from colmeia.apps.literature.extractive import body_sentences
    from colmeia.apps.literature.model_passages import passages_for_model

    review = run_review(library, "teses", QUESTION, top=5)
    full = review.works[0]  # the sample PDF this question is about, read from its pages
    assert any(word_count(p.text) > MODEL_PASSAGE_WORDS for p in full.passages)
    given = passages_for_model(QUESTION, full.passages, title=full.title)
    assert [p.id for p in given] == [f"P{i}" for i in range(1, len(given) + 1)]
    assert 1 <= len(given) <= MODEL_PASSAGES
    originals = {p.chunk_id: " ".join(p.text.split()) for p in full.passages}
    for p in given:
        assert word_count(p.text) <= MODEL_PASSAGE_WORDS
        # whole sentences of the passage, with its pages
        assert " ".join(p.text.split()) in originals[p.chunk_id]
        assert p.pages == next(o.pages for o in full.passages if o.chunk_id == p.chunk_id)
    assert passages_for_model(QUESTION, given, title=full.title) == given  # already bounded
    # The sample PDF's chapters repeat the abstract's sentences, so overlapping chunks do too:
    # a passage is given only when it brings a sentence not given before.
    seen: set[str] = set()
    for p in given:
        sentences = {" ".join(x.split()) for x in body_sentences(p.text)}
        assert sentences - seen, p.id
        seen |= sentences
    # (Which passages repeat others depends on where cleaning ends paragraphs: since a
    # citation list is no longer cut in two, the sample's four passages each bring new ones.)
    assert len(given) <= len(full.passages)
    for w in review.works:
        bounded = passages_for_model(QUESTION, w.passages, title=w.title)
        sections = {p.section for p in w.passages if p.section}
        assert sections <= {p.section for p in bounded}, w.title  # sections are kept first


def test_the_window_given_is_the_one_that_holds_the_question() -> None:
    from colmeia.apps.literature.model_passages import best_window
    from colmeia.rag.index.lexical import Analyzer

    filler = "A pesquisa seguiu as normas do programa e os prazos da instituição. " * 6
    text = (
        filler
        + "As egressas relatam que gênero e sexualidade quase não aparecem na formação docente. "
        + filler
    )
    analyzer = Analyzer()
    window = best_window(text, set(analyzer.tokens(QUESTION)), 30, analyzer)
    assert "gênero e sexualidade" in window
    assert word_count(window) <= 30
    long_sentence = " ".join(["palavra"] * 50) + "."
    assert word_count(best_window(long_sentence, set(), 30, analyzer)) == 30


def test_the_longest_reading_a_grammar_allows_fits_the_token_limit() -> None:
    """A guided model cannot write past the reading's token limit and be asked again with twice
    the room (what made one reading take many minutes on two cores)."""
    from colmeia.apps.literature.schemas import READING_MAX_CHARS, reading_schema

    schema = reading_schema(["P1", "P2", "P3", "P4"]).model_json_schema()
    texts = [schema["properties"][n.lower()]["properties"]["text"]["maxLength"] for n in CITED]
    longest = sum(texts) + schema["properties"]["why"]["maxLength"]
    assert longest == sum(READING_MAX_CHARS.values())
    ids = 3 * len('"passages": ["P1", "P2", "P3", "P4"], ')
    json_around = 3 * len('"summary": {"text": ""}, ') + len('"relevance": "nenhuma", "why": ""')
    assert (longest + ids + json_around) / 2.5 < READING_MAX_TOKENS  # ≥ ~2.5 chars a token


def test_a_field_the_passages_do_not_inform_cites_nothing() -> None:
    """The schema asks every field for a citation; "não informado" states nothing, so the
    review keeps none for it (and does not flag it as uncited)."""
    from colmeia.apps.literature.review import ReviewedWork, _check
    from colmeia.apps.literature.schemas import CitedText, WorkAnalysis

    work = ReviewedWork("d", "Uma tese", 1, 1.0)
    work.passages = [Passage("P1", "d#1", "A tese analisa a formação docente em gênero.", "11")]
    _check(
        work,
        WorkAnalysis(
            summary=CitedText(text="A tese analisa a formação docente.", passages=["P1"]),
            objectives=CitedText(text="Não informado.", passages=["P1"]),
            conclusions=CitedText(text="não informado", passages=["P1"]),
            relevance="alta",
            why="Trata da formação docente.",
        ),
    )
    assert work.summary is not None and work.summary.passages == ["P1"]
    assert work.objectives is not None and work.objectives.passages == []
    assert work.conclusions is not None and work.conclusions.passages == []
    assert work.warnings == []


def test_the_schema_sent_has_no_ref_for_a_server_to_skip() -> None:
    """llama.cpp (xllamacpp 0.2.14) left the objects behind a Pydantic $ref unconstrained: the
    0.5B wrote passage ids outside the enum and no text. What is sent is inlined."""
    from pydantic import BaseModel

    from colmeia.apps.literature.schemas import inline_refs, reading_schema

    sent = json.dumps(reading_schema(["P1", "P2"]).model_json_schema())
    assert "$ref" not in sent and "$defs" not in sent
    assert sent.count('"enum": ["P1", "P2"]') == 3

    class Node(BaseModel):  # recursive: its $ref stays, with the definitions it needs
        children: list[Node] = []

    schema = inline_refs(Node.model_json_schema())
    assert "$defs" in schema or "$ref" not in json.dumps(schema)
