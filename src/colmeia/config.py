"""Settings: every ``COLMEIA_*`` variable, read from the environment and a ``.env`` file.

Each section is its own settings class with its own prefix, so the variables read naturally
(``COLMEIA_LLM_BASE_URL``, ``COLMEIA_EMBEDDINGS_MODEL``) and unknown keys are refused.
Sections are read when first used (``settings.llm``), so a bad model setting stops only the
commands that need a model: ``colmeia search`` does not read ``COLMEIA_LLM_*``. A bad value is
a :class:`~colmeia.errors.ConfigurationError` naming the variable, never a validation dump.
Factories that turn settings into clients live next to the clients, not here.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from colmeia.errors import ConfigurationError

__all__ = [
    "EmbeddingsSettings",
    "LLMSettings",
    "Provider",
    "RerankSettings",
    "SearchSettings",
    "Settings",
    "SettingsSection",
    "get_settings",
    "settings_error",
]

Provider = Literal["openai", "azure", "ollama", "vllm", "llamacpp", "generic"]


def _section(prefix: str) -> SettingsConfigDict:
    return SettingsConfigDict(
        env_prefix=prefix,
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",  # a .env holds every section's keys; each section reads its own
        validate_default=True,
    )


def settings_error(cls: type[BaseSettings], exc: ValidationError) -> ConfigurationError:
    """One line per bad value, naming the variable: ``COLMEIA_LLM_MAX_RETRIES='abc': …``."""
    prefix = str(cls.model_config.get("env_prefix", ""))
    problems = []
    for err in exc.errors(include_url=False):
        field = ".".join(str(part) for part in err["loc"]) or "?"
        value = err.get("input")
        shown = "" if isinstance(value, dict) or value is None else f"={str(value)[:60]!r}"
        problems.append(f"{prefix}{field.upper()}{shown}: {err['msg']}")
    return ConfigurationError(
        "; ".join(problems) + " (fix the environment variable or the .env file)"
    )


class SettingsSection(BaseSettings):
    """A settings class whose bad values raise :class:`ConfigurationError` naming the variable."""

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise settings_error(type(self), exc) from None


class LLMSettings(SettingsSection):
    """Where the chat model is and how to call it (``COLMEIA_LLM_*``)."""

    model_config = _section("COLMEIA_LLM_")

    base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 for Ollama.",
    )
    model: str = Field(default="", description="Model name as the server knows it.")
    api_key: SecretStr = Field(
        default=SecretStr(""), description="API key; local servers accept anything."
    )
    provider: Provider = Field(
        default="generic", description="Preset of server-specific knobs (reasoning off, …)."
    )
    api_version: str = Field(
        default="2024-10-21", description="Azure OpenAI API version (provider=azure only)."
    )
    timeout: float = Field(default=60.0, gt=0, description="Seconds for one HTTP request.")
    deadline: float = Field(
        default=300.0, gt=0, description="Seconds for one call including all its retries."
    )
    max_retries: int = Field(
        default=3, ge=0, le=20, description="Retries on 5xx, connection errors and timeouts."
    )
    max_rate_limit_retries: int = Field(
        default=8, ge=0, le=50, description="Retries on 429, each waiting as Retry-After says."
    )
    max_repairs: int = Field(
        default=4,
        ge=0,
        le=20,
        description="Extra attempts when output is prose, truncated or fails validation.",
    )
    max_concurrency: int = Field(
        default=64, ge=1, le=4096, description="Requests in flight at once per endpoint."
    )
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)
    structured_mode: Literal["auto", "json_schema", "json_object", "tool", "prompt"] = Field(
        default="auto",
        description="How structured output is asked for; auto learns what the server honours.",
    )
    price_input_per_mtok: float = Field(default=0.0, ge=0, description="Cost per 1M prompt tokens.")
    price_output_per_mtok: float = Field(
        default=0.0, ge=0, description="Cost per 1M completion tokens."
    )

    @field_validator("base_url")
    @classmethod
    def _strip_slash(cls, v: str | None) -> str | None:
        return v.rstrip("/") if v else v


class EmbeddingsSettings(SettingsSection):
    """Optional dense embeddings (``COLMEIA_EMBEDDINGS_*``). Nothing is ever downloaded."""

    model_config = _section("COLMEIA_EMBEDDINGS_")

    base_url: str | None = Field(default=None, description="OpenAI-compatible /embeddings host.")
    model: str = Field(default="", description="Embedding model name on that server.")
    api_key: SecretStr = Field(default=SecretStr(""))
    path: Path | None = Field(
        default=None, description="A local sentence-transformers model directory instead."
    )
    batch_size: int = Field(default=64, ge=1, le=4096)


class RerankSettings(SettingsSection):
    """Optional reranking (``COLMEIA_RERANK_*``)."""

    model_config = _section("COLMEIA_RERANK_")

    kind: Literal["none", "llm", "http"] = Field(default="none")
    base_url: str | None = Field(default=None, description="Cohere/Jina/TEI-compatible /rerank.")
    model: str = Field(default="")
    api_key: SecretStr = Field(default=SecretStr(""))
    top_n: int = Field(default=20, ge=1, le=1000, description="Candidates passed to the reranker.")


class SearchSettings(SettingsSection):
    """Web search tool (``COLMEIA_SEARCH_*``); disabled until a URL is set."""

    model_config = _section("COLMEIA_SEARCH_")

    kind: Literal["searxng", "tavily", "serpapi"] = Field(default="searxng")
    url: str | None = Field(default=None, description="Search API endpoint.")
    api_key: SecretStr = Field(default=SecretStr(""))
    allow_private: bool = Field(
        default=False, description="Let tools contact private/loopback addresses."
    )


class Settings(SettingsSection):
    """All of colmeia's settings (``COLMEIA_*``); each section is read when first used."""

    model_config = _section("COLMEIA_")

    home: Path = Field(default=Path(".colmeia"), description="Data folder for embedded stores.")
    store: str | None = Field(
        default=None,
        description="sqlite:///path, a plain path, or postgresql://…; default: SQLite in home.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="WARNING", description="How much colmeia logs (-v is INFO)."
    )
    ingest_memory_mb: int = Field(
        default=2048,
        description="Most memory (address space, MB) the process reading one file during "
        "ingestion may use; a file that needs more fails with 'too much memory' and the rest "
        "is ingested. 0 reads in the ingesting process itself, unbounded.",
    )

    def __init__(self, **values: Any) -> None:
        # A section given as an object (Settings(llm=LLMSettings(...))) is used as is; the
        # others are read from the environment when first used.
        given = {k: values.pop(k) for k in _SECTIONS if k in values}
        super().__init__(**values)
        for name, section in given.items():
            expected = _SECTIONS[name]
            if not isinstance(section, expected):
                section = expected(**dict(section))
            self.__dict__[name] = section

    @field_validator("ingest_memory_mb")
    @classmethod
    def _memory(cls, v: int) -> int:
        if v != 0 and v < 64:
            raise ValueError("use 0 (no bound) or at least 64 MB")
        return v

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, v: object) -> object:
        return v.strip().upper() if isinstance(v, str) else v

    @cached_property
    def llm(self) -> LLMSettings:
        """``COLMEIA_LLM_*``."""
        return LLMSettings()

    @cached_property
    def embeddings(self) -> EmbeddingsSettings:
        """``COLMEIA_EMBEDDINGS_*``."""
        return EmbeddingsSettings()

    @cached_property
    def rerank(self) -> RerankSettings:
        """``COLMEIA_RERANK_*``."""
        return RerankSettings()

    @cached_property
    def search(self) -> SearchSettings:
        """``COLMEIA_SEARCH_*``."""
        return SearchSettings()

    def store_url(self) -> str:
        """The store URL, defaulting to a SQLite file inside ``home``."""
        if not self.store:
            return f"sqlite:///{self.home / 'colmeia.db'}"
        if "://" not in self.store:
            return f"sqlite:///{self.store}"
        return self.store


_SECTIONS: dict[str, type[SettingsSection]] = {
    "llm": LLMSettings,
    "embeddings": EmbeddingsSettings,
    "rerank": RerankSettings,
    "search": SearchSettings,
}


def get_settings(**overrides: object) -> Settings:
    """Read settings fresh from the environment and ``.env`` (overrides win).

    Raises:
        ConfigurationError: a ``COLMEIA_*`` value is invalid (the message names it).
    """
    return Settings(**overrides)
