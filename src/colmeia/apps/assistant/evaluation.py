"""``colmeia eval assistant``: run question sets through the assistant and measure it.

The sets:

* ``laws`` — questions on the shipped federal laws with gold article citations, plus case and
  general questions with the agent that should answer (``data/assistant/questions.jsonl``,
  written for this project: in-sample);
* ``lay-dev`` / ``lay-test`` — the same laws asked in lay words ("posso devolver…"), gold
  article per question: a development set and a test set written apart and frozen
  (``data/assistant/lay_dev.jsonl``, ``lay_test.jsonl``); ``lay-test2``, a second frozen
  test set written apart, also asks about the Constitution, so its run ingests it too;
* ``faquad`` — FaQuAD questions (``data/faquad/dataset.json``): the gold paragraph should be
  cited and the answer should contain a gold span;
* ``conversations`` — scripted multi-turn conversations (every ``conversations_*.json`` of
  the package's ``data/``, :mod:`colmeia.apps.assistant.conversations`) on the shipped laws and
  a synthetic registry, scored per turn and per conversation;
* ``independent`` — conversations written by hand apart from the code and the generator, in
  the Portuguese people type, on a four-case registry imported from CSV files
  (``data/independent/`` of the package): frozen, reported, never tuned on;
* ``independent2`` — a second such set, written apart from the first on a copy of its registry
  (``data/independent2/``): frozen likewise;
* ``independent3`` — a third, written apart from the code and from the first two, on the same
  registry (``data/independent3/``): frozen likewise;
* ``independent4`` … ``independent14`` — written blind to the code (their authors read only a
  brief, ``docs/blind-brief.md``, the law texts and the court's institutional file) on
  registries of their own invention: ``independent4``, ``independent6`` and ``independent8``
  are development sets; ``independent7``, ``independent9`` and ``independent10`` were frozen
  until their one reading and are development sets since; ``independent5`` and
  ``independent11`` … ``independent14`` are frozen.

Each run builds its own store (the laws — for conversations, the laws and the Constitution, as the
README builds the collection — or the FaQuAD paragraphs, ingested into a temporary
SQLite file), a synthetic registry and in-memory threads, so nothing of the user's is touched.
Metrics come from :mod:`colmeia.eval.assistant`.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from colmeia.apps.assistant.conversations import (
    Conversation,
    load_conversations,
    run_conversations,
)
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.session import Assistant, open_assistant
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.apps.assistant.synthetic import generate_registry
from colmeia.apps.assistant.turngen.files import SET_NAMES, set_folder
from colmeia.errors import ConfigurationError, RecordError
from colmeia.eval.assistant import (
    AssistantOutcome,
    GoldCitation,
    TurnOutcome,
    answer_passages,
    gold_rank,
    summarise_conversations,
    summarise_outcomes,
)
from colmeia.llm.base import ChatModel
from colmeia.rag.index.embedders import Embedder

__all__ = ["EvalItem", "EvalReport", "evaluate", "load_faquad", "load_questions"]

AS_OF = dt.date(2026, 11, 1)


@dataclass(slots=True)
class EvalItem:
    """One question with what a right answer looks like."""

    id: str
    question: str
    expected_agent: str
    gold: list[GoldCitation] = field(default_factory=list)
    spans: list[str] = field(default_factory=list)
    expect_status: str = "answered"


@dataclass(slots=True)
class EvalReport:
    """The figures and every question's outcome; ``problems`` lists unreadable lines."""

    set: str
    mode: str
    metrics: dict[str, Any]
    outcomes: list[AssistantOutcome]
    problems: list[str] = field(default_factory=list)
    turns: list[TurnOutcome] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        if self.turns:
            return {
                "set": self.set,
                "mode": self.mode,
                "metrics": self.metrics,
                "problems": self.problems,
                "failures": [
                    {
                        "conversation": t.conversation,
                        "turn": t.turn,
                        "user": t.user,
                        "expected_kind": t.expected_kind,
                        "kind": t.kind,
                        "failures": t.failures,
                    }
                    for t in self.turns
                    if not t.passed
                ],
            }
        return {
            "set": self.set,
            "mode": self.mode,
            "metrics": self.metrics,
            "problems": self.problems,
            "misses": [
                {
                    "id": o.id,
                    "expected_agent": o.expected_agent,
                    "agent": o.agent,
                    "status": o.status,
                }
                for o in self.outcomes
                if o.agent != o.expected_agent
            ],
            # Questions whose gold article is not the answer's first citation, with where it
            # came (1-based among the passages as shown; null: not in the answer at all).
            "gold_not_first": [
                {"id": o.id, "rank": gold_rank(answer_passages(o.citations, o.sources), o.gold)}
                for o in self.outcomes
                if o.gold and gold_rank(answer_passages(o.citations, o.sources), o.gold) != 1
            ],
        }


