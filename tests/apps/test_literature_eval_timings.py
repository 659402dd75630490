"""`colmeia eval review` times every ranking per query and reports mean ± sd (and n) beside the
mean it always reported: in the JSON, the HTML report and the table people read."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from literature_helpers import library_store

from colmeia.apps.literature import rankings
from colmeia.apps.literature.evaluate import SyntheticQuery, aevaluate_review
from colmeia.store import Store

CSV = (
    "Titulo,Resumo\n"
    '"Consórcios de saneamento","Estudo de consórcios. O esgoto rural depende de metas."\n'
    '"Tarifas de água","Estudo de tarifas. Famílias pobres pagam menos nas cidades pequenas."\n'
    '"Currículo nacional","Estudo de currículos. Documentos oficiais orientam as escolas."\n'
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    yield from library_store(tmp_path, CSV)


def test_seconds_per_query_are_mean_sd_and_n_of_the_times_measured(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clock that makes lexical search take 0.1, 0.3 and 0.2 s and the rerank 1, 1 and 4 s."""
    ticks = iter([0, 0.1, 10, 11, 20, 20.3, 30, 31, 40, 40.2, 50, 54])

    class Clock:
        @staticmethod
        def perf_counter() -> float:
            return float(next(ticks))

    monkeypatch.setattr(rankings, "time", Clock)
    target = next(d.doc_id for d in store.documents("col") if "saneamento" in d.title)
    queries = [SyntheticQuery(target, "esgoto", "file")] * 3
    report = asyncio.run(aevaluate_review(store, "col", queries=queries, ks=(10,)))
    assert report.seconds == {"lexical": 0.2, "reranked": 2.0}  # the means, as before
    assert report.seconds_sd == {"lexical": 0.1, "reranked": 1.7321}  # sqrt(3)
    assert report.seconds_n == {"lexical": 3, "reranked": 3}
    data = report.as_dict()
    assert data["seconds_per_query"] == report.seconds
    assert data["seconds_per_query_sd"] == report.seconds_sd
    assert data["seconds_per_query_n"] == report.seconds_n


def test_the_table_and_the_html_report_show_mean_plus_minus_sd(
    tmp_path: Path,
    colmeia_cli,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from colmeia.cli import review_cmd

    # an 80-column terminal: the figure and its spread stay on one line, whole
    monkeypatch.setattr(review_cmd.console, "width", 80)
    (tmp_path / "c.csv").write_text(CSV, encoding="utf-8")
    code, _, err = colmeia_cli("review", "import", str(tmp_path / "c.csv"), "-c", "col")
    assert code == 0, err
    out = tmp_path / "rel"
    code, stdout, err = colmeia_cli("eval", "review", "-c", "col", "--out", str(out))
    assert code == 0, err
    data = json.loads((out / "eval.json").read_text(encoding="utf-8"))
    mean, sd = data["seconds_per_query"]["lexical"], data["seconds_per_query_sd"]["lexical"]
    assert data["seconds_per_query_n"]["lexical"] == 3  # one query per work
    row = next(line for line in stdout.splitlines() if "lexical" in line)
    assert row.rstrip(" │").endswith(f"{mean} ± {sd}")
    assert f"<td>{mean} ± {sd}</td>" in (out / "report.html").read_text(encoding="utf-8")
