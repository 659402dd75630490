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