def load_questions(path: Path) -> tuple[list[EvalItem], list[str]]:
    """The JSONL question set; a bad line is reported (file:line) and skipped."""
    items: list[EvalItem] = []
    problems: list[str] = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                gold = [
                    GoldCitation(
                        str(g["law"]),
                        str(g["article"]),
                        str(g.get("paragraph", "")),
                        str(g.get("inciso", "")),
                    )
                    for g in row.get("gold", [])
                ]
                items.append(
                    EvalItem(
                        str(row["id"]),
                        str(row["question"]),
                        str(row["expected_agent"]),
                        gold,
                        [str(s) for s in row.get("spans", [])],
                        str(row.get("expect_status", "answered")),
                    )
                )
            except (ValueError, KeyError, TypeError) as exc:
                problems.append(str(RecordError(f"{path}:{n}", f"{type(exc).__name__}: {exc}")))
    return items, problems


def load_faquad(
    path: Path, *, limit: int | None = None, seed: int = 13
) -> tuple[list[dict[str, str]], list[EvalItem]]:
    """FaQuAD paragraphs (to ingest) and questions whose gold is their paragraph."""
    data = json.loads(path.read_text(encoding="utf-8"))
    docs: list[dict[str, str]] = []
    items: list[EvalItem] = []
    for a, article in enumerate(data.get("data", [])):
        for p, para in enumerate(article.get("paragraphs", [])):
            doc_id = f"faquad-{a}-{p}"
            docs.append(
                {"id": doc_id, "title": str(article.get("title", "")), "text": para["context"]}
            )
            for qa in para.get("qas", []):
                spans = [str(x["text"]) for x in qa.get("answers", []) if x.get("text")]
                items.append(
                    EvalItem(
                        str(qa.get("id", f"{doc_id}-q")),
                        str(qa["question"]),
                        "rag",
                        [GoldCitation("", "", doc_id=doc_id)],
                        spans,
                    )
                )
    if limit is not None and limit < len(items):
        items = random.Random(seed).sample(items, limit)
    return docs, items


async def run_items(
    assistant: Assistant,
    items: list[EvalItem],
    progress: Callable[[int, int], None] | None = None,
) -> list[AssistantOutcome]:
    """Ask each question in a thread of its own; record what happened."""
    outcomes: list[AssistantOutcome] = []
    for i, item in enumerate(items, start=1):
        started = time.perf_counter()
        result = await assistant.ask(f"eval-{i}", item.question)
        usage = result.usage
        outcomes.append(
            AssistantOutcome(
                id=item.id,
                expected_agent=item.expected_agent,
                agent=result.agent,
                status=result.status,
                citations=result.citations,
                gold=item.gold,
                answer=result.answer,
                spans=item.spans,
                model_calls=int(usage.get("calls", 0)),
                handoffs=len(result.handoffs),
                prompt_tokens=int(usage.get("prompt_tokens", 0)),
                completion_tokens=int(usage.get("completion_tokens", 0)),
                seconds=time.perf_counter() - started,
                sources=result.sources,
            )
        )
        if progress is not None:
            progress(i, len(items))
    return outcomes


