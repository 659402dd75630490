"""Train the assistant's article ranker (``colmeia.apps.assistant.article_ranker``).

The training questions are GENERATED from the corpus itself (:func:`generated_questions`):
for each article of the nine shipped laws, a question built by templates from a few of the
words of its caput and of the headings it sits under, asked the way its text answers (a
deadline, who, a definition, or a plain "posso …?"), with some of the article's rarest
words left out — a lay question shares only part of the law's vocabulary. The gold is the
article the words came from. No evaluation set is read for training: the development lay set
(``data/assistant/lay_dev.jsonl``) only measures the result, and the frozen test set and the
formal ``laws`` set are never read here.

Each question runs through the assistant's own retrieval (lexical + dense with the default
embedder) and grading; every candidate article becomes a feature vector, and a linear model
is fitted listwise (softmax over a question's candidates, the gold article as the target,
L2-regularised) so that it learns to put the gold article first.

Prints ONE JSON line: hit@1 / hit@5 on the development set for the hand-set weights and the
learned ones, and the weights; ``--write`` saves them as the package's
``article_ranker.json``.
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
SEED = 32
# Templates by what the article states (its relation), filled with a phrase of its words.
_TEMPLATES = {
    "deadline": ("qual o prazo para {p}?", "em quanto tempo {p}?", "quanto tempo tenho para {p}?"),
    "who": ("quem {p}?", "quem é responsável por {p}?", "a quem cabe {p}?"),
    "definition": ("o que é {p}?", "o que a lei considera {p}?"),
    "amount": ("qual o valor de {p}?", "quanto {p}?"),
    "other": (
        "posso {p}?",
        "o que a lei diz sobre {p}?",
        "{p}?",
        "é permitido {p}?",
        "o que acontece se {p}?",
        "como funciona {p}?",
    ),
}
STEPS = 3000
RATE = 0.5


def _gold_keys(gold: list[GoldCitation]) -> set[str]:
    return {article_key(g.law, g.article) for g in gold}


Question = tuple[list[ArticleCandidate], set[str], list[str]]


async def _candidates(n_generated: int) -> tuple[list[Question], list[Question]]:
    """(generated training questions, development questions), each run through retrieval."""
    embedder = default_embedder(EmbeddingsSettings())
    dev, problems = load_questions(ROOT / "data" / "assistant" / "lay_dev.jsonl")
    if problems:
        raise SystemExit(f"unreadable questions: {problems}")
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "train.db"))
        ingest(store, "docs", [ROOT / "data" / "laws" / "lexml"], embedder=embedder)
        rag = RagPipeline(store, "docs", None, embedder=embedder, article_ranker=None)
        train = await _run(rag, generated_questions(store, "docs", n_generated))
        measured = await _run(rag, dev)
        store.close()
    return train, measured


async def _run(rag: RagPipeline, items: list[Any]) -> list[Question]:
    out = []
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
    return out


def generated_questions(store: Any, collection: str, n: int, seed: int = SEED) -> list[Any]:
    """``n`` questions written by templates from the collection's own articles (see the
    module's docstring), each with its article as gold."""
    import random
    import re

    from colmeia.apps.assistant.definitions import DefinitionIndex
    from colmeia.apps.assistant.evaluation import EvalItem
    from colmeia.apps.assistant.legal import parse_legal_path
    from colmeia.apps.assistant.relations import content_terms, states_relation

    rng = random.Random(seed)
    stats = DefinitionIndex.for_collection(store, collection)
    capita = [
        c
        for c in store.chunks(collection)
        if c.doc_id.endswith("_cpt") and c.chunk_id.endswith("#0")
    ]
    rng.shuffle(capita)
    items = []
    for chunk in capita:
        ref = parse_legal_path(chunk.path)
        # the ingestion moves LexML's "[ ementa | headings | ]" lead to the chunk's heading
        body = re.sub(r"\([^()]*\)", " ", chunk.text)
        headings = [h.strip() for h in chunk.heading.split(" > ") if h.strip()]
        words = [w for w in re.findall(r"[^\W\d_]{4,}", body) if content_terms(w)]
        if not ref.article or len(words) < 4:
            continue
        # the rarest third of the article's words is left out: a lay question lacks the law's
        # own terms of art
        rarity = sorted({content_terms(w)[0] for w in words}, key=stats.idf)
        rare = set(rarity[-max(len(rarity) // 3, 1) :])
        pool = [w for w in words if content_terms(w)[0] not in rare]
        if len(pool) < 2:
            continue
        picked = sorted(rng.sample(range(len(pool)), min(len(pool), rng.randint(2, 3))))
        phrase = " ".join(pool[i].lower() for i in picked)
        heading_words = [
            w.lower() for h in headings for w in re.findall(r"[^\W\d_]{4,}", h) if content_terms(w)
        ]
        if heading_words and rng.random() < 0.5:
            phrase += " " + rng.choice(heading_words)
        relation = next(
            (
                r
                for r in ("deadline", "who", "definition", "amount")
                if r != "definition" and states_relation(r, body)
            ),  # type: ignore[arg-type]
            "other",
        )
        if relation == "who" and rng.random() < 0.5:
            relation = "other"
        template = rng.choice(_TEMPLATES[relation])
        law = re.sub(r"\D", "", ref.law.split("/")[0]) or ref.law
        items.append(
            EvalItem(
                id=f"gen-{len(items)}",
                question=template.format(p=phrase),
                expected_agent="rag",
                gold=[GoldCitation(law=law, article=ref.article)],
            )
        )
        if len(items) >= n:
            break
    return items


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


def _learned_hits(questions: list[Question], w: np.ndarray) -> list[tuple[float, float]]:
    out = []
    for found, gold, _ in questions:
        scores = _matrix(found) @ w
        boost = np.array([c.features.get("boost", 0.0) for c in found])
        order = [found[j].key for j in np.argsort(-(scores + boost), kind="stable")]
        out.append(_hits(order, gold))
    return out


def _rates(hits: list[tuple[float, float]]) -> dict[str, float]:
    return {
        "hit_at_1": round(float(np.mean([h[0] for h in hits])), 4),
        "hit_at_5": round(float(np.mean([h[1] for h in hits])), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="save the weights in the package")
    parser.add_argument("--generated", type=int, default=400, help="training questions")
    args = parser.parse_args()
    train, dev = asyncio.run(_candidates(args.generated))
    data = [
        (_matrix(found), np.array([float(c.key in gold) for c in found]))
        for found, gold, _ in train
    ]
    w = fit(data)
    result = {
        "bench": "train_article_ranker",
        "generated_questions": len(train),
        "generated_gold_in_candidates": round(
            float(np.mean([bool({c.key for c in f} & g) for f, g, _ in train])), 4
        ),
        "dev_questions": len(dev),
        "dev_gold_in_candidates": round(
            float(np.mean([bool({c.key for c in f} & g) for f, g, _ in dev])), 4
        ),
        "hand_weights_dev": _rates([_hits(h, gold) for _, gold, h in dev]),
        "learned_dev": _rates(_learned_hits(dev, w)),
        "learned_generated_in_sample": _rates(_learned_hits(train, w)),
        "weights": {f: round(float(v), 4) for f, v in zip(FEATURES, w, strict=True)},
    }
    if args.write:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "trained_on": f"{len(train)} questions generated from the shipped laws "
            f"(seed {SEED}), bench/train_article_ranker.py",
            "weights": result["weights"],
            "bias": 0.0,
        }
        OUT.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
