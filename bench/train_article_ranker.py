"""Train the assistant's article ranker (``colmeia.apps.assistant.article_ranker``).

The training questions are the lay questions shipped with colmeia for each article of the
laws and the Constitution (``colmeia/rag/index/data/lay_questions.jsonl``: written from each
article's text alone, never from an evaluation set; docs/rag.md). Those questions are also
what the search matches a question against (document expansion), so a question must not
find itself: the questions of every article are split in two halves, and each half is asked
of a collection expanded with the other half only (one process per half, since the expansion
is read once per process). The gold is the article the question was written for.

Each question runs through the assistant's own analysis, retrieval (lexical + dense with the
default embedder) and hand-set ranking; every candidate article becomes a feature vector —
the retrieval's signals, the hand-set ranking's place and score, how near the question the
article's passages and shipped questions lie — and a linear model is fitted listwise (softmax
over a question's candidates, the gold article as the target, L2-regularised) to put the gold
article first. It learns how much to trust each signal from 1,800 questions in varied words,
instead of weights set by hand on a development set of 124.

The development sets (``data/assistant/lay_dev.jsonl``, ``lay_dev2.jsonl`` and the formal
``questions.jsonl``) are asked of the fully expanded collection, as the assistant asks them,
and only measure the result; no frozen test set is read here.

Prints ONE JSON line: hit@1 / hit@5 per development set for the hand-set weights and the
learned ones, and the weights; ``--write`` saves them as the package's
``article_ranker.json``. About 15 minutes on two cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "colmeia" / "apps" / "assistant" / "data" / "article_ranker.json"
SHIPPED = ROOT / "src" / "colmeia" / "rag" / "index" / "data" / "lay_questions.jsonl"
DEV_SETS = {"lay-dev": "lay_dev.jsonl", "lay-dev2": "lay_dev2.jsonl", "laws": "questions.jsonl"}
L2 = 0.01
SEED = 32
STEPS = 2000
RATE = 0.5


def _articles() -> list[tuple[str, list[str]]]:
    rows = [json.loads(line) for line in SHIPPED.read_text(encoding="utf-8").splitlines() if line]
    return [(r["article"], list(r["questions"])) for r in rows if r["article"].startswith("urn:")]


def _halves(fold: int) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """(the expansion a collection gets: every article's questions of the other half,
    the questions asked: (article URN, question) of this half)."""
    expansion, asked = [], []
    for urn, questions in _articles():
        kept = [q for i, q in enumerate(questions) if i % 2 != fold]
        expansion.append({"article": urn, "questions": kept})
        asked += [(urn, q) for i, q in enumerate(questions) if i % 2 == fold]
    return expansion, asked


async def _collect(fold: int | None, per_article: int) -> list[dict[str, Any]]:
    """Run one half's questions (or, with ``fold`` None, the development sets) through
    retrieval and the hand-set ranking: each question's candidates, with their features."""
    from colmeia.apps.assistant.definitions import DefinitionIndex
    from colmeia.apps.assistant.evaluation import load_questions
    from colmeia.apps.assistant.legal import article_key
    from colmeia.apps.assistant.rag_agent import RagPipeline
    from colmeia.apps.assistant.rag_scores import grade_passage
    from colmeia.config import EmbeddingsSettings
    from colmeia.rag.index.embedders import default_embedder
    from colmeia.rag.pipeline import ingest
    from colmeia.store import open_store

    items: list[tuple[str, str, Any]] = []  # (set, question, gold test)
    if fold is None:
        for name, file in DEV_SETS.items():
            loaded, problems = load_questions(ROOT / "data" / "assistant" / file)
            if problems:
                raise SystemExit(f"unreadable questions: {problems}")
            for item in loaded:
                if item.gold:
                    keys = {article_key(g.law, g.article) for g in item.gold}
                    items.append((name, item.question, ("key", sorted(keys))))
    else:
        rng = random.Random(SEED + fold)
        by_article: dict[str, list[str]] = {}
        for urn, question in _halves(fold)[1]:
            by_article.setdefault(urn, []).append(question)
        for urn, questions in by_article.items():
            for question in rng.sample(questions, min(per_article, len(questions))):
                items.append((f"fold{fold}", question, ("urn", [urn])))
    embedder = default_embedder(EmbeddingsSettings())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "train.db"))
        laws = ROOT / "data" / "laws"
        ingest(store, "docs", [laws / "lexml", laws / "constituicao" / "lexml"], embedder=embedder)
        rag = RagPipeline(store, "docs", None, embedder=embedder, article_ranker=None)
        stats = DefinitionIndex.for_collection(store, "docs")
        for n, (name, question, (kind, gold)) in enumerate(items, start=1):
            state: dict[str, Any] = {"question": question, "query": question}
            state.update(await rag.analyze(state))  # type: ignore[arg-type]
            state.update(await rag.retrieve(state))  # type: ignore[arg-type]
            analysis = state.get("analysis", {})
            grades = {
                h.chunk_id: grade_passage(question, h, analysis, stats.idf) for h in state["hits"]
            }
            ranked, near, asked = rag.hand_ranking(state, grades)  # type: ignore[arg-type]
            found = rag.learned_candidates(state, grades, ranked, near, asked)  # type: ignore[arg-type]

            rows.append(
                {
                    "set": name,
                    "features": [c.features for c in found],
                    "gold": [_is_gold(c, kind, gold) for c in found],
                    "keys": [c.key for c in found],
                    "hand": [a.key for a in ranked],
                }
            )
            if n % 100 == 0:
                print(f"{name}: {n}/{len(items)}", file=sys.stderr, flush=True)
        store.close()
    return rows


