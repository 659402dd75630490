"""Import time of the shipped corpora with the default embedder, beside words only and beside
the same import without the shipped vectors (what it cost before the vector seed).

Each run is the real CLI in a fresh process with an empty vector cache and an empty store:

- ``teses_words``: `colmeia review import data/theses/capes_resumos.csv -c teses --pdfs
  data/theses/pdfs` with ``COLMEIA_EMBEDDINGS_MODEL=none`` (no vectors);
- ``teses_default``: the same with the default embedder (offline e5) — the shipped seed serves
  the vectors of the shipped texts, the model embeds the rest;
- ``teses_no_seed``: the same with ``COLMEIA_VECTOR_SEED=off``: every text through the model
  (``--no-before`` skips it: ten minutes on two busy cores);
- with ``--laws``: ``leis_default`` (and ``leis_no_seed`` unless ``--no-before``), the README's
  `colmeia ingest data/laws/lexml/*.csv data/laws/constituicao/lexml/*.csv --collection leis`.

For each: wall seconds, CPU seconds (the child's user + system), texts the model embedded
(rows of the run's fresh vector cache) and the load average before and after (the host is
shared: a wall time means little without it). Prints ONE JSON line.

    .venv/bin/python bench/import_speed.py [--no-before] [--laws]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CLI = str(Path(sys.executable).with_name("colmeia"))
TESES = ["review", "import", "data/theses/capes_resumos.csv", "-c", "teses", "--pdfs",
         "data/theses/pdfs"]  # fmt: skip


def _leis() -> list[str]:
    files = sorted(glob.glob(str(ROOT / "data/laws/lexml/*.csv")))
    files += sorted(glob.glob(str(ROOT / "data/laws/constituicao/lexml/*.csv")))
    return ["ingest", *files, "--collection", "leis"]


def _run(argv: list[str], extra: dict[str, str]) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="colmeia-bench-import-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env.update(
        COLMEIA_HOME=str(work / "home"),
        COLMEIA_STORE=f"sqlite:///{work / 'store.db'}",
        COLMEIA_CACHE_DIR=str(work / "cache"),
        **extra,
    )
    load_before = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([CLI, *argv], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:2])} failed: {done.stderr.strip()[-500:]}")
    cache = work / "cache" / "vectors.sqlite"
    embedded = 0
    if cache.exists():
        with sqlite3.connect(cache) as db:
            embedded = int(db.execute("SELECT count(*) FROM vectors").fetchone()[0])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "texts_embedded": embedded,
        "load_before": round(load_before, 1),
        "load_after": round(os.getloadavg()[0], 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-before", action="store_true", help="skip the runs without seed")
    parser.add_argument("--laws", action="store_true", help="also the laws (README's tour)")
    args = parser.parse_args()
    out: dict[str, Any] = {"bench": "import_speed", "cores": os.cpu_count()}
    out["teses_words"] = _run(TESES, {"COLMEIA_EMBEDDINGS_MODEL": "none"})
    out["teses_default"] = _run(TESES, {})
    if not args.no_before:
        out["teses_no_seed"] = _run(TESES, {"COLMEIA_VECTOR_SEED": "off"})
    if args.laws:
        out["leis_words"] = _run(_leis(), {"COLMEIA_EMBEDDINGS_MODEL": "none"})
        out["leis_default"] = _run(_leis(), {})
        if not args.no_before:
            out["leis_no_seed"] = _run(_leis(), {"COLMEIA_VECTOR_SEED": "off"})
    out["target_s"] = 60
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
