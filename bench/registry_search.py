"""Finding a case by description in the synthetic registry (5,000 processes, 3,000
expedientes): the BM25 ranking (``SQLiteCaseRegistry.find``) beside the SQL LIKE search a user
would otherwise reach for (``SQLiteCaseRegistry.search``, every word ANDed as a substring).

Queries are what a person types about a random case: its subject's words and its town, lower
case, without accents, with filler ("nao sei o numero, e sobre …"). Prints ONE JSON line: the
index build time, milliseconds per query of each, and how often the case described is the
best-matching group (BM25: the cases holding the most words; the synthetic registry repeats
subject and town, so a group holds several) or among the LIKE results at all (a substring
search misses "convenio" typed for "convênio"). Asserts nothing about time.

    .venv/bin/python bench/registry_search.py [--queries 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import tempfile
import time
from pathlib import Path

from colmeia.apps.assistant.case_index import fold
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.synthetic import generate_registry


def _queries(reg: SQLiteCaseRegistry, n: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    _, cases = reg.search(kind="process", limit=100_000)
    out = []
    for c in rng.sample(cases, n):
        subject, _, town = c.subject.partition(" — ")
        words = [w for w in fold(subject).split() if len(w) > 3]
        picked = rng.sample(words, min(2, len(words)))
        place = fold(town.removeprefix("Prefeitura Municipal de "))
        out.append((c.number, f"nao sei o numero, e sobre {' '.join(picked)} em {place}"))
    return out


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        reg = SQLiteCaseRegistry(Path(tmp) / "registry.db")
        generate_registry(reg, processes=5000, expedientes=3000)
        queries = _queries(reg, args.queries, args.seed)
        t0 = time.perf_counter()
        await reg.find("merenda")
        build = time.perf_counter() - t0
        t0 = time.perf_counter()
        first = 0
        group_sizes = 0
        for number, text in queries:
            _, ranked = await reg.find(text, limit=1000)
            best = [
                c for c in ranked if (c.matched, c.phrase) == (ranked[0].matched, ranked[0].phrase)
            ]
            first += number in {c.number for c in best}
            group_sizes += len(best)
        bm25_ms = (time.perf_counter() - t0) * 1000 / len(queries)
        t0 = time.perf_counter()
        like_found = 0
        for number, text in queries:
            # the LIKE search ANDs nothing by itself: each content word as its own condition
            words = [w for w in text.split()[6:] if w != "em"]
            hits: set[str] | None = None
            for w in words:
                _, found = reg.search(w, limit=100_000)
                got = {c.number for c in found}
                hits = got if hits is None else hits & got
            like_found += number in (hits or set())
        like_ms = (time.perf_counter() - t0) * 1000 / len(queries)
        reg.close_sync()
    print(
        json.dumps(
            {
                "bench": "registry_search",
                "cases": 8000,
                "queries": len(queries),
                "bm25_index_build_s": round(build, 3),
                "bm25_ms_per_query": round(bm25_ms, 2),
                "bm25_described_case_in_best_group": round(first / len(queries), 3),
                "bm25_best_group_mean_size": round(group_sizes / len(queries), 1),
                "like_ms_per_query": round(like_ms, 2),
                "like_described_case_among_results": round(like_found / len(queries), 3),
                "loadavg_1m": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
