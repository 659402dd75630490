"""Extraction columns of the researcher's own (`--column "método: qual o método?"`), filled per
work with citations, kept in the saved review and in its exports."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path

import pytest

from colmeia.apps.literature import Review, export_review, import_library, run_review
from colmeia.apps.literature.columns import fill_columns, parse_column
from colmeia.errors import InputError
from colmeia.store import open_store

CSV = (
    "Titulo,Autor,Defesa,Resumo\n"
    '"Docentes diante da inclusão escolar",Ana Souza,2019,'
    '"Estudo sobre a inclusão escolar na rede pública. A metodologia combinou entrevistas '
    "semiestruturadas com vinte professores e observação de aulas. Os docentes relatam falta de "
    'apoio."\n'
    '"Inclusão escolar e gestão",Carlos Lima,2021,'
    '"Discute a inclusão escolar a partir da gestão. Conclui que a gestão democrática favorece a '
    'inclusão."\n'
)
METHOD = "método: qual o método de pesquisa?"


@pytest.fixture
def review(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "c.csv").write_text(CSV, encoding="utf-8")
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    import_library(store, "col", [tmp_path / "c.csv"])
    done = run_review(store, "col", "inclusão escolar", top=5)
    store.close()
    return done


def test_a_column_spec_needs_a_name_and_a_question() -> None:
    assert parse_column(" método :  qual o método de pesquisa? ") == parse_column(METHOD)
    assert parse_column(METHOD).name == "método"
    with pytest.raises(InputError, match="write it as 'name: question'"):
        parse_column("qual o método?")


def test_offline_each_work_gets_its_own_sentence_cited_or_nao_informado(review) -> None:  # type: ignore[no-untyped-def]
    asyncio.run(fill_columns(review, [parse_column(METHOD)]))
    by_title = {w.title: w for w in review.works}
    value = by_title["Docentes diante da inclusão escolar"].columns["método"]
    assert value.text.startswith("A metodologia combinou entrevistas semiestruturadas")
    assert value.passages == ["P1"]
    assert by_title["Inclusão escolar e gestão"].columns["método"].text == "não informado"
    assert review.columns == [{"name": "método", "question": "qual o método de pesquisa?"}]


def test_columns_survive_saving_and_reach_csv_and_html(review, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    asyncio.run(fill_columns(review, [parse_column(METHOD)]))
    saved = Review.load(review.save(tmp_path / "r.json"))
    assert saved.columns == review.columns
    assert saved.works[0].columns == review.works[0].columns
    text = export_review(saved, tmp_path / "r.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    cells = {r["title"]: r["método"] for r in rows}
    assert cells["Docentes diante da inclusão escolar"].endswith("[P1]")
    assert "<h4>método</h4>" in export_review(saved, tmp_path / "r.html").read_text("utf-8")


def test_with_a_model_a_value_its_passage_does_not_support_becomes_nao_informado(
    review,  # type: ignore[no-untyped-def]
    sim_server,  # type: ignore[no-untyped-def]
) -> None:
    from colmeia.llm import OpenAIChatModel
    from colmeia.sim import SimRequest, SimulatedModel

    def respond(req: SimRequest) -> str:
        prompt = json.dumps(req.body, ensure_ascii=False)
        if "vinte professores" in prompt:
            return json.dumps({"text": "Entrevistas com vinte professores.", "passages": ["P1"]})
        return json.dumps({"text": "Grupo focal com famílias e médicos.", "passages": ["P1"]})

    srv = sim_server(SimulatedModel(responder=respond))
    model = OpenAIChatModel(base_url=srv.base_url, model="sim")

    async def go() -> None:
        try:
            await fill_columns(review, [parse_column(METHOD)], model)
        finally:
            await model.aclose()

    asyncio.run(go())
    by_title = {w.title: w for w in review.works}
    first = by_title["Docentes diante da inclusão escolar"]
    assert first.columns["método"].text == "Entrevistas com vinte professores."
    assert first.columns["método"].passages == ["P1"]
    second = by_title["Inclusão escolar e gestão"]
    assert second.columns["método"].text == "não informado"
    assert any("cites no passage that supports it" in x for x in second.warnings)


def test_the_cli_fills_columns(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env = {"COLMEIA_EMBEDDINGS_MODEL": "none"}
    (tmp_path / "c.csv").write_text(CSV, encoding="utf-8")
    code, _, err = colmeia_cli("review", "import", "c.csv", "-c", "col", env=env)
    assert code == 0, err
    code, _, err = colmeia_cli(
        "review", "inclusão escolar", "-c", "col", "--column", METHOD, "--out", "r.json", env=env
    )
    assert code == 0, err
    saved = Review.load(tmp_path / "r.json")
    assert {w.title: w.columns["método"].text for w in saved.works}[
        "Inclusão escolar e gestão"
    ] == "não informado"
    code, _, err = colmeia_cli("review", "x", "-c", "col", "--column", "sem dois pontos", env=env)
    assert code == 2
    assert "write it as 'name: question'" in err
