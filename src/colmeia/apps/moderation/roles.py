"""Per-role configuration of the moderation agents: which model, temperature and limits.

By default every role uses the ``COLMEIA_LLM_*`` model. Any role can be pointed elsewhere —
the common setup is a cheaper model for the two reviewers — through environment variables
or a TOML/JSON file::

    COLMEIA_MODERATION_REVIEWER_MODEL=qwen3-4b      # both reviewers
    COLMEIA_MODERATION_DECIDER_TEMPERATURE=0
    COLMEIA_MODERATION_THRESHOLD=8
    COLMEIA_MODERATION_MAX_REWRITES=3
    COLMEIA_MODERATION_AUDIT_LANGUAGE=pt-BR           # justifications always in one language
    COLMEIA_MODERATION_POLICY=policy.yaml             # or none: see colmeia.apps.moderation.policy
    COLMEIA_MODERATION_CONFIG=moderation.toml        # same keys, file form below

    threshold = 8
    max_rewrites = 3
    audit_language = "pt-BR"
    policy = "policy.yaml"
    [roles.reviewer]
    model = "qwen3-4b"
    price_input_per_mtok = 0.15     # USD per million tokens, for the cost in the trail
    price_output_per_mtok = 0.60
    [roles.rewriter]
    temperature = 0.3

``reviewer`` sets both ``semantic`` and ``contextual``; a setting on one of them wins.
Environment variables win over the file.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from colmeia.config import LLMSettings
from colmeia.errors import ConfigurationError
from colmeia.llm.base import ChatModel

__all__ = [
    "AUDIT_LANGUAGES",
    "ROLES",
    "ModerationConfig",
    "Role",
    "RoleConfig",
    "RoleModel",
    "build_role_models",
    "load_config",
    "role_prices",
]

Role = Literal["semantic", "contextual", "suggester", "rewriter", "decider"]
ROLES: tuple[Role, ...] = ("semantic", "contextual", "suggester", "rewriter", "decider")
_GROUPS = {"reviewer": ("semantic", "contextual")}
# Language of justifications, suggestions and reasons (the audit trail), as the prompts name it.
AUDIT_LANGUAGES: dict[str, str] = {
    "en": "English",
    "pt-BR": "Brazilian Portuguese",
    "es": "Spanish",
}
_ENV_PREFIX = "COLMEIA_MODERATION_"


class RoleConfig(BaseModel):
    """Overrides for one role; anything left unset falls back to ``COLMEIA_LLM_*``."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(default=None, description="Model name for this role.")
    base_url: str | None = Field(default=None, description="Another server for this role.")
    api_key: SecretStr | None = Field(default=None, description="Key for that server.")
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)
    price_input_per_mtok: float | None = Field(
        default=None, ge=0, description="Price per million prompt tokens of this role's model."
    )
    price_output_per_mtok: float | None = Field(
        default=None, ge=0, description="Price per million completion tokens."
    )

    def merged(self, over: RoleConfig) -> RoleConfig:
        """This config with every field ``over`` sets replaced."""
        return self.model_copy(update=over.model_dump(exclude_unset=True))


class ModerationConfig(BaseModel):
    """Everything the moderation graph can be tuned with."""

    model_config = ConfigDict(extra="forbid")

    threshold: float = Field(
        default=8.0, ge=0, le=10, description="Keep the original when semantic + contextual > this."
    )
    max_rewrites: int = Field(default=3, ge=1, le=10, description="Hard cap on rewrites.")
    audit_language: Literal["en", "pt-BR", "es"] = Field(
        default="en", description="Language of every justification, suggestion and reason."
    )
    policy: Path | None = Field(default=None, description="Policy file (YAML/TOML/JSON).")
    context_collection: str | None = Field(
        default=None,
        description="RAG collection of the products' own documents (manuals, specifications, "
        "FAQ): their passages go to the contextual reviewer, suggester, rewriter and decider.",
    )
    context_store: str | None = Field(
        default=None, description="Store of the context collection (default: COLMEIA_STORE)."
    )
    context_passages: int = Field(
        default=3, ge=1, le=20, description="Passages of the product's documents per record."
    )
    roles: dict[
        Literal["reviewer", "semantic", "contextual", "suggester", "rewriter", "decider"],
        RoleConfig,
    ] = Field(default_factory=dict)

    def role(self, role: Role) -> RoleConfig:
        """The effective settings of one role (group settings, then the role's own)."""
        out = RoleConfig()
        for group, members in _GROUPS.items():
            if role in members and group in self.roles:
                out = out.merged(self.roles[group])
        if role in self.roles:
            out = out.merged(self.roles[role])
        return out


