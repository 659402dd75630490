"""Fixtures shared by the RAG search tests: stores on SQLite and PostgreSQL, small corpora.

Imported by the test modules (``from rag_fixtures import …``); PostgreSQL tests each get their
own schema, dropped afterwards, and are skipped only when the server cannot be reached.
"""

from __future__ import annotations

import csv
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from colmeia.store import Store, open_store
from pg import pg_schema_url
from shared_data import DATA_DIR

DATA = DATA_DIR


@pytest.fixture(name="store_url", params=["sqlite", "postgres"])
def store_url_fixture(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty store URL: a SQLite file, or a PostgreSQL schema of its own."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store' / 'colmeia.db'}"
        return
    with pg_schema_url() as url:
        yield url


@pytest.fixture(name="store")
def store_fixture(store_url: str, tmp_path: Path) -> Iterator[Store]:
    s = open_store(store_url, cache_dir=tmp_path / "cache")
    yield s
    s.close()


def juristcu_subset(folder: Path, n: int = 300) -> Path:
    """The first ``n`` JurisTCU statements as DOC_ID,TEXT CSV in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "juris.csv"
    with (
        (DATA / "juristcu" / "docs.csv").open(encoding="utf-8") as src,
        out.open("w", encoding="utf-8", newline="") as dst,
    ):
        reader = csv.reader(src)
        writer = csv.writer(dst)
        for i, row in enumerate(reader):
            if i > n:
                break
            writer.writerow(row)
    return out


LAWS = {
    "concessao.md": (
        "# Concessões\n\n"
        "A concessão de serviço público será precedida de licitação na modalidade concorrência.\n\n"
        "O poder concedente publicará o edital de licitação com os critérios de julgamento."
    ),
    "consumidor.txt": (
        "O consumidor tem direito à proteção contra a publicidade enganosa e abusiva.\n\n"
        "O fornecedor responde pelos danos causados por defeitos do produto."
    ),
    "dados.txt": (
        "O tratamento de dados pessoais somente poderá ser realizado mediante o consentimento "
        "do titular.\n\nO controlador deverá manter registro das operações de tratamento."
    ),
}


def laws_folder(folder: Path) -> Path:
    """Three small text documents about concessions, consumers and personal data."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in LAWS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst
