"""`colmeia review run|export|screen` and `colmeia eval review` only read: a mistyped store
path, collection or review file is a one-line error, and nothing is created."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CSV = (
    "Titulo,Autor,Tipo,Defesa,Resumo,Keywords\n"
    '"Educação inclusiva na rede pública",Ana Souza,Dissertação,17/08/2021,'
    '"Esta dissertação analisa a formação docente para a educação inclusiva. '
    'Foram ouvidos quarenta professores.",educação inclusiva\n'
    '"Saneamento em municípios pequenos",Carlos Lima,Tese,2020,'
    '"A tese avalia políticas de saneamento. A gestão regional reduz custos.",saneamento\n'
)


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def works(colmeia_cli, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """A store with collection 'teses' (two works); returns the saved review of a question."""
    (tmp_path / "catalogo.csv").write_text(CSV, encoding="utf-8")
    code, out, err = colmeia_cli("review", "import", "catalogo.csv", "-c", "teses")
    assert code == 0, (out, err)
    code, out, err = colmeia_cli("review", "educação inclusiva", "-c", "teses", "--top", "2")
    assert code == 0, (out, err)
    return tmp_path / "home" / "reviews" / "last.json"


def _collections(colmeia_cli) -> list[str]:  # type: ignore[no-untyped-def]
    code, out, _ = colmeia_cli("collections", "--json")
    assert code == 0
    return [c["name"] for c in json.loads(out)]


def test_review_run_on_a_missing_store_or_collection_creates_nothing(
    colmeia_cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    before = _files(tmp_path)
    code, _, err = colmeia_cli("review", "educação", "-c", "teses", "--store", "nao/existe.db")
    assert code == 2
    assert "there is no store at nao/existe.db" in _one_line(err)
    assert _files(tmp_path) == before  # no store, no folder, no saved review


def test_review_run_on_a_mistyped_collection_creates_nothing(colmeia_cli, works: Path) -> None:  # type: ignore[no-untyped-def]
    works.unlink()
    code, _, err = colmeia_cli("review", "educação", "-c", "tesse")
    assert code == 2
    assert "no collection named 'tesse'" in _one_line(err)
    assert _collections(colmeia_cli) == ["teses"]
    assert not works.exists()


def test_eval_review_on_a_missing_store_or_collection_creates_nothing(
    colmeia_cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    before = _files(tmp_path)
    code, _, err = colmeia_cli("eval", "review", "-c", "teses", "--out", "avaliacao")
    assert code == 2
    assert f"there is no store at {tmp_path / 'home' / 'colmeia.db'}" in _one_line(err)
    assert _files(tmp_path) == before
    colmeia_cli("review", "import", str(_catalogue(tmp_path)), "-c", "teses")
    code, out, err = colmeia_cli("eval", "review", "-c", "tesse", "--out", "avaliacao")
    assert code == 2, out
    assert "no collection named 'tesse'" in _one_line(err)
    assert not (tmp_path / "avaliacao").exists()
    assert _collections(colmeia_cli) == ["teses"]


def _catalogue(tmp_path: Path) -> Path:
    path = tmp_path / "catalogo.csv"
    path.write_text(CSV, encoding="utf-8")
    return path


def test_review_export_of_a_mistyped_review_file_creates_nothing(
    colmeia_cli,  # type: ignore[no-untyped-def]
    works: Path,
    tmp_path: Path,
) -> None:
    code, _, err = colmeia_cli("review", "export", str(works.with_name("lats.json")), "r.csv")
    assert code == 2
    assert "lats.json is not a saved review" in _one_line(err)
    assert not (tmp_path / "r.csv").exists()
    code, out, _ = colmeia_cli("review", "export", str(works), "r.csv")  # the right name works
    assert code == 0, out
    assert "Educação inclusiva" in (tmp_path / "r.csv").read_text(encoding="utf-8")


def test_review_screen_of_a_mistyped_review_file_creates_nothing(
    colmeia_cli,  # type: ignore[no-untyped-def]
    works: Path,
) -> None:
    wrong = works.with_name("lats.json")
    code, _, err = colmeia_cli("review", "screen", str(wrong), "1", "--include")
    assert code == 2
    assert "lats.json is not a saved review" in _one_line(err)
    assert not wrong.exists()
    saved = works.read_bytes()
    code, _, err = colmeia_cli("review", "screen", str(works), "9", "--include")
    assert code == 2
    assert "9" in _one_line(err)
    assert works.read_bytes() == saved  # a failed decision leaves the review as it was
