"""Lexical (BM25) index for Portuguese text: accent-insensitive, stemmed, stopword-free.

The analyser folds accents *before* stemming, so "licitacao" and "licitação" become the same
token; the Portuguese Snowball stemmer (PyStemmer) and the Portuguese stopword list come from
bm25s/PyStemmer (the list is copied in ``stopwords_pt.py``, so a search never imports bm25s). Scoring uses bm25s's BM25 formulas (term-frequency and IDF components), but
the index is built with vectorised numpy (bm25s builds token by token in Python, which is two
orders of magnitude slower at a million chunks) and kept in the same layout bm25s uses: one
CSC matrix of precomputed term scores (``data``/``indices``/``indptr`` per term), so a query
is a handful of slice additions and a partial sort.

Query-side, adjacent query terms are also looked up as bigrams (indexed alongside unigrams
with a smaller weight), which rewards passages that keep the query's phrases together.
"""

from __future__ import annotations

import itertools
import json
import re
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import Stemmer

from colmeia.rag.index.stopwords_pt import STOPWORDS_PORTUGUESE

__all__ = ["Analyzer", "LexicalConfig", "LexicalIndex", "fold_accents"]

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int32]

_FORMAT_VERSION = 3
# Thousands separators inside numbers ("8.666/1993") would split a law number in two.
_WORD = re.compile(r"[^\W_]+(?:\.\d{3})*")


def _fold_char(c: str) -> str:
    decomposed = unicodedata.normalize("NFKD", c)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


# Precomputed for the Latin ranges that matter; ``str.translate`` is far faster than NFKD.
_FOLD_TABLE = {
    cp: _fold_char(chr(cp)) for cp in range(0xA0, 0x250) if _fold_char(chr(cp)) != chr(cp)
}


def fold_accents(text: str) -> str:
    """Lower-case and strip diacritics: "Licitação" → "licitacao"."""
    return text.lower().translate(_FOLD_TABLE)


def _reaccent(word: str) -> str:
    """Give a folded word back the nasal ending the stemmer needs: "licitacoes" → "licitação".

    Folding first makes typed-without-accents queries match, but the Snowball stemmer only
    conflates -ção/-ções (and -ão/-ões/-ães) when it sees the tilde; plurals are mapped to the
    singular for the same reason ("concessões" and "concessão" stem differently otherwise).
    """
    if len(word) > 4 and word.endswith(("oes", "aes")):
        word = word[:-3] + "ao"
    if len(word) > 4 and word.endswith("cao"):
        return word[:-3] + "ção"
    if len(word) > 3 and word.endswith("ao"):
        return word[:-2] + "ão"
    return word


