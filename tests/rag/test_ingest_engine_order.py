"""Every ingestion engine takes the files in their listed order, each exactly once: in this
process, in a memory-bounded child process (``memory_mb``) and in Ray tasks (``ray_workers``).
A user sees the order twice: the progress line names the files one after another, and when two
files carry a document with the same id the first file's is kept and the later one is the
duplicate in the report. Results taken back as they finish would keep whichever came first."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from colmeia.rag.pipeline import IngestProgress, IngestReport, ingest
from colmeia.store import open_store


def _folder(tmp_path: Path) -> Path:
    """Nine files in a known order; ``a_first.csv`` and ``z_last.csv`` both hold id 'lei-1'.

    The first files are the longest, so a parallel engine finishes the later ones first."""
    folder = tmp_path / "corpus"
    folder.mkdir(parents=True)
    for name, text in (("a_first.csv", "texto da primeira versão"), ("z_last.csv", "outra")):
        with (folder / name).open("w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["id", "texto"])
            w.writerow(["lei-1", f"Art. 1º O prazo é de dez dias, {text}."])
            w.writerow([f"{name[:1]}-2", f"Art. 2º Outro artigo, de {name}."])
    for i in range(7):
        paragraph = f"Parágrafo {i} sobre licitações, contratos e prazos de recurso. "
        (folder / f"m_{i}.txt").write_text(
            f"Documento {i}\n\n" + paragraph * (40 * (7 - i)), encoding="utf-8"
        )
    return folder


def _run(
    tmp_path: Path, name: str, **engine: Any
) -> tuple[IngestReport, list[Any], dict[str, str]]:
    folder = _folder(tmp_path / name)
    store = open_store(f"sqlite:///{tmp_path / name / 'store.db'}")
    ticks: list[IngestProgress] = []
    try:
        report = ingest(
            store, "leis", [folder], progress=ticks.append, relative_to=folder, **engine
        )
        texts = {c.doc_id: c.text for c in store.chunks("leis") if c.doc_id == "lei-1"}
    finally:
        store.close()
    seen = [(t.files_done, Path(t.current).name) for t in ticks if t.current]
    return report, seen, texts


FILES = ["a_first.csv", *(f"m_{i}.txt" for i in range(7)), "z_last.csv"]


def _check(report: IngestReport, seen: list[Any], texts: dict[str, str]) -> None:
    assert seen == list(enumerate(FILES, start=1))
    assert [(Path(e.source).name, e.reason) for e in report.errors] == [
        ("z_last.csv", "duplicate id 'lei-1'")
    ]
    assert report.added == 7 + 2 + 1  # each text file, each CSV's own row, lei-1 once
    assert "primeira versão" in texts["lei-1"]


def test_an_ingestion_in_this_process_takes_the_files_in_order_once_each(tmp_path: Path) -> None:
    _check(*_run(tmp_path, "local"))


def test_an_ingestion_in_a_bounded_child_process_takes_the_files_in_order_once_each(
    tmp_path: Path,
) -> None:
    _check(*_run(tmp_path, "bounded", memory_mb=1024))


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_an_ingestion_on_ray_takes_the_files_in_order_once_each(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'colmeia[ray]')")
    _check(*_run(tmp_path, "ray", ray_workers=2))
