"""The article ranker's features: each candidate article read in its context — which law the
first candidates are about, whether the vectors found it, whether its rule is limited to bodies
the question does not name (lex specialis) — the shipped weights learned from the lay questions
shipped with the laws, and the assistant's articles in the learned order when it is chosen."""

from __future__ import annotations

from typing import Any

from colmeia.apps.assistant.article_ranker import (
    FEATURES,
    ArticleRanker,
    article_candidates,
)
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.rag.retrieve import Citation, Hit


def _hit(path: str, text: str, *, lexical: int | None = 1, dense: int | None = None) -> Hit:
    return Hit(
        chunk_id=path,
        doc_id=path,
        score=1.0,
        text=text,
        citation=Citation(document=path.split(",")[0], page=0, path=path),
        lexical_rank=lexical,
        dense_rank=dense,
    )


GENERAL = _hit(
    "Lei 9.784/1999, Art. 59, caput",
    "Salvo disposição legal específica, é de dez dias o prazo para interposição de recurso.",
)
SPECIAL = _hit(
    "Lei 13.303/2016, Art. 59, caput",
    "Nas licitações da empresa pública e da sociedade de economia mista, a fase recursal é única.",
    lexical=2,
    dense=40,
)


def _by_key(question: str, hits: list[Hit]) -> dict[str, dict[str, float]]:
    return {c.key: c.features for c in article_candidates(question, hits, {}, "deadline")}


def test_a_rule_limited_to_bodies_the_question_does_not_name_is_marked_special() -> None:
    plain = _by_key("qual o prazo para recorrer?", [GENERAL, SPECIAL])
    named = _by_key("qual o prazo para recorrer numa empresa pública?", [GENERAL, SPECIAL])
    special = next(k for k in plain if "13303" in k or "13.303" in k)
    general = next(k for k in plain if k != special)
    assert plain[special]["specific"] == 1.0
    assert plain[general]["specific"] == 0.0
    assert named[special]["specific"] == 0.0  # the question names the body: not a stray rule


def test_law_share_dense_rank_and_asked_relation_are_read_per_article() -> None:
    lgpd = [
        _hit(f"Lei 13.709/2018, Art. {n}, caput", "O titular dos dados pessoais tem direito.")
        for n in (18, 19, 20)
    ]
    stray = _hit("Lei 8.078/1990, Art. 43, caput", "Cadastros de consumidores.", dense=1)
    feats = _by_key("quais meus direitos sobre meus dados?", [*lgpd, stray])
    assert len(feats) == 4
    shares = sorted(f["law_share"] for f in feats.values())
    assert shares == [0.25, 0.75, 0.75, 0.75]
    stray_key = next(k for k in feats if "8.078" in k or "8078" in k)
    assert feats[stray_key]["dense"] == 10.0 / 11.0
    assert all(f["dense"] == 0.0 for k, f in feats.items() if k != stray_key)
    deadline = _by_key("qual o prazo para recorrer?", [GENERAL])
    assert next(iter(deadline.values()))["relation"] == 1.0  # "dez dias" states a deadline


def test_shipped_weights_are_trained_and_rank_by_them() -> None:
    ranker = ArticleRanker.shipped()
    assert set(ranker.weights) == set(FEATURES)
    assert any(w != 0.0 for w in ranker.weights.values())
    found = article_candidates("qual o prazo para recorrer?", [SPECIAL, GENERAL], {}, "deadline")
    by_hand = {c.key: ranker.score(c.features) for c in found}
    ranked = [c.key for _, c in ranker.rank(found)]
    assert ranked == sorted(by_hand, key=lambda k: -by_hand[k])


def test_every_candidate_gets_its_nearness_to_the_question_in_the_vector_space() -> None:
    # The lexical-only candidate (no dense rank) still gets its cosine; the article nearest
    # the question scores highest, in standard deviations from the candidates' mean. Red when
    # the cosine is read only for hits the vector search returned, or not standardised.
    hits = [GENERAL, SPECIAL, _hit("Lei 8.078/1990, Art. 26, caput", "trinta dias", lexical=3)]
    cos = {GENERAL.chunk_id: 0.9, SPECIAL.chunk_id: 0.7, hits[2].chunk_id: 0.8}
    found = article_candidates("qual o prazo?", hits, {}, "deadline", similarity=cos)
    by_law = {c.key.split(":")[0]: c.features["cosine"] for c in found}
    assert by_law["9784"] > by_law["8078"] > by_law["13303"]
    assert abs(sum(by_law.values())) < 1e-9 and abs(by_law["9784"] - 1.2247) < 1e-3
    assert all(c.features["cosine"] == 0.0 for c in article_candidates("q", hits, {}))


def test_words_only_the_heading_or_the_caput_hold_are_context_features() -> None:
    # The dispositivo that answers says "valores devolvidos"; "desistir" is only in the caput
    # its heading holds, "arrependimento" only in its section's title. Red when the context
    # features read the dispositivo's own text, or do not tell the title from the caput.
    paragraph = _hit(
        "Lei 8.078/1990, Art. 49, Parágrafo único",
        "Os valores pagos ao consumidor serão devolvidos.",
    )
    paragraph.heading = (
        "DA PROTEÇÃO CONTRATUAL > Do Arrependimento > Art 49 consumidor pode desistir"
    )
    by_caput = _by_key("se eu desistir, os valores são devolvidos?", [paragraph])
    feats = next(iter(by_caput.values()))
    assert feats["parent"] > 0.0 and feats["section"] == 0.0
    by_title = _by_key("tenho direito de arrependimento?", [paragraph])
    feats = next(iter(by_title.values()))
    assert feats["section"] > 0.0 and feats["parent"] == 0.0
    # "consumidor" is in the caput too, but the paragraph says it itself: no context needed
    said = _by_key("os valores pagos ao consumidor são devolvidos?", [paragraph])
    assert next(iter(said.values()))["parent"] == next(iter(said.values()))["section"] == 0.0


async def test_the_learned_ranker_orders_the_assistants_articles_from_the_hand_rankings_signals(
    laws_store: Any,
) -> None:
    # the learned path gets the hand-set ranking's place and score and the vector signals as
    # features of every candidate, and its order is the one the answer is built from: a ranker
    # that trusts only the hand-set place leads with the hand-set first article, one that
    # trusts it backwards leads with another. Red when the learned order is not applied, or
    # the features are not filled in.
    question = "qual o prazo para recorrer de uma decisão administrativa?"
    state: dict[str, Any] = {"question": question}

    async def first(ranker: ArticleRanker | None) -> tuple[str, list[Any]]:
        rag = RagPipeline(laws_store, "leis", None, article_ranker=ranker)
        state.update(await rag.analyze(state))  # type: ignore[arg-type]
        state.update(await rag.retrieve(state))  # type: ignore[arg-type]
        graded = await rag.grade(state)  # type: ignore[arg-type]
        grades = dict(graded["grades"])
        ranked, near, asked = rag.hand_ranking(state, grades)  # type: ignore[arg-type]
        found = rag.learned_candidates(state, grades, ranked, near, asked)  # type: ignore[arg-type]
        return graded["ranked"][0].citation.path, found

    hand_first, found = await first(None)
    assert all({"hand", "hand_score", "near", "asked"} <= set(c.features) for c in found)
    assert max(c.features["hand"] for c in found) == 1.0
    trusting, _ = await first(ArticleRanker({"hand": 10.0}))
    against, _ = await first(ArticleRanker({"hand": -10.0}))
    assert trusting == hand_first and against != hand_first
