"""`colmeia review ask`: one answer across works, every claim citing work (author, year) and
page; "nothing relevant" when no work answers; a model's unsupported citations removed."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from literature_helpers import library_store

from colmeia.apps.literature.synthesis import NOTHING_RELEVANT, ask_collection

CSV = (
    "Titulo,Autor,Defesa,Resumo\n"
    '"Docentes diante da inclusão escolar",Ana Beatriz Souza,2019,'
    '"Esta dissertação ouviu vinte professores da rede pública. Os professores relatam falta de '
    'formação continuada para a inclusão de alunos com deficiência. A gestão escolar pouco apoia."\n'
    '"Formação continuada e inclusão",Carlos Lima,2021,'
    '"A tese acompanha um curso de formação continuada. A formação continuada aumentou a '
    'confiança dos professores na inclusão de alunos com deficiência."\n'
    '"Tarifas de saneamento",Maria Rocha,2018,'
    '"Analisa tarifas de água e esgoto em consórcios municipais. Os custos caem com a escala, '
    'sem relação com professores."\n'
)
QUESTION = "o que dizem os professores sobre formação continuada para a inclusão?"


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    yield from library_store(tmp_path, CSV)


def test_offline_the_answer_cites_each_work_by_author_year_and_place(store) -> None:  # type: ignore[no-untyped-def]
    result = asyncio.run(ask_collection(store, "col", QUESTION, works=3))
    assert result.mode == "extractive"
    assert not result.nothing_relevant
    by_id = {s.id: s for s in result.sources}
    cited = {by_id[i].title for c in result.claims for i in c.sources}
    assert cited == {"Docentes diante da inclusão escolar", "Formação continuada e inclusão"}
    text = result.text()
    assert "(SOUZA, 2019, resumo)" in text
    assert "(LIMA, 2021, resumo)" in text
    assert "formação continuada" in text.lower()
    assert "SAMPAIO" not in text and "ROCHA" not in text  # the sanitation work is not cited
    for claim in result.claims:
        source = by_id[claim.sources[0]]
        assert claim.text in " ".join(source.text.split())  # extractive: its own words


@pytest.mark.parametrize(
    "question",
    [
        "receita de bolo de cenoura com chocolate",  # no word in any work
        "receita de bolo de cenoura para professores",  # one word of four: below the bar
    ],
)
def test_a_question_no_work_answers_says_so(store, question: str) -> None:  # type: ignore[no-untyped-def]
    result = asyncio.run(ask_collection(store, "col", question))
    assert result.nothing_relevant
    assert result.claims == []
    assert result.text() == NOTHING_RELEVANT


def test_with_a_model_unsupported_citations_are_removed_and_the_schema_allows_only_given_ids(
    store,  # type: ignore[no-untyped-def]
    sim_server,  # type: ignore[no-untyped-def]
) -> None:
    from colmeia.llm import OpenAIChatModel
    from colmeia.sim import SimRequest, SimulatedModel

    bodies: list[dict] = []

    def respond(req: SimRequest) -> str:
        bodies.append(req.body)
        prompt = json.dumps(req.body, ensure_ascii=False)
        tariffs = re.search(r"\[(S\d)\] Tarifas", prompt)
        assert tariffs is not None
        # First an id that was never given (the schema refuses it, the model is asked again),
        # then the tariff passage cited for claims it does not support.
        wrong = "S9" if len(bodies) == 1 else tariffs.group(1)
        return json.dumps(
            {
                "claims": [
                    {
                        "text": "Os professores relatam falta de formação continuada para a inclusão.",
                        "sources": ["S1", wrong],
                    },
                    {"text": "Cursos de música melhoram a leitura no Ceará.", "sources": [wrong]},
                ],
                "nothing_relevant": False,
            },
            ensure_ascii=False,
        )

    srv = sim_server(SimulatedModel(responder=respond))
    model = OpenAIChatModel(base_url=srv.base_url, model="sim")

    async def go():  # type: ignore[no-untyped-def]
        try:
            return await ask_collection(
                store, "col", QUESTION, model=model, model_name="sim", works=3, per_work=1
            )
        finally:
            await model.aclose()

    result = asyncio.run(go())
    assert result.mode == "model:sim"
    ids = [s.id for s in result.sources]
    assert ids == ["S1", "S2", "S3"]
    schema = json.dumps(bodies[0].get("response_format") or bodies[0], ensure_ascii=False)
    assert '"enum": ["S1", "S2", "S3"]' in schema
    by_id = {s.id: s for s in result.sources}
    (claim,) = result.claims  # the tariff claim had no passage that supports it
    assert claim.text.startswith("Os professores relatam")
    kept = [by_id[i].title for i in claim.sources]
    assert kept and all(t != "Tarifas de saneamento" for t in kept)
    assert all("Tarifas" not in t for t in kept)
    assert len(bodies) == 2  # S9 was refused by the schema and asked again
    assert any("does not support «Os professores" in r for r in result.removed)
    assert any(
        "claim without a passage that supports it: «Cursos de música" in r for r in result.removed
    )


def test_the_cli_prints_the_cited_answer(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "c.csv").write_text(CSV, encoding="utf-8")
    code, _, err = colmeia_cli(
        "review", "import", "c.csv", "-c", "col", env={"COLMEIA_EMBEDDINGS_MODEL": "none"}
    )
    assert code == 0, err
    code, out, err = colmeia_cli(
        "review", "ask", QUESTION, "-c", "col", "--json", env={"COLMEIA_EMBEDDINGS_MODEL": "none"}
    )
    assert code == 0, err
    data = json.loads(out)
    assert "(SOUZA, 2019, resumo)" in data["answer"]
    assert data["nothing_relevant"] is False
    code, _, err = colmeia_cli("review", "ask", QUESTION, "-c", "nada")
    assert code == 2
    assert "no collection named 'nada'" in err