def _from_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigurationError(
            f"{path}: cannot read the moderation config ({exc.strerror})"
        ) from None
    try:
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"{path}: not valid {path.suffix[1:].upper()} ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path}: expected a table/object at the top level")
    return data


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for name, value in env.items():
        if not name.startswith(_ENV_PREFIX) or name == _ENV_PREFIX + "CONFIG":
            continue
        rest = name[len(_ENV_PREFIX) :].lower()
        if rest in (
            "threshold",
            "max_rewrites",
            "audit_language",
            "policy",
            "context_collection",
            "context_store",
            "context_passages",
        ):
            data[rest] = value
            continue
        for role in (*_GROUPS, *ROLES):
            if rest.startswith(role + "_"):
                data.setdefault("roles", {}).setdefault(role, {})[rest[len(role) + 1 :]] = value
                break
        else:
            raise ConfigurationError(
                f"{name}: unknown setting; use COLMEIA_MODERATION_THRESHOLD, _MAX_REWRITES, "
                "_AUDIT_LANGUAGE, _POLICY, _CONTEXT_COLLECTION, _CONTEXT_STORE, _CONTEXT_PASSAGES or _<ROLE>_<MODEL|BASE_URL|API_KEY|TEMPERATURE|"
                f"MAX_TOKENS|PRICE_INPUT_PER_MTOK|PRICE_OUTPUT_PER_MTOK> with ROLE one of "
                f"REVIEWER, {', '.join(r.upper() for r in ROLES)}"
            )
    return data


def load_config(
    path: Path | str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    **overrides: Any,
) -> ModerationConfig:
    """Read the moderation config: file (``path`` or ``COLMEIA_MODERATION_CONFIG``), then
    environment, then explicit ``overrides`` (e.g. ``threshold=7`` from the command line)."""
    env = os.environ if env is None else env
    data: dict[str, Any] = {}
    file = path or env.get(_ENV_PREFIX + "CONFIG")
    if file:
        data = _from_file(Path(file))
        policy = data.get("policy")
        if isinstance(policy, str) and policy != "none" and not Path(policy).is_absolute():
            data["policy"] = str(Path(file).parent / data["policy"])  # relative to the file
    from_env = _from_env(env)
    for role, values in from_env.pop("roles", {}).items():
        data.setdefault("roles", {}).setdefault(role, {}).update(values)
    data.update(from_env)
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return ModerationConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise ConfigurationError(f"moderation config is invalid: {problems}") from None


@dataclass(frozen=True, slots=True)
class RoleModel:
    """The model one role calls, with that role's call options and where it is served."""

    model: ChatModel
    temperature: float | None
    max_tokens: int | None
    base_url: str = ""
    price_input_per_mtok: float = 0.0
    price_output_per_mtok: float = 0.0


def build_role_models(
    config: ModerationConfig, llm: LLMSettings | None = None
) -> dict[Role, RoleModel]:
    """One client per distinct endpoint/model/prices, shared by the roles that use it."""
    from colmeia.llm.openai_compat import OpenAIChatModel  # the HTTP client is only for real runs

    llm = llm or LLMSettings()
    clients: dict[tuple[str | None, str, str, float, float], ChatModel] = {}
    out: dict[Role, RoleModel] = {}
    for role in ROLES:
        rc = config.role(role)
        base_url = rc.base_url or llm.base_url
        name = rc.model or llm.model
        key = rc.api_key.get_secret_value() if rc.api_key else llm.api_key.get_secret_value()
        price_in = _first(rc.price_input_per_mtok, llm.price_input_per_mtok)
        price_out = _first(rc.price_output_per_mtok, llm.price_output_per_mtok)
        ident = (base_url, name, key, price_in, price_out)
        if ident not in clients:
            overrides: dict[str, Any] = {
                "model": name,
                "price_input_per_mtok": price_in,
                "price_output_per_mtok": price_out,
            }
            if rc.base_url:
                overrides["base_url"] = base_url
            if rc.api_key:
                overrides["api_key"] = key
            clients[ident] = OpenAIChatModel.from_settings(llm, **overrides)
        temperature = rc.temperature if rc.temperature is not None else llm.temperature
        if temperature is None:
            temperature = 0.0  # repeatable runs unless a temperature is set (the paper's 0.0)
        max_tokens = rc.max_tokens if rc.max_tokens is not None else llm.max_tokens
        out[role] = RoleModel(
            clients[ident], temperature, max_tokens, base_url or "", price_in, price_out
        )
    return out


def _first(value: float | None, default: float) -> float:
    return default if value is None else value


def role_prices(
    config: ModerationConfig, llm: LLMSettings | None = None
) -> dict[str, tuple[float, float]]:
    """Each role's (prompt, completion) price per million tokens, as configured."""
    llm = llm or LLMSettings()
    out: dict[str, tuple[float, float]] = {}
    for role in ROLES:
        rc = config.role(role)
        out[role] = (
            _first(rc.price_input_per_mtok, llm.price_input_per_mtok),
            _first(rc.price_output_per_mtok, llm.price_output_per_mtok),
        )
    return out
