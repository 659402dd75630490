"""The edges of the policy checks, in the words of the violations a rewriter receives.

Phone numbers inside longer numbers, allowed numbers beside forbidden ones, a warranty the
context states in one of several clauses (or only with the verb "garante"), an unbounded
warranty, and the store's site given by a page two levels deep.
"""

from __future__ import annotations

from colmeia.apps.moderation.policy import (
    Policy,
    PolicyFile,
    PolicyRules,
    PolicySet,
    context_text,
)


def policy(**rules: object) -> Policy:
    return PolicySet(PolicyFile(default=PolicyRules(**rules))).resolve(  # type: ignore[arg-type]
        category="", store="", locale="pt", question="?", threshold=8, max_rewrites=3
    )


def found(text: str, context: str = "", **rules: object) -> list[tuple[str, str]]:
    return [(v.rule, v.found) for v in policy(**rules).check(text, context)]


def test_a_model_year_range_is_not_a_phone_number() -> None:
    assert found("Serve no Onix 2013-2019.") == []


def test_the_tail_of_a_part_number_is_not_a_phone_but_a_phone_after_it_is() -> None:
    assert found("A peça 7/11987654321 serve.") == []
    assert found("A peça 7(11) 4002-8922 serve.") == []
    assert found("A peça 7/11987654321 serve; ou ligue (11) 4002-8922.") == [
        ("phone", "(11) 4002-8922")
    ]


def test_an_allowed_number_passes_and_the_next_one_is_still_caught() -> None:
    text = "Ligue (11) 4002-8922 ou (11) 98765-4321."
    assert found(text, allow=["(11) 4002-8922"]) == [("phone", "(11) 98765-4321")]
    assert found(text, "SAC: (11) 4002-8922") == [("phone", "(11) 98765-4321")]


def test_a_link_is_reported_as_written_with_only_its_punctuation_dropped() -> None:
    assert found("Veja https://loja.com.br/kitX.") == [("link", "https://loja.com.br/kitX")]


def test_the_site_of_a_page_the_context_links_is_allowed_however_deep_the_page() -> None:
    assert found("Veja loja.com.br hoje.", "site: https://loja.com.br/ofertas/tv") == []


WARRANTIES = "Garantia de 12 meses. Garantia estendida de 2 anos."


def test_every_warranty_clause_of_the_context_counts() -> None:
    assert found("Tem garantia de 12 meses.", WARRANTIES) == []
    assert found("Tem garantia de 2 anos.", WARRANTIES) == []
    assert found("Tem garantia de 3 anos.", "O fabricante garante 3 anos contra defeitos.") == []


def test_an_unbounded_warranty_stated_in_any_clause_may_be_repeated() -> None:
    context = "Garantia vitalícia do motor. Garantia de 1 ano na bateria."
    assert found("Tem garantia vitalícia.", context) == []


def test_each_warranty_violation_says_what_the_context_states() -> None:
    p = policy()
    assert [v.as_dict() for v in p.check("Tem garantia de 2 anos.", "")] == [
        {
            "rule": "warranty",
            "found": "2 anos",
            "message": "do not promise a warranty of 2 anos: the product context says "
            "nothing about a warranty",
        }
    ]
    assert [v.message for v in p.check("Tem garantia de 2 anos.", "Garantia de 1 ano.")] == [
        "do not promise a warranty of 2 anos: the product context states another term"
    ]
    assert [v.as_dict() for v in p.check("Tem garantia vitalícia.", "Garantia de 1 ano.")] == [
        {
            "rule": "warranty",
            "found": "vitalícia",
            "message": "do not promise a vitalícia warranty: the context does not state it",
        }
    ]


def test_the_context_the_checks_read_is_the_product_then_the_store_rules() -> None:
    assert context_text({"produto": "Furadeira"}, [{"regra": "Não citar"}, {"sac": "x"}]) == (
        "produto: Furadeira\nregra: Não citar\nsac: x"
    )


def _for_question(question: str, locale: str = "") -> Policy:
    return PolicySet().resolve(
        category="", store="", locale=locale, question=question, threshold=8, max_rewrites=3
    )


def test_a_record_without_locale_takes_the_questions_language_when_it_is_clear() -> None:
    spanish = "¿Cuánto cuesta el envío a Madrid y cuándo llega el pedido?"
    assert _for_question(spanish).language == "es"
    portuguese = "Qual é o prazo de entrega para Goiânia e o valor do frete?"
    assert _for_question(portuguese).language == "pt"
    assert _for_question(spanish, locale="pt-BR").language == "pt"  # the record's locale wins
    assert _for_question("ok").language is None  # too short to tell: no language rule
    assert _for_question("   ").language is None


def test_a_language_violation_names_the_required_language() -> None:
    p = _for_question("?", locale="pt")
    assert [
        v.as_dict() for v in p.check("This product is great and ships tomorrow to your home.")
    ] == [
        {
            "rule": "language",
            "found": "pt",
            "message": "the answer must be in Portuguese only; it is written in English, "
            "not Portuguese (confidence 1.00)",
        }
    ]


def test_a_number_glued_to_a_word_is_still_a_phone_number() -> None:
    # Only a digit, ".", "/" or "-" right before a number makes it the tail of a longer one.
    assert found("Peça pelo FAX(11) 4002-8922.") == [("phone", "(11) 4002-8922")]
    assert found("Peça pelo fone:(11) 4002-8922.") == [("phone", "(11) 4002-8922")]


def test_an_allowed_e_mail_address_does_not_allow_the_phone_number_its_digits_spell() -> None:
    allow = ["sac1140028922@loja.com.br"]
    assert found("Escreva para sac1140028922@loja.com.br.", allow=allow) == []
    assert found("Ligue (11) 4002-8922.", allow=allow) == [("phone", "(11) 4002-8922")]


def _store_policy(store: str) -> Policy:
    spec = PolicyFile(
        default=PolicyRules(forbidden_terms=["barato"], allow=["loja.com.br"]),
        stores={"Loja Centro": PolicyRules(forbidden_terms=["grátis"], allow=["centro.com.br"])},
    )
    return PolicySet(spec).resolve(
        category="", store=store, locale="pt", question="?", threshold=8, max_rewrites=3
    )


def test_a_store_section_adds_forbidden_terms_and_allowed_sites_to_the_defaults() -> None:
    store = _store_policy("Loja Centro")
    assert store.forbidden_terms == ("barato", "grátis")
    assert store.allow == ("loja.com.br", "centro.com.br")
    text = "Frete grátis e preço barato: veja loja.com.br, centro.com.br ou outra.com.br."
    assert [(v.rule, v.found) for v in store.check(text)] == [
        ("link", "outra.com.br"),
        ("terms", "barato"),
        ("terms", "grátis"),
    ]
    # Another store keeps the defaults alone.
    other = _store_policy("Loja Norte")
    assert [(v.rule, v.found) for v in other.check(text)] == [
        ("link", "centro.com.br"),
        ("link", "outra.com.br"),
        ("terms", "barato"),
    ]
