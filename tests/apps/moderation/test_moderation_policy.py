"""Store policies: deterministic checks that no model can talk its way past.

The checks run on the original answer before any model and on every rewrite as soon as the
rewriter returns it; the graph tests at the end script the agents over real HTTP and check that
a rewrite breaking the policy is never accepted, whatever the decider says.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from moderation_helpers import ROLE_OF

from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.language import detect, wrong_language
from colmeia.apps.moderation.policy import (
    Policy,
    PolicyFile,
    PolicyRules,
    PolicySet,
    context_text,
    load_policy,
)
from colmeia.apps.moderation.records import ModerationItem, agent_view
from colmeia.errors import ConfigurationError
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import SimRequest, SimulatedModel
from shared_data import DATA_DIR

CONTEXT = "title: Mouse Sem Fio\nGARANTIA: 1 ano contra defeitos de fabricação\nEAN: 7891234567890"


def policy(**rules: Any) -> Policy:
    spec = PolicyFile(default=PolicyRules(**rules))
    return PolicySet(spec).resolve(
        category="Informática", store="", locale="pt", question="?", threshold=8, max_rewrites=3
    )


def rules_broken(text: str, **rules: Any) -> list[str]:
    return [v.rule for v in policy(**rules).check(text, CONTEXT)]


# -- the checks, one by one --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Ligue (11) 98765-4321 para comprar.",
        "Chame no WhatsApp 11 98765 4321.",
        "Nosso SAC: 0800 123 4567.",
        "Fale com a gente: +55 11 4002-8922.",
    ],
)
def test_phone_numbers_are_found(text: str) -> None:
    assert rules_broken(text) == ["phone"]


@pytest.mark.parametrize(
    "text",
    [
        "Sim, é compatível com Onix 2013-2019 e Prisma 2013-2019.",  # model years, not a phone
        "O código EAN é 7891234567890, o mesmo do anúncio.",  # a number from the context
        "Mouse 1600 DPI, conexão USB 2.4 GHz, dimensões 10 x 6 x 4 cm, R$ 1.299,00.",
        "CNPJ do fabricante: 12.345.678/0001-90.",
    ],
)
def test_product_numbers_are_not_phone_numbers(text: str) -> None:
    assert "phone" not in rules_broken(text)


def test_emails_and_links_except_the_allowed_ones() -> None:
    text = (
        "Veja https://outra-loja.com/oferta, www.exemplo.com.br e exemplo.net; escreva para "
        "vendas@exemplo.com. Nosso site é loja.com.br e o SAC sac@loja.com.br."
    )
    found = policy(allow=["loja.com.br"]).check(text, CONTEXT)
    assert sorted((v.rule, v.found) for v in found) == [
        ("email", "vendas@exemplo.com"),
        ("link", "exemplo.net"),
        ("link", "https://outra-loja.com/oferta"),
        ("link", "www.exemplo.com.br"),
    ]


def test_competitors_ignore_case_and_accents_unless_the_context_names_them() -> None:
    assert rules_broken("Também vendemos no MERCADO LIVRE.", competitors=["Mercado Livre"]) == [
        "competitor"
    ]
    assert rules_broken("Compre na Magalu.", competitors=["Magálu"]) == ["competitor"]
    compatible = "Serve no Samsung Galaxy S21."
    in_context = policy(competitors=["Samsung"]).check(compatible, "title: Capa para Samsung S21")
    assert in_context == []


@pytest.mark.parametrize(
    ("text", "broken"),
    [
        ("Tem garantia de 1 ano contra defeitos.", False),
        ("Tem garantia de 12 meses.", False),  # the same term in other words
        ("Tem garantia de um ano.", False),
        ("Tem garantia de 2 anos.", True),
        ("A garantia é vitalícia.", True),
        ("Oferecemos garantia estendida.", True),
        ("Tem garantia do fabricante.", False),  # no term promised
    ],
)
def test_warranty_beyond_the_context(text: str, broken: bool) -> None:
    assert ("warranty" in rules_broken(text)) is broken


def test_a_warranty_when_the_context_states_none() -> None:
    found = policy().check("Sim! Tem garantia de 6 meses.", "title: Jogo de Panelas")
    assert [(v.rule, v.found) for v in found] == [("warranty", "6 meses")]
    assert "says nothing about a warranty" in found[0].message


def test_language_whole_answer_and_a_sentence_in_another_language() -> None:
    spanish = "Hola, gracias por contactarnos. Sí, es compatible con su modelo. Saludos."
    assert rules_broken(spanish) == ["language"]
    mixed = "Hola, gracias por contactarnos. Sim, é compatível, obrigado. Saludos de Arteb."
    assert wrong_language(mixed, "es") is not None
    assert "Sim, é compatível" in (wrong_language(mixed, "es") or "")
    # Greetings and signatures alone do not trip it (short sentences are ambiguous).
    assert wrong_language("Olá! Sim, é compatível. Atenciosamente, equipe Bosch.", "pt") is None
    assert detect("¿Qué incluye la caja?").language == "es"


def test_forbidden_terms_and_checks_that_are_turned_off() -> None:
    assert rules_broken("É o melhor preço do Brasil!", forbidden_terms=["melhor preço"]) == [
        "terms"
    ]
    assert rules_broken("Ligue (11) 98765-4321.", checks=["email"]) == []


def test_the_shipped_originals_that_break_the_default_policy_are_all_labelled_incorrect() -> None:
    """In-sample check of precision: every sample answer the default policy flags is one the
    labels call incorrect (a phone number, an outside link, mixed languages, an invented
    lifetime warranty); the support pages the store metadata gives are not among them."""
    raw = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text(encoding="utf-8"))
    moderator_policy = PolicySet()
    flagged = []
    for record in raw:
        item = ModerationItem.model_validate(record)
        p = moderator_policy.resolve(
            category=item.category or "",
            store="",
            locale=item.locale or "",
            question=item.question,
            threshold=8,
            max_rewrites=3,
        )
        view = agent_view(item)  # what the graph checks against: context and store metadata
        if p.check(item.answer, context_text(view.context, view.rules)):
            flagged.append(item.correct)
    assert len(flagged) >= 20
    assert set(flagged) == {False}


# -- policy files ------------------------------------------------------------------------------


def test_a_yaml_policy_resolves_default_then_category_then_store(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(
        """
