"""Regenerate ``data/laws/constituicao/lexml/constituicao_1988_19881005.csv`` and
``adct_1988_19881005.csv``
from the labelled CSV beside this script (run from the repository root):

    .venv/bin/python data/laws/constituicao/build_lexml.py

The output is committed; ``colmeia ingest data/laws/lexml data/laws/constituicao/lexml --collection
leis`` ingests it with the other norms.
"""

from __future__ import annotations

from pathlib import Path

from colmeia.rag.ingest.constitution import write_constitution_lexml

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    counts = write_constitution_lexml(HERE / "20200826_EMC108.csv", HERE / "lexml")
    for stem, n in counts.items():
        print(f"{stem}.csv: {n} dispositivos")  # noqa: T201 - a maintenance script's report
