"""Helpers the service tests import by name (a conftest is for fixtures only: see
tests/test_suite_layout.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from colmeia.service.settings import ServiceSettings


def service_settings(home: Path, **overrides: Any) -> ServiceSettings:
    base: dict[str, Any] = {
        "db": f"sqlite:///{home / 'service.db'}",
        "redis_url": None,
        "otlp_endpoint": None,
        "log_format": "text",
        "job_lease_s": 5.0,
        # tests poll job status many times a minute (a moderation job at load 12 takes 20 s:
        # 120 polls hit the default limit and the poll got a 429); limits are tested with keys
        # that set their own (svc.key(..., rate_limit=3))
        "rate_limit_per_minute": 1_000_000,
    }
    base.update(overrides)
    return ServiceSettings(**base)
