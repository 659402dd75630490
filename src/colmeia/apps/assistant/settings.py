"""Settings of the institutional assistant (``COLMEIA_ASSISTANT_*``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["AssistantSettings"]


class AssistantSettings(BaseSettings):
    """Where the assistant keeps its threads, which registry and collection it reads."""

    model_config = SettingsConfigDict(
        env_prefix="COLMEIA_ASSISTANT_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
    )

    registry: str | None = Field(
        default=None,
        description="Case registry: sqlite:///path.db or http(s)://host:port "
        "(default: registry.db in COLMEIA_HOME).",
    )
    checkpoints: str | None = Field(
        default=None,
        description="Where conversations are kept: sqlite:///path.db or postgresql://… "
        "(default: assistant.db in COLMEIA_HOME).",
    )
    collection: str = Field(default="leis", description="Collection of official documents.")
    ranker: Literal["learned", "hand"] = Field(
        default="hand",
        description="How candidate articles are ordered: hand-set weights, or the learned"
        " ranker (opt-in: it does not beat the hand-set weights on the lay sets; docs/assistant.md).",
    )
    model_rerank: bool = Field(
        default=False,
        description="With a model configured, let it reorder the ranking's first six candidate"
        " articles (each shown with its caput; only the ids it was given are kept). Off: the"
        " ranking alone chooses, and a model only writes (docs/assistant.md).",
    )
    court_collection: str = Field(
        default="normas-tribunal",
        description="Collection of the court's own norms (organic law, internal rules, "
        "resolutions), quoted as the court's on a state case's deadlines and procedure.",
    )
    jurisprudence_collection: str = Field(
        default="jurisprudencia",
        description="Collection of decisions (JurisTCU statements, a court's own) that answers "
        "questions about acórdãos, súmulas and precedents.",
    )
    max_handoffs_per_turn: int = Field(
        default=4, ge=1, le=20, description="Handoffs allowed in one turn before it stops."
    )
    max_steps_per_turn: int = Field(
        default=12, ge=2, le=100, description="Model calls allowed in one turn."
    )
    history_tokens: int = Field(
        default=1500, ge=200, description="Earlier turns beyond this are summarised."
    )
    max_answer_tokens: int = Field(
        default=700, ge=64, description="Most tokens a model may write in one agent step."
    )
    # Not 0 by default: at 0 the 0.5B model looped to the step cap on "Preciso saber do andamento
    # do meu processo" in 2 of 3 real-model runs (tests/real_model), where the server's own
    # sampling let it ask for the number; set 0 for runs that must repeat.
    temperature: float | None = Field(
        default=None,
        ge=0,
        le=2,
        description="Sampling temperature of every model call of the assistant (0: the same "
        "question routes and reads the same each run; empty: the model server's default).",
    )
    routing: Literal["frame", "agents"] = Field(
        default="frame",
        description="How a turn is routed with a model: read into the turn frame and "
        "dispatched in code (the model fills the frame where the classifier is unsure and "
        "writes no route), or the earlier path where the agents choose tools.",
    )
    frame_by_model_below: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="With a model: below this confidence of the turn classifier, the model "
        "fills the turn's frame (its slots checked by the parsers); 1: every turn, 0: never.",
    )
    institutional: str | None = Field(
        default=None,
        description="The court's own file of institutional answers (opening hours, contacts, "
        "address, how to file), YAML or JSON; empty: the shipped example "
        "(see colmeia.apps.assistant.institutional).",
    )
    approval_tools: str = Field(
        default="web_search,subscribe_updates",
        description="Tools that need a person's approval before they run (comma-separated).",
    )

    def registry_url(self, home: Path) -> str:
        return self.registry or f"sqlite:///{home / 'registry.db'}"

    def checkpoints_url(self, home: Path) -> str:
        return self.checkpoints or f"sqlite:///{home / 'assistant.db'}"