@dataclass(frozen=True, slots=True)
class LexicalConfig:
    """How text is analysed and scored. Saved with the index; a mismatch means rebuild."""

    k1: float = 1.2
    b: float = 0.75
    method: str = "lucene"  # any bm25s variant: robertson, lucene, atire, bm25l, bm25+
    delta: float = 0.5
    stem: bool = True
    stopwords: bool = True
    bigram_weight: float = 0.0  # 0 disables bigram tokens

    def key(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


class Analyzer:
    """Text → tokens: fold accents, split words, drop stopwords, stem (cached per word)."""

    def __init__(self, *, stem: bool = True, stopwords: bool = True) -> None:
        self._stemmer = Stemmer.Stemmer("portuguese") if stem else None
        self._stop = (
            frozenset(fold_accents(w) for w in STOPWORDS_PORTUGUESE) if stopwords else frozenset()
        )
        self._cache: dict[str, str] = {}

    def _term(self, word: str) -> str:
        term = self._cache.get(word)
        if term is None:
            if word in self._stop:
                term = ""
            elif self._stemmer is not None and not word[0].isdigit():
                term = fold_accents(self._stemmer.stemWord(_reaccent(word)))
            else:
                term = word.replace(".", "")
            self._cache[word] = term
        return term

    def words(self, text: str) -> list[str]:
        """The folded words of ``text``, stopwords included (split first, as when indexing)."""
        return [fold_accents(w) for w in _WORD.findall(text)]  # fold_accents lower-cases

    def tokens(self, text: str) -> list[str]:
        """The index terms of ``text`` (stopwords removed, stemmed), in order."""
        term = self._term
        return [t for t in map(term, self.words(text)) if t]


_BIGRAM_BITS = 22  # bigrams are hashed into 4M buckets: no vocabulary to grow or store
_BIGRAM_MULT = np.uint64(0x9E3779B97F4A7C15)


def _bigram_buckets(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    key = (a.astype(np.uint64) << np.uint64(32)) | b.astype(np.uint64)
    with np.errstate(over="ignore"):
        return ((key * _BIGRAM_MULT) >> np.uint64(64 - _BIGRAM_BITS)).astype(np.int64)


@dataclass(slots=True)
class _Postings:
    """One CSC matrix of precomputed BM25 term scores: postings of term ``t`` are
    ``indices[indptr[t]:indptr[t+1]]`` (passage positions, ascending) with ``data`` scores.

    ``keys`` (sorted), when set, lists the term ids that have postings and ``t`` is looked up
    there first: hashed bigrams use it, so a collection stores a pointer per bigram it holds
    instead of one per hash bucket (4M buckets were 33 MB for even a one-line collection).
    """

    data: FloatArray
    indices: IntArray
    indptr: npt.NDArray[np.int64]
    keys: npt.NDArray[np.int64] | None = None

    def add_to(self, scores: FloatArray, term: int, weight: float) -> None:
        if self.keys is not None:
            at = int(np.searchsorted(self.keys, term))
            if at >= len(self.keys) or int(self.keys[at]) != term:
                return
            term = at
        sl = slice(int(self.indptr[term]), int(self.indptr[term + 1]))
        # Each passage appears once per term's postings, so fancy-index += is exact.
        if weight == 1.0:
            scores[self.indices[sl]] += self.data[sl]
        else:
            scores[self.indices[sl]] += self.data[sl] * np.float32(weight)


class _BlockSpill:
    """(term, passage, tf) triples of one block of passages, spilled to disk to bound memory."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.files: list[Path] = []

    def add(self, terms: IntArray, docs: IntArray, tf: npt.NDArray[np.uint16]) -> None:
        path = self.folder / f"b{len(self.files)}.npz"
        np.savez(path, terms=terms, docs=docs, tf=tf)
        self.files.append(path)

    def blocks(self) -> Iterator[tuple[IntArray, IntArray, npt.NDArray[np.uint16]]]:
        for path in self.files:
            with np.load(path) as z:
                yield z["terms"], z["docs"], z["tf"]


def _unique_pairs(
    terms: npt.NDArray[np.int64], docs: npt.NDArray[np.int64], n: int, first_doc: int
) -> tuple[IntArray, IntArray, npt.NDArray[np.uint16]]:
    keys, tf = np.unique(terms * n + docs, return_counts=True)
    return (
        (keys // n).astype(np.int32),
        (keys % n + first_doc).astype(np.int32),
        np.minimum(tf, 65535).astype(np.uint16),
    )


class LexicalIndex:
    """BM25 over a fixed list of passages; positions in that list are the results."""

    def __init__(
        self,
        config: LexicalConfig,
        vocab: dict[str, int],
        unigrams: _Postings,
        bigrams: _Postings | None,
        num_docs: int,
    ) -> None:
        self.config = config
        self.vocab = vocab
        self.unigrams = unigrams
        self.bigrams = bigrams
        self.num_docs = num_docs
        self.analyzer = Analyzer(stem=config.stem, stopwords=config.stopwords)

    @property
    def postings(self) -> int:
        """Number of stored (term, passage) scores."""
        return len(self.unigrams.data) + (len(self.bigrams.data) if self.bigrams else 0)

    # ------------------------------------------------------------------ build
    @classmethod
    def build(
        cls,
        texts: Iterable[str],
        config: LexicalConfig | None = None,
        *,
        block_size: int = 25_000,
    ) -> LexicalIndex:
        """Index ``texts`` (consumed once). Postings of each block of passages are spilled to
        a temporary folder, so peak memory is about the size of the final index."""
        config = config or LexicalConfig()
        analyzer = Analyzer(stem=config.stem, stopwords=config.stopwords)
        vocab: dict[str, int] = {}
        # Whitespace-split token (as written) → its term ids. Splitting on whitespace first and
        # running the word regex once per distinct token is ~3x faster than a regex over every
        # text, and gives the same words: no word match spans whitespace.
        token_ids: dict[str, tuple[int, ...]] = {}
        use_bigrams = config.bigram_weight > 0
        doc_lens: list[npt.NDArray[np.int32]] = []

        def learn(tokens: list[str]) -> None:
            for tok in tokens:
                if tok not in token_ids:
                    terms = [t for t in map(analyzer._term, analyzer.words(tok)) if t]
                    token_ids[tok] = tuple(vocab.setdefault(t, len(vocab)) for t in terms)

        with tempfile.TemporaryDirectory(prefix="colmeia-bm25-") as tmp:
            uni_spill = _BlockSpill(Path(tmp))
            bi_spill = _BlockSpill(Path(tmp) / "bi")
            bi_spill.folder.mkdir()
            get = token_ids.__getitem__
            chain = itertools.chain.from_iterable
            buf_ids: list[int] = []
            buf_lens: list[int] = []
            n_docs = 0

            def flush() -> None:
                n = len(buf_lens)
                ids = np.asarray(buf_ids, np.int64)
                lens = np.asarray(buf_lens, np.int64)
                docs = np.repeat(np.arange(n, dtype=np.int64), lens)
                doc_lens.append(lens.astype(np.int32))
                first = n_docs - n
                uni_spill.add(*_unique_pairs(ids, docs, n, first))
                if use_bigrams and len(ids) > 1:
                    same = docs[:-1] == docs[1:]
                    buckets = _bigram_buckets(ids[:-1][same], ids[1:][same])
                    bi_spill.add(*_unique_pairs(buckets, docs[:-1][same], n, first))

            for text in texts:
                tokens = text.split()
                try:
                    ids = list(chain(map(get, tokens)))
                except KeyError:
                    learn(tokens)
                    ids = list(chain(map(get, tokens)))
                buf_ids.extend(ids)
                buf_lens.append(len(ids))
                n_docs += 1
                if len(buf_lens) >= block_size:
                    flush()
                    buf_ids, buf_lens = [], []
            if buf_lens:
                flush()
            lens = (
                np.concatenate(doc_lens).astype(np.float32) if doc_lens else np.zeros(0, np.float32)
            )
            uni = _assemble(config, uni_spill, len(vocab), lens, n_docs)
            bi = _assemble(config, bi_spill, 0, lens, n_docs, sparse=True) if use_bigrams else None
        return cls(config, vocab, uni, bi, n_docs)

    # ------------------------------------------------------------------ query
    def query_terms(self, query: str) -> list[tuple[int, float]]:
        """Unigram term ids of ``query`` with their weights (a repeated term counts more)."""
        weights: dict[int, float] = {}
        for t in self.analyzer.tokens(query):
            tid = self.vocab.get(t)
            if tid is not None:
                weights[tid] = weights.get(tid, 0.0) + 1.0
        return list(weights.items())

    def _query_bigrams(self, query: str) -> list[int]:
        ids = [self.vocab.get(t, -1) for t in self.analyzer.tokens(query)]
        pairs = [(a, b) for a, b in itertools.pairwise(ids) if a >= 0 and b >= 0]
        if not pairs:
            return []
        a = np.asarray([p[0] for p in pairs], np.int64)
        b = np.asarray([p[1] for p in pairs], np.int64)
        return sorted(set(_bigram_buckets(a, b).tolist()))

    def has_terms(self, query: str) -> bool:
        """Whether the query has anything to search for once analysed."""
        return bool(self.analyzer.tokens(query))

    def scores(self, query: str) -> FloatArray:
        """BM25 score of every passage for ``query``."""
        scores = np.zeros(self.num_docs, np.float32)
        for tid, weight in self.query_terms(query):
            self.unigrams.add_to(scores, tid, weight)
        if self.bigrams is not None:
            for bucket in self._query_bigrams(query):
                self.bigrams.add_to(scores, bucket, self.config.bigram_weight)
        return scores

    def search(
        self, query: str, k: int = 10, mask: npt.NDArray[np.bool_] | None = None
    ) -> tuple[IntArray, FloatArray]:
        """Top ``k`` passage positions and scores (ties broken by position; zeros dropped)."""
        scores = self.scores(query)
        if mask is not None:
            scores[~mask] = 0.0
        return top_k(scores, k)

    # ------------------------------------------------------------------ files
    def save(self, folder: Path) -> None:
        """Write the index to ``folder`` (created if needed)."""
        folder.mkdir(parents=True, exist_ok=True)
        for name, p in (("uni", self.unigrams), ("bi", self.bigrams)):
            if p is None:
                continue
            np.save(folder / f"{name}_data.npy", p.data)
            np.save(folder / f"{name}_indices.npy", p.indices)
            np.save(folder / f"{name}_indptr.npy", p.indptr)
            if p.keys is not None:
                np.save(folder / f"{name}_keys.npy", p.keys)
        meta: dict[str, Any] = {
            "format": _FORMAT_VERSION,
            "config": asdict(self.config),
            "num_docs": self.num_docs,
            "bigrams": self.bigrams is not None,
        }
        (folder / "vocab.json").write_text(json.dumps(self.vocab), encoding="utf-8")
        (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> LexicalIndex | None:
        """Read an index written by :meth:`save`; ``None`` if absent or of another format."""
        try:
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
            if meta.get("format") != _FORMAT_VERSION:
                return None
            vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))

            def postings(name: str) -> _Postings:
                keys = folder / f"{name}_keys.npy"
                return _Postings(
                    np.load(folder / f"{name}_data.npy", mmap_mode="r"),
                    np.load(folder / f"{name}_indices.npy", mmap_mode="r"),
                    np.load(folder / f"{name}_indptr.npy"),
                    np.load(keys) if keys.exists() else None,
                )

            return cls(
                LexicalConfig(**meta["config"]),
                vocab,
                postings("uni"),
                postings("bi") if meta.get("bigrams") else None,
                int(meta["num_docs"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None


def _assemble(
    config: LexicalConfig,
    spill: _BlockSpill,
    n_terms: int,
    doc_lens: FloatArray,
    n_docs: int,
    *,
    sparse: bool = False,
) -> _Postings:
    """Spilled blocks → one CSC matrix of BM25 scores (scored while placed: no tf copy).

    ``sparse``: term ids are hash buckets, most of them empty; only the ids present get a row
    (their sorted list becomes the postings' ``keys``).
    """
    keys: npt.NDArray[np.int64] | None = None
    if sparse:
        parts = [np.unique(terms) for terms, _, _ in spill.blocks()]
        keys = np.unique(np.concatenate(parts)).astype(np.int64) if parts else np.zeros(0, np.int64)
        n_terms = len(keys)
    df = np.zeros(n_terms, np.int64)
    for terms, _, _ in _remapped(spill, keys):
        df += np.bincount(terms, minlength=n_terms)
    indptr = np.zeros(n_terms + 1, np.int64)
    np.cumsum(df, out=indptr[1:])
    nnz = int(indptr[-1])
    indices = np.empty(nnz, np.int32)
    data = np.empty(nnz, np.float32)
    if nnz == 0:
        return _Postings(data, indices, indptr, keys)
    # Only building scores terms: bm25s (and the tqdm its package loads) stays out of a search.
    from bm25s.scoring import _select_idf_scorer, _select_tfc_scorer

    avg_len = float(doc_lens.mean()) or 1.0
    idf_fn = _select_idf_scorer(config.method)
    present = np.flatnonzero(df)
    idf = np.zeros(n_terms, np.float32)
    # bm25s's IDF functions are scalar; distinct document frequencies are few.
    values, inverse = np.unique(df[present], return_inverse=True)
    idf[present] = np.asarray([idf_fn(int(d), N=n_docs) for d in values], np.float32)[inverse]
    tfc_fn = _select_tfc_scorer(config.method)
    pos = indptr[:-1].copy()
    for terms, docs, tf in _remapped(spill, keys):
        counts = np.bincount(terms, minlength=n_terms)
        starts = np.cumsum(counts) - counts
        dest = pos[terms] + (np.arange(len(terms), dtype=np.int64) - starts[terms])
        indices[dest] = docs
        tfc = tfc_fn(
            tf_array=tf.astype(np.float32),
            l_d=doc_lens[docs],
            l_avg=avg_len,
            k1=config.k1,
            b=config.b,
            delta=config.delta,
        )
        data[dest] = (tfc * idf[terms]).astype(np.float32)
        pos += counts
    return _Postings(data, indices, indptr, keys)


def _remapped(
    spill: _BlockSpill, keys: npt.NDArray[np.int64] | None
) -> Iterator[tuple[IntArray, IntArray, npt.NDArray[np.uint16]]]:
    """The spilled blocks, term ids replaced by their row in ``keys`` when given."""
    for terms, docs, tf in spill.blocks():
        if keys is not None:
            terms = np.searchsorted(keys, terms).astype(np.int32)
        yield terms, docs, tf


_BLOCK = 1024


def top_k(scores: FloatArray, k: int) -> tuple[IntArray, FloatArray]:
    """Positions and values of the ``k`` highest positive scores, best first, ties by position."""
    n = len(scores)
    if n == 0 or k <= 0:
        return np.empty(0, np.int32), np.empty(0, np.float32)
    blocks = n // _BLOCK
    if blocks >= 4 * k:
        # A lower bound for the k-th best score from block maxima (at least k passages reach
        # it), then an exact sort of the few passages above it: ~4x faster than a partition
        # of the whole array at a million passages, and the same answer, ties included.
        maxima = scores[: blocks * _BLOCK].reshape(blocks, _BLOCK).max(axis=1)
        bound = np.partition(maxima, blocks - k)[blocks - k]
        cand = np.flatnonzero(scores >= bound) if bound > 0 else np.flatnonzero(scores > 0)
    elif k < n:
        cand = np.argpartition(-scores, k - 1)[:k]
        # Bring in every passage tied with the k-th score so ties resolve by position.
        kth = scores[cand].min()
        cand = np.flatnonzero(scores >= kth) if kth > 0 else cand
    else:
        cand = np.arange(n)
    cand = cand[scores[cand] > 0]
    order = np.lexsort((cand, -scores[cand]))[:k]
    best = cand[order].astype(np.int32)
    return best, scores[best].astype(np.float32)
