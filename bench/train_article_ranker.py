"""Train the assistant's article ranker (``colmeia.apps.assistant.article_ranker``).

The training questions are the development lay set (``data/assistant/lay_dev.jsonl``, gold
articles labelled by hand); the frozen test set and the formal ``laws`` set are never read
here. Each question runs through the assistant's own retrieval (the nine shipped laws, lexical
+ dense with the default embedder) and grading; every candidate article becomes a feature
vector, and a linear model is fitted listwise (softmax over a question's candidates, the
gold article as the target, L2-regularised) so that it learns to put the gold article first.

Prints ONE JSON line: 5-fold cross-validated hit@1 / hit@5 on the development set for the
hand-set weights and the learned ones, and the weights; ``--write`` saves them as the
package's ``article_ranker.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from colmeia.apps.assistant.article_ranker import FEATURES, ArticleCandidate
from colmeia.apps.assistant.evaluation import load_questions
from colmeia.apps.assistant.legal import article_key
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.config import EmbeddingsSettings
from colmeia.eval.assistant import GoldCitation
from colmeia.rag.index.embedders import default_embedder
from colmeia.rag.pipeline import ingest
from colmeia.store import open_store

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "colmeia" / "apps" / "assistant" / "data" / "article_ranker.json"
L2 = 0.05
STEPS = 3000
RATE = 0.5


def _gold_keys(gold: list[GoldCitation]) -> set[str]:
    return {article_key(g.law, g.article) for g in gold}


async def _candidates(set_name: str) -> list[tuple[list[ArticleCandidate], set[str], list[str]]]:
    embedder = default_embedder(EmbeddingsSettings())
    items, problems = load_questions(ROOT / "data" / "assistant" / set_name)
    if problems:
        raise SystemExit(f"unreadable questions: {problems}")
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "train.db"))
        ingest(store, "docs", [ROOT / "data" / "laws" / "lexml"], embedder=embedder)
        rag = RagPipeline(store, "docs", None, embedder=embedder, article_ranker=None)
        for item in items:
            if not item.gold:
                continue
            state: dict[str, Any] = {"question": item.question, "query": item.question}
            state.update(await rag.analyze(state))  # type: ignore[arg-type]
            state.update(await rag.retrieve(state))  # type: ignore[arg-type]
            graded = await rag.grade(state)  # type: ignore[arg-type]
            found, _ = rag.candidates(state, graded["grades"])  # type: ignore[arg-type]
            hand = [_article(h) for h in graded["ranked"]]
            out.append((found, _gold_keys(item.gold), hand))
        store.close()
    return out


def _article(hit: Any) -> str:
    from colmeia.apps.assistant.legal import parse_legal_path

    ref = parse_legal_path(hit.citation.path)
    return article_key(ref.law, ref.article) if ref.article else f"chunk:{hit.chunk_id}"


def _matrix(found: list[ArticleCandidate]) -> np.ndarray:
    return np.array([[c.features[f] for f in FEATURES] for c in found], dtype=np.float64)


def fit(data: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Listwise softmax regression: maximise the gold articles' share of each question."""
    w = np.zeros(len(FEATURES))
    usable = [(x, y) for x, y in data if y.any()]
    for _ in range(STEPS):
        grad = L2 * w
        for x, y in usable:
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            target = y / y.sum()
            grad += x.T @ (p - target) / len(usable)
        w -= RATE * grad
    return w


def _hits(order_keys: list[str], gold: set[str]) -> tuple[float, float]:
    rank = next((i for i, k in enumerate(order_keys, 1) if k in gold), None)
    return float(rank == 1), float(rank is not None and rank <= 5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="save the weights in the package")
    args = parser.parse_args()
    questions = asyncio.run(_candidates("lay_dev.jsonl"))
    data = [
        (_matrix(found), np.array([float(c.key in gold) for c in found]))
        for found, gold, _ in questions
    ]
    folds = 5
    learned = []
    for k in range(folds):
        train = [d for i, d in enumerate(data) if i % folds != k]
        w = fit(train)
        for i, (found, gold, _) in enumerate(questions):
            if i % folds != k:
                continue
            scores = data[i][0] @ w
            order = [found[j].key for j in np.argsort(-scores, kind="stable")]
            learned.append(_hits(order, gold))
    hand = [_hits(h, gold) for _, gold, h in questions]
    w = fit(data)
    result = {
        "bench": "train_article_ranker",
        "questions": len(questions),
        "gold_in_candidates": round(
            float(np.mean([bool(set(c.key for c in f) & g) for f, g, _ in questions])), 4
        ),
        "hand_weights_dev": {
            "hit_at_1": round(float(np.mean([h[0] for h in hand])), 4),
            "hit_at_5": round(float(np.mean([h[1] for h in hand])), 4),
        },
        "learned_dev_5fold": {
            "hit_at_1": round(float(np.mean([h[0] for h in learned])), 4),
            "hit_at_5": round(float(np.mean([h[1] for h in learned])), 4),
        },
        "weights": {f: round(float(v), 4) for f, v in zip(FEATURES, w, strict=True)},
    }
    if args.write:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "trained_on": "data/assistant/lay_dev.jsonl (development set), bench/train_article_ranker.py",
            "weights": result["weights"],
            "bias": 0.0,
        }
        OUT.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
