"""The ranking's first articles with and without the model reranker, on a lay set.

    python bench/lay_rerank.py --set lay_dev --limit 25 --base-url http://127.0.0.1:18400/v1

Ingests the shipped laws (with the default offline embedder) into a temporary store, runs each
question through analyze → retrieve → grade twice — the ranking alone, then with
:class:`~colmeia.apps.assistant.article_choice.ModelArticleReranker` over the model at
``--base-url`` — and prints one JSON line: hit@1 / hit@5 of the gold article in the ranking,
both ways, and the seconds per model call. Only the first ``--limit`` questions (the server
may be shared). Development sets only: the frozen test set is not tuned on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from colmeia.apps.assistant.article_choice import ModelArticleReranker
from colmeia.apps.assistant.evaluation import load_questions
from colmeia.apps.assistant.legal import parse_legal_path
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.config import get_settings
from colmeia.eval.assistant import gold_rank
from colmeia.llm import OpenAIChatModel
from colmeia.rag.index.embedders import default_embedder
from colmeia.rag.pipeline import ingest
from colmeia.store import open_store

ROOT = Path(__file__).resolve().parents[1]


async def _ranks(rag: RagPipeline, items: list[Any]) -> list[int | None]:
    out: list[int | None] = []
    for item in items:
        state: dict[str, Any] = {"question": item.question}
        state.update(await rag.analyze(state))  # type: ignore[arg-type]
        state.update(await rag.retrieve(state))  # type: ignore[arg-type]
        state.update(await rag.grade(state))  # type: ignore[arg-type]
        cited = [parse_legal_path(h.citation.path).as_dict() for h in state["ranked"]]
        out.append(gold_rank(cited, item.gold))
    return out


def _hits(ranks: list[int | None], k: int) -> float:
    return round(sum(r is not None and r <= k for r in ranks) / len(ranks), 3)


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", default="lay_dev", choices=["lay_dev", "questions"])
    ap.add_argument("--limit", type=int, default=25)
    ap.add_argument("--base-url", default="http://127.0.0.1:18400/v1")
    ap.add_argument("--model", default="")
    args = ap.parse_args()
    items, _ = load_questions(ROOT / "data" / "assistant" / f"{args.set}.jsonl")
    items = [i for i in items if i.gold][: args.limit]
    embedder = default_embedder(get_settings().embeddings)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 'laws.db'}")
        ingest(store, "docs", [ROOT / "data" / "laws" / "lexml"], embedder=embedder)
        alone = await _ranks(RagPipeline(store, "docs", embedder=embedder), items)
        async with OpenAIChatModel(
            base_url=args.base_url, model=args.model or "local", timeout=300.0, deadline=600.0
        ) as model:
            started = time.perf_counter()
            rag = RagPipeline(
                store, "docs", model, embedder=embedder, model_reranker=ModelArticleReranker(model)
            )
            chosen = await _ranks(rag, items)
            seconds = (time.perf_counter() - started) / max(len(items), 1)
        store.close()
    print(
        json.dumps(
            {
                "set": args.set,
                "questions": len(items),
                "ranking": {"hit_at_1": _hits(alone, 1), "hit_at_5": _hits(alone, 5)},
                "with_model_reranker": {"hit_at_1": _hits(chosen, 1), "hit_at_5": _hits(chosen, 5)},
                "seconds_per_question": round(seconds, 1),
                "base_url": args.base_url,
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
