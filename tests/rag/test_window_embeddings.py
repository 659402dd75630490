"""Paragraph windows are embedded from their paragraphs, each paragraph once: the model time of
an ingest with the n-gram chunker no longer grows with how many windows hold a paragraph."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from colmeia.rag.index.embedders import HTTPEmbedder
from colmeia.rag.index.windows import Window, embed_windows
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Retriever
from colmeia.sim import SimulatedModel
from colmeia.store import open_store

A = "A licitação de obras públicas exige projeto básico aprovado."
B = "O pregão eletrônico é a modalidade usual para bens comuns."
C = "Contratos de saneamento têm metas de universalização até 2033."


@pytest.fixture
def embedder(sim_server):  # type: ignore[no-untyped-def]
    srv = sim_server(SimulatedModel())
    with HTTPEmbedder(srv.base_url, "sim") as emb:
        yield emb, srv.sim


def _windows(text: str, spans: list[tuple[int, int]], group: str = "d") -> list[Window]:
    return [Window(group, s, e, text[s:e]) for s, e in spans]


def test_overlapping_windows_embed_each_paragraph_once(embedder) -> None:  # type: ignore[no-untyped-def]
    emb, sim = embedder
    text = f"{A}\n\n{B}\n\n{C}"
    a, b, c = (text.index(x) for x in (A, B, C))
    ends = (a + len(A), b + len(B), c + len(C))
    # [A], [A B], [B C], [A B C]: four windows over three paragraphs.
    windows = _windows(text, [(a, ends[0]), (a, ends[1]), (b, ends[2]), (a, ends[2])])

    vectors = embed_windows(emb, windows)

    assert sim.stats()["embedding_inputs"] == 3  # A, B and C once each (not 4 windows, 9 texts)
    va, vb = emb.embed([A]), emb.embed([B])
    assert np.allclose(vectors[0], va[0], atol=1e-6)  # a one-paragraph window is exact
    wa, wb = len(A.split()), len(B.split())
    pooled = wa * va[0] + wb * vb[0]
    assert np.allclose(vectors[1], pooled / np.linalg.norm(pooled), atol=1e-5)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_windows_that_do_not_overlap_get_exactly_the_embedders_vectors(embedder) -> None:  # type: ignore[no-untyped-def]
    emb, _ = embedder
    windows = [Window(f"d{i}", 0, len(t), t) for i, t in enumerate((A, B, C))]
    assert np.allclose(embed_windows(emb, windows), emb.embed([A, B, C]), atol=1e-6)


def test_ingest_with_paragraph_windows_embeds_paragraphs_not_windows(  # type: ignore[no-untyped-def]
    embedder, tmp_path: Path
) -> None:
    emb, sim = embedder
    paragraphs = [" ".join(f"palavra{i}x{j}" for j in range(60)) + f" tema{i}." for i in range(6)]
    (tmp_path / "tese.txt").write_text("\n\n".join(paragraphs), encoding="utf-8")
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    sim.reset_stats()
    report = ingest(store, "t", [tmp_path / "tese.txt"], chunker="paragraphs", embedder=emb)
    # 60-word paragraphs in windows of 100-500 words: 2..5 paragraphs each, 14 windows.
    assert report.chunks == 14
    assert sim.stats()["embedding_inputs"] == 6
    hits = Retriever(store, "t", embedder=emb).search("palavra3x7 tema3", 3, per_document=3)
    assert "palavra3x7" in hits[0].text
    assert hits[0].dense_rank is not None
    store.close()
