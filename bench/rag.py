"""RAG search at scale: 1,000,000 synthetic Portuguese-like chunks.

Prints ONE JSON line: lexical index build rate (chunks/s, text generation excluded), peak RSS
after building the lexical index, lexical and hybrid (BM25 + FAISS HNSW, RRF) search latency
percentiles. Query vectors are random (no embedding HTTP call). Asserts nothing.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections.abc import Iterator

import numpy as np

from colmeia.rag.index.dense import DenseIndex
from colmeia.rag.index.lexical import LexicalIndex
from colmeia.rag.retrieve import DEFAULT_LEXICAL, rrf_fuse

N_CHUNKS = int(os.environ.get("BENCH_RAG_CHUNKS", "1000000"))
WORDS_PER_CHUNK = (40, 110)
VOCAB = 60_000
DIM = 64
HNSW_M = 8
HNSW_EF_CONSTRUCTION = 24
N_QUERIES = 300
SEED = 7

_SYLLABLES = [
    "ca",
    "de",
    "ção",
    "pre",
    "li",
    "ci",
    "ta",
    "men",
    "to",
    "ra",
    "co",
    "na",
    "vo",
    "sa",
    "ri",
    "te",
    "da",
    "pro",
    "con",
    "es",
    "tra",
    "ões",
    "ais",
    "ado",
    "ida",
    "gu",
    "ber",
    "no",
    "mi",
    "nis",
    "tu",
    "ral",
    "lei",
    "ar",
    "ti",
    "go",
    "pa",
    "gra",
    "fo",
    "in",
    "so",
    "al",
    "ne",
    "su",
    "mu",
    "la",
    "ac",
    "or",
    "dao",
    "tri",
    "bu",
    "nal",
    "con",
    "tas",
    "pu",
    "bli",
    "ca",
    "ad",
    "mi",
    "ção",
    "re",
    "gi",
    "me",
    "ju",
    "di",
    "cial",
]
_STOP = [
    "a",
    "o",
    "de",
    "da",
    "do",
    "das",
    "dos",
    "e",
    "em",
    "no",
    "na",
    "para",
    "por",
    "com",
    "que",
    "se",
    "um",
    "uma",
    "ao",
    "os",
    "as",
    "pelo",
    "pela",
    "sobre",
    "entre",
    "quando",
    "como",
    "mais",
    "ou",
]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _vocabulary(rng: np.random.Generator) -> np.ndarray:
    words: set[str] = set()
    while len(words) < VOCAB:
        n = int(rng.integers(2, 5))
        words.add("".join(rng.choice(_SYLLABLES, n)))
    return np.array(sorted(words), dtype=object)


def _zipf_probs(n: int, s: float = 1.07) -> np.ndarray:
    p = 1.0 / np.arange(1, n + 1) ** s
    return p / p.sum()


class _Texts:
    """Generates chunk texts block by block and keeps the time spent generating."""

    def __init__(self, vocab: np.ndarray, n: int, seed: int) -> None:
        self.vocab = vocab
        self.stop = np.array(_STOP, dtype=object)
        self.n = n
        self.seed = seed
        self.gen_seconds = 0.0
        self.gen_cpu_seconds = 0.0
        self.cdf = np.cumsum(_zipf_probs(len(vocab)))

    def __iter__(self) -> Iterator[str]:
        rng = np.random.default_rng(self.seed)
        block = 20_000
        for start in range(0, self.n, block):
            t0 = time.perf_counter()
            c0 = time.process_time()
            m = min(block, self.n - start)
            lens = rng.integers(*WORDS_PER_CHUNK, size=m)
            total = int(lens.sum())
            content = np.searchsorted(self.cdf, rng.random(total))
            content = np.minimum(content, len(self.vocab) - 1)
            words = self.vocab[content]
            is_stop = rng.random(total) < 0.35
            words[is_stop] = self.stop[rng.integers(0, len(self.stop), int(is_stop.sum()))]
            bounds = np.concatenate([[0], np.cumsum(lens)])
            texts = [" ".join(words[bounds[i] : bounds[i + 1]]) for i in range(m)]
            self.gen_seconds += time.perf_counter() - t0
            self.gen_cpu_seconds += time.process_time() - c0
            yield from texts


def _queries(vocab: np.ndarray, rng: np.random.Generator) -> list[str]:
    # Query words drawn from the frequent-to-mid part of the vocabulary, like real queries.
    probs = _zipf_probs(len(vocab), 0.8)
    out = []
    for _ in range(N_QUERIES):
        n = int(rng.integers(2, 7))
        out.append(" ".join(vocab[rng.choice(len(vocab), n, p=probs)]))
    return out


def _log(message: str) -> None:
    sys.stderr.write(f"[bench/rag] {message}\n")
    sys.stderr.flush()


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(np.asarray(values) * 1000, q)), 2)


def main() -> None:
    rng = np.random.default_rng(SEED)
    vocab = _vocabulary(rng)
    texts = _Texts(vocab, N_CHUNKS, SEED)
    rss_before = _rss_mb()
    t0 = time.perf_counter()
    c0 = time.process_time()
    index = LexicalIndex.build(texts, DEFAULT_LEXICAL)
    total = time.perf_counter() - t0
    # The build is single-threaded: CPU time is what an idle core would take (the wall time
    # also counts waiting for a busy machine).
    cpu_s = time.process_time() - c0 - texts.gen_cpu_seconds
    build_s = total - texts.gen_seconds
    rss_lexical = _rss_mb()
    _log(f"lexical index: {build_s:.1f}s, peak RSS {rss_lexical:.0f} MB")
    queries = _queries(vocab, rng)
    for q in queries[:10]:
        index.search(q, 100)
    lex_times = []
    for q in queries:
        t = time.perf_counter()
        index.search(q, 100)
        lex_times.append(time.perf_counter() - t)

    t = time.perf_counter()
    vectors = rng.standard_normal((N_CHUNKS, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    dense = DenseIndex.build(
        vectors, hnsw_m=HNSW_M, ef_construction=HNSW_EF_CONSTRUCTION, ef_search=100
    )
    del vectors
    dense_build_s = time.perf_counter() - t
    _log(f"HNSW index: {dense_build_s:.1f}s")
    qvecs = rng.standard_normal((N_QUERIES, DIM), dtype=np.float32)
    qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
    hyb_times = []
    for q, v in zip(queries, qvecs, strict=True):
        t = time.perf_counter()
        lex_pos, _ = index.search(q, 100)
        dense_pos, _ = dense.search(v, 100)
        rrf_fuse([lex_pos.tolist(), dense_pos.tolist()])[:10]
        hyb_times.append(time.perf_counter() - t)

    print(
        json.dumps(
            {
                "bench": "rag",
                "chunks": N_CHUNKS,
                "postings": index.postings,
                "vocabulary": len(index.vocab),
                "lexical_build_s": round(build_s, 2),
                "lexical_build_chunks_per_s": round(N_CHUNKS / build_s),
                "lexical_build_cpu_s": round(cpu_s, 2),
                "lexical_build_chunks_per_cpu_s": round(N_CHUNKS / cpu_s),
                "text_generation_s": round(texts.gen_seconds, 2),
                "rss_mb_before_index": round(rss_before),
                "peak_rss_mb_after_lexical_index": round(rss_lexical),
                "lexical_p50_ms": _pct(lex_times, 50),
                "lexical_p95_ms": _pct(lex_times, 95),
                "dense_hnsw_build_s": round(dense_build_s, 2),
                "hybrid_p50_ms": _pct(hyb_times, 50),
                "hybrid_p95_ms": _pct(hyb_times, 95),
                "peak_rss_mb": round(_rss_mb()),
                "cores": os.cpu_count(),
                "load_avg_1m": round(os.getloadavg()[0], 2),
                "python": sys.version.split()[0],
            }
        )
    )


if __name__ == "__main__":
    main()
