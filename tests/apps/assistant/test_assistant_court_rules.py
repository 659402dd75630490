"""A state court's case in the thread: a deadline question is not answered only by the federal
Lei 9.784 — the answer warns first that the court's own rules may differ, and quotes them as
the court's when the court ingested its norms (``normas-tribunal``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from assistant_helpers import AS_OF, LAWS

from colmeia.apps.assistant.court_rules import local_case, source_kind
from colmeia.apps.assistant.ids import parse_case_id
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.rag.pipeline import ingest
from colmeia.store import Store, open_store
from shared_data import DATA_DIR

SAMPLE = DATA_DIR / "tribunal" / "regimento_interno_tce_exemplo.md"
LOCAL = "o processo TC/000032/2023 (Prefeitura Municipal de Exemplo)"


async def municipal_case(registry: SQLiteCaseRegistry) -> str:
    """A process of the synthetic registry with a Prefeitura Municipal among its parties."""
    _, found = await registry.find("Prefeitura Municipal", limit=50)
    for summary in found:
        if summary.kind != "process":
            continue
        parties = await registry.parties(parse_case_id(summary.number, today=AS_OF))
        if any("Prefeitura Municipal" in p.name for p in parties):
            return summary.number
    pytest.fail("the synthetic registry has no case of a Prefeitura Municipal")


async def test_after_a_municipal_case_the_deadline_answer_warns_about_the_courts_rules(
    assistant: Callable[..., Any], registry: SQLiteCaseRegistry
) -> None:
    number = await municipal_case(registry)
    bot = await assistant(None)
    first = await bot.ask("t1", f"Qual a situação do processo {number}?")
    assert first.facts and first.facts[0]["number"] == number
    result = await bot.ask("t1", "qual o prazo pra eu recorrer?")
    answer = result.answer
    # Red without the thread's case reaching the RAG agent: Lei 9.784 Art. 59, silently.
    assert answer.startswith(f"Atenção: o processo {number}"), answer[:200]
    assert "regimento interno desse tribunal" in answer
    assert "normas-tribunal" in answer  # where the court's norms would be, since none are
    assert any(c["law"] == "Lei 9.784/1999" for c in result.citations)  # still shown


async def test_a_thread_without_a_state_case_gets_the_federal_rule_alone(
    assistant: Callable[..., Any],
) -> None:
    bot = await assistant(None)
    result = await bot.ask("t1", "qual o prazo pra eu recorrer?")
    assert not result.answer.startswith("Atenção")


@pytest.fixture(scope="module")
def court_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """Lei 9.784 in ``leis`` and the sample regimento in ``normas-tribunal``."""
    folder = tmp_path_factory.mktemp("court")
    store = open_store(f"sqlite:///{folder / 'court.db'}")
    assert not ingest(store, "leis", [LAWS / "lei_9784_19990129.csv"]).errors
    assert not ingest(store, "normas-tribunal", [SAMPLE]).errors
    return store


async def test_the_courts_own_rule_is_quoted_as_the_courts(court_store: Store) -> None:
    result = await RagPipeline(court_store, "leis").run(
        "qual o prazo pra eu recorrer?", local=LOCAL
    )
    answer = result["answer"]
    head, _, rest = answer.partition("\n\n")
    # The court's rule comes first, named as the court's; the federal one follows, as federal.
    assert head.startswith(f"Atenção: {LOCAL} é de um tribunal de contas estadual")
    assert "Regimento Interno do TCE-EX (exemplo fictício), Art. 41, norma do tribunal" in head
    assert "no prazo de vinte dias" in head
    federal = [c for c in result["citations"] if c["law"] == "Lei 9.784/1999"]
    assert federal and {c["source"] for c in federal} == {"lei federal"}
    assert rest


async def test_a_procedure_free_question_gets_no_warning(court_store: Store) -> None:
    result = await RagPipeline(court_store, "leis").run(
        "o que a administração deve observar nos processos administrativos?", local=LOCAL
    )
    assert not result["answer"].startswith("Atenção")


def test_local_case_reads_the_record_and_parties() -> None:
    found = {
        "status": "found",
        "kind": "process",
        "number": "TC/000032/2023",
        "record": {"subject": "merenda escolar"},
        "parties": [{"name": "Prefeitura Municipal de Fazenda Velha", "role": "responsável"}],
    }
    assert (
        local_case([found]) == "o processo TC/000032/2023 (Prefeitura Municipal de Fazenda Velha)"
    )
    federal = found | {"parties": [{"name": "Ministério da Saúde", "role": "responsável"}]}
    assert local_case([federal]) == ""
    assert local_case([{"status": "not_found", "number": "TC/000001/2020"}]) == ""


@pytest.mark.parametrize(
    ("label", "doc_type", "kind"),
    [
        ("CF/88, Art. 71, inciso II", "Constituição", "Constituição Federal"),
        ("Lei 9.784/1999, Art. 59", "Lei", "lei federal"),
        ("Acórdão 1234/2019-Plenário, rel. Min. X", "Jurisprudência", "jurisprudência"),
        ("Súmula TCU 272", "Jurisprudência", "jurisprudência"),
        (
            "Regimento Interno do TCE-EX (exemplo fictício), Art. 41",
            "markdown",
            "norma do tribunal",
        ),
    ],
)
def test_each_citation_says_whose_norm_it_quotes(label: str, doc_type: str, kind: str) -> None:
    assert source_kind(label, doc_type) == kind


def test_the_sample_statute_says_it_is_fictional() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    assert "exemplo fictício" in text.splitlines()[0]
    assert "não existe" in text
    assert Path(DATA_DIR / "tribunal" / "README.md").exists()


async def test_a_procedural_question_in_a_state_cases_thread_asks_the_process_law_first(
    laws_store: Store,
) -> None:
    # The court-rules note compares the court's rules with "the federal rule cited below
    # (Lei 9.784/1999)": the rule cited is the process law's. Red before: LINDB Art. 20
    # ("nas esferas administrativa, controladora e judicial, não se decidirá…") came first.
    rag = RagPipeline(laws_store, "leis", None)
    question = "quanto tempo eles tem pra decidir?"
    result = await rag.run(question, local="Prefeitura Municipal de Santarém")
    assert result["citations"][0]["label"].startswith("Lei 9.784/1999")
    assert result["analysis"]["filters"]["law_number"] == "9784"
    # asked outside such a thread, the question is searched as it is
    alone = await rag.run(question)
    assert "law_number" not in alone["analysis"]["filters"]
