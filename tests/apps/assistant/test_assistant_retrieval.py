"""The RAG agent finds the dispositivo that answers, on the shipped laws (offline, no model).

Definition questions reach the defining inciso whatever their phrasing; an article found in
several parts outranks a single passage that repeats the question's words; a citizen's words
("recorrer", "pela internet") reach the law's ("recurso", "fora do estabelecimento").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from assistant_helpers import LAWS

from colmeia.apps.assistant.definitions import DefinitionIndex
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.rag_passages import neighbour_terms
from colmeia.apps.assistant.rag_scores import grade_passage
from colmeia.apps.assistant.ranking import rank_articles
from colmeia.apps.assistant.relations import (
    asked_relation,
    content_terms,
    legal_terms,
    states_relation,
)
from colmeia.config import EmbeddingsSettings
from colmeia.rag.index.embedders import default_embedder
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Citation, Hit
from colmeia.store import Store, open_store


async def _answer_as_shipped(tmp_path: Path, laws: list[str], question: str) -> dict[str, Any]:
    """The RAG answer over these shipped laws searched as shipped: words and the default
    offline vectors (each test ingests its own store)."""
    embedder = default_embedder(EmbeddingsSettings())
    store = open_store(f"sqlite:///{tmp_path / 'leis.db'}")
    ingest(store, "leis", [LAWS / name for name in laws], embedder=embedder)
    try:
        return await RagPipeline(store, "leis", embedder=embedder).run(question)
    finally:
        store.close()


def _first(result: dict[str, object]) -> tuple[str, str, str, str]:
    c = result["citations"][0]  # type: ignore[index]
    return (c["law"], c["article"], c["paragraph"], c["inciso"])


@pytest.mark.parametrize(
    "question",
    [
        "Quais dados pessoais são considerados sensíveis pela LGPD?",
        "O que é dado pessoal sensível?",
        "o que se entende por dados pessoais sensíveis na LGPD",
        "Qual a definição de dado pessoal sensível?",
    ],
)
async def test_definition_questions_reach_the_defining_inciso(
    laws_store: Store, question: str
) -> None:
    # Red when lookup_within is not consulted: LGPD Art. 12 §2º ("poderão ser igualmente
    # considerados como dados pessoais…") comes first for the first phrasing.
    result = await RagPipeline(laws_store, "leis").run(question)
    assert _first(result) == ("Lei 13.709/2018", "5", "", "II")


async def test_a_definition_asked_with_significa_is_found(laws_store: Store) -> None:
    # "significa" names the relation; no law passage uses it. Red when relation words are
    # graded as content (nothing reaches the threshold and the answer is "not found").
    result = await RagPipeline(laws_store, "leis").run("O que significa consumidor?")
    assert _first(result)[:2] == ("Lei 8.078/1990", "2")


def test_plural_and_singular_are_the_same_term() -> None:
    assert content_terms("dados pessoais sensíveis") == content_terms("dado pessoal sensível")
    assert content_terms("informações") == content_terms("informação")


@pytest.mark.parametrize(
    ("question", "relation"),
    [
        ("Qual o prazo para interpor recurso administrativo?", "deadline"),
        ("Em quantos dias posso recorrer?", "deadline"),
        ("O que é encampação?", "definition"),
        ("Quais dados pessoais são considerados sensíveis?", "definition"),
        ("Quem deve indicar o encarregado?", "who"),
        ("Quando uma lei começa a vigorar?", "when"),
        ("Qual o valor máximo da multa?", "amount"),
        ("Vender produto perigoso sem avisar é crime?", "penalty"),
        ("O que acontece se a empresa não cumprir o contrato?", "penalty"),
        ("A venda casada é proibida?", "other"),
    ],
)
def test_the_asked_relation_is_named(question: str, relation: str) -> None:
    assert asked_relation(question) == relation


def test_everyday_words_bring_the_laws_words() -> None:
    terms = legal_terms("Se o pedido for negado, posso recorrer? Comprei pela internet")
    for word in ("recurso", "indeferimento", "fora do estabelecimento comercial"):
        assert word in terms
    assert legal_terms("Quais são os princípios do Governo Digital?") == ""


def _hit(chunk_id: str, path: str, text: str = "texto") -> Hit:
    return Hit(chunk_id, chunk_id, 1.0, text, Citation("Lei", 1, path))


def test_an_article_found_in_several_parts_outranks_a_lone_passage() -> None:
    # Art. 9º §3º is retrieved first; Art. 18 comes next in three parts (caput and two
    # incisos), all graded alike. Red with the extra-chunk bonus at 0: Art. 9º first.
    hits = [
        _hit("a9", "Lei 13.709/2018, Art. 9º, § 3º"),
        _hit("a18", "Lei 13.709/2018, Art. 18"),
        _hit("a18-7", "Lei 13.709/2018, Art. 18, inciso VII"),
        _hit("a18-8", "Lei 13.709/2018, Art. 18, inciso VIII"),
    ]
    grades = dict.fromkeys(["a9", "a18", "a18-7", "a18-8"], 0.7)
    ranked = rank_articles(hits, grades)
    assert [a.key for a in ranked] == ["13709:18", "13709:9"]
    assert ranked[0].best.chunk_id == "a18" and len(ranked[0].hits) == 3


def test_a_passage_stating_the_asked_relation_wins_a_tie() -> None:
    hits = [
        _hit("x", "Lei 9.784/1999, Art. 58", "Têm legitimidade para interpor recurso"),
        _hit("y", "Lei 9.784/1999, Art. 59", "cabe recurso em dez dias, contados da ciência"),
    ]
    grades = {"x": 0.8, "y": 0.8}
    assert rank_articles(hits, grades, "other")[0].key == "9784:58"
    # Red when states_relation ignores spelled-out numbers ("dez dias").
    assert rank_articles(hits, grades, "deadline")[0].key == "9784:59"


@pytest.mark.parametrize(
    ("question", "inciso"),
    [
        ("O que a LGPD entende por tratamento de dados?", "X"),
        # "quem é o X": who X is, i.e. its definition when the law defines X. Red when _WHO_IS
        # is not consulted: Art. 41 (what the encarregado does) comes first.
        ("Quem é o encarregado segundo a LGPD?", "VIII"),
    ],
)
async def test_other_definition_phrasings_reach_article_5(
    laws_store: Store, question: str, inciso: str
) -> None:
    result = await RagPipeline(laws_store, "leis").run(question)
    assert _first(result) == ("Lei 13.709/2018", "5", "", inciso)


def _near(chunk_id: str, text: str, dense: int) -> Hit:
    hit = _hit(chunk_id, f"Lei 8.078/1990, Art. {dense}", text)
    hit.dense_rank = dense
    return hit


def test_neighbour_terms_are_the_words_the_near_passages_share() -> None:
    # Three passages near "devolver o produto" by vectors: two say "arrependimento", each has
    # a rare word of its own, and every one carries an editorial note. Red when words are
    # taken from one passage alone ("geladeira"), or from the notes ("redação", "provisória").
    near = [
        _near(
            "a",
            "O consumidor pode exercer o arrependimento (Redação dada pela Medida "
            "Provisória nº 1, de 2019) geladeira",
            1,
        ),
        _near(
            "b",
            "O direito de arrependimento vale sete dias (Incluído pela Lei nº 2, "
            "de 2019) bicicleta",
            2,
        ),
        _near("c", "Texto sobre outro assunto (Redação dada pela Medida Provisória nº 3)", 3),
    ]
    idf = {"arrepend": 3.0, "geladeir": 9.0, "biciclet": 9.0, "redaca": 9.0, "provisor": 9.0}
    words = neighbour_terms("posso devolver o produto?", near, lambda w: idf.get(w, 1.0), 3).split()
    assert "arrependimento" in words
    assert not {"geladeira", "bicicleta", "redação", "provisória"} & set(words)


def test_a_long_passage_covering_the_question_by_chance_grades_below_a_short_one() -> None:
    # Both passages hold every word of the question; one is a sixty-item list where they fall
    # apart. Red with the length factor at 1: both grade the same.
    question = "prazo para devolver produto comprado"
    short = _hit("s", "Lei 8.078/1990, Art. 49", "prazo para devolver produto comprado fora")
    filler = " ".join(f"inciso{n} aquisição serviço" for n in range(60))
    long = _hit("l", "Lei 13.303/2016, Art. 29", f"prazo {filler} devolver produto comprado")
    analysis: dict[str, object] = {}
    assert grade_passage(question, short, analysis) > grade_passage(question, long, analysis)


def test_a_passage_stating_a_sanction_answers_what_happens_to_whoever_breaks_the_rule() -> None:
    # Red when "penalty" is not a relation (the question is "other": the tie stays in
    # retrieval order and the rule wins over its sanction).
    hits = [
        _hit(
            "rule", "Lei 8.078/1990, Art. 10", "O fornecedor não poderá colocar no mercado produto"
        ),
        _hit(
            "crime",
            "Lei 8.078/1990, Art. 63",
            "Omitir dizeres sobre a nocividade. Pena – Detenção de seis meses a dois anos e multa.",
        ),
    ]
    relation = asked_relation("Vender produto perigoso sem avisar é crime?")
    assert rank_articles(hits, {"rule": 0.6, "crime": 0.6}, relation)[0].key == "8078:63"
    assert states_relation("penalty", "sujeita-se às seguintes sanções: advertência")
    assert not states_relation("penalty", "O consumidor pode desistir do contrato")


def test_a_long_passage_whose_caput_says_it_grades_above_one_with_the_words_scattered() -> None:
    # The same words and length; in one, the question's words come together at the start
    # (the caput before a long list). Red without the windows: both grade the same.
    question = "prazo para devolver produto comprado"
    filler = " ".join(f"inciso{n} aquisição serviço" for n in range(60))
    together = _hit("t", "Lei 8.078/1990, Art. 49", f"prazo devolver produto comprado {filler}")
    apart = _hit("a", "Lei 8.078/1990, Art. 50", f"prazo {filler} devolver produto comprado")
    analysis: dict[str, object] = {}
    assert grade_passage(question, together, analysis) > grade_passage(question, apart, analysis)


@pytest.mark.slow  # embeds Lei 13.303 (~40 s of CPU on a cold vector cache)
@pytest.mark.default_embedder
async def test_the_requirements_of_dispensa_in_state_companies_are_the_cases_of_article_29(
    tmp_path: Path,
) -> None:
    # Lei 13.303 searched as shipped (words + vectors). Red without the windows: the long
    # Art. 29 (its caput and sixty cases in one chunk) is graded down for its length and
    # Art. 17 § 5º ("os requisitos … poderão ser dispensados", about board members) is first.
    result = await _answer_as_shipped(
        tmp_path,
        ["lei_13303_20160630.csv"],
        "Quais os requisitos para dispensa de licitação em empresas estatais?",
    )
    assert _first(result)[:2] == ("Lei 13.303/2016", "29")


@pytest.mark.slow  # embeds the CDC (~60 s of CPU on a cold vector cache)
@pytest.mark.default_embedder
async def test_a_lay_question_the_vectors_vouch_for_is_answered_though_it_shares_few_words(
    tmp_path: Path,
) -> None:
    # "anúncio", "verdade", "obrigação de provar": the CDC says "ônus da prova da veracidade
    # … publicitária" (Art. 38). Red when only word coverage makes a passage relevant: no
    # passage reaches the threshold and the answer is "não encontrei".
    result = await _answer_as_shipped(
        tmp_path,
        ["lei_8078_19900911.csv"],
        "De quem é a obrigação de provar que um anúncio diz a verdade?",
    )
    cited = [(c["law"], c["article"]) for c in result["citations"]]  # type: ignore[union-attr]
    assert ("Lei 8.078/1990", "38") in cited


def test_a_term_used_only_inside_a_longer_defined_one_weighs_less(laws_store: Store) -> None:
    # "dado pessoal" is part of "dado pessoal sensível", which the question asks about.
    # Red when a term one word shorter always weighs 1: both definitions tie.
    index = DefinitionIndex.for_collection(laws_store, "leis")
    weights = index.lookup_within("Quais dados pessoais são considerados sensíveis pela LGPD?")
    by_inciso = {cid.split("!")[-1].split("#")[0]: w for cid, w in weights.items()}
    assert by_inciso["art5_cpt_inc2"] == 1.0
    assert by_inciso["art5_cpt_inc1"] < 1.0


@pytest.mark.default_embedder  # the LGPD's vectors come from the shipped seed
async def test_defining_passages_go_first_the_most_specific_first(tmp_path: Path) -> None:
    # A defining passage the search also found must not trail one only the definition index
    # added: with vectors the search finds "dado pessoal sensível" far down its list and not
    # "dado pessoal", which went to the front, and the answer cited Art. 5 I. Red when only
    # the passages the search missed go first.
    embedder = default_embedder(EmbeddingsSettings())
    store = open_store(f"sqlite:///{tmp_path / 'lgpd.db'}")
    ingest(store, "leis", [LAWS / "lei_13709_20180814.csv"], embedder=embedder)
    question = "Quais dados pessoais são considerados sensíveis pela LGPD?"
    try:
        pipeline = RagPipeline(store, "leis", embedder=embedder)
        state = await pipeline.analyze({"question": question, "query": question})
        state = await pipeline.retrieve({"question": question, "query": question, **state})
        result = await pipeline.run(question)
    finally:
        store.close()
    defining = state["analysis"]["definitions"]
    firsts = [h.chunk_id for h in state["hits"][: len(defining)]]
    assert sorted(firsts) == sorted(defining)
    assert firsts[0].endswith("art5_cpt_inc2#0")
    assert _first(result) == ("Lei 13.709/2018", "5", "", "II")


@pytest.mark.default_embedder
async def test_an_article_whose_shipped_questions_match_is_relevant_though_its_words_differ(
    tmp_path: Path,
) -> None:
    # "a instrução acabou … tem prazo pra eles decidirem?": the ranking puts Lei 9.784 Art. 49
    # first ("Concluída a instrução…, a Administração tem o prazo de até trinta dias para
    # decidir"), but its words cover little of the question. Red when only word coverage and
    # the passage's own vector can make it relevant: the answer quotes the LAI's Art. 11
    # § 1º (a request answered in 20 days), which covers "pedido", "órgão" and "prazo".
    result = await _answer_as_shipped(
        tmp_path,
        ["lei_9784_19990129.csv", "lei_12527_20111118.csv"],
        "entrei com um pedido num orgao federal, a instrucao acabou faz 2 meses e nada de "
        "decisao, tem prazo pra eles decidirem?",
    )
    assert _first(result)[:2] == ("Lei 9.784/1999", "49")