def _is_gold(candidate: Any, kind: str, gold: list[str]) -> bool:
    """Whether a candidate is the question's gold: by article key (a development set's gold)
    or by the URN of the article the shipped question was written for."""
    from colmeia.rag.expansion import article_urn

    if kind == "key":
        return str(candidate.key) in gold
    return any(article_urn(h.doc_id) in gold for h in candidate.hits)


def _padded(rows: list[dict[str, Any]], features: tuple[str, ...]) -> tuple[Any, Any, Any]:
    width = max(len(r["features"]) for r in rows)
    x = np.zeros((len(rows), width, len(features)))
    y = np.zeros((len(rows), width))
    mask = np.zeros((len(rows), width), dtype=bool)
    for i, r in enumerate(rows):
        for j, f in enumerate(r["features"]):
            x[i, j] = [f.get(name, 0.0) for name in features]
        y[i, : len(r["gold"])] = r["gold"]
        mask[i, : len(r["gold"])] = True
    return x, y, mask


def fit(rows: list[dict[str, Any]], features: tuple[str, ...]) -> Any:
    """Listwise softmax regression: maximise the gold articles' share of each question."""
    usable = [r for r in rows if any(r["gold"])]
    x, y, mask = _padded(usable, features)
    target = y / y.sum(axis=1, keepdims=True)
    w = np.zeros(len(features))
    for _ in range(STEPS):
        s = np.where(mask, x @ w, -np.inf)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        grad = np.einsum("qc,qcf->f", p - target, x) / len(usable) + L2 * w
        w -= RATE * grad
    return w


def _hits(order: list[str], gold: set[str]) -> tuple[float, float]:
    rank = next((i for i, k in enumerate(order, 1) if k in gold), None)
    return float(rank == 1), float(rank is not None and rank <= 5)


def _rates(hits: list[tuple[float, float]]) -> dict[str, float]:
    return {
        "hit_at_1": round(float(np.mean([h[0] for h in hits])), 4),
        "hit_at_5": round(float(np.mean([h[1] for h in hits])), 4),
    }


def _learned_order(row: dict[str, Any], w: Any, features: tuple[str, ...]) -> list[str]:
    """The candidates' keys in the learned order (as ``ArticleRanker.rank`` orders them)."""
    from colmeia.apps.assistant.article_ranker import ArticleRanker

    ranker = ArticleRanker(dict(zip(features, map(float, w), strict=True)))
    scores = [ranker.score(f) for f in row["features"]]
    keyed = sorted(
        range(len(scores)), key=lambda j: (row["keys"][j].startswith("chunk:"), -scores[j], j)
    )
    return [row["keys"][j] for j in keyed]


def _measure(rows: list[dict[str, Any]], w: Any, features: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in sorted({r["set"] for r in rows}):
        part = [r for r in rows if r["set"] == name]
        golds = [{k for k, g in zip(r["keys"], r["gold"], strict=True) if g} for r in part]
        out[name] = {
            "questions": len(part),
            "hand": _rates([_hits(r["hand"], g) for r, g in zip(part, golds, strict=True)]),
            "learned": _rates(
                [_hits(_learned_order(r, w, features), g) for r, g in zip(part, golds, strict=True)]
            ),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="save the weights in the package")
    parser.add_argument("--per-article", type=int, default=1, help="questions asked per article")
    parser.add_argument("--work", help="keep the collected candidates in this folder (reused)")
    parser.add_argument("--collect", type=int, choices=(0, 1, 2), help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.collect is not None:  # a child process: one half, or (2) the development sets
        fold = None if args.collect == 2 else args.collect
        rows = asyncio.run(_collect(fold, args.per_article))
        Path(args.out).write_text(json.dumps(rows), encoding="utf-8")
        return
    from colmeia.apps.assistant.article_ranker import FEATURES

    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="ranker-"))
    work.mkdir(parents=True, exist_ok=True)
    children = []
    for part in (0, 1, 2):
        out = work / f"part{part}.json"
        if out.exists():
            continue
        env = dict(os.environ)
        if part < 2:
            file = work / f"expansion{part}.jsonl"
            expansion, _ = _halves(part)
            file.write_text(
                "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in expansion),
                encoding="utf-8",
            )
            env["COLMEIA_LAY_QUESTIONS"] = str(file)
        else:
            env.pop("COLMEIA_LAY_QUESTIONS", None)
        command = [sys.executable, __file__, "--collect", str(part), "--out", str(out)]
        command += ["--per-article", str(args.per_article)]
        children.append(subprocess.Popen(command, env=env))
    for child in children:
        if child.wait() != 0:
            raise SystemExit("collecting the candidates failed")
    train = json.loads((work / "part0.json").read_text()) + json.loads(
        (work / "part1.json").read_text()
    )
    dev = json.loads((work / "part2.json").read_text())
    w = fit(train, FEATURES)
    result = {
        "bench": "train_article_ranker",
        "training_questions": len(train),
        "training_gold_in_candidates": round(float(np.mean([any(r["gold"]) for r in train])), 4),
        "development": _measure(dev, w, FEATURES),
        "training_in_sample": _measure(train, w, FEATURES),
        "weights": {f: round(float(v), 4) for f, v in zip(FEATURES, w, strict=True)},
    }
    if args.write:
        payload = {
            "trained_on": f"{len(train)} of the shipped lay questions, each asked of a collection "
            f"expanded with the other half (seed {SEED}), bench/train_article_ranker.py",
            "weights": result["weights"],
            "bias": 0.0,
        }
        OUT.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
