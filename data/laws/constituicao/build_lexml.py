"""Regenerate ``data/laws/lexml/constituicao_1988_19881005.csv`` and ``adct_1988_19881005.csv``
from the labelled CSV beside this script (run from the repository root):

    .venv/bin/python data/laws/constituicao/build_lexml.py

The output is committed, so the Constitution is ingested with the other norms of ``leis``.
"""

from __future__ import annotations

from pathlib import Path

from colmeia.rag.ingest.constitution import write_constitution_lexml

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    counts = write_constitution_lexml(HERE / "20200826_EMC108.csv", HERE.parent / "lexml")
    for stem, n in counts.items():
        print(f"{stem}.csv: {n} dispositivos")  # noqa: T201 - a maintenance script's report
