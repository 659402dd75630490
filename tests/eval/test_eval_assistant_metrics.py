"""Assistant metrics: numbers in, numbers out."""

from __future__ import annotations

from colmeia.eval.assistant import (
    AssistantOutcome,
    GoldCitation,
    citation_hit,
    contains_span,
    summarise_outcomes,
)

ART14_P1 = {"law": "Lei 13.709/2018", "article": "14", "paragraph": "1", "inciso": ""}
ART3 = {"law": "Lei 8.078/1990", "article": "3º", "paragraph": "", "inciso": ""}


def test_citation_hits_at_article_and_paragraph_level() -> None:
    gold = [GoldCitation("13709", "14", "1")]
    assert citation_hit([ART14_P1], gold)
    assert citation_hit([ART14_P1], gold, level="paragraph")
    other_par = {**ART14_P1, "paragraph": "5"}
    assert citation_hit([other_par], gold) and not citation_hit(
        [other_par], gold, level="paragraph"
    )
    assert citation_hit([ART3], [GoldCitation("8078", "3")])
    assert not citation_hit([ART3], [GoldCitation("8078", "30")])
    assert not citation_hit([ART3], [GoldCitation("13709", "3")])
    assert citation_hit([{"doc_id": "faquad-1-2"}], [GoldCitation("", "", doc_id="faquad-1-2")])
    assert not citation_hit([{"doc_id": "faquad-1-3"}], [GoldCitation("", "", doc_id="faquad-1-2")])


def test_span_containment_ignores_case_accents_and_punctuation() -> None:
    assert contains_span("O prazo é de TRINTA dias, prorrogável.", ["trinta dias"])
    assert contains_span("Informação pública.", ["informacao publica"])
    assert not contains_span("O prazo é de vinte dias.", ["trinta dias"])


def test_summary_figures() -> None:
    outcomes = [
        AssistantOutcome(
            "a",
            "rag",
            "rag",
            "answered",
            [ART14_P1],
            [GoldCitation("13709", "14", "1")],
            model_calls=2,
            prompt_tokens=100,
            completion_tokens=20,
            handoffs=2,
        ),
        AssistantOutcome(
            "b",
            "rag",
            "search",
            "answered",
            [],
            [GoldCitation("8078", "3")],
            model_calls=4,
            prompt_tokens=300,
            completion_tokens=60,
            handoffs=1,
        ),
        AssistantOutcome("c", "search", "search", "answered"),
    ]
    m = summarise_outcomes(outcomes)
    assert m["citation_hit_rate"] == 0.5 and m["with_gold_citations"] == 2
    assert m["citation_hit_rate_paragraph"] == 1.0
    assert m["handoff_accuracy"] == round(2 / 3, 4)
    assert m["model_calls_per_answer"] == 2.0
    assert m["tokens_per_answer"] == round(480 / 3, 4)
    assert m["answer_contains_gold_span"] is None


def test_a_constitution_gold_matches_cf_articles_and_not_the_adct_or_a_law() -> None:
    cf71 = {"law": "CF/88", "article": "71", "paragraph": "", "inciso": "VIII"}
    adct71 = {"law": "ADCT (CF/88)", "article": "71", "paragraph": "", "inciso": ""}
    law71 = {"law": "Lei 8.078/1990", "article": "71", "paragraph": "", "inciso": ""}
    assert citation_hit([cf71], [GoldCitation("CF", "71")])
    assert not citation_hit([adct71], [GoldCitation("CF", "71")])
    assert not citation_hit([law71], [GoldCitation("CF", "71")])
    assert not citation_hit([cf71], [GoldCitation("8078", "71")])
