"""The questions people asked in the development conversation sets are shipped as lay questions
of the articles they asked (``data/laws/lay_questions/from_conversations.py``): a few per
article, the shortest, never a turn that leans on the thread, and never a turn of a set kept
frozen to measure them."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.config import EmbeddingsSettings
from colmeia.rag.expansion import shipped_questions
from colmeia.rag.index.embedders import default_embedder
from colmeia.rag.pipeline import ingest
from colmeia.store import open_store

ROOT = Path(__file__).resolve().parents[2]
SETS = ROOT / "src" / "colmeia" / "apps" / "assistant" / "data"
SCRIPT = ROOT / "data" / "laws" / "lay_questions" / "from_conversations.py"
BUILD = ROOT / "data" / "laws" / "lay_questions" / "build.py"
ASKED = ROOT / "data" / "laws" / "lay_questions" / "written" / "asked_conversations.jsonl"


def _script(path: Path = SCRIPT) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _turns(name: str) -> set[str]:
    out: set[str] = set()
    for path in (SETS / name).glob("conversations_*.json"):
        for conv in json.loads(path.read_text("utf-8"))["conversations"]:
            out.update(" ".join(t["user"].split()) for t in conv["turns"])
    return out


def _shipped() -> set[str]:
    return {q for questions in shipped_questions().values() for q in questions}


def test_no_turn_of_a_frozen_set_is_shipped() -> None:
    development = set(_script().DEVELOPMENT)
    frozen = [
        p.name
        for p in SETS.iterdir()
        if p.is_dir() and p.name.startswith("independent") and p.name not in development
    ]
    # the sets nobody tunes on: the first three, independent5 and the latest blind ones
    assert {"independent", "independent5", "independent17", "independent18"} <= set(frozen)
    shipped = _shipped()
    leaked = {name: sorted(_turns(name) & shipped) for name in frozen}
    assert {name: turns for name, turns in leaked.items() if turns} == {}


def test_the_asked_questions_are_shipped_for_their_articles() -> None:
    rows = [json.loads(line) for line in ASKED.read_text("utf-8").splitlines() if line]
    per_article = {row["id"]: row["questions"] for row in rows}
    # the articles the blind writers ask about again and again are among them
    assert "lei_8987_19950213|Art. 6º" in per_article
    assert "adct_1988_19881005|Art. 19" in per_article
    assert all(1 <= len(qs) <= _script().PER_ARTICLE for qs in per_article.values())
    development = _turns("independent12") | _turns("independent16")
    assert any(q in development for qs in per_article.values() for q in qs)
    # each is shipped as build.py writes it (the norm a question names left to the parser)
    without_norm = _script(BUILD).without_norm
    shipped = _shipped()
    assert all(without_norm(q) in shipped for qs in per_article.values() for q in qs)


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("e da pra prorrogar esse prazo?", False),  # leans on the thread
        ("e o inciso 55?", False),
        ("oq diz o art 5 inciso 33 da constituicao", True),  # the parser reads a named article
        ("e se a lei nao disser quando entra em vigor, vale quando afinal?", False),
        ("ultima duvida: a prefeitura pode anular agora uma gratificacao de 2019?", True),
        ("ultima duvida: a prefeitura pode anular agora uma gratificacao de 2019?", False),
    ],
)
def test_a_turn_that_leans_on_the_thread_is_left_out(question: str, first: bool) -> None:
    expected = "art " not in question and (first or not question.lower().startswith("e "))
    assert _script().stands_alone(question, first) is expected


def test_an_article_is_labelled_as_lexml_writes_it() -> None:
    label = _script().article_label
    assert (label("6"), label("37"), label("55-J"), label("9")) == (
        "Art. 6º",
        "Art. 37",
        "Art. 55-J",
        "Art. 9º",
    )


@pytest.mark.default_embedder
def test_a_right_asked_in_other_words_reaches_the_article_people_asked_it_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # not a sentence of any set: the right of access and correction (LGPD Art. 18) asked as a
    # servant of the development sets asked it; the LGPD's Art. 19 (how the access is given)
    # came first before their questions were shipped
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path / "cache"))
    embedder = default_embedder(EmbeddingsSettings())
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "docs", [ROOT / "data" / "laws" / "lexml"], embedder=embedder)
    question = "quero saber que dados pessoais meus a secretaria tem guardado, posso pedir acesso e correcao?"

    async def first() -> str:
        rag = RagPipeline(store, "docs", None, embedder=embedder)
        state: dict[str, Any] = {"question": question, "query": question}
        state.update(await rag.analyze(state))  # type: ignore[arg-type]
        state.update(await rag.retrieve(state))  # type: ignore[arg-type]
        state.update(await rag.grade(state))  # type: ignore[arg-type]
        return str(state["ranked"][0].citation.path)

    try:
        assert asyncio.run(first()).startswith("Lei 13.709/2018, Art. 18")
    finally:
        store.close()