store_field: metadata.store
default:
  competitors: [Mercado Livre]
  allow: [loja.com.br]
categories:
  ferramentas: {threshold: 7, max_rewrites: 2}
stores:
  Loja Centro: {competitors: [Casa do Construtor], language: es}
""",
        encoding="utf-8",
    )
    policies = load_policy(path)
    item = ModerationItem.model_validate(
        {
            "id": 1,
            "question": "Serve?",
            "answer": "Sim.",
            "category": "Ferramentas",
            "locale": "pt",
            "metadata": [{"language": "portuguese"}, {"store": "Loja Centro"}],
        }
    )
    moderator = Moderator(OpenAIChatModel(base_url="http://127.0.0.1:9/v1", model="m"))
    moderator.policy = policies
    p = moderator.policy_for(item)
    assert (p.threshold, p.max_rewrites, p.language) == (7, 2, "es")
    assert p.competitors == ("Mercado Livre", "Casa do Construtor")  # lists add up
    assert p.name == "default + category ferramentas + store loja centro"
    assert policies.describe()["sha256"] and policies.describe()["source"] == str(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("default: {threshold: 7}", "in a policy they belong to categories and stores"),
        ("default: {language: fr}", "must be 'question' or one of pt, es, en"),
        ("default: {checks: [phone, fax]}", "default.checks.1"),
        ("stores: [a, b]", "stores"),
        ("default: {competitors: [a", "not a valid policy file"),
    ],
)
def test_a_bad_policy_file_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigurationError, match=message) as err:
        load_policy(path)
    assert str(path) in str(err.value)


def test_toml_policy_and_unknown_suffix(tmp_path: Path) -> None:
    toml = tmp_path / "policy.toml"
    toml.write_text(
        '[default]\ncompetitors = ["Magalu"]\n[categories."Informática"]\nthreshold = 6\n'
    )
    assert load_policy(toml).spec.categories["Informática"].threshold == 6
    txt = tmp_path / "policy.txt"
    txt.write_text("x")
    with pytest.raises(ConfigurationError, match=r"\.yaml, \.yml, \.toml or \.json"):
        load_policy(txt)


# -- in the graph: a violating rewrite is never accepted ---------------------------------------

CLEAN = "Olá! Sim, o mouse é sem fio (USB 2.4 GHz). Atenciosamente, equipe Logitech."
WITH_PHONE = "Olá! Sim, é sem fio. Dúvidas? Ligue (11) 98765-4321. Atenciosamente, equipe Logitech."
IN_SPANISH = "Hola, gracias por contactarnos. Sí, el mouse es inalámbrico. Saludos de Logitech."


class Agents:
    """Scripted agents: reviewers score the original low and rewrites high, the decider always
    accepts, the rewriter says what ``rewrites`` lists (the last one repeats)."""

    def __init__(self, rewrites: list[str], original_score: int = 1) -> None:
        self.rewrites = rewrites
        self.original_score = original_score
        self.calls: dict[str, list[SimRequest]] = {r: [] for r in ROLE_OF.values()}

    def __call__(self, req: SimRequest) -> dict[str, Any]:
        role = ROLE_OF[str((req.schema or {}).get("title"))]
        self.calls[role].append(req)
        user = "\n".join(str(m.get("content")) for m in req.messages if m["role"] == "user")
        if role in ("semantic", "contextual"):
            original = "ANSWER UNDER REVIEW: Olá, obrigado pelo contato!" in user
            return {"justification": "ok", "score": self.original_score if original else 5}
        if role == "suggester":
            return {"suggestions": ["Diga que é sem fio."]}
        if role == "rewriter":
            n = len(self.calls["rewriter"])
            text = self.rewrites[min(n, len(self.rewrites)) - 1]
            return {"can_rewrite": True, "answer": text, "reason": ""}
        return {"reasoning": "Perfeita, pode enviar.", "decision": "answer"}


@pytest.fixture
async def moderator_with(sim_server: Any) -> AsyncIterator[Callable[..., Moderator]]:
    models: list[OpenAIChatModel] = []

    def make(agents: Agents, **kwargs: Any) -> Moderator:
        srv = sim_server(SimulatedModel(responder=agents))
        models.append(OpenAIChatModel(base_url=srv.base_url, model="sim", backoff_base=0.0))
        return Moderator(models[-1], **kwargs)

    yield make
    for m in models:
        await m.aclose()


async def test_a_rewrite_with_a_phone_number_is_sent_back_and_never_reaches_the_decider(
    moderator_with: Any, item: ModerationItem
) -> None:
    agents = Agents([WITH_PHONE, CLEAN])
    result = await moderator_with(agents).moderate(item)
    assert result["outcome"] == "ANSWER_REVISED"
    assert result["final_answer"] == CLEAN
    assert result["revisions"] == 2
    assert len(agents.calls["decider"]) == 1  # only the clean rewrite was judged
    second = "\n".join(str(m["content"]) for m in agents.calls["rewriter"][1].messages)
    assert "remove the phone number (11) 98765-4321" in second  # told what to fix
    steps = [(s["role"], s["round"]) for s in result["trail"]]
    assert steps[:5] == [
        ("semantic", 0),
        ("contextual", 0),
        ("suggester", 0),
        ("rewriter", 1),
        ("policy", 1),
    ]
    assert result["policy"]["violations"][0]["rule"] == "phone"


@pytest.mark.parametrize("bad", [WITH_PHONE, IN_SPANISH, CLEAN + " Veja www.outra.com.br."])
async def test_a_rewrite_breaking_the_policy_is_never_accepted_even_at_the_cap(
    moderator_with: Any, item: ModerationItem, bad: str
) -> None:
    agents = Agents([bad])  # the rewriter never fixes it; the decider would accept anything
    result = await moderator_with(agents, max_rewrites=2).moderate(item)
    assert result["outcome"] == "DO_NOT_ANSWER"
    assert result["reason_code"] == "policy"
    assert result["final_answer"] is None
    assert agents.calls["decider"] == []
    assert len(agents.calls["rewriter"]) == 2  # the cap still holds


async def test_an_original_breaking_the_policy_is_never_kept(
    moderator_with: Any, item: ModerationItem
) -> None:
    bad_original = item.model_copy(update={"answer": item.answer + " WhatsApp (11) 98765-4321."})
    agents = Agents([CLEAN], original_score=5)  # the reviewers love it: 5 + 5 > 8
    result = await moderator_with(agents).moderate(bad_original)
    assert result["outcome"] == "ANSWER_REVISED"
    assert result["scores"]["original"] == {"semantic": 5, "contextual": 5}
    suggester = "\n".join(str(m["content"]) for m in agents.calls["suggester"][0].messages)
    assert "POLICY VIOLATIONS TO FIX" in suggester
    assert "(11) 98765-4321" in suggester
    # and the first rewrite is told what to remove, not only shown the answer that has it
    rewriter = "\n".join(str(m["content"]) for m in agents.calls["rewriter"][0].messages)
    assert "remove the phone number (11) 98765-4321" in rewriter


async def test_random_rewrites_never_let_a_violation_out(
    moderator_with: Any, item: ModerationItem
) -> None:
    rng = random.Random(13)
    texts = [CLEAN, WITH_PHONE, IN_SPANISH, CLEAN + " Escreva para vendas@exemplo.com."]
    for _ in range(6):
        agents = Agents([rng.choice(texts) for _ in range(3)])
        result = await moderator_with(agents).moderate(item)
        if result["outcome"] == "ANSWER_REVISED":
            assert result["final_answer"] == CLEAN
        else:
            assert result["reason_code"] == "policy"


# -- store metadata and the pure-model review ---------------------------------------------------

SUPPORT = "https://www.loja.example.com.br/suporte-x200"


def test_a_link_phone_or_email_the_store_metadata_gives_is_allowed() -> None:
    given = context_text(
        {"title": "Mouse Sem Fio"},
        [{"support_url": SUPPORT, "sac": "(11) 4002-8922", "email": "sac@loja.example.com.br"}],
    )
    answer = (
        f"Olá! O manual está em {SUPPORT}/ ; dúvidas: (11) 4002-8922 ou "
        "sac@loja.example.com.br. Atenciosamente."
    )
    assert policy().check(answer, given) == []
    # The same answer with what the store did NOT give is still three violations.
    other = answer.replace("suporte-x200", "outra").replace("4002-8922", "3456-7890")
    other = other.replace("sac@", "vendas@")
    assert sorted(v.rule for v in policy().check(other, given)) == ["email", "link", "phone"]


def test_the_store_site_alone_is_allowed_when_the_metadata_links_a_page_of_it() -> None:
    given = context_text({}, [{"support_url": SUPPORT}])
    assert policy().check("Veja em loja.example.com.br.", given) == []
    assert [v.rule for v in policy().check("Veja em example.com.br.", given)] == ["link"]


async def test_a_store_provided_link_in_the_original_answer_is_kept(
    moderator_with: Any, item: ModerationItem
) -> None:
    with_link = item.model_copy(
        update={
            "answer": item.answer + f" Manual: {SUPPORT}",
            "metadata": [*item.metadata, {"support_url": SUPPORT}],
        }
    )
    agents = Agents([CLEAN], original_score=5)
    result = await moderator_with(agents).moderate(with_link)
    assert result["outcome"] == "KEEP_ORIGINAL"
    assert SUPPORT in result["final_answer"]
    assert result["policy"]["violations"] == []
    assert agents.calls["suggester"] == []


def test_policy_none_checks_nothing_and_says_so() -> None:
    none = PolicySet.none()
    rules = none.resolve(
        category="Informática", store="", locale="pt", question="?", threshold=8, max_rewrites=3
    )
    assert rules.checks == frozenset()
    assert rules.check(WITH_PHONE + " " + IN_SPANISH + " www.outra.com.br", CONTEXT) == []
    assert rules.instructions() == []
    assert none.describe()["source"] == "none" and none.describe()["checks"] == []
    assert none.summary() == "policy: none (pure-model review: no rule is checked)"


async def test_policy_none_is_the_pure_model_review(
    moderator_with: Any, item: ModerationItem
) -> None:
    bad_original = item.model_copy(update={"answer": item.answer + " WhatsApp (11) 98765-4321."})
    agents = Agents([WITH_PHONE], original_score=5)
    result = await moderator_with(agents, policy=PolicySet.none()).moderate(bad_original)
    # The reviewers' 5 + 5 alone decide: the phone number is not the policy's business.
    assert result["outcome"] == "KEEP_ORIGINAL"
    assert [s for s in result["trail"] if s["role"] == "policy"] == []
    assert result["policy"]["violations"] == []

    flagged = Agents([WITH_PHONE])  # scores 1 + 1: rewritten, and the phone rewrite accepted
    result = await moderator_with(flagged, policy=PolicySet.none()).moderate(item)
    assert result["outcome"] == "ANSWER_REVISED" and result["final_answer"] == WITH_PHONE
    prompts = [
        str(m["content"])
        for r in flagged.calls["suggester"] + flagged.calls["rewriter"]
        for m in r.messages
    ]
    assert not any("STORE POLICY" in p for p in prompts)


def test_policy_check_names_each_problem_with_its_line(tmp_path: Path, colmeia_cli: Any) -> None:
    bad = tmp_path / "policy.yaml"
    bad.write_text(
        "default:\n  checks: [phone, fax]\n  allow: [loja.com.br]\n  colour: red\n"
        "stores:\n  Loja A: {threshold: 12}\n",
        encoding="utf-8",
    )
    code, out, err = colmeia_cli("moderate", "policy", "check", str(bad))
    assert code == 2
    lines = err.strip().splitlines()
    assert lines[0].startswith(f"{bad}:2: default.checks.1: ")
    assert lines[1].startswith(f"{bad}:4: default.colour: unknown setting")
    assert lines[2].startswith(f"{bad}:6: stores.Loja A.threshold: ")
    toml = tmp_path / "policy.toml"
    toml.write_text('[default]\nchecks = ["phone"]\n\n[stores."Loja A"]\nthreshold = 12\n')
    code, _, err = colmeia_cli("moderate", "policy", "check", str(toml))
    assert code == 2 and err.startswith(f"{toml}:5: stores.Loja A.threshold: ")
    good = tmp_path / "good.yaml"
    good.write_text("default:\n  checks: [phone, link]\n  allow: [loja.com.br]\n")
    code, out, _ = colmeia_cli("moderate", "policy", "check", str(good))
    assert code == 0 and "valid" in out and "checks phone, link" in " ".join(out.split())


def test_policy_show_explains_every_rule_of_the_default(colmeia_cli: Any) -> None:
    code, out, _ = colmeia_cli("moderate", "policy", "show")
    text = " ".join(out.split())
    assert code == 0 and "built-in default" in text
    for check in ("phone", "email", "link", "competitor", "warranty", "language", "terms"):
        assert f"{check}: " in text
    assert "given by the context/metadata" in text
    code, out, _ = colmeia_cli("moderate", "policy", "show", "none")
    assert "no check runs" in out
