"""The rules a store policy gives the suggester and the rewriter, as the sentences they read.

A rewriter can only keep a rule it is told: every active check of the resolved policy appears
as one sentence, naming the allowed addresses, the competitors and the forbidden words; a check
turned off is not mentioned.
"""

from __future__ import annotations

from typing import Any

from colmeia.apps.moderation.policy import Policy, PolicyFile, PolicyRules, PolicySet


def policy(locale: str = "pt", **rules: Any) -> Policy:
    spec = PolicyFile(default=PolicyRules(**rules))
    return PolicySet(spec).resolve(
        category="Informática", store="", locale=locale, question="?", threshold=8, max_rewrites=3
    )


def test_every_active_rule_is_one_sentence_for_the_rewriter() -> None:
    p = policy(
        allow=["loja.com.br", "sac@loja.com.br"],
        competitors=["Concorrente", "OutraLoja"],
        forbidden_terms=["barato", "imperdível"],
    )
    assert p.instructions() == [
        "Write the answer in Portuguese only.",
        "Never include phone numbers, e-mail addresses, links "
        "(allowed: loja.com.br, sac@loja.com.br).",
        "Never name these competitors unless the product context does: Concorrente, OutraLoja.",
        "Never promise a warranty (duration, lifetime, extension) the context does not state.",
        "Never use these words: barato, imperdível.",
    ]


def test_the_language_follows_the_question_s_locale() -> None:
    assert policy(locale="es").instructions()[0] == "Write the answer in Spanish only."


def test_without_allowed_addresses_competitors_or_terms_those_sentences_are_left_out() -> None:
    assert policy().instructions() == [
        "Write the answer in Portuguese only.",
        "Never include phone numbers, e-mail addresses, links.",
        "Never promise a warranty (duration, lifetime, extension) the context does not state.",
    ]


def test_a_check_turned_off_is_not_mentioned() -> None:
    p = policy(
        checks=["email", "terms"],
        competitors=["Concorrente"],
        forbidden_terms=["barato"],
    )
    assert p.instructions() == [
        "Never include e-mail addresses.",
        "Never use these words: barato.",
    ]
    assert policy(checks=["phone", "competitor"]).instructions() == ["Never include phone numbers."]
    assert policy(checks=["link", "language"], competitors=["X"]).instructions() == [
        "Write the answer in Portuguese only.",
        "Never include links.",
    ]
