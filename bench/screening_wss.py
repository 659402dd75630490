"""Active-learning screening measured as ASReview does: work saved over sampling (WSS@95).

A screening is simulated on a labelled set: the shipped CAPES catalogue (171 works,
``data/theses/capes_resumos.csv``) labelled by its graduate program, which the screening
queue never sees (it learns from title, abstract and keywords only):

- ``educacao``: include the works of Education programs (Educação, Educação Matemática…: 50
  of 171);
- ``historia``: include the works of History programs (History, Social History, History
  Teaching…: 20 of 171).

Each run starts, as ASReview's simulations do, from one random inclusion and one random
exclusion (prior knowledge), then screens the queue's first work, records the label as the
decision, and asks the queue again, until every work is screened. WSS@95 is the share of the
catalogue left unread when 95 % of the inclusions have been found, minus the 5 % allowed to be
missed: ``(N - read) / N - 0.05``; random order gives 0 on average (simulated beside it with
the same seeds). Also the recall after reading 10 % of the catalogue (RRF@10).

The labels are the catalogue's own metadata, not a reviewer's judgement on a question; they
measure whether the queue learns a criterion from decisions, on text it does not see labelled.

Prints ONE JSON line.

    .venv/bin/python bench/screening_wss.py [--seeds 3]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from statistics import mean, stdev

ROOT = Path(__file__).resolve().parents[1]
CAPES = ROOT / "data" / "theses" / "capes_resumos.csv"

CRITERIA = {
    "educacao": lambda program: program.startswith("educa"),
    "historia": lambda program: "historia" in program,
}


def _fold(text: str) -> str:
    import unicodedata

    text = unicodedata.normalize("NFKD", " ".join(text.lower().split()))
    return "".join(c for c in text if not unicodedata.combining(c))


def _wss(order: list[str], relevant: set[str], recall: float = 0.95) -> tuple[float, float]:
    """WSS@recall and the recall after 10 % read, for a reading order."""
    need = math.ceil(recall * len(relevant))
    found = 0
    read_at = len(order)
    for i, doc in enumerate(order, start=1):
        found += doc in relevant
        if found >= need:
            read_at = i
            break
    tenth = math.ceil(0.10 * len(order))
    rrf = sum(1 for d in order[:tenth] if d in relevant) / len(relevant)
    return (len(order) - read_at) / len(order) - (1 - recall), rrf


def _simulate(store, collection: str, relevant: set[str], seed: int) -> list[str]:  # type: ignore[no-untyped-def]
    from colmeia.apps.literature.screening import ScreeningLog, screening_queue

    ids = sorted(d.doc_id for d in store.documents(collection))
    rng = random.Random(seed)
    log = ScreeningLog(collection)
    priors = [rng.choice(sorted(relevant)), rng.choice(sorted(set(ids) - relevant))]
    order = []
    for doc in priors:
        log.decide(doc, "include" if doc in relevant else "exclude", "fora do critério")
        order.append(doc)
    while True:
        queue = screening_queue(store, collection, log, 1)
        if not queue:
            return order
        doc = queue[0].doc_id
        log.decide(doc, "include" if doc in relevant else "exclude", "fora do critério")
        order.append(doc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    from colmeia.apps.literature import import_library
    from colmeia.apps.literature.records import load_records
    from colmeia.store import open_store

    with CAPES.open(encoding="utf-8") as f:
        programs = [_fold(r["Programa"]) for r in csv.DictReader(f)]
    records = load_records([CAPES]).records
    assert len(records) == len(programs), "one record per catalogue row"
    out: dict[str, object] = {"bench": "screening_wss", "works": len(records)}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 's.db'}", cache_dir=Path(tmp))
        import_library(store, "capes", [CAPES])
        for name, rule in CRITERIA.items():
            relevant = {r.id for r, p in zip(records, programs, strict=True) if rule(p)}
            ours, rand, rrf_ours, rrf_rand = [], [], [], []
            for seed in range(args.seeds):
                order = _simulate(store, "capes", relevant, seed)
                w, r = _wss(order, relevant)
                ours.append(w)
                rrf_ours.append(r)
                shuffled = sorted(order)
                random.Random(seed).shuffle(shuffled)
                w, r = _wss(shuffled, relevant)
                rand.append(w)
                rrf_rand.append(r)
            out[name] = {
                "included": len(relevant),
                "wss@95_active_learning": f"{mean(ours):.3f} ± {stdev(ours) if len(ours) > 1 else 0:.3f}",
                "wss@95_random_order": f"{mean(rand):.3f} ± {stdev(rand) if len(rand) > 1 else 0:.3f}",
                "rrf@10_active_learning": round(mean(rrf_ours), 3),
                "rrf@10_random_order": round(mean(rrf_rand), 3),
            }
        store.close()
    out["seeds"] = args.seeds
    out["seconds"] = round(time.perf_counter() - started, 1)
    out["load_avg"] = [round(x, 1) for x in os.getloadavg()]
    sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
