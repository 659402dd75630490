"""A work matched by its best sentences: a question restating one sentence of a long abstract
finds that work, and a review reads the sentences' vectors from the cache the import filled.

The embedder is colmeia's simulated server (real HTTP, hashed bag-of-words vectors), wrapped in
the same vector cache the offline embedder uses.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from colmeia.apps.literature import import_library
from colmeia.apps.literature.ranking import rerank_works
from colmeia.apps.literature.record_sentences import record_units, sentence_scores
from colmeia.rag.index.embedders import HTTPEmbedder
from colmeia.rag.index.vector_cache import CachedEmbedder
from colmeia.rag.retrieve import Retriever
from colmeia.sim import SimulatedModel
from colmeia.store import open_store

QUESTION = "tarifas sociais ampliaram o acesso ao saneamento rural"

# One sentence of the long abstract says what the question asks; the short one shares as many
# of its words, scattered over sentences about other things.
LONG = (
    "Gestão regional de serviços públicos",
    "Esta dissertação estuda consórcios municipais do interior. Foram entrevistados prefeitos, "
    "secretários e técnicos de doze cidades. A pesquisa descreve contratos de programa, "
    "agências reguladoras e conselhos de usuários. Os orçamentos foram lidos de 2010 a 2020. "
    "As tarifas sociais ampliaram o acesso ao saneamento rural.",
)
SHORT = (
    "Transporte e serviços nas periferias",
    "As tarifas de ônibus subiram. O acesso ao posto de saúde é rural. Programas sociais e "
    "saneamento aparecem nas falas.",
)


@pytest.fixture
def cached(tmp_path: Path, sim_server) -> Iterator[tuple[CachedEmbedder, SimulatedModel]]:  # type: ignore[no-untyped-def]
    srv = sim_server(SimulatedModel())
    http = HTTPEmbedder(srv.base_url, "sim")
    yield CachedEmbedder("sim", lambda: http, tmp_path / "vectors.sqlite"), srv.sim
    http.close()


def test_a_work_is_matched_by_its_title_keywords_and_each_abstract_sentence() -> None:
    units = record_units(
        "Saúde e escola", "RESUMO\nEstudo de caso. Foram ouvidos docentes.", ["saúde", "escola"]
    )
    assert units == [
        "Saúde e escola",
        "saúde; escola",
        "Estudo de caso.",
        "Foram ouvidos docentes.",
    ]


def test_the_best_sentences_find_the_work_a_whole_record_vector_dilutes(cached) -> None:  # type: ignore[no-untyped-def]
    embedder, _ = cached
    q = embedder.embed_query([QUESTION])[0]
    by_record = [float(embedder.embed([f"{t}\n{a}"])[0] @ q) for t, a in (LONG, SHORT)]
    assert by_record[0] < by_record[1]  # the record's one vector prefers the wrong work
    works = [(t, {"abstract": a, "keywords": []}) for t, a in (LONG, SHORT)]
    scores = sentence_scores(embedder, q, works)
    assert scores[0] > scores[1]


def test_a_work_without_text_scores_zero_and_nothing_is_embedded_for_it(cached) -> None:  # type: ignore[no-untyped-def]
    embedder, sim = cached
    q = np.ones(256, np.float32) / 16
    assert sentence_scores(embedder, q, [("", {})]).tolist() == [0.0]
    assert sim.stats()["embedding_inputs"] == 0


def test_the_import_embeds_the_sentences_so_a_review_embeds_only_the_question(  # type: ignore[no-untyped-def]
    tmp_path: Path, cached
) -> None:
    embedder, sim = cached
    catalogue = tmp_path / "obras.ris"
    catalogue.write_text(
        "".join(
            f"TY  - THES\nTI  - {t}\nAU  - Autora, {i}\nPY  - 2020\nAB  - {a}\nER  - \n"
            for i, (t, a) in enumerate((LONG, SHORT))
        ),
        encoding="utf-8",
    )
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    import_library(store, "obras", [catalogue], embedder=embedder)
    docs = store.documents("obras")
    sim.reset_stats()
    order = rerank_works(QUESTION, docs, Retriever(store, "obras", embedder=embedder))
    assert sim.stats()["embedding_inputs"] == 1  # the question: sentences come from the cache
    assert docs[order[0]].title == LONG[0]
    store.close()