async def evaluate(
    which: str,
    data_dir: Path,
    model: ChatModel | None,
    *,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    mode: str = "",
    conversations_dir: Path | None = None,
    embedder: Embedder | None = None,
) -> EvalReport:
    """Evaluate the assistant on ``laws``, ``faquad`` or ``conversations`` from ``data_dir``
    (the repo's data/; conversations come from the package's data/ or ``conversations_dir``);
    ``limit`` keeps the first N questions (conversations); with ``embedder`` the laws are
    ingested with vectors and searched lexical + dense, as ``colmeia`` does by default."""
    from colmeia.rag.pipeline import CsvColumns, ingest
    from colmeia.store import open_store

    if which not in (*SETS, *SET_NAMES, *FOLDER_SETS):
        raise ConfigurationError(
            f"unknown evaluation set {which!r}: use {', '.join((*SETS, *SET_NAMES, *FOLDER_SETS))}"
        )
    name = which
    if which in SET_NAMES:
        # the generated sets are conversations sets kept in a folder of their own
        conversations_dir = conversations_dir or set_folder(which)
        which = "conversations"
    elif which in FOLDER_SETS:
        conversations_dir = conversations_dir or _package_folder(FOLDER_SETS[which])
        which = "conversations"
    with tempfile.TemporaryDirectory(prefix="colmeia-eval-") as tmp:
        work = Path(tmp)
        store = open_store(f"sqlite:///{work / 'eval.db'}")
        problems: list[str] = []
        conversations: list[Conversation] = []
        items: list[EvalItem] = []
        outcomes: list[AssistantOutcome] = []
        turns: list[TurnOutcome] = []
        try:
            if which == "conversations":
                laws = data_dir / "laws" / "lexml"
                if not laws.exists():
                    raise ConfigurationError(
                        f"{laws} not found: pass --data (the repository's data/)"
                    )
                _check_folder(conversations_dir)
                conversations, problems = load_conversations(conversations_dir)
                if not conversations and not problems:
                    raise ConfigurationError(
                        f"no conversations_*.json in {conversations_dir or 'the package data'}"
                    )
                if limit is not None:
                    conversations = conversations[:limit]
                # the collection the README builds: the federal laws and the Constitution
                charter = data_dir / "laws" / "constituicao" / "lexml"
                sources = [laws, charter] if charter.exists() else [laws]
                ingest(store, "docs", sources, embedder=embedder)
            elif which in QUESTION_FILES:
                questions = data_dir / "assistant" / QUESTION_FILES[which]
                laws = data_dir / "laws" / "lexml"
                for needed in (questions, laws):
                    if not needed.exists():
                        raise ConfigurationError(
                            f"{needed} not found: pass --data (the repository's data/)"
                        )
                items, problems = load_questions(questions)
                sources = [laws]
                if which in WITH_CONSTITUTION:
                    sources.append(data_dir / "laws" / "constituicao" / "lexml")
                ingest(store, "docs", sources, embedder=embedder)
            else:
                source = data_dir / "faquad" / "dataset.json"
                if not source.exists():
                    raise ConfigurationError(
                        f"{source} not found: pass --data (the repository's data/)"
                    )
                docs, items = load_faquad(source, limit=limit)
                csv_path = work / "faquad.csv"
                _write_csv(csv_path, docs)
                ingest(store, "docs", [csv_path], csv_columns=CsvColumns("id", "text", "title"))
            if limit is not None and which != "conversations":
                items = items[:limit]
            if which == "conversations":
                # each file is played on the synthetic registry it was written on
                specs = {_registry_of(c) for c in conversations}
                for n, (spec, folder) in enumerate(sorted(specs, key=str)):
                    group = [c for c in conversations if _registry_of(c) == (spec, folder)]
                    turns += await _play(
                        work / f"registry-{n}.db",
                        spec,
                        store,
                        model,
                        group,
                        progress,
                        embedder,
                        folder,
                    )
            else:
                registry = SQLiteCaseRegistry(work / "registry.db")
                generate_registry(registry, processes=2000, expedientes=500, as_of=AS_OF)
                async with open_assistant(
                    store=store,
                    model=model,
                    registry=registry,
                    checkpoints="memory://",
                    settings=AssistantSettings(collection="docs"),
                    home=work,
                    today=AS_OF,
                    embedder=embedder,
                ) as assistant:
                    outcomes = await run_items(assistant, items, progress)
                registry.close_sync()
        finally:
            store.close()
    if which == "conversations":
        return EvalReport(
            name,
            mode or ("offline-rules" if model is None else "model"),
            summarise_conversations(turns),
            [],
            problems,
            turns,
        )
    return EvalReport(
        which,
        mode or ("offline-rules" if model is None else "model"),
        summarise_outcomes(outcomes),
        outcomes,
        problems,
    )


