"""Per-role models and settings: a cheaper model for the reviewers is a supported setup."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.records import ModerationItem
from colmeia.apps.moderation.roles import build_role_models, load_config
from colmeia.config import LLMSettings
from colmeia.errors import ConfigurationError
from colmeia.sim.engine import SimRequest, SimulatedModel
from shared_data import DATA_DIR

DATA = DATA_DIR / "moderation/sample_items.json"


def test_file_then_environment_then_arguments(tmp_path: Path) -> None:
    path = tmp_path / "moderation.toml"
    path.write_text(
        'threshold = 7\nmax_rewrites = 2\n[roles.reviewer]\nmodel = "small"\ntemperature = 0.0\n'
        '[roles.contextual]\nmodel = "medium"\n',
        encoding="utf-8",
    )
    env = {"COLMEIA_MODERATION_DECIDER_TEMPERATURE": "0.2", "COLMEIA_MODERATION_MAX_REWRITES": "3"}
    cfg = load_config(path, env=env, threshold=6.5)
    assert cfg.threshold == 6.5  # argument wins
    assert cfg.max_rewrites == 3  # environment beats the file
    assert cfg.role("semantic").model == "small"
    assert cfg.role("contextual").model == "medium"  # the role's own setting beats the group
    assert cfg.role("contextual").temperature == 0.0
    assert cfg.role("decider").temperature == 0.2
    assert cfg.role("rewriter").model is None  # falls back to COLMEIA_LLM_MODEL


def test_defaults_without_any_configuration() -> None:
    cfg = load_config(env={})
    assert (cfg.threshold, cfg.max_rewrites) == (8.0, 3)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"COLMEIA_MODERATION_JUDGE_MODEL": "x"}, "unknown setting"),
        ({"COLMEIA_MODERATION_REVIEWER_COLOUR": "x"}, "colour"),
        ({"COLMEIA_MODERATION_THRESHOLD": "eleven"}, "threshold"),
        ({"COLMEIA_MODERATION_MAX_REWRITES": "0"}, "max_rewrites"),
    ],
)
def test_bad_settings_are_refused_with_the_name(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        load_config(env=env)


@pytest.fixture
def item() -> ModerationItem:
    return ModerationItem.model_validate(json.loads(DATA.read_text(encoding="utf-8"))[0])


async def test_reviewers_use_the_cheaper_model(sim_server: Any, item: ModerationItem) -> None:
    seen: Counter[tuple[str, str]] = Counter()

    def responder(req: SimRequest) -> dict[str, Any]:
        title = str((req.schema or {}).get("title"))
        seen[(title, req.model)] += 1
        if title.endswith("Review"):
            return {"justification": "Ok.", "score": 1}
        if title == "Suggestions":
            return {"suggestions": ["Responda a pergunta."]}
        if title == "Rewrite":
            return {"can_rewrite": True, "answer": "Hola, sí. Saludos.", "reason": ""}
        return {"reasoning": "Bien.", "decision": "answer"}

    srv = sim_server(SimulatedModel(responder=responder))
    cfg = load_config(env={"COLMEIA_MODERATION_REVIEWER_MODEL": "small"})
    models = build_role_models(cfg, LLMSettings(base_url=srv.base_url, model="big"))
    assert models["semantic"].model is models["contextual"].model  # one client per model
    assert models["suggester"].model is models["decider"].model
    try:
        result = await Moderator(models).moderate(item)
    finally:
        for client in {id(m.model): m.model for m in models.values()}.values():
            await client.aclose()  # type: ignore[attr-defined]
    assert result["outcome"] == "ANSWER_REVISED"
    assert seen == Counter(
        {
            ("SemanticReview", "small"): 2,
            ("ContextualReview", "small"): 2,
            ("Suggestions", "big"): 1,
            ("Rewrite", "big"): 1,
            ("Decision", "big"): 1,
        }
    )
    assert {step["model"] for step in result["trail"] if step["role"] == "semantic"} == {"small"}


async def test_each_role_is_priced_with_its_own_model_price(
    sim_server: Any, item: ModerationItem, tmp_path: Path
) -> None:
    path = tmp_path / "moderation.toml"
    path.write_text(
        '[roles.reviewer]\nmodel = "small"\nprice_input_per_mtok = 0.1\nprice_output_per_mtok = 0.4\n'
        "[roles.decider]\nprice_input_per_mtok = 5.0\nprice_output_per_mtok = 15.0\n",
        encoding="utf-8",
    )
    srv = sim_server(SimulatedModel(schema_mode=True, seed=3))
    llm = LLMSettings(base_url=srv.base_url, model="big", price_input_per_mtok=1.0)
    models = build_role_models(load_config(path, env={}), llm)
    assert (models["semantic"].price_input_per_mtok, models["semantic"].price_output_per_mtok) == (
        0.1,
        0.4,
    )
    assert models["suggester"].price_input_per_mtok == 1.0  # COLMEIA_LLM_PRICE_* by default
    assert models["decider"].model is not models["suggester"].model  # same model, other price
    try:
        result = await Moderator(models).moderate(item)
    finally:
        for client in {id(m.model): m.model for m in models.values()}.values():
            await client.aclose()  # type: ignore[attr-defined]
    for step in result["trail"]:
        if step["role"] == "policy":
            continue
        price_in, price_out = {
            "semantic": (0.1, 0.4),
            "contextual": (0.1, 0.4),
            "decider": (5.0, 15.0),
        }.get(step["role"], (1.0, 0.0))
        expected = (step["prompt_tokens"] * price_in + step["completion_tokens"] * price_out) / 1e6
        assert step["cost"] == pytest.approx(expected), step["role"]


def test_audit_language_and_policy_come_from_config_and_environment(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text("default: {competitors: [Magalu]}\n", encoding="utf-8")
    path = tmp_path / "moderation.toml"
    path.write_text('audit_language = "pt-BR"\npolicy = "policy.yaml"\n', encoding="utf-8")
    cfg = load_config(path, env={})
    assert cfg.audit_language == "pt-BR"
    assert cfg.policy == tmp_path / "policy.yaml"  # relative to the config file
    cfg = load_config(path, env={"COLMEIA_MODERATION_AUDIT_LANGUAGE": "es"})
    assert cfg.audit_language == "es"
    with pytest.raises(ConfigurationError, match="audit_language"):
        load_config(env={"COLMEIA_MODERATION_AUDIT_LANGUAGE": "fr"})
