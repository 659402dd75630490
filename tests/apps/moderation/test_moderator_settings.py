"""What a ``Moderator`` is built with, and what each item is then judged by: a bad setting is
refused at once with one line naming it (before any item is sent), and the threshold and
rewrite cap given are the defaults a policy file may change per category or store.

No model is reached: the clients point at a closed port on 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.policy import PolicyFile, PolicySet
from colmeia.apps.moderation.records import ModerationItem, agent_view
from colmeia.apps.moderation.roles import ROLES, RoleModel
from colmeia.errors import ConfigurationError
from colmeia.llm.openai_compat import OpenAIChatModel


@pytest.fixture
async def model() -> AsyncIterator[OpenAIChatModel]:
    client = OpenAIChatModel(base_url="http://127.0.0.1:9/v1", model="sim", max_retries=0)
    yield client
    await client.aclose()


ITEM = ModerationItem.model_validate(
    {
        "id": 7,
        "question": "Serve na parede?",
        "answer": "Sim.",
        "category": "Construção",
        "locale": "es",
        "metadata": [{"store": "Loja Centro"}],
    }
)


def test_one_rewrite_is_the_smallest_cap_and_none_is_refused(model: OpenAIChatModel) -> None:
    assert Moderator(model, max_rewrites=1).policy_for(ITEM).max_rewrites == 1
    with pytest.raises(ConfigurationError) as err:
        Moderator(model, max_rewrites=0)
    assert str(err.value) == "max_rewrites must be at least 1"


def test_an_audit_language_the_prompts_do_not_speak_is_refused_naming_the_ones_they_do(
    model: OpenAIChatModel,
) -> None:
    for supported in ("en", "pt-BR", "es"):
        assert Moderator(model, audit_language=supported).audit_language == supported
    with pytest.raises(ConfigurationError) as err:
        Moderator(model, audit_language="fr")
    assert str(err.value) == "audit language 'fr' is not supported; use one of en, pt-BR, es"


def test_a_role_without_a_model_is_refused_naming_every_missing_role(
    model: OpenAIChatModel,
) -> None:
    partial = {r: RoleModel(model, 0.2, 100) for r in ROLES if r not in ("suggester", "decider")}
    with pytest.raises(ConfigurationError) as err:
        Moderator(partial)  # type: ignore[arg-type]
    assert str(err.value) == "no model configured for role(s): suggester, decider"


def test_one_model_serves_every_role_at_temperature_zero_with_the_servers_token_limit(
    model: OpenAIChatModel,
) -> None:
    moderator = Moderator(model)
    assert list(moderator.models) == list(ROLES)
    for role in ROLES:
        assert moderator.models[role] == RoleModel(model, 0.0, None), role


def test_a_model_per_role_is_kept_as_given(model: OpenAIChatModel) -> None:
    given = {r: RoleModel(model, 0.1 * i, 100 * i) for i, r in enumerate(ROLES, 1)}
    assert Moderator(given).models == given  # type: ignore[arg-type]


def test_the_threshold_and_cap_given_are_what_an_item_is_judged_by_without_a_policy_file(
    model: OpenAIChatModel,
) -> None:
    policy = Moderator(model, threshold=6.5, max_rewrites=2).policy_for(ITEM)
    assert (policy.threshold, policy.max_rewrites) == (6.5, 2)
    assert policy.language == "es"  # the record's locale: the default policy's language rule
    assert (
        policy.name
        == PolicySet()
        .resolve(
            category="Construção", store="", locale="es", question="?", threshold=8, max_rewrites=3
        )
        .name
    )
    defaults = Moderator(model).policy_for(ITEM)
    assert (defaults.threshold, defaults.max_rewrites) == (8.0, 3)


def test_the_store_section_of_a_policy_applies_to_a_record_but_not_to_its_agent_view(
    model: OpenAIChatModel,
) -> None:
    """The store is read from the record's metadata, which the agents' view does not carry."""
    policies = PolicySet(
        PolicyFile.model_validate(
            {
                "store_field": "metadata.store",
                "categories": {"construção": {"threshold": 7}},
                "stores": {"Loja Centro": {"max_rewrites": 1, "language": "pt"}},
            }
        )
    )
    moderator = Moderator(model, policy=policies)
    on_record = moderator.policy_for(ITEM)
    assert (on_record.threshold, on_record.max_rewrites, on_record.language) == (7, 1, "pt")
    assert "store loja centro" in on_record.name
    on_view = moderator.policy_for(agent_view(ITEM))
    assert (on_view.threshold, on_view.max_rewrites, on_view.language) == (7, 3, "es")
    assert "store" not in on_view.name


def test_a_record_without_a_locale_is_held_to_its_questions_language_when_clear(
    model: OpenAIChatModel,
) -> None:
    moderator = Moderator(model)
    clear = ITEM.model_copy(
        update={"locale": None, "question": "¿Sirve para instalar en la pared del baño?"}
    )
    assert moderator.policy_for(clear).language == "es"
    assert moderator.policy_for(agent_view(clear)).language == "es"
    unclear = ITEM.model_copy(update={"locale": None, "question": "Ok?"})
    assert moderator.policy_for(unclear).language is None