# The sets of questions on the shipped laws: the formal one and the lay-word pair (a
# development set to tune on, a test set written apart and frozen; data/assistant/README.md).
QUESTION_FILES = {
    "laws": "questions.jsonl",
    "lay-dev": "lay_dev.jsonl",
    "lay-dev2": "lay_dev2.jsonl",
    "lay-test": "lay_test.jsonl",
    "lay-test2": "lay_test2.jsonl",
    "lay-test3": "lay_test3.jsonl",
}
# Sets whose questions reach beyond the nine laws: the Constitution is ingested beside them.
WITH_CONSTITUTION = frozenset({"lay-dev2", "lay-test2", "lay-test3"})
SETS = (*QUESTION_FILES, "faquad", "conversations")

DEFAULT_REGISTRY = (2000, 500, 7, AS_OF.isoformat())

# conversations sets kept in a package folder of their own (besides the generated ones)
FOLDER_SETS = {
    "independent": "independent",
    "independent2": "independent2",
    "independent3": "independent3",
    "independent4": "independent4",
    "independent5": "independent5",
    "independent6": "independent6",
    "independent7": "independent7",
    "independent8": "independent8",
    "independent9": "independent9",
    "independent10": "independent10",
    "independent11": "independent11",
    "independent12": "independent12",
    "independent13": "independent13",
    "independent14": "independent14",
    "independent15": "independent15",
    "independent16": "independent16",
    "independent17": "independent17",
    "independent18": "independent18",
    "independent19": "independent19",
    "independent20": "independent20",
    "independent21": "independent21",
    "independent22": "independent22",
}


def _package_folder(name: str) -> Path:
    return Path(str(resources.files("colmeia.apps.assistant").joinpath("data", name)))


def _registry_of(conv: Conversation) -> tuple[tuple[int, int, int, str], Path | None]:
    return conv.registry or DEFAULT_REGISTRY, conv.registry_folder


def _import_registry(registry: SQLiteCaseRegistry, folder: Path) -> None:
    """The set's registry CSVs, all of them: a set played on part of its registry would be
    scored against cases that are not there."""
    from colmeia.apps.assistant.registry_io import import_registry

    report = import_registry(registry, [folder])
    if report.problems:
        first = report.problems[0]
        raise ConfigurationError(
            f"{folder}: {len(report.problems)} registry rows could not be imported "
            f"({first.where}: {first.reason}); fix the set's CSV files"
        )


async def _play(
    path: Path,
    spec: tuple[int, int, int, str],
    store: Any,
    model: Any,
    conversations: list[Conversation],
    progress: Callable[[int, int], None] | None,
    embedder: Embedder | None = None,
    folder: Path | None = None,
) -> list[TurnOutcome]:
    processes, expedientes, seed, as_of = spec
    day = dt.date.fromisoformat(as_of)
    registry = SQLiteCaseRegistry(path)
    if folder is not None:
        _import_registry(registry, folder)
    else:
        generate_registry(
            registry, processes=processes, expedientes=expedientes, seed=seed, as_of=day
        )
    try:
        async with open_assistant(
            store=store,
            model=model,
            registry=registry,
            checkpoints="memory://",
            settings=AssistantSettings(collection="docs"),
            embedder=embedder,
            home=path.parent,
            today=day,
        ) as assistant:
            return await run_conversations(assistant, conversations, progress)
    finally:
        registry.close_sync()


def _check_folder(folder: Path | None) -> None:
    if folder is not None and not folder.is_dir():
        raise ConfigurationError(f"--conversations {folder}: not a folder")


def _write_csv(path: Path, docs: list[dict[str, str]]) -> None:
    import csv

    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["id", "title", "text"])
        writer.writeheader()
        writer.writerows(docs)
